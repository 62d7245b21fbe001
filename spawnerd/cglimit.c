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
 *    <mount>/<orchd's own cgroup>/orchd/PID/NAME, as the freezer does,
 *    and a workload joins only those a limit of its needs: each join is
 *    a migration, which waits for an RCU grace period (cgroup.c).
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
#define CL_RMDIR_TRIES	20
#define CL_POLL_MS	5

/* v1's hierarchies, in the order a workload joins them */
enum { CL_CPU, CL_CPUACCT, CL_PIDS, CL_BLKIO, CL_N };

static const char *const cl_ctl[CL_N] = { "cpu", "cpuacct", "pids",
    "blkio" };

static struct {
	int		 v2;		/* else v1, or nothing when !on */
	int		 on;
	int		 has[CL_N];	/* v2: the controller handed down */
	char		 top[CL_N][PATH_MAX];	/* v1: .../orchd */
	char		 base[CL_N][PATH_MAX];	/* v1: .../orchd/PID */
	char		 iofile[32];	/* "io.weight", ...; "" none */
	int		 warned[CL_N]; /* a limit without its controller */
} cl;

static int
cl_file(char *buf, size_t len, const char *dir, const char *name,
    const char *file)
{
	int	 r;

	if (name != NULL)
		r = snprintf(buf, len, "%s/%s/%s", dir, name, file);
	else
		r = snprintf(buf, len, "%s/%s", dir, file);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

/* v2: ctl handed from dir to its children; 0 or -1 */
static int
cl_v2_enable(const char *dir, const char *ctl)
{
	char	 path[PATH_MAX], val[16];

	(void)snprintf(val, sizeof(val), "+%s", ctl);
	if (cl_file(path, sizeof(path), dir, NULL,
	    "cgroup.subtree_control") == -1)
		return (-1);
	return (cgroup_write(path, val));
}

static void
cl_io_file(const char *dir, const char *weight, const char *bfq)
{
	char	 path[PATH_MAX];

	if (cl_file(path, sizeof(path), dir, NULL, weight) == 0 &&
	    access(path, W_OK) == 0)
		(void)strlcpy(cl.iofile, weight, sizeof(cl.iofile));
	else if (cl_file(path, sizeof(path), dir, NULL, bfq) == 0 &&
	    access(path, W_OK) == 0)
		(void)strlcpy(cl.iofile, bfq, sizeof(cl.iofile));
}

/* v2: point the root, top orchd/, base orchd/PID/ */
static void
cl_init_v2(const char *point, const char *top, const char *base)
{
	const char	*dirs[3];
	char		 path[PATH_MAX], list[512];
	int		 c, i;

	cl.v2 = cl.on = 1;
	dirs[0] = point;
	dirs[1] = top;
	dirs[2] = base;
	if (cl_file(path, sizeof(path), point, NULL,
	    "cgroup.controllers") == -1 || cgroup_read(path, list,
	    sizeof(list)) == -1)
		list[0] = '\0';
	for (c = 0; c < CL_N; c++) {
		if (c == CL_CPUACCT)
			continue;	/* v2's cpu.stat is the cpu's */
		if (!cgroup_has_word(list, c == CL_BLKIO ? "io" : cl_ctl[c]))
			continue;
		for (i = 0; i < 3; i++)
			if (cl_v2_enable(dirs[i], c == CL_BLKIO ? "io" :
			    cl_ctl[c]) == -1)
				break;
		cl.has[c] = i == 3;
		if (i < 3)
			log_warn("cgroup %s: +%s", dirs[i], cl_ctl[c]);
	}
	if (cl.has[CL_CPU] && (cl_file(path, sizeof(path), top, NULL,
	    "cpu.weight") == -1 || cgroup_write(path, CL_TOP_WEIGHT) == -1))
		log_warn("cgroup %s: cpu.weight", top);
	/* a leaf's files exist once a cgroup is made: orchd/'s say */
	if (cl.has[CL_BLKIO])
		cl_io_file(top, "io.weight", "io.bfq.weight");
}

/* v1: the hierarchy of controller c, if mounted, and orchd/PID in it */
static void
cl_init_v1_one(int c, const struct cg_mount *m, pid_t owner)
{
	char	 own[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];

	if (cgroup_own(cl_ctl[c], own, sizeof(own)) == -1)
		(void)strlcpy(own, "/", sizeof(own));
	if (cgroup_join_path(dir, sizeof(dir), m->point, m->root, own) ==
	    -1 || (size_t)snprintf(cl.top[c], sizeof(cl.top[c]), "%s/orchd",
	    dir) >= sizeof(cl.top[c]) || (size_t)snprintf(cl.base[c],
	    sizeof(cl.base[c]), "%s/orchd/%d", dir, (int)owner) >=
	    sizeof(cl.base[c]) || (mkdir(cl.top[c], 0755) == -1 &&
	    errno != EEXIST)) {
		log_warn("cgroup %s: %s", cl_ctl[c], dir);
		return;
	}
	cgroup_sweep(cl.top[c]);
	if (mkdir(cl.base[c], 0755) == -1 && errno != EEXIST) {
		log_warn("cgroup %s", cl.base[c]);
		return;
	}
	cl.has[c] = 1;
	if (c == CL_CPU && (cl_file(path, sizeof(path), cl.top[c], NULL,
	    "cpu.shares") == -1 || cgroup_write(path, CL_TOP_SHARES) == -1))
		log_warn("cgroup %s: cpu.shares", cl.top[c]);
	if (c == CL_BLKIO)
		cl_io_file(cl.top[c], "blkio.weight", "blkio.bfq.weight");
}

static void
cl_init_v1(pid_t owner)
{
	struct cg_mount	 m;
	FILE		*f;
	char		 line[PATH_MAX * 2 + 512];
	int		 c, seen[CL_N];

	cl.on = 1;
	memset(seen, 0, sizeof(seen));
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (cgroup_parse_mountinfo(line, &m) == -1 ||
		    strcmp(m.fstype, "cgroup") != 0)
			continue;
		for (c = 0; c < CL_N; c++) {
			if (seen[c] || !cgroup_has_word(m.opts, cl_ctl[c]))
				continue;
			seen[c] = 1;
			/* "cpu,cpuacct" mounted together: joined as cpu */
			if (c == CL_CPUACCT && cgroup_has_word(m.opts, "cpu"))
				continue;
			cl_init_v1_one(c, &m, owner);
		}
	}
	fclose(f);
}

