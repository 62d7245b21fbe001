/*
 * The ACME account key and the JSON Web Signatures made with it (RFC
 * 7515, as RFC 8555 section 6.2 uses them).  The key is ECDSA P-256,
 * made by libcrypto on the first start and kept in acmed's chroot at
 * mode 0600; only this process ever holds it.  A request is signed with
 * ES256: the protected header names the key by its JWK (newAccount) or
 * by the account's URL ("kid", every other request), with the nonce and
 * the URL.  ES256's signature is r and s, 32 bytes each, not the DER
 * that libcrypto makes.  External account binding (RFC 8555 7.3.4) is
 * an HS256 JWS over the account key's JWK, made with the CA's key.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <jansson.h>

#include "acmed.h"
#include "log.h"

#define ES256_HALF	32	/* r and s, each */

static EVP_PKEY	*jws_key;
static char	 jws_thumb[64];	/* base64url of SHA-256: 43 bytes */

/* base64 without padding, '-' and '_' for '+' and '/' */
char *
b64url(const unsigned char *in, size_t len)
{
	char	*out;
	size_t	 i, n;

	if (len > 1024 * 1024 ||
	    (out = malloc(4 * ((len + 2) / 3) + 1)) == NULL)
		return (NULL);
	n = EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	for (i = 0; i < n; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return (out);
}

/* base64url (padded or not) into out, at most size bytes */
int
b64url_decode(const char *in, unsigned char *out, size_t size, size_t *len)
{
	char		*tmp;
	unsigned char	*raw;
	size_t		 n = strlen(in), i, pad;
	int		 r;

	while (n > 0 && in[n - 1] == '=')
		n--;
	if (n == 0 || n > 4096 || n % 4 == 1)
		return (-1);
	pad = (4 - n % 4) % 4;
	if ((tmp = malloc(n + pad + 1)) == NULL)
		return (-1);
	for (i = 0; i < n; i++) {
		if (in[i] == '-')
			tmp[i] = '+';
		else if (in[i] == '_')
			tmp[i] = '/';
		else if (in[i] == '+' || in[i] == '/') {
			free(tmp);
			return (-1);
		} else
			tmp[i] = in[i];
	}
	memset(tmp + n, '=', pad);
	tmp[n + pad] = '\0';
	if ((raw = malloc((n + pad) / 4 * 3)) == NULL) {
		free(tmp);
		return (-1);
	}
	r = EVP_DecodeBlock(raw, (unsigned char *)tmp, (int)(n + pad));
	free(tmp);
	if (r < 0 || (size_t)r < pad || (size_t)r - pad > size) {
		free(raw);
		return (-1);
	}
	*len = (size_t)r - pad;
	memcpy(out, raw, *len);
	free(raw);
	return (0);
}

static char *
b64url_str(const char *s)
{
	return (b64url((const unsigned char *)s, strlen(s)));
}

/* one coordinate of the public key, 32 bytes, base64url */
static char *
jws_coord(const char *param)
{
	unsigned char	 buf[ES256_HALF];
	BIGNUM		*bn = NULL;
	char		*s = NULL;

	if (EVP_PKEY_get_bn_param(jws_key, param, &bn) == 1 &&
	    BN_bn2binpad(bn, buf, sizeof(buf)) == sizeof(buf))
		s = b64url(buf, sizeof(buf));
	BN_free(bn);
	return (s);
}

/* the JWK of the public key: crv, kty, x, y, in the order of RFC 7638 */
static json_t *
jws_jwk(void)
{
	json_t	*jwk;
	char	*x, *y;

	x = jws_coord(OSSL_PKEY_PARAM_EC_PUB_X);
	y = jws_coord(OSSL_PKEY_PARAM_EC_PUB_Y);
	if (x == NULL || y == NULL)
		jwk = NULL;
	else
		jwk = json_pack("{s:s, s:s, s:s, s:s}", "crv", "P-256",
		    "kty", "EC", "x", x, "y", y);
	free(x);
	free(y);
	return (jwk);
}

/* RFC 7638: SHA-256 of the JWK's required members, sorted, no spaces */
static int
jws_thumb_make(void)
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen;
	json_t		*jwk;
	char		*s, *b;
	int		 r = -1;

	if ((jwk = jws_jwk()) == NULL)
		return (-1);
	s = json_dumps(jwk, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(jwk);
	if (s == NULL)
		return (-1);
	if (EVP_Digest(s, strlen(s), md, &mdlen, EVP_sha256(), NULL) == 1 &&
	    (b = b64url(md, mdlen)) != NULL) {
		r = strlcpy(jws_thumb, b, sizeof(jws_thumb)) <
		    sizeof(jws_thumb) ? 0 : -1;
		free(b);
	}
	free(s);
	return (r);
}

const char *
jws_thumbprint(void)
{
	return (jws_thumb);
}

void
jws_set_key(void *pkey)
{
	if (jws_key != NULL && jws_key != pkey)
		EVP_PKEY_free(jws_key);
	jws_key = pkey;
	if (pkey == NULL)
		return;		/* the tests: forgotten */
	if (jws_thumb_make() == -1)
		fatalx("account key: no thumbprint");
}

/* a P-256 key, and nothing else, is taken from the file */
static int
jws_key_check(EVP_PKEY *k)
{
	char	 group[32];
	size_t	 len;

	return (EVP_PKEY_get_base_id(k) == EVP_PKEY_EC &&
	    EVP_PKEY_get_group_name(k, group, sizeof(group), &len) == 1 &&
	    strcmp(group, "prime256v1") == 0 ? 0 : -1);
}

static EVP_PKEY *
jws_key_read(int fd, char *err, size_t errlen)
{
	EVP_PKEY	*k;
	FILE		*f;

	if ((f = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "fdopen: %s", strerror(errno));
		close(fd);
		return (NULL);
	}
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (k == NULL || jws_key_check(k) == -1) {
		snprintf(err, errlen, "not an ECDSA P-256 key in PEM");
		EVP_PKEY_free(k);
		return (NULL);
	}
	return (k);
}

/* made once, written whole to a temporary file, then renamed */
static EVP_PKEY *
jws_key_new(const char *path, char *err, size_t errlen)
{
	EVP_PKEY	*k;
	FILE		*f;
	char		 tmp[256];
	int		 fd;

	if ((k = EVP_EC_gen("P-256")) == NULL) {
		snprintf(err, errlen, "cannot make a key");
		return (NULL);
	}
	(void)snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		EVP_PKEY_free(k);
		return (NULL);
	}
	if (PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) != 1 ||
	    fflush(f) != 0 || fsync(fd) == -1) {
		snprintf(err, errlen, "%s: cannot write", tmp);
		fclose(f);
		(void)unlink(tmp);
		EVP_PKEY_free(k);
		return (NULL);
	}
	fclose(f);
	if (rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		(void)unlink(tmp);
		EVP_PKEY_free(k);
		return (NULL);
	}
	log_info("account key: made %s", path);
	return (k);
}

