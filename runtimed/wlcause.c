/*
 * Small facts the lifecycle keeps of a workload, apart so that any file
 * of runtimed may use them and they call nothing back: how an exit is
 * told, when its state last changed, what caused its wake, and how
 * long it stays frozen.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>
#include <sys/wait.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle.h"
#include "lifecycle_int.h"

/* "exited with status 1", "killed by signal 9" */
void
exit_msg(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "exited with status %d",
		    WEXITSTATUS(status));
}

/*
 * wall clock: the history keeps it, milliseconds give wake times; and
 * monotonic, for the budget's order of last use (budget.c)
 */
void
lc_since_now(struct rt_workload *wl)
{
	wl->since_ms = walltime_ms();
	wl->since = wl->since_ms / 1000;
	wl->since_mono = monotime();
}

/* a cause that is its kind alone: orchctl, keep warm */
void
lifecycle_cause(struct wake_cause *cause, enum wake_kind kind)
{
	memset(cause, 0, sizeof(*cause));
	cause->kind = kind;
}

/*
 * What caused its wake: none for most, asleep and never woken, so it is
 * allocated only once there is one (a hundred thousand sleeping
 * workloads would carry a request's host, path and agent each).
 */
const struct wake_cause *
lc_cause(const struct rt_workload *wl)
{
	static const struct wake_cause	 none;	/* WAKE_NONE */

	return (wl->cause != NULL ? wl->cause : &none);
}

void
lc_cause_set(struct rt_workload *wl, const struct wake_cause *cause)
{
	if (cause == wl->cause)
		return;
	if (cause->kind == WAKE_NONE) {
		free(wl->cause);
		wl->cause = NULL;
		return;
	}
	if (wl->cause == NULL &&
	    (wl->cause = malloc(sizeof(*wl->cause))) == NULL)
		fatal("%s", __func__);
	*wl->cause = *cause;
}

void
lc_cause_kind(struct rt_workload *wl, enum wake_kind kind)
{
	struct wake_cause	 cause;

	lifecycle_cause(&cause, kind);
	lc_cause_set(wl, &cause);
}

/* the workload's own "suspend", else the global one; 0: no freeze */
int64_t
freeze_for(const struct rt_workload *wl)
{
	if (wl->conf != NULL && wl->conf->freeze != -1)
		return (wl->conf->freeze);
	return (rt->freeze);
}
