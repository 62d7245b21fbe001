/*
 * What woke a workload (struct wake_cause): its names, its text for
 * orchctl and the log (its JSON, for orchctl -j, the API and the events,
 * is in event_json.c).
 * The request's fields come from the internet through the gateway: each
 * process that takes them from another cuts and cleans them again
 * (cause_sanitize), so that what is stored, printed or encoded is
 * printable ASCII, terminated, whatever was sent.
 */

#include <stdio.h>
#include <string.h>

#include "cause.h"
#include "compat.h"
#include "msg.h"

static const char *const cause_names[][2] = {
	[WAKE_NONE] = { "", "" },
	[WAKE_REQUEST] = { "request", "request" },
	[WAKE_ORCHCTL] = { "orchctl", "orchctl" },
	[WAKE_API] = { "api", "api" },
	[WAKE_KEEP_WARM] = { "keep warm", "keep_warm" },
	[WAKE_RESTART] = { "restart", "restart" },
	[WAKE_DEPENDENCY] = { "dependency", "dependency" },
	[WAKE_SCHEDULE] = { "schedule", "schedule" }
};

/* "keep warm", or as JSON "keep_warm"; "" for none or an unknown one */
const char *
cause_kind_name(int kind, int json)
{
	if (kind < 0 || (size_t)kind >= nitems(cause_names))
		return ("");
	return (cause_names[kind][json != 0]);
}

/* the text form back, as the store keeps it; WAKE_NONE if unknown */
int
cause_kind_parse(const char *s)
{
	size_t	 i;

	for (i = 1; s != NULL && i < nitems(cause_names); i++)
		if (strcmp(s, cause_names[i][0]) == 0)
			return ((int)i);
	return (WAKE_NONE);
}

/*
 * len bytes of src, not necessarily terminated, into dst: cut to fit,
 * each byte that is not printable ASCII made '?'.
 */
void
cause_copy(char *dst, size_t dstlen, const char *src, size_t len)
{
	size_t	 i;

	if (dstlen == 0)
		return;
	for (i = 0; i < len && i < dstlen - 1 && src[i] != '\0'; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

static void
field_clean(char *s, size_t len)
{
	cause_copy(s, len, s, len);
}

/* a cause from another process: terminated and clean, a known kind */
void
cause_sanitize(struct wake_cause *c)
{
	if (c->kind < WAKE_NONE || c->kind > WAKE_SCHEDULE)
		c->kind = WAKE_NONE;
	field_clean(c->method, sizeof(c->method));
	field_clean(c->host, sizeof(c->host));
	field_clean(c->path, sizeof(c->path));
	field_clean(c->client, sizeof(c->client));
	field_clean(c->agent, sizeof(c->agent));
}

/*
 * One line: "GET blog.example.com/feed from 192.0.2.7 "curl/8.5.0"" for
 * a request (what it has of it), the kind's name for the others, "" for
 * none.  The agent in quotes: it has spaces.
 */
char *
cause_text(const struct wake_cause *c, char *buf, size_t len)
{
	int	 n;

	if (len == 0)
		return (buf);
	if (c->kind != WAKE_REQUEST) {
		(void)snprintf(buf, len, "%s", cause_kind_name(c->kind, 0));
		return (buf);
	}
	n = snprintf(buf, len, "%s %.*s%.*s",
	    c->method[0] != '\0' ? c->method : "request",
	    (int)strnlen(c->host, sizeof(c->host)), c->host,
	    (int)strnlen(c->path, sizeof(c->path)), c->path);
	if (n < 0 || (size_t)n >= len)
		return (buf);
	if (c->client[0] != '\0')
		n += snprintf(buf + n, len - n, " from %.*s",
		    (int)strnlen(c->client, sizeof(c->client)), c->client);
	if (n < 0 || (size_t)n >= len)
		return (buf);
	if (c->agent[0] != '\0')
		(void)snprintf(buf + n, len - n, " \"%.*s\"",
		    (int)strnlen(c->agent, sizeof(c->agent)), c->agent);
	return (buf);
}
