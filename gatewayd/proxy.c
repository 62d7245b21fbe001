/*
 * Proxying a routed request to its running workload.
 *
 * The upstream connection belongs to one client connection and is kept
 * for that client's next requests to the same workload, never shared.
 * The request head is re-serialised from its parsed form; bodies stream
 * both ways through the connection buffers, moved rather than copied where
 * the framing allows, and each direction stops reading while the other
 * side's output is above GW_BUF_HIGH.
 *
 * One timer watches a proxied request: the body timeout while the
 * client's body is still coming (renewed by each piece of it), then the
 * upstream timeout (renewed by each piece of the answer).
 *
 * Expect: 100-continue is the gateway's to answer, not the workload's:
 * the field is not forwarded, and "100 Continue" goes to the client when
 * the request is sent upstream.  A parked request (its workload asleep)
 * so gets its 100 only once the workload runs, and a client that waits
 * for the 100 sends nothing the gateway would have to hold meanwhile.
 *
 * A routed request's connection has this file's table (proxy_ops), held
 * for a wake (wake.c) or not: conn.c calls it for the client's input,
 * output drained and timeouts, wake.c when the workload runs.
 */

#include <sys/types.h>
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
#include <unistd.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "gateway.h"
#include "gatecheck.h"
#include "metrics.h"
#include "selfconn.h"

#define HEAD_EXTRA	2048	/* room for the fields the proxy adds */

static void	proxy_client_readable(struct gw_conn *);
static void	proxy_client_drained(struct gw_conn *);
static void	up_read(int, short, void *);
static void	up_write(int, short, void *);
static void	up_connected(struct gw_conn *);
static void	up_process(struct gw_conn *);
static void	send_request(struct gw_conn *);
static int	head_out(const struct http_head *, const struct http_ser *,
		    struct evbuffer *);

static void
up_reading(struct gw_conn *c, int on)
{
	struct gw_upstream	*up = &c->up;

	if (up->fd == -1 || up->eof)
		on = 0;
	if (on && !event_pending(&up->rev, EV_READ, NULL))
		event_add(&up->rev, NULL);
	else if (!on && event_pending(&up->rev, EV_READ, NULL))
		event_del(&up->rev);
}

/*
 * As conn_flush(): write at once, watch for writability only if the
 * socket would not take it all; an error is seen by up_write().
 */
static void
up_flush(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;

	if (up->fd == -1 || evbuffer_get_length(up->out) == 0 ||
	    event_pending(&up->wev, EV_WRITE, NULL))
		return;
	if (up->connected) {
		if (evbuffer_write(up->out, up->fd) == -1 && errno != EAGAIN &&
		    errno != EINTR) {
			event_active(&up->wev, EV_WRITE, 1);
			return;
		}
		if (evbuffer_get_length(up->out) == 0) {
			if (c->state == CONN_TUNNEL && c->eof)
				shutdown(up->fd, SHUT_WR);
			return;
		}
	}
	event_add(&up->wev, NULL);
}

/*
 * An upstream connection takes a descriptor more: with all of the
 * gateway's in use, the oldest idle client is closed for it, else it
 * comes from the reserve (GW_FD_RESERVE).
 */