/* the account key: the one kept, else a new one, kept from now on */
int
jws_account_key(const char *path, char *err, size_t errlen)
{
	struct stat	 sb;
	EVP_PKEY	*k;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    (sb.st_mode & 077) != 0 || sb.st_uid != geteuid()) {
			snprintf(err, errlen, "%s: not a file of ours of "
			    "mode 0600", path);
			close(fd);
			return (-1);
		}
		k = jws_key_read(fd, err, errlen);
	} else if (errno == ENOENT)
		k = jws_key_new(path, err, errlen);
	else {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (k == NULL)
		return (-1);
	jws_set_key(k);
	return (0);
}

/* libcrypto's DER ECDSA signature, as ES256's r || s */
static char *
jws_es256(const char *input)
{
	unsigned char	 der[128], raw[2 * ES256_HALF];
	const unsigned char *p = der;
	size_t		 derlen = sizeof(der);
	EVP_MD_CTX	*md;
	ECDSA_SIG	*sig = NULL;
	const BIGNUM	*r, *s;
	char		*out = NULL;

	if ((md = EVP_MD_CTX_new()) == NULL)
		return (NULL);
	if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, jws_key) != 1 ||
	    EVP_DigestSign(md, der, &derlen, (const unsigned char *)input,
	    strlen(input)) != 1 ||
	    (sig = d2i_ECDSA_SIG(NULL, &p, (long)derlen)) == NULL)
		goto done;
	ECDSA_SIG_get0(sig, &r, &s);
	if (BN_bn2binpad(r, raw, ES256_HALF) != ES256_HALF ||
	    BN_bn2binpad(s, raw + ES256_HALF, ES256_HALF) != ES256_HALF)
		goto done;
	out = b64url(raw, sizeof(raw));
 done:
	ECDSA_SIG_free(sig);
	EVP_MD_CTX_free(md);
	return (out);
}

