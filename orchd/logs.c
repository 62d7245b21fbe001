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
 * closes the connection (logs_stop).
 *
 * The same serves the HTTP API, whose requests come from the gateway with
 * ids that carry CTL_ID_API (control_reply sends their answers there),
 * and docker workloads, whose logs runtimed reads (logs_docker).
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	TAILQ_ENTRY(logs_conn)	 entry;
	uint32_t		 id;		/* the control connection */
	struct imsgev		*iev;		/* its channel, for its queue */
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

static TAILQ_HEAD(, logs_conn)	 logs_conns =
				    TAILQ_HEAD_INITIALIZER(logs_conns);

static struct logs_conn	*logs_find(uint32_t);
static void		 logs_free(struct logs_conn *);
static void		 logs_drop(struct logs_conn *, const char *);
static int		 logs_open(struct logs_conn *, const char **);
static int		 logs_scan(struct logs_conn *);
static int		 logs_check(struct logs_conn *);
static int		 logs_pump(struct logs_conn *);
static void		 logs_tick(int, short, void *);

static struct logs_conn *
logs_find(uint32_t id)
{
	struct logs_conn	*lc;

	TAILQ_FOREACH(lc, &logs_conns, entry)
		if (lc->id == id)
			return (lc);
	return (NULL);
}

static void
logs_free(struct logs_conn *lc)
{
	evtimer_del(&lc->ev);
	if (lc->fd != -1)
		close(lc->fd);
	TAILQ_REMOVE(&logs_conns, lc, entry);
	free(lc);
}

/*
 * A client that does not read.  A control connection is shut down here;
 * its channel sees the end of file on its next turn and closes it the
 * usual way (control_closed), which calls logs_stop for an id already
 * gone.  The channel of one of our processes (the gateway, for the API)
 * is never cut: its request fails instead.
 */
