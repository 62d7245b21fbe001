/*
 * orchd: the parent.  It reads the configuration, starts the spawner and
 * the children (procs[]: store, gateway, reaper, runtime), wires the
 * children to each other, owns the control socket and supervises: a
 * child that dies takes the whole daemon down, so that rc or systemd
 * restarts a consistent set.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "parent.h"
#include "proc.h"
#include "sandbox.h"
#include "timer.h"
#include "util.h"
#include "version.h"

#define SHUTDOWN_GRACE_MS	5000	/* before children get SIGKILL */
#define FROM_CHILDREN	(PROC_FROM(PROC_STORE) | PROC_FROM(PROC_GATEWAY) | \
			    PROC_FROM(PROC_REAPER) | PROC_FROM(PROC_RUNTIME))
/* acmed too: it takes no configuration, it says it is ready */
#define FROM_ALL	(FROM_CHILDREN | PROC_FROM(PROC_ACME) | \
			    PROC_FROM(PROC_NOTIFY))

struct orchd		*orchd_env;

static void	parent_recv_ready(struct imsgev *, struct imsg *);
static void	parent_channel_closed(struct imsgev *);
static int	reload_config(struct orchd *, uint32_t, char *, size_t);
static __dead void usage(void);

PROC_TABLE_BEGIN
static const struct proc_handler parent_handlers[] = {
	{ IMSG_PROC_READY, sizeof(uint32_t), FROM_ALL, parent_recv_ready },
	{ IMSG_CFG_DONE, sizeof(uint32_t), FROM_CHILDREN, config_recv_done },
	{ IMSG_CFG_RESEND, sizeof(uint32_t),
	    PROC_FROM(PROC_GATEWAY) | PROC_FROM(PROC_RUNTIME) |
	    PROC_FROM(PROC_STORE) | PROC_FROM(PROC_REAPER),
	    config_recv_resend },
	{ IMSG_CTL_SUMMARY, sizeof(struct ctl_summary), FROM_ALL,
	    request_recv, PROC_NAME(struct ctl_summary) },
	{ IMSG_CTL_WORKLOAD, sizeof(struct ctl_workload),
	    PROC_FROM(PROC_STORE), request_recv,
	    PROC_NAME(struct ctl_workload) },
	{ IMSG_CTL_HISTORY, sizeof(struct ctl_transition),
	    PROC_FROM(PROC_STORE), request_recv,
	    PROC_NAME(struct ctl_transition) },
	{ IMSG_CTL_STATS, sizeof(struct ctl_stats), PROC_FROM(PROC_STORE),
	    request_recv, PROC_NAME(struct ctl_stats) },
	{ IMSG_CTL_STORE_QUEUE, sizeof(struct st_queue_stats),
	    PROC_FROM(PROC_STORE), request_recv },
	{ IMSG_CTL_ALOG_QUEUE, sizeof(struct alog_queue_stats),
	    PROC_FROM(PROC_GATEWAY), request_recv },
	{ IMSG_CTL_BUDGET, sizeof(struct rt_budget), PROC_FROM(PROC_RUNTIME),
	    request_recv },
	/* the children's answers to a request of the parent's (request.c) */
	{ IMSG_CTL_END, 0, FROM_ALL, request_recv },
	{ IMSG_CTL_OK, 0, FROM_CHILDREN, request_recv },
	{ IMSG_CTL_FAIL, sizeof(struct ctl_result), FROM_CHILDREN,
	    request_recv },
	{ IMSG_CTL_LOGDATA, PROC_ANYLEN, PROC_FROM(PROC_RUNTIME),
	    request_recv },
	{ IMSG_RT_SPAWN, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    spawn_request, PROC_NAME(struct wl_ref) },
	{ IMSG_RT_KILL, sizeof(struct rt_kill), PROC_FROM(PROC_RUNTIME),
	    spawn_kill, PROC_NAME(struct rt_kill) },
	{ IMSG_RT_FREEZE, sizeof(struct rt_freeze), PROC_FROM(PROC_RUNTIME),
	    spawn_freeze, PROC_NAME(struct rt_freeze) },
	{ IMSG_RT_USE, sizeof(struct rt_use), PROC_FROM(PROC_RUNTIME),
	    usecheck_request, PROC_NAME(struct rt_use) },
	/* "docker labels on": containers made by someone else (labels.c) */
	{ IMSG_RT_LABEL, PROC_ANYLEN, PROC_FROM(PROC_RUNTIME), labels_recv },
	{ IMSG_RT_UNLABEL, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    labels_recv_gone, PROC_NAME(struct wl_ref) },
	/* whose are the listeners on a workload's address (owner.c) */
	{ IMSG_RT_OWNER_ASK, sizeof(struct rt_owner_ask),
	    PROC_FROM(PROC_RUNTIME), owner_request,
	    PROC_NAME(struct rt_owner_ask) },
	{ IMSG_RT_COUNTS, sizeof(struct rt_counts), PROC_FROM(PROC_RUNTIME),
	    notify_recv_counts },
	/* changes of state, for orchctl monitor */
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    control_recv_state, PROC_NAME(struct rt_state) },
	/* the uids of process workloads, from the store at start */
	{ IMSG_ST_UID_ENTRY, sizeof(struct wl_uid), PROC_FROM(PROC_STORE),
	    identity_recv_entry, PROC_NAME(struct wl_uid) },
	{ IMSG_ST_UID_LOAD_END, 0, PROC_FROM(PROC_STORE),
	    identity_recv_load_end },
	/* from orchctl */
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM_CLIENT, control_show_summary },
	{ IMSG_CTL_RELOAD, 0, PROC_FROM_CLIENT, control_reload },
	{ IMSG_CTL_SHOW_VERSION, 0, PROC_FROM_CLIENT, control_version },
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM_CLIENT, control_verbose },
	{ IMSG_CTL_LOG_REOPEN, 0, PROC_FROM_CLIENT, control_log_reopen },
	{ IMSG_CTL_MONITOR, 0, PROC_FROM_CLIENT, control_monitor },
	{ IMSG_CTL_SHOW_WORKLOADS, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SHOW_PAGE, sizeof(struct ctl_page), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_page) },
	{ IMSG_CTL_SHOW_HISTORY, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SHOW_STATS, 0, PROC_FROM_CLIENT, control_forward },
	{ IMSG_CTL_WAKE, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SUSPEND, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_KEEPWARM, sizeof(struct ctl_keepwarm), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_keepwarm) },
	{ IMSG_CTL_RESTART, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_MAINT, sizeof(struct ctl_maint), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_maint) },
	{ IMSG_CTL_LOGS, sizeof(struct ctl_logs), PROC_FROM_CLIENT,
	    control_logs, PROC_NAME(struct ctl_logs) },
	{ IMSG_CTL_SHOW_DEFINITION, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_show_definition, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_PULL, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_forward, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_CREATE, PROC_ANYLEN, PROC_FROM_CLIENT, control_change },
	{ IMSG_CTL_UPDATE, PROC_ANYLEN, PROC_FROM_CLIENT, control_change },
	{ IMSG_CTL_DELETE, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_change, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_DELETE_VOLUMES, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_change, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_KEEP, sizeof(struct ctl_name), PROC_FROM_CLIENT,
	    control_change, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_PULLING, sizeof(struct ctl_pull), PROC_FROM(PROC_RUNTIME),
	    request_recv, PROC_NAME(struct ctl_pull) },
	/* the HTTP API, from the gateway, and its workloads in the store */
	{ IMSG_API_CREATE, PROC_ANYLEN, PROC_FROM(PROC_GATEWAY),
	    api_recv_create },
	{ IMSG_API_DELETE, sizeof(struct ctl_name), PROC_FROM(PROC_GATEWAY),
	    api_recv_delete, PROC_NAME(struct ctl_name) },
	{ IMSG_API_DELETE_VOLUMES, sizeof(struct ctl_name),
	    PROC_FROM(PROC_GATEWAY), api_recv_delete,
	    PROC_NAME(struct ctl_name) },
	{ IMSG_API_UPDATE, PROC_ANYLEN, PROC_FROM(PROC_GATEWAY),
	    api_recv_update, PROC_NAME(struct api_update) },
	/* GET /v1/workloads/{id}/logs, answered as orchctl logs */
	{ IMSG_CTL_LOGS, sizeof(struct ctl_logs), PROC_FROM(PROC_GATEWAY),
	    api_recv_logs, PROC_NAME(struct ctl_logs) },
	{ IMSG_API_LOGS_STOP, 0, PROC_FROM(PROC_GATEWAY),
	    api_recv_logs_stop },
	{ IMSG_API_STORED, sizeof(struct ctl_result), PROC_FROM(PROC_STORE),
	    api_recv_stored },
	{ IMSG_API_DEFINITION, PROC_ANYLEN, PROC_FROM(PROC_STORE),
	    api_recv_definition },
	{ IMSG_API_LOAD_END, 0, PROC_FROM(PROC_STORE), api_recv_load_end },
	{ IMSG_REAP_EXPIRE, sizeof(struct reap_expire), PROC_FROM(PROC_REAPER),
	    api_recv_expire, PROC_NAME(struct reap_expire) },
	{ IMSG_GW_METRICS_ASK, 0, PROC_FROM(PROC_GATEWAY),
	    api_recv_metrics_ask },
	{ IMSG_GW_METRICS_WL, sizeof(struct gw_metrics_wl),
	    PROC_FROM(PROC_GATEWAY), request_recv, PROC_RECORDS1,
	    PROC_NAME(struct gw_metrics_wl) },
	{ IMSG_GW_METRICS_TOTAL, sizeof(struct gw_metrics_total),
	    PROC_FROM(PROC_GATEWAY), request_recv },
	/* ACME: acmed's messages checked and relayed (acme_relay.c) */
	{ IMSG_ACME_WANT, sizeof(struct acme_host), PROC_FROM(PROC_GATEWAY),
	    acme_recv_want, PROC_NAME(struct acme_host) },
	{ IMSG_ACME_CHALLENGE, PROC_ANYLEN, PROC_FROM(PROC_ACME),
	    acme_recv_challenge, PROC_NAME(struct acme_challenge) },
	{ IMSG_ACME_CHALLENGE_END, sizeof(struct acme_challenge),
	    PROC_FROM(PROC_ACME), acme_recv_challenge,
	    PROC_NAME(struct acme_challenge) },
	{ IMSG_ACME_CERT, PROC_ANYLEN, PROC_FROM(PROC_ACME), acme_recv_cert,
	    PROC_NAME(struct acme_cert) },
	{ IMSG_ACME_FAILED, sizeof(struct acme_status), PROC_FROM(PROC_ACME),
	    acme_recv_status, PROC_NAME(struct acme_status) },
	{ IMSG_ACME_STATUS, sizeof(struct acme_status), PROC_FROM(PROC_ACME),
	    acme_recv_status, PROC_NAME(struct acme_status) },
	{ IMSG_ACME_SHOW, 0, PROC_FROM_CLIENT, acme_ctl_show },
	/* notifyd's counters, for /metrics (hook_relay.c) */
	{ IMSG_NOTIFY_STATS, sizeof(struct notify_stats),
	    PROC_FROM(PROC_NOTIFY), hook_recv_stats },
	{ IMSG_ACME_RENEW, sizeof(struct acme_host), PROC_FROM_CLIENT,
	    acme_ctl_renew, PROC_NAME(struct acme_host) },
};
PROC_TABLE_END

