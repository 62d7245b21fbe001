/*
 * The lifecycle's narrow interface: what the drivers, readiness and
 * liveness checks, the memory budget, replacements and the commands
 * from the gateway tell the state machine (lifecycle.c), and the few
 * things they ask it.  They reach it through this table only, so that
 * lifecycle.c calls down into them and none of them calls back up by
 * name: the files of runtimed call each other in no circle
 * (tools/callgraph).  lifecycle.c fills it (lifecycle_table).
 */

#ifndef ORCHD_RUNTIMED_LIFECYCLE_EVENTS_H
#define ORCHD_RUNTIMED_LIFECYCLE_EVENTS_H

struct lifecycle_events {
	/* questions */
	struct rt_workload *(*find)(const char *);
	int	(*keep_warm)(const struct rt_workload *);
	struct rt_workload *(*dependent_up)(const struct rt_workload *);
	int64_t	(*wake_timeout)(const struct rt_workload *);
	int	(*address)(const struct workload_conf *, union wl_addr *,
		    socklen_t *);
	/* the gateway's commands (command.c) and the budget's */
	void	(*keep_warm_send)(struct rt_workload *);
	void	(*wake)(const char *, enum rt_reason,
		    const struct wake_cause *);
	void	(*cause)(struct wake_cause *, enum wake_kind);
	int	(*suspend)(const char *, enum rt_reason);
	void	(*start)(struct rt_workload *, enum rt_reason, const char *);
	void	(*no_room)(struct rt_workload *, const char *);
	int	(*freeze_stop)(struct rt_workload *, enum rt_reason);
	/* what the drivers report */
	void	(*started)(struct rt_workload *);
	void	(*start_failed)(struct rt_workload *, const char *);
	void	(*exited)(struct rt_workload *, int);
	void	(*ended)(struct rt_workload *, int, enum rt_reason,
		    const char *);
	void	(*pulling)(struct rt_workload *, int64_t);
	void	(*pulled)(struct rt_workload *);
	void	(*frozen)(struct rt_workload *, int, int); /* on, ok */
	int	(*adopted)(struct rt_workload *, const struct rt_driver *,
		    const char *);
	int	(*found_running)(struct rt_workload *,
		    const struct rt_driver *, const char *);
	void	(*gone)(struct rt_workload *, const char *);
	void	(*checked)(struct rt_workload *);
	void	(*check_end)(struct rt_workload *);	/* "checking" over */
	void	(*restore)(const struct st_restore *);
	/* readiness and liveness (ready.c, owner.c, liveness.c) */
	void	(*ready)(struct rt_workload *);
	void	(*unhealthy)(struct rt_workload *, const char *);
	void	(*squatted)(struct rt_workload *, const char *);
	/* replacements (replace.c) */
	void	(*changed)(struct rt_workload *);
	int	(*restart)(struct rt_workload *, const char *);
	void	(*replaced)(struct rt_workload *, const char *);
	/* replace.c's and budget.c's own, passed on by lifecycle.c */
	void	(*retired)(struct rt_workload *, int);	/* an old process */
	void	(*drain_refused)(struct rt_workload *);	/* busy: no suspend */
	/* maint.c's: maintenance told the gateways and the parent */
	void	(*maint_told)(struct rt_workload *);
};

extern const struct lifecycle_events *const lifecycle;

#endif /* ORCHD_RUNTIMED_LIFECYCLE_EVENTS_H */
