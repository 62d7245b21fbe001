/*
 * The log files the parent writes: the access log, and each process
 * workload's standard output and error (LOGDIR/NAME.log).  Both come in
 * through pipes, so that the parent holds every file and can open it
 * again for logrotate (SIGUSR1, orchctl log reopen) or start a new one
 * at "log max size": a process's own descriptor could be replaced by
 * nobody.
 *
 * The access log's pipe is one for every gateway, made at start and
 * passed to each with the configuration (IMSG_CFG_ACCESSLOG).  The
 * gateways write whole lines to it, at most PIPE_BUF bytes at a time,
 * which a pipe keeps whole (gatewayd/accesslog.c): the pipe holds lines
 * one after the other and is copied to the file as it comes, or split
 * into lines for syslog.  The parent is the file's only writer.  Its
 * writes may wait for the disk, never a request: the gateways do not
 * wait for the pipe.  It is read at most every ALOG_PAUSE_MS, all that
 * is there, rather than at each gateway's write: the pipe holds a
 * megabyte.
 *
 * What the file refuses (a full disk, a quota, an I/O error) is held in
 * memory, in order, and written again on a timer, backing off from
 * ALOG_RETRY_MIN_MS to ALOG_RETRY_MAX_MS, until the file takes it
 * (orchd/alogq.c); the pipe is still read meanwhile, so the gateways
 * never wait.  At most ALOG_HELD_MAX bytes are held: newer lines are
 * dropped and counted past it, and logged once a minute.  The gateways
 * are told the counts when they change (IMSG_ALOG_QUEUE), for /metrics
 * and orchctl show summary.
 *
 * Why the parent writes, and no unprivileged child: the files must be
 * opened by root all the same (the log directory is root's, a workload's
 * file is chowned to it), at start, at each reopen and at each "log max
 * size", and a write(2) to a descriptor root opened grants nothing the
 * open did not; a child would need the descriptors passed at each of
 * those for no gain.  The parent parses none of it (syslog: it cuts at
 * newlines), and it is on no request's way: a slow disk delays its
 * control answers and the log, never a request.
 *
 * A workload's pipe is made at each start (spawn.c), its write end the
 * process's standard output and error, and read until every process
 * holding it is gone.  A workload that writes faster than the disk
 * takes waits in its write(2), as it would writing the file itself.
 * Files are opened O_NOFOLLOW and must be regular files: no link or
 * FIFO planted at the name redirects or blocks root's writes.
 *
 * With "log timestamps" in its block, each line a workload writes begins
 * in the file with the time the parent read it, ISO 8601 in UTC to the
 * millisecond and a space ("2026-12-06T10:55:32.123Z "): what one read
 * brings shares one time.  A line cut by a read is stamped once, at its
 * start: each pipe remembers whether it is within a line.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "alogq.h"
#include "compat.h"
#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"

#define LOGF_READ	(64 * 1024)	/* bytes per read(2) */
#define LOGF_READS	16		/* reads per turn of the loop */
#define ALOG_PIPE_SIZE	(1024 * 1024)	/* F_SETPIPE_SZ, the default max */
#define ALOG_PAUSE_MS	25		/* between reads of the pipe */
#define LOGF_WARN_SECS	60		/* one warning a minute per file */
#define LOGF_MODE	0640
#define ALOG_HELD_MAX	(4 * 1024 * 1024) /* lines held at most, bytes */
#define ALOG_RETRY_MIN_MS 250		/* the first retry of held lines */
#define ALOG_RETRY_MAX_MS 5000		/* the longest wait, doubling */

/* a workload's log file, and the pipes writing to it (usually one) */
struct wlog {
	TAILQ_ENTRY(wlog)	 entry;
	char			 name[ORCHD_NAME_MAX];
	char			 path[PATH_MAX];
	int			 fd;
	off_t			 size;
	uid_t			 uid;
	gid_t			 gid;
	int			 owned;		/* chowned to uid and gid */
	int			 npipes;
	time_t			 warned;	/* monotonic */
};