static __dead void
usage(void)
{
	fprintf(stderr, "usage: %s [-dnVv] [-D macro=value] [-f file]\n",
	    getprogname());
	exit(1);
}

int
parent_children_alive(struct orchd *env)
{
	int	 i, n = 0;

	for (i = 0; i < env->nchildren; i++)
		if (env->children[i].pid > 0)
			n++;
	if (spawner_pid() > 0)
		n++;
	return (n);
}

/* "gateway 2" when there are several, as they call themselves */
static const char *
child_name(struct orchd *env, const struct child *ch)
{
	static char	 buf[32];

	if (ch->id != PROC_GATEWAY || env->conf->gateway.prefork == 1)
		return (proc_name(ch->id));
	snprintf(buf, sizeof(buf), "%s %d", proc_name(ch->id), ch->instance);
	return (buf);
}

/*
 * Where a helper lives: beside our executable (a build tree), in
 * ../libexec/orchd from it (an installed tree, wherever DESTDIR put it),
 * or LIBEXECDIR.
 */
void
helper_path(struct orchd *env, const char *name, char *buf, size_t len)
{
	char	 dir[PATH_MAX];

	strlcpy(dir, env->self, sizeof(dir));
	snprintf(buf, len, "%s/%s", dirname(dir), name);
	if (access(buf, X_OK) == 0)
		return;
	strlcpy(dir, env->self, sizeof(dir));
	snprintf(buf, len, "%s/../libexec/orchd/%s", dirname(dir), name);
	if (access(buf, X_OK) == 0)
		return;
	snprintf(buf, len, "%s/%s", LIBEXECDIR, name);
}

