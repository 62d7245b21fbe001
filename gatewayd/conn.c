/*
 * Client connections: accept, read a request head, route it, and answer
 * the errors the gateway answers itself.  The proxying proper is in
 * proxy.c, the waiting for a wake in wake.c.
 *
 * A connection handles one request at a time: the next pipelined request
 * stays in the input buffer, unread by the parser, until the answer to
 * this one is complete, so answers go out in order.
 */

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "gateway.h"

static void	conn_read(int, short, void *);
static void	conn_write(int, short, void *);
static void	conn_timeout(int, short, void *);
static void	conn_parse(struct gw_conn *);
static void	conn_route(struct gw_conn *);

/*
 * Head buffers are big (a head may be 40 KiB) and needed only while a
 * head is read or parked, so an idle keep-alive connection holds none:
 * they come from a small free list and go back to it.
 */
struct gw_head *
head_get(void)
{
	struct gw_head	*hd;

	if ((hd = SLIST_FIRST(&gw->heads)) != NULL) {
		SLIST_REMOVE_HEAD(&gw->heads, next);
		gw->nheads--;
		return (hd);
	}
	return (malloc(sizeof(*hd)));
}

void
head_put(struct gw_head *hd)
{
	if (hd == NULL)
		return;
	if (gw->nheads >= GW_HEADS_CACHED) {
		free(hd);
		return;
	}
	SLIST_INSERT_HEAD(&gw->heads, hd, next);
	gw->nheads++;
}

static void
conn_timer(struct gw_conn *c, int secs)
{
	struct timeval	 tv = { secs, 0 };

	evtimer_add(&c->timer, &tv);
}

void
conn_accept(int fd, short event, void *arg)
{
	struct gw_listener	*l = arg;
	struct gw_conn		*c;
	struct sockaddr_storage	 ss;
	socklen_t		 sslen = sizeof(ss);
	int			 s, on = 1;

	if ((s = accept4(fd, (struct sockaddr *)&ss, &sslen,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("accept on %s", l->conf.name);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->in = evbuffer_new()) == NULL ||
	    (c->out = evbuffer_new()) == NULL) {
		log_warn("%s", __func__);
		if (c != NULL) {
			if (c->in != NULL)
				evbuffer_free(c->in);
			free(c);
		}
		close(s);
		return;
	}
	(void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	c->fd = s;
	c->listener = l;
	c->up.fd = -1;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
		    c->peer, sizeof(c->peer));
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
		    c->peer, sizeof(c->peer));
	event_set(&c->rev, s, EV_READ | EV_PERSIST, conn_read, c);
	event_set(&c->wev, s, EV_WRITE | EV_PERSIST, conn_write, c);
	evtimer_set(&c->timer, conn_timeout, c);
	c->state = CONN_IDLE;
	event_add(&c->rev, NULL);
	conn_timer(c, GW_HEAD_TIMEOUT);
	gw->nconns++;
}

/* stop or start reading from the client (TCP then pushes back) */
void
conn_reading(struct gw_conn *c, int on)
{
	if (c->eof || c->fd == -1)
		on = 0;
	if (on && !event_pending(&c->rev, EV_READ, NULL))
		event_add(&c->rev, NULL);
	else if (!on && event_pending(&c->rev, EV_READ, NULL))
		event_del(&c->rev);
}

/*
 * While parked the client is not read from, but its leaving must free
 * what it holds at once: watch for the close alone (EPOLLRDHUP).
 */
void
conn_park_watch(struct gw_conn *c, int parked)
{
	event_del(&c->rev);
	if (parked) {
		event_set(&c->rev, c->fd, EV_CLOSED | EV_PERSIST, conn_read,
		    c);
		event_add(&c->rev, NULL);
	} else
		event_set(&c->rev, c->fd, EV_READ | EV_PERSIST, conn_read, c);
}

void
conn_flush(struct gw_conn *c)
{
	if (evbuffer_get_length(c->out) > 0 &&
	    !event_pending(&c->wev, EV_WRITE, NULL))
		event_add(&c->wev, NULL);
}

void
conn_close(struct gw_conn *c)
{
	if (c->state == CONN_PARKED)
		wake_unpark(c);
	activity_end(c);
	proxy_upstream_close(c);
	if (c->wl != NULL) {
		workload_unref(c->wl);
		c->wl = NULL;
	}
	head_put(c->req);
	head_put(c->resp);
	event_del(&c->rev);
	event_del(&c->wev);
	evtimer_del(&c->timer);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	close(c->fd);
	gw->nconns--;
	free(c);
}

static const char *
status_reason(int status)
{
	switch (status) {
	case 400: return ("Bad Request");
	case 404: return ("Not Found");
	case 408: return ("Request Timeout");
	case 413: return ("Content Too Large");
	case 414: return ("URI Too Long");
	case 417: return ("Expectation Failed");
	case 431: return ("Request Header Fields Too Large");
	case 501: return ("Not Implemented");
	case 502: return ("Bad Gateway");
	case 503: return ("Service Unavailable");
	case 504: return ("Gateway Timeout");
	case 505: return ("HTTP Version Not Supported");
	default: return ("Error");
	}
}

/*
 * An answer of the gateway's own.  close is set whenever the request's
 * body was not read: the connection cannot be trusted for another request
 * after that.
 */
