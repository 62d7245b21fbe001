/*
 * spawnerd, "orchd: spawner": the one process of orchd that forks after
 * start-up.  The parent execs it at start, before its own seccomp
 * filter, so that nothing it starts inherits that filter (a filter is
 * kept across fork and execve and cannot be undone, and process
 * workloads run unfiltered), and so that it holds none of the parent's
 * memory.  It stays root, without a filter, chroot or namespace: it must
 * change to any workload's user and exec any workload's command.  It
 * does only this:
 *
 *	fork and exec a process workload as the parent prepared it
 *	(orchd/spawn.c), once it has checked the request again
 *	(check.c): the user and groups, setsid, the environment, the
 *	log pipe on stdout and stderr, the directory, and with socket
 *	activation the listening socket on fd 3 and LISTEN_PID, the pid
 *	it then has;
 *	its cgroup (cgroup.c, cglimit.c): found at our start, where
 *	those of a dead orchd are swept; made for each start with the
 *	memory, cpu, pids and io limits of the request, joined by the
 *	child (or cloned into) through files opened here; frozen and
 *	thawed when the parent asks (runtimed's freeze tier); killed
 *	with SIGKILL; read (OOM kills, limit hits) and removed when the
 *	workload is reaped, the figures in its exit report, with its
 *	memory measured at its first stop signal (pss.c);
 *	fork and exec the TLS keypair check, gatewayd -n, on the socket
 *	it is given, with the program, user and chroot it was started
 *	with (not ones a request names), and likewise confd, which reads
 *	orchd.conf at a reload;
 *	remove a deleted workload's volumes in a child (volrm.c), so
 *	that neither the parent nor the spawner waits for the walk;
 *	signal what it started, while it has not reaped it;
 *	reap what it started and report each exit.
 *
 * Its request channel, on PROC_PARENT_FD, is the parent's alone: the
 * parent asks (FD, EXEC, KEYCHECK, CONFD, KILL, FREEZE, VOLRM) and
 * waits for the answer (STARTED, FROZEN, and a keypair check's EXITED).
 * The cgroups are the spawner's alone: the parent never writes one, and
 * no cgroup descriptor crosses the channel.  On its event channel,
 * SP_EV_FD, it reports the exits of workloads, which the parent reads
 * in its event loop, and says it is ready.  Both dispatch by a table,
 * as every process does (common/proc.c): its own rows on the request
 * channel, none on the event channel.  It reads nothing from the
 * processes it starts but the status pipe of its own fork, which says
 * which step failed before exec, and what the kernel says of them: their
 * cgroups' counts, and without a cgroup /proc's stat and smaps_rollup,
 * read within bounds (a process names itself in its stat: the fields
 * are taken after the last ')').
 *
 * A pid is signalled only while the spawner has not reaped it, so that
 * a signal cannot reach another process that got the pid since.  The
 * group of a workload is killed as its leader is reaped, before the
 * exit is reported.
 *
 * The spawner dies with the parent (PR_SET_PDEATHSIG), and its
 * workloads die with it; what escaped into their cgroups is killed by
 * the next start's sweep.  On the parent's SIGTERM, at shutdown, it
 * removes the cgroups left and this orchd's own.  The parent ends when
 * the spawner is lost, as it does for any child.
 */

#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "spawnexec.h"
#include "spawner.h"
#include "util.h"

/* what it started and has not reaped */
struct started {
	TAILQ_ENTRY(started)	 entry;
	pid_t			 pid;
	int			 keycheck;	/* else a workload */
	int			 cgroup;	/* in a cgroup of its own */
	char			 cgname[SP_CGNAME_MAX];
	int			 frozen;
	int			 signalled;	/* a KILL came */
	int64_t			 memory;	/* at the first KILL */
	int64_t			 oom_base;	/* its cgroup's at start */
	int64_t			 failcnt_base;
};
static TAILQ_HEAD(, started)	 started = TAILQ_HEAD_INITIALIZER(started);

static struct privsep	 sp_ps;
static struct imsgev	*sp_req;	/* the parent's requests */
static struct imsgev	*sp_ev;		/* our reports */
static struct sp_ids	 sp_ids;

/* its options: -u the daemons' ids, -c and -f the keypair check's */
static struct {
	const char	*root;		/* -c: the check's chroot */
	const char	*check;		/* -f: gatewayd */
	const char	*confd;		/* -C: confd */
	int		 debug;		/* -d */
	int		 verbose;	/* -v */
} sp_opts;
static int		 sp_fds[SP_FDS], sp_nfds;

