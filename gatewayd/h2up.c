/*
 * "upstream h2c": an HTTP/2 stream of a client passed on to its workload
 * in cleartext HTTP/2 (prior knowledge), trailers both ways, as gRPC
 * needs.  The stream's pseudo-connection (h2.c) has routed it and woken
 * the workload; h2_proxy_start() hands it here when it would connect.
 * Each stream opens a TCP connection and a client session of its own to
 * the workload: no multiplexing toward it, which keeps one stream's
 * failure its own.
 *
 * Flow control: the request body is taken from the client's window only
 * as the workload's session takes it (nghttp2_session_consume), and the
 * workload is not read while more than H2_BODY_HIGH bytes of its answer
 * wait for the client's window.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
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
#include "gateway.h"
#include "h2.h"
#include "metrics.h"
#include "selfconn.h"

#define H2UP_NV_MAX	(HTTP_FIELDS_MAX + 8)

static nghttp2_session_callbacks	*up_cbs;

static void	h2up_read(int, short, void *);
static void	h2up_write(int, short, void *);
static int	h2up_self(struct h2_stream *);
static void	h2up_cut(struct h2_stream *);
static void	h2up_flush(struct h2_stream *);

/* fields kept as "name\0value\0": the nghttp2_nv list of them */
static size_t
h2up_nv(struct evbuffer *b, nghttp2_nv *nva, size_t max)
{
	char	*p, *end;
	size_t	 n = 0, len;

	len = evbuffer_get_length(b);
	if (len == 0 || (p = (char *)evbuffer_pullup(b, len)) == NULL)
		return (0);
	end = p + len;
	while (p < end && n < max) {
		nva[n].name = (uint8_t *)p;
		nva[n].namelen = strlen(p);
		p += nva[n].namelen + 1;
		if (p >= end)
			break;
		nva[n].value = (uint8_t *)p;
		nva[n].valuelen = strlen(p);
		p += nva[n].valuelen + 1;
		nva[n++].flags = NGHTTP2_NV_FLAG_NONE;
	}
	return (n);
}

/* a field kept as "name\0value\0", the section within its bound */
int
h2up_keep(struct evbuffer *b, const void *name, size_t namelen,
    const void *value, size_t valuelen)
{
	if (memchr(name, '\0', namelen) != NULL ||
	    memchr(value, '\0', valuelen) != NULL ||
	    evbuffer_get_length(b) + namelen + valuelen > HTTP_SECTION_MAX)
		return (-1);
	if (evbuffer_add(b, name, namelen) == -1 ||
	    evbuffer_add(b, "", 1) == -1 ||
	    evbuffer_add(b, value, valuelen) == -1 ||
	    evbuffer_add(b, "", 1) == -1)
		return (-1);
	return (0);
}

/* the workload's trailers to the client, at the end of the DATA */
int
h2up_trailers(struct h2_stream *st)
{
	nghttp2_nv	 nva[H2UP_NV_MAX];
	size_t		 n;

	if ((n = h2up_nv(st->rtrl, nva, nitems(nva))) == 0)
		return (-1);
	return (nghttp2_submit_trailer(st->sess->ng, st->id, nva, n) == 0 ?
	    0 : -1);
}

static int
up_on_header(nghttp2_session *ng, const nghttp2_frame *frame,
    const uint8_t *name, size_t namelen, const uint8_t *value,
    size_t valuelen, uint8_t flags, void *arg)
{
	struct h2_stream	*st = arg;
	struct evbuffer		*b;

	if (frame->hd.type != NGHTTP2_HEADERS || frame->hd.stream_id !=
	    st->upid)
		return (0);
	b = frame->headers.cat == NGHTTP2_HCAT_HEADERS && st->submitted ?
	    st->rtrl : st->rhdr;
	if (h2up_keep(b, name, namelen, value, valuelen) == -1)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	if (namelen == 7 && memcmp(name, ":status", 7) == 0 && valuelen == 3)
		st->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 +
		    (value[2] - '0');
	return (0);
}

