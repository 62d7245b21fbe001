/*
 * The spawner ("orchd: spawner"): the one process of orchd that forks
 * after start-up.  The parent forks it at start, once the configuration
 * is read and before the parent's own seccomp filter, so that nothing it
 * starts inherits that filter: a filter is kept across fork and execve
 * and cannot be undone, and process workloads must run unfiltered.  It
 * stays root, without a filter, and does only this:
 *
 *	fork and exec a process workload as spawn.c prepared it (the
 *	cgroup, the user and groups, setsid, the environment, the log pipe
 *	on stdout and stderr, the directory);
 *	fork and exec the TLS keypair check (keycheck.c) on the socket it
 *	is given;
 *	signal what it started, while it has not reaped it;
 *	reap what it started and report each exit.
 *
 * It trusts the parent alone, over two socketpairs made before fork: on
 * the request channel the parent asks (EXEC, KEYCHECK, KILL) and waits
 * for the answer (STARTED, and a keypair check's EXITED); on the event
 * channel the spawner reports the exits of workloads, which the parent
 * reads in its event loop.  Everything a request holds was checked by the
 * parent (spawn.c: who may run, as whom, where); the spawner adds no
 * policy and reads nothing from the processes it starts but the status
 * pipe of its own fork, which says which step failed before exec.
 *
 * A pid is signalled only while the spawner has not reaped it, so that a
 * signal cannot reach another process that got the pid since: the parent
 * signals through here, never by pid itself.  The group of a workload is
 * killed as its leader is reaped, before the exit is reported.
 *
 * The spawner dies with the parent (PR_SET_PDEATHSIG), and its workloads
 * die with it.  The parent ends when the spawner is lost, as it does for
 * any child.
 */

#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "parent.h"

#define SPAWNER_REQ_FD		3	/* in the spawner: the request channel */
#define SPAWNER_EV_FD		4	/* the event channel */
#define SPAWNER_EXEC_WAIT_MS	2000	/* for a workload to exec */
#define SPAWNER_FDS		(1 + CGROUP_FDS) /* the log, the cgroups */

/* the spawner's own: what it started and has not reaped */
struct started {
	TAILQ_ENTRY(started)	 entry;
	pid_t			 pid;
	int			 keycheck;	/* else a workload */
};
static TAILQ_HEAD(, started)	 started = TAILQ_HEAD_INITIALIZER(started);

/* the parent's side */
static pid_t		 spawner_child = -1;	/* 0 once reaped */
static struct imsgbuf	 spawner_req;		/* its requests, answered */
static struct imsgev	*spawner_ev;
static void	(*spawner_exit_fn)(pid_t, int);
static int		 spawner_gone;		/* its channels are lost */

/* the spawner's: its end of the event channel */
static struct imsgbuf	 sp_ev;

static void	spawner_recv_exited(struct imsgev *, struct imsg *);
static void	spawner_ev_closed(struct imsgev *);

PROC_TABLE_BEGIN
static const struct proc_handler spawner_handlers[] = {
	{ IMSG_SPAWNER_EXITED, sizeof(struct spawner_exit),
	    PROC_FROM(PROC_PARENT), spawner_recv_exited },
};
PROC_TABLE_END

/* what the child did last before giving up, sent with its errno */
const char *
spawner_step_name(int step)
{
	switch (step) {
	case STEP_SETSID:
		return ("setsid");
	case STEP_STDIO:
		return ("standard input and output");
	case STEP_GROUPS:
		return ("setgroups");
	case STEP_GID:
		return ("setresgid");
	case STEP_UID:
		return ("setresuid");
	case STEP_PDEATHSIG:
		return ("prctl");
	case STEP_CHDIR:
		return ("chdir");
	case STEP_CGROUP:
		return ("cgroup");
	default:
		return ("exec");
	}
}

/*
 * ---- In the spawner ------------------------------------------------
 */

/* a request, unpacked: pointers into the message's data */
struct exec_req {
	struct spawner_exec	 hdr;
	char			*argv[SPAWNER_ARGV_MAX + 1];
	char			*envp[SPAWNER_ENV_MAX + 1];
	const char		*dir;
	int			 fds[SPAWNER_FDS];
	int			 nfds;
};