static void	sp_recv_fd(struct imsgev *, struct imsg *);
static void	sp_recv_exec(struct imsgev *, struct imsg *);
static void	sp_recv_keycheck(struct imsgev *, struct imsg *);
static void	sp_recv_confd(struct imsgev *, struct imsg *);
static void	sp_recv_kill(struct imsgev *, struct imsg *);
static void	sp_recv_freeze(struct imsgev *, struct imsg *);
static void	sp_recv_volrm(struct imsgev *, struct imsg *);

PROC_TABLE_BEGIN
static const struct proc_handler spawner_handlers[] = {
	{ IMSG_SP_FD, 0, PROC_FROM(PROC_PARENT), sp_recv_fd },
	{ IMSG_SP_EXEC, PROC_ANYLEN, PROC_FROM(PROC_PARENT), sp_recv_exec,
	    PROC_NAME(struct sp_exec) },
	{ IMSG_SP_KEYCHECK, 0, PROC_FROM(PROC_PARENT), sp_recv_keycheck },
	{ IMSG_SP_CONFD, 0, PROC_FROM(PROC_PARENT), sp_recv_confd },
	{ IMSG_SP_KILL, sizeof(struct sp_kill), PROC_FROM(PROC_PARENT),
	    sp_recv_kill },
	{ IMSG_SP_FREEZE, sizeof(struct sp_freeze), PROC_FROM(PROC_PARENT),
	    sp_recv_freeze },
	{ IMSG_SP_VOLRM, sizeof(struct sp_volrm), PROC_FROM(PROC_PARENT),
	    sp_recv_volrm },
};
PROC_TABLE_END

static __dead void
usage(void)
{
	fprintf(stderr, "usage: %s [-dv] -u uid:gid -c root -f gatewayd "
	    "-C confd\n"
	    "%s is started by orchd(8), not by hand.\n", getprogname(),
	    getprogname());
	exit(1);
}

