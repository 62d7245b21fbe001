/*
 * Requests for workloads that are not running.
 *
 * Such a request is parked: the client is no longer read from (TCP pushes
 * back), only its leaving is watched, and the bytes already read stay in
 * its buffer.  The first parked request sends one WAKE to runtimed; every
 * later one waits on the same wake.  runtimed answers with the workload's
 * new state: running resumes every parked request on its own connection
 * (herd.c releases them a window at a time), failed answers 503 with
 * Retry-After, a wake timeout 504.  A workload
 * whose dependency did not wake fails with that dependency's name, which
 * its 503 says.  If runtimed
 * never answers, the gateway's own timer answers 504 a little after the
 * wake timeout.  A wake that waits for its image to be pulled may take
 * longer: runtimed says how long (IMSG_RT_WAIT, the pull timeout), and
 * again once the pull is done (the wake timeout, from then on).  Each
 * parked request's own timer is a backstop behind the workload's.
 *
 * A wake the memory budget holds (no room, or max concurrent wakes)
 * keeps its requests parked; when it starts, waking gives the start its
 * own wake timeout here too; when it waited its whole wake timeout,
 * runtimed says so (RT_REASON_NO_ROOM, the state unchanged) and its
 * requests get 503 with Retry-After: the workload did not fail.
 *
 * A workload in a crash loop's backoff (runtimed says how long with its
 * state) is not woken: its requests are answered 503 at once, with
 * Retry-After the seconds left, and runtimed is not asked.
 *
 * Suspending (the reaper asks runtimed, runtimed asks us): a workload is
 * drained only if nothing is in flight or parked for it.  From then on it
 * is SUSPENDING here, so a request that arrives while it stops is parked
 * and its WAKE is sent; runtimed queues that wake behind the stop and the
 * request is served by the fresh start, never sent to the dying one.
 *
 * Refusals: a workload runtimed says runs may refuse a connection all
 * the same, if it died unseen (a container whose death the events
 * stream missed while it was down).  Its request has sent nothing yet:
 * it is parked, once, and runtimed asked to look (IMSG_GW_REFUSED)
 * rather than answered 502 for as long as nobody notices.  runtimed
 * answers with the workload's state: running sends the parked requests
 * again (a second refusal of the same request is its 502), asleep or
 * failed sends a wake, whose answer settles them as for any wake.  For
 * GW_REFUSED_PAUSE_MS after runtimed found it running, refusals are
 * 502s at once, so that a workload that runs and does not listen costs
 * runtimed a look a second at most.
 *
 * A WAKE says what woke the workload, for its history: the first parked
 * request's method, host, path, client and User-Agent, cut to fixed
 * bounds (struct wake_cause).  It is made once per wake, never for a
 * request to a running workload.
 *
 * A connection to a workload's own TCP listener (tcp.c) is held the same
 * way; the wake's end connects it, or closes it: raw TCP has no 503.
 *
 * A workload in maintenance (runtimed/maint.c; told with every state)
 * is never woken from here: its requests are answered 503 at once, even
 * while it still runs (its requests in flight end, then it stops), with
 * Retry-After its end (or MAINT_RETRY_AFTER) and its message in the
 * body, never in a header; a TCP connection is closed at once.  Those
 * parked when it is turned on get the same answer.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cause.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "maint.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

/*
 * The client: the connection's peer, or behind a trusted proxy the last
 * address of its X-Forwarded-For, the one that proxy saw.
 */
