/*
 * The lifecycle of every workload: one state machine each, in a tree by
 * name.
 *
 *	asleep --wake--> waking --ready--> running --idle--> suspending
 *	   ^               |  ^               |  \               |
 *	   |               |  +----thaw----- frozen <-+ idle,    |
 *	   |               |                  |    "suspend freeze"
 *	   |               +--> failed <------+ (exited)         |
 *	   +-----------------------------------------------------+ (exited)
 *
 * Everything that happens to a workload goes through here, one event at a
 * time, so operations on it are serialized by its state: a wake during a
 * wake joins it, a wake during a stop is queued behind the stop, a
 * suspend is only begun from running.  The drivers do the work and report
 * back (lifecycle_started, _start_failed, _exited, in lc_report.c);
 * readiness reports lifecycle_ready.  Every change of state is told to
 * the gateway, the reaper and the store.
 *
 * A workload that depends on others ("depends on") is waking from the
 * moment it is woken, but waits for them first (deps_wait): each that
 * does not run is woken for it, all at once, each in its own way, and
 * once all run, its own start begins.  One that fails fails it, and the
 * gateway answers its requests with the name.  While one that depends on
 * a workload is up, that workload is not suspended.
 *
 * A workload kept warm that stops by itself (it exited, or failed its
 * wake or its liveness checks) is started again after a delay that grows
 * with each restart.  Failed wakes are counted: a crash loop puts the
 * workload in backoff, and until that ends no request and no restart
 * starts it, only the operator does (backoff.h has the numbers).  Every
 * state message says how long the backoff has left, so that the gateway
 * answers 503 itself without asking.
 *
 * A running workload whose definition changed is replaced at once when
 * its "on change" says restart (replace.c decides how), and orchctl
 * restart replaces it with the definition it has: in place, the gateways
 * hold its new requests and say when those in flight are done
 * (IMSG_RT_HOLD, IMSG_GW_HELD), then it stops and starts again, the held
 * requests waiting on that start as on any wake.
 *
 * The freeze tier ("suspend freeze [for DURATION]"): an idle workload
 * whose drain found it idle is frozen rather than stopped, its driver
 * freezing its instance (the cgroup freezer, docker pause); it keeps its
 * memory, and its charge in the budget.  A wake thaws it: waking until
 * the driver says it is thawed, then running, no start and no readiness
 * check, since nothing of it changed.  It is stopped (suspending, as
 * any suspend) once DURATION has passed, when the budget needs its
 * memory (frozen ones go first), or by the operator.  A freeze that
 * fails, or a host with no freezer, stops it instead, said once.  What
 * a frozen workload depends on stays up under it, as for a running one,
 * so that its thaw needs nothing else.
 *
 * Every start of an asleep or failed workload, whatever woke it, goes
 * through the memory budget first (budget.c): budget_admit() starts it
 * at once, or holds it until there is room, then comes back through
 * lifecycle_start(), or gives up at its wake timeout through
 * lifecycle_no_room().
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cause.h"
#include "compat.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "schedule.h"
#include "timer.h"
#include "units.h"
#include "util.h"
#include "workload.h"
#include "runtime.h"
#include "docker.h"
#include "backoff.h"
#include "driver.h"
#include "lifecycle.h"
#include "lifecycle_events.h"
#include "lifecycle_int.h"

static void	lc_start(struct rt_workload *, enum rt_reason, const char *);
static void	deps_notify(struct rt_workload *, enum rt_reason,
		    const char *);
static void	wake_failed(struct rt_workload *);
static void	wake_queue(struct rt_workload *, enum rt_reason,
		    const struct wake_cause *);

/* in place: at most this long for the requests in flight to end */
#define RT_HOLD_WAIT		30	/* seconds */

static int
rt_workload_cmp(struct rt_workload *a, struct rt_workload *b)
{
	return (strcmp(a->name, b->name));
}
RB_GENERATE(rt_workloads, rt_workload, entry, rt_workload_cmp);

/*
 * To the gateways, numbered: every gateway gets the same states in the
 * same order, so that the number, with an epoch of this runtimed's, is
 * an id for GET /v1/events the same whichever gateway a client asks.
 */
static void
state_send(struct rt_workload *wl, enum privsep_procid to,
    const struct rt_state *st)
{
	static uint32_t	 epoch;
	static uint64_t	 seq;
	struct rt_state	 num;

	num = *st;
	if (to == PROC_GATEWAY) {
		while (epoch == 0)
			epoch = arc4random();
		num.ev_epoch = epoch;
		num.ev_seq = ++seq;
	}
	if (proc_compose(rt->ps, to, IMSG_RT_STATE, 0, -1, &num,
	    sizeof(num)) == -1)
		log_warn("workload %s: state to %s", wl->name, proc_name(to));
}

/* from: the state left, or wl's own for a state told again */
static void
state_fill(struct rt_workload *wl, enum workload_state from,
    enum rt_reason reason, const char *msg, struct rt_state *st)
{
	memset(st, 0, sizeof(*st));
	strlcpy(st->name, wl->name, sizeof(st->name));
	st->from = from;
	/* told again while checked: still unknown to the others */
	st->state = wl->checking ? WL_CHECKING : wl->state;
	/* a wake carries what caused it, into the history */
	if (wl->state == WL_WAKING && from != WL_WAKING)
		st->cause = *lc_cause(wl);
	st->reason = reason;
	st->since = wl->since;
	st->since_ms = wl->since_ms;
	st->backoff_ms = backoff_left(&wl->backoff, monotime_ms());
	/* the gateways answer its requests from it (maint.c) */
	st->maint = *maint_of(wl);
	if (msg != NULL)
		strlcpy(st->msg, msg, sizeof(st->msg));
}

/*
 * maintenance turned on or off (maint.c): the gateways answer from it,
 * and it is an event, for GET /v1/events and orchctl monitor
 */
static void
maint_told(struct rt_workload *wl)
{
	struct rt_state	 st;

	state_fill(wl, wl->state, RT_REASON_MAINTENANCE, NULL, &st);
	st.from = st.state;
	state_send(wl, PROC_GATEWAY, &st);
	state_send(wl, PROC_PARENT, &st);
}

