/*
 * One issuance, RFC 8555 section 7, as a chain of steps run from the
 * event loop: the directory, the account (once), a new order for one DNS
 * name, its authorization, a challenge (http-01 before tls-alpn-01, as
 * the listeners can answer them), the answer, the authorization polled,
 * the order finalized with a request signed by a new key, the order
 * polled, the chain downloaded.  Each step is one or two HTTPS requests,
 * each bounded (https.c); a step that must wait (the server is still
 * validating) comes back after Retry-After, capped, and a bounded number
 * of times.  One issuance runs at a time: acmed.c queues the others.
 *
 * What the ACME server sends is read as JSON by jansson here, in this
 * unprivileged process; the parent is told only fixed structures.
 */

#include <sys/types.h>

#include <ctype.h>
#include <event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "acmed.h"
#include "compat.h"
#include "log.h"

#define ORDER_POLLS_MAX		30	/* authorization or order, each */
#define ORDER_WAIT_MIN		1	/* seconds between polls */
#define ORDER_WAIT_MAX		10	/* Retry-After, capped */
#define ORDER_WAIT_DEFAULT	2

#define ACME_ERR_BADNONCE	"urn:ietf:params:acme:error:badNonce"

enum step_rc { STEP_NEXT, STEP_AGAIN, STEP_FAIL };

/* the server: its directory, and our account on it */
static struct acme_conf	 o_conf;
static int		 o_conf_set;
static char		 o_new_nonce[ACME_URL_MAX];
static char		 o_new_account[ACME_URL_MAX];
static char		 o_new_order[ACME_URL_MAX];
static char		 o_kid[ACME_URL_MAX];	/* the account's URL */
static char		 o_nonce[ACMED_NONCE_MAX];

/* the issuance under way */
static struct {
	int		 busy;
	char		 host[ORCHD_HOST_MAX];
	int		 step;
	int		 polls;
	int64_t		 wait;		/* before STEP_AGAIN, seconds */
	char		 order[ACME_URL_MAX];
	char		 authz[ACME_URL_MAX];
	char		 chall[ACME_URL_MAX];
	char		 finalize[ACME_URL_MAX];
	char		 cert[ACME_URL_MAX];
	struct acme_challenge ch;	/* told the gateways, if type */
	char		*key;		/* the certificate's, PEM */
	char		 err[ACME_ERROR_MAX];
	order_done_fn	 done;
	struct event	 ev;
} o;

typedef enum step_rc (*step_fn)(void);

static enum step_rc	step_directory(void);
static enum step_rc	step_account(void);
static enum step_rc	step_order(void);
static enum step_rc	step_authz(void);
static enum step_rc	step_respond(void);
static enum step_rc	step_authz_poll(void);
static enum step_rc	step_finalize(void);
static enum step_rc	step_order_poll(void);
static enum step_rc	step_download(void);

static const step_fn	 steps[] = {
	step_directory, step_account, step_order, step_authz, step_respond,
	step_authz_poll, step_finalize, step_order_poll, step_download
};
#define STEP_FINALIZE	6

static void	order_run(int, short, void *);

void
order_conf(const struct acme_conf *c, int changed)
{
	if (changed || !o_conf_set) {
		o_new_nonce[0] = o_new_account[0] = o_new_order[0] = '\0';
		o_kid[0] = o_nonce[0] = '\0';
	}
	o_conf = *c;
	o_conf_set = 1;
}

int
order_busy(void)
{
	return (o.busy);
}

static enum step_rc
fail(const char *fmt, ...) __attribute__((__format__ (printf, 1, 2)));

static enum step_rc
fail(const char *fmt, ...)
{
	va_list	 ap;
	size_t	 i;

	va_start(ap, fmt);
	(void)vsnprintf(o.err, sizeof(o.err), fmt, ap);
	va_end(ap);
	/* the server's words are shown by orchctl: printable only */
	for (i = 0; o.err[i] != '\0'; i++)
		if (!isprint((unsigned char)o.err[i]))
			o.err[i] = '?';
	return (STEP_FAIL);
}

/* a problem document's type and detail, or the status alone */
static enum step_rc
fail_problem(const char *what, const struct https_resp *r)
{
	json_t		*j;
	const char	*type = NULL, *detail = NULL;
	enum step_rc	 rc;

	j = json_loadb(r->body, r->len, 0, NULL);
	if (json_unpack(j, "{s?s, s?s}", "type", &type, "detail",
	    &detail) == -1)
		type = detail = NULL;
	rc = fail("%s: %d %s%s%s", what, r->status,
	    type != NULL ? type : "", detail != NULL ? ": " : "",
	    detail != NULL ? detail : "");
	json_decref(j);
	return (rc);
}

