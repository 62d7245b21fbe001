/*
 * The access log's lines, in nginx's combined format with orchd's
 * fields at the end, or as a JSON object.  Pure: no I/O, nothing of the
 * gateway's (the unit tests call it).  Written for the request path: no
 * snprintf but once a second for the time, the bytes of a field copied
 * in runs between the few that need escaping, every field cut to its
 * bound so that a line is at most ALOG_LINE_MAX bytes whatever the
 * request held.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "orchd.h"
#include "workload.h"
#include "accesslog.h"

/* a line being written: never past end */
struct alog_out {
	char		*p;
	char		*end;
};

/* a literal: its length known, copied inline where it fits */
#define OUT_LIT(o, lit) do {						\
	if ((size_t)((o)->end - (o)->p) >= sizeof(lit) - 1) {		\
		memcpy((o)->p, (lit), sizeof(lit) - 1);			\
		(o)->p += sizeof(lit) - 1;				\
	} else								\
		out_mem((o), (lit), sizeof(lit) - 1);			\
} while (0)

/* bytes written as they are; the others are escaped */
static unsigned char	 alog_plain[256];
static int		 alog_plain_set;

/* the start's second, formatted once for every line of that second */
static time_t		 alog_sec = -1;
static char		 alog_clf[64];	/* 10/Oct/2026:13:55:36 +0000 */
static size_t		 alog_clflen;
static char		 alog_iso[64];	/* 2026-10-10T13:55:36 */
static size_t		 alog_isolen;

static void
out_mem(struct alog_out *o, const char *s, size_t len)
{
	if (len > (size_t)(o->end - o->p))
		len = o->end - o->p;
	memcpy(o->p, s, len);
	o->p += len;
}

static void
out_char(struct alog_out *o, char ch)
{
	if (o->p < o->end)
		*o->p++ = ch;
}

/* a number in decimal, two digits at a time */
static void
out_u64(struct alog_out *o, uint64_t v)
{
	static const char	 pairs[] =
	    "00010203040506070809101112131415161718192021222324"
	    "25262728293031323334353637383940414243444546474849"
	    "50515253545556575859606162636465666768697071727374"
	    "75767778798081828384858687888990919293949596979899";
	char			 buf[24], *p = buf + sizeof(buf), *q;
	unsigned int		 r;

	while (v >= 100) {
		r = v % 100;
		v /= 100;
		*--p = pairs[2 * r + 1];
		*--p = pairs[2 * r];
	}
	if (v >= 10) {
		*--p = pairs[2 * v + 1];
		*--p = pairs[2 * v];
	} else
		*--p = '0' + v;
	if ((size_t)(o->end - o->p) < (size_t)(buf + sizeof(buf) - p)) {
		out_mem(o, p, buf + sizeof(buf) - p);
		return;
	}
	/* through q: a store through o->p could change o->p itself */
	q = o->p;
	while (p < buf + sizeof(buf))
		*q++ = *p++;
	o->p = q;
}

/* nanoseconds as seconds to the millisecond: "0.004" */
static void
out_secs(struct alog_out *o, int64_t ns)
{
	uint64_t	 ms = ns > 0 ? ((uint64_t)ns + 500000) / 1000000 : 0;
	char		 frac[4];

	out_u64(o, ms / 1000);
	ms %= 1000;
	frac[0] = '.';
	frac[1] = '0' + ms / 100;
	frac[2] = '0' + (ms / 10) % 10;
	frac[3] = '0' + ms % 10;
	if ((size_t)(o->end - o->p) >= sizeof(frac)) {
		memcpy(o->p, frac, sizeof(frac));
		o->p += sizeof(frac);
	} else
		out_mem(o, frac, sizeof(frac));
}

static void
plain_init(void)
{
	int	 ch;

	for (ch = 0x20; ch < 0x7f; ch++)
		alog_plain[ch] = ch != '"' && ch != '\\';
	alog_plain_set = 1;
}

/*
 * A field's bytes, escaped, at most max bytes of them: in the combined
 * format as nginx does it, '"' and '\' preceded by '\', control
 * characters and bytes past ASCII as \xHH; in JSON as a string, those
 * bytes as \u00HH.  An escape is written whole or not at all.  When
 * even every byte escaped fits (fields are short: a host, a path), one
 * loop with no bound to check.
 */
