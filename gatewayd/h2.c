/*
 * HTTP/2 from clients: ALPN "h2" on TLS listeners, the preface on a
 * cleartext listener with "http2 prior knowledge".  libnghttp2 does the
 * framing, HPACK and flow control; this file holds its session, one per
 * connection, and turns each stream into an HTTP/1.1 request.
 *
 * A stream is a pseudo-connection (conn_attach()), read as an HTTP/1.1
 * client's connection is, so it is routed by its :authority, counted as
 * activity, parked across a wake, answered 503/504 when the wake fails
 * and proxied exactly as any other request, and its request ends where
 * any request ends (conn.c).  It has no socket: this file puts the
 * request into its input buffer and takes the answer from its output
 * buffer, each side running from the event loop (event_active()) as it
 * would for a socket.  The proxy hands the answer's head over parsed
 * (h2_stream_head()) and its body unframed; the gateway's own answers
 * (404, 502, 503, 504, the API's) are read back as HTTP/1.1.  What the
 * translation does (RFC 9113 section 8.2.2 and 8.3.1): Host from
 * :authority, Cookie fields joined, no connection-specific field either
 * way (nghttp2 refuses them in requests; the answer's hop-by-hop fields,
 * which the HTTP/1.1 parser marks, are left out), a body without
 * Content-Length sent chunked, a chunked answer's trailers to a client
 * that asked for them, and the pseudo-connection kept alive after a
 * complete answer, idle in the session's pool for the next stream, so
 * that its connection to the workload is reused as an HTTP/1.1 client's
 * is.  A listener removed, or the gateway stopping, ends each session
 * with a graceful GOAWAY.
 *
 * Limits, each against an attack on HTTP/2 servers: "http2 max streams"
 * concurrent streams (more are refused), resets by the client beyond
 * nghttp2's rate limit end the connection (CVE-2023-44487), at most
 * H2_CONTINUATIONS CONTINUATION frames per field block, field sections
 * within the HTTP/1.1 limits counted after HPACK decoding (HPACK bombs),
 * at most H2_OUTBOUND_ACKS unsent PING and SETTINGS acknowledgements
 * (floods), at most H2_EMPTY_MAX empty DATA frames in a row and
 * H2_PRIORITY_PER_STREAM PRIORITY frames per stream opened (floods of
 * frames that cost the client nothing, CVE-2019-9518, which nghttp2
 * leaves to its user), and input is not read while output to the client is over
 * GW_BUF_HIGH.  A connection that makes no progress (a window held at
 * zero) is closed after the upstream timeout.  Abuse ends the connection
 * with GOAWAY, and the close does not linger (h2_on_frame_send()); no
 * limit is shared with other connections.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event.h>
#include <nghttp2/nghttp2.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "h2.h"
#include "metrics.h"

#define H2_PREFACE		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define H2_PREFACE_LEN		(sizeof(H2_PREFACE) - 1)
#define H2_REQ_HIGH		(64 * 1024)	/* request bytes held per
						   stream: then no window */
#define H2_CONN_WINDOW		(1024 * 1024)	/* the connection's window */
#define H2_CONTINUATIONS	8
#define H2_OUTBOUND_ACKS	1000
#define H2_RESET_BURST		200	/* resets by the client, then */
#define H2_RESET_RATE		33	/* per second (nghttp2's default) */
#define H2_TURN_STREAMS		16	/* streams begun per connection and
						   turn of the event loop */
#define H2_PSEUDO_MAX		HTTP_LINE_MAX	/* :path and friends */
#define H2_EMPTY_MAX		100	/* empty DATA frames in a row */
#define H2_PRIORITY_PER_STREAM	100	/* PRIORITY frames, per stream
						   opened and one more */

static const struct conn_ops		h2_session_ops;
static const struct conn_ops		h2_ended_ops;
static const struct conn_stream_ops	h2_stream_sops;

static nghttp2_session_callbacks	*h2_cbs;
static nghttp2_option			*h2_opt;
static TAILQ_HEAD(, h2_session)		 h2_sessions =
    TAILQ_HEAD_INITIALIZER(h2_sessions);
static int				 h2_stopping;
static unsigned int			 h2_conns;	/* not yet closed */

static void	h2_stream_free(struct h2_stream *);
static void	h2_stream_release(struct h2_stream *);
static void	h2_send_later(struct h2_session *);
static void	h2_input_later(struct h2_session *);
static void	h2_input_cb(int, short, void *);

/* may this connection become HTTP/2?  1 yes, 0 no, -1 too early to say */
static int
h2_detect(struct gw_conn *c)
{
	const char	*alpn;
	size_t		 len;
	unsigned char	*p;

	if (c->listener->conf.http2 == LISTENER_H2_OFF)
		return (0);
	if (c->tls != NULL) {
		alpn = tls_conn_alpn_selected(c->tls);
		return (alpn != NULL && strcmp(alpn, "h2") == 0);
	}
	if (c->listener->conf.http2 != LISTENER_H2_PRIOR)
		return (0);
	len = MINIMUM(evbuffer_get_length(c->in), H2_PREFACE_LEN);
	if ((p = evbuffer_pullup(c->in, len)) == NULL)
		return (0);
	if (memcmp(p, H2_PREFACE, len) != 0)
		return (0);
	return (len == H2_PREFACE_LEN ? 1 : -1);
}

static struct h2_stream *
h2_stream_get(struct h2_session *s, int32_t id)
{
	return (nghttp2_session_get_stream_user_data(s->ng, id));
}

static int
h2_on_begin_headers(nghttp2_session *ng, const nghttp2_frame *frame,
    void *arg)
{
	struct h2_session	*s = arg;
	struct h2_stream	*st;

	if (frame->hd.type != NGHTTP2_HEADERS ||
	    frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return (0);
	if (s->nstreams >= gw->conf.h2_max_streams || conn_full()) {
		(void)nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE,
		    frame->hd.stream_id, NGHTTP2_REFUSED_STREAM);
		return (0);
	}
	/* the answer's buffers come when it starts (h2_stream_start()) */
	if ((st = calloc(1, sizeof(*st))) == NULL ||
	    (st->fields = evbuffer_new()) == NULL ||
	    (st->cookie = evbuffer_new()) == NULL) {
		log_warn("%s", __func__);
		if (st != NULL) {
			st->ufd = -1;
			h2_stream_free(st);
		}
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	}
	st->sess = s;
	st->id = frame->hd.stream_id;
	st->ufd = -1;
	TAILQ_INSERT_TAIL(&s->streams, st, entry);
	s->nstreams++;
	s->nopened++;
	s->turn++;
	nghttp2_session_set_stream_user_data(ng, st->id, st);
	return (0);
}