/* tell the gateway again what it may have missed */
void
state_repeat(struct rt_workload *wl)
{
	struct rt_state	 st;

	state_fill(wl, wl->state, RT_REASON_NONE, NULL, &st);
	state_send(wl, PROC_GATEWAY, &st);
}

void
lc_state_set(struct rt_workload *wl, enum workload_state state,
    enum rt_reason reason, const char *msg)
{
	struct rt_state		 st;
	enum workload_state	 from = wl->state, logged = wl->state;
	char			 cause[512];

	/*
	 * The first state told after a restart ends the check; the log
	 * says what the store remembered, if the restore set it
	 */
	if (wl->checking) {
		wl->checking = 0;
		from = WL_CHECKING;
		if (state == wl->state)
			logged = WL_CHECKING;
	}

	/* what woke it, unless the reason says it all */
	if (state == WL_WAKING && lc_cause(wl)->kind != WAKE_NONE &&
	    lc_cause(wl)->kind != WAKE_KEEP_WARM &&
	    lc_cause(wl)->kind != WAKE_RESTART &&
	    lc_cause(wl)->kind != WAKE_DEPENDENCY)
		log_info("workload %s: %s -> %s (%s) by %s", wl->name,
		    workload_state_name(logged), workload_state_name(state),
		    workload_reason_name(reason, 0),
		    cause_text(lc_cause(wl), cause, sizeof(cause)));
	else
		log_info("workload %s: %s -> %s (%s%s%s)", wl->name,
		    workload_state_name(logged), workload_state_name(state),
		    workload_reason_name(reason, 0),
		    msg != NULL && *msg != '\0' ? ": " : "",
		    msg != NULL ? msg : "");
	wl->state = state;
	lc_since_now(wl);
	if (state != WL_FROZEN) {
		timer_disarm(&wl->freeze_timer);
		wl->freezing = 0;
	}
	if (state != WL_WAKING)
		wl->thawing = 0;
	/* nothing runs: nothing drifts */
	if (state == WL_ASLEEP || state == WL_FAILED)
		drift_ended(wl);
	/* a DRAINED still on its way answers a question no longer asked */
	wl->draining = 0;
	/* and so would a busy path's answer: a new stretch begins */
	busy_stop(wl);
	wl->busy_since = 0;
	if (wl->deps_wait && state != WL_WAKING) {
		wl->deps_wait = 0;
		rt->ndeps_wait--;
	}
	/* liveness checks while it runs, and only then */
	if (state == WL_RUNNING)
		live_start(wl);
	else
		live_stop(wl);
	if (state == WL_SUSPENDING)
		budget_suspending(wl, reason);
	else
		wl->evicting = 0;
	state_fill(wl, from, reason, msg, &st);
	state_send(wl, PROC_GATEWAY, &st);
	state_send(wl, PROC_REAPER, &st);
	state_send(wl, PROC_STORE, &st);
	/* for orchctl monitor */
	state_send(wl, PROC_PARENT, &st);
	command_state(wl, msg);
	counts_changed();
	deps_notify(wl, reason, msg);
	/* a wake slot or memory may be free for a wake that waits */
	budget_changed();
	/* its cause was told with waking: kept no longer than a wake */
	if (wl->state != WL_WAKING && !wl->wake_queued && wl->wait == NULL)
		lc_cause_kind(wl, WAKE_NONE);
}

static const struct rt_driver *
driver_get(enum workload_driver driver)
{
	switch (driver) {
	case DRIVER_PROCESS:
		return (&driver_process);
	case DRIVER_DOCKER:
		return (&driver_docker);
	case DRIVER_SWARM:
		return (&driver_swarm);
	default:
		return (NULL);
	}
}

/* the workload's own, else the global one; -1 means "not set" */
int64_t
lifecycle_wake_timeout(const struct rt_workload *wl)
{
	/* a job's is how long it may run */
	if (job_is(wl) && wl->conf->run_timeout > 0)
		return (wl->conf->run_timeout);
	if (wl->conf != NULL && wl->conf->wake_timeout > 0)
		return (wl->conf->wake_timeout);
	if (rt->wake_timeout > 0)
		return (rt->wake_timeout);
	return (ORCHD_WAKE_TIMEOUT);
}

static void
wake_timer_fired(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	char			 msg[64];

	if (wl->state != WL_WAKING)
		return;
	ready_stop(wl);
	snprintf(msg, sizeof(msg), job_is(wl) ? "job failed: still running "
	    "after %llds" : "not ready after %llds",
	    (long long)lifecycle_wake_timeout(wl));
	wake_failed(wl);
	lc_state_set(wl, WL_FAILED, RT_REASON_WAKE_TIMEOUT, msg);
	/* half started is not started: it must not linger */
	lc_stop(wl, RT_REASON_WAKE_TIMEOUT);
	restart_schedule(wl, 0);
}

void
wake_timer_arm(struct rt_workload *wl)
{
	struct timeval	 tv;

	timerclear(&tv);
	tv.tv_sec = lifecycle_wake_timeout(wl);
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
}

/* a wake failed: it counts towards a crash loop */
static void
wake_failed(struct rt_workload *wl)
{
	char	 left[32];
	int64_t	 ms;

	if ((ms = backoff_failed(&wl->backoff, monotime_ms())) > 0)
		log_warnx("workload %s: crash loop: in backoff for %s, no "
		    "request starts it", wl->name,
		    fmt_duration((ms + 999) / 1000, left, sizeof(left)));
}

/* the delay, as history and logs say it: "1s", "4m16s" */
static const char *
delay_text(int64_t ms, char *buf, size_t len)
{
	int64_t	 s = (ms + 999) / 1000;

	if (s >= 60 && s % 60 != 0)
		snprintf(buf, len, "%lldm%llds", (long long)(s / 60),
		    (long long)(s % 60));
	else
		(void)fmt_duration(s, buf, len);
	return (buf);
}

static void
restart_fired(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	char			 msg[64], d[32];

	timer_disarm(&wl->restart_timer);
	if (wl->conf == NULL || !lifecycle_keep_warm(wl) ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED))
		return;
	if (wl->stopping) {
		/* a wake timeout's stop, not done yet */
		wl->wake_queued = 1;
		wl->wake_reason = RT_REASON_RESTART;
		lc_cause_kind(wl, WAKE_RESTART);
		return;
	}
	/* its wake, waiting for room in the memory budget, is this one */
	if (wl->wait != NULL)
		return;
	snprintf(msg, sizeof(msg), "after %s",
	    delay_text(wl->restart_wait, d, sizeof(d)));
	lc_cause_kind(wl, WAKE_RESTART);
	budget_admit(wl, RT_REASON_RESTART, msg);
}

