/*
 * cgmove: what joining a workload's cgroups costs a wake, by each way
 * issue 33 names, on this host's cgroups, in the same run.  Each round
 * times one child from the start of its fork (or, for a child forked
 * before, from the word that wakes it) until it is in its cgroups and
 * would exec, the part of a wake that waits on the kernel; the ways take
 * turns, a pause of -s ms between rounds (as between wakes: the kernel's
 * lock stays fast for a while after each writer).
 *
 *	procs	the child writes "0" to cgroup.procs in each v1 hierarchy
 *		(freezer, memory), as the spawner did before issue 33
 *	parent	the parent writes the child's pid to cgroup.procs while the
 *		child does the rest of its set-up (setsid, /dev/null on its
 *		standard input), the child waiting for the word "moved"
 *	tasks	the child writes "0" to v1's tasks files: its one thread
 *		moves itself, which the kernel does without its global
 *		threadgroup lock (what the spawner does now)
 *	prefork	a child forked and moved (cgroup.procs) before the round,
 *		waiting on a pipe: timed from the word that wakes it; its
 *		move, off the wake's path, is shown apart
 *	clone3	(with -2 DIR, a v2 hierarchy) clone3(CLONE_INTO_CGROUP)
 *		into a cgroup there, as on v2 hosts
 *
 * Every child checks /proc/self/cgroup names its cgroup in each
 * hierarchy, else the round counts as failed.  The cgroups are made
 * under each hierarchy's root as cgmove.PID and removed at the end.
 * Output: per way, the median, p90, p99 and max in microseconds, and
 * every sample on "raw:" lines.
 *
 *	cgmove [-n rounds] [-s ms] [-2 v2-mount] freezer-mount memory-mount
 */

#define _GNU_SOURCE
#include <sys/param.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS_MAX	5000
#define HIER		2		/* v1: freezer, memory */

enum way { W_PROCS, W_PARENT, W_TASKS, W_PREFORK, W_CLONE3, W_N };
static const char *way_name[W_N] = { "procs", "parent", "tasks",
    "prefork", "clone3" };

static char	 dir[HIER][PATH_MAX];	/* the v1 cgroups */
static char	 dir2[PATH_MAX];	/* the v2 one, with -2 */
static char	 name[64];		/* cgmove.PID */
static int64_t	 samples[W_N][ROUNDS_MAX];
static int64_t	 premove[ROUNDS_MAX];	/* prefork's move, off the path */
static int	 nsamples[W_N], npremove, failed[W_N];

static int64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

static int
open_file(int h, const char *file)
{
	char	 path[PATH_MAX + 32];
	int	 fd;

	(void)snprintf(path, sizeof(path), "%s/%s", dir[h], file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		err(1, "%s", path);
	return (fd);
}

/* every v1 line (and with v2, its "0::" line) names our cgroup */
static int
in_cgroups(int v2)
{
	char	 buf[4096], *line, *save = NULL;
	ssize_t	 n;
	int	 fd, found = 0;

	if ((fd = open("/proc/self/cgroup", O_RDONLY)) == -1)
		return (0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, name) == NULL)
			continue;
		if (v2 ? strncmp(line, "0::", 3) == 0 :
		    (strstr(line, ":freezer:") != NULL ||
		    strstr(line, ":memory:") != NULL))
			found++;
	}
	return (v2 ? found == 1 : found == HIER);
}

/* the set-up a spawned child does besides its cgroups */
static void
child_setup(void)
{
	int	 null;

	(void)setsid();
	if ((null = open("/dev/null", O_RDONLY)) != -1) {
		(void)dup2(null, STDIN_FILENO);
		close(null);
	}
}

/* the child's report: when it was ready, and whether in its cgroups */
struct report {
	int64_t		 at;
	int		 ok;
};

static void __attribute__((noreturn))
child_done(int fd, int v2)
{
	struct report	 r;

	r.at = now_us();
	r.ok = in_cgroups(v2);
	(void)write(fd, &r, sizeof(r));
	_exit(0);
}

