/*
 * The lifecycle of every workload: one state machine each, in a tree by
 * name.
 *
 *	asleep --wake--> waking --ready--> running --idle--> suspending
 *	   ^               |                  |                  |
 *	   |               +--> failed <------+ (exited)         |
 *	   +-----------------------------------------------------+ (exited)
 *
 * Everything that happens to a workload goes through here, one event at a
 * time, so operations on it are serialized by its state: a wake during a
 * wake joins it, a wake during a stop is queued behind the stop, a
 * suspend is only begun from running.  The drivers do the work and report
 * back (lifecycle_started, _start_failed, _exited); readiness reports
 * lifecycle_ready.  Every change of state is told to the gateway, the
 * reaper and the store.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "runtime.h"
#include "docker.h"

static void	lc_start(struct rt_workload *, enum rt_reason);
static void	lc_stop(struct rt_workload *, enum rt_reason);
static void	lc_stopped(struct rt_workload *);

static int
rt_workload_cmp(struct rt_workload *a, struct rt_workload *b)
{
	return (strcmp(a->name, b->name));
}
RB_GENERATE(rt_workloads, rt_workload, entry, rt_workload_cmp);

static const char *
reason_name(enum rt_reason reason)
{
	static const char *const names[] = {
		[RT_REASON_NONE] = "none",
		[RT_REASON_REQUEST] = "request",
		[RT_REASON_READY] = "ready",
		[RT_REASON_START_FAILED] = "start failed",
		[RT_REASON_EXITED] = "exited",
		[RT_REASON_WAKE_TIMEOUT] = "wake timeout",
		[RT_REASON_IDLE] = "idle",
		[RT_REASON_OPERATOR] = "operator",
		[RT_REASON_KEEP_WARM] = "keep warm",
		[RT_REASON_RESTORED] = "restored",
		[RT_REASON_SHUTDOWN] = "shutdown",
		[RT_REASON_REMOVED] = "removed",
		[RT_REASON_OOM] = "oom",
		[RT_REASON_BUDGET] = "budget",
		[RT_REASON_PRESSURE] = "pressure",
		[RT_REASON_NO_ROOM] = "no room"
	};

	if ((unsigned int)reason >= nitems(names) || names[reason] == NULL)
		return ("unknown");
	return (names[reason]);
}

/* "exited with status 1", "killed by signal 9" */
static void
exit_msg(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "exited with status %d",
		    WEXITSTATUS(status));
}

/* wall clock: the history keeps it, milliseconds give wake times */
static void
since_now(struct rt_workload *wl)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		fatal("clock_gettime");
	wl->since = ts.tv_sec;
	wl->since_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
state_send(struct rt_workload *wl, enum privsep_procid to,
    const struct rt_state *st)
{
	if (proc_compose(rt->ps, to, IMSG_RT_STATE, 0, -1, st,
	    sizeof(*st)) == -1)
		log_warn("workload %s: state to %s", wl->name, proc_name(to));
}

static void
state_fill(struct rt_workload *wl, enum rt_reason reason, const char *msg,
    struct rt_state *st)
{
	memset(st, 0, sizeof(*st));
	strlcpy(st->name, wl->name, sizeof(st->name));
	st->state = wl->state;
	st->reason = reason;
	st->since = wl->since;
	st->since_ms = wl->since_ms;
	if (msg != NULL)
		strlcpy(st->msg, msg, sizeof(st->msg));
}

/* tell the gateway again what it may have missed */
static void
state_repeat(struct rt_workload *wl)
{
	struct rt_state	 st;

	state_fill(wl, RT_REASON_NONE, NULL, &st);
	state_send(wl, PROC_GATEWAY, &st);
}

static void
state_set(struct rt_workload *wl, enum workload_state state,
    enum rt_reason reason, const char *msg)
{
	struct rt_state	 st;

	log_info("workload %s: %s -> %s (%s%s%s)", wl->name,
	    workload_state_name(wl->state), workload_state_name(state),
	    reason_name(reason), msg != NULL && *msg != '\0' ? ": " : "",
	    msg != NULL ? msg : "");
	wl->state = state;
	since_now(wl);
	/* a DRAINED still on its way answers a question no longer asked */
	wl->draining = 0;
	if (state == WL_SUSPENDING)
		budget_suspending(wl, reason);
	else
		wl->evicting = 0;
	state_fill(wl, reason, msg, &st);
	state_send(wl, PROC_GATEWAY, &st);
	state_send(wl, PROC_REAPER, &st);
	state_send(wl, PROC_STORE, &st);
	control_state(wl, msg);
	counts_changed();
	/* a wake slot or memory may be free for a wake that waits */
	budget_changed();
}