static char *
database_dir(const char *database, char *buf, size_t len)
{
	char	 tmp[PATH_MAX];

	strlcpy(tmp, database, sizeof(tmp));
	strlcpy(buf, dirname(tmp), len);
	return (buf);
}

/*
 * runtimed holds the Docker socket, and no other process does.  It is
 * given the socket's path, symbolic links resolved (/var/run is /run on
 * Debian), and the chroot directory; its root is then an empty read-only
 * file system on that directory, with the socket's directory bound
 * read-only at its own path (privdrop_sockdir() in common/privdrop.c).
 * Its one supplementary group is the socket's, so that it can connect as
 * the unprivileged user.  This is done whether docker workloads are
 * configured or not: a reload or the API can add one, and a root
 * directory cannot change after start.  A socket that is not there yet
 * (the daemon starts later) is fine: its directory is resolved alone and
 * the group is the one named "docker".  Never group root.
 */
static void
docker_access(struct orchd *env, char *sock, size_t socklen, gid_t *gid)
{
	struct stat	 st;
	struct group	*gr;
	char		 tmp[PATH_MAX], dir[PATH_MAX];

	*gid = (gid_t)-1;
	if (realpath(env->conf->docker_socket, sock) == NULL) {
		strlcpy(tmp, env->conf->docker_socket, sizeof(tmp));
		if (realpath(dirname(tmp), dir) == NULL) {
			log_warnx("docker socket %s: %s: docker workloads "
			    "cannot start", env->conf->docker_socket,
			    strerror(errno));
			strlcpy(sock, env->conf->docker_socket, socklen);
			return;
		}
		strlcpy(tmp, env->conf->docker_socket, sizeof(tmp));
		strlcpy(sock, strcmp(dir, "/") == 0 ? "" : dir, socklen);
		strlcat(sock, "/", socklen);
		strlcat(sock, basename(tmp), socklen);
	}
	if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode))
		*gid = st.st_gid;
	else if ((gr = users_getgrnam("docker")) != NULL)
		*gid = gr->gr_gid;
	if (*gid == 0) {
		log_warnx("docker socket %s belongs to group root: runtimed "
		    "is not given it", sock);
		*gid = (gid_t)-1;
	}
}

/*
 * The processes the parent starts, in this order, each exec'd with its
 * options (proc_args) and nothing else of ours.  A row says its program
 * (in LIBEXECDIR, or beside orchd in a build tree), whose user it runs
 * as (it is given the configured user's ids with -u: a child drops to
 * them, the spawner stays root and refuses them to workloads), its root
 * directory (-c), how many run, and the options of its own.
 */
#define PROCS_SPAWNER	-1		/* not a PROC_*: its channels are
					   spawner.c's, not env->ps's */
#define PROC_ARGS_MAX	16

enum procs_user { PROCS_USER, PROCS_ROOT };
enum procs_root { PROCS_CHROOT, PROCS_DBDIR, PROCS_NOROOT, PROCS_ACMEDIR,
    PROCS_NOTIFYDIR };