static int
h2_pseudo(char **dst, const uint8_t *v, size_t len)
{
	if (*dst != NULL || len >= H2_PSEUDO_MAX)
		return (-1);
	if ((*dst = strndup((const char *)v, len)) == NULL)
		return (-1);
	return (0);
}

/*
 * A request field.  The section is held to the HTTP/1.1 limits as it is
 * decoded, so what HPACK expands (a bomb) is refused at the same size as
 * the same fields in HTTP/1.1.
 */
static int
h2_on_field(nghttp2_session *ng, const nghttp2_frame *frame,
    const uint8_t *name, size_t namelen, const uint8_t *value,
    size_t valuelen, void *arg)
{
	struct h2_session	*s = arg;
	struct h2_stream	*st;
	int			 rc = 0;

	if (frame->hd.type != NGHTTP2_HEADERS ||
	    (st = h2_stream_get(s, frame->hd.stream_id)) == NULL)
		return (0);
	if (frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return (0);	/* trailers: HTTP/1.1 workloads get none */
	st->hdrbytes += namelen + valuelen + 4;
	if (++st->nhdrs > HTTP_FIELDS_MAX || st->hdrbytes > HTTP_SECTION_MAX ||
	    namelen + valuelen + 4 > HTTP_FIELD_MAX)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	if (namelen > 0 && name[0] == ':') {
		if (namelen == 7 && memcmp(name, ":method", 7) == 0)
			rc = h2_pseudo(&st->method, value, valuelen);
		else if (namelen == 5 && memcmp(name, ":path", 5) == 0)
			rc = h2_pseudo(&st->path, value, valuelen);
		else if (namelen == 10 && memcmp(name, ":authority", 10) == 0)
			rc = h2_pseudo(&st->authority, value, valuelen);
		return (rc == -1 ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0);
	}
	if (namelen == 6 && memcmp(name, "cookie", 6) == 0) {
		if (evbuffer_get_length(st->cookie) > 0)
			rc = evbuffer_add(st->cookie, "; ", 2);
		if (rc == 0)
			rc = evbuffer_add(st->cookie, value, valuelen);
		return (rc == -1 ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0);
	}
	/* the Host is :authority's when there is one; Expect is ours */
	if (namelen == 2 && memcmp(name, "te", 2) == 0 && valuelen == 8 &&
	    memcmp(value, "trailers", 8) == 0)
		st->te_trailers = 1;
	if ((namelen == 4 && memcmp(name, "host", 4) == 0) ||
	    (namelen == 6 && memcmp(name, "expect", 6) == 0) ||
	    (namelen == 2 && memcmp(name, "te", 2) == 0)) {
		if (name[0] == 'h' && st->authority == NULL)
			rc = h2_pseudo(&st->authority, value, valuelen);
		return (rc == -1 ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0);
	}
	if (namelen == 14 && memcmp(name, "content-length", 14) == 0)
		st->has_cl = 1;
	if (evbuffer_add(st->fields, name, namelen) == -1 ||
	    evbuffer_add(st->fields, ": ", 2) == -1 ||
	    evbuffer_add(st->fields, value, valuelen) == -1 ||
	    evbuffer_add(st->fields, "\r\n", 2) == -1)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	return (0);
}

/*
 * The field taken, the input pauses once the connection has begun its
 * H2_TURN_STREAMS streams this turn of the loop (h2_input()).  Fields
 * are where nghttp2 lets a pause happen within a frame; a stream costs
 * its allocations and a pseudo-connection, so it is what is counted.
 */
static int
h2_on_header(nghttp2_session *ng, const nghttp2_frame *frame,
    const uint8_t *name, size_t namelen, const uint8_t *value,
    size_t valuelen, uint8_t flags, void *arg)
{
	struct h2_session	*s = arg;
	int			 rc;

	rc = h2_on_field(ng, frame, name, namelen, value, valuelen, arg);
	if (rc == 0 && s->turn > H2_TURN_STREAMS)
		return (NGHTTP2_ERR_PAUSE);
	return (rc);
}

/* a new pseudo-connection for the stream, or an idle one of the pool */
static struct gw_conn *
h2_stream_conn(struct h2_stream *st)
{
	struct h2_session	*s = st->sess;
	struct gw_conn		*pc;

	if (s->npool > 0 && !st->h2c) {
		/* its connection to a workload perhaps open */
		pc = s->pool[--s->npool];
		conn_reattach(pc, st);
		return (pc);
	}
	if ((pc = conn_attach(s->c, st)) != NULL)
		pc->sops = &h2_stream_sops;
	return (pc);
}

/*
 * Bytes put into the pseudo-connection's input, counted as a socket's
 * read would be: for /metrics, and for the access log's bytes in.
 */
static void
h2_stream_rx(struct h2_stream *st, size_t n)
{
	metrics_rx(st->pc, n);
	st->pc->rx_total += n;
}

/* every stream's request line: without printf(3)'s parsing of a format */
static int
h2_add_str(struct evbuffer *b, const char *s)
{
	return (evbuffer_add(b, s, strlen(s)));
}

/* the request's head, whole: on to a pseudo-connection of its own */
static int
h2_stream_start(struct h2_stream *st, int endstream)
{
	struct h2_session	*s = st->sess;
	struct gw_workload	*wl;
	struct evbuffer		*in;
	size_t			 before;

	if (st->method == NULL || st->path == NULL || st->authority == NULL ||
	    strcmp(st->method, "CONNECT") == 0)
		return (-1);
	if ((st->rin = evbuffer_new()) == NULL ||
	    (st->out = evbuffer_new()) == NULL ||
	    (st->body_in = evbuffer_new()) == NULL)
		return (-1);
	st->meth = strcmp(st->method, "HEAD") == 0 ? HTTP_M_HEAD : HTTP_M_GET;
	/*
	 * For "upstream h2c" the pseudo-connection gets the head alone, to
	 * route and wake by; the fields and the body are h2up.c's to send.
	 */
	wl = s->c->listener->conf.api ? NULL : route_find(st->authority,
	    st->authority[0] == '[' ? 0 : strcspn(st->authority, ":"),
	    st->path, strlen(st->path), NULL);
	st->h2c = wl != NULL && wl != ROUTE_BAD_PATH && wl->configured &&
	    wl->h2c;
	st->chunked = !st->h2c && !endstream && !st->has_cl;
	if ((st->pc = h2_stream_conn(st)) == NULL)
		return (-1);
	in = st->pc->in;
	before = evbuffer_get_length(in);
	if (st->h2c) {
		if (evbuffer_add_printf(in, "%s %s HTTP/1.1\r\n"
		    "Host: %s\r\nContent-Length: 0\r\n"
		    "Connection: close\r\n\r\n", st->method, st->path,
		    st->authority) == -1)
			return (-1);
	} else if (h2_add_str(in, st->method) == -1 ||
	    evbuffer_add(in, " ", 1) == -1 ||
	    h2_add_str(in, st->path) == -1 ||
	    evbuffer_add(in, " HTTP/1.1\r\nHost: ", 17) == -1 ||
	    h2_add_str(in, st->authority) == -1 ||
	    evbuffer_add(in, "\r\n", 2) == -1 ||
	    evbuffer_add_buffer(in, st->fields) == -1 ||
	    (evbuffer_get_length(st->cookie) > 0 &&
	    (evbuffer_add(in, "Cookie: ", 8) == -1 ||
	    evbuffer_add_buffer(in, st->cookie) == -1 ||
	    evbuffer_add(in, "\r\n", 2) == -1)) ||
	    (st->chunked && evbuffer_add(in,
	    "Transfer-Encoding: chunked\r\n", 28) == -1) ||
	    evbuffer_add(in, "\r\n", 2) == -1)
		return (-1);
	h2_stream_rx(st, evbuffer_get_length(in) - before);
	conn_h2_input(st->pc);
	st->started = 1;
	return (0);
}

/*
 * A stream whose head is whole starts once the input taken this time
 * has been (h2_input()), or at its first DATA: a stream the client
 * resets in the same input, as a rapid reset does (CVE-2023-44487),
 * ends without a pseudo-connection, a route or a request made for it,
 * which were most of what such a stream cost.  -1 when it could not
 * start: it is reset.
 */
static int
h2_stream_begin(struct h2_stream *st)
{
	struct h2_session	*s = st->sess;

	if (!st->ready)
		return (st->started ? 0 : -1);
	st->ready = 0;
	s->nready--;
	if (h2_stream_start(st, st->endhead) == -1) {
		(void)nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE,
		    st->id, st->pc == NULL && conn_full() ?
		    NGHTTP2_REFUSED_STREAM : NGHTTP2_PROTOCOL_ERROR);
		return (-1);
	}
	if (st->endhead)
		st->reqdone = 1;
	return (0);
}

