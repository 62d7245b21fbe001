/*
 * The route table: Host to workload, in memory, rebuilt from each
 * configuration generation.  Exact names are looked up first, then
 * "*.suffix" patterns from the longest suffix to the shortest, so the most
 * specific route wins.  Workload objects outlive a reload that keeps their
 * name, with their state, parked requests and counters.
 *
 * Only the lookups and addresses are here, at the bottom of the calls:
 * the table is rebuilt by route_apply.c, and a workload's references are
 * wlref.c's.
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
void
gw_workload_conf_addresses(struct gw_workload *wl,
    const struct workload_conf *wc)
{
	memcpy(&wl->conf_prev, &wl->conf_addr, sizeof(wl->conf_prev));
	wl->conf_prevlen = wl->conf_addrlen;
	conf_address(wc, &wl->conf_addr, &wl->conf_addrlen);
}
