/*
 * The control socket: orchctl's way in.  Each connection is an imsg
 * channel dispatched through the parent's table, where client requests
 * are marked PROC_FROM_CLIENT; a client that breaks the protocol is
 * dropped, never fatal.  Each connection has an id, and a request's
 * asker (struct proc_asker) names it by that id, as PROC_CLIENT: an
 * answer finds the connection when it is sent (control_channel), or is
 * dropped if it has closed.  Requests whose answer lives in other
 * processes are requests in flight (request.c), fanned out under their
 * own id, and the replies are counted back in before the final END.
 *
 * Why the root parent serves it, where relayd and bgpd serve theirs from
 * an unprivileged process: the socket is the parent's own (mode 0600,
 * owned by root), so every client is already root, and most requests are
 * answered from what only the parent holds: the configuration and its
 * reload, the definitions, the API's queue of changes (parent_api.c),
 * the workloads' log files (logs.c), the verbosity.  A child serving it
 * would forward nearly every request here and the parent would parse the
 * same messages, from that child instead of a socket.  Moving it would
 * take: the socket bound here and passed to a child, that child's
 * dispatch table checking each client message as this file does now, and
 * every request that ends in the parent crossing one more channel, with
 * the connection's id for the asker.  It becomes worth it if the socket
 * is ever opened to a group that is not root.
 *
 * The parent's own seccomp filter (sandbox_enter("parent", SB_PARENT) in
 * orchd.c, the promises in common/sandbox.h) binds this file too.  A
 * filter is inherited across fork(2) and execve(2) and cannot be undone,
 * so the spawning moved first: the spawner (spawner.c), forked before the
 * filter and the children, forks and execs the process workloads and, at
 * a reload, the keypair check, signals them while it has not reaped them
 * and reports their exits; the children are started before the filter
 * and are never started again (a change of prefork or user asks for a
 * restart).  The parent keeps, beyond the event loop, imsg and syslog:
 * open/openat/read/close of orchd.conf, the key, certificate and
 * credential files, /etc/passwd and /etc/group and what the name service
 * reads (its modules loaded before the filter, users_preload()); socket,
 * setsockopt, bind and listen for the listeners at reload (listen.c)
 * and for this socket when it is made again (control_check(): socket,
 * connect, unlink, umask, bind, chmod, stat, listen, mkdir of its
 * directory, all already in SB_PARENT for those, so the filter grows by
 * nothing); accept4 here; openat and getdents64 of /proc (owner.c; the
 * workloads' cgroups and memory are the spawner's); mkdir, fchown, fchmod,
 * rename, pipe2 of the state and log directories and files (statedir.c,
 * logfiles.c, spawn.c); socketpair for the keypair check; sendto to
 * NOTIFY_SOCKET (notify.c); uname for the instance's default name; kill
 * and wait4 of its children.  The list was taken from strace of the
 * parent through the end-to-end tests (regress/e2e/parentsandbox.sh
 * checks that it is filtered); fork, clone, execve, setresuid and the
 * like, chroot, unshare, mount and ptrace are in no promise.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <event.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "event_json.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "timer.h"
#include "util.h"
#include "version.h"
#include "schedule.h"
#include "workload.h"

#define CONTROL_BACKLOG		16
#define CONTROL_MAX_CONNS	64
#define CONTROL_MONITOR_QUEUE	256	/* events a monitor has not read */
#define CONTROL_CHECK_MS	5000	/* is the socket still there? */

struct ctl_conn {
	uint32_t		 id;
	struct imsgev		*iev;
	int			 monitor;	/* orchctl monitor: events */
};

/*
 * The connections by slot: a connection's id, which never repeats
 * before 2^32 more, is in the slot id % CONTROL_MAX_CONNS, so that an
 * answer finds its connection without a search, and an answer for one
 * that closed never reaches another.
 */
static struct ctl_conn	*ctl_slots[CONTROL_MAX_CONNS];
static int		 control_fd = -1;
static int		 control_nconns;
static uint32_t		 control_lastid;
static struct event	 control_ev;
static struct event	 control_pause_ev;

