/*
 * libFuzzer target for the text of warm windows and scheduled wakes
 * (common/sched.c), which the API takes from any key holder: any bytes
 * parse or are refused with an error, never read past their end; a
 * schedule that parses has a next time that is computed within bounds,
 * in UTC and in a zone with summer time.  The first byte picks the kind.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schedule.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	char			*text, err[256];
	time_t			 s, e, now = 1774000000;

	if (size < 1)
		return (0);
	/* a terminated copy of the exact size: ASan sees a read past it */
	if ((text = malloc(size)) == NULL)
		return (0);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	err[0] = '\0';
	if (sched_parse(data[0] & 1 ? SCHED_WAKE : SCHED_WINDOW, text, &sp,
	    err, sizeof(err)) == 0) {
		if (sched_tz_parse("CET-1CEST,M3.5.0,M10.5.0/3", &tz) != 0)
			abort();
		if (sched_next(&sp, &tz, now, &s, &e) == 0 && e <= now)
			abort();	/* a next that ended already */
	} else if (err[0] == '\0')
		abort();		/* refused without a word */
	(void)sched_tz_parse(text, &tz);
	free(text);
	return (0);
}