static struct started *
sp_track(pid_t pid, int keycheck)
{
	struct started	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		fatal("calloc");
	s->pid = pid;
	s->keycheck = keycheck;
	TAILQ_INSERT_TAIL(&started, s, entry);
	return (s);
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

static void
sp_answer(struct imsgev *iev, uint32_t type, const void *data, size_t len)
{
	if (imsgev_compose(iev, type, 0, -1, data, len) == -1)
		fatal("to the parent");
}

static void
sp_close_fds(void)
{
	while (sp_nfds > 0)
		close(sp_fds[--sp_nfds]);
}

/*
 * The descriptors of the next EXEC: the log, a socket activation's
 * socket, then the cgroups
 */
static void
sp_recv_fd(struct imsgev *iev, struct imsg *imsg)
{
	int	 fd;

	if ((fd = imsg_get_fd(imsg)) == -1 || sp_nfds >= SP_PASS_FDS)
		fatalx("FD: none, or more than %d", SP_PASS_FDS);
	sp_fds[sp_nfds++] = fd;
}

/*
 * Its cgroup, made and limited, and the files its child joins by added
 * after the descriptors the parent sent: 1, 0 on a host without
 * cgroups, -1 and why.
 */
static int
sp_cgroup(struct sp_req *r, struct cgroup_fds *cgf, char *why, size_t len)
{
	int	 i, incg;

	incg = cgroup_prepare(r->hdr.cgname, r->hdr.memory, &r->hdr.lim, cgf,
	    why, len);
	for (i = 0; incg > 0 && i < cgf->n && r->nfds < SP_FDS; i++)
		r->fds[r->nfds++] = cgf->fd[i];
	if (incg > 0)
		r->cgdir = cgf->dir;
	return (incg);
}

/* started in its cgroup: its counts from here, the cgroup may be old */
static void
sp_started_cg(struct started *s, const char *cgname)
{
	s->cgroup = 1;
	(void)strlcpy(s->cgname, cgname, sizeof(s->cgname));
	s->oom_base = MAXIMUM(cgroup_oom_kills(cgname), 0);
	s->failcnt_base = MAXIMUM(cgroup_memory_failcnt(cgname), 0);
}

/* the request, checked: started, or st says why not */
static void
sp_run(struct sp_req *r, struct sp_started *st)
{
	struct cgroup_fds	 cgf;
	struct started		*s;
	int			 i, incg;

	for (i = 0; i < sp_nfds; i++)
		r->fds[i] = sp_fds[i];
	r->nfds = sp_nfds;
	memset(&cgf, 0, sizeof(cgf));
	if (sp_check_sock(r, st->why, sizeof(st->why)) == -1) {
		log_warnx("workload %s: refused: %s", r->hdr.name, st->why);
		st->step = SP_STEP_REFUSED;
		st->err = EPERM;
		return;
	}
	if ((incg = sp_cgroup(r, &cgf, st->why, sizeof(st->why))) == -1) {
		st->err = errno != 0 ? errno : EIO;
		st->step = SP_STEP_CGROUP;
		log_warnx("workload %s: %s", r->hdr.name, st->why);
		return;
	}
	if (sp_start(r, st) > 0) {
		s = sp_track(st->pid, 0);
		if (incg > 0)
			sp_started_cg(s, r->hdr.cgname);
		st->cgroup = s->cgroup;
	} else if (incg > 0)
		cgroup_destroy(r->hdr.cgname);	/* made for nothing */
	cgroup_fds_close(&cgf);
}

static void
sp_recv_exec(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_started	 st;
	struct sp_req		 r;
	char			*data;
	size_t			 len = imsg_get_len(imsg);

	memset(&st, 0, sizeof(st));
	if ((data = malloc(len)) == NULL)
		fatal("malloc");
	(void)imsg_get_data(imsg, data, len);
	if (sp_check(&sp_ids, data, len, sp_nfds, &r, st.why,
	    sizeof(st.why)) == -1) {
		log_warnx("workload %s: refused: %s", r.hdr.name, st.why);
		st.step = SP_STEP_REFUSED;
		st.err = EPERM;
	} else
		sp_run(&r, &st);
	sp_close_fds();
	free(data);
	sp_answer(iev, IMSG_SP_STARTED, &st, sizeof(st));
}

/*
 * A helper the parent asks for, on the socket it sends: the program and
 * user are those of our start, never ones a request names.
 */
static void
sp_helper(struct imsgev *iev, struct imsg *imsg, char *const argv[],
    void (*exec)(int, char *const []))
{
	struct sp_started	 st;
	sigset_t		 all, saved, none;
	int			 fd;

	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("a helper without its socket");
	memset(&st, 0, sizeof(st));
	sigfillset(&all);
	(void)sigprocmask(SIG_BLOCK, &all, &saved);
	if ((st.pid = fork()) == 0) {
		sigemptyset(&none);
		proc_signals_default(&none);
		exec(fd, argv);
	}
	if (st.pid == -1) {
		st.pid = 0;
		st.step = SP_STEP_EXEC;
		st.err = errno;
	} else
		sp_track(st.pid, 1);
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	close(fd);
	sp_answer(iev, IMSG_SP_STARTED, &st, sizeof(st));
}

/*
 * The keypair check: gatewayd -n, as the daemons' user in their chroot,
 * all three given at our start; its socket on TLS_CHECK_FD.
 */
static void
sp_recv_keycheck(struct imsgev *iev, struct imsg *imsg)
{
	char	*argv[9], ids[32];
	int	 argc = 0;

	(void)snprintf(ids, sizeof(ids), "%u:%u", (unsigned int)sp_ids.uid,
	    (unsigned int)sp_ids.gid);
	argv[argc++] = (char *)sp_opts.check;
	argv[argc++] = "-n";
	argv[argc++] = "-u";
	argv[argc++] = ids;
	argv[argc++] = "-c";
	argv[argc++] = (char *)sp_opts.root;
	if (sp_opts.debug)
		argv[argc++] = "-d";
	argv[argc] = NULL;
	sp_helper(iev, imsg, argv, keycheck_exec);
}

/* a reload's reading of orchd.conf: confd, as the daemons' user */
static void
sp_recv_confd(struct imsgev *iev, struct imsg *imsg)
{
	char	*argv[10], ids[32];
	int	 argc = 0, v;

	(void)snprintf(ids, sizeof(ids), "%u:%u", (unsigned int)sp_ids.uid,
	    (unsigned int)sp_ids.gid);
	argv[argc++] = (char *)sp_opts.confd;
	argv[argc++] = "-u";
	argv[argc++] = ids;
	if (sp_opts.debug)
		argv[argc++] = "-d";
	for (v = 0; v < sp_opts.verbose && v < 3; v++)
		argv[argc++] = "-v";
	argv[argc] = NULL;
	sp_helper(iev, imsg, argv, confd_exec);
}

/*
 * A workload's group first: a shell's children go too, and with
 * SIGKILL its whole cgroup, which setsid does not leave.  Frozen, it
 * would not see the signal: thawed first.  At the first, while it still
 * runs, its memory is measured: the figure of its exit report.
 */
static void
sp_recv_kill(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_kill	 k;
	struct started	*s;

	(void)imsg_get_data(imsg, &k, sizeof(k));
	if (k.sig <= 0 || k.sig >= NSIG) {
		log_warnx("KILL: signal %d refused", k.sig);
		return;
	}
	if (k.pid <= 0 || (s = sp_find(k.pid)) == NULL)
		return;		/* reaped: its exit is on its way */
	if (s->keycheck) {
		(void)kill(s->pid, k.sig);
		return;
	}
	if (s->frozen && cgroup_freeze(s->cgname, 0) == 0)
		s->frozen = 0;
	/* the peak where the kernel keeps one, else its use now */
	if (!s->signalled && s->cgroup &&
	    (s->memory = cgroup_memory_peak(s->cgname)) <= 0)
		s->memory = MAXIMUM(cgroup_memory(s->cgname), 0);
	else if (!s->signalled && !s->cgroup)
		s->memory = MAXIMUM(sp_group_pss(s->pid), 0);
	s->signalled = 1;
	if (kill(-s->pid, k.sig) == -1)
		(void)kill(s->pid, k.sig);
	if (k.sig == SIGKILL && s->cgroup)
		cgroup_kill(s->cgname);
}

/*
 * runtimed's freeze tier, through the parent: the cgroup of a workload
 * we started and have not reaped or been told to stop, never another;
 * the answer says whether it is in that state now.
 */
static void
sp_recv_freeze(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_freeze	 f;
	struct started		*s;

	(void)imsg_get_data(imsg, &f, sizeof(f));
	if (f.on != 0 && f.on != 1)
		log_warnx("FREEZE: %d refused", f.on);
	else if (f.pid > 0 && (s = sp_find(f.pid)) != NULL &&
	    !s->keycheck && s->cgroup && !s->signalled &&
	    cgroup_freeze(s->cgname, f.on) == 0) {
		s->frozen = f.on;
		f.ok = 1;
		sp_answer(iev, IMSG_SP_FROZEN, &f, sizeof(f));
		return;
	}
	f.ok = 0;
	sp_answer(iev, IMSG_SP_FROZEN, &f, sizeof(f));
}

/*
 * A workload reaped: what it left in its group would keep its port
 * (the group's id is not reused while it has members), what it left in
 * its cgroup too.  Its cgroup's counts are read before it goes.
 */
static void
sp_reaped(struct started *s, struct sp_exit *ex)
{
	int64_t	 n;

	(void)kill(-s->pid, SIGKILL);
	ex->oom_kills = ex->failcnt = -1;
	ex->memory = s->memory;
	if (!s->cgroup)
		return;
	if ((n = cgroup_oom_kills(s->cgname)) >= 0)
		ex->oom_kills = MAXIMUM(n - s->oom_base, 0);
	if ((n = cgroup_memory_failcnt(s->cgname)) >= 0)
		ex->failcnt = MAXIMUM(n - s->failcnt_base, 0);
	cgroup_destroy(s->cgname);
}

/*
 * A deleted workload's volumes, removed in a child of ours (volrm.c):
 * its exit is reported as a workload's, on the event channel
 */
static void
sp_recv_volrm(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_started	 st;
	struct sp_volrm		 r;

	(void)imsg_get_data(imsg, &r, sizeof(r));
	if (volrm_start(&sp_ids, &r, &st) > 0)
		sp_track(st.pid, 0);
	sp_answer(iev, IMSG_SP_STARTED, &st, sizeof(st));
}

static void
sp_reap(int sig, short event, void *arg)
{
	struct sp_exit	 ex;
	struct started	*s;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if ((s = sp_find(pid)) == NULL)
			continue;
		TAILQ_REMOVE(&started, s, entry);
		memset(&ex, 0, sizeof(ex));
		ex.pid = pid;
		ex.status = status;
		if (s->keycheck)
			sp_answer(sp_req, IMSG_SP_EXITED, &ex, sizeof(ex));
		else {
			sp_reaped(s, &ex);
			sp_answer(sp_ev, IMSG_SP_EXITED, &ex, sizeof(ex));
		}
		free(s);
	}
}

