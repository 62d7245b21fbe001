/*
 * The HTTP API's operations, in the gateway, and the answers of the
 * processes it asks:
 *
 *	list, get, history	the store (IMSG_CTL_SHOW_*), merged with the
 *				gateway's fresher state and last request
 *	create, delete,		the parent (IMSG_API_CREATE, _DELETE,
 *	update			_UPDATE), which validates, stores and
 *				configures
 *	wake, suspend, keepwarm, runtimed (IMSG_CTL_*), answered when done
 *	restart
 *	logs			the parent (IMSG_CTL_LOGS), streamed out
 *	metrics			the gateway itself (metrics.c)
 *	healthz			the gateway itself
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cause.h"
#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"
#include "metrics.h"

/*
 * The store: list, get and history.
 */

/*
 * expires_at: an API workload's last request and its expire after; null
 * when it never expires, or before its first request (the clock then
 * runs from its creation or orchd's start, which reaperd alone knows).
 */
static int
api_expires_at(json_t *o, const struct workload_conf *wc,
    const struct ctl_workload *m, int64_t global)
{
	char	 buf[64];
	int64_t	 secs = 0, base;

	if (wc->source == SOURCE_API)
		secs = wc->expire_after >= 0 ? wc->expire_after : global;
	base = m->last_seen > m->started_at ? m->last_seen : m->started_at;
	if (secs > 0 && base > 0 && apij_time(base + secs, buf,
	    sizeof(buf)) == 0)
		return (json_object_set_new(o, "expires_at",
		    json_string(buf)));
	return (json_object_set_new(o, "expires_at", json_null()));
}

/* the store's row (or none) merged with what the gateway knows */
static json_t *
api_workload_json(const struct gw_workload *wl, const struct ctl_workload *cw)
{
	const struct cfg_generation	*gen = cfg_current();
	struct workload_conf		*wc;
	struct ctl_workload		 m;
	json_t				*o;
	int64_t				 left;

	/* read back from its small form, most often (wldef.c) */
	if ((wc = wldef_get(wl)) == NULL)
		return (NULL);
	if (cw != NULL)
		m = *cw;
	else {
		memset(&m, 0, sizeof(m));
		m.keep_warm = wc->keep_warm;
	}
	m.state = wl->state;
	/* ours is monotonic (activity.c), the store's on the wall clock */
	if (mono_to_wall(wl->last_seen) > m.last_seen)
		m.last_seen = mono_to_wall(wl->last_seen);
	/* the backoff as this gateway answers it, to the second after */
	m.backoff_until = 0;
	if (wl->backoff_end != 0 && (wl->state == WL_FAILED ||
	    wl->state == WL_ASLEEP) &&
	    (left = wl->backoff_end - monotime_ms()) > 0)
		m.backoff_until = (walltime_ms() + left + 999) / 1000;
	/* maintenance as runtimed told this gateway, with every state */
	m.maint = *gw_maint(wl);
	o = apij_workload(wc, wl->sched, &m, gen->global.idle_timeout,
	    gen->global.wake_timeout);
	if (o != NULL &&
	    api_expires_at(o, wc, &m, gen->global.expire_after) == -1) {
		json_decref(o);
		o = NULL;
	}
	wldef_put(wl, wc);
	return (o);
}

/* a list's page: the store's rows for the names after t.after */
static void
api_show_page(struct api_req *r)
{
	struct ctl_page	 cp;

	memset(&cp, 0, sizeof(cp));
	strlcpy(cp.name, r->t.after, sizeof(cp.name));
	cp.limit = (uint32_t)r->t.tail;
	(void)api_ask(r, PROC_STORE, IMSG_CTL_SHOW_PAGE, &cp, sizeof(cp),
	    API_STORE_WAIT);
}

