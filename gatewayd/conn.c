/*
 * Client connections, the transport: accept, read and write, time out,
 * close, and the answers the gateway makes itself.  What a connection is
 * for is a table of operations on it (struct conn_ops, gateway.h), set
 * by whoever takes it on: serve.c reads and routes a request head and
 * hands the connection to the proxy (proxy.c) or the API (api_conn.c);
 * tcp.c takes those of a workload's TCP listeners, h2.c an HTTP/2
 * session, and a connection held for a wake (wake.c) keeps its table.
 * This file calls through the table and names none of them, so the
 * files above it may call it without a circle.
 *
 * A connection handles one request at a time: the next pipelined request
 * stays in the input buffer, unread by the parser, until the answer to
 * this one is complete, so answers go out in order.
 *
 * Client I/O goes through conn_io_read() and conn_io_write(), plain or
 * TLS (tls.c); everything above them works on the c->in and c->out
 * buffers only.  Which of the socket's events are watched is worked out
 * in one place, conn_events(), from what the connection wants and what a
 * TLS operation waits for.
 *
 * Limits: at "max connections", or when the descriptors in use (one per
 * client, one per upstream) leave too little room (conn_full()), a new
 * connection is accepted only by closing the idle keep-alive connection
 * that has waited longest, as nginx reuses its idle connections; with
 * none idle the listeners stop accepting until a connection closes or
 * turns idle.  Over "max connections per address" (ORCHD_CONNS_ADDR by
 * default) a new connection is closed at once, after a best-effort 503
 * on a plain listener, counted in /metrics and logged at most once a
 * minute; an address is an IPv4 address or an IPv6 /64, and a "trusted
 * proxy" is not limited, as all its clients share its address.  With
 * "prefork", each gateway holds its share of the limit (limits_apply()):
 * the count is a table of this process's own, touched at accept and
 * close, never asked of another process.  Both limits count the
 * connections of workloads' own TCP listeners too, which are handed to
 * tcp.c once accepted and never see HTTP.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "pages.h"
#include "gatecheck.h"
#include "ignore.h"
#include "metrics.h"

static void	conn_read(int, short, void *);
static void	conn_write(int, short, void *);
static void	conn_timeout(int, short, void *);
static void	conn_linger(struct gw_conn *);
static void	conn_input(struct gw_conn *);
static void	conn_h2_read(struct gw_conn *);
static void	conn_h2_write(struct gw_conn *);

/*
 * The tables of a new connection: an HTTP listener's, a TCP one's, and
 * a TLS listener's before its handshake (tlshello.c), which then sets
 * the HTTP one.
 */
static const struct conn_ops	*conn_http;
static const struct conn_ops	*conn_tcp;
static const struct conn_ops	*conn_hello;

void
conn_init(const struct conn_ops *http, const struct conn_ops *tcp,
    const struct conn_ops *hello)
{
	conn_http = http;
	conn_tcp = tcp;
	conn_hello = hello;
}

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

/*
 * Watch the directions the connection needs: reading if it wants input
 * (unless a TLS read waits for writability) or a TLS write waits for
 * readability; writing if output is queued (unless a TLS write waits
 * for readability) or a TLS read waits for writability.
 */
static void
conn_events(struct gw_conn *c)
{
	int	 r, w;

	if (c->state == CONN_PARKED || c->state == CONN_HELLO || c->fd == -1)
		return;		/* conn_park_watch() has the read side,
				   or conn_hello_watch() */
	r = (c->reading && !c->eof && !c->tls_rw) || c->tls_wr;
	w = (evbuffer_get_length(c->out) > 0 && !c->tls_wr) || c->tls_rw;
	if (r && !event_pending(&c->rev, EV_READ, NULL))
		event_add(&c->rev, NULL);
	else if (!r && event_pending(&c->rev, EV_READ, NULL))
		event_del(&c->rev);
	if (w && !event_pending(&c->wev, EV_WRITE, NULL))
		event_add(&c->wev, NULL);
	else if (!w && event_pending(&c->wev, EV_WRITE, NULL))
		event_del(&c->wev);
}