static int
url_copy(char *dst, const char *src)
{
	char	 host[256], port[8], path[ACME_URL_MAX];

	if (src == NULL || https_url_split(src, host, sizeof(host), port,
	    sizeof(port), path, sizeof(path)) == -1 ||
	    strlcpy(dst, src, ACME_URL_MAX) >= ACME_URL_MAX)
		return (-1);
	return (0);
}

static void
nonce_keep(const struct https_resp *r)
{
	if (r->nonce[0] != '\0')
		strlcpy(o_nonce, r->nonce, sizeof(o_nonce));
}

/* a fresh nonce, when none is left from the last answer */
static int
nonce_get(void)
{
	struct https_resp	 r;

	if (o_nonce[0] != '\0')
		return (0);
	if (https_request("HEAD", o_new_nonce, NULL, 0, &r, o.err,
	    sizeof(o.err)) == -1)
		return (-1);
	nonce_keep(&r);
	https_resp_free(&r);
	if (o_nonce[0] == '\0') {
		(void)fail("newNonce: no Replay-Nonce");
		return (-1);
	}
	return (0);
}

/*
 * A signed POST of payload ("" for POST-as-GET) to url, by kid or (NULL)
 * the JWK; once more with the new nonce when the server refused ours.
 */
static int
post(const char *url, const char *kid, const char *payload,
    struct https_resp *r)
{
	char	*body;
	int	 tries, rc;

	for (tries = 0; tries < 2; tries++) {
		if (nonce_get() == -1)
			return (-1);
		if ((body = jws_sign(url, o_nonce, kid, payload)) == NULL) {
			(void)fail("cannot sign the request");
			return (-1);
		}
		o_nonce[0] = '\0';
		rc = https_request("POST", url, body, strlen(body), r, o.err,
		    sizeof(o.err));
		free(body);
		if (rc == -1)
			return (-1);
		nonce_keep(r);
		if (r->status != 400 || strstr(r->body,
		    ACME_ERR_BADNONCE) == NULL)
			return (0);
		https_resp_free(r);
	}
	(void)fail("%s: nonce refused twice", url);
	return (-1);
}

/* a POST whose answer is a JSON object, with one of the statuses ok */
static json_t *
post_json(const char *what, const char *url, const char *kid,
    const char *payload, int ok1, int ok2, struct https_resp *r)
{
	json_t	*j;

	if (post(url, kid, payload, r) == -1)
		return (NULL);
	if (r->status != ok1 && r->status != ok2) {
		(void)fail_problem(what, r);
		https_resp_free(r);
		return (NULL);
	}
	if ((j = json_loadb(r->body, r->len, 0, NULL)) == NULL ||
	    !json_is_object(j)) {
		json_decref(j);
		(void)fail("%s: not a JSON object", what);
		https_resp_free(r);
		return (NULL);
	}
	return (j);
}

static enum step_rc
step_directory(void)
{
	struct https_resp	 r;
	json_t			*j;
	const char		*nn = NULL, *na = NULL, *no = NULL;

	if (o_new_order[0] != '\0')
		return (STEP_NEXT);
	if (https_request("GET", o_conf.directory, NULL, 0, &r, o.err,
	    sizeof(o.err)) == -1)
		return (STEP_FAIL);
	if (r.status != 200) {
		https_resp_free(&r);
		return (fail("directory: status %d", r.status));
	}
	j = json_loadb(r.body, r.len, 0, NULL);
	https_resp_free(&r);
	if (json_unpack(j, "{s:s, s:s, s:s}", "newNonce", &nn, "newAccount",
	    &na, "newOrder", &no) == -1 || url_copy(o_new_nonce, nn) == -1 ||
	    url_copy(o_new_account, na) == -1 ||
	    url_copy(o_new_order, no) == -1) {
		json_decref(j);
		o_new_order[0] = '\0';
		return (fail("directory: no newNonce, newAccount or "
		    "newOrder https URL"));
	}
	json_decref(j);
	return (STEP_NEXT);
}

