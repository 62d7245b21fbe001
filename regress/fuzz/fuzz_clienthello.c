/*
 * libFuzzer target for the ClientHello a TLS listener peeks before the
 * handshake (gatewayd/clienthello.c): any bytes, and every prefix of
 * them as the socket may have them, parse in bounds; a name found is a
 * lower-case DNS name.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../gatewayd/clienthello.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_name(const struct clienthello *ch)
{
	const char	*p;

	for (p = ch->name; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.'))
			abort();
	if (p - ch->name >= CH_NAME_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct clienthello	 ch;
	uint8_t			*copy;
	enum ch_result		 r, whole;

	if (size > CH_RECORD_MAX + 16)
		return (0);
	/* a copy of its exact size: a read past it is ASan's to catch */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return (0);
	memcpy(copy, data, size);
	whole = clienthello_parse(copy, size, &ch);
	if (whole == CH_OK)
		check_name(&ch);
	else if (ch.name[0] != '\0')
		abort();
	/* a shorter read never sees what the whole one refused as good */
	r = clienthello_parse(copy, size / 2, &ch);
	if (r == CH_OK && whole != CH_OK)
		abort();
	free(copy);
	return (0);
}
