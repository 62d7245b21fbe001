/*
 * The graph of "depends on" over a set of workloads (common/deps.c):
 * one check, each problem reported to the caller's function.
 */

#ifndef ORCHD_DEPS_H
#define ORCHD_DEPS_H

#include <stddef.h>

struct workload_conf;

typedef void	(*deps_report_fn)(void *, const struct workload_conf *,
		    const char *, const char *);
int		 deps_check(const struct workload_conf *const *, size_t,
		    deps_report_fn, void *);

#endif /* ORCHD_DEPS_H */
