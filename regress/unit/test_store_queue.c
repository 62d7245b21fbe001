/*
 * The writes the store could not make, held in order and written again
 * (stored/store_queue.c), against a real database whose writes a sink
 * refuses at will.
 */

#include <sys/queue.h>
#include <sys/types.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "msg.h"
#include "workload.h"
#include "../../stored/store_db.h"
#include "../../stored/store_queue.h"
#include "storetest.h"

/*
 * Held writes.  The sink writes to a real database but refuses while
 * "full", as sqlite does with its disk full (the end-to-end test,
 * regress/e2e/diskfull.sh, fills a real one); after "left" writes it
 * refuses too, for a retry that stops half way.
 */

struct sink {
	struct store_db	*sdb;
	int		 full;
	int		 left;		/* -1: no limit */
	int		 tried;
};

static int
sink_write(const struct sq_entry *e, void *arg)
{
	struct sink	*k = arg;

	k->tried++;
	if (k->full || k->left == 0)
		return (-1);
	if (k->left > 0)
		k->left--;
	switch (e->kind) {
	case SQ_STATE:
		return (store_db_state(k->sdb, &e->u.st) == -1 ? -1 : 0);
	case SQ_LASTSEEN:
		return (store_db_lastseen(k->sdb, &e->u.ls, 1));
	case SQ_KEEPWARM:
		return (store_db_keepwarm(k->sdb, e->u.kw.name, e->u.kw.on,
		    e->u.kw.until));
	case SQ_MEMORY:
		return (store_db_memory(k->sdb, e->u.mem.name, e->u.mem.bytes,
		    e->u.mem.estimate));
	case SQ_JOB:
		return (store_db_job(k->sdb, e->u.job.name, e->u.job.hash));
	case SQ_UID:
		return (store_db_uid_put(k->sdb, e->u.uid.name, e->u.uid.uid));
	case SQ_MAINT:
		return (store_db_maint(k->sdb, e->u.maint.name, &e->u.maint.m));
	}
	return (-1);
}

static void
hold_state(struct store_queue *q, const char *name, enum workload_state to,
    enum rt_reason reason, int64_t t_ms, int expect)
{
	struct rt_state	 st;

	memset(&st, 0, sizeof(st));
	strlcpy(st.name, name, sizeof(st.name));
	st.state = to;
	st.reason = reason;
	st.since = t_ms / 1000;
	st.since_ms = t_ms;
	assert_int_equal(sq_add(q, SQ_STATE, &st), expect);
}

static void
hold_lastseen(struct store_queue *q, const char *name, int64_t t, int expect)
{
	struct reap_lastseen	 ls;

	memset(&ls, 0, sizeof(ls));
	strlcpy(ls.name, name, sizeof(ls.name));
	ls.last_seen = t;
	assert_int_equal(sq_add(q, SQ_LASTSEEN, &ls), expect);
}

/* two wakes and a suspend held: waking, running, ..., running */
static void
hold_cycle(struct store_queue *q, const char *name, int64_t t)
{
	hold_state(q, name, WL_WAKING, RT_REASON_REQUEST, t, 1);
	hold_state(q, name, WL_RUNNING, RT_REASON_READY, t + 300, 1);
	hold_state(q, name, WL_SUSPENDING, RT_REASON_OPERATOR, t + 5000, 1);
	hold_state(q, name, WL_ASLEEP, RT_REASON_OPERATOR, t + 5100, 1);
	hold_state(q, name, WL_WAKING, RT_REASON_REQUEST, t + 9000, 1);
	hold_state(q, name, WL_RUNNING, RT_REASON_READY, t + 9200, 1);
}

static const enum workload_state cycle_to[] = {
	WL_WAKING, WL_RUNNING, WL_SUSPENDING, WL_ASLEEP, WL_WAKING, WL_RUNNING
};