static enum step_rc
step_account(void)
{
	struct https_resp	 r;
	json_t			*req, *eab, *j;
	char			*payload;

	if (o_kid[0] != '\0')
		return (STEP_NEXT);
	if ((req = json_pack("{s:b}", "termsOfServiceAgreed", 1)) == NULL)
		return (fail("out of memory"));
	if (o_conf.contact[0] != '\0')
		(void)json_object_set_new(req, "contact",
		    json_pack("[s]", o_conf.contact));
	if (o_conf.eab_kid[0] != '\0') {
		if ((eab = jws_eab(o_conf.eab_kid, o_conf.eab_hmac,
		    o_new_account, o.err, sizeof(o.err))) == NULL) {
			json_decref(req);
			return (STEP_FAIL);
		}
		(void)json_object_set_new(req, "externalAccountBinding", eab);
	}
	payload = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (payload == NULL)
		return (fail("out of memory"));
	j = post_json("newAccount", o_new_account, NULL, payload, 200, 201,
	    &r);
	free(payload);
	if (j == NULL)
		return (STEP_FAIL);
	json_decref(j);
	if (url_copy(o_kid, r.location) == -1) {
		https_resp_free(&r);
		o_kid[0] = '\0';
		return (fail("newAccount: no account URL"));
	}
	https_resp_free(&r);
	log_info("account %s", o_kid);
	return (STEP_NEXT);
}

static enum step_rc
step_order(void)
{
	struct https_resp	 r;
	json_t			*j, *authz;
	const char		*fin = NULL, *a;
	char			*payload;

	if ((j = json_pack("{s:[{s:s, s:s}]}", "identifiers", "type", "dns",
	    "value", o.host)) == NULL ||
	    (payload = json_dumps(j, JSON_COMPACT)) == NULL) {
		json_decref(j);
		return (fail("out of memory"));
	}
	json_decref(j);
	j = post_json("newOrder", o_new_order, o_kid, payload, 201, 201, &r);
	free(payload);
	if (j == NULL)
		return (STEP_FAIL);
	if (url_copy(o.order, r.location) == -1 ||
	    json_unpack(j, "{s:s, s:o}", "finalize", &fin, "authorizations",
	    &authz) == -1 || url_copy(o.finalize, fin) == -1 ||
	    !json_is_array(authz) || json_array_size(authz) != 1 ||
	    (a = json_string_value(json_array_get(authz, 0))) == NULL ||
	    url_copy(o.authz, a) == -1) {
		json_decref(j);
		https_resp_free(&r);
		return (fail("newOrder: no order, finalize or one "
		    "authorization URL"));
	}
	json_decref(j);
	https_resp_free(&r);
	return (STEP_NEXT);
}

/* the challenge of type name in an authorization, if the gateways can */
static json_t *
authz_pick(json_t *challs, const char *name, uint32_t bit)
{
	json_t		*c;
	const char	*type;
	size_t		 i;

	if ((o_conf.challenges & bit) == 0)
		return (NULL);
	json_array_foreach(challs, i, c) {
		if (json_unpack(c, "{s:s}", "type", &type) == 0 &&
		    strcmp(type, name) == 0)
			return (c);
	}
	return (NULL);
}

/* the token: base64url, as RFC 8555 8.3 says, and of a sane length */
static int
token_ok(const char *t)
{
	size_t	 n;

	for (n = 0; t[n] != '\0'; n++)
		if (!isalnum((unsigned char)t[n]) && t[n] != '-' &&
		    t[n] != '_')
			return (0);
	return (n >= 16 && n < ACME_TOKEN_MAX);
}

/* the gateways are told the challenge, before the server is */
static enum step_rc
challenge_tell(json_t *c, uint32_t type)
{
	const char	*url, *token;
	char		*cert = NULL, *key = NULL;

	if (json_unpack(c, "{s:s, s:s}", "url", &url, "token", &token) == -1 ||
	    url_copy(o.chall, url) == -1 || !token_ok(token))
		return (fail("authorization: a challenge without url or "
		    "a fair token"));
	memset(&o.ch, 0, sizeof(o.ch));
	strlcpy(o.ch.name, o.host, sizeof(o.ch.name));
	strlcpy(o.ch.token, token, sizeof(o.ch.token));
	if ((size_t)snprintf(o.ch.keyauth, sizeof(o.ch.keyauth), "%s.%s",
	    token, jws_thumbprint()) >= sizeof(o.ch.keyauth))
		return (fail("authorization: token too long"));
	if (type == ACME_CHALLENGE_TLSALPN01) {
		if (cert_alpn(o.host, o.ch.keyauth, &cert, &key, o.err,
		    sizeof(o.err)) == -1)
			return (STEP_FAIL);
		o.ch.cert_len = strlen(cert);
		o.ch.key_len = strlen(key);
	}
	o.ch.type = type;
	acmed_send(IMSG_ACME_CHALLENGE, &o.ch, sizeof(o.ch), cert,
	    o.ch.cert_len, key, o.ch.key_len);
	if (key != NULL)
		explicit_bzero(key, strlen(key));
	free(cert);
	free(key);
	log_info("%s: %s challenge", o.host, type == ACME_CHALLENGE_HTTP01 ?
	    "http-01" : "tls-alpn-01");
	return (STEP_NEXT);
}