/* the answer's head to the client; a head with END_STREAM has no body */
static int
h2up_submit(struct h2_stream *st, int end)
{
	nghttp2_nv		 nva[H2UP_NV_MAX];
	nghttp2_data_provider	 dp;
	size_t			 n;

	n = h2up_nv(st->rhdr, nva, nitems(nva));
	st->submitted = 1;
	if (st->pc != NULL) {
		metrics_status(st->pc, st->status, 0);
		accesslog_status(st->pc, st->status, 0);
	}
	if (end) {
		st->respdone = 1;
		return (nghttp2_submit_response(st->sess->ng, st->id, nva, n,
		    NULL));
	}
	dp.source.ptr = st;
	dp.read_callback = h2_data_read;
	return (nghttp2_submit_response(st->sess->ng, st->id, nva, n, &dp));
}

static void
h2up_resume(struct h2_stream *st)
{
	if (st->deferred && (evbuffer_get_length(st->out) > 0 ||
	    st->respdone)) {
		st->deferred = 0;
		(void)nghttp2_session_resume_data(st->sess->ng, st->id);
	}
}

static int
up_on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
	struct h2_stream	*st = arg;
	int			 end;

	end = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;

	if (frame->hd.stream_id != st->upid)
		return (0);
	if (frame->hd.type == NGHTTP2_HEADERS) {
		if (!st->submitted) {
			if (st->status < 200) {
				/* 1xx: not passed on */
				evbuffer_drain(st->rhdr,
				    evbuffer_get_length(st->rhdr));
				return (0);
			}
			if (h2up_submit(st, end) != 0)
				return (NGHTTP2_ERR_CALLBACK_FAILURE);
			return (0);
		}
		if (end) {
			st->respdone = 1;
			h2up_resume(st);
		}
		return (0);
	}
	if (frame->hd.type == NGHTTP2_DATA && end) {
		st->respdone = 1;
		h2up_resume(st);
	}
	return (0);
}

static int
up_on_data(nghttp2_session *ng, uint8_t flags, int32_t id,
    const uint8_t *data, size_t len, void *arg)
{
	struct h2_stream	*st = arg;

	if (id != st->upid)
		return (0);
	if (evbuffer_add(st->out, data, len) == -1)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	h2up_resume(st);
	return (0);
}

static int
up_on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error,
    void *arg)
{
	struct h2_stream	*st = arg;
	static const nghttp2_nv	 bad[] = {
		{ (uint8_t *)":status", (uint8_t *)"502", 7, 3,
		    NGHTTP2_NV_FLAG_NONE }
	};

	if (id != st->upid || st->respdone)
		return (0);
	/* cut short: a 502 before the head, a reset after it */
	if (!st->submitted) {
		st->submitted = st->respdone = 1;
		(void)nghttp2_submit_response(st->sess->ng, st->id, bad,
		    nitems(bad), NULL);
	} else
		(void)nghttp2_submit_rst_stream(st->sess->ng, NGHTTP2_FLAG_NONE,
		    st->id, error != 0 ? error : NGHTTP2_INTERNAL_ERROR);
	return (0);
}

/* the request body toward the workload, taken from the client's window */
static ssize_t
up_body_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
    uint32_t *flags, nghttp2_data_source *src, void *arg)
{
	struct h2_stream	*st = src->ptr;
	int			 n;

	if ((n = evbuffer_remove(st->body_in, buf, len)) < 0)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	if (n > 0)
		(void)nghttp2_session_consume(st->sess->ng, st->id, n);
	if (evbuffer_get_length(st->body_in) == 0 && st->reqdone)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	else if (n == 0) {
		st->up_deferred = 1;
		return (NGHTTP2_ERR_DEFERRED);
	}
	return (n);
}

