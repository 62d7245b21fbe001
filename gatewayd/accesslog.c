/*
 * The access log: one line per request, in the combined format or as a
 * JSON object, for every request the gateway read a head of (those for
 * no known host, for the API, and the ones refused as malformed too).
 *
 * Where the lines go.  A chrooted gateway cannot open a file, and a
 * write(2) to a file can wait for the disk (dirty page throttling, a
 * busy or remote file system): a gateway that waits there stops every
 * connection it holds.  So the gateway never writes the file.  It
 * formats each line into a buffer of its own, bounded (lines that do
 * not fit are dropped and counted), and hands the buffer to the parent
 * through a pipe, non-blocking: when the pipe is full the lines wait in
 * the buffer, and the gateway goes on.  The parent, which opened the
 * file (or syslog), is its only writer (orchd/logfiles.c), so a disk
 * that is slow delays the log, never a request.
 *
 * Every gateway ("prefork") writes to the same pipe.  A write of at most
 * PIPE_BUF bytes to a pipe is atomic, whoever else writes: each write
 * here is whole lines and at most PIPE_BUF bytes, and a line is never
 * longer (its fields are cut to fit), so lines from several gateways
 * never mix within a line, and the parent copies the pipe as it comes.
 *
 * Cost on the request path: a copy of the request's method, target,
 * host, User-Agent and Referer when its head is read (into a record kept
 * for reuse, like the head buffers), the line's formatting when it ends
 * (the time is formatted once a second), and a write per PIPE_BUF bytes
 * of lines, or at the latest ALOG_FLUSH_MS after a line.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "gateway.h"

#define ALOG_BUF_MAX	(256 * 1024)	/* lines waiting for the pipe */
#define ALOG_LINE_MAX	PIPE_BUF	/* a line, newline included */
#define ALOG_FLUSH_MS	200		/* a line waits at most this */
#define ALOG_CACHED	64		/* records kept for reuse */
/* the request's fields, cut to these (bytes as received) */
#define ALOG_METHOD_MAX	32
#define ALOG_HOST_MAX	(HTTP_HOST_MAX + 1)
#define ALOG_TARGET_MAX	2048
#define ALOG_AGENT_MAX	512
#define ALOG_REFERER_MAX 512

/* what is kept of a request from its head to its end */
struct alog_req {
	SLIST_ENTRY(alog_req)	 next;
	int64_t			 start_ns;	/* monotonic: head read */
	uint64_t		 tx0;		/* queued to the client before */
	int64_t			 park_ns;	/* parked since; 0: not now */
	int64_t			 wake_ns;	/* parked in all */
	int			 held;		/* it was parked */
	int			 status;	/* 0: no answer yet */
	int			 version;	/* 10, 11; 0: no head */
	size_t			 methodlen;
	size_t			 hostlen;
	size_t			 targetlen;
	size_t			 agentlen;
	size_t			 refererlen;
	int			 agent;		/* the fields were there */
	int			 referer;
	char			 workload[ORCHD_NAME_MAX]; /* "": none */
	char			 method[ALOG_METHOD_MAX];
	char			 host[ALOG_HOST_MAX];
	char			 target[ALOG_TARGET_MAX];
	char			 agentbuf[ALOG_AGENT_MAX];
	char			 refererbuf[ALOG_REFERER_MAX];
};

/* a line being written: never past end */
struct alog_out {
	char			*p;
	char			*end;
};

static int		 alog_on;
static int		 alog_format;	/* enum access_log_format */
static int		 alog_fd = -1;	/* the pipe */
static char		*alog_buf;
static size_t		 alog_len;
static uint64_t		 alog_drops;
static int		 alog_warned;
static struct event	 alog_timer;
static struct event	 alog_wev;	/* the pipe was full */
static int		 alog_events;	/* both set */
static SLIST_HEAD(, alog_req) alog_free = SLIST_HEAD_INITIALIZER(alog_free);
static unsigned int	 alog_nfree;
/* the start's second, formatted once for every line of that second */
static time_t		 alog_sec = -1;
static char		 alog_clf[64];	/* 10/Oct/2026:13:55:36 +0000 */
static char		 alog_iso[64];	/* 2026-10-10T13:55:36 */

static void	alog_flush_cb(int, short, void *);
static void	alog_write_cb(int, short, void *);

