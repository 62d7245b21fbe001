/*
 * The reaper's suspend decision.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../reaperd/reaper.h"

static struct reap_wl
running(int64_t timeout, time_t last_seen)
{
	struct reap_wl	 wl;

	memset(&wl, 0, sizeof(wl));
	wl.state = WL_RUNNING;
	wl.idle_timeout = timeout;
	wl.last_seen = last_seen;
	return (wl);
}

static void
test_idle_long_enough(void **state)
{
	struct reap_wl	 wl = running(300, 1000);

	assert_false(reaper_due(&wl, 1299));
	assert_true(reaper_due(&wl, 1300));
	assert_true(reaper_due(&wl, 5000));
}

static void
test_in_flight_keeps_it(void **state)
{
	struct reap_wl	 wl = running(300, 1000);

	wl.inflight = 1;
	assert_false(reaper_due(&wl, 5000));
	wl.inflight = 0;
	wl.upgraded = 1;	/* an open WebSocket */
	assert_false(reaper_due(&wl, 5000));
	/* one bit per gateway: the sixth of several ("prefork") is busy */
	wl.upgraded = 0;
	wl.inflight = 1U << 5;
	assert_false(reaper_due(&wl, 5000));
	wl.inflight = 0;
	assert_true(reaper_due(&wl, 5000));
}

static void
test_keep_warm_and_zero_timeout(void **state)
{
	struct reap_wl	 wl = running(300, 1000);

	wl.keep_warm = 1;
	assert_false(reaper_due(&wl, 5000));
	wl = running(0, 1000);
	assert_false(reaper_due(&wl, 5000));
}

static void
test_only_running(void **state)
{
	struct reap_wl	 wl = running(300, 1000);
	int		 s;

	for (s = WL_ASLEEP; s <= WL_FAILED; s++) {
		wl.state = s;
		if (s == WL_RUNNING)
			assert_true(reaper_due(&wl, 5000));
		else
			assert_false(reaper_due(&wl, 5000));
	}
}

/* memory pressure: "some avg10" of /proc/pressure/memory */
static void
test_psi_parse(void **state)
{
	int32_t	 v = -7;

	assert_int_equal(reaper_psi_parse("some avg10=1.53 avg60=0.40 "
	    "avg300=0.09 total=1436735\nfull avg10=0.00 avg60=0.00 "
	    "avg300=0.00 total=404283\n", &v), 0);
	assert_int_equal(v, 153);
	assert_int_equal(reaper_psi_parse("some avg10=0.00 avg60=0.00 "
	    "avg300=0.00 total=0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(reaper_psi_parse("some avg10=100.00 avg60=1\n", &v),
	    0);
	assert_int_equal(v, 10000);
	assert_int_equal(reaper_psi_parse("some avg10=12.5 avg60=1", &v), 0);
	assert_int_equal(v, 1250);
	assert_int_equal(reaper_psi_parse("some avg10=7 total=1\n", &v), 0);
	assert_int_equal(v, 700);
	/* more decimals than kept are dropped, not rounded */
	assert_int_equal(reaper_psi_parse("some avg10=1.239 x\n", &v), 0);
	assert_int_equal(v, 123);
	v = -7;
	assert_int_equal(reaper_psi_parse("full avg10=1.00 avg60=0\n", &v),
	    -1);
	assert_int_equal(reaper_psi_parse("some avg60=1.00\nfull avg10=2.00"
	    "\n", &v), -1);
	assert_int_equal(reaper_psi_parse("some avg10=abc\n", &v), -1);
	assert_int_equal(reaper_psi_parse("some avg10=1.2.3 x\n", &v), -1);
	assert_int_equal(reaper_psi_parse("some avg10=101.00 x\n", &v), -1);
	assert_int_equal(reaper_psi_parse("some avg10=1x\n", &v), -1);
	assert_int_equal(reaper_psi_parse("", &v), -1);
	assert_int_equal(v, -7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_long_enough),
		cmocka_unit_test(test_in_flight_keeps_it),
		cmocka_unit_test(test_keep_warm_and_zero_timeout),
		cmocka_unit_test(test_only_running),
		cmocka_unit_test(test_psi_parse),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