static void
wake_client(const struct gw_conn *c, const struct http_head *h, char *buf,
    size_t len)
{
	const struct http_field	*f, *last = NULL;
	const char		*v, *comma;
	size_t			 i, n;

	cause_copy(buf, len, c->peer, sizeof(c->peer));
	if (!c->trusted)
		return;
	for (i = 0; i < h->nfields; i++)
		if (h->fields[i].id == HTTP_H_X_FORWARDED_FOR &&
		    h->fields[i].valuelen > 0)
			last = &h->fields[i];
	if ((f = last) == NULL)
		return;
	v = f->value;
	n = f->valuelen;
	if ((comma = memrchr(v, ',', n)) != NULL) {
		n -= comma + 1 - v;
		v = comma + 1;
	}
	while (n > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	if (n > 0)
		cause_copy(buf, len, v, n);
}

/* what woke it: the request (or TCP connection) first among those parked */
static void
wake_cause_fill(const struct gw_workload *wl, struct wake_cause *cause)
{
	const struct gw_conn	*c = TAILQ_FIRST(&wl->parked);
	const struct http_head	*h;
	const struct http_field	*f;

	cause->kind = WAKE_REQUEST;
	if (c != NULL && c->ops->on_cause != NULL) {
		c->ops->on_cause(c, cause);	/* tcp.c's: no request */
		return;
	}
	if (c == NULL || c->req == NULL)
		return;
	h = &c->req->h;
	cause_copy(cause->method, sizeof(cause->method), h->method,
	    h->methodlen);
	if (h->authority != NULL)
		cause_copy(cause->host, sizeof(cause->host), h->authority,
		    h->hostlen);
	if (h->path != NULL)
		cause_copy(cause->path, sizeof(cause->path), h->path,
		    h->pathlen);
	wake_client(c, h, cause->client, sizeof(cause->client));
	if ((f = http_head_find(h, "User-Agent")) != NULL)
		cause_copy(cause->agent, sizeof(cause->agent), f->value,
		    f->valuelen);
}

/* the wake's answer is due within secs, and a parked request's after */
static void
wake_arm(struct gw_workload *wl, int64_t secs)
{
	struct gw_conn	*c;
	struct timeval	 tv;

	wl->wake_wait = secs;
	tv.tv_sec = secs + GW_WAKE_SLACK;
	tv.tv_usec = 0;
	timer_arm(&wl->wake_timer, wake_timer_fired, wl, &tv);
	TAILQ_FOREACH(c, &wl->parked, entry)
		conn_timer(c, secs + 2 * GW_WAKE_SLACK);
}

static void
wake_send(struct gw_workload *wl)
{
	struct gw_wake	 gwk;

	memset(&gwk, 0, sizeof(gwk));
	strlcpy(gwk.name, wl->name, sizeof(gwk.name));
	wake_cause_fill(wl, &gwk.cause);
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_WAKE, 0, -1, &gwk,
	    sizeof(gwk)) == -1) {
		log_warn("%s: wake %s", __func__, wl->name);
		return;
	}
	wl->wake_pending = 1;
	/* held for a replacement: its requests in flight end first */
	wake_arm(wl, wl->wake_timeout + (wl->held_wait ? GW_HOLD_WAIT : 0));
	log_debug("waking %s", wl->name);
}

/*
 * seconds a client should wait: to the end of a maintenance, or what is
 * left of a backoff, at least 1
 */
static int
wake_retry_after(struct gw_workload *wl)
{
	int64_t	 left;

	if (gw_maint(wl)->on)
		return (maint_retry_after(gw_maint(wl), walltime_ms() / 1000));
	if (wl->backoff_end == 0 ||
	    (left = wl->backoff_end - monotime_ms()) <= 0) {
		wl->backoff_end = 0;
		return (GW_RETRY_AFTER);
	}
	return ((int)((left + 999) / 1000));
}

/* a failed workload in backoff: no wake, whatever asks */
static int
wake_backoff(struct gw_workload *wl)
{
	if (wl->backoff_end == 0 ||
	    (wl->state != WL_FAILED && wl->state != WL_ASLEEP))
		return (0);
	if (wl->backoff_end <= monotime_ms()) {
		wl->backoff_end = 0;
		return (0);
	}
	return (1);
}

/* the body's line for a workload in maintenance: its message, if any */
static const char *
wake_maint_text(const struct gw_workload *wl, char *buf, size_t len)
{
	(void)snprintf(buf, len, "in maintenance%s%s",
	    gw_maint(wl)->msg[0] != '\0' ? ": " : "", gw_maint(wl)->msg);
	return (buf);
}

/*
 * A request or TCP connection for a workload in maintenance: answered
 * (closed) at once, nothing woken, nothing counted in flight.  0 if it
 * is not in maintenance.
 */
int
wake_maint(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	char			 retry[64], text[MAINT_MSG_MAX + 32];

	if (!gw_maint(wl)->on)
		return (0);
	if (c->tcp != NULL) {
		log_debug("%s: tcp to %s: in maintenance, closed", c->peer,
		    wl->name);
		conn_close(c);
		return (1);
	}
	c->routed = 1;
	(void)snprintf(retry, sizeof(retry), "Retry-After: %d\r\n",
	    wake_retry_after(wl));
	head_put(c->req);
	c->req = NULL;
	conn_respond_text(c, 503, retry, 1, wake_maint_text(wl, text,
	    sizeof(text)));
	return (1);
}