/* the streams whose heads came in the input just taken */
static void
h2_begin_ready(struct h2_session *s)
{
	struct h2_stream	*st, *next;

	for (st = TAILQ_FIRST(&s->streams); st != NULL && s->nready > 0;
	    st = next) {
		next = TAILQ_NEXT(st, entry);
		if (st->ready)
			(void)h2_stream_begin(st);
	}
}

/*
 * The window of DATA the pseudo-connection has taken: given back while
 * less than H2_REQ_HIGH of it waits there (a parked request's body, one
 * the workload is slow to read), so that a client sends no more than
 * that ahead.  A stream whose pseudo-connection is gone drops its body.
 */
static void
h2_stream_window(struct h2_stream *st)
{
	if (st->unconsumed == 0 || (st->pc != NULL &&
	    evbuffer_get_length(st->pc->in) >= H2_REQ_HIGH))
		return;
	(void)nghttp2_session_consume(st->sess->ng, st->id, st->unconsumed);
	st->unconsumed = 0;
	h2_send_later(st->sess);
}

/* request bytes on to the pseudo-connection; 0, or -1 out of memory */
static int
h2_stream_feed(struct h2_stream *st, const void *data, size_t len)
{
	struct evbuffer	*in;
	size_t		 before;
	int		 rc = 0;

	if (st->pc == NULL)
		return (0);
	in = st->pc->in;
	before = evbuffer_get_length(in);
	if (st->chunked && len > 0)
		rc = evbuffer_add_printf(in, "%zx\r\n", len) == -1;
	if (rc == 0 && len > 0)
		rc = evbuffer_add(in, data, len);
	if (rc == 0 && st->chunked)
		rc = evbuffer_add(in, len > 0 ? "\r\n" : "0\r\n\r\n",
		    len > 0 ? 2 : 5);
	h2_stream_rx(st, evbuffer_get_length(in) - before);
	conn_h2_input(st->pc);
	return (rc == 0 ? 0 : -1);
}

/* the client's side of the stream ended */
static void
h2_stream_reqdone(struct h2_stream *st)
{
	st->reqdone = 1;
	if (st->h2c) {
		h2up_body(st);
		return;
	}
	if (st->chunked)
		(void)h2_stream_feed(st, NULL, 0);
	h2_stream_release(st);
}

/*
 * Frames that cost the client a few bytes and the gateway a wakeup each,
 * and that nghttp2 takes without a limit: DATA frames without a byte of
 * data (padding is no data) that do not end their stream, and PRIORITY
 * frames.  A DATA frame that carries data, or ends its stream, starts
 * the count of empty ones again: a client that streams a body may send
 * an empty one now and then.  PRIORITY frames get a budget per stream
 * opened, as a browser sends a few for each.  -1 when the client is over
 * either: the session ends with ENHANCE_YOUR_CALM (h2_input()).
 */
static int
h2_frame_budget(struct h2_session *s, const nghttp2_frame *frame)
{
	uint64_t	 allowed;

	switch (frame->hd.type) {
	case NGHTTP2_DATA:
		if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
		    frame->hd.length > frame->data.padlen) {
			s->nempty = 0;
			return (0);
		}
		if (++s->nempty <= H2_EMPTY_MAX)
			return (0);
		log_debug("%s: h2: over %d empty DATA frames in a row",
		    s->c->peer, H2_EMPTY_MAX);
		break;
	case NGHTTP2_PRIORITY:
		allowed = (uint64_t)H2_PRIORITY_PER_STREAM * (s->nopened + 1);
		if (++s->npriority <= allowed)
			return (0);
		log_debug("%s: h2: over %llu PRIORITY frames", s->c->peer,
		    (unsigned long long)allowed);
		break;
	default:
		return (0);
	}
	s->calm = 1;
	return (-1);
}

