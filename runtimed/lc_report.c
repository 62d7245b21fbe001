/*
 * The lifecycle's reports (lifecycle.c has the state machine): what the
 * drivers and the readiness checks say of a workload's instance, and
 * what that does to its state.  It started, failed to start, is pulling
 * its image, is ready, is unhealthy, squats its port, was adopted or
 * found running, exited, is gone.  They reach it through the table of
 * lifecycle_events.h, never by name, and call down into the lifecycle's
 * own helpers (lifecycle_int.h): no file calls back up.
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

void
lifecycle_started(struct rt_workload *wl)
{
	if (replace_starting(wl)) {
		replace_started(wl);
		return;
	}
	/* a job is ready when it has exited 0: nothing to probe */
	if (wl->state == WL_WAKING && !wl->stopping && !job_is(wl))
		ready_start(wl);
}

void
lifecycle_start_failed(struct rt_workload *wl, const char *msg)
{
	if (replace_starting(wl)) {
		replace_gone(wl, msg);
		return;
	}
	if (wl->stopping) {
		lc_stopped(wl);
		return;
	}
	if (wl->state == WL_WAKING)
		lc_fail(wl, RT_REASON_START_FAILED, msg);
}

/*
 * The driver pulls the image before it can start it: the wake timeout
 * stops, the pull having its own (secs), and the gateways hold the
 * wake's requests as long.  Once the image is in, lifecycle_pulled()
 * starts the wake timeout afresh, and tells the gateways so.
 */

void
lifecycle_pulling(struct rt_workload *wl, int64_t secs)
{
	if (wl->state != WL_WAKING)
		return;
	timer_disarm(&wl->wake_timer);
	wait_send(wl, secs);
}

void
lifecycle_pulled(struct rt_workload *wl)
{
	if (wl->state != WL_WAKING || wl->stopping)
		return;
	wake_timer_arm(wl);
	wait_send(wl, lifecycle_wake_timeout(wl));
}

void
lifecycle_ready(struct rt_workload *wl)
{
	if (replace_starting(wl)) {
		replace_ready(wl);
		return;
	}
	if (wl->state != WL_WAKING)
		return;
	timer_disarm(&wl->wake_timer);
	backoff_succeeded(&wl->backoff);
	wl->running_ms = monotime_ms();
	lc_state_set(wl, WL_RUNNING, RT_REASON_READY, NULL);
	/* started as a change came: replaced at once if it says so */
	lifecycle_changed(wl);
}

/*
 * Liveness: it failed its health checks (msg says how).  It is stopped
 * at once, without asking the gateways to drain it: what they have in
 * flight gets no answer from it anyway.  Their new requests are held
 * for a fresh wake; kept warm, it is restarted as after an exit.
 */
void
lifecycle_unhealthy(struct rt_workload *wl, const char *msg)
{
	if (wl->state != WL_RUNNING || wl->conf == NULL || wl->stopping)
		return;
	lc_state_set(wl, WL_SUSPENDING, RT_REASON_UNHEALTHY, msg);
	lc_stop(wl, RT_REASON_UNHEALTHY);
}

/*
 * Its address is served by a listener not its own (owner.c; msg says
 * whose), or that could not be told: nothing is ever proxied there.  A
 * wake fails as any failed wake (its held requests answered 503), a
 * running workload fails; either way what was started is stopped, and
 * the history keeps msg.  A new instance side by side is given up, the
 * old one running on.
 */
void
lifecycle_squatted(struct rt_workload *wl, const char *msg)
{
	int64_t	 up;

	if (replace_starting(wl)) {
		replace_fail(wl, msg);
		return;
	}
	if (wl->conf == NULL || wl->stopping)
		return;
	if (wl->state == WL_WAKING) {
		lc_fail(wl, RT_REASON_START_FAILED, msg);
		lc_stop(wl, RT_REASON_START_FAILED);
	} else if (wl->state == WL_RUNNING) {
		up = monotime_ms() - wl->running_ms;
		lc_state_set(wl, WL_FAILED, RT_REASON_UNHEALTHY, msg);
		lc_stop(wl, RT_REASON_UNHEALTHY);
		restart_schedule(wl, up);
	}
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
	/* a wake held while it was checked: it runs already */
	wl->wake_queued = 0;
	timer_disarm(&wl->restart_timer);
	backoff_succeeded(&wl->backoff);
	wl->running_ms = monotime_ms();
	budget_forget(wl);
	budget_charge(wl);
	lc_state_set(wl, WL_RUNNING, RT_REASON_RESTORED, msg);
	/* it runs: so must what it depends on */
	if (!TAILQ_EMPTY(&wl->conf->depends))
		deps_up(wl);
	/* made from an older definition, perhaps */
	drift_update(wl);
	lifecycle_changed(wl);
	return (0);
}

/*
 * A job ran to its end: done, asleep and its dependents start; or
 * failed, and they fail with its exit status (job.c).
 */
static void
lc_job_exited(struct rt_workload *wl, int status)
{
	char	 msg[RT_MSG_MAX];

	if (job_exited(wl, status, msg, sizeof(msg)) == -1) {
		lc_fail(wl, RT_REASON_EXITED, msg);
		return;
	}
	timer_disarm(&wl->wake_timer);
	backoff_succeeded(&wl->backoff);
	lc_state_set(wl, WL_ASLEEP, RT_REASON_EXITED, msg);
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
	if (replace_starting(wl)) {
		if (why != NULL)
			strlcpy(msg, why, sizeof(msg));
		else
			exit_msg(status, msg, sizeof(msg));
		replace_gone(wl, msg);
		return;
	}
	if (wl->stopping || wl->state == WL_SUSPENDING) {
		lc_stopped(wl);
		return;
	}
	/* what ran is gone, whatever the state says */
	wl->evicting = 0;
	if (why != NULL)
		strlcpy(msg, why, sizeof(msg));
	else {
		exit_msg(status, msg, sizeof(msg));
		if (reason == RT_REASON_OOM)
			strlcat(msg, ", out of memory", sizeof(msg));
	}
	switch (wl->state) {
	case WL_WAKING:
		/* why: more than an exit (removed, killed): a failure */
		if (job_is(wl) && reason != RT_REASON_OOM && why == NULL)
			lc_job_exited(wl, status);
		else
			lc_fail(wl, reason == RT_REASON_OOM ? RT_REASON_OOM :
			    RT_REASON_START_FAILED, msg);
		break;
	case WL_RUNNING:
	case WL_FROZEN:
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    reason != RT_REASON_OOM)
			lc_state_set(wl, WL_ASLEEP, reason, msg);
		else
			lc_state_set(wl, WL_FAILED, reason, msg);
		restart_schedule(wl, monotime_ms() - wl->running_ms);
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
	lc_state_set(wl, WL_WAKING, RT_REASON_OPERATOR, msg);
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
		lc_state_set(wl, WL_ASLEEP, RT_REASON_EXITED, msg);
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
	/* swarm: its task may have moved to another node */
	if (wl->state == WL_RUNNING && !wl->stopping &&
	    wl->drv == &driver_swarm && swarm_refused(wl) == 0)
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