static void
test_queue_order_and_retry(void **state)
{
	struct fixture		*f = *state;
	struct store_queue	 q;
	struct sink		 k;
	struct collect		 c;
	size_t			 i;

	memset(&k, 0, sizeof(k));
	k.sdb = db_open(f->path);
	k.left = -1;
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(k.sdb, &f->wls, T0), 0);
	sq_init(&q, SQ_MAX_ENTRIES, SQ_MAX_BYTES);
	assert_true(sq_empty(&q));
	/* nothing held: no retry counted */
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 0);
	assert_int_equal(q.stats.retries, 0);

	hold_cycle(&q, "a", T0 + 1000);
	hold_state(&q, "b", WL_WAKING, RT_REASON_REQUEST, T0 + 1500, 1);
	assert_int_equal(q.stats.queued, 7);
	assert_int_equal(q.stats.total, 7);
	assert_true(q.stats.bytes >= 7 * sizeof(struct rt_state));

	/* full: the first is refused, nothing is lost, nothing reordered */
	k.full = 1;
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 0);
	assert_int_equal(k.tried, 1);
	assert_int_equal(q.stats.retries, 1);
	assert_int_equal(q.stats.queued, 7);

	/* the views: the row as the held writes leave it */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].state, WL_ASLEEP);
	sq_overlay_workload(&q, &c.wl[0]);
	assert_int_equal(c.wl[0].state, WL_RUNNING);
	assert_int_equal(c.wl[0].wakes, 2);
	assert_int_equal(c.wl[0].started_at, (T0 + 10200) / 1000);
	assert_int_equal(sq_transitions(&q, "a"), 6);
	memset(&c, 0, sizeof(c));
	assert_int_equal(sq_history(&q, "a", WL_ASLEEP, collect_history, &c),
	    6);
	for (i = 0; i < nitems(cycle_to); i++) {
		assert_int_equal(c.tr[i].from, i == 0 ? WL_ASLEEP :
		    cycle_to[i - 1]);
		assert_int_equal(c.tr[i].to, cycle_to[i]);
	}
	assert_int_equal(c.tr[5].time, (T0 + 10200) / 1000);

	/* room again: all of it, in order, and the queue is empty */
	k.full = 0;
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 7);
	assert_true(sq_empty(&q));
	assert_int_equal(q.stats.queued, 0);
	assert_int_equal(q.stats.bytes, 0);
	assert_int_equal(q.stats.retries, 2);
	assert_int_equal(q.stats.total, 7);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(k.sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 6);
	for (i = 0; i < nitems(cycle_to); i++)
		assert_int_equal(c.tr[i].to, cycle_to[i]);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "", collect_workload, &c),
	    2);
	assert_int_equal(c.wl[0].state, WL_RUNNING);
	assert_int_equal(c.wl[0].wakes, 2);
	assert_int_equal(c.wl[1].state, WL_WAKING);
	/* the wake's time as runtimed measured it, not the retry's */
	assert_int_equal(raw_int(f->path, "SELECT sum(wake_ms) FROM "
	    "transitions WHERE workload = 'a' AND to_state = 'running'"),
	    500);
	store_db_close(k.sdb);
}

/* a retry that stops half way leaves the rest, in order; a batch bound */
static void
test_queue_partial(void **state)
{
	struct fixture		*f = *state;
	struct store_queue	 q;
	struct sink		 k;
	struct collect		 c;
	const struct sq_entry	*e;
	size_t			 i;

	memset(&k, 0, sizeof(k));
	k.sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(k.sdb, &f->wls, T0), 0);
	sq_init(&q, SQ_MAX_ENTRIES, SQ_MAX_BYTES);
	hold_cycle(&q, "a", T0 + 1000);

	k.left = 2;
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 2);
	assert_int_equal(q.stats.queued, 4);
	e = TAILQ_FIRST(&q.entries);
	assert_int_equal(e->u.st.state, WL_SUSPENDING);
	/* the views start from the row, which has the first two */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].state, WL_RUNNING);
	assert_int_equal(c.wl[0].wakes, 1);
	sq_overlay_workload(&q, &c.wl[0]);
	assert_int_equal(c.wl[0].wakes, 2);

	/* at most max a pass */
	k.left = -1;
	assert_int_equal(sq_flush(&q, sink_write, &k, 3), 3);
	assert_int_equal(q.stats.queued, 1);
	assert_int_equal(sq_flush(&q, sink_write, &k, 3), 1);
	assert_true(sq_empty(&q));
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(k.sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 6);
	for (i = 0; i < nitems(cycle_to); i++)
		assert_int_equal(c.tr[i].to, cycle_to[i]);
	store_db_close(k.sdb);
}