static void
api_show(struct api_req *r)
{
	struct ctl_name	 cn;

	memset(&cn, 0, sizeof(cn));
	if (r->t.op == API_GET) {
		if (api_workload(r->t.name) == NULL) {
			api_error(r, 404, "no such workload", NULL);
			return;
		}
		strlcpy(cn.name, r->t.name, sizeof(cn.name));
	}
	if ((r->items = json_object()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	if (r->t.op == API_LIST) {
		api_show_page(r);
		return;
	}
	(void)api_ask(r, PROC_STORE, IMSG_CTL_SHOW_WORKLOADS, &cn, sizeof(cn),
	    API_STORE_WAIT);
}

void
api_recv_workload(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req		*r;
	struct gw_workload	*wl;
	struct ctl_workload	 cw;
	json_t			*o;

	if ((r = api_answered(iev, imsg, PROC_STORE)) == NULL ||
	    (r->t.op != API_LIST && r->t.op != API_GET))
		return;
	(void)imsg_get_data(imsg, &cw, sizeof(cw));
	cw.hosts[sizeof(cw.hosts) - 1] = '\0';
	cw.msg[sizeof(cw.msg) - 1] = '\0';
	cw.drift[sizeof(cw.drift) - 1] = '\0';
	/* only what runs now: the store may know a removed one a moment */
	if ((wl = api_workload(cw.name)) == NULL)
		return;
	if ((o = api_workload_json(wl, &cw)) != NULL)
		(void)json_object_set_new(r->items, wl->name, o);
}

/*
 * A page of the workloads the gateway runs, sorted by name: t.tail of
 * them after t.after, and next, the last one's name while more follow
 * (null at the end).  The gateway's list is the one that counts; the
 * store's rows add what it remembers, and one it has not sent (a
 * workload configured since it answered) is shown as the gateway
 * knows it.
 */
static void
api_list_done(struct api_req *r)
{
	struct gw_workload	*wl, key;
	json_t			*a, *o, *next;
	int32_t			 n = 0;

	if ((a = json_array()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	key.name = r->t.after;
	wl = RB_NFIND(gw_workloads, &gw->workloads, &key);
	if (wl != NULL && strcmp(wl->name, r->t.after) == 0)
		wl = RB_NEXT(gw_workloads, &gw->workloads, wl);
	for (; wl != NULL; wl = RB_NEXT(gw_workloads, &gw->workloads, wl)) {
		if (!wl->configured || (wl->def == NULL && wl->zip == NULL))
			continue;
		if (n == r->t.tail)
			break;
		if ((o = json_object_get(r->items, wl->name)) != NULL)
			json_incref(o);
		else
			o = api_workload_json(wl, NULL);
		if (o != NULL)
			(void)json_array_append_new(a, o);
		n++;
		key.name = wl->name;
	}
	/* more after: the page's last name is the next one's cursor */
	next = wl != NULL && n > 0 ? json_string(key.name) : json_null();
	api_json(r, 200, json_pack("{s:o, s:o}", "workloads", a, "next",
	    next), NULL);
}

static void
api_get_done(struct api_req *r)
{
	struct gw_workload	*wl;
	json_t			*o;

	if ((wl = api_workload(r->t.name)) == NULL) {
		api_error(r, 404, "no such workload", NULL);
		return;
	}
	if ((o = json_object_get(r->items, wl->name)) != NULL)
		json_incref(o);
	else
		o = api_workload_json(wl, NULL);
	api_json(r, 200, o, NULL);
}

static void
api_history(struct api_req *r)
{
	struct ctl_name	 cn;

	if (api_list_begin(r) == -1)
		return;
	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, r->t.name, sizeof(cn.name));
	(void)api_ask(r, PROC_STORE, IMSG_CTL_SHOW_HISTORY, &cn, sizeof(cn),
	    API_STORE_WAIT);
}

void
api_recv_history(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req		*r;
	struct ctl_transition	 ct;
	json_t			*o;

	if ((r = api_answered(iev, imsg, PROC_STORE)) == NULL ||
	    r->t.op != API_HISTORY)
		return;
	(void)imsg_get_data(imsg, &ct, sizeof(ct));
	ct.msg[sizeof(ct.msg) - 1] = '\0';
	cause_sanitize(&ct.cause);
	if ((o = apij_transition(&ct)) != NULL)
		(void)json_array_append_new(r->items, o);
}

/*
 * The parent: create, update and delete.
 */

/* the definition decoded and packed in api_define.c: the parent reads no JSON */
static void
api_create(struct api_req *r)
{
	void	*msg;
	size_t	 len;

	if ((msg = api_define_create(r, &len)) == NULL)
		return;
	(void)api_ask(r, PROC_PARENT, IMSG_API_CREATE, msg, len,
	    API_PARENT_WAIT);
	free(msg);
}

/*
 * PUT and PATCH: the whole new definition; a PATCH merged here onto the
 * definition the gateway holds, which the parent checks is still its own
 */
static void
api_update(struct api_req *r)
{
	void	*msg;
	size_t	 len;

	if ((msg = api_define_update(r, &len)) == NULL)
		return;
	(void)api_ask(r, PROC_PARENT, IMSG_API_UPDATE, msg, len,
	    API_PARENT_WAIT);
	free(msg);
}

static void
api_delete(struct api_req *r)
{
	struct ctl_name	 cn;

	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, r->t.name, sizeof(cn.name));
	(void)api_ask(r, PROC_PARENT, r->t.volumes ? IMSG_API_DELETE_VOLUMES :
	    IMSG_API_DELETE, &cn, sizeof(cn), API_PARENT_WAIT);
}

void
api_recv_result(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req		*r;
	struct api_result	 res;
	struct gw_workload	*wl;
	char			 loc[128];

	if ((r = api_answered(iev, imsg, PROC_PARENT)) == NULL ||
	    (r->t.op != API_CREATE && r->t.op != API_DELETE &&
	    r->t.op != API_UPDATE && r->t.op != API_PATCH &&
	    r->t.op != API_GROUP))
		return;
	(void)imsg_get_data(imsg, &res, sizeof(res));
	res.msg[sizeof(res.msg) - 1] = '\0';
	if (r->t.op == API_GROUP) {
		api_group_answer(r, res.status == 200 ? NULL : res.msg);
		return;
	}
	switch (res.status) {
	case 201:
		/* the new generation runs here already: START came first */
		snprintf(loc, sizeof(loc), "Location: /v1/workloads/%s\r\n",
		    r->t.name);
		if ((wl = api_workload(r->t.name)) != NULL)
			api_json(r, 201, api_workload_json(wl, NULL), loc);
		else
			api_json(r, 201, json_pack("{s:s}", "name",
			    r->t.name), loc);
		break;
	case 200:
		if (r->t.op == API_DELETE) {
			api_json(r, 200, json_pack("{s:s, s:b}", "name",
			    r->t.name, "deleted", 1), NULL);
			break;
		}
		/* updated: the new definition, running here already */
		if ((wl = api_workload(r->t.name)) != NULL)
			api_json(r, 200, api_workload_json(wl, NULL), NULL);
		else
			api_json(r, 200, json_pack("{s:s}", "name",
			    r->t.name), NULL);
		break;
	default:
		if (res.status < 400 || res.status > 599)
			res.status = 500;
		api_error(r, res.status, res.msg, res.status == 503 ?
		    RETRY_AFTER : NULL);
		break;
	}
}

/*
 * runtimed: wake, suspend, keepwarm.
 */

static void
api_command(struct api_req *r)
{
	struct gw_workload	*wl;
	struct ctl_name		 cn;
	struct ctl_keepwarm	 kw;
	struct ctl_maint	 cm;

	if ((wl = api_workload(r->t.name)) == NULL) {
		api_error(r, 404, "no such workload", NULL);
		return;
	}
	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, r->t.name, sizeof(cn.name));
	switch (r->t.op) {
	case API_WAKE:
		/* and as long as a pull of its image may take */
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_WAKE, &cn, sizeof(cn),
		    wl->wake_timeout + wl->pull_timeout + GW_WAKE_SLACK);
		break;
	case API_SUSPEND:
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_SUSPEND, &cn,
		    sizeof(cn), API_SUSPEND_WAIT);
		break;
	case API_MAINT:
		if (api_maint_body(r) == -1)
			return;
		memset(&cm, 0, sizeof(cm));
		strlcpy(cm.name, r->t.name, sizeof(cm.name));
		cm.m = r->maint;
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_MAINT, &cm, sizeof(cm),
		    API_RUNTIME_WAIT);
		break;
	case API_RESTART:
		/* stopped, then started and ready again */
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_RESTART, &cn,
		    sizeof(cn), API_SUSPEND_WAIT + wl->wake_timeout +
		    GW_WAKE_SLACK);
		break;
	default:
		if (api_keepwarm_body(r) == -1)
			return;
		memset(&kw, 0, sizeof(kw));
		strlcpy(kw.name, r->t.name, sizeof(kw.name));
		kw.on = r->keep_on;
		kw.until = r->keep_until;
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_KEEPWARM, &kw,
		    sizeof(kw), API_RUNTIME_WAIT);
		break;
	}
}

