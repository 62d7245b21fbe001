/*
 * gatewayd: the network-facing process.  It routes requests by Host to
 * workloads and proxies them; this file is its start, its dispatch table
 * and the application of a new configuration.
 */

#include <event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "gateway.h"
#include "sandbox.h"

#define GW_STOP_MS	1500	/* HTTP/2 streams finish, within the
				   grace of the lost channels (proc.c) */

static struct privsep	gateway_ps;
static struct gateway	gateway;
struct gateway		*gw = &gateway;
static struct event	gateway_term;
static struct event	gateway_stopev;

static const struct proc_handler gateway_handlers[] = {
	PROC_COMMON_HANDLERS,
	CFG_HANDLERS,
	{ IMSG_CFG_LISTENER, sizeof(struct ctl_listener),
	    PROC_FROM(PROC_PARENT), listener_recv },
	{ IMSG_CFG_TLS, PROC_ANYLEN, PROC_FROM(PROC_PARENT), tls_recv },
	{ IMSG_CFG_IGNORE, sizeof(struct cfg_ignore), PROC_FROM(PROC_PARENT),
	    ignore_recv },
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    wake_recv_state },
	{ IMSG_RT_DRAIN, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    wake_recv_drain },
	{ IMSG_RT_ROUTE, sizeof(struct rt_route), PROC_FROM(PROC_RUNTIME),
	    instance_recv_route },
	{ IMSG_RT_HOLD, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    instance_recv_hold },
	{ IMSG_RT_WAIT, sizeof(struct rt_wait), PROC_FROM(PROC_RUNTIME),
	    wake_recv_wait },
	/* the HTTP API: its settings, and the answers it asked for */
	API_GATEWAY_HANDLERS,
	/* for /metrics: the parent's loads, the workloads' memory */
	{ IMSG_CFG_STATUS, sizeof(struct cfg_status), PROC_FROM(PROC_PARENT),
	    api_events_recv_status },
	{ IMSG_RT_MEMORY, sizeof(struct rt_memory), PROC_FROM(PROC_STORE),
	    metrics_recv_memory },
	{ IMSG_RT_BUDGET, sizeof(struct rt_budget), PROC_FROM(PROC_RUNTIME),
	    metrics_recv_budget },
	/* the reaper's count of wrong keys from every gateway (api.c) */
	{ IMSG_RP_AUTHLIMIT, sizeof(struct rp_authlimit),
	    PROC_FROM(PROC_REAPER), api_recv_authlimit },
	/* the store's held writes, for GET /metrics (metrics.c) */
	{ IMSG_ST_QUEUE, sizeof(struct st_queue_stats),
	    PROC_FROM(PROC_STORE), metrics_recv_store },
	/* the access log's pipe to the parent (accesslog.c) */
	{ IMSG_CFG_ACCESSLOG, 0, PROC_FROM(PROC_PARENT), accesslog_recv_fd },
};

static void
gateway_apply(struct privsep *ps, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	gw->conf = gen->global.gateway;
	accesslog_apply(&gen->global);
	ignore_apply(gen);
	route_apply(gen);
	listener_apply();
	api_apply(gen);
}

static void
gateway_stop_bound(int fd, short event, void *arg)
{
	event_loopbreak();
}

/*
 * SIGTERM: HTTP/2 clients get a graceful GOAWAY, whose streams finish
 * for at most GW_STOP_MS; then, or at once without any, the access log's
 * lines still here go to the parent (gateway_stop()).
 */
static void
gateway_sigterm(int sig, short event, void *arg)
{
	/* a second one changes nothing: the bound set by the first holds */
	if (evtimer_pending(&gateway_stopev, NULL))
		return;
	if (h2_stop() == 0)
		event_loopbreak();
	else
		evtimer_add_ms(&gateway_stopev, GW_STOP_MS);
}

/*
 * The event loop is over: the lines of the last streams too, waited for
 * up to ALOG_STOP_MS in accesslog_stop().  Both bounds together stay
 * within the parent's SHUTDOWN_GRACE_MS before its SIGKILL.
 */
static __dead void
gateway_stop(void)
{
	accesslog_stop();
	exit(0);
}

int
main(int argc, char *argv[])
{
	/* the parent's check of TLS keypairs, and nothing else */
	if (argc > 1 && strcmp(argv[1], "-n") == 0)
		tls_check_main(argc, argv);
	proc_title_init(argc, argv);
	RB_INIT(&gw->workloads);
	RB_INIT(&gw->exact);
	RB_INIT(&gw->suffix);
	TAILQ_INIT(&gw->listeners);
	TAILQ_INIT(&gw->next_listeners);
	TAILQ_INIT(&gw->dirty);
	TAILQ_INIT(&gw->idle);
	SLIST_INIT(&gw->heads);
	RB_INIT(&gw->peers);
	TAILQ_INIT(&gw->next_sni);
	gw->ps = &gateway_ps;
	child_start(&gateway_ps, argc, argv, PROC_GATEWAY, gateway_handlers,
	    nitems(gateway_handlers), 0);
	cfg_set_apply(gateway_apply);
	activity_init();
	listener_init();
	evtimer_set(&gateway_stopev, gateway_stop_bound, NULL);
	signal_set(&gateway_term, SIGTERM, gateway_sigterm, NULL);
	signal_add(&gateway_term, NULL);
	sandbox_enter(proc_name(PROC_GATEWAY), SB_GATEWAY);
	event_dispatch();
	gateway_stop();
}
