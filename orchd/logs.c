/*
 * orchctl logs: the captured standard output and standard error of a
 * workload.  The parent answers it itself: it owns LOGDIR/NAME.log, which
 * it writes from the process workloads' pipes (logfiles.c) and which
 * runtimed, chrooted, cannot read.
 *
 * The start of the last N lines is found by reading the file backwards
 * in blocks, a bounded number of them per turn of the event loop.  The
 * bytes from there are sent as IMSG_CTL_LOGDATA messages at the pace the
 * client takes them: no more than LOGS_QUEUE_MAX wait in its queue, so a
 * connection holds a bounded amount of memory whatever the size of the
 * file, and a client that takes nothing for LOGS_STALL seconds while
 * there is more to send is dropped.  The reply ends with IMSG_CTL_END; a
 * file that does not exist yet is an empty log.
 *
 * With follow there is no END: a timer looks at the file every
 * LOGS_POLL_MS and sends what was appended, starts again from the top of
 * a file that was truncated, and moves to the new file once the old one
 * has been renamed away (rotated) and read to its end, until the client
 * closes the connection, which cancels its requests (request.c).
 *
 * The same serves the HTTP API, whose requests come from a gateway: the
 * asker (struct proc_asker) says where the answer goes, and a reader is
 * one of the parent's requests in flight, which the asker's leaving
 * cancels (logs_cancel).  A docker workload's logs are runtimed's to read
 * (logs_docker): a request to it, whose answers request.c relays.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "timer.h"
#include "units.h"
#include "workload.h"

#define LOGS_CHUNK	(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
#define LOGS_BLOCK	16384		/* read backwards by this much */
#define LOGS_SCAN_BLOCKS 64		/* ... and this many blocks a turn */
#define LOGS_QUEUE_MAX	16		/* messages waiting for a client */
#define LOGS_POLL_MS	250		/* follow: look for more */
#define LOGS_BUSY_MS	10		/* the client's queue is full */
#define LOGS_STALL	30		/* seconds a client may take nothing */

enum logs_phase {
	LOGS_SCAN,			/* looking for the last N lines */
	LOGS_SEND			/* sending from off */
};

struct logs_conn {
	struct request		*req;		/* its asker; it hangs off it */
	char			 path[PATH_MAX];
	int			 fd;		/* -1: no file yet */
	dev_t			 dev;		/* of the file open in fd */
	ino_t			 ino;
	enum logs_phase		 phase;
	int32_t			 lines;		/* LOGS_SCAN: wanted */
	int32_t			 seen;		/* LOGS_SCAN: found so far */
	off_t			 scan;		/* LOGS_SCAN: scanned down to */
	off_t			 off;		/* the next byte to send */
	off_t			 end;		/* without follow: stop here */
	int			 follow;
	time_t			 stalled;	/* monotonic; 0: not stalled */
	struct event		 ev;
};

static void		 logs_free(struct logs_conn *);
static void		 logs_fail(struct logs_conn *, const char *, ...)
			    __attribute__((__format__ (printf, 2, 3)));
static void		 logs_drop(struct logs_conn *, const char *);
static int		 logs_open(struct logs_conn *, const char **);
static int		 logs_scan(struct logs_conn *);
static int		 logs_check(struct logs_conn *);
static int		 logs_pump(struct logs_conn *);
static void		 logs_tick(int, short, void *);

static void
logs_free(struct logs_conn *lc)
{
	evtimer_del(&lc->ev);
	if (lc->fd != -1)
		close(lc->fd);
	request_free(lc->req);
	free(lc);
}

/* the asker left (request_cancel) */
static void
logs_cancel(struct request *r)
{
	logs_free(r->data);
}

static void
logs_fail(struct logs_conn *lc, const char *fmt, ...)
{
	char	 msg[CTL_MSG_MAX];
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)proc_reply_fail(&orchd_env->ps, &lc->req->asker, CTL_ERR_FAILED,
	    "%s", msg);
}