/* in the workload's child: say what failed, in its log and to us, and go */
static __dead void
child_fail(const struct exec_req *r, int fd, int step, const char *what)
{
	struct spawner_started	 st;
	int			 saved = errno;

	dprintf(STDERR_FILENO, "orchd: %s %s: %s\n", spawner_step_name(step),
	    what, strerror(saved));
	memset(&st, 0, sizeof(st));
	st.step = step;
	st.err = saved;
	(void)write(fd, &st, sizeof(st));
	_exit(127);
}

/* stdio on /dev/null and the log, the status pipe on 3 */
static int
child_fds(const struct exec_req *r, int *fdp)
{
	int	 null;

	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, STDIN_FILENO) == -1 ||
	    dup2(r->fds[0], STDOUT_FILENO) == -1 ||
	    dup2(r->fds[0], STDERR_FILENO) == -1)
		return (-1);
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

static __dead void
child_exec(const struct exec_req *r, int fd, pid_t spawner, int joined)
{
	extern char		**environ;
	const struct spawner_exec *h = &r->hdr;
	sigset_t		 none;

	sigemptyset(&none);
	proc_signals_default(&none);
	if (setsid() == -1)
		child_fail(r, fd, STEP_SETSID, h->name);
	/* before child_fds closes the cgroup.procs files, and as root */
	if (!joined && cgroup_join(r->fds + 1, r->nfds - 1 - h->cgdir) == -1)
		child_fail(r, fd, STEP_CGROUP, h->name);
	if (child_fds(r, &fd) == -1)
		child_fail(r, fd, STEP_STDIO, h->name);
	if (h->root) {
		/* none at all for a uid of its own */
		if (setgroups(h->ngroups, h->ngroups > 0 ? h->groups :
		    NULL) == -1)
			child_fail(r, fd, STEP_GROUPS, h->user);
		if (setresgid(h->gid, h->gid, h->gid) == -1)
			child_fail(r, fd, STEP_GID, h->user);
		if (setresuid(h->uid, h->uid, h->uid) == -1)
			child_fail(r, fd, STEP_UID, h->user);
	}
	/* after setresuid, which clears it: die with the spawner */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(r, fd, STEP_PDEATHSIG, "PR_SET_PDEATHSIG");
	if (getppid() != spawner)
		_exit(127);	/* the spawner died before the line above */
	if (chdir(r->dir) == -1)
		child_fail(r, fd, STEP_CHDIR, r->dir);
	/* execvp searches the PATH of environ: make it the workload's */
	environ = (char **)r->envp;
	execvp(r->argv[0], (char *const *)r->argv);
	child_fail(r, fd, STEP_EXEC, r->argv[0]);
}

/* n strings, each ending in NUL, from *p within end */
static int
sp_strings(char **p, char *end, char **v, int n)
{
	char	*nul;
	int	 i;

	for (i = 0; i < n; i++) {
		if (*p >= end || (nul = memchr(*p, '\0', end - *p)) == NULL)
			return (-1);
		v[i] = *p;
		*p = nul + 1;
	}
	v[n] = NULL;
	return (0);
}

static void
sp_reply(int type, const void *data, size_t len)
{
	if (imsg_compose(&spawner_req, type, 0, 0, -1, data, len) == -1 ||
	    imsgbuf_flush(&spawner_req) == -1)
		fatal("spawner: to the parent");
}

static void
sp_track(pid_t pid, int keycheck)
{
	struct started	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		fatal("spawner: calloc");
	s->pid = pid;
	s->keycheck = keycheck;
	TAILQ_INSERT_TAIL(&started, s, entry);
}

/*
 * Wait, bounded, for the child to exec: a closed pipe is an exec.  One
 * that neither execs nor fails in time is taken as started: if it fails
 * later, its exit says so.  One that failed is reaped here.
 */
