/*
 * ACME's pieces that need no server: acmed's base64url, its JWS (ES256:
 * r || s, verified here by libcrypto against the JWK it carries), the
 * request (CSR) for a host, the tls-alpn-01 certificate (RFC 8737's
 * critical acmeIdentifier) and the dates of a chain; and the parent's
 * checks of what acmed sends (orchd/acme_relay.c): a forged, oversized
 * or unterminated CHALLENGE, CERT or STATUS, or one for a host that no
 * workload answers, is refused.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "conf.h"
#include "../../orchd/parent.h"
#include "../../acmed/acmed.h"

struct orchd	*orchd_env;		/* acme_relay.o's, unused here */

static void
test_b64url(void **state)
{
	unsigned char	 out[16];
	size_t		 len;
	char		*s;

	s = b64url((const unsigned char *)"\xfb\xff\xfe", 3);
	assert_string_equal(s, "-__-");
	free(s);
	s = b64url((const unsigned char *)"ab", 2);
	assert_string_equal(s, "YWI");		/* no padding */
	free(s);
	assert_int_equal(b64url_decode("YWI", out, sizeof(out), &len), 0);
	assert_int_equal(len, 2);
	assert_memory_equal(out, "ab", 2);
	assert_int_equal(b64url_decode("-__-", out, sizeof(out), &len), 0);
	assert_memory_equal(out, "\xfb\xff\xfe", 3);
	/* not base64url: '+', too long for the buffer, one char left */
	assert_int_equal(b64url_decode("+/+/", out, sizeof(out), &len), -1);
	assert_int_equal(b64url_decode("YWJjZGVmZ2hpamtsbW5vcHFyc3R1",
	    out, 4, &len), -1);
	assert_int_equal(b64url_decode("YWJjZ", out, sizeof(out), &len), -1);
}

static EVP_PKEY *
key_new(void)
{
	EVP_PKEY	*k = EVP_EC_gen("P-256");

	assert_non_null(k);
	return (k);
}

/* base64url part of a JWS as a string */
static char *
part(json_t *jws, const char *name, size_t *len)
{
	unsigned char	*buf = malloc(4096);
	const char	*s = json_string_value(json_object_get(jws, name));

	assert_non_null(s);
	assert_int_equal(b64url_decode(s, buf, 4095, len), 0);
	buf[*len] = '\0';
	return ((char *)buf);
}