static int
h2_on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
	struct h2_session	*s = arg;
	struct h2_stream	*st;
	int			 end;

	end = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
	if (h2_frame_budget(s, frame) == -1)
		return (NGHTTP2_ERR_CALLBACK_FAILURE);

	if (frame->hd.type != NGHTTP2_HEADERS &&
	    frame->hd.type != NGHTTP2_DATA)
		return (0);
	if ((st = h2_stream_get(s, frame->hd.stream_id)) == NULL)
		return (0);
	conn_timer(s->c, gw->conf.upstream_timeout);
	if (frame->hd.type == NGHTTP2_HEADERS &&
	    frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
		/* it starts after this input (h2_stream_begin()) */
		st->ready = 1;
		st->endhead = end != 0;
		s->nready++;
		return (0);
	}
	if (end && h2_stream_begin(st) == 0 && !st->reqdone)
		h2_stream_reqdone(st);
	return (0);
}

static int
h2_on_data(nghttp2_session *ng, uint8_t flags, int32_t id,
    const uint8_t *data, size_t len, void *arg)
{
	struct h2_session	*s = arg;
	struct h2_stream	*st;

	if ((st = h2_stream_get(s, id)) == NULL || len == 0 ||
	    h2_stream_begin(st) == -1) {
		(void)nghttp2_session_consume(ng, id, len);
		return (0);
	}
	if (st->h2c) {
		/* held, windowed as h2up.c sends it on */
		if (evbuffer_add(st->body_in, data, len) == -1)
			return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
		h2up_body(st);
		return (0);
	}
	if (h2_stream_feed(st, data, len) == -1)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	st->unconsumed += len;
	h2_stream_window(st);
	return (0);
}

static int
h2_on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error,
    void *arg)
{
	struct h2_session	*s = arg;
	struct h2_stream	*st;

	if ((st = h2_stream_get(s, id)) == NULL)
		return (0);
	nghttp2_session_set_stream_user_data(ng, id, NULL);
	h2_stream_free(st);
	return (0);
}

/*
 * A GOAWAY with an error (nghttp2's for a rapid reset beyond its rate,
 * ours for a flood or a broken frame) ends an abuser's connection: it is
 * closed once the GOAWAY is written, without the lingering close's
 * reading of what it still sends (conn_finish()).  A rapid reset's
 * client has sent the whole of its attack by then, and reading it to
 * the end was most of what its connection cost the gateway.
 */
static int
h2_on_frame_send(nghttp2_session *ng, const nghttp2_frame *frame,
    void *arg)
{
	struct h2_session	*s = arg;

	if (frame->hd.type == NGHTTP2_GOAWAY &&
	    frame->goaway.error_code != NGHTTP2_NO_ERROR)
		s->c->nolinger = 1;
	return (0);
}

/* DATA frames from the answer's body: what there is, or wait */
ssize_t
h2_data_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
    uint32_t *flags, nghttp2_data_source *src, void *arg)
{
	struct h2_stream	*st = src->ptr;
	int			 n;

	n = evbuffer_remove(st->out, buf, len);
	if (n < 0)
		return (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE);
	if (evbuffer_get_length(st->out) == 0 && st->respdone) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		if (st->rtrl != NULL && evbuffer_get_length(st->rtrl) > 0 &&
		    h2up_trailers(st) == 0)
			*flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
	} else if (n == 0) {
		st->deferred = 1;
		return (NGHTTP2_ERR_DEFERRED);
	}
	/* room again: take more of the answer */
	if (st->pc != NULL && evbuffer_get_length(st->out) < H2_BODY_HIGH &&
	    evbuffer_get_length(st->pc->out) > 0)
		conn_h2_output(st->pc);
	if (st->ufd != -1 && evbuffer_get_length(st->out) < H2_BODY_HIGH &&
	    !event_pending(&st->urev, EV_READ, NULL))
		event_add(&st->urev, NULL);
	conn_timer(st->sess->c, gw->conf.upstream_timeout);
	return (n);
}

/* one field of the gateway's own, if value is not NULL */
static void
h2_own_field(nghttp2_nv *nva, size_t *n, const char *name, const char *value)
{
	if (value == NULL)
		return;
	nva[*n].name = (uint8_t *)name;
	nva[*n].namelen = strlen(name);
	nva[*n].value = (uint8_t *)value;
	nva[*n].valuelen = strlen(value);
	nva[(*n)++].flags = NGHTTP2_NV_FLAG_NONE;
}

/*
 * The answer's head: its fields, lower case, without hop-by-hop ones,
 * and a Server-Timing and a Strict-Transport-Security of the gateway's
 * if timing and hsts are not NULL.
 */
static int
h2_submit_head(struct h2_stream *st, struct http_head *h, const char *timing,
    const char *hsts)
{
	nghttp2_nv		 nva[HTTP_FIELDS_MAX + 3];
	nghttp2_data_provider	 dp;
	char			 status[4];
	struct http_field	*f;
	size_t			 i, j, n = 0;

	(void)snprintf(status, sizeof(status), "%03d", h->code);
	nva[n].name = (uint8_t *)":status";
	nva[n].namelen = 7;
	nva[n].value = (uint8_t *)status;
	nva[n].valuelen = 3;
	nva[n++].flags = NGHTTP2_NV_FLAG_NONE;
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->flags & (HTTP_FIELD_HOP | HTTP_FIELD_DROP))
			continue;
		/* the parser's buffer is ours: lower case in place */
		for (j = 0; j < f->namelen; j++)
			((char *)f->name)[j] = tolower((unsigned char)
			    f->name[j]);
		nva[n].name = (uint8_t *)f->name;
		nva[n].namelen = f->namelen;
		nva[n].value = (uint8_t *)f->value;
		nva[n].valuelen = f->valuelen;
		nva[n++].flags = NGHTTP2_NV_FLAG_NONE;
	}
	h2_own_field(nva, &n, "server-timing", timing);
	h2_own_field(nva, &n, "strict-transport-security", hsts);
	st->body = h->body;
	st->left = h->content_length;
	if (st->body == HTTP_BODY_CHUNKED)
		http_chunked_init(&st->chunk, HTTP_RESPONSE);
	st->submitted = 1;
	if (st->body == HTTP_BODY_NONE || st->body == HTTP_BODY_TUNNEL ||
	    (st->body == HTTP_BODY_LENGTH && st->left == 0)) {
		st->respdone = 1;
		return (nghttp2_submit_response(st->sess->ng, st->id, nva, n,
		    NULL));
	}
	dp.source.ptr = st;
	dp.read_callback = h2_data_read;
	return (nghttp2_submit_response(st->sess->ng, st->id, nva, n, &dp));
}