/* bounded in count and in bytes: the newest dropped and counted */
static void
test_queue_bounds(void **state)
{
	struct store_queue	 q;
	size_t			 one;
	int			 i;

	sq_init(&q, 3, SQ_MAX_BYTES);
	for (i = 0; i < 3; i++)
		hold_state(&q, "a", i % 2 ? WL_RUNNING : WL_WAKING,
		    RT_REASON_NONE, T0 + i, 1);
	assert_int_equal(q.full, 0);
	hold_state(&q, "a", WL_ASLEEP, RT_REASON_NONE, T0 + 3, -1);
	hold_state(&q, "a", WL_WAKING, RT_REASON_NONE, T0 + 4, -1);
	assert_int_equal(q.stats.queued, 3);
	assert_int_equal(q.stats.drops, 2);
	assert_int_equal(q.stats.total, 3);
	assert_int_equal(q.full, 1);
	/* the oldest kept: waking, running, waking */
	assert_int_equal(TAILQ_LAST(&q.entries, sq_entries)->u.st.since_ms,
	    T0 + 2);
	one = q.stats.bytes / 3;
	sq_clear(&q);
	assert_int_equal(q.full, 0);
	assert_int_equal(q.stats.bytes, 0);

	/* two entries' bytes, and a little: the third does not fit */
	sq_init(&q, SQ_MAX_ENTRIES, 2 * one + one / 2);
	hold_state(&q, "a", WL_WAKING, RT_REASON_NONE, T0, 1);
	hold_state(&q, "a", WL_RUNNING, RT_REASON_NONE, T0 + 1, 1);
	hold_state(&q, "a", WL_ASLEEP, RT_REASON_NONE, T0 + 2, -1);
	assert_int_equal(q.stats.queued, 2);
	assert_int_equal(q.stats.drops, 1);
	assert_true(q.stats.bytes <= 2 * one + one / 2);
	/* a smaller kind still fits where a state did not */
	hold_lastseen(&q, "a", 100, 1);
	assert_int_equal(q.stats.queued, 3);
	sq_clear(&q);
}

/* the newest value per workload for what is not history */
static void
test_queue_coalesce(void **state)
{
	struct fixture		*f = *state;
	struct store_queue	 q;
	struct ctl_keepwarm	 kw;
	struct rt_memory	 mem;
	struct sink		 k;
	struct collect		 c;
	const struct sq_entry	*e;
	int			 n;

	sq_init(&q, 4, SQ_MAX_BYTES);
	hold_lastseen(&q, "a", 100, 1);
	hold_lastseen(&q, "a", 300, 0);
	hold_lastseen(&q, "a", 200, 0);		/* never backwards */
	hold_lastseen(&q, "b", 50, 1);
	memset(&kw, 0, sizeof(kw));
	strlcpy(kw.name, "a", sizeof(kw.name));
	kw.on = 1;
	assert_int_equal(sq_add(&q, SQ_KEEPWARM, &kw), 1);
	kw.on = 0;
	assert_int_equal(sq_add(&q, SQ_KEEPWARM, &kw), 0);
	memset(&mem, 0, sizeof(mem));
	strlcpy(mem.name, "a", sizeof(mem.name));
	mem.bytes = 1000;
	assert_int_equal(sq_add(&q, SQ_MEMORY, &mem), 1);
	/* full now: a coalesced one still gets in, a new one does not */
	mem.bytes = 2000;
	assert_int_equal(sq_add(&q, SQ_MEMORY, &mem), 0);
	hold_lastseen(&q, "a", 400, 0);
	hold_lastseen(&q, "c", 1, -1);
	hold_state(&q, "a", WL_WAKING, RT_REASON_NONE, T0, -1);
	assert_int_equal(q.stats.queued, 4);
	assert_int_equal(q.stats.total, 4);
	assert_int_equal(q.stats.drops, 2);
	n = 0;
	TAILQ_FOREACH(e, &q.entries, entry) {
		switch (n++) {
		case 0:
			assert_int_equal(e->kind, SQ_LASTSEEN);
			assert_int_equal(e->u.ls.last_seen, 400);
			break;
		case 1:
			assert_string_equal(e->u.ls.name, "b");
			break;
		case 2:
			assert_int_equal(e->kind, SQ_KEEPWARM);
			assert_int_equal(e->u.kw.on, 0);
			break;
		case 3:
			assert_int_equal(e->u.mem.bytes, 2000);
			break;
		}
	}

	/* the view, and the database once written */
	memset(&k, 0, sizeof(k));
	k.sdb = db_open(f->path);
	k.left = -1;
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG)->keep_warm = 1;
	assert_int_equal(store_db_sync(k.sdb, &f->wls, T0), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].keep_warm, 1);
	sq_overlay_workload(&q, &c.wl[0]);
	assert_int_equal(c.wl[0].last_seen, 400);
	assert_int_equal(c.wl[0].keep_warm, 0);
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 4);
	assert_true(sq_empty(&q));
	assert_int_equal(raw_int(f->path, "SELECT last_seen FROM workloads "
	    "WHERE name = 'a'"), 400);
	assert_int_equal(raw_int(f->path, "SELECT keep_warm FROM workloads "
	    "WHERE name = 'a'"), 0);
	assert_int_equal(raw_int(f->path, "SELECT memory FROM counters "
	    "WHERE workload = 'a'"), 2000);
	store_db_close(k.sdb);
}