void
api_recv_ok(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req		*r;
	struct gw_workload	*wl;
	json_t			*o;

	if ((r = api_answered(iev, imsg, PROC_RUNTIME)) == NULL)
		return;
	if (r->t.op == API_GROUP) {
		api_group_answer(r, NULL);
		return;
	}
	/* runtimed told us the state first, on the same channel */
	wl = gw_workload_find(r->t.name);
	if (r->t.op == API_MAINT) {
		o = apij_action(r->t.name, wl != NULL ? (int)wl->state :
		    WL_ASLEEP, -1);
		if (o != NULL && json_object_set_new(o, "maintenance",
		    json_boolean(r->maint.on != 0)) == -1) {
			json_decref(o);
			o = NULL;
		}
		api_json(r, 200, o, NULL);
		return;
	}
	api_json(r, 200, apij_action(r->t.name, wl != NULL ? (int)wl->state :
	    WL_ASLEEP, r->t.op == API_KEEPWARM ? r->keep_on : -1), NULL);
}

/*
 * The parent: logs, streamed as they come, chunked (HTTP/1.1) or to the
 * close (HTTP/1.0), at most API_LOGS_MAX bytes.
 */

static void
api_logs(struct api_req *r)
{
	struct ctl_logs	 cl;

	if (api_workload(r->t.name) == NULL) {
		api_error(r, 404, "no such workload", NULL);
		return;
	}
	if (api_nlogs >= API_LOGS_STREAMS_MAX) {
		api_error(r, 503, "too many logs requests under way",
		    RETRY_AFTER);
		return;
	}
	memset(&cl, 0, sizeof(cl));
	strlcpy(cl.name, r->t.name, sizeof(cl.name));
	cl.lines = r->t.tail;
	if (api_ask(r, PROC_PARENT, IMSG_CTL_LOGS, &cl, sizeof(cl),
	    API_LOGS_WAIT) == 0) {
		r->logs = 1;
		api_nlogs++;
	}
}