static int
child_join(const int *fds)
{
	int	 h;

	for (h = 0; h < HIER; h++)
		if (write(fds[h], "0", 1) != 1)
			return (-1);
	return (0);
}

/* the child's report, its exit, and the sample: -1 if it failed */
static int64_t
collect(int fd, pid_t pid, int64_t t0)
{
	struct report	 r;
	int		 status;

	if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		r.ok = 0;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return (r.ok ? r.at - t0 : -1);
}

static int64_t
round_self(const char *file)
{
	int64_t	 t0, v;
	pid_t	 pid;
	int	 fds[HIER], p[2], h;

	for (h = 0; h < HIER; h++)
		fds[h] = open_file(h, file);
	if (pipe(p) == -1)
		err(1, "pipe");
	t0 = now_us();
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		if (child_join(fds) == -1)
			_exit(1);
		child_setup();
		child_done(p[1], 0);
	}
	close(p[1]);
	v = collect(p[0], pid, t0);
	close(p[0]);
	for (h = 0; h < HIER; h++)
		close(fds[h]);
	return (v);
}

static int64_t
round_parent(void)
{
	char	 pid_s[32], c;
	int64_t	 t0, v;
	pid_t	 pid;
	int	 fds[HIER], p[2], go[2], h, len;

	for (h = 0; h < HIER; h++)
		fds[h] = open_file(h, "cgroup.procs");
	if (pipe(p) == -1 || pipe(go) == -1)
		err(1, "pipe");
	t0 = now_us();
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		close(go[1]);
		child_setup();
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		child_done(p[1], 0);
	}
	close(p[1]);
	close(go[0]);
	len = snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	for (h = 0; h < HIER; h++)
		if (write(fds[h], pid_s, len) != len)
			warn("move %d", (int)pid);
	(void)write(go[1], "m", 1);
	close(go[1]);
	v = collect(p[0], pid, t0);
	close(p[0]);
	for (h = 0; h < HIER; h++)
		close(fds[h]);
	return (v);
}

static int64_t
round_prefork(void)
{
	struct report	 r;
	char		 c;
	int64_t		 t0, v;
	pid_t		 pid;
	int		 fds[HIER], p[2], go[2], moved[2], h;

	for (h = 0; h < HIER; h++)
		fds[h] = open_file(h, "cgroup.procs");
	if (pipe(p) == -1 || pipe(go) == -1 || pipe(moved) == -1)
		err(1, "pipe");
	t0 = now_us();
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		close(go[1]);
		close(moved[0]);
		if (child_join(fds) == -1)
			_exit(1);
		r.at = now_us();
		(void)write(moved[1], &r.at, sizeof(r.at));
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		child_setup();
		child_done(p[1], 0);
	}
	close(p[1]);
	close(go[0]);
	close(moved[1]);
	if (read(moved[0], &r.at, sizeof(r.at)) == (ssize_t)sizeof(r.at) &&
	    npremove < ROUNDS_MAX)
		premove[npremove++] = r.at - t0;
	close(moved[0]);
	usleep(1000);		/* parked, as until a wake comes */
	t0 = now_us();
	(void)write(go[1], "g", 1);
	close(go[1]);
	v = collect(p[0], pid, t0);
	close(p[0]);
	for (h = 0; h < HIER; h++)
		close(fds[h]);
	return (v);
}

