/*
 * The busy veto.  A workload with a busy path is asked before the reaper
 * suspends it for being idle: GET of the path on a fresh connection.  A
 * 200 says it is busy (a report or an import a request started runs on):
 * it keeps running, and the reaper asks again at its next tick, for at
 * most busy max after its idle timeout ran out.  Any other status is
 * idle.  No answer within ORCHD_BUSY_WAIT seconds (no connection, a
 * close, no status line) is idle too, fail-open as readiness is, unless
 * the workload says "busy fail safe": then it is busy.  An operator's
 * suspend is never asked about.
 *
 * The memory budget asks too before it suspends an idle workload for
 * room or for memory pressure, ahead of its idle timeout (busy_evict):
 * busy, it is not suspended, and the veto holds until the workload is
 * used again or stops (budget.c leaves it alone meanwhile).
 *
 * Why runtimed asks, not the gateway: runtimed decides suspends and
 * already connects to workloads for readiness (ready.c), so the veto is
 * decided where the suspend is, with no round trip through the process
 * that parses the internet, and the request is never counted as use,
 * since the gateway never sees it.  Reading a workload's answer in the
 * process that holds the container socket is no new exposure: as for a
 * health path, only the status line is read, at most READY_LINE_MAX
 * bytes into a fixed buffer, its three digits checked at fixed places
 * (ready_status()); nothing else of the answer is looked at.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "runtime.h"
#include "selfconn.h"
#include "schedule.h"
#include "lifecycle_events.h"
#include "timer.h"
#include "units.h"
#include "workload.h"

#define BUSY_LINE_MAX		128		/* enough of the status line */
#define BUSY_REQ_MAX		(ORCHD_HOST_MAX + 4096)

enum busy_phase {
	BUSY_CONNECT = 0,
	BUSY_SEND,
	BUSY_READ
};

struct rt_busy {
	struct rt_workload	*wl;
	enum rt_reason		 reason;	/* of the suspend asked for */
	enum busy_phase		 phase;
	int			 fd;
	struct event		 ev;		/* on fd */
	int			 ev_set;
	struct event		 timer;		/* ORCHD_BUSY_WAIT */
	char			 req[BUSY_REQ_MAX];
	size_t			 reqlen;
	size_t			 sent;
	char			 line[BUSY_LINE_MAX];
	size_t			 linelen;
};

static void	busy_io(int, short, void *);

static int64_t
busy_max(const struct rt_workload *wl)
{
	return (wl->conf->busy_max > 0 ? wl->conf->busy_max : ORCHD_BUSY_MAX);
}

void
busy_stop(struct rt_workload *wl)
{
	struct rt_busy	*b = wl->busy;

	if (b == NULL)
		return;
	if (b->ev_set)
		event_del(&b->ev);
	if (b->fd != -1)
		close(b->fd);
	evtimer_del(&b->timer);
	wl->busy = NULL;
	free(b);
}

/*
 * The verdict: code is the status, or -1 for no answer.  Busy leaves the
 * workload running, for the reaper to ask again; idle suspends it.
 */
static void
busy_verdict(struct rt_workload *wl, int code, const char *why)
{
	enum rt_reason	 reason = RT_REASON_IDLE;
	int		 busy;

	if (wl->busy != NULL)
		reason = wl->busy->reason;
	busy_stop(wl);
	if (wl->state != WL_RUNNING || wl->conf == NULL)
		return;
	if (code == -1) {
		busy = wl->conf->busy_fail_safe;
		log_debug("workload %s: busy path: %s: %s", wl->name, why,
		    busy ? "busy (busy fail safe)" : "idle");
	} else {
		busy = code == 200;
		log_debug("workload %s: busy path answered %d: %s", wl->name,
		    code, busy ? "busy" : "idle");
	}
	if (busy) {
		if (wl->busy_since == 0) {
			wl->busy_since = monotime();
			log_info("workload %s: idle but busy, as %s says: "
			    "not suspended", wl->name, wl->conf->busy_path);
		}
		/* the memory budget picks another one, if it asked */
		lifecycle->drain_refused(wl);
		return;
	}
	if (lifecycle->suspend(wl->name, reason) == -1)
		lifecycle->drain_refused(wl);
}

static void
busy_watch(struct rt_busy *b, short what)
{
	if (b->ev_set)
		event_del(&b->ev);
	event_set(&b->ev, b->fd, what, busy_io, b);
	event_add(&b->ev, NULL);
	b->ev_set = 1;
}

static void
busy_send(struct rt_busy *b)
{
	ssize_t	 n;

	n = send(b->fd, b->req + b->sent, b->reqlen - b->sent, MSG_NOSIGNAL);
	if (n == -1) {
		if (errno != EAGAIN && errno != EINTR)
			busy_verdict(b->wl, -1, strerror(errno));
		return;
	}
	b->sent += n;
	if (b->sent == b->reqlen) {
		b->phase = BUSY_READ;
		busy_watch(b, EV_READ);
	}
}

