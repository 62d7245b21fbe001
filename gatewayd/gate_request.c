/*
 * "auth request URL": forward auth, as nginx's auth_request, Traefik's
 * ForwardAuth and oauth2-proxy's /oauth2/auth have it.  The gateway
 * asks the auth service, over plain HTTP to a numeric address, as it
 * reaches a workload (non-blocking, on its own event loop):
 *
 *	GET PATH HTTP/1.1
 *	Host, X-Forwarded-Method, X-Forwarded-Proto, X-Forwarded-Host,
 *	X-Forwarded-Uri, X-Forwarded-For, the client's Cookie and
 *	Authorization, Connection: close
 *
 * and decides by the status of its answer:
 *	2xx		the request goes on, with the fields "headers { }"
 *			names copied from the answer into it (the client's
 *			own of those names left out);
 *	401, 403, 301, 302, 303, 307, 308
 *			the answer goes back to the client: its status,
 *			Location, Set-Cookie, WWW-Authenticate, Content-Type
 *			and at most GATE_BODY_MAX bytes of its body, so that
 *			the service's login redirect works;
 *	anything else, a bad answer, one cut short
 *			502 (the service failed);
 *	no connection	503 (the service is down);
 *	no answer within the "timeout" (WL_AUTH_TIMEOUT seconds if none)
 *			504.
 * With "cache DURATION", a 2xx is remembered for that long, keyed by a
 * keyed hash of the client's Cookie and Authorization (gate_cache.c),
 * with the fields it copied.  Nothing of the service's answer but those
 * fields reaches the workload.  At most GATE_REQUEST_MAX questions are
 * under way at once; past that a request is answered 503 at once.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <errno.h>
#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "timer.h"
#include "gateway.h"
#include "gatecheck.h"

struct gate_up {
	struct gw_conn		*c;
	int			 fd;
	struct event		 rev;
	struct event		 wev;
	struct evbuffer		*out;
	struct evbuffer		*in;
	struct gw_head		*resp;		/* its head, parsed */
	int			 head_done;
};

static unsigned int	gate_nup;	/* questions under way */

static void	gate_up_read(int, short, void *);
static void	gate_up_write(int, short, void *);

static void
gate_up_free(struct gate_up *up)
{
	if (up->fd != -1) {
		event_del(&up->rev);
		event_del(&up->wev);
		close(up->fd);
		gw->nups--;
	}
	if (up->out != NULL)
		evbuffer_free(up->out);
	if (up->in != NULL)
		evbuffer_free(up->in);
	if (up->resp != NULL)
		head_put(up->resp);
	free(up);
	gate_nup--;
}

void
gate_request_cancel(struct gw_conn *c)
{
	if (c->gate != NULL && c->gate->up != NULL) {
		gate_up_free(c->gate->up);
		c->gate->up = NULL;
	}
}

/* the service's answer is no use: 502, 503 or 504 of ours */
static void
gate_up_fail(struct gw_conn *c, int status, const char *why)
{
	gate_request_cancel(c);
	gate_refuse(c, status, status == 503 ? "Retry-After: 5\r\n" : NULL,
	    why);
}

void
gate_request_timeout(struct gw_conn *c)
{
	gate_up_fail(c, 504, "auth-timeout");
}

/* name: value into a, if it fits and the value is plain text */
static int
gate_add_field(struct gate_add *a, const char *name, size_t nlen,
    const char *value, size_t vlen)
{
	size_t	 i;

	for (i = 0; i < vlen; i++)
		if (((unsigned char)value[i] < ' ' && value[i] != '\t') ||
		    value[i] == 0x7f)
			return (-1);
	if (a->n >= nitems(a->f) || a->len + nlen + vlen + 2 > sizeof(a->buf))
		return (-1);
	a->f[a->n].name = a->buf + a->len;
	memcpy(a->buf + a->len, name, nlen);
	a->len += nlen;
	a->buf[a->len++] = '\0';
	a->f[a->n].value = a->buf + a->len;
	memcpy(a->buf + a->len, value, vlen);
	a->len += vlen;
	a->buf[a->len++] = '\0';
	a->n++;
	return (0);
}

/* the client's own fields of the names added are left out */
static void
gate_add_apply(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	size_t			 i, j;

	for (i = 0; c->gate_add != NULL && i < c->gate_add->n; i++)
		for (j = 0; j < h->nfields; j++)
			if (strcasecmp(h->fields[j].name,
			    c->gate_add->f[i].name) == 0)
				h->fields[j].flags |= HTTP_FIELD_DROP;
}

