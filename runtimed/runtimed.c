/*
 * runtimed: the lifecycle of every workload.  It starts, checks and stops
 * workloads through its drivers and is the only process that talks to
 * the container socket.  This file is its start, its dispatch table and
 * the decoding of the messages from the gateway and the reaper.
 */

#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cause.h"
#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "sandbox.h"
#include "schedule.h"
#include "tlslib.h"
#include "util.h"
#include "workload.h"
#include "runtime.h"
#include "docker.h"

static void	runtime_recv_wake(struct imsgev *, struct imsg *);
static void	runtime_recv_suspend(struct imsgev *, struct imsg *);
static void	runtime_recv_drained(struct imsgev *, struct imsg *);
static void	runtime_recv_refused(struct imsgev *, struct imsg *);
static void	runtime_recv_held(struct imsgev *, struct imsg *);
static void	runtime_recv_seen(struct imsgev *, struct imsg *);

static struct privsep	runtime_ps;
static struct runtime	runtime;
struct runtime		*rt = &runtime;

PROC_TABLE_BEGIN
static const struct proc_handler runtime_handlers[] = {
	/* what every child answers the parent (common/proc.c) */
	{ IMSG_PROC_PEER, sizeof(struct proc_peer), PROC_FROM(PROC_PARENT),
	    proc_recv_peer },
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    proc_recv_summary },
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
	{ IMSG_GW_WAKE, sizeof(struct gw_wake), PROC_FROM(PROC_GATEWAY),
	    runtime_recv_wake, PROC_NAME(struct gw_wake) },
	{ IMSG_REAP_SUSPEND, sizeof(struct reap_suspend), PROC_FROM(PROC_REAPER),
	    runtime_recv_suspend, PROC_NAME(struct reap_suspend) },
	{ IMSG_GW_DRAINED, sizeof(struct gw_drained), PROC_FROM(PROC_GATEWAY),
	    runtime_recv_drained, PROC_NAME(struct gw_drained) },
	{ IMSG_GW_REFUSED, sizeof(struct wl_ref), PROC_FROM(PROC_GATEWAY),
	    runtime_recv_refused, PROC_NAME(struct wl_ref) },
	{ IMSG_GW_HELD, sizeof(struct wl_ref), PROC_FROM(PROC_GATEWAY),
	    runtime_recv_held, PROC_NAME(struct wl_ref) },
	{ IMSG_REAP_SEEN, PROC_ANYLEN, PROC_FROM(PROC_REAPER),
	    runtime_recv_seen },
	{ IMSG_RT_SPAWNED, sizeof(struct rt_proc), PROC_FROM(PROC_PARENT),
	    process_recv_spawned, PROC_NAME(struct rt_proc) },
	{ IMSG_RT_EXITED, sizeof(struct rt_proc), PROC_FROM(PROC_PARENT),
	    process_recv_exited, PROC_NAME(struct rt_proc) },
	{ IMSG_RT_FROZEN, sizeof(struct rt_freeze), PROC_FROM(PROC_PARENT),
	    process_recv_frozen, PROC_NAME(struct rt_freeze) },
	{ IMSG_RT_OWNER, sizeof(struct rt_owner), PROC_FROM(PROC_PARENT),
	    owner_recv, PROC_NAME(struct rt_owner) },
	{ IMSG_ST_RESTORE, sizeof(struct st_restore), PROC_FROM(PROC_STORE),
	    restore_recv, PROC_NAME(struct st_restore) },
	{ IMSG_ST_RESTORE_DONE, 0, PROC_FROM(PROC_STORE), restore_recv_done },
	{ IMSG_ST_RESTORE_NONE, 0, PROC_FROM(PROC_STORE), restore_recv_none },
	/* orchctl, through the parent, and the HTTP API, from the gateway */
	{ IMSG_CTL_WAKE, sizeof(struct ctl_name), PROC_FROM(PROC_PARENT) |
	    PROC_FROM(PROC_GATEWAY), command_recv_wake,
	    PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SUSPEND, sizeof(struct ctl_name), PROC_FROM(PROC_PARENT) |
	    PROC_FROM(PROC_GATEWAY), command_recv_suspend,
	    PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_KEEPWARM, sizeof(struct ctl_keepwarm),
	    PROC_FROM(PROC_PARENT) | PROC_FROM(PROC_GATEWAY),
	    command_recv_keepwarm, PROC_NAME(struct ctl_keepwarm) },
	{ IMSG_CTL_RESTART, sizeof(struct ctl_name), PROC_FROM(PROC_PARENT) |
	    PROC_FROM(PROC_GATEWAY), command_recv_restart,
	    PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_MAINT, sizeof(struct ctl_maint), PROC_FROM(PROC_PARENT) |
	    PROC_FROM(PROC_GATEWAY), maint_recv, PROC_NAME(struct ctl_maint) },
	{ IMSG_CTL_LOGS, sizeof(struct ctl_logs), PROC_FROM(PROC_PARENT),
	    docker_recv_logs, PROC_NAME(struct ctl_logs) },
	/* the registry logins, from the parent alone */
	{ IMSG_CFG_REGAUTH, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    docker_recv_regauth },
	/* a swarm manager's address and TLS credentials, likewise */
	{ IMSG_CFG_SWARM, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    docker_recv_swarm },
	{ IMSG_CTL_PULL, sizeof(struct ctl_name), PROC_FROM(PROC_PARENT),
	    docker_recv_pull, PROC_NAME(struct ctl_name) },
	{ IMSG_RT_PURGE, sizeof(struct rt_purge), PROC_FROM(PROC_PARENT),
	    docker_recv_purge, PROC_NAME(struct rt_purge) },
	/* checked where used: the parent's answer before a create, a start */
	{ IMSG_RT_USED, sizeof(struct rt_used), PROC_FROM(PROC_PARENT),
	    docker_recv_used, PROC_NAME(struct rt_used) },
	/* the memory budget (budget.c) */
	{ IMSG_GW_ACTIVITY, sizeof(struct gw_activity), PROC_FROM(PROC_GATEWAY),
	    budget_recv_activity, PROC_RECORDS, PROC_NAME(struct gw_activity) },
	{ IMSG_ST_MEMORY, sizeof(struct rt_memory), PROC_FROM(PROC_PARENT),
	    budget_recv_memory, PROC_NAME(struct rt_memory) },
	{ IMSG_REAP_PRESSURE, sizeof(struct reap_pressure),
	    PROC_FROM(PROC_REAPER), budget_recv_pressure },
	{ IMSG_CTL_SHOW_STATS, 0, PROC_FROM(PROC_PARENT), budget_recv_stats },
};
PROC_TABLE_END

