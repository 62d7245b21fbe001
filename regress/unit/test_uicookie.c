/*
 * The status page's sessions as a gateway reads and keeps them
 * (gatewayd/ui_sess.c): the orchd_session cookie among others, only 32
 * hex digits taken; the CSRF token compared whole; the cache trusted a
 * few seconds and never past a session's expiry, a logout or a changed
 * key dropping it; fresh sessions random, never the same twice; and the
 * routes a cookie opens.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "msg.h"
#include "../../gatewayd/api.h"

#define NOW	1700000000LL	/* wall clock, seconds */
#define MS	5000000LL	/* monotonic, ms */

struct head {
	struct http_head	 h;
	char			 buf[4096];
};

/* a request whose fields are fields ("Name: value\r\n" each) */
static void
head_of(struct head *hd, const char *fields)
{
	char	 req[2048];
	size_t	 used;
	int	 n;

	n = snprintf(req, sizeof(req), "GET /v1/workloads HTTP/1.1\r\n"
	    "Host: x\r\n%s\r\n", fields);
	assert_true(n > 0 && (size_t)n < sizeof(req));
	http_req_init(&hd->h, hd->buf, sizeof(hd->buf));
	assert_int_equal(http_head_feed(&hd->h, req, n, &used), HTTP_DONE);
}

static int
cookie_of(const char *fields, uint8_t *id)
{
	struct head	 hd;

	head_of(&hd, fields);
	return (ui_cookie(&hd.h, id));
}

static void
test_cookie(void **state)
{
	uint8_t	 id[UI_SESS_IDLEN], want[UI_SESS_IDLEN];
	size_t	 i;

	for (i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 17);
	assert_int_equal(cookie_of("Cookie: orchd_session="
	    "00112233445566778899aabbccddeeff\r\n", id), 0);
	assert_memory_equal(id, want, sizeof(id));
	/* among others, in any place */
	assert_int_equal(cookie_of("Cookie: a=1; orchd_session="
	    "00112233445566778899AABBCCDDEEFF; b=2\r\n", id), 0);
	assert_memory_equal(id, want, sizeof(id));
	/* none, or not 32 hex digits: no cookie of ours */
	assert_int_equal(cookie_of("X-A: b\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: orchd_session=\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: orchd_session="
	    "00112233445566778899aabbccddeef\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: orchd_session="
	    "00112233445566778899aabbccddeeff0\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: orchd_session="
	    "00112233445566778899aabbccddeefg\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: xorchd_session="
	    "00112233445566778899aabbccddeeff\r\n", id), -1);
	assert_int_equal(cookie_of("Cookie: orchd_session2="
	    "00112233445566778899aabbccddeeff\r\n", id), -1);
}

static void
test_hex(void **state)
{
	uint8_t	 b[4] = { 0x00, 0x7f, 0xa5, 0xff }, back[4];
	char	 s[9];

	ui_hex(b, sizeof(b), s);
	assert_string_equal(s, "007fa5ff");
	assert_int_equal(ui_hexval(s, 8, back, sizeof(back)), 0);
	assert_memory_equal(back, b, sizeof(b));
	assert_int_equal(ui_hexval(s, 7, back, sizeof(back)), -1);
	assert_int_equal(ui_hexval("007fa5f ", 8, back, sizeof(back)), -1);
	assert_int_equal(ui_hexval("-07fa5ff", 8, back, sizeof(back)), -1);
}

static void
test_csrf(void **state)
{
	struct ui_sess	 s;
	char		 tok[UI_SESS_IDLEN * 2 + 1];

	ui_sess_new(&s, 0, NOW, 3600);
	ui_hex(s.csrf, sizeof(s.csrf), tok);
	assert_true(ui_csrf_ok(&s, tok));
	assert_false(ui_csrf_ok(&s, ""));
	tok[31] = tok[31] == '0' ? '1' : '0';
	assert_false(ui_csrf_ok(&s, tok));
	tok[31] = '\0';
	assert_false(ui_csrf_ok(&s, tok));
}

