/*
 * Process workloads' cgroups: what a workload started goes when it
 * stops, its memory limit, and a measure of its memory.  The spawner's
 * alone (spawnerd.c): root, it makes them at its start and for each
 * start of a workload, reads them when it reaps it, and removes them;
 * the root parent never writes one.
 *
 * A process group is no fence: a workload's process that calls setsid
 * leaves it and outlives kill(-pid).  A cgroup cannot be left by an
 * unprivileged process, so each process workload's processes are in one
 * of their own, named for it, and stopping it kills the whole cgroup.
 *
 * Which cgroups, found in /proc/self/mountinfo at start:
 *
 *  - cgroup v2 whose root lists the memory controller: one directory,
 *    <mount>/orchd/PID/NAME.  It sits at the top of the hierarchy, not
 *    under orchd's own cgroup: v2 lets a cgroup hand controllers to its
 *    children only while it holds no process itself, and orchd's own
 *    cgroup (a systemd unit's, or a login session's when run by hand)
 *    holds orchd.  The root is exempt from that rule and orchd/ and
 *    orchd/PID/ never hold a process, so +memory can be enabled down to
 *    each workload's cgroup whoever started orchd, and the unit needs no
 *    Delegate=yes (Docker's cgroupfs driver does the same).  Killing uses
 *    cgroup.kill, or where the kernel is older than 5.14, cgroup.freeze,
 *    SIGKILL to each process, and a thaw.
 *  - else the v1 freezer hierarchy, and the memory one if mounted:
 *    <mount>/<orchd's own cgroup>/orchd/PID/NAME in each.  v1 has no such
 *    rule, and nesting keeps the workloads inside whatever limit was set
 *    on orchd (a service manager's, a container's).  Killing freezes the
 *    cgroup, so nothing forks while its processes are SIGKILLed, thaws.
 *  - else a v2 hierarchy without controllers: the same as v2, without a
 *    memory limit or measure.
 *  - else none: process groups only, as before, with one warning.
 *
 * An OOM kill in a workload's cgroup is counted by the kernel: v2's
 * memory.events and v1's memory.oom_control (since Linux 4.13) say
 * oom_kill N.  The spawner reads it when a workload starts and when it
 * exits, and says how much it grew in the exit report, from which the
 * parent tells runtimed it was killed for memory.
 *
 * PID is orchd's, the spawner's parent: two orchd on one host (the
 * tests run several) never share a workload's cgroup, and at start the
 * cgroups of an orchd that is no longer running are those of one that
 * crashed.  Its workloads died with it and its spawner
 * (PR_SET_PDEATHSIG), so what is left in them escaped: it is killed and
 * the cgroups removed, in every hierarchy (cg_sweep).
 *
 * ORCHD_CGROUP=v1, v2 or none in the environment (orchd's, which the
 * spawner inherits) chooses instead.
 *
 * The child joins its cgroups itself, before it drops root, by writing
 * "0" (itself) to files the spawner opened for it before fork: nothing
 * in the child can fail for a reason the spawner could have told the
 * operator.  A write of a pid to cgroup.procs moves a whole thread
 * group, and for that the kernel takes cgroup_threadgroup_rwsem for
 * writing, which waits for an RCU grace period: 15-25 ms on this kind
 * of host in one wake of ten.  On v2 the spawner also opens the cgroup's
 * directory and makes the child in it at once with
 * clone3(CLONE_INTO_CGROUP) (Linux 5.7), which costs no such wait;
 * cgroup.procs is the fallback where clone3 fails.  v1 has no such
 * clone, but a thread that moves itself ("0" written to v1's tasks
 * file) skips that lock on recent kernels (the kernel's "single thread
 * migration", measured on 6.18: bench/cgmove.c): it cannot exit or exec
 * under the kernel's hands.  The child is a fork of the single-threaded
 * spawner, one thread, so moving that thread moves all of it, and
 * whatever it forks or starts later is born in the cgroup.  Older
 * kernels take the lock for it too: no worse than cgroup.procs.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "spawner.h"
#include "util.h"

#define CG_DIR			"orchd"
#define CG_FREEZE_WAIT_MS	1000	/* for the freezer, at most */
#define CG_REMOVE_TRIES		40	/* rmdir, CG_POLL_MS apart */
#define CG_KILL_EVERY		10	/* tries: a new SIGKILL round */
#define CG_POLL_MS		5
#define CG_SWEEP_MAX		4096	/* entries looked at in a sweep */

