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
 *	(check.c): the cgroup, the user and groups, setsid, the
 *	environment, the log pipe on stdout and stderr, the directory,
 *	and with socket activation the listening socket on fd 3 and
 *	LISTEN_PID, the pid it then has;
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
 * parent asks (FD, EXEC, KEYCHECK, CONFD, KILL, VOLRM) and waits for the answer
 * (STARTED, and a keypair check's EXITED).  On its event channel,
 * SP_EV_FD, it reports the exits of workloads, which the parent reads
 * in its event loop, and says it is ready.  Both dispatch by a table,
 * as every process does (common/proc.c): its own rows on the request
 * channel, none on the event channel.  It reads nothing from the
 * processes it starts but the status pipe of its own fork, which says
 * which step failed before exec.
 *
 * A pid is signalled only while the spawner has not reaped it, so that
 * a signal cannot reach another process that got the pid since.  The
 * group of a workload is killed as its leader is reaped, before the
 * exit is reported.
 *
 * The spawner dies with the parent (PR_SET_PDEATHSIG), and its
 * workloads die with it.  The parent ends when the spawner is lost, as
 * it does for any child.
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

static void
sp_track(pid_t pid, int keycheck)
{
	struct started	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		fatal("calloc");
	s->pid = pid;
	s->keycheck = keycheck;
	TAILQ_INSERT_TAIL(&started, s, entry);
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

	if ((fd = imsg_get_fd(imsg)) == -1 || sp_nfds >= SP_FDS)
		fatalx("FD: none, or more than %d", SP_FDS);
	sp_fds[sp_nfds++] = fd;
}

static void
sp_recv_exec(struct imsgev *iev, struct imsg *imsg)
{
	struct sp_started	 st;
	struct sp_req		 r;
	char			*data, why[128];
	size_t			 len = imsg_get_len(imsg);
	int			 i;

	memset(&st, 0, sizeof(st));
	if ((data = malloc(len)) == NULL)
		fatal("malloc");
	(void)imsg_get_data(imsg, data, len);
	if (sp_check(&sp_ids, data, len, sp_nfds, &r, why,
	    sizeof(why)) == -1) {
		log_warnx("workload %s: refused: %s", r.hdr.name, why);
		st.step = SP_STEP_REFUSED;
		st.err = EPERM;
	} else {
		for (i = 0; i < sp_nfds; i++)
			r.fds[i] = sp_fds[i];
		r.nfds = sp_nfds;
		if (sp_check_sock(&r, why, sizeof(why)) == -1) {
			log_warnx("workload %s: refused: %s", r.hdr.name, why);
			st.step = SP_STEP_REFUSED;
			st.err = EPERM;
		} else if (sp_start(&r, &st) > 0)
			sp_track(st.pid, 0);
	}
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

/* a workload's group first: a shell's children go too */
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
	if (s->keycheck || kill(-s->pid, k.sig) == -1)
		(void)kill(s->pid, k.sig);
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
			/*
			 * What it left in its group would keep its port;
			 * the group's id is not reused while it has members.
			 */
			(void)kill(-pid, SIGKILL);
			sp_answer(sp_ev, IMSG_SP_EXITED, &ex, sizeof(ex));
		}
		free(s);
	}
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
	struct event	 ev_chld;
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
	sp_answer(sp_ev, IMSG_SP_READY, &version, sizeof(version));
	log_debug("spawner: started");
	event_dispatch();
	fatalx("event_dispatch returned");
}
