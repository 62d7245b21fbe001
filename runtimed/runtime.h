/*
 * runtimed's own types: one struct rt_workload per workload, its state
 * machine (lifecycle.c), readiness checks (ready.c) and the drivers'
 * per-workload state.
 */

#ifndef RUNTIMED_RUNTIME_H
#define RUNTIMED_RUNTIME_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/tree.h>

#include <stdint.h>
#include <time.h>

#include <event.h>

#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "driver.h"
#include "backoff.h"

#define RT_EARLY_WAKES_MAX	64	/* wakes for names not yet known */

struct rt_probe;
struct rt_busy;
struct rt_docker;
struct rt_swarm;
struct rt_agree;
struct rt_live;
struct rt_replace;

/* a wake that waits for room in the memory budget (budget.c) */
struct rt_queued {
	TAILQ_ENTRY(rt_queued)	 entry;		/* in rt->queue */
	struct rt_workload	*wl;
	enum rt_reason		 reason;	/* of the wake */
	char			 msg[RT_MSG_MAX]; /* for its history */
	int			 counted;	/* it did wait: counted */
	int64_t			 since_ms;	/* monotonic */
	struct event		*timer;		/* its wake timeout */
};
TAILQ_HEAD(rt_queue, rt_queued);

/* a command waiting for a workload to be running or asleep */
struct rt_waiter {
	TAILQ_ENTRY(rt_waiter)	 entry;
	struct proc_asker	 asker;	/* the parent's request (orchctl)
					   or a gateway's (the API) */
	enum workload_state	 want;
};
TAILQ_HEAD(rt_waiters, rt_waiter);

/* what a listener check was asked for (owner.c) */
enum owner_for {
	OWNER_NONE = 0,
	OWNER_WAKE,			/* readiness passed: running if so */
	OWNER_LIVE			/* a liveness check passed */
};

/* the process driver's state of one workload (driver_process.c) */
struct rt_process {
	struct rt_workload	*wl;
	pid_t			 pid;		/* 0: none */
	int			 spawning;	/* no SPAWNED yet */
	int			 stop_wanted;	/* once SPAWNED */
	int			 stopping;	/* stop signal sent */
	struct event		*kill_timer;	/* then SIGKILL */
	/* as the definition it was started with says */
	int			 stopsig;
	int64_t			 stop_timeout;
};

struct rt_workload {
	RB_ENTRY(rt_workload)	 entry;		/* by name */
	const char		*name;		/* namebuf, or a key's */
	/* the current generation's; NULL once removed from it */
	struct workload_conf	*conf;
	int			 labelled;	/* conf's source is label, as
						   the last generation had it */
	/* the driver of the instance that runs, or ran last */
	const struct rt_driver	*drv;
	enum workload_state	 state;
	time_t			 since;		/* wall clock */
	int64_t			 since_ms;
	time_t			 since_mono;	/* the same, monotime() */
	union wl_addr		 addr;		/* it listens */
	socklen_t		 addrlen;

	int			 stopping;	/* driver stop begun */
	int			 checking;	/* after a restart: not yet
						   compared with what runs;
						   CHECKING_UNTOLD: nor the
						   others told so yet */
#define CHECKING_UNTOLD	2
	enum rt_reason		 stop_reason;
	int			 wake_queued;	/* start once stopped */
	enum rt_reason		 wake_reason;	/* ... for this reason */
	struct wake_cause	*cause;		/* of the wake under way or
						   queued, for the history;
						   NULL: none (lc_cause()) */
	int			 draining;	/* DRAINED answers expected */
	int			 drain_busy;	/* a gateway said busy */
	enum rt_reason		 drain_reason;	/* idle, operator */
	int			 keep_warm;	/* -1: as configured */
	struct wl_maint		*maint;		/* maint.c, maint_of(); NULL:
						   never in maintenance */
	int64_t			 keep_warm_until; /* wall clock, s: it lapses
						   then (warmuntil.c); 0 */
	time_t			 sched_warm_until; /* its schedule keeps it
						   up until then, sched_now();
						   0: not now (schedule.c) */
	time_t			 sched_done;	/* the start of the window
						   or wake last woken for */
	struct sched_plan	*sched;		/* conf's schedules parsed,
						   NULL: none (schedule.c) */
	struct rt_waiters	 waiters;
	/* "depends on": waking, its dependencies first (lifecycle.c) */
	int			 deps_wait;
	struct rt_workload	**dependents;	/* this generation's */
	uint32_t		 ndependents;