struct proc_args {
	char		*argv[PROC_ARGS_MAX + 1];
	char		 buf[PROC_ARGS_MAX][PATH_MAX];
	int		 argc;
};

struct procs_row {
	const char	*name;		/* as ps shows it: orchd: NAME */
	int		 id;		/* enum privsep_procid, PROCS_SPAWNER */
	const char	*program;
	enum procs_user	 user;
	enum procs_root	 root;		/* its -c */
	int		 prefork;	/* "prefork" of them, else one */
	void		(*args)(struct orchd *, struct proc_args *, int);
};

static void	spawner_args(struct orchd *, struct proc_args *, int);
static void	store_args(struct orchd *, struct proc_args *, int);
static void	gateway_args(struct orchd *, struct proc_args *, int);
static void	runtime_args(struct orchd *, struct proc_args *, int);
static void	acme_args(struct orchd *, struct proc_args *, int);

static const struct procs_row procs[] = {
	/* first: it alone forks after start; root, no chroot, unfiltered */
	{ "spawner", PROCS_SPAWNER, "spawnerd", PROCS_ROOT, PROCS_NOROOT, 0,
	    spawner_args },
	{ "store", PROC_STORE, "stored", PROCS_USER, PROCS_DBDIR, 0,
	    store_args },
	{ "gateway", PROC_GATEWAY, "gatewayd", PROCS_USER, PROCS_CHROOT, 1,
	    gateway_args },
	{ "reaper", PROC_REAPER, "reaperd", PROCS_USER, PROCS_CHROOT, 0,
	    NULL },
	{ "runtime", PROC_RUNTIME, "runtimed", PROCS_USER, PROCS_CHROOT, 0,
	    runtime_args },
	/* only with an acme block at start (acme_relay.c) */
	{ "acme", PROC_ACME, "acmed", PROCS_USER, PROCS_ACMEDIR, 0,
	    acme_args },
	/* only with a notify at start (hook_relay.c) */
	{ "notify", PROC_NOTIFY, "notifyd", PROCS_USER, PROCS_NOTIFYDIR, 0,
	    NULL },
};

static void
args_add(struct proc_args *a, const char *fmt, ...)
    __attribute__((__format__ (printf, 2, 3)));

static void
args_add(struct proc_args *a, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (a->argc >= PROC_ARGS_MAX)
		fatalx("%s: too many options", __func__);
	va_start(ap, fmt);
	n = vsnprintf(a->buf[a->argc], sizeof(a->buf[0]), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(a->buf[0]))
		fatalx("%s: option too long", __func__);
	a->argv[a->argc] = a->buf[a->argc];
	a->argv[++a->argc] = NULL;
}

/* the keypair check's program, user (-u, as for all) and chroot; confd */
static void
spawner_args(struct orchd *env, struct proc_args *a, int instance)
{
	char	 path[PATH_MAX];

	helper_path(env, "gatewayd", path, sizeof(path));
	args_add(a, "-c");
	args_add(a, "%s", env->conf->chroot);
	args_add(a, "-f");
	args_add(a, "%s", path);
	helper_path(env, "confd", path, sizeof(path));
	args_add(a, "-C");
	args_add(a, "%s", path);
}

static void
store_args(struct orchd *env, struct proc_args *a, int instance)
{
	args_add(a, "-f");
	args_add(a, "%s", env->conf->database);
}

static void
gateway_args(struct orchd *env, struct proc_args *a, int instance)
{
	if (env->conf->gateway.prefork == 1)
		return;
	args_add(a, "-i");
	args_add(a, "%d", instance);
}

static void
runtime_args(struct orchd *env, struct proc_args *a, int instance)
{
	char	 sock[PATH_MAX];
	gid_t	 gid;

	docker_access(env, sock, sizeof(sock), &gid);
	args_add(a, "-f");
	args_add(a, "%s", sock);
	if (swarmcreds_tls(env->conf))
		args_add(a, "-T");
	if (gid != (gid_t)-1) {
		args_add(a, "-g");
		args_add(a, "%u", (unsigned int)gid);
	}
	log_debug("runtimed: docker socket %s, root %s, group %s", sock,
	    env->conf->chroot, gid != (gid_t)-1 ? a->argv[a->argc - 1] :
	    "none");
}

/* not chrooted (orchd not root): where its account key is */
static void
acme_args(struct orchd *env, struct proc_args *a, int instance)
{
	char	 root[PATH_MAX];

	if (geteuid() == 0)
		return;
	args_add(a, "-f");
	args_add(a, "%s/account/account.key", acme_root(env, root,
	    sizeof(root)));
}

/* the command line of one process of row p */
static void
procs_argv(struct orchd *env, const struct procs_row *p, int instance,
    struct proc_args *a)
{
	char	 dir[PATH_MAX];
	int	 v;

