/*
 * The gate's own answers, and the way on for a request that passed.
 * A refused request was never counted as use nor woke anything: its
 * answer is the gateway's (401, 403, 429, 502, 503, 504, or the auth
 * service's), logged with why (accesslog_gate()).  A passed one goes
 * back to serve.c's routing (serve_pass(), given at start), which counts
 * it and proxies it or holds it for a wake.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "gatecheck.h"

static void	(*gate_pass)(struct gw_conn *);

void
gate_init(void (*pass)(struct gw_conn *))
{
	gate_pass = pass;
}

/* the wait, if any, is over: c is the gateway's again */
void
gate_wait_end(struct gw_conn *c)
{
	free(c->gate);
	c->gate = NULL;
}

void
gate_refuse_body(struct gw_conn *c, int status, const char *extra,
    const char *ctype, const char *body, size_t len, const char *why)
{
	gate_wait_end(c);
	log_debug("%s: %s: gate: %d, %s", c->peer, c->wl->name, status, why);
	accesslog_gate(c, why);
	/* its answer is counted for /metrics, as any routed one's */
	c->routed = 1;
	c->ops = &proxy_ops;
	conn_answer_typed(c, status, extra, ctype, body, len);
}

/* an answer of ours: status, extra fields (each with CRLF), why */
void
gate_refuse(struct gw_conn *c, int status, const char *extra,
    const char *why)
{
	char	 body[64];

	(void)snprintf(body, sizeof(body), "%d\n", status);
	gate_refuse_body(c, status, extra != NULL ? extra : "", "text/plain",
	    body, strlen(body), why);
}

/* past the gate: on to the proxy, or a wake */
void
gate_continue(struct gw_conn *c)
{
	gate_wait_end(c);
	/* a reload while it waited took the workload away */
	if (!c->wl->configured) {
		gate_refuse(c, 404, NULL, "removed");
		return;
	}
	gate_pass(c);
}