/*
 * Kept warm, it stopped by itself after up ms running (0: it never ran):
 * it is started again after its restart delay, or once its backoff is
 * over if that is later.
 */
void
restart_schedule(struct rt_workload *wl, int64_t up)
{
	struct timeval	 tv;
	int64_t		 delay, left;
	char		 d[32];

	if (wl->conf == NULL || !lifecycle_keep_warm(wl))
		return;
	delay = restart_delay(&wl->backoff, up);
	if ((left = backoff_left(&wl->backoff, monotime_ms())) > delay)
		delay = left;
	wl->restart_wait = delay;
	log_info("workload %s: kept warm, restart in %s", wl->name,
	    delay_text(delay, d, sizeof(d)));
	tv.tv_sec = delay / 1000;
	tv.tv_usec = (delay % 1000) * 1000;
	timer_arm(&wl->restart_timer, restart_fired, wl, &tv);
}

/* a wake that failed: counted, and a workload kept warm tries again */
void
lc_fail(struct rt_workload *wl, enum rt_reason reason, const char *msg)
{
	int	 waking = wl->state == WL_WAKING;

	ready_stop(wl);
	timer_disarm(&wl->wake_timer);
	/* maintenance is no crash: it adds nothing to the backoff */
	if (waking && reason != RT_REASON_MAINTENANCE)
		wake_failed(wl);
	lc_state_set(wl, WL_FAILED, reason, msg);
	if (waking)
		restart_schedule(wl, 0);
}

/* the start itself, once what it depends on runs */
static void
lc_run(struct rt_workload *wl)
{
	char	 msg[RT_MSG_MAX];

	wake_timer_arm(wl);
	/* the driver is chosen per start: a reload may have changed it */
	if ((wl->drv = driver_get(wl->conf->driver)) == NULL) {
		lc_fail(wl, RT_REASON_START_FAILED, "driver not available");
		return;
	}
	msg[0] = '\0';
	drift_started(wl);
	/* where this instance listens: checks and the gateways go there */
	if (lifecycle_address(wl->conf, &wl->addr, &wl->addrlen) == -1)
		log_warnx("workload %s: bad address %s", wl->name,
		    wl->conf->address);
	else
		route_send(wl, 0);
	if (wl->drv->start(wl, msg, sizeof(msg)) == -1)
		lc_fail(wl, RT_REASON_START_FAILED, msg);
}

/*
 * Dependencies.
 */

/* one wl depends on did not wake, or is not there: wl fails with its name */
static void
deps_fail(struct rt_workload *wl, const char *dep, const char *why)
{
	char	 msg[RT_MSG_MAX];

	(void)snprintf(msg, sizeof(msg), "%s did not wake: %s", dep, why);
	lc_fail(wl, RT_REASON_DEPENDENCY, msg);
}

/* wl waits for its dependencies: its own start, if they all run now */
static void
deps_ready(struct rt_workload *wl)
{
	const struct strentry	*e;
	struct rt_workload	*d;

	TAILQ_FOREACH(e, &wl->conf->depends, entry)
		if ((d = lifecycle_find(e->str)) == NULL ||
		    (d->state != WL_RUNNING && !job_done(d)))
			return;
	/*
	 * put in maintenance while they woke: its wake ends here, as one
	 * whose dependency is in maintenance does (lc_deps_wake)
	 */
	if (maint_gate(wl, "a start", NULL, 0) == -1) {
		lc_fail(wl, RT_REASON_MAINTENANCE, "in maintenance");
		return;
	}
	wl->deps_wait = 0;
	rt->ndeps_wait--;
	log_info("workload %s: what it depends on runs: starting", wl->name);
	lc_run(wl);
}

static void	lc_wake(struct rt_workload *, enum rt_reason,
		    const struct wake_cause *, const char *);

/*
 * Wake what wl depends on and does not run, for wl: their wakes go on
 * side by side, each as any wake (joined if under way, after a stop if
 * stopping).  One that fails at once has failed wl when lc_wake returns.
 */
void
lc_deps_wake(struct rt_workload *wl)
{
	const struct strentry	*e;
	struct rt_workload	*d;
	char			 msg[RT_MSG_MAX];
	struct wake_cause	 depcause;

	(void)snprintf(msg, sizeof(msg), "for %s", wl->name);
	lifecycle_cause(&depcause, WAKE_DEPENDENCY);
	TAILQ_FOREACH(e, &wl->conf->depends, entry) {
		if ((d = lifecycle_find(e->str)) == NULL || d->conf == NULL) {
			deps_fail(wl, e->str, "no such workload");
			return;
		}
		/* running still or not, it is kept down (maint.c) */
		if (maint_gate(d, "a dependency's wake", NULL, 0) == -1) {
			deps_fail(wl, e->str, "it is in maintenance");
			return;
		}
		if (d->state != WL_RUNNING && d->state != WL_WAKING &&
		    !job_done(d))
			lc_wake(d, RT_REASON_DEPENDENCY, &depcause, msg);
		if (wl->state != WL_WAKING)
			return;
	}
	if (wl->deps_wait)
		deps_ready(wl);
}

/*
 * d changed state for reason: those waiting for it go on or fail.  A
 * failure of its own dependency is told whole: "b did not wake: c did
 * not wake: start failed".
 */
static void
deps_notify(struct rt_workload *d, enum rt_reason reason, const char *msg)
{
	struct rt_workload	*w;
	uint32_t		 i;

	for (i = 0; i < d->ndependents; i++) {
		w = d->dependents[i];
		if (!w->deps_wait || w->conf == NULL)
			continue;
		switch (d->state) {
		case WL_RUNNING:
			deps_ready(w);
			break;
		case WL_FAILED:
			/* a job's says its exit status */
			deps_fail(w, d->name, (reason == RT_REASON_DEPENDENCY ||
			    job_is(d)) && msg != NULL ? msg :
			    workload_reason_name(reason, 0));
			break;
		case WL_ASLEEP:
			if (job_done(d)) {
				deps_ready(w);
				break;
			}
			/* its wake, queued behind its stop, is next */
			if (!d->wake_queued)
				deps_fail(w, d->name, "it stopped");
			break;
		default:
			break;
		}
	}
}

