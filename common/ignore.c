/*
 * "ignore" rules, the requests that are not use: their patterns, their
 * networks and their checks, for the parser, the JSON form and the
 * gateway that matches them.
 *
 * The patterns are sh(1) globs: '*', '?', '[...]' (a range, '!' or '^'
 * to negate) and '\' before a character meant as itself; '*' matches
 * '/' too, and a byte is a character.  They are matched by glob_match(),
 * not fnmatch(3): a pattern may come from an API key holder and the
 * string from any client, and fnmatch backtracks without bound on a
 * pattern of many stars, where this takes at most one pass of the string
 * per character of the pattern.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ignore.h"
#include "msg.h"
#include "workload.h"

/*
 * c against the class that starts at p, just past its '['.  *end is set
 * past its ']'.  An unterminated class matches nothing.
 */
static int
class_match(const char *p, unsigned char c, const char **end)
{
	unsigned char	 lo, hi;
	int		 neg = 0, in = 0;

	*end = p;
	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	/* a ']' first is itself */
	do {
		if (*p == '\0')
			return (0);
		if (*p == '\\' && p[1] != '\0')
			p++;
		lo = hi = (unsigned char)*p++;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			p++;
			if (*p == '\\' && p[1] != '\0')
				p++;
			hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			in = 1;
	} while (*p != ']');
	*end = p + 1;
	return (in != neg);
}

/*
 * Does s, len bytes and not NUL-terminated, match pat as a whole?  When
 * a character does not match, the last star takes one more character
 * and the rest of the pattern is tried again from there: stars before
 * it never need to take more, since it can take anything they would.
 */
int
glob_match(const char *pat, const char *s, size_t len)
{
	const char	*p = pat, *star = NULL, *next;
	size_t		 i = 0, mark = 0;

	while (i < len) {
		switch (*p) {
		case '*':
			while (*p == '*')
				p++;
			star = p;
			mark = i;
			continue;
		case '?':
			p++;
			i++;
			continue;
		case '[':
			if (class_match(p + 1, s[i], &next)) {
				p = next;
				i++;
				continue;
			}
			break;
		case '\\':
			if (p[1] != '\0' && p[1] == s[i]) {
				p += 2;
				i++;
				continue;
			}
			break;
		case '\0':
			break;
		default:
			if (*p == s[i]) {
				p++;
				i++;
				continue;
			}
			break;
		}
		if (star == NULL)
			return (0);
		p = star;
		i = ++mark;
	}
	while (*p == '*')
		p++;
	return (*p == '\0');
}

/* a pattern glob_match() reads as written: classes closed, no lone '\' */
int
glob_valid(const char *pat)
{
	const char	*p = pat;

	if (*p == '\0' || strlen(pat) >= ORCHD_PATTERN_MAX)
		return (0);
	while (*p != '\0') {
		if (*p == '\\') {
			if (p[1] == '\0')
				return (0);
			p += 2;
			continue;
		}
		if (*p++ != '[')
			continue;
		if (*p == '!' || *p == '^')
			p++;
		if (*p == ']')
			p++;
		for (; *p != ']'; p++) {
			if (*p == '\0')
				return (0);
			if (*p == '\\' && *++p == '\0')
				return (0);
		}
		p++;
	}
	return (1);
}

/*
 * "192.0.2.0/24", "2001:db8::/32", "192.0.2.7" (a /32): 0, or -1 with
 * errstr saying why.  The host bits must be zero: 10.1.0.0/8 is a typo.
 */
int
netaddr_parse(const char *s, struct netaddr *na, const char **errstr)
{
	char		 buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	long		 prefix;
	int		 i, max;

	memset(na, 0, sizeof(*na));
	*errstr = "an IPv4 or IPv6 address, with an optional /prefix";
	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return (-1);
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, na->addr) == 1) {
		na->af = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, na->addr) == 1) {
		na->af = AF_INET6;
		max = 128;
	} else
		return (-1);
	na->prefix = max;
	if (slash != NULL) {
		if (*slash < '0' || *slash > '9')
			return (-1);
		prefix = strtol(slash, &end, 10);
		if (*end != '\0' || prefix > max)
			return (-1);
		na->prefix = prefix;
	}
	for (i = na->prefix; i < max; i++)
		if (na->addr[i / 8] & (0x80 >> (i % 8))) {
			*errstr = "host bits set";
			return (-1);
		}
	*errstr = NULL;
	return (0);
}