static int64_t
round_clone3(void)
{
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	struct clone_args	 ca;
	int64_t			 t0, v;
	long			 pid;
	int			 fd, p[2];

	if ((fd = open(dir2, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		err(1, "%s", dir2);
	if (pipe(p) == -1)
		err(1, "pipe");
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = fd;
	t0 = now_us();
	if ((pid = syscall(SYS_clone3, &ca, sizeof(ca))) == -1)
		err(1, "clone3");
	if (pid == 0) {
		close(p[0]);
		child_setup();
		child_done(p[1], 1);
	}
	close(p[1]);
	v = collect(p[0], (pid_t)pid, t0);
	close(p[0]);
	close(fd);
	return (v);
#else
	return (-1);
#endif
}

static void
sample(enum way w, int64_t v)
{
	if (v < 0)
		failed[w]++;
	else if (nsamples[w] < ROUNDS_MAX)
		samples[w][nsamples[w]++] = v;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y ? -1 : x > y);
}

static int64_t
pctl(int64_t *v, int n, int p)
{
	int	 i = (p * n + 99) / 100;

	if (i < 1)
		i = 1;
	return (v[MIN(i, n) - 1]);
}

static void
report(const char *label, int64_t *v, int n, int nfailed)
{
	int	 i;

	if (n == 0) {
		printf("%-8s no sample (%d failed)\n", label, nfailed);
		return;
	}
	qsort(v, n, sizeof(*v), cmp64);
	printf("%-8s p50 %6lld  p90 %6lld  p99 %6lld  max %6lld us  n %d"
	    "  failed %d\n", label, (long long)pctl(v, n, 50),
	    (long long)pctl(v, n, 90), (long long)pctl(v, n, 99),
	    (long long)v[n - 1], n, nfailed);
	printf("raw: %s us:", label);
	for (i = 0; i < n; i++)
		printf(" %lld", (long long)v[i]);
	printf("\n");
}

static void
cleanup(void)
{
	int	 h;

	for (h = 0; h < HIER; h++)
		if (dir[h][0] != '\0')
			(void)rmdir(dir[h]);
	if (dir2[0] != '\0')
		(void)rmdir(dir2);
}

static void
make_dir(char *buf, size_t len, const char *mount)
{
	if ((size_t)snprintf(buf, len, "%s/%s", mount, name) >= len)
		errx(1, "%s: too long", mount);
	if (mkdir(buf, 0755) == -1)
		err(1, "mkdir %s", buf);
}

static int
number(const char *s, long lo, long hi)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		errx(1, "%s: not a number from %ld to %ld", s, lo, hi);
	return ((int)v);
}

int
main(int argc, char *argv[])
{
	const char	*v2 = NULL;
	int		 ch, i, rounds = 200, pause_ms = 20, w;

	while ((ch = getopt(argc, argv, "2:n:s:")) != -1) {
		switch (ch) {
		case '2':
			v2 = optarg;
			break;
		case 'n':
			rounds = number(optarg, 1, ROUNDS_MAX);
			break;
		case 's':
			pause_ms = number(optarg, 0, 1000);
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != HIER)
		goto usage;
	(void)snprintf(name, sizeof(name), "cgmove.%d", (int)getpid());
	atexit(cleanup);
	make_dir(dir[0], sizeof(dir[0]), argv[0]);
	make_dir(dir[1], sizeof(dir[1]), argv[1]);
	if (v2 != NULL)
		make_dir(dir2, sizeof(dir2), v2);
	for (i = 0; i < rounds; i++) {
		for (w = 0; w < W_N; w++) {
			switch ((w + i) % W_N) {
			case W_PROCS:
				sample(W_PROCS, round_self("cgroup.procs"));
				break;
			case W_PARENT:
				sample(W_PARENT, round_parent());
				break;
			case W_TASKS:
				sample(W_TASKS, round_self("tasks"));
				break;
			case W_PREFORK:
				sample(W_PREFORK, round_prefork());
				break;
			case W_CLONE3:
				if (v2 != NULL)
					sample(W_CLONE3, round_clone3());
				break;
			}
			usleep(pause_ms * 1000);
		}
	}
	for (w = 0; w < W_N; w++)
		if (w != W_CLONE3 || v2 != NULL)
			report(way_name[w], samples[w], nsamples[w], failed[w]);
	report("premove", premove, npremove, 0);
	return (0);
 usage:
	fprintf(stderr, "usage: cgmove [-n rounds] [-s ms] [-2 v2-mount] "
	    "freezer-mount memory-mount\n");
	return (2);
}
