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
 * PIPE_BUF bytes to a pipe is atomic, whoever else writes: with several
 * gateways each write here is whole lines and at most PIPE_BUF bytes,
 * and a line is never longer (its fields are cut to fit), so lines from
 * several gateways never mix within a line, and the parent copies the
 * pipe as it comes.  A gateway alone writes ALOG_SOLO_BYTES at a time,
 * a write(2) for some 150 lines rather than 20.
 *
 * Cost on the request path: a copy of the request's method, target,
 * host, User-Agent and Referer when its head is read (into a record kept
 * for reuse, like the head buffers), the line's formatting when it ends
 * (the time is formatted once a second), and a write per PIPE_BUF bytes
 * of lines (ALOG_SOLO_BYTES), or at the latest ALOG_FLUSH_MS after a
 * line.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"
#include "accesslog.h"

#define ALOG_BUF_MAX	(256 * 1024)	/* lines waiting for the pipe */
#define ALOG_FLUSH_MS	200		/* a line waits at most this */
#define ALOG_SOLO_BYTES	(32 * 1024)	/* a write, with one gateway */
#define ALOG_STOP_MS	2000		/* a stop waits for the pipe */
#define ALOG_CACHED	64		/* records kept for reuse */

/* what is kept of a request from its head to its end */
struct alog_req {
	SLIST_ENTRY(alog_req)	 next;
	int64_t			 start_ns;	/* monotonic: head read */
	uint64_t		 tx0;		/* bytes out before it */
	int64_t			 park_ns;	/* parked since; 0: not now */
	int64_t			 wake_ns;	/* parked in all */
	int			 held;		/* it was parked */
	const char		*gate;		/* refused by the gate: why,
						   a constant; NULL: not */
	int			 status;	/* 0: no answer yet */
	int			 version;	/* 10, 11, 20; 0: no head */
	size_t			 methodlen;
	size_t			 hostlen;
	size_t			 targetlen;
	size_t			 agentlen;
	size_t			 refererlen;
	int			 agent;		/* the fields were there */
	int			 referer;
	int			 routed;	/* to c->wl */
	char			 method[ALOG_METHOD_MAX];
	char			 host[ALOG_HOST_MAX];
	char			 target[ALOG_TARGET_MAX];
	char			 agentbuf[ALOG_AGENT_MAX];
	char			 refererbuf[ALOG_REFERER_MAX];
};

static int		 alog_on;
static int		 alog_format_conf; /* enum access_log_format */
static size_t		 alog_batch;	/* bytes written at once, at most */
static int		 alog_fd = -1;	/* the pipe */
static char		*alog_buf;
static size_t		 alog_len;
static uint64_t		 alog_drops;
static int		 alog_warned;
static struct event	 alog_timer;
static int		 alog_timer_on;	/* armed */
static struct event	 alog_wev;	/* the pipe was full */
static int		 alog_wev_on;	/* added */
static int		 alog_events;	/* the timer is set */
static SLIST_HEAD(, alog_req) alog_free = SLIST_HEAD_INITIALIZER(alog_free);
static unsigned int	 alog_nfree;

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
 * The wall clock at a time of the monotonic one: the offset between the
 * two is read again once a second, not at every line.
 */
static int64_t
alog_wall_ms(int64_t mono_ns, int64_t now_ns)
{
	static int64_t	 off_ns, at_ns;

	if (at_ns == 0 || now_ns - at_ns >= 1000000000) {
		off_ns = alog_now_ns(CLOCK_REALTIME) - now_ns;
		at_ns = now_ns;
	}
	return ((mono_ns + off_ns) / 1000000);
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
		if (alog_wev_on)
			event_del(&alog_wev);
		alog_wev_on = 0;
		close(alog_fd);
	}
	alog_fd = fd;
	event_set(&alog_wev, alog_fd, EV_WRITE, alog_write_cb, NULL);
	if (alog_len > 0) {
		event_add(&alog_wev, NULL);
		alog_wev_on = 1;
	}
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
	/* prefork is read at start only: the same every time */
	alog_batch = gs->gateway.prefork > 1 ? ALOG_LINE_MAX : ALOG_SOLO_BYTES;
	alog_format_conf = gs->access_log_format;
}

