/*
 * The control socket: orchctl's way in.  Each connection is an imsg
 * channel dispatched through the parent's table, where client requests
 * are marked PROC_FROM_CLIENT; a client that breaks the protocol is
 * dropped, never fatal.  Requests whose answer lives in several processes
 * are fanned out with the connection's id as peerid, and the replies are
 * counted back in before the final END.
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
 * its connection id in peerid as today.  It becomes worth it if the socket is
 * ever opened to a group that is not root.
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
 * setsockopt, bind and listen for the listeners at reload (listen.c);
 * accept4 here, the socket bound before the filter; mkdir, rmdir, openat,
 * getdents64 and write under the cgroup tree and /proc, kill for what
 * cgroup.kill cannot do (cgroup.c, spawn.c); mkdir, fchown, fchmod,
 * rename, pipe2 of the state and log directories and files (statedir.c,
 * logfiles.c, spawn.c); socketpair for the keypair check; sendto to
 * NOTIFY_SOCKET (notify.c); uname for the instance's default name; kill
 * and wait4 of its children.  The list was taken from strace of the
 * parent through the end-to-end tests (regress/e2e/parentsandbox.sh
 * checks that it is filtered); fork, clone, execve, setresuid and the
 * like, chroot, unshare, mount and ptrace are in no promise.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "log.h"
#include "parent.h"
#include "version.h"

#define CONTROL_BACKLOG		16
#define CONTROL_MAX_CONNS	64
#define CONTROL_MONITOR_QUEUE	256	/* events a monitor has not read */

struct ctl_conn {
	TAILQ_ENTRY(ctl_conn)	 entry;
	uint32_t		 id;
	struct imsgev		*iev;
	int			 waiting;	/* replies still expected */
	unsigned int		 items;		/* relayed so far */
	uint32_t		 type;		/* of the request forwarded */
	char			 name[ORCHD_NAME_MAX]; /* asked for, or "" */
	int			 monitor;	/* orchctl monitor: events */
};

static TAILQ_HEAD(, ctl_conn) ctl_conns = TAILQ_HEAD_INITIALIZER(ctl_conns);
static int		 control_fd = -1;
static int		 control_nconns;
static uint32_t		 control_lastid;
static struct event	 control_ev;
static struct event	 control_pause_ev;

static void	control_accept(int, short, void *);

