/*
 * The requests held for a wake (wake.c parks them here) and their
 * release once the workload runs, a window at a time.
 *
 * A wake may hold hundreds of requests.  Connecting them all at once
 * overflows a small listen queue, or one whose process was frozen until
 * now: the kernel drops what it has no room for, and a dropped SYN is
 * sent again only after a second.  Worse, under a flood the kernel answers
 * SYNs with cookies: the connect completes, and the ACK that should have
 * put it in the queue is dropped while the queue is full, so the request
 * sent on it waits for the resends of its data.  So the held requests stay
 * parked (their clients watched, their backstop timers running) and only
 * a window of them go at a time; each request the workload takes in
 * (proxy.c: its answer begins, or its kernel acknowledged its bytes) lets
 * the next one go and widens the window by one, up to GW_HERD_WINDOW_MAX;
 * after a loss, by one a window.  A request for the workload that arrives
 * while the wake is fresh goes in the same window, behind them
 * (herd_join()): the queue may still be full.
 *
 * While the wake is fresh (GW_HERD_FRESH_MS) a released request's
 * connect gets GW_HERD_CONNECT_MS (doubled at each try until a connect
 * of the herd completed: then the path is known to be quick; a try
 * that would end after the wake's freshness has the configured "connect
 * timeout"), and a GET or HEAD sent on it GW_HERD_ACK_MS to be
 * acknowledged, past the 200 ms a kernel waits before it sends data
 * again.  A connect not done by then, refused or reset, or a request
 * whose bytes were never acknowledged and had to be sent again, is
 * closed, parked again at the head, the window halved
 * (once for the failures of one moment), and the release paused for
 * GW_HERD_BACKOFF_MS.  Nothing of it was read by the workload, so
 * trying again is safe; a request the workload took in is never sent
 * again.  A request connects GW_HERD_TRIES times at most, its last try
 * with the configured "connect timeout": after that, or after the wake's
 * freshness, its failure is the one any request gets.
 *
 * Only a fresh wake's requests take this path: a request to a workload
 * woken longer ago connects as it always has.  A raw
 * TCP connection held for a wake (tcp.c) goes in the same window, its
 * connect tried again as a request's, but its slot is free once it
 * connects: the client's bytes are passed on at once and could not be
 * sent again, so a connection a SYN cookie left outside the queue is
 * not found, and waits for the kernel's resends.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "timer.h"
#include "msg.h"
#include "workload.h"
#include "gateway.h"

static void	herd_pump(struct gw_workload *);

/* parked for its wake; at the head: its turn comes first */
void
herd_hold(struct gw_conn *c, int head)
{
	struct gw_workload	*wl = c->wl;

	c->state = CONN_PARKED;
	if (head)
		TAILQ_INSERT_HEAD(&wl->parked, c, entry);
	else
		TAILQ_INSERT_TAIL(&wl->parked, c, entry);
	wl->nparked++;
	gw->nparked++;
	accesslog_park(c);
	conn_park_watch(c, 1);
}

void
herd_unhold(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	TAILQ_REMOVE(&wl->parked, c, entry);
	wl->nparked--;
	gw->nparked--;
	accesslog_unpark(c);
	conn_park_watch(c, 0);
	c->state = CONN_HEAD;
}

static void
herd_timer_fired(int fd, short event, void *arg)
{
	struct gw_workload	*wl = arg;

	wl->herd_backoff = 0;
	herd_pump(wl);
}

/* release parked requests while the window has room */
static void
herd_pump(struct gw_workload *wl)
{
	struct gw_conn	*c;
	int64_t		 now;

	if (wl->herd_pumping)
		return;		/* the loop below goes on */
	/* a request's on_woken() may drop the last other reference */
	gw_workload_ref(wl);
	wl->herd_pumping = 1;
	now = monotime_ns();
	while (wl->state == WL_RUNNING && !wl->wake_pending &&
	    !wl->herd_backoff && wl->herd_busy < wl->herd_window &&
	    (c = TAILQ_FIRST(&wl->parked)) != NULL) {
		herd_unhold(c);
		/* Server-Timing: the whole wait, its turn included */
		if (c->tcp == NULL)
			c->wake_us = (now - c->park_ns) / 1000;
		c->herd = 1;
		wl->herd_busy++;
		/* what held it goes on: proxy.c's, or tcp.c's */
		c->ops->on_woken(c);
	}
	wl->herd_pumping = 0;
	gw_workload_unref(wl);
}

/*
 * The workload runs: its parked requests go, a window at a time.  woke:
 * it has just started (or a refused connect was answered), and its
 * queue may overflow for GW_HERD_FRESH_MS; a state it already had
 * (a repeat, maintenance turned off) opens no such time, so that a busy
 * workload is never held to a window by a message about it.
 */
