/*
 * The status page's sessions in the reaper (reaperd/uisess.c): found
 * until they expire, ended by a logout, ended by kind when a key
 * changes, and a table that stays bounded under a flood of logins, the
 * session that expires first given up for a new one.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reaperd/uisess.h"
#include "msg.h"

#define NOW	1700000000LL	/* seconds */

static struct ui_sess
sess(uint32_t n, int readonly, int64_t expires)
{
	struct ui_sess	 s;

	memset(&s, 0, sizeof(s));
	memcpy(s.id, &n, sizeof(n));
	s.id[15] = 0xa5;
	memset(s.csrf, (int)(n & 0xff), sizeof(s.csrf));
	s.readonly = readonly;
	s.found = 1;
	s.expires = expires;
	return (s);
}

static int
setup(void **state)
{
	struct uisess	*t;

	if ((t = malloc(sizeof(*t))) == NULL)
		return (-1);
	uisess_init(t);
	*state = t;
	return (0);
}

static int
teardown(void **state)
{
	free(*state);
	return (0);
}

static void
test_found_until_expiry(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 s = sess(1, 0, NOW + 60), out;

	uisess_add(t, &s, NOW);
	assert_int_equal(uisess_find(t, s.id, NOW, &out), 1);
	assert_memory_equal(out.csrf, s.csrf, sizeof(s.csrf));
	assert_int_equal(out.readonly, 0);
	assert_int_equal(uisess_find(t, s.id, NOW + 59, &out), 1);
	assert_int_equal(uisess_find(t, s.id, NOW + 60, &out), 0);
	assert_int_equal(out.found, 0);
	/* the answer for none still names the id asked about */
	assert_memory_equal(out.id, s.id, sizeof(s.id));
}

static void
test_unknown(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 s = sess(2, 0, NOW + 60), other = sess(3, 0, 0), out;

	uisess_add(t, &s, NOW);
	assert_int_equal(uisess_find(t, other.id, NOW, &out), 0);
	assert_int_equal(out.found, 0);
}

static void
test_logout(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 a = sess(4, 0, NOW + 60), b = sess(5, 1, NOW + 60);
	struct ui_sess	 out;

	uisess_add(t, &a, NOW);
	uisess_add(t, &b, NOW);
	assert_int_equal(uisess_end(t, a.id), 1);
	assert_int_equal(uisess_find(t, a.id, NOW, &out), 0);
	assert_int_equal(uisess_find(t, b.id, NOW, &out), 1);
	assert_int_equal(uisess_end(t, a.id), 1);	/* ended, still known */
	assert_int_equal(uisess_find(t, a.id, NOW, &out), 0);
}

static void
test_flush_by_kind(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 a = sess(6, 0, NOW + 60), b = sess(7, 1, NOW + 60);
	struct ui_sess	 c = sess(8, 1, NOW + 60), out;

	uisess_add(t, &a, NOW);
	uisess_add(t, &b, NOW);
	uisess_add(t, &c, NOW);
	assert_int_equal(uisess_flush(t, 1), 2);
	assert_int_equal(uisess_find(t, a.id, NOW, &out), 1);
	assert_int_equal(uisess_find(t, b.id, NOW, &out), 0);
	assert_int_equal(uisess_find(t, c.id, NOW, &out), 0);
	assert_int_equal(uisess_flush(t, 1), 0);
	assert_int_equal(uisess_flush(t, 0), 1);
	assert_int_equal(uisess_find(t, a.id, NOW, &out), 0);
}

static void
test_bounded(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 keep = sess(0xfffffff0, 0, NOW + 100000), s, out;
	uint32_t	 i;

	uisess_add(t, &keep, NOW);
	for (i = 0; i < 3 * UISESS_MAX; i++) {
		s = sess(i, 0, NOW + 10 + i);
		uisess_add(t, &s, NOW);
		assert_true(uisess_count(t) <= UISESS_MAX);
	}
	/* the one that expires last was never given up */
	assert_int_equal(uisess_find(t, keep.id, NOW, &out), 1);
	/* the newest are there, the first ones given up */
	s = sess(3 * UISESS_MAX - 1, 0, 0);
	assert_int_equal(uisess_find(t, s.id, NOW, &out), 1);
	s = sess(0, 0, 0);
	assert_int_equal(uisess_find(t, s.id, NOW, &out), 0);
}

static void
test_expired_reused_first(void **state)
{
	struct uisess	*t = *state;
	struct ui_sess	 s, out, late = sess(0xfffffff1, 0, NOW + 100000);
	uint32_t	 i;

	/* full, one slot expired: a new login takes it, nothing live lost */
	for (i = 0; i < UISESS_MAX - 1; i++) {
		s = sess(i, 0, NOW + 1000);
		uisess_add(t, &s, NOW);
	}
	s = sess(0xfffffff2, 0, NOW + 5);
	uisess_add(t, &s, NOW);
	uisess_add(t, &late, NOW + 10);
	assert_int_equal(uisess_find(t, late.id, NOW + 10, &out), 1);
	for (i = 0; i < UISESS_MAX - 1; i++) {
		s = sess(i, 0, 0);
		assert_int_equal(uisess_find(t, s.id, NOW + 10, &out), 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_found_until_expiry, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_by_kind, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expired_reused_first,
		    setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