static void
sp_wait_exec(int fd, pid_t pid, struct spawner_started *st)
{
	struct pollfd	 pfd;
	ssize_t		 n;
	int		 status;

	st->pid = pid;
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, SPAWNER_EXEC_WAIT_MS) <= 0)
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
 * fork(), or on cgroup v2 a child made in its cgroup (cgroup.c says
 * why): *joined says which.  Where clone3 fails (before Linux 5.7, a
 * filter's ENOSYS, a cgroup that refuses it), fork, and the child's
 * write to cgroup.procs says what is wrong, as before.
 */
static pid_t
sp_fork(const struct exec_req *r, int *joined)
{
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	struct clone_args	 ca;
	long			 pid;

	if (r->hdr.cgdir) {
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = r->fds[r->nfds - 1];
		if ((pid = syscall(SYS_clone3, &ca, sizeof(ca))) != -1) {
			*joined = 1;
			return ((pid_t)pid);
		}
		log_debug("spawner: %s: clone3 into its cgroup: %s",
		    r->hdr.name, strerror(errno));
	}
#endif
	*joined = 0;
	return (fork());
}

static void
sp_exec(struct exec_req *r)
{
	struct spawner_started	 st;
	sigset_t		 all, saved;
	pid_t			 pid, self = getpid();
	int			 pfd[2], joined;

	memset(&st, 0, sizeof(st));
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		st.step = STEP_EXEC;
		st.err = errno;
		sp_reply(IMSG_SPAWNER_STARTED, &st, sizeof(st));
		return;
	}
	sigfillset(&all);
	(void)sigprocmask(SIG_BLOCK, &all, &saved);
	switch ((pid = sp_fork(r, &joined))) {
	case -1:
		st.step = STEP_EXEC;
		st.err = errno;
		break;
	case 0:
		close(pfd[0]);
		child_exec(r, pfd[1], self, joined);
	default:
		break;
	}
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	close(pfd[1]);
	if (pid > 0) {
		sp_wait_exec(pfd[0], pid, &st);
		if (st.pid > 0)
			sp_track(pid, 0);
	}
	close(pfd[0]);
	sp_reply(IMSG_SPAWNER_STARTED, &st, sizeof(st));
}

static void
sp_recv_exec(struct imsg *imsg, int *fds, int *nfds)
{
	struct exec_req	 r;
	char		*p, *end, *data;
	size_t		 len = imsg_get_len(imsg);
	int		 i;

	if (len < sizeof(r.hdr) || (data = malloc(len)) == NULL ||
	    imsg_get_data(imsg, data, len) == -1)
		fatalx("spawner: bad EXEC");
	memset(&r, 0, sizeof(r));
	memcpy(&r.hdr, data, sizeof(r.hdr));
	r.hdr.name[sizeof(r.hdr.name) - 1] = '\0';
	r.hdr.user[sizeof(r.hdr.user) - 1] = '\0';
	p = data + sizeof(r.hdr);
	end = data + len;
	if (r.hdr.argc < 1 || r.hdr.argc > SPAWNER_ARGV_MAX ||
	    r.hdr.nenv < 0 || r.hdr.nenv > SPAWNER_ENV_MAX ||
	    r.hdr.ngroups < 0 || r.hdr.ngroups > SPAWN_GROUPS_MAX ||
	    *nfds < 1 || *nfds != r.hdr.nfds ||
	    (r.hdr.cgdir != 0 && (r.hdr.cgdir != 1 || *nfds < 3)) ||
	    sp_strings(&p, end, r.argv, r.hdr.argc) == -1 ||
	    sp_strings(&p, end, r.envp, r.hdr.nenv) == -1 ||
	    p >= end || memchr(p, '\0', end - p) == NULL)
		fatalx("spawner: bad EXEC for %s", r.hdr.name);
	r.dir = p;
	for (i = 0; i < *nfds; i++)
		r.fds[i] = fds[i];
	r.nfds = *nfds;
	sp_exec(&r);
	for (i = 0; i < *nfds; i++)
		close(fds[i]);
	*nfds = 0;
	free(data);
}

