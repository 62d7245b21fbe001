/*
 * The certificates acmed makes and reads, with libcrypto: the request
 * (CSR) of a certificate for one host, signed by a fresh ECDSA P-256 key
 * of its own (never the account key), which goes to the gateways with
 * the certificate; the self-signed certificate that answers tls-alpn-01
 * (RFC 8737: the host in subjectAltName and the SHA-256 of the key
 * authorization in the critical acmeIdentifier extension); and the dates
 * and issuer of a chain, for its renewal.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "acmed.h"
#include "log.h"

#define ACME_IDENTIFIER_OID	"1.3.6.1.5.5.7.1.31"	/* RFC 8737 */
#define ALPN_CERT_DAYS		7

/* a BIO's bytes as a NUL-terminated string of our own */
static char *
bio_string(BIO *b)
{
	char	*data, *s;
	long	 n;

	if ((n = BIO_get_mem_data(b, &data)) <= 0 ||
	    (s = malloc((size_t)n + 1)) == NULL)
		return (NULL);
	memcpy(s, data, (size_t)n);
	s[n] = '\0';
	return (s);
}

static char *
key_pem(EVP_PKEY *k)
{
	BIO	*b;
	char	*s = NULL;

	if ((b = BIO_new(BIO_s_mem())) == NULL)
		return (NULL);
	if (PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL) == 1)
		s = bio_string(b);
	BIO_free(b);
	return (s);
}

/* subjectAltName DNS:host, as one extension */
static X509_EXTENSION *
san_ext(const char *host)
{
	char	 value[ORCHD_HOST_MAX + 8];

	(void)snprintf(value, sizeof(value), "DNS:%s", host);
	return (X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name, value));
}

/*
 * The request for host: *csr its DER in base64url, *key the new key's
 * PEM.  The host is checked by the caller (a host name: letters,
 * digits, '-' and '.'), so it cannot say more than one name.
 */
int
cert_csr(const char *host, char **csr, char **key, char *err, size_t errlen)
{
	STACK_OF(X509_EXTENSION) *exts = NULL;
	X509_EXTENSION	*ext = NULL;
	X509_REQ	*req = NULL;
	X509_NAME	*name;
	EVP_PKEY	*k;
	unsigned char	*der = NULL;
	int		 len, r = -1;

	*csr = *key = NULL;
	if ((k = EVP_EC_gen("P-256")) == NULL) {
		snprintf(err, errlen, "cannot make a key");
		return (-1);
	}
	if ((req = X509_REQ_new()) == NULL ||
	    X509_REQ_set_version(req, 0) != 1 ||
	    (name = X509_REQ_get_subject_name(req)) == NULL ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)host, -1, -1, 0) != 1 ||
	    (ext = san_ext(host)) == NULL ||
	    (exts = sk_X509_EXTENSION_new_null()) == NULL ||
	    sk_X509_EXTENSION_push(exts, ext) == 0)
		goto done;
	ext = NULL;	/* the stack's */
	if (X509_REQ_add_extensions(req, exts) != 1 ||
	    X509_REQ_set_pubkey(req, k) != 1 ||
	    X509_REQ_sign(req, k, EVP_sha256()) <= 0 ||
	    (len = i2d_X509_REQ(req, &der)) <= 0)
		goto done;
	if ((*csr = b64url(der, (size_t)len)) == NULL ||
	    (*key = key_pem(k)) == NULL)
		goto done;
	r = 0;
 done:
	if (r == -1) {
		snprintf(err, errlen, "cannot make the request for %s", host);
		free(*csr);
		free(*key);
		*csr = *key = NULL;
	}
	OPENSSL_free(der);
	X509_EXTENSION_free(ext);
	sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
	X509_REQ_free(req);
	EVP_PKEY_free(k);
	return (r);
}