static int64_t
alog_now_ns(clockid_t clk)
{
	struct timespec	 ts;

	if (clock_gettime(clk, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/*
 * Configuration.
 */

/* IMSG_CFG_ACCESSLOG: the pipe, the same one every time */
void
accesslog_recv_fd(struct imsgev *iev, struct imsg *imsg)
{
	int	 fd, flags;

	if ((fd = imsg_get_fd(imsg)) == -1) {
		log_warnx("%s: no descriptor", __func__);
		return;
	}
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	if (alog_fd != -1) {
		if (event_initialized(&alog_wev))
			event_del(&alog_wev);
		close(alog_fd);
	}
	alog_fd = fd;
	event_set(&alog_wev, alog_fd, EV_WRITE, alog_write_cb, NULL);
	if (alog_len > 0)
		event_add(&alog_wev, NULL);
}

/* a new configuration: on or off, and the format */
void
accesslog_apply(const struct global_settings *gs)
{
	if (!alog_events) {
		evtimer_set(&alog_timer, alog_flush_cb, NULL);
		alog_events = 1;
	}
	if (gs->access_log && alog_buf == NULL &&
	    (alog_buf = malloc(ALOG_BUF_MAX)) == NULL)
		fatal("%s", __func__);
	if (!gs->access_log && alog_on)
		accesslog_flush();
	alog_on = gs->access_log != 0;
	alog_format = gs->access_log_format;
}

uint64_t
accesslog_drops(void)
{
	return (alog_drops);
}

/*
 * Handing the lines to the parent.
 */

/* as many whole lines as fit in one atomic write, from buf */
static size_t
alog_chunk(const char *buf, size_t len)
{
	const char	*nl;

	if (len <= ALOG_LINE_MAX)
		return (len);
	if ((nl = memrchr(buf, '\n', ALOG_LINE_MAX)) == NULL)
		return (ALOG_LINE_MAX);	/* no line is that long */
	return (nl - buf + 1);
}

/*
 * Write what the pipe takes.  A full pipe leaves the rest for its
 * write event; a pipe that is gone (the parent died: this gateway ends
 * too, soon) loses it.
 */
void
accesslog_flush(void)
{
	size_t	 off = 0, n;
	ssize_t	 w;

	if (alog_events)
		evtimer_del(&alog_timer);
	if (alog_fd == -1) {
		alog_len = 0;
		return;
	}
	while (off < alog_len) {
		n = alog_chunk(alog_buf + off, alog_len - off);
		if ((w = write(alog_fd, alog_buf + off, n)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (!alog_warned++)
				log_warn("access log");
			off = alog_len;
			break;
		}
		off += w;
	}
	if (off > 0 && off < alog_len)
		memmove(alog_buf, alog_buf + off, alog_len - off);
	alog_len -= off;
	if (alog_len > 0 && !event_pending(&alog_wev, EV_WRITE, NULL))
		event_add(&alog_wev, NULL);
}

static void
alog_flush_cb(int fd, short event, void *arg)
{
	accesslog_flush();
}

static void
alog_write_cb(int fd, short event, void *arg)
{
	accesslog_flush();
}

static void
alog_add(const char *line, size_t len)
{
	if (alog_buf == NULL || len > ALOG_BUF_MAX - alog_len) {
		alog_drops++;
		return;
	}
	memcpy(alog_buf + alog_len, line, len);
	alog_len += len;
	if (alog_len >= ALOG_LINE_MAX) {
		if (!event_pending(&alog_wev, EV_WRITE, NULL))
			accesslog_flush();
	} else if (!evtimer_pending(&alog_timer, NULL))
		evtimer_add_ms(&alog_timer, ALOG_FLUSH_MS);
}

/*
 * The request's record.
 */

static struct alog_req *
alog_get(void)
{
	struct alog_req	*a;

	if ((a = SLIST_FIRST(&alog_free)) != NULL) {
		SLIST_REMOVE_HEAD(&alog_free, next);
		alog_nfree--;
	} else if ((a = malloc(sizeof(*a))) == NULL) {
		alog_drops++;
		return (NULL);
	}
	a->tx0 = 0;
	a->park_ns = a->wake_ns = 0;
	a->held = a->status = a->version = 0;
	a->methodlen = a->hostlen = a->targetlen = 0;
	a->agentlen = a->refererlen = 0;
	a->agent = a->referer = 0;
	a->workload[0] = '\0';
	return (a);
}

static void
alog_put(struct alog_req *a)
{
	if (alog_nfree >= ALOG_CACHED) {
		free(a);
		return;
	}
	SLIST_INSERT_HEAD(&alog_free, a, next);
	alog_nfree++;
}

static size_t
alog_copy(char *dst, size_t max, const char *src, size_t len)
{
	if (src == NULL)
		return (0);
	len = MINIMUM(len, max);
	memcpy(dst, src, len);
	return (len);
}

/* what the connection has queued for its client, ever */
static uint64_t
alog_queued(const struct gw_conn *c)
{
	return (c->tx_total + evbuffer_get_length(c->out));
}

static struct alog_req *
alog_begin(struct gw_conn *c)
{
	struct alog_req	*a;

	if (c->alog != NULL)
		return (c->alog);
	if ((a = alog_get()) == NULL)
		return (NULL);
	a->start_ns = alog_now_ns(CLOCK_MONOTONIC);
	a->tx0 = alog_queued(c);
	c->alog = a;
	return (a);
}

/*
 * A head was read and is about to be routed: to wl, or to no workload
 * (NULL: an unknown host, or the API).  What the line needs of the head
 * is copied now, since the head is let go before the answer comes.
 */
void
accesslog_head(struct gw_conn *c, const struct gw_workload *wl)
{
	const struct http_head	*h = &c->req->h;
	const struct http_field	*f;
	struct alog_req		*a;

	if (!alog_on || (a = alog_begin(c)) == NULL)
		return;
	a->version = h->version;
	a->methodlen = alog_copy(a->method, sizeof(a->method), h->method,
	    h->methodlen);
	a->targetlen = alog_copy(a->target, sizeof(a->target), h->target,
	    h->targetlen);
	if (h->authoritylen > 0)
		a->hostlen = alog_copy(a->host, sizeof(a->host), h->authority,
		    h->hostlen);
	if ((f = http_head_find(h, "User-Agent")) != NULL) {
		a->agent = 1;
		a->agentlen = alog_copy(a->agentbuf, sizeof(a->agentbuf),
		    f->value, f->valuelen);
	}
	if ((f = http_head_find(h, "Referer")) != NULL) {
		a->referer = 1;
		a->refererlen = alog_copy(a->refererbuf,
		    sizeof(a->refererbuf), f->value, f->valuelen);
	}
	if (wl != NULL)
		strlcpy(a->workload, wl->name, sizeof(a->workload));
}

/*
 * The status of the answer.  own: the gateway answers itself, and a
 * request refused before its head was whole (400, 408, 414, 431...) has
 * no record yet: it gets one with what is known, the client and the
 * bytes.
 */
void
accesslog_status(struct gw_conn *c, int status, int own)
{
	struct alog_req	*a = c->alog;

	if (a == NULL && (!alog_on || !own || (a = alog_begin(c)) == NULL))
		return;
	a->status = status;
}

/* held while its workload wakes, and let go */
void
accesslog_park(struct gw_conn *c)
{
	struct alog_req	*a = c->alog;

	if (a == NULL)
		return;
	a->held = 1;
	a->park_ns = alog_now_ns(CLOCK_MONOTONIC);
}

void
accesslog_unpark(struct gw_conn *c)
{
	struct alog_req	*a = c->alog;

	if (a == NULL || a->park_ns == 0)
		return;
	a->wake_ns += alog_now_ns(CLOCK_MONOTONIC) - a->park_ns;
	a->park_ns = 0;
}

/*
 * Formatting.
 */

static void
out_mem(struct alog_out *o, const char *s, size_t len)
{
	len = MINIMUM(len, (size_t)(o->end - o->p));
	memcpy(o->p, s, len);
	o->p += len;
}

static void
out_str(struct alog_out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

static void
out_char(struct alog_out *o, char ch)
{
	if (o->p < o->end)
		*o->p++ = ch;
}

static void
out_u64(struct alog_out *o, uint64_t v)
{
	char	 buf[24], *p = buf + sizeof(buf);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v > 0);
	out_mem(o, p, buf + sizeof(buf) - p);
}

/* nanoseconds as seconds to the millisecond: "0.004" */
static void
out_secs(struct alog_out *o, int64_t ns)
{
	uint64_t	 ms = ns > 0 ? ((uint64_t)ns + 500000) / 1000000 : 0;

	out_u64(o, ms / 1000);
	out_char(o, '.');
	out_char(o, '0' + (ms / 100) % 10);
	out_char(o, '0' + (ms / 10) % 10);
	out_char(o, '0' + ms % 10);
}

/*
 * A field's bytes, escaped: in the combined format as nginx does it, a
 * '"' and a '\' preceded by '\', control characters and bytes past
 * ASCII as \xHH; in JSON as a string, bytes past ASCII as \u00HH.
 * A byte is written whole or not at all.
 */
static void
out_esc(struct alog_out *o, const char *s, size_t len, int json)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		 ch;
	char			 buf[6];
	size_t			 i, n;

	for (i = 0; i < len; i++) {
		ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
			out_char(o, ch);
			continue;
		}
		n = 0;
		buf[n++] = '\\';
		if (ch == '"' || ch == '\\')
			buf[n++] = ch;
		else if (json) {
			memcpy(buf + n, "u00", 3);
			n += 3;
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 0xf];
		} else {
			buf[n++] = 'x';
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 0xf];
		}
		if ((size_t)(o->end - o->p) < n)
			break;
		out_mem(o, buf, n);
	}
}