/*
 * The gateway alone hears the state with this reason: a wake that found
 * no room leaves the workload as it was, and the history unchanged.
 */
void
lifecycle_state_tell(struct rt_workload *wl, enum rt_reason reason,
    const char *msg)
{
	struct rt_state	 st;

	state_fill(wl, reason, msg, &st);
	state_send(wl, PROC_GATEWAY, &st);
}

static const struct rt_driver *
driver_get(enum workload_driver driver)
{
	switch (driver) {
	case DRIVER_PROCESS:
		return (&driver_process);
	case DRIVER_DOCKER:
		return (&driver_docker);
	default:
		return (NULL);
	}
}

/* the workload's own, else the global one; -1 means "not set" */
static int64_t
wake_timeout(const struct rt_workload *wl)
{
	if (wl->conf != NULL && wl->conf->wake_timeout > 0)
		return (wl->conf->wake_timeout);
	if (rt->wake_timeout > 0)
		return (rt->wake_timeout);
	return (ORCHD_WAKE_TIMEOUT);
}

int64_t
lifecycle_wake_timeout(const struct rt_workload *wl)
{
	return (wake_timeout(wl));
}

static void
wake_timer_fired(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	char			 msg[64];

	if (wl->state != WL_WAKING)
		return;
	ready_stop(wl);
	snprintf(msg, sizeof(msg), "not ready after %llds",
	    (long long)wake_timeout(wl));
	state_set(wl, WL_FAILED, RT_REASON_WAKE_TIMEOUT, msg);
	/* half started is not started: it must not linger */
	lc_stop(wl, RT_REASON_WAKE_TIMEOUT);
}

static void
wake_timer_arm(struct rt_workload *wl)
{
	struct timeval	 tv;

	timerclear(&tv);
	tv.tv_sec = wake_timeout(wl);
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
}

static void
lc_fail(struct rt_workload *wl, enum rt_reason reason, const char *msg)
{
	ready_stop(wl);
	timer_disarm(&wl->wake_timer);
	state_set(wl, WL_FAILED, reason, msg);
}

static void
lc_start(struct rt_workload *wl, enum rt_reason reason)
{
	char	 msg[RT_MSG_MAX];

	wl->wake_queued = 0;
	budget_charge(wl);
	state_set(wl, WL_WAKING, reason, NULL);
	wake_timer_arm(wl);
	/* the driver is chosen per start: a reload may have changed it */
	if ((wl->drv = driver_get(wl->conf->driver)) == NULL) {
		lc_fail(wl, RT_REASON_START_FAILED, "driver not available");
		return;
	}
	msg[0] = '\0';
	if (wl->drv->start(wl, msg, sizeof(msg)) == -1)
		lc_fail(wl, RT_REASON_START_FAILED, msg);
}

/* a wake the memory budget admitted */
void
lifecycle_start(struct rt_workload *wl, enum rt_reason reason)
{
	lc_start(wl, reason);
}

/* begin a stop; the driver's report of the exit completes it */
static void
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

static void
lc_free(struct rt_workload *wl)
{
	log_debug("workload %s: forgotten", wl->name);
	budget_forget(wl);
	control_gone(wl);
	ready_stop(wl);
	timer_disarm(&wl->wake_timer);
	process_clear(wl);
	docker_clear(wl);
	RB_REMOVE(rt_workloads, &rt->workloads, wl);
	free(wl);
	rt->ps->workloads--;
}

