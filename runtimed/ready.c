/*
 * Readiness: is a starting workload answering yet?
 *
 * health tcp: a TCP connect to its address and port succeeds.  health
 * path: a GET of the path on a fresh connection answers 2xx or 3xx.
 * The first attempt is made at once, as the start is told, and the next
 * ones quickly, because a held request waits on this and most programs
 * listen within milliseconds, then less often: 250 us apart for the
 * first 4 ms, 1 ms apart until 16 ms, then an eighth of the time the
 * start has taken, up to 50 ms (ready_delay_us(), backoff.c, tested
 * alone), so that a workload is seen ready at most an eighth of its own
 * start late, or 1 ms, or a quarter of one in its first 4 ms.  Everything
 * is non-blocking and every attempt is bounded, so a workload that
 * accepts and never answers costs an attempt, not the wake.  The wake
 * timeout (lifecycle.c) bounds the whole.
 *
 * Liveness (liveness.c) uses the same check once, bounded by its health
 * timeout: ready_check() reports its outcome and frees itself.  The
 * answer is parsed here, in runtimed, which talks to the container
 * engine: no more than its status line is read, into a fixed buffer,
 * and nothing of it is acted on but the three digits of the status.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backoff.h"
#include "compat.h"
#include "log.h"
#include "runtime.h"
#include "selfconn.h"
#include "timer.h"
#include "workload.h"

#define READY_ATTEMPT_MS	5000	/* one connect and its answer */
#define READY_LINE_MAX		128	/* enough of the status line */
#define READY_REQ_MAX		(ORCHD_HOST_MAX + 4096)
/* a connect that reached itself: nothing listens (selfconn.c) */
#define SELF_WHY		"connected to itself: not listening"

enum probe_phase {
	PROBE_WAIT = 0,		/* for the next attempt */
	PROBE_CONNECT,
	PROBE_SEND,
	PROBE_READ
};

struct rt_probe {
	struct rt_workload	*wl;
	enum probe_phase	 phase;
	int			 fd;
	struct event		 ev;		/* on fd */
	int			 ev_set;
	struct event		 timer;		/* retry, bound */
	int64_t			 start_us;	/* of the checks, monotonic */
	unsigned int		 attempts;
	char			 req[READY_REQ_MAX];
	size_t			 reqlen;
	size_t			 sent;
	char			 line[READY_LINE_MAX];
	size_t			 linelen;
	/* a single check: its bound, where it is held, who hears of it */
	int			 once;
	int64_t			 attempt_ms;
	struct rt_probe		**owner;
	void			(*done)(struct rt_workload *, const char *);
};

static void	probe_attempt(struct rt_probe *);
static void	probe_io(int, short, void *);
static void	probe_finish(struct rt_probe *, const char *);

static void
probe_close(struct rt_probe *p)
{
	if (p->ev_set) {
		event_del(&p->ev);
		p->ev_set = 0;
	}
	if (p->fd != -1) {
		close(p->fd);
		p->fd = -1;
	}
	evtimer_del(&p->timer);
}

static void
probe_watch(struct rt_probe *p, short what)
{
	if (p->ev_set)
		event_del(&p->ev);
	event_set(&p->ev, p->fd, what, probe_io, p);
	event_add(&p->ev, NULL);
	p->ev_set = 1;
}

/* not yet: try again a little later, a little later each time */
static void
probe_retry(struct rt_probe *p, const char *why)
{
	struct timeval	 tv;
	int64_t		 us;

	if (p->once) {
		probe_finish(p, why != NULL ? why : "failed");
		return;
	}
	probe_close(p);
	if (why != NULL)
		log_debug("workload %s: not ready: %s", p->wl->name, why);
	p->phase = PROBE_WAIT;
	us = ready_delay_us(monotime_ns() / 1000 - p->start_us);
	tv.tv_sec = us / 1000000;
	tv.tv_usec = us % 1000000;
	evtimer_add(&p->timer, &tv);
}

