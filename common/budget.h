/*
 * The memory budget's shared arithmetic (common/budget.c): a workload's
 * running memory estimate, the queue wait histogram's buckets
 * (BUDGET_WAIT_BOUNDS is in msg.h, the metric's payload), percentages.
 */

#ifndef ORCHD_BUDGET_H
#define ORCHD_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

extern const double	 budget_wait_bounds[BUDGET_WAIT_BOUNDS];
int64_t		 memory_estimate_next(int64_t, int64_t);
int		 budget_wait_bucket(double);
int		 parse_percent(const char *, int64_t *, const char **);
char		*fmt_percent(int64_t, char *, size_t);

#endif /* ORCHD_BUDGET_H */