void
wake_park(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	char			 retry[64];

	if (wake_backoff(wl) || wl->nparked >= GW_PARKED_MAX_WORKLOAD ||
	    gw->nparked >= GW_PARKED_MAX_TOTAL) {
		if (c->tcp != NULL) {
			log_debug("%s: too many held for %s", c->peer,
			    wl->name);
			conn_close(c);
			return;
		}
		snprintf(retry, sizeof(retry), "Retry-After: %d\r\n",
		    wake_retry_after(wl));
		head_put(c->req);
		c->req = NULL;
		activity_end(c);
		conn_respond(c, 503, retry, 1);
		return;
	}
	c->park_ns = monotime_ns();
	c->herd_tries = 0;
	herd_hold(c, 0);
	/* no longer the header timeout's: the wake's, as long as it takes */
	if (!wl->wake_pending)
		wake_send(wl);
	else
		conn_timer(c, wl->wake_wait + 2 * GW_WAKE_SLACK);
}

static int
refused_send(struct gw_workload *wl)
{
	struct wl_ref	 ref;

	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_REFUSED, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		log_warn("%s: refused %s", __func__, wl->name);
		return (-1);
	}
	/* its answer is awaited as a wake's is, bounded alike */
	wl->wake_pending = 1;
	wl->refused_wait = 1;
	wake_arm(wl, wl->wake_timeout);
	log_debug("%s refused a connection: asking runtimed", wl->name);
	return (0);
}

/* the connection to a running workload was refused: 0 if parked */
int
wake_refused(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (c->refused || wl->state != WL_RUNNING || !wl->configured ||
	    c->req == NULL || wl->nparked >= GW_PARKED_MAX_WORKLOAD ||
	    gw->nparked >= GW_PARKED_MAX_TOTAL)
		return (-1);
	if (!wl->wake_pending) {
		if (wl->refused_ms != 0 &&
		    monotime_ms() - wl->refused_ms < GW_REFUSED_PAUSE_MS)
			return (-1);
		if (refused_send(wl) == -1)
			return (-1);
	}
	c->refused = 1;
	/* held for a wake as a parked request is: Server-Timing, the log */
	c->park_ns = monotime_ns();
	herd_hold(c, 0);
	/* the connect timeout ran: the backstop is the wake's now */
	conn_timer(c, wl->wake_timeout + 2 * GW_WAKE_SLACK);
	return (0);
}

void
wake_unpark(struct gw_conn *c)
{
	if (c->state != CONN_PARKED)
		return;
	herd_unhold(c);
}

/* the wake failed: every connection held for it is closed, said once */
static void
wake_tcp_failed(struct gw_workload *wl, unsigned int n, const char *why)
{
	if (n > 0)
		log_warnx("%s: wake failed (%s): closed %u TCP connection%s "
		    "held for it", wl->name, why, n, n == 1 ? "" : "s");
}

/* text: the 503's body, or NULL; why: for the log, of TCP ones closed */
static void
wake_answer(struct gw_workload *wl, int status, const char *text,
    const char *why)
{
	struct gw_conn	*c;
	char		 retry[64];
	unsigned int	 ntcp = 0;

	snprintf(retry, sizeof(retry), "Retry-After: %d\r\n",
	    wake_retry_after(wl));
	while ((c = TAILQ_FIRST(&wl->parked)) != NULL) {
		wake_unpark(c);
		if (c->tcp != NULL) {
			conn_close(c);
			ntcp++;
			continue;
		}
		head_put(c->req);
		c->req = NULL;
		activity_end(c);
		conn_respond_text(c, status, status == 503 ? retry : NULL, 1,
		    text);
	}
	wake_tcp_failed(wl, ntcp, why);
}

/*
 * "dependency db did not wake: start failed", from runtimed's message:
 * names and reasons of ours, cut to printable ASCII all the same.
 */