static void	control_accept(int, short, void *);
static struct imsgev *control_channel(uint32_t);

/*
 * The socket's path and the inode bound there: an operator or a cleaner
 * of /run that removes or replaces the file would otherwise leave orchd
 * running with no way in but a restart.  control_check() compares them
 * at each reload and every CONTROL_CHECK_MS, and binds it again.
 */
static char		 control_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static dev_t		 control_dev;
static ino_t		 control_ino;
static struct event	 control_check_ev;
static struct orchd	*control_env;	/* set when the loop serves it */
static int		 control_failed; /* the last try to make it again */

/* a new listening socket at path, mode 0600, its inode noted; -1: errno */
static int
control_bind(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	mode_t			 old_umask;
	int			 fd, saved;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path too long: %s",
		    path);
		return (-1);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return (-1);
	}
	/* a socket that answers belongs to a running orchd: leave it */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		snprintf(err, errlen, "control socket %s is in use: is "
		    "another orchd running?", path);
		goto fail;
	}
	if (unlink(path) == -1 && errno != ENOENT) {
		snprintf(err, errlen, "unlink %s: %s", path, strerror(errno));
		goto fail;
	}
	old_umask = umask(S_IXUSR | S_IRWXG | S_IRWXO);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		saved = errno;
		umask(old_umask);
		snprintf(err, errlen, "bind control socket %s: %s", path,
		    strerror(saved));
		goto fail;
	}
	umask(old_umask);
	if (chmod(path, S_IRUSR | S_IWUSR) == -1 ||
	    stat(path, &sb) == -1 || listen(fd, CONTROL_BACKLOG) == -1) {
		snprintf(err, errlen, "control socket %s: %s", path,
		    strerror(errno));
		unlink(path);
		goto fail;
	}
	control_dev = sb.st_dev;
	control_ino = sb.st_ino;
	return (fd);
 fail:
	close(fd);
	return (-1);
}

void
control_init(const char *path)
{
	char	 err[256];

	if (strlcpy(control_path, path, sizeof(control_path)) >=
	    sizeof(control_path))
		fatalx("control socket path too long: %s", path);
	if ((control_fd = control_bind(path, err, sizeof(err))) == -1)
		fatalx("%s", err);
}

/* the directory, if it went too: as statedir_socket() made it */
static void
control_mkdir(const char *path)
{
	char	 tmp[PATH_MAX], *slash;

	if (strlcpy(tmp, path, sizeof(tmp)) >= sizeof(tmp) ||
	    (slash = strrchr(tmp, '/')) == NULL || slash == tmp)
		return;
	*slash = '\0';
	if (mkdir(tmp, 0755) == 0) {
		/* under our umask: orchctl users must reach the socket */
		if (chmod(tmp, 0755) == -1)
			log_warn("chmod %s", tmp);
		log_warnx("control socket directory %s was gone: made again",
		    tmp);
	}
}

/*
 * Is the socket still the one we bound?  If it was removed or replaced,
 * say so loudly and bind a new one in its place; the connections open
 * stay.  A socket there that answers is another process's and is left.
 */
void
control_check(const char *why)
{
	struct stat	 sb;
	char		 err[256];
	const char	*what;
	int		 fd;

	if (control_fd == -1 || control_env == NULL)
		return;
	if (stat(control_path, &sb) == 0) {
		if (sb.st_dev == control_dev && sb.st_ino == control_ino)
			return;
		what = "was replaced";
	} else if (errno == ENOENT)
		what = "was removed";
	else {
		log_warn("control socket %s", control_path);
		return;
	}
	/* once a stretch: a failure is tried again each time, quietly */
	if (!control_failed)
		log_warnx("control socket %s %s (seen at %s): making it "
		    "again", control_path, what, why);
	control_mkdir(control_path);
	if ((fd = control_bind(control_path, err, sizeof(err))) == -1) {
		if (!control_failed)
			log_warnx("control socket not made again: %s; tried "
			    "again every %d s and at SIGHUP", err,
			    CONTROL_CHECK_MS / 1000);
		control_failed = 1;
		return;
	}
	control_failed = 0;
	event_del(&control_ev);
	close(control_fd);
	control_fd = fd;
	event_set(&control_ev, control_fd, EV_READ | EV_PERSIST,
	    control_accept, control_env);
	/* out of descriptors, the pause's end adds it */
	if (!evtimer_pending(&control_pause_ev, NULL))
		event_add(&control_ev, NULL);
	log_warnx("control socket %s made again", control_path);
}

