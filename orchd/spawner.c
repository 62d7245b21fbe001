/*
 * The parent's half of the spawner ("orchd: spawner", spawnerd/): the
 * one process of orchd that forks after start-up, exec'd here at start,
 * before the parent's own seccomp filter, with two channels: requests on
 * its PROC_PARENT_FD, answered there, and its reports (workloads' exits,
 * that it is ready) on SP_EV_FD, read in the parent's event loop.
 *
 * The parent asks it to start a process workload as spawn.c prepared it
 * (IMSG_SP_FD for each descriptor, then IMSG_SP_EXEC, answered
 * IMSG_SP_STARTED), to start the TLS keypair check on a socket
 * (IMSG_SP_KEYCHECK: the program, user and chroot are the spawner's own,
 * given at its start), and to signal what it started while it has not
 * reaped it (IMSG_SP_KILL): the parent signals through here, never by
 * pid itself, so that a signal cannot reach another process that got
 * the pid since.  A workload's cgroup is the spawner's: made at its
 * start, frozen or thawed when asked (IMSG_SP_FREEZE, answered
 * IMSG_SP_FROZEN), read and removed at its exit, whose report carries
 * its OOM kills and memory.  It removes a deleted workload's volumes in
 * a child of its own (IMSG_SP_VOLRM), whose exit comes as a workload's
 * does.
 *
 * The spawner is lost: the daemon ends, as for any child.
 */

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
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

static pid_t		 spawner_child = -1;	/* 0 once reaped */
static struct imsgbuf	 spawner_req;		/* its requests, answered */
static struct imsgev	*spawner_ev;
static void	(*spawner_exit_fn)(const struct sp_exit *);
static int		 spawner_gone;		/* its channels are lost */

static void	spawner_recv_exited(struct imsgev *, struct imsg *);
static void	spawner_recv_ready(struct imsgev *, struct imsg *);
static void	spawner_ev_closed(struct imsgev *);

/* its event channel; its request channel is read in spawner_answer() */
PROC_TABLE_BEGIN
static const struct proc_handler spawner_handlers[] = {
	{ IMSG_SP_EXITED, sizeof(struct sp_exit), PROC_FROM(PROC_PARENT),
	    spawner_recv_exited },
	{ IMSG_SP_READY, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    spawner_recv_ready },
};
PROC_TABLE_END

/*
 * At start, before the parent's filter: argv is spawnerd's command line
 * (orchd.c's procs[]).
 */
void
spawner_start(struct orchd *env, char *const argv[],
    void (*exited)(const struct sp_exit *))
{
	int	 req[2], ev[2], fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ev) == -1)
		fatal("%s: socketpair", __func__);
	fds[0] = req[1];
	fds[1] = ev[1];
	spawner_child = proc_exec(argv, fds, 2);
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
	/* root and unfiltered, but a peer like any: it is PROC_PARENT's half */
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

/* a spawnerd of another build is refused, as any child's */
static void
spawner_recv_ready(struct imsgev *iev, struct imsg *imsg)
{
	uint32_t	 version;

	(void)imsg_get_data(imsg, &version, sizeof(version));
	if (version != ORCHD_IMSG_VERSION)
		fatalx("spawner speaks version %u, orchd %u: mixed "
		    "installation?", version, ORCHD_IMSG_VERSION);
	log_debug("spawner ready");
}

static void
spawner_recv_exited(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_exit	 ex;

	(void)imsg_get_data(imsg, &ex, sizeof(ex));
	if (ex.pid <= 0)
		fatalx("spawner: exit of pid %d", ex.pid);
	/* its cgroup's figures: -1 unknown, else counts and bytes */
	if (ex.oom_kills < -1 || ex.failcnt < -1 || ex.memory < 0)
		fatalx("spawner: exit of pid %d with figures out of bounds",
		    ex.pid);
	/* a volume removal's, else a workload's */
	if (!api_volumes_exited(orchd_env, ex.pid, ex.status))
		spawner_exit_fn(&ex);
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
 * Start a process workload: fds[0] its log pipe, then a socket
 * activation's socket, passed and closed here, failure or not.  The answer says
 * the pid, or the step that failed and its errno.
 */
int
spawner_exec(const struct sp_exec *hdr, char *const argv[],
    char *const envp[], const char *dir, int *fds, int nfds,
    struct sp_started *st)
{
	struct iovec	 iov[2 + SP_ARGV_MAX + SP_ENV_MAX];
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
		if (spawner_send(IMSG_SP_FD, fd, NULL, 0) == -1) {
			while (++i < nfds)
				close(fds[i]);
			goto fail;
		}
	}
	if (spawner_send(IMSG_SP_EXEC, -1, iov, n) == -1 ||
	    spawner_answer(IMSG_SP_STARTED, st, sizeof(*st), -1) == -1)
		goto fail;
	st->why[sizeof(st->why) - 1] = '\0';
	if (st->pid < 0 || (st->cgroup != 0 && st->cgroup != 1))
		fatalx("spawner: answer out of bounds");
	return (st->pid > 0 ? 0 : -1);
 fail:
	st->pid = 0;
	st->step = -1;
	st->err = errno;
	return (-1);
}

