/*
 * The HTTP API's side of a connection: serve.c routes a request here
 * (api_request(), with api_ops as the connection's table), the body is
 * read, and conn.c calls back for more input, the timer and the close.
 * Above api.c (the requests and their answers), api_ops.c and
 * api_events.c, which it hands the request to.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void	api_readable(struct gw_conn *);
static void	api_go(struct api_req *, int);

/* a body's bound: the status page's login form is small */
static size_t
api_body_max(struct api_req *r)
{
	return (r->t.op == API_UI_LOGIN ? UI_LOGIN_MAX : API_BODY_MAX);
}

/*
 * The request body.
 */

/* -1 when the request was answered (an error) */
static int
api_body_take(struct api_req *r, int *done)
{
	struct gw_conn		*c = r->c;
	struct evbuffer_iovec	 v;
	const char		*span;
	size_t			 n, used, spanlen;
	int			 rc;

	*done = 0;
	if (c->reqbody == HTTP_BODY_LENGTH) {
		n = MINIMUM(c->reqleft, evbuffer_get_length(c->in));
		evbuffer_remove_buffer(c->in, r->body, n);
		c->reqleft -= n;
		*done = c->reqleft == 0;
		return (0);
	}
	while (evbuffer_get_length(c->in) > 0) {
		if (evbuffer_peek(c->in, -1, NULL, &v, 1) < 1)
			break;
		rc = http_chunked_feed(&r->chunk, v.iov_base, v.iov_len, &used,
		    &span, &spanlen);
		if (rc == HTTP_ERROR) {
			api_error(r, 400, r->chunk.errstr, NULL);
			return (-1);
		}
		if (spanlen > 0)
			evbuffer_add(r->body, span, spanlen);
		evbuffer_drain(c->in, used);
		if (evbuffer_get_length(r->body) > api_body_max(r)) {
			api_error(r, 413, "request body too large", NULL);
			return (-1);
		}
		if (rc == HTTP_DONE) {
			*done = 1;
			break;
		}
	}
	return (0);
}