static int
up_open(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	struct gw_workload	*wl = c->wl;
	int			 on = 1, saved;

	if (gw->nconns + gw->nups >= gw->fdmax)
		(void)conn_evict_idle();
	if ((up->in = evbuffer_new()) == NULL ||
	    (up->out = evbuffer_new()) == NULL) {
		if (up->in != NULL)
			evbuffer_free(up->in);
		up->in = NULL;
		return (-1);
	}
	instance_pick(wl);
	if ((up->fd = socket(wl->addr.ss_family,
	    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
		evbuffer_free(up->in);
		evbuffer_free(up->out);
		up->in = up->out = NULL;
		return (-1);
	}
	gw->nups++;
	(void)setsockopt(up->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	gw_workload_ref(wl);
	up->wl = wl;
	up->epoch = wl->epoch;
	event_set(&up->rev, up->fd, EV_READ | EV_PERSIST, up_read, c);
	event_set(&up->wev, up->fd, EV_WRITE | EV_PERSIST, up_write, c);
	if (connect(up->fd, (struct sockaddr *)&wl->addr, wl->addrlen) == 0) {
		/* to itself: nothing listens (selfconn.c) */
		if (sock_self(up->fd, (struct sockaddr *)&wl->addr)) {
			upstream_close(c);
			errno = ECONNREFUSED;
			return (-1);
		}
		up->connected = 1;
		return (0);
	}
	if (errno != EINPROGRESS) {
		/* the caller tells a refusal from the rest */
		saved = errno;
		upstream_close(c);
		errno = saved;
		return (-1);
	}
	event_add(&up->wev, NULL);
	return (0);
}

/* the body timeout while the client's body comes, then the upstream's */
static void
proxy_timer(struct gw_conn *c)
{
	/* a wake's request, sent: soon asked whether it was taken in */
	if (c->herd) {
		conn_timer_ms(c, GW_HERD_ACK_MS);
		return;
	}
	conn_timer(c, c->reqdone ? gw->conf.upstream_timeout :
	    gw->conf.body_timeout);
}

void
proxy_start(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	int64_t			 ms;
	int			 err;

	if (c->h2st != NULL) {
		herd_settle(c);	/* h2up.c's connects are not the herd's */
		if (h2_proxy_start(c))
			return;	/* HTTP/2 to the workload: h2up.c */
	}
	/* reuse only a quiet connection to the same workload */
	if (up->fd != -1 && (up->wl != c->wl || up->eof ||
	    up->epoch != c->wl->epoch || evbuffer_get_length(up->in) > 0))
		upstream_close(c);
	if (up->fd == -1 && up_open(c) == -1) {
		err = errno;
		/* a wake's fresh listener may refuse a moment: again */
		if ((err == ECONNREFUSED || err == ECONNRESET) &&
		    herd_retry(c) == 0)
			return;
		herd_settle(c);
		errno = err;
		/* dead unseen?  held while runtimed looks, not a 502 */
		if (errno == ECONNREFUSED && wake_refused(c) == 0)
			return;
		if (errno == EMFILE || errno == ENFILE) {
			/* our limit, not the workload's fault */
			log_warn("%s: socket for %s", c->peer, c->wl->name);
			head_put(c->req);
			c->req = NULL;
			activity_end(c);
			conn_respond(c, 503, "Retry-After: 1\r\n", 1);
			return;
		}
		log_warn("%s: connect to %s", c->peer, c->wl->name);
		conn_error(c, 502, "upstream connect");
		return;
	}
	instance_bind(c);
	if (!up->connected) {
		c->state = CONN_CONNECT;
		/* a wake's: a SYN a full listen queue dropped is sent again */
		if (c->herd && (ms = herd_connect_ms(c)) > 0)
			conn_timer_ms(c, ms);
		else
			conn_timer(c, gw->conf.connect_timeout);
		return;
	}
	up_connected(c);
}

/*
 * A chunked body's bytes that came with the head are checked before the
 * head goes out: a request whose framing is bad where the gateway can
 * already see it is refused with nothing forwarded.  The check runs a
 * copy of the decoder over the buffer in place; the real one decodes the
 * same bytes again when they are forwarded.  (Bad framing that arrives
 * later cuts the upstream connection mid-body: the workload never sees a
 * complete request.)
 */
static int
chunked_precheck(struct gw_conn *c)
{
	struct http_chunked	 ch = c->reqchunk;
	struct evbuffer_ptr	 ptr;
	struct evbuffer_iovec	 v;
	const char		*p, *span;
	size_t			 len, used, spanlen;
	int			 r;

	if (evbuffer_ptr_set(c->in, &ptr, 0, EVBUFFER_PTR_SET) == -1)
		return (0);
	while (evbuffer_peek(c->in, -1, &ptr, &v, 1) == 1) {
		p = v.iov_base;
		len = v.iov_len;
		while (len > 0) {
			r = http_chunked_feed(&ch, p, len, &used, &span,
			    &spanlen);
			if (r == HTTP_ERROR) {
				c->reqchunk.errstr = ch.errstr;
				return (-1);
			}
			if (r == HTTP_DONE || used == 0)
				return (0);
			p += used;
			len -= used;
		}
		if (evbuffer_ptr_set(c->in, &ptr, v.iov_len,
		    EVBUFFER_PTR_ADD) == -1)
			break;
	}
	return (0);
}

static void
up_connected(struct gw_conn *c)
{
	if (c->herd)
		herd_connected(c);
	c->state = CONN_PROXY;
	proxy_timer(c);
	if (c->reqbody == HTTP_BODY_CHUNKED) {
		http_chunked_init(&c->reqchunk, HTTP_REQUEST);
		if (chunked_precheck(c) == -1) {
			conn_error(c, 400, c->reqchunk.errstr);
			return;
		}
	}
	if ((c->req->h.flags & HTTP_F_EXPECT_CONTINUE) &&
	    c->reqbody != HTTP_BODY_NONE)
		evbuffer_add(c->out, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	send_request(c);
	up_reading(c, 1);
	/* body bytes that came with the head */
	proxy_client_readable(c);
}

/*
 * The client's own X-Forwarded-*, X-Real-IP and Via are replaced by
 * ours, and so is Expect (see above).  Forwarded (RFC 7239) is the
 * client's word about itself: kept from a trusted proxy only, like its
 * X-Forwarded-For.
 */
static int
request_filter(const struct http_field *f, void *arg)
{
	const struct gw_conn	*c = arg;

	switch (f->id) {
	case HTTP_H_X_FORWARDED_FOR:
	case HTTP_H_X_FORWARDED_PROTO:
	case HTTP_H_X_FORWARDED_HOST:
	case HTTP_H_X_REAL_IP:
	case HTTP_H_VIA:
	case HTTP_H_EXPECT:
		return (0);
	case HTTP_H_FORWARDED:
		return (c->trusted);
	default:
		return (1);
	}
}

/*
 * X-Forwarded-For: from a trusted proxy, the chain it sent (every such
 * field, in order) with its own address appended; from anyone else, the
 * client's address alone, so that a workload can believe every address in
 * it.  A chain too long for buf is cut to the peer alone, never cut in
 * the middle of an address.  The usual case, the peer alone, is no copy.
 */
static const char *
forwarded_for(const struct gw_conn *c, const struct http_head *h, char *buf,
    size_t len)
{
	const struct http_field	*f;
	size_t			 i, n = 0, plen;

	if (!c->trusted)
		return (c->peer);
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->id != HTTP_H_X_FORWARDED_FOR || f->valuelen == 0)
			continue;
		/* the value, ", " and at least the NUL */
		if (f->valuelen + 2 >= len - n) {
			n = 0;
			break;
		}
		memcpy(buf + n, f->value, f->valuelen);
		memcpy(buf + n + f->valuelen, ", ", 2);
		n += f->valuelen + 2;
	}
	if ((plen = strlen(c->peer)) >= len - n)
		n = 0;
	memcpy(buf + n, c->peer, plen + 1);
	return (buf);
}

/*
 * X-Real-IP: the client's address as the gateway sees it, the one
 * "ignore from" matches: the connection's peer, or behind a trusted
 * proxy the last address of its X-Forwarded-For, the one that proxy
 * saw, when it is an address.  The usual case, the peer, is no copy.
 */
static const char *
real_ip(const struct gw_conn *c, const struct http_head *h, char *buf,
    size_t len)
{
	struct netaddr	 na;

	if (!c->trusted || filter_forwarded_client(h, &na) == -1 ||
	    inet_ntop(na.af, na.addr, buf, len) == NULL)
		return (c->peer);
	return (buf);
}

/*
 * Via: ours alone, a constant, or appended to the one received, which is
 * cut to fit buf (an over-long Via loses its end, as snprintf cut it).
 */
static const char *
via(const struct gw_conn *c, const struct http_head *h, char *buf,
    size_t len)
{
	const struct http_field	*f;
	const char		*mine;
	size_t			 n, m;

	mine = c->version == 10 ? ", 1.0 orchd" : ", 1.1 orchd";
	if ((f = http_head_get(h, HTTP_H_VIA)) == NULL)
		return (mine + 2);
	n = MINIMUM(f->valuelen, len - 1);
	memcpy(buf, f->value, n);
	m = MINIMUM(strlen(mine), len - 1 - n);
	memcpy(buf + n, mine, m);
	buf[n + m] = '\0';
	return (buf);
}

/*
 * The authority, NUL-terminated for http_head_serialize(): taken from an
 * absolute-form target it is followed by the path, not by a NUL.
 */
static const char *
forwarded_host(const struct http_head *h, char *buf, size_t len)
{
	size_t	n;

	if (h->authority[h->authoritylen] == '\0')
		return (h->authority);
	n = MINIMUM(h->authoritylen, len - 1);
	memcpy(buf, h->authority, n);
	buf[n] = '\0';
	return (buf);
}

static void
send_request(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	struct http_field	 add[5 + WL_AUTH_HEADERS_MAX];
	struct http_ser		 ser;
	char			 xff[2048], viabuf[512];
	char			 xri[INET6_ADDRSTRLEN];
	char			 xfh[HTTP_HOST_MAX + 8];	/* ":port" */
	size_t			 i, nadd = 0;

	/* http_head_serialize() takes the names and values, not lengths */
	memset(add, 0, sizeof(add));
	add[nadd].name = "Via";
	add[nadd++].value = via(c, h, viabuf, sizeof(viabuf));
	add[nadd].name = "X-Forwarded-For";
	add[nadd++].value = forwarded_for(c, h, xff, sizeof(xff));
	add[nadd].name = "X-Forwarded-Proto";
	add[nadd++].value = c->listener->conf.tls ? "https" : "http";
	add[nadd].name = "X-Real-IP";
	add[nadd++].value = real_ip(c, h, xri, sizeof(xri));
	if (h->authoritylen > 0) {
		add[nadd].name = "X-Forwarded-Host";
		add[nadd++].value = forwarded_host(h, xfh, sizeof(xfh));
	}
	/* what the workload's auth service said of the client (gate) */
	for (i = 0; c->gate_add != NULL && i < c->gate_add->n; i++)
		add[nadd++] = c->gate_add->f[i];

	memset(&ser, 0, sizeof(ser));
	ser.flags = c->upgrade ? HTTP_SER_UPGRADE : 0;
	ser.strip = c->path_strip;
	ser.filter = request_filter;
	ser.arg = c;
	ser.add = add;
	ser.nadd = nadd;

	if (head_out(h, &ser, c->up.out) == -1) {
		conn_error(c, 502, "request head serialisation");
		return;
	}
	/* a wake's GET may go again if never taken in (herd.c) */
	if (!c->herd || c->reqbody != HTTP_BODY_NONE || c->upgrade ||
	    (c->meth != HTTP_M_GET && c->meth != HTTP_M_HEAD)) {
		head_put(c->req);
		c->req = NULL;
	}
	up_flush(c);
}

/* a wake's request is settled: taken in (or not), the window's slot free */
static void
proxy_herd_done(struct gw_conn *c, int taken)
{
	if (taken)
		herd_taken(c);
	else
		herd_settle(c);
	head_put(c->req);
	c->req = NULL;
}

/*
 * A wake's request, sent GW_HERD_ACK_MS ago and not answered: if the
 * workload's kernel acknowledged none of it and our kernel has had to
 * send it again (past the retransmission timeout's 200 ms floor, longer
 * than any delayed ACK), the connection never reached its listen queue
 * (its SYN cookie's ACK came while the queue was full, and the kernel
 * dropped it): no program read it, and it goes again on a new connection
 * (herd.c).  Otherwise it is in the queue and waits as any request does;
 * so does one whose state cannot be read.
 */
static void
proxy_herd_wait(struct gw_conn *c)
{
	struct tcp_info	 ti;
	socklen_t	 len = sizeof(ti);
	int		 known;

	memset(&ti, 0, sizeof(ti));
	known = c->up.fd != -1 && getsockopt(c->up.fd, IPPROTO_TCP, TCP_INFO,
	    &ti, &len) == 0;
	if (known && ti.tcpi_unacked > 0 &&
	    (ti.tcpi_retransmits > 0 || ti.tcpi_backoff > 0) &&
	    c->req != NULL && c->resp == NULL && herd_retry(c) == 0)
		return;
	proxy_herd_done(c, known && ti.tcpi_unacked == 0);
	proxy_timer(c);
}

/*
 * Serialise a head into one static buffer (the gateway has one thread) and
 * append the bytes written: reserving the largest head's size in the
 * evbuffer itself would allocate 42 KiB per message.
 */
static int
head_out(const struct http_head *h, const struct http_ser *ser,
    struct evbuffer *to)
{
	static char	 buf[HTTP_HEAD_BUFSZ + HEAD_EXTRA];
	ssize_t		 n;

	if ((n = http_head_serialize(h, ser, buf, sizeof(buf))) < 0)
		return (-1);
	return (evbuffer_add(to, buf, n));
}

/* a Content-Length body: moved, not copied; 1 once it is all through */
static int
forward_length(struct evbuffer *from, struct evbuffer *to, uint64_t *left)
{
	size_t	 n = MINIMUM(*left, evbuffer_get_length(from));

	evbuffer_remove_buffer(from, to, n);
	*left -= n;
	return (*left == 0);
}

/* chunked data spans are sent on re-framed, never as the client framed */
static int
forward_chunked(struct http_chunked *ch, struct evbuffer *from,
    struct evbuffer *to, int rechunk, int *done)
{
	struct evbuffer_iovec	 v;
	const char		*span;
	size_t			 used, spanlen;
	int			 r;

	*done = 0;
	while (evbuffer_get_length(from) > 0) {
		if (evbuffer_peek(from, -1, NULL, &v, 1) < 1)
			break;
		r = http_chunked_feed(ch, v.iov_base, v.iov_len, &used, &span,
		    &spanlen);
		if (r == HTTP_ERROR)
			return (-1);
		if (spanlen > 0) {
			if (rechunk)
				evbuffer_add_printf(to, "%zx\r\n", spanlen);
			evbuffer_add(to, span, spanlen);
			if (rechunk)
				evbuffer_add(to, "\r\n", 2);
		}
		evbuffer_drain(from, used);
		if (r == HTTP_DONE) {
			if (rechunk)
				evbuffer_add(to, "0\r\n\r\n", 5);
			*done = 1;
			break;
		}
	}
	return (0);
}

/*
 * Once a request is forwarded, what its client sends is the next request:
 * a plain connection reads it ahead, up to a bound, and leaves it for
 * conn_request_done().  Its read event so stays armed from one request to
 * the next, where stopping and starting it would cost two epoll_ctl per
 * request.  A TLS connection stops, as serve_parse() (serve.c) has it.
 */
static int
read_ahead(struct gw_conn *c)
{
	return (c->state == CONN_PROXY && c->tls == NULL &&
	    evbuffer_get_length(c->in) < GW_BUF_HIGH);
}

/* bytes from the client while its request is being proxied */
static void
proxy_client_readable(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	int			 done;

	if (c->state == CONN_TUNNEL) {
		if (evbuffer_get_length(c->in) > 0)
			activity_tunnel(c);
		if (up->fd != -1)
			evbuffer_add_buffer(up->out, c->in);
		if (c->eof && up->fd != -1 &&
		    evbuffer_get_length(up->out) == 0)
			shutdown(up->fd, SHUT_WR);
		goto out;
	}
	if (c->state != CONN_PROXY || c->reqdone || up->fd == -1) {
		/* a pipelined request waits; so does a closing one */
		conn_reading(c, read_ahead(c));
		if (c->eof && !c->reqdone)
			conn_close(c);
		return;
	}
	if (evbuffer_get_length(c->in) > 0)
		proxy_timer(c);		/* the body moves */
	switch (c->reqbody) {
	case HTTP_BODY_LENGTH:
		if (forward_length(c->in, up->out, &c->reqleft))
			c->reqdone = 1;
		break;
	case HTTP_BODY_CHUNKED:
		if (forward_chunked(&c->reqchunk, c->in, up->out, 1,
		    &done) == -1) {
			if (c->respbody == HTTP_BODY_NONE && c->resp == NULL &&
			    evbuffer_get_length(c->out) == 0)
				conn_error(c, 400, c->reqchunk.errstr);
			else
				conn_close(c);
			return;
		}
		if (done)
			c->reqdone = 1;
		break;
	default:
		c->reqdone = 1;
		break;
	}
	if (!c->reqdone && c->eof) {
		/* the client gave up halfway: nothing to finish */
		conn_close(c);
		return;
	}
	if (c->reqdone && c->respdone) {
		conn_request_done(c);
		return;
	}
 out:
	up_flush(c);
	conn_reading(c, !c->reqdone || c->state == CONN_TUNNEL ?
	    evbuffer_get_length(up->out) < GW_BUF_HIGH : read_ahead(c));
}

/* the client took all we had for it: read more from the upstream */
static void
proxy_client_drained(struct gw_conn *c)
{
	if (c->state == CONN_PROXY || c->state == CONN_TUNNEL) {
		up_reading(c, 1);
		if (c->up.fd != -1 && evbuffer_get_length(c->up.in) > 0)
			up_process(c);
		else if (c->state == CONN_TUNNEL && c->up.eof)
			conn_close(c);
	}
}

static void
up_write(int fd, short event, void *arg)
{
	struct gw_conn		*c = arg;
	struct gw_upstream	*up = &c->up;
	int			 err = 0;
	socklen_t		 len = sizeof(err);

	if (!up->connected) {
		event_del(&up->wev);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		else if (err == 0 &&
		    sock_self(fd, (struct sockaddr *)&c->wl->addr))
			err = ECONNREFUSED;	/* to itself: selfconn.c */
		if (err != 0) {
			log_debug("%s: connect to %s: %s", c->peer,
			    c->wl->name, strerror(err));
			/* nothing was sent: a wake's request tries again */
			if (herd_retry(c) == 0)
				return;
			if (err == ECONNREFUSED) {
				upstream_close(c);
				if (wake_refused(c) == 0)
					return;
			}
			conn_error(c, 502, "upstream connect");
			return;
		}
		up->connected = 1;
		up_connected(c);
		return;
	}
	if (evbuffer_get_length(up->out) > 0 &&
	    evbuffer_write(up->out, fd) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_debug("%s: write to %s: %s", c->peer, c->wl->name,
		    strerror(errno));
		/* the answer may already be on its way: read it out */
		event_del(&up->wev);
		evbuffer_drain(up->out, evbuffer_get_length(up->out));
		return;
	}
	if (evbuffer_get_length(up->out) == 0) {
		event_del(&up->wev);
		if (c->state == CONN_TUNNEL && c->eof)
			shutdown(fd, SHUT_WR);
	}
	/* room again for the client's body */
	if ((c->state == CONN_PROXY && !c->reqdone) || c->state == CONN_TUNNEL)
		conn_reading(c, evbuffer_get_length(up->out) < GW_BUF_HIGH);
}

static void
up_read(int fd, short event, void *arg)
{
	struct gw_conn		*c = arg;
	struct gw_upstream	*up = &c->up;
	int			 n;

	n = buf_read(up->in, fd);
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_debug("%s: read from %s: %s", c->peer, c->wl->name,
		    strerror(errno));
		up->eof = 1;
	} else if (n == 0)
		up->eof = 1;
	if (up->eof)
		event_del(&up->rev);
	/* a wake's request: answered, or cut; its slot is free */
	if (c->herd)
		proxy_herd_done(c, n > 0);
	if (c->state != CONN_PROXY && c->state != CONN_TUNNEL) {
		/* idle between requests: bytes or a close end its use */
		upstream_close(c);
		return;
	}
	if (c->state == CONN_PROXY)
		proxy_timer(c);
	up_process(c);
}

/* the final response head is in: send ours to the client */
static int
send_response(struct gw_conn *c)
{
	struct http_head	*h = &c->resp->h;
	struct http_field	 add[4];
	struct http_ser		 ser;
	char			 timing[64], hsts[64];
	const char		*servertiming = NULL;
	size_t			 nadd = 0;

	metrics_status(c, h->code, 0);
	accesslog_status(c, h->code, 0);
	c->respbody = h->body;
	c->respleft = h->content_length;
	c->respchunked_out = 0;
	memset(&ser, 0, sizeof(ser));
	memset(add, 0, sizeof(add));
	c->up_keep = http_head_persistent(h) && h->body != HTTP_BODY_CLOSE;
	if (h->body == HTTP_BODY_CLOSE)
		c->keepalive = 0;
	if (h->body == HTTP_BODY_CHUNKED) {
		if (c->version == 10) {
			/* 1.0 knows no chunks: the close ends the body */
			ser.flags |= HTTP_SER_NO_FRAMING;
			c->keepalive = 0;
		} else
			c->respchunked_out = 1;
	}
	if (!c->keepalive) {
		add[nadd].name = "Connection";
		add[nadd++].value = "close";
	} else if (c->version == 10) {
		add[nadd].name = "Connection";
		add[nadd++].value = "keep-alive";
	}
	/* it waited for a wake: how long, for the browser's tools */
	if (c->wake_us >= 0 && c->wl->server_timing) {
		(void)snprintf(timing, sizeof(timing), "wake;dur=%lld.%lld",
		    (long long)(c->wake_us / 1000),
		    (long long)(c->wake_us % 1000 / 100));
		add[nadd].name = "Server-Timing";
		add[nadd++].value = timing;
		servertiming = timing;
	}
	c->wake_us = -1;
	add[nadd].value = redirect_hsts(c, h, hsts, sizeof(hsts));
	if (c->h2stream) {
		/* an HTTP/2 stream's: its HEADERS, the body as it is */
		c->respchunked_out = 0;
		return (h2_stream_head(c, h, servertiming, add[nadd].value));
	}
	if (add[nadd].value != NULL)
		add[nadd++].name = "Strict-Transport-Security";
	ser.add = add;
	ser.nadd = nadd;
	return (head_out(h, &ser, c->out));
}

/* 1xx: forward it and wait for the final answer; 101 opens a tunnel */
static int
interim_response(struct gw_conn *c)
{
	struct http_head	*h = &c->resp->h;
	struct http_ser		 ser;

	memset(&ser, 0, sizeof(ser));
	if (c->h2stream && h->code != 101) {
		/* HTTP/2 streams get the final answer alone */
		http_resp_init(h, c->resp->buf, sizeof(c->resp->buf),
		    c->meth);
		return (0);
	}
	if (h->code == 101) {
		/* to a WebSocket request, and switching to WebSocket */
		if (!c->upgrade || !(h->flags & HTTP_F_UPGRADE_WS))
			return (-1);
		ser.flags = HTTP_SER_UPGRADE;
	}
	if (head_out(h, &ser, c->out) == -1)
		return (-1);
	if (h->code == 101) {
		metrics_status(c, 101, 0);
		metrics_request_end(c);
		/* its line when the tunnel closes, with all its bytes */
		accesslog_status(c, 101, 0);
		c->state = CONN_TUNNEL;
		c->reqdone = c->respdone = 1;
		evtimer_del(&c->timer);
		head_put(c->resp);
		c->resp = NULL;
		/* an ignored request's tunnel is no use either */
		if (c->counted) {
			c->wl->upgraded++;
			c->tunnel = 1;
			activity_touch(c->wl);
			/* silent that long, it stops counting */
			if (c->wl->tunnel_idle > 0)
				conn_timer(c, c->wl->tunnel_idle);
		}
		conn_reading(c, 1);
		return (0);
	}
	http_resp_init(h, c->resp->buf, sizeof(c->resp->buf), c->meth);
	return (0);
}

static int
read_response_head(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	struct evbuffer_iovec	 v;
	size_t			 used;
	int			 r;

	if (c->resp == NULL) {
		if ((c->resp = head_get()) == NULL)
			return (-1);
		http_resp_init(&c->resp->h, c->resp->buf,
		    sizeof(c->resp->buf), c->meth);
	}
	while (evbuffer_get_length(up->in) > 0) {
		if (evbuffer_peek(up->in, -1, NULL, &v, 1) < 1)
			break;
		r = http_head_feed(&c->resp->h, v.iov_base, v.iov_len, &used);
		evbuffer_drain(up->in, used);
		if (r == HTTP_ERROR) {
			log_debug("%s: bad response from %s: %s", c->peer,
			    c->wl->name, c->resp->h.errstr);
			return (-1);
		}
		if (r != HTTP_DONE)
			continue;
		if (c->resp->h.code < 200) {
			if (interim_response(c) == -1)
				return (-1);
			if (c->state == CONN_TUNNEL)
				return (1);
			continue;
		}
		if (send_response(c) == -1)
			return (-1);
		head_put(c->resp);
		c->resp = NULL;
		return (1);
	}
	return (0);
}

/* -1: the answer was cut short, the client must see it closed */
static int
response_body(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	int			 done;

	switch (c->respbody) {
	case HTTP_BODY_LENGTH:
		if (forward_length(up->in, c->out, &c->respleft))
			c->respdone = 1;
		else if (up->eof)
			goto truncated;
		break;
	case HTTP_BODY_CHUNKED:
		if (forward_chunked(&c->respchunk, up->in, c->out,
		    c->respchunked_out, &done) == -1) {
			log_debug("%s: bad chunk from %s", c->peer,
			    c->wl->name);
			goto truncated;
		}
		if (done)
			c->respdone = 1;
		else if (up->eof)
			goto truncated;
		break;
	case HTTP_BODY_CLOSE:
		evbuffer_add_buffer(c->out, up->in);
		if (up->eof)
			c->respdone = 1;
		break;
	default:
		c->respdone = 1;
		break;
	}
	return (0);
 truncated:
	return (-1);
}

/*
 * A head whose body has not begun waits in c->out for the body's first
 * bytes, so that both go out in one write and the client wakes once (the
 * workload often writes them apart: nginx, a head then a sendfile), as
 * nginx's postpone_output has it.  Only with a Content-Length: a chunked
 * or close-delimited answer may be a stream whose head is wanted now.
 */
static int
hold_head(struct gw_conn *c, size_t queued)
{
	return (queued == 0 && c->respbody == HTTP_BODY_LENGTH &&
	    c->respleft > 0 && evbuffer_get_length(c->up.in) == 0 &&
	    !c->up.eof);
}

static void
up_process(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	size_t			 queued;
	int			 r, hold = 0;

	if (c->state == CONN_TUNNEL) {
		if (evbuffer_get_length(up->in) > 0)
			activity_tunnel(c);
		evbuffer_add_buffer(c->out, up->in);
		conn_flush(c);
		if (up->eof && evbuffer_get_length(c->out) == 0)
			conn_close(c);
		else if (up->eof)
			c->close_after = 1;
		else
			up_reading(c, evbuffer_get_length(c->out) <
			    GW_BUF_HIGH);
		return;
	}
	if (c->state != CONN_PROXY)
		return;
	if (c->respbody == HTTP_BODY_NONE && !c->respdone) {
		queued = evbuffer_get_length(c->out);
		if ((r = read_response_head(c)) == -1) {
			if (evbuffer_get_length(c->out) == 0)
				conn_error(c, 502, "bad upstream response");
			else
				conn_close(c);
			return;
		}
		if (c->state == CONN_TUNNEL) {
			conn_flush(c);
			proxy_client_readable(c);
			return;
		}
		if (r == 0) {
			if (up->eof)
				conn_error(c, 502, "upstream closed");
			return;
		}
		if (c->respbody == HTTP_BODY_CHUNKED) {
			http_chunked_init(&c->respchunk, HTTP_RESPONSE);
			if (c->h2stream)
				h2_stream_trailers(c);
		}
		if (c->respbody == HTTP_BODY_NONE)
			c->respdone = 1;
		hold = hold_head(c, queued);
	}
	if (!c->respdone && response_body(c) == -1) {
		/* what arrived goes out, then the close says it is cut */
		upstream_close(c);
		if (evbuffer_get_length(c->out) == 0) {
			conn_close(c);
			return;
		}
		c->keepalive = 0;
		c->close_after = 1;
		c->state = CONN_CLOSING;
		conn_reading(c, 0);
		conn_flush(c);
		return;
	}
	if (!hold)
		conn_flush(c);
	if (c->respdone) {
		/*
		 * A kept connection stays watched between requests (no
		 * epoll_ctl per request): up_read() closes it if the
		 * workload sends anything or hangs up meanwhile.
		 */
		if (!c->up_keep || up->eof)
			upstream_close(c);
		if (c->reqdone)
			conn_request_done(c);
		else {
			/* answered before the body was sent: cannot resync */
			c->keepalive = 0;
			c->close_after = 1;
			c->state = CONN_CLOSING;
			conn_reading(c, 0);
			upstream_close(c);
			if (evbuffer_get_length(c->out) == 0)
				conn_finish(c);
		}
		return;
	}
	up_reading(c, evbuffer_get_length(c->out) < GW_BUF_HIGH);
}

/* the client's input: the request's body, or a tunnel's bytes */
static void
proxy_read(struct gw_conn *c)
{
	if (c->state == CONN_PROXY || c->state == CONN_TUNNEL)
		proxy_client_readable(c);
	else
		conn_input_wait(c);
}

static void
proxy_timeout(struct gw_conn *c)
{
	switch (c->state) {
	case CONN_PROXY:
		if (c->herd) {
			proxy_herd_wait(c);
			break;
		}
		if (c->resp != NULL || evbuffer_get_length(c->out) > 0 ||
		    c->respbody != HTTP_BODY_NONE || c->respdone)
			conn_close(c);	/* an answer began: cut it */
		else if (!c->reqdone)
			conn_error(c, 408, "body timeout");
		else
			conn_error(c, 504, "upstream timeout");
		break;
	case CONN_CONNECT:
		/* a wake's request whose SYN was dropped: again, bounded */
		if (herd_retry(c) == 0)
			break;
		conn_error(c, 504, "upstream connect timeout");
		break;
	case CONN_PARKED:
		/* wake.c answers parked requests; this is only a backstop */
		conn_error(c, 504, "parked too long");
		break;
	case CONN_TUNNEL:
		/* silent for its tunnel idle timeout: no longer use */
		activity_tunnel_idle(c);
		break;
	default:
		conn_close(c);
		break;
	}
}

/* the upstream is conn.c's to close; a wake's wait is wake.c's */
static void
proxy_closed(struct gw_conn *c)
{
	herd_settle(c);
	wake_unpark(c);
}

const struct conn_ops proxy_ops = {
	.on_read = proxy_read,
	.on_drained = proxy_client_drained,
	.on_timeout = proxy_timeout,
	.on_close = proxy_closed,
	.on_woken = proxy_start
};