/* the flattened JSON serialization of three base64url parts */
static char *
jws_flat(const char *prot, const char *payload, const char *sig)
{
	json_t	*o;
	char	*s;

	if ((o = json_pack("{s:s, s:s, s:s}", "protected", prot, "payload",
	    payload, "signature", sig)) == NULL)
		return (NULL);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return (s);
}

/*
 * A request's body: payload (JSON text, or "" for POST-as-GET) signed
 * for url with nonce, the key named by kid, or by its JWK if kid is
 * NULL.
 */
char *
jws_sign(const char *url, const char *nonce, const char *kid,
    const char *payload)
{
	json_t	*hdr;
	char	*h = NULL, *bh = NULL, *bp = NULL, *input = NULL;
	char	*sig = NULL, *out = NULL;

	if (kid != NULL)
		hdr = json_pack("{s:s, s:s, s:s, s:s}", "alg", "ES256",
		    "kid", kid, "nonce", nonce, "url", url);
	else
		hdr = json_pack("{s:s, s:o?, s:s, s:s}", "alg", "ES256",
		    "jwk", jws_jwk(), "nonce", nonce, "url", url);
	if (hdr == NULL)
		return (NULL);
	h = json_dumps(hdr, JSON_COMPACT);
	json_decref(hdr);
	if (h == NULL || (bh = b64url_str(h)) == NULL ||
	    (bp = b64url_str(payload)) == NULL ||
	    asprintf(&input, "%s.%s", bh, bp) == -1) {
		input = NULL;
		goto done;
	}
	if ((sig = jws_es256(input)) != NULL)
		out = jws_flat(bh, bp, sig);
 done:
	free(h);
	free(bh);
	free(bp);
	free(input);
	free(sig);
	return (out);
}

/*
 * externalAccountBinding: the account key's JWK signed with HS256 by
 * the CA's key (hmac, base64url) under its kid, for url (newAccount).
 */
json_t *
jws_eab(const char *kid, const char *hmac, const char *url, char *err,
    size_t errlen)
{
	unsigned char	 key[ACME_EAB_MAX], md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;
	size_t		 keylen;
	json_t		*hdr, *jwk, *o = NULL;
	char		*h = NULL, *j = NULL, *bh = NULL, *bj = NULL;
	char		*input = NULL, *sig = NULL;

	if (b64url_decode(hmac, key, sizeof(key), &keylen) == -1) {
		snprintf(err, errlen, "eab hmac: not base64url");
		return (NULL);
	}
	hdr = json_pack("{s:s, s:s, s:s}", "alg", "HS256", "kid", kid, "url",
	    url);
	jwk = jws_jwk();
	if (hdr != NULL && jwk != NULL) {
		h = json_dumps(hdr, JSON_COMPACT);
		j = json_dumps(jwk, JSON_COMPACT);
	}
	json_decref(hdr);
	json_decref(jwk);
	if (h == NULL || j == NULL || (bh = b64url_str(h)) == NULL ||
	    (bj = b64url_str(j)) == NULL ||
	    asprintf(&input, "%s.%s", bh, bj) == -1) {
		input = NULL;
		snprintf(err, errlen, "eab: out of memory");
		goto done;
	}
	if (HMAC(EVP_sha256(), key, (int)keylen, (unsigned char *)input,
	    strlen(input), md, &mdlen) == NULL ||
	    (sig = b64url(md, mdlen)) == NULL) {
		snprintf(err, errlen, "eab: HMAC failed");
		goto done;
	}
	o = json_pack("{s:s, s:s, s:s}", "protected", bh, "payload", bj,
	    "signature", sig);
 done:
	explicit_bzero(key, sizeof(key));
	free(h);
	free(j);
	free(bh);
	free(bj);
	free(input);
	free(sig);
	return (o);
}
