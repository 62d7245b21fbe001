/*
 * gatewayd: the network-facing process.  It routes requests by Host to
 * workloads and proxies them; this file is its start, its dispatch table
 * and the application of a new configuration.
 */

#include <sys/queue.h>

#include <event.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "sandbox.h"
#include "schedule.h"
#include "timer.h"
#include "util.h"
#include "gateway.h"
#include "pages.h"
#include "gatecheck.h"
#include "metrics.h"
#include "acme.h"

#define GW_STOP_MS	1500	/* HTTP/2 streams finish, within the
				   grace of the lost channels (proc.c) */

static struct privsep	gateway_ps;
static struct gateway	gateway;
struct gateway		*gw = &gateway;
static struct event	gateway_term;
static struct event	gateway_stopev;

PROC_TABLE_BEGIN
static const struct proc_handler gateway_handlers[] = {
	/* what every child answers the parent (common/proc.c) */
	{ IMSG_PROC_PEER, sizeof(struct proc_peer), PROC_FROM(PROC_PARENT),
	    proc_recv_peer },
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    metrics_alog_summary },
	/* its configuration, as every child receives it (common/cfgrecv.c) */
	{ IMSG_CFG_RESET, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_reset },
	{ IMSG_CFG_GLOBAL, sizeof(struct global_settings),
	    PROC_FROM(PROC_PARENT), cfg_recv_global },
	{ IMSG_CFG_WORKLOAD, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    cfg_recv_workload },
	{ IMSG_CFG_DONE, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_done },
	{ IMSG_CFG_DELTA, sizeof(struct cfg_delta), PROC_FROM(PROC_PARENT),
	    cfg_recv_delta },
	{ IMSG_CFG_KEEP, sizeof(struct cfg_keep), PROC_FROM(PROC_PARENT),
	    cfg_recv_keep },
	{ IMSG_CFG_START, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_start },
	{ IMSG_CFG_LISTENER, sizeof(struct ctl_listener),
	    PROC_FROM(PROC_PARENT), listener_recv,
	    PROC_NAME(struct ctl_listener) },
	{ IMSG_CFG_TLS, PROC_ANYLEN, PROC_FROM(PROC_PARENT), tls_recv },
	{ IMSG_CFG_IGNORE, sizeof(struct cfg_ignore), PROC_FROM(PROC_PARENT),
	    ignore_recv },
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    wake_recv_state, PROC_NAME(struct rt_state) },
	{ IMSG_RT_DRAIN, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    wake_recv_drain, PROC_NAME(struct wl_ref) },
	{ IMSG_RT_ROUTE, sizeof(struct rt_route), PROC_FROM(PROC_RUNTIME),
	    instance_recv_route, PROC_NAME(struct rt_route) },
	{ IMSG_RT_HOLD, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    instance_recv_hold, PROC_NAME(struct wl_ref) },
	{ IMSG_RT_WAIT, sizeof(struct rt_wait), PROC_FROM(PROC_RUNTIME),
	    wake_recv_wait, PROC_NAME(struct rt_wait) },
	/* the HTTP API: its settings, and the answers it asked for */
	{ IMSG_CFG_APIKEY, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    apiconf_recv_key },
	{ IMSG_CFG_APIHOST, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    apiconf_recv_host },
	{ IMSG_API_RESULT, sizeof(struct api_result), PROC_FROM(PROC_PARENT),
	    api_recv_result },
	{ IMSG_CTL_WORKLOAD, sizeof(struct ctl_workload),
	    PROC_FROM(PROC_STORE), api_recv_workload,
	    PROC_NAME(struct ctl_workload) },
	{ IMSG_CTL_HISTORY, sizeof(struct ctl_transition),
	    PROC_FROM(PROC_STORE), api_recv_history,
	    PROC_NAME(struct ctl_transition) },
	{ IMSG_CTL_END, 0, PROC_FROM(PROC_STORE) | PROC_FROM(PROC_PARENT),
	    api_recv_end },
	{ IMSG_CTL_OK, 0, PROC_FROM(PROC_RUNTIME), api_recv_ok },
	{ IMSG_CTL_FAIL, sizeof(struct ctl_result), PROC_FROM(PROC_RUNTIME) |
	    PROC_FROM(PROC_PARENT), api_recv_fail },
	{ IMSG_CTL_LOGDATA, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    api_recv_logdata },
	{ IMSG_GW_METRICS_DUMP, 0, PROC_FROM(PROC_PARENT),
	    metrics_recv_dump },
	{ IMSG_GW_METRICS_EXPECT, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    api_recv_metrics_expect },
	{ IMSG_GW_METRICS_WL, sizeof(struct gw_metrics_wl),
	    PROC_FROM(PROC_PARENT), api_recv_metrics_wl, PROC_RECORDS1,
	    PROC_NAME(struct gw_metrics_wl) },
	{ IMSG_GW_METRICS_TOTAL, sizeof(struct gw_metrics_total),
	    PROC_FROM(PROC_PARENT), api_recv_metrics_total },
	{ IMSG_GW_PROCSTAT, sizeof(struct gw_procstat), PROC_FROM(PROC_PARENT),
	    api_recv_metrics_procs, PROC_RECORDS1 },
	/* for /metrics: the parent's loads, the workloads' memory */
	{ IMSG_CFG_STATUS, sizeof(struct cfg_status), PROC_FROM(PROC_PARENT),
	    api_events_recv_status },
	{ IMSG_ST_MEMORY, sizeof(struct rt_memory), PROC_FROM(PROC_STORE),
	    metrics_recv_memory, PROC_NAME(struct rt_memory) },
	{ IMSG_ACME_STATUS, sizeof(struct acme_status),
	    PROC_FROM(PROC_PARENT), metrics_recv_acme,
	    PROC_NAME(struct acme_status) },
	{ IMSG_NOTIFY_STATS, sizeof(struct notify_stats),
	    PROC_FROM(PROC_PARENT), metrics_recv_notify },
	{ IMSG_RT_BUDGET, sizeof(struct rt_budget), PROC_FROM(PROC_RUNTIME),
	    metrics_recv_budget },
	/* the reaper's count of wrong keys from every gateway (api.c) */
	{ IMSG_REAP_AUTHLIMIT, sizeof(struct reap_authlimit),
	    PROC_FROM(PROC_REAPER), api_recv_authlimit },
	{ IMSG_REAP_AUTHBLOCK, sizeof(struct reap_authblock),
	    PROC_FROM(PROC_REAPER), api_recv_authblock },
	/* the status page's sessions, held by the reaper (ui_sess.c) */
	{ IMSG_REAP_SESS, sizeof(struct ui_sess), PROC_FROM(PROC_REAPER),
	    api_recv_sess },
	{ IMSG_REAP_SESS_END, sizeof(struct ui_sess_id),
	    PROC_FROM(PROC_REAPER), ui_recv_sess_end },
	/* the host's last day, and a workload's last access-log lines,
	   held by the reaper (api_access.c) */
	{ IMSG_REAP_HOSTHIST, sizeof(struct host_sample),
	    PROC_FROM(PROC_REAPER), api_recv_hosthist, PROC_RECORDS },
	{ IMSG_REAP_ALOG_LINE, sizeof(struct alog_keep),
	    PROC_FROM(PROC_REAPER), api_recv_alog_line,
	    PROC_NAME(struct alog_keep) },
	{ IMSG_REAP_ALOG_END, sizeof(struct alog_ask),
	    PROC_FROM(PROC_REAPER), api_recv_alog_end,
	    PROC_NAME(struct alog_ask) },
	/* the store's held writes, for GET /metrics (metrics.c) */
	{ IMSG_ST_QUEUE, sizeof(struct st_queue_stats),
	    PROC_FROM(PROC_STORE), metrics_recv_store },
	/* the access log's lines the parent holds (metrics_alog.c) */
	{ IMSG_ALOG_QUEUE, sizeof(struct alog_queue_stats),
	    PROC_FROM(PROC_PARENT), metrics_recv_alog },
	/* the gate's password files (gate_conf.c) */
	{ IMSG_CFG_HTFILE, sizeof(struct cfg_htfile), PROC_FROM(PROC_PARENT),
	    gate_recv_file },
	{ IMSG_CFG_HTUSER, sizeof(struct cfg_htuser), PROC_FROM(PROC_PARENT),
	    gate_recv_user },
	/* the pages of "error page" (pages.c) */
	{ IMSG_CFG_PAGE, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    errpage_recv_page },
	{ IMSG_CFG_ERRPAGE, sizeof(struct cfg_errpage),
	    PROC_FROM(PROC_PARENT), errpage_recv_global },
	/* the access log's pipe to the parent (accesslog.c) */
	{ IMSG_CFG_ACCESSLOG, 0, PROC_FROM(PROC_PARENT), accesslog_recv_fd },
	/* ACME, relayed from acmed (acme_recv.c) */
	{ IMSG_ACME_CERT, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    acme_recv_cert },
	{ IMSG_ACME_CHALLENGE, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    acme_recv_challenge },
	{ IMSG_ACME_CHALLENGE_END, sizeof(struct acme_challenge),
	    PROC_FROM(PROC_PARENT), acme_recv_challenge_end,
	    PROC_NAME(struct acme_challenge) },
	{ IMSG_ACME_FAILED, sizeof(struct acme_status),
	    PROC_FROM(PROC_PARENT), acme_recv_failed,
	    PROC_NAME(struct acme_status) },
};
PROC_TABLE_END

