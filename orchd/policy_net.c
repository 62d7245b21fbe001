/*
 * Where an API workload may point, as the parent's policy sees it
 * (policy.c calls policy_api_net() for every API definition, whenever
 * it is checked): the network it joins, the address and port the
 * gateway connects to, and where Docker publishes its port on the host.
 *
 * The address of a workload is one of two things.  For a process, or a
 * container on network host, it is a target: the gateway connects there
 * and serves the answer under the workload's host, so an address of
 * anything else on the host or its network (the API's own port, a
 * service bound to 127.0.0.1, a cloud's metadata address) would be
 * served to the internet.  For a container on a bridge or a named
 * network it is also HostIp: Docker binds the published port there, and
 * 0.0.0.0 would open the container to every network past the gateway.
 * So loopback only, unless orchd.conf says otherwise ("api allow
 * address" for a target, "api allow publish" for a published port); a
 * link-local address only by a rule that is itself link-local, since
 * 169.254.169.254 is no service an operator means by "10.0.0.0/8" or
 * "0.0.0.0/0"; and never one of orchd's own listeners, which would
 * make the gateway answer for the API or for itself.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "ignore.h"
#include "parent.h"
#include "msg.h"
#include "workload.h"

static const uint8_t	 v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			    0xff, 0xff };

/* an IPv4 address written as ::ffff:a.b.c.d is that IPv4 address */
static void
unmap(struct netaddr *na)
{
	if (na->af != AF_INET6 || memcmp(na->addr, v4mapped,
	    sizeof(v4mapped)) != 0)
		return;
	na->af = AF_INET;
	na->prefix = 32;
	memmove(na->addr, na->addr + sizeof(v4mapped), 4);
	memset(na->addr + 4, 0, sizeof(na->addr) - 4);
}

/* 127.0.0.0/8, ::1 */
static int
is_loopback(const struct netaddr *na)
{
	static const uint8_t	 one[16] = { [15] = 1 };

	if (na->af == AF_INET)
		return (na->addr[0] == 127);
	return (memcmp(na->addr, one, sizeof(one)) == 0);
}

/* 169.254.0.0/16, fe80::/10 */
static int
is_linklocal(const struct netaddr *na)
{
	if (na->af == AF_INET)
		return (na->addr[0] == 169 && na->addr[1] == 254);
	return (na->addr[0] == 0xfe && (na->addr[1] & 0xc0) == 0x80);
}

/* 0.0.0.0, :: */
static int
is_wildcard(const struct netaddr *na)
{
	static const uint8_t	 zero[16];

	return (memcmp(na->addr, zero, na->af == AF_INET ? 4 : 16) == 0);
}

static int
same_addr(const struct netaddr *a, const struct netaddr *b)
{
	return (a->af == b->af && memcmp(a->addr, b->addr,
	    a->af == AF_INET ? 4 : 16) == 0);
}

/* a listener's address and port, as a netaddr */
static uint16_t
listener_addr(const struct listener_conf *l, struct netaddr *na)
{
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;

	memset(na, 0, sizeof(*na));
	if (l->ss.ss_family == AF_INET) {
		sin = (const struct sockaddr_in *)&l->ss;
		na->af = AF_INET;
		na->prefix = 32;
		memcpy(na->addr, &sin->sin_addr, 4);
		return (ntohs(sin->sin_port));
	}
	if (l->ss.ss_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)&l->ss;
		na->af = AF_INET6;
		na->prefix = 128;
		memcpy(na->addr, &sin6->sin6_addr, 16);
		unmap(na);
		return (ntohs(sin6->sin6_port));
	}
	return (0);
}

/* is a in one of the networks of "api allow address"? */
static int
address_allowed(const struct orchd_conf *conf, const struct netaddr *a)
{
	const struct strentry	*e;
	struct netaddr		 net;
	const char		*errstr;

	TAILQ_FOREACH(e, &conf->api_allow_addresses, entry) {
		if (netaddr_parse(e->str, &net, &errstr) == -1)
			continue;
		unmap(&net);
		if (!netaddr_match(&net, a))
			continue;
		/* link-local only by a rule that is all link-local */
		if (is_linklocal(a) && (!is_linklocal(&net) ||
		    net.prefix < (net.af == AF_INET ? 16 : 10)))
			continue;
		return (1);
	}
	return (0);
}

