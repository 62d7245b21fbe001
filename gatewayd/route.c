/*
 * The route table: Host to workload, in memory, rebuilt from each
 * configuration generation.  Exact names are looked up first, then
 * "*.suffix" patterns from the longest suffix to the shortest, so the most
 * specific route wins.  Workload objects outlive a reload that keeps their
 * name, with their state, parked requests and counters.
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
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

RB_GENERATE(gw_workloads, gw_workload, entry, gw_workload_cmp);
RB_GENERATE(gw_routes, gw_route, entry, route_cmp);

int
gw_workload_cmp(struct gw_workload *a, struct gw_workload *b)
{
	return (strcmp(a->name, b->name));
}

int
route_cmp(struct gw_route *a, struct gw_route *b)
{
	return (strcmp(a->key, b->key));
}

struct gw_workload *
gw_workload_find(const char *name)
{
	struct gw_workload	 key;

	key.name = name;
	return (RB_FIND(gw_workloads, &gw->workloads, &key));
}

/*
 * host is the authority's host part, not NUL-terminated, any case.  A
 * trailing dot (an absolute name) is ignored.
 */
struct gw_workload *
route_lookup(const char *host, size_t len)
{
	struct gw_route	 key, *r;
	char		 name[ORCHD_HOST_MAX];
	size_t		 i;

	if (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0 || len >= sizeof(name))
		return (NULL);
	for (i = 0; i < len; i++)
		name[i] = tolower((unsigned char)host[i]);
	name[len] = '\0';

	key.key = name;
	if ((r = RB_FIND(gw_routes, &gw->exact, &key)) != NULL)
		return (r->wl);
	/* "a.b.example.com": try ".b.example.com", then ".example.com" ... */
	for (i = 0; i < len; i++) {
		if (name[i] != '.')
			continue;
		key.key = name + i;
		if ((r = RB_FIND(gw_routes, &gw->suffix, &key)) != NULL)
			return (r->wl);
	}
	return (NULL);
}

void
gw_workload_ref(struct gw_workload *wl)
{
	wl->refs++;
}

static void
gw_workload_free_if_unused(struct gw_workload *wl)
{
	if (wl->configured || wl->refs > 0 || wl->nparked > 0)
		return;
	if (wl->dirty)
		TAILQ_REMOVE(&gw->dirty, wl, dirty_entry);
	timer_disarm(&wl->wake_timer);
	ignore_forget(wl);
	metrics_workload_free(wl);
	instance_free(wl);
	free(wl);
}

void
gw_workload_unref(struct gw_workload *wl)
{
	if (wl->refs == 0)
		fatalx("%s: %s: no reference", __func__, wl->name);
	wl->refs--;
	gw_workload_free_if_unused(wl);
}

static void
routes_clear(struct gw_routes *tree)
{
	struct gw_route	*r;

	while ((r = RB_MIN(gw_routes, tree)) != NULL) {
		RB_REMOVE(gw_routes, tree, r);
		free(r);
	}
}

static void
route_add(struct gw_workload *wl, const char *pattern)
{
	struct gw_route	*r;
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
	r->wl = wl;
	/* the parent refused duplicates; a second one is ignored */
	if (RB_INSERT(gw_routes, tree, r) != NULL) {
		log_warnx("route %s: duplicate", pattern);
		free(r);
	}
}

static void
conf_address(const struct workload_conf *wc, union wl_addr *sa,
    socklen_t *len)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)sa;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)sa;
	const char		*addr = wc->address ? wc->address : "127.0.0.1";

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(workload_upstream_port(wc));
		*len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(workload_upstream_port(wc));
		*len = sizeof(*sin6);
	} else
		fatalx("workload %s: bad address %s", wc->name, addr);
}

/* where the definition says it listens (instance.c: or runtimed) */
void
gw_workload_address(struct gw_workload *wl, const struct workload_conf *wc)
{
	conf_address(wc, &wl->addr, &wl->addrlen);
}

/*
 * The addresses its definitions named, this generation's and the one
 * before: the only ones runtimed may route it to (instance.c).
 */
static void
gw_workload_conf_addresses(struct gw_workload *wl,
    const struct workload_conf *wc)
{
	memcpy(&wl->conf_prev, &wl->conf_addr, sizeof(wl->conf_prev));
	wl->conf_prevlen = wl->conf_addrlen;
	conf_address(wc, &wl->conf_addr, &wl->conf_addrlen);
}

static struct gw_workload *
gw_workload_get(const struct workload_conf *wc)
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
	wl->state = WL_ASLEEP;
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

void
route_apply(struct cfg_generation *gen)
{
	struct workload_conf	*wc;
	struct gw_workload	*wl, *next;
	struct strentry		*h;
	int			 deps = 0;

	routes_clear(&gw->exact);
	routes_clear(&gw->suffix);
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		wl->configured = 0;
		wl->conf = NULL;
	}
	TAILQ_FOREACH(wc, &gen->workloads, entry) {
		wl = gw_workload_get(wc);
		wl->configured = 1;
		wl->conf = wc;
		gw_workload_conf_addresses(wl, wc);
		/* an instance runtimed routed to keeps its address */
		if (!wl->addr_rt)
			gw_workload_address(wl, wc);
		wl->wake_timeout = wc->wake_timeout >= 0 ? wc->wake_timeout :
		    gen->global.wake_timeout;
		wl->pull_timeout = route_pull_timeout(wc, gen);
		ignore_workload(wl, wc, gen);
		deps |= !TAILQ_EMPTY(&wc->depends);
		TAILQ_FOREACH(h, &wc->hosts, entry)
			route_add(wl, h->str);
	}
	if (deps)
		route_wake_chains(gen);
	RB_FOREACH_SAFE(wl, gw_workloads, &gw->workloads, next) {
		if (wl->configured)
			continue;
		RB_REMOVE(gw_workloads, &gw->workloads, wl);
		ignore_forget(wl);
		wake_workload_gone(wl);
		gw_workload_free_if_unused(wl);
	}
}
