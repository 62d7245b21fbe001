/*
 * runtimed's hold of the store's restore (runtimed/restore.c): the rows
 * that come before runtimed is configured are kept, as many as the
 * generation it has whole has workloads (100,000 and more), and acted
 * on once it is; the store's "no row" is kept and told once.  The
 * lifecycle is stubbed: the test counts what reaches it.
 */

#include <sys/queue.h>
#include <sys/tree.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "../../runtimed/runtime.h"

static struct runtime	 test_rt;
struct runtime		*rt = &test_rt;

static uint32_t	 pending_workloads;
static size_t	 nrestored, ndone, nnone;
static char	 last_name[ORCHD_NAME_MAX];

uint32_t
cfg_pending_workloads(void)
{
	return (pending_workloads);
}

void
lifecycle_restore(const struct st_restore *rs)
{
	nrestored++;
	strlcpy(last_name, rs->name, sizeof(last_name));
}

void
lifecycle_restore_done(void)
{
	ndone++;
}

void
lifecycle_restore_none(void)
{
	nnone++;
}

void
timer_arm(struct event **ev, void (*fn)(int, short, void *), void *arg,
    const struct timeval *tv)
{
}

static void
reset(uint32_t pending)
{
	memset(&test_rt, 0, sizeof(test_rt));
	pending_workloads = pending;
	nrestored = ndone = nnone = 0;
	last_name[0] = '\0';
}

static void
send_rows(size_t n)
{
	struct st_restore	 rs;
	struct imsg		 imsg;
	size_t			 i;

	memset(&imsg, 0, sizeof(imsg));
	imsg.data = &rs;
	imsg.datalen = sizeof(rs);
	for (i = 0; i < n; i++) {
		memset(&rs, 0, sizeof(rs));
		(void)snprintf(rs.name, sizeof(rs.name), "w%zu", i);
		restore_recv(NULL, &imsg);
	}
}

static void
send_done(void)
{
	struct imsg	 imsg;

	memset(&imsg, 0, sizeof(imsg));
	restore_recv_done(NULL, &imsg);
}

/* 100,000 rows before the configuration starts: none is lost */
static void
test_many_early(void **state)
{
	reset(100000);
	send_rows(100000);
	send_done();
	assert_int_equal(nrestored, 0);
	assert_int_equal(ndone, 0);
	rt->configured = 1;
	pending_workloads = 0;
	restore_replay();
	assert_int_equal(nrestored, 100000);
	assert_string_equal(last_name, "w99999");
	assert_int_equal(ndone, 1);
}

/* more rows than the generation has workloads are no store's: dropped */
static void
test_bounded(void **state)
{
	reset(10);
	send_rows(25);
	rt->configured = 1;
	restore_replay();
	assert_int_equal(nrestored, 10);
	assert_string_equal(last_name, "w9");
	/* configured: each row is acted on as it comes, none held */
	send_rows(3);
	assert_int_equal(nrestored, 13);
}

#ifndef TEST_RESTORE_BASE
/* the store's "no row": told once, and only when runtimed is configured */
static void
test_none(void **state)
{
	struct imsg	 imsg;

	memset(&imsg, 0, sizeof(imsg));
	reset(5);
	restore_recv_none(NULL, &imsg);
	assert_int_equal(rt->store_none, 1);
	assert_int_equal(nnone, 0);
	reset(5);
	rt->configured = 1;
	restore_recv_none(NULL, &imsg);
	restore_recv_none(NULL, &imsg);
	assert_int_equal(nnone, 1);
	/* after the restore's end it says nothing new */
	reset(5);
	rt->configured = 1;
	rt->restored = 1;
	restore_recv_none(NULL, &imsg);
	assert_int_equal(rt->store_none, 0);
	assert_int_equal(nnone, 0);
}
#endif

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_early),
		cmocka_unit_test(test_bounded),
#ifndef TEST_RESTORE_BASE
		cmocka_unit_test(test_none),
#endif
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
