/*
 * Liveness: is a running workload still answering?
 *
 * With "health interval" set (the workload's, else the global one), a
 * running workload is checked every interval as readiness checks it (a
 * TCP connect, or a GET of its health path answering 2xx or 3xx), each
 * check bounded by "health timeout" and always ended before the next
 * one begins.  No answer in time, a refused connection or a wrong status
 * is a failure; "health failures" in a row and the lifecycle stops it
 * (lifecycle_unhealthy), to be restarted if it is kept warm.  A check
 * that passes clears the count.
 *
 * The checks are runtimed's own connections to the workload's address:
 * they never pass through the gateway, so they are never activity and
 * never keep a workload from being suspended.  Checks start when a
 * workload becomes running and stop when it no longer is.
 */

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "timer.h"
#include "workload.h"

#define LIVE_MARGIN_MS		100	/* a check ends before the next */

struct rt_live {
	struct event	 timer;		/* the next check */
	struct rt_probe	*probe;		/* the check under way */
	int		 failures;	/* in a row */
};

static void	live_tick(int, short, void *);

/* the workload's own setting, else the global one; seconds, 0: off */
static int64_t
live_interval(const struct rt_workload *wl)
{
	if (wl->conf == NULL)
		return (0);
	if (wl->conf->health_interval != -1)
		return (wl->conf->health_interval);
	return (rt->health_interval > 0 ? rt->health_interval : 0);
}

static int
live_failures(const struct rt_workload *wl)
{
	if (wl->conf != NULL && wl->conf->health_failures > 0)
		return (wl->conf->health_failures);
	if (rt->health_failures > 0)
		return ((int)rt->health_failures);
	return (ORCHD_HEALTH_FAILURES);
}

/* milliseconds one check may take: its timeout, within the interval */
static int64_t
live_timeout_ms(const struct rt_workload *wl, int64_t interval)
{
	int64_t	 t = ORCHD_HEALTH_TIMEOUT;

	if (wl->conf != NULL && wl->conf->health_timeout > 0)
		t = wl->conf->health_timeout;
	else if (rt->health_timeout > 0)
		t = rt->health_timeout;
	t *= 1000;
	if (t > interval * 1000 - LIVE_MARGIN_MS)
		t = interval * 1000 - LIVE_MARGIN_MS;
	return (t > LIVE_MARGIN_MS ? t : LIVE_MARGIN_MS);
}

/* it became running, or its definition changed: checks as it says */
void
live_start(struct rt_workload *wl)
{
	struct rt_live	*l;
	int64_t		 interval;

	if (wl->state != WL_RUNNING || (interval = live_interval(wl)) <= 0) {
		live_stop(wl);
		return;
	}
	if ((l = wl->live) == NULL) {
		if ((l = calloc(1, sizeof(*l))) == NULL)
			fatal("%s: calloc", __func__);
		evtimer_set(&l->timer, live_tick, wl);
		wl->live = l;
		log_debug("workload %s: health checks every %llds",
		    wl->name, (long long)interval);
	}
	if (l->probe == NULL && !evtimer_pending(&l->timer, NULL))
		evtimer_add_ms(&l->timer, interval * 1000);
}

void
live_stop(struct rt_workload *wl)
{
	struct rt_live	*l = wl->live;

	owner_cancel(wl, OWNER_LIVE);
	if (l == NULL)
		return;
	ready_check_cancel(&l->probe);
	evtimer_del(&l->timer);
	free(l);
	wl->live = NULL;
}

/* the outcome of one check: why NULL, it answered */
static void
live_done(struct rt_workload *wl, const char *why)
{
	struct rt_live	*l = wl->live;
	char		 msg[RT_MSG_MAX];
	int		 max;

	if (l == NULL)
		return;
	if (why == NULL) {
		if (l->failures > 0)
			log_info("workload %s: health check passes again",
			    wl->name);
		l->failures = 0;
		/* something answered: is it the workload's own listener? */
		owner_ask(wl, OWNER_LIVE);
		return;
	}
	max = live_failures(wl);
	l->failures++;
	log_warnx("workload %s: health check failed (%d of %d): %s",
	    wl->name, l->failures, max, why);
	if (l->failures < max)
		return;
	snprintf(msg, sizeof(msg), "%d health check%s failed: %s",
	    l->failures, l->failures > 1 ? "s" : "", why);
	/* this ends the checks, and l with them */
	lifecycle->unhealthy(wl, msg);
}

static void
live_tick(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	struct rt_live		*l = wl->live;
	int64_t			 interval;

	if (wl->state != WL_RUNNING || (interval = live_interval(wl)) <= 0) {
		live_stop(wl);
		return;
	}
	/* the next one at the interval, however long this one takes */
	evtimer_add_ms(&l->timer, interval * 1000);
	if (l->probe != NULL)
		return;
	ready_check(wl, &l->probe, live_timeout_ms(wl, interval), live_done);
}