/* bytes of the answer's body read: into out, decoded */
static int
h2_stream_body(struct h2_stream *st)
{
	struct evbuffer_iovec	 v;
	const char		*span;
	size_t			 used, spanlen, len;
	int			 r;

	while (!st->respdone && evbuffer_get_length(st->rin) > 0) {
		if (evbuffer_peek(st->rin, -1, NULL, &v, 1) < 1)
			return (-1);
		switch (st->body) {
		case HTTP_BODY_LENGTH:
			len = MINIMUM(v.iov_len, st->left);
			if (evbuffer_add(st->out, v.iov_base, len) == -1)
				return (-1);
			evbuffer_drain(st->rin, len);
			if ((st->left -= len) == 0)
				st->respdone = 1;
			break;
		case HTTP_BODY_CHUNKED:
			r = http_chunked_feed(&st->chunk, v.iov_base,
			    v.iov_len, &used, &span, &spanlen);
			if (r == HTTP_ERROR)
				return (-1);
			if (spanlen > 0 &&
			    evbuffer_add(st->out, span, spanlen) == -1)
				return (-1);
			evbuffer_drain(st->rin, used);
			if (r == HTTP_DONE)
				st->respdone = 1;
			break;
		default:	/* CLOSE */
			if (evbuffer_add_buffer(st->out, st->rin) == -1)
				return (-1);
			break;
		}
	}
	if (st->eof && !st->respdone) {
		if (st->body != HTTP_BODY_CLOSE)
			return (-1);	/* cut short */
		st->respdone = 1;
	}
	if (st->deferred && (evbuffer_get_length(st->out) > 0 ||
	    st->respdone)) {
		st->deferred = 0;
		(void)nghttp2_session_resume_data(st->sess->ng, st->id);
	}
	return (0);
}

/* bytes of the answer read: its head, then its body */
static int
h2_stream_answer(struct h2_stream *st)
{
	struct evbuffer_iovec	 v;
	size_t			 used;
	int			 r = HTTP_MORE;

	while (!st->submitted) {
		if (st->resp == NULL) {
			if ((st->resp = head_get()) == NULL)
				return (-1);
			http_resp_init(&st->resp->h, st->resp->buf,
			    sizeof(st->resp->buf), st->meth);
		}
		if (evbuffer_get_length(st->rin) == 0 ||
		    evbuffer_peek(st->rin, -1, NULL, &v, 1) < 1)
			return (st->eof ? -1 : 0);
		r = http_head_feed(&st->resp->h, v.iov_base, v.iov_len, &used);
		evbuffer_drain(st->rin, used);
		if (r == HTTP_ERROR)
			return (-1);
		if (r == HTTP_MORE)
			continue;
		if (st->resp->h.code < 200) {
			/* 100 Continue and such: not passed on */
			head_put(st->resp);
			st->resp = NULL;
			continue;
		}
		st->reusable = http_head_persistent(&st->resp->h);
		r = h2_submit_head(st, &st->resp->h, NULL, NULL);
		head_put(st->resp);
		st->resp = NULL;
		if (r != 0)
			return (-1);
	}
	return (h2_stream_body(st));
}

/*
 * Both ways done, the answer complete and the pseudo-connection idle and
 * alive: into the pool for the next stream.
 */
static void
h2_stream_release(struct h2_stream *st)
{
	struct h2_session	*s = st->sess;
	struct gw_conn		*pc = st->pc;

	if (pc == NULL || !st->reusable || st->eof || !st->respdone ||
	    !st->reqdone || st->h2c || pc->state != CONN_IDLE ||
	    pc->close_after || evbuffer_get_length(pc->in) > 0 ||
	    evbuffer_get_length(pc->out) > 0 ||
	    evbuffer_get_length(st->rin) > 0 || s->npool >= H2_POOL)
		return;
	h2_stream_window(st);
	if (pc->respchunk.trbuf == st->trbuf)
		pc->respchunk.trbuf = NULL;
	pc->h2st = NULL;
	pc->h2pool = s;
	s->pool[s->npool++] = pc;
	st->pc = NULL;
}

/* a pooled pseudo-connection closed: out of the pool */
static void
h2_pool_remove(struct gw_conn *c)
{
	struct h2_session	*s = c->h2pool;
	unsigned int		 i;

	c->h2pool = NULL;
	for (i = 0; i < s->npool; i++)
		if (s->pool[i] == c) {
			s->pool[i] = s->pool[--s->npool];
			return;
		}
}

/* fields a trailer section may not carry to an HTTP/2 client */
static int
h2_trailer_banned(const char *name, size_t len)
{
	static const char	*banned[] = {
		"connection", "content-length", "host", "keep-alive",
		"proxy-connection", "te", "trailer", "transfer-encoding",
		"upgrade"
	};
	size_t			 i;

	for (i = 0; i < nitems(banned); i++)
		if (strlen(banned[i]) == len &&
		    strncasecmp(banned[i], name, len) == 0)
			return (1);
	return (0);
}

/*
 * The trailer section the decoder copied (h2_stream_trailers()), checked
 * by it already: its fields, lower case, values without their OWS, kept
 * for the HEADERS frame that ends the stream (h2_data_read()).
 */
static void
h2_stream_trailer_fields(struct h2_stream *st, struct gw_conn *pc)
{
	const char	*p, *end, *nl, *colon, *v, *vend;
	char		 name[256];
	size_t		 len, i;

	if (st->trbuf == NULL || pc->respchunk.trbuf != st->trbuf ||
	    pc->respchunk.trlen == 0)
		return;
	if (st->rtrl == NULL && (st->rtrl = evbuffer_new()) == NULL)
		return;
	p = st->trbuf;
	end = p + pc->respchunk.trlen;
	while (p < end && (nl = memchr(p, '\n', end - p)) != NULL) {
		len = nl - p;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		colon = memchr(p, ':', len);
		if (colon != NULL && colon > p &&
		    (size_t)(colon - p) < sizeof(name) &&
		    !h2_trailer_banned(p, colon - p)) {
			for (i = 0; i < (size_t)(colon - p); i++)
				name[i] = tolower((unsigned char)p[i]);
			v = colon + 1;
			vend = p + len;
			while (v < vend && (*v == ' ' || *v == '\t'))
				v++;
			while (vend > v &&
			    (vend[-1] == ' ' || vend[-1] == '\t'))
				vend--;
			(void)h2up_keep(st->rtrl, name, colon - p, v, vend - v);
		}
		p = nl + 1;
	}
}