/* a cached 2xx's fields, "name\0value\0" each, back into c->gate_add */
static int
gate_add_from(struct gw_conn *c, const char *v, size_t len)
{
	const char	*name, *value, *end = v + len;
	size_t		 nlen, vlen;

	if (len == 0)
		return (0);
	if ((c->gate_add = calloc(1, sizeof(*c->gate_add))) == NULL)
		return (-1);
	while (v < end) {
		name = v;
		nlen = strnlen(name, end - name);
		if ((value = name + nlen + 1) >= end)
			return (-1);
		vlen = strnlen(value, end - value);
		if (gate_add_field(c->gate_add, name, nlen, value, vlen) == -1)
			return (-1);
		v = value + vlen + 1;
	}
	return (0);
}

/* 2xx: the fields the operator named, then on */
static void
gate_up_passed(struct gw_conn *c, const struct http_head *rh)
{
	const struct workload_conf	*wc = c->wl->def;
	const struct http_field		*f;
	const struct strentry		*e;
	int64_t				 ms;

	/*
	 * A reload while it waited changed the workload's gate: the
	 * answer is to a question no longer asked, and nothing passes on
	 * it (fail closed; the client asks again)
	 */
	if (c->gate->gen != gate_generation()) {
		gate_up_fail(c, 503, "reloaded");
		return;
	}
	ms = c->wl->gate->cache_ms;
	/* rh is the service's answer's: done with it before it goes */
	TAILQ_FOREACH(e, &wc->auth_headers, entry) {
		if ((f = http_head_find(rh, e->str)) == NULL)
			continue;
		if (c->gate_add == NULL &&
		    (c->gate_add = calloc(1, sizeof(*c->gate_add))) == NULL) {
			gate_up_fail(c, 503, "out-of-memory");
			return;
		}
		if (gate_add_field(c->gate_add, e->str, strlen(e->str),
		    f->value, f->valuelen) == -1)
			log_debug("%s: auth request: %s not copied", c->peer,
			    e->str);
	}
	gate_request_cancel(c);
	if (ms > 0 && c->gate->cached)
		gate_cache_put(1, c->gate->key, monotime_ms() + ms,
		    c->gate_add != NULL ? c->gate_add->buf : "",
		    c->gate_add != NULL ? c->gate_add->len : 0);
	gate_add_apply(c);
	gate_continue(c);
}

/* fields named "name" of rh into extra, as many as fit */
static void
gate_up_extra(const struct http_head *rh, const char *name, char *extra,
    size_t len)
{
	const struct http_field	*f;
	size_t			 i, n;

	for (i = 0; i < rh->nfields; i++) {
		f = &rh->fields[i];
		if (strcasecmp(f->name, name) != 0)
			continue;
		n = strlen(extra);
		if (n + strlen(name) + f->valuelen + 5 > len)
			return;
		(void)snprintf(extra + n, len - n, "%s: %.*s\r\n", name,
		    (int)f->valuelen, f->value);
	}
}

/* 401, 403, 3xx: the service's answer, to the client */
static void
gate_up_relay(struct gw_conn *c, const struct http_head *rh)
{
	const struct http_field	*ct;
	char			 extra[GATE_EXTRA_MAX], ctype[256];
	char			 body[GATE_BODY_MAX];
	size_t			 n;
	int			 status = rh->code;

	extra[0] = '\0';
	gate_up_extra(rh, "Location", extra, sizeof(extra));
	gate_up_extra(rh, "WWW-Authenticate", extra, sizeof(extra));
	gate_up_extra(rh, "Set-Cookie", extra, sizeof(extra));
	if ((ct = http_head_find(rh, "Content-Type")) != NULL &&
	    ct->valuelen < sizeof(ctype))
		(void)snprintf(ctype, sizeof(ctype), "%.*s",
		    (int)ct->valuelen, ct->value);
	else
		(void)strlcpy(ctype, "text/plain", sizeof(ctype));
	n = MINIMUM(evbuffer_get_length(c->gate->up->in), sizeof(body));
	if (rh->body == HTTP_BODY_LENGTH)
		n = MINIMUM(n, rh->content_length);
	else if (rh->body != HTTP_BODY_CLOSE)
		n = 0;
	evbuffer_remove(c->gate->up->in, body, n);
	gate_request_cancel(c);
	gate_refuse_body(c, status, extra, ctype, body, n,
	    status == 401 ? "request-401" : status == 403 ? "request-403" :
	    "request-redirect");
}