/*
 * A workload that depends on wl and is up (waking, running, stopping):
 * wl is not suspended under it.  NULL if none.
 */
struct rt_workload *
lifecycle_dependent_up(const struct rt_workload *wl)
{
	struct rt_workload	*w;
	uint32_t		 i;

	for (i = 0; i < wl->ndependents; i++) {
		w = wl->dependents[i];
		if (w->conf != NULL && (w->state == WL_WAKING ||
		    w->state == WL_RUNNING || w->state == WL_SUSPENDING ||
		    w->state == WL_FROZEN))
			return (w);
	}
	return (NULL);
}

/* wl runs without a wake of ours: wake what it depends on for it */
void
deps_up(struct rt_workload *wl)
{
	const struct strentry	*e;
	struct rt_workload	*d;
	char			 msg[RT_MSG_MAX];
	struct wake_cause	 depcause;

	(void)snprintf(msg, sizeof(msg), "for %s", wl->name);
	lifecycle_cause(&depcause, WAKE_DEPENDENCY);
	/* a job is run before a start, not under what runs already */
	TAILQ_FOREACH(e, &wl->conf->depends, entry)
		if ((d = lifecycle_find(e->str)) != NULL && d->conf != NULL &&
		    !job_is(d) && (d->state == WL_ASLEEP ||
		    d->state == WL_FAILED) &&
		    maint_gate(d, "a dependency's wake", NULL, 0) == 0)
			lc_wake(d, RT_REASON_DEPENDENCY, &depcause, msg);
}

static void
lc_start(struct rt_workload *wl, enum rt_reason reason, const char *msg)
{
	const struct strentry	*e;
	struct rt_workload	*d;

	wl->wake_queued = 0;
	/* whatever started it, a restart due is no longer */
	timer_disarm(&wl->restart_timer);
	/* the memory budget admitted it: charged from now until it stops */
	budget_charge(wl);
	lc_state_set(wl, WL_WAKING, reason, msg);
	if (TAILQ_EMPTY(&wl->conf->depends)) {
		lc_run(wl);
		return;
	}
	/* its wake is a new round for the jobs run at every wake */
	TAILQ_FOREACH(e, &wl->conf->depends, entry)
		if ((d = lifecycle_find(e->str)) != NULL)
			job_round(d);
	wl->deps_wait = 1;
	rt->ndeps_wait++;
	lc_deps_wake(wl);
}

/* begin a stop; the driver's report of the exit completes it */
void
lc_stop(struct rt_workload *wl, enum rt_reason reason)
{
	ready_stop(wl);
	timer_disarm(&wl->wake_timer);
	wl->stop_reason = reason;
	if (wl->stopping)
		return;
	if (wl->drv != NULL && wl->drv->stop(wl) == 0)
		wl->stopping = 1;
	else
		lc_stopped(wl);
}

void
lc_free(struct rt_workload *wl)
{
	log_debug("workload %s: forgotten", wl->name);
	budget_forget(wl);
	command_gone(wl);
	ready_stop(wl);
	busy_stop(wl);
	live_stop(wl);
	timer_disarm(&wl->wake_timer);
	timer_disarm(&wl->restart_timer);
	timer_disarm(&wl->hold_timer);
	timer_disarm(&wl->freeze_timer);
	replace_clear(wl);
	process_clear(wl);
	docker_clear(wl);
	drift_ended(wl);
	swarm_clear(wl);
	RB_REMOVE(rt_workloads, &rt->workloads, wl);
	free(wl->dependents);
	free(wl->cause);
	free(wl->drift);
	free(wl->maint);
	sched_plan_free(wl->sched);
	free(wl);
	rt->ps->workloads--;
}

/* the stop completed: what was waiting for it goes ahead */
void
lc_stopped(struct rt_workload *wl)
{
	wl->stopping = 0;
	wl->holding = 0;
	timer_disarm(&wl->hold_timer);
	if (wl->state == WL_SUSPENDING)
		lc_state_set(wl, WL_ASLEEP, wl->stop_reason, NULL);
	if (wl->conf == NULL) {
		lc_free(wl);
		budget_changed();
		return;
	}
	if (wl->wake_queued) {
		wl->wake_queued = 0;
		budget_admit(wl, wl->wake_reason, NULL);
	} else if (wl->stop_reason == RT_REASON_UNHEALTHY &&
	    wl->state == WL_ASLEEP)
		restart_schedule(wl, monotime_ms() - wl->running_ms);
	/* its memory is back */
	budget_changed();
}

/*
 * Inputs from the other processes.
 */

/* orchctl keepwarm (kept by the store) overrides the configuration */
int
lifecycle_keep_warm(const struct rt_workload *wl)
{
	/*
	 * maintenance keeps it down, kept warm or not: a question, not a
	 * start (each start of one kept warm asks maint_gate())
	 */
	if (maint_of(wl)->on)
		return (0);
	if (wl->keep_warm != -1)
		return (wl->keep_warm);
	return (wl->conf != NULL && wl->conf->keep_warm);
}

/* the reaper decides idleness: it must know the override too */
void
lifecycle_keep_warm_send(struct rt_workload *wl)
{
	struct ctl_keepwarm	 kw;

	if (wl->keep_warm == -1)
		return;
	memset(&kw, 0, sizeof(kw));
	strlcpy(kw.name, wl->name, sizeof(kw.name));
	kw.on = wl->keep_warm;
	if (proc_compose(rt->ps, PROC_REAPER, IMSG_ST_KEEPWARM, 0, -1, &kw,
	    sizeof(kw)) == -1)
		log_warn("workload %s: keep warm to the reaper", wl->name);
}

struct rt_workload *
lifecycle_find(const char *name)
{
	struct rt_workload	 key;

	key.name = name;
	return (RB_FIND(rt_workloads, &rt->workloads, &key));
}

/*
 * A wake for a name we do not know yet: the gateway applied a new
 * generation before we did.  It is run once we have applied it too.
 */
