/*
 * Process workloads' CPU, process and I/O limits, in the cgroups
 * cgroup.c makes for them ("cpu", "cpu weight", "pids", "io weight";
 * common/wlimits.c says which value applies to a workload, the parent
 * sends it in the request, check.c and cglimit_prepare() check it).
 *
 *  - cgroup v2: the workload's one cgroup.  +cpu, +pids and +io are
 *    handed down from the root as +memory is, each where the root lists
 *    it; its cpu.max, cpu.weight, pids.max and io.weight (or, with the
 *    BFQ scheduler, io.bfq.weight) are written at each start, a limit not
 *    given as the kernel's default, since the directory may be an earlier
 *    start's.
 *  - cgroup v1: each controller is a hierarchy of its own.  The cpu,
 *    cpuacct (its measure, where mounted apart), pids and blkio ones get
 *    <mount>/<orchd's own cgroup>/orchd/PID/NAME, as the freezer does
 *    (cgroup.c finds, sweeps and removes them with its own), and a
 *    workload joins only those a limit of its needs: each join is a
 *    migration, which waits for an RCU grace period (cgroup.c).
 *    cpu.cfs_quota_us and cfs_period_us, cpu.shares, pids.max and
 *    blkio.weight (or blkio.bfq.weight).
 *
 * A limit the host has no controller for is said once in the log, and
 * the workload runs without it, as without a memory limit.
 *
 * The daemons are never starved by the workloads that have a limit: none
 * of them is in a workload's cgroup, and the workloads' common cgroup,
 * orchd/, weighs a quarter of a default one.  On v1 a workload without
 * any limit joins no cpu or pids hierarchy (each join is a wait on the
 * wake path), and stays beside the daemons there: orchd.conf(5) says
 * to set global defaults.  On v1 it is a child of orchd's own cgroup,
 * where each of the daemons' processes weighs 1024 and orchd/ 256 for
 * every workload together.  On v2 orchd/ sits at the root beside the
 * service manager's slices, orchd's among them, whose weight is its
 * manager's to set: orchd/ has cpu.weight 25 against their 100.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "spawner.h"
#include "wlimits.h"

#define CL_TOP_SHARES	"256"	/* v1 orchd/: a quarter of 1024 */
#define CL_TOP_WEIGHT	"25"	/* v2 orchd/: a quarter of 100 */

/* v2's names of the controllers of cgroup.c's v1 hierarchies */
static const char *const cl_v2ctl[CG_NHIER] = {
	[CG_CPU] = "cpu", [CG_PIDS] = "pids", [CG_BLKIO] = "io"
};

static struct {
	int		 v2;		/* else v1, or nothing when !on */
	int		 on;
	int		 has[CG_NHIER];	/* v2: handed down; v1: a hierarchy */
	char		 iofile[32];	/* "io.weight", ...; "" none */
	int		 warned[CG_NHIER]; /* a limit without its controller */
} cl;

static int
cl_file(char *buf, size_t len, const char *dir, const char *file)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, file) >= len) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

static void
cl_io_file(const char *dir, const char *weight, const char *bfq)
{
	char	 path[PATH_MAX];

	if (cl_file(path, sizeof(path), dir, weight) == 0 &&
	    access(path, W_OK) == 0)
		(void)strlcpy(cl.iofile, weight, sizeof(cl.iofile));
	else if (cl_file(path, sizeof(path), dir, bfq) == 0 &&
	    access(path, W_OK) == 0)
		(void)strlcpy(cl.iofile, bfq, sizeof(cl.iofile));
}