	struct event		*wake_timer;	/* while waking */
	struct rt_probe		*probe;		/* readiness */
	struct rt_busy		*busy;		/* the busy veto asked */
	time_t			 busy_since;	/* first veto of this idle
						   stretch, for the log */

	/* restarts of those kept warm, crash-loop backoff (backoff.h) */
	struct rt_backoff	 backoff;
	struct event		*restart_timer;	/* a restart is due */
	int64_t			 restart_wait;	/* ms, its delay */
	int64_t			 running_ms;	/* monotonic: running since */
	struct rt_live		*live;		/* liveness.c */
	/* the listener check under way (owner.c) */
	enum owner_for		 owner_for;
	uint32_t		 owner_seq;

	/* the definition its instance was started with: drift */
	struct workload_conf	*run_conf;	/* NULL: none, or unknown */
	char			*drift;		/* as the store has it;
						   NULL: none */
	/* replaced in place: GW_HELD answers expected, bounded */
	int			 holding;
	struct event		*hold_timer;
	/* replaced side by side (replace.c) */
	struct rt_replace	*replace;
	struct workload_conf	*replace_failed; /* the definition that did
						   not start: not tried
						   again */

	/* a job (job.c): the definition it last succeeded with */
	uint64_t		 job_hash;	/* 0: none */
	int			 job_round;	/* "every wake": done in this
						   round of wakes */

	struct rt_process	 proc;
	struct rt_process	*retiring;	/* side by side: the old one */
	struct rt_docker	*docker;	/* driver_docker.c */
	struct rt_swarm		*swarm;		/* driver_swarm.c */

	/* the memory budget (budget.c) */
	struct rt_queued	*wait;		/* its wake waits for room */
	int64_t			 charge;	/* bytes, while it holds any */
	int64_t			 mem_est;	/* measured estimate; 0: none */
	time_t			 last_used;	/* the gateways' last seen,
						   monotime() */
	uint32_t		 inflight;	/* a bit per gateway: in use */
	int			 evicting;	/* suspended to make room */
	/* the freeze tier ("suspend freeze", lifecycle.c) */
	struct event		*freeze_timer;	/* frozen: then stopped */
	int			 freezing;	/* asked, no answer yet */
	int			 thawing;	/* asked, no answer yet */
	int64_t			 busy_ms;	/* a drain for room found it
						   in use then (monotonic) */
	struct rt_agree		*agree;		/* swarm_agree.c */
	char			 namebuf[];	/* as long as the name */
};
RB_HEAD(rt_workloads, rt_workload);
RB_PROTOTYPE(rt_workloads, rt_workload, entry, rt_workload_cmp);

struct runtime {
	struct privsep		*ps;
	struct rt_workloads	 workloads;
	int64_t			 wake_timeout;	/* global */
	int			 on_change;	/* global */
	int64_t			 health_interval; /* global, liveness */
	int64_t			 health_timeout;
	int64_t			 health_failures;
	int			 pull;		/* global: enum workload_pull */
	int64_t			 pull_timeout;	/* global */
	int64_t			 idle_timeout;	/* global */
	char			 instance[ORCHD_INSTANCE_MAX]; /* swarm */
	char			 volume_root[ORCHD_VOLROOT_MAX]; /* the API's
						   volumes: "api allow
						   volume"; "" none */
	/* wakes that came before the configuration naming them */
	struct gw_wake		 early[RT_EARLY_WAKES_MAX];
	int			 nearly;
	int			 ndeps_wait;	/* workloads with deps_wait */
	int			 configured;	/* has a generation */
	int			 restored;	/* the store's restore */
	int			 store_none;	/* the store had no row:
						   a wake waits on none */

	/* the memory budget (budget.c) */
	int64_t			 budget;	/* bytes; 0: none */
	int64_t			 mem_default;	/* memory estimate */
	int64_t			 max_wakes;	/* 0: no cap */
	int64_t			 freeze;	/* "suspend freeze for", 0: no */
	int			 no_freezer;	/* a freeze failed: said once */
	struct rt_queue		 queue;		/* wakes waiting, first come */
	struct rt_budget	 stats;		/* counted since start */
};