/* out_esc() within max bytes of output: a field never crowds out the rest */
static void
out_esc_max(struct alog_out *o, const char *s, size_t len, int json,
    size_t max)
{
	struct alog_out	 sub;

	sub.p = o->p;
	sub.end = o->p + MINIMUM(max, (size_t)(o->end - o->p));
	out_esc(&sub, s, len, json);
	o->p = sub.p;
}

/* a quoted field, "-" (null) when absent */
static void
out_quoted(struct alog_out *o, const char *s, size_t len, int present,
    size_t max, int json)
{
	if (!present) {
		out_str(o, json ? "null" : "\"-\"");
		return;
	}
	out_char(o, '"');
	out_esc_max(o, s, len, json, max);
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

	if (sec == alog_sec)
		return;
	if (gmtime_r(&sec, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(alog_clf, sizeof(alog_clf), "%02d/%s/%04d:%02d:%02d:%02d "
	    "+0000", tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	snprintf(alog_iso, sizeof(alog_iso), "%04d-%02d-%02dT%02d:%02d:%02d",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec);
	alog_sec = sec;
}

static const char *
alog_protocol(int version)
{
	return (version == 10 ? "HTTP/1.0" : "HTTP/1.1");
}

/*
 * nginx's combined format, then the host, the bytes read for the
 * request, its duration, the workload and the time it was held for a
 * wake ("-" when it was not):
 *
 * 127.0.0.1 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 153
 *     "-" "curl/8.0" "app.example.com" 78 0.002 app -
 */
static void
alog_combined(struct alog_out *o, const struct gw_conn *c,
    const struct alog_req *a, uint64_t in, uint64_t out, int64_t dur)
{
	out_str(o, c->peer[0] != '\0' ? c->peer : "-");
	out_str(o, " - - [");
	out_str(o, alog_clf);
	out_str(o, "] ");
	if (a->version != 0) {
		out_char(o, '"');
		out_esc_max(o, a->method, a->methodlen, 0, ALOG_METHOD_MAX);
		out_char(o, ' ');
		out_esc_max(o, a->target, a->targetlen, 0, ALOG_TARGET_MAX);
		out_char(o, ' ');
		out_str(o, alog_protocol(a->version));
		out_char(o, '"');
	} else
		out_str(o, "\"-\"");
	out_char(o, ' ');
	out_u64(o, a->status);
	out_char(o, ' ');
	out_u64(o, out);
	out_char(o, ' ');
	out_quoted(o, a->refererbuf, a->refererlen, a->referer,
	    ALOG_REFERER_MAX, 0);
	out_char(o, ' ');
	out_quoted(o, a->agentbuf, a->agentlen, a->agent, ALOG_AGENT_MAX, 0);
	out_char(o, ' ');
	out_quoted(o, a->host, a->hostlen, a->hostlen > 0, ALOG_HOST_MAX, 0);
	out_char(o, ' ');
	out_u64(o, in);
	out_char(o, ' ');
	out_secs(o, dur);
	out_char(o, ' ');
	out_str(o, a->workload[0] != '\0' ? a->workload : "-");
	out_char(o, ' ');
	if (a->held)
		out_secs(o, a->wake_ns);
	else
		out_char(o, '-');
}

static void
alog_json(struct alog_out *o, const struct gw_conn *c,
    const struct alog_req *a, uint64_t in, uint64_t out, int64_t dur,
    int64_t start_ms)
{
	char	 ms[8];

	snprintf(ms, sizeof(ms), ".%03d", (int)(start_ms % 1000));
	out_str(o, "{\"time\":\"");
	out_str(o, alog_iso);
	out_str(o, ms);
	out_str(o, "Z\",\"client\":");
	out_quoted(o, c->peer, strlen(c->peer), c->peer[0] != '\0', 64, 1);
	out_str(o, ",\"host\":");
	out_quoted(o, a->host, a->hostlen, a->hostlen > 0, ALOG_HOST_MAX, 1);
	out_str(o, ",\"method\":");
	out_quoted(o, a->method, a->methodlen, a->version != 0,
	    ALOG_METHOD_MAX, 1);
	out_str(o, ",\"target\":");
	out_quoted(o, a->target, a->targetlen, a->version != 0,
	    ALOG_TARGET_MAX, 1);
	out_str(o, ",\"protocol\":");
	if (a->version != 0) {
		out_char(o, '"');
		out_str(o, alog_protocol(a->version));
		out_char(o, '"');
	} else
		out_str(o, "null");
	out_str(o, ",\"status\":");
	out_u64(o, a->status);
	out_str(o, ",\"bytes_in\":");
	out_u64(o, in);
	out_str(o, ",\"bytes_out\":");
	out_u64(o, out);
	out_str(o, ",\"duration\":");
	out_secs(o, dur);
	out_str(o, ",\"workload\":");
	out_quoted(o, a->workload, strlen(a->workload), a->workload[0] != '\0',
	    ORCHD_NAME_MAX, 1);
	out_str(o, ",\"wake\":");
	if (a->held)
		out_secs(o, a->wake_ns);
	else
		out_str(o, "null");
	out_str(o, ",\"referer\":");
	out_quoted(o, a->refererbuf, a->refererlen, a->referer,
	    ALOG_REFERER_MAX, 1);
	out_str(o, ",\"user_agent\":");
	out_quoted(o, a->agentbuf, a->agentlen, a->agent, ALOG_AGENT_MAX, 1);
	out_char(o, '}');
}

/*
 * The request is over: answered in full (its answer queued), or cut
 * short (closed says so: then only the bytes written count, and no
 * answer is 499, nginx's "client closed request").  Its line goes in.
 */
void
accesslog_end(struct gw_conn *c, int closed)
{
	struct alog_req	*a = c->alog;
	struct alog_out	 o;
	char		 line[ALOG_LINE_MAX];
	uint64_t	 in, out, done;
	int64_t		 now, dur, wall;

	if (a == NULL)
		return;
	c->alog = NULL;
	if (!alog_on) {
		alog_put(a);
		return;
	}
	now = alog_now_ns(CLOCK_MONOTONIC);
	accesslog_unpark(c);
	dur = now - a->start_ns;
	/* bytes of the client's taken for this request: head and body */
	done = c->rx_total - evbuffer_get_length(c->in);
	in = done > c->alog_rx0 ? done - c->alog_rx0 : 0;
	done = closed ? c->tx_total : alog_queued(c);
	out = done > a->tx0 ? done - a->tx0 : 0;
	if (a->status == 0)
		a->status = 499;
	/* the wall clock at the start: now, less the duration */
	wall = alog_now_ns(CLOCK_REALTIME) - dur;
	alog_time((time_t)(wall / 1000000000));
	o.p = line;
	o.end = line + sizeof(line) - 1;	/* room for the newline */
	if (alog_format == ACCESS_LOG_JSON)
		alog_json(&o, c, a, in, out, dur, wall / 1000000);
	else
		alog_combined(&o, c, a, in, out, dur);
	*o.p++ = '\n';
	alog_add(line, o.p - line);
	alog_put(a);
}