/* v2: cpu, pids and io handed down from point, the root, as memory is */
static void
cl_init_v2(const char *point)
{
	const char	*top = cgroup_top(CG_MAIN);
	char		 path[PATH_MAX], list[512];
	int		 c;

	cl.v2 = 1;
	if (cl_file(path, sizeof(path), point, "cgroup.controllers") == -1 ||
	    cgroup_read(path, list, sizeof(list)) == -1)
		list[0] = '\0';
	for (c = 0; c < CG_NHIER; c++)
		if (cl_v2ctl[c] != NULL && cgroup_has_word(list, cl_v2ctl[c]))
			cl.has[c] = cgroup_v2_enable(point, cl_v2ctl[c]) == 0;
	if (cl.has[CG_CPU] && (cl_file(path, sizeof(path), top,
	    "cpu.weight") == -1 || cgroup_write(path, CL_TOP_WEIGHT) == -1))
		log_warn("cgroup %s: cpu.weight", top);
	/* a leaf's files exist once a cgroup is made: orchd/'s say */
	if (cl.has[CG_BLKIO])
		cl_io_file(top, "io.weight", "io.bfq.weight");
}

/* v1: the hierarchies cgroup.c made orchd/PID in; orchd/'s weight */
static void
cl_init_v1(void)
{
	const char	*top;
	char		 path[PATH_MAX];
	int		 c;

	for (c = CG_CPU; c < CG_NHIER; c++)
		cl.has[c] = cgroup_base(c) != NULL;
	if ((top = cgroup_top(CG_CPU)) != NULL && (cl_file(path,
	    sizeof(path), top, "cpu.shares") == -1 ||
	    cgroup_write(path, CL_TOP_SHARES) == -1))
		log_warn("cgroup %s: cpu.shares", top);
	if ((top = cgroup_top(CG_BLKIO)) != NULL)
		cl_io_file(top, "blkio.weight", "blkio.bfq.weight");
}

/* at start, after cgroup.c's own: v2 with its mount point, else v1 */
void
cglimit_init(const char *point)
{
	memset(&cl, 0, sizeof(cl));
	cl.on = 1;
	if (point != NULL)
		cl_init_v2(point);
	else
		cl_init_v1();
	log_info("cgroup limits:%s%s%s%s", cl.has[CG_CPU] ? " cpu" : "",
	    cl.has[CG_PIDS] ? " pids" : "", cl.iofile[0] != '\0' ? " io" : "",
	    cl.has[CG_CPU] || cl.has[CG_PIDS] || cl.iofile[0] != '\0' ? "" :
	    " none on this host");
}

/* a limit asked for that this host cannot set: said once a kind */
static void
cl_missing(const char *name, int c, const char *what)
{
	if (cl.warned[c])
		return;
	cl.warned[c] = 1;
	log_warnx("workload %s: %s: no such cgroup controller on this host; "
	    "workloads run without it (said once)", name, what);
}

