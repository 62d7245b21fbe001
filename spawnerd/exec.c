/*
 * The start of a process workload, as checked by check.c: fork (on
 * cgroup v2 a clone3 into its cgroup), and in the child its cgroup, a
 * session of its own, /dev/null and the log on its standard input and
 * output, with socket activation its socket on fd 3, its groups, gid
 * and uid, death with the spawner, its directory, and exec with its
 * environment (and LISTEN_PID, its own pid).  A step that fails is
 * written on a status pipe with its errno, which the spawner waits on,
 * bounded, and answers; a pipe closed without a word is an exec.
 */

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "spawnexec.h"
#include "spawner.h"

#define SP_EXEC_WAIT_MS		2000	/* for a workload to exec */

/* in the workload's child: say what failed, in its log and to us, and go */
static __dead void
child_fail(int fd, int step, const char *what)
{
	struct sp_started	 st;
	int			 saved = errno;

	dprintf(STDERR_FILENO, "orchd: %s %s: %s\n", sp_step_name(step),
	    what, strerror(saved));
	memset(&st, 0, sizeof(st));
	st.step = step;
	st.err = saved;
	(void)write(fd, &st, sizeof(st));
	_exit(127);
}

/*
 * Socket activation: the socket on 3, without close-on-exec, the
 * status pipe on 4, with it; both first moved above 4, so that neither
 * dup2 closes the other.
 */
static int
child_sock(const struct sp_req *r, int *fdp)
{
	int	 sock, status;

	if ((sock = fcntl(r->fds[1], F_DUPFD_CLOEXEC, 5)) == -1 ||
	    (status = fcntl(*fdp, F_DUPFD_CLOEXEC, 5)) == -1 ||
	    dup2(sock, 3) == -1 || dup2(status, 4) == -1 ||
	    fcntl(4, F_SETFD, FD_CLOEXEC) == -1)
		return (-1);
	*fdp = 4;
	closefrom(5);
	return (0);
}

/* stdio on /dev/null and the log, the status pipe on 3 (or 4) */
static int
child_fds(const struct sp_req *r, int *fdp)
{
	int	 null;

	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, STDIN_FILENO) == -1 ||
	    dup2(r->fds[0], STDOUT_FILENO) == -1 ||
	    dup2(r->fds[0], STDERR_FILENO) == -1)
		return (-1);
	if (r->hdr.sock)
		return (child_sock(r, fdp));
	if (*fdp != 3) {
		if (dup2(*fdp, 3) == -1)
			return (-1);
		*fdp = 3;
	}
	/* dup2 cleared it: the pipe must close when exec succeeds */
	if (fcntl(3, F_SETFD, FD_CLOEXEC) == -1)
		return (-1);
	closefrom(4);
	return (0);
}

/* into its cgroups by the files opened for it: v1 tasks, v2 cgroup.procs */
static int
child_cgroup(const struct sp_req *r)
{
	int	 i, first = 1 + r->hdr.sock;
	int	 n = r->nfds - first - r->cgdir;

	for (i = 0; i < n; i++)
		if (write(r->fds[first + i], "0", 1) != 1)
			return (-1);
	return (0);
}

static void
child_ids(const struct sp_req *r, int fd)
{
	const struct sp_exec	*h = &r->hdr;

	/* none at all for a uid of its own */
	if (setgroups(h->ngroups, h->ngroups > 0 ? h->groups : NULL) == -1)
		child_fail(fd, SP_STEP_GROUPS, h->user);
	if (setresgid(h->gid, h->gid, h->gid) == -1)
		child_fail(fd, SP_STEP_GID, h->user);
	if (setresuid(h->uid, h->uid, h->uid) == -1)
		child_fail(fd, SP_STEP_UID, h->user);
}

/*
 * Socket activation: LISTEN_PID is the pid that execs, this one, known
 * only after fork; the parent set LISTEN_FDS and LISTEN_FDNAMES.  A
 * LISTEN_PID of the request's own is replaced.
 */