static void
control_check_timer(int fd, short event, void *arg)
{
	control_check("the periodic check");
	evtimer_add_ms(&control_check_ev, CONTROL_CHECK_MS);
}

void
control_listen(struct orchd *env)
{
	control_env = env;
	env->ps.client_channel = control_channel;
	event_set(&control_ev, control_fd, EV_READ | EV_PERSIST,
	    control_accept, env);
	event_add(&control_ev, NULL);
	evtimer_set(&control_pause_ev, control_accept, env);
	evtimer_set(&control_check_ev, control_check_timer, NULL);
	evtimer_add_ms(&control_check_ev, CONTROL_CHECK_MS);
}

void
control_cleanup(const char *path)
{
	struct stat	 sb;

	if (control_fd == -1)
		return;
	close(control_fd);
	control_fd = -1;
	/* only ours: a socket put there since is another's */
	if (stat(path, &sb) == 0 && sb.st_dev == control_dev &&
	    sb.st_ino == control_ino)
		unlink(path);
}

/* proc_reply's way to a connection: its channel, NULL if it is gone */
static struct imsgev *
control_channel(uint32_t id)
{
	struct ctl_conn	*c = ctl_slots[id % CONTROL_MAX_CONNS];

	return (c != NULL && c->id == id ? c->iev : NULL);
}

static void
control_closed(struct imsgev *iev)
{
	struct ctl_conn		*c = iev->data;
	struct proc_asker	 a;

	/* its requests end with it: a logs -f under way stops */
	memset(&a, 0, sizeof(a));
	a.peer = PROC_CLIENT;
	a.id = c->id;
	request_cancel(&a);
	ctl_slots[c->id % CONTROL_MAX_CONNS] = NULL;
	imsgev_free(c->iev);
	free(c);
	control_nconns--;
	/* a slot is free again */
	if (!event_pending(&control_ev, EV_READ, NULL) &&
	    !evtimer_pending(&control_pause_ev, NULL))
		event_add(&control_ev, NULL);
}

static void
control_accept(int fd, short event, void *arg)
{
	struct orchd	*env = arg;
	struct ctl_conn	*c;
	struct timeval	 pause = { 1, 0 };
	int		 s;

	if (event & EV_TIMEOUT) {
		event_add(&control_ev, NULL);
		return;
	}
	if ((s = accept4(control_fd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno == EMFILE || errno == ENFILE) {
			/* out of descriptors: stop accepting a moment */
			event_del(&control_ev);
			evtimer_add(&control_pause_ev, &pause);
		} else if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("control accept");
		return;
	}
	if (control_nconns >= CONTROL_MAX_CONNS) {
		log_warnx("control: too many connections");
		close(s);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->iev = imsgev_new(&env->ps, s, -1,
	    IMSG_MAXSIZE_DEFAULT)) == NULL) {
		log_warn("control accept");
		free(c);
		close(s);
		return;
	}
	/* 0 is no connection; the slot of the next id must be free */
	do {
		if (++control_lastid == 0)
			control_lastid = 1;
	} while (ctl_slots[control_lastid % CONTROL_MAX_CONNS] != NULL);
	c->id = control_lastid;
	c->iev->client = c->id;
	c->iev->data = c;
	c->iev->closed = control_closed;
	ctl_slots[c->id % CONTROL_MAX_CONNS] = c;
	control_nconns++;
}

/*
 * Every request carries the control protocol version in peerid, and a
 * connection has one request answered by a child at a time.  0 with
 * whoever asked in a, or -1 when the request was answered already.
 */
