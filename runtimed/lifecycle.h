/*
 * lifecycle.c's internals that lifecycle_apply.c uses, and nothing else
 * does: the state machine's own steps.
 */

#ifndef ORCHD_RUNTIMED_LIFECYCLE_H
#define ORCHD_RUNTIMED_LIFECYCLE_H

void	lc_since_now(struct rt_workload *);
void	lc_state_set(struct rt_workload *, enum workload_state,
	    enum rt_reason, const char *);
void	lc_stop(struct rt_workload *, enum rt_reason);
void	lc_free(struct rt_workload *);
void	lc_deps_wake(struct rt_workload *);
void	lc_keep_warm_wakes(void);

#endif /* ORCHD_RUNTIMED_LIFECYCLE_H */
