/*
 * The HTTP API's requests, in the gateway: what serve.c hands over (to
 * api_conn.c, the connection's side) when a request came on an "api
 * listen on" listener or names an "api host".  The request head is the
 * gateway's parsed one; this file checks the bearer key and frames the
 * answers, api_conn.c reads the body (at most API_BODY_MAX bytes,
 * Content-Length or chunked); api_ops.c carries out each operation,
 * answering from what the gateway holds or asking the process that
 * knows.
 *
 * Everything is asynchronous: a request that asks waits with its
 * connection's reading stopped and its timer set, under an id the answer
 * carries in peerid; the event loop goes on proxying.  A slow client
 * holds only its own connection, and an answer never waits for one that
 * is gone (api_conn_closed).  Answers are JSON, {"error": "..."} for
 * errors, and keep the connection alive where the request allows it.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "timer.h"
#include "util.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"
#include "metrics.h"

RB_HEAD(api_reqs, api_req);

static int	api_req_cmp(struct api_req *, struct api_req *);
RB_PROTOTYPE(api_reqs, api_req, entry, api_req_cmp);
RB_GENERATE(api_reqs, api_req, entry, api_req_cmp);

static struct api_reqs	 api_reqs = RB_INITIALIZER(&api_reqs);
static unsigned int	 api_nwait;
static unsigned int	 api_authwaits;	/* wrong keys asking the reaper */
static uint32_t		 api_lastid;
unsigned int		 api_nlogs;
/*
 * The open events streams (api_events.c's), here so that a request
 * freed leaves the list without api.c calling up into api_events.c.
 */
struct api_evstreams	 api_evstreams = TAILQ_HEAD_INITIALIZER(api_evstreams);
unsigned int		 api_nevstreams;

static int
api_req_cmp(struct api_req *a, struct api_req *b)
{
	return (a->id < b->id ? -1 : a->id > b->id);
}

struct api_req *
api_find(uint32_t id)
{
	struct api_req	 key;

	key.id = id;
	return (RB_FIND(api_reqs, &api_reqs, &key));
}

void
api_free(struct api_req *r)
{
	if (r->id != 0) {
		RB_REMOVE(api_reqs, &api_reqs, r);
		if (r->authwait)
			api_authwaits--;
		else
			api_nwait--;
	}
	if (r->logs)
		api_nlogs--;
	if (r->events) {
		TAILQ_REMOVE(&api_evstreams, r, evs_entry);
		api_nevstreams--;
		r->events = 0;
	}
	if (r->body != NULL)
		evbuffer_free(r->body);
	json_decref(r->items);
	json_decref(r->group);
	metrics_sum_free(r->msum);
	free(r);
}

int64_t
api_body_timeout(void)
{
	return (gw->conf.body_timeout > 0 ? gw->conf.body_timeout :
	    ORCHD_BODY_TIMEOUT);
}

/* a configured workload, with its definition */
struct gw_workload *
api_workload(const char *name)
{
	struct gw_workload	*wl;

	if ((wl = gw_workload_find(name)) == NULL || !wl->configured ||
	    (wl->def == NULL && wl->zip == NULL))
		return (NULL);
	return (wl);
}

/*
 * A list of one workload's that a child answers item by item: 0 once
 * its array is ready, or -1 with the answer given (404, 503).
 */