uint64_t
accesslog_drops(void)
{
	return (alog_drops);
}

/*
 * Handing the lines to the parent.
 */

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

	alogkeep_flush();
	if (alog_timer_on) {
		evtimer_del(&alog_timer);
		alog_timer_on = 0;
	}
	if (alog_fd == -1) {
		alog_len = 0;
		return;
	}
	while (off < alog_len) {
		n = alog_batch > ALOG_LINE_MAX ? alog_len - off :
		    alog_chunk(alog_buf + off, alog_len - off);
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
	if (alog_len > 0 && !alog_wev_on) {
		event_add(&alog_wev, NULL);
		alog_wev_on = 1;
	}
}

/*
 * The gateway stops: what it holds goes to the pipe, waiting for room a
 * little (the parent drains the pipe while its children stop).
 */
void
accesslog_stop(void)
{
	struct pollfd	 pfd;
	int64_t		 end = monotime_ms() + ALOG_STOP_MS, left;

	accesslog_flush();
	while (alog_len > 0 && alog_fd != -1 &&
	    (left = end - monotime_ms()) > 0) {
		pfd.fd = alog_fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			break;
		accesslog_flush();
	}
}

static void
alog_flush_cb(int fd, short event, void *arg)
{
	alog_timer_on = 0;
	accesslog_flush();
}

static void
alog_write_cb(int fd, short event, void *arg)
{
	alog_wev_on = 0;
	accesslog_flush();
}

/* a line went in: a write's worth goes at once, a line waits a little */
static void
alog_added(void)
{
	if (alog_len >= alog_batch) {
		if (!alog_wev_on)
			accesslog_flush();
	} else if (!alog_timer_on) {
		evtimer_add_ms(&alog_timer, ALOG_FLUSH_MS);
		alog_timer_on = 1;
	}
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
	a->gate = NULL;
	a->methodlen = a->hostlen = a->targetlen = 0;
	a->agentlen = a->refererlen = 0;
	a->agent = a->referer = a->routed = 0;
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

/* start_ns: the request's start on the monotonic clock, or 0: now */
static struct alog_req *
alog_begin(struct gw_conn *c, int64_t start_ns)
{
	struct alog_req	*a;

	if (c->alog != NULL)
		return (c->alog);
	if ((a = alog_get()) == NULL)
		return (NULL);
	a->start_ns = start_ns != 0 ? start_ns : alog_now_ns(CLOCK_MONOTONIC);
	a->tx0 = alog_queued(c);
	c->alog = a;
	return (a);
}

/*
 * A head was read and is routed: to wl, c->wl from now until the
 * request ends, or to no workload (NULL: an unknown host, or the API).
 * What the line needs of the head is copied now, since the head is let
 * go before the answer comes.
 */
void
accesslog_head(struct gw_conn *c, const struct gw_workload *wl)
{
	const struct http_head	*h = &c->req->h;
	const struct http_field	*f;
	struct alog_req		*a;
	size_t			 i;

	/* a routed request's start is the one metrics_route() just took */
	if (!alog_on || (a = alog_begin(c, wl != NULL ? c->req_ns : 0)) ==
	    NULL)
		return;
	/* an h2 stream reaches conn.c as HTTP/1.1: say what the client spoke */
	a->version = c->h2stream ? 20 : h->version;
	a->methodlen = alog_copy(a->method, sizeof(a->method), h->method,
	    h->methodlen);
	a->targetlen = alog_copy(a->target, sizeof(a->target), h->target,
	    h->targetlen);
	if (h->authoritylen > 0)
		a->hostlen = alog_copy(a->host, sizeof(a->host), h->authority,
		    h->hostlen);
	/* the first of each, in one pass: the names' lengths sort most */
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->namelen == 10 && !a->agent &&
		    strncasecmp(f->name, "User-Agent", 10) == 0) {
			a->agent = 1;
			a->agentlen = alog_copy(a->agentbuf,
			    sizeof(a->agentbuf), f->value, f->valuelen);
		} else if (f->namelen == 7 && !a->referer &&
		    strncasecmp(f->name, "Referer", 7) == 0) {
			a->referer = 1;
			a->refererlen = alog_copy(a->refererbuf,
			    sizeof(a->refererbuf), f->value, f->valuelen);
		}
	}
	a->routed = wl != NULL;
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

	if (a == NULL && (!alog_on || !own || (a = alog_begin(c, 0)) == NULL))
		return;
	a->status = status;
}