static void
test_jws(void **state)
{
	EVP_PKEY	*k = key_new();
	json_t		*jws, *hdr;
	char		*body, *prot, *pay, *input;
	unsigned char	 sig[64], *der = NULL;
	size_t		 len, siglen;
	const char	*p, *s;
	ECDSA_SIG	*es;
	EVP_MD_CTX	*md;
	int		 derlen;

	jws_set_key(k);
	assert_int_equal(strlen(jws_thumbprint()), 43);
	body = jws_sign("https://ca.test/new-order", "NONCE", NULL,
	    "{\"a\":1}");
	assert_non_null(body);
	jws = json_loads(body, 0, NULL);
	assert_non_null(jws);
	prot = part(jws, "protected", &len);
	hdr = json_loads(prot, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(hdr, "alg")),
	    "ES256");
	assert_string_equal(json_string_value(json_object_get(hdr, "nonce")),
	    "NONCE");
	assert_string_equal(json_string_value(json_object_get(hdr, "url")),
	    "https://ca.test/new-order");
	assert_non_null(json_object_get(hdr, "jwk"));
	assert_null(json_object_get(hdr, "kid"));
	pay = part(jws, "payload", &len);
	assert_string_equal(pay, "{\"a\":1}");
	/* the signature: r || s, 64 bytes, over "protected.payload" */
	s = json_string_value(json_object_get(jws, "signature"));
	assert_int_equal(b64url_decode(s, sig, sizeof(sig), &siglen), 0);
	assert_int_equal(siglen, 64);
	es = ECDSA_SIG_new();
	assert_int_equal(ECDSA_SIG_set0(es, BN_bin2bn(sig, 32, NULL),
	    BN_bin2bn(sig + 32, 32, NULL)), 1);
	derlen = i2d_ECDSA_SIG(es, &der);
	assert_true(derlen > 0);
	p = json_string_value(json_object_get(jws, "protected"));
	assert_true(asprintf(&input, "%s.%s", p,
	    json_string_value(json_object_get(jws, "payload"))) > 0);
	md = EVP_MD_CTX_new();
	assert_int_equal(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL,
	    k), 1);
	assert_int_equal(EVP_DigestVerify(md, der, derlen,
	    (unsigned char *)input, strlen(input)), 1);
	EVP_MD_CTX_free(md);
	OPENSSL_free(der);
	ECDSA_SIG_free(es);
	free(input);
	free(prot);
	free(pay);
	json_decref(hdr);
	json_decref(jws);
	free(body);

	/* by kid, POST-as-GET: no jwk, an empty payload */
	body = jws_sign("https://ca.test/order/1", "N2",
	    "https://ca.test/acct/1", "");
	jws = json_loads(body, 0, NULL);
	prot = part(jws, "protected", &len);
	hdr = json_loads(prot, 0, NULL);
	assert_null(json_object_get(hdr, "jwk"));
	assert_string_equal(json_string_value(json_object_get(hdr, "kid")),
	    "https://ca.test/acct/1");
	assert_string_equal(json_string_value(json_object_get(jws,
	    "payload")), "");
	json_decref(hdr);
	json_decref(jws);
	free(prot);
	free(body);
}

static void
test_eab(void **state)
{
	char	 err[128];
	json_t	*o;

	jws_set_key(key_new());
	o = jws_eab("kid-1", "c2VjcmV0LWtleS1mb3ItdGVzdHM", "https://ca.test/"
	    "new-acct", err, sizeof(err));
	assert_non_null(o);
	assert_non_null(json_object_get(o, "signature"));
	json_decref(o);
	assert_null(jws_eab("kid-1", "not base64url!", "https://x/", err,
	    sizeof(err)));
	jws_set_key(NULL);
}

static void
test_csr(void **state)
{
	char		*csr, *key, err[128];
	unsigned char	 der[4096];
	const unsigned char *p = der;
	size_t		 len;
	X509_REQ	*req;
	STACK_OF(X509_EXTENSION) *exts;
	GENERAL_NAMES	*gens;
	GENERAL_NAME	*g;

	assert_int_equal(cert_csr("app.example.test", &csr, &key, err,
	    sizeof(err)), 0);
	assert_non_null(strstr(key, "PRIVATE KEY"));
	assert_int_equal(b64url_decode(csr, der, sizeof(der), &len), 0);
	req = d2i_X509_REQ(NULL, &p, (long)len);
	assert_non_null(req);
	assert_int_equal(X509_REQ_verify(req, X509_REQ_get0_pubkey(req)), 1);
	exts = X509_REQ_get_extensions(req);
	assert_non_null(exts);
	gens = X509V3_get_d2i(exts, NID_subject_alt_name, NULL, NULL);
	assert_non_null(gens);
	assert_int_equal(sk_GENERAL_NAME_num(gens), 1);
	g = sk_GENERAL_NAME_value(gens, 0);
	assert_int_equal(g->type, GEN_DNS);
	assert_string_equal((const char *)ASN1_STRING_get0_data(g->d.dNSName),
	    "app.example.test");
	GENERAL_NAMES_free(gens);
	sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
	X509_REQ_free(req);
	free(csr);
	free(key);
}