void
control_init(const char *path)
{
	struct sockaddr_un	 sun;
	mode_t			 old_umask;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		fatalx("control socket path too long: %s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		fatal("%s: socket", __func__);

	/* a socket that answers belongs to a running orchd: leave it */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		fatalx("control socket %s is in use: is orchd running?", path);
	if (unlink(path) == -1 && errno != ENOENT)
		fatal("unlink %s", path);

	old_umask = umask(S_IXUSR | S_IRWXG | S_IRWXO);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		fatal("bind control socket %s", path);
	umask(old_umask);
	if (chmod(path, S_IRUSR | S_IWUSR) == -1) {
		unlink(path);
		fatal("chmod %s", path);
	}
	if (listen(fd, CONTROL_BACKLOG) == -1)
		fatal("listen %s", path);
	control_fd = fd;
}

void
control_listen(struct orchd *env)
{
	event_set(&control_ev, control_fd, EV_READ | EV_PERSIST,
	    control_accept, env);
	event_add(&control_ev, NULL);
	evtimer_set(&control_pause_ev, control_accept, env);
}

void
control_cleanup(const char *path)
{
	if (control_fd == -1)
		return;
	close(control_fd);
	control_fd = -1;
	unlink(path);
}

static struct ctl_conn *
control_find(uint32_t id)
{
	struct ctl_conn	*c;

	TAILQ_FOREACH(c, &ctl_conns, entry)
		if (c->id == id)
			return (c);
	return (NULL);
}

static void
control_closed(struct imsgev *iev)
{
	struct ctl_conn	*c = iev->data;

	/* a logs -f under way stops with its client */
	logs_stop(c->id);
	TAILQ_REMOVE(&ctl_conns, c, entry);
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
	/* 0 means "no connection" in peerid; CTL_ID_API is the API's */
	if (++control_lastid == 0 || (control_lastid & CTL_ID_API))
		control_lastid = 1;
	c->id = control_lastid;
	c->iev->data = c;
	c->iev->closed = control_closed;
	TAILQ_INSERT_TAIL(&ctl_conns, c, entry);
	control_nconns++;
}

void
control_reply(uint32_t id, uint32_t type, const void *data, size_t len)
{
	struct ctl_conn	*c;

	if (id & CTL_ID_API) {
		/* a request of the HTTP API, for the gateway */
		api_ctl_reply(id, type, data, len);
		return;
	}
	if ((c = control_find(id)) == NULL)
		return;		/* the client went away */
	if (imsgev_compose(c->iev, type, 0, -1, data, len) == -1)
		log_warn("control reply");
}

void
control_fail(uint32_t id, const char *fmt, ...)
{
	struct ctl_result	 res;
	va_list			 ap;

	memset(&res, 0, sizeof(res));
	res.code = -1;
	va_start(ap, fmt);
	(void)vsnprintf(res.msg, sizeof(res.msg), fmt, ap);
	va_end(ap);
	control_reply(id, IMSG_CTL_FAIL, &res, sizeof(res));
}

/* every request carries the control protocol version in peerid */
static struct ctl_conn *
control_request(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c = iev->data;

	if (imsg_get_id(imsg) != ORCHD_CTL_VERSION) {
		control_fail(c->id, "orchctl speaks control protocol %u, "
		    "orchd %u: use the orchctl installed with orchd",
		    imsg_get_id(imsg), ORCHD_CTL_VERSION);
		return (NULL);
	}
	if (c->waiting > 0) {
		control_fail(c->id, "a request is already under way");
		return (NULL);
	}
	return (c);
}

void
control_show_summary(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct ctl_conn		*c;
	struct ctl_summary	 cs;
	int			 id, i;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	proc_summary(&env->ps, &cs);
	control_reply(c->id, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	for (id = PROC_PARENT + 1; id < PROC_MAX; id++)
		for (i = 0; i < proc_instances(&env->ps, id); i++)
			if (proc_compose_instance(&env->ps, id, i,
			    IMSG_CTL_SHOW_SUMMARY, c->id, -1, NULL, 0) == 0)
				c->waiting++;
	if (c->waiting == 0)
		control_reply(c->id, IMSG_CTL_END, NULL, 0);
}

/* orchctl show version: the daemon's half, the parent's own */
void
control_version(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn		*c;
	struct ctl_version	 cv;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	memset(&cv, 0, sizeof(cv));
	strlcpy(cv.version, ORCHD_VERSION, sizeof(cv.version));
	control_reply(c->id, IMSG_CTL_VERSION, &cv, sizeof(cv));
}

/* a reply item from a child: to the connection named by peerid */
void
control_recv_item(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;

	if ((c = control_find(imsg_get_id(imsg))) == NULL || c->waiting == 0)
		return;
	c->items++;
	control_reply(c->id, imsg_get_type(imsg), imsg->data,
	    imsg_get_len(imsg));
}

void
control_recv_end(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;

	if ((c = control_find(imsg_get_id(imsg))) == NULL || c->waiting == 0)
		return;
	if (--c->waiting > 0)
		return;
	/* a named workload nobody knew (its history may well be empty) */
	if (c->type == IMSG_CTL_SHOW_WORKLOADS && c->name[0] != '\0' &&
	    c->items == 0)
		control_fail(c->id, "no such workload: %s", c->name);
	else
		control_reply(c->id, IMSG_CTL_END, NULL, 0);
}

/* OK or FAIL from the child that carried out a command */
void
control_recv_result(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;

	if ((c = control_find(imsg_get_id(imsg))) == NULL || c->waiting == 0)
		return;
	c->waiting = 0;
	control_reply(c->id, imsg_get_type(imsg), imsg->data,
	    imsg_get_len(imsg));
}

/*
 * Requests answered by one child: the store for what it remembers, the
 * runtime for what changes a workload.  The child answers with items and
 * END, or with OK or FAIL, under the connection's id.
 */
void
control_forward(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct ctl_conn		*c;
	struct ctl_name		 cn;
	enum privsep_procid	 to = PROC_STORE;
	uint32_t		 type = imsg_get_type(imsg);

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	c->items = 0;
	c->type = type;
	c->name[0] = '\0';
	switch (type) {
	case IMSG_CTL_SHOW_WORKLOADS:
	case IMSG_CTL_SHOW_HISTORY:
		memcpy(&cn, imsg->data, sizeof(cn));
		strlcpy(c->name, cn.name, sizeof(c->name));
		break;
	case IMSG_CTL_WAKE:
	case IMSG_CTL_SUSPEND:
	case IMSG_CTL_KEEPWARM:
	case IMSG_CTL_RESTART:
	case IMSG_CTL_PULL:
		to = PROC_RUNTIME;
		break;
	default:
		break;
	}
	if (proc_compose(&env->ps, to, type, c->id, -1, imsg->data,
	    imsg_get_len(imsg)) == -1) {
		control_fail(c->id, "%s is not answering", proc_name(to));
		return;
	}
	c->waiting = 1;
	/* show stats: the memory budget's item and END from the runtime */
	if (type == IMSG_CTL_SHOW_STATS && proc_compose(&env->ps,
	    PROC_RUNTIME, type, c->id, -1, NULL, 0) == 0)
		c->waiting++;
}

/* orchctl logs: the parent reads the log file itself (logs.c) */
void
control_logs(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;
	struct ctl_logs	 cl;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	(void)imsg_get_data(imsg, &cl, sizeof(cl));
	logs_start(c->iev, c->id, &cl);
}

void
control_reload(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;
	char		 err[CTL_MSG_MAX];

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	if (parent_reload(orchd_env, c->id, err, sizeof(err)) == -1)
		control_fail(c->id, "%s", err);
}

void
control_verbose(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;
	int		 v;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	(void)imsg_get_data(imsg, &v, sizeof(v));
	if (v < 0 || v > 3) {
		control_fail(c->id, "verbosity %d out of range", v);
		return;
	}
	parent_set_verbose(orchd_env, v);
	control_reply(c->id, IMSG_CTL_OK, NULL, 0);
}

/*
 * "dependents": the workloads of conf that depend on wc, which only the
 * parent knows whole; none, none said.
 */
static int
definition_dependents(json_t *o, const struct orchd_conf *conf,
    const struct workload_conf *wc)
{
	const struct workload_conf	*w;
	const struct strentry		*e;
	json_t				*a;

	if ((a = json_array()) == NULL)
		return (-1);
	TAILQ_FOREACH(w, &conf->workloads, entry)
		TAILQ_FOREACH(e, &w->depends, entry)
			if (strcmp(e->str, wc->name) == 0 &&
			    json_array_append_new(a, json_string(w->name)) ==
			    -1) {
				json_decref(a);
				return (-1);
			}
	if (json_array_size(a) == 0) {
		json_decref(a);
		return (0);
	}
	return (json_object_set_new(o, "dependents", a));
}

/*
 * The definition as JSON with each env entry cut to its name: values may
 * hold secrets, and orchctl's output ends up in terminals and tickets.
 * NULL if it cannot be made.
 */
static char *
definition_json(const struct orchd_conf *conf, const struct workload_conf *wc)
{
	json_t		*o, *env, *v;
	json_error_t	 jerr;
	char		*json, *name, *eq;
	size_t		 i;

	if ((json = workload_to_json(wc)) == NULL)
		return (NULL);
	o = json_loads(json, 0, &jerr);
	free(json);
	if (o == NULL)
		return (NULL);
	json = NULL;
	env = json_object_get(o, "env");
	json_array_foreach(env, i, v) {
		if ((name = strdup(json_string_value(v) != NULL ?
		    json_string_value(v) : "")) == NULL)
			goto done;
		if ((eq = strchr(name, '=')) != NULL)
			*eq = '\0';
		if (json_array_set_new(env, i, json_string(name)) == -1) {
			free(name);
			goto done;
		}
		free(name);
	}
	if (definition_dependents(o, conf, wc) == -1)
		goto done;
	json = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
 done:
	json_decref(o);
	return (json);
}

/* show workload: its definition, which only the parent holds whole */
void
control_show_definition(struct imsgev *iev, struct imsg *imsg)
{
	struct workload_conf	*wc;
	struct ctl_conn		*c;
	struct ctl_name		 cn;
	char			*json;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	(void)imsg_get_data(imsg, &cn, sizeof(cn));
	TAILQ_FOREACH(wc, &orchd_env->conf->workloads, entry)
		if (strcmp(wc->name, cn.name) == 0)
			break;
	if (wc == NULL) {
		control_fail(c->id, "no such workload: %s", cn.name);
		return;
	}
	if ((json = definition_json(orchd_env->conf, wc)) == NULL) {
		control_fail(c->id, "%s: cannot make its definition",
		    cn.name);
		return;
	}
	/* one message: the parent sent as much to every child */
	if (strlen(json) > IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
		control_fail(c->id, "%s: definition too large", cn.name);
	else {
		control_reply(c->id, IMSG_CTL_DEFINITION, json, strlen(json));
		control_reply(c->id, IMSG_CTL_END, NULL, 0);
	}
	free(json);
}

/*
 * orchctl create, update, delete, keep: the API's queue (parent_api.c) carries
 * them and answers OK or FAIL here.
 */
void
control_change(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;
	struct ctl_name	 cn;

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_CREATE:
		api_ctl_create(orchd_env, c->id, imsg);
		return;
	case IMSG_CTL_UPDATE:
		api_ctl_update(orchd_env, c->id, imsg);
		return;
	default:
		break;
	}
	if (imsg_get_data(imsg, &cn, sizeof(cn)) == -1) {
		control_fail(c->id, "bad request");
		return;
	}
	if (imsg_get_type(imsg) == IMSG_CTL_KEEP)
		api_ctl_keep(orchd_env, c->id, cn.name);
	else
		api_ctl_delete(orchd_env, c->id, cn.name);
}

/*
 * orchctl monitor: every event from now on goes to this connection, for
 * as long as it lasts.  Nothing is answered until the first event.
 */
void
control_monitor(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;

	if ((c = control_request(iev, imsg)) == NULL)
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
	struct ctl_conn	*c, *next;

	TAILQ_FOREACH_SAFE(c, &ctl_conns, entry, next) {
		if (!c->monitor)
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
	if (event_from_state(&ev, &st) == 0)
		control_event(&ev);
}

/* orchctl log reopen: as SIGUSR1, and says if a file could not be */
void
control_log_reopen(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_conn	*c;
	char		 err[CTL_MSG_MAX];

	if ((c = control_request(iev, imsg)) == NULL)
		return;
	if (logfiles_reopen(err, sizeof(err)) == -1)
		control_fail(c->id, "%s", err);
	else
		control_reply(c->id, IMSG_CTL_OK, NULL, 0);
}
