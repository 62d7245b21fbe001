/*
 * acmed: the ACME client (RFC 8555), a child of orchd of its own.  What
 * its files share: the account key and JWS (jws.c), the certificates it
 * makes and reads (cert.c), HTTPS over libtls (common/https.c, which
 * notifyd shares), one issuance's steps (order.c), and the queue, the
 * caps and the parent's channel (acmed.c).
 */

#ifndef ORCHD_ACMED_H
#define ORCHD_ACMED_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "https.h"
#include "msg.h"

/* below the chroot: the account key, the daemon user's, 0600 */
#define ACMED_ACCOUNT_DIR	"account"
#define ACMED_ACCOUNT_KEY	"account/account.key"

#define ACMED_BODY_MAX		(128 * 1024)	/* an answer, at most */
#define ACMED_NONCE_MAX		256
#define ACMED_CHAIN_MAX		(64 * 1024)	/* the parent's bound */

/* jws.c */
char	*b64url(const unsigned char *, size_t);
int	 b64url_decode(const char *, unsigned char *, size_t, size_t *);
int	 jws_account_key(const char *, char *, size_t);
const char *jws_thumbprint(void);
char	*jws_sign(const char *, const char *, const char *, const char *);
json_t	*jws_eab(const char *, const char *, const char *, char *, size_t);
void	 jws_set_key(void *);		/* an EVP_PKEY, taken; NULL: none */

/* cert.c */
int	 cert_csr(const char *, char **, char **, char *, size_t);
int	 cert_alpn(const char *, const char *, char **, char **, char *,
	    size_t);
int	 cert_chain_info(const char *, size_t, int64_t *, int64_t *, char *,
	    size_t);

/* https.c: common/https.h */

/* order.c: one issuance at a time */
/* at the end: the chain and key (PEM), or NULL and why */
typedef void (*order_done_fn)(const char *, const char *, size_t,
	    const char *, const char *);
void	 order_conf(const struct acme_conf *, int);
void	 order_start(const char *, order_done_fn);
int	 order_busy(void);

/* acmed.c: what order.c tells the parent */
void	 acmed_send(uint32_t, const void *, size_t, const void *, size_t,
	    const void *, size_t);

#endif /* ORCHD_ACMED_H */
