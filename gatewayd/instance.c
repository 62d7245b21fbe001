/*
 * Which instance of a workload its requests go to, and which of them are
 * still in flight to an instance being replaced.
 *
 * runtimed says where each instance it starts listens (IMSG_RT_ROUTE)
 * before it says the instance runs, so that a definition changed while
 * a workload runs ("on change next wake") does not send its requests to
 * an address nothing listens on yet: the definition's address is used
 * only until runtimed has said, and again once nothing runs.
 *
 * A workload is replaced in one of two ways.  Side by side, the new
 * instance is started on its own address; once it is ready, runtimed
 * routes to it with retire set: new requests go there, and once those
 * sent to the old one are done, IMSG_GW_HELD says so, and runtimed
 * stops the old one.  In place (the same address), runtimed sends
 * IMSG_RT_HOLD: new requests are parked as during a suspend, and once
 * those in flight are done, IMSG_GW_HELD; the new instance's start
 * settles the parked ones as any wake does.
 *
 * What is in flight to an instance is counted by the upstream
 * connection's epoch: a request is bound to the workload's epoch when it
 * is sent upstream, until its answer is done or its connection closes.
 * A replacement moves the workload to a new epoch, and those bound to
 * the one before are the old instance's.  A couple of integers per
 * request, nothing more on the request path.
 *
 * A swarm service's tasks run on nodes the swarm chooses: runtimed
 * routes to the address of each node one of its tasks runs on (several
 * with replicas), new upstream connections take them in turn, and a
 * task that moves is a new route.  Such an address is no definition's,
 * so what bounds it is the definition: only a workload whose current
 * definition has driver swarm, which only orchd.conf can set (the
 * parent's policy.c refuses it from the API), and only at its
 * definition's port.  A runtimed that lies can send a swarm workload's
 * requests to that port of any host; nothing else.
 */

#include <sys/socket.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

static void
held_send(struct gw_workload *wl)
{
	struct wl_ref	 ref;

	wl->held_wait = 0;
	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_HELD, 0, -1, &ref,
	    sizeof(ref)) == -1)
		log_warn("%s: %s", __func__, wl->name);
	log_debug("%s: nothing in flight to its instance before", wl->name);
}

#define BOUND_UP	1	/* through its upstream connection */
#define BOUND_H2C	2	/* an "upstream h2c" stream: h2up.c's */

/*
 * The workload c's request is in flight to: its upstream connection's,
 * or for a stream to an "upstream h2c" workload, which h2up.c connects
 * to instead, the stream's own until its pseudo-connection ends.
 */
static struct gw_workload *
instance_wl(const struct gw_conn *c, int how)
{
	return (how == BOUND_H2C ? c->wl : c->up.wl);
}

/* c's request goes upstream, to the instance of its workload's epoch */
void
instance_bind(struct gw_conn *c)
{
	struct gw_workload	*wl;
	int			 how;

	how = c->up.wl == NULL && c->h2st != NULL ? BOUND_H2C : BOUND_UP;
	if (c->bound || (wl = instance_wl(c, how)) == NULL)
		return;
	c->bound = how;
	if (c->up.epoch == wl->epoch)
		wl->bound++;
	else if (c->up.epoch == wl->prev_epoch)
		wl->prev_bound++;
}

/* c's request is done, or its upstream connection closed */
void
instance_unbind(struct gw_conn *c)
{
	struct gw_workload	*wl = instance_wl(c, c->bound);

	if (!c->bound || wl == NULL)
		return;
	c->bound = 0;
	if (c->up.epoch == wl->epoch) {
		if (wl->bound > 0)
			wl->bound--;
	} else if (c->up.epoch == wl->prev_epoch && wl->prev_bound > 0) {
		if (--wl->prev_bound == 0 && wl->held_wait)
			held_send(wl);
	}
}

/*
 * Its instance changes, or stops: kept upstream connections are stale,
 * and what is in flight is the previous epoch's.  One replacement at a
 * time: a change during one ends the wait for it.
 */
void
instance_epoch(struct gw_workload *wl)
{
	if (wl->held_wait)
		held_send(wl);
	wl->prev_epoch = wl->epoch;
	wl->prev_bound = wl->bound;
	wl->bound = 0;
	wl->epoch++;
}

void
instance_free(struct gw_workload *wl)
{
	free(wl->nodes);
	wl->nodes = NULL;
	wl->nnodes = wl->node_next = 0;
}

/* a new upstream connection: to the next of its tasks' nodes, if several */
void
instance_pick(struct gw_workload *wl)
{
	const union wl_addr	*a;

	if (wl->nnodes < 2)
		return;
	a = &wl->nodes[wl->node_next++ % wl->nnodes];
	memcpy(&wl->addr, a, sizeof(wl->addr));
	wl->addrlen = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6);
}

/* nothing runs: the definition's address again, until runtimed says */
void
instance_idle(struct gw_workload *wl)
{
	instance_free(wl);
	wl->addr_rt = 0;
	if (wl->configured) {
		memcpy(&wl->addr, &wl->conf_addr, sizeof(wl->addr));
		wl->addrlen = wl->conf_addrlen;
	}
}

static int
addr_same(const union wl_addr *a, socklen_t alen, const struct rt_route *rr)
{
	return (alen == rr->addrlen && memcmp(a, &rr->addr, alen) == 0);
}

static socklen_t
addr_len(const union wl_addr *a)
{
	if (a->ss_family == AF_INET)
		return (sizeof(struct sockaddr_in));
	if (a->ss_family == AF_INET6)
		return (sizeof(struct sockaddr_in6));
	return (0);
}

/*
 * The address of a node a swarm workload's task runs on: a unicast
 * address, at the port its definition names, and only for a workload
 * whose definition is a swarm service (see the top).
 */