static void
early_wake(const char *name, const struct wake_cause *cause)
{
	struct gw_wake	*e;
	int		 i;

	for (i = 0; i < rt->nearly; i++)
		if (strcmp(rt->early[i].name, name) == 0)
			return;
	if (rt->nearly >= RT_EARLY_WAKES_MAX) {
		log_warnx("workload %s: unknown, wake dropped", name);
		return;
	}
	e = &rt->early[rt->nearly++];
	strlcpy(e->name, name, sizeof(e->name));
	e->cause = *cause;
	log_debug("workload %s: not known yet, wake kept", name);
}

/* a wake held until a stop is done: its reason and cause, the first's */
static void
wake_queue(struct rt_workload *wl, enum rt_reason reason,
    const struct wake_cause *cause)
{
	if (wl->wake_queued)
		return;
	wl->wake_queued = 1;
	wl->wake_reason = reason;
	lc_cause_set(wl, cause);
}

/*
 * In a crash loop only the operator starts it: 1 if this wake is not
 * one of the operator's and must wait for the backoff's end.
 */
static int
wake_in_backoff(struct rt_workload *wl, enum rt_reason reason)
{
	if (reason == RT_REASON_OPERATOR ||
	    backoff_left(&wl->backoff, monotime_ms()) <= 0)
		return (0);
	log_debug("workload %s: in backoff, not started", wl->name);
	/* the gateway answers what it holds */
	state_repeat(wl);
	if (wl->restart_timer == NULL)
		restart_schedule(wl, 0);
	return (1);
}

/* cause: what woke it, kept in the history with the wake */
void
lifecycle_wake(const char *name, enum rt_reason reason,
    const struct wake_cause *cause)
{
	struct rt_workload	*wl;

	if ((wl = lifecycle_find(name)) == NULL) {
		early_wake(name, cause);
		return;
	}
	if (wl->conf == NULL) {
		/* the gateway answers its requests when it drops it too */
		log_debug("workload %s: wake of a removed workload", name);
		return;
	}
	lc_wake(wl, reason, cause, NULL);
}

/*
 * The freeze tier.
 */

/* frozen, or to be: stopped now, as any suspend */
int
lifecycle_freeze_stop(struct rt_workload *wl, enum rt_reason reason)
{
	if (wl->state != WL_FROZEN || wl->stopping)
		return (-1);
	lc_state_set(wl, WL_SUSPENDING, reason, "was frozen");
	/* the driver's stop thaws it first (the parent, docker) */
	lc_stop(wl, reason);
	return (0);
}

static void
freeze_timer_fired(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	char			 d[32];

	timer_disarm(&wl->freeze_timer);
	log_info("workload %s: frozen for %s: stopping it", wl->name,
	    fmt_duration(freeze_for(wl), d, sizeof(d)));
	(void)lifecycle_freeze_stop(wl, RT_REASON_IDLE);
}

/*
 * Idle, drained: frozen rather than stopped, if it says so and its
 * driver can.  0 if it is frozen now (the driver's answer follows).
 */
static int
lc_freeze(struct rt_workload *wl)
{
	struct timeval	 tv;
	int64_t		 secs;

	if ((secs = freeze_for(wl)) <= 0 || wl->drv == NULL)
		return (-1);
	if (wl->drv->freeze == NULL) {
		log_debug("workload %s: driver %s has no freeze: stopped",
		    wl->name, wl->drv->name);
		return (-1);
	}
	if (wl->drv->freeze(wl, 1) == -1)
		return (-1);
	wl->freezing = 1;
	wl->thawing = 0;
	lc_state_set(wl, WL_FROZEN, RT_REASON_IDLE, NULL);
	if (secs < WL_FREEZE_FOREVER) {
		timerclear(&tv);
		tv.tv_sec = secs;
		timer_arm(&wl->freeze_timer, freeze_timer_fired, wl, &tv);
	}
	return (0);
}

/* a wake of a frozen workload: waking until the driver has thawed it */
static void
lc_thaw(struct rt_workload *wl, enum rt_reason reason,
    const struct wake_cause *cause, const char *msg)
{
	timer_disarm(&wl->freeze_timer);
	lc_cause_set(wl, cause);
	if (wl->thawing || wl->stopping)
		return;
	if (wl->drv == NULL || wl->drv->freeze == NULL ||
	    wl->drv->freeze(wl, 0) == -1) {
		/* cannot be thawed: stopped, and started afresh */
		wake_queue(wl, reason, cause);
		(void)lifecycle_freeze_stop(wl, RT_REASON_NO_FREEZER);
		return;
	}
	wl->thawing = 1;
	lc_state_set(wl, WL_WAKING, reason, msg);
	wake_timer_arm(wl);
}

/*
 * The driver's answer: frozen (on 1) or thawed, ok or not.  A freeze
 * that failed stops it, as if there were no freeze tier, and the log
 * says so once; a thaw that failed stops it too, its wake queued
 * behind the stop, as for a wake during a suspend.
 */
void
lifecycle_frozen(struct rt_workload *wl, int on, int ok)
{
	struct wake_cause	 cause;

	if (on) {
		wl->freezing = 0;
		if (ok || wl->state != WL_FROZEN || wl->thawing)
			return;
		if (!rt->no_freezer)
			log_warnx("workload %s: could not be frozen (no "
			    "freezer on this host?): idle workloads are "
			    "stopped instead; said once", wl->name);
		rt->no_freezer = 1;
		(void)lifecycle_freeze_stop(wl, RT_REASON_NO_FREEZER);
		return;
	}
	if (!wl->thawing)
		return;
	wl->thawing = 0;
	if (wl->state != WL_WAKING || wl->stopping)
		return;
	timer_disarm(&wl->wake_timer);
	if (ok) {
		wl->running_ms = monotime_ms();
		lc_state_set(wl, WL_RUNNING, RT_REASON_THAWED, NULL);
		return;
	}
	log_warnx("workload %s: could not be thawed: restarting it",
	    wl->name);
	cause = *lc_cause(wl);
	lc_state_set(wl, WL_SUSPENDING, RT_REASON_NO_FREEZER,
	    "could not be thawed");
	wake_queue(wl, RT_REASON_REQUEST, &cause);
	lc_stop(wl, RT_REASON_NO_FREEZER);
}

