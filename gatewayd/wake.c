/*
 * Requests for workloads that are not running.
 *
 * Such a request is parked: the client is no longer read from (TCP pushes
 * back), only its leaving is watched, and the bytes already read stay in
 * its buffer.  The first parked request sends one WAKE to runtimed; every
 * later one waits on the same wake.  runtimed answers with the workload's
 * new state: running resumes every parked request on its own connection,
 * failed answers 503 with Retry-After, a wake timeout 504.  If runtimed
 * never answers, the gateway's own timer answers 504 a little after the
 * wake timeout.  A wake the memory budget holds (no room, or max
 * concurrent wakes) keeps its requests parked; when it starts, waking
 * gives the start its own wake timeout here too; when it waited its
 * whole wake timeout, runtimed says so (RT_REASON_NO_ROOM, the state
 * unchanged) and its requests get 503 with Retry-After: the workload
 * did not fail.
 *
 * Suspending (the reaper asks runtimed, runtimed asks us): a workload is
 * drained only if nothing is in flight or parked for it.  From then on it
 * is SUSPENDING here, so a request that arrives while it stops is parked
 * and its WAKE is sent; runtimed queues that wake behind the stop and the
 * request is served by the fresh start, never sent to the dying one.
 *
 * Refusals: a workload runtimed says runs may refuse a connection all
 * the same, if it died unseen (a container whose death the events
 * stream missed while it was down).  Its request has sent nothing yet:
 * it is parked, once, and runtimed asked to look (IMSG_GW_REFUSED)
 * rather than answered 502 for as long as nobody notices.  runtimed
 * answers with the workload's state: running sends the parked requests
 * again (a second refusal of the same request is its 502), asleep or
 * failed sends a wake, whose answer settles them as for any wake.  For
 * GW_REFUSED_PAUSE_MS after runtimed found it running, refusals are
 * 502s at once, so that a workload that runs and does not listen costs
 * runtimed a look a second at most.
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "gateway.h"

/* the precise clock, only where a request waits for a wake */
static int64_t
wake_now_ns(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

static void
wake_timer_rearm(struct gw_workload *wl)
{
	struct timeval	 tv;

	tv.tv_sec = wl->wake_timeout + GW_WAKE_SLACK;
	tv.tv_usec = 0;
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
}

static void
wake_send(struct gw_workload *wl)
{
	struct wl_ref	 ref;
	struct timeval	 tv;

	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_WAKE, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		log_warn("%s: wake %s", __func__, wl->name);
		return;
	}
	wl->wake_pending = 1;
	tv.tv_sec = wl->wake_timeout + GW_WAKE_SLACK;
	tv.tv_usec = 0;
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
	log_debug("waking %s", wl->name);
}

void
wake_park(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	char			 retry[64];

	if (wl->nparked >= GW_PARKED_MAX_WORKLOAD ||
	    gw->nparked >= GW_PARKED_MAX_TOTAL) {
		snprintf(retry, sizeof(retry), "Retry-After: %d\r\n",
		    GW_RETRY_AFTER);
		head_put(c->req);
		c->req = NULL;
		activity_end(c);
		conn_respond(c, 503, retry, 1);
		return;
	}
	c->state = CONN_PARKED;
	c->park_ns = wake_now_ns();
	TAILQ_INSERT_TAIL(&wl->parked, c, entry);
	wl->nparked++;
	gw->nparked++;
	conn_park_watch(c, 1);
	if (!wl->wake_pending)
		wake_send(wl);
}

static int
refused_send(struct gw_workload *wl)
{
	struct wl_ref	 ref;
	struct timeval	 tv;

	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_REFUSED, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		log_warn("%s: refused %s", __func__, wl->name);
		return (-1);
	}
	/* its answer is awaited as a wake's is, bounded alike */
	wl->wake_pending = 1;
	wl->refused_wait = 1;
	tv.tv_sec = wl->wake_timeout + GW_WAKE_SLACK;
	tv.tv_usec = 0;
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
	log_debug("%s refused a connection: asking runtimed", wl->name);
	return (0);
}

/* the connection to a running workload was refused: 0 if parked */
int
wake_refused(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (c->refused || wl->state != WL_RUNNING || !wl->configured ||
	    c->req == NULL || wl->nparked >= GW_PARKED_MAX_WORKLOAD ||
	    gw->nparked >= GW_PARKED_MAX_TOTAL)
		return (-1);
	if (!wl->wake_pending) {
		if (wl->refused_ms != 0 &&
		    monotime_ms() - wl->refused_ms < GW_REFUSED_PAUSE_MS)
			return (-1);
		if (refused_send(wl) == -1)
			return (-1);
	}
	c->refused = 1;
	c->state = CONN_PARKED;
	TAILQ_INSERT_TAIL(&wl->parked, c, entry);
	wl->nparked++;
	gw->nparked++;
	conn_park_watch(c, 1);
	/* the connect timeout ran: the backstop is the wake's now */
	conn_timer(c, wl->wake_timeout + 2 * GW_WAKE_SLACK);
	return (0);
}

