/*
 * orchctl logs for a docker workload: the container's own logs, from
 * GET /containers/ID/logs, ID that of the container named
 * orchd-INSTANCE-NAME once its inspect showed it is this instance's
 * (a container of that name of another's is never read).  The parent,
 * which answers logs for process workloads from their files, forwards
 * the request here under the id of its request in flight, and the
 * answer goes back under it: IMSG_CTL_LOGDATA items, then IMSG_CTL_END
 * or IMSG_CTL_FAIL.
 *
 * A container without a terminal (orchd makes none) has its stdout and
 * stderr multiplexed in frames, an 8-byte header (stream, 0, 0, 0, size
 * as a big-endian 32-bit number) before each payload: the payloads are
 * passed on, in order, without their headers, as a process workload's
 * log file has both streams in one.  A stream that does not look framed
 * (a container made with a terminal) is passed on as it is.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"
#include "driver.h"

#define LOGS_CHUNK		(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
#define LOGS_FRAME_HDR		8

/* one read of a container's logs */
struct dk_logs {
	TAILQ_ENTRY(dk_logs)	 entry;
	struct rt_workload	*wl;
	struct dk_req		*req;
	rt_logs_cb		 cb;
	void			*arg;
	unsigned char		 hdr[LOGS_FRAME_HDR];
	size_t			 hdrlen;
	uint32_t		 left;		/* of the frame's payload */
	int			 raw;		/* not framed */
	char			 tail[24];	/* lines, or "all" */
};
static TAILQ_HEAD(, dk_logs) dk_logs_all = TAILQ_HEAD_INITIALIZER(dk_logs_all);

/* one request's answer, gathered into LOGS_CHUNK messages */
struct logs_ctl {
	struct proc_asker	 asker;		/* the parent's request */
	struct evbuffer		*buf;
};

static void
dk_logs_free(struct dk_logs *dl)
{
	TAILQ_REMOVE(&dk_logs_all, dl, entry);
	free(dl);
}

static void
dk_logs_data(const char *data, size_t len, void *arg)
{
	struct dk_logs	*dl = arg;
	size_t		 n;

	if (data == NULL)
		return;
	while (len > 0) {
		if (dl->raw) {
			dl->cb(dl->wl, data, len, dl->arg);
			return;
		}
		if (dl->left == 0) {
			n = MINIMUM(len, LOGS_FRAME_HDR - dl->hdrlen);
			memcpy(dl->hdr + dl->hdrlen, data, n);
			dl->hdrlen += n;
			data += n;
			len -= n;
			if (dl->hdrlen < LOGS_FRAME_HDR)
				return;
			dl->hdrlen = 0;
			if (dl->hdr[0] > 2 || dl->hdr[1] != 0 ||
			    dl->hdr[2] != 0 || dl->hdr[3] != 0) {
				/* no frames: all of it is the log */
				dl->raw = 1;
				dl->cb(dl->wl, (const char *)dl->hdr,
				    LOGS_FRAME_HDR, dl->arg);
				continue;
			}
			dl->left = (uint32_t)dl->hdr[4] << 24 |
			    (uint32_t)dl->hdr[5] << 16 |
			    (uint32_t)dl->hdr[6] << 8 | dl->hdr[7];
			continue;
		}
		n = MINIMUM(len, dl->left);
		dl->cb(dl->wl, data, n, dl->arg);
		dl->left -= n;
		data += n;
		len -= n;
	}
}

static void
dk_logs_done(const struct dk_resp *r, void *arg)
{
	struct dk_logs	*dl = arg;
	char		 err[RT_MSG_MAX];

	/* a workload never started has no container: its log is empty */
	if (r->status / 100 == 2 || r->status == 404)
		dl->cb(dl->wl, NULL, 0, dl->arg);
	else {
		snprintf(err, sizeof(err), "%s", r->err != NULL ? r->err :
		    "no answer from Docker");
		dl->cb(dl->wl, err, 0, dl->arg);
	}
	dk_logs_free(dl);
}

/* its inspect: ours, then its logs by its id; another's, not read */
static void
dk_logs_inspected(const struct dk_resp *r, void *arg)
{
	struct dk_logs	*dl = arg;
	char		 id[DK_ID_MAX], why[RT_MSG_MAX / 2], err[RT_MSG_MAX];

	dl->req = NULL;
	if (r->status != 200) {
		dk_logs_done(r, dl);
		return;
	}
	err[0] = '\0';
	if (dk_inspected_ours(r, dl->wl->name, id, sizeof(id), why,
	    sizeof(why)) == -1)
		snprintf(err, sizeof(err), "%s: not read", why);
	else if ((dl->req = dk_call(DK_LOGS, id, dl->tail, NULL,
	    dk_logs_done, dk_logs_data, dl)) == NULL)
		snprintf(err, sizeof(err), "cannot call the Docker daemon");
	if (err[0] != '\0') {
		dl->cb(dl->wl, err, 0, dl->arg);
		dk_logs_free(dl);
	}
}