void
api_logs_stop(struct api_req *r)
{
	if (r->id != 0 && proc_compose(gw->ps, PROC_PARENT,
	    IMSG_API_LOGS_STOP, r->id, -1, NULL, 0) == -1)
		log_warn("%s: compose", __func__);
}

static void
api_logs_head(struct api_req *r)
{
	r->chunked = r->c->version == 11;
	api_head(r, 200, CT_TEXT, NULL, -1);
	r->phase = PH_STREAM;
}

static void
api_logs_end(struct api_req *r)
{
	if (r->phase != PH_STREAM)
		api_logs_head(r);
	if (r->chunked)
		evbuffer_add(r->c->out, "0\r\n\r\n", 5);
	api_done(r);
}

/* cut short: the close (no last chunk) tells the client */
void
api_logs_abort(struct api_req *r)
{
	r->c->keepalive = 0;
	api_done(r);
}

void
api_recv_logdata(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req	*r;
	struct gw_conn	*c;
	size_t		 len = imsg_get_len(imsg);
	int		 cut = 0;

	if ((r = api_answered(iev, imsg, PROC_PARENT)) == NULL ||
	    r->t.op != API_LOGS)
		return;
	c = r->c;
	if (r->phase != PH_STREAM)
		api_logs_head(r);
	if (r->sent + len > API_LOGS_MAX) {
		len = API_LOGS_MAX - r->sent;
		cut = 1;
	}
	if (len > 0) {
		if (r->chunked)
			evbuffer_add_printf(c->out, "%zx\r\n", len);
		evbuffer_add(c->out, imsg->data, len);
		if (r->chunked)
			evbuffer_add(c->out, "\r\n", 2);
		r->sent += len;
	}
	conn_flush(c);
	if (cut) {
		log_debug("%s: api: logs of %s cut at %d bytes", c->peer,
		    r->t.name, API_LOGS_MAX);
		api_logs_stop(r);
		api_logs_end(r);
		return;
	}
	conn_timer(c, API_LOGS_WAIT);
}

