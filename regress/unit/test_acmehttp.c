/*
 * gatewayd/acme_http.c: the http-01 answer and the path it reserves.
 * Requests are parsed by the real head parser; the token table, the
 * answer and the access log are stubs that record what was asked of
 * them.  The tricks of attack_acmegw.sh are here too, with a token
 * pending, so that none of them can match it.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compat.h"
#include "http.h"
#include "msg.h"
#include "../../gatewayd/gateway.h"
#include "../../gatewayd/acme.h"

struct gateway	*gw;
static struct gateway	 gwbuf;

/* what the stubs saw */
static int		 answered;
static char		 answer_body[512];

void
conn_answer(struct gw_conn *c, int status, const char *extra,
    const char *body)
{
	answered = status;
	(void)strlcpy(answer_body, body, sizeof(answer_body));
}

void
accesslog_head(struct gw_conn *c, const struct gw_workload *wl)
{
}

/* the host's table, as acme_store.c keys it */
int
acme_name(const char *in, size_t len, char *out)
{
	size_t	 i;

	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len >= ORCHD_HOST_MAX)
		return (-1);
	for (i = 0; i < len; i++)
		out[i] = tolower((unsigned char)in[i]);
	out[len] = '\0';
	return (0);
}

static int	 in_use;

int
acme_in_use(void)
{
	return (in_use);
}

const char *
acme_token(const char *name, const char *token, size_t len)
{
	if (strcmp(name, "a.test") == 0 && len == 3 &&
	    memcmp(token, "tok", 3) == 0)
		return ("tok.thumbprint");
	return (NULL);
}

static struct gw_conn	 conn;
static struct gw_head	 head;

/* the request line and Host, parsed; 1 when the gateway answered */
static int
ask(const char *method, const char *path, const char *host)
{
	char	 req[1024];
	size_t	 used;
	int	 n;

	n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: %s\r\n\r\n",
	    method, path, host);
	assert_true(n > 0 && (size_t)n < sizeof(req));
	http_req_init(&head.h, head.buf, sizeof(head.buf));
	assert_int_equal(http_head_feed(&head.h, req, n, &used), HTTP_DONE);
	memset(&conn, 0, sizeof(conn));
	conn.req = &head;
	answered = 0;
	answer_body[0] = '\0';
	return (acme_http_answer(&conn));
}

static int
setup(void **state)
{
	gw = &gwbuf;
	gw->acme = 1;
	in_use = 0;
	return (0);
}

static void
test_token(void **state)
{
	assert_true(ask("GET", "/.well-known/acme-challenge/tok", "a.test"));
	assert_int_equal(answered, 200);
	assert_string_equal(answer_body, "tok.thumbprint");
	/* HEAD too, any case of the host, with its port and final dot */
	assert_true(ask("HEAD", "/.well-known/acme-challenge/tok",
	    "A.Test.:80"));
	assert_int_equal(answered, 200);
}

static void
test_not_token(void **state)
{
	static const char *const paths[] = {
		"/.well-known/acme-challenge/other",
		"/.well-known/acme-challenge/tok/",
		"/.well-known/acme-challenge/tok?x=1",
		"/.well-known/acme-challenge/to%6b",
		"/.well-known/acme-challenge/./tok",
		"/.well-known/acme-challenge/../acme-challenge/tok",
		"//.well-known/acme-challenge/tok",
		"/.well-known//acme-challenge/tok",
		"/.WELL-KNOWN/ACME-CHALLENGE/tok",
		"/.well-known/%61cme-challenge/tok",
		"/.well-known/acme%2dchallenge/tok",
		"/.well-known/acme%252dchallenge/tok",
		"/.well-known/acme%25252dchallenge/tok",
		"/x/../.well-known/acme-challenge/tok",
		"/.well-known/acme-challenge/",
		"/.well-known/acme-challenge",
	};
	size_t	 i;

	for (i = 0; i < nitems(paths); i++) {
		assert_true(ask("GET", paths[i], "a.test"));
		assert_int_equal(answered, 404);
	}
	/* the right path for another host, or by another method */
	assert_true(ask("GET", "/.well-known/acme-challenge/tok", "b.test"));
	assert_int_equal(answered, 404);
	assert_true(ask("POST", "/.well-known/acme-challenge/tok", "a.test"));
	assert_int_equal(answered, 404);
}

static void
test_others_pass(void **state)
{
	assert_false(ask("GET", "/", "a.test"));
	assert_false(ask("GET", "/.well-known/security.txt", "a.test"));
	assert_false(ask("GET", "/acme/challenge", "a.test"));
	assert_int_equal(answered, 0);
	/* ACME not in use: the path is the workload's */
	gw->acme = 0;
	assert_false(ask("GET", "/.well-known/acme-challenge/x", "a.test"));
	in_use = 1;
	assert_true(ask("GET", "/.well-known/acme-challenge/x", "a.test"));
	assert_int_equal(answered, 404);
}

static void
test_reserved(void **state)
{
	assert_true(acme_path_reserved("/a/ACME-challenge", 17));
	assert_true(acme_path_reserved("/%2561cme-challenge", 19));
	assert_false(acme_path_reserved("/acme-challeng", 14));
	assert_false(acme_path_reserved("/x?acme-challenge", 17));
	/* a bad escape is left as it is */
	assert_false(acme_path_reserved("/%zzacme-challeng", 17));
	assert_false(acme_path_reserved("/%", 2));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_token, setup),
		cmocka_unit_test_setup(test_not_token, setup),
		cmocka_unit_test_setup(test_others_pass, setup),
		cmocka_unit_test_setup(test_reserved, setup),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
