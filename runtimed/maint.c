/*
 * Maintenance: orchctl maintenance NAME on|off, or POST .../maintenance
 * from the API.  A workload in maintenance is not woken by anything: a
 * request (the gateways answer 503 with its message, told with every
 * state), a TCP connection, a workload that depends on it (its wake
 * fails naming this one), keep warm, a schedule, a group's wake, a
 * restart, a reload that replaces it or orchctl wake.  Every start asks
 * one gate, maint_gate(), so a new way to start one cannot forget it.
 * It is a flag, not a state: the workload is asleep (or still stopping)
 * and in maintenance.
 *
 * One that runs is suspended first, as orchctl suspend would: the
 * gateways hold nothing new for it (they answer 503 now) and its
 * requests in flight end, then it stops.  A drain that finds it busy is
 * tried again each MAINT_TICK, as is one that waits for those that
 * depend on it to stop.  The store keeps it across restarts of orchd,
 * its end too: at until it turns off by itself, as "off" would.
 *
 * One timer for all: each MAINT_TICK while one in maintenance still
 * runs, else at the earliest until, never further than MAINT_RECHECK
 * ahead (a step of the wall clock is seen within that long).
 */

#include <sys/time.h>

#include <event.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "imsg.h"
#include "log.h"
#include "maint.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "timer.h"
#include "workload.h"
#include "lifecycle_events.h"

#define MAINT_TICK	1	/* seconds: a busy one's suspend tried again */
#define MAINT_RECHECK	3600	/* seconds: the wall clock asked again */

static struct event	 maint_ev;
static int		 maint_evset;

static void	maint_fire(int, short, void *);

/*
 * A workload's maintenance: most are never in it, and a message of 256
 * bytes each would be paid by every sleeping one, so it is allocated
 * the first time it is set, and kept (off, it still says when it went
 * off, for its event) until the workload is freed.
 */
const struct wl_maint *
maint_of(const struct rt_workload *wl)
{
	static const struct wl_maint	 none;

	return (wl->maint != NULL ? wl->maint : &none);
}

static void
maint_set(struct rt_workload *wl, const struct wl_maint *m)
{
	if (wl->maint == NULL &&
	    (wl->maint = malloc(sizeof(*wl->maint))) == NULL)
		fatal("%s", __func__);
	*wl->maint = *m;
}

/*
 * it runs, or is on its way, or may run (a container checked after a
 * restart of orchd, adopted if it outlived it): it must stop
 */
static int
maint_up(const struct rt_workload *wl)
{
	return (wl->conf != NULL && (wl->checking || wl->state == WL_RUNNING ||
	    wl->state == WL_FROZEN || wl->state == WL_WAKING));
}

void
maint_arm(void)
{
	struct rt_workload	*wl;
	struct timeval		 tv;
	int64_t			 first = 0, now = time(NULL);
	int			 up = 0;

	if (!maint_evset) {
		evtimer_set(&maint_ev, maint_fire, NULL);
		maint_evset = 1;
	}
	evtimer_del(&maint_ev);
	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		if (!maint_of(wl)->on)
			continue;
		if (maint_up(wl))
			up = 1;
		if (maint_of(wl)->until > 0 &&
		    (first == 0 || maint_of(wl)->until < first))
			first = maint_of(wl)->until;
	}
	if (first == 0 && !up)
		return;
	memset(&tv, 0, sizeof(tv));
	tv.tv_sec = MAINT_RECHECK;
	if (first > 0)
		tv.tv_sec = first <= now ? 0 : first - now > MAINT_RECHECK ?
		    MAINT_RECHECK : first - now;
	if (up && tv.tv_sec > MAINT_TICK)
		tv.tv_sec = MAINT_TICK;
	evtimer_add(&maint_ev, &tv);
}

/*
 * The gate every start passes (lifecycle.c's wake, start, restart, a
 * dependency's wake, a replacement, the start once its dependencies
 * run; command.c's wake and restart; keep warm, a schedule, a group and
 * a TCP connection wake through lc_wake or lifecycle_start): -1 if wl
 * is in maintenance, why (if not NULL) saying so.  The workload is left
 * as it is: maint_enforce() stops what runs.
 */
int
maint_gate(const struct rt_workload *wl, const char *what, char *why,
    size_t len)
{
	if (!maint_of(wl)->on)
		return (0);
	log_debug("workload %s: in maintenance, %s refused", wl->name, what);
	if (why != NULL)
		(void)snprintf(why, len, "%s is in maintenance: turn that off "
		    "first", wl->name);
	return (-1);
}

