/*
 * One-shot jobs ("run once"): a workload that runs to completion, a
 * migration before the application that depends on it.  The lifecycle
 * (lifecycle.c) wakes it as any dependency, but it is never probed for
 * readiness: it is done when it has exited 0, and its dependents start
 * then.  Its state is asleep again, its success kept as the hash of the
 * definition it succeeded with (workload_wire_hash), sent to the store
 * so that a restart of orchd does not run it again.  "run once" runs it
 * again only when that hash no longer matches; "run once every wake" at
 * every wake of a dependent, which begins a new round.
 *
 * This file is a leaf of lifecycle.c: it decides and remembers, the
 * lifecycle changes the states.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "runtime.h"

int
job_is(const struct rt_workload *wl)
{
	return (wl->conf != NULL && wl->conf->run_once != RUN_SERVICE);
}

/*
 * Whether it has succeeded with the definition it has now, and, for
 * "every wake", within this round: its dependents may start.
 */
int
job_done(const struct rt_workload *wl)
{
	if (!job_is(wl) || wl->job_hash == 0)
		return (0);
	if (wl->conf->run_once == RUN_EVERY_WAKE && !wl->job_round)
		return (0);
	return (wl->job_hash == workload_wire_hash(wl->conf));
}

/* a dependent wakes: an "every wake" job not under way runs again */
void
job_round(struct rt_workload *wl)
{
	if (job_is(wl) && wl->conf->run_once == RUN_EVERY_WAKE &&
	    wl->state != WL_WAKING)
		wl->job_round = 0;
}

static void
job_send(const struct rt_workload *wl)
{
	struct rt_job	 rj;

	memset(&rj, 0, sizeof(rj));
	strlcpy(rj.name, wl->name, sizeof(rj.name));
	rj.hash = wl->job_hash;
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_JOB, 0, -1, &rj,
	    sizeof(rj)) == -1)
		log_warn("workload %s: job to the store", wl->name);
}

/*
 * It exited, with status: 0 if it succeeded, remembered with its
 * definition; -1 with what the history and its dependents' held
 * requests say in msg.  A failure forgets an earlier success: what it
 * did may be half done.
 */
int
job_exited(struct rt_workload *wl, int status, char *msg, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		wl->job_hash = workload_wire_hash(wl->conf);
		wl->job_round = 1;
		job_send(wl);
		(void)snprintf(msg, len, "job done: exited with status 0");
		return (0);
	}
	if (WIFEXITED(status))
		(void)snprintf(msg, len, "job failed: exited with status %d",
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		(void)snprintf(msg, len, "job failed: killed by signal %d",
		    WTERMSIG(status));
	else
		(void)snprintf(msg, len, "job failed");
	if (wl->job_hash != 0) {
		wl->job_hash = 0;
		job_send(wl);
	}
	wl->job_round = 0;
	return (-1);
}

/* the store's memory of its last success, at start */
void
job_restore(struct rt_workload *wl, uint64_t hash)
{
	wl->job_hash = hash;
	wl->job_round = 0;
}