/*
 * The idle keep-alive connections, oldest first: the ones closed to make
 * room.  A connection is on the list while it waits for its next request
 * with its last answer sent; not before its first request (that wait is
 * the header timeout's) nor with any byte of a request read.
 */
static void
conn_idle_enter(struct gw_conn *c)
{
	if (c->idle || c->state != CONN_IDLE || c->fresh ||
	    evbuffer_get_length(c->out) > 0)
		return;
	TAILQ_INSERT_TAIL(&gw->idle, c, idle_entry);
	c->idle = 1;
	/* at the limit, an idle connection makes accepting possible */
	accept_update();
}

void
conn_idle_leave(struct gw_conn *c)
{
	if (!c->idle)
		return;
	TAILQ_REMOVE(&gw->idle, c, idle_entry);
	c->idle = 0;
	accept_update();
}

/* close the oldest idle keep-alive connection: 0, or -1 if none */
int
conn_evict_idle(void)
{
	struct gw_conn	*c;

	if ((c = TAILQ_FIRST(&gw->idle)) == NULL)
		return (-1);
	log_debug("%s: idle, closed to make room (%u connections, "
	    "%u upstreams)", c->peer, gw->nconns, gw->nups);
	metrics_idle_closed();
	conn_close(c);
	return (0);
}

static void
conn_peer(struct gw_conn *c, const struct sockaddr_storage *ss)
{
	const struct sockaddr_in	*sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6	*sin6 =
	    (const struct sockaddr_in6 *)ss;
	struct netaddr			*na = &c->peeraddr;

	memset(na, 0, sizeof(*na));
	na->af = ss->ss_family;
	if (ss->ss_family == AF_INET) {
		memcpy(na->addr, &sin->sin_addr, sizeof(sin->sin_addr));
		inet_ntop(AF_INET, &sin->sin_addr, c->peer, sizeof(c->peer));
	} else if (ss->ss_family == AF_INET6) {
		memcpy(na->addr, &sin6->sin6_addr, sizeof(sin6->sin6_addr));
		inet_ntop(AF_INET6, &sin6->sin6_addr, c->peer,
		    sizeof(c->peer));
	}
}

/* is the client's address in one of the "trusted proxy" networks? */
static int
conn_trusted(const struct netaddr *a)
{
	const struct netaddr	*t;
	int			 i, bits;

	for (i = 0; i < gw->conf.ntrusted; i++) {
		t = &gw->conf.trusted[i];
		if (t->af != a->af)
			continue;
		for (bits = 0; bits < t->prefix; bits++)
			if ((t->addr[bits / 8] ^ a->addr[bits / 8]) &
			    (0x80 >> (bits % 8)))
				break;
		if (bits == t->prefix)
			return (1);
	}
	return (0);
}

/*
 * Count the connection against its address.  The counter is made for an
 * address's first connection and freed with its last: an allocation per
 * client address, never per request.
 */
static int
conn_count_peer(struct gw_conn *c)
{
	struct gw_peer	 key, *p;

	if (gw->peermax == 0 || c->trusted)
		return (0);
	if (netaddr_client(&c->peeraddr, &key.addr) == -1)
		return (0);
	if ((p = RB_FIND(gw_peers, &gw->peers, &key)) == NULL) {
		if ((p = calloc(1, sizeof(*p))) == NULL)
			return (-1);
		p->addr = key.addr;
		RB_INSERT(gw_peers, &gw->peers, p);
	}
	if (p->nconns >= gw->peermax) {
		if (p->nconns == 0) {
			RB_REMOVE(gw_peers, &gw->peers, p);
			free(p);
		}
		return (-1);
	}
	p->nconns++;
	c->peercount = p;
	return (0);
}

static void
conn_uncount_peer(struct gw_conn *c)
{
	struct gw_peer	*p = c->peercount;

	if (p == NULL)
		return;
	c->peercount = NULL;
	if (--p->nconns == 0) {
		RB_REMOVE(gw_peers, &gw->peers, p);
		free(p);
	}
}

