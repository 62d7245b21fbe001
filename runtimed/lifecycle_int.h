/*
 * The lifecycle's own helpers (lifecycle.c, wlcause.c), for its reports
 * (lc_report.c) alone: the state machine's steps they take.
 */

#ifndef ORCHD_LIFECYCLE_INT_H
#define ORCHD_LIFECYCLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

struct rt_workload;
struct wake_cause;

/* wlcause.c */
void	exit_msg(int, char *, size_t);
const struct wake_cause *lc_cause(const struct rt_workload *);
void	lc_cause_set(struct rt_workload *, const struct wake_cause *);
void	lc_cause_kind(struct rt_workload *, enum wake_kind);
int64_t	freeze_for(const struct rt_workload *);
/* lifecycle.c */
void	state_repeat(struct rt_workload *);
void	wake_timer_arm(struct rt_workload *);
void	restart_schedule(struct rt_workload *, int64_t);
void	lc_fail(struct rt_workload *, enum rt_reason, const char *);
void	deps_up(struct rt_workload *);
void	lc_stopped(struct rt_workload *);
void	wait_send(struct rt_workload *, int64_t);

#endif /* ORCHD_LIFECYCLE_INT_H */