enum cg_kind {
	CG_NONE = 0,
	CG_V1,
	CG_V2
};

/* v1's controllers, a hierarchy each (spawner.h); v2 has CG_MAIN */
static const char *const cg_ctl[CG_NHIER] = {
	[CG_MAIN] = "freezer", [CG_MEM] = "memory", [CG_CPU] = "cpu",
	[CG_CPUACCT] = "cpuacct", [CG_PIDS] = "pids", [CG_BLKIO] = "blkio"
};

/*
 * A hierarchy's directories, bounded below PATH_MAX: each of the twelve
 * in a page of its own was 48 KiB of the spawner for paths of 30 bytes.
 * A longer one (a mount point of 1,000 bytes) is a hierarchy not used,
 * as one past PATH_MAX was, and says so.
 */
#define CG_PATH_MAX	1024

/*
 * Every workload joins the hierarchies before nhier; v1's cpu, cpuacct,
 * pids and blkio ones, where found, only for a limit (cglimit.c).
 */
static struct {
	enum cg_kind	 kind;
	int		 nhier;		/* directories of every workload */
	int		 memory;	/* limit and measure */
	int		 haskill;	/* v2 cgroup.kill */
	char		 top[CG_NHIER][CG_PATH_MAX];	/* .../orchd; "" none */
	char		 base[CG_NHIER][CG_PATH_MAX];	/* .../orchd/PID */
	pid_t		 owner;		/* PID: orchd's, our parent */
} cg;

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void
unescape(char *s)
{
	char	*d = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0');
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

static int
copy(char *dst, size_t len, const char *src)
{
	if (strlcpy(dst, src, len) >= len)
		return (-1);
	unescape(dst);
	return (0);
}

/*
 * One line of /proc/self/mountinfo:
 *	36 35 98:0 /root /mnt/point rw,noatime master:1 - fstype src opts
 * the optional fields before "-" are any number.  Changes line.
 */
int
cgroup_parse_mountinfo(char *line, struct cg_mount *m)
{
	char	*f[6], *p = line, *t;
	int	 n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < 6 && (t = strsep(&p, " ")) != NULL)
		f[n++] = t;
	if (n < 6 || p == NULL)
		return (-1);
	/* the optional fields, up to the separator */
	while ((t = strsep(&p, " ")) != NULL && strcmp(t, "-") != 0)
		;
	if (t == NULL)
		return (-1);
	if ((t = strsep(&p, " ")) == NULL ||
	    copy(m->fstype, sizeof(m->fstype), t) == -1 ||
	    strsep(&p, " ") == NULL || p == NULL ||
	    copy(m->opts, sizeof(m->opts), p) == -1 ||
	    copy(m->root, sizeof(m->root), f[3]) == -1 ||
	    copy(m->point, sizeof(m->point), f[4]) == -1)
		return (-1);
	return (0);
}

/* is word in the comma separated list? */
int
cgroup_has_word(const char *list, const char *word)
{
	size_t	 n = strlen(word);

	while (*list != '\0') {
		if (strncmp(list, word, n) == 0 &&
		    (list[n] == ',' || list[n] == '\0' || list[n] == ' ' ||
		    list[n] == '\n'))
			return (1);
		list += strcspn(list, ", \n");
		list += strspn(list, ", \n");
	}
	return (0);
}

/*
 * One line of /proc/self/cgroup, "ID:CONTROLLERS:PATH": PATH when
 * CONTROLLERS holds controller, or is empty (v2) and controller is NULL.
 */
int
cgroup_parse_self(const char *line, const char *controller, char *path,
    size_t len)
{
	const char	*c, *p;
	char		 list[256];

	if ((c = strchr(line, ':')) == NULL ||
	    (p = strchr(++c, ':')) == NULL ||
	    (size_t)(p - c) >= sizeof(list))
		return (-1);
	memcpy(list, c, p - c);
	list[p - c] = '\0';
	if (controller == NULL ? list[0] != '\0' :
	    !cgroup_has_word(list, controller))
		return (-1);
	if (strlcpy(path, p + 1, len) >= len)
		return (-1);
	path[strcspn(path, "\n")] = '\0';
	return (0);
}