/* is a in net?  An IPv4 client seen on an IPv6 socket is IPv4 here */
int
netaddr_match(const struct netaddr *net, const struct netaddr *a)
{
	static const uint8_t	 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	const uint8_t		*addr = a->addr;
	int			 af = a->af, bits;

	if (af == AF_INET6 && net->af == AF_INET &&
	    memcmp(addr, mapped, sizeof(mapped)) == 0) {
		af = AF_INET;
		addr += sizeof(mapped);
	}
	if (af != net->af)
		return (0);
	for (bits = 0; bits + 8 <= net->prefix; bits += 8)
		if (addr[bits / 8] != net->addr[bits / 8])
			return (0);
	if (bits < net->prefix &&
	    ((addr[bits / 8] ^ net->addr[bits / 8]) &
	    (0xff00 >> (net->prefix - bits)) & 0xff))
		return (0);
	return (1);
}

/*
 * The client that a limit per address counts: an IPv4 address (one seen
 * on a dual-stack socket too) or an IPv6 /64, which one host or one home
 * usually holds whole; the rest of out zeroed, so that two can be
 * compared whole.  -1 for a family that is neither.
 */
int
netaddr_client(const struct netaddr *a, struct netaddr *out)
{
	static const uint8_t	 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };

	memset(out, 0, sizeof(*out));
	switch (a->af) {
	case AF_INET:
		out->af = AF_INET;
		out->prefix = 32;
		memcpy(out->addr, a->addr, 4);
		return (0);
	case AF_INET6:
		if (memcmp(a->addr, mapped, sizeof(mapped)) == 0) {
			out->af = AF_INET;
			out->prefix = 32;
			memcpy(out->addr, a->addr + sizeof(mapped), 4);
		} else {
			out->af = AF_INET6;
			out->prefix = 64;
			memcpy(out->addr, a->addr, 8);
		}
		return (0);
	default:
		return (-1);
	}
}

const char *
ignore_kind_name(enum ignore_kind kind)
{
	switch (kind) {
	case IGNORE_PATH:
		return ("path");
	case IGNORE_AGENT:
		return ("agent");
	case IGNORE_FROM:
		return ("from");
	}
	return (NULL);
}

/* one rule, whatever its source: 0, or -1 with err */
int
ignore_check(enum ignore_kind kind, const char *pattern, int answer,
    char *err, size_t len)
{
	struct netaddr	 na;
	const char	*name, *errstr, *p;

	if ((name = ignore_kind_name(kind)) == NULL) {
		(void)snprintf(err, len, "ignore: invalid kind");
		return (-1);
	}
	if (answer != IGNORE_ANSWER && answer != 200) {
		(void)snprintf(err, len, "ignore %s: answer %d: 200 or 503",
		    name, answer);
		return (-1);
	}
	if (pattern == NULL || *pattern == '\0') {
		(void)snprintf(err, len, "ignore %s: must not be empty", name);
		return (-1);
	}
	if (strlen(pattern) >= ORCHD_PATTERN_MAX) {
		(void)snprintf(err, len, "ignore %s: longer than %d bytes",
		    name, ORCHD_PATTERN_MAX - 1);
		return (-1);
	}
	for (p = pattern; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			(void)snprintf(err, len, "ignore %s: invalid "
			    "character (control character)", name);
			return (-1);
		}
	if (kind == IGNORE_FROM) {
		if (netaddr_parse(pattern, &na, &errstr) == -1) {
			(void)snprintf(err, len, "ignore from \"%s\": %s",
			    pattern, errstr);
			return (-1);
		}
	} else if (!glob_valid(pattern)) {
		(void)snprintf(err, len, "ignore %s \"%s\": an unterminated "
		    "[ or a \\ at the end", name, pattern);
		return (-1);
	}
	return (0);
}

int
ignore_add(struct ignorelist *list, enum ignore_kind kind,
    const char *pattern, int answer)
{
	struct ignore_rule	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-1);
	if ((r->pattern = strdup(pattern)) == NULL) {
		free(r);
		return (-1);
	}
	r->kind = kind;
	r->answer = answer;
	TAILQ_INSERT_TAIL(list, r, entry);
	return (0);
}

void
ignore_free(struct ignorelist *list)
{
	struct ignore_rule	*r;

	while ((r = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, r, entry);
		free(r->pattern);
		free(r);
	}
}
