/*
 * The host's last day in the reaper (reaperd/hosthist.c): the gateways'
 * requests of a minute summed, the wakes and the memory the most any
 * said, a day kept and no more, minutes out of range refused, and the
 * answer oldest first.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reaperd/hosthist.h"
#include "msg.h"

#define NOW	29000000LL	/* minutes */

static struct host_sample
one(int64_t minute, uint64_t req, uint64_t wakes, int64_t in_use)
{
	struct host_sample	 s;

	memset(&s, 0, sizeof(s));
	s.minute = minute;
	s.requests = req;
	s.wakes = wakes;
	s.in_use = in_use;
	s.budget = 1000;
	return (s);
}

static void
test_sum_and_max(void **state)
{
	static struct hosthist		 h;
	static struct host_sample	 out[HOSTHIST_MINUTES];
	struct host_sample		 s;

	hosthist_init(&h);
	s = one(NOW, 5, 1, 100);
	assert_int_equal(hosthist_add(&h, &s, NOW), 0);
	s = one(NOW, 7, 1, 120);
	assert_int_equal(hosthist_add(&h, &s, NOW), 0);
	s = one(NOW - 1, 3, 0, 90);
	assert_int_equal(hosthist_add(&h, &s, NOW), 0);
	assert_int_equal(hosthist_get(&h, NOW, out, HOSTHIST_MINUTES), 2);
	assert_int_equal(out[0].minute, NOW - 1);
	assert_int_equal(out[0].requests, 3);
	assert_int_equal(out[1].requests, 12);
	assert_int_equal(out[1].wakes, 1);
	assert_int_equal(out[1].in_use, 120);
	assert_int_equal(out[1].budget, 1000);
}

static void
test_a_day(void **state)
{
	static struct hosthist		 h;
	static struct host_sample	 out[HOSTHIST_MINUTES];
	struct host_sample		 s;
	int64_t				 m;

	hosthist_init(&h);
	for (m = NOW - 2 * HOSTHIST_MINUTES; m <= NOW; m++) {
		s = one(m, 1, 0, 0);
		(void)hosthist_add(&h, &s, m);
	}
	assert_int_equal(hosthist_get(&h, NOW, out, HOSTHIST_MINUTES),
	    HOSTHIST_MINUTES);
	assert_int_equal(out[0].minute, NOW - HOSTHIST_MINUTES + 1);
	assert_int_equal(out[HOSTHIST_MINUTES - 1].minute, NOW);
	/* an hour later, the oldest hour is gone */
	assert_int_equal(hosthist_get(&h, NOW + 60, out, HOSTHIST_MINUTES),
	    HOSTHIST_MINUTES - 60);
	assert_int_equal(hosthist_get(&h, NOW, out, 10), 10);
}

static void
test_refused(void **state)
{
	static struct hosthist		 h;
	static struct host_sample	 out[HOSTHIST_MINUTES];
	struct host_sample		 s;

	hosthist_init(&h);
	s = one(NOW - HOSTHIST_MINUTES, 1, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), -1);
	s = one(NOW + 2, 1, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), -1);
	s = one(0, 1, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), -1);
	s = one(INT64_MIN, 1, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), -1);
	s = one(NOW, 1, 0, -1);
	assert_int_equal(hosthist_add(&h, &s, NOW), -1);
	/* a sum that would wrap stays where it was */
	s = one(NOW, UINT64_MAX, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), 0);
	s = one(NOW, 2, 0, 0);
	assert_int_equal(hosthist_add(&h, &s, NOW), 0);
	assert_int_equal(hosthist_get(&h, NOW, out, HOSTHIST_MINUTES), 1);
	assert_true(out[0].requests == UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sum_and_max),
		cmocka_unit_test(test_a_day),
		cmocka_unit_test(test_refused),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