static void
logs_drop(struct logs_conn *lc, const char *why)
{
	log_warnx("control: logs %s: dropping the client: %s", lc->path, why);
	if (lc->iev->peer != -1)
		control_fail(lc->id, "log reader too slow: %s", why);
	else if (shutdown(lc->iev->ibuf.fd, SHUT_RDWR) == -1)
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
			control_fail(lc->id, "log file %s: %s", lc->path, why);
			return (-1);
		case 0:
			return (0);
		default:
			lc->off = 0;
			return (0);
		}
	}
	if (fstat(lc->fd, &st) == -1) {
		control_fail(lc->id, "log file %s: %s", lc->path,
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
		control_fail(lc->id, "log file %s: %s", lc->path, why);
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
	ssize_t		 n;
	size_t		 len;

	while (lc->off < lc->end) {
		if (imsgbuf_queuelen(&lc->iev->ibuf) >= LOGS_QUEUE_MAX)
			return (1);
		len = MINIMUM(lc->end - lc->off, (off_t)sizeof(buf));
		if ((n = pread(lc->fd, buf, len, lc->off)) == -1) {
			if (errno == EINTR)
				continue;
			control_fail(lc->id, "log file %s: %s", lc->path,
			    strerror(errno));
			return (-1);
		}
		if (n == 0) {
			/* truncated under us: what was there is gone */
			lc->end = lc->off;
			break;
		}
		control_reply(lc->id, IMSG_CTL_LOGDATA, buf, n);
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
			control_fail(lc->id, "log file %s: %s", lc->path,
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
	control_reply(lc->id, IMSG_CTL_END, NULL, 0);
	logs_free(lc);
}

/*
 * A docker workload's log is its container's, which only runtimed can
 * reach (runtimed/docker_logs.c): the request is forwarded there under
 * the control connection's id, and runtimed's answer, IMSG_CTL_LOGDATA
 * items and then IMSG_CTL_END or IMSG_CTL_FAIL, comes back through
 * logs_docker_reply, which hands whatever is not a log's to the control
 * relay.
 */
struct logs_fwd {
	TAILQ_ENTRY(logs_fwd)	 entry;
	uint32_t		 id;
};
static TAILQ_HEAD(, logs_fwd)	 logs_fwds = TAILQ_HEAD_INITIALIZER(logs_fwds);

static struct logs_fwd *
logs_fwd_find(uint32_t id)
{
	struct logs_fwd	*lf;

	TAILQ_FOREACH(lf, &logs_fwds, entry)
		if (lf->id == id)
			return (lf);
	return (NULL);
}

static void
logs_fwd_free(struct logs_fwd *lf)
{
	TAILQ_REMOVE(&logs_fwds, lf, entry);
	free(lf);
}

static void
logs_docker(uint32_t id, const struct ctl_logs *cl)
{
	struct logs_fwd	*lf;

	if (logs_fwd_find(id) != NULL) {
		control_fail(id, "a request is already under way");
		return;
	}
	if ((lf = calloc(1, sizeof(*lf))) == NULL) {
		control_fail(id, "out of memory");
		return;
	}
	if (proc_compose(&orchd_env->ps, PROC_RUNTIME, IMSG_CTL_LOGS, id, -1,
	    cl, sizeof(*cl)) == -1) {
		control_fail(id, "runtime is not answering");
		free(lf);
		return;
	}
	lf->id = id;
	TAILQ_INSERT_TAIL(&logs_fwds, lf, entry);
}

void
logs_docker_reply(struct imsgev *iev, struct imsg *imsg)
{
	struct logs_fwd	*lf;
	uint32_t	 id = imsg_get_id(imsg), type = imsg_get_type(imsg);

	if (iev->peer != PROC_RUNTIME || (lf = logs_fwd_find(id)) == NULL) {
		if (type == IMSG_CTL_END)
			control_recv_end(iev, imsg);
		else if (type == IMSG_CTL_FAIL)
			control_recv_result(iev, imsg);
		return;
	}
	control_reply(id, type, imsg->data, imsg_get_len(imsg));
	if (type != IMSG_CTL_LOGDATA)
		logs_fwd_free(lf);
}

/*
 * IMSG_CTL_LOGS for id, a control connection or an API request, which
 * came on channel iev (whose queue paces the reply): the request is
 * checked and answered here, the rest by logs_tick.
 */
void
logs_start(struct imsgev *iev, uint32_t id, const struct ctl_logs *cl)
{
	struct orchd_conf		*conf = orchd_env->conf;
	const struct workload_conf	*wc;
	struct logs_conn		*lc;
	const char			*why;

	if (cl->lines < -1) {
		control_fail(id, "invalid number of lines: %d", cl->lines);
		return;
	}
	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (strcmp(wc->name, cl->name) == 0)
			break;
	/* a configured name is valid: no "/" or ".." in the path */
	if (wc == NULL || !valid_workload_name(wc->name)) {
		control_fail(id, "no such workload: %s", cl->name);
		return;
	}
	/* a service's logs are spread over its nodes: not orchd's to read */
	if (wc->driver == DRIVER_SWARM) {
		control_fail(id, "workload %s is a swarm service: docker "
		    "service logs orchd-%s", wc->name, wc->name);
		return;
	}
	/* a container's log is the Docker daemon's: runtimed reads it */
	if (wc->driver == DRIVER_DOCKER) {
		logs_docker(id, cl);
		return;
	}
	/* a new request on the same connection replaces the old one */
	if ((lc = logs_find(id)) != NULL)
		logs_free(lc);

	if ((lc = calloc(1, sizeof(*lc))) == NULL) {
		control_fail(id, "out of memory");
		return;
	}
	lc->id = id;
	lc->iev = iev;
	lc->fd = -1;
	lc->follow = cl->follow != 0;
	lc->lines = cl->lines;
	if ((size_t)snprintf(lc->path, sizeof(lc->path), "%s/%s.log",
	    conf->logdir, wc->name) >= sizeof(lc->path)) {
		control_fail(id, "log file name too long");
		free(lc);
		return;
	}
	switch (logs_open(lc, &why)) {
	case -1:
		control_fail(id, "log file %s: %s", lc->path, why);
		free(lc);
		return;
	case 0:
		/* nothing logged yet */
		if (!lc->follow) {
			control_reply(id, IMSG_CTL_END, NULL, 0);
			free(lc);
			return;
		}
		lc->phase = LOGS_SEND;
		break;
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
		break;
	}
	TAILQ_INSERT_TAIL(&logs_conns, lc, entry);
	evtimer_set(&lc->ev, logs_tick, lc);
	evtimer_add_ms(&lc->ev, 0);
}

/* control connection id is closing */
void
logs_stop(uint32_t id)
{
	struct logs_conn	*lc;
	struct logs_fwd		*lf;

	if ((lc = logs_find(id)) != NULL)
		logs_free(lc);
	if ((lf = logs_fwd_find(id)) != NULL)
		logs_fwd_free(lf);
}