/* is a one of "api allow publish"? */
static int
publish_allowed(const struct orchd_conf *conf, const struct netaddr *a)
{
	const struct strentry	*e;
	struct netaddr		 o;
	const char		*errstr;

	TAILQ_FOREACH(e, &conf->api_allow_publish, entry) {
		if (netaddr_parse(e->str, &o, &errstr) == -1)
			continue;
		unmap(&o);
		if (same_addr(&o, a))
			return (1);
	}
	return (0);
}

/*
 * Would a connection to a, port reach l?  The same port, and an address
 * l answers on: its own, any if either is a wildcard, any loopback one
 * if both are loopback (a listener on 127.0.0.1 is not reached by
 * 127.0.0.2, but the difference is one character of a definition).
 */
static int
overlaps(const struct netaddr *la, const struct netaddr *a)
{
	if (is_wildcard(la) || is_wildcard(a) || same_addr(la, a))
		return (1);
	return (is_loopback(la) && is_loopback(a));
}

static int
reaches(const struct listener_conf *l, const struct netaddr *a,
    uint16_t port)
{
	struct netaddr	 la;

	if (listener_addr(l, &la) != port)
		return (0);
	return (overlaps(&la, a));
}

static const char *
listener_what(const struct listener_conf *l)
{
	if (l->api == LISTENER_STATUS)
		return ("the status page's listener");
	if (l->api)
		return ("the API's listener");
	if (l->workload[0] != '\0')
		return ("a workload's \"listen on\"");
	return ("a gateway listener");
}

