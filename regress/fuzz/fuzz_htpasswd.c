/*
 * libFuzzer target for the gate's parsers of text: an htpasswd line as
 * the parent reads it (orchd/htpasswd.c), and the strings of a
 * definition the gate parses (common/gate.c): an "allow"/"deny" entry,
 * the auth service's URL, a header name, a hash.  The input is split
 * at newlines, each line given to each parser; what they accept is
 * checked against what they promise.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "gate.h"
#include "msg.h"
#include "htpasswd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
one_line(const char *line)
{
	struct cfg_htuser	 u;
	struct gate_rule	 r;
	const char		*why, *path;
	char			 host[64];
	int			 port;

	if (htpasswd_line(line, &u, &why) == 1) {
		if (memchr(u.user, '\0', sizeof(u.user)) == NULL ||
		    memchr(u.hash, '\0', sizeof(u.hash)) == NULL ||
		    u.user[0] == '\0' || !gate_hash_ok(u.hash))
			abort();
	}
	(void)gate_rule_parse(line, &r);
	if (gate_url_split(line, host, sizeof(host), &port, &path) == 0) {
		if (port < 1 || port > 65535 || path[0] != '/' ||
		    memchr(host, '\0', sizeof(host)) == NULL)
			abort();
	}
	(void)gate_header_name_ok(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char	*buf, *line, *nl;

	if (len > 65536 || (buf = malloc(len + 1)) == NULL)
		return (0);
	memcpy(buf, data, len);
	buf[len] = '\0';
	for (line = buf; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		one_line(line);
	}
	free(buf);
	return (0);
}