/* the keypair check: its socket on TLS_CHECK_FD, nothing else open */
static void
sp_recv_keycheck(struct imsg *imsg)
{
	struct spawner_started	 st;
	char			*argv[SPAWNER_ARGV_MAX + 1], *data, *p;
	size_t			 len = imsg_get_len(imsg);
	sigset_t		 all, saved, none;
	int			 fd, argc = 0;

	if ((fd = imsg_get_fd(imsg)) == -1 || len < 2 ||
	    (data = malloc(len)) == NULL ||
	    imsg_get_data(imsg, data, len) == -1 || data[len - 1] != '\0')
		fatalx("spawner: bad KEYCHECK");
	for (p = data; p < data + len && argc < SPAWNER_ARGV_MAX;
	    p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	memset(&st, 0, sizeof(st));
	sigfillset(&all);
	(void)sigprocmask(SIG_BLOCK, &all, &saved);
	switch ((st.pid = fork())) {
	case -1:
		st.pid = 0;
		st.step = STEP_EXEC;
		st.err = errno;
		break;
	case 0:
		sigemptyset(&none);
		proc_signals_default(&none);
		keycheck_exec(fd, argv);
	default:
		sp_track(st.pid, 1);
		break;
	}
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	close(fd);
	free(data);
	sp_reply(IMSG_SPAWNER_STARTED, &st, sizeof(st));
}

static struct started *
sp_find(pid_t pid)
{
	struct started	*s;

	TAILQ_FOREACH(s, &started, entry)
		if (s->pid == pid)
			return (s);
	return (NULL);
}

/* a workload's group first: a shell's children go too */
static void
sp_recv_kill(struct imsg *imsg)
{
	struct spawner_kill	 k;
	struct started		*s;

	if (imsg_get_data(imsg, &k, sizeof(k)) == -1)
		fatalx("spawner: bad KILL");
	if (k.pid <= 0 || (s = sp_find(k.pid)) == NULL)
		return;		/* reaped: its exit is on its way */
	if (s->keycheck || kill(-s->pid, k.sig) == -1)
		(void)kill(s->pid, k.sig);
}

static void
sp_reap(void)
{
	struct spawner_exit	 ex;
	struct started		*s;
	pid_t			 pid;
	int			 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if ((s = sp_find(pid)) == NULL)
			continue;
		TAILQ_REMOVE(&started, s, entry);
		memset(&ex, 0, sizeof(ex));
		ex.pid = pid;
		ex.status = status;
		if (s->keycheck)
			sp_reply(IMSG_SPAWNER_EXITED, &ex, sizeof(ex));
		else {
			/*
			 * What it left in its group would keep its port;
			 * the group's id is not reused while it has members.
			 */
			(void)kill(-pid, SIGKILL);
			if (imsg_compose(&sp_ev, IMSG_SPAWNER_EXITED, 0, 0,
			    -1, &ex, sizeof(ex)) == -1 ||
			    imsgbuf_flush(&sp_ev) == -1)
				fatal("spawner: exit to the parent");
		}
		free(s);
	}
}

/* one message from the parent; the fds for an EXEC come first */
static void
sp_dispatch(struct imsg *imsg, int *fds, int *nfds)
{
	int	 fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_SPAWNER_FD:
		if ((fd = imsg_get_fd(imsg)) == -1 || *nfds >= SPAWNER_FDS)
			fatalx("spawner: bad FD");
		fds[(*nfds)++] = fd;
		break;
	case IMSG_SPAWNER_EXEC:
		sp_recv_exec(imsg, fds, nfds);
		break;
	case IMSG_SPAWNER_KEYCHECK:
		sp_recv_keycheck(imsg);
		break;
	case IMSG_SPAWNER_KILL:
		sp_recv_kill(imsg);
		break;
	default:
		fatalx("spawner: unexpected message %u",
		    imsg_get_type(imsg));
	}
}

/* the parent's requests, one at a time; false when it is gone */
static int
sp_read(int *fds, int *nfds)
{
	struct imsg	 imsg;
	ssize_t		 n;

	if ((n = imsgbuf_read(&spawner_req)) == -1)
		fatal("spawner: read");
	if (n == 0)
		return (0);	/* end of file */
	for (;;) {
		if ((n = imsg_get(&spawner_req, &imsg)) == -1)
			fatal("spawner: imsg_get");
		if (n == 0)
			break;
		sp_dispatch(&imsg, fds, nfds);
		imsg_free(&imsg);
	}
	return (1);
}