/*
 * A client that does not read.  A control connection is shut down here;
 * its channel sees the end of file on its next turn and closes it the
 * usual way (control_closed), which cancels its requests, this one gone
 * already.  The channel of one of our processes (the gateway, for the
 * API) is never cut: its request fails instead.
 */
static void
logs_drop(struct logs_conn *lc, const char *why)
{
	struct imsgev	*iev;

	log_warnx("control: logs %s: dropping the client: %s", lc->path, why);
	if (lc->req->asker.peer != PROC_CLIENT)
		logs_fail(lc, "log reader too slow: %s", why);
	else if ((iev = proc_reply_channel(&orchd_env->ps,
	    &lc->req->asker)) != NULL && shutdown(iev->ibuf.fd,
	    SHUT_RDWR) == -1)
		log_warn("control: shutdown");
	logs_free(lc);
}

/*
 * Open the log file: 1 when it is open, 0 when there is none yet, -1
 * with why set.  O_NOFOLLOW and the type check keep root from reading
 * anything but a regular file at that name; O_NONBLOCK from hanging on
 * a FIFO planted there.
 */
static int
logs_open(struct logs_conn *lc, const char **why)
{
	struct stat	 st;
	int		 fd;

	if ((fd = open(lc->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (0);
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return (-1);
	}
	if (fstat(fd, &st) == -1) {
		*why = strerror(errno);
		close(fd);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return (-1);
	}
	if (lc->fd != -1)
		close(lc->fd);
	lc->fd = fd;
	lc->dev = st.st_dev;
	lc->ino = st.st_ino;
	lc->end = st.st_size;
	return (1);
}

/*
 * Look for the start of the last lines, backwards from the end, a
 * bounded number of blocks at a time: 1 when found (off is set), 0 to
 * come back for more, -1 on a read error.  A newline that ends the file
 * ends its last line, it does not start another.
 */
static int
logs_scan(struct logs_conn *lc)
{
	char	 buf[LOGS_BLOCK];
	ssize_t	 n, i;
	off_t	 len;
	int	 blocks;

	for (blocks = 0; blocks < LOGS_SCAN_BLOCKS; blocks++) {
		if (lc->scan == 0) {
			lc->off = 0;
			return (1);
		}
		len = MINIMUM(lc->scan, LOGS_BLOCK);
		lc->scan -= len;
		while ((n = pread(lc->fd, buf, (size_t)len, lc->scan)) == -1)
			if (errno != EINTR)
				return (-1);
		for (i = n - 1; i >= 0; i--) {
			if (buf[i] != '\n' || lc->scan + i == lc->end - 1)
				continue;
			if (++lc->seen == lc->lines) {
				lc->off = lc->scan + i + 1;
				return (1);
			}
		}
	}
	return (0);
}

/*
 * Follow: what became of the file since the last look.  0, or -1 after
 * a FAIL was sent.
 */
static int
logs_check(struct logs_conn *lc)
{
	struct stat	 st, cur;
	const char	*why;

	if (lc->fd == -1) {
		/* not written yet: from its first byte once it is */
		switch (logs_open(lc, &why)) {
		case -1:
			logs_fail(lc, "log file %s: %s", lc->path, why);
			return (-1);
		case 0:
			return (0);
		default:
			lc->off = 0;
			return (0);
		}
	}
	if (fstat(lc->fd, &st) == -1) {
		logs_fail(lc, "log file %s: %s", lc->path,
		    strerror(errno));
		return (-1);
	}
	if (st.st_size < lc->off) {
		log_debug("control: logs %s: truncated", lc->path);
		lc->off = 0;
	}
	lc->end = st.st_size;
	/* rotated: the old file to its end first, then the new one */
	if (lc->off < lc->end)
		return (0);
	if (stat(lc->path, &cur) == -1 ||
	    (cur.st_dev == lc->dev && cur.st_ino == lc->ino))
		return (0);
	log_debug("control: logs %s: a new file", lc->path);
	switch (logs_open(lc, &why)) {
	case -1:
		logs_fail(lc, "log file %s: %s", lc->path, why);
		return (-1);
	case 0:
		return (0);
	default:
		lc->off = 0;
		return (0);
	}
}

/*
 * Send from off up to end while the client's queue has room: 0 when all
 * of it was sent, 1 when the queue is full, -1 after a FAIL was sent.
 */
static int
logs_pump(struct logs_conn *lc)
{
	static char	 buf[LOGS_CHUNK];
	struct imsgev	*iev;
	ssize_t		 n;
	size_t		 len;

	while (lc->off < lc->end) {
		/* the asker's channel, whose queue paces the reply */
		if ((iev = proc_reply_channel(&orchd_env->ps,
		    &lc->req->asker)) == NULL)
			return (-1);
		if (imsgbuf_queuelen(&iev->ibuf) >= LOGS_QUEUE_MAX)
			return (1);
		len = MINIMUM(lc->end - lc->off, (off_t)sizeof(buf));
		if ((n = pread(lc->fd, buf, len, lc->off)) == -1) {
			if (errno == EINTR)
				continue;
			logs_fail(lc, "log file %s: %s", lc->path,
			    strerror(errno));
			return (-1);
		}
		if (n == 0) {
			/* truncated under us: what was there is gone */
			lc->end = lc->off;
			break;
		}
		(void)proc_reply(&orchd_env->ps, &lc->req->asker,
		    IMSG_CTL_LOGDATA, buf, n);
		lc->off += n;
	}
	return (0);
}

static void
logs_tick(int fd, short event, void *arg)
{
	struct logs_conn	*lc = arg;
	time_t			 now;

	if (lc->phase == LOGS_SCAN) {
		switch (logs_scan(lc)) {
		case -1:
			logs_fail(lc, "log file %s: %s", lc->path,
			    strerror(errno));
			logs_free(lc);
			return;
		case 0:
			evtimer_add_ms(&lc->ev, 0);
			return;
		default:
			lc->phase = LOGS_SEND;
			break;
		}
	} else if (lc->follow && logs_check(lc) == -1) {
		logs_free(lc);
		return;
	}

	if (lc->fd == -1) {
		evtimer_add_ms(&lc->ev, LOGS_POLL_MS);
		return;
	}
	switch (logs_pump(lc)) {
	case -1:
		logs_free(lc);
		return;
	case 1:
		now = monotime();
		if (lc->stalled == 0)
			lc->stalled = now;
		else if (now - lc->stalled >= LOGS_STALL) {
			logs_drop(lc, "it does not read");
			return;
		}
		evtimer_add_ms(&lc->ev, LOGS_BUSY_MS);
		return;
	default:
		lc->stalled = 0;
		break;
	}
	if (lc->follow) {
		evtimer_add_ms(&lc->ev, LOGS_POLL_MS);
		return;
	}
	(void)proc_reply_end(&orchd_env->ps, &lc->req->asker);
	logs_free(lc);
}

/*
 * A docker workload's log is its container's, which only runtimed can
 * reach (runtimed/docker_logs.c): a request to it, answered with
 * IMSG_CTL_LOGDATA items and then IMSG_CTL_END or IMSG_CTL_FAIL, which
 * request.c relays to the asker.
 */
static void
logs_docker(const struct proc_asker *a, const struct ctl_logs *cl)
{
	struct request	*r;

	if (request_busy(a)) {
		(void)proc_reply_fail(&orchd_env->ps, a, CTL_ERR_FAILED,
		    "a request is already under way");
		return;
	}
	if ((r = request_new(a)) == NULL) {
		(void)proc_reply_fail(&orchd_env->ps, a, CTL_ERR_FAILED,
		    "out of memory");
		return;
	}
	if (request_send(r, PROC_RUNTIME, 0, IMSG_CTL_LOGS, cl,
	    sizeof(*cl)) == -1) {
		(void)proc_reply_fail(&orchd_env->ps, a, CTL_ERR_FAILED,
		    "runtime is not answering");
		request_free(r);
	}
}

/* where a new reader starts: 0, or -1 after a FAIL (lc not freed) */
static int
logs_begin(struct logs_conn *lc, const struct proc_asker *a)
{
	const char	*why;

	switch (logs_open(lc, &why)) {
	case -1:
		(void)proc_reply_fail(&orchd_env->ps, a, CTL_ERR_FAILED,
		    "log file %s: %s", lc->path, why);
		return (-1);
	case 0:
		/* nothing logged yet: an empty log, or what comes */
		lc->phase = LOGS_SEND;
		return (0);
	default:
		lc->phase = LOGS_SCAN;
		lc->scan = lc->end;
		if (lc->lines == 0) {
			lc->off = lc->end;
			lc->phase = LOGS_SEND;
		} else if (lc->lines < 0) {
			lc->off = 0;
			lc->phase = LOGS_SEND;
		}
		return (0);
	}
}

/* a process workload's file: a reader, hung off a request of a's */
static void
logs_file(const struct proc_asker *a, const struct workload_conf *wc,
    const struct ctl_logs *cl)
{
	struct privsep		*ps = &orchd_env->ps;
	struct logs_conn	*lc;

	/* a new request of the same asker replaces the old one */
	request_cancel(a);
	if ((lc = calloc(1, sizeof(*lc))) == NULL) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED, "out of memory");
		return;
	}
	lc->fd = -1;
	lc->follow = cl->follow != 0;
	lc->lines = cl->lines;
	if ((size_t)snprintf(lc->path, sizeof(lc->path), "%s/%s.log",
	    orchd_env->conf->logdir, wc->name) >= sizeof(lc->path)) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED,
		    "log file name too long");
		free(lc);
		return;
	}
	if (logs_begin(lc, a) == -1) {
		free(lc);
		return;
	}
	if (lc->fd == -1 && !lc->follow) {
		(void)proc_reply_end(ps, a);
		free(lc);
		return;
	}
	if ((lc->req = request_new(a)) == NULL) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED, "out of memory");
		if (lc->fd != -1)
			close(lc->fd);
		free(lc);
		return;
	}
	lc->req->data = lc;
	lc->req->cancel = logs_cancel;
	evtimer_set(&lc->ev, logs_tick, lc);
	evtimer_add_ms(&lc->ev, 0);
}