/*
 * Where cgroup path own is in a hierarchy mounted at point with root
 * root: point followed by own less root.  An own outside root, or above
 * it ("/.." in another cgroup namespace's view), is taken as the mount
 * point itself: never a path out of the mount.
 */
int
cgroup_join_path(char *buf, size_t len, const char *point, const char *root,
    const char *own)
{
	size_t	 n = strlen(root);

	if (strcmp(root, "/") == 0)
		n = 0;
	if (strncmp(own, root, n) != 0 || (own[n] != '/' && own[n] != '\0') ||
	    strstr(own, "/..") != NULL)
		own = "";
	else
		own += n;
	if (strcmp(own, "/") == 0)
		own = "";
	if ((size_t)snprintf(buf, len, "%s%s", point, own) >= len)
		return (-1);
	return (0);
}

/* hierarchy h's cgroup of workload name, or a file in it */
int
cgroup_path(char *buf, size_t len, int h, const char *name, const char *file)
{
	int	 r;

	if (file == NULL)
		r = snprintf(buf, len, "%s/%s", cg.base[h], name);
	else
		r = snprintf(buf, len, "%s/%s/%s", cg.base[h], name, file);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

static int
cg_write(const char *path, const char *s)
{
	ssize_t	 n;
	int	 fd, saved;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = write(fd, s, strlen(s));
	saved = errno;
	close(fd);
	if (n != (ssize_t)strlen(s)) {
		errno = n == -1 ? saved : EIO;
		return (-1);
	}
	return (0);
}

/* cglimit.c's writes and reads, as these */
int
cgroup_write(const char *path, const char *s)
{
	return (cg_write(path, s));
}

static int
cg_read(const char *path, char *buf, size_t len)
{
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

int
cgroup_read(const char *path, char *buf, size_t len)
{
	return (cg_read(path, buf, len));
}

static int64_t
cg_read_bytes(const char *path)
{
	char		 buf[32];
	const char	*errstr;
	long long	 v;

	if (cg_read(path, buf, sizeof(buf)) == -1)
		return (-1);
	buf[strcspn(buf, "\n")] = '\0';
	v = strtonum(buf, 0, LLONG_MAX, &errstr);
	return (errstr != NULL ? -1 : v);
}

/* SIGKILL to every process listed in a cgroup's cgroup.procs */
static int
cg_kill_procs(const char *dir)
{
	FILE		*f;
	char		 path[PATH_MAX], line[32];
	const char	*errstr;
	pid_t		 pid;
	int		 n = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    sizeof(path) || (f = fopen(path, "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		pid = strtonum(line, 2, INT_MAX, &errstr);
		if (errstr != NULL || pid == getpid())
			continue;
		if (kill(pid, SIGKILL) == 0)
			n++;
	}
	fclose(f);
	return (n);
}

/*
 * freeze, and wait (bounded) until it is: nothing forks meanwhile; 0
 * once frozen (or thawed: at once), -1 if not
 */
static int
cg_freeze(const char *dir, int on)
{
	char		 path[PATH_MAX], buf[128];
	const char	*want;
	int		 ms;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
	    cg.kind == CG_V1 ? "freezer.state" : "cgroup.freeze") >=
	    sizeof(path))
		return (-1);
	if (cg.kind == CG_V1) {
		want = on ? "FROZEN" : "THAWED";
		if (cg_write(path, want) == -1)
			return (-1);
		if (!on)
			return (0);
		for (ms = 0; ms < CG_FREEZE_WAIT_MS; ms += CG_POLL_MS) {
			if (cg_read(path, buf, sizeof(buf)) == 0 &&
			    strncmp(buf, want, strlen(want)) == 0)
				return (0);
			usleep(CG_POLL_MS * 1000);
		}
	} else {
		if (cg_write(path, on ? "1" : "0") == -1)
			return (-1);
		if (!on)
			return (0);
		if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.events",
		    dir) >= sizeof(path))
			return (-1);
		for (ms = 0; ms < CG_FREEZE_WAIT_MS; ms += CG_POLL_MS) {
			if (cg_read(path, buf, sizeof(buf)) == 0 &&
			    strstr(buf, "frozen 1") != NULL)
				return (0);
			usleep(CG_POLL_MS * 1000);
		}
	}
	log_debug("cgroup %s: not frozen in %d ms", dir, CG_FREEZE_WAIT_MS);
	return (-1);
}