static int
control_request(struct imsgev *iev, struct imsg *imsg, struct proc_asker *a)
{
	struct privsep	*ps = &orchd_env->ps;

	proc_asker(iev, imsg, a);
	if (imsg_get_id(imsg) != ORCHD_CTL_VERSION) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED, "orchctl speaks "
		    "control protocol %u, orchd %u: use the orchctl installed "
		    "with orchd", imsg_get_id(imsg), ORCHD_CTL_VERSION);
		return (-1);
	}
	if (request_busy(a)) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED,
		    "a request is already under way");
		return (-1);
	}
	return (0);
}

void
control_show_summary(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = &orchd_env->ps;
	struct proc_asker	 a;
	struct request		*r;
	struct ctl_summary	 cs;
	int			 id, i;

	if (control_request(iev, imsg, &a) == -1)
		return;
	proc_summary(ps, &cs);
	(void)proc_reply(ps, &a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	/*
	 * The spawner, forked with the parent, has no channel to ask: the
	 * parent knows its pid and the process workloads it runs, and its
	 * generation is the parent's, from whose definitions it starts them.
	 */
	if (spawner_running()) {
		strlcpy(cs.name, "spawner", sizeof(cs.name));
		cs.pid = spawner_pid();
		cs.workloads = spawn_count();
		(void)proc_reply(ps, &a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	}
	/*
	 * acmed and notifyd are not asked either: each may be in the
	 * middle of a request, up to its timeout, and the answer would
	 * wait for it.  Their rows are the parent's: the pid, started with
	 * the rest.
	 */
	for (i = 0; i < orchd_env->nchildren; i++) {
		if (orchd_env->children[i].id < PROC_ACME ||
		    orchd_env->children[i].pid <= 0)
			continue;
		strlcpy(cs.name, proc_name(orchd_env->children[i].id),
		    sizeof(cs.name));
		cs.pid = orchd_env->children[i].pid;
		cs.workloads = 0;
		(void)proc_reply(ps, &a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	}
	if ((r = request_new(&a)) == NULL) {
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED, "out of memory");
		return;
	}
	for (id = PROC_PARENT + 1; id < PROC_ACME; id++)
		for (i = 0; i < proc_instances(ps, id); i++)
			(void)request_send(r, id, i, IMSG_CTL_SHOW_SUMMARY,
			    NULL, 0);
	if (r->waiting == 0) {
		(void)proc_reply_end(ps, &a);
		request_free(r);
	}
}

/* orchctl show version: the daemon's half, the parent's own */
void
control_version(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	struct ctl_version	 cv;

	if (control_request(iev, imsg, &a) == -1)
		return;
	memset(&cv, 0, sizeof(cv));
	strlcpy(cv.version, ORCHD_VERSION, sizeof(cv.version));
	(void)proc_reply(&orchd_env->ps, &a, IMSG_CTL_VERSION, &cv,
	    sizeof(cv));
}

/* show workloads NAME: a name nobody knew (its history may be empty) */
static void
control_named_end(struct request *r)
{
	struct privsep	*ps = &orchd_env->ps;

	if (r->items == 0)
		(void)proc_reply_fail(ps, &r->asker, CTL_ERR_FAILED,
		    "no such workload: %s", r->name);
	else
		(void)proc_reply_end(ps, &r->asker);
}

/*
 * Requests answered by one child: the store for what it remembers, the
 * runtime for what changes a workload.  The child answers with items and
 * END, or with OK or FAIL, under the request's id (request.c).
 */
void
control_forward(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = &orchd_env->ps;
	struct proc_asker	 a;
	struct request		*r;
	struct ctl_name		 cn;
	enum privsep_procid	 to = PROC_STORE;
	uint32_t		 type = imsg_get_type(imsg);

	if (control_request(iev, imsg, &a) == -1)
		return;
	if ((r = request_new(&a)) == NULL) {
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED, "out of memory");
		return;
	}
	switch (type) {
	case IMSG_CTL_SHOW_WORKLOADS:
		memcpy(&cn, imsg->data, sizeof(cn));
		strlcpy(r->name, cn.name, sizeof(r->name));
		if (r->name[0] != '\0')
			r->end = control_named_end;
		break;
	case IMSG_CTL_WAKE:
	case IMSG_CTL_SUSPEND:
	case IMSG_CTL_KEEPWARM:
	case IMSG_CTL_RESTART:
	case IMSG_CTL_PULL:
	case IMSG_CTL_MAINT:
		to = PROC_RUNTIME;
		break;
	default:
		break;
	}
	if (request_send(r, to, 0, type, imsg->data, imsg_get_len(imsg)) ==
	    -1) {
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED,
		    "%s is not answering", proc_name(to));
		request_free(r);
		return;
	}
	/* show stats: the memory budget's item and END from the runtime */
	if (type == IMSG_CTL_SHOW_STATS)
		(void)request_send(r, PROC_RUNTIME, 0, type, NULL, 0);
}