/*
 * The driver's logs(): the last tail lines (SIZE_MAX: all) through cb,
 * then cb once with len 0 and data NULL, or data why it failed.
 */
int
docker_logs(struct rt_workload *wl, size_t tail, rt_logs_cb cb, void *arg)
{
	struct dk_logs	*dl;
	char		 cname[DK_CNAME_MAX];

	if ((dl = calloc(1, sizeof(*dl))) == NULL)
		return (-1);
	dl->wl = wl;
	dl->cb = cb;
	dl->arg = arg;
	if (tail == SIZE_MAX)
		strlcpy(dl->tail, "all", sizeof(dl->tail));
	else
		snprintf(dl->tail, sizeof(dl->tail), "%zu", tail);
	docker_events_start();
	dk_container_name(wl->name, cname, sizeof(cname));
	if ((dl->req = dk_call(DK_INSPECT, cname, NULL, NULL,
	    dk_logs_inspected, NULL, dl)) == NULL) {
		free(dl);
		return (-1);
	}
	TAILQ_INSERT_TAIL(&dk_logs_all, dl, entry);
	return (0);
}

/* wl is forgotten: its reads end now */
void
docker_logs_clear(struct rt_workload *wl)
{
	struct dk_logs	*dl, *next;

	TAILQ_FOREACH_SAFE(dl, &dk_logs_all, entry, next) {
		if (dl->wl != wl)
			continue;
		dk_cancel(dl->req);
		dl->cb(wl, "the workload was removed", 0, dl->arg);
		dk_logs_free(dl);
	}
}

/*
 * The control side.
 */

static void
logs_ctl_flush(struct logs_ctl *lc, size_t min)
{
	char	 buf[LOGS_CHUNK];
	size_t	 n;

	while (evbuffer_get_length(lc->buf) > min) {
		n = evbuffer_remove(lc->buf, buf, sizeof(buf));
		if (proc_reply(rt->ps, &lc->asker, IMSG_CTL_LOGDATA, buf,
		    n) == -1)
			evbuffer_drain(lc->buf, evbuffer_get_length(lc->buf));
	}
}

static void
logs_ctl_fail(const struct proc_asker *a, const char *msg)
{
	(void)proc_reply_fail(rt->ps, a, CTL_ERR_FAILED, "%s", msg);
}

static void
logs_ctl_cb(struct rt_workload *wl, const char *data, size_t len, void *arg)
{
	struct logs_ctl	*lc = arg;

	if (len > 0) {
		if (evbuffer_add(lc->buf, data, len) == -1)
			return;
		/* whole messages now, the rest with what follows */
		logs_ctl_flush(lc, LOGS_CHUNK - 1);
		return;
	}
	if (data != NULL)
		logs_ctl_fail(&lc->asker, data);
	else {
		logs_ctl_flush(lc, 0);
		(void)proc_reply_end(rt->ps, &lc->asker);
	}
	evbuffer_free(lc->buf);
	free(lc);
}

/* IMSG_CTL_LOGS from the parent, for a docker workload */
void
docker_recv_logs(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct logs_ctl		*lc;
	struct ctl_logs		 cl;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &cl, sizeof(cl));
	if ((wl = lifecycle->find(cl.name)) == NULL || wl->conf == NULL ||
	    wl->conf->driver != DRIVER_DOCKER) {
		logs_ctl_fail(&a, "no such docker workload");
		return;
	}
	if (cl.follow) {
		logs_ctl_fail(&a, "logs -f is not available for a docker "
		    "workload: use docker logs -f on its container");
		return;
	}
	if (cl.lines < -1) {
		logs_ctl_fail(&a, "invalid number of lines");
		return;
	}
	if ((lc = calloc(1, sizeof(*lc))) == NULL ||
	    (lc->buf = evbuffer_new()) == NULL) {
		free(lc);
		logs_ctl_fail(&a, "out of memory");
		return;
	}
	lc->asker = a;
	if (docker_logs(wl, cl.lines == -1 ? SIZE_MAX : (size_t)cl.lines,
	    logs_ctl_cb, lc) == -1) {
		evbuffer_free(lc->buf);
		free(lc);
		logs_ctl_fail(&a, "cannot call the Docker daemon");
	}
}
