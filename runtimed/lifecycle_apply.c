/*
 * A configuration generation applied to runtimed's workloads: names that
 * persist keep their state, new ones start asleep, removed ones stop
 * and are forgotten, each workload's dependents are indexed, and the
 * wakes that came before the first generation are run.  Above the state
 * machine (lifecycle.c), whose internals it uses through lifecycle.h;
 * called by runtimed.c on each new generation.
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

/*
 * Who depends on whom in gen: each workload's list of those that depend
 * on it.  Made before anything of the generation runs, and only of its
 * workloads, none of which the removals free.
 */
static void
deps_index(struct cfg_generation *gen)
{
	/* workloads given a list here: none, and no walk of them all */
	static size_t		 nlists;
	struct workload_conf	*conf;
	const struct strentry	*e;
	struct rt_workload	*wl, *d;
	size_t			 nedges = 0;
	int			 pass;

	if (nlists > 0)
		RB_FOREACH(wl, rt_workloads, &rt->workloads) {
			free(wl->dependents);
			wl->dependents = NULL;
			wl->ndependents = 0;
		}
	nlists = 0;
	/* count, then fill */
	for (pass = 0; pass < 2; pass++) {
		TAILQ_FOREACH(conf, &gen->workloads, entry) {
			/* most depend on none: no look-up at 100,000 */
			if (TAILQ_EMPTY(&conf->depends))
				continue;
			wl = lifecycle_find(conf->name);
			TAILQ_FOREACH(e, &conf->depends, entry) {
				if ((d = lifecycle_find(e->str)) == NULL ||
				    d->conf == NULL || d == wl)
					continue;
				if (pass == 1)
					d->dependents[d->ndependents] = wl;
				d->ndependents++;
				nedges++;
			}
		}
		if (pass == 1 || nedges == 0)
			break;
		RB_FOREACH(wl, rt_workloads, &rt->workloads) {
			if (wl->ndependents > 0) {
				if ((wl->dependents = calloc(wl->ndependents,
				    sizeof(*wl->dependents))) == NULL)
					fatal("%s", __func__);
				nlists++;
			}
			wl->ndependents = 0;
		}
	}
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
	lc_since_now(wl);
	wl->keep_warm = -1;
	TAILQ_INIT(&wl->waiters);
	process_init(wl);
	RB_INSERT(rt_workloads, &rt->workloads, wl);
	return (wl);
}

/*
 * No longer configured: stopped if anything runs, then forgotten.  A
 * labelled container that runs, or that we froze, is its maker's, and is
 * left running, unpaused: its workload goes because the container did,
 * or docker labels went off, and a container of that name made again
 * meanwhile is a new one, not this workload's to stop.
 */
static void
wl_remove(struct rt_workload *wl)
{
	/* the old instance of a replacement goes its own way */
	replace_abandon(wl);
	if (wl->labelled && (wl->state == WL_RUNNING ||
	    wl->state == WL_FROZEN) && !wl->stopping) {
		if (wl->state == WL_FROZEN)
			docker_unpause_left(wl);
		lc_state_set(wl, WL_ASLEEP, RT_REASON_REMOVED,
		    "its container, left running, is its maker's");
		lc_free(wl);
		return;
	}
	wl->conf = NULL;
	wl->wake_queued = 0;
	timer_disarm(&wl->restart_timer);
	/* as the store and the reaper forget it: a new one starts afresh */
	wl->keep_warm = -1;
	switch (wl->state) {
	case WL_WAKING:
	case WL_RUNNING:
	case WL_FROZEN:
		lc_state_set(wl, WL_SUSPENDING, RT_REASON_REMOVED, NULL);
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
		if (lifecycle_find(rt->early[i].name) != NULL) {
			lifecycle_wake(rt->early[i].name, RT_REASON_REQUEST,
			    &rt->early[i].cause);
			group_wake_request(rt->early[i].name);
			continue;
		}
		log_debug("workload %s: wake of an unknown workload",
		    rt->early[i].name);
		memset(&st, 0, sizeof(st));
		strlcpy(st.name, rt->early[i].name, sizeof(st.name));
		/* told, not a change: nothing for the history or events */
		st.from = WL_FAILED;
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
	rt->on_change = gen->global.on_change;
	rt->health_interval = gen->global.health_interval;
	rt->health_timeout = gen->global.health_timeout;
	rt->health_failures = gen->global.health_failures;
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		wl->conf = NULL;
	TAILQ_FOREACH(conf, &gen->workloads, entry) {
		if ((wl = lifecycle_find(conf->name)) == NULL) {
			wl = wl_new(conf->name);
			/*
			 * before the store's restore: what runs is unknown.
			 * With no row in the store a wake need not wait
			 * (lc_check_unheld), but the gateways show the
			 * workload "checking" until the restore's end says
			 */
			if (!rt->restored)
				wl->checking = CHECKING_UNTOLD;
		}
		/* a running instance keeps its own until it stops */
		if (wl->run_conf == NULL && lifecycle_address(conf, &wl->addr,
		    &wl->addrlen) == -1)
			log_warnx("workload %s: bad address %s", wl->name,
			    conf->address);
		wl->conf = conf;
		wl->labelled = conf->source == SOURCE_LABEL;
		/*
		 * liveness as the new definition says, from its next check;
		 * none while a replacement starts beside it
		 */
		if (wl->state == WL_RUNNING && !replace_starting(wl))
			live_start(wl);
		drift_update(wl);
	}
	/*
	 * Told once every name is made, in the same order: each message
	 * (1 KiB, freed once written) made between two workloads' memory
	 * would leave a hole malloc cannot give back, 2 KiB a workload.
	 */
	TAILQ_FOREACH(conf, &gen->workloads, entry)
		if ((wl = lifecycle_find(conf->name)) != NULL &&
		    wl->checking == CHECKING_UNTOLD)
			lifecycle_checking(wl);
	deps_index(gen);
	/* its container may be there, even running, from before */
	TAILQ_FOREACH(conf, &gen->workloads, entry)
		if (conf->driver == DRIVER_DOCKER &&
		    (wl = lifecycle_find(conf->name)) != NULL)
			docker_adopt(wl);
		else if (conf->driver == DRIVER_SWARM &&
		    (wl = lifecycle_find(conf->name)) != NULL)
			swarm_adopt(wl);
	/* conf was cleared above for every name that is gone */
	RB_FOREACH_SAFE(wl, rt_workloads, &rt->workloads, next)
		if (wl->conf == NULL)
			wl_remove(wl);
	/* "on change restart": replaced now, each as replace.c decides */
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		lifecycle_changed(wl);
	/* those waiting may depend on others now */
	if (rt->ndeps_wait > 0)
		RB_FOREACH(wl, rt_workloads, &rt->workloads)
			if (wl->deps_wait && wl->conf != NULL)
				lc_deps_wake(wl);
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		n++;
	/* those still stopping count: they are known until gone */
	rt->ps->workloads = n;
	rt->configured = 1;
	counts_changed();
	/* the budget's settings, once every name has its definition */
	budget_apply(&gen->global);
	rt->freeze = gen->global.freeze;
	/* at start, what the store remembers may change keep warm */
	if (rt->restored || rt->store_none)
		lc_keep_warm_wakes();
	early_wakes_run();
}
