/*
 * Restart delays and crash-loop backoff (runtimed/backoff.c): the
 * numbers issue 17 fixes, counted on a clock the test moves by hand;
 * and the pace of readiness checks (issue 33: at once, then backing
 * off, bounded).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../runtimed/backoff.h"

#define S	1000		/* a second, in the clock's milliseconds */
#define T0	(1000 * S)	/* any start: 0 means "never" in there */

/* 1 s, doubling up to 5 min */
static void
test_restart_delay_grows(void **state)
{
	struct rt_backoff	 b;
	int64_t			 want[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256,
				    300, 300 };
	size_t			 i;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(restart_delay(&b, 2 * S), want[i] * S);
}

/* 10 min up: back to 1 s; a moment less is not enough */
static void
test_restart_delay_resets(void **state)
{
	struct rt_backoff	 b;

	memset(&b, 0, sizeof(b));
	assert_int_equal(restart_delay(&b, 0), 1 * S);
	assert_int_equal(restart_delay(&b, 0), 2 * S);
	assert_int_equal(restart_delay(&b, 0), 4 * S);
	assert_int_equal(restart_delay(&b, 600 * S - 1), 8 * S);
	assert_int_equal(restart_delay(&b, 600 * S), 1 * S);
	assert_int_equal(restart_delay(&b, 5 * S), 2 * S);
	/* a successful wake does not reset it: only time up does */
	backoff_succeeded(&b);
	assert_int_equal(restart_delay(&b, 5 * S), 4 * S);
}

/* the third failed wake within a minute: 30 s of backoff */
static void
test_three_in_a_minute(void **state)
{
	struct rt_backoff	 b;

	memset(&b, 0, sizeof(b));
	assert_int_equal(backoff_failed(&b, T0), 0);
	assert_int_equal(backoff_left(&b, T0), 0);
	assert_int_equal(backoff_failed(&b, T0 + 10 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 60 * S), 30 * S);
	assert_int_equal(backoff_left(&b, T0 + 60 * S), 30 * S);
	assert_int_equal(backoff_left(&b, T0 + 89 * S), 1 * S);
	assert_int_equal(backoff_left(&b, T0 + 90 * S), 0);
	assert_int_equal(backoff_left(&b, T0 + 1000 * S), 0);
}

/* three failures spread over more than a minute are no crash loop */
static void
test_spread_out(void **state)
{
	struct rt_backoff	 b;
	int			 i;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		assert_int_equal(backoff_failed(&b, T0 + i * 31 * S), 0);
	/* then three close together are */
	assert_int_equal(backoff_failed(&b, T0 + 1000 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 1001 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 1002 * S), 30 * S);
}

/* after a backoff, the next failure backs off at once, twice as long */
static void
test_backoff_doubles(void **state)
{
	struct rt_backoff	 b;
	int64_t			 now = T0, want = 30 * S;
	int			 i;

	memset(&b, 0, sizeof(b));
	(void)backoff_failed(&b, now);
	(void)backoff_failed(&b, now);
	assert_int_equal(backoff_failed(&b, now), want);
	for (i = 0; i < 8; i++) {
		now = b.until;
		want = want * 2 > 600 * S ? 600 * S : want * 2;
		assert_int_equal(backoff_failed(&b, now), want);
		assert_int_equal(backoff_left(&b, now), want);
	}
	assert_int_equal(want, 600 * S);
}

/* a successful wake ends it, and the count starts again */
static void
test_success_resets(void **state)
{
	struct rt_backoff	 b;

	memset(&b, 0, sizeof(b));
	(void)backoff_failed(&b, T0);
	(void)backoff_failed(&b, T0 + S);
	assert_int_equal(backoff_failed(&b, T0 + 2 * S), 30 * S);
	backoff_succeeded(&b);
	assert_int_equal(backoff_left(&b, T0 + 3 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 4 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 5 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 6 * S), 30 * S);
}

/* 10 min without a failed wake: forgotten, back to three in a minute */
static void
test_forgotten(void **state)
{
	struct rt_backoff	 b;

	memset(&b, 0, sizeof(b));
	(void)backoff_failed(&b, T0);
	(void)backoff_failed(&b, T0);
	assert_int_equal(backoff_failed(&b, T0), 30 * S);
	/* within 10 min of its end: the next one, doubled */
	assert_int_equal(backoff_failed(&b, T0 + 629 * S), 60 * S);
	/* 10 min after that one's end: counted afresh */
	assert_int_equal(backoff_failed(&b, T0 + 1289 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 1290 * S), 0);
	assert_int_equal(backoff_failed(&b, T0 + 1291 * S), 30 * S);
}