/*
 * The freeze tier (runtimed's "suspend freeze"): workload name's cgroup
 * frozen (on 1) or thawed.  -1 where there is none, or no freezer in it
 * (a v2 hierarchy on a kernel before 5.2 has no cgroup.freeze); one not
 * frozen in time is thawed again, so that it is one or the other.
 */
int
cgroup_freeze(const char *name, int on)
{
	char	 dir[PATH_MAX];

	if (cg.kind == CG_NONE || cgroup_path(dir, sizeof(dir), CG_MAIN, name,
	    NULL) == -1)
		return (-1);
	if (cg_freeze(dir, on) == 0)
		return (0);
	if (on)
		(void)cg_freeze(dir, 0);
	return (-1);
}

/* every process in the cgroup at dir, which is the main hierarchy's */
static void
cg_kill_dir(const char *dir)
{
	char	 path[PATH_MAX];

	if (cg.kind == CG_V2 && cg.haskill) {
		if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.kill",
		    dir) < sizeof(path) && cg_write(path, "1") == 0)
			return;
		log_warn("cgroup %s: cgroup.kill", dir);
	}
	/* a frozen process dies of SIGKILL once thawed (v1) or at once */
	(void)cg_freeze(dir, 1);
	(void)cg_kill_procs(dir);
	(void)cg_freeze(dir, 0);
}

void
cgroup_kill(const char *name)
{
	char	 dir[PATH_MAX];

	if (cg.kind == CG_NONE || cgroup_path(dir, sizeof(dir), CG_MAIN, name,
	    NULL) == -1)
		return;
	cg_kill_dir(dir);
}

static int
cg_empty(const char *dir)
{
	char	 path[PATH_MAX], buf[8];

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    sizeof(path) || cg_read(path, buf, sizeof(buf)) == -1)
		return (1);	/* gone, or nothing we can do */
	return (buf[0] == '\0');
}

/*
 * Kill what is in the cgroups at dirs and remove them.  rmdir succeeds
 * only once every process has left: bounded, a process stuck in the
 * kernel leaves the cgroup in place, to be emptied at the next start.
 */
static int
cg_destroy(char dirs[][PATH_MAX], int n)
{
	int	 h, i, left = n;

	for (i = 0; i < CG_REMOVE_TRIES && left > 0; i++) {
		if (i % CG_KILL_EVERY == 0 && !cg_empty(dirs[CG_MAIN]))
			cg_kill_dir(dirs[CG_MAIN]);
		for (h = left = 0; h < n; h++) {
			if (dirs[h][0] == '\0')
				continue;
			if (rmdir(dirs[h]) == 0 || errno == ENOENT)
				dirs[h][0] = '\0';
			else
				left++;
		}
		if (left > 0)
			usleep(CG_POLL_MS * 1000);
	}
	for (h = 0; h < n; h++)
		if (dirs[h][0] != '\0')
			log_warn("cannot remove cgroup %s", dirs[h]);
	return (left > 0 ? -1 : 0);
}

/* in every hierarchy, the main one first: those it did not join too */
void
cgroup_destroy(const char *name)
{
	char	 dirs[CG_NHIER][PATH_MAX];
	int	 h, n = 0;

	if (cg.kind == CG_NONE)
		return;
	for (h = 0; h < CG_NHIER; h++)
		if (cg.base[h][0] != '\0' && cgroup_path(dirs[n],
		    sizeof(dirs[n]), h, name, NULL) == 0)
			n++;
	(void)cg_destroy(dirs, n);
}

/* bytes in use, or at most while it ran; -1 when not known */
int64_t
cgroup_memory(const char *name)
{
	char		 path[PATH_MAX];
	int64_t		 v;
	int		 h = cg.kind == CG_V1 ? CG_MEM : CG_MAIN;

	if (!cg.memory)
		return (-1);
	if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
	    "memory.usage_in_bytes" : "memory.current") == -1)
		return (-1);
	if ((v = cg_read_bytes(path)) > 0)
		return (v);
	if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
	    "memory.max_usage_in_bytes" : "memory.peak") == -1)
		return (-1);
	return (cg_read_bytes(path));
}