int
api_list_begin(struct api_req *r)
{
	if (api_workload(r->t.name) == NULL) {
		api_error(r, 404, "no such workload", NULL);
		return (-1);
	}
	if ((r->items = json_array()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return (-1);
	}
	return (0);
}

/*
 * Answers.
 */

static const char *
api_reason(int status)
{
	switch (status) {
	case 200: return ("OK");
	case 201: return ("Created");
	case 303: return ("See Other");
	case 400: return ("Bad Request");
	case 401: return ("Unauthorized");
	case 403: return ("Forbidden");
	case 404: return ("Not Found");
	case 405: return ("Method Not Allowed");
	case 408: return ("Request Timeout");
	case 409: return ("Conflict");
	case 413: return ("Content Too Large");
	case 429: return ("Too Many Requests");
	case 500: return ("Internal Server Error");
	case 503: return ("Service Unavailable");
	case 504: return ("Gateway Timeout");
	default: return ("Error");
	}
}

/* the request is over: the connection goes on with the next one */
void
api_done(struct api_req *r)
{
	struct gw_conn	*c = r->c;

	c->api = NULL;
	api_free(r);
	conn_flush(c);
	conn_request_done(c);
}

/*
 * The head of an answer; len -1 for a body without a length (chunked,
 * or to the close for HTTP/1.0).  The connection closes after it when
 * the client asked, left, or sent a body we did not read.
 */
void
api_head(struct api_req *r, int status, const char *ctype, const char *extra,
    ssize_t len)
{
	struct gw_conn	*c = r->c;
	int		 close;

	if (len < 0 && !r->chunked)
		c->keepalive = 0;
	close = !c->keepalive || !c->reqdone || c->eof;
	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: %s\r\n"
	    "Cache-Control: %s\r\n"
	    "X-Content-Type-Options: nosniff\r\n", status, api_reason(status),
	    ctype, r->cache != NULL ? r->cache : "no-store");
	/* the status page's, on every answer under /ui/ (ui.c) */
	if (r->t.ui)
		evbuffer_add(c->out, UI_HEADERS, strlen(UI_HEADERS));
	if (len >= 0)
		evbuffer_add_printf(c->out, "Content-Length: %zd\r\n", len);
	else if (r->chunked)
		evbuffer_add_printf(c->out, "Transfer-Encoding: chunked\r\n");
	evbuffer_add_printf(c->out, "%s%s\r\n", extra != NULL ? extra : "",
	    close ? "Connection: close\r\n" : c->version == 10 ?
	    "Connection: keep-alive\r\n" : "");
	metrics_api(status);
	accesslog_status(c, status, 0);
}

/* the body after api_head(): none to a HEAD, whose head says its length */
void
api_body(struct api_req *r, const void *body, size_t len)
{
	if (r->c->meth != HTTP_M_HEAD)
		evbuffer_add(r->c->out, body, len);
}

void
api_send(struct api_req *r, int status, const char *ctype, const char *extra,
    const char *body, size_t len)
{
	api_head(r, status, ctype, extra, len);
	api_body(r, body, len);
	api_done(r);
}

void
api_error(struct api_req *r, int status, const char *msg, const char *extra)
{
	char	*s;

	log_debug("%s: api %d: %s", r->c->peer, status, msg);
	if ((s = apij_error(msg)) == NULL) {
		api_send(r, 500, CT_TEXT, NULL, "out of memory\n", 14);
		return;
	}
	api_head(r, status, CT_JSON, extra, strlen(s) + 1);
	api_body(r, s, strlen(s));
	api_body(r, "\n", 1);
	free(s);
	api_done(r);
}

/* o is consumed */
void
api_json(struct api_req *r, int status, json_t *o, const char *extra)
{
	char	*s;

	if (o == NULL || (s = json_dumps(o, JSON_COMPACT |
	    JSON_PRESERVE_ORDER)) == NULL) {
		json_decref(o);
		api_error(r, 500, "out of memory", NULL);
		return;
	}
	json_decref(o);
	api_head(r, status, CT_JSON, extra, strlen(s) + 1);
	api_body(r, s, strlen(s));
	api_body(r, "\n", 1);
	free(s);
	api_done(r);
}

/*
 * An id no request under way has.  Answers come back on this gateway's
 * own channel: another gateway may use the same ids.
 */
static uint32_t
api_newid(void)
{
	do {
		if (++api_lastid == 0)
			api_lastid = 1;
	} while (api_find(api_lastid) != NULL);
	return (api_lastid);
}

/*
 * Asking another process: under a fresh id, with the connection's timer
 * as the deadline.  -1 when it was answered already (503).
 */