/*
 * A chunked answer to a client that takes trailers (it sent "TE:
 * trailers", as gRPC's do): the decoder keeps the trailer section, bounded
 * by HTTP_TRAILER_MAX, to go out as a last HEADERS frame.  An HTTP/1.1
 * client gets none, nor does an HTTP/2 client that did not ask.
 */
void
h2_stream_trailers(struct gw_conn *pc)
{
	struct h2_stream	*st = pc->h2st;

	if (st == NULL || !st->te_trailers || !st->direct)
		return;
	if (st->trbuf == NULL &&
	    (st->trbuf = malloc(HTTP_TRAILER_MAX)) == NULL)
		return;
	pc->respchunk.trbuf = st->trbuf;
	pc->respchunk.trcap = HTTP_TRAILER_MAX;
}

/*
 * The body of an answer whose head went out as HEADERS (h2_stream_head):
 * the pseudo-connection's output is its bytes as they are, complete when
 * the pseudo-connection's answer is.
 */
static int
h2_stream_direct(struct h2_stream *st, struct gw_conn *pc)
{
	if (evbuffer_add_buffer(st->out, pc->out) == -1)
		return (-1);
	if (pc->respdone) {
		st->respdone = 1;
		h2_stream_trailer_fields(st, pc);
	} else if (st->eof)
		return (-1);	/* cut short */
	if (st->deferred && (evbuffer_get_length(st->out) > 0 ||
	    st->respdone)) {
		st->deferred = 0;
		(void)nghttp2_session_resume_data(st->sess->ng, st->id);
	}
	return (0);
}

/*
 * What the pseudo-connection answered, or its end: into HEADERS and
 * DATA.  A broken answer before its head gets 502, after it the stream
 * is reset; either way the rest of it is not read.
 */
static void
h2_stream_process(struct h2_stream *st, struct gw_conn *pc)
{
	struct h2_session	*s = st->sess;
	int			 r;
	static const nghttp2_nv	 bad[] = {
		{ (uint8_t *)":status", (uint8_t *)"502", 7, 3,
		    NGHTTP2_NV_FLAG_NONE }
	};

	if (st->direct)
		r = h2_stream_direct(st, pc);
	else {
		if (evbuffer_add_buffer(st->rin, pc->out) == -1)
			evbuffer_drain(pc->out, evbuffer_get_length(pc->out));
		r = h2_stream_answer(st);
	}
	if (r == -1) {
		evbuffer_drain(st->rin, evbuffer_get_length(st->rin));
		if (!st->submitted) {
			st->submitted = 1;
			(void)nghttp2_submit_response(s->ng, st->id, bad,
			    nitems(bad), NULL);
		} else
			(void)nghttp2_submit_rst_stream(s->ng,
			    NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
		st->respdone = 1;
	}
	h2_stream_release(st);
	h2_send_later(s);
}

/*
 * The pseudo-connection's output (conn.c, from the loop): its answer is
 * taken while the stream holds less than H2_BODY_HIGH of it, the rest
 * waits there, and h2_data_read() asks for it again when there is room.
 * Output for a stream that h2up.c answers, or that is answered, is not
 * the client's.
 */
void
h2_stream_take(struct gw_conn *pc)
{
	struct h2_stream	*st = pc->h2st;

	if (st == NULL || st->up != NULL || st->respdone) {
		evbuffer_drain(pc->out, evbuffer_get_length(pc->out));
		if (st != NULL && st->up == NULL) {
			/* a head without a body, submitted, goes now */
			h2_stream_release(st);
			h2_send_later(st->sess);
		}
		return;
	}
	if (evbuffer_get_length(st->out) >= H2_BODY_HIGH)
		return;
	h2_stream_process(st, pc);
}

/*
 * The size the answer's head would have in HTTP/1.1, for the access
 * log's bytes out: a stream's head goes out as HEADERS, never as text,
 * and the line counts it as over HTTP/1.1 (orchd.conf.5).
 */
static size_t
h2_head_size(const struct http_head *h, const char *timing, const char *hsts)
{
	const struct http_field	*f;
	size_t			 i, n;

	/* the status line, its reason, and the blank line at the end */
	n = sizeof("HTTP/1.1 200 \r\n") - 1 + h->reasonlen + 2;
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if ((f->flags & (HTTP_FIELD_HOP | HTTP_FIELD_DROP)) == 0)
			n += f->namelen + 2 + f->valuelen + 2;
	}
	if (timing != NULL)
		n += sizeof("Server-Timing: \r\n") - 1 + strlen(timing);
	if (hsts != NULL)
		n += sizeof("Strict-Transport-Security: \r\n") - 1 +
		    strlen(hsts);
	return (n);
}

/*
 * The final answer's head from the proxy (proxy.c), parsed: HEADERS
 * without its HTTP/1.1 text made and read again; the body follows as the
 * pseudo-connection's output, without framing.  The frame goes out with
 * what the proxy flushes next (h2_stream_take()): a head it holds for the
 * body's first bytes goes out with them, as over HTTP/1.1.
 */