/* "oom_kill N" of memory.events or memory.oom_control; -1: none */
int64_t
cgroup_parse_oom_kill(const char *text)
{
	const char	*p, *errstr;
	char		 num[32];
	size_t		 n;
	long long	 v;

	/* a line of its own: "oom_group_kill" is another count */
	for (p = text; p != NULL && *p != '\0'; ) {
		if (strncmp(p, "oom_kill ", 9) == 0)
			break;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	if (p == NULL || *p == '\0')
		return (-1);
	p += 9;
	if ((n = strcspn(p, "\n")) == 0 || n >= sizeof(num))
		return (-1);
	memcpy(num, p, n);
	num[n] = '\0';
	v = strtonum(num, 0, LLONG_MAX, &errstr);
	return (errstr != NULL ? -1 : v);
}

/* the OOM kills in name's cgroup so far; -1 when not known */
int64_t
cgroup_oom_kills(const char *name)
{
	char	 path[PATH_MAX], buf[1024];
	int	 h = cg.kind == CG_V1 ? CG_MEM : CG_MAIN;

	if (!cg.memory)
		return (-1);
	if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
	    "memory.oom_control" : "memory.events") == -1 ||
	    cg_read(path, buf, sizeof(buf)) == -1)
		return (-1);
	return (cgroup_parse_oom_kill(buf));
}

/*
 * v1 before Linux 4.13 counts no OOM kills, only the times the limit
 * was hit (memory.failcnt): with a SIGKILL nobody sent, the best sign.
 */
int64_t
cgroup_memory_failcnt(const char *name)
{
	char	 path[PATH_MAX];

	if (!cg.memory || cg.kind != CG_V1 || cgroup_path(path, sizeof(path),
	    CG_MEM, name, "memory.failcnt") == -1)
		return (-1);
	return (cg_read_bytes(path));
}

/* the most it used since its cgroup was made; -1 when not known */
int64_t
cgroup_memory_peak(const char *name)
{
	char		 path[PATH_MAX];
	int		 h = cg.kind == CG_V1 ? CG_MEM : CG_MAIN;

	if (!cg.memory)
		return (-1);
	if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
	    "memory.max_usage_in_bytes" : "memory.peak") == -1)
		return (-1);
	return (cg_read_bytes(path));
}

static int
cg_limit(const char *name, int64_t bytes, char *msg, size_t len)
{
	char	 path[PATH_MAX], val[32];
	int	 h = cg.kind == CG_V1 ? CG_MEM : CG_MAIN;

	if (!cg.memory)
		return (0);
	/* set either way: the directory may be a previous start's */
	if (bytes > 0)
		(void)snprintf(val, sizeof(val), "%lld", (long long)bytes);
	else
		(void)strlcpy(val, cg.kind == CG_V1 ? "-1" : "max",
		    sizeof(val));
	if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
	    "memory.limit_in_bytes" : "memory.max") == -1 ||
	    cg_write(path, val) == -1) {
		(void)snprintf(msg, len, "memory limit %s: %s", val,
		    strerror(errno));
		return (-1);
	}
	/* v1 keeps a previous start's peak: this run's is what counts */
	if (cg.kind == CG_V1 && cgroup_path(path, sizeof(path), h, name,
	    "memory.max_usage_in_bytes") == 0)
		(void)cg_write(path, "0");
	return (0);
}

void
cgroup_fds_close(struct cgroup_fds *fds)
{
	int	 i;

	for (i = 0; i < fds->n; i++)
		close(fds->fd[i]);
	fds->n = fds->dir = 0;
}

/*
 * Before fork: the workload's cgroups made (or emptied, when a previous
 * start's could not be removed), its memory limit set and the files the
 * child joins by (v1's tasks, v2's cgroup.procs) opened for it.  1 with
 * cgroups, 0 without any on this host, -1 (and why in msg) when they
 * cannot be made: the workload is not started without the fence the
 * host can give it.
 */
int
cgroup_prepare(const char *name, int64_t memory, const struct wl_limits *lim,
    struct cgroup_fds *fds, char *msg, size_t len)
{
	char		 dir[PATH_MAX], path[PATH_MAX];
	struct stat	 st;
	int		 h, fresh;

