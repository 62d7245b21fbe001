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
 * wake timeout.
 *
 * Suspending (the reaper asks runtimed, runtimed asks us): a workload is
 * drained only if nothing is in flight or parked for it.  From then on it
 * is SUSPENDING here, so a request that arrives while it stops is parked
 * and its WAKE is sent; runtimed queues that wake behind the stop and the
 * request is served by the fresh start, never sent to the dying one.
 *
 * A connection to a workload's own TCP listener (tcp.c) is held the same
 * way; the wake's end connects it, or closes it: raw TCP has no 503.
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
		if (c->tcp != NULL) {
			log_debug("%s: too many held for %s", c->peer,
			    wl->name);
			conn_close(c);
			return;
		}
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

/* why: for the log, of the TCP connections closed */
static void
wake_answer(struct gw_workload *wl, int status, const char *why)
{
	struct gw_conn	*c;
	char		 retry[64];
	unsigned int	 ntcp = 0;

	snprintf(retry, sizeof(retry), "Retry-After: %d\r\n", GW_RETRY_AFTER);
	while ((c = TAILQ_FIRST(&wl->parked)) != NULL) {
		wake_unpark(c);
		if (c->tcp != NULL) {
			conn_close(c);
			ntcp++;
			continue;
		}
		head_put(c->req);
		c->req = NULL;
		activity_end(c);
		conn_respond(c, status, status == 503 ? retry : NULL, 1);
	}
	tcp_wake_failed(wl, ntcp, why);
}

/* each answer will say how long its request waited (Server-Timing) */
static void
wake_resume(struct gw_workload *wl)
{
	struct gw_conn	*c;
	int64_t		 now = wake_now_ns();

	while ((c = TAILQ_FIRST(&wl->parked)) != NULL) {
		wake_unpark(c);
		if (c->tcp != NULL) {
			tcp_start(c);
			continue;
		}
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
	wake_answer(wl, 504, "no answer to its wake");
}

void
wake_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state		 st;
	struct gw_workload	*wl;

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
	switch (wl->state) {
	case WL_RUNNING:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		wake_resume(wl);
		break;
	case WL_FAILED:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		wake_answer(wl, st.reason == RT_REASON_WAKE_TIMEOUT ? 504 : 503,
		    st.msg[0] != '\0' ? st.msg :
		    st.reason == RT_REASON_WAKE_TIMEOUT ? "wake timeout" :
		    "failed");
		break;
	case WL_ASLEEP:
		/* stopped with requests parked during the stop: wake again */
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		if (wl->nparked > 0)
			wake_send(wl);
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
		tcp_drain(wl);
	}
	if (imsgev_compose(iev, IMSG_GW_DRAINED, 0, -1, &dr, sizeof(dr)) == -1)
		log_warn("%s: compose", __func__);
}

/* removed from the configuration with requests waiting for it */
void
wake_workload_gone(struct gw_workload *wl)
{
	timer_disarm(&wl->wake_timer);
	wl->wake_pending = 0;
	wake_answer(wl, 503, "removed from the configuration");
}
