/*
 * A routed request at its workload's gate (serve.c calls gate_check()
 * before anything counts it as use, so that a refused request neither
 * wakes the workload nor keeps it awake):
 *
 *	1. "allow from" and "deny from", in order, the first that matches
 *	   the client deciding (nginx's rule); none matching lets it on.
 *	   The client is the one "ignore from" and X-Real-IP name: the
 *	   peer, or behind a trusted proxy the last X-Forwarded-For.
 *	2. "auth basic" (gate_basic.c) or "auth request" (gate_request.c),
 *	   which may wait, off the event loop's back: a password at the
 *	   verifier process, an answer from the auth service.
 *
 * While it waits the connection's operations are this file's: its
 * input waits, its timer is the check's bound, and its close cancels
 * the check.  HTTP/2 streams reach here as HTTP/1.1 pseudo-connections
 * (h2.c) and WebSocket upgrades as requests: the gate is the same.
 */

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "filter.h"
#include "gatecheck.h"

static void
gate_read(struct gw_conn *c)
{
	/* the check decides first; what came meanwhile waits */
	conn_reading(c, 0);
}

static void
gate_timeout(struct gw_conn *c)
{
	if (c->gate == NULL) {
		conn_close(c);
		return;
	}
	if (c->gate->kind == GATE_WAIT_VERIFY)
		gate_basic_timeout(c);
	else
		gate_request_timeout(c);
}

static void
gate_close(struct gw_conn *c)
{
	if (c->gate == NULL)
		return;
	if (c->gate->kind == GATE_WAIT_VERIFY)
		gate_verify_cancel(c->gate->slot);
	else
		gate_request_cancel(c);
	gate_wait_end(c);
}

static const struct conn_ops gate_ops = {
	.on_read = gate_read,
	.on_timeout = gate_timeout,
	.on_close = gate_close
};

/* the client the rules match: as ignore's "from" sees it */
static void
gate_client(const struct gw_conn *c, struct netaddr *client)
{
	if (!c->trusted || filter_forwarded_client(&c->req->h, client) == -1)
		*client = c->peeraddr;
}

void
gate_check(struct gw_conn *c)
{
	const struct gw_gate	*g = c->wl->gate;
	struct netaddr		 client;
	size_t			 i;

	free(c->gate_add);
	c->gate_add = NULL;
	if (g->nrules > 0) {
		gate_client(c, &client);
		for (i = 0; i < g->nrules; i++)
			if (gate_rule_match(&g->rules[i], &client))
				break;
		if (i < g->nrules && !g->rules[i].allow) {
			gate_refuse(c, 403, NULL, "deny");
			return;
		}
	}
	if (!g->basic && !g->request) {
		gate_continue(c);
		return;
	}
	/*
	 * A check that may wait: the connection is this file's meanwhile,
	 * its input left where it is (gate_read()) until the check is done.
	 */
	c->ops = &gate_ops;
	if (g->basic)
		gate_basic_check(c);
	else
		gate_request_start(c);
}