	/* only what args_add() writes is touched: a->buf stays unmapped */
	a->argc = 0;
	a->argv[0] = NULL;
	helper_path(env, p->program, dir, sizeof(dir));
	args_add(a, "%s", dir);
	/*
	 * The user as numbers, looked up once here: a child needs no
	 * passwd database (nor the name service modules a statically
	 * linked child could not load).
	 */
	args_add(a, "-u");
	args_add(a, "%u:%u", (unsigned int)env->uid, (unsigned int)env->gid);
	if (p->root != PROCS_NOROOT) {
		args_add(a, "-c");
		if (p->root == PROCS_DBDIR)
			args_add(a, "%s", database_dir(env->conf->database,
			    dir, sizeof(dir)));
		else if (p->root == PROCS_ACMEDIR)
			args_add(a, "%s", acme_root(env, dir, sizeof(dir)));
		else if (p->root == PROCS_NOTIFYDIR)
			args_add(a, "%s", hook_root());
		else
			args_add(a, "%s", env->conf->chroot);
	}
	if (p->args != NULL)
		p->args(env, a, instance);
	if (env->debug)
		args_add(a, "-d");
	for (v = 0; v < env->verbose && v < 3; v++)
		args_add(a, "-v");
}

static void
procs_start_one(struct orchd *env, const struct procs_row *p, int instance)
{
	struct proc_args	*a;
	struct child		*ch;

	/*
	 * On the heap, 66 KiB: on the stack its pages would stay the
	 * parent's for good; freed, heap_trim() gives them back once the
	 * first configuration is applied.
	 */
	if ((a = malloc(sizeof(*a))) == NULL)
		fatal("%s", __func__);
	procs_argv(env, p, instance, a);
	if (p->id == PROCS_SPAWNER) {
		spawner_start(env, a->argv, spawn_exited);
		free(a);
		return;
	}
	if (env->nchildren >= CHILDREN_MAX)
		fatalx("%s: too many children", __func__);
	ch = &env->children[env->nchildren++];
	ch->id = p->id;
	ch->instance = instance;
	ch->pid = proc_spawn(&env->ps, p->id, instance, a->argv);
	free(a);
	proc_channel(&env->ps, p->id, instance)->closed =
	    parent_channel_closed;
	log_debug("started %s, pid %d, as %s", child_name(env, ch), ch->pid,
	    p->user == PROCS_ROOT ? "root" : env->conf->user);
}

static void
procs_start(struct orchd *env)
{
	size_t	 i;
	int	 n, k;

	for (i = 0; i < nitems(procs); i++) {
		if ((procs[i].id == PROC_ACME && env->conf->acme == NULL) ||
		    (procs[i].id == PROC_NOTIFY && env->conf->notify == NULL))
			continue;
		n = procs[i].prefork ? env->conf->gateway.prefork : 1;
		for (k = 0; k < n; k++)
			procs_start_one(env, &procs[i], k);
	}
}

/*
 * The children talk to each other directly (gateway to runtime, reaper to
 * runtime, ...): one socketpair for every pair, each end passed to its
 * process with the peer's id.  Gateways do not talk to each other.
 */
