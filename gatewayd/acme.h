/*
 * The gateway's side of ACME: the certificates and challenges acmed
 * handed it (acme_store.c), the http-01 answer (acme_http.c), the
 * messages (acme_recv.c), and the TLS connections before their handshake
 * (tlshello.c), held while their host's certificate is issued.
 */

#ifndef ORCHD_GW_ACME_H
#define ORCHD_GW_ACME_H

#include <stddef.h>
#include <stdint.h>

#define ACME_GW_CERTS	65536	/* hosts with a certificate from ACME */
#define ACME_GW_CHALS	4096	/* hosts with a challenge pending */
#define GW_HELLO_MS	10000	/* a ClientHello's whole first record, at
				   most (and at most the header timeout) */
#define GW_ACME_WAIT	30	/* seconds a handshake is held for its
				   host's first certificate */
#define GW_WANT_HOSTS	256	/* hosts awaited at once */
#define GW_HELD_HOST	64	/* handshakes held for one host */
#define GW_HELD_MAX	1024	/* ... for all of them */

struct gw_conn;
struct gw_tlsctx;
struct acme_challenge;
struct imsgev;
struct imsg;

/* acme_store.c */
int		 acme_name(const char *, size_t, char *);
struct gw_tlsctx *acme_cert_ctx(const char *, int);
struct gw_tlsctx *acme_alpn_ctx(const char *);
const char	*acme_token(const char *, const char *, size_t);
int		 acme_in_use(void);
int		 acme_store_cert(const char *, const uint8_t *, size_t,
		    const uint8_t *, size_t, int64_t);
int		 acme_store_challenge(const struct acme_challenge *,
		    const uint8_t *, const uint8_t *);
void		 acme_forget_challenge(const struct acme_challenge *);
void		 acme_prune(void);

/* acme_http.c */
int		 acme_http_answer(struct gw_conn *);
int		 acme_path_reserved(const char *, size_t);

/* acme_recv.c */
void		 acme_recv_cert(struct imsgev *, struct imsg *);
void		 acme_recv_challenge(struct imsgev *, struct imsg *);
void		 acme_recv_challenge_end(struct imsgev *, struct imsg *);
void		 acme_recv_failed(struct imsgev *, struct imsg *);

/* tlshello.c */
extern const struct conn_ops hello_ops;
void		 hello_resume(const char *, int);

#endif /* ORCHD_GW_ACME_H */