static __dead void
spawner_main(pid_t parent)
{
	struct pollfd		 pfd[2];
	struct signalfd_siginfo	 si;
	sigset_t		 chld;
	int			 fds[SPAWNER_FDS], nfds = 0;

	log_procinit("spawner");
	proc_title("spawner");
	/* die with the parent, and the workloads with us */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fatal("spawner: prctl");
	if (getppid() != parent)
		_exit(1);
	/* orchd -d's ^C is the parent's to handle: it stops us last */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if ((pfd[1].fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) ==
	    -1)
		fatal("spawner: signalfd");
	/* close-on-exec: no workload or check holds our channels */
	if (fcntl(SPAWNER_REQ_FD, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(SPAWNER_EV_FD, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(SPAWNER_REQ_FD, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(SPAWNER_EV_FD, F_SETFL, O_NONBLOCK) == -1 ||
	    imsgbuf_init(&spawner_req, SPAWNER_REQ_FD) == -1 ||
	    imsgbuf_set_maxsize(&spawner_req, ORCHD_IMSG_MAXSIZE) == -1 ||
	    imsgbuf_init(&sp_ev, SPAWNER_EV_FD) == -1)
		fatal("spawner: imsgbuf_init");
	imsgbuf_allow_fdpass(&spawner_req);
	pfd[0].fd = SPAWNER_REQ_FD;
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("spawner: poll");
		}
		if (pfd[1].revents & POLLIN) {
			while (read(pfd[1].fd, &si, sizeof(si)) > 0)
				;
			sp_reap();
		}
		if ((pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !sp_read(fds, &nfds))
			_exit(0);	/* the parent is gone: PDEATHSIG */
	}
}

/*
 * ---- In the parent -------------------------------------------------
 */

/* at start, before the parent's filter and any other child */
void
spawner_start(struct orchd *env, void (*exited)(pid_t, int))
{
	sigset_t	 all, omask;
	pid_t		 parent = getpid();
	int		 req[2], ev[2], fd, fd2;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ev) == -1)
		fatal("%s: socketpair", __func__);
	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, &omask) == -1)
		fatal("%s: sigprocmask", __func__);
	switch ((spawner_child = fork())) {
	case -1:
		fatal("%s: fork", __func__);
	case 0:
		/*
		 * Its two channels on 3 and 4, and nothing else of ours:
		 * each first above whatever is open, so that neither
		 * lands on the other.
		 */
		if ((fd = fcntl(req[1], F_DUPFD, SPAWNER_EV_FD + 1)) == -1 ||
		    (fd2 = fcntl(ev[1], F_DUPFD, SPAWNER_EV_FD + 1)) == -1 ||
		    dup2(fd, SPAWNER_REQ_FD) == -1 ||
		    dup2(fd2, SPAWNER_EV_FD) == -1)
			_exit(1);
		closefrom(SPAWNER_EV_FD + 1);
		sigemptyset(&all);
		sigaddset(&all, SIGCHLD);
		proc_signals_default(&all);
		spawner_main(parent);
	default:
		break;
	}
	if (sigprocmask(SIG_SETMASK, &omask, NULL) == -1)
		fatal("%s: sigprocmask", __func__);
	close(req[1]);
	close(ev[1]);
	if (fcntl(req[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(ev[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	/* a request holds a workload's whole command and environment */
	if (imsgbuf_init(&spawner_req, req[0]) == -1 ||
	    imsgbuf_set_maxsize(&spawner_req, ORCHD_IMSG_MAXSIZE) == -1)
		fatal("%s: imsgbuf_init", __func__);
	imsgbuf_allow_fdpass(&spawner_req);
	/* the spawner is the parent's own half (root, forked, not exec'd) */
	if ((spawner_ev = imsgev_new(&env->ps, ev[0], PROC_PARENT,
	    ORCHD_IMSG_MAXSIZE)) == NULL)
		fatal("%s: imsgev_new", __func__);
	spawner_ev->handlers = spawner_handlers;
	spawner_ev->nhandlers = nitems(spawner_handlers);
	spawner_ev->closed = spawner_ev_closed;
	spawner_exit_fn = exited;
	log_debug("started spawner, pid %d", spawner_child);
}

int
spawner_table_check(char *err, size_t len)
{
	return (proc_table_check(spawner_handlers, nitems(spawner_handlers),
	    err, len));
}

pid_t
spawner_pid(void)
{
	return (spawner_child);
}

int
spawner_running(void)
{
	return (spawner_child > 0 && !spawner_gone);
}

/*
 * The spawner is lost: what it started dies with it (PDEATHSIG), and
 * the daemon ends, as for any child.  Its channels stay open until
 * then: the dispatcher may still hold the event channel.
 */
static void
spawner_lost(const char *why)
{
	struct orchd	*env = orchd_env;

	if (spawner_gone)
		return;
	spawner_gone = 1;
	if (env->shutting_down == 1)
		return;
	log_warnx("lost child: spawner (pid %d): channel: %s",
	    (int)spawner_child, why);
	parent_lost(env);
}

static void
spawner_ev_closed(struct imsgev *iev)
{
	spawner_lost(iev->lost != NULL ? iev->lost : "closed");
}

/* the parent's SIGCHLD: 1 if pid was the spawner */
int
spawner_reaped(pid_t pid, int status)
{
	if (pid != spawner_child || pid <= 0)
		return (0);
	spawner_child = 0;
	if (orchd_env->shutting_down == 1 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGTERM)
		return (1);
	if (WIFSIGNALED(status))
		log_warnx("lost child: spawner (pid %d) killed by signal %d",
		    pid, WTERMSIG(status));
	else
		log_warnx("lost child: spawner (pid %d) exited with status %d",
		    pid, WEXITSTATUS(status));
	if (orchd_env->shutting_down == 0)
		orchd_env->shutting_down = 2;
	return (1);
}

static void
spawner_recv_exited(struct imsgev *iev, struct imsg *imsg)
{
	struct spawner_exit	 ex;

	(void)imsg_get_data(imsg, &ex, sizeof(ex));
	if (ex.pid <= 0)
		fatalx("spawner: exit of pid %d", ex.pid);
	spawner_exit_fn(ex.pid, ex.status);
}

static int
spawner_send(uint32_t type, int fd, const struct iovec *iov, int n)
{
	if (!spawner_running()) {
		if (fd != -1)
			close(fd);
		errno = ESRCH;
		return (-1);
	}
	if (imsg_composev(&spawner_req, type, 0, 0, fd, iov, n) == -1)
		fatal("%s: compose", __func__);
	if (imsgbuf_flush(&spawner_req) == -1) {
		spawner_lost(strerror(errno));
		errno = ESRCH;
		return (-1);
	}
	return (0);
}

/*
 * The next answer on the request channel, within ms (-1: no bound).  0,
 * or -1 on time out or once the spawner is gone.
 */
static int
spawner_answer(uint32_t type, void *buf, size_t len, int ms)
{
	struct pollfd	 pfd;
	struct imsg	 imsg;
	ssize_t		 n;
	int64_t		 end = monotime_ms() + ms;
	int		 left = ms;

	for (;;) {
		if (!spawner_running())
			return (-1);
		if ((n = imsg_get(&spawner_req, &imsg)) == -1)
			fatal("%s: imsg_get", __func__);
		if (n > 0) {
			if (imsg_get_type(&imsg) != type ||
			    imsg_get_len(&imsg) != len)
				fatalx("spawner: unexpected answer %u",
				    imsg_get_type(&imsg));
			(void)imsg_get_data(&imsg, buf, len);
			imsg_free(&imsg);
			return (0);
		}
		if (ms >= 0 && (left = (int)(end - monotime_ms())) <= 0)
			return (-1);
		pfd.fd = spawner_req.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, ms >= 0 ? left : -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("%s: poll", __func__);
		}
		if (pfd.revents == 0)
			continue;
		if ((n = imsgbuf_read(&spawner_req)) <= 0) {
			spawner_lost(n == 0 ? "closed" : strerror(errno));
			return (-1);
		}
	}
}

/*
 * Start a process workload: fds[0] its log pipe, then its cgroup.procs
 * files, all passed and closed here, failure or not.  The answer says
 * the pid, or the step that failed and its errno.
 */
int
spawner_exec(const struct spawner_exec *hdr, char *const argv[],
    char *const envp[], const char *dir, int *fds, int nfds,
    struct spawner_started *st)
{
	struct iovec	 iov[2 + SPAWNER_ARGV_MAX + SPAWNER_ENV_MAX];
	size_t		 total = 0;
	int		 i, n = 0, fd;

	memset(st, 0, sizeof(*st));
	iov[n].iov_base = (void *)hdr;
	iov[n++].iov_len = sizeof(*hdr);
	for (i = 0; i < hdr->argc; i++) {
		iov[n].iov_base = argv[i];
		iov[n++].iov_len = strlen(argv[i]) + 1;
	}
	for (i = 0; i < hdr->nenv; i++) {
		iov[n].iov_base = envp[i];
		iov[n++].iov_len = strlen(envp[i]) + 1;
	}
	iov[n].iov_base = (void *)dir;
	iov[n++].iov_len = strlen(dir) + 1;
	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (total > ORCHD_IMSG_MAXSIZE - IMSG_HEADER_SIZE) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		errno = E2BIG;
		goto fail;
	}
	for (i = 0; i < nfds; i++) {
		/* sent, then closed by the queue: the caller's copy goes */
		fd = fds[i];
		fds[i] = -1;
		if (spawner_send(IMSG_SPAWNER_FD, fd, NULL, 0) == -1) {
			while (++i < nfds)
				close(fds[i]);
			goto fail;
		}
	}
	if (spawner_send(IMSG_SPAWNER_EXEC, -1, iov, n) == -1 ||
	    spawner_answer(IMSG_SPAWNER_STARTED, st, sizeof(*st), -1) == -1)
		goto fail;
	return (st->pid > 0 ? 0 : -1);
 fail:
	st->pid = 0;
	st->step = -1;
	st->err = errno;
	return (-1);
}

/* the keypair check: argv run with fd on TLS_CHECK_FD; fd is closed */
pid_t
spawner_keycheck(char *const argv[], int fd)
{
	struct spawner_started	 st;
	struct iovec		 iov[SPAWNER_ARGV_MAX];
	int			 n;

	for (n = 0; argv[n] != NULL && n < SPAWNER_ARGV_MAX; n++) {
		iov[n].iov_base = argv[n];
		iov[n].iov_len = strlen(argv[n]) + 1;
	}
	if (spawner_send(IMSG_SPAWNER_KEYCHECK, fd, iov, n) == -1 ||
	    spawner_answer(IMSG_SPAWNER_STARTED, &st, sizeof(st), -1) == -1)
		return (-1);
	if (st.pid <= 0) {
		errno = st.err;
		return (-1);
	}
	return (st.pid);
}

/* the keypair check's exit, within ms (-1: no bound); -1 on time out */
int
spawner_keycheck_wait(pid_t pid, int ms, int *status)
{
	struct spawner_exit	 ex;

	if (spawner_answer(IMSG_SPAWNER_EXITED, &ex, sizeof(ex), ms) == -1)
		return (-1);
	if (ex.pid != pid)
		fatalx("spawner: exit of pid %d, not %d", ex.pid, pid);
	*status = ex.status;
	return (0);
}

/* a signal to what the spawner started, unless it has reaped it */
void
spawner_kill(pid_t pid, int sig)
{
	struct spawner_kill	 k;
	struct iovec		 iov;

	memset(&k, 0, sizeof(k));
	k.pid = pid;
	k.sig = sig;
	iov.iov_base = &k;
	iov.iov_len = sizeof(k);
	(void)spawner_send(IMSG_SPAWNER_KILL, -1, &iov, 1);
}

/*
 * At shutdown, outside the event loop: the exits reported within ms,
 * each given to the function spawner_start() was given.  -1 once the
 * spawner is gone.
 */
int
spawner_drain(int ms)
{
	struct pollfd	 pfd;
	struct imsg	 imsg;
	struct spawner_exit ex;
	struct imsgbuf	*ibuf;
	ssize_t		 n;

	if (!spawner_running())
		return (-1);
	ibuf = &spawner_ev->ibuf;
	pfd.fd = ibuf->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, ms) <= 0)
		return (0);
	if ((n = imsgbuf_read(ibuf)) <= 0) {
		spawner_lost(n == 0 ? "closed" : strerror(errno));
		return (-1);
	}
	while ((n = imsg_get(ibuf, &imsg)) > 0) {
		if (imsg_get_type(&imsg) != IMSG_SPAWNER_EXITED ||
		    imsg_get_data(&imsg, &ex, sizeof(ex)) == -1)
			fatalx("spawner: unexpected message %u",
			    imsg_get_type(&imsg));
		imsg_free(&imsg);
		spawner_exit_fn(ex.pid, ex.status);
	}
	if (n == -1) {
		spawner_lost("bad message header");
		return (-1);
	}
	return (0);
}
