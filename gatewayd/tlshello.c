/*
 * A TLS connection before its handshake: its ClientHello is peeked at
 * (recv MSG_PEEK, the first record alone, CH_RECORD_MAX bytes, within
 * GW_HELLO_MS and the header timeout) and parsed (clienthello.c), and the
 * server context is chosen by the name it asks for:
 *
 *   - ALPN "acme-tls/1" for a host with a tls-alpn-01 challenge pending:
 *     the challenge's context, and the connection ends after the
 *     handshake; with none pending, it ends at once;
 *   - a host with a certificate from ACME: that host's context;
 *   - else the listener's (its keypair and the "tls keypair"s, chosen by
 *     libtls from the same name), unless the listener is "tls acme" and
 *     none of them covers the host;
 *   - else, on a "tls acme" listener, a host that routes to a workload
 *     (the route table is the "ask") is held, not yet handshaken, while
 *     IMSG_ACME_WANT asks the parent (acmed) for its certificate, once
 *     per host while it is awaited; a host that routes nowhere is closed
 *     at once and asks for nothing.
 *
 * Held handshakes resume when the certificate comes (acme_recv.c), or
 * end cleanly (a close, before any TLS byte is sent) when the issuance
 * fails, after GW_ACME_WAIT seconds, or when the client leaves.  They
 * are bounded: GW_WANT_HOSTS hosts awaited, GW_HELD_HOST handshakes for
 * one, GW_HELD_MAX in all; past a bound a handshake is closed.  With
 * "prefork" each gateway asks for itself: acmed has one issuance a host.
 *
 * Malformed or truncated input, or none within the time, closes the
 * connection; nothing is ever answered before a context is chosen.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/tree.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"
#include "metrics.h"
#include "acme.h"
#include "clienthello.h"

struct gw_want {
	RB_ENTRY(gw_want)	 entry;
	char			 name[ORCHD_HOST_MAX];
	TAILQ_HEAD(, gw_conn)	 held;
	unsigned int		 nheld;
	struct event		 timer;
};

int		want_cmp(struct gw_want *, struct gw_want *);
RB_HEAD(gw_wants, gw_want);
RB_PROTOTYPE(gw_wants, gw_want, entry, want_cmp);
RB_GENERATE(gw_wants, gw_want, entry, want_cmp);

static struct gw_wants	 wants = RB_INITIALIZER(&wants);
static unsigned int	 nwants, nheld;
static int		 resuming;	/* a certificate came: no new hold */

static void	hello_read(struct gw_conn *);

int
want_cmp(struct gw_want *a, struct gw_want *b)
{
	return (strcmp(a->name, b->name));
}

static void
hello_accept(struct gw_conn *c)
{
	int64_t	 hdr = gw->conf.header_timeout * 1000;

	c->hello_end = conn_now_ms() + hdr;
	conn_hello_watch(c, 1);
	conn_timer_ms(c, MINIMUM(hdr, GW_HELLO_MS));
}

static void
hello_unhold(struct gw_conn *c)
{
	struct gw_want	*w = c->want;

	if (w == NULL)
		return;
	TAILQ_REMOVE(&w->held, c, entry);
	w->nheld--;
	nheld--;
	c->want = NULL;
}

static void
hello_close(struct gw_conn *c)
{
	hello_unhold(c);
}

static void
hello_drop(struct gw_conn *c)
{
	conn_close(c);
}

const struct conn_ops hello_ops = {
	.on_accept = hello_accept,
	.on_read = hello_read,
	.on_timeout = hello_drop,
	.on_hangup = hello_drop,
	.on_close = hello_close
};

/* tls-alpn-01: the handshake is all there is; any input after it ends it */
static const struct conn_ops alpn_ops = {
	.on_read = hello_drop,
	.on_timeout = hello_drop
};

/* the handshake on the context chosen, then HTTP as on any listener */
static void
hello_start(struct gw_conn *c, struct tls *srv, struct gw_tlsctx *x,
    const struct conn_ops *ops)
{
	int64_t	 left = c->hello_end - conn_now_ms();

	conn_hello_watch(c, 0);
	if (tls_conn_start(c, srv, x) == -1) {
		conn_close(c);
		return;
	}
	c->ops = ops;
	conn_reading(c, 1);
	/* the head's time runs from the accept, as on a plain listener */
	conn_timer_ms(c, MAXIMUM(left, 1));
}

static void
want_end(struct gw_want *w, int ok)
{
	struct gw_conn	*c;

	evtimer_del(&w->timer);
	RB_REMOVE(gw_wants, &wants, w);
	nwants--;
	resuming = 1;
	while ((c = TAILQ_FIRST(&w->held)) != NULL) {
		hello_unhold(c);
		if (ok)
			hello_read(c);	/* its ClientHello is still there */
		else
			conn_close(c);
	}
	resuming = 0;
	free(w);
}

