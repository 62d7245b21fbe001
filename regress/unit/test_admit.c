/*
 * The memory budget's decisions (runtimed/admit.c) and its running
 * estimate (common/budget.c): what a wake is charged, whether it may
 * start, which idle workloads go first to make room.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "budget.h"
#include "msg.h"
#include "../../runtimed/admit.h"

#define M	(1024 * 1024LL)

static void
test_estimate(void **state)
{
	/* the limit, else the measure, else the default */
	assert_int_equal(admit_estimate(512 * M, 40 * M, 256 * M), 512 * M);
	assert_int_equal(admit_estimate(0, 40 * M, 256 * M), 40 * M);
	assert_int_equal(admit_estimate(0, 0, 256 * M), 256 * M);
}

static void
test_estimate_next(void **state)
{
	/* the first measure is the estimate; a higher one at once */
	assert_int_equal(memory_estimate_next(0, 40 * M), 40 * M);
	assert_int_equal(memory_estimate_next(40 * M, 60 * M), 60 * M);
	/* a lower one a quarter of the way a run, never below it */
	assert_int_equal(memory_estimate_next(60 * M, 20 * M), 50 * M);
	assert_int_equal(memory_estimate_next(50 * M, 20 * M),
	    50 * M - 30 * M / 4);
	assert_int_equal(memory_estimate_next(21 * M, 20 * M),
	    21 * M - M / 4);
	/* no measure: unchanged */
	assert_int_equal(memory_estimate_next(30 * M, 0), 30 * M);
	assert_int_equal(memory_estimate_next(0, -1), 0);
}

static void
test_check(void **state)
{
	struct admit_state	 s;
	int64_t			 shortfall;

	/* no budget, no cap: always */
	memset(&s, 0, sizeof(s));
	s.in_use = 100 * M;
	s.waking = 50;
	assert_int_equal(admit_check(&s, 10 * M, &shortfall), ADMIT_START);

	/* the cap first, whatever the room */
	s.max_wakes = 2;
	s.waking = 2;
	assert_int_equal(admit_check(&s, M, &shortfall), ADMIT_SLOT);
	s.waking = 1;
	assert_int_equal(admit_check(&s, M, &shortfall), ADMIT_START);

	/* a budget of 200M, 128M in use */
	memset(&s, 0, sizeof(s));
	s.budget = 200 * M;
	s.in_use = 128 * M;
	assert_int_equal(admit_check(&s, 72 * M, &shortfall), ADMIT_START);
	assert_int_equal(shortfall, 0);
	assert_int_equal(admit_check(&s, 73 * M, &shortfall), ADMIT_EVICT);
	assert_int_equal(shortfall, M);
	/* what is being stopped counts: no more is stopped */
	s.freeing = 64 * M;
	assert_int_equal(admit_check(&s, 100 * M, &shortfall),
	    ADMIT_FREEING);
	assert_int_equal(admit_check(&s, 137 * M, &shortfall), ADMIT_EVICT);
	assert_int_equal(shortfall, M);
	/* larger than the whole budget: only once all else is gone */
	s.freeing = 0;
	assert_int_equal(admit_check(&s, 300 * M, &shortfall), ADMIT_EVICT);
	assert_int_equal(shortfall, 128 * M);
	s.in_use = 0;
	assert_int_equal(admit_check(&s, 300 * M, &shortfall), ADMIT_START);
	/* over the budget already (keep warm ones): all is short */
	s.in_use = 260 * M;
	assert_int_equal(admit_check(&s, 10 * M, &shortfall), ADMIT_EVICT);
	assert_int_equal(shortfall, 70 * M);
	/* the cap and a budget: the cap first */
	s.max_wakes = 1;
	s.waking = 1;
	assert_int_equal(admit_check(&s, 10 * M, &shortfall), ADMIT_SLOT);
}

static void
cand(struct admit_cand *c, const char *name, int64_t charge, int64_t used)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->wl = (void *)name;
	c->charge = charge;
	c->last_used = used;
}

