/*
 * Warm windows and scheduled wakes (orchd-workload(7)): at the start of
 * a window ("keep warm during") or at a wake's time ("wake at"), the
 * workload is woken as a request would wake it, through the same memory
 * budget and its queue, with the reason and cause "schedule".  Inside a
 * window, and for a wake's "for", the reaper's idle suspends are
 * refused (busy.c asks sched_warm_until); after, it idles as any other.
 * The operator's suspend, and the budget's, still suspend it: a window
 * wakes a workload once, at its start.  Its group's windows and wakes
 * (orchd.conf's group block), which the parent gives each member, count
 * as its own: each member is woken alone, through the same queue.
 *
 * runtimed decides it because it decides every wake and holds the wake
 * queue; the reaper only says what is idle.  The times come from the
 * zones' rules the parent sent with the definition (common/sched_wl.c)
 * and the clock of common/sched.c, which the tests may shift.
 *
 * One timer for all, to the next start or end of any, and never
 * further than SCHED_RECHECK ahead, so that a step of the wall clock is
 * seen within that long.
 */

#include <sys/time.h>

#include <event.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "msg.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"
#include "workload.h"
#include "lifecycle_events.h"

#define SCHED_RECHECK	60	/* seconds: the clock asked again */
#define SCHED_EARLY	1	/* seconds: before the store's restore */

static struct event	 sched_ev;
static int		 sched_set;

static void	schedule_fire(int, short, void *);

/*
 * wl's windows and wakes at now: how long they keep it up (0: not now),
 * the start of one that is due and not yet woken for (0: none), and
 * when something next begins or ends (*next lowered to it).
 */
static void
schedule_eval(const struct rt_workload *wl, time_t now, time_t *warm,
    time_t *due, const char **why, time_t *next)
{
	const char	*text;
	time_t		 s, e;
	int64_t		 hold;
	int		 k;

	*warm = *due = 0;
	for (k = SCHED_WINDOW; k <= SCHED_WAKE; k++) {
		if (sched_plan_next(wl->sched, k, 0, now, &s, &e, &text,
		    &hold) == -1)
			continue;
		if (s > now) {
			if (s < *next)
				*next = s;
			continue;
		}
		if (e < *next)
			*next = e;
		if ((k == SCHED_WINDOW || hold > 0) && e > *warm)
			*warm = e;
		if (s > wl->sched_done && s > *due) {
			*due = s;
			*why = text;
		}
	}
}

static void
schedule_one(struct rt_workload *wl, time_t now, time_t *next)
{
	struct wake_cause	 cause;
	const char		*why = "";
	time_t			 warm, due;

	if (wl->conf == NULL || wl->sched == NULL) {
		wl->sched_warm_until = 0;
		return;
	}
	schedule_eval(wl, now, &warm, &due, &why, next);
	if (warm != wl->sched_warm_until && warm != 0)
		log_info("workload %s: kept up by its schedule for %llds",
		    wl->name, (long long)(warm - now));
	wl->sched_warm_until = warm;
	if (due == 0)
		return;
	wl->sched_done = due;
	/* asleep, failed, frozen, or being suspended: woken (lc_wake) */
	if (wl->state == WL_RUNNING || wl->state == WL_WAKING) {
		log_debug("workload %s: \"%s\" is due, and it is %s", wl->name,
		    why, workload_state_name(wl->state));
		return;
	}
	log_info("workload %s: woken by its schedule \"%s\"", wl->name, why);
	lifecycle->cause(&cause, WAKE_SCHEDULE);
	lifecycle->wake(wl->name, RT_REASON_SCHEDULE, &cause);
}

static void
schedule_arm(time_t secs)
{
	struct timeval	 tv;

	if (!sched_set) {
		evtimer_set(&sched_ev, schedule_fire, NULL);
		sched_set = 1;
	}
	evtimer_del(&sched_ev);
	memset(&tv, 0, sizeof(tv));
	tv.tv_sec = secs < 1 ? 1 : secs;
	evtimer_add(&sched_ev, &tv);
}

/*
 * A new configuration: each workload's schedules parsed once, here, and
 * computed from that form at every tick (sched_plan_next).  The plan
 * owns its texts: it never points into a generation that is freed.
 */
void
schedule_apply(void)
{
	struct rt_workload	*wl;

	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		sched_plan_free(wl->sched);
		wl->sched = NULL;
		if (wl->conf != NULL && sched_plan_build(wl->conf,
		    &wl->sched) == -1)
			fatal("%s", __func__);
	}
}

/* every workload looked at now: a new configuration, or the timer */
void
schedule_run(void)
{
	struct rt_workload	*wl, *next_wl;
	time_t			 now = sched_now(), next = now + SCHED_RECHECK;

	/* wakes wait for the store's word on what runs, as keep warm's */
	if (!rt->configured || !rt->restored) {
		schedule_arm(SCHED_EARLY);
		return;
	}
	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next_wl)
		schedule_one(wl, now, &next);
	schedule_arm(next - now);
}

static void
schedule_fire(int fd, short event, void *arg)
{
	schedule_run();
}