static void
test_alpn(void **state)
{
	char		*cert, *key, err[128];
	unsigned char	 md[32];
	BIO		*b;
	X509		*x;
	ASN1_OBJECT	*obj;
	X509_EXTENSION	*ext;
	const ASN1_OCTET_STRING *v;
	int		 i;
	int64_t		 nb, na;
	char		 issuer[128];

	assert_int_equal(cert_alpn("app.example.test", "tok.thumb", &cert,
	    &key, err, sizeof(err)), 0);
	b = BIO_new_mem_buf(cert, -1);
	x = PEM_read_bio_X509(b, NULL, NULL, NULL);
	assert_non_null(x);
	obj = OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1);
	i = X509_get_ext_by_OBJ(x, obj, -1);
	assert_true(i >= 0);
	ext = X509_get_ext(x, i);
	assert_int_equal(X509_EXTENSION_get_critical(ext), 1);
	/* an OCTET STRING of the SHA-256, DER inside the extension */
	v = X509_EXTENSION_get_data(ext);
	assert_int_equal(ASN1_STRING_length(v), 34);
	assert_int_equal(ASN1_STRING_get0_data(v)[0], 0x04);
	assert_int_equal(ASN1_STRING_get0_data(v)[1], 32);
	EVP_Digest("tok.thumb", 9, md, NULL, EVP_sha256(), NULL);
	assert_memory_equal(ASN1_STRING_get0_data(v) + 2, md, 32);
	assert_int_equal(cert_chain_info(cert, strlen(cert), &nb, &na, issuer,
	    sizeof(issuer)), 0);
	assert_true(na > nb);
	assert_string_equal(issuer, "app.example.test");
	assert_int_equal(cert_chain_info("junk", 4, &nb, &na, issuer,
	    sizeof(issuer)), -1);
	ASN1_OBJECT_free(obj);
	X509_free(x);
	BIO_free(b);
	free(cert);
	free(key);
}

/* the parent's checks: one workload answering a.test and *.pr.test */
static struct orchd_conf	 conf;
static struct workload_conf	 wl;

static void
acme_conf_init(void)
{
	static struct strentry	 h1, h2;

	TAILQ_INIT(&conf.workloads);
	TAILQ_INIT(&wl.hosts);
	h1.str = "a.test";
	h2.str = "*.pr.test";
	TAILQ_INSERT_TAIL(&wl.hosts, &h1, entry);
	TAILQ_INSERT_TAIL(&wl.hosts, &h2, entry);
	TAILQ_INSERT_TAIL(&conf.workloads, &wl, entry);
}

static void
test_hosts(void **state)
{
	acme_conf_init();
	assert_true(acme_host_ok("a.test"));
	assert_false(acme_host_ok("localhost"));
	assert_false(acme_host_ok("A.test"));
	assert_false(acme_host_ok("a..test"));
	assert_false(acme_host_ok("-a.test"));
	assert_false(acme_host_ok("a-.test"));
	assert_false(acme_host_ok("127.0.0.1"));
	assert_false(acme_host_ok("a.test/../x"));
	assert_false(acme_host_ok("*.pr.test"));
	assert_true(acme_host_routes(&conf, "a.test"));
	assert_true(acme_host_routes(&conf, "x.pr.test"));
	assert_true(acme_host_routes(&conf, "y.x.pr.test"));
	assert_false(acme_host_routes(&conf, "pr.test"));
	assert_false(acme_host_routes(&conf, "b.test"));
	assert_false(acme_host_routes(&conf, "xpr.test"));
}

#define CERT_PEM	"-----BEGIN CERTIFICATE-----\nMIIB\n" \
			"-----END CERTIFICATE-----\n"
#define KEY_PEM		"-----BEGIN PRIVATE KEY-----\nMIIB\n" \
			"-----END PRIVATE KEY-----\n"

/* a CERT message: header, chain, key */
static size_t
cert_msg(uint8_t *buf, const char *name, const char *chain,
    const char *key, int64_t not_after)
{
	struct acme_cert	 ac;

	memset(&ac, 0, sizeof(ac));
	strlcpy(ac.name, name, sizeof(ac.name));
	ac.not_after = not_after;
	ac.chain_len = strlen(chain);
	ac.key_len = strlen(key);
	memcpy(buf, &ac, sizeof(ac));
	memcpy(buf + sizeof(ac), chain, ac.chain_len);
	memcpy(buf + sizeof(ac) + ac.chain_len, key, ac.key_len);
	return (sizeof(ac) + ac.chain_len + ac.key_len);
}