	fds->n = fds->dir = 0;
	if (cg.kind == CG_NONE)
		return (0);
	for (h = 0; h < cg.nhier; h++) {
		if (cgroup_path(dir, sizeof(dir), h, name, NULL) == -1)
			goto fail;
		fresh = mkdir(dir, 0755) == 0;
		if (!fresh && errno != EEXIST)
			goto fail;
		/* a name may be one of the cgroup's own files */
		if (lstat(dir, &st) == -1)
			goto fail;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			goto fail;
		}
		if (!fresh && h == CG_MAIN)
			cg_kill_dir(dir);
	}
	if (cg_limit(name, memory, msg, len) == -1) {
		cgroup_fds_close(fds);
		return (-1);
	}
	/* v1: its one thread moves itself, without the global lock */
	for (h = 0; h < cg.nhier; h++) {
		if (cgroup_path(path, sizeof(path), h, name, cg.kind == CG_V1 ?
		    "tasks" : "cgroup.procs") == -1 ||
		    (fds->fd[h] = open(path, O_WRONLY | O_CLOEXEC)) == -1)
			goto fail;
		fds->n++;
	}
	/* cpu, pids, io: v1's hierarchies added to fds, before v2's dir */
	if (cglimit_prepare(name, lim, fds, msg, len) == -1) {
		cgroup_fds_close(fds);
		return (-1);
	}
	/*
	 * v2: the child is made in it, no migration (spawnerd/exec.c
	 * joins the others)
	 */
	if (cg.kind == CG_V2) {
		if (cgroup_path(dir, sizeof(dir), CG_MAIN, name, NULL) == -1 ||
		    (fds->fd[fds->n] = open(dir, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			goto fail;
		fds->n++;
		fds->dir = 1;
	}
	return (1);
 fail:
	(void)snprintf(msg, len, "cgroup %s/%s: %s", cg.base[CG_MAIN], name,
	    strerror(errno));
	cgroup_fds_close(fds);
	return (-1);
}

/* an orchd that runs: the pid of a stale one may be another's by now */
static int
orchd_running(pid_t pid)
{
	char	 path[64], comm[32];

	if (pid == cg.owner)
		return (1);
	if (kill(pid, 0) == -1 && errno != EPERM)
		return (0);
	(void)snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (cg_read(path, comm, sizeof(comm)) == -1)
		return (0);
	return (strcmp(comm, "orchd\n") == 0);
}

/* the workloads' cgroups of a dead orchd, dir (TOP/PID), and dir */
static void
cg_sweep_instance(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		 sub[1][PATH_MAX];
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && n++ < CG_SWEEP_MAX) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    (size_t)snprintf(sub[0], sizeof(sub[0]), "%s/%s", dir,
		    de->d_name) >= sizeof(sub[0]))
			continue;
		if (!cg_empty(sub[0]))
			log_warnx("workload %s: killing what an orchd that "
			    "died left running in its cgroup", de->d_name);
		(void)cg_destroy(sub, 1);
	}
	closedir(d);
	if (rmdir(dir) == -1 && errno != ENOENT)
		log_warn("cannot remove cgroup %s", dir);
}

/*
 * The cgroups under top (a hierarchy's .../orchd) of orchd instances no
 * longer running, in each hierarchy in turn, the main one first: what is
 * left in them is killed there, the others are empty by then.
 */
static void
cg_sweep(const char *top)
{
	DIR		*d;
	struct dirent	*de;
	const char	*errstr;
	char		 dir[PATH_MAX];
	pid_t		 pid;
	int		 n = 0;

	if ((d = opendir(top)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && n++ < CG_SWEEP_MAX) {
		if (de->d_type != DT_DIR)
			continue;
		pid = strtonum(de->d_name, 1, INT_MAX, &errstr);
		if (errstr != NULL || orchd_running(pid) ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", top,
		    de->d_name) >= sizeof(dir))
			continue;
		cg_sweep_instance(dir);
	}
	closedir(d);
}

static int
cg_mkdir(const char *dir)
{
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		log_warn("cgroup %s", dir);
		return (-1);
	}
	return (0);
}

/*
 * v2: controller ctl handed down from the root, point, to each
 * workload's cgroup, as memory is (cglimit.c's cpu, pids and io too).
 */
int
cgroup_v2_enable(const char *point, const char *ctl)
{
	char		 path[PATH_MAX], val[16];
	const char	*dirs[3];
	int		 i;

	dirs[0] = point;
	dirs[1] = cg.top[CG_MAIN];
	dirs[2] = cg.base[CG_MAIN];
	(void)snprintf(val, sizeof(val), "+%s", ctl);
	for (i = 0; i < 3; i++) {
		if ((size_t)snprintf(path, sizeof(path),
		    "%s/cgroup.subtree_control", dirs[i]) >= sizeof(path) ||
		    cg_write(path, val) == -1) {
			log_warn("cgroup %s: %s", dirs[i], val);
			return (-1);
		}
	}
	return (0);
}