/* acmeIdentifier: critical, an OCTET STRING of SHA-256(keyauth) */
static X509_EXTENSION *
alpn_ext(const char *keyauth)
{
	unsigned char	 md[EVP_MAX_MD_SIZE], *der = NULL;
	unsigned int	 mdlen;
	ASN1_OCTET_STRING *inner = NULL, *value = NULL;
	ASN1_OBJECT	*obj = NULL;
	X509_EXTENSION	*ext = NULL;
	int		 len;

	if (EVP_Digest(keyauth, strlen(keyauth), md, &mdlen, EVP_sha256(),
	    NULL) != 1 || (inner = ASN1_OCTET_STRING_new()) == NULL ||
	    ASN1_OCTET_STRING_set(inner, md, (int)mdlen) != 1 ||
	    (len = i2d_ASN1_OCTET_STRING(inner, &der)) <= 0 ||
	    (value = ASN1_OCTET_STRING_new()) == NULL ||
	    ASN1_OCTET_STRING_set(value, der, len) != 1 ||
	    (obj = OBJ_txt2obj(ACME_IDENTIFIER_OID, 1)) == NULL)
		goto done;
	ext = X509_EXTENSION_create_by_OBJ(NULL, obj, 1, value);
 done:
	OPENSSL_free(der);
	ASN1_OCTET_STRING_free(inner);
	ASN1_OCTET_STRING_free(value);
	ASN1_OBJECT_free(obj);
	return (ext);
}

static int
alpn_x509(X509 *x, EVP_PKEY *k, const char *host, const char *keyauth)
{
	X509_EXTENSION	*san, *id;
	X509_NAME	*name;
	int		 r;

	if (X509_set_version(x, 2) != 1 ||
	    ASN1_INTEGER_set(X509_get_serialNumber(x), 1) != 1 ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -3600) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x),
	    (long)ALPN_CERT_DAYS * 86400) == NULL ||
	    (name = X509_get_subject_name(x)) == NULL ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)host, -1, -1, 0) != 1 ||
	    X509_set_issuer_name(x, name) != 1 ||
	    X509_set_pubkey(x, k) != 1)
		return (-1);
	san = san_ext(host);
	id = alpn_ext(keyauth);
	r = san != NULL && id != NULL && X509_add_ext(x, san, -1) == 1 &&
	    X509_add_ext(x, id, -1) == 1 &&
	    X509_sign(x, k, EVP_sha256()) > 0 ? 0 : -1;
	X509_EXTENSION_free(san);
	X509_EXTENSION_free(id);
	return (r);
}

/* tls-alpn-01's certificate for host, and its key, both PEM */
int
cert_alpn(const char *host, const char *keyauth, char **cert, char **key,
    char *err, size_t errlen)
{
	EVP_PKEY	*k = NULL;
	X509		*x = NULL;
	BIO		*b = NULL;
	int		 r = -1;

	*cert = *key = NULL;
	if ((k = EVP_EC_gen("P-256")) == NULL || (x = X509_new()) == NULL ||
	    alpn_x509(x, k, host, keyauth) == -1 ||
	    (b = BIO_new(BIO_s_mem())) == NULL ||
	    PEM_write_bio_X509(b, x) != 1 ||
	    (*cert = bio_string(b)) == NULL || (*key = key_pem(k)) == NULL)
		snprintf(err, errlen, "cannot make the tls-alpn-01 "
		    "certificate for %s", host);
	else
		r = 0;
	if (r == -1) {
		free(*cert);
		*cert = NULL;
	}
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(k);
	return (r);
}

static int64_t
asn1_epoch(const ASN1_TIME *t)
{
	struct tm	 tm;

	memset(&tm, 0, sizeof(tm));
	if (ASN1_TIME_to_tm(t, &tm) != 1)
		return (-1);
	return ((int64_t)timegm(&tm));
}

/*
 * The first certificate of a PEM chain: its dates, and its issuer's
 * common name (or the whole name, one line) for orchctl.
 */
int
cert_chain_info(const char *pem, size_t len, int64_t *not_before,
    int64_t *not_after, char *issuer, size_t issuerlen)
{
	X509		*x;
	BIO		*b;
	X509_NAME	*in;
	int		 r = -1;

	if (len > INT32_MAX ||
	    (b = BIO_new_mem_buf(pem, (int)len)) == NULL)
		return (-1);
	x = PEM_read_bio_X509(b, NULL, NULL, NULL);
	BIO_free(b);
	if (x == NULL)
		return (-1);
	*not_before = asn1_epoch(X509_get0_notBefore(x));
	*not_after = asn1_epoch(X509_get0_notAfter(x));
	in = X509_get_issuer_name(x);
	issuer[0] = '\0';
	if (X509_NAME_get_text_by_NID(in, NID_commonName, issuer,
	    (int)issuerlen) <= 0)
		(void)X509_NAME_oneline(in, issuer, (int)issuerlen);
	if (*not_before != -1 && *not_after > *not_before)
		r = 0;
	X509_free(x);
	return (r);
}