struct wlog_pipe {
	TAILQ_ENTRY(wlog_pipe)	 entry;
	struct wlog		*log;
	int			 fd;
	struct event		 ev;
	int			 stamps;	/* "log timestamps" */
	int			 midline;	/* its last byte was no \n */
};

static TAILQ_HEAD(, wlog)	 wlogs = TAILQ_HEAD_INITIALIZER(wlogs);
static TAILQ_HEAD(, wlog_pipe)	 wpipes = TAILQ_HEAD_INITIALIZER(wpipes);

/* the access log: the file in use, one being opened for a new config */
static struct {
	char		*path;		/* NULL: none (off, or syslog) */
	int		 fd;
	int		 syslog;
	char		*next_path;	/* accesslog_open() .. _commit() */
	int		 next_fd;
	int		 next_syslog;
	int		 pipe[2];	/* read, write */
	struct event	 ev;
	struct event	 pause;
	char		 partial[PIPE_BUF]; /* syslog: a line's start */
	size_t		 plen;
	struct alogq	 q;		/* what the file has not taken */
	struct event	 retry;
	int64_t		 retry_ms;
	time_t		 drop_warned;	/* monotonic */
	struct alog_queue_stats sent;	/* what the gateways were told */
} alog = { .fd = -1, .next_fd = -1, .pipe = { -1, -1 } };

static char	 logf_buf[LOGF_READ];

#define WLOG_STAMP_LEN	25		/* "2026-12-06T10:55:32.123Z " */
/* a read's lines, each after its time, gathered for fewer writes */
static char	 wlog_stamped_buf[2 * LOGF_READ];

static void	 wlog_read(int, short, void *);
static void	 alog_read(int, short, void *);
static void	 alog_resume(int, short, void *);
static void	 alog_retry(int, short, void *);
static void	 alog_handover(void);

/* once a minute per file: a full disk says so, not at every line */
static void
logf_warn(time_t *last, const char *path)
{
	time_t	 now = monotime();
	int	 saved = errno;

	if (*last != 0 && now - *last < LOGF_WARN_SECS)
		return;
	*last = now;
	errno = saved;
	log_warn("log file %s", path);
}

/*
 * Open path to append to, made if missing (its directory too, one level,
 * as spawn.c did for the log directory), and chowned when owned.  The
 * descriptor, or -1 with msg set.
 */