/* a request found it asleep: what the gateway says of it is cleaned */
static void
runtime_recv_wake(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_wake	 gwk;

	(void)imsg_get_data(imsg, &gwk, sizeof(gwk));
	cause_sanitize(&gwk.cause);
	gwk.cause.kind = WAKE_REQUEST;
	lifecycle_wake(gwk.name, RT_REASON_REQUEST, &gwk.cause);
	group_wake_request(gwk.name);
}

/*
 * idle, says the reaper: its busy path, if any, may veto the suspend;
 * a swarm service's other instances first (swarm_agree.c)
 */
static void
runtime_recv_suspend(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_suspend	 rs;
	struct rt_workload	*wl;

	(void)imsg_get_data(imsg, &rs, sizeof(rs));
	if ((wl = lifecycle_find(rs.name)) == NULL) {
		log_debug("workload %s: suspend of an unknown workload",
		    rs.name);
		return;
	}
	if (wl->conf != NULL && wl->conf->driver == DRIVER_SWARM)
		agree_suspend(wl, rs.idle_since);
	else
		busy_suspend(wl, rs.idle_since);
}

/* swarm workloads' last use here, for their services' labels */
static void
runtime_recv_seen(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_lastseen	 ls;
	struct rt_workload	*wl;
	const unsigned char	*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;

	if (len % sizeof(ls) != 0)
		fatalx("%s: %zu bytes", __func__, len);
	for (off = 0; off < len; off += sizeof(ls)) {
		memcpy(&ls, p + off, sizeof(ls));
		ls.name[sizeof(ls.name) - 1] = '\0';
		if ((wl = lifecycle_find(ls.name)) != NULL)
			agree_seen(wl, ls.last_seen);
	}
}

static void
runtime_recv_drained(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_drained	 dr;

	(void)imsg_get_data(imsg, &dr, sizeof(dr));
	lifecycle_drained(dr.name, dr.idle != 0);
}

static void
runtime_recv_refused(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_ref	 ref;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	lifecycle_refused(ref.name);
}

/* a replacement: nothing is in flight to the instance it replaces */
static void
runtime_recv_held(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_ref	 ref;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	lifecycle_held(ref.name);
}

static void
runtime_apply(struct privsep *ps, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	rt->pull = gen->global.pull;
	rt->pull_timeout = gen->global.pull_timeout;
	rt->idle_timeout = gen->global.idle_timeout;
	if (strcmp(rt->instance, gen->global.instance) != 0) {
		strlcpy(rt->instance, gen->global.instance,
		    sizeof(rt->instance));
		dk_instance_set(rt->instance);
		log_info("instance name %s", rt->instance);
	}
	(void)strlcpy(rt->volume_root, gen->global.volume_root,
	    sizeof(rt->volume_root));
	dk_limits_set(&gen->global.lim_dflt, &gen->global.lim_max,
	    gen->global.ncpu);
	lifecycle_apply(gen);
	labels_apply(gen->global.docker_labels == 1);
	restore_replay();
	schedule_apply();
	schedule_run();
}

int
main(int argc, char *argv[])
{
	/* as root, the parent's -c root is taken: see privdrop() */
	int		  chrooted = geteuid() == 0;
	char		  err[128];

	proc_title_init(argc, argv);
	RB_INIT(&rt->workloads);
	rt->ps = &runtime_ps;
	rt->wake_timeout = ORCHD_WAKE_TIMEOUT;
	rt->pull_timeout = ORCHD_PULL_TIMEOUT;
	runtime_ps.before_privdrop = tlslib_load;
	child_start(&runtime_ps, argc, argv, PROC_RUNTIME, runtime_handlers,
	    nitems(runtime_handlers), PRIVDROP_SOCKDIR);
	cfg_set_apply(runtime_apply);
	budget_init();
	/*
	 * -f: the Docker socket, by its own path in our private root, or
	 * where that could not be made, by its name in its directory
	 */
	dk_init(runtime_ps.file, chrooted && !privdrop_sockbound());
	/* the tests' shift of the schedules' clock, from the parent's env */
	if (sched_clock_init(getenv("ORCHD_TEST_CLOCK_OFFSET"), err,
	    sizeof(err)) == -1)
		fatalx("%s", err);
	sandbox_enter(proc_name(PROC_RUNTIME), SB_RUNTIME);
	event_dispatch();
	return (0);
}