static const char *
wake_dependency(const struct rt_state *st, char *buf, size_t len)
{
	char	*p;

	if (st->reason != RT_REASON_DEPENDENCY || st->msg[0] == '\0')
		return (NULL);
	(void)snprintf(buf, len, "dependency %s", st->msg);
	for (p = buf; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	return (buf);
}

void
wake_timer_fired(int fd, short event, void *arg)
{
	struct gw_workload	*wl = arg;

	log_warnx("%s: no answer to its wake, answering 504", wl->name);
	metrics_wake_timeout(wl);
	wl->wake_pending = 0;
	wl->refused_wait = 0;
	wake_answer(wl, 504, NULL, "no answer to its wake");
}

void
wake_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state		 st;
	struct gw_workload	*wl;
	const char		*text;
	int			 refused, checked, woke;
	char			 why[RT_MSG_MAX + 16];
	char			 mtext[MAINT_MSG_MAX + 32];

	(void)imsg_get_data(imsg, &st, sizeof(st));
	st.msg[sizeof(st.msg) - 1] = '\0';
	/* GET /v1/events, whether this gateway routes to it or not */
	api_events_state(&st);
	if (st.state < WL_ASLEEP || st.state > WL_STATE_LAST)
		return;
	/* removed by a reload meanwhile, or not configured yet */
	if ((wl = gw_workload_find(st.name)) == NULL) {
		(void)state_early_keep(&st);
		return;
	}
	if (wl->state == WL_RUNNING && st.state != WL_RUNNING)
		instance_epoch(wl); /* kept upstream connections are stale */
	metrics_state(wl, st.state, st.reason, st.since_ms);
	checked = wl->state == WL_CHECKING && st.state != WL_CHECKING;
	/* a wake ends here, not a repeat of a state it had */
	woke = wl->state != WL_RUNNING && st.state == WL_RUNNING;
	wl->state = st.state;
	if (st.state == WL_ASLEEP || st.state == WL_FAILED)
		instance_idle(wl);
	refused = wl->refused_wait;
	if (wl->state != WL_WAKING && wl->state != WL_SUSPENDING)
		wl->refused_wait = 0;
	wl->backoff_end = st.backoff_ms > 0 ? monotime_ms() + st.backoff_ms :
	    0;
	gw_maint_set(wl, &st.maint);
	/* turned on: what waits for a wake gets its answer now */
	if (gw_maint(wl)->on && wl->nparked > 0) {
		wl->wake_pending = 0;
		wl->refused_wait = 0;
		timer_disarm(&wl->wake_timer);
		wake_answer(wl, 503, wake_maint_text(wl, mtext,
		    sizeof(mtext)), "in maintenance");
	}
	switch (wl->state) {
	case WL_RUNNING:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/* it runs on, for all runtimed can tell */
		if (refused)
			wl->refused_ms = monotime_ms();
		/* a window at a time: herd.c */
		herd_release(wl, woke || refused);
		break;
	case WL_FAILED:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/*
		 * it died unseen: those it refused get a wake; failed before
		 * a restart: those held while it was checked get theirs,
		 * unless it is in backoff
		 */
		if ((refused || (checked && st.backoff_ms == 0)) &&
		    wl->nparked > 0) {
			wake_send(wl);
			break;
		}
		text = wake_dependency(&st, why, sizeof(why));
		wake_answer(wl, st.reason == RT_REASON_WAKE_TIMEOUT ? 504 : 503,
		    text, text != NULL ? text : st.msg[0] != '\0' ? st.msg :
		    st.reason == RT_REASON_WAKE_TIMEOUT ? "wake timeout" :
		    "failed");
		break;
	case WL_ASLEEP:
		wl->wake_pending = 0;
		timer_disarm(&wl->wake_timer);
		/* no room in the memory budget in time: try again later */
		if (st.reason == RT_REASON_NO_ROOM) {
			wake_answer(wl, 503, NULL,
			    "no room in the memory budget in time");
			break;
		}
		/* stopped with requests parked during the stop: wake again */
		if (wl->nparked > 0)
			wake_send(wl);
		break;
	case WL_WAKING:
		/* admitted after a wait: the start's own wake timeout */
		if (wl->wake_pending)
			wake_arm(wl, wl->wake_timeout);
		break;
	default:
		break;
	}
}

/* runtimed: the wake goes on for secs more (a pull, or after one) */
void
wake_recv_wait(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_wait		 rw;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &rw, sizeof(rw));
	if ((wl = gw_workload_find(rw.name)) == NULL || !wl->wake_pending ||
	    wl->refused_wait || rw.secs < 1 || rw.secs > INT32_MAX)
		return;
	log_debug("%s: the wake goes on, %llds more at most", wl->name,
	    (long long)rw.secs);
	wake_arm(wl, rw.secs);
}

/* removed from the configuration with requests waiting for it */
void
wake_workload_gone(struct gw_workload *wl)
{
	timer_disarm(&wl->wake_timer);
	wl->wake_pending = 0;
	wl->refused_wait = 0;
	wake_answer(wl, 503, NULL, "removed from the configuration");
}