static void
connect_pair(struct orchd *env, const struct child *a, const struct child *b)
{
	struct proc_peer	 pa, pb;
	int			 sp[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		fatal("%s: socketpair", __func__);
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	pa.id = a->id;
	pa.instance = a->instance;
	pb.id = b->id;
	pb.instance = b->instance;
	if (proc_compose_instance(&env->ps, a->id, a->instance,
	    IMSG_PROC_PEER, 0, sp[0], &pb, sizeof(pb)) == -1 ||
	    proc_compose_instance(&env->ps, b->id, b->instance,
	    IMSG_PROC_PEER, 0, sp[1], &pa, sizeof(pa)) == -1)
		fatal("%s: compose", __func__);
}

static void
connect_children(struct orchd *env)
{
	int	 a, b;

	/* acmed and notifyd talk to the parent alone */
	for (a = 0; a < env->nchildren; a++)
		for (b = a + 1; b < env->nchildren; b++)
			if (env->children[a].id != env->children[b].id &&
			    env->children[a].id < PROC_ACME &&
			    env->children[b].id < PROC_ACME)
				connect_pair(env, &env->children[a],
				    &env->children[b]);
}

static void
parent_recv_ready(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	uint32_t	 version;

	(void)imsg_get_data(imsg, &version, sizeof(version));
	if (version != ORCHD_IMSG_VERSION)
		fatalx("%s speaks version %u, orchd %u: mixed installation?",
		    proc_name(iev->peer), version, ORCHD_IMSG_VERSION);
	if (++env->nready < env->nchildren)
		return;
	log_debug("all children ready");
	/* the uids, then the API's workloads: config_send once in */
	identity_load_start(env);
	api_load_start(env);
}

void
parent_set_verbose(struct orchd *env, int v)
{
	int	 id;

	env->verbose = v;
	log_setverbose(v);
	for (id = PROC_PARENT + 1; id < PROC_MAX; id++)
		proc_compose(&env->ps, id, IMSG_CTL_VERBOSE, 0, -1, &v,
		    sizeof(v));
}

/*
 * Read the configuration again.  One with errors is refused and the
 * running one kept.  Settings that only take effect at start are kept at
 * their old values, with a warning.  systemd hears RELOADING=1, and
 * READY=1 once the new configuration is active or refused.  What the
 * reload found (reload.c) goes to conn, orchctl's connection, ahead of
 * the OK or FAIL.
 */
int
parent_reload(struct orchd *env, uint32_t conn, char *err, size_t errlen)
{
	if (env->cfg_acks > 0) {
		strlcpy(err, "reload already in progress", errlen);
		return (-1);
	}
	notify_reloading();
	switch (reload_config(env, conn, err, errlen)) {
	case -1:
		notify_ready();
		return (-1);
	case 1:
		notify_ready();	/* unchanged, and answered */
		return (0);
	}
	env->notify_wait = 1;
	return (0);
}

static int
reload_config(struct orchd *env, uint32_t conn, char *err, size_t errlen)
{
	struct orchd_conf	*nconf, *oconf = env->conf;
	char			 name[ORCHD_INSTANCE_MAX];

	log_info("reloading configuration from %s", env->conffile);
	reload_begin(conn);
	reload_capture_start();
	nconf = config_load(env->conffile, PARSE_HOST_ERROR, 0);
	if (nconf == NULL && confread_unchanged()) {
		if (confsame_parent_same()) {
			reload_flush(0);
			reload_unchanged(env->conffile, env->generation);
			/* still a reload: its event, its time in /metrics */
			config_status(env, 1);
			return (1);
		}
		/* a certificate or key file changed: read it all */
		confsame_forget();
		nconf = config_load(env->conffile, PARSE_HOST_ERROR, 0);
	}
	if (nconf == NULL) {
		reload_flush(1);
		log_warnx("configuration file %s has errors, not reloading",
		    env->conffile);
		config_status(env, 0);
		snprintf(err, errlen, "configuration file %s has errors, "
		    "not reloading", env->conffile);
		return (-1);
	}
	reload_capture_stop();
#define KEEP(field, what) do {						\
	if (strcmp(nconf->field, oconf->field) != 0)			\
		reload_restart(what);					\
	free(nconf->field);						\
	if ((nconf->field = strdup(oconf->field)) == NULL)		\
		fatal("strdup");					\
} while (0)
	KEEP(chroot, "chroot");
	KEEP(database, "database");
	KEEP(socket, "socket");
	KEEP(docker_socket, "docker socket");
#undef KEEP
	if (nconf->gateway.prefork != oconf->gateway.prefork) {
		reload_restart("prefork");
		nconf->gateway.prefork = oconf->gateway.prefork;
	}
	if ((nconf->acme == NULL) != (oconf->acme == NULL))
		reload_restart("acme");
	swarmcreds_reload(nconf);
	if (strcmp(nconf->user, oconf->user) != 0) {
		reload_restart("user");
		strlcpy(nconf->user, oconf->user, sizeof(nconf->user));
	}
	instance_name(nconf, name, sizeof(name));
	if (strcmp(name, instances_self()) != 0)
		reload_restart("instance name");
	strlcpy(nconf->instance, instances_self(), sizeof(nconf->instance));
	if (instances_check(nconf->wl_uid_low, nconf->wl_uid_high, err,
	    errlen) == -1 ||
	    api_reload_check(nconf, oconf, err, errlen) == -1 ||
	    accesslog_open(nconf, err, errlen) == -1) {
		reload_flush(1);
		log_warnx("not reloading: %s", err);
		config_status(env, 0);
		free_config(nconf);
		return (-1);
	}
	if (listeners_bind(nconf, oconf, err, errlen) == -1) {
		reload_flush(1);
		log_warnx("not reloading: %s", err);
		accesslog_abort();
		config_status(env, 0);
		free_config(nconf);
		return (-1);
	}
	accesslog_commit();
	confsame_commit(reload_as_file());
	instances_commit(nconf->wl_uid_low, nconf->wl_uid_high);
	reload_flush(0);
	reload_diff(oconf, nconf);
	/* the workloads created through the API stay */
	reload_capture_start();
	api_reload_keep(nconf, oconf);
	reload_flush(0);
	listeners_close(oconf, nconf);
	free_config(oconf);
	env->conf = nconf;
	env->reload_conn = conn;
	env->status_due = 1;
	config_send(env);
	return (0);
}

static struct child *
child_find(struct orchd *env, pid_t pid)
{
	int	 i;

	for (i = 0; i < env->nchildren; i++)
		if (env->children[i].pid == pid)
			return (&env->children[i]);
	return (NULL);
}

static void
reap_children(struct orchd *env)
{
	struct child	*ch;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		/* the workloads are the spawner's, reaped there */
		if (spawner_reaped(pid, status) ||
		    (ch = child_find(env, pid)) == NULL)
			continue;
		ch->pid = 0;
		/*
		 * Once shutting down, the children's ends are expected; one
		 * killed by something other than our SIGTERM is still news
		 * (it may be the very loss that started the shutdown), and
		 * so is how a child whose channel was lost ended.
		 */
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM &&
		    env->shutting_down == 1)
			continue;
		if (env->shutting_down == 1 && !ch->lost &&
		    !WIFSIGNALED(status))
			continue;
		if (WIFSIGNALED(status))
			log_warnx("lost child: %s (pid %d) killed by signal "
			    "%d", child_name(env, ch), pid, WTERMSIG(status));
		else
			log_warnx("lost child: %s (pid %d) exited with "
			    "status %d", child_name(env, ch), pid,
			    WEXITSTATUS(status));
		/* the shutdown it starts, unless one is under way */
		if (env->shutting_down == 0)
			env->shutting_down = 2;
	}
}

static void
signal_children(struct orchd *env, int sig)
{
	int	 i;

	for (i = 0; i < env->nchildren; i++) {
		if (env->children[i].pid <= 0)
			continue;
		if (sig == SIGKILL)
			log_warnx("%s did not stop, killing it",
			    child_name(env, &env->children[i]));
		kill(env->children[i].pid, sig);
	}
	if (spawner_pid() > 0) {
		if (sig == SIGKILL)
			log_warnx("spawner did not stop, killing it");
		kill(spawner_pid(), sig);
	}
}