/* orchctl logs: the parent reads the log file itself (logs.c) */
void
control_logs(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	struct ctl_logs		 cl;

	if (control_request(iev, imsg, &a) == -1)
		return;
	(void)imsg_get_data(imsg, &cl, sizeof(cl));
	logs_start(&a, &cl);
}

void
control_reload(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	char			 err[CTL_MSG_MAX];

	if (control_request(iev, imsg, &a) == -1)
		return;
	/* answered once the new configuration runs (config.c) */
	if (parent_reload(orchd_env, a.id, err, sizeof(err)) == -1)
		(void)proc_reply_fail(&orchd_env->ps, &a, CTL_ERR_FAILED,
		    "%s", err);
}

void
control_verbose(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	int			 v;

	if (control_request(iev, imsg, &a) == -1)
		return;
	(void)imsg_get_data(imsg, &v, sizeof(v));
	if (v < 0 || v > 3) {
		(void)proc_reply_fail(&orchd_env->ps, &a, CTL_ERR_FAILED,
		    "verbosity %d out of range", v);
		return;
	}
	parent_set_verbose(orchd_env, v);
	(void)proc_reply_ok(&orchd_env->ps, &a);
}

/*
 * "dependents": the workloads of conf that depend on wc, which only the
 * parent knows whole, each a reply item before the definition.
 */
static void
definition_dependents(const struct proc_asker *a,
    const struct orchd_conf *conf, const struct workload_conf *wc)
{
	const struct workload_conf	*w;
	const struct strentry		*e;
	struct ctl_name			 cn;

	TAILQ_FOREACH(w, &conf->workloads, entry)
		TAILQ_FOREACH(e, &w->depends, entry)
			if (strcmp(e->str, wc->name) == 0) {
				memset(&cn, 0, sizeof(cn));
				strlcpy(cn.name, w->name, sizeof(cn.name));
				(void)proc_reply(&orchd_env->ps, a,
				    IMSG_CTL_DEPENDENT, &cn, sizeof(cn));
				break;
			}
}

/*
 * The definition packed, with each env entry cut to its name: values
 * may hold secrets, and orchctl's output ends up in terminals and
 * tickets.  orchctl writes its JSON: the parent writes none.  NULL if it
 * cannot be made.
 */
static void *
definition_packed(const struct workload_conf *wc, size_t *len)
{
	struct workload_conf	*copy;
	struct strentry		*e;
	void			*def;
	char			 err[CTL_MSG_MAX], *eq;

	if ((def = workload_wire(wc, len)) == NULL)
		return (NULL);
	copy = workload_unwire(def, *len, err, sizeof(err));
	free(def);
	if (copy == NULL)
		return (NULL);
	TAILQ_FOREACH(e, &copy->env, entry)
		if ((eq = strchr(e->str, '=')) != NULL)
			*eq = '\0';
	/* its group's schedules, which orchctl shows (show groups) */
	if (sched_group_fill(copy, &orchd_env->conf->group_scheds) == -1) {
		workload_free(copy);
		return (NULL);
	}
	def = workload_wire(copy, len);
	workload_free(copy);
	return (def);
}

