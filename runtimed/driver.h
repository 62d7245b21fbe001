/*
 * The Runtime interface: what the lifecycle asks of a driver, and the
 * one table of function pointers every driver (process, docker) fills in.
 *
 * start and stop only begin the work and return at once: runtimed never
 * blocks on a workload.  The driver reports the outcome later through
 * lifecycle_started(), lifecycle_start_failed() and lifecycle_exited()
 * (runtime.h).  A driver keeps its own per-workload state in struct
 * rt_workload, under its name.
 */

#ifndef RUNTIMED_DRIVER_H
#define RUNTIMED_DRIVER_H

#include <stddef.h>

struct rt_workload;

/* what a driver knows of a workload's instance */
enum rt_status {
	RT_STATUS_STOPPED = 0,	/* nothing runs */
	RT_STATUS_STARTING,	/* start asked for, no answer yet */
	RT_STATUS_RUNNING,	/* an instance exists */
	RT_STATUS_STOPPING	/* stop asked for, not yet gone */
};

/* logs(): called with each chunk of output, then once with len 0 */
typedef void	(*rt_logs_cb)(struct rt_workload *, const char *, size_t,
		    void *);

struct rt_driver {
	const char	*name;
	/*
	 * Begin starting wl as its configuration says.  0: an answer
	 * follows (started or start_failed); -1: it could not even begin,
	 * why in msg, and nothing follows.
	 */
	int		(*start)(struct rt_workload *, char *, size_t);
	/*
	 * Begin stopping: politely, then by force after a grace period.
	 * 0: lifecycle_exited() (or, for a start still unanswered,
	 * lifecycle_start_failed()) follows; 1: nothing was running.
	 */
	int		(*stop)(struct rt_workload *);
	enum rt_status	(*status)(struct rt_workload *);
	/*
	 * The freeze tier: freeze (1) or thaw (0) its instance, keeping
	 * its memory.  0: lifecycle_frozen() follows with the outcome;
	 * -1: not possible now.  NULL: the driver has no freeze (swarm).
	 */
	int		(*freeze)(struct rt_workload *, int);
	/*
	 * The last tail lines of its output, through cb; the last call
	 * has len 0, and data NULL or why it failed.  -1 with errno
	 * EOPNOTSUPP where runtimed cannot reach them (process workloads:
	 * the parent owns LOGDIR/NAME.log).
	 */
	int		(*logs)(struct rt_workload *, size_t, rt_logs_cb,
			    void *);
};

/* driver_process.c */
extern const struct rt_driver	driver_process;
/* driver_docker.c */
extern const struct rt_driver	driver_docker;
/* driver_swarm.c */
extern const struct rt_driver	driver_swarm;

#endif /* RUNTIMED_DRIVER_H */
