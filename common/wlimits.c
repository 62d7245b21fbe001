/*
 * A workload's CPU, process and I/O limits: the value that applies to
 * it, and the forms cgroup v1 and Docker take.  The spawner applies them
 * to a process workload's cgroup (spawnerd/cglimit.c), runtimed to a
 * container's create body (runtimed/docker_spec.c); each takes the
 * workload's own value, else the global default, and for a workload of
 * the API never more than the operator's maximum ("api max").
 */

#include <stdio.h>

#include "wlimits.h"
#include "workload.h"

/* each within its bounds, or 0; 0, or -1 with why in err */
int
limits_check(const struct wl_limits *l, char *err, size_t len)
{
	if (l->cpu != 0 && (l->cpu < LIM_CPU_MIN || l->cpu > LIM_CPU_MAX)) {
		(void)snprintf(err, len, "cpu %lld thousandths: out of bounds",
		    (long long)l->cpu);
		return (-1);
	}
	if (l->cpu_weight != 0 && (l->cpu_weight < LIM_WEIGHT_MIN ||
	    l->cpu_weight > LIM_WEIGHT_MAX)) {
		(void)snprintf(err, len, "cpu weight %lld: out of bounds",
		    (long long)l->cpu_weight);
		return (-1);
	}
	if (l->pids != 0 && (l->pids < LIM_PIDS_MIN ||
	    l->pids > LIM_PIDS_MAX)) {
		(void)snprintf(err, len, "pids %lld: out of bounds",
		    (long long)l->pids);
		return (-1);
	}
	if (l->io_weight != 0 && (l->io_weight < LIM_WEIGHT_MIN ||
	    l->io_weight > LIM_WEIGHT_MAX)) {
		(void)snprintf(err, len, "io weight %lld: out of bounds",
		    (long long)l->io_weight);
		return (-1);
	}
	return (0);
}

/* its own, else the default; the API's never above the maximum */
static int64_t
one(int64_t own, int64_t dflt, int64_t max, int api)
{
	int64_t	 v = own != 0 ? own : dflt;

	if (api && max != 0 && (v == 0 || v > max))
		v = max;
	return (v);
}

/*
 * What applies to wc: ncpu the host's CPUs (0: not known), a CPU quota
 * above them lowered to them, since it could not bind anyway.
 */
void
limits_effective(const struct wl_limits *dflt, const struct wl_limits *max,
    const struct workload_conf *wc, int64_t ncpu, struct wl_limits *out)
{
	int	 api = wc->source == SOURCE_API;

	out->cpu = one(wc->cpu, dflt->cpu, max->cpu, api);
	out->cpu_weight = one(wc->cpu_weight, dflt->cpu_weight,
	    max->cpu_weight, api);
	out->pids = one(wc->pids, dflt->pids, max->pids, api);
	out->io_weight = one(wc->io_weight, dflt->io_weight, max->io_weight,
	    api);
	if (ncpu > 0 && ncpu <= LIM_CPU_MAX / 1000 && out->cpu > ncpu * 1000)
		out->cpu = ncpu * 1000;
}

int
limits_any(const struct wl_limits *l)
{
	return (l->cpu != 0 || l->cpu_weight != 0 || l->pids != 0 ||
	    l->io_weight != 0);
}

/*
 * v1's cpu.shares and Docker's CpuShares for a v2 weight: 100, the
 * default of each, is 1024; v1 takes 2 to 262144.
 */
int64_t
limits_v1_shares(int64_t weight)
{
	int64_t	 s = weight * 1024 / 100;

	return (s < 2 ? 2 : s > 262144 ? 262144 : s);
}

/*
 * v1's blkio.weight and Docker's BlkioWeight for a v2 io weight: 100,
 * the default of v2, is v1's 500; v1 takes 10 to 1000.
 */
int64_t
limits_v1_blkio(int64_t weight)
{
	int64_t	 w = weight * 5;

	return (w < 10 ? 10 : w > 1000 ? 1000 : w);
}
