/*
 * Process workloads, forked and signalled by the parent for runtimed.
 *
 * runtimed is chrooted and unprivileged, and whatever it forked would
 * inherit its sandbox, so it only decides: it sends IMSG_RT_SPAWN with a
 * workload's name and the parent starts that workload as its own
 * configuration says.  Nothing but the name is taken from runtimed: a
 * compromised runtimed can start and stop configured workloads, never run
 * a command of its choosing.  The parent answers IMSG_RT_SPAWNED with the
 * pid (or 0 and why not), reports IMSG_RT_EXITED when the process is
 * reaped (and whether its cgroup saw an OOM kill meanwhile, which the
 * spawner reads and says in its report), and signals
 * a workload's process group on IMSG_RT_KILL once it has checked that
 * the pid is that workload's.
 *
 * A workload runs one process, and two for a moment while runtimed
 * replaces it side by side (a new definition on another port): the new
 * one starts beside the old one, each in a cgroup of its own (NAME and
 * NAME@2 in turn), with the same uid, directory and log; never more.
 *
 * Everything that can fail for a reason worth telling the operator (the
 * user, the log file, the command's syntax) is done here, in the parent.
 * The fork and exec are the spawner's (spawnerd/, asked through
 * spawner.c) with the job prepared in full; the spawner checks it again
 * (never root, never the daemons' ids, within bounds), makes, limits,
 * freezes and removes its cgroup, reaps the workload and reports its
 * exit, and signals it for the parent while it has not reaped it.  What
 * the child cannot do (chdir, exec) comes back as the step and its errno.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argv.h"
#include "compat.h"
#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "spawnexec.h"
#include "timer.h"
#include "units.h"
#include "workload.h"

#define SPAWN_PATH		ORCHD_SPAWN_PATH	/* orchd -n looks there */
#define SPAWN_ENV_MAX		SP_ENV_MAX	/* variables of a workload */
#define SPAWN_STOP_GRACE_MS	5000	/* at shutdown, at most */
#define SPAWN_KILL_WAIT_MS	1000	/* after SIGKILL, at shutdown */
#define SPAWN_POLL_MS		10
#define SPAWN_PER_WORKLOAD	2	/* the one replaced, the new one */
#define SPAWN_CG_MAX		SP_CGNAME_MAX
#define SPAWN_SOCKACT_EARLY_MS	5000	/* an exit this soon: misconfigured */

/*
 * A running process workload: the pid is its process group too.  How it
 * is stopped is the definition's it was started with.
 */
struct spawned {
	TAILQ_ENTRY(spawned)	 entry;
	char			 name[ORCHD_NAME_MAX];
	char			 cgname[SPAWN_CG_MAX]; /* its cgroup's */
	pid_t			 pid;
	uid_t			 uid;		/* it runs as */
	int			 stopsig;	/* stop signal */
	int64_t			 grace_ms;	/* then SIGKILL */
	int			 signalled;	/* told to stop */
	int			 killed;	/* SIGKILL sent */
	int			 cgroup;	/* in a cgroup of its own */
	int			 sockact;	/* socket activation */
	int64_t			 start_ms;	/* monotonic, at its start */
};
static TAILQ_HEAD(, spawned)	 spawned = TAILQ_HEAD_INITIALIZER(spawned);

/* one start, prepared in full before fork */
struct spawn_job {
	const struct workload_conf *wl;
	char			**argv;
	char			**envp;
	size_t			  nenv;
	const char		 *dir;
	int			  logfd;
	int			  root;	/* change user in the child */
	uid_t			  uid;
	gid_t			  gid;
	gid_t			  groups[SP_GROUPS_MAX];
	int			  ngroups;
	char			  user[ORCHD_USER_MAX];
	char			 *home;
	const char		 *cgname; /* its cgroup's name */
	struct wl_limits	  lim;	/* its cgroup's cpu, pids, io */
	int			  incg;	/* the spawner made one */
	char			  statedir[PATH_MAX];	/* the default dir */
	int			  sockfd;	/* socket activation's, or -1 */
	union wl_addr		  sockaddr;	/* what it is bound to */
};

