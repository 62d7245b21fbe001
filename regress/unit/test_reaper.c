/*
 * The reaper's suspend decision, and "depends on": a workload is held up
 * by those that depend on it, and idle from the last one's sleep.  The
 * lists its tick walks (ticklist.c) hold exactly those up and those used.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <time.h>

#include "../../reaperd/reaper.h"
#include "../../reaperd/ticklist.h"
#include "compat.h"
#include "workload.h"

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

/* a round of the reaper: who holds whom up */
static void
hold_all(struct reap_wl **all, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		all[i]->held = 0;
	for (i = 0; i < n; i++)
		reaper_hold(all[i]);
}

static void
test_dependents_hold(void **state)
{
	struct reap_wl	 db = running(300, 1000), app = running(300, 1000);
	struct reap_wl	*deps[] = { &db }, *all[] = { &db, &app };
	int		 s;

	app.deps = deps;
	app.ndeps = 1;
	/* waking, running or stopping, app holds db up, however idle */
	for (s = WL_ASLEEP; s <= WL_FAILED; s++) {
		app.state = s;
		hold_all(all, 2);
		if (s == WL_WAKING || s == WL_RUNNING || s == WL_SUSPENDING)
			assert_false(reaper_due(&db, 100000));
		else
			assert_true(reaper_due(&db, 100000));
	}
	/* and not the other way round */
	app.state = WL_RUNNING;
	hold_all(all, 2);
	assert_true(reaper_due(&app, 100000));
	/* held is not kept warm: in flight, keep warm still count */
	app.state = WL_ASLEEP;
	hold_all(all, 2);
	db.inflight = 1;
	assert_false(reaper_due(&db, 100000));
}

static void
test_idle_from_last_dependent(void **state)
{
	struct reap_wl	 db = running(300, 1000);
	struct reap_wl	 a = running(60, 1000), b = running(60, 1000);
	struct reap_wl	*deps[] = { &db }, *all[] = { &db, &a, &b };

	a.deps = b.deps = deps;
	a.ndeps = b.ndeps = 1;
	hold_all(all, 3);
	assert_false(reaper_due(&db, 5000));

	/* a sleeps at 2000: b still holds db up */
	reaper_state(&a, WL_SUSPENDING, 1990);
	reaper_state(&a, WL_ASLEEP, 2000);
	hold_all(all, 3);
	assert_false(reaper_due(&db, 5000));
	assert_int_equal(db.last_seen, 2000);

	/* b fails at 2500: db's idle time counts from then */
	reaper_state(&b, WL_FAILED, 2500);
	hold_all(all, 3);
	assert_int_equal(db.last_seen, 2500);
	assert_false(reaper_due(&db, 2799));
	assert_true(reaper_due(&db, 2800));

	/* a dependent's start or a sleep while down changes nothing */
	reaper_state(&a, WL_WAKING, 2600);
	reaper_state(&a, WL_FAILED, 2650);
	assert_int_equal(db.last_seen, 2650);
	reaper_state(&a, WL_ASLEEP, 2700);
	assert_int_equal(db.last_seen, 2650);

	/* its own use later than the last sleep wins */
	db.last_seen = 2900;
	reaper_state(&b, WL_ASLEEP, 2950);
	assert_int_equal(db.last_seen, 2900);
	reaper_state(&b, WL_WAKING, 3000);
	reaper_state(&b, WL_RUNNING, 3010);
	reaper_state(&b, WL_SUSPENDING, 3100);
	reaper_state(&b, WL_ASLEEP, 3110);
	/* asleep, not stopping, is down */
	assert_int_equal(db.last_seen, 3110);
	hold_all(all, 3);
	assert_false(reaper_due(&db, 3409));
	assert_true(reaper_due(&db, 3410));

	/* a fresh start of its own gets the whole idle timeout */
	reaper_state(&db, WL_ASLEEP, 4000);
	reaper_state(&db, WL_WAKING, 5000);
	reaper_state(&db, WL_RUNNING, 5002);
	assert_int_equal(db.last_seen, 5002);
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

/* is every one up in tick_up once, at its own index, and no other? */
static void
assert_up_list(struct reap_wl *all, size_t n)
{
	size_t	 i, up = 0;

	for (i = 0; i < n; i++) {
		if (!reaper_is_up(all[i].state)) {
			assert_int_equal(all[i].up_idx, -1);
			continue;
		}
		up++;
		assert_true(all[i].up_idx >= 0 &&
		    (size_t)all[i].up_idx < tick_up.n);
		assert_ptr_equal(tick_up.wl[all[i].up_idx], &all[i]);
	}
	assert_int_equal(tick_up.n, up);
}

static void
test_ticklist_up(void **state)
{
	static struct reap_wl	 all[100];
	static const enum workload_state states[] = { WL_ASLEEP, WL_WAKING,
	    WL_RUNNING, WL_FROZEN, WL_SUSPENDING, WL_FAILED };
	size_t			 i, round;

	for (i = 0; i < 100; i++) {
		memset(&all[i], 0, sizeof(all[i]));
		all[i].state = WL_ASLEEP;
		all[i].up_idx = -1;
	}
	/* states come in any order, the same one twice too */
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 100; i++) {
			all[i].state = states[(i * 7 + round * 3 + i / 9) %
			    nitems(states)];
			tick_up_sync(&all[i]);
			if (i % 11 == 0)
				tick_up_sync(&all[i]);
		}
		assert_up_list(all, 100);
	}
	/* forgotten: out of it, the others kept whole */
	for (i = 0; i < 100; i += 3)
		tick_forget(&all[i]);
	assert_up_list(all, 100);
	for (i = 0; i < 100; i++)
		tick_forget(&all[i]);
	assert_int_equal(tick_up.n, 0);
}

static void
test_ticklist_used(void **state)
{
	static struct reap_wl	 all[10];
	size_t			 i;

	memset(all, 0, sizeof(all));
	for (i = 0; i < 10; i++)
		all[i].up_idx = -1;
	tick_used_mark(&all[2]);
	tick_used_mark(&all[5]);
	tick_used_mark(&all[2]);	/* used twice in a tick: once here */
	tick_used_mark(&all[7]);
	assert_int_equal(tick_used.n, 3);
	tick_forget(&all[5]);		/* removed before the tick */
	assert_int_equal(tick_used.n, 2);
	for (i = 0; i < tick_used.n; i++)
		assert_true(tick_used.wl[i] == &all[2] ||
		    tick_used.wl[i] == &all[7]);
	tick_used_clear();
	assert_int_equal(tick_used.n, 0);
	for (i = 0; i < 10; i++)
		assert_false(all[i].used_marked);
	tick_used_mark(&all[2]);
	assert_int_equal(tick_used.n, 1);
	tick_used_clear();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_long_enough),
		cmocka_unit_test(test_in_flight_keeps_it),
		cmocka_unit_test(test_keep_warm_and_zero_timeout),
		cmocka_unit_test(test_only_running),
		cmocka_unit_test(test_dependents_hold),
		cmocka_unit_test(test_idle_from_last_dependent),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_ticklist_up),
		cmocka_unit_test(test_ticklist_used),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