/* no row in the store at start: a check waits only on its driver's look */
static int
lc_check_unheld(struct rt_workload *wl)
{
	if (!rt->store_none || docker_looking(wl) || swarm_looking(wl))
		return (-1);
	lc_state_set(wl, wl->state, RT_REASON_RESTORED,
	    "checked after a restart");
	return (0);
}

/* a wake of a configured workload; cause and msg for the history */
static void
lc_wake(struct rt_workload *wl, enum rt_reason reason,
    const struct wake_cause *cause, const char *msg)
{
	const char	*name = wl->name;
	int64_t		 secs;

	/* nothing wakes it: the gateways answer what they hold */
	if (maint_gate(wl, "a wake", NULL, 0) == -1) {
		state_repeat(wl);
		return;
	}
	/* it may run already: the check says, then the wake goes on */
	if (wl->checking && lc_check_unheld(wl) == -1) {
		log_debug("workload %s: wakes once checked", name);
		wake_queue(wl, reason, cause);
		return;
	}
	switch (wl->state) {
	case WL_RUNNING:
		state_repeat(wl);
		break;
	case WL_WAKING:
		log_debug("workload %s: joins the wake under way", name);
		/* a gateway that asks anew waits for the pull too */
		if ((secs = docker_pulling(wl)) > 0)
			wait_send(wl, secs);
		break;
	case WL_SUSPENDING:
		log_debug("workload %s: wakes once stopped", name);
		wake_queue(wl, reason, cause);
		break;
	case WL_FROZEN:
		lc_thaw(wl, reason, cause, msg);
		break;
	case WL_ASLEEP:
	case WL_FAILED:
		if (wake_in_backoff(wl, reason))
			break;
		/* failed by a wake timeout, its stop may not be done yet */
		if (wl->stopping)
			wake_queue(wl, reason, cause);
		else if (wl->wait != NULL)
			log_debug("workload %s: joins the wake that waits for "
			    "room", name);
		else {
			lc_cause_set(wl, cause);
			budget_admit(wl, reason, msg);
		}
		break;
	case WL_CHECKING:
		/* runtimed's own state is never that */
		break;
	}
}

/*
 * A wake the memory budget admitted, maybe after a wait: meanwhile a
 * reload may have removed it, or something else started it; a crash
 * loop's backoff, which may have begun meanwhile (a wake queued behind
 * a failed wake's stop), holds as for any wake.  A restart is timed to
 * come after the backoff already (restart_schedule).
 */
void
lifecycle_start(struct rt_workload *wl, enum rt_reason reason,
    const char *msg)
{
	if (wl->conf == NULL || wl->stopping ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED) ||
	    maint_gate(wl, "a start", NULL, 0) == -1)
		return;
	if (reason != RT_REASON_RESTART && wake_in_backoff(wl, reason))
		return;
	lc_start(wl, reason, msg);
}

/*
 * Its wake waited its whole wake timeout for room in the memory budget
 * (or for a wake slot): it stays as it was, and its history too.  The
 * gateways answer its requests 503 with Retry-After; whoever waits for
 * it, orchctl or a workload that depends on it, hears why; one kept warm
 * tries again after its restart delay.
 */
void
lifecycle_no_room(struct rt_workload *wl, const char *why)
{
	struct rt_state		 st;
	struct rt_workload	*w;
	uint32_t		 i;

	state_fill(wl, wl->state, RT_REASON_NO_ROOM, why, &st);
	state_send(wl, PROC_GATEWAY, &st);
	command_no_room(wl, why);
	for (i = 0; i < wl->ndependents; i++) {
		w = wl->dependents[i];
		if (w->deps_wait && w->conf != NULL)
			deps_fail(w, wl->name, why);
	}
	if (wl->conf != NULL && lifecycle_keep_warm(wl) &&
	    wl->restart_timer == NULL)
		restart_schedule(wl, 0);
}

/*
 * The reaper finds it idle, or the operator wants it stopped: first ask
 * the gateways to hold their new requests and say whether any are in
 * flight.  Returns 0 if that is under way.
 */
int
lifecycle_suspend(const char *name, enum rt_reason reason)
{
	struct rt_workload	*wl;
	struct wl_ref		 ref;
	int			 n;

	if ((wl = lifecycle_find(name)) == NULL || wl->conf == NULL) {
		log_debug("workload %s: suspend of an unknown workload", name);
		return (-1);
	}
	/* frozen: the operator's or the budget's suspend stops it */
	if (wl->state == WL_FROZEN)
		return (reason == RT_REASON_IDLE ? -1 :
		    lifecycle_freeze_stop(wl, reason));
	if (wl->state != WL_RUNNING || lifecycle_keep_warm(wl))
		return (-1);
	if (replace_starting(wl)) {
		log_debug("workload %s: being replaced, not suspended", name);
		return (-1);
	}
	if (lifecycle_dependent_up(wl) != NULL) {
		log_debug("workload %s: one that depends on it is up, not "
		    "suspended", name);
		return (-1);
	}
	if (wl->draining)
		return (0);
	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if ((n = proc_instances(rt->ps, PROC_GATEWAY)) == 0 ||
	    proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_DRAIN, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		log_warn("workload %s: drain", wl->name);
		/* those that got it hold requests: let them go */
		state_repeat(wl);
		return (-1);
	}
	wl->draining = n;
	wl->drain_busy = 0;
	wl->drain_reason = reason;
	log_debug("workload %s: draining", wl->name);
	return (0);
}

/*
 * One gateway's answer to a drain.  The workload stops only if every
 * gateway found it idle; otherwise those that did hold their requests
 * for it and are told it runs on.
 */