int
api_ask(struct api_req *r, enum privsep_procid to, uint32_t type,
    const void *data, size_t len, int64_t secs)
{
	if (api_nwait >= API_REQS_MAX) {
		api_error(r, 503, "too many API requests under way",
		    RETRY_AFTER);
		return (-1);
	}
	(void)api_newid();
	if (proc_compose(gw->ps, to, type, api_lastid, -1, data, len) == -1) {
		log_warn("api: to %s", proc_name(to));
		api_error(r, 503, "orchd is not answering", RETRY_AFTER);
		return (-1);
	}
	r->id = api_lastid;
	RB_INSERT(api_reqs, &api_reqs, r);
	api_nwait++;
	r->phase = PH_WAIT;
	conn_timer(r->c, secs);
	return (0);
}

/* an answer came: the request asks no more, for now */
void
api_unask(struct api_req *r)
{
	if (r->id == 0)
		return;
	RB_REMOVE(api_reqs, &api_reqs, r);
	if (r->authwait)
		api_authwaits--;
	else
		api_nwait--;
	r->id = 0;
	r->authwait = 0;
	evtimer_del(&r->c->timer);
}

/* an answer for a request that is still waiting for it, from whom */
struct api_req *
api_answered(struct imsgev *iev, struct imsg *imsg, enum privsep_procid from)
{
	struct api_req	*r;

	if ((r = api_find(imsg_get_id(imsg))) == NULL ||
	    (r->phase != PH_WAIT && r->phase != PH_STREAM) ||
	    iev->peer != (int)from)
		return (NULL);	/* too late: answered with a timeout */
	return (r);
}

/*
 * The bearer key.
 */

int
api_authorized(struct api_req *r, const struct http_head *h)
{
	const struct http_field	*f;
	const uint8_t		*key;
	const char		*tok;
	size_t			 keylen, toklen;

	if (r->t.op == API_METRICS && apiconf_metrics_public())
		return (1);
	/* says "ok" and nothing more: for any prober, without the key */
	if (r->t.open)
		return (1);
	f = http_head_find(h, "Authorization");
	r->token = f != NULL;
	if ((key = apiconf_key(&keylen)) == NULL) {
		r->nokey = 1;
		return (0);
	}
	if (f == NULL || auth_bearer(f->value, f->valuelen, &tok,
	    &toklen) == -1 || !auth_key_match(key, keylen, tok, toklen))
		return (0);
	auth_succeeded(r->c->peer);
	return (1);
}

/* 303 to where, for a browser: the status page's login and logout */
void
api_see_other(struct api_req *r, const char *where, const char *extra)
{
	char	 head[512];

	(void)snprintf(head, sizeof(head), "Location: %s\r\n%s", where,
	    extra != NULL ? extra : "");
	api_send(r, 303, CT_TEXT, head, "", 0);
}

void
api_unauthorized(struct api_req *r)
{
	/* a wrong key at the status page's login: back to its form */
	if (r->t.op == API_UI_LOGIN) {
		api_see_other(r, "/ui/?login=failed", NULL);
		return;
	}
	api_error(r, 401, r->nokey ? "no API key is configured" :
	    "a valid bearer key is required", r->token ?
	    "WWW-Authenticate: Bearer realm=\"orchd\", "
	    "error=\"invalid_token\"\r\n" :
	    "WWW-Authenticate: Bearer realm=\"orchd\"\r\n");
}

/* over the cap of wrong keys for every gateway: 429, at once */
void
api_limited(struct api_req *r, int secs)
{
	char	 extra[64];

	(void)snprintf(extra, sizeof(extra), "Retry-After: %d\r\n",
	    MAXIMUM(secs, 1));
	api_error(r, 429, "too many wrong keys from this address", extra);
}

/*
 * Ask the reaper to count this wrong key against the client's address,
 * for every gateway ("prefork"): the address it counts is the one "max
 * connections per address" counts, the connection's, a trusted proxy's
 * too.  0 when asked, -1 when it cannot be, 1 when that was answered
 * (429: r is gone).
 */
static int
api_ask_limit(struct api_req *r)
{
	struct gw_conn	*c = r->c;
	uint32_t	 id;

	if (c->peeraddr.af != AF_INET && c->peeraddr.af != AF_INET6)
		return (-1);
	if (api_authwaits >= AUTH_WAITS_MAX) {
		/* that many guesses under way is a flood: no more now */
		api_limited(r, API_RETRY_AFTER);
		return (1);
	}
	id = api_newid();
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_AUTHFAIL, id, -1,
	    &c->peeraddr, sizeof(c->peeraddr)) == -1) {
		log_warn("api: to %s", proc_name(PROC_REAPER));
		return (-1);
	}
	r->id = id;
	r->authwait = 1;
	RB_INSERT(api_reqs, &api_reqs, r);
	api_authwaits++;
	return (0);
}