/*
 * IMSG_CTL_LOGS from a, a control connection or a gateway's API request:
 * checked and answered here, by runtimed for a container, by logs_tick
 * for a file.
 */
void
logs_start(const struct proc_asker *a, const struct ctl_logs *cl)
{
	struct privsep			*ps = &orchd_env->ps;
	const struct workload_conf	*wc;
	struct workload_conf		*tmp;

	if (cl->lines < -1) {
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED,
		    "invalid number of lines: %d", cl->lines);
		return;
	}
	wc = pdef_find(orchd_env->conf, cl->name, &tmp);
	/* a configured name is valid: no "/" or ".." in the path */
	if (wc == NULL || !valid_workload_name(wc->name))
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED,
		    "no such workload: %s", cl->name);
	/* a service's logs are spread over its nodes: not orchd's to read */
	else if (wc->driver == DRIVER_SWARM)
		(void)proc_reply_fail(ps, a, CTL_ERR_FAILED, "workload %s is "
		    "a swarm service: docker service logs orchd-%s", wc->name,
		    wc->name);
	/* a container's log is the Docker daemon's: runtimed reads it */
	else if (wc->driver == DRIVER_DOCKER)
		logs_docker(a, cl);
	else
		logs_file(a, wc, cl);
	workload_free(tmp);
}