static int
node_valid(const struct gw_workload *wl, const union wl_addr *a,
    socklen_t alen)
{
	const struct sockaddr_in	*sin = &a->sin;
	const struct sockaddr_in6	*sin6 = &a->sin6;
	in_port_t			 port;

	if (!wl->configured || !wl->swarm || alen == 0 ||
	    alen != addr_len(a))
		return (0);
	/* its definition's port, in conf_addr since route_apply() */
	port = wl->conf_addr.ss_family == AF_INET ? wl->conf_addr.sin.sin_port :
	    wl->conf_addr.sin6.sin6_port;
	if (a->ss_family == AF_INET)
		return (sin->sin_port == port &&
		    sin->sin_addr.s_addr != htonl(INADDR_ANY) &&
		    sin->sin_addr.s_addr != htonl(INADDR_BROADCAST) &&
		    !IN_MULTICAST(ntohl(sin->sin_addr.s_addr)));
	return (sin6->sin6_port == port &&
	    !IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr) &&
	    !IN6_IS_ADDR_MULTICAST(&sin6->sin6_addr));
}

/*
 * Only an address a definition of the workload named, this generation's
 * or the one before (runtimed may start an instance a generation behind
 * or ahead of ours), or the one it has: gatewayd reaches workloads'
 * addresses and nothing else, whatever runtimed says.
 */
static int
route_valid(const struct gw_workload *wl, const struct rt_route *rr)
{
	if (rr->addr.ss_family == AF_INET) {
		if (rr->addrlen != sizeof(struct sockaddr_in))
			return (0);
	} else if (rr->addr.ss_family != AF_INET6 ||
	    rr->addrlen != sizeof(struct sockaddr_in6))
		return (0);
	if (rr->nmore > 0)
		return (0);
	return (addr_same(&wl->conf_addr, wl->conf_addrlen, rr) ||
	    addr_same(&wl->conf_prev, wl->conf_prevlen, rr) ||
	    addr_same(&wl->addr, wl->addrlen, rr));
}

/* a swarm workload's route: its nodes, each one checked */
static int
route_nodes(struct gw_workload *wl, const struct rt_route *rr)
{
	union wl_addr	*nodes;
	uint32_t	 i, n;

	if (rr->retire || rr->nmore >= RT_ROUTE_MAX ||
	    !node_valid(wl, &rr->addr, rr->addrlen))
		return (-1);
	for (i = 0; i < rr->nmore; i++)
		if (!node_valid(wl, &rr->more[i], addr_len(&rr->more[i])))
			return (-1);
	n = rr->nmore + 1;
	if ((nodes = calloc(n, sizeof(*nodes))) == NULL) {
		log_warn("%s: %s", __func__, wl->name);
		return (-1);
	}
	memcpy(&nodes[0], &rr->addr, sizeof(nodes[0]));
	memcpy(&nodes[1], rr->more, rr->nmore * sizeof(nodes[0]));
	instance_free(wl);
	/* kept connections to a node it left are stale */
	if (wl->state == WL_RUNNING)
		instance_epoch(wl);
	wl->nodes = nodes;
	wl->nnodes = n;
	memcpy(&wl->addr, &rr->addr, sizeof(wl->addr));
	wl->addrlen = rr->addrlen;
	wl->addr_rt = 1;
	log_debug("%s: routed to %u node%s of its tasks", wl->name, n,
	    n == 1 ? "" : "s");
	return (0);
}

void
instance_recv_route(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_route		 rr;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &rr, sizeof(rr));
	if ((wl = gw_workload_find(rr.name)) == NULL) {
		/* removed, or not known yet: its definition says as much */
		if (rr.retire)
			goto held;
		return;
	}
	if (route_valid(wl, &rr))
		instance_free(wl);
	else if (route_nodes(wl, &rr) == 0)
		return;
	else {
		log_warnx("%s: route to an address none of its definitions "
		    "names, ignored", wl->name);
		if (rr.retire)
			goto held;
		return;
	}
	memcpy(&wl->addr, &rr.addr, sizeof(wl->addr));
	wl->addrlen = rr.addrlen;
	wl->addr_rt = 1;
	if (!rr.retire)
		return;
	log_debug("%s: its new instance takes the requests", wl->name);
	if (wl->state != WL_RUNNING) {
		held_send(wl);
		return;
	}
	instance_epoch(wl);
	wl->held_wait = 1;
	if (wl->prev_bound == 0)
		held_send(wl);
	return;
 held:
	{
		struct wl_ref	 ref;

		memset(&ref, 0, sizeof(ref));
		strlcpy(ref.name, rr.name, sizeof(ref.name));
		if (imsgev_compose(iev, IMSG_GW_HELD, 0, -1, &ref,
		    sizeof(ref)) == -1)
			log_warn("%s: compose", __func__);
	}
}

/*
 * Replaced in place: new requests are parked from now on, and runtimed
 * hears once none is in flight.  Every hold is answered, whatever this
 * gateway knows of the workload.
 */
void
instance_recv_hold(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_ref		 ref;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	if ((wl = gw_workload_find(ref.name)) == NULL) {
		if (imsgev_compose(iev, IMSG_GW_HELD, 0, -1, &ref,
		    sizeof(ref)) == -1)
			log_warn("%s: compose", __func__);
		return;
	}
	if (wl->state != WL_RUNNING) {
		held_send(wl);
		return;
	}
	log_debug("%s: held for its replacement", wl->name);
	metrics_state(wl, WL_SUSPENDING, RT_REASON_REPLACED, 0);
	wl->state = WL_SUSPENDING;
	instance_epoch(wl);
	wl->held_wait = 1;
	if (wl->prev_bound == 0)
		held_send(wl);
}