static int
gate_relayed(int code)
{
	return (code == 401 || code == 403 || code == 301 || code == 302 ||
	    code == 303 || code == 307 || code == 308);
}

/* the head is read: enough of the body too? 1 when done with it */
static int
gate_up_body_done(struct gate_up *up, int eof)
{
	const struct http_head	*rh = &up->resp->h;
	size_t			 have = evbuffer_get_length(up->in);

	if (!gate_relayed(rh->code))
		return (1);
	switch (rh->body) {
	case HTTP_BODY_LENGTH:
		return (eof || have >= MINIMUM(rh->content_length,
		    GATE_BODY_MAX));
	case HTTP_BODY_CLOSE:
		return (eof || have >= GATE_BODY_MAX);
	default:
		return (1);
	}
}

static void
gate_up_decide(struct gw_conn *c)
{
	const struct http_head	*rh = &c->gate->up->resp->h;

	if (rh->code >= 200 && rh->code < 300)
		gate_up_passed(c, rh);
	else if (gate_relayed(rh->code))
		gate_up_relay(c, rh);
	else
		gate_up_fail(c, 502, rh->code >= 500 ? "request-5xx" :
		    "request-error");
}

static void
gate_up_read(int fd, short event, void *arg)
{
	struct gw_conn		*c = arg;
	struct gate_up		*up = c->gate->up;
	struct evbuffer_iovec	 v;
	size_t			 used;
	int			 n, r = HTTP_MORE;

	if ((n = buf_read(up->in, fd)) == -1 && (errno == EAGAIN ||
	    errno == EINTR))
		return;
	if (n == -1) {
		gate_up_fail(c, up->head_done ? 502 : 503, "auth-down");
		return;
	}
	while (!up->head_done && evbuffer_get_length(up->in) > 0) {
		if (evbuffer_peek(up->in, -1, NULL, &v, 1) < 1)
			break;
		r = http_head_feed(&up->resp->h, v.iov_base, v.iov_len, &used);
		evbuffer_drain(up->in, used);
		if (r == HTTP_ERROR) {
			gate_up_fail(c, 502, "request-error");
			return;
		}
		if (r == HTTP_DONE && up->resp->h.code >= 200)
			up->head_done = 1;
		else if (r == HTTP_DONE)	/* 1xx: the next head */
			http_resp_init(&up->resp->h, up->resp->buf,
			    sizeof(up->resp->buf), HTTP_M_GET);
	}
	if (!up->head_done) {
		if (n == 0)
			gate_up_fail(c, 502, "request-error");
		return;
	}
	if (gate_up_body_done(up, n == 0))
		gate_up_decide(c);
	else if (n == 0)
		gate_up_fail(c, 502, "request-error");
}

static void
gate_up_write(int fd, short event, void *arg)
{
	struct gw_conn	*c = arg;
	struct gate_up	*up = c->gate->up;

	if (evbuffer_write(up->out, fd) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		gate_up_fail(c, 503, "auth-down");
		return;
	}
	if (evbuffer_get_length(up->out) == 0)
		event_del(&up->wev);
}

/* the question, with the client's request in X-Forwarded-* */
static int
gate_up_question(struct gw_conn *c, struct gate_up *up)
{
	const struct gw_gate	*g = c->wl->gate;
	const struct http_head	*h = &c->req->h;
	const struct http_field	*f;
	size_t			 i;
	int			 r;

	r = evbuffer_add_printf(up->out, "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "X-Forwarded-Method: %.*s\r\nX-Forwarded-Proto: %s\r\n"
	    "X-Forwarded-Host: %.*s\r\nX-Forwarded-Uri: %.*s\r\n"
	    "X-Forwarded-For: %s\r\nConnection: close\r\n", g->path,
	    g->hostport, (int)h->methodlen, h->method,
	    c->listener->conf.tls ? "https" : "http",
	    (int)h->authoritylen, h->authority != NULL ? h->authority : "",
	    h->pathlen > 0 ? (int)h->pathlen : 1,
	    h->pathlen > 0 ? h->path : "/", c->peer);
	for (i = 0; r != -1 && i < h->nfields; i++) {
		f = &h->fields[i];
		if (strcasecmp(f->name, "Cookie") == 0 ||
		    strcasecmp(f->name, "Authorization") == 0)
			r = evbuffer_add_printf(up->out, "%s: %s\r\n", f->name,
			    f->value);
	}
	if (r != -1)
		r = evbuffer_add(up->out, "\r\n", 2);
	return (r == -1 ? -1 : 0);
}