/*
 * Over its address's limit: a 503 in one non-blocking send on a plain
 * listener (a new socket's buffer takes it), then the close.  Nothing was
 * read, so nothing can be misframed.
 */
static void
conn_refuse(int s, struct gw_listener *l, const char *peer)
{
	static const char	 busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Type: text/plain\r\nContent-Length: 24\r\n"
	    "Retry-After: 1\r\nConnection: close\r\n\r\n"
	    "503 Service Unavailable\n";
	static time_t		 logged;
	static uint64_t		 quiet;
	time_t			 now;

	metrics_addr_refused();
	/* a flood of them would be a flood of lines: one a minute */
	now = monotime();
	if (now - logged >= 60) {
		log_warnx("%s: over max connections per address (%u here), "
		    "refused%s", peer, gw->peermax, quiet > 0 ?
		    " (and others since the last line)" : "");
		logged = now;
		quiet = 0;
	} else
		quiet++;
	if (!l->conf.tls && l->conf.workload[0] == '\0')
		(void)send(s, busy, sizeof(busy) - 1, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	close(s);
}

void
conn_accept(int fd, short event, void *arg)
{
	struct gw_listener	*l = arg;
	struct gw_conn		*c;
	struct sockaddr_storage	 ss;
	socklen_t		 sslen = sizeof(ss);
	int			 s, on = 1, full;

	/* at the limit, only an idle connection closed makes room */
	if ((full = conn_full()) && TAILQ_EMPTY(&gw->idle)) {
		accept_update();
		return;
	}
	if ((s = accept4(fd, (struct sockaddr *)&ss, &sslen,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno == EMFILE || errno == ENFILE)
			accept_backoff();
		else if (errno != EAGAIN && errno != EINTR &&
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
	c->up.fd = -1;
	conn_peer(c, &ss);
	c->trusted = conn_trusted(&c->peeraddr);
	if (conn_count_peer(c) == -1) {
		conn_refuse(s, l, c->peer);
		evbuffer_free(c->in);
		evbuffer_free(c->out);
		free(c);
		return;
	}
	/*
	 * Room made only now: neither a listener found empty nor a client
	 * over its address's limit costs an idle connection.
	 */
	if (full)
		(void)conn_evict_idle();
	c->listener = l;
	l->refs++;
	event_set(&c->rev, s, EV_READ | EV_PERSIST, conn_read, c);
	event_set(&c->wev, s, EV_WRITE | EV_PERSIST, conn_write, c);
	evtimer_set(&c->timer, conn_timeout, c);
	c->state = CONN_IDLE;
	c->fresh = 1;
	c->ops = conn_http;
	gw->nconns++;
	accept_update();
	if (l->conf.workload[0] != '\0') {
		/* never HTTP: tcp.c's from the start */
		c->ops = conn_tcp;
		c->ops->on_accept(c);
		return;
	}
	if (l->conf.tls) {
		/* its ClientHello first, peeked: tlshello.c's */
		c->ops = conn_hello;
		c->ops->on_accept(c);
		return;
	}
	conn_reading(c, 1);
	/* the TLS handshake, if any, is part of the head's time */
	conn_timer(c, gw->conf.header_timeout);
}

/*
 * A connection of the gateway's own for an HTTP/2 stream (h2.c), with the
 * client's address, trust and listener.  It is routed, parked, answered
 * and proxied as any connection is, but it has no socket: h2.c puts the
 * stream's request into its input and takes its answer from its output,
 * and the events that a socket would fire are made due by hand
 * (event_active(), no system call) so that each side runs from the event
 * loop as with a socket, never inside the other.  It is not counted
 * against its address.
 */
struct gw_conn *
conn_attach(struct gw_conn *parent, struct h2_stream *st)
{
	struct gw_conn	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->in = evbuffer_new()) == NULL ||
	    (c->out = evbuffer_new()) == NULL) {
		log_warn("%s", __func__);
		if (c != NULL) {
			if (c->in != NULL)
				evbuffer_free(c->in);
			free(c);
		}
		return (NULL);
	}
	c->fd = -1;
	c->up.fd = -1;
	memcpy(c->peer, parent->peer, sizeof(c->peer));
	c->peeraddr = parent->peeraddr;
	c->trusted = parent->trusted;
	c->listener = parent->listener;
	c->listener->refs++;
	c->h2stream = 1;
	c->h2st = st;
	c->ops = conn_http;
	event_set(&c->rev, -1, 0, conn_read, c);
	event_set(&c->wev, -1, 0, conn_write, c);
	evtimer_set(&c->timer, conn_timeout, c);
	c->state = CONN_IDLE;
	c->fresh = 1;
	c->reading = 1;
	gw->nconns++;
	accept_update();
	conn_timer(c, gw->conf.header_timeout);
	return (c);
}

/* an idle stream connection taken from its session's pool (h2.c) */
void
conn_reattach(struct gw_conn *c, struct h2_stream *st)
{
	conn_idle_leave(c);
	c->h2st = st;
	c->h2pool = NULL;
	conn_timer(c, gw->conf.header_timeout);
}

/* h2.c put input into a stream's connection: read it from the loop */
void
conn_h2_input(struct gw_conn *c)
{
	event_active(&c->rev, EV_READ, 1);
}

/* h2.c has room for more of a stream's answer: write it from the loop */
void
conn_h2_output(struct gw_conn *c)
{
	event_active(&c->wev, EV_WRITE, 1);
}

/* stop or start reading from the client (TCP then pushes back) */
void
conn_reading(struct gw_conn *c, int on)
{
	int	 was = c->reading;

	if (c->eof)
		on = 0;
	c->reading = on;
	if (c->h2stream) {
		/* input waits in c->in, and the stream's window with it */
		if (on) {
			c->sops->on_reading(c);
			if (!was && evbuffer_get_length(c->in) > 0)
				conn_h2_input(c);
		}
		return;
	}
	conn_events(c);
	/*
	 * Decrypted bytes may wait inside OpenSSL, where no poll sees
	 * them: look once when reading starts again.
	 */
	if (on && !was && (c->tls != NULL || c->backlog))
		event_active(&c->rev, EV_READ, 1);
}

/*
 * While parked the client is not read from, but its leaving must free
 * what it holds at once: watch for the close alone (EPOLLRDHUP).
 */
void
conn_park_watch(struct gw_conn *c, int parked)
{
	c->reading = 0;
	if (c->h2stream)
		return;		/* its stream's reset closes it (h2.c) */
	event_del(&c->rev);
	if (parked) {
		event_set(&c->rev, c->fd, EV_CLOSED | EV_PERSIST, conn_read,
		    c);
		event_add(&c->rev, NULL);
	} else
		event_set(&c->rev, c->fd, EV_READ | EV_PERSIST, conn_read, c);
}

/*
 * Before its handshake a TLS connection is not read but peeked at: each
 * new byte is an edge (EV_ET), so bytes left in the socket wake nobody
 * twice, and the client's leaving is seen (EV_CLOSED).  Off, it is read
 * as any connection.
 */
void
conn_hello_watch(struct gw_conn *c, int on)
{
	event_del(&c->rev);
	if (on) {
		c->state = CONN_HELLO;
		c->reading = 0;
		event_set(&c->rev, c->fd, EV_READ | EV_CLOSED | EV_ET |
		    EV_PERSIST, conn_read, c);
		event_add(&c->rev, NULL);
	} else {
		c->state = CONN_IDLE;
		event_set(&c->rev, c->fd, EV_READ | EV_PERSIST, conn_read, c);
	}
}

/*
 * Output was queued: write it at once, which usually takes all of it, and
 * watch for writability only for what the socket would not take.  Errors
 * are left to conn_write(), which runs when the socket is ready, so the
 * caller never finds its connection gone; so is a close after the last
 * byte, made due with event_active() (no system call).
 */
void
conn_flush(struct gw_conn *c)
{
	int	 n;

	if (c->h2stream) {
		/* also for no bytes: an answer's end may be news */
		conn_h2_output(c);
		return;
	}
	if (c->tls == NULL && !c->tls_rw && evbuffer_get_length(c->out) > 0 &&
	    !event_pending(&c->wev, EV_WRITE, NULL)) {
		if ((n = evbuffer_write(c->out, c->fd)) > 0) {
			metrics_tx(c, n);
			c->tx_total += n;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR) {
			event_active(&c->wev, EV_WRITE, 1);
			return;
		}
		if (evbuffer_get_length(c->out) == 0 && c->close_after) {
			event_active(&c->wev, EV_WRITE, 1);
			return;
		}
	}
	conn_events(c);
}

void
conn_close(struct gw_conn *c)
{
	if (c->idle) {
		TAILQ_REMOVE(&gw->idle, c, idle_entry);
		c->idle = 0;
	}
	/* what it is for lets go first: a wake's wait is logged with it */
	if (c->ops->on_close != NULL)
		c->ops->on_close(c);
	accesslog_end(c, 1);
	if (c->sops != NULL)
		c->sops->on_close(c);
	metrics_request_end(c);
	activity_end(c);
	upstream_close(c);
	if (c->wl != NULL) {
		gw_workload_unref(c->wl);
		c->wl = NULL;
	}
	head_put(c->req);
	head_put(c->resp);
	gate_conn_free(c);
	event_del(&c->rev);
	event_del(&c->wev);
	evtimer_del(&c->timer);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	tls_conn_close(c);
	if (c->fd != -1)
		close(c->fd);
	conn_uncount_peer(c);
	listener_unref(c->listener);
	gw->nconns--;
	free(c);
	accept_update();
}

/*
 * The last answer is out and the connection ends.  Closing a socket with
 * input unread makes the kernel send a reset, and a reset can destroy the
 * answer still in the client's receive buffer: a 413 to a client busy
 * sending its body is lost that way.  So unless the client has closed its
 * side, shut down ours (the client reads the answer, then the end) and
 * read and discard what still comes, as nginx's lingering close does:
 * until the client closes, at most GW_LINGER_WAIT seconds between reads,
 * GW_LINGER_TIME in all and GW_LINGER_BYTES.  The connection counts
 * against the limits until then.  Not for a client ended for abuse
 * (nolinger, an HTTP/2 rapid reset or flood): what it still sends would
 * be read at its choosing, megabytes of it, and what it loses of the
 * last answer is its own affair.
 */
void
conn_finish(struct gw_conn *c)
{
	if (c->eof || c->nolinger || c->state == CONN_LINGER ||
	    c->h2stream) {
		conn_close(c);
		return;
	}
	metrics_request_end(c);
	accesslog_end(c, 0);
	activity_end(c);
	upstream_close(c);
	head_put(c->req);
	head_put(c->resp);
	c->req = c->resp = NULL;
	/* a close_notify if the socket takes it; what follows is discarded */
	tls_conn_close(c);
	c->tls_rw = c->tls_wr = 0;
	if (shutdown(c->fd, SHUT_WR) == -1) {
		conn_close(c);
		return;
	}
	evbuffer_drain(c->in, evbuffer_get_length(c->in));
	c->state = CONN_LINGER;
	c->close_after = 0;
	c->linger_end = conn_now_ms() + GW_LINGER_TIME * 1000;
	c->lingered = 0;
	conn_reading(c, 1);
	conn_timer_ms(c, GW_LINGER_WAIT * 1000);
}

/* CONN_LINGER: read and discard, close at the end or past a bound */
static void
conn_linger(struct gw_conn *c)
{
	static char	 sink[64 * 1024];
	ssize_t		 n;
	int64_t		 left;

	if ((n = read(c->fd, sink, sizeof(sink))) == -1 &&
	    (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || (c->lingered += n) >= GW_LINGER_BYTES ||
	    (left = c->linger_end - conn_now_ms()) <= 0) {
		conn_close(c);
		return;
	}
	conn_timer_ms(c, MINIMUM(left, GW_LINGER_WAIT * 1000));
}

static const char *
status_reason(int status)
{
	switch (status) {
	case 200: return ("OK");
	case 301: return ("Moved Permanently");
	case 302: return ("Found");
	case 303: return ("See Other");
	case 307: return ("Temporary Redirect");
	case 308: return ("Permanent Redirect");
	case 400: return ("Bad Request");
	case 401: return ("Unauthorized");
	case 403: return ("Forbidden");
	case 404: return ("Not Found");
	case 408: return ("Request Timeout");
	case 411: return ("Length Required");
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
	conn_respond_text(c, status, extra, close, NULL);
}

/*
 * The same with a line of text after the status in the body, if text
 * is not NULL: why a wake failed.  Printable ASCII of ours, never the
 * workload's.
 */
void
conn_respond_text(struct gw_conn *c, int status, const char *extra,
    int close, const char *text)
{
	const char	*reason = status_reason(status), *ctype;
	struct evbuffer	*page = NULL;

	/* a page or JSON the client asked for (pages.c), while routed */
	if (c->accept != GW_ACCEPT_ANY && (page = evbuffer_new()) != NULL &&
	    !errpage_body(c, status, reason, extra, text, page, &ctype)) {
		evbuffer_free(page);
		page = NULL;
	}
	metrics_status(c, status, 1);
	metrics_request_end(c);
	accesslog_status(c, status, 1);
	if (text == NULL)
		text = "";
	if (page != NULL) {
		evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\n"
		    "Content-Type: %s\r\n"
		    "Content-Length: %zu\r\n"
		    "%s%s\r\n", status, reason, ctype,
		    evbuffer_get_length(page), extra != NULL ? extra : "",
		    close ? "Connection: close\r\n" : "");
		if (c->meth != HTTP_M_HEAD)
			evbuffer_add_buffer(c->out, page);
		evbuffer_free(page);
	} else
		evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\n"
		    "Content-Type: text/plain\r\n"
		    "Content-Length: %zu\r\n"
		    "%s%s"
		    "\r\n%d %s\n%s%s", status, reason, strlen(reason) + 5 +
		    strlen(text) + (*text != '\0'),
		    extra != NULL ? extra : "",
		    close ? "Connection: close\r\n" : "", status, reason,
		    text, *text != '\0' ? "\n" : "");
	accesslog_end(c, 0);
	if (close) {
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		upstream_close(c);
	}
	conn_flush(c);
}

/*
 * An answer of the gateway's own with a body of its own (ignore.c), to
 * a routed request that sent nothing upstream: then on to the next
 * request, unless a body left unread or the client's wish closes the
 * connection.  A HEAD gets the head alone.  extra is "" or fields, each
 * ending in CRLF.
 */
void
conn_answer(struct gw_conn *c, int status, const char *extra,
    const char *body)
{
	conn_answer_typed(c, status, extra, "text/plain", body, strlen(body));
}

/*
 * The same with a body of len bytes of the type given: the gate's
 * answers, an auth service's among them (gate_request.c).
 */
void
conn_answer_typed(struct gw_conn *c, int status, const char *extra,
    const char *ctype, const char *body, size_t len)
{
	int	 close = !c->reqdone || !c->keepalive;

	head_put(c->req);
	c->req = NULL;
	metrics_status(c, status, 1);
	metrics_request_end(c);
	accesslog_status(c, status, 1);
	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: %s\r\n"
	    "Content-Length: %zu\r\n"
	    "%s%s"
	    "\r\n", status, status_reason(status), ctype, len, extra,
	    close ? "Connection: close\r\n" : c->version == 10 ?
	    "Connection: keep-alive\r\n" : "");
	if (c->meth != HTTP_M_HEAD)
		evbuffer_add(c->out, body, len);
	/* an ignored request is logged as any other */
	accesslog_end(c, 0);
	if (close) {
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		upstream_close(c);
		conn_flush(c);
		return;
	}
	conn_flush(c);
	conn_next(c, 0);
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
	metrics_request_end(c);
	accesslog_end(c, 0);
	activity_end(c);
	head_put(c->resp);
	c->resp = NULL;
	if (!c->keepalive || !c->reqdone || c->eof) {
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		if (evbuffer_get_length(c->out) == 0)
			conn_finish(c);
		return;
	}
	conn_next(c, 1);
}

/*
 * On to the next request: the connection is an HTTP one again, waiting
 * for a head (serve.c), and idle (conn_idle_enter()) if idle is set and
 * none has come yet.  A pipelined request waiting already is taken now,
 * up to GW_TURN_REQUESTS in a turn of the loop: past that (a client that
 * pipelines requests the gateway answers itself, a 404 each) it waits
 * for the read event (conn_read()), after the other connections ready,
 * and not as one more call deep.
 */
void
conn_next(struct gw_conn *c, int idle)
{
	c->state = CONN_IDLE;
	/* the next request says what it accepts, if it gets that far */
	c->accept = GW_ACCEPT_ANY;
	c->ops = conn_http;
	conn_timer(c, gw->conf.keepalive_timeout);
	conn_reading(c, 1);
	if (evbuffer_get_length(c->in) > 0) {
		if (c->h2stream || ++c->nturn < GW_TURN_REQUESTS)
			c->ops->on_read(c);
		else {
			c->backlog = 1;
			event_active(&c->rev, EV_READ, 1);
		}
	} else if (idle)
		conn_idle_enter(c);
}

/* >0 bytes read, 0 at the end (c->eof), -1 an error, -2 nothing yet */
static ssize_t
conn_io_read(struct gw_conn *c)
{
	int	 n;

	if (c->tls != NULL)
		return (tls_conn_read(c));
	n = buf_read(c->in, c->fd);
	if (n == -1)
		return (errno == EAGAIN || errno == EINTR ? -2 : -1);
	if (n == 0)
		c->eof = 1;
	return (n);
}

/* 0 all written, -2 the socket is full, -1 an error */
static ssize_t
conn_io_write(struct gw_conn *c)
{
	size_t	 before = evbuffer_get_length(c->out);
	ssize_t	 rc;

	if (c->tls != NULL)
		rc = tls_conn_write(c);
	else if (evbuffer_write(c->out, c->fd) == -1)
		rc = errno == EAGAIN || errno == EINTR ? -2 : -1;
	else
		rc = evbuffer_get_length(c->out) > 0 ? -2 : 0;
	metrics_tx(c, before - evbuffer_get_length(c->out));
	c->tx_total += before - evbuffer_get_length(c->out);
	return (rc);
}

static void
conn_read(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;
	ssize_t		 n;

	if (c->h2stream) {
		conn_h2_read(c);
		return;
	}
	if (c->state == CONN_HELLO) {
		if ((event & EV_CLOSED) && c->ops->on_hangup != NULL)
			c->ops->on_hangup(c);
		else
			c->ops->on_read(c);
		return;
	}
	if (c->state == CONN_PARKED && c->ops->on_hangup != NULL) {
		c->ops->on_hangup(c);
		return;
	}
	if (c->state == CONN_PARKED) {
		/* only EV_CLOSED is watched while parked: the client left */
		log_debug("%s: left while parked", c->peer);
		conn_close(c);
		return;
	}
	if (c->state == CONN_LINGER) {
		conn_linger(c);
		return;
	}
	if (c->tls_wr) {
		/* a TLS write waited for this; reading comes next round */
		c->tls_wr = 0;
		conn_events(c);
		conn_write(fd, EV_WRITE, c);
		return;
	}
	if (!c->reading)
		return;		/* an event_active() after a stop */
	c->nturn = 0;
	if (c->backlog) {
		/* pipelined input first (conn_next()); the socket waits */
		c->backlog = 0;
		conn_input(c);
		return;
	}
	n = conn_io_read(c);
	if (n == -1) {
		conn_close(c);
		return;
	}
	if (n == -2) {
		conn_events(c);
		return;
	}
	metrics_rx(c, n);
	c->rx_total += n;
	if (c->eof)
		conn_reading(c, 0);
	else if (c->tls != NULL && n >= GW_TLS_READ_BUDGET)
		event_active(&c->rev, EV_READ, 1);	/* more inside */
	conn_events(c);
	conn_input(c);
}

/* what was read goes to whatever the connection is for */
static void
conn_input(struct gw_conn *c)
{
	if (c->ops->on_read != NULL)
		c->ops->on_read(c);
	else
		conn_input_wait(c);
}

/*
 * Input that nothing takes now (connecting, closing, a head's answer
 * under way): the bytes wait, up to a bound.
 */
void
conn_input_wait(struct gw_conn *c)
{
	if (c->eof && c->state == CONN_CLOSING &&
	    evbuffer_get_length(c->out) == 0) {
		conn_close(c);
		return;
	}
	if (c->state == CONN_CLOSING ||
	    evbuffer_get_length(c->in) >= GW_BUF_HIGH)
		conn_reading(c, 0);
}

/*
 * A stream's connection (conn_attach()): its input is what h2.c put in,
 * taken when it reads (not while parked, where it waits for the wake).
 */
static void
conn_h2_read(struct gw_conn *c)
{
	if (!c->reading || c->state == CONN_PARKED)
		return;
	if (c->state == CONN_H2) {
		/* handed to h2up.c, which has the stream's body */
		evbuffer_drain(c->in, evbuffer_get_length(c->in));
		return;
	}
	conn_input(c);
}

/* a stream's connection: h2.c takes what it has room for */
static void
conn_h2_write(struct gw_conn *c)
{
	size_t	 before = evbuffer_get_length(c->out);

	c->sops->on_take(c);
	metrics_tx(c, before - evbuffer_get_length(c->out));
	c->tx_total += before - evbuffer_get_length(c->out);
	if (evbuffer_get_length(c->out) > 0)
		return;		/* h2.c says when it has room again */
	if (c->close_after) {
		conn_finish(c);
		return;
	}
	if (c->state == CONN_IDLE) {
		conn_idle_enter(c);
		return;
	}
	if (c->ops->on_drained != NULL)
		c->ops->on_drained(c);
}

static void
conn_write(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;
	ssize_t		 n;

	if (c->h2stream) {
		conn_h2_write(c);
		return;
	}
	if (c->tls_rw) {
		/* a TLS read waited for this */
		c->tls_rw = 0;
		conn_events(c);
		conn_read(fd, EV_READ, c);
		return;
	}
	if (evbuffer_get_length(c->out) == 0) {
		/* conn_flush() wrote it all and left the close to us */
		if (c->close_after) {
			conn_finish(c);
			return;
		}
		conn_events(c);
		return;
	}
	n = conn_io_write(c);
	if (n == -1) {
		conn_close(c);
		return;
	}
	conn_events(c);
	if (n == -2)
		return;
	if (c->close_after) {
		conn_finish(c);
		return;
	}
	/* the last answer's end went out: idle from now */
	if (c->state == CONN_IDLE) {
		conn_idle_enter(c);
		return;
	}
	if (c->ops->on_drained != NULL)
		c->ops->on_drained(c);
}

static void
conn_timeout(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;
	int64_t		 now;

	if (c->deadline != 0 && (now = conn_now_ms()) < c->deadline) {
		/* armed for an earlier deadline, since put off */
		c->timer_at = c->deadline;
		evtimer_add_ms(&c->timer, c->deadline - now);
		return;
	}
	c->deadline = 0;
	if (c->state == CONN_LINGER || c->state == CONN_CLOSING ||
	    c->ops->on_timeout == NULL) {
		conn_close(c);
		return;
	}
	c->ops->on_timeout(c);
}

/*
 * The connection's upstream (proxy.c's, kept for the client's next
 * request) goes when the connection or its request ends here.
 */
void
upstream_close(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;

	if (up->fd == -1)
		return;
	instance_unbind(c);
	event_del(&up->rev);
	event_del(&up->wev);
	close(up->fd);
	up->fd = -1;
	gw->nups--;
	evbuffer_free(up->in);
	evbuffer_free(up->out);
	up->in = up->out = NULL;
	if (up->wl != NULL) {
		gw_workload_unref(up->wl);
		up->wl = NULL;
	}
	up->connected = up->eof = 0;
	accept_update();
}
