/*
 * The ACME messages' payloads (common/msg.h lists the messages):
 * acmed, the parent and the gateways.  Included by msg.h alone.
 */

#ifndef ORCHD_MSG_ACME_H
#define ORCHD_MSG_ACME_H

#include <stdint.h>

/*
 * ACME.  Every string is NUL-terminated within its array, which the
 * receiver checks; byte counts are bounded by ORCHD_TLS_FILE_MAX and
 * must add up to the message's length.
 */
#define ACME_URL_MAX		1024
#define ACME_CONTACT_MAX	256
#define ACME_EAB_MAX		256
#define ACME_TOKEN_MAX		128	/* base64url, RFC 8555 8.3 */
#define ACME_KEYAUTH_MAX	256	/* token.thumbprint */
#define ACME_ISSUER_MAX		128
#define ACME_ERROR_MAX		256

#define ACME_CHALLENGE_HTTP01	0x1
#define ACME_CHALLENGE_TLSALPN01 0x2

/* IMSG_ACME_CONF: the "acme" block of orchd.conf(5) */
struct acme_conf {
	char			 directory[ACME_URL_MAX];
	char			 contact[ACME_CONTACT_MAX]; /* "" or mailto: */
	char			 eab_kid[ACME_EAB_MAX];	/* "": no EAB */
	char			 eab_hmac[ACME_EAB_MAX]; /* base64url key */
	uint32_t		 per_hour;	/* issuances, at most */
	uint32_t		 challenges;	/* ACME_CHALLENGE_*, what the
						   listeners can answer */
	uint32_t		 ca_len;	/* PEM after; 0: system roots */
	uint32_t		 pad;
};

/* IMSG_ACME_WANT, IMSG_ACME_RENEW */
struct acme_host {
	char			 name[ORCHD_HOST_MAX];
};

/* IMSG_ACME_CHALLENGE, IMSG_ACME_CHALLENGE_END */
struct acme_challenge {
	char			 name[ORCHD_HOST_MAX];	/* the host */
	uint32_t		 type;		/* ACME_CHALLENGE_* */
	uint32_t		 cert_len;	/* tls-alpn-01's own cert */
	uint32_t		 key_len;	/* and key, PEM, after */
	uint32_t		 pad;
	char			 token[ACME_TOKEN_MAX];	/* http-01 */
	char			 keyauth[ACME_KEYAUTH_MAX]; /* its answer */
};

/* IMSG_ACME_HAVE, IMSG_ACME_CERT */
struct acme_cert {
	char			 name[ORCHD_HOST_MAX];
	int64_t			 not_after;	/* seconds since the epoch */
	uint32_t		 chain_len;
	uint32_t		 key_len;	/* 0 in IMSG_ACME_HAVE */
};

/* IMSG_ACME_FAILED, IMSG_ACME_STATUS */
enum acme_state {
	ACME_STATE_NONE = 0,		/* nothing asked yet */
	ACME_STATE_ISSUING,
	ACME_STATE_VALID,
	ACME_STATE_FAILED,		/* next_try says when again */
	ACME_STATE_CAPPED		/* over the per-hour cap */
};
struct acme_status {
	char			 name[ORCHD_HOST_MAX];
	char			 issuer[ACME_ISSUER_MAX];
	char			 error[ACME_ERROR_MAX];	/* the last one */
	int64_t			 not_after;	/* 0: no certificate */
	int64_t			 next_try;	/* renewal or retry, epoch */
	uint32_t		 state;		/* enum acme_state */
	uint32_t		 failures;	/* since the last success */
};

#endif /* ORCHD_MSG_ACME_H */