static void
want_timeout(int fd, short event, void *arg)
{
	struct gw_want	*w = arg;

	log_info("acme: %s: no certificate within %d seconds, its held "
	    "handshakes end", w->name, GW_ACME_WAIT);
	want_end(w, 0);
}

/* a certificate (ok) or a failure for the host: its held handshakes go */
void
hello_resume(const char *name, int ok)
{
	struct gw_want	 key, *w;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name) ||
	    (w = RB_FIND(gw_wants, &wants, &key)) == NULL)
		return;
	want_end(w, ok);
}

static struct gw_want *
want_get(const char *name)
{
	struct gw_want		 key, *w;
	struct acme_host	 m;

	(void)strlcpy(key.name, name, sizeof(key.name));
	if ((w = RB_FIND(gw_wants, &wants, &key)) != NULL)
		return (w);
	if (nwants >= GW_WANT_HOSTS || (w = calloc(1, sizeof(*w))) == NULL)
		return (NULL);
	memset(&m, 0, sizeof(m));
	(void)strlcpy(m.name, name, sizeof(m.name));
	if (proc_compose(gw->ps, PROC_PARENT, IMSG_ACME_WANT, 0, -1, &m,
	    sizeof(m)) == -1) {
		free(w);
		return (NULL);
	}
	metrics_hello(GW_HELLO_WANTS);
	log_info("acme: %s: no certificate yet, asked for one", name);
	(void)strlcpy(w->name, name, sizeof(w->name));
	TAILQ_INIT(&w->held);
	evtimer_set(&w->timer, want_timeout, w);
	evtimer_add_ms(&w->timer, GW_ACME_WAIT * 1000);
	RB_INSERT(gw_wants, &wants, w);
	nwants++;
	return (w);
}

static void
hello_hold(struct gw_conn *c, const char *name)
{
	struct gw_want	*w;

	if (resuming || nheld >= GW_HELD_MAX || (w = want_get(name)) == NULL ||
	    w->nheld >= GW_HELD_HOST) {
		log_debug("%s: %s: not held", c->peer, name);
		conn_close(c);
		return;
	}
	TAILQ_INSERT_TAIL(&w->held, c, entry);
	w->nheld++;
	nheld++;
	c->want = w;
	metrics_hello(GW_HELLO_HELD);
	/* the want's timer ends it; this one only if that one is lost */
	conn_timer(c, GW_ACME_WAIT + 1);
}

static void
hello_choose(struct gw_conn *c, const struct clienthello *ch)
{
	struct gw_listener	*l = c->listener;
	struct gw_tlsctx	*x;
	const char		*name = ch->name;

	if (ch->alpn_acme) {
		if (name[0] != '\0' && (x = acme_alpn_ctx(name)) != NULL)
			hello_start(c, NULL, x, &alpn_ops);
		else
			conn_close(c);
		return;
	}
	if (name[0] != '\0' && (x = acme_cert_ctx(name,
	    l->conf.http2 != LISTENER_H2_OFF)) != NULL) {
		hello_start(c, NULL, x, &serve_ops);
		return;
	}
	if (l->tls != NULL && (!l->conf.acme || name[0] == '\0' ||
	    tls_listener_covers(l, name))) {
		hello_start(c, l->tls, NULL, &serve_ops);
		return;
	}
	if (!l->conf.acme || name[0] == '\0') {
		conn_close(c);
		return;
	}
	if (route_lookup(name, strlen(name)) == NULL) {
		metrics_hello(GW_HELLO_NOROUTE);
		log_debug("%s: %s routes nowhere: closed, no certificate "
		    "asked", c->peer, name);
		conn_close(c);
		return;
	}
	hello_hold(c, name);
}

/* the first record, peeked; more bytes are a new edge of the read event */
static void
hello_read(struct gw_conn *c)
{
	static uint8_t		 buf[CH_RECORD_MAX];
	struct clienthello	 ch;
	ssize_t			 n;

	if (c->want != NULL)
		return;		/* held: its bytes wait in the socket */
	n = recv(c->fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	switch (clienthello_parse(buf, n, &ch)) {
	case CH_MORE:
		return;
	case CH_BAD:
		metrics_hello(GW_HELLO_BAD);
		log_debug("%s: no ClientHello taken: closed", c->peer);
		conn_close(c);
		return;
	case CH_OK:
		hello_choose(c, &ch);
		return;
	}
}