void
herd_release(struct gw_workload *wl, int woke)
{
	if (wl->herd_busy == 0 && (woke || wl->herd_window == 0)) {
		wl->herd_window = GW_HERD_WINDOW;
		wl->herd_thresh = GW_HERD_WINDOW_MAX;
		wl->herd_acked = 0;
		wl->herd_ok = 0;
	}
	if (woke)
		wl->herd_end = monotime_ms() + GW_HERD_FRESH_MS;
	herd_pump(wl);
}

/*
 * A request to a workload woken less than GW_HERD_FRESH_MS ago goes in
 * the wake's window, its connect as theirs: the queue may still be full.
 * With room in the window and none waiting it goes at once (-1, marked
 * as the herd's: not held, no Server-Timing); else it waits in line
 * behind them (0).  -1, unmarked, once the wake is no longer fresh
 * (herd_end is then 0, and the clock is not read again): it connects at
 * once, as always.
 */
int
herd_join(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (wl->herd_end == 0)
		return (-1);
	if (monotime_ms() >= wl->herd_end) {
		wl->herd_end = 0;
		return (-1);
	}
	if (wl->wake_pending || wl->nparked >= GW_PARKED_MAX_WORKLOAD ||
	    gw->nparked >= GW_PARKED_MAX_TOTAL)
		return (-1);
	c->herd_tries = 0;
	if (wl->nparked == 0 && !wl->herd_backoff &&
	    wl->herd_busy < wl->herd_window) {
		c->herd = 1;
		wl->herd_busy++;
		return (-1);
	}
	c->park_ns = monotime_ns();
	herd_hold(c, 0);
	conn_timer(c, wl->wake_timeout + 2 * GW_WAKE_SLACK);
	herd_pump(wl);
	return (0);
}

/* its connect is over, or its request: the window's slot is free */
void
herd_settle(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (!c->herd)
		return;
	c->herd = 0;
	if (wl->herd_busy > 0)
		wl->herd_busy--;
	herd_pump(wl);
}

/* it connected: the path to the workload is quick */
void
herd_connected(struct gw_conn *c)
{
	if (c->herd)
		c->wl->herd_ok = 1;
}

/* the workload took its request (answered, or acknowledged): one more */
void
herd_taken(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (!c->herd)
		return;
	/* below the last loss's half, one more each; above, each window */
	if (wl->herd_window < wl->herd_thresh ||
	    ++wl->herd_acked >= wl->herd_window) {
		wl->herd_acked = 0;
		if (wl->herd_window < GW_HERD_WINDOW_MAX)
			wl->herd_window++;
	}
	herd_settle(c);
}

/*
 * Milliseconds its connect may take while the wake is fresh, or 0 for
 * the configured connect timeout.
 */
int64_t
herd_connect_ms(const struct gw_conn *c)
{
	const struct gw_workload	*wl = c->wl;

	int64_t				 ms;

	if (!c->herd || c->herd_tries + 1 >= GW_HERD_TRIES)
		return (0);
	ms = wl->herd_ok ? GW_HERD_CONNECT_MS :
	    (int64_t)GW_HERD_CONNECT_MS << c->herd_tries;
	/* no retry after the fresh time: then the configured timeout */
	if (monotime_ms() + ms >= wl->herd_end)
		return (0);
	return (ms);
}

/*
 * Its connect failed (refused, reset, or not done in herd_connect_ms()),
 * or its request was never taken in (see proxy.c's proxy_herd_wait()):
 * parked again to try once more after a pause, 0; -1 when its tries or
 * the wake's freshness are over, or the workload no longer runs: the
 * caller fails it as any request.  Nothing was sent upstream.
 */
int
herd_retry(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	struct timeval		 tv;

	if (!c->herd)
		return (-1);
	if (wl->state != WL_RUNNING || wl->wake_pending ||
	    c->herd_tries + 1 >= GW_HERD_TRIES ||
	    monotime_ms() >= wl->herd_end ||
	    (c->tcp == NULL && c->req == NULL)) {
		herd_settle(c);
		return (-1);
	}
	c->herd_tries++;
	upstream_close(c);
	/*
	 * The queue is full: the window halved, once for the failures of
	 * a moment, and from there it grows by one a window, not one a
	 * request (TCP's congestion avoidance, for the same reason).
	 */
	if (monotime_ms() - wl->herd_cut_ms >= GW_HERD_CONNECT_MS) {
		if (wl->herd_window > 1)
			wl->herd_window /= 2;
		wl->herd_thresh = wl->herd_window;
		wl->herd_acked = 0;
		wl->herd_cut_ms = monotime_ms();
	}
	log_debug("%s: connect to %s failed, try %u of its wake", c->peer,
	    wl->name, c->herd_tries + 1);
	herd_hold(c, 1);
	conn_timer(c, wl->wake_timeout + 2 * GW_WAKE_SLACK);
	if (!wl->herd_backoff) {
		wl->herd_backoff = 1;
		tv.tv_sec = 0;
		tv.tv_usec = GW_HERD_BACKOFF_MS * 1000;
		timer_arm(&wl->herd_timer, herd_timer_fired, wl, &tv);
	}
	herd_settle(c);
	return (0);
}