/*
 * At start, after cgroup.c's own: v2 with the mount point, orchd/ and
 * orchd/PID/ (point NULL: v1, its directories named for owner).
 */
void
cglimit_init(const char *point, const char *top, const char *base,
    pid_t owner)
{
	memset(&cl, 0, sizeof(cl));
	if (point != NULL)
		cl_init_v2(point, top, base);
	else
		cl_init_v1(owner);
	log_info("cgroup limits:%s%s%s%s", cl.has[CL_CPU] ? " cpu" : "",
	    cl.has[CL_PIDS] ? " pids" : "", cl.iofile[0] != '\0' ? " io" : "",
	    cl.has[CL_CPU] || cl.has[CL_PIDS] || cl.iofile[0] != '\0' ? "" :
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

static int
cl_put(const char *dir, const char *name, const char *file,
    long long v, char *msg, size_t len)
{
	char	 path[PATH_MAX], val[32];

	if (v < 0)
		(void)strlcpy(val, cl.v2 ? "max" : "-1", sizeof(val));
	else
		(void)snprintf(val, sizeof(val), "%lld", v);
	if (cl_file(path, sizeof(path), dir, name, file) == -1 ||
	    cgroup_write(path, val) == -1) {
		(void)snprintf(msg, len, "cgroup %s %s: %s", file, val,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* v2: the files of the workload's one cgroup, dir */
static int
cl_prepare_v2(const char *dir, const struct wl_limits *l, char *msg,
    size_t len)
{
	char	 val[64], path[PATH_MAX];

	if (cl.has[CL_CPU]) {
		if (l->cpu > 0)
			(void)snprintf(val, sizeof(val), "%lld %d",
			    (long long)l->cpu * LIM_CPU_PERIOD / 1000,
			    LIM_CPU_PERIOD);
		else
			(void)snprintf(val, sizeof(val), "max %d",
			    LIM_CPU_PERIOD);
		if (cl_file(path, sizeof(path), dir, NULL, "cpu.max") == -1 ||
		    cgroup_write(path, val) == -1 ||
		    cl_put(dir, NULL, "cpu.weight", l->cpu_weight > 0 ?
		    l->cpu_weight : 100, msg, len) == -1) {
			if (msg[0] == '\0')
				(void)snprintf(msg, len, "cgroup cpu.max %s: "
				    "%s", val, strerror(errno));
			return (-1);
		}
	}
	if (cl.has[CL_PIDS] && cl_put(dir, NULL, "pids.max", l->pids > 0 ?
	    l->pids : -1, msg, len) == -1)
		return (-1);
	if (cl.iofile[0] != '\0' && cl_put(dir, NULL, cl.iofile,
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

	if (cl_file(dir, sizeof(dir), cl.base[c], NULL, name) == -1 ||
	    (mkdir(dir, 0755) == -1 && errno != EEXIST))
		goto fail;
	if (c == CL_CPU && (cl_put(cl.base[c], name, "cpu.cfs_period_us",
	    LIM_CPU_PERIOD, msg, len) == -1 || cl_put(cl.base[c], name,
	    "cpu.cfs_quota_us", l->cpu > 0 ? l->cpu * LIM_CPU_PERIOD / 1000 :
	    -1, msg, len) == -1 || cl_put(cl.base[c], name, "cpu.shares",
	    limits_v1_shares(l->cpu_weight > 0 ? l->cpu_weight : 100), msg,
	    len) == -1))
		return (-1);
	if (c == CL_PIDS && cl_put(cl.base[c], name, "pids.max", l->pids,
	    msg, len) == -1)
		return (-1);
	if (c == CL_BLKIO && cl_put(cl.base[c], name, cl.iofile,
	    limits_v1_blkio(l->io_weight), msg, len) == -1)
		return (-1);
	if (fds->n >= CGROUP_FDS) {
		errno = EMFILE;
		goto fail;
	}
	/* its one thread moves itself, as in cgroup.c: "tasks" */
	if (cl_file(path, sizeof(path), dir, NULL, "tasks") == -1 ||
	    (fds->fd[fds->n] = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		goto fail;
	fds->n++;
	return (0);
 fail:
	(void)snprintf(msg, len, "cgroup %s/%s: %s", cl.base[c], name,
	    strerror(errno));
	return (-1);
}

/*
 * Before fork, with cgroup.c's cgroup_prepare(): the limits l of
 * workload name set, in dir, its cgroup on v2; on v1 the tasks
 * files of the hierarchies it joins added to fds.  Rechecked here: the
 * parent's request writes nothing out of bounds.  0, or -1 and why in msg.
 */
int
cglimit_prepare(const char *name, const char *dir, const struct wl_limits *l,
    struct cgroup_fds *fds, char *msg, size_t len)
{
	int	 cpu = l->cpu != 0 || l->cpu_weight != 0;

	msg[0] = '\0';
	if (!cl.on)
		return (0);
	if (limits_check(l, msg, len) == -1)
		return (-1);
	if (cpu && !cl.has[CL_CPU])
		cl_missing(name, CL_CPU, "cpu");
	if (l->pids != 0 && !cl.has[CL_PIDS])
		cl_missing(name, CL_PIDS, "pids");
	if (l->io_weight != 0 && cl.iofile[0] == '\0')
		cl_missing(name, CL_BLKIO, "io weight");
	if (cl.v2)
		return (cl_prepare_v2(dir, l, msg, len));
	if (cpu && cl.has[CL_CPU] &&
	    cl_join_v1(CL_CPU, name, l, fds, msg, len) == -1)
		return (-1);
	/* its measure, where mounted apart: cpuacct.usage */
	if (cpu && cl.has[CL_CPUACCT] &&
	    cl_join_v1(CL_CPUACCT, name, l, fds, msg, len) == -1)
		return (-1);
	if (l->pids != 0 && cl.has[CL_PIDS] &&
	    cl_join_v1(CL_PIDS, name, l, fds, msg, len) == -1)
		return (-1);
	if (l->io_weight != 0 && cl.iofile[0] != '\0' &&
	    cl_join_v1(CL_BLKIO, name, l, fds, msg, len) == -1)
		return (-1);
	return (0);
}

/*
 * v1: the workload's cgroups in these hierarchies, once cgroup.c's
 * killed what was in its own: bounded, as there.
 */
void
cglimit_destroy(const char *name)
{
	char	 dir[PATH_MAX];
	int	 c, i;

	if (!cl.on || cl.v2)
		return;
	for (c = 0; c < CL_N; c++) {
		if (!cl.has[c] || cl_file(dir, sizeof(dir), cl.base[c], NULL,
		    name) == -1)
			continue;
		for (i = 0; i < CL_RMDIR_TRIES; i++) {
			if (rmdir(dir) == 0 || errno == ENOENT)
				break;
			usleep(CL_POLL_MS * 1000);
		}
		if (i == CL_RMDIR_TRIES)
			log_warn("cannot remove cgroup %s", dir);
	}
}

void
cglimit_fini(void)
{
	int	 c;

	for (c = 0; c < CL_N && cl.on && !cl.v2; c++)
		if (cl.has[c] && rmdir(cl.base[c]) == -1 && errno != ENOENT)
			log_warn("cannot remove cgroup %s", cl.base[c]);
}