/* the store keeps it, the gateways are told with its state */
static void
maint_tell(struct rt_workload *wl)
{
	struct ctl_maint	 cm;

	memset(&cm, 0, sizeof(cm));
	strlcpy(cm.name, wl->name, sizeof(cm.name));
	cm.m = *maint_of(wl);
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_MAINT, 0, -1, &cm,
	    sizeof(cm)) == -1)
		log_warn("%s: compose", __func__);
	lifecycle->maint_told(wl);
}

/*
 * On: it stops, if it runs, and nothing queued starts it after.  A wake
 * waiting for room in the budget leaves the queue, so that it makes no
 * room it would not use, and whoever waits for it hears why at once.
 */
static void
maint_enforce(struct rt_workload *wl)
{
	if (wl->wait != NULL) {
		budget_forget(wl);
		lifecycle->no_room(wl, "in maintenance");
		budget_changed();
	}
	wl->wake_queued = 0;
	timer_disarm(&wl->restart_timer);
	if ((wl->state == WL_RUNNING || wl->state == WL_FROZEN) &&
	    !wl->draining && !wl->stopping && !wl->checking)
		(void)lifecycle->suspend(wl->name, RT_REASON_MAINTENANCE);
}

/* off, by the operator or its time: back to what it was */
static void
maint_end(struct rt_workload *wl, const char *why)
{
	struct wake_cause	 cause;
	struct wl_maint		 off;

	log_info("workload %s: maintenance off (%s)", wl->name, why);
	memset(&off, 0, sizeof(off));
	off.changed_ms = walltime_ms();
	maint_set(wl, &off);
	maint_tell(wl);
	/* kept warm, it was kept down only by the maintenance */
	if (wl->conf != NULL && lifecycle->keep_warm(wl) &&
	    (wl->state == WL_ASLEEP || wl->state == WL_FAILED)) {
		lifecycle->cause(&cause, WAKE_KEEP_WARM);
		lifecycle->wake(wl->name, RT_REASON_KEEP_WARM, &cause);
	}
}

static void
maint_fire(int fd, short event, void *arg)
{
	struct rt_workload	*wl, *next;
	int64_t			 now = time(NULL);

	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next) {
		if (!maint_of(wl)->on)
			continue;
		if (maint_of(wl)->until > 0 && maint_of(wl)->until <= now)
			maint_end(wl, "its time is up");
		else
			maint_enforce(wl);
	}
	maint_arm();
}

/* what the store kept, at start: one whose time passed meanwhile ends */
void
maint_restore(struct rt_workload *wl, const struct wl_maint *m)
{
	struct wl_maint	 copy = *m;
	char		 err[128];

	if (!copy.on)
		return;
	if (copy.until > 0 && copy.until <= time(NULL)) {
		maint_set(wl, &copy);
		maint_end(wl, "its time passed while orchd was down");
		return;
	}
	/* checked as when it was set; a bad row is dropped, loudly */
	if (maint_check(&copy, time(NULL), err, sizeof(err)) == -1) {
		log_warnx("workload %s: maintenance kept by the store "
		    "ignored: %s", wl->name, err);
		return;
	}
	maint_set(wl, &copy);
	log_info("workload %s: in maintenance", wl->name);
	maint_arm();
}

void
maint_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct ctl_maint	 cm;
	struct proc_asker	 a;
	char			 err[128];

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &cm, sizeof(cm));
	cm.name[sizeof(cm.name) - 1] = '\0';
	if ((wl = lifecycle->find(cm.name)) == NULL || wl->conf == NULL) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_NOENT,
		    "no such workload: %s", cm.name);
		return;
	}
	if (maint_check(&cm.m, time(NULL), err, sizeof(err)) == -1) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_FAILED, "%s", err);
		return;
	}
	if (!cm.m.on) {
		if (maint_of(wl)->on)
			maint_end(wl, a.peer == PROC_GATEWAY ? "the API" :
			    "orchctl");
		maint_arm();
		(void)proc_reply_ok(rt->ps, &a);
		return;
	}
	cm.m.changed_ms = walltime_ms();
	maint_set(wl, &cm.m);
	log_info("workload %s: maintenance on%s", wl->name,
	    cm.m.until > 0 ? " for a time" : "");
	maint_tell(wl);
	maint_enforce(wl);
	maint_arm();
	(void)proc_reply_ok(rt->ps, &a);
}
