/*
 * TLS on the client side, with libtls.
 *
 * Certificates and keys never touch the gateway's file system: the
 * parent reads them and sends their bytes (IMSG_CFG_TLS, in pieces), and
 * each configuration generation builds one server context per TLS
 * listener, its own keypair first, then every "tls keypair" for SNI.
 * Once a context is built the bytes are zeroed; libtls keeps the keys
 * only inside OpenSSL's structures.
 *
 * Connection I/O is non-blocking: a read may need the socket writable
 * (a renegotiation, a handshake message) and a write may need it
 * readable.  Such an operation records the direction it waits for in
 * tls_rw or tls_wr and conn.c's event bookkeeping watches that direction
 * for it instead.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "gateway.h"

void
pem_clear(struct gw_pem *p)
{
	freezero(p->buf, p->total);
	memset(p, 0, sizeof(*p));
}

static void
pem_add(struct gw_pem *p, const struct cfg_tls *hdr, const uint8_t *data,
    size_t len)
{
	/* the parent sends each file whole and in order */
	if (hdr->total == 0 || hdr->total > ORCHD_TLS_FILE_MAX ||
	    len > hdr->total - hdr->off || hdr->off != p->len ||
	    (p->buf != NULL && p->total != hdr->total))
		fatalx("%s: piece %u+%zu of %u out of order", __func__,
		    hdr->off, len, hdr->total);
	if (p->buf == NULL) {
		if ((p->buf = malloc(hdr->total)) == NULL)
			fatal("%s", __func__);
		p->total = hdr->total;
	}
	memcpy(p->buf + p->len, data, len);
	p->len += len;
}

static struct gw_listener *
listener_nth(uint32_t n)
{
	struct gw_listener	*l;

	TAILQ_FOREACH(l, &gw->next_listeners, entry)
		if (n-- == 0)
			return (l);
	return (NULL);
}

void
tls_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_tls		 hdr;
	struct gw_listener	*l;
	struct gw_sni		*sni;
	const uint8_t		*data;
	size_t			 len = imsg_get_len(imsg);

	if (len < sizeof(hdr))
		fatalx("%s: short message", __func__);
	memcpy(&hdr, imsg->data, sizeof(hdr));
	data = (const uint8_t *)imsg->data + sizeof(hdr);
	len -= sizeof(hdr);
	switch (hdr.what) {
	case CFG_TLS_LISTENER_CERT:
	case CFG_TLS_LISTENER_KEY:
		if ((l = listener_nth(hdr.listener)) == NULL || !l->conf.tls)
			fatalx("%s: no TLS listener %u", __func__,
			    hdr.listener);
		pem_add(hdr.what == CFG_TLS_LISTENER_CERT ? &l->cert : &l->key,
		    &hdr, data, len);
		break;
	case CFG_TLS_SNI_CERT:
		if (hdr.off == 0) {
			if ((sni = calloc(1, sizeof(*sni))) == NULL)
				fatal("%s", __func__);
			TAILQ_INSERT_TAIL(&gw->next_sni, sni, entry);
		}
		if ((sni = TAILQ_LAST(&gw->next_sni, gw_snis)) == NULL)
			fatalx("%s: certificate piece without a start",
			    __func__);
		pem_add(&sni->cert, &hdr, data, len);
		break;
	case CFG_TLS_SNI_KEY:
		if ((sni = TAILQ_LAST(&gw->next_sni, gw_snis)) == NULL)
			fatalx("%s: key without a certificate", __func__);
		pem_add(&sni->key, &hdr, data, len);
		break;
	default:
		fatalx("%s: unknown piece %d", __func__, hdr.what);
	}
	/* imsg's buffer held key bytes too */
	explicit_bzero(imsg->data, imsg_get_len(imsg));
}

void
tls_sni_clear(void)
{
	struct gw_sni	*sni;

	while ((sni = TAILQ_FIRST(&gw->next_sni)) != NULL) {
		TAILQ_REMOVE(&gw->next_sni, sni, entry);
		pem_clear(&sni->cert);
		pem_clear(&sni->key);
		free(sni);
	}
}

/*
 * The listener's server context.  The parent checked the same bytes the
 * same way, so a failure here is unexpected; the listener then refuses
 * TLS connections (each is closed after accept) until the next reload.
 */
/*
 * The names a "tls acme" listener's keypairs cover, for tlshello.c: a
 * host one of them covers has its certificate, and is never issued one.
 * Read from the leaf of each chain with OpenSSL's own name check
 * (wildcards as a client would match them).
 */
struct gw_certnames {
	size_t		 n;
	X509		*x[];
};

static void
certnames_add(struct gw_certnames *cn, const struct gw_pem *p)
{
	BIO	*bio;
	X509	*x;

	if (p->len == 0 || p->len > INT_MAX ||
	    (bio = BIO_new_mem_buf(p->buf, (int)p->len)) == NULL)
		return;
	if ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL)
		cn->x[cn->n++] = x;
	BIO_free(bio);
}