static void
api_body_start(struct api_req *r, int expect)
{
	struct gw_conn	*c = r->c;

	if (c->reqbody == HTTP_BODY_LENGTH && c->reqleft > api_body_max(r)) {
		api_error(r, 413, "request body too large", NULL);
		return;
	}
	if ((r->body = evbuffer_new()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	if (c->reqbody == HTTP_BODY_CHUNKED)
		http_chunked_init(&r->chunk, HTTP_REQUEST);
	if (expect) {
		evbuffer_add_printf(c->out, "HTTP/1.1 100 Continue\r\n\r\n");
		conn_flush(c);
	}
	r->phase = PH_BODY;
	conn_timer(c, api_body_timeout());
	conn_reading(c, 1);
	api_readable(c);
}

/* bytes from the client (conn_read, state CONN_API) */
static void
api_readable(struct gw_conn *c)
{
	struct api_req	*r = c->api;
	int		 done;

	if (r != NULL && r->phase == PH_EVENTS) {
		api_events_readable(r);
		return;
	}
	if (r == NULL || r->phase != PH_BODY) {
		/* a pipelined request waits for this answer */
		conn_reading(c, 0);
		return;
	}
	if (api_body_take(r, &done) == -1)
		return;
	if (done) {
		c->reqdone = 1;
		conn_reading(c, 0);
		evtimer_del(&c->timer);
		api_dispatch(r);
		return;
	}
	if (c->eof) {
		/* the client gave up halfway */
		conn_close(c);
		return;
	}
	conn_timer(c, api_body_timeout());
}

/* is this request the API's?  Its listener says so, or its Host */
int
api_wants(struct gw_conn *c)
{
	const struct http_head	*h = &c->req->h;

	if (c->listener->conf.api)
		return (1);
	return (h->authoritylen > 0 &&
	    apiconf_host_match(h->authority, h->hostlen));
}

/*
 * A session (of the cookie r->sessid): 1 when it opens this request, 0
 * when it does not (as if no cookie had been sent), -1 when that was
 * answered (403: no CSRF token, or read-only).
 */
static int
api_session_check(struct api_req *r, const struct ui_sess *s)
{
	if (s == NULL || !s->found || s->expires <= time(NULL))
		return (0);
	r->sess = *s;
	if (r->c->meth != HTTP_M_GET && r->c->meth != HTTP_M_HEAD &&
	    !ui_csrf_ok(s, r->csrfhdr)) {
		api_error(r, 403, "the session's X-CSRF-Token is required",
		    NULL);
		return (-1);
	}
	if (s->readonly && ui_action_op(r->t.op)) {
		api_error(r, 403, "a read-only session", NULL);
		return (-1);
	}
	r->sessok = 1;
	return (1);
}

/*
 * The status page's cookie, on a route that takes it, and the request's
 * CSRF token, kept before the head is let go: 1 when there is one.
 */
static int
api_cookie_read(struct api_req *r, const struct http_head *h)
{
	const struct http_field	*f;

	if (!apiconf_status_page() || !ui_cookie_op(r->t.op) ||
	    r->t.status != 0 || ui_cookie(h, r->sessid) == -1)
		return (0);
	r->cookie = 1;
	if ((f = http_head_find(h, "X-CSRF-Token")) != NULL &&
	    f->valuelen < sizeof(r->csrfhdr)) {
		memcpy(r->csrfhdr, f->value, f->valuelen);
		r->csrfhdr[f->valuelen] = '\0';
	}
	return (1);
}

/*
 * Its session: 1 authorized, 0 not, -1 answered or asked (the reaper's
 * answer goes on, api_recv_sess).
 */
static int
api_cookie(struct api_req *r)
{
	int	 rc;

	if (!r->cookie)
		return (0);
	if ((rc = api_session_check(r, ui_cache_find(r->sessid, monotime_ms(),
	    time(NULL)))) != 0)
		return (rc);
	/* not known here: the reaper holds every gateway's */
	(void)api_ask(r, PROC_REAPER, IMSG_GW_SESS_ASK, r->sessid,
	    sizeof(r->sessid), UI_REAPER_WAIT);
	return (-1);
}

void
api_request(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	struct api_req		*r;
	int64_t			 blocked;
	int			 ok;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		conn_error(c, 503, "out of memory");
		return;
	}
	r->c = c;
	c->api = r;
	c->state = CONN_API;
	evtimer_del(&c->timer);
	if (h->pathlen > 0)
		(void)api_route(h->meth, h->path, h->pathlen, &r->t);
	else
		(void)api_route(h->meth, "/", 1, &r->t);
	r->expect = (h->flags & HTTP_F_EXPECT_CONTINUE) != 0;
	if (r->t.op == API_EVENTS)
		api_events_lastid(r, h);
	if (r->t.ui && !apiconf_status_page()) {
		/* no "status page": /ui/ is an API path like any other */
		r->t.ui = 0;
		r->t.open = 0;
		r->t.op = API_NONE;
		r->t.status = 404;
		r->t.error = "no such path";
		r->t.allow = NULL;
	}
	/* the page's own paths: no key, and all are 404 alike */
	if (r->t.ui && r->t.status != 0)
		r->t.open = 1;
	/*
	 * Over the cap of wrong keys: not even a right key is looked at.
	 * What needs no key is answered as to anyone.
	 */
	if (!r->t.open && !(r->t.op == API_METRICS &&
	    apiconf_metrics_public()) && (blocked = auth_blocked(&c->peeraddr,
	    monotime_ms())) > 0) {
		head_put(c->req);
		c->req = NULL;
		api_limited(r, (int)((blocked + 999) / 1000));
		return;
	}
	if (c->listener->conf.api == LISTENER_STATUS && !r->t.ui &&
	    !ui_cookie_op(r->t.op)) {
		/* "status listen on": the page and its routes, no more */
		r->t.op = API_NONE;
		r->t.open = 1;
		r->t.status = 404;
		r->t.error = "no such path";
		r->t.allow = NULL;
	}
	if (r->t.op == API_UI_LOGIN)
		ok = 1;		/* its key is in its body: ui_login() */
	else if (c->listener->conf.api == LISTENER_STATUS)
		ok = r->t.open;	/* never a bearer key: the cookie alone */
	else if (r->t.op == API_UI_SESSION || r->t.op == API_UI_LOGOUT)
		ok = 0;		/* a session's: no bearer key */
	else
		ok = api_authorized(r, h);
	/*
	 * The cookie only without an Authorization field: a wrong bearer
	 * key beside a live cookie is still a wrong key, counted.
	 */
	if (!ok && !r->token)
		(void)api_cookie_read(r, h);
	/* all that was needed of the head */
	head_put(c->req);
	c->req = NULL;
	if (!ok && (ok = api_cookie(r)) == -1)
		return;
	api_go(r, ok);
}

/* the request, authorized or not: its errors, its body, its operation */
static void
api_go(struct api_req *r, int ok)
{
	struct gw_conn	*c = r->c;
	char		 allow[64];

	if (!ok && (r->cookie || r->t.ui)) {
		/*
		 * A session that ended, or none: 401, not counted as a
		 * guess (an id is 128 random bits), so that a page left
		 * open after its logout does not lock its address out.
		 */
		api_unauthorized(r);
		return;
	}
	if (!ok) {
		api_deny(r);
		return;
	}
	if (r->t.status != 0) {
		if (r->t.allow != NULL)
			snprintf(allow, sizeof(allow), "Allow: %s\r\n",
			    r->t.allow);
		api_error(r, r->t.status, r->t.error, r->t.allow != NULL ?
		    allow : NULL);
		return;
	}
	if (c->reqbody != HTTP_BODY_NONE) {
		api_body_start(r, r->expect);
		return;
	}
	api_dispatch(r);
}

/* the reaper's answer about a cookie this gateway did not know */
void
api_recv_sess(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess	 s;
	struct api_req	*r;
	int		 rc;

	(void)imsg_get_data(imsg, &s, sizeof(s));
	if ((r = api_answered(iev, imsg, PROC_REAPER)) == NULL ||
	    r->t.op == API_NONE || !r->cookie ||
	    memcmp(s.id, r->sessid, sizeof(s.id)) != 0) {
		explicit_bzero(&s, sizeof(s));
		return;
	}
	api_unask(r);
	r->phase = PH_START;
	if (!s.found && !r->sessagain) {
		/*
		 * A login on another gateway may have reached the reaper
		 * after this gateway's question: ask once more, a little
		 * later, before the 401.
		 */
		r->sessagain = 1;
		r->phase = PH_SESSAGAIN;
		conn_timer_ms(r->c, UI_ASK_AGAIN_MS);
		return;
	}
	ui_cache_put(&s, monotime_ms());
	rc = api_session_check(r, &s);
	explicit_bzero(&s, sizeof(s));
	if (rc == -1)
		return;
	api_go(r, rc);
}

/* the connection's timer, in state CONN_API */
static void
api_timeout(struct gw_conn *c)
{
	struct api_req	*r = c->api;

	if (r == NULL) {
		conn_close(c);
		return;
	}
	switch (r->phase) {
	case PH_BODY:
		api_error(r, 408, "request body too slow", NULL);
		break;
	case PH_DELAY:
		api_unauthorized(r);
		break;
	case PH_STREAM:
		api_logs_stop(r);
		api_logs_abort(r);
		break;
	case PH_EVENTS:
		api_events_ping(r);
		break;
	case PH_SESSAGAIN:
		(void)api_ask(r, PROC_REAPER, IMSG_GW_SESS_ASK, r->sessid,
		    sizeof(r->sessid), UI_REAPER_WAIT);
		break;
	case PH_WAIT:
		switch (r->t.op) {
		case API_WAKE:
			api_error(r, 504, "not running within its wake "
			    "timeout", NULL);
			break;
		case API_SUSPEND:
			api_error(r, 504, "not asleep in time", NULL);
			break;
		case API_RESTART:
			api_error(r, 504, "not running again in time", NULL);
			break;
		case API_LIST:
		case API_GET:
		case API_HISTORY:
			api_error(r, 503, "the store is not answering",
			    RETRY_AFTER);
			break;
		case API_LOGS:
			api_logs_stop(r);
			/* FALLTHROUGH */
		default:
			api_error(r, 503, "orchd is not answering in time",
			    RETRY_AFTER);
			break;
		}
		break;
	default:
		conn_close(c);
		break;
	}
}

/* the connection is closing: nothing will be answered on it */
static void
api_conn_closed(struct gw_conn *c)
{
	struct api_req	*r = c->api;

	if (r == NULL)
		return;
	if (r->logs)
		api_logs_stop(r);
	c->api = NULL;
	api_free(r);
}

/* input while the request is the API's */
static void
api_read(struct gw_conn *c)
{
	if (c->state == CONN_API)
		api_readable(c);
	else
		conn_input_wait(c);
}

static void
api_conn_timeout(struct gw_conn *c)
{
	if (c->state == CONN_API)
		api_timeout(c);
	else
		conn_close(c);
}

const struct conn_ops api_ops = {
	.on_read = api_read,
	.on_timeout = api_conn_timeout,
	.on_close = api_conn_closed
};