/*
 * The cache's key: the workload and its auth URL (two workloads asking
 * one service may be told apart by it, and copy other fields), and the
 * client's Cookie and Authorization.  -1, not to be cached, when either
 * field comes more than once: the service is sent every one of them,
 * and a key of the first alone would let a client holding only that
 * one in on another's answer.
 */
static int
gate_request_key(struct gw_conn *c, uint8_t *key)
{
	const struct http_head	*h = &c->req->h;
	const struct http_field	*ck, *az;
	char			 what[ORCHD_NAME_MAX + WL_AUTH_URL_MAX + 2];
	size_t			 i, nck = 0, naz = 0;

	for (i = 0; i < h->nfields; i++) {
		if (strcasecmp(h->fields[i].name, "Cookie") == 0)
			nck++;
		else if (strcasecmp(h->fields[i].name, "Authorization") == 0)
			naz++;
	}
	if (nck > 1 || naz > 1)
		return (-1);
	if ((size_t)snprintf(what, sizeof(what), "%s %s", c->wl->name,
	    c->wl->def->auth_request) >= sizeof(what))
		return (-1);
	ck = http_head_find(h, "Cookie");
	az = http_head_find(h, "Authorization");
	gate_cache_key(key, what,
	    ck != NULL ? ck->value : "", ck != NULL ? ck->valuelen : 0,
	    az != NULL ? az->value : "", az != NULL ? az->valuelen : 0);
	return (0);
}

void
gate_request_start(struct gw_conn *c)
{
	const struct gw_gate	*g = c->wl->gate;
	struct gate_up		*up;
	const char		*val;
	size_t			 len;
	uint8_t			 key[32];
	int			 cached;

	cached = g->cache_ms > 0 && gate_request_key(c, key) == 0;
	if (cached) {
		if (gate_cache_find(1, key, monotime_ms(), &val, &len)) {
			if (gate_add_from(c, val, len) == -1) {
				gate_refuse(c, 503, "Retry-After: 1\r\n",
				    "out-of-memory");
				return;
			}
			gate_add_apply(c);
			gate_continue(c);
			return;
		}
	}
	/* a flood of strangers costs the auth service a bounded load */
	if (gate_nup >= GATE_REQUEST_MAX) {
		gate_refuse(c, 503, "Retry-After: 1\r\n", "request-busy");
		return;
	}
	if ((c->gate = calloc(1, sizeof(*c->gate))) == NULL ||
	    (up = calloc(1, sizeof(*up))) == NULL) {
		gate_refuse(c, 503, "Retry-After: 1\r\n", "out-of-memory");
		return;
	}
	gate_nup++;
	c->gate->kind = GATE_WAIT_REQUEST;
	c->gate->gen = gate_generation();
	c->gate->cached = cached;
	if (cached)
		memcpy(c->gate->key, key, sizeof(key));
	c->gate->up = up;
	up->c = c;
	up->fd = -1;
	if ((up->out = evbuffer_new()) == NULL ||
	    (up->in = evbuffer_new()) == NULL ||
	    (up->resp = head_get()) == NULL ||
	    gate_up_question(c, up) == -1) {
		gate_up_fail(c, 503, "out-of-memory");
		return;
	}
	http_resp_init(&up->resp->h, up->resp->buf, sizeof(up->resp->buf),
	    HTTP_M_GET);
	if (gw->nconns + gw->nups >= gw->fdmax)
		(void)conn_evict_idle();
	if ((up->fd = socket(g->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		gate_up_fail(c, 503, "auth-down");
		return;
	}
	gw->nups++;
	event_set(&up->rev, up->fd, EV_READ | EV_PERSIST, gate_up_read, c);
	event_set(&up->wev, up->fd, EV_WRITE | EV_PERSIST, gate_up_write, c);
	if (connect(up->fd, (const struct sockaddr *)&g->addr,
	    g->addrlen) == -1 && errno != EINPROGRESS) {
		gate_up_fail(c, 503, "auth-down");
		return;
	}
	event_add(&up->wev, NULL);
	event_add(&up->rev, NULL);
	conn_timer_ms(c, g->timeout_ms);
}