int
h2_stream_head(struct gw_conn *pc, struct http_head *h, const char *timing,
    const char *hsts)
{
	struct h2_stream	*st = pc->h2st;

	if (st == NULL || st->submitted || st->up != NULL)
		return (-1);
	st->direct = 1;
	st->reusable = pc->keepalive;
	pc->tx_total += h2_head_size(h, timing, hsts);
	if (h2_submit_head(st, h, timing, hsts) != 0) {
		st->respdone = 1;
		(void)nghttp2_submit_rst_stream(st->sess->ng,
		    NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
		h2_send_later(st->sess);
	}
	return (0);
}

/* the pseudo-connection reads again (conn.c): the window with it */
void
h2_stream_reading(struct gw_conn *pc)
{
	if (pc->h2st != NULL)
		h2_stream_window(pc->h2st);
}

/* the pseudo-connection closed: what it wrote last, then the end */
static void
h2_stream_eof(struct h2_stream *st, struct gw_conn *pc)
{
	st->pc = NULL;
	st->eof = 1;
	h2_stream_window(st);
	if (st->up != NULL || st->respdone)
		return;
	h2_stream_process(st, pc);
}

static void
h2_stream_free(struct h2_stream *st)
{
	struct gw_conn	*pc;

	if (st->sess != NULL) {
		TAILQ_REMOVE(&st->sess->streams, st, entry);
		st->sess->nstreams--;
		if (st->ready)
			st->sess->nready--;
	}
	h2up_free(st);
	if ((pc = st->pc) != NULL) {
		/* its request is over */
		st->pc = NULL;
		pc->h2st = NULL;
		pc->respchunk.trbuf = NULL;
		conn_close(pc);
	}
	free(st->trbuf);
	head_put(st->resp);
	free(st->method);
	free(st->path);
	free(st->authority);
	if (st->fields != NULL)
		evbuffer_free(st->fields);
	if (st->cookie != NULL)
		evbuffer_free(st->cookie);
	if (st->rin != NULL)
		evbuffer_free(st->rin);
	if (st->out != NULL)
		evbuffer_free(st->out);
	if (st->body_in != NULL)
		evbuffer_free(st->body_in);
	free(st);
}

static void
h2_session_free(struct gw_conn *c)
{
	struct h2_session	*s = c->h2;
	struct h2_stream	*st;
	struct gw_conn		*pc;

	if (s == NULL)
		return;
	c->h2 = NULL;
	c->ops = &h2_ended_ops;
	TAILQ_REMOVE(&h2_sessions, s, entry);
	event_del(&s->sendev);
	evtimer_del(&s->inev);
	while ((st = TAILQ_FIRST(&s->streams)) != NULL) {
		nghttp2_session_set_stream_user_data(s->ng, st->id, NULL);
		h2_stream_free(st);
	}
	while (s->npool > 0) {
		pc = s->pool[--s->npool];
		pc->h2pool = NULL;
		conn_close(pc);
	}
	nghttp2_session_del(s->ng);
	free(s);
}

static void
h2_send_cb(int fd, short event, void *arg)
{
	h2_send(arg);
}

/*
 * Frames to make after what a pseudo-connection did: from the loop, as
 * h2_send() may end the session, which the pseudo-connection must not
 * see under its feet.
 */
static void
h2_send_later(struct h2_session *s)
{
	event_active(&s->sendev, EV_TIMEOUT, 1);
}

/*
 * Frames out into the client's buffer, up to GW_BUF_HIGH: the rest is
 * made when it drains (h2_drained).  When the session is over (GOAWAY
 * both ways, or an error) the connection closes after the last byte.
 */
void
h2_send(struct h2_session *s)
{
	struct gw_conn	*c = s->c;
	const uint8_t	*data;
	ssize_t		 n;

	while (!s->dead && evbuffer_get_length(c->out) < GW_BUF_HIGH) {
		if ((n = nghttp2_session_mem_send(s->ng, &data)) < 0) {
			log_debug("%s: h2: %s", c->peer,
			    nghttp2_strerror((int)n));
			s->dead = 1;
			break;
		}
		if (n == 0)
			break;
		if (evbuffer_add(c->out, data, n) == -1) {
			s->dead = 1;
			break;
		}
	}
	if (!s->dead && !nghttp2_session_want_read(s->ng) &&
	    !nghttp2_session_want_write(s->ng))
		s->dead = 1;
	if (s->dead) {
		/* the streams' pseudo-connections end with them */
		h2_session_free(c);
		c->state = CONN_CLOSING;
		c->close_after = 1;
		conn_reading(c, 0);
		conn_flush(c);
		return;
	}
	/*
	 * A client that does not read its answers is not read either, nor
	 * one whose input waits for the next turn (h2_input()).
	 */
	conn_reading(c, evbuffer_get_length(c->out) < GW_BUF_HIGH &&
	    !s->backlog);
	/* "keepalive timeout 0" is for HTTP/1.1: one request, then close */
	if (s->nstreams == 0)
		conn_timer(c, gw->conf.keepalive_timeout > 0 ?
		    gw->conf.keepalive_timeout : gw->conf.header_timeout);
	conn_flush(c);
}

static int
h2_init(void)
{
	if (h2_cbs != NULL)
		return (0);
	if (nghttp2_session_callbacks_new(&h2_cbs) != 0 ||
	    nghttp2_option_new(&h2_opt) != 0)
		return (-1);
	nghttp2_session_callbacks_set_on_begin_headers_callback(h2_cbs,
	    h2_on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(h2_cbs,
	    h2_on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(h2_cbs,
	    h2_on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h2_cbs,
	    h2_on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(h2_cbs,
	    h2_on_stream_close);
	nghttp2_session_callbacks_set_on_frame_send_callback(h2_cbs,
	    h2_on_frame_send);
	nghttp2_option_set_no_auto_window_update(h2_opt, 1);
	nghttp2_option_set_max_continuations(h2_opt, H2_CONTINUATIONS);
	nghttp2_option_set_max_outbound_ack(h2_opt, H2_OUTBOUND_ACKS);
	nghttp2_option_set_max_settings(h2_opt, 32);
	nghttp2_option_set_stream_reset_rate_limit(h2_opt, H2_RESET_BURST,
	    H2_RESET_RATE);
	return (0);
}

/* the connection turns HTTP/2: a session, our SETTINGS */
static int
h2_start(struct gw_conn *c)
{
	struct h2_session	*s;
	nghttp2_settings_entry	 iv[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 0 },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HTTP_SECTION_MAX },
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 }
	};

	iv[0].value = gw->conf.h2_max_streams;
	if (h2_stopping || h2_init() == -1 ||
	    (s = calloc(1, sizeof(*s))) == NULL)
		return (-1);
	TAILQ_INIT(&s->streams);
	s->c = c;
	s->send = h2_send;
	event_set(&s->sendev, -1, 0, h2_send_cb, s);
	evtimer_set(&s->inev, h2_input_cb, s);
	if (nghttp2_session_server_new2(&s->ng, h2_cbs, s, h2_opt) != 0) {
		free(s);
		return (-1);
	}
	if (nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, iv,
	    nitems(iv)) != 0 ||
	    nghttp2_session_set_local_window_size(s->ng, NGHTTP2_FLAG_NONE, 0,
	    H2_CONN_WINDOW) != 0) {
		nghttp2_session_del(s->ng);
		free(s);
		return (-1);
	}
	TAILQ_INSERT_TAIL(&h2_sessions, s, entry);
	c->h2conn = 1;
	h2_conns++;
	c->h2 = s;
	c->ops = &h2_session_ops;
	c->state = CONN_H2;
	c->fresh = 0;
	log_debug("%s: http/2", c->peer);
	return (0);
}