/* show workload: its definition, which only the parent holds whole */
void
control_show_definition(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = &orchd_env->ps;
	struct workload_conf	*wc, *tmp;
	struct proc_asker	 a;
	struct ctl_name		 cn;
	void			*def;
	size_t			 len;

	if (control_request(iev, imsg, &a) == -1)
		return;
	(void)imsg_get_data(imsg, &cn, sizeof(cn));
	if ((wc = pdef_find(orchd_env->conf, cn.name, &tmp)) == NULL) {
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED,
		    "no such workload: %s", cn.name);
		return;
	}
	if ((def = definition_packed(wc, &len)) == NULL) {
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED,
		    "%s: cannot make its definition", cn.name);
		workload_free(tmp);
		return;
	}
	/* one message: the parent sent as much to every child */
	if (len > IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
		(void)proc_reply_fail(ps, &a, CTL_ERR_FAILED,
		    "%s: definition too large", cn.name);
	else {
		definition_dependents(&a, orchd_env->conf, wc);
		(void)proc_reply(ps, &a, IMSG_CTL_DEFINITION, def, len);
		(void)proc_reply_end(ps, &a);
	}
	free(def);
	workload_free(tmp);
}

/*
 * orchctl create, update, delete, keep: the API's queue (parent_api.c) carries
 * them and answers OK or FAIL here.
 */
void
control_change(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	struct ctl_name		 cn;

	if (control_request(iev, imsg, &a) == -1)
		return;
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_CREATE:
		api_ctl_create(orchd_env, &a, imsg);
		return;
	case IMSG_CTL_UPDATE:
		api_ctl_update(orchd_env, &a, imsg);
		return;
	default:
		break;
	}
	if (imsg_get_data(imsg, &cn, sizeof(cn)) == -1) {
		(void)proc_reply_fail(&orchd_env->ps, &a, CTL_ERR_FAILED,
		    "bad request");
		return;
	}
	if (imsg_get_type(imsg) == IMSG_CTL_KEEP)
		api_ctl_keep(orchd_env, &a, cn.name);
	else
		api_ctl_delete(orchd_env, &a, cn.name,
		    imsg_get_type(imsg) == IMSG_CTL_DELETE_VOLUMES);
}

/*
 * orchctl monitor: every event from now on goes to this connection, for
 * as long as it lasts.  Nothing is answered until the first event.
 */
void
control_monitor(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn		*c = iev->data;
	struct proc_asker	 a;

	if (control_request(iev, imsg, &a) == -1)
		return;
	c->monitor = 1;
	log_debug("control: connection %u monitors", c->id);
}

/*
 * An event to every monitor.  A monitor that leaves
 * CONTROL_MONITOR_QUEUE of them unread is dropped, never waited for:
 * the parent's memory is not a slow reader's buffer.
 */
void
control_event(const struct ctl_event *ev)
{
	struct ctl_conn	*c;
	int		 i;

	for (i = 0; i < CONTROL_MAX_CONNS; i++) {
		if ((c = ctl_slots[i]) == NULL || !c->monitor)
			continue;
		if (imsgbuf_queuelen(&c->iev->ibuf) >= CONTROL_MONITOR_QUEUE) {
			log_warnx("control: a monitor left %d events unread: "
			    "dropped", CONTROL_MONITOR_QUEUE);
			control_closed(c->iev);
			continue;
		}
		if (imsgev_compose(c->iev, IMSG_CTL_EVENT, 0, -1, ev,
		    sizeof(*ev)) == -1)
			log_warn("control: event");
	}
}

/* runtimed's changes of state: the ones that are changes are events */
void
control_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state		 st;
	struct ctl_event	 ev;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	hook_state(orchd_env, &st);
	if (event_from_state(&ev, &st) == 0)
		control_event(&ev);
}

/* orchctl log reopen: as SIGUSR1, and says if a file could not be */
void
control_log_reopen(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	char			 err[CTL_MSG_MAX];

	if (control_request(iev, imsg, &a) == -1)
		return;
	if (logfiles_reopen(err, sizeof(err)) == -1)
		(void)proc_reply_fail(&orchd_env->ps, &a, CTL_ERR_FAILED,
		    "%s", err);
	else
		(void)proc_reply_ok(&orchd_env->ps, &a);
}