static void
out_esc(struct alog_out *o, const struct alog_str *f, size_t max, int json)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*s = (const unsigned char *)f->s;
	const unsigned char	*e = s + f->len;
	char			*p = o->p, *lim;
	size_t			 room, k;

	room = o->end - p;
	if (max < room)
		room = max;
	lim = p + room;
	for (; s < e; s++) {
		if (alog_plain[*s]) {
			if (p == lim)
				break;
			*p++ = *s;
			continue;
		}
		k = *s == '"' || *s == '\\' ? 2 : json ? 6 : 4;
		if ((size_t)(lim - p) < k)
			break;
		*p++ = '\\';
		if (k == 2)
			*p++ = *s;
		else {
			if (json) {
				*p++ = 'u';
				*p++ = '0';
				*p++ = '0';
			} else
				*p++ = 'x';
			*p++ = hex[*s >> 4];
			*p++ = hex[*s & 0xf];
		}
	}
	o->p = p;
}

/*
 * A field that needs no escape, whatever the request: the client's
 * address (inet_ntop's), the host (the parser's routing rules admit
 * letters, digits, '-', '_', '.' and an IP literal's), a workload's
 * name (workload.c's rules).  Only cut to max.
 */
static void
out_safe(struct alog_out *o, const struct alog_str *f, size_t max)
{
	out_mem(o, f->s, f->len < max ? f->len : max);
}

/* a quoted field; absent: "-" in the combined format, null in JSON */
static void
out_quoted(struct alog_out *o, const struct alog_str *f, size_t max,
    int json)
{
	if (f->s == NULL) {
		if (json)
			OUT_LIT(o, "null");
		else
			OUT_LIT(o, "\"-\"");
		return;
	}
	out_char(o, '"');
	out_esc(o, f, max, json);
	out_char(o, '"');
}

/* the same for a field out_safe() takes */
static void
out_quoted_safe(struct alog_out *o, const struct alog_str *f, size_t max,
    int json)
{
	if (f->s == NULL) {
		if (json)
			OUT_LIT(o, "null");
		else
			OUT_LIT(o, "\"-\"");
		return;
	}
	out_char(o, '"');
	out_safe(o, f, max);
	out_char(o, '"');
}