void
lifecycle_drained(const char *name, int idle)
{
	struct rt_workload	*wl, *w;
	int			 busy;

	if ((wl = lifecycle_find(name)) == NULL)
		return;
	if (wl->draining == 0) {
		/* an answer to a question no longer asked */
		if (idle && wl->state == WL_RUNNING)
			state_repeat(wl);
		return;
	}
	if (!idle)
		wl->drain_busy = 1;
	if (--wl->draining > 0)
		return;
	busy = wl->drain_busy;
	wl->drain_busy = 0;
	if (wl->state != WL_RUNNING || wl->conf == NULL ||
	    lifecycle_keep_warm(wl)) {
		/* the gateways hold their requests now: it is running still */
		if (wl->state == WL_RUNNING)
			state_repeat(wl);
		command_refused(wl, "it is kept warm");
		budget_drain_refused(wl);
		return;
	}
	if (busy || replace_starting(wl)) {
		log_debug("workload %s: busy again, not suspended", name);
		state_repeat(wl);
		command_refused(wl, "it has requests in flight");
		budget_drain_refused(wl);
		return;
	}
	/* woken for since the drain began */
	if ((w = lifecycle_dependent_up(wl)) != NULL) {
		log_debug("workload %s: %s depends on it, not suspended", name,
		    w->name);
		state_repeat(wl);
		command_refused(wl, "one that depends on it is up");
		budget_drain_refused(wl);
		return;
	}
	/* idle: the freeze tier first, if it says so */
	if (wl->drain_reason == RT_REASON_IDLE && lc_freeze(wl) == 0)
		return;
	lc_state_set(wl, WL_SUSPENDING, wl->drain_reason, NULL);
	lc_stop(wl, wl->drain_reason);
}

/*
 * What the store remembers of the last run, once at start.  A process
 * workload does not survive orchd (its PR_SET_PDEATHSIG sees to it):
 * whatever it was, it is asleep now, and the history says so.  One that
 * a request or keep warm has woken since is left alone.  Until then it
 * was "checking" (lifecycle_checking()), and the check ends here, or
 * once docker has looked for its container, or the swarm's watch for
 * its service.
 */
void
lifecycle_restore(const struct st_restore *rs)
{
	struct rt_workload	*wl;

	if ((wl = lifecycle_find(rs->name)) == NULL || wl->conf == NULL) {
		log_debug("workload %s: restore of an unknown workload",
		    rs->name);
		return;
	}
	maint_restore(wl, &rs->maint);
	if (rs->keep_warm == 0 || rs->keep_warm == 1) {
		wl->keep_warm = rs->keep_warm;
		lifecycle_keep_warm_send(wl);
		/* one that lapsed while orchd was down lapses now */
		if (rs->keep_warm_until > 0)
			warm_until_set(wl, rs->keep_warm_until);
	}
	budget_restore(wl, rs);
	job_restore(wl, rs->job_hash);
	if (wl->state != WL_ASLEEP || wl->stopping) {
		lifecycle_check_end(wl);
		return;
	}
	/* a container may have outlived orchd: docker looks first */
	if (wl->conf->driver == DRIVER_DOCKER && docker_restore(wl, rs) == 0)
		return;
	/* and a swarm service: its first watch looks */
	if (wl->conf->driver == DRIVER_SWARM && swarm_restore(wl, rs) == 0)
		return;
	switch (rs->state) {
	case WL_WAKING:
	case WL_RUNNING:
	case WL_SUSPENDING:
	case WL_FROZEN:
		wl->state = rs->state;
		lc_state_set(wl, WL_ASLEEP, RT_REASON_RESTORED,
		    "not running after a restart");
		break;
	case WL_FAILED:
		/* as the store has it: the next request tries again */
		wl->state = WL_FAILED;
		counts_changed();
		break;
	default:
		break;
	}
	lifecycle_check_end(wl);
}

/*
 * Restarted, runtimed does not know yet what runs of wl: the others are
 * told "checking" rather than what the store remembers, and a wake waits
 * (lc_wake()) until lifecycle_check_end().  runtimed's own state stays
 * asleep meanwhile, as the drivers expect of one they may adopt.
 */
void
lifecycle_checking(struct rt_workload *wl)
{
	struct rt_state	 st;

	wl->checking = 1;
	state_fill(wl, wl->state, RT_REASON_RESTORED,
	    "not yet compared with what runs", &st);
	/* the store shows it as checking by itself, and records no such */
	state_send(wl, PROC_GATEWAY, &st);
	state_send(wl, PROC_PARENT, &st);
}

/*
 * The driver has compared: one still checking is what runtimed holds
 * (asleep, or failed as the store had it), and a wake that came
 * meanwhile goes on, unless the check found it up.
 */
void
lifecycle_check_end(struct rt_workload *wl)
{
	struct wake_cause	 cause;

	if (wl->checking)
		lc_state_set(wl, wl->state, RT_REASON_RESTORED,
		    "checked after a restart");
	if (!wl->wake_queued || wl->stopping || wl->conf == NULL)
		return;
	wl->wake_queued = 0;
	cause = *lc_cause(wl);
	if (wl->state == WL_ASLEEP || wl->state == WL_FAILED)
		lc_wake(wl, wl->wake_reason, &cause, NULL);
}

/* keep warm workloads are woken once the store has said its piece */
void
lc_keep_warm_wakes(void)
{
	struct rt_workload	*wl, *next;
	struct wake_cause	 cause;

	lifecycle_cause(&cause, WAKE_KEEP_WARM);
	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next)
		if (wl->conf != NULL && lifecycle_keep_warm(wl) &&
		    (wl->state == WL_ASLEEP || wl->state == WL_FAILED))
			lifecycle_wake(wl->name, RT_REASON_KEEP_WARM, &cause);
}

void
lifecycle_restore_done(void)
{
	struct rt_workload	*wl;

	if (rt->restored)
		return;
	rt->restored = 1;
	log_debug("restored from the store");
	/* no row in the store, or one for a process: checked now */
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->checking && !docker_looking(wl) && !swarm_looking(wl))
			lifecycle_check_end(wl);
	lc_keep_warm_wakes();
}

/*
 * The store had no row: the wakes held for the check go on (each ends
 * its own check), and the keep-warm ones start; the others are checked
 * at the restore's end, which tells every state at once.
 */
void
lifecycle_restore_none(void)
{
	struct rt_workload	*wl;

	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->checking && wl->wake_queued && !docker_looking(wl) &&
		    !swarm_looking(wl))
			lifecycle_check_end(wl);
	lc_keep_warm_wakes();
}

void
wait_send(struct rt_workload *wl, int64_t secs)
{
	struct rt_wait	 rw;

	memset(&rw, 0, sizeof(rw));
	strlcpy(rw.name, wl->name, sizeof(rw.name));
	rw.secs = secs;
	if (proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_WAIT, 0, -1, &rw,
	    sizeof(rw)) == -1)
		log_warn("workload %s: wait to the gateway", wl->name);
}