void
conn_respond(struct gw_conn *c, int status, const char *extra, int close)
{
	const char	*reason = status_reason(status);

	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain\r\n"
	    "Content-Length: %zu\r\n"
	    "%s%s"
	    "\r\n%d %s\n", status, reason, strlen(reason) + 5,
	    extra != NULL ? extra : "",
	    close ? "Connection: close\r\n" : "", status, reason);
	if (close) {
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		proxy_upstream_close(c);
	}
	conn_flush(c);
}

void
conn_error(struct gw_conn *c, int status, const char *why)
{
	if (why != NULL)
		log_debug("%s: %d: %s", c->peer, status, why);
	head_put(c->req);
	c->req = NULL;
	activity_end(c);
	conn_respond(c, status, NULL, 1);
}

/* the answer is complete: on to the next request, or close */
void
conn_request_done(struct gw_conn *c)
{
	activity_end(c);
	head_put(c->resp);
	c->resp = NULL;
	if (!c->keepalive || !c->reqdone || c->eof) {
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		if (evbuffer_get_length(c->out) == 0)
			conn_close(c);
		return;
	}
	c->state = CONN_IDLE;
	conn_timer(c, GW_IDLE_TIMEOUT);
	conn_reading(c, 1);
	/* a pipelined request may be waiting already */
	if (evbuffer_get_length(c->in) > 0)
		conn_parse(c);
}

static void
conn_read(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;
	int		 n;

	if (c->state == CONN_PARKED) {
		/* only EV_CLOSED is watched while parked: the client left */
		log_debug("%s: left while parked", c->peer);
		conn_close(c);
		return;
	}
	n = evbuffer_read(c->in, fd, 65536);
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		conn_close(c);
		return;
	}
	if (n == 0) {
		c->eof = 1;
		event_del(&c->rev);
	}
	switch (c->state) {
	case CONN_IDLE:
	case CONN_HEAD:
		if (c->eof && evbuffer_get_length(c->in) == 0) {
			conn_close(c);
			return;
		}
		conn_parse(c);
		break;
	case CONN_PROXY:
	case CONN_TUNNEL:
		proxy_client_readable(c);
		break;
	default:
		/* CONNECT or CLOSING: the bytes wait */
		if (c->eof && c->state == CONN_CLOSING &&
		    evbuffer_get_length(c->out) == 0)
			conn_close(c);
		break;
	}
}

static void
conn_write(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;

	if (evbuffer_write(c->out, fd) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		conn_close(c);
		return;
	}
	if (evbuffer_get_length(c->out) > 0)
		return;
	event_del(&c->wev);
	if (c->close_after) {
		conn_close(c);
		return;
	}
	proxy_client_drained(c);
}

static void
conn_timeout(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;

	switch (c->state) {
	case CONN_HEAD:
		conn_error(c, 408, "head timeout");
		break;
	case CONN_PROXY:
		if (c->resp == NULL && evbuffer_get_length(c->out) == 0 &&
		    c->respbody == HTTP_BODY_NONE && !c->respdone)
			conn_error(c, 504, "upstream timeout");
		else
			conn_close(c);
		break;
	case CONN_CONNECT:
		conn_error(c, 504, "upstream connect timeout");
		break;
	case CONN_PARKED:
		/* wake.c answers parked requests; this is only a backstop */
		conn_error(c, 504, "parked too long");
		break;
	default:
		conn_close(c);
		break;
	}
}

/* feed buffered bytes to the head parser without copying them first */
static void
conn_parse(struct gw_conn *c)
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
			c->state = CONN_HEAD;
			conn_timer(c, GW_HEAD_TIMEOUT);
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
		conn_reading(c, 0);
		conn_route(c);
		return;
	}
	if (c->eof)
		conn_close(c);
}

static void
conn_route(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	struct gw_workload	*wl = NULL;

	c->meth = h->meth;
	c->version = h->version;
	c->keepalive = http_head_persistent(h);
	c->upgrade = (h->flags & HTTP_F_UPGRADE) &&
	    (h->flags & HTTP_F_CONN_UPGRADE);
	c->reqbody = h->body;
	c->reqleft = h->content_length;
	c->reqdone = (h->body == HTTP_BODY_NONE);
	c->respdone = 0;
	c->respbody = HTTP_BODY_NONE;

	if (h->authoritylen > 0)
		wl = route_lookup(h->authority, h->hostlen);
	if (wl == NULL) {
		log_debug("%s: no route for %.*s", c->peer,
		    (int)h->hostlen, h->authority ? h->authority : "");
		head_put(c->req);
		c->req = NULL;
		conn_respond(c, 404, NULL, !c->reqdone || !c->keepalive);
		if (c->state != CONN_CLOSING) {
			c->state = CONN_IDLE;
			conn_timer(c, GW_IDLE_TIMEOUT);
			conn_reading(c, 1);
			if (evbuffer_get_length(c->in) > 0)
				conn_parse(c);
		}
		return;
	}
	if (c->wl != wl) {
		if (c->wl != NULL)
			workload_unref(c->wl);
		workload_ref(wl);
		c->wl = wl;
	}
	activity_begin(c);
	if (wl->state == WL_RUNNING)
		proxy_start(c);
	else
		wake_park(c);
}