static int
refuse(char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
refuse(char *err, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return (-1);
}

/*
 * A socket-activated workload's port is orchd's own too: the parent
 * holds it (sockact.c), and what connects to it reaches that workload's
 * queue.
 */
static int
policy_api_sockact(const struct orchd_conf *conf, const struct netaddr *a,
    uint16_t port, char *err, size_t len)
{
	struct listener_conf	 l;
	size_t			 i;

	for (i = 0; i < conf->nsockacts; i++) {
		memset(&l, 0, sizeof(l));
		l.ss = conf->sockacts[i].ss;
		l.sslen = conf->sockacts[i].sslen;
		if (reaches(&l, a, port))
			return (refuse(err, len, "api: port %u is workload "
			    "\"%s\"'s, held by orchd for its socket "
			    "activation; no workload of the API may point at "
			    "it", port, conf->sockacts[i].name));
	}
	return (0);
}

/*
 * May wc, an API workload, point where it does under conf?  0, or -1
 * with err naming the rule (policy.c answers 403).
 */
int
policy_api_net(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct listener_conf	*l;
	struct netaddr			 a;
	const char			*errstr;
	uint16_t			 port = workload_upstream_port(wc);
	int				 published;

	if (wc->network == NETWORK_HOST && !conf->api_allow_net_host)
		return (refuse(err, len, "api allow network host: network "
		    "host is not allowed through the API: the container would "
		    "share the host's network, its loopback services and its "
		    "ports (orchd.conf: api allow network host)"));
	if (wc->address == NULL || strchr(wc->address, '/') != NULL ||
	    netaddr_parse(wc->address, &a, &errstr) == -1)
		return (refuse(err, len, "api: address \"%s\" is not a "
		    "numeric address", wc->address != NULL ? wc->address : ""));
	unmap(&a);
	/* Docker binds the port on the host at the address: HostIp */
	published = wc->driver == DRIVER_DOCKER && wc->network != NETWORK_HOST;
	if (published && !is_loopback(&a) && !publish_allowed(conf, &a))
		return (refuse(err, len, "api allow publish: the port would be "
		    "published on %s, which is not loopback: only "
		    "127.0.0.0/8 and ::1 are allowed through the API "
		    "(orchd.conf: api allow publish %s)", wc->address,
		    wc->address));
	if (!published && !is_loopback(&a) && !address_allowed(conf, &a))
		return (refuse(err, len, "api allow address: address %s is "
		    "%s: only 127.0.0.0/8 and ::1 are allowed through the API "
		    "(orchd.conf: api allow address %s%s)", wc->address,
		    is_linklocal(&a) ? "link-local" : is_wildcard(&a) ?
		    "a wildcard" : "not loopback", wc->address,
		    is_linklocal(&a) ? ", a link-local rule" : ""));
	if (published && port < API_LOW_PORTS && !API_PORT_ALLOWED(conf, port))
		return (refuse(err, len, "api allow publish port: port %u "
		    "would be published on the host, below %d (orchd.conf: "
		    "api allow publish port %u)", port, API_LOW_PORTS, port));
	TAILQ_FOREACH(l, &conf->listeners, entry)
		if (reaches(l, &a, port))
			return (refuse(err, len, "api: address %s port %u is "
			    "orchd's own: %s (%s); no workload of the API may "
			    "point at it", wc->address, port,
			    listener_what(l), l->name));
	if (policy_api_sockact(conf, &a, port, err, len) == -1)
		return (-1);
	return (0);
}

/*
 * Does w, a workload, take port at a on the host (its own port, or
 * where Docker publishes it)?  Where orchd reaches it is where it is.
 */
static int
workload_takes(const struct workload_conf *w, const struct netaddr *a,
    uint16_t port)
{
	struct netaddr	 wa;
	const char	*errstr;

	if (w->run_once != RUN_SERVICE || w->address == NULL ||
	    workload_upstream_port(w) != port ||
	    netaddr_parse(w->address, &wa, &errstr) == -1)
		return (0);
	unmap(&wa);
	return (overlaps(&wa, a));
}

/* one "listen" of wc, an API workload: ADDR port, checked */
static int
policy_api_listen(const struct orchd_conf *conf,
    const struct workload_conf *wc, const char *s, char *err, size_t len)
{
	const struct listener_conf	*l;
	const struct workload_conf	*w;
	struct pdef_iter		 it;
	struct netaddr			 a;
	const char			*errstr;
	char				 addr[INET6_ADDRSTRLEN + 2], *bare = addr;
	int				 port;

	if (listen_split(s, addr, sizeof(addr), &port) == -1)
		return (refuse(err, len, "api: listen \"%s\" is not "
		    "ADDRESS:PORT", s));
	if (addr[0] == '[') {
		bare = addr + 1;
		bare[strlen(bare) - 1] = '\0';
	}
	if (netaddr_parse(bare, &a, &errstr) == -1 || strchr(bare, '/'))
		return (refuse(err, len, "api: listen \"%s\": the address "
		    "must be numeric", s));
	unmap(&a);
	/* bound on the host as a published port is: the same rules */
	if (!is_loopback(&a) && !publish_allowed(conf, &a))
		return (refuse(err, len, "api allow publish: listen \"%s\" is "
		    "not on loopback: only 127.0.0.0/8 and ::1 are allowed "
		    "through the API (orchd.conf: api allow publish %s)", s,
		    bare));
	if (port < API_LOW_PORTS && !API_PORT_ALLOWED(conf, port))
		return (refuse(err, len, "api allow publish port: listen "
		    "\"%s\": port %d is below %d (orchd.conf: api allow "
		    "publish port %d)", s, port, API_LOW_PORTS, port));
	TAILQ_FOREACH(l, &conf->listeners, entry)
		if (strcmp(l->workload, wc->name) != 0 &&
		    reaches(l, &a, port))
			return (refuse(err, len, "api: listen \"%s\" is "
			    "orchd's own: %s (%s %s)", s, listener_what(l),
			    l->workload[0] != '\0' ? l->workload : "on",
			    l->name));
	if (policy_api_sockact(conf, &a, port, err, len) == -1)
		return (-1);
	/* each workload once: most are at rest (pdef.c) */
	for (w = pdef_first(&it, conf); w != NULL; w = pdef_next(&it))
		if (strcmp(w->name, wc->name) != 0 &&
		    workload_takes(w, &a, port)) {
			(void)refuse(err, len, "api: listen \"%s\": port %d "
			    "is workload \"%s\"'s own", s, port, w->name);
			pdef_end(&it);
			return (-1);
		}
	pdef_end(&it);
	if (workload_takes(wc, &a, port))
		return (refuse(err, len, "api: listen \"%s\": the workload "
		    "itself is reached there: give it another port or "
		    "publish", s));
	return (0);
}

/*
 * An API workload's own TCP listeners ("listen"), bound by the parent
 * (api_listen.c): where a published port may be, never one of orchd's
 * own ports, another workload's or its own.  0, or -1 with err.
 */
int
policy_api_listens(const struct orchd_conf *conf,
    const struct workload_conf *wc, char *err, size_t len)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, &wc->listens, entry)
		if (policy_api_listen(conf, wc, e->str, err, len) == -1)
			return (-1);
	return (0);
}