/* v1: hierarchy h's .../orchd and .../orchd/PID, or NULL without it */
const char *
cgroup_top(int h)
{
	return (h >= 0 && h < CG_NHIER && cg.base[h][0] != '\0' ?
	    cg.top[h] : NULL);
}

const char *
cgroup_base(int h)
{
	return (h >= 0 && h < CG_NHIER && cg.base[h][0] != '\0' ?
	    cg.base[h] : NULL);
}

/* a hierarchy's own path of ours (orchd's), from /proc/self/cgroup */
static int
cg_own(const char *controller, char *path, size_t len)
{
	FILE	*f;
	char	 line[PATH_MAX + 64];
	int	 r = -1;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return (-1);
	while (r == -1 && fgets(line, sizeof(line), f) != NULL)
		r = cgroup_parse_self(line, controller, path, len);
	fclose(f);
	return (r);
}

struct cg_found {
	struct cg_mount	 v2, v1[CG_NHIER];
	int		 has_v2, has_v1[CG_NHIER], v2_memory;
};

static void
cg_find(struct cg_found *found)
{
	FILE		*f;
	char		 line[PATH_MAX * 2 + 512], path[PATH_MAX], buf[512];
	struct cg_mount	 m;
	int		 h;

	memset(found, 0, sizeof(*found));
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (cgroup_parse_mountinfo(line, &m) == -1)
			continue;
		if (strcmp(m.fstype, "cgroup2") == 0 && !found->has_v2) {
			found->v2 = m;
			found->has_v2 = 1;
		} else if (strcmp(m.fstype, "cgroup") == 0) {
			for (h = 0; h < CG_NHIER; h++)
				if (!found->has_v1[h] &&
				    cgroup_has_word(m.opts, cg_ctl[h])) {
					found->v1[h] = m;
					found->has_v1[h] = 1;
				}
		}
	}
	fclose(f);
	if (found->has_v2 && (size_t)snprintf(path, sizeof(path),
	    "%s/cgroup.controllers", found->v2.point) < sizeof(path) &&
	    cg_read(path, buf, sizeof(buf)) == 0)
		found->v2_memory = cgroup_has_word(buf, "memory");
}

static int
cg_setup_v2(const struct cg_found *found)
{
	char	 path[PATH_MAX];

	cg.kind = CG_V2;
	cg.nhier = 1;
	cg.memory = found->v2_memory;
	if ((size_t)snprintf(cg.top[CG_MAIN], sizeof(cg.top[CG_MAIN]),
	    "%s/%s", found->v2.point, CG_DIR) >= sizeof(cg.top[CG_MAIN]))
		return (-1);
	if (cg_mkdir(cg.top[CG_MAIN]) == -1)
		return (-1);
	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.kill",
	    cg.top[CG_MAIN]) >= sizeof(path))
		return (-1);
	cg.haskill = access(path, W_OK) == 0;
	return (0);
}

/* v1: <mount>/<orchd's own cgroup>/orchd in hierarchy h */
static int
cg_setup_v1_one(int h, const struct cg_mount *m)
{
	char	 own[PATH_MAX], dir[PATH_MAX];

	if (cg_own(cg_ctl[h], own, sizeof(own)) == -1)
		(void)strlcpy(own, "/", sizeof(own));
	if (cgroup_join_path(dir, sizeof(dir), m->point, m->root, own) ==
	    -1 || (size_t)snprintf(cg.top[h], sizeof(cg.top[h]), "%s/%s",
	    dir, CG_DIR) >= sizeof(cg.top[h]) || cg_mkdir(cg.top[h]) == -1) {
		cg.top[h][0] = '\0';
		return (-1);
	}
	return (0);
}

static int
cg_setup_v1(const struct cg_found *found)
{
	int	 h;

	cg.kind = CG_V1;
	cg.nhier = 1;
	if (cg_setup_v1_one(CG_MAIN, &found->v1[CG_MAIN]) == -1)
		return (-1);
	if (found->has_v1[CG_MEM]) {
		if (cg_setup_v1_one(CG_MEM, &found->v1[CG_MEM]) == -1)
			return (-1);
		cg.nhier = 2;
		cg.memory = 1;
	}
	/* for limits: one that fails is a limit said missing, no more */
	for (h = CG_CPU; h < CG_NHIER; h++) {
		/* "cpu,cpuacct" mounted together: joined as cpu */
		if (!found->has_v1[h] || (h == CG_CPUACCT &&
		    cgroup_has_word(found->v1[h].opts, "cpu")))
			continue;
		(void)cg_setup_v1_one(h, &found->v1[h]);
	}
	return (0);
}