/* the stop completed: what was waiting for it goes ahead */
static void
lc_stopped(struct rt_workload *wl)
{
	wl->stopping = 0;
	if (wl->state == WL_SUSPENDING)
		state_set(wl, WL_ASLEEP, wl->stop_reason, NULL);
	if (wl->conf == NULL) {
		lc_free(wl);
		budget_changed();
		return;
	}
	if (wl->wake_queued) {
		wl->wake_queued = 0;
		budget_admit(wl, RT_REASON_REQUEST);
	}
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
	if (proc_compose(rt->ps, PROC_REAPER, IMSG_RT_KEEPWARM, 0, -1, &kw,
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
early_wake(const char *name)
{
	int	 i;

	for (i = 0; i < rt->nearly; i++)
		if (strcmp(rt->early[i], name) == 0)
			return;
	if (rt->nearly >= RT_EARLY_WAKES_MAX) {
		log_warnx("workload %s: unknown, wake dropped", name);
		return;
	}
	strlcpy(rt->early[rt->nearly++], name, sizeof(rt->early[0]));
	log_debug("workload %s: not known yet, wake kept", name);
}

void
lifecycle_wake(const char *name, enum rt_reason reason)
{
	struct rt_workload	*wl;

	if ((wl = lifecycle_find(name)) == NULL) {
		early_wake(name);
		return;
	}
	if (wl->conf == NULL) {
		/* the gateway answers its requests when it drops it too */
		log_debug("workload %s: wake of a removed workload", name);
		return;
	}
	switch (wl->state) {
	case WL_RUNNING:
		state_repeat(wl);
		break;
	case WL_WAKING:
		log_debug("workload %s: joins the wake under way", name);
		break;
	case WL_SUSPENDING:
		log_debug("workload %s: wakes once stopped", name);
		wl->wake_queued = 1;
		break;
	case WL_ASLEEP:
	case WL_FAILED:
		/* failed by a wake timeout, its stop may not be done yet */
		if (wl->stopping)
			wl->wake_queued = 1;
		else
			budget_admit(wl, reason);
		break;
	}
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
	if (wl->state != WL_RUNNING || lifecycle_keep_warm(wl))
		return (-1);
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
	struct rt_workload	*wl;
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
		control_refused(wl, "it is kept warm");
		budget_drain_refused(wl);
		return;
	}
	if (busy) {
		log_debug("workload %s: busy again, not suspended", name);
		state_repeat(wl);
		control_refused(wl, "it has requests in flight");
		budget_drain_refused(wl);
		return;
	}
	state_set(wl, WL_SUSPENDING, wl->drain_reason, NULL);
	lc_stop(wl, wl->drain_reason);
}

/*
 * What the store remembers of the last run, once at start.  A process
 * workload does not survive orchd (its PR_SET_PDEATHSIG sees to it):
 * whatever it was, it is asleep now, and the history says so.  One that
 * a request or keep warm has woken since is left alone.
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
	if (rs->keep_warm == 0 || rs->keep_warm == 1) {
		wl->keep_warm = rs->keep_warm;
		lifecycle_keep_warm_send(wl);
	}
	budget_restore(wl, rs);
	if (wl->state != WL_ASLEEP || wl->stopping)
		return;
	/* a container may have outlived orchd: docker looks first */
	if (wl->conf->driver == DRIVER_DOCKER && docker_restore(wl, rs) == 0)
		return;
	switch (rs->state) {
	case WL_WAKING:
	case WL_RUNNING:
	case WL_SUSPENDING:
		wl->state = rs->state;
		state_set(wl, WL_ASLEEP, RT_REASON_RESTORED,
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
}

/* keep warm workloads are woken once the store has said its piece */
static void
keep_warm_wakes(void)
{
	struct rt_workload	*wl, *next;

	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next)
		if (wl->conf != NULL && lifecycle_keep_warm(wl) &&
		    (wl->state == WL_ASLEEP || wl->state == WL_FAILED))
			lifecycle_wake(wl->name, RT_REASON_KEEP_WARM);
}

void
lifecycle_restore_done(void)
{
	if (rt->restored)
		return;
	rt->restored = 1;
	log_debug("restored from the store");
	keep_warm_wakes();
}

/*
 * Reports from the drivers and readiness.
 */

void
lifecycle_started(struct rt_workload *wl)
{
	if (wl->state == WL_WAKING && !wl->stopping)
		ready_start(wl);
}

void
lifecycle_start_failed(struct rt_workload *wl, const char *msg)
{
	if (wl->stopping) {
		lc_stopped(wl);
		return;
	}
	if (wl->state == WL_WAKING)
		lc_fail(wl, RT_REASON_START_FAILED, msg);
}

void
lifecycle_ready(struct rt_workload *wl)
{
	if (wl->state != WL_WAKING)
		return;
	timer_disarm(&wl->wake_timer);
	state_set(wl, WL_RUNNING, RT_REASON_READY, NULL);
}

/*
 * The driver found the workload running without a start of ours: a
 * container that outlived the last orchd.  0 if it is running now.
 */
int
lifecycle_adopted(struct rt_workload *wl, const struct rt_driver *drv,
    const char *msg)
{
	if (wl->conf == NULL || wl->stopping ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED))
		return (-1);
	wl->drv = drv;
	budget_forget(wl);
	budget_charge(wl);
	state_set(wl, WL_RUNNING, RT_REASON_RESTORED, msg);
	return (0);
}

void
lifecycle_exited(struct rt_workload *wl, int status)
{
	lifecycle_ended(wl, status, RT_REASON_EXITED, NULL);
}

/*
 * An exit the driver knows more of than its status: killed for lack of
 * memory (RT_REASON_OOM), its container removed; why, if not NULL, is
 * what the history says instead of the status.
 */
void
lifecycle_ended(struct rt_workload *wl, int status, enum rt_reason reason,
    const char *why)
{
	char	 msg[RT_MSG_MAX];

	ready_stop(wl);
	if (wl->stopping || wl->state == WL_SUSPENDING) {
		lc_stopped(wl);
		return;
	}
	/* what ran is gone, whatever the state says */
	wl->evicting = 0;
	if (why != NULL)
		strlcpy(msg, why, sizeof(msg));
	else
		exit_msg(status, msg, sizeof(msg));
	switch (wl->state) {
	case WL_WAKING:
		lc_fail(wl, reason == RT_REASON_OOM ? RT_REASON_OOM :
		    RT_REASON_START_FAILED, msg);
		break;
	case WL_RUNNING:
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			state_set(wl, WL_ASLEEP, reason, msg);
		else
			state_set(wl, WL_FAILED, reason, msg);
		break;
	default:
		break;
	}
	if (wl->conf == NULL)
		lc_free(wl);
}

/*
 * The driver found the workload started outside orchd (a container
 * started by hand).  It is taken as a wake of the operator's: waking,
 * its readiness checked as for any wake, so that no request goes to it
 * before it answers, and running once ready.  0 if it is waking now.
 */
int
lifecycle_found_running(struct rt_workload *wl, const struct rt_driver *drv,
    const char *msg)
{
	if (wl->conf == NULL || wl->stopping ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED))
		return (-1);
	wl->drv = drv;
	wl->wake_queued = 0;
	budget_forget(wl);
	budget_charge(wl);
	state_set(wl, WL_WAKING, RT_REASON_OPERATOR, msg);
	wake_timer_arm(wl);
	ready_start(wl);
	return (0);
}