/* END: of the store's items, or of a log */
void
api_recv_end(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req	*r;

	if ((r = api_find(imsg_get_id(imsg))) == NULL)
		return;
	if (r->t.op == API_LOGS) {
		if (api_answered(iev, imsg, PROC_PARENT) != NULL)
			api_logs_end(r);
		return;
	}
	if (api_answered(iev, imsg, PROC_STORE) == NULL)
		return;
	switch (r->t.op) {
	case API_LIST:
		api_list_done(r);
		break;
	case API_GET:
		api_get_done(r);
		break;
	case API_HISTORY:
		api_json(r, 200, json_pack("{s:s, s:O}", "name", r->t.name,
		    "history", r->items), NULL);
		break;
	default:
		break;
	}
}

/* FAIL from runtimed (a command) or the parent (logs) */
void
api_recv_fail(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req		*r;
	struct ctl_result	 res;

	if ((r = api_find(imsg_get_id(imsg))) == NULL ||
	    api_answered(iev, imsg, r->t.op == API_LOGS ? PROC_PARENT :
	    PROC_RUNTIME) == NULL)
		return;
	(void)imsg_get_data(imsg, &res, sizeof(res));
	res.msg[sizeof(res.msg) - 1] = '\0';
	if (r->t.op == API_GROUP) {
		api_group_answer(r, res.msg[0] != '\0' ? res.msg : "failed");
		return;
	}
	if (r->phase == PH_STREAM) {
		log_warnx("api: logs of %s: %s", r->t.name, res.msg);
		api_logs_abort(r);
		return;
	}
	switch (res.code) {
	case CTL_ERR_NOENT:
		api_error(r, 404, res.msg, NULL);
		break;
	case CTL_ERR_BUSY:
		api_error(r, 409, res.msg, NULL);
		break;
	default:
		if (r->t.op == API_LOGS)
			api_error(r, 500, res.msg, NULL);
		else
			api_error(r, 503, res.msg, RETRY_AFTER);
		break;
	}
}

/*
 * The request, from conn_route().
 */

