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
 * A path its host's path routes can trust: what a backend would make of
 * it by normalising is what it says.  No "//", no "." or ".." segment,
 * no '\\', nothing of '.', '/', '\\' or '%' percent-encoded (a second
 * decoding would read "%252e" as "."): such a path could be routed by
 * one prefix and read by the workload as under another.  n: the path
 * without its query.
 */
static int
route_path_clean(const char *p, size_t n)
{
	size_t	 i, seg = 1;

	for (i = 1; i <= n; i++) {
		if (i == n || p[i] == '/') {
			/* the segment p[seg..i) */
			if ((i == seg && i < n) ||
			    (i - seg == 1 && p[seg] == '.') ||
			    (i - seg == 2 && p[seg] == '.' &&
			    p[seg + 1] == '.'))
				return (0);
			seg = i + 1;
			continue;
		}
		if (p[i] == '\\')
			return (0);
		if (p[i] == '%' && i + 2 < n &&
		    ((p[i + 1] == '2' && strchr("eEfF5", p[i + 2]) != NULL) ||
		    (p[i + 1] == '5' && (p[i + 2] == 'c' || p[i + 2] == 'C'))))
			return (0);
	}
	return (1);
}

/*
 * The workload of a host's path routes the request's path goes to: the
 * longest prefix that is the path, or is followed in it by '/' ("/api"
 * takes /api, /api/ and /api/x, not /apix), else the host's default.
 * The list is short and sorted once by route_apply: no allocation, a
 * comparison per prefix.
 */
static struct gw_workload *
route_path(const struct gw_route *r, const char *path, size_t pathlen,
    size_t *strip)
{
	const struct gw_path	*p;
	size_t			 i, n;

	if (r->npaths == 0 || path == NULL)
		return (r->wl != NULL ? r->wl :
		    (r->npaths > 0 ? r->paths[0].wl : NULL));
	/* "*" (OPTIONS), an absolute-form without a path: the default */
	if (pathlen == 0 || path[0] != '/')
		return (r->wl);
	for (n = 0; n < pathlen && path[n] != '?' && path[n] != '#'; n++)
		;
	if (!route_path_clean(path, n))
		return (ROUTE_BAD_PATH);
	for (i = 0; i < r->npaths; i++) {
		p = &r->paths[i];
		if (n < p->len || memcmp(path, p->prefix, p->len) != 0 ||
		    (n > p->len && path[p->len] != '/'))
			continue;
		if (strip != NULL && p->strip)
			*strip = p->len;
		return (p->wl);
	}
	return (r->wl);
}

/*
 * host is the authority's host part, not NUL-terminated, any case.  A
 * trailing dot (an absolute name) is ignored.  Whether the host has a
 * route, whatever its paths.
 */
struct gw_workload *
route_lookup(const char *host, size_t len)
{
	return (route_find(host, len, NULL, 0, NULL));
}

/*
 * The workload of host and path (the target's origin-form, NULL: any),
 * and in *strip the bytes of the path its "strip prefix" takes off;
 * ROUTE_BAD_PATH for a path its host's path routes cannot trust.
 */
struct gw_workload *
route_find(const char *host, size_t len, const char *path, size_t pathlen,
    size_t *strip)
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

	if (strip != NULL)
		*strip = 0;
	key.key = name;
	if ((r = RB_FIND(gw_routes, &gw->exact, &key)) != NULL)
		return (route_path(r, path, pathlen, strip));
	/* "a.b.example.com": try ".b.example.com", then ".example.com" ... */
	for (i = 0; i < len; i++) {
		if (name[i] != '.')
			continue;
		key.key = name + i;
		if ((r = RB_FIND(gw_routes, &gw->suffix, &key)) != NULL)
			return (route_path(r, path, pathlen, strip));
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