/*
 * What a failed workload left behind is gone (its container removed by
 * hand): nothing of it is left to fail, and the next wake makes it anew.
 */
void
lifecycle_gone(struct rt_workload *wl, const char *msg)
{
	if (wl->state == WL_FAILED && !wl->stopping && wl->conf != NULL)
		state_set(wl, WL_ASLEEP, RT_REASON_EXITED, msg);
}

/*
 * A gateway could not connect to a workload it was told runs, and holds
 * the request: has it died unseen?  The driver looks if it can (docker:
 * the events stream may have been down); whatever the answer, the
 * gateway hears the state, which settles the requests it holds.
 */
void
lifecycle_refused(const char *name)
{
	struct rt_workload	*wl;

	if ((wl = lifecycle_find(name)) == NULL)
		return;
	log_debug("workload %s: a gateway cannot connect to it", wl->name);
	if (wl->state == WL_RUNNING && !wl->stopping &&
	    wl->drv == &driver_docker && docker_refused(wl) == 0)
		return;
	state_repeat(wl);
}

/* the driver's look after a refusal found it running still */
void
lifecycle_checked(struct rt_workload *wl)
{
	if (wl->state == WL_RUNNING)
		state_repeat(wl);
}

/*
 * A new configuration.
 */

static int
wl_address(struct rt_workload *wl, const struct workload_conf *conf)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)&wl->addr;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&wl->addr;

	memset(&wl->addr, 0, sizeof(wl->addr));
	if (inet_pton(AF_INET, conf->address, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(conf->port);
		wl->addrlen = sizeof(*sin);
		return (0);
	}
	if (inet_pton(AF_INET6, conf->address, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(conf->port);
		wl->addrlen = sizeof(*sin6);
		return (0);
	}
	wl->addrlen = 0;
	return (-1);
}

static struct rt_workload *
wl_new(const char *name)
{
	struct rt_workload	*wl;
	size_t			 len;

	/* the name in the same allocation, no longer */
	len = strlen(name) + 1;
	if ((wl = calloc(1, sizeof(*wl) + len)) == NULL)
		fatal("%s: calloc", __func__);
	memcpy(wl->namebuf, name, len);
	wl->name = wl->namebuf;
	wl->state = WL_ASLEEP;
	since_now(wl);
	wl->keep_warm = -1;
	TAILQ_INIT(&wl->waiters);
	process_init(wl);
	RB_INSERT(rt_workloads, &rt->workloads, wl);
	return (wl);
}

/* no longer configured: stopped if anything runs, then forgotten */
static void
wl_remove(struct rt_workload *wl)
{
	wl->conf = NULL;
	wl->wake_queued = 0;
	/* as the store and the reaper forget it: a new one starts afresh */
	wl->keep_warm = -1;
	switch (wl->state) {
	case WL_WAKING:
	case WL_RUNNING:
		state_set(wl, WL_SUSPENDING, RT_REASON_REMOVED, NULL);
		lc_stop(wl, RT_REASON_REMOVED);
		break;
	case WL_SUSPENDING:
		wl->stop_reason = RT_REASON_REMOVED;
		break;
	default:
		if (!wl->stopping)
			lc_free(wl);
		break;
	}
}

/*
 * Wakes that arrived before this generation named their workload.  One
 * still unknown is failed, so that a gateway that does know the name
 * answers its requests now rather than at its own timeout.
 */
static void
early_wakes_run(void)
{
	struct rt_state	 st;
	int		 i;

	for (i = 0; i < rt->nearly; i++) {
		if (lifecycle_find(rt->early[i]) != NULL) {
			lifecycle_wake(rt->early[i], RT_REASON_REQUEST);
			continue;
		}
		log_debug("workload %s: wake of an unknown workload",
		    rt->early[i]);
		memset(&st, 0, sizeof(st));
		strlcpy(st.name, rt->early[i], sizeof(st.name));
		st.state = WL_FAILED;
		st.reason = RT_REASON_START_FAILED;
		st.since = time(NULL);
		strlcpy(st.msg, "no such workload", sizeof(st.msg));
		if (proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_STATE, 0, -1,
		    &st, sizeof(st)) == -1)
			log_warn("%s: compose", __func__);
	}
	rt->nearly = 0;
}