/* which cgroups: ORCHD_CGROUP's choice, or the best the host has */
static int
cg_choose(const struct cg_found *found)
{
	const char	*want = getenv("ORCHD_CGROUP");

	if (want != NULL && strcmp(want, "none") == 0)
		return (CG_NONE);
	if (want != NULL && strcmp(want, "v2") == 0)
		return (found->has_v2 ? CG_V2 : CG_NONE);
	if (want != NULL && strcmp(want, "v1") == 0)
		return (found->has_v1[CG_MAIN] ? CG_V1 : CG_NONE);
	if (want != NULL)
		log_warnx("ORCHD_CGROUP=%s: not v1, v2 or none", want);
	if (found->has_v2 && found->v2_memory)
		return (CG_V2);
	if (found->has_v1[CG_MAIN])
		return (CG_V1);
	if (found->has_v2)
		return (CG_V2);
	return (CG_NONE);
}

/*
 * Each hierarchy's orchd/PID, once those of dead orchd are swept: -1
 * where one every workload joins cannot be made; one for limits alone
 * is dropped.
 */
static int
cg_setup_bases(void)
{
	char	 dir[PATH_MAX];
	int	 h;

	for (h = 0; h < CG_NHIER; h++) {
		if (cg.top[h][0] == '\0')
			continue;
		/* through dir: a snprintf from cg into cg may overlap */
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%d", cg.top[h],
		    (int)cg.owner) < sizeof(dir) && strlcpy(cg.base[h], dir,
		    sizeof(cg.base[h])) < sizeof(cg.base[h])) {
			cg_sweep(cg.top[h]);
			if (cg_mkdir(cg.base[h]) == 0)
				continue;
		}
		cg.base[h][0] = '\0';
		if (h < cg.nhier)
			return (-1);
	}
	return (0);
}

/*
 * Once, at the spawner's start, as root: find the cgroups, sweep those
 * of dead orchd, make this one's, named for owner, orchd's pid.
 */
void
cgroup_init(pid_t owner)
{
	struct cg_found	*found;
	int		 kind, r = -1;

	/* cg is zero, as static, and this is called once: not cleared, so
	   its paths' unused pages are never mapped */
	cg.owner = owner;
	if (geteuid() != 0) {
		log_warnx("not root: process workloads are contained by their "
		    "process group only");
		return;
	}
	/*
	 * 60 KiB of mount points, needed only here: on the heap, given
	 * back after, rather than on a stack whose pages stay mapped
	 */
	if ((found = malloc(sizeof(*found))) == NULL)
		fatal("%s", __func__);
	cg_find(found);
	kind = cg_choose(found);
	if (kind == CG_V2)
		r = cg_setup_v2(found);
	else if (kind == CG_V1)
		r = cg_setup_v1(found);
	if (r == 0)
		r = cg_setup_bases();
	if (r == 0 && cg.kind == CG_V2 && cg.memory)
		cg.memory = cgroup_v2_enable(found->v2.point, "memory") == 0;
	if (r == 0)
		cglimit_init(cg.kind == CG_V2 ? found->v2.point : NULL);
	free(found);
	heap_trim();
	if (r == -1) {
		memset(&cg, 0, sizeof(cg));
		cg.owner = owner;
		log_warnx("no cgroups: process workloads are contained by "
		    "their process group only, which setsid leaves");
		return;
	}
	log_info("process workloads in cgroups under %s (v%d%s)",
	    cg.base[CG_MAIN], cg.kind == CG_V1 ? 1 : 2,
	    cg.memory ? ", memory" : ", no memory limit");
}

/* at shutdown, once every workload's cgroup is gone: this orchd's */
void
cgroup_fini(void)
{
	int	 h;

	for (h = 0; h < CG_NHIER && cg.kind != CG_NONE; h++)
		if (cg.base[h][0] != '\0' && rmdir(cg.base[h]) == -1 &&
		    errno != ENOENT)
			log_warn("cannot remove cgroup %s", cg.base[h]);
}