/* the gate refused it: why ("deny", "basic-wrong", ...), a constant */
void
accesslog_gate(struct gw_conn *c, const char *why)
{
	if (c->alog != NULL)
		c->alog->gate = why;
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
 * The request is over: answered in full (its answer queued), or cut
 * short (closed says so: then only the bytes written count, and no
 * answer is 499, nginx's "client closed request").  Its line goes in
 * the buffer, formatted there: a line's room is kept free, or the line
 * is dropped and counted.
 */
void
accesslog_end(struct gw_conn *c, int closed)
{
	struct alog_req		*a = c->alog;
	struct alog_line	 l;
	uint64_t		 done;
	int64_t			 now;
	size_t			 n;

	if (a == NULL)
		return;
	c->alog = NULL;
	if (alog_on && alog_buf != NULL && ALOG_BUF_MAX - alog_len <
	    ALOG_LINE_MAX)
		accesslog_flush();
	if (!alog_on || alog_buf == NULL || ALOG_BUF_MAX - alog_len <
	    ALOG_LINE_MAX) {
		if (alog_on)
			alog_drops++;
		alog_put(a);
		return;
	}
	now = alog_now_ns(CLOCK_MONOTONIC);
	if (a->park_ns != 0)
		a->wake_ns += now - a->park_ns;
	memset(&l, 0, sizeof(l));
	l.format = alog_format_conf;
	l.duration_ns = now - a->start_ns;
	l.start_ms = alog_wall_ms(a->start_ns, now);
	if (c->peer[0] != '\0') {
		l.client.s = c->peer;
		l.client.len = strlen(c->peer);
	}
	if (a->version != 0) {
		l.method.s = a->method;
		l.method.len = a->methodlen;
		l.target.s = a->target;
		l.target.len = a->targetlen;
		l.version = a->version;
	}
	if (a->hostlen > 0) {
		l.host.s = a->host;
		l.host.len = a->hostlen;
	}
	if (a->referer) {
		l.referer.s = a->refererbuf;
		l.referer.len = a->refererlen;
	}
	if (a->agent) {
		l.agent.s = a->agentbuf;
		l.agent.len = a->agentlen;
	}
	if (a->routed && c->wl != NULL) {
		l.workload.s = c->wl->name;
		l.workload.len = strlen(c->wl->name);
	}
	l.status = a->status != 0 ? a->status : 499;
	/* bytes of the client's taken for this request: head and body */
	done = c->rx_total - evbuffer_get_length(c->in);
	l.bytes_in = done > c->alog_rx0 ? done - c->alog_rx0 : 0;
	done = closed ? c->tx_total : alog_queued(c);
	l.bytes_out = done > a->tx0 ? done - a->tx0 : 0;
	l.held = a->held;
	l.wake_ns = a->wake_ns;
	if (a->gate != NULL) {
		l.gate.s = a->gate;
		l.gate.len = strlen(a->gate);
	}
	n = alog_format(alog_buf + alog_len, &l);
	/* and the workload's last lines, for the status page */
	if (l.workload.s != NULL)
		alogkeep_add(l.workload.s, l.start_ms, alog_buf + alog_len,
		    n);
	alog_len += n;
	alog_put(a);
	alog_added();
}
