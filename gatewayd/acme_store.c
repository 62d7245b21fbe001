/*
 * What acmed (through the parent) handed this gateway: each host's
 * certificate, as server contexts of its own, and the challenges pending
 * (an http-01 token and its key authorization, a tls-alpn-01 context).
 * Lookups for tlshello.c (which context a handshake gets) and acme_http.c
 * (the http-01 answer); the messages are acme_recv.c's.
 *
 * A host's certificate is two contexts, one offering "h2,http/1.1" and
 * one "http/1.1" (a listener with "http2 off"), built once when it comes.
 * A new one replaces them for new handshakes; connections made on the
 * old ones hold their references and go on (tls_ctx_unref()).  Keys are
 * kept only inside OpenSSL's structures; the bytes are zeroed by the
 * caller.  The tables are bounded: ACME_GW_CERTS hosts, ACME_GW_CHALS
 * challenges.
 */

#include <sys/types.h>
#include <sys/tree.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "acme.h"

struct acme_certent {
	RB_ENTRY(acme_certent)	 entry;
	char			 name[ORCHD_HOST_MAX];
	struct gw_tlsctx	*ctx[2];	/* [1]: with h2 */
	int64_t			 not_after;
};

struct acme_chal {
	RB_ENTRY(acme_chal)	 entry;
	char			 name[ORCHD_HOST_MAX];
	char			 token[ACME_TOKEN_MAX];	/* "": none */
	char			 keyauth[ACME_KEYAUTH_MAX];
	struct gw_tlsctx	*alpn;		/* tls-alpn-01's, or NULL */
};

int		certent_cmp(struct acme_certent *, struct acme_certent *);
int		chal_cmp(struct acme_chal *, struct acme_chal *);
RB_HEAD(acme_certs, acme_certent);
RB_HEAD(acme_chals, acme_chal);
RB_PROTOTYPE(acme_certs, acme_certent, entry, certent_cmp);
RB_PROTOTYPE(acme_chals, acme_chal, entry, chal_cmp);
RB_GENERATE(acme_certs, acme_certent, entry, certent_cmp);
RB_GENERATE(acme_chals, acme_chal, entry, chal_cmp);

static struct acme_certs	 certs = RB_INITIALIZER(&certs);
static struct acme_chals	 chals = RB_INITIALIZER(&chals);
static unsigned int		 ncerts, nchals;

int
certent_cmp(struct acme_certent *a, struct acme_certent *b)
{
	return (strcmp(a->name, b->name));
}

int
chal_cmp(struct acme_chal *a, struct acme_chal *b)
{
	return (strcmp(a->name, b->name));
}

/*
 * A host name as the tables key it: lower case, no trailing dot, of
 * the characters a DNS name has, a letter among them (an IPv4 literal
 * is no name).  -1 for anything else.
 */
int
acme_name(const char *in, size_t len, char *out)
{
	size_t	 i;
	int	 alpha = 0;

	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len >= ORCHD_HOST_MAX)
		return (-1);
	for (i = 0; i < len; i++) {
		if (isalpha((unsigned char)in[i]))
			alpha = 1;
		else if (!isdigit((unsigned char)in[i]) && in[i] != '-' &&
		    in[i] != '.')
			return (-1);
		out[i] = tolower((unsigned char)in[i]);
	}
	out[len] = '\0';
	return (alpha ? 0 : -1);
}

static struct acme_certent *
cert_find(const char *name)
{
	struct acme_certent	 key;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name))
		return (NULL);
	return (RB_FIND(acme_certs, &certs, &key));
}

static struct acme_chal *
chal_find(const char *name)
{
	struct acme_chal	 key;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name))
		return (NULL);
	return (RB_FIND(acme_chals, &chals, &key));
}

/* the host's context for a listener with h2 or without, or NULL */
struct gw_tlsctx *
acme_cert_ctx(const char *name, int h2)
{
	struct acme_certent	*e;

	if ((e = cert_find(name)) == NULL)
		return (NULL);
	return (e->ctx[h2 ? 1 : 0]);
}

/* tls-alpn-01's context for the host, or NULL */
struct gw_tlsctx *
acme_alpn_ctx(const char *name)
{
	struct acme_chal	*ch;

	if ((ch = chal_find(name)) == NULL)
		return (NULL);
	return (ch->alpn);
}

/* http-01: the key authorization of the host's token, or NULL */
const char *
acme_token(const char *name, const char *token, size_t len)
{
	struct acme_chal	*ch;

	if ((ch = chal_find(name)) == NULL || ch->token[0] == '\0' ||
	    strlen(ch->token) != len || memcmp(ch->token, token, len) != 0)
		return (NULL);
	return (ch->keyauth);
}