static __dead void
parent_shutdown(struct orchd *env, int code)
{
	int	 ms;

	env->shutting_down = 1;
	notify_stopping();
	spawn_shutdown(env);
	signal_children(env, SIGTERM);
	/* bounded: a child that ignores SIGTERM is killed */
	for (ms = 0; parent_children_alive(env) > 0; ms += 10) {
		if (ms == SHUTDOWN_GRACE_MS)
			signal_children(env, SIGKILL);
		reap_children(env);
		/* a stopping gateway may wait for room in the log's pipe */
		logfiles_shutdown();
		if (parent_children_alive(env) > 0)
			usleep(10000);
	}
	/* the last lines of the gateways, as they stopped */
	logfiles_shutdown();
	control_cleanup(env->conf->socket);
	log_info("terminating");
	exit(code);
}

/* a child is lost outside the event loop's own checks: the daemon ends */
__dead void
parent_lost(struct orchd *env)
{
	parent_shutdown(env, 1);
}

static void
parent_sig(int sig, short event, void *arg)
{
	struct orchd	*env = arg;
	char		 err[CTL_MSG_MAX];

	switch (sig) {
	case SIGHUP:
		/* whether or not the configuration loads: orchctl's way in */
		control_check("SIGHUP");
		(void)parent_reload(env, 0, err, sizeof(err));
		break;
	case SIGUSR1:
		/* logrotate's: the log files, opened again */
		(void)logfiles_reopen(err, sizeof(err));
		break;
	case SIGTERM:
	case SIGINT:
		log_info("received signal %d, shutting down", sig);
		parent_shutdown(env, 0);
	case SIGCHLD:
		reap_children(env);
		if (env->shutting_down)
			parent_shutdown(env, 1);
		break;
	default:
		break;
	}
}

static struct child *
child_by_channel(struct orchd *env, const struct imsgev *iev)
{
	int	 i;

	for (i = 0; i < env->nchildren; i++)
		if ((int)env->children[i].id == iev->peer &&
		    env->children[i].instance == iev->instance)
			return (&env->children[i]);
	return (NULL);
}

/*
 * The channel to a child is lost: end of file, a socket error, or a
 * message that breaks the protocol (a type it may not send, a wrong
 * length).  The set is no longer whole, and a child that speaks out of
 * turn may be compromised: whatever it does next, the daemon ends,
 * non-zero, for rc or systemd to restart.  Waiting for its SIGCHLD
 * would leave a child that stays up to a degraded daemon.
 */
static void
parent_channel_closed(struct imsgev *iev)
{
	struct orchd	*env = orchd_env;
	struct child	*ch;

	if ((ch = child_by_channel(env, iev)) == NULL)
		fatalx("lost channel to %s: %s", proc_name(iev->peer),
		    iev->lost);
	ch->lost = 1;
	log_warnx("lost child: %s (pid %d): channel: %s", child_name(env, ch),
	    ch->pid, iev->lost);
	parent_shutdown(env, 1);
}

/*
 * The database's directory is the store's alone: a workload, whatever
 * its uid, must not even list it.  One of the store's found open to
 * others (an older orchd made it so, or an operator) is closed, and the
 * log says so.  One that is not the store's did not come this far:
 * statedir_database() gave it or refused it.
 */
static void
database_dir_tighten(const char *dir, uid_t store)
{
	struct stat	 sb;

	if (stat(dir, &sb) == -1)
		fatal("database directory %s", dir);
	if (!S_ISDIR(sb.st_mode))
		fatalx("database directory %s is not a directory", dir);
	if ((sb.st_mode & 077) == 0 || sb.st_uid != store)
		return;
	if (chmod(dir, sb.st_mode & 0700) == -1)
		fatal("chmod %s", dir);
	log_warnx("database directory %s was mode %04o: now %04o, the "
	    "store's alone", dir, (unsigned)(sb.st_mode & 07777),
	    (unsigned)(sb.st_mode & 0700));
}

/*
 * orchd -n, as root: would the start take the database's directory?  A
 * user that does not exist is the parser's to report.
 */
static int
database_dir_check(const struct orchd_conf *conf)
{
	struct passwd	*pw;
	char		 dir[PATH_MAX], err[CTL_MSG_MAX];

	if (geteuid() != 0 || (pw = users_getpwnam(conf->user)) == NULL)
		return (0);
	database_dir(conf->database, dir, sizeof(dir));
	if (statedir_database(dir, conf->user, pw->pw_uid, pw->pw_gid, 0,
	    err, sizeof(err)) == 0)
		return (0);
	log_warnx("%s", err);
	return (-1);
}

static void
prepare_dirs(struct orchd *env)
{
	struct passwd	*pw;
	char		 dir[PATH_MAX], err[CTL_MSG_MAX];

	if ((pw = users_getpwnam(env->conf->user)) == NULL)
		fatalx("user %s does not exist: create it (see orchd(8)) "
		    "or set user in %s", env->conf->user, env->conffile);
	env->uid = pw->pw_uid;
	env->gid = pw->pw_gid;
	database_dir(env->conf->database, dir, sizeof(dir));
	statedir_take(dir, pw->pw_uid, pw->pw_gid);
	/* a directory made here belongs to the store; one found is kept */
	if (mkdir(dir, 0700) == 0) {
		if (chown(dir, pw->pw_uid, pw->pw_gid) == -1)
			fatal("chown %s", dir);
	} else if (errno != EEXIST)
		fatal("database directory %s", dir);
	else if (statedir_database(dir, env->conf->user, pw->pw_uid,
	    pw->pw_gid, 1, err, sizeof(err)) == -1)
		fatalx("%s", err);
	else
		database_dir_tighten(dir, pw->pw_uid);
	if (access(env->conf->chroot, X_OK) == -1)
		fatal("chroot %s", env->conf->chroot);
}

