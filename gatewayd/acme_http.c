/*
 * http-01 (RFC 8555 8.3): GET /.well-known/acme-challenge/TOKEN for a
 * host with that token pending is answered 200, text/plain, the key
 * authorization, by the gateway itself before any routing: no workload
 * is woken, no activity is counted.
 *
 * Once ACME is in use (a "tls acme" listener, or anything acmed handed
 * this gateway), the challenge path is the gateway's for every host: a
 * request whose path, percent-decoded and in any case, contains
 * "acme-challenge" never reaches a workload and is answered 404 unless
 * it is exactly the path of a pending token.  So "/.well-known/
 * acme-challenge/../x", "%2e%2e", "//.well-known//acme-challenge/T" and
 * the like can neither reach a workload nor match a token.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <event.h>
#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "acme.h"

#define ACME_PREFIX	"/.well-known/acme-challenge/"
#define ACME_WORD	"acme-challenge"

/*
 * Does the path (up to its query) hold "acme-challenge", percent-decoded
 * (repeatedly: "%252e" is decoded twice by some) and in any case?
 */
int
acme_path_reserved(const char *path, size_t len)
{
	char		 buf[2][HTTP_HEAD_BUFSZ];
	const char	*q;
	size_t		 i, n, round;
	int		 hi, lo, changed = 1;

	if ((q = memchr(path, '?', len)) != NULL)
		len = q - path;
	if (len >= sizeof(buf[0]))
		return (1);	/* a head is shorter: never here */
	memcpy(buf[0], path, len);
	for (round = 0; changed && round < 3; round++) {
		changed = 0;
		for (i = n = 0; i < len; i++) {
			if (buf[round % 2][i] == '%' && i + 2 < len &&
			    (hi = http_hexval((unsigned char)
			    buf[round % 2][i + 1])) != -1 &&
			    (lo = http_hexval((unsigned char)
			    buf[round % 2][i + 2])) != -1) {
				buf[(round + 1) % 2][n++] = hi << 4 | lo;
				i += 2;
				changed = 1;
			} else
				buf[(round + 1) % 2][n++] =
				    tolower((unsigned char)buf[round % 2][i]);
		}
		len = n;
		if (memmem(buf[(round + 1) % 2], len, ACME_WORD,
		    sizeof(ACME_WORD) - 1) != NULL)
			return (1);
	}
	return (0);
}

/* a token as RFC 8555 8.1 makes it: base64url, no padding */
static int
token_ok(const char *t, size_t len)
{
	size_t	 i;

	if (len == 0 || len >= ACME_TOKEN_MAX)
		return (0);
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)t[i]) && t[i] != '-' &&
		    t[i] != '_')
			return (0);
	return (1);
}

/* the key authorization for this exact request, or NULL */
static const char *
acme_http_token(const struct http_head *h)
{
	char		 name[ORCHD_HOST_MAX];
	const char	*tok;
	size_t		 plen = sizeof(ACME_PREFIX) - 1, tlen;

	if ((h->meth != HTTP_M_GET && h->meth != HTTP_M_HEAD) ||
	    h->authoritylen == 0 || h->pathlen <= plen ||
	    memcmp(h->path, ACME_PREFIX, plen) != 0 ||
	    acme_name(h->authority, h->hostlen, name) == -1)
		return (NULL);
	tok = h->path + plen;
	tlen = h->pathlen - plen;
	if (!token_ok(tok, tlen))
		return (NULL);
	return (acme_token(name, tok, tlen));
}

/* 1 when the gateway answered the request itself */
int
acme_http_answer(struct gw_conn *c)
{
	const struct http_head	*h = &c->req->h;
	const char		*keyauth;
	char			 body[ACME_KEYAUTH_MAX];

	if (h->pathlen == 0 || (!gw->acme && !acme_in_use()) ||
	    !acme_path_reserved(h->path, h->pathlen))
		return (0);
	c->acct = 0;
	c->rx_pending = 0;
	accesslog_head(c, NULL);
	if ((keyauth = acme_http_token(h)) == NULL) {
		log_debug("%s: acme-challenge path, no token: 404", c->peer);
		conn_answer(c, 404, "", "404 Not Found\n");
		return (1);
	}
	log_debug("%s: http-01 answered for %.*s", c->peer, (int)h->hostlen,
	    h->authority);
	(void)strlcpy(body, keyauth, sizeof(body));
	conn_answer(c, 200, "", body);
	return (1);
}