static void
probe_ready(struct rt_probe *p)
{
	struct rt_workload	*wl = p->wl;

	if (p->once) {
		probe_finish(p, NULL);
		return;
	}
	log_debug("workload %s: ready after %u attempts", wl->name,
	    p->attempts);
	ready_stop(wl);
	/* something answers: running once its listener is known its own */
	owner_ask(wl, OWNER_WAKE);
}

/* the name the workload knows itself by, for Host; busy.c's too */
void
ready_host(const struct rt_workload *wl, char *buf, size_t len)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, &wl->conf->hosts, entry) {
		if (strchr(e->str, '*') == NULL) {
			strlcpy(buf, e->str, len);
			return;
		}
	}
	if (wl->addr.ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", wl->conf->address,
		    workload_upstream_port(wl->conf));
	else
		snprintf(buf, len, "%s:%u", wl->conf->address,
		    workload_upstream_port(wl->conf));
}

static int
probe_request(struct rt_probe *p)
{
	char	 host[ORCHD_HOST_MAX + 64];
	int	 n;

	ready_host(p->wl, host, sizeof(host));
	n = snprintf(p->req, sizeof(p->req), "GET %s HTTP/1.1\r\n"
	    "Host: %s\r\nUser-Agent: orchd\r\nAccept: */*\r\n"
	    "Connection: close\r\n\r\n", p->wl->conf->health_path, host);
	if (n < 0 || (size_t)n >= sizeof(p->req))
		return (-1);
	p->reqlen = n;
	p->sent = 0;
	return (0);
}

static void
probe_connected(struct rt_probe *p)
{
	if (p->wl->conf->health != HEALTH_PATH || p->wl->conf->health_path ==
	    NULL) {
		probe_ready(p);
		return;
	}
	if (probe_request(p) == -1) {
		probe_retry(p, "health path too long");
		return;
	}
	p->phase = PROBE_SEND;
	p->linelen = 0;
	probe_watch(p, EV_WRITE);
}

static void
probe_send(struct rt_probe *p)
{
	ssize_t	 n;

	n = send(p->fd, p->req + p->sent, p->reqlen - p->sent, MSG_NOSIGNAL);
	if (n == -1) {
		if (errno != EAGAIN && errno != EINTR)
			probe_retry(p, strerror(errno));
		return;
	}
	p->sent += n;
	if (p->sent == p->reqlen) {
		p->phase = PROBE_READ;
		probe_watch(p, EV_READ);
	}
}

/* "HTTP/1.1 204 No Content": the status, or -1; busy.c's too */
int
ready_status(const char *line)
{
	int	 code;

	if (strncmp(line, "HTTP/1.", 7) != 0 || line[7] < '0' ||
	    line[7] > '9' || line[8] != ' ')
		return (-1);
	if (line[9] < '1' || line[9] > '5' || line[10] < '0' ||
	    line[10] > '9' || line[11] < '0' || line[11] > '9')
		return (-1);
	code = (line[9] - '0') * 100 + (line[10] - '0') * 10 +
	    (line[11] - '0');
	return (code);
}

static void
probe_read(struct rt_probe *p)
{
	char	 why[64];
	ssize_t	 n;
	int	 code;

	n = recv(p->fd, p->line + p->linelen, sizeof(p->line) - 1 -
	    p->linelen, 0);
	if (n == -1) {
		if (errno != EAGAIN && errno != EINTR)
			probe_retry(p, strerror(errno));
		return;
	}
	p->linelen += n;
	p->line[p->linelen] = '\0';
	/* the status line is all we want: wait for it, or for the end */
	if (n > 0 && strchr(p->line, '\n') == NULL &&
	    p->linelen < sizeof(p->line) - 1)
		return;
	/* 2xx and 3xx say it is up */
	code = ready_status(p->line);
	if (code >= 200 && code < 400) {
		probe_ready(p);
		return;
	}
	if (code == -1)
		snprintf(why, sizeof(why), "no HTTP status line");
	else
		snprintf(why, sizeof(why), "health check answered %d", code);
	probe_retry(p, why);
}