static enum step_rc
step_authz(void)
{
	struct https_resp	 r;
	json_t			*j, *challs, *c;
	const char		*status;
	enum step_rc		 rc;

	if ((j = post_json("authorization", o.authz, o_kid, "", 200, 200,
	    &r)) == NULL)
		return (STEP_FAIL);
	https_resp_free(&r);
	if (json_unpack(j, "{s:s, s:o}", "status", &status, "challenges",
	    &challs) == -1 || !json_is_array(challs)) {
		json_decref(j);
		return (fail("authorization: no status or challenges"));
	}
	if (strcmp(status, "valid") == 0) {
		/* validated before, for this account: on to the request */
		json_decref(j);
		o.step = STEP_FINALIZE - 1;
		return (STEP_NEXT);
	}
	if (strcmp(status, "pending") != 0) {
		json_decref(j);
		return (fail("authorization: status %.32s", status));
	}
	if ((c = authz_pick(challs, "http-01", ACME_CHALLENGE_HTTP01)) != NULL)
		rc = challenge_tell(c, ACME_CHALLENGE_HTTP01);
	else if ((c = authz_pick(challs, "tls-alpn-01",
	    ACME_CHALLENGE_TLSALPN01)) != NULL)
		rc = challenge_tell(c, ACME_CHALLENGE_TLSALPN01);
	else
		rc = fail("authorization: no challenge the listeners can "
		    "answer (http-01 needs a plain listener, tls-alpn-01 "
		    "a TLS one)");
	json_decref(j);
	return (rc);
}

static enum step_rc
step_respond(void)
{
	struct https_resp	 r;
	json_t			*j;

	if ((j = post_json("challenge", o.chall, o_kid, "{}", 200, 200,
	    &r)) == NULL)
		return (STEP_FAIL);
	json_decref(j);
	https_resp_free(&r);
	o.polls = 0;
	return (STEP_NEXT);
}

/* again after Retry-After, within bounds, a bounded number of times */
static enum step_rc
poll_again(const char *what, const struct https_resp *r)
{
	if (++o.polls > ORDER_POLLS_MAX)
		return (fail("%s: still not done after %d polls", what,
		    ORDER_POLLS_MAX));
	o.wait = r->retry_after > 0 ? r->retry_after : ORDER_WAIT_DEFAULT;
	o.wait = MAXIMUM(ORDER_WAIT_MIN, MINIMUM(o.wait, ORDER_WAIT_MAX));
	return (STEP_AGAIN);
}

/* why the server found the challenge wrong: its error, if it says */
static enum step_rc
authz_invalid(json_t *j)
{
	json_t		*challs, *c;
	const char	*type, *detail;
	size_t		 i;

	if (json_unpack(j, "{s:o}", "challenges", &challs) == 0)
		json_array_foreach(challs, i, c) {
			if (json_unpack(c, "{s:{s:s, s:s}}", "error", "type",
			    &type, "detail", &detail) == 0)
				return (fail("challenge: %s: %s", type,
				    detail));
		}
	return (fail("authorization: invalid"));
}

static void
challenge_end(void)
{
	if (o.ch.type == 0)
		return;
	o.ch.cert_len = o.ch.key_len = 0;
	acmed_send(IMSG_ACME_CHALLENGE_END, &o.ch, sizeof(o.ch), NULL, 0,
	    NULL, 0);
	o.ch.type = 0;
}

static enum step_rc
step_authz_poll(void)
{
	struct https_resp	 r;
	json_t			*j;
	const char		*status;
	enum step_rc		 rc;

	if ((j = post_json("authorization", o.authz, o_kid, "", 200, 200,
	    &r)) == NULL)
		return (STEP_FAIL);
	if (json_unpack(j, "{s:s}", "status", &status) == -1)
		rc = fail("authorization: no status");
	else if (strcmp(status, "valid") == 0) {
		challenge_end();
		rc = STEP_NEXT;
	} else if (strcmp(status, "pending") == 0 ||
	    strcmp(status, "processing") == 0)
		rc = poll_again("authorization", &r);
	else if (strcmp(status, "invalid") == 0)
		rc = authz_invalid(j);
	else
		rc = fail("authorization: status %.32s", status);
	json_decref(j);
	https_resp_free(&r);
	return (rc);
}