static void
certnames_make(struct gw_listener *l)
{
	struct gw_sni	*sni;
	size_t		 n = 1;

	TAILQ_FOREACH(sni, &gw->next_sni, entry)
		n++;
	if ((l->names = calloc(1, sizeof(*l->names) + n *
	    sizeof(X509 *))) == NULL)
		return;
	certnames_add(l->names, &l->cert);
	TAILQ_FOREACH(sni, &gw->next_sni, entry)
		certnames_add(l->names, &sni->cert);
}

void
tls_certnames_free(struct gw_listener *l)
{
	size_t	 i;

	if (l->names == NULL)
		return;
	for (i = 0; i < l->names->n; i++)
		X509_free(l->names->x[i]);
	free(l->names);
	l->names = NULL;
}

/* does one of the listener's keypairs cover the host? */
int
tls_listener_covers(const struct gw_listener *l, const char *name)
{
	size_t	 i;

	if (l->names == NULL)
		return (0);
	for (i = 0; i < l->names->n; i++)
		if (X509_check_host(l->names->x[i], name, strlen(name), 0,
		    NULL) == 1)
			return (1);
	return (0);
}

/*
 * The keypair a listener with none of its own ("tls acme" alone) takes
 * as its default: the first "tls keypair".  None: no context, and every
 * handshake is for a certificate from ACME.
 */
static int
tls_listener_default(struct gw_listener *l, struct tls_config *cfg)
{
	struct gw_sni	*sni;

	if (l->cert.len > 0)
		return (tls_config_set_keypair_mem(cfg, l->cert.buf,
		    l->cert.len, l->key.buf, l->key.len));
	sni = TAILQ_FIRST(&gw->next_sni);
	return (tls_config_set_keypair_mem(cfg, sni->cert.buf,
	    sni->cert.len, sni->key.buf, sni->key.len));
}

int
tls_listener_setup(struct gw_listener *l)
{
	struct tls_config	*cfg = NULL;
	struct gw_sni		*sni;
	int			 rv = -1;

	/*
	 * OpenSSL is started by the first TLS listener, not at start-up:
	 * started, it holds some 3 MiB of a gateway that may never serve
	 * TLS.  tls_init() runs once however often it is called.
	 */
	if (tls_init() == -1) {
		log_warnx("%s: tls_init failed", l->conf.name);
		return (-1);
	}
	if (l->conf.acme)
		certnames_make(l);
	if (l->cert.len == 0 && TAILQ_EMPTY(&gw->next_sni)) {
		rv = l->conf.acme ? 0 : -1;
		goto done;
	}
	if ((cfg = tls_config_new()) == NULL) {
		log_warnx("%s: tls_config_new failed", l->conf.name);
		goto done;
	}
	if (tls_config_set_protocols(cfg, TLS_PROTOCOL_TLSv1_2 |
	    TLS_PROTOCOL_TLSv1_3) == -1 ||
	    /* we speak HTTP/1.1 only: never let a client pick h2 */
	    tls_config_set_alpn(cfg, l->conf.http2 == LISTENER_H2_OFF ?
	    "http/1.1" : "h2,http/1.1") == -1 ||
	    tls_listener_default(l, cfg) == -1)
		goto cfgerr;
	TAILQ_FOREACH(sni, &gw->next_sni, entry)
		if (tls_config_add_keypair_mem(cfg, sni->cert.buf,
		    sni->cert.len, sni->key.buf, sni->key.len) == -1)
			goto cfgerr;
	if ((l->tls = tls_server()) == NULL) {
		log_warnx("%s: tls_server failed", l->conf.name);
		goto done;
	}
	if (tls_configure(l->tls, cfg) == -1) {
		log_warnx("%s: %s", l->conf.name, tls_error(l->tls));
		tls_free(l->tls);
		l->tls = NULL;
		goto done;
	}
	rv = 0;
	goto done;
 cfgerr:
	log_warnx("%s: %s", l->conf.name, tls_config_error(cfg));
 done:
	if (cfg != NULL) {
		tls_config_clear_keys(cfg);
		tls_config_free(cfg);
	}
	pem_clear(&l->cert);
	pem_clear(&l->key);
	return (rv);
}

/*
 * A server context of its own for one keypair: a host's certificate from
 * ACME, or a tls-alpn-01 challenge's (alpn "acme-tls/1").  Counted: the
 * table that chose it holds one reference and each connection made on
 * it another, so a new certificate replaces it for new handshakes while
 * the connections already made on it go on until they close.
 */