/* the start's second, in both formats, in UTC: the chroot has no zone */
static void
alog_time(time_t sec)
{
	static const char	*const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
	};
	struct tm		 tm;
	int			 n;

	if (sec == alog_sec)
		return;
	if (gmtime_r(&sec, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	n = snprintf(alog_clf, sizeof(alog_clf), "%02d/%s/%04d:%02d:%02d:%02d "
	    "+0000", tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	alog_clflen = n > 0 && (size_t)n < sizeof(alog_clf) ? (size_t)n : 0;
	n = snprintf(alog_iso, sizeof(alog_iso),
	    "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	alog_isolen = n > 0 && (size_t)n < sizeof(alog_iso) ? (size_t)n : 0;
	alog_sec = sec;
}

/* as nginx says them: an HTTP/2 stream is "HTTP/2.0" */
static void
out_protocol(struct alog_out *o, int version)
{
	if (version == 10)
		OUT_LIT(o, "HTTP/1.0");
	else if (version == 20)
		OUT_LIT(o, "HTTP/2.0");
	else
		OUT_LIT(o, "HTTP/1.1");
}

/*
 * nginx's combined format, then the host, the bytes read for the
 * request, its duration, the workload and the time it was held for a
 * wake ("-" when it was not), and for a request the gate refused, one
 * field more, gate= and why:
 *
 * 127.0.0.1 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 153
 *     "-" "curl/8.0" "app.example.com" 78 0.002 app -
 * 127.0.0.1 - - [10/Oct/2026:13:55:37 +0000] "GET / HTTP/1.1" 401 33
 *     "-" "curl/8.0" "app.example.com" 78 0.000 app - gate=basic-wrong
 */
static void
alog_combined(struct alog_out *o, const struct alog_line *l)
{
	if (l->client.s != NULL)
		out_safe(o, &l->client, ALOG_CLIENT_MAX);
	else
		out_char(o, '-');
	OUT_LIT(o, " - - [");
	out_mem(o, alog_clf, alog_clflen);
	OUT_LIT(o, "] \"");
	if (l->method.s != NULL) {
		out_esc(o, &l->method, ALOG_METHOD_MAX, 0);
		out_char(o, ' ');
		out_esc(o, &l->target, ALOG_TARGET_MAX, 0);
		out_char(o, ' ');
		out_protocol(o, l->version);
	} else
		out_char(o, '-');
	OUT_LIT(o, "\" ");
	out_u64(o, l->status);
	out_char(o, ' ');
	out_u64(o, l->bytes_out);
	out_char(o, ' ');
	out_quoted(o, &l->referer, ALOG_REFERER_MAX, 0);
	out_char(o, ' ');
	out_quoted(o, &l->agent, ALOG_AGENT_MAX, 0);
	out_char(o, ' ');
	out_quoted_safe(o, &l->host, ALOG_HOST_MAX, 0);
	out_char(o, ' ');
	out_u64(o, l->bytes_in);
	out_char(o, ' ');
	out_secs(o, l->duration_ns);
	out_char(o, ' ');
	if (l->workload.s != NULL)
		out_safe(o, &l->workload, ORCHD_NAME_MAX);
	else
		out_char(o, '-');
	out_char(o, ' ');
	if (l->held)
		out_secs(o, l->wake_ns);
	else
		out_char(o, '-');
	if (l->gate.s != NULL) {
		OUT_LIT(o, " gate=");
		out_safe(o, &l->gate, 32);
	}
}

static void
alog_json(struct alog_out *o, const struct alog_line *l)
{
	int64_t	 ms = l->start_ms % 1000;
	char	 frac[4];

	frac[0] = '.';
	frac[1] = '0' + ms / 100;
	frac[2] = '0' + (ms / 10) % 10;
	frac[3] = '0' + ms % 10;
	OUT_LIT(o, "{\"time\":\"");
	out_mem(o, alog_iso, alog_isolen);
	out_mem(o, frac, sizeof(frac));
	OUT_LIT(o, "Z\",\"client\":");
	out_quoted_safe(o, &l->client, ALOG_CLIENT_MAX, 1);
	OUT_LIT(o, ",\"host\":");
	out_quoted_safe(o, &l->host, ALOG_HOST_MAX, 1);
	OUT_LIT(o, ",\"method\":");
	out_quoted(o, &l->method, ALOG_METHOD_MAX, 1);
	OUT_LIT(o, ",\"target\":");
	out_quoted(o, l->method.s != NULL ? &l->target : &l->method,
	    ALOG_TARGET_MAX, 1);
	OUT_LIT(o, ",\"protocol\":");
	if (l->method.s != NULL) {
		out_char(o, '"');
		out_protocol(o, l->version);
		out_char(o, '"');
	} else
		OUT_LIT(o, "null");
	OUT_LIT(o, ",\"status\":");
	out_u64(o, l->status);
	OUT_LIT(o, ",\"bytes_in\":");
	out_u64(o, l->bytes_in);
	OUT_LIT(o, ",\"bytes_out\":");
	out_u64(o, l->bytes_out);
	OUT_LIT(o, ",\"duration\":");
	out_secs(o, l->duration_ns);
	OUT_LIT(o, ",\"workload\":");
	out_quoted_safe(o, &l->workload, ORCHD_NAME_MAX, 1);
	OUT_LIT(o, ",\"wake\":");
	if (l->held)
		out_secs(o, l->wake_ns);
	else
		OUT_LIT(o, "null");
	OUT_LIT(o, ",\"referer\":");
	out_quoted(o, &l->referer, ALOG_REFERER_MAX, 1);
	OUT_LIT(o, ",\"user_agent\":");
	out_quoted(o, &l->agent, ALOG_AGENT_MAX, 1);
	if (l->gate.s != NULL) {
		OUT_LIT(o, ",\"gate\":");
		out_quoted_safe(o, &l->gate, 32, 1);
	}
	out_char(o, '}');
}

/*
 * The line, its newline included, into buf of ALOG_LINE_MAX bytes: its
 * length.  The bounds of the fields keep it shorter; were they wrong,
 * the line would be cut, never overrun.
 */
size_t
alog_format(char *buf, const struct alog_line *l)
{
	struct alog_out	 o;

	if (!alog_plain_set)
		plain_init();
	alog_time((time_t)(l->start_ms / 1000));
	o.p = buf;
	o.end = buf + ALOG_LINE_MAX - 1;	/* the newline's place */
	if (l->format == ACCESS_LOG_JSON)
		alog_json(&o, l);
	else
		alog_combined(&o, l);
	*o.p++ = '\n';
	return (o.p - buf);
}

/*
 * As many whole lines as one atomic write to a pipe takes (PIPE_BUF
 * bytes), from the start of buf.
 */
size_t
alog_chunk(const char *buf, size_t len)
{
	const char	*nl;

	if (len <= ALOG_LINE_MAX)
		return (len);
	if ((nl = memrchr(buf, '\n', ALOG_LINE_MAX)) == NULL)
		return (ALOG_LINE_MAX);	/* no line is that long */
	return (nl - buf + 1);
}