static enum step_rc
step_finalize(void)
{
	struct https_resp	 r;
	json_t			*j;
	char			*csr, *payload;

	free(o.key);
	o.key = NULL;
	if (cert_csr(o.host, &csr, &o.key, o.err, sizeof(o.err)) == -1)
		return (STEP_FAIL);
	j = json_pack("{s:s}", "csr", csr);
	free(csr);
	if (j == NULL || (payload = json_dumps(j, JSON_COMPACT)) == NULL) {
		json_decref(j);
		return (fail("out of memory"));
	}
	json_decref(j);
	j = post_json("finalize", o.finalize, o_kid, payload, 200, 200, &r);
	free(payload);
	if (j == NULL)
		return (STEP_FAIL);
	json_decref(j);
	https_resp_free(&r);
	o.polls = 0;
	return (STEP_NEXT);
}

static enum step_rc
step_order_poll(void)
{
	struct https_resp	 r;
	json_t			*j;
	const char		*status, *cert = NULL;
	enum step_rc		 rc;

	if ((j = post_json("order", o.order, o_kid, "", 200, 200, &r)) ==
	    NULL)
		return (STEP_FAIL);
	if (json_unpack(j, "{s:s, s?s}", "status", &status, "certificate",
	    &cert) == -1)
		rc = fail("order: no status");
	else if (strcmp(status, "valid") == 0)
		rc = url_copy(o.cert, cert) == 0 ? STEP_NEXT :
		    fail("order: valid, without a certificate URL");
	else if (strcmp(status, "processing") == 0 ||
	    strcmp(status, "ready") == 0)
		rc = poll_again("order", &r);
	else
		rc = fail("order: status %.32s", status);
	json_decref(j);
	https_resp_free(&r);
	return (rc);
}

static enum step_rc
step_download(void)
{
	struct https_resp	 r;
	int64_t			 nb, na;
	char			 issuer[ACME_ISSUER_MAX];

	if (post(o.cert, o_kid, "", &r) == -1)
		return (STEP_FAIL);
	if (r.status != 200) {
		(void)fail_problem("certificate", &r);
		https_resp_free(&r);
		return (STEP_FAIL);
	}
	/* what the parent takes, at most */
	if (r.len > ACMED_CHAIN_MAX) {
		https_resp_free(&r);
		return (fail("certificate: a chain over %d bytes",
		    ACMED_CHAIN_MAX));
	}
	if (cert_chain_info(r.body, r.len, &nb, &na, issuer,
	    sizeof(issuer)) == -1) {
		https_resp_free(&r);
		return (fail("certificate: not a PEM chain"));
	}
	o.done(o.host, r.body, r.len, o.key, NULL);
	https_resp_free(&r);
	return (STEP_NEXT);
}

static void
order_end(void)
{
	order_done_fn	 done = o.done;
	char		 host[ORCHD_HOST_MAX], err[ACME_ERROR_MAX];

	challenge_end();
	if (o.key != NULL) {
		explicit_bzero(o.key, strlen(o.key));
		free(o.key);
		o.key = NULL;
	}
	strlcpy(host, o.host, sizeof(host));
	strlcpy(err, o.err, sizeof(err));
	o.busy = 0;
	if (err[0] != '\0')
		done(host, NULL, 0, NULL, err);
}

static void
order_schedule(int64_t sec)
{
	struct timeval	 tv;

	tv.tv_sec = sec;
	tv.tv_usec = 0;
	evtimer_add(&o.ev, &tv);
}

/* one step, then the next one from the event loop */
static void
order_run(int fd, short event, void *arg)
{
	enum step_rc	 rc;

	rc = steps[o.step]();
	switch (rc) {
	case STEP_NEXT:
		if (++o.step == (int)nitems(steps)) {
			order_end();
			return;
		}
		order_schedule(0);
		return;
	case STEP_AGAIN:
		order_schedule(o.wait);
		return;
	case STEP_FAIL:
		if (o.err[0] == '\0')
			strlcpy(o.err, "failed", sizeof(o.err));
		log_warnx("%s: %s", o.host, o.err);
		/* the account or directory may be what broke: ask again */
		o_nonce[0] = '\0';
		order_end();
		return;
	}
}

void
order_start(const char *host, order_done_fn done)
{
	if (o.busy)
		fatalx("%s: an issuance is under way", __func__);
	memset(&o, 0, sizeof(o));
	o.busy = 1;
	strlcpy(o.host, host, sizeof(o.host));
	o.done = done;
	evtimer_set(&o.ev, order_run, NULL);
	log_info("%s: ordering a certificate", host);
	order_schedule(0);
}