void
wake_unpark(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (c->state != CONN_PARKED)
		return;
	TAILQ_REMOVE(&wl->parked, c, entry);
	wl->nparked--;
	gw->nparked--;
	conn_park_watch(c, 0);
	c->state = CONN_HEAD;
}

static void
wake_answer(struct gw_workload *wl, int status)
{
	struct gw_conn	*c;
	char		 retry[64];

	snprintf(retry, sizeof(retry), "Retry-After: %d\r\n", GW_RETRY_AFTER);
	while ((c = TAILQ_FIRST(&wl->parked)) != NULL) {
		wake_unpark(c);
		head_put(c->req);
		c->req = NULL;
		activity_end(c);
		conn_respond(c, status, status == 503 ? retry : NULL, 1);
	}
}

/* each answer will say how long its request waited (Server-Timing) */
static void
wake_resume(struct gw_workload *wl)
{
	struct gw_conn	*c;
	int64_t		 now = wake_now_ns();

	while ((c = TAILQ_FIRST(&wl->parked)) != NULL) {
		wake_unpark(c);
		c->wake_us = (now - c->park_ns) / 1000;
		proxy_start(c);
	}
}

void
wake_timer_fired(int fd, short event, void *arg)
{
	struct gw_workload	*wl = arg;

	log_warnx("%s: no answer to its wake, answering 504", wl->name);
	metrics_wake_timeout(wl);
	wl->wake_pending = 0;
	wl->refused_wait = 0;
	wake_answer(wl, 504);
}

void
wake_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state		 st;
	struct gw_workload	*wl;
	int			 refused;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	st.name[sizeof(st.name) - 1] = '\0';
	if ((wl = workload_find(st.name)) == NULL)
		return;		/* removed by a reload meanwhile */
	if (wl->state == WL_RUNNING && st.state != WL_RUNNING)
		wl->epoch++;	/* its kept upstream connections are stale */
	if (st.state < WL_ASLEEP || st.state > WL_FAILED)
		return;
	metrics_state(wl, st.state, st.reason, st.since_ms);
	wl->state = st.state;
	refused = wl->refused_wait;
	if (wl->state != WL_WAKING && wl->state != WL_SUSPENDING)
		wl->refused_wait = 0;
	switch (wl->state) {
	case WL_RUNNING:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/* it runs on, for all runtimed can tell */
		if (refused)
			wl->refused_ms = monotime_ms();
		wake_resume(wl);
		break;
	case WL_FAILED:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/* it died unseen: those it refused get a wake */
		if (refused && wl->nparked > 0) {
			wake_send(wl);
			break;
		}
		wake_answer(wl, st.reason == RT_REASON_WAKE_TIMEOUT ? 504 : 503);
		break;
	case WL_ASLEEP:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/* no room in the memory budget in time: try again later */
		if (st.reason == RT_REASON_NO_ROOM) {
			wake_answer(wl, 503);
			break;
		}
		/* stopped with requests parked during the stop: wake again */
		if (wl->nparked > 0)
			wake_send(wl);
		break;
	case WL_WAKING:
		/* admitted after a wait: the start's own wake timeout */
		if (wl->wake_pending)
			wake_timer_rearm(wl);
		break;
	default:
		break;
	}
}

void
wake_recv_drain(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_ref		 ref;
	struct gw_drained	 dr;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	ref.name[sizeof(ref.name) - 1] = '\0';
	memset(&dr, 0, sizeof(dr));
	strlcpy(dr.name, ref.name, sizeof(dr.name));
	if ((wl = workload_find(ref.name)) != NULL && wl->inflight == 0 &&
	    wl->upgraded == 0 && wl->nparked == 0) {
		dr.idle = 1;
		if (wl->state == WL_RUNNING)
			wl->epoch++;
		metrics_state(wl, WL_SUSPENDING, RT_REASON_IDLE, 0);
		wl->state = WL_SUSPENDING;
	} else if (wl != NULL)
		wl->drain_watch = 1;	/* activity.c says when it is idle */
	if (imsgev_compose(iev, IMSG_GW_DRAINED, 0, -1, &dr, sizeof(dr)) == -1)
		log_warn("%s: compose", __func__);
}

/* removed from the configuration with requests waiting for it */
void
wake_workload_gone(struct gw_workload *wl)
{
	timer_disarm(&wl->wake_timer);
	wl->wake_pending = 0;
	wl->refused_wait = 0;
	wake_answer(wl, 503);
}
