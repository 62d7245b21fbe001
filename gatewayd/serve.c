/*
 * An HTTP connection waiting for a request: its head read and parsed,
 * then routed.  The HTTP API's requests (on its listeners, or by its "api
 * host") go to api_conn.c, a workload's to the proxy (proxy.c), held for
 * a wake (wake.c) while it is not running, or answered here when they are
 * not use ("ignore", ignore.c) and it is not running; a request for no
 * route gets a 404.  A workload's request passes its gate first (gate.c),
 * before anything counts it as use or wakes it.  Routing sets the
 * connection's table of operations (c->ops) to what it goes to, and
 * conn_next() sets this file's again for the next request.  A new
 * connection's first bytes may be HTTP/2's preface: h2.c takes the
 * connection then.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "util.h"
#include "workload.h"
#include "gateway.h"
#include "pages.h"
#include "gatecheck.h"
#include "metrics.h"
#include "acme.h"

static void	serve_parse(struct gw_conn *);
static void	serve_route(struct gw_conn *);
static void	serve_ignored(struct gw_conn *, int);

/* input while a head is awaited or read */
static void
serve_read(struct gw_conn *c)
{
	if (!c->h2stream && h2_input(c))
		return;
	if (c->state != CONN_IDLE && c->state != CONN_HEAD) {
		conn_input_wait(c);
		return;
	}
	if (c->eof && evbuffer_get_length(c->in) == 0) {
		conn_close(c);
		return;
	}
	serve_parse(c);
}

static void
serve_timeout(struct gw_conn *c)
{
	if (c->state == CONN_HEAD)
		conn_error(c, 408, "head timeout");
	else
		conn_close(c);
}

const struct conn_ops serve_ops = {
	.on_read = serve_read,
	.on_timeout = serve_timeout
};

/* feed buffered bytes to the head parser without copying them first */
static void
serve_parse(struct gw_conn *c)
{
	struct evbuffer_iovec	 v;
	size_t			 used;
	int			 r = HTTP_MORE;

	while (evbuffer_get_length(c->in) > 0) {
		if (c->req == NULL) {
			if ((c->req = head_get()) == NULL) {
				conn_error(c, 503, "out of memory");
				return;
			}
			http_req_init(&c->req->h, c->req->buf,
			    sizeof(c->req->buf));
			conn_idle_leave(c);
			c->state = CONN_HEAD;
			/* what the client sent before is not this one's */
			c->alog_rx0 = c->rx_total -
			    evbuffer_get_length(c->in);
			/*
			 * The whole head, not each byte: slowloris.  The
			 * first head's time began at the accept, however
			 * late its first byte; a later head's begins with
			 * its first byte, the keep-alive wait before it
			 * being the keepalive timeout's.
			 */
			if (!c->fresh)
				conn_timer(c, gw->conf.header_timeout);
			c->fresh = 0;
		}
		if (evbuffer_peek(c->in, -1, NULL, &v, 1) < 1)
			break;
		r = http_head_feed(&c->req->h, v.iov_base, v.iov_len, &used);
		evbuffer_drain(c->in, used);
		if (r != HTTP_MORE)
			break;
	}
	if (r == HTTP_ERROR) {
		conn_error(c, c->req->h.errcode, c->req->h.errstr);
		return;
	}
	if (r == HTTP_DONE) {
		/*
		 * A plain connection keeps its read event: bytes that come
		 * while the request is handled are read, bounded, and the
		 * event is dropped only then, which spares two epoll_ctl
		 * per request.  TLS reads have their own bookkeeping.
		 */
		if (c->tls != NULL)
			conn_reading(c, 0);
		serve_route(c);
		return;
	}
	if (c->eof)
		conn_close(c);
}