struct gw_tlsctx *
tls_ctx_new(const uint8_t *cert, size_t certlen, const uint8_t *key,
    size_t keylen, const char *alpn, const char *what)
{
	struct tls_config	*cfg;
	struct gw_tlsctx	*x = NULL;
	struct tls		*t = NULL;

	if (tls_init() == -1 || (cfg = tls_config_new()) == NULL) {
		log_warnx("%s: no TLS configuration", what);
		return (NULL);
	}
	if (tls_config_set_protocols(cfg, TLS_PROTOCOL_TLSv1_2 |
	    TLS_PROTOCOL_TLSv1_3) == -1 ||
	    tls_config_set_alpn(cfg, alpn) == -1 ||
	    tls_config_set_keypair_mem(cfg, cert, certlen, key,
	    keylen) == -1) {
		log_warnx("%s: %s", what, tls_config_error(cfg));
		goto done;
	}
	if ((t = tls_server()) == NULL || tls_configure(t, cfg) == -1) {
		log_warnx("%s: %s", what, t != NULL ? tls_error(t) :
		    "tls_server failed");
		goto done;
	}
	if ((x = calloc(1, sizeof(*x))) == NULL) {
		log_warn("%s", what);
		goto done;
	}
	x->tls = t;
	x->refs = 1;
	t = NULL;
 done:
	if (t != NULL)
		tls_free(t);
	tls_config_clear_keys(cfg);
	tls_config_free(cfg);
	return (x);
}

void
tls_ctx_unref(struct gw_tlsctx *x)
{
	if (x == NULL || --x->refs > 0)
		return;
	tls_free(x->tls);
	free(x);
}

/*
 * The handshake on the context chosen for the connection: the
 * listener's (srv, with ref NULL), or one of its own (ref, counted).
 */
int
tls_conn_start(struct gw_conn *c, struct tls *srv, struct gw_tlsctx *ref)
{
	if (ref != NULL)
		srv = ref->tls;
	if (srv == NULL)
		return (-1);
	/* the handshake happens in the first tls_read, non-blocking */
	if (tls_accept_socket(srv, &c->tls, c->fd) == -1) {
		log_debug("%s: %s", c->peer, tls_error(srv));
		return (-1);
	}
	if (ref != NULL) {
		ref->refs++;
		c->tlsctx = ref;
	}
	return (0);
}

/*
 * Into c->in, one record at a time, until the socket has no more or the
 * budget is spent.  Returns the bytes read, 0 with c->eof set at the end,
 * -1 on an error, -2 for nothing yet.  Stopping on the budget leaves
 * bytes inside OpenSSL that no poll will announce: the caller reads again
 * at once (conn.c activates the event).
 */
ssize_t
tls_conn_read(struct gw_conn *c)
{
	struct evbuffer_iovec	 v;
	ssize_t			 n, total = 0;

	while (total < GW_TLS_READ_BUDGET) {
		if (evbuffer_reserve_space(c->in, GW_TLS_RECORD, &v, 1) < 1)
			return (-1);
		n = tls_read(c->tls, v.iov_base, MINIMUM(v.iov_len,
		    GW_TLS_RECORD));
		if (n == TLS_WANT_POLLIN)
			return (total > 0 ? total : -2);
		if (n == TLS_WANT_POLLOUT) {
			c->tls_rw = 1;
			return (total > 0 ? total : -2);
		}
		if (n == -1) {
			log_debug("%s: tls: %s", c->peer, tls_error(c->tls));
			return (-1);
		}
		if (n == 0) {
			c->eof = 1;
			return (total);
		}
		v.iov_len = n;
		if (evbuffer_commit_space(c->in, &v, 1) == -1)
			return (-1);
		total += n;
	}
	return (total);
}

/*
 * From c->out.  The same bytes must be offered again after a
 * TLS_WANT_*: the first chain of c->out is the one tried before, never
 * shorter (it only shrinks by a drain after success).  Returns 0 when
 * all is written, -2 when the socket is full, -1 on an error.
 */
ssize_t
tls_conn_write(struct gw_conn *c)
{
	struct evbuffer_iovec	 v;
	ssize_t			 n;

	while (evbuffer_get_length(c->out) > 0) {
		if (evbuffer_peek(c->out, -1, NULL, &v, 1) < 1)
			return (-1);
		n = tls_write(c->tls, v.iov_base, MINIMUM(v.iov_len,
		    GW_TLS_RECORD));
		if (n == TLS_WANT_POLLOUT)
			return (-2);
		if (n == TLS_WANT_POLLIN) {
			c->tls_wr = 1;
			return (-2);
		}
		if (n == -1) {
			log_debug("%s: tls: %s", c->peer, tls_error(c->tls));
			return (-1);
		}
		evbuffer_drain(c->out, n);
	}
	return (0);
}

/* a close_notify if the socket takes it now; no waiting for the peer's */
void
tls_conn_close(struct gw_conn *c)
{
	if (c->tls != NULL) {
		(void)tls_close(c->tls);
		tls_free(c->tls);
		c->tls = NULL;
	}
	tls_ctx_unref(c->tlsctx);
	c->tlsctx = NULL;
}