/* v to file of name's cgroup in hierarchy h: -1 is "max" */
static int
cl_put(int h, const char *name, const char *file, long long v, char *msg,
    size_t len)
{
	char	 path[PATH_MAX], val[32];

	if (v < 0)
		(void)strlcpy(val, cl.v2 ? "max" : "-1", sizeof(val));
	else
		(void)snprintf(val, sizeof(val), "%lld", v);
	if (cgroup_path(path, sizeof(path), h, name, file) == -1 ||
	    cgroup_write(path, val) == -1) {
		(void)snprintf(msg, len, "cgroup %s %s: %s", file, val,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* v2: the files of the workload's one cgroup */
static int
cl_prepare_v2(const char *name, const struct wl_limits *l, char *msg,
    size_t len)
{
	char	 val[64], path[PATH_MAX];

	if (cl.has[CG_CPU]) {
		if (l->cpu > 0)
			(void)snprintf(val, sizeof(val), "%lld %d",
			    (long long)l->cpu * LIM_CPU_PERIOD / 1000,
			    LIM_CPU_PERIOD);
		else
			(void)snprintf(val, sizeof(val), "max %d",
			    LIM_CPU_PERIOD);
		if (cgroup_path(path, sizeof(path), CG_MAIN, name,
		    "cpu.max") == -1 || cgroup_write(path, val) == -1 ||
		    cl_put(CG_MAIN, name, "cpu.weight", l->cpu_weight > 0 ?
		    l->cpu_weight : 100, msg, len) == -1) {
			if (msg[0] == '\0')
				(void)snprintf(msg, len, "cgroup cpu.max %s: "
				    "%s", val, strerror(errno));
			return (-1);
		}
	}
	if (cl.has[CG_PIDS] && cl_put(CG_MAIN, name, "pids.max",
	    l->pids > 0 ? l->pids : -1, msg, len) == -1)
		return (-1);
	if (cl.iofile[0] != '\0' && cl_put(CG_MAIN, name, cl.iofile,
	    l->io_weight > 0 ? l->io_weight : 100, msg, len) == -1)
		return (-1);
	return (0);
}

/* v1: a hierarchy's cgroup made, its limit written, its file opened */
static int
cl_join_v1(int c, const char *name, const struct wl_limits *l,
    struct cgroup_fds *fds, char *msg, size_t len)
{
	char	 dir[PATH_MAX], path[PATH_MAX];

	if (cgroup_path(dir, sizeof(dir), c, name, NULL) == -1 ||
	    (mkdir(dir, 0755) == -1 && errno != EEXIST))
		goto fail;
	if (c == CG_CPU && (cl_put(c, name, "cpu.cfs_period_us",
	    LIM_CPU_PERIOD, msg, len) == -1 || cl_put(c, name,
	    "cpu.cfs_quota_us", l->cpu > 0 ? l->cpu * LIM_CPU_PERIOD / 1000 :
	    -1, msg, len) == -1 || cl_put(c, name, "cpu.shares",
	    limits_v1_shares(l->cpu_weight > 0 ? l->cpu_weight : 100), msg,
	    len) == -1))
		return (-1);
	if (c == CG_PIDS && cl_put(c, name, "pids.max", l->pids, msg,
	    len) == -1)
		return (-1);
	if (c == CG_BLKIO && cl_put(c, name, cl.iofile,
	    limits_v1_blkio(l->io_weight), msg, len) == -1)
		return (-1);
	if (fds->n >= CGROUP_FDS) {
		errno = EMFILE;
		goto fail;
	}
	/* its one thread moves itself, as in cgroup.c: "tasks" */
	if (cl_file(path, sizeof(path), dir, "tasks") == -1 ||
	    (fds->fd[fds->n] = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		goto fail;
	fds->n++;
	return (0);
 fail:
	(void)snprintf(msg, len, "cgroup %s/%s: %s", cgroup_base(c), name,
	    strerror(errno));
	return (-1);
}

/*
 * Before fork, with cgroup.c's cgroup_prepare(): the limits l of
 * workload name set, in its cgroup on v2; on v1 the tasks files of the
 * hierarchies it joins added to fds.  Rechecked here: the parent's
 * request writes nothing out of bounds.  0, or -1 and why in msg.
 */
int
cglimit_prepare(const char *name, const struct wl_limits *l,
    struct cgroup_fds *fds, char *msg, size_t len)
{
	int	 cpu = l->cpu != 0 || l->cpu_weight != 0;

	msg[0] = '\0';
	if (!cl.on)
		return (0);
	if (limits_check(l, msg, len) == -1)
		return (-1);
	if (cpu && !cl.has[CG_CPU])
		cl_missing(name, CG_CPU, "cpu");
	if (l->pids != 0 && !cl.has[CG_PIDS])
		cl_missing(name, CG_PIDS, "pids");
	if (l->io_weight != 0 && cl.iofile[0] == '\0')
		cl_missing(name, CG_BLKIO, "io weight");
	if (cl.v2)
		return (cl_prepare_v2(name, l, msg, len));
	if (cpu && cl.has[CG_CPU] &&
	    cl_join_v1(CG_CPU, name, l, fds, msg, len) == -1)
		return (-1);
	/* its measure, where mounted apart: cpuacct.usage */
	if (cpu && cl.has[CG_CPUACCT] &&
	    cl_join_v1(CG_CPUACCT, name, l, fds, msg, len) == -1)
		return (-1);
	if (l->pids != 0 && cl.has[CG_PIDS] &&
	    cl_join_v1(CG_PIDS, name, l, fds, msg, len) == -1)
		return (-1);
	if (l->io_weight != 0 && cl.iofile[0] != '\0' &&
	    cl_join_v1(CG_BLKIO, name, l, fds, msg, len) == -1)
		return (-1);
	return (0);
}