static int
h2up_init(void)
{
	if (up_cbs != NULL)
		return (0);
	if (nghttp2_session_callbacks_new(&up_cbs) != 0)
		return (-1);
	nghttp2_session_callbacks_set_on_header_callback(up_cbs,
	    up_on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(up_cbs,
	    up_on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(up_cbs,
	    up_on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(up_cbs,
	    up_on_stream_close);
	return (0);
}

/* is the field name want, a '_' for a '-' too (a CGI-style reading)? */
static int
h2up_name_is(const char *name, size_t len, const char *want)
{
	size_t	 i;

	if (len != strlen(want))
		return (0);
	for (i = 0; i < len; i++)
		if (name[i] != want[i] && (name[i] != '_' || want[i] != '-'))
			return (0);
	return (1);
}

enum { H2UP_KEEP, H2UP_DROP, H2UP_XFF };

/*
 * What the client says of itself or of the way it came is replaced, as
 * proxy.c replaces it for HTTP/1.1: X-Forwarded-*, X-Real-IP and, but
 * from a trusted proxy, Forwarded.  A trusted proxy's X-Forwarded-For is
 * kept, its address appended.  (Names come lower case: nghttp2 refuses
 * others.)
 */
static int
h2up_field_kind(const char *name, size_t len, int trusted)
{
	if (len < 9 || (name[0] != 'x' && name[0] != 'f'))
		return (H2UP_KEEP);
	if (h2up_name_is(name, len, "x-forwarded-for"))
		return (trusted ? H2UP_XFF : H2UP_DROP);
	if (h2up_name_is(name, len, "x-forwarded-proto") ||
	    h2up_name_is(name, len, "x-forwarded-host") ||
	    h2up_name_is(name, len, "x-real-ip") ||
	    (!trusted && h2up_name_is(name, len, "forwarded")))
		return (H2UP_DROP);
	return (H2UP_KEEP);
}

/*
 * Ours: X-Forwarded-For (a trusted proxy's chain first), -Proto, -Host
 * and X-Real-IP, the client as the gateway sees it (proxy.c says which).
 */
static int
h2up_forwarded(struct evbuffer *b, struct h2_stream *st, struct evbuffer *xff,
    const char *last, size_t lastlen)
{
	struct gw_conn	*pc = st->pc;
	struct netaddr	 na;
	char		 ip[INET6_ADDRSTRLEN];
	const char	*real = pc->peer;
	size_t		 len;

	if (last != NULL && filter_forwarded_last(last, lastlen, &na) == 0 &&
	    inet_ntop(na.af, na.addr, ip, sizeof(ip)) != NULL)
		real = ip;
	if (evbuffer_add(xff, pc->peer, strlen(pc->peer)) == -1 ||
	    (len = evbuffer_get_length(xff)) == 0)
		return (-1);
	return (h2up_keep(b, "x-forwarded-for", 15, evbuffer_pullup(xff, len),
	    len) == -1 ||
	    h2up_keep(b, "x-forwarded-proto", 17, pc->listener->conf.tls ?
	    "https" : "http", pc->listener->conf.tls ? 5 : 4) == -1 ||
	    h2up_keep(b, "x-forwarded-host", 16, st->authority,
	    strlen(st->authority)) == -1 ||
	    h2up_keep(b, "x-real-ip", 9, real, strlen(real)) == -1 ? -1 : 0);
}

/*
 * Its :path, less what its route's "strip prefix" takes off: "/api/x"
 * is "/x", "/api" and "/api?q" are "/" and "/?q", the '/' written over
 * the prefix's last byte (the stream was routed already).
 */
static const char *
h2up_path(struct h2_stream *st)
{
	size_t	 strip = st->pc != NULL ? st->pc->path_strip : 0;

	if (strip == 0 || strip > strlen(st->path))
		return (st->path);
	if (st->path[strip] == '/')
		return (st->path + strip);
	st->path[strip - 1] = '/';
	return (st->path + strip - 1);
}

/*
 * The request: the client's fields as they came but those said above,
 * ours, :scheme http.
 */
static int
h2up_request(struct h2_stream *st)
{
	nghttp2_nv		 nva[H2UP_NV_MAX];
	nghttp2_data_provider	 dp;
	struct evbuffer		*b, *xff;
	size_t			 n, len, lastlen = 0;
	char			*p, *colon, *end, *last = NULL;
	const char		*path;
	int			 rc = -1, kind;

	if ((b = evbuffer_new()) == NULL)
		return (-1);
	if ((xff = evbuffer_new()) == NULL) {
		evbuffer_free(b);
		return (-1);
	}
	path = h2up_path(st);
	if (h2up_keep(b, ":method", 7, st->method, strlen(st->method)) ||
	    h2up_keep(b, ":scheme", 7, "http", 4) ||
	    h2up_keep(b, ":authority", 10, st->authority,
	    strlen(st->authority)) ||
	    h2up_keep(b, ":path", 5, path, strlen(path)) ||
	    (st->te_trailers && h2up_keep(b, "te", 2, "trailers", 8)))
		goto done;
	/* st->fields holds "name: value\r\n" lines, checked by nghttp2 */
	len = evbuffer_get_length(st->fields);
	p = len > 0 ? (char *)evbuffer_pullup(st->fields, len) : NULL;
	end = p + len;
	while (p != NULL && p < end) {
		if ((colon = memchr(p, ':', end - p)) == NULL ||
		    (n = (char *)memchr(colon, '\r', end - colon) - colon) <
		    2)
			goto done;
		kind = h2up_field_kind(p, colon - p, st->pc->trusted);
		if (kind == H2UP_XFF && n > 2) {
			last = colon + 2;
			lastlen = n - 2;
			if (evbuffer_add(xff, last, lastlen) == -1 ||
			    evbuffer_add(xff, ", ", 2) == -1)
				goto done;
		} else if (kind == H2UP_KEEP &&
		    h2up_keep(b, p, colon - p, colon + 2, n - 2) == -1)
			goto done;
		p = colon + n + 2;
	}
	if (h2up_forwarded(b, st, xff, last, lastlen) == -1)
		goto done;
	if (evbuffer_get_length(st->cookie) > 0 &&
	    h2up_keep(b, "cookie", 6, evbuffer_pullup(st->cookie, -1),
	    evbuffer_get_length(st->cookie)) == -1)
		goto done;
	n = h2up_nv(b, nva, nitems(nva));
	dp.source.ptr = st;
	dp.read_callback = up_body_read;
	st->upid = nghttp2_submit_request(st->up, NULL, nva, n,
	    st->reqdone && evbuffer_get_length(st->body_in) == 0 ? NULL : &dp,
	    st);
	rc = st->upid < 0 ? -1 : 0;
 done:
	evbuffer_free(xff);
	evbuffer_free(b);
	return (rc);
}

/* connect to the workload, and a client session over it */
int
h2up_start(struct h2_stream *st)
{
	struct gw_workload	*wl = st->pc->wl;
	nghttp2_settings_entry	 iv[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 }
	};

	if (h2up_init() == -1 || (st->uout = evbuffer_new()) == NULL ||
	    (st->rhdr = evbuffer_new()) == NULL ||
	    (st->rtrl = evbuffer_new()) == NULL)
		return (-1);
	instance_pick(wl);
	if ((st->ufd = socket(wl->addr.ss_family, SOCK_STREAM |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	gw->nups++;
	event_set(&st->urev, st->ufd, EV_READ | EV_PERSIST, h2up_read, st);
	event_set(&st->uwev, st->ufd, EV_WRITE | EV_PERSIST, h2up_write, st);
	if (connect(st->ufd, (struct sockaddr *)&wl->addr, wl->addrlen) ==
	    -1 && errno != EINPROGRESS)
		return (-1);
	if (nghttp2_session_client_new(&st->up, up_cbs, st) != 0) {
		st->up = NULL;
		return (-1);
	}
	if (nghttp2_submit_settings(st->up, NGHTTP2_FLAG_NONE, iv,
	    nitems(iv)) != 0 || h2up_request(st) == -1)
		return (-1);
	event_add(&st->urev, NULL);
	h2up_flush(st);
	return (0);
}

/* frames toward the workload, as far as its socket takes them */
static void
h2up_flush(struct h2_stream *st)
{
	const uint8_t	*data;
	ssize_t		 n;

	if (st->up == NULL)
		return;
	while (evbuffer_get_length(st->uout) < H2_BODY_HIGH) {
		if ((n = nghttp2_session_mem_send(st->up, &data)) <= 0)
			break;
		if (evbuffer_add(st->uout, data, n) == -1)
			break;
	}
	if (evbuffer_get_length(st->uout) > 0 &&
	    evbuffer_write(st->uout, st->ufd) == -1 && errno != EAGAIN &&
	    errno != EINTR && errno != ENOTCONN)
		evbuffer_drain(st->uout, evbuffer_get_length(st->uout));
	if (evbuffer_get_length(st->uout) > 0 ||
	    nghttp2_session_want_write(st->up)) {
		if (!event_pending(&st->uwev, EV_WRITE, NULL))
			event_add(&st->uwev, NULL);
	} else
		event_del(&st->uwev);
}

/* more of the client's body, or its end */
void
h2up_body(struct h2_stream *st)
{
	if (st->up == NULL)
		return;
	if (st->up_deferred) {
		st->up_deferred = 0;
		(void)nghttp2_session_resume_data(st->up, st->upid);
	}
	h2up_flush(st);
}

static void
h2up_write(int fd, short event, void *arg)
{
	struct h2_stream	*st = arg;

	if (h2up_self(st))
		return;
	h2up_flush(st);
	st->sess->send(st->sess);
}

/* the workload left: what it did not finish is cut */
static void
h2up_cut(struct h2_stream *st)
{
	struct h2_session	*s = st->sess;

	event_del(&st->urev);
	event_del(&st->uwev);
	if (!st->respdone)
		(void)up_on_stream_close(st->up, st->upid,
		    NGHTTP2_INTERNAL_ERROR, st);
	h2up_resume(st);
	st->respdone = 1;
	s->send(s);
}

/*
 * At its socket's first event: 1 (and it is cut) if its connect reached
 * itself, which is no workload (selfconn.c).
 */
static int
h2up_self(struct h2_stream *st)
{
	if (st->uconnected)
		return (0);
	st->uconnected = 1;
	if (!sock_self(st->ufd, (struct sockaddr *)&st->pc->wl->addr))
		return (0);
	h2up_cut(st);
	return (1);
}

static void
h2up_read(int fd, short event, void *arg)
{
	struct h2_stream	*st = arg;
	struct h2_session	*s = st->sess;
	uint8_t			 buf[16384];
	ssize_t			 n;

	if (h2up_self(st))
		return;
	n = read(st->ufd, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || nghttp2_session_mem_recv(st->up, buf, n) < 0) {
		h2up_cut(st);
		return;
	}
	if (evbuffer_get_length(st->out) >= H2_BODY_HIGH)
		event_del(&st->urev);
	h2up_flush(st);
	s->send(s);
}

void
h2up_free(struct h2_stream *st)
{
	if (st->ufd != -1) {
		event_del(&st->urev);
		event_del(&st->uwev);
		close(st->ufd);
		st->ufd = -1;
		gw->nups--;
	}
	if (st->up != NULL)
		nghttp2_session_del(st->up);
	st->up = NULL;
	if (st->uout != NULL)
		evbuffer_free(st->uout);
	if (st->rhdr != NULL)
		evbuffer_free(st->rhdr);
	if (st->rtrl != NULL)
		evbuffer_free(st->rtrl);
	st->uout = st->rhdr = st->rtrl = NULL;
}