static void
test_check_cert(void **state)
{
	uint8_t			 buf[8192];
	struct acme_cert	 ac;
	size_t			 n;
	int64_t			 later = time(NULL) + 86400;

	acme_conf_init();
	n = cert_msg(buf, "a.test", CERT_PEM, KEY_PEM, later);
	assert_null(acme_check_cert(&conf, buf, n));
	n = cert_msg(buf, "x.pr.test", CERT_PEM, KEY_PEM, later);
	assert_null(acme_check_cert(&conf, buf, n));
	/* a host no workload answers */
	n = cert_msg(buf, "evil.test", CERT_PEM, KEY_PEM, later);
	assert_non_null(acme_check_cert(&conf, buf, n));
	/* lengths that do not add up: longer, shorter, wrapping */
	n = cert_msg(buf, "a.test", CERT_PEM, KEY_PEM, later);
	assert_non_null(acme_check_cert(&conf, buf, n + 1));
	assert_non_null(acme_check_cert(&conf, buf, n - 1));
	memcpy(&ac, buf, sizeof(ac));
	ac.chain_len = UINT32_MAX;
	ac.key_len = (uint32_t)(n - sizeof(ac)) + 1;
	memcpy(buf, &ac, sizeof(ac));
	assert_non_null(acme_check_cert(&conf, buf, n));
	/* an unterminated name */
	n = cert_msg(buf, "a.test", CERT_PEM, KEY_PEM, later);
	memset(buf, 'a', ORCHD_HOST_MAX);
	assert_non_null(acme_check_cert(&conf, buf, n));
	/* not PEM, a NUL inside, expired, too short */
	n = cert_msg(buf, "a.test", "junk", KEY_PEM, later);
	assert_non_null(acme_check_cert(&conf, buf, n));
	n = cert_msg(buf, "a.test", CERT_PEM, "-----BEGIN CERTIFICATE-----\n",
	    later);
	assert_non_null(acme_check_cert(&conf, buf, n));
	n = cert_msg(buf, "a.test", CERT_PEM, KEY_PEM, later);
	buf[sizeof(ac) + 30] = '\0';
	assert_non_null(acme_check_cert(&conf, buf, n));
	n = cert_msg(buf, "a.test", CERT_PEM, KEY_PEM, 1);
	assert_non_null(acme_check_cert(&conf, buf, n));
	assert_non_null(acme_check_cert(&conf, buf, sizeof(ac) - 1));
}

static void
test_check_cert_oversized(void **state)
{
	uint8_t		*buf;
	char		*big;
	size_t		 n;

	acme_conf_init();
	big = malloc(70 * 1024);
	memset(big, 'A', 70 * 1024 - 1);
	big[70 * 1024 - 1] = '\0';
	memcpy(big, CERT_PEM, strlen(CERT_PEM));
	buf = malloc(80 * 1024);
	n = cert_msg(buf, "a.test", big, KEY_PEM, time(NULL) + 60);
	assert_non_null(acme_check_cert(&conf, buf, n));
	free(buf);
	free(big);
}

static void
test_check_status(void **state)
{
	struct acme_status	 st;

	acme_conf_init();
	memset(&st, 0, sizeof(st));
	strlcpy(st.name, "a.test", sizeof(st.name));
	strlcpy(st.issuer, "Pebble", sizeof(st.issuer));
	st.state = ACME_STATE_VALID;
	assert_null(acme_check_status(&conf, &st, sizeof(st)));
	assert_non_null(acme_check_status(&conf, &st, sizeof(st) - 1));
	st.state = 99;
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	st.state = ACME_STATE_FAILED;
	memset(st.error, 'x', sizeof(st.error));	/* unterminated */
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	strlcpy(st.error, "bad\033[2J", sizeof(st.error));
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	strlcpy(st.error, "refused", sizeof(st.error));
	st.not_after = -5;
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	st.not_after = 0;
	strlcpy(st.name, "Not a host", sizeof(st.name));
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	strlcpy(st.name, "evil.test", sizeof(st.name));
	assert_non_null(acme_check_status(&conf, &st, sizeof(st)));
	strlcpy(st.name, "x.pr.test", sizeof(st.name));
	assert_null(acme_check_status(&conf, &st, sizeof(st)));
}