static void
test_pick(void **state)
{
	struct admit_cand	 c[4];

	/* least recently used first, as few as cover the shortfall */
	cand(&c[0], "b", 64 * M, 300);
	cand(&c[1], "a", 64 * M, 100);
	cand(&c[2], "c", 64 * M, 200);
	assert_int_equal(admit_pick(c, 3, 10 * M), 1);
	assert_string_equal(c[0].name, "a");
	assert_string_equal(c[1].name, "c");
	assert_string_equal(c[2].name, "b");
	assert_int_equal(admit_pick(c, 3, 64 * M), 1);
	assert_int_equal(admit_pick(c, 3, 65 * M), 2);
	assert_int_equal(admit_pick(c, 3, 192 * M), 3);
	/* all of them are not enough: none */
	assert_int_equal(admit_pick(c, 3, 193 * M), 0);
	/* nothing short, nothing to pick */
	assert_int_equal(admit_pick(c, 3, 0), 0);
	assert_int_equal(admit_pick(c, 0, M), 0);

	/* LRU even when a later one alone would do */
	cand(&c[0], "small-old", 10 * M, 100);
	cand(&c[1], "big-new", 500 * M, 900);
	assert_int_equal(admit_pick(c, 2, 20 * M), 2);
	assert_string_equal(c[0].name, "small-old");

	/* one the gateways said busy comes after every idle one */
	cand(&c[0], "busy-old", 64 * M, 100);
	c[0].busy = 1;
	cand(&c[1], "idle-new", 64 * M, 900);
	cand(&c[2], "idle-newer", 64 * M, 950);
	assert_int_equal(admit_pick(c, 3, 100 * M), 2);
	assert_string_equal(c[0].name, "idle-new");
	assert_string_equal(c[1].name, "idle-newer");
	assert_string_equal(c[2].name, "busy-old");
	assert_int_equal(admit_pick(c, 3, 150 * M), 3);

	/* a frozen one comes before every idle one, older or not */
	cand(&c[0], "idle-old", 64 * M, 100);
	cand(&c[1], "frozen-new", 64 * M, 900);
	c[1].frozen = 1;
	cand(&c[2], "busy", 64 * M, 50);
	c[2].busy = 1;
	assert_int_equal(admit_pick(c, 3, 64 * M), 1);
	assert_string_equal(c[0].name, "frozen-new");
	assert_string_equal(c[1].name, "idle-old");
	assert_string_equal(c[2].name, "busy");

	/* the same second: by name */
	cand(&c[0], "y", M, 5);
	cand(&c[1], "x", M, 5);
	cand(&c[2], "z", M, 4);
	assert_int_equal(admit_pick(c, 3, 2 * M), 2);
	assert_string_equal(c[0].name, "z");
	assert_string_equal(c[1].name, "x");
}

/* room for the wakes behind the first, as far as the idle ones go */
static void
test_pick_queue(void **state)
{
	struct admit_cand	 c[4];
	int64_t			 need[4];

	cand(&c[0], "a", 50 * M, 100);
	cand(&c[1], "b", 50 * M, 200);
	cand(&c[2], "c", 50 * M, 300);
	/* the first 10M short, then 40M and 40M: a and b cover all three */
	need[0] = 10 * M;
	need[1] = 40 * M;
	need[2] = 40 * M;
	assert_int_equal(admit_pick_queue(c, 3, need, 3), 2);
	assert_string_equal(c[0].name, "a");
	assert_string_equal(c[1].name, "b");
	/* a fourth of 100M: not coverable, the first three still are */
	need[3] = 100 * M;
	assert_int_equal(admit_pick_queue(c, 3, need, 4), 2);
	/* the first covered already: only for those behind it */
	need[0] = -30 * M;
	assert_int_equal(admit_pick_queue(c, 3, need, 2), 1);
	assert_int_equal(admit_pick_queue(c, 3, need, 1), 0);
	need[1] = 30 * M;
	assert_int_equal(admit_pick_queue(c, 3, need, 2), 0);
	/* the first not coverable: none for those behind it either */
	need[0] = 200 * M;
	need[1] = M;
	assert_int_equal(admit_pick_queue(c, 3, need, 2), 0);
	/* no candidates */
	need[0] = M;
	assert_int_equal(admit_pick_queue(c, 0, need, 1), 0);
}

/* the wait histogram's buckets, as the gateways write them */
static void
test_wait_bucket(void **state)
{
	assert_int_equal(budget_wait_bucket(0), 0);
	assert_int_equal(budget_wait_bucket(0.1), 0);
	assert_int_equal(budget_wait_bucket(0.11), 1);
	assert_int_equal(budget_wait_bucket(30), 7);
	assert_int_equal(budget_wait_bucket(120), BUDGET_WAIT_BOUNDS - 1);
	assert_int_equal(budget_wait_bucket(121), BUDGET_WAIT_BOUNDS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_estimate_next),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_pick_queue),
		cmocka_unit_test(test_wait_bucket),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