/* where conf says its instance listens */
int
lifecycle_address(const struct workload_conf *conf, union wl_addr *addr,
    socklen_t *len)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)addr;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)addr;

	memset(addr, 0, sizeof(*addr));
	if (inet_pton(AF_INET, conf->address, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(workload_upstream_port(conf));
		*len = sizeof(*sin);
		return (0);
	}
	if (inet_pton(AF_INET6, conf->address, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(workload_upstream_port(conf));
		*len = sizeof(*sin6);
		return (0);
	}
	*len = 0;
	return (-1);
}

/* "on change": the workload's own, else the global one */
static int
on_change(const struct rt_workload *wl)
{
	if (wl->conf != NULL && wl->conf->on_change != -1)
		return (wl->conf->on_change);
	return (rt->on_change);
}

/*
 * Its definition changed, or it has just started as one changed: a
 * running workload with a drift is replaced now if "on change restart"
 * says so, else it runs on and its next start takes the new one.
 */
void
lifecycle_changed(struct rt_workload *wl)
{
	char	 buf[RT_DRIFT_MAX];

	if (wl->conf == NULL || wl->state != WL_RUNNING || wl->stopping ||
	    wl->holding || wl->replace != NULL ||
	    on_change(wl) != ON_CHANGE_RESTART ||
	    drift_fields(wl, buf, sizeof(buf))[0] == '\0')
		return;
	/* draining into maintenance: its next start, once off, takes it */
	if (maint_gate(wl, "its replacement", NULL, 0) == -1)
		return;
	/* a replacement that did not start is tried again for a new one */
	if (wl->replace_failed != NULL && workload_diff(wl->replace_failed,
	    wl->conf, NULL, 0) == 0)
		return;
	log_info("workload %s: on change restart: replacing it (%s "
	    "changed)", wl->name, buf);
	replace_begin(wl);
}

static void
hold_done(struct rt_workload *wl)
{
	timer_disarm(&wl->hold_timer);
	wl->holding = 0;
	if (wl->state == WL_SUSPENDING && !wl->stopping)
		lc_stop(wl, RT_REASON_REPLACED);
}

static void
hold_timer_fired(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;

	log_warnx("workload %s: requests still in flight after %ds: "
	    "stopping it for its replacement all the same", wl->name,
	    RT_HOLD_WAIT);
	hold_done(wl);
}

/*
 * Replaced in place, why ("new definition", "orchctl restart") for the
 * history: the gateways first hold its new requests (they hear before
 * the state, which would make them count what is in flight anew), and
 * once those in flight are done it stops; its start is queued behind
 * the stop.  0 if that is under way.
 */
int
lifecycle_restart(struct rt_workload *wl, const char *why)
{
	struct wl_ref		 ref;
	struct wake_cause	 cause;
	struct timeval		 tv;
	int			 n;

	if (wl->conf == NULL || wl->state != WL_RUNNING || wl->stopping ||
	    wl->holding || replace_starting(wl) ||
	    maint_gate(wl, "a restart", NULL, 0) == -1)
		return (-1);
	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if ((n = proc_instances(rt->ps, PROC_GATEWAY)) == 0 ||
	    proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_HOLD, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		log_warn("workload %s: hold", wl->name);
		return (-1);
	}
	lc_state_set(wl, WL_SUSPENDING, RT_REASON_REPLACED, why);
	wl->holding = n;
	lifecycle_cause(&cause, WAKE_RESTART);
	wake_queue(wl, RT_REASON_REPLACED, &cause);
	timerclear(&tv);
	tv.tv_sec = RT_HOLD_WAIT;
	timer_arm(&wl->hold_timer, hold_timer_fired, wl, &tv);
	return (0);
}

/* a gateway has nothing in flight to it: in place, or side by side */
void
lifecycle_held(const char *name)
{
	struct rt_workload	*wl;

	if ((wl = lifecycle_find(name)) == NULL)
		return;
	if (wl->holding == 0) {
		replace_held(wl);
		return;
	}
	if (--wl->holding == 0)
		hold_done(wl);
}

/*
 * Side by side: its instance changed while it runs (replace.c), the
 * history says so.  Told to every process as a state told again, with
 * its reason; the store records it.
 */
void
lifecycle_replaced(struct rt_workload *wl, const char *msg)
{
	struct rt_state	 st;

	log_info("workload %s: %s", wl->name, msg);
	lc_since_now(wl);
	state_fill(wl, wl->state, RT_REASON_REPLACED, msg, &st);
	state_send(wl, PROC_GATEWAY, &st);
	state_send(wl, PROC_REAPER, &st);
	state_send(wl, PROC_STORE, &st);
	state_send(wl, PROC_PARENT, &st);
}

/*
 * The table the drivers, the budget and the others reach the lifecycle
 * through (lifecycle_events.h).
 */
static const struct lifecycle_events lifecycle_table = {
	.find = lifecycle_find,
	.keep_warm = lifecycle_keep_warm,
	.dependent_up = lifecycle_dependent_up,
	.wake_timeout = lifecycle_wake_timeout,
	.address = lifecycle_address,
	.keep_warm_send = lifecycle_keep_warm_send,
	.wake = lifecycle_wake,
	.cause = lifecycle_cause,
	.suspend = lifecycle_suspend,
	.start = lifecycle_start,
	.no_room = lifecycle_no_room,
	.freeze_stop = lifecycle_freeze_stop,
	.frozen = lifecycle_frozen,
	.started = lifecycle_started,
	.start_failed = lifecycle_start_failed,
	.exited = lifecycle_exited,
	.ended = lifecycle_ended,
	.pulling = lifecycle_pulling,
	.pulled = lifecycle_pulled,
	.adopted = lifecycle_adopted,
	.found_running = lifecycle_found_running,
	.gone = lifecycle_gone,
	.checked = lifecycle_checked,
	.check_end = lifecycle_check_end,
	.restore = lifecycle_restore,
	.ready = lifecycle_ready,
	.unhealthy = lifecycle_unhealthy,
	.squatted = lifecycle_squatted,
	.changed = lifecycle_changed,
	.restart = lifecycle_restart,
	.replaced = lifecycle_replaced,
	.retired = replace_retired,
	.drain_refused = budget_drain_refused,
	.maint_told = maint_told,
};
const struct lifecycle_events *const lifecycle = &lifecycle_table;