int
main(int argc, char *argv[])
{
	static struct orchd	 env;
	struct event		 ev_hup, ev_term, ev_int, ev_chld, ev_usr1;
	const char		*conffile = ORCHD_CONF;
	char			 err[CTL_MSG_MAX];
	ssize_t			 n;
	int			 ch, noaction = 0;

	proc_title_init(argc, argv);
	log_init(1, LOG_DAEMON);
	while ((ch = getopt(argc, argv, "dD:f:nVv")) != -1) {
		switch (ch) {
		case 'd':
			env.debug = 1;
			break;
		case 'D':
			if (confread_macro(optarg) < 0)
				fatalx("could not parse macro definition %s",
				    optarg);
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'V':
			printf("orchd %s\n", ORCHD_VERSION);
			exit(0);
		case 'v':
			env.verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_setverbose(env.verbose);
	orchd_env = &env;
	env.conffile = conffile;

	/* where the helpers are: gatewayd checks TLS keypairs, even for -n */
	if ((n = readlink("/proc/self/exe", env.self, sizeof(env.self) - 1))
	    == -1)
		fatal("readlink /proc/self/exe");
	env.self[n] = '\0';
	/* -n fails on what the host lacks; a start only warns */
	/* -nv: what was read, as bgpd -nv prints it */
	if ((env.conf = config_load(conffile, noaction ? PARSE_HOST_ERROR :
	    PARSE_HOST_WARN, noaction && env.verbose > 0)) == NULL)
		exit(1);
	if (noaction) {
		if (database_dir_check(env.conf) == -1)
			exit(1);
		fprintf(stderr, "configuration OK\n");
		exit(0);
	}
	confsame_commit(1);	/* its inputs, for a reload (confsame.c) */

	log_init(env.debug, LOG_DAEMON);
	log_procinit("parent");
	/* before any child or workload could inherit it */
	notify_init();
	env.notify_wait = 1;
	if (geteuid() != 0) {
		log_warnx("running as uid %d, not root: the children keep "
		    "this user and are not chrooted", geteuid());
		env.uid = geteuid();
		env.gid = getegid();
	} else {
		prepare_dirs(&env);
		statedir_socket(env.conf->socket);
	}
	acme_prepare(&env);
	hook_prepare(&env);

	/* a second orchd of this name, or of these uids, stops here */
	instances_start(&env);
	control_init(env.conf->socket);
	if (listeners_bind(env.conf, NULL, err, sizeof(err)) == -1) {
		control_cleanup(env.conf->socket);
		fatalx("%s", err);
	}
	/* here, so that a file that cannot be opened stops the start */
	if (accesslog_open(env.conf, err, sizeof(err)) == -1) {
		control_cleanup(env.conf->socket);
		fatalx("access log: %s", err);
	}
	accesslog_commit();
	if (!env.debug && daemon(1, 0) == -1)
		fatal("daemon");
	instances_daemonized();

	signal(SIGPIPE, SIG_IGN);
	event_init();
	env.ps.id = PROC_PARENT;
	if (proc_table_check(parent_handlers, nitems(parent_handlers), err,
	    sizeof(err)) == -1)
		fatalx("parent's table: %s", err);
	if (spawner_table_check(err, sizeof(err)) == -1)
		fatalx("spawner's table: %s", err);
	if (confread_table_check(err, sizeof(err)) == -1)
		fatalx("confd's table: %s", err);
	env.ps.handlers = parent_handlers;
	env.ps.nhandlers = nitems(parent_handlers);
	env.ps.started = monotime();
	env.status.started_ms = walltime_ms();
	env.status_due = 1;	/* the first configuration */
	/* before any child exists: one that dies at once must be seen */
	signal_set(&ev_hup, SIGHUP, parent_sig, &env);
	signal_set(&ev_term, SIGTERM, parent_sig, &env);
	signal_set(&ev_int, SIGINT, parent_sig, &env);
	signal_set(&ev_chld, SIGCHLD, parent_sig, &env);
	signal_set(&ev_usr1, SIGUSR1, parent_sig, &env);
	signal_add(&ev_hup, NULL);
	signal_add(&ev_term, NULL);
	signal_add(&ev_int, NULL);
	signal_add(&ev_chld, NULL);
	signal_add(&ev_usr1, NULL);
	accesslog_init();

	/* the spawner, then the children: the only forks of ours */
	procs_start(&env);
	connect_children(&env);
	proc_title("parent");

	/*
	 * The children and the spawner run: from here on nothing of ours
	 * forks, and the filter binds the parent alone (sandbox.h says
	 * what SB_PARENT allows, control.c why).
	 */
	users_preload();
	sandbox_prepare();
	sandbox_enter("parent", SB_PARENT);
	control_listen(&env);
	log_info("startup");
	event_dispatch();
	parent_shutdown(&env, 1);
}