extern struct runtime	*rt;

/* counts.c: the numbers of systemd's STATUS=, for the parent */
void		 counts_changed(void);

/* lifecycle.c: the inputs of the state machine */
void		 lifecycle_apply(struct cfg_generation *);
struct rt_workload *lifecycle_find(const char *);
int		 lifecycle_keep_warm(const struct rt_workload *);
void		 lifecycle_keep_warm_send(struct rt_workload *);
/* schedule.c: keep warm during, wake at */
void		 schedule_run(void);
void		 schedule_apply(void);
/* groupwake.c */
void		 group_wake_request(const char *);

/* warmuntil.c */
void		 warm_until_set(struct rt_workload *, int64_t);
void		 warm_until_arm(void);
void		 lifecycle_wake(const char *, enum rt_reason,
		    const struct wake_cause *);
void		 lifecycle_cause(struct wake_cause *, enum wake_kind);
int		 lifecycle_suspend(const char *, enum rt_reason);
void		 lifecycle_drained(const char *, int);
void		 lifecycle_frozen(struct rt_workload *, int, int);
int		 lifecycle_freeze_stop(struct rt_workload *, enum rt_reason);
void		 lifecycle_restore(const struct st_restore *);
void		 lifecycle_restore_done(void);
void		 lifecycle_restore_none(void);
void		 lifecycle_checking(struct rt_workload *);
void		 lifecycle_check_end(struct rt_workload *);
/* ... and what the drivers and readiness report */
void		 lifecycle_started(struct rt_workload *);
void		 lifecycle_start_failed(struct rt_workload *, const char *);
void		 lifecycle_exited(struct rt_workload *, int);
void		 lifecycle_ended(struct rt_workload *, int, enum rt_reason,
		    const char *);
void		 lifecycle_ready(struct rt_workload *);
void		 lifecycle_unhealthy(struct rt_workload *, const char *);
void		 lifecycle_squatted(struct rt_workload *, const char *);
void		 lifecycle_pulling(struct rt_workload *, int64_t);
void		 lifecycle_pulled(struct rt_workload *);
int		 lifecycle_adopted(struct rt_workload *,
		    const struct rt_driver *, const char *);
int		 lifecycle_found_running(struct rt_workload *,
		    const struct rt_driver *, const char *);
void		 lifecycle_gone(struct rt_workload *, const char *);
void		 lifecycle_refused(const char *);
void		 lifecycle_checked(struct rt_workload *);
struct rt_workload *lifecycle_dependent_up(const struct rt_workload *);
/* ... and replacements: in place here, side by side in replace.c */
int64_t		 lifecycle_wake_timeout(const struct rt_workload *);
int		 lifecycle_address(const struct workload_conf *,
		    union wl_addr *, socklen_t *);
void		 lifecycle_changed(struct rt_workload *);
int		 lifecycle_restart(struct rt_workload *, const char *);
void		 lifecycle_held(const char *);
void		 lifecycle_replaced(struct rt_workload *, const char *);

/* replace.c: a running workload and its definition */
const char	*drift_fields(struct rt_workload *, char *, size_t);
void		 drift_update(struct rt_workload *);
void		 drift_started(struct rt_workload *);
void		 drift_ended(struct rt_workload *);
int		 route_send(struct rt_workload *, int);
void		 replace_begin(struct rt_workload *);
int		 replace_starting(const struct rt_workload *);
void		 replace_started(struct rt_workload *);
void		 replace_ready(struct rt_workload *);
void		 replace_gone(struct rt_workload *, const char *);
void		 replace_fail(struct rt_workload *, const char *);
void		 replace_held(struct rt_workload *);
void		 replace_retired(struct rt_workload *, int);
void		 replace_abandon(struct rt_workload *);
void		 replace_clear(struct rt_workload *);
/* ... and the memory budget's admission (budget.c) */
void		 lifecycle_start(struct rt_workload *, enum rt_reason,
		    const char *);
void		 lifecycle_no_room(struct rt_workload *, const char *);