/*
 * The parent's SIGTERM, at shutdown, once it reaped its workloads: the
 * cgroups of any left, and this orchd's own, removed; then the death it
 * expects of us.
 */
static void
sp_term(int sig, short event, void *arg)
{
	struct started	*s;

	TAILQ_FOREACH(s, &started, entry)
		if (s->cgroup) {
			cgroup_kill(s->cgname);
			cgroup_destroy(s->cgname);
		}
	cgroup_fini();
	signal(SIGTERM, SIG_DFL);
	(void)raise(SIGTERM);
	_exit(1);
}

/* the parent is gone (PR_SET_PDEATHSIG is on its way), or broke step */
static void
sp_closed(struct imsgev *iev)
{
	if (strcmp(iev->lost, "closed") != 0)
		fatalx("channel to the parent: %s", iev->lost);
	exit(0);
}

static struct imsgev *
sp_channel(int fd, const struct proc_handler *tab, size_t n)
{
	struct imsgev	*iev;

	/* close-on-exec: no workload or check holds our channels */
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		fatal("channel on fd %d", fd);
	if ((iev = imsgev_new(&sp_ps, fd, PROC_PARENT,
	    ORCHD_IMSG_MAXSIZE)) == NULL)
		fatal("imsgev_new");
	iev->handlers = tab;
	iev->nhandlers = n;
	iev->closed = sp_closed;
	return (iev);
}