/*
 * Readiness checks as ready.c makes them: the first at 0, each next one
 * ready_delay() after the last.  The times of the checks of a start that
 * lasts until end ms, and how many.
 */
static int
ready_checks(int64_t end, int64_t *at, int max)
{
	int64_t	 t = 0;
	int	 n = 0;

	while (t <= end && n < max) {
		at[n++] = t;
		t += ready_delay(t);
	}
	return (n);
}

/* at once, then 1 ms apart for 16 ms, then growing */
static void
test_ready_starts_at_once(void **state)
{
	int64_t	 at[64];
	int64_t	 want[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
		    14, 15, 16, 18, 20, 22, 24, 27, 30, 33, 37, 41 };
	size_t	 i;

	assert_int_equal(ready_checks(41, at, 64), 26);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(at[i], want[i]);
	assert_int_equal(ready_delay(0), READY_DELAY_MIN);
	assert_int_equal(ready_delay(-5), READY_DELAY_MIN);
}

/*
 * In microseconds: 250 us apart for the first 4 ms (16 checks, the
 * first at once), then as ready_delay(): a program that listens 1.1 ms
 * after its start is seen at 1.25 ms, not at 2
 */
static void
test_ready_fast_first(void **state)
{
	int64_t	 t = 0, seen = -1;
	int	 n = 0;

	while (t < 4000) {
		assert_int_equal(ready_delay_us(t), READY_FAST_US);
		if (seen == -1 && t >= 1100)
			seen = t;
		t += ready_delay_us(t);
		n++;
	}
	assert_int_equal(n, 16);
	assert_int_equal(seen, 1250);
	assert_int_equal(ready_delay_us(-1), READY_FAST_US);
	assert_int_equal(ready_delay_us(4000), 1000);
	assert_int_equal(ready_delay_us(16 * 1000), 2000);
	assert_int_equal(ready_delay_us(400 * 1000), 50 * 1000);
	assert_int_equal(ready_delay_us(INT64_MAX), 50 * 1000);
	for (t = 0; t < 10 * S * 1000; t += 37) {
		assert_true(ready_delay_us(t) >= READY_FAST_US);
		assert_true(ready_delay_us(t) <= READY_DELAY_MAX * 1000);
		assert_true(ready_delay_us(t + 37) >= ready_delay_us(t));
	}
}

/* never longer than 50 ms, and from 400 ms on exactly that */
static void
test_ready_bounded(void **state)
{
	int64_t	 t;

	for (t = 0; t < 10 * S; t++) {
		assert_true(ready_delay(t) >= READY_DELAY_MIN);
		assert_true(ready_delay(t) <= READY_DELAY_MAX);
		assert_true(ready_delay(t + 1) >= ready_delay(t));
	}
	assert_int_equal(ready_delay(400), 50);
	assert_int_equal(ready_delay(399), 49);
	assert_int_equal(ready_delay(INT64_MAX), 50);
}

/*
 * A start seen ready at most an eighth of its time late, or 1 ms; and a
 * 30 s wake timeout (the default) costs some 630 checks, not 30,000.
 */
static void
test_ready_late_and_few(void **state)
{
	static int64_t	 at[2000];
	int64_t		 ready, late;
	int		 i, n;

	n = ready_checks(30 * S, at, 2000);
	assert_true(n < 700);
	assert_true(n > 600);
	n = ready_checks(31 * S, at, 2000);	/* one after 30 s too */
	for (ready = 1; ready < 30 * S; ready += 7) {
		for (i = 0; i < n && at[i] < ready; i++)
			;
		assert_true(i < n);
		late = at[i] - ready;
		assert_true(late <= READY_DELAY_MIN || late <= ready / 8);
		assert_true(late < READY_DELAY_MAX);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restart_delay_grows),
		cmocka_unit_test(test_restart_delay_resets),
		cmocka_unit_test(test_three_in_a_minute),
		cmocka_unit_test(test_spread_out),
		cmocka_unit_test(test_backoff_doubles),
		cmocka_unit_test(test_success_resets),
		cmocka_unit_test(test_forgotten),
		cmocka_unit_test(test_ready_starts_at_once),
		cmocka_unit_test(test_ready_bounded),
		cmocka_unit_test(test_ready_fast_first),
		cmocka_unit_test(test_ready_late_and_few),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