/*
 * A wrong key.  Its 401 is held as this gateway's count of the address
 * says (auth_failed), and the reaper is asked for the count of every
 * gateway: over the cap, the answer is 429 at once; under it, the 401
 * goes when both the hold is over and the reaper has answered, or after
 * AUTH_VERDICT_WAIT_MS at the most if it does not.
 */
void
api_deny(struct api_req *r)
{
	int64_t	 delay, now;
	int	 rc;

	metrics_auth_failure();
	if (r->nokey) {
		api_unauthorized(r);
		return;
	}
	now = monotime_ms();
	delay = auth_failed(r->c->peer, now);
	r->deny_ms = now + delay;
	if ((rc = api_ask_limit(r)) == 1)
		return;
	if (rc == -1 && delay == 0) {
		api_unauthorized(r);
		return;
	}
	if (delay > 0)
		log_debug("%s: api: wrong key again, answering in %lld ms",
		    r->c->peer, (long long)delay);
	r->phase = PH_DELAY;
	conn_reading(r->c, 0);
	conn_timer_ms(r->c, delay > 0 ? delay : AUTH_VERDICT_WAIT_MS);
}

/* the reaper's count: 429 now, or the 401 when its hold is over */
void
api_recv_authlimit(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_authlimit	 rl;
	struct api_req		*r;
	int64_t			 now;

	(void)imsg_get_data(imsg, &rl, sizeof(rl));
	if ((r = api_find(imsg_get_id(imsg))) == NULL ||
	    r->phase != PH_DELAY || !r->authwait || r->verdict)
		return;		/* too late: answered 401 already */
	r->verdict = 1;
	if (rl.limited) {
		log_debug("%s: api: over the cap of wrong keys, for %d s",
		    r->c->peer, (int)rl.retry_after);
		api_limited(r, rl.retry_after);
		return;
	}
	if ((now = monotime_ms()) >= r->deny_ms) {
		api_unauthorized(r);
		return;
	}
	conn_timer_ms(r->c, r->deny_ms - now);
}

/* an address over the cap, for every gateway: its keys are not looked at */
void
api_recv_authblock(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_authblock	 blk;

	(void)imsg_get_data(imsg, &blk, sizeof(blk));
	auth_block(&blk.client, blk.ms, monotime_ms());
}

/*
 * The body of a keepwarm request, a workload's or a group's, into
 * r->keep_on and r->keep_until: -1 once a 400 is answered.
 */
int
api_keepwarm_body(struct api_req *r)
{
	char	 err[CTL_MSG_MAX];
	size_t	 len;

	len = r->body != NULL ? evbuffer_get_length(r->body) : 0;
	if (len == 0 || apij_keepwarm_until((const char *)evbuffer_pullup(
	    r->body, -1), len, walltime_ms() / 1000, &r->keep_on,
	    &r->keep_until, err, sizeof(err)) == -1) {
		api_error(r, 400, len == 0 ? "a body {\"enabled\": true} or "
		    "{\"enabled\": false} is required" : err, NULL);
		return (-1);
	}
	return (0);
}

/*
 * The body of a maintenance request, a workload's or a group's, into
 * r->maint: -1 once a 400 is answered.
 */
int
api_maint_body(struct api_req *r)
{
	char	 err[CTL_MSG_MAX];
	size_t	 len;

	len = r->body != NULL ? evbuffer_get_length(r->body) : 0;
	if (len == 0 || apij_maint((const char *)evbuffer_pullup(r->body, -1),
	    len, walltime_ms() / 1000, &r->maint, err, sizeof(err)) == -1) {
		api_error(r, 400, len == 0 ? "a body {\"enabled\": true} or "
		    "{\"enabled\": false} is required" : err, NULL);
		return (-1);
	}
	return (0);
}
