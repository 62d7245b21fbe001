/*
 * libFuzzer target for the parent's reading of /proc/PID/stat
 * (common/procstat.c): any bytes, as a child could sway them through
 * the name it gives itself, parse or are refused, never read past their
 * end; nothing parses without the ')' that ends the name.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t	 ticks = 0, pages = 0;
	char		*copy;

	/* an exact-size copy: ASan sees a read past its end */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return (0);
	memcpy(copy, data, size);
	if (procstat_parse(copy, size, &ticks, &pages) == 0 &&
	    memrchr(copy, ')', size) == NULL)
		abort();	/* parsed without the name's end */
	free(copy);
	return (0);
}