static int
logf_open(const char *path, int owned, uid_t uid, gid_t gid, char *msg,
    size_t len)
{
	struct stat	 st;
	char		 dir[PATH_MAX];
	int		 fd;

	strlcpy(dir, path, sizeof(dir));
	if (mkdir(dirname(dir), 0755) == -1 && errno != EEXIST) {
		snprintf(msg, len, "log directory %s: %s", dir,
		    strerror(errno));
		return (-1);
	}
	/* O_NONBLOCK: a FIFO there fails the check below, never hangs */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW | O_NONBLOCK, LOGF_MODE)) == -1) {
		snprintf(msg, len, "log file %s: %s", path, errno == ELOOP ?
		    "a symbolic link" : strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(msg, len, "log file %s: not a regular file", path);
		close(fd);
		return (-1);
	}
	if (owned && fchown(fd, uid, gid) == -1) {
		snprintf(msg, len, "chown %s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	return (fd);
}

/* all of buf, or -1 (errno set) */
static int
logf_write(int fd, const char *buf, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		buf += n;
		len -= n;
	}
	return (0);
}

/*
 * The access log.
 */

/*
 * The file a configuration names, opened before the configuration is
 * taken (at start, or a reload that is refused if it cannot be), kept
 * aside until accesslog_commit(); the same file as now is not opened
 * again.
 */
int
accesslog_open(const struct orchd_conf *conf, char *err, size_t errlen)
{
	accesslog_abort();
	alog.next_syslog = conf->access_log_syslog;
	if (conf->access_log == NULL)
		return (0);
	if ((alog.next_path = strdup(conf->access_log)) == NULL)
		fatal("%s", __func__);
	if (alog.path != NULL && strcmp(alog.path, conf->access_log) == 0)
		return (0);
	if ((alog.next_fd = logf_open(conf->access_log, 0, 0, 0, err,
	    errlen)) == -1) {
		accesslog_abort();
		return (-1);
	}
	return (0);
}

void
accesslog_abort(void)
{
	free(alog.next_path);
	alog.next_path = NULL;
	if (alog.next_fd != -1)
		close(alog.next_fd);
	alog.next_fd = -1;
	alog.next_syslog = 0;
}

/* the configuration is taken: its file is the one written from now */
void
accesslog_commit(void)
{
	if (alog.next_path == NULL || alog.next_fd != -1) {
		/* none now, or another file: the old one goes */
		if (alog.fd != -1)
			close(alog.fd);
		alog.fd = alog.next_fd;
		free(alog.path);
		alog.path = NULL;
	}
	if (alog.next_path != NULL) {
		free(alog.path);
		alog.path = alog.next_path;
	}
	alog.syslog = alog.next_syslog;
	alog.next_path = NULL;
	alog.next_fd = -1;
	alog.next_syslog = 0;
	alog_handover();
}

/* the pipe, once the event loop is there */
void
accesslog_init(void)
{
	if (pipe2(alog.pipe, O_CLOEXEC) == -1)
		fatal("%s: pipe", __func__);
	/* the gateways set their end non-blocking themselves */
	if (fcntl(alog.pipe[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	if (fcntl(alog.pipe[1], F_SETPIPE_SZ, ALOG_PIPE_SIZE) == -1)
		log_debug("%s: pipe size: %s", __func__, strerror(errno));
	event_set(&alog.ev, alog.pipe[0], EV_READ, alog_read, NULL);
	event_add(&alog.ev, NULL);
	evtimer_set(&alog.pause, alog_resume, NULL);
	alogq_init(&alog.q, ALOG_HELD_MAX);
	evtimer_set(&alog.retry, alog_retry, NULL);
	alog.retry_ms = ALOG_RETRY_MIN_MS;
}

/* in each configuration transaction: the pipe, to every gateway */
void
accesslog_send(struct orchd *env)
{
	int	 fd;

	if (alog.pipe[1] == -1 || (env->conf->access_log == NULL &&
	    !env->conf->access_log_syslog))
		return;
	if ((fd = dup(alog.pipe[1])) == -1)
		fatal("%s: dup", __func__);
	if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_ACCESSLOG, 0, fd,
	    NULL, 0) == -1)
		fatal("%s: compose", __func__);
}

/* syslog: a line a message, the start of the last one kept for more */
static void
alog_syslog(const char *buf, size_t len)
{
	const char	*nl;
	size_t		 n;

	while (len > 0) {
		if ((nl = memchr(buf, '\n', len)) == NULL) {
			n = MINIMUM(len, sizeof(alog.partial) - alog.plen);
			memcpy(alog.partial + alog.plen, buf, n);
			alog.plen += n;
			return;
		}
		n = nl - buf;
		if (alog.plen > 0) {
			n = MINIMUM(n, sizeof(alog.partial) - alog.plen);
			memcpy(alog.partial + alog.plen, buf, n);
			syslog(LOG_DAEMON | LOG_INFO, "%.*s",
			    (int)(alog.plen + n), alog.partial);
			alog.plen = 0;
		} else
			syslog(LOG_DAEMON | LOG_INFO, "%.*s", (int)n, buf);
		len -= nl - buf + 1;
		buf = nl + 1;
	}
}

/* the gateways are told what is held, when it changed (/metrics) */
static void
alog_report(void)
{
	if (memcmp(&alog.sent, &alog.q.stats, sizeof(alog.sent)) == 0)
		return;
	if (proc_compose(&orchd_env->ps, PROC_GATEWAY, IMSG_ALOG_QUEUE, 0, -1,
	    &alog.q.stats, sizeof(alog.q.stats)) == 0)
		alog.sent = alog.q.stats;
}

static ssize_t
alog_write_file(const char *buf, size_t len, void *arg)
{
	ssize_t	 n;

	while ((n = write(alog.fd, buf, len)) == -1 && errno == EINTR)
		;
	return (n);
}

static ssize_t
alog_write_syslog(const char *buf, size_t len, void *arg)
{
	alog_syslog(buf, len);
	return (len);
}

/*
 * What is held, to the file.  The first refusal of a stretch says so,
 * the lines held from then on; a retry that wrote nothing waits twice
 * as long for the next.
 */
static void
alog_flush(void)
{
	uint64_t	 before = alog.q.stats.bytes;
	int		 held = alog.q.held;

	if (alogq_flush(&alog.q, alog_write_file, NULL) == 0) {
		if (held)
			log_info("access log %s: the file takes the lines "
			    "again, every held line is written", alog.path);
		alog.retry_ms = ALOG_RETRY_MIN_MS;
		evtimer_del(&alog.retry);
		return;
	}
	if (!held) {
		log_warn("access log %s: lines held, and written again "
		    "until the file takes them", alog.path);
		alog.retry_ms = ALOG_RETRY_MIN_MS;
	} else if (alog.q.stats.bytes < before)
		alog.retry_ms = ALOG_RETRY_MIN_MS;
	else
		alog.retry_ms = MINIMUM(alog.retry_ms * 2, ALOG_RETRY_MAX_MS);
	evtimer_add_ms(&alog.retry, alog.retry_ms);
}

static void
alog_retry(int fd, short event, void *arg)
{
	if (alog.fd != -1 && !alogq_empty(&alog.q))
		alog_flush();
	alog_report();
}

/* bytes read for the file: behind what is held, else written now */
static void
alog_hold(const char *buf, size_t len)
{
	time_t	 now;

	if (alogq_add(&alog.q, buf, len) > 0) {
		now = monotime();
		if (alog.drop_warned == 0 ||
		    now - alog.drop_warned >= LOGF_WARN_SECS) {
			alog.drop_warned = now;
			log_warnx("access log %s: %llu lines held, no room "
			    "for more: newer lines are dropped and counted, "
			    "%llu so far", alog.path,
			    (unsigned long long)alog.q.stats.lines,
			    (unsigned long long)alog.q.stats.drops);
		}
	}
	if (!alog.q.held)
		alog_flush();
}

/*
 * Another destination (a reload): the lines held go to it, tried now;
 * to none, they are dropped and counted.
 */
static void
alog_handover(void)
{
	size_t	 n;

	if (alogq_empty(&alog.q))
		return;
	if (alog.syslog)
		(void)alogq_flush(&alog.q, alog_write_syslog, NULL);
	else if (alog.fd != -1)
		alog_flush();
	else if ((n = alogq_clear(&alog.q)) > 0)
		log_warnx("access log: %zu lines held are dropped: there is "
		    "no access log file to write them to now", n);
	if (alogq_empty(&alog.q))
		evtimer_del(&alog.retry);
	alog_report();
}

/* what the gateways wrote: to the file, to syslog, or (off) nowhere */
static void
alog_drain(void)
{
	ssize_t	 n;
	int	 i;

	for (i = 0; i < LOGF_READS; i++) {
		if ((n = read(alog.pipe[0], logf_buf, sizeof(logf_buf))) ==
		    -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				log_warn("%s: read", __func__);
			return;
		}
		if (n == 0)
			return;
		if (alog.syslog)
			alog_syslog(logf_buf, n);
		else if (alog.fd != -1)
			alog_hold(logf_buf, n);
		if ((size_t)n < sizeof(logf_buf))
			return;
	}
}

static void
alog_read(int fd, short event, void *arg)
{
	alog_drain();
	alog_report();
	evtimer_add_ms(&alog.pause, ALOG_PAUSE_MS);
}

static void
alog_resume(int fd, short event, void *arg)
{
	event_add(&alog.ev, NULL);
}

/*
 * The process workloads' logs.
 */

static struct wlog *
wlog_find(const char *name)
{
	struct wlog	*wl;

	TAILQ_FOREACH(wl, &wlogs, entry)
		if (strcmp(wl->name, name) == 0)
			return (wl);
	return (NULL);
}

/*
 * At "log max size": NAME.log becomes NAME.log.1, replacing the one
 * before, and a new NAME.log is begun.  A NAME.log gone already (the
 * operator's logrotate) is not an error: the new one is begun.  If the
 * rename fails for another reason, the file grows, with a warning.
 */
static void
wlog_rotate(struct wlog *wl)
{
	char	 old[PATH_MAX], msg[CTL_MSG_MAX];
	int	 fd;

	if ((size_t)snprintf(old, sizeof(old), "%s.1", wl->path) >=
	    sizeof(old) || (rename(wl->path, old) == -1 && errno != ENOENT)) {
		logf_warn(&wl->warned, wl->path);
		wl->size = 0;	/* try again at the next SIZE */
		return;
	}
	if ((fd = logf_open(wl->path, wl->owned, wl->uid, wl->gid, msg,
	    sizeof(msg))) == -1) {
		log_warnx("workload %s: %s", wl->name, msg);
		wl->size = 0;
		return;
	}
	close(wl->fd);
	wl->fd = fd;
	wl->size = 0;
}

/*
 * Append to a workload's log.  With a cap, a file ends at the last
 * newline that fits (or at the cap, for a line longer than it), and the
 * rest goes to the next file.
 */
static void
wlog_append(struct wlog *wl, const char *buf, size_t len)
{
	int64_t		 max = orchd_env->conf->log_max_size;
	const char	*nl;
	size_t		 n, room;

	while (len > 0) {
		n = len;
		if (max > 0 && wl->size + (off_t)len > max) {
			room = wl->size < max ? (size_t)(max - wl->size) : 0;
			nl = room > 0 ? memrchr(buf, '\n', room) : NULL;
			if (nl != NULL)
				n = nl - buf + 1;
			else
				n = wl->size == 0 ? room : 0;
		}
		if (n > 0) {
			if (logf_write(wl->fd, buf, n) == -1) {
				logf_warn(&wl->warned, wl->path);
				return;
			}
			wl->size += n;
			buf += n;
			len -= n;
		}
		/* what is left did not fit */
		if (len > 0)
			wlog_rotate(wl);
	}
}

/* now, as each line of a read is stamped: WLOG_STAMP_LEN bytes, no NUL */
static void
wlog_stamp(char *out)
{
	struct timespec	 ts;
	struct tm	 tm;
	char		 buf[WLOG_STAMP_LEN + 8];

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	if (gmtime_r(&ts.tv_sec, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm) != 19)
		(void)strlcpy(buf, "0000-00-00T00:00:00", sizeof(buf));
	(void)snprintf(buf + 19, sizeof(buf) - 19, ".%03dZ ",
	    (int)(ts.tv_nsec / 1000000 % 1000));
	memcpy(out, buf, WLOG_STAMP_LEN);
}

/*
 * Append what a read brought, each line after its time if the workload
 * asks for it, gathered in wlog_stamped_buf and written when it is
 * full: a line never parts from its time, as wlog_append() cuts files
 * at a newline.
 */
static void
wlog_put(struct wlog_pipe *wp, const char *buf, size_t len)
{
	char		 stamp[WLOG_STAMP_LEN];
	const char	*nl;
	size_t		 n, out = 0;

	if (!wp->stamps) {
		wlog_append(wp->log, buf, len);
		return;
	}
	wlog_stamp(stamp);
	while (len > 0) {
		n = (nl = memchr(buf, '\n', len)) != NULL ?
		    (size_t)(nl - buf) + 1 : len;
		/* a read is LOGF_READ at most: stamp and line fit, empty */
		if (out + sizeof(stamp) + n > sizeof(wlog_stamped_buf)) {
			wlog_append(wp->log, wlog_stamped_buf, out);
			out = 0;
		}
		if (!wp->midline) {
			memcpy(wlog_stamped_buf + out, stamp, sizeof(stamp));
			out += sizeof(stamp);
		}
		memcpy(wlog_stamped_buf + out, buf, n);
		out += n;
		wp->midline = nl == NULL;
		buf += n;
		len -= n;
	}
	if (out > 0)
		wlog_append(wp->log, wlog_stamped_buf, out);
}

static void
wlog_pipe_free(struct wlog_pipe *wp)
{
	struct wlog	*wl = wp->log;

	event_del(&wp->ev);
	close(wp->fd);
	TAILQ_REMOVE(&wpipes, wp, entry);
	free(wp);
	if (--wl->npipes > 0)
		return;
	close(wl->fd);
	TAILQ_REMOVE(&wlogs, wl, entry);
	free(wl);
}

/* what the pipe holds now, bounded; 1 once it is closed and freed */
static int
wlog_drain(struct wlog_pipe *wp)
{
	ssize_t	 n;
	int	 i;

	for (i = 0; i < LOGF_READS; i++) {
		if ((n = read(wp->fd, logf_buf, sizeof(logf_buf))) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return (0);
			log_warn("workload %s: log pipe", wp->log->name);
			n = 0;
		}
		if (n == 0) {
			wlog_pipe_free(wp);
			return (1);
		}
		wlog_put(wp, logf_buf, n);
	}
	return (0);
}

static void
wlog_read(int fd, short event, void *arg)
{
	(void)wlog_drain(arg);
}

/*
 * A start of workload name: a pipe whose write end (returned, close on
 * exec) becomes its standard output and error, read into LOGDIR/NAME.log
 * until every process holding it is gone.  owned: the file is chowned
 * to uid and gid, the workload's; stamps: its lines are timed.  -1 with msg set if the file cannot be
 * opened.
 */
int
wlog_start(struct orchd *env, const char *name, int owned, uid_t uid,
    gid_t gid, int stamps, char *msg, size_t len)
{
	struct wlog		*wl;
	struct wlog_pipe	*wp;
	struct stat		 st;
	int			 p[2], fd;

	if ((wl = wlog_find(name)) == NULL) {
		if ((wl = calloc(1, sizeof(*wl))) == NULL) {
			snprintf(msg, len, "%s", strerror(errno));
			return (-1);
		}
		strlcpy(wl->name, name, sizeof(wl->name));
		wl->fd = -1;
		if ((size_t)snprintf(wl->path, sizeof(wl->path), "%s/%s.log",
		    env->conf->logdir, name) >= sizeof(wl->path)) {
			snprintf(msg, len, "log file name too long");
			free(wl);
			return (-1);
		}
	} else if (wl->owned == owned && wl->uid == uid && wl->gid == gid)
		goto open;
	/* new, or another owner since (its user changed): opened again */
	if ((fd = logf_open(wl->path, owned, uid, gid, msg, len)) == -1) {
		if (wl->npipes == 0)
			free(wl);
		return (-1);
	}
	if (wl->fd != -1)
		close(wl->fd);
	wl->fd = fd;
	wl->owned = owned;
	wl->uid = uid;
	wl->gid = gid;
	wl->size = fstat(wl->fd, &st) == 0 ? st.st_size : 0;
	if (wl->npipes == 0)
		TAILQ_INSERT_TAIL(&wlogs, wl, entry);
 open:
	p[0] = p[1] = -1;
	/*
	 * The pipe is the workload's, as the file was: a program that
	 * opens /dev/stdout (nginx's "access_log /dev/stdout") opens the
	 * pipe again, which its owner alone may.
	 */
	if ((wp = calloc(1, sizeof(*wp))) == NULL || pipe2(p, O_CLOEXEC) ==
	    -1 || fcntl(p[0], F_SETFL, O_NONBLOCK) == -1 ||
	    (owned && fchown(p[1], uid, gid) == -1)) {
		snprintf(msg, len, "log pipe: %s", strerror(errno));
		if (p[0] != -1) {
			close(p[0]);
			close(p[1]);
		}
		free(wp);
		if (wl->npipes == 0) {
			close(wl->fd);
			TAILQ_REMOVE(&wlogs, wl, entry);
			free(wl);
		}
		return (-1);
	}
	wp->log = wl;
	wp->fd = p[0];
	wp->stamps = stamps;
	wl->npipes++;
	event_set(&wp->ev, wp->fd, EV_READ | EV_PERSIST, wlog_read, wp);
	event_add(&wp->ev, NULL);
	TAILQ_INSERT_TAIL(&wpipes, wp, entry);
	return (p[1]);
}

/*
 * What a workload wrote, in its file before anything else is said of
 * it: its exit is reported, or its start refused, after its last words.
 * name NULL: every workload's (the stop of orchd).
 */
void
wlog_flush(const char *name)
{
	struct wlog_pipe	*wp, *next;

	TAILQ_FOREACH_SAFE(wp, &wpipes, entry, next)
		if (name == NULL || strcmp(wp->log->name, name) == 0)
			(void)wlog_drain(wp);
}

/*
 * logrotate renamed the files: open each again at its name, made anew.
 * One that cannot be opened keeps being written where it was; the
 * first error is said.  The access log's pipe is drained first, so that
 * the old file gets the lines of before.
 */
int
logfiles_reopen(char *err, size_t errlen)
{
	struct wlog	*wl;
	struct stat	 st;
	char		 msg[CTL_MSG_MAX];
	int		 fd, rv = 0;

	err[0] = '\0';
	if (alog.pipe[0] != -1)
		alog_drain();
	wlog_flush(NULL);
	if (alog.path != NULL) {
		if ((fd = logf_open(alog.path, 0, 0, 0, msg,
		    sizeof(msg))) == -1) {
			log_warnx("access log: %s", msg);
			strlcpy(err, msg, errlen);
			rv = -1;
		} else {
			close(alog.fd);
			alog.fd = fd;
		}
		/* lines held: to the new file, tried now */
		if (alog.q.held)
			alog_flush();
		alog_report();
	}
	TAILQ_FOREACH(wl, &wlogs, entry) {
		if ((fd = logf_open(wl->path, wl->owned, wl->uid, wl->gid,
		    msg, sizeof(msg))) == -1) {
			log_warnx("workload %s: %s", wl->name, msg);
			if (rv == 0)
				strlcpy(err, msg, errlen);
			rv = -1;
			continue;
		}
		close(wl->fd);
		wl->fd = fd;
		wl->size = fstat(fd, &st) == 0 ? st.st_size : 0;
	}
	log_info("log files reopened");
	return (rv);
}

/*
 * orchd stops: the last lines of the gateways and workloads go in; the
 * access log's lines held are tried once more, then lost, with a word.
 */
void
logfiles_shutdown(void)
{
	size_t	 n;

	if (alog.pipe[0] != -1) {
		alog_drain();
		if (alog.q.held && alog.fd != -1)
			alog_flush();
		if ((n = alogq_clear(&alog.q)) > 0)
			log_warnx("access log %s: %zu lines held could not be "
			    "written, lost", alog.path != NULL ? alog.path :
			    "", n);
	}
	wlog_flush(NULL);
}