/* maintenance held: the newest per workload, in the view, then written */
static void
test_queue_maint(void **state)
{
	struct fixture		*f = *state;
	struct store_queue	 q;
	struct ctl_maint	 cm;
	struct sink		 k;
	struct collect		 c;

	sq_init(&q, 4, SQ_MAX_BYTES);
	memset(&cm, 0, sizeof(cm));
	strlcpy(cm.name, "a", sizeof(cm.name));
	cm.m.on = 1;
	strlcpy(cm.m.msg, "first", sizeof(cm.m.msg));
	assert_int_equal(sq_add(&q, SQ_MAINT, &cm), 1);
	cm.m.until = 1900000000;
	/* from another process: cut at its bound, whatever it sent */
	memset(cm.m.msg, 'x', sizeof(cm.m.msg));
	assert_int_equal(sq_add(&q, SQ_MAINT, &cm), 0);
	assert_int_equal(q.stats.queued, 1);

	memset(&k, 0, sizeof(k));
	k.sdb = db_open(f->path);
	k.left = -1;
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(k.sdb, &f->wls, T0), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].maint.on, 0);
	sq_overlay_workload(&q, &c.wl[0]);
	assert_int_equal(c.wl[0].maint.on, 1);
	assert_int_equal(c.wl[0].maint.until, 1900000000);
	assert_int_equal(strlen(c.wl[0].maint.msg), MAINT_MSG_MAX - 1);
	assert_int_equal(sq_flush(&q, sink_write, &k, 100), 1);
	assert_int_equal(raw_int(f->path, "SELECT maint_until FROM workloads "
	    "WHERE name = 'a'"), 1900000000);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(k.sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].maint.on, 1);
	store_db_close(k.sdb);
}

/* show stats: the wakes and failed wakes held, from the row's state */
static void
test_queue_stats(void **state)
{
	struct store_queue	 q;
	struct ctl_stats	 cs;

	sq_init(&q, SQ_MAX_ENTRIES, SQ_MAX_BYTES);
	/* the row says waking: the held running ends that wake */
	hold_state(&q, "a", WL_RUNNING, RT_REASON_READY, T0, 1);
	hold_state(&q, "a", WL_ASLEEP, RT_REASON_EXITED, T0 + 1, 1);
	hold_state(&q, "a", WL_WAKING, RT_REASON_REQUEST, T0 + 2, 1);
	hold_state(&q, "a", WL_FAILED, RT_REASON_START_FAILED, T0 + 3, 1);
	hold_state(&q, "b", WL_WAKING, RT_REASON_REQUEST, T0 + 4, 1);
	/* adopted across a restart: no wake */
	hold_state(&q, "b", WL_RUNNING, RT_REASON_RESTORED, T0 + 5, 1);
	memset(&cs, 0, sizeof(cs));
	strlcpy(cs.name, "a", sizeof(cs.name));
	cs.wakes = 5;
	sq_overlay_stats(&q, &cs, WL_WAKING);
	assert_int_equal(cs.wakes, 6);
	assert_int_equal(cs.failed_wakes, 1);
	memset(&cs, 0, sizeof(cs));
	strlcpy(cs.name, "b", sizeof(cs.name));
	sq_overlay_stats(&q, &cs, WL_ASLEEP);
	assert_int_equal(cs.wakes, 0);
	assert_int_equal(cs.failed_wakes, 0);
	sq_clear(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_queue_order_and_retry,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_partial, setup,
		    teardown),
		cmocka_unit_test(test_queue_bounds),
		cmocka_unit_test_setup_teardown(test_queue_coalesce, setup,
		    teardown),
		cmocka_unit_test(test_queue_stats),
		cmocka_unit_test_setup_teardown(test_queue_maint, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