static void
gateway_apply(struct privsep *ps, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	gw->conf = gen->global.gateway;
	accesslog_apply(&gen->global);
	ignore_apply(gen);
	gate_apply(gen);
	errpage_apply();
	route_apply(gen);
	acme_prune();
	listener_apply(h2_listener_gone);
	api_apply(gen);
	hostsample_start();
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
	char	 err[128];

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
	/* each workload's definition is kept by route_apply() (wldef.c) */
	cfg_forget_workloads();
	/* and a reload's delta applied there */
	cfg_take_delta(route_delta_check);
	/* the gate's verifier: forked now, before the sandbox (gate_verify.c) */
	gate_init(serve_pass);
	gate_cache_init();
	gate_verify_init(gate_basic_verified);
	activity_init();
	/*
	 * What a new connection is for: an HTTP listener's, a TCP one's,
	 * a TLS one's before its handshake
	 */
	conn_init(&serve_ops, &tcp_ops, &hello_ops);
	listener_init();
	/* the API's next window and wake: the tests' clock, if they say */
	if (sched_clock_init(getenv("ORCHD_TEST_CLOCK_OFFSET"), err,
	    sizeof(err)) == -1)
		fatalx("%s", err);
	evtimer_set(&gateway_stopev, gateway_stop_bound, NULL);
	signal_set(&gateway_term, SIGTERM, gateway_sigterm, NULL);
	signal_add(&gateway_term, NULL);
	sandbox_enter(proc_name(PROC_GATEWAY), SB_GATEWAY);
	event_dispatch();
	gateway_stop();
}