static void
api_metrics_write(struct api_req *r)
{
	struct evbuffer	*b;

	if ((b = evbuffer_new()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	metrics_write(b, r->msum);
	api_head(r, 200, CT_METRICS, NULL, evbuffer_get_length(b));
	if (r->c->meth != HTTP_M_HEAD)
		evbuffer_add_buffer(r->c->out, b);
	evbuffer_free(b);
	api_done(r);
}

/*
 * GET /healthz: orchd is healthy when this gateway has a configuration
 * in force and its channels to the parent, runtimed, the store and the
 * reaper are open; then 200 "ok", else 503.  The other processes are
 * not asked: a lost channel or child ends orchd, and a prober waiting on
 * a busy process would report it down.
 */
static void
api_healthz(struct api_req *r)
{
	static const enum privsep_procid	 need[] = {
		PROC_PARENT, PROC_RUNTIME, PROC_STORE, PROC_REAPER
	};
	struct imsgev				*iev;
	size_t					 i;

	if (cfg_current() == NULL) {
		api_send(r, 503, CT_TEXT, RETRY_AFTER, "unavailable\n", 12);
		return;
	}
	for (i = 0; i < nitems(need); i++) {
		if ((iev = proc_channel(gw->ps, need[i], 0)) == NULL ||
		    iev->dead) {
			api_send(r, 503, CT_TEXT, RETRY_AFTER,
			    "unavailable\n", 12);
			return;
		}
	}
	api_send(r, 200, CT_TEXT, NULL, "ok\n", 3);
}

/*
 * The parent's first: the processes' CPU and memory, and with other
 * gateways ("prefork") their counts (metrics_sum.c).
 */
static void
api_metrics(struct api_req *r)
{
	if ((r->msum = metrics_sum_new()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	(void)api_ask(r, PROC_PARENT, IMSG_GW_METRICS_ASK, NULL, 0,
	    API_STORE_WAIT);
}

static struct api_req *
api_metrics_answered(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req	*r;

	if ((r = api_find(imsg_get_id(imsg))) == NULL ||
	    api_answered(iev, imsg, PROC_PARENT) == NULL ||
	    r->t.op != API_METRICS || r->msum == NULL)
		return (NULL);
	return (r);
}

void
api_recv_metrics_expect(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req	*r;
	uint32_t	 n;

	if ((r = api_metrics_answered(iev, imsg)) == NULL)
		return;
	(void)imsg_get_data(imsg, &n, sizeof(n));
	r->msum->expect = n;
	if (r->msum->got >= n)
		api_metrics_write(r);
}

void
api_recv_metrics_wl(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_metrics_wl	 one;
	struct api_req		*r;
	const uint8_t		*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;

	if ((r = api_metrics_answered(iev, imsg)) == NULL)
		return;
	for (off = 0; off < len; off += sizeof(one)) {
		memcpy(&one, p + off, sizeof(one));
		metrics_sum_add(r->msum, &one);
	}
}

/* the parent's, before its EXPECT */
void
api_recv_metrics_procs(struct imsgev *iev, struct imsg *imsg)
{
	struct api_req	*r;

	if ((r = api_metrics_answered(iev, imsg)) == NULL)
		return;
	metrics_procs_add(r->msum, imsg->data, imsg_get_len(imsg));
}

void
api_recv_metrics_total(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_metrics_total	 t;
	struct metrics_sum	*sum;
	struct api_req		*r;

	if ((r = api_metrics_answered(iev, imsg)) == NULL)
		return;
	sum = r->msum;
	(void)imsg_get_data(imsg, &t, sizeof(t));
	metrics_total_add(&sum->total, &t);
	/* EXPECT comes first: the parent sends it before asking anyone */
	if (++sum->got >= sum->expect)
		api_metrics_write(r);
}

void
api_dispatch(struct api_req *r)
{
	switch (r->t.op) {
	case API_METRICS:
		api_metrics(r);
		break;
	case API_HEALTHZ:
		api_healthz(r);
		break;
	case API_LIST:
	case API_GET:
		api_show(r);
		break;
	case API_HISTORY:
		api_history(r);
		break;
	case API_CREATE:
		api_create(r);
		break;
	case API_DELETE:
		api_delete(r);
		break;
	case API_UPDATE:
	case API_PATCH:
		api_update(r);
		break;
	case API_KEEPWARM:
	case API_WAKE:
	case API_SUSPEND:
	case API_RESTART:
	case API_MAINT:
		api_command(r);
		break;
	case API_LOGS:
		api_logs(r);
		break;
	case API_GROUP:
		api_group(r);
		break;
	case API_ACCESS:
		api_access(r);
		break;
	case API_HOST_HISTORY:
		api_host_history(r);
		break;
	case API_EVENTS:
		api_events(r);
		break;
	case API_UI_ASSET:
		ui_asset(r);
		break;
	case API_UI_LOGIN:
		ui_login(r);
		break;
	case API_UI_LOGOUT:
		ui_logout(r);
		break;
	case API_UI_SESSION:
		ui_session(r);
		break;
	default:
		api_error(r, 404, "no such path", NULL);
		break;
	}
}