/* the status line, and nothing more of the answer */
static void
busy_read(struct rt_busy *b)
{
	ssize_t	 n;
	int	 code;

	n = recv(b->fd, b->line + b->linelen, sizeof(b->line) - 1 -
	    b->linelen, 0);
	if (n == -1) {
		if (errno != EAGAIN && errno != EINTR)
			busy_verdict(b->wl, -1, strerror(errno));
		return;
	}
	b->linelen += n;
	b->line[b->linelen] = '\0';
	if (n > 0 && strchr(b->line, '\n') == NULL &&
	    b->linelen < sizeof(b->line) - 1)
		return;
	if ((code = ready_status(b->line)) == -1)
		busy_verdict(b->wl, -1, "no HTTP status line");
	else
		busy_verdict(b->wl, code, NULL);
}

static void
busy_io(int fd, short event, void *arg)
{
	struct rt_busy	*b = arg;
	socklen_t	 len = sizeof(int);
	int		 err = 0;

	switch (b->phase) {
	case BUSY_CONNECT:
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		/* to itself: nothing listens (selfconn.c) */
		if (err == 0 &&
		    sock_self(fd, (struct sockaddr *)&b->wl->addr))
			err = ECONNREFUSED;
		if (err != 0) {
			busy_verdict(b->wl, -1, strerror(err));
			return;
		}
		b->phase = BUSY_SEND;
		busy_watch(b, EV_WRITE);
		break;
	case BUSY_SEND:
		busy_send(b);
		break;
	case BUSY_READ:
		busy_read(b);
		break;
	}
}

static void
busy_timeout(int fd, short event, void *arg)
{
	struct rt_busy	*b = arg;

	busy_verdict(b->wl, -1, "no answer in time");
}

static int
busy_request(struct rt_busy *b)
{
	char	 host[ORCHD_HOST_MAX + 64];
	int	 n;

	ready_host(b->wl, host, sizeof(host));
	n = snprintf(b->req, sizeof(b->req), "GET %s HTTP/1.1\r\n"
	    "Host: %s\r\nUser-Agent: orchd\r\nAccept: */*\r\n"
	    "Connection: close\r\n\r\n", b->wl->conf->busy_path, host);
	if (n < 0 || (size_t)n >= sizeof(b->req))
		return (-1);
	b->reqlen = n;
	return (0);
}

/* ask the workload; its answer, or its silence, decides */
static void
busy_ask(struct rt_workload *wl, enum rt_reason reason)
{
	struct rt_busy	*b;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		fatal("%s: calloc", __func__);
	b->wl = wl;
	b->reason = reason;
	b->fd = -1;
	evtimer_set(&b->timer, busy_timeout, b);
	wl->busy = b;
	if (busy_request(b) == -1) {
		busy_verdict(wl, -1, "busy path too long");
		return;
	}
	if (wl->addrlen == 0) {
		busy_verdict(wl, -1, "no address");
		return;
	}
	if ((b->fd = socket(wl->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		busy_verdict(wl, -1, strerror(errno));
		return;
	}
	evtimer_add_ms(&b->timer, ORCHD_BUSY_WAIT * 1000);
	if (connect(b->fd, (struct sockaddr *)&wl->addr, wl->addrlen) == -1 &&
	    errno != EINPROGRESS) {
		busy_verdict(wl, -1, strerror(errno));
		return;
	}
	b->phase = BUSY_CONNECT;
	busy_watch(b, EV_WRITE);
}

/*
 * The reaper finds the workload idle since idle_since (monotonic): it
 * is suspended, unless its busy path says it is busy, for at most busy
 * max from then.  An answer still awaited is not asked again.
 */
void
busy_suspend(struct rt_workload *wl, int64_t idle_since)
{
	int64_t	 now = monotime();
	char	 max[32];

	/* inside a warm window, or a scheduled wake's "for" (schedule.c) */
	if (wl->sched_warm_until > sched_now()) {
		log_debug("workload %s: idle, kept up by its schedule",
		    wl->name);
		return;
	}
	if (wl->conf == NULL || wl->conf->busy_path == NULL ||
	    wl->state != WL_RUNNING || lifecycle->keep_warm(wl)) {
		(void)lifecycle->suspend(wl->name, RT_REASON_IDLE);
		return;
	}
	if (wl->busy != NULL || wl->draining)
		return;
	if (now - idle_since >= busy_max(wl)) {
		if (wl->busy_since != 0)
			log_info("workload %s: busy for longer than busy max "
			    "%s: suspended", wl->name, fmt_duration(
			    busy_max(wl), max, sizeof(max)));
		(void)lifecycle->suspend(wl->name, RT_REASON_IDLE);
		return;
	}
	busy_ask(wl, RT_REASON_IDLE);
}

/*
 * The memory budget would suspend wl for reason (room, pressure) ahead
 * of its idle timeout: its busy path, if it has one, is asked first,
 * and a busy answer keeps it running (busy_verdict tells the budget).
 * One a veto holds for is not asked again.  0 if the suspend, or the
 * question, is under way.
 */
int
busy_evict(struct rt_workload *wl, enum rt_reason reason)
{
	if (wl->conf == NULL || wl->conf->busy_path == NULL)
		return (lifecycle->suspend(wl->name, reason));
	if (wl->state != WL_RUNNING || wl->busy != NULL || wl->draining ||
	    wl->busy_since != 0)
		return (-1);
	busy_ask(wl, reason);
	/* no question possible: the verdict came at once */
	return (wl->busy != NULL || wl->draining ? 0 : -1);
}