/* budget.c: the memory budget, wake admission, memory pressure */
void		 budget_init(void);
void		 budget_apply(const struct global_settings *);
void		 budget_admit(struct rt_workload *, enum rt_reason,
		    const char *);
void		 budget_forget(struct rt_workload *);
void		 budget_charge(struct rt_workload *);
void		 budget_changed(void);
void		 budget_drain_refused(struct rt_workload *);
void		 budget_suspending(struct rt_workload *, enum rt_reason);
void		 budget_measured(struct rt_workload *, int64_t);
void		 budget_restore(struct rt_workload *,
		    const struct st_restore *);
void		 budget_recv_activity(struct imsgev *, struct imsg *);
void		 budget_recv_memory(struct imsgev *, struct imsg *);
void		 budget_recv_pressure(struct imsgev *, struct imsg *);
void		 budget_recv_stats(struct imsgev *, struct imsg *);
int		 budget_is_needed_by_running(const struct rt_workload *);
int		 budget_is_vetoed_busy(const struct rt_workload *);

/* command.c: orchctl wake, suspend, keepwarm and restart, and the API's */
void		 command_recv_wake(struct imsgev *, struct imsg *);
void		 command_recv_suspend(struct imsgev *, struct imsg *);
void		 command_recv_keepwarm(struct imsgev *, struct imsg *);
void		 command_recv_restart(struct imsgev *, struct imsg *);
void		 command_state(struct rt_workload *, const char *);
void		 command_refused(struct rt_workload *, const char *);
void		 command_state_refused(struct rt_workload *, const char *);
void		 command_gone(struct rt_workload *);
void		 command_no_room(struct rt_workload *, const char *);

/* maint.c: orchctl maintenance and the API's */
void		 maint_recv(struct imsgev *, struct imsg *);
void		 maint_restore(struct rt_workload *, const struct wl_maint *);
const struct wl_maint *maint_of(const struct rt_workload *);
void		 maint_arm(void);
int		 maint_gate(const struct rt_workload *, const char *, char *,
		    size_t);

/* restore.c: what the store remembers from the last run */
void		 restore_recv(struct imsgev *, struct imsg *);
void		 restore_recv_done(struct imsgev *, struct imsg *);
void		 restore_recv_none(struct imsgev *, struct imsg *);
void		 restore_replay(void);

/* job.c: "run once", a job run to completion */
int		 job_is(const struct rt_workload *);
int		 job_done(const struct rt_workload *);
void		 job_round(struct rt_workload *);
int		 job_exited(struct rt_workload *, int, char *, size_t);
void		 job_restore(struct rt_workload *, uint64_t);

/* ready.c */
void		 ready_start(struct rt_workload *);
void		 ready_stop(struct rt_workload *);
void		 ready_host(const struct rt_workload *, char *, size_t);
int		 ready_status(const char *);

/* busy.c: the busy veto, asked before an idle workload is suspended */
void		 busy_suspend(struct rt_workload *, int64_t);
int		 busy_evict(struct rt_workload *, enum rt_reason);
void		 busy_stop(struct rt_workload *);
void		 ready_check(struct rt_workload *, struct rt_probe **, int64_t,
		    void (*)(struct rt_workload *, const char *));
void		 ready_check_cancel(struct rt_probe **);

/* owner.c: are the listeners on its address its own? */
void		 owner_ask(struct rt_workload *, enum owner_for);
void		 owner_cancel(struct rt_workload *, enum owner_for);
void		 owner_recv(struct imsgev *, struct imsg *);

/* liveness.c */
void		 live_start(struct rt_workload *);
void		 live_stop(struct rt_workload *);

/* driver_process.c: the parent's answers */
void		 process_init(struct rt_workload *);
void		 process_clear(struct rt_workload *);
int		 process_retire(struct rt_workload *);
void		 process_unretire(struct rt_workload *);
void		 process_retire_stop(struct rt_workload *);
void		 process_recv_spawned(struct imsgev *, struct imsg *);
void		 process_recv_exited(struct imsgev *, struct imsg *);
void		 process_recv_frozen(struct imsgev *, struct imsg *);

#endif /* RUNTIMED_RUNTIME_H */