/*
 * The tree follows the new generation: names that persist keep their
 * state and take the new definition (it is used from their next start),
 * new names start asleep, removed ones are stopped.  The old generation
 * is freed when this returns: no pointer into it may survive.
 */
void
lifecycle_apply(struct cfg_generation *gen)
{
	struct workload_conf	*conf;
	struct rt_workload	*wl, *next;
	uint32_t		 n = 0;

	rt->wake_timeout = gen->global.wake_timeout;
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		wl->conf = NULL;
	TAILQ_FOREACH(conf, &gen->workloads, entry) {
		if ((wl = lifecycle_find(conf->name)) == NULL)
			wl = wl_new(conf->name);
		if (wl_address(wl, conf) == -1)
			log_warnx("workload %s: bad address %s", wl->name,
			    conf->address);
		wl->conf = conf;
		/* its container may be there, even running, from before */
		if (conf->driver == DRIVER_DOCKER)
			docker_adopt(wl);
	}
	/* conf was cleared above for every name that is gone */
	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next)
		if (wl->conf == NULL)
			wl_remove(wl);
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		n++;
	/* those still stopping count: they are known until gone */
	rt->ps->workloads = n;
	rt->configured = 1;
	counts_changed();
	/* the budget's settings, once every name has its definition */
	budget_apply(&gen->global);
	/* at start, what the store remembers may change keep warm */
	if (rt->restored)
		keep_warm_wakes();
	early_wakes_run();
}