static void
test_new_random(void **state)
{
	struct ui_sess	 a, b;

	ui_sess_new(&a, 1, NOW, 60);
	ui_sess_new(&b, 1, NOW, 60);
	assert_memory_not_equal(a.id, b.id, sizeof(a.id));
	assert_memory_not_equal(a.csrf, b.csrf, sizeof(a.csrf));
	assert_memory_not_equal(a.id, a.csrf, sizeof(a.id));
	assert_int_equal(a.readonly, 1);
	assert_int_equal(a.found, 1);
	assert_int_equal(a.expires, NOW + 60);
}

static void
test_cache(void **state)
{
	struct ui_sess		 a, ro, gone;
	const struct ui_sess	*got;

	ui_sess_new(&a, 0, NOW, 3600);
	ui_sess_new(&ro, 1, NOW, 3600);
	ui_sess_new(&gone, 0, NOW, 3600);
	gone.found = 0;
	ui_cache_put(&a, MS);
	ui_cache_put(&ro, MS);
	ui_cache_put(&gone, MS);	/* "none": never kept */
	assert_null(ui_cache_find(gone.id, MS, NOW));
	assert_non_null(got = ui_cache_find(a.id, MS, NOW));
	assert_memory_equal(got->csrf, a.csrf, sizeof(a.csrf));
	/* a few seconds, then the reaper is asked again */
	assert_non_null(ui_cache_find(a.id, MS + UI_CACHE_MS - 1, NOW));
	assert_null(ui_cache_find(a.id, MS + UI_CACHE_MS, NOW));
	ui_cache_put(&a, MS);
	/* never past its expiry */
	assert_null(ui_cache_find(a.id, MS, NOW + 3600));
	ui_cache_put(&a, MS);
	/* a logout */
	ui_cache_drop(a.id);
	assert_null(ui_cache_find(a.id, MS, NOW));
	/* a changed status key: its sessions, not the others */
	ui_cache_put(&a, MS);
	ui_cache_drop_kind(1);
	assert_null(ui_cache_find(ro.id, MS, NOW));
	assert_non_null(ui_cache_find(a.id, MS, NOW));
}

static void
test_cache_bounded(void **state)
{
	struct ui_sess	 s, first;
	int		 i;

	ui_sess_new(&first, 0, NOW, 3600);
	ui_cache_put(&first, MS);
	for (i = 0; i < 2 * UI_CACHE_MAX; i++) {
		ui_sess_new(&s, 0, NOW, 3600);
		ui_cache_put(&s, MS + 1 + i);
	}
	/* the least recently told of was given up; the last is there */
	assert_null(ui_cache_find(first.id, MS + 2, NOW));
	assert_non_null(ui_cache_find(s.id, MS + 2, NOW));
}

static void
test_routes(void **state)
{
	assert_true(ui_cookie_op(API_LIST));
	assert_true(ui_cookie_op(API_EVENTS));
	assert_true(ui_cookie_op(API_METRICS));
	assert_true(ui_cookie_op(API_DELETE));
	assert_true(ui_cookie_op(API_UI_LOGOUT));
	assert_false(ui_cookie_op(API_CREATE));
	assert_false(ui_cookie_op(API_UPDATE));
	assert_false(ui_cookie_op(API_PATCH));
	assert_false(ui_cookie_op(API_HEALTHZ));
	assert_false(ui_cookie_op(API_UI_LOGIN));
	assert_true(ui_action_op(API_WAKE));
	assert_true(ui_action_op(API_SUSPEND));
	assert_true(ui_action_op(API_KEEPWARM));
	assert_true(ui_action_op(API_DELETE));
	assert_true(ui_action_op(API_RESTART));
	assert_true(ui_cookie_op(API_RESTART));
	assert_true(ui_cookie_op(API_ACCESS));
	assert_false(ui_action_op(API_ACCESS));
	assert_false(ui_action_op(API_LIST));
	assert_false(ui_action_op(API_UI_LOGOUT));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cookie),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_csrf),
		cmocka_unit_test(test_new_random),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_bounded),
		cmocka_unit_test(test_routes),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
