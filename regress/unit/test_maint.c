/*
 * Maintenance's input (common/maint.c): the message is text, bounded,
 * with no control byte and nothing that is not UTF-8; its end is in the
 * future and not too far; Retry-After is made from it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "maint.h"
#include "msg.h"

#define NOW	1800000000LL

static int
msg_ok(const char *s)
{
	char	 err[128];

	return (maint_msg_ok(s, strlen(s), err, sizeof(err)));
}

static void
test_message(void **state)
{
	char	 err[128], big[MAINT_MSG_MAX + 1];

	assert_int_equal(msg_ok(""), 0);
	assert_int_equal(msg_ok("Back at 18:00 <script>x</script> & \"q\""),
	    0);
	assert_int_equal(msg_ok("Zurück um 18 Uhr, 回来"), 0);
	/* a header forged, an escape, a tab, DEL */
	assert_int_equal(msg_ok("x\r\nSet-Cookie: a=b"), -1);
	assert_int_equal(msg_ok("x\nLocation: /"), -1);
	assert_int_equal(msg_ok("\033[2J"), -1);
	assert_int_equal(msg_ok("a\tb"), -1);
	assert_int_equal(msg_ok("a\177b"), -1);
	/* a NUL inside what was given */
	assert_int_equal(maint_msg_ok("a\0b", 3, err, sizeof(err)), -1);
	/* not UTF-8: a lone continuation, an overlong '/', a surrogate */
	assert_int_equal(msg_ok("a\x80"), -1);
	assert_int_equal(msg_ok("\xc0\xaf"), -1);
	assert_int_equal(msg_ok("\xed\xa0\x80"), -1);
	assert_int_equal(msg_ok("\xf4\x90\x80\x80"), -1);
	assert_int_equal(msg_ok("\xe2\x82"), -1);
	/* the bound: MAINT_MSG_MAX - 1 bytes */
	memset(big, 'a', sizeof(big));
	big[MAINT_MSG_MAX - 1] = '\0';
	assert_int_equal(msg_ok(big), 0);
	big[MAINT_MSG_MAX - 1] = 'a';
	big[MAINT_MSG_MAX] = '\0';
	assert_int_equal(msg_ok(big), -1);
}

static void
test_check(void **state)
{
	struct wl_maint	 m;
	char		 err[128];

	memset(&m, 0, sizeof(m));
	m.on = 1;
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), 0);
	m.until = NOW;
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "passed"));
	m.until = NOW + MAINT_UNTIL_MAX + 1;
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), -1);
	m.until = NOW + MAINT_UNTIL_MAX;
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), 0);
	/* a message not terminated within its bound */
	memset(m.msg, 'x', sizeof(m.msg));
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), -1);
	strlcpy(m.msg, "a\r\nb", sizeof(m.msg));
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), -1);
	m.on = 2;
	strlcpy(m.msg, "ok", sizeof(m.msg));
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), -1);
	/* off: the rest cleared, whatever it was */
	m.on = 0;
	m.until = -5;
	memset(m.msg, 'x', sizeof(m.msg));
	assert_int_equal(maint_check(&m, NOW, err, sizeof(err)), 0);
	assert_int_equal(m.until, 0);
	assert_int_equal(m.msg[0], '\0');
}

static void
test_retry_after(void **state)
{
	struct wl_maint	 m;

	memset(&m, 0, sizeof(m));
	m.on = 1;
	assert_int_equal(maint_retry_after(&m, NOW), MAINT_RETRY_AFTER);
	m.until = NOW + 90;
	assert_int_equal(maint_retry_after(&m, NOW), 90);
	m.until = NOW - 5;
	assert_int_equal(maint_retry_after(&m, NOW), 1);
	m.until = NOW + 30 * 86400;
	assert_int_equal(maint_retry_after(&m, NOW), MAINT_RETRY_AFTER_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_retry_after),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