static void
probe_io(int fd, short event, void *arg)
{
	struct rt_probe	*p = arg;
	socklen_t	 len = sizeof(int);
	int		 err = 0;

	switch (p->phase) {
	case PROBE_CONNECT:
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err != 0) {
			probe_retry(p, strerror(err));
			return;
		}
		if (sock_self(fd, (struct sockaddr *)&p->wl->addr)) {
			probe_retry(p, SELF_WHY);
			return;
		}
		event_del(&p->ev);
		p->ev_set = 0;
		probe_connected(p);
		break;
	case PROBE_SEND:
		probe_send(p);
		break;
	case PROBE_READ:
		probe_read(p);
		break;
	default:
		break;
	}
}

static void
probe_timer(int fd, short event, void *arg)
{
	struct rt_probe	*p = arg;
	char		 why[64];

	if (p->phase == PROBE_WAIT)
		probe_attempt(p);
	else if (p->once) {
		snprintf(why, sizeof(why), "no answer in %lld ms",
		    (long long)p->attempt_ms);
		probe_retry(p, why);
	} else
		probe_retry(p, "no answer in time");
}

static void
probe_attempt(struct rt_probe *p)
{
	struct rt_workload	*wl = p->wl;

	p->attempts++;
	if (wl->addrlen == 0) {
		probe_retry(p, "no address");
		return;
	}
	if ((p->fd = socket(wl->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		probe_retry(p, strerror(errno));
		return;
	}
	/* bounds the whole attempt, connect to answer */
	evtimer_add_ms(&p->timer, p->attempt_ms);
	if (connect(p->fd, (struct sockaddr *)&wl->addr, wl->addrlen) == 0) {
		if (sock_self(p->fd, (struct sockaddr *)&wl->addr))
			probe_retry(p, SELF_WHY);
		else
			probe_connected(p);
		return;
	}
	if (errno != EINPROGRESS) {
		probe_retry(p, strerror(errno));
		return;
	}
	p->phase = PROBE_CONNECT;
	probe_watch(p, EV_WRITE);
}

void
ready_start(struct rt_workload *wl)
{
	struct rt_probe	*p;

	if (wl->probe != NULL || wl->conf == NULL)
		return;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s: calloc", __func__);
	p->wl = wl;
	p->fd = -1;
	p->start_us = monotime_ns() / 1000;
	p->attempt_ms = READY_ATTEMPT_MS;
	evtimer_set(&p->timer, probe_timer, p);
	wl->probe = p;
	probe_attempt(p);
}

/* a single check's end: why it failed, or NULL; p is gone after */
static void
probe_finish(struct rt_probe *p, const char *why)
{
	struct rt_workload	*wl = p->wl;
	void			(*done)(struct rt_workload *, const char *);
	char			 buf[64];

	(void)strlcpy(buf, why != NULL ? why : "", sizeof(buf));
	done = p->done;
	probe_close(p);
	*p->owner = NULL;
	free(p);
	done(wl, why != NULL ? buf : NULL);
}

/*
 * One check of a running workload, as readiness does it, bounded by ms.
 * *owner holds it until done is called with NULL (it answered) or why
 * not; that may be before this returns.  ready_check_cancel() ends it
 * without a word.
 */
void
ready_check(struct rt_workload *wl, struct rt_probe **owner, int64_t ms,
    void (*done)(struct rt_workload *, const char *))
{
	struct rt_probe	*p;

	if (*owner != NULL || wl->conf == NULL)
		return;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s: calloc", __func__);
	p->wl = wl;
	p->fd = -1;
	p->once = 1;
	p->attempt_ms = ms;
	p->owner = owner;
	p->done = done;
	evtimer_set(&p->timer, probe_timer, p);
	*owner = p;
	probe_attempt(p);
}

void
ready_check_cancel(struct rt_probe **owner)
{
	struct rt_probe	*p = *owner;

	if (p == NULL)
		return;
	probe_close(p);
	*owner = NULL;
	free(p);
}

void
ready_stop(struct rt_workload *wl)
{
	struct rt_probe	*p = wl->probe;

	owner_cancel(wl, OWNER_WAKE);
	if (p == NULL)
		return;
	probe_close(p);
	wl->probe = NULL;
	free(p);
}