static void
test_check_challenge(void **state)
{
	struct acme_challenge	 ch;
	uint8_t			 buf[4096];

	acme_conf_init();
	memset(&ch, 0, sizeof(ch));
	strlcpy(ch.name, "a.test", sizeof(ch.name));
	ch.type = ACME_CHALLENGE_HTTP01;
	strlcpy(ch.token, "tok_en-123", sizeof(ch.token));
	strlcpy(ch.keyauth, "tok_en-123.thumb", sizeof(ch.keyauth));
	assert_null(acme_check_challenge(&conf, &ch, sizeof(ch), 0));
	assert_null(acme_check_challenge(&conf, &ch, sizeof(ch), 1));
	/* a token that is a path */
	strlcpy(ch.token, "../../x", sizeof(ch.token));
	strlcpy(ch.keyauth, "../../x.thumb", sizeof(ch.keyauth));
	assert_non_null(acme_check_challenge(&conf, &ch, sizeof(ch), 0));
	strlcpy(ch.token, "tok", sizeof(ch.token));
	strlcpy(ch.keyauth, "other.thumb", sizeof(ch.keyauth));
	assert_non_null(acme_check_challenge(&conf, &ch, sizeof(ch), 0));
	strlcpy(ch.keyauth, "tok.th umb", sizeof(ch.keyauth));
	assert_non_null(acme_check_challenge(&conf, &ch, sizeof(ch), 0));
	strlcpy(ch.keyauth, "tok.thumb", sizeof(ch.keyauth));
	ch.type = 3;
	assert_non_null(acme_check_challenge(&conf, &ch, sizeof(ch), 0));
	/* http-01 with bytes after it; tls-alpn-01 without PEM */
	ch.type = ACME_CHALLENGE_HTTP01;
	ch.cert_len = 4;
	memcpy(buf, &ch, sizeof(ch));
	memcpy(buf + sizeof(ch), "abcd", 4);
	assert_non_null(acme_check_challenge(&conf, buf, sizeof(ch) + 4, 0));
	ch.type = ACME_CHALLENGE_TLSALPN01;
	ch.cert_len = strlen(CERT_PEM);
	ch.key_len = strlen(KEY_PEM);
	memcpy(buf, &ch, sizeof(ch));
	memcpy(buf + sizeof(ch), CERT_PEM, ch.cert_len);
	memcpy(buf + sizeof(ch) + ch.cert_len, KEY_PEM, ch.key_len);
	assert_null(acme_check_challenge(&conf, buf, sizeof(ch) +
	    ch.cert_len + ch.key_len, 0));
	assert_non_null(acme_check_challenge(&conf, buf, sizeof(ch) +
	    ch.cert_len + ch.key_len - 1, 0));
	strlcpy(ch.name, "evil.test", sizeof(ch.name));
	memcpy(buf, &ch, sizeof(ch));
	assert_non_null(acme_check_challenge(&conf, buf, sizeof(ch) +
	    ch.cert_len + ch.key_len, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b64url),
		cmocka_unit_test(test_jws),
		cmocka_unit_test(test_eab),
		cmocka_unit_test(test_csr),
		cmocka_unit_test(test_alpn),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_check_cert),
		cmocka_unit_test(test_check_cert_oversized),
		cmocka_unit_test(test_check_status),
		cmocka_unit_test(test_check_challenge),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