/* the options orchd starts us with, all of them: -u, -c and -f given */
static void
sp_getopt(int argc, char *argv[])
{
	int	 ch, ids = 0;

	while ((ch = getopt(argc, argv, "C:c:df:u:v")) != -1) {
		switch (ch) {
		case 'C':
			sp_opts.confd = optarg;
			break;
		case 'c':
			sp_opts.root = optarg;
			break;
		case 'd':
			sp_opts.debug = 1;
			break;
		case 'f':
			sp_opts.check = optarg;
			break;
		case 'u':
			if (privdrop_ids(optarg, &sp_ids.uid, &sp_ids.gid) ==
			    -1)
				usage();
			ids = 1;
			break;
		case 'v':
			sp_opts.verbose++;
			break;
		default:
			usage();
		}
	}
	if (!ids || sp_opts.root == NULL || sp_opts.check == NULL ||
	    sp_opts.confd == NULL || optind != argc)
		usage();
}

int
main(int argc, char *argv[])
{
	struct event	 ev_chld, ev_term;
	uint32_t	 version = ORCHD_IMSG_VERSION;
	char		 err[128];

	proc_title_init(argc, argv);
	sp_getopt(argc, argv);
	log_init(sp_opts.debug, LOG_DAEMON);
	log_setverbose(sp_opts.verbose);
	log_procinit("spawner");
	proc_title("spawner");
	/* die with the parent, and the workloads with us */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fatal("prctl");
	/* orchd -d's ^C is the parent's to handle: it stops us last */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sp_ids.root = geteuid() == 0;

	if (proc_table_check(spawner_handlers, nitems(spawner_handlers), err,
	    sizeof(err)) == -1)
		fatalx("spawner's table: %s", err);
	if (event_init() == NULL)
		fatalx("event_init");
	/* the parent's root half: its peer and its id are the parent's */
	sp_ps.id = PROC_PARENT;
	sp_ps.title = "spawner";
	sp_req = sp_channel(PROC_PARENT_FD, spawner_handlers,
	    nitems(spawner_handlers));
	sp_ev = sp_channel(SP_EV_FD, NULL, 0);
	signal_set(&ev_chld, SIGCHLD, sp_reap, NULL);
	signal_add(&ev_chld, NULL);
	signal_set(&ev_term, SIGTERM, sp_term, NULL);
	signal_add(&ev_term, NULL);
	/* the cgroups are named for the parent, orchd, whose pid is known */
	cgroup_init(getppid());
	sp_answer(sp_ev, IMSG_SP_READY, &version, sizeof(version));
	log_debug("spawner: started");
	event_dispatch();
	fatalx("event_dispatch returned");
}
