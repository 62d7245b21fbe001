/*
 * A workload's CPU, process and I/O limits (common/wlimits.c): their
 * bounds, the global defaults and the API's maximums, and the values
 * each kind of cgroup and Docker takes.
 */

#ifndef ORCHD_WLIMITS_H
#define ORCHD_WLIMITS_H

#include <stdint.h>

struct workload_conf;

/*
 * "cpu" is in thousandths of a CPU: 0.01 (the least a 100 ms period
 * gives, and Docker's least) to 256; cgroups and Docker take a quota
 * above the host's CPUs only as no limit, or (Docker) not at all, so it
 * is lowered to them where it is applied.  The weights are cgroup v2's
 * scale, 100 the default; pids up to the kernel's PID_MAX_LIMIT.
 */
#define LIM_CPU_MIN		10
#define LIM_CPU_MAX		256000
#define LIM_WEIGHT_MIN		1
#define LIM_WEIGHT_MAX		10000
#define LIM_PIDS_MIN		1
#define LIM_PIDS_MAX		4194304
#define LIM_CPU_PERIOD		100000	/* microseconds, v1 and v2 */

/* each 0: none */
struct wl_limits {
	int64_t		 cpu;		/* thousandths of a CPU */
	int64_t		 cpu_weight;
	int64_t		 pids;
	int64_t		 io_weight;
};

int		 limits_check(const struct wl_limits *, char *, size_t);
void		 limits_effective(const struct wl_limits *,
		    const struct wl_limits *, const struct workload_conf *,
		    int64_t, struct wl_limits *);
int		 limits_any(const struct wl_limits *);
int64_t		 limits_v1_shares(int64_t);
int64_t		 limits_v1_blkio(int64_t);

#endif /* ORCHD_WLIMITS_H */