static void
child_listen_pid(const struct sp_req *r)
{
	extern char	**environ;
	static char	 *envp[SP_ENV_MAX + 2];
	static char	  pidvar[32];
	int		  i, n = 0;

	(void)snprintf(pidvar, sizeof(pidvar), "LISTEN_PID=%ld",
	    (long)getpid());
	for (i = 0; i < r->hdr.nenv && r->envp[i] != NULL; i++)
		if (strncmp(r->envp[i], "LISTEN_PID=", 11) != 0)
			envp[n++] = r->envp[i];
	envp[n++] = pidvar;
	envp[n] = NULL;
	environ = envp;
}

static __dead void
child_exec(const struct sp_req *r, int fd, pid_t spawner, int joined)
{
	extern char		**environ;
	sigset_t		 none;

	sigemptyset(&none);
	proc_signals_default(&none);
	if (setsid() == -1)
		child_fail(fd, SP_STEP_SETSID, r->hdr.name);
	/* before child_fds closes the cgroups' files, and as root */
	if (!joined && child_cgroup(r) == -1)
		child_fail(fd, SP_STEP_CGROUP, r->hdr.name);
	if (child_fds(r, &fd) == -1)
		child_fail(fd, SP_STEP_STDIO, r->hdr.name);
	if (r->hdr.root)
		child_ids(r, fd);
	/* after setresuid, which clears it: die with the spawner */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(fd, SP_STEP_PDEATHSIG, "PR_SET_PDEATHSIG");
	if (getppid() != spawner)
		_exit(127);	/* the spawner died before the line above */
	if (chdir(r->dir) == -1)
		child_fail(fd, SP_STEP_CHDIR, r->dir);
	/* execvp searches the PATH of environ: make it the workload's */
	environ = (char **)r->envp;
	if (r->hdr.sock)
		child_listen_pid(r);
	execvp(r->argv[0], (char *const *)r->argv);
	child_fail(fd, SP_STEP_EXEC, r->argv[0]);
}

/*
 * Wait, bounded, for the child to exec: a closed pipe is an exec.  One
 * that neither execs nor fails in time is taken as started: if it fails
 * later, its exit says so.  One that failed is reaped here.
 */
static void
sp_wait_exec(int fd, pid_t pid, struct sp_started *st)
{
	struct pollfd	 pfd;
	ssize_t		 n;
	int		 status;

	st->pid = pid;
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, SP_EXEC_WAIT_MS) <= 0)
		return;
	do {
		n = read(fd, st, sizeof(*st));
	} while (n == -1 && errno == EINTR);
	if (n != (ssize_t)sizeof(*st)) {
		st->pid = pid;
		st->step = st->err = 0;
		return;
	}
	st->pid = 0;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
}

/*
 * fork(), or on cgroup v2 a child made in its cgroup (cgroup.c
 * says why): *joined says which.  Where clone3 fails (before Linux 5.7,
 * a cgroup that refuses it), fork, and the child's write to
 * cgroup.procs says what is wrong.
 */
static pid_t
sp_fork(const struct sp_req *r, int *joined)
{
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	struct clone_args	 ca;
	long			 pid;

	if (r->cgdir) {
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = r->fds[r->nfds - 1];
		if ((pid = syscall(SYS_clone3, &ca, sizeof(ca))) != -1) {
			*joined = 1;
			return ((pid_t)pid);
		}
		log_debug("%s: clone3 into its cgroup: %s", r->hdr.name,
		    strerror(errno));
	}
#endif
	*joined = 0;
	return (fork());
}

/* the workload started, or st says the step that failed and its errno */
pid_t
sp_start(const struct sp_req *r, struct sp_started *st)
{
	sigset_t	 all, saved;
	pid_t		 pid, self = getpid();
	int		 pfd[2], joined;

	memset(st, 0, sizeof(*st));
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		st->step = SP_STEP_EXEC;
		st->err = errno;
		return (0);
	}
	sigfillset(&all);
	(void)sigprocmask(SIG_BLOCK, &all, &saved);
	if ((pid = sp_fork(r, &joined)) == 0) {
		close(pfd[0]);
		child_exec(r, pfd[1], self, joined);
	}
	if (pid == -1) {
		st->step = SP_STEP_EXEC;
		st->err = errno;
	}
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	close(pfd[1]);
	if (pid > 0)
		sp_wait_exec(pfd[0], pid, st);
	close(pfd[0]);
	return (st->pid);
}