static void
serve_route(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	struct gw_workload	*wl = NULL;

	c->meth = h->meth;
	c->version = h->version;
	c->accept = errpage_accept(h);
	/* keepalive timeout 0: one request per connection */
	c->keepalive = http_head_persistent(h) &&
	    gw->conf.keepalive_timeout > 0;
	/* a WebSocket alone; any other Upgrade goes as a plain request */
	c->upgrade = http_head_websocket(h);
	c->reqbody = h->body;
	c->reqleft = h->content_length;
	c->reqdone = (h->body == HTTP_BODY_NONE);
	c->respdone = 0;
	c->respbody = HTTP_BODY_NONE;
	c->routed = 0;
	c->wake_us = -1;
	c->refused = 0;
	/* what a gate added to the request before is not this one's */
	gate_conn_free(c);
	metrics_request_protocol(c);

	/* http-01, and the path it reserves: the gateway's own answer */
	if (acme_http_answer(c))
		return;
	/* a listener's "redirect https": before the API, any route */
	if (redirect_request(c, NULL))
		return;

	/* the HTTP API: on its own listeners, or by its "api host" */
	if (api_wants(c)) {
		c->acct = 0;
		c->rx_pending = 0;
		accesslog_head(c, NULL);
		c->ops = &api_ops;
		api_request(c);
		return;
	}
	if (h->authoritylen > 0)
		wl = route_find(h->authority, h->hostlen, h->path, h->pathlen,
		    &c->path_strip);
	if (wl == ROUTE_BAD_PATH) {
		log_debug("%s: %.*s: a path its routes cannot trust", c->peer,
		    (int)h->hostlen, h->authority);
		c->acct = 0;
		c->rx_pending = 0;
		accesslog_head(c, NULL);
		head_put(c->req);
		c->req = NULL;
		conn_respond(c, 400, NULL, 1);
		return;
	}
	if (wl == NULL) {
		log_debug("%s: no route for %.*s", c->peer,
		    (int)h->hostlen, h->authority ? h->authority : "");
		metrics_unknown_host();
		c->acct = 0;
		c->rx_pending = 0;
		accesslog_head(c, NULL);
		head_put(c->req);
		c->req = NULL;
		conn_respond(c, 404, NULL, !c->reqdone || !c->keepalive);
		if (c->state != CONN_CLOSING)
			conn_next(c, 1);
		return;
	}
	if (c->wl != wl) {
		if (c->wl != NULL)
			gw_workload_unref(c->wl);
		gw_workload_ref(wl);
		c->wl = wl;
	}
	/* a workload's "redirect https": no wake */
	if (redirect_request(c, wl))
		return;
	metrics_route(c);
	accesslog_head(c, wl);
	/* the gate: it calls serve_pass() if the request may go on */
	if (wl->gate != NULL) {
		gate_check(c);
		return;
	}
	serve_pass(c);
}

/*
 * A routed request past its workload's gate: proxied, held for a wake,
 * or answered here if it is not use and the workload is not running.
 */
void
serve_pass(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	int			 answer;

	c->ops = &proxy_ops;
	/* in maintenance: 503 at once, running or not, nothing woken */
	if (wake_maint(c))
		return;
	/* not use ("ignore"): proxied uncounted, or answered here */
	if ((answer = ignore_request(c)) != -1) {
		/* its answer is counted for /metrics, as any routed one's */
		c->routed = 1;
		if (wl->state == WL_RUNNING)
			proxy_start(c);
		else
			serve_ignored(c, answer);
		return;
	}
	activity_begin(c);
	if (wl->state != WL_RUNNING)
		wake_park(c);
	else if (herd_join(c) == -1)
		proxy_start(c);		/* now: in a fresh wake's window or not */
}

/* the workload is not running: our own answer, and no wake */
static void
serve_ignored(struct gw_conn *c, int answer)
{
	const char	*state = workload_state_name(c->wl->state);
	char		 extra[128], body[32];
	int		 status;

	status = answer == 200 && c->wl->state != WL_FAILED ? 200 : 503;
	if (status == 503)
		(void)snprintf(extra, sizeof(extra), "Retry-After: %d\r\n"
		    "Orchd-State: %s\r\n", GW_RETRY_AFTER, state);
	else
		(void)snprintf(extra, sizeof(extra), "Orchd-State: %s\r\n",
		    state);
	(void)snprintf(body, sizeof(body), "%s\n", state);
	log_debug("%s: %s is %s, not woken: %d", c->peer, c->wl->name, state,
	    status);
	conn_answer(c, status, extra, body);
}