/* has acmed handed this gateway anything: a certificate or a challenge */
int
acme_in_use(void)
{
	return (ncerts > 0 || nchals > 0);
}

int
acme_store_cert(const char *name, const uint8_t *chain, size_t chainlen,
    const uint8_t *key, size_t keylen, int64_t not_after)
{
	struct acme_certent	*e;
	struct gw_tlsctx	*x[2];

	if ((e = cert_find(name)) == NULL && ncerts >= ACME_GW_CERTS) {
		log_warnx("acme: %s: over %d certificates, not taken", name,
		    ACME_GW_CERTS);
		return (-1);
	}
	if ((x[0] = tls_ctx_new(chain, chainlen, key, keylen, "http/1.1",
	    name)) == NULL)
		return (-1);
	if ((x[1] = tls_ctx_new(chain, chainlen, key, keylen,
	    "h2,http/1.1", name)) == NULL) {
		tls_ctx_unref(x[0]);
		return (-1);
	}
	if (e == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL) {
			log_warn("acme: %s", name);
			tls_ctx_unref(x[0]);
			tls_ctx_unref(x[1]);
			return (-1);
		}
		(void)strlcpy(e->name, name, sizeof(e->name));
		RB_INSERT(acme_certs, &certs, e);
		ncerts++;
	}
	/* connections made on the old ones keep theirs */
	tls_ctx_unref(e->ctx[0]);
	tls_ctx_unref(e->ctx[1]);
	e->ctx[0] = x[0];
	e->ctx[1] = x[1];
	e->not_after = not_after;
	log_info("acme: %s: certificate installed", name);
	return (0);
}

/*
 * A new configuration: the certificates of hosts it routes nowhere are
 * no longer served.  The parent sends those of the hosts it routes with
 * each configuration, so one routed again comes back with it.
 */
void
acme_prune(void)
{
	struct acme_certent	*e, *next;

	RB_FOREACH_SAFE(e, acme_certs, &certs, next) {
		if (route_lookup(e->name, strlen(e->name)) != NULL)
			continue;
		log_info("acme: %s: routed nowhere now, its certificate no "
		    "longer served", e->name);
		RB_REMOVE(acme_certs, &certs, e);
		ncerts--;
		/* connections made on them keep theirs */
		tls_ctx_unref(e->ctx[0]);
		tls_ctx_unref(e->ctx[1]);
		free(e);
	}
}

static void
chal_free_if_empty(struct acme_chal *ch)
{
	if (ch->token[0] != '\0' || ch->alpn != NULL)
		return;
	RB_REMOVE(acme_chals, &chals, ch);
	nchals--;
	free(ch);
}

/* a challenge, checked by the caller; its cert and key for tls-alpn-01 */
int
acme_store_challenge(const struct acme_challenge *m, const uint8_t *cert,
    const uint8_t *key)
{
	struct acme_chal	*ch;
	struct gw_tlsctx	*x = NULL;

	if ((ch = chal_find(m->name)) == NULL) {
		if (nchals >= ACME_GW_CHALS) {
			log_warnx("acme: %s: over %d challenges, not taken",
			    m->name, ACME_GW_CHALS);
			return (-1);
		}
		if ((ch = calloc(1, sizeof(*ch))) == NULL) {
			log_warn("acme: %s", m->name);
			return (-1);
		}
		(void)strlcpy(ch->name, m->name, sizeof(ch->name));
		RB_INSERT(acme_chals, &chals, ch);
		nchals++;
	}
	if (m->type == ACME_CHALLENGE_HTTP01) {
		(void)strlcpy(ch->token, m->token, sizeof(ch->token));
		(void)strlcpy(ch->keyauth, m->keyauth, sizeof(ch->keyauth));
	} else if ((x = tls_ctx_new(cert, m->cert_len, key, m->key_len,
	    "acme-tls/1", m->name)) != NULL) {
		tls_ctx_unref(ch->alpn);
		ch->alpn = x;
	}
	if (m->type != ACME_CHALLENGE_HTTP01 && x == NULL) {
		chal_free_if_empty(ch);
		return (-1);
	}
	log_debug("acme: %s: %s challenge pending", m->name,
	    m->type == ACME_CHALLENGE_HTTP01 ? "http-01" : "tls-alpn-01");
	return (0);
}

void
acme_forget_challenge(const struct acme_challenge *m)
{
	struct acme_chal	*ch;

	if ((ch = chal_find(m->name)) == NULL)
		return;
	if (m->type == ACME_CHALLENGE_HTTP01) {
		explicit_bzero(ch->token, sizeof(ch->token));
		explicit_bzero(ch->keyauth, sizeof(ch->keyauth));
	} else {
		tls_ctx_unref(ch->alpn);
		ch->alpn = NULL;
	}
	chal_free_if_empty(ch);
}
