/*
 * The route table rebuilt from a configuration generation: each
 * workload's routes, addresses and wake timeouts, and the workloads a
 * reload removed answered and let go.  Called by gatewayd.c on a new
 * generation; the lookups themselves are route.c's.
 *
 * A delta (common/cfgrecv.c) carries only the workloads that changed:
 * the routes of those replaced or gone are taken out, those sent are
 * built as a full generation builds them, and the others are left as
 * they are, but for their gate, whose htpasswd files every generation
 * replaces (gate_apply()).  A workload's wake timeout adds those of what
 * it depends on, which a delta may change: a generation with "depends
 * on" refuses the next delta, and a delta's own are chained among
 * themselves and what they depend on, which then depend on nothing.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "schedule.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "gatecheck.h"
#include "metrics.h"

static void
routes_clear(struct gw_routes *tree)
{
	struct gw_route	*r;

	while ((r = RB_MIN(gw_routes, tree)) != NULL) {
		RB_REMOVE(gw_routes, tree, r);
		free(r->paths);
		free(r);
	}
}

/*
 * wc's "path" on route r, in its place among the host's others: the
 * longest first, so that the first match is the longest prefix.
 */
static void
route_add_path(struct gw_route *r, struct gw_workload *wl,
    const struct workload_conf *wc, const char *pattern)
{
	struct gw_path	*p;
	size_t		 len = workload_path_len(wc), i;

	for (i = 0; i < r->npaths; i++)
		if (r->paths[i].len == len &&
		    memcmp(r->paths[i].prefix, wc->path, len) == 0) {
			/* the parent refused duplicates */
			log_warnx("route %s%s: duplicate", pattern, wc->path);
			return;
		}
	if ((p = reallocarray(r->paths, r->npaths + 1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	r->paths = p;
	for (i = r->npaths; i > 0 && p[i - 1].len < len; i--)
		p[i] = p[i - 1];
	p[i].prefix = wc->path;
	p[i].len = len;
	p[i].wl = wl;
	p[i].strip = wc->path_strip;
	r->npaths++;
}

static void
route_add(struct gw_workload *wl, const struct workload_conf *wc,
    const char *pattern)
{
	struct gw_route	*r, *o;
	struct gw_routes *tree = &gw->exact;
	size_t		 i, len;

	if (strncmp(pattern, "*.", 2) == 0) {
		tree = &gw->suffix;
		pattern++;		/* keep the dot: ".example.com" */
	}
	/* the key in the same allocation: one per route, not two */
	len = strlen(pattern) + 1;
	if ((r = calloc(1, sizeof(*r) + len)) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < len; i++)
		r->keybuf[i] = tolower((unsigned char)pattern[i]);
	r->key = r->keybuf;
	/* a host routed by path to several workloads: one route */
	if ((o = RB_INSERT(gw_routes, tree, r)) != NULL) {
		free(r);
		r = o;
	}
	if (wc->path != NULL)
		route_add_path(r, wl, wc, pattern);
	else if (r->wl == NULL)
		r->wl = wl;
	else	/* the parent refused duplicates; a second one is ignored */
		log_warnx("route %s: duplicate", pattern);
}

/*
 * The first generation follows a start: what runs of each of its
 * workloads is unknown until runtimed has checked (lifecycle_checking()
 * there), so it is "checking" rather than asleep until runtimed says.
 */
static struct gw_workload *
gw_workload_get(const struct workload_conf *wc, int first)
{
	struct gw_workload	*wl;
	size_t			 len;

	if ((wl = gw_workload_find(wc->name)) != NULL)
		return (wl);
	/* the name in the same allocation, no longer */
	len = strlen(wc->name) + 1;
	if ((wl = calloc(1, sizeof(*wl) + len)) == NULL)
		fatal("%s", __func__);
	memcpy(wl->namebuf, wc->name, len);
	wl->name = wl->namebuf;
	wl->state = first ? WL_CHECKING : WL_ASLEEP;
	metrics_workload_init(wl);
	TAILQ_INIT(&wl->parked);
	TAILQ_INIT(&wl->tcp);
	RB_INSERT(gw_workloads, &gw->workloads, wl);
	return (wl);
}

/*
 * A wake first waits for what the workload depends on, each within its
 * own wake timeout: the gateway's own timer waits for the longest chain
 * of them.  The parent allows no cycle and no chain longer than
 * ORCHD_DEPS_DEPTH, so as many rounds settle it.
 */
static void
route_wake_chains(struct cfg_generation *gen)
{
	struct workload_conf	*wc;
	struct gw_workload	*wl, *d;
	const struct strentry	*e;
	int64_t			 own, most;
	int			 round, changed = 1;

	for (round = 0; round <= ORCHD_DEPS_DEPTH && changed; round++) {
		changed = 0;
		TAILQ_FOREACH(wc, &gen->workloads, entry) {
			if (TAILQ_EMPTY(&wc->depends) ||
			    (wl = gw_workload_find(wc->name)) == NULL)
				continue;
			most = 0;
			TAILQ_FOREACH(e, &wc->depends, entry)
				if ((d = gw_workload_find(e->str)) != NULL &&
				    d->configured && d->wake_timeout > most)
					most = d->wake_timeout;
			own = wc->wake_timeout >= 0 ? wc->wake_timeout :
			    gen->global.wake_timeout;
			if (wl->wake_timeout != own + most) {
				wl->wake_timeout = own + most;
				changed = 1;
			}
		}
	}
}

/* how long a wake of wc may wait for its image: 0 if it never pulls */
static int64_t
route_pull_timeout(const struct workload_conf *wc,
    const struct cfg_generation *gen)
{
	int	 pull = wc->pull != -1 ? wc->pull : gen->global.pull;

	if (wc->driver != DRIVER_DOCKER || pull == PULL_NEVER)
		return (0);
	return (wc->pull_timeout > 0 ? wc->pull_timeout :
	    gen->global.pull_timeout);
}

static int	 route_deps;	/* the generation has a "depends on" */

/* why the gateway cannot take a delta now, or NULL (cfg_take_delta) */
const char *
route_delta_check(void)
{
	return (route_deps ? "a workload depends on another" : NULL);
}

/* a delta: the routes of workloads not configured taken out */
static void
routes_purge(struct gw_routes *tree)
{
	struct gw_route	*r, *next;
	size_t		 i, j;

	RB_FOREACH_SAFE(r, gw_routes, tree, next) {
		if (r->wl != NULL && !r->wl->configured)
			r->wl = NULL;
		for (i = j = 0; i < r->npaths; i++)
			if (r->paths[i].wl->configured)
				r->paths[j++] = r->paths[i];
		r->npaths = j;
		if (r->wl != NULL || r->npaths > 0)
			continue;
		RB_REMOVE(gw_routes, tree, r);
		free(r->paths);
		free(r);
	}
}

static void
route_unset(struct gw_workload *wl)
{
	wl->configured = 0;
	wldef_forget(wl);
	sched_plan_free(wl->sched);
	wl->sched = NULL;
}

static void
route_gone(struct gw_workload *wl)
{
	RB_REMOVE(gw_workloads, &gw->workloads, wl);
	ignore_forget(wl);
	gate_forget(wl);
	wake_workload_gone(wl);
	gw_workload_free_if_unused(wl);
}

/*
 * A delta: those sent and those gone unset, their routes out; the
 * others' gates made again on this generation's htpasswd files.
 */
static void
route_delta_begin(struct cfg_generation *gen)
{
	struct workload_conf	*gwc;
	struct gw_workload	*wl;
	uint32_t		 i;

	TAILQ_FOREACH(gwc, &gen->workloads, entry)
		if ((wl = gw_workload_find(gwc->name)) != NULL)
			route_unset(wl);
	for (i = 0; i < gen->nremoved; i++)
		if ((wl = gw_workload_find(gen->removed[i])) != NULL)
			route_unset(wl);
	routes_purge(&gw->exact);
	routes_purge(&gw->suffix);
	RB_FOREACH(wl, gw_workloads, &gw->workloads)
		if (wl->configured && wl->gate != NULL && wl->def != NULL)
			gate_workload(wl, wl->def);
}

void
route_apply(struct cfg_generation *gen)
{
	static int		 applied;
	struct workload_conf	*gwc, *wc;
	struct gw_workload	*wl, *next;
	struct strentry		*h;
	uint32_t		 i;
	int			 deps = 0;

	if (gen->delta)
		route_delta_begin(gen);
	else {
		routes_clear(&gw->exact);
		routes_clear(&gw->suffix);
		RB_FOREACH(wl, gw_workloads, &gw->workloads)
			route_unset(wl);
	}
	TAILQ_FOREACH(gwc, &gen->workloads, entry) {
		wl = gw_workload_get(gwc, !applied);
		wl->configured = 1;
		/*
		 * the generation's definitions are freed once applied
		 * (cfg_forget_workloads()): what is built here points into
		 * the gateway's own copy, kept in full when anything does
		 */
		wldef_keep(wl, gwc);
		wc = wl->def != NULL ? wl->def : gwc;
		/* its schedules parsed here once, not at each API answer */
		if (sched_plan_build(wc, &wl->sched) == -1)
			fatal("%s", __func__);
		gw_workload_conf_addresses(wl, wc);
		/* an instance runtimed routed to keeps its address */
		if (!wl->addr_rt)
			gw_workload_address(wl, wc);
		wl->wake_timeout = wc->wake_timeout >= 0 ? wc->wake_timeout :
		    gen->global.wake_timeout;
		/* a job's wake is its run (runtimed/job.c) */
		if (wc->run_once != RUN_SERVICE && wc->run_timeout > 0)
			wl->wake_timeout = wc->run_timeout;
		wl->pull_timeout = route_pull_timeout(wc, gen);
		ignore_workload(wl, wc, gen);
		gate_workload(wl, wc);
		deps |= !TAILQ_EMPTY(&wc->depends);
		TAILQ_FOREACH(h, &wc->hosts, entry)
			route_add(wl, wc, h->str);
	}
	applied = 1;
	/* a delta's base had none (route_delta_check()) */
	route_deps = deps;
	if (deps)
		route_wake_chains(gen);
	if (gen->delta) {
		for (i = 0; i < gen->nremoved; i++)
			if ((wl = gw_workload_find(gen->removed[i])) != NULL &&
			    !wl->configured)
				route_gone(wl);
	} else
		RB_FOREACH_SAFE(wl, gw_workloads, &gw->workloads, next)
			if (!wl->configured)
				route_gone(wl);
	/* what runtimed told before this first generation */
	state_early_apply();
}