/* a child started as type asks, answered STARTED: its pid, or -1 */
static pid_t
spawner_ask(uint32_t type, int fd, const struct iovec *iov, int n)
{
	struct sp_started	 st;

	if (spawner_send(type, fd, iov, n) == -1 ||
	    spawner_answer(IMSG_SP_STARTED, &st, sizeof(st), -1) == -1)
		return (-1);
	if (st.pid <= 0) {
		errno = st.err;
		return (-1);
	}
	return (st.pid);
}

/*
 * A helper (IMSG_SP_KEYCHECK, IMSG_SP_CONFD), on socket fd, which is
 * closed: the spawner runs the program, as the user and in the chroot,
 * it was given at its start.
 */
pid_t
spawner_helper(uint32_t type, int fd)
{
	return (spawner_ask(type, fd, NULL, 0));
}

/*
 * A deleted workload's volumes, removed by a child of the spawner
 * (IMSG_SP_VOLRM): its pid, whose exit comes on the event channel, or
 * -1 with errno
 */
pid_t
spawner_volrm(const struct sp_volrm *r)
{
	struct iovec	 iov;

	iov.iov_base = (void *)r;
	iov.iov_len = sizeof(*r);
	return (spawner_ask(IMSG_SP_VOLRM, -1, &iov, 1));
}

/* a helper's exit, within ms (-1: no bound); -1 on time out */
int
spawner_helper_wait(pid_t pid, int ms, int *status)
{
	struct sp_exit	 ex;

	if (spawner_answer(IMSG_SP_EXITED, &ex, sizeof(ex), ms) == -1)
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
	struct sp_kill	 k;
	struct iovec	 iov;

	memset(&k, 0, sizeof(k));
	k.pid = pid;
	k.sig = sig;
	iov.iov_base = &k;
	iov.iov_len = sizeof(k);
	(void)spawner_send(IMSG_SP_KILL, -1, &iov, 1);
}

/*
 * A workload's cgroup frozen (on 1) or thawed by the spawner, which
 * waits (bounded) for it: 0 once it is, -1 if not (no cgroup, or no
 * freezer in it) or the spawner is gone.
 */
int
spawner_freeze(pid_t pid, int on)
{
	struct sp_freeze	 f;
	struct iovec		 iov;

	memset(&f, 0, sizeof(f));
	f.pid = pid;
	f.on = on;
	iov.iov_base = &f;
	iov.iov_len = sizeof(f);
	if (spawner_send(IMSG_SP_FREEZE, -1, &iov, 1) == -1 ||
	    spawner_answer(IMSG_SP_FROZEN, &f, sizeof(f), -1) == -1)
		return (-1);
	if (f.pid != pid || f.on != on || (f.ok != 0 && f.ok != 1))
		fatalx("spawner: freeze answer out of step");
	return (f.ok ? 0 : -1);
}

/*
 * At shutdown, outside the event loop: the exits reported within ms,
 * each given to the function spawner_start() was given.  -1 once the
 * spawner is gone.
 */
int
spawner_drain(int ms)
{
	const struct proc_handler	*h;
	struct pollfd			 pfd;
	struct imsg			 imsg;
	struct imsgbuf			*ibuf;
	ssize_t				 n;
	int				 r;

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
	/* by the table, as the event loop would */
	while ((n = imsg_get(ibuf, &imsg)) > 0) {
		if ((r = proc_accept(spawner_handlers, nitems(spawner_handlers),
		    PROC_FROM(PROC_PARENT), &imsg, &h)) == PROC_ACCEPTED)
			h->fn(spawner_ev, &imsg);
		else
			log_warnx("spawner: message type %u refused (%d)",
			    imsg_get_type(&imsg), r);
		imsg_free(&imsg);
		if (r != PROC_ACCEPTED) {
			spawner_lost("protocol error");
			return (-1);
		}
	}
	if (n == -1) {
		spawner_lost("bad message header");
		return (-1);
	}
	return (0);
}