/*
 * Input on a client connection: 1 when HTTP/2 took it (or waits for the
 * rest of a preface), 0 when it is HTTP/1.1's to parse.
 */
int
h2_input(struct gw_conn *c)
{
	struct h2_session	*s = c->h2;
	struct evbuffer_iovec	 v;
	ssize_t			 n;
	int			 r;

	if (s == NULL) {
		if (c->state != CONN_IDLE || !c->fresh)
			return (0);
		if ((r = h2_detect(c)) == 0)
			return (0);
		if (r == -1) {
			if (c->eof)
				conn_close(c);
			return (1);
		}
		if (h2_start(c) == -1) {
			log_warnx("%s: h2: no session", c->peer);
			conn_close(c);
			return (1);
		}
		s = c->h2;
	}
	s->turn = 0;
	s->backlog = 0;
	while (!s->dead && evbuffer_get_length(c->in) > 0) {
		if (s->turn > H2_TURN_STREAMS) {
			h2_input_later(s);
			break;
		}
		if (evbuffer_peek(c->in, -1, NULL, &v, 1) < 1)
			break;
		n = nghttp2_session_mem_recv(s->ng, v.iov_base, v.iov_len);
		if (n < 0) {
			log_debug("%s: h2: %s", c->peer,
			    nghttp2_strerror((int)n));
			/* a GOAWAY says why, if the library made one */
			(void)nghttp2_session_terminate_session(s->ng,
			    n == NGHTTP2_ERR_FLOODED || s->calm ?
			    NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
			evbuffer_drain(c->in, evbuffer_get_length(c->in));
			break;
		}
		evbuffer_drain(c->in, n);
		h2_begin_ready(s);
	}
	if (c->eof && !s->backlog) {
		h2_session_free(c);
		conn_close(c);
		return (1);
	}
	h2_send(s);
	return (1);
}

/*
 * The connection has begun its H2_TURN_STREAMS streams this turn: the
 * rest of its input waits in c->in for the next turn, after the other
 * connections ready now (a timer of no delay runs after the poll, where
 * event_active() would run before it), and the socket is not read
 * until the backlog is taken (h2_send()).  So a client that opens and
 * resets streams as fast as it can (CVE-2023-44487) takes no more of a
 * turn than another client's streams do.
 */
static void
h2_input_later(struct h2_session *s)
{
	struct timeval	 now = { 0, 0 };

	s->backlog = 1;
	evtimer_add(&s->inev, &now);
}

static void
h2_input_cb(int fd, short event, void *arg)
{
	struct h2_session	*s = arg;

	(void)h2_input(s->c);
}

/* the client's buffer drained: more frames */
void
h2_drained(struct gw_conn *c)
{
	if (c->h2 != NULL)
		h2_send(c->h2);
}

void
h2_conn_closed(struct gw_conn *c)
{
	struct h2_stream	*st;

	if ((st = c->h2st) != NULL) {
		c->h2st = NULL;
		h2_stream_eof(st, c);
	}
	if (c->h2pool != NULL)
		h2_pool_remove(c);
	h2_session_free(c);
	if (c->h2conn) {
		c->h2conn = 0;
		/* the last one closed: the gateway may stop (h2_stop()) */
		if (--h2_conns == 0 && h2_stopping)
			event_loopbreak();
	}
}

/*
 * proxy_start() of a pseudo-connection: 1 when its stream goes to an
 * "upstream h2c" workload, which h2up.c then talks to; the pseudo-
 * connection stays, counted in flight, until the stream ends.
 */
int
h2_proxy_start(struct gw_conn *c)
{
	struct h2_stream	*st = c->h2st;

	if (st == NULL || !st->h2c || !c->wl->configured || !c->wl->h2c)
		return (0);
	head_put(c->req);
	c->req = NULL;
	c->state = CONN_H2;
	c->deadline = 0;
	evtimer_del(&c->timer);
	/* in flight to this instance until the stream ends (instance.c) */
	c->up.epoch = c->wl->epoch;
	instance_bind(c);
	if (h2up_start(st) == -1) {
		conn_error(c, 502, "upstream h2c");
		return (1);
	}
	return (1);
}

/*
 * A graceful GOAWAY: the streams the session took so far are answered,
 * no new one is, and the connection closes after the last (h2_send(), as
 * nghttp2 then wants neither to read nor to write).
 */
static void
h2_goaway(struct h2_session *s)
{
	if (s->dead || s->goaway)
		return;
	s->goaway = 1;
	if (nghttp2_submit_goaway(s->ng, NGHTTP2_FLAG_NONE,
	    nghttp2_session_get_last_proc_stream_id(s->ng), NGHTTP2_NO_ERROR,
	    NULL, 0) != 0)
		s->dead = 1;
	h2_send(s);
}

/* a listener the configuration no longer has: its sessions end */
void
h2_listener_gone(struct gw_listener *l)
{
	struct h2_session	*s, *next;

	for (s = TAILQ_FIRST(&h2_sessions); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (s->c->listener == l)
			h2_goaway(s);
	}
}

/*
 * The gateway stops: every session ends gracefully, and no new one
 * begins.  The number of HTTP/2 connections still open is returned; the
 * event loop ends when the last one has closed (h2_conn_closed()), or
 * at the caller's bound.
 */
unsigned int
h2_stop(void)
{
	struct h2_session	*s, *next;

	h2_stopping = 1;
	for (s = TAILQ_FIRST(&h2_sessions); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		h2_goaway(s);
	}
	return (h2_conns);
}

/* the session's connection: all it reads is frames */
static void
h2_session_read(struct gw_conn *c)
{
	(void)h2_input(c);
}

static const struct conn_ops h2_session_ops = {
	.on_read = h2_session_read,
	.on_drained = h2_drained,
	.on_close = h2_conn_closed
};

/* the session is over, its connection closing: counted until closed */
static const struct conn_ops h2_ended_ops = {
	.on_close = h2_conn_closed
};

/* a stream's pseudo-connection: its bytes go through the session */
static const struct conn_stream_ops h2_stream_sops = {
	.on_take = h2_stream_take,
	.on_reading = h2_stream_reading,
	.on_close = h2_conn_closed
};