/* an error for runtimed; cut short if need be, it is only a message */
static void
msgf(char *msg, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static void
msgf(char *msg, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static struct spawned *
spawned_find(const char *name, pid_t pid)
{
	struct spawned	*sp;

	TAILQ_FOREACH(sp, &spawned, entry)
		if ((name == NULL || strcmp(sp->name, name) == 0) &&
		    (pid == 0 || sp->pid == pid))
			return (sp);
	return (NULL);
}

/*
 * Whatever the definition says (it may come from the API or the store),
 * no workload runs as root or with the daemons' uid or gid, in a
 * supplementary group or not.
 */
static int
job_forbidden(struct spawn_job *job, struct orchd *env, char *msg,
    size_t len)
{
	int	 i;

	if (job->uid == 0 || job->uid == env->uid || job->gid == 0 ||
	    job->gid == env->gid) {
		msgf(msg, len, "user %s has uid %u, gid %u: a workload never "
		    "runs as root or as the daemons", job->user,
		    (unsigned)job->uid, (unsigned)job->gid);
		return (-1);
	}
	for (i = 0; i < job->ngroups && i < SP_GROUPS_MAX; i++)
		if (job->groups[i] == 0 || job->groups[i] == env->gid) {
			msgf(msg, len, "user %s is in group %u: a workload "
			    "never runs in root's or the daemons' group",
			    job->user, (unsigned)job->groups[i]);
			return (-1);
		}
	return (0);
}

/* no user named: the workload's own uid, a gid of that number, no groups */
static int
job_identity(struct spawn_job *job, struct orchd *env, char *msg,
    size_t len)
{
	if (identity_get(env, job->wl->name, &job->uid, msg, len) == -1)
		return (-1);
	job->gid = (gid_t)job->uid;
	job->ngroups = 0;
	(void)snprintf(job->user, sizeof(job->user), "%u",
	    (unsigned)job->uid);
	/* HOME: its directory, once known (job_dir) */
	return (job_forbidden(job, env, msg, len));
}

/* the user a workload runs as; the parent's own when not root */
static int
job_user(struct spawn_job *job, struct orchd *env, char *msg, size_t len)
{
	const char	*user;
	struct passwd	*pw;

	job->root = geteuid() == 0;
	if (job->root && job->wl->user == NULL)
		return (job_identity(job, env, msg, len));
	user = job->wl->user != NULL ? job->wl->user : env->conf->user;
	if (job->root)
		pw = users_getpwnam(user);
	else
		pw = users_getpwuid(geteuid());
	if (pw == NULL) {
		msgf(msg, len, "user %s does not exist", user);
		return (-1);
	}
	if (strlcpy(job->user, pw->pw_name, sizeof(job->user)) >=
	    sizeof(job->user) || (job->home = strdup(pw->pw_dir)) == NULL) {
		msgf(msg, len, "user %s: name too long or out of memory",
		    pw->pw_name);
		return (-1);
	}
	job->uid = pw->pw_uid;
	job->gid = pw->pw_gid;
	if (!job->root)
		return (0);
	/* read /etc/group here: the child does nothing that can block */
	job->ngroups = SP_GROUPS_MAX;
	if (users_getgrouplist(job->user, job->gid, job->groups,
	    &job->ngroups) == -1) {
		msgf(msg, len, "user %s is in more than %d groups",
		    job->user, SP_GROUPS_MAX);
		return (-1);
	}
	return (job_forbidden(job, env, msg, len));
}

/*
 * "workload directory", root's and writable by root alone, made if
 * missing: only root names what is in it, so no link planted by a
 * workload can stand where root creates or chowns.
 */
static int
job_statebase(struct orchd *env, char *msg, size_t len)
{
	const char	*base = env->conf->wl_dir;
	struct stat	 sb;
	int		 fd, made;

	made = mkdir(base, 0755) == 0;
	if (!made && errno != EEXIST) {
		msgf(msg, len, "workload directory %s: %s", base,
		    strerror(errno));
		return (-1);
	}
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		msgf(msg, len, "workload directory %s: %s", base,
		    strerror(errno));
		return (-1);
	}
	/* made under our umask: workloads must reach their own below it */
	if ((made && fchmod(fd, 0755) == -1) || fstat(fd, &sb) == -1) {
		msgf(msg, len, "workload directory %s: %s", base,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	if (sb.st_uid != 0 || (sb.st_mode & 022) != 0) {
		msgf(msg, len, "workload directory %s must be root's and "
		    "writable by root alone", base);
		close(fd);
		return (-1);
	}
	return (fd);
}

/*
 * Mode 0700 and the workload's.  A mode changed by its owner is set
 * back while root owns it: the parent has CAP_CHOWN, not CAP_FOWNER
 * (orchd.service).
 */
static int
statedir_give(int fd, uid_t uid, gid_t gid)
{
	struct stat	 sb;

	if (fstat(fd, &sb) == -1)
		return (-1);
	if ((sb.st_mode & 07777) != 0700 && ((sb.st_uid != 0 &&
	    fchown(fd, 0, 0) == -1) || fchmod(fd, 0700) == -1))
		return (-1);
	return (fchown(fd, uid, gid));
}

/*
 * A workload without a directory works in its own, BASE/NAME, made
 * for it and given to its uid, mode 0700.  Never a link followed: the
 * name is opened O_NOFOLLOW and changed through that descriptor.
 */
static int
job_statedir(struct spawn_job *job, struct orchd *env, char *msg,
    size_t len)
{
	const char	*name = job->wl->name;
	struct stat	 sb;
	int		 bfd, fd = -1, r = -1;

	if ((size_t)snprintf(job->statedir, sizeof(job->statedir), "%s/%s",
	    env->conf->wl_dir, name) >= sizeof(job->statedir)) {
		msgf(msg, len, "state directory name too long");
		return (-1);
	}
	if ((bfd = job_statebase(env, msg, len)) == -1)
		return (-1);
	if (mkdirat(bfd, name, 0700) == -1 && errno != EEXIST)
		msgf(msg, len, "state directory %s: %s", job->statedir,
		    strerror(errno));
	else if ((fd = openat(bfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		msgf(msg, len, "state directory %s: %s", job->statedir,
		    fstatat(bfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(sb.st_mode) ? "a symbolic link" : strerror(errno));
	else if (statedir_give(fd, job->uid, job->gid) == -1)
		msgf(msg, len, "state directory %s: %s", job->statedir,
		    strerror(errno));
	else
		r = 0;
	if (fd != -1)
		close(fd);
	close(bfd);
	return (r);
}

/* where it works: its directory, else (as root) its state directory */
static int
job_dir(struct spawn_job *job, struct orchd *env, char *msg, size_t len)
{
	if (job->wl->directory != NULL)
		job->dir = job->wl->directory;
	else if (!job->root)
		job->dir = "/";
	else {
		if (job_statedir(job, env, msg, len) == -1)
			return (-1);
		job->dir = job->statedir;
	}
	/* a uid of its own has no passwd entry: HOME is where it works */
	if (job->home == NULL && (job->home = strdup(job->dir)) == NULL) {
		msgf(msg, len, "%s", strerror(errno));
		return (-1);
	}
	return (0);
}

/*
 * LOGDIR/NAME.log, owned by the workload's user, written by us from a
 * pipe (logfiles.c): its write end is the workload's stdout and stderr.
 */
static int
job_logfile(struct spawn_job *job, struct orchd *env, char *msg, size_t len)
{
	if ((job->logfd = wlog_start(env, job->wl->name, job->root, job->uid,
	    job->gid, job->wl->log_timestamps, msg, len)) == -1)
		return (-1);
	return (0);
}

/* NAME=value, replacing an earlier NAME: a workload's env wins */
static int
job_setenv(struct spawn_job *job, const char *fmt, ...)
    __attribute__((__format__ (printf, 2, 3)));

static int
job_setenv(struct spawn_job *job, const char *fmt, ...)
{
	va_list	 ap;
	char	*var, *eq;
	size_t	 i, n;
	int	 r;

	va_start(ap, fmt);
	r = vasprintf(&var, fmt, ap);
	va_end(ap);
	if (r == -1)
		return (-1);
	if ((eq = strchr(var, '=')) == NULL || eq == var) {
		free(var);
		errno = EINVAL;
		return (-1);
	}
	n = eq - var + 1;
	for (i = 0; i < job->nenv; i++) {
		if (strncmp(job->envp[i], var, n) == 0) {
			free(job->envp[i]);
			job->envp[i] = var;
			return (0);
		}
	}
	if (job->nenv >= SPAWN_ENV_MAX) {
		free(var);
		errno = E2BIG;
		return (-1);
	}
	job->envp[job->nenv++] = var;
	job->envp[job->nenv] = NULL;
	return (0);
}

/* a clean environment: nothing of orchd's own leaks into a workload */
static int
job_env(struct spawn_job *job, char *msg, size_t len)
{
	struct strentry	*e;

	if ((job->envp = calloc(SPAWN_ENV_MAX + 1, sizeof(char *))) == NULL ||
	    job_setenv(job, "PATH=%s", SPAWN_PATH) == -1 ||
	    job_setenv(job, "HOME=%s", job->home) == -1 ||
	    job_setenv(job, "USER=%s", job->user) == -1 ||
	    job_setenv(job, "LOGNAME=%s", job->user) == -1 ||
	    job_setenv(job, "PORT=%u", (unsigned int)job->wl->port) == -1)
		goto fail;
	/* sd_listen_fds(3): the spawner adds LISTEN_PID, known after fork */
	if (job->wl->socket_activation &&
	    (job_setenv(job, "LISTEN_FDS=1") == -1 ||
	    job_setenv(job, "LISTEN_FDNAMES=%s", job->wl->name) == -1))
		goto fail;
	TAILQ_FOREACH(e, &job->wl->env, entry)
		if (job_setenv(job, "%s", e->str) == -1)
			goto fail;
	return (0);
 fail:
	msgf(msg, len, "environment: %s", strerror(errno));
	return (-1);
}

/*
 * Socket activation: a duplicate of the socket the parent holds for
 * this workload, found by its name (sockact.c), for the spawner to put
 * on fd 3.
 */
static int
job_socket(struct spawn_job *job, struct orchd *env, char *msg, size_t len)
{
	const struct sockact	*sa;

	if (!job->wl->socket_activation)
		return (0);
	if ((sa = sockact_find(env->conf, job->wl->name)) == NULL) {
		msgf(msg, len, "socket activation: its port is not bound");
		return (-1);
	}
	/*
	 * Close-on-exec as the socket it copies: F_DUPFD_CLOEXEC is not
	 * among the fcntl commands the parent's seccomp filter allows
	 * (common/sandbox.c: it killed the parent), so dup, then F_SETFD.
	 */
	if ((job->sockfd = dup(sa->fd)) == -1 ||
	    fcntl(job->sockfd, F_SETFD, FD_CLOEXEC) == -1) {
		msgf(msg, len, "socket activation: %s", strerror(errno));
		return (-1);
	}
	memcpy(&job->sockaddr, &sa->ss, MINIMUM(sizeof(job->sockaddr),
	    (size_t)sa->sslen));
	return (0);
}

static void
job_free(struct spawn_job *job)
{
	size_t	 i;

	free_argv(job->argv);
	if (job->envp != NULL) {
		for (i = 0; i < job->nenv; i++)
			free(job->envp[i]);
		free(job->envp);
	}
	free(job->home);
	if (job->logfd != -1)
		close(job->logfd);
	if (job->sockfd != -1)
		close(job->sockfd);
}

static int
job_prepare(struct spawn_job *job, struct orchd *env,
    const struct workload_conf *wl, const char *cgname, char *msg,
    size_t len)
{
	char			 err[128];
	int			 argc;

	memset(job, 0, sizeof(*job));
	job->wl = wl;
	job->cgname = cgname;
	job->logfd = -1;
	job->sockfd = -1;
	if ((argc = split_command(wl->command, &job->argv, err,
	    sizeof(err))) == -1) {
		msgf(msg, len, "command: %s", err);
		return (-1);
	}
	if (argc == 0) {
		msgf(msg, len, "command is empty");
		return (-1);
	}
	if (job_user(job, env, msg, len) == -1 ||
	    job_dir(job, env, msg, len) == -1 ||
	    job_logfile(job, env, msg, len) == -1 ||
	    job_env(job, msg, len) == -1 ||
	    job_socket(job, env, msg, len) == -1)
		return (-1);
	/* the spawner writes them in its cgroup */
	limits_effective(&env->conf->lim_dflt, &env->conf->lim_max, wl,
	    sysconf(_SC_NPROCESSORS_ONLN), &job->lim);
	return (0);
}

/*
 * The cgroup of a new process of name: NAME, or NAME@2 while the one
 * it replaces is in NAME.  '@' is in no workload's name.
 */
static void
spawn_cgname(const char *name, char *buf, size_t len)
{
	const struct spawned	*sp;

	(void)snprintf(buf, len, "%s", name);
	TAILQ_FOREACH(sp, &spawned, entry)
		if (strcmp(sp->name, name) == 0 &&
		    strcmp(sp->cgname, buf) == 0) {
			(void)snprintf(buf, len, "%s@2", name);
			return;
		}
}

/*
 * The job as the spawner takes it: the ids, the words, the environment
 * and the directory, its cgroup's name and limits, with the log pipe.
 */
static int
spawn_exec(struct spawn_job *job, char *msg, size_t len)
{
	struct sp_exec		 hdr;
	struct sp_started	 st;
	int			 fds[SP_PASS_FDS], i, argc, n = 0;

	for (argc = 0; job->argv[argc] != NULL; argc++)
		;
	if (argc > SP_ARGV_MAX) {
		msgf(msg, len, "command: more than %d words",
		    SP_ARGV_MAX);
		return (-1);
	}
	memset(&hdr, 0, sizeof(hdr));
	strlcpy(hdr.name, job->wl->name, sizeof(hdr.name));
	strlcpy(hdr.user, job->user, sizeof(hdr.user));
	hdr.uid = job->uid;
	hdr.gid = job->gid;
	hdr.root = job->root;
	hdr.ngroups = MINIMUM(job->ngroups, SP_GROUPS_MAX);
	for (i = 0; i < hdr.ngroups; i++)
		hdr.groups[i] = job->groups[i];
	hdr.argc = argc;
	hdr.nenv = job->nenv;
	strlcpy(hdr.cgname, job->cgname, sizeof(hdr.cgname));
	hdr.memory = job->wl->memory;
	hdr.lim = job->lim;
	fds[n++] = job->logfd;
	if (job->sockfd != -1) {
		hdr.sock = 1;
		memcpy(&hdr.sockaddr, &job->sockaddr, sizeof(hdr.sockaddr));
		fds[n++] = job->sockfd;
	}
	hdr.nfds = n;
	/* the descriptors go to the spawner: no longer the job's to close */
	job->logfd = -1;
	job->sockfd = -1;
	if (spawner_exec(&hdr, job->argv, job->envp, job->dir, fds, hdr.nfds,
	    &st) == 0) {
		job->incg = st.cgroup;
		return (st.pid);
	}
	if (st.step == -1)
		msgf(msg, len, "spawner: %s", strerror(st.err));
	else if (st.step == SP_STEP_EXEC)
		msgf(msg, len, "exec %s: %s", job->argv[0],
		    strerror(st.err));
	else if (st.step == SP_STEP_CHDIR)
		msgf(msg, len, "chdir %s: %s", job->dir, strerror(st.err));
	else if (st.step == SP_STEP_REFUSED && st.why[0] != '\0')
		msgf(msg, len, "%s: %s", sp_step_name(st.step), st.why);
	else if (st.why[0] != '\0')
		msgf(msg, len, "%s", st.why);	/* the cgroup's, named */
	else
		msgf(msg, len, "%s: %s", sp_step_name(st.step),
		    strerror(st.err));
	return (-1);
}

static pid_t
spawn_start(struct orchd *env, const struct workload_conf *wl, char *msg,
    size_t len)
{
	struct spawn_job	 job;
	struct spawned		*sp = NULL;
	pid_t			 pid = -1;
	char			 cgname[SPAWN_CG_MAX];

	spawn_cgname(wl->name, cgname, sizeof(cgname));
	if (job_prepare(&job, env, wl, cgname, msg, len) == -1)
		goto done;
	if ((sp = calloc(1, sizeof(*sp))) == NULL) {
		msgf(msg, len, "%s", strerror(errno));
		goto done;
	}
	if ((pid = spawn_exec(&job, msg, len)) == -1)
		goto done;
	sp->cgroup = job.incg;
	strlcpy(sp->name, wl->name, sizeof(sp->name));
	strlcpy(sp->cgname, cgname, sizeof(sp->cgname));
	sp->pid = pid;
	sp->uid = job.uid;
	sp->sockact = wl->socket_activation;
	sp->start_ms = monotime_ms();
	sp->stopsig = wl->stop_signal != 0 ? wl->stop_signal : SIGTERM;
	sp->grace_ms = (wl->stop_timeout != -1 ? wl->stop_timeout :
	    WL_STOP_TIMEOUT) * 1000;
	TAILQ_INSERT_TAIL(&spawned, sp, entry);
	sp = NULL;
	log_info("workload %s: started %s as %s, pid %d", wl->name,
	    job.argv[0], job.user, pid);
 done:
	free(sp);
	job_free(&job);
	/* a child that failed said why on its stderr: in the log first */
	if (pid == -1)
		wlog_flush(wl->name);
	return (pid);
}

/*
 * The uid process workload wl runs as, or ran as last, for the listener
 * check (owner.c): its process's, else as job_user() would find it,
 * without allocating one.  -1 if it has none.
 */
int
spawn_uid(const struct workload_conf *wl, uid_t *uid)
{
	const struct spawned	*sp;
	struct passwd		*pw;

	if ((sp = spawned_find(wl->name, 0)) != NULL) {
		*uid = sp->uid;
		return (0);
	}
	if (geteuid() != 0) {
		*uid = geteuid();
		return (0);
	}
	if (wl->user == NULL)
		return (identity_find(wl->name, uid));
	if ((pw = users_getpwnam(wl->user)) == NULL)
		return (-1);
	*uid = pw->pw_uid;
	return (0);
}

/* name's definition, checked now; *tmp as pdef_find() says */
static const struct workload_conf *
spawn_conf(struct orchd *env, const char *name, struct workload_conf **tmp,
    char *msg, size_t len)
{
	const struct workload_conf	*wl;
	const struct spawned		*sp;
	char				 why[CTL_MSG_MAX];
	int				 n = 0;

	wl = pdef_find(env->conf, name, tmp);
	TAILQ_FOREACH(sp, &spawned, entry)
		if (strcmp(sp->name, name) == 0)
			n++;
	if (wl == NULL)
		msgf(msg, len, "no such workload");
	else if (wl->driver != DRIVER_PROCESS)
		msgf(msg, len, "not a process workload");
	else if (n >= SPAWN_PER_WORKLOAD)
		/* runtimed serializes starts: a third one is out of step */
		msgf(msg, len, "already running, %d processes", n);
	else if (policy_check(env->conf, wl, why, sizeof(why)) != 0)
		/* checked where used: the rules of now, not of its arrival */
		msgf(msg, len, "refused at its wake: %s", why);
	else
		return (wl);
	return (NULL);
}

void
spawn_request(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd			*env = orchd_env;
	const struct workload_conf	*wl;
	struct workload_conf		*tmp = NULL;
	struct wl_ref			 ref;
	struct rt_proc			 rp;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	memset(&rp, 0, sizeof(rp));
	strlcpy(rp.name, ref.name, sizeof(rp.name));
	if (env->shutting_down)
		msgf(rp.msg, sizeof(rp.msg), "orchd is shutting down");
	else if ((wl = spawn_conf(env, ref.name, &tmp, rp.msg,
	    sizeof(rp.msg))) != NULL)
		rp.pid = spawn_start(env, wl, rp.msg, sizeof(rp.msg));
	/* at rest again (pdef.c): spawn_start() kept no pointer into it */
	workload_free(tmp);
	if (rp.pid <= 0) {
		rp.pid = 0;
		log_warnx("workload %s: cannot start: %s", rp.name, rp.msg);
	}
	if (imsgev_compose(iev, IMSG_RT_SPAWNED, 0, -1, &rp, sizeof(rp)) == -1)
		log_warn("%s: compose", __func__);
}

/*
 * What the run used, for runtimed's memory budget and show stats, as
 * the spawner measured it at its first stop signal (spawnerd/pss.c) and
 * said in its exit report: in a cgroup, its peak or its use; without
 * one, its group's PSS.
 */
static void
spawn_memory(const char *name, int64_t bytes)
{
	struct rt_memory	 mem;

	if (bytes <= 0)
		return;
	memset(&mem, 0, sizeof(mem));
	strlcpy(mem.name, name, sizeof(mem.name));
	mem.bytes = bytes;
	if (proc_compose(&orchd_env->ps, PROC_RUNTIME, IMSG_ST_MEMORY, 0, -1,
	    &mem, sizeof(mem)) == -1)
		log_warn("workload %s: memory to runtimed", name);
}

/*
 * The group: a shell's children go too; fresh from fork, only it.  By
 * the spawner, which reaps: a pid it has reaped is never signalled, so
 * no other process that got the pid since is.  The spawner sends SIGKILL
 * to the whole cgroup as well, which setsid does not leave, and thaws a
 * frozen one first.
 */
static void
spawn_signal(struct spawned *sp, int sig)
{
	sp->signalled = 1;
	if (sig == SIGKILL)
		sp->killed = 1;
	spawner_kill(sp->pid, sig);
}

void
spawn_kill(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_kill	 rk;
	struct spawned	*sp;
	int		 sig;

	(void)imsg_get_data(imsg, &rk, sizeof(rk));
	/* stopping is all runtimed may ask for */
	if (signal_name(rk.sig) == NULL) {
		log_warnx("workload %s: refusing signal %d", rk.name, rk.sig);
		return;
	}
	if (rk.pid <= 0 || (sp = spawned_find(rk.name, rk.pid)) == NULL) {
		/* it exited and its EXITED is on its way */
		log_debug("workload %s: no pid %d to signal", rk.name, rk.pid);
		return;
	}
	/*
	 * runtimed chooses between asking and forcing; which signal asks
	 * is this process's own, from the definition it was started with
	 * (runtimed's may be a reload older or newer).
	 */
	sig = rk.sig == SIGKILL ? SIGKILL : sp->stopsig;
	log_debug("workload %s: %s to pid %d", sp->name, signal_name(sig),
	    sp->pid);
	spawn_signal(sp, sig);
}

/*
 * Freeze or thaw a workload's cgroup for runtimed, by the spawner: the
 * cgroup of the process it names, checked as for a kill (and again by
 * the spawner), never any other; the answer says whether the cgroup is
 * in that state now.  No cgroup (or
 * no freezer in it): 0, and runtimed stops the workload instead.
 */
void
spawn_freeze(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_freeze	 rf;
	struct spawned		*sp;

	(void)imsg_get_data(imsg, &rf, sizeof(rf));
	if (rf.on != 0 && rf.on != 1) {
		log_warnx("workload %s: refusing freeze %d", rf.name, rf.on);
		return;
	}
	rf.ok = 0;
	if (rf.pid > 0 && (sp = spawned_find(rf.name, rf.pid)) != NULL &&
	    sp->cgroup && !sp->signalled &&
	    spawner_freeze(sp->pid, rf.on) == 0)
		rf.ok = 1;
	log_debug("workload %s: pid %d %s%s", rf.name, rf.pid,
	    rf.on ? "frozen" : "thawed", rf.ok ? "" : ": not done");
	if (proc_compose(&orchd_env->ps, PROC_RUNTIME, IMSG_RT_FROZEN, 0, -1,
	    &rf, sizeof(rf)) == -1)
		log_warn("workload %s: freeze to runtimed", rf.name);
}

static void
spawn_log_exit(const char *name, pid_t pid, int status, int oom)
{
	const char	*why = oom ? ", out of memory" : "";

	if (WIFSIGNALED(status))
		log_info("workload %s: pid %d killed by signal %d%s", name,
		    pid, WTERMSIG(status), why);
	else
		log_info("workload %s: pid %d exited with status %d%s", name,
		    pid, WEXITSTATUS(status), why);
}

/*
 * Killed for memory while it ran: its cgroup counted an OOM kill, of
 * it or of one of its processes (the spawner read it before the cgroup
 * went).  Where the kernel counts none (v1 before 4.13), a SIGKILL
 * nobody sent to a workload that hit its limit is taken for one.
 */
static int
spawn_oom(const struct spawned *sp, const struct sp_exit *ex)
{
	if (!sp->cgroup)
		return (0);
	if (ex->oom_kills >= 0)
		return (ex->oom_kills > 0);
	return (WIFSIGNALED(ex->status) && WTERMSIG(ex->status) == SIGKILL &&
	    !sp->killed && ex->failcnt > 0);
}

/*
 * Socket activation: a workload that exits on its own soon after its
 * start most likely did not take its socket from fd 3 and tried to
 * bind the port, which orchd holds (EADDRINUSE): said as the reason of
 * its failure, in place of its bare exit status.
 */
static void
spawn_sockact_exit(const struct spawned *sp, int status, struct rt_proc *rp)
{
	int64_t	 ms = monotime_ms() - sp->start_ms;
	char	 how[32];

	if (!sp->sockact || sp->signalled || ms >= SPAWN_SOCKACT_EARLY_MS ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return;
	if (WIFSIGNALED(status))
		(void)snprintf(how, sizeof(how), "killed by signal %d",
		    WTERMSIG(status));
	else
		(void)snprintf(how, sizeof(how), "exited with status %d",
		    WEXITSTATUS(status));
	msgf(rp->msg, sizeof(rp->msg), "misconfigured for socket activation: "
	    "%s %lld ms after its start; orchd holds its port and passes it "
	    "as fd 3 (LISTEN_FDS=1): a program that binds the port itself "
	    "fails (EADDRINUSE)", how, (long long)ms);
	log_warnx("workload %s: %s", sp->name, rp->msg);
	/*
	 * The flush accepts on a blocking socket: only when no other
	 * instance of the workload (a replace's) holds it, which could take
	 * the connection between the poll and the accept, and whose
	 * connections these would be.
	 */
	if (spawned_find(sp->name, 0) == NULL)
		sockact_flush(orchd_env->conf, sp->name);
}

/* the spawner reaped a workload's pid, and removed its cgroup */
void
spawn_exited(const struct sp_exit *ex)
{
	struct orchd	*env = orchd_env;
	struct spawned	*sp;
	struct rt_proc	 rp;
	pid_t		 pid = ex->pid;
	int		 status = ex->status;

	if ((sp = spawned_find(NULL, pid)) == NULL) {
		log_warnx("spawner: exit of pid %d, not a workload's",
		    (int)pid);
		return;
	}
	TAILQ_REMOVE(&spawned, sp, entry);
	memset(&rp, 0, sizeof(rp));
	rp.oom = spawn_oom(sp, ex);
	spawn_log_exit(sp->name, pid, status, rp.oom);
	/* its leftovers are gone: none may accept while it is flushed */
	if (!env->shutting_down)
		spawn_memory(sp->name, ex->memory);
	if (!rp.oom)
		spawn_sockact_exit(sp, status, &rp);
	/* its last words in its log before runtimed hears of its exit */
	wlog_flush(sp->name);
	strlcpy(rp.name, sp->name, sizeof(rp.name));
	rp.pid = pid;
	rp.status = status;
	free(sp);
	if (!env->shutting_down && proc_compose(&env->ps, PROC_RUNTIME,
	    IMSG_RT_EXITED, 0, -1, &rp, sizeof(rp)) == -1)
		log_warn("%s: compose", __func__);
}

/* those whose grace is over by now get SIGKILL */
static void
spawn_kill_late(int ms)
{
	struct spawned	*sp;

	TAILQ_FOREACH(sp, &spawned, entry) {
		if (sp->killed || (sp->grace_ms > ms &&
		    ms < SPAWN_STOP_GRACE_MS))
			continue;
		log_warnx("workload %s: pid %d did not stop, killing it",
		    sp->name, sp->pid);
		spawn_signal(sp, SIGKILL);
	}
}

/*
 * orchd stops: every workload gets its stop signal, then SIGKILL after
 * its stop timeout, but SPAWN_STOP_GRACE_MS at most (a service manager
 * waits for orchd only so long), and is reaped, so that none outlives
 * the daemon.  Bounded: a process stuck in the kernel is left with a
 * warning.
 */
void
spawn_shutdown(struct orchd *env)
{
	struct spawned	*sp;
	int		 ms, left;

	if (TAILQ_EMPTY(&spawned))
		return;
	log_info("stopping process workloads");
	TAILQ_FOREACH(sp, &spawned, entry)
		spawn_signal(sp, sp->stopsig);
	/* the spawner reaps them; its reports remove them (spawn_exited) */
	for (ms = 0; !TAILQ_EMPTY(&spawned) &&
	    ms < SPAWN_STOP_GRACE_MS + SPAWN_KILL_WAIT_MS;
	    ms += SPAWN_POLL_MS) {
		spawn_kill_late(ms);
		/* one that logs as it stops is not left waiting on its pipe */
		wlog_flush(NULL);
		if (spawner_drain(SPAWN_POLL_MS) == -1)
			break;
	}
	/*
	 * The spawner lost: they died with it; what escaped into their
	 * cgroups, the next start's sweep kills.  Else its SIGTERM removes
	 * the cgroups left.
	 */
	left = 0;
	while ((sp = TAILQ_FIRST(&spawned)) != NULL) {
		TAILQ_REMOVE(&spawned, sp, entry);
		free(sp);
		left++;
	}
	if (left > 0 && spawner_running())
		log_warnx("%d process workload%s could not be reaped", left,
		    left == 1 ? "" : "s");
}

/* the process workloads running, for the spawner's line of show summary */
uint32_t
spawn_count(void)
{
	struct spawned	*sp;
	uint32_t	 n = 0;

	TAILQ_FOREACH(sp, &spawned, entry)
		n++;
	return (n);
}
