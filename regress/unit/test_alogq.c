/*
 * The access log's queue (orchd/alogq.c): lines held in order while the
 * file refuses them, written again whole and once, bounded, the newest
 * dropped whole and counted.  The file is a sink with room for so many
 * bytes, then ENOSPC, as a full disk; a write that takes part of what it
 * is given, as a disk filling up does.  The end-to-end test,
 * regress/e2e/alogfull.sh, fills a real tmpfs.
 */

#include <sys/queue.h>
#include <sys/types.h>

#include <errno.h>
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
#include "../../orchd/alogq.h"

#define SINK_MAX	(512 * 1024)

struct sink {
	char	 buf[SINK_MAX];
	size_t	 len;
	size_t	 room;		/* bytes it takes before ENOSPC */
	size_t	 per_call;	/* at most, a write; 0: any */
};

static struct sink	 sink;

static ssize_t
sink_write(const char *buf, size_t len, void *arg)
{
	struct sink	*s = arg;
	size_t		 n = len;

	if (s->room == 0) {
		errno = ENOSPC;
		return (-1);
	}
	n = MINIMUM(n, s->room);
	if (s->per_call > 0)
		n = MINIMUM(n, s->per_call);
	assert_true(s->len + n <= sizeof(s->buf));
	memcpy(s->buf + s->len, buf, n);
	s->len += n;
	s->room -= n;
	return (n);
}

static void
sink_reset(size_t room)
{
	memset(&sink, 0, sizeof(sink));
	sink.room = room;
}

static void
assert_sink(const char *want)
{
	assert_int_equal(sink.len, strlen(want));
	assert_memory_equal(sink.buf, want, sink.len);
}

/* a write that takes part: the rest held, then written, nothing twice */
static void
test_alogq_partial_and_retry(void **state)
{
	struct alogq	 q;

	alogq_init(&q, 1024);
	sink_reset(10);
	assert_int_equal(alogq_add(&q, "line1\nline2\nline3\n", 18), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	assert_int_equal(errno, ENOSPC);
	assert_true(q.held);
	assert_int_equal(q.stats.lines, 2);	/* "e2\n", "line3\n" */
	assert_int_equal(q.stats.bytes, 8);
	assert_int_equal(q.stats.total, 2);
	/* later lines go behind, counted as held */
	assert_int_equal(alogq_add(&q, "line4\n", 6), 0);
	assert_int_equal(q.stats.lines, 3);
	assert_int_equal(q.stats.total, 3);
	/* a retry with no room: nothing moves */
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	assert_int_equal(q.stats.retries, 1);
	sink.room = SINK_MAX;
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_int_equal(q.stats.retries, 2);
	assert_false(q.held);
	assert_true(alogq_empty(&q));
	assert_int_equal(q.stats.lines, 0);
	assert_int_equal(q.stats.bytes, 0);
	assert_int_equal(q.stats.drops, 0);
	assert_sink("line1\nline2\nline3\nline4\n");
}

/* past the cap: the newest dropped whole, the rest of a cut line too */
static void
test_alogq_cap(void **state)
{
	struct alogq	 q;

	alogq_init(&q, 20);
	sink_reset(0);
	assert_int_equal(alogq_add(&q, "aaaa\naaaa\naaaa\n", 15), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	/* 5 bytes of room: one of the two */
	assert_int_equal(alogq_add(&q, "bbbb\ncccc\n", 10), 1);
	assert_int_equal(q.stats.bytes, 20);
	/* a line's start dropped, then its end with the next */
	assert_int_equal(alogq_add(&q, "dd", 2), 1);
	assert_int_equal(alogq_add(&q, "dd\neeee\n", 8), 1);
	assert_int_equal(q.stats.drops, 3);
	assert_int_equal(q.stats.lines, 4);
	sink.room = SINK_MAX;
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_sink("aaaa\naaaa\naaaa\nbbbb\n");
	/* room again: lines are taken, the cut one's rest is not there */
	assert_int_equal(alogq_add(&q, "ffff\n", 5), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_sink("aaaa\naaaa\naaaa\nbbbb\nffff\n");
	assert_int_equal(q.stats.drops, 3);
}

/* a line begun under the cap is ended past it: none is held torn */
static void
test_alogq_open_line(void **state)
{
	struct alogq	 q;

	alogq_init(&q, 8);
	sink_reset(0);
	assert_int_equal(alogq_add(&q, "01234567", 8), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	assert_int_equal(alogq_add(&q, "89\nxy\n", 6), 1);
	assert_int_equal(q.stats.lines, 1);
	assert_int_equal(q.stats.bytes, 11);
	sink.room = SINK_MAX;
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_sink("0123456789\n");
}

/* cleared (orchd stops, no file): counted, a line begun with them */
static void
test_alogq_clear(void **state)
{
	struct alogq	 q;

	alogq_init(&q, 1024);
	sink_reset(0);
	assert_int_equal(alogq_add(&q, "one\ntwo\nthr", 11), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	assert_int_equal(alogq_clear(&q), 3);
	assert_int_equal(q.stats.drops, 3);
	assert_true(alogq_empty(&q));
	assert_false(q.held);
	/* the rest of the line begun goes too */
	sink.room = SINK_MAX;
	assert_int_equal(alogq_add(&q, "ee\nfour\n", 8), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_sink("four\n");
}

/* more than a chunk, written a little at a time: every byte, in order */
static void
test_alogq_chunks(void **state)
{
	struct alogq	 q;
	static char	 in[200 * 1024];
	size_t		 i, lines = 0;

	for (i = 0; i < sizeof(in); i++) {
		in[i] = i % 97 == 96 ? '\n' : 'a' + i % 26;
		lines += in[i] == '\n';
	}
	in[sizeof(in) - 1] = '\n';
	lines++;
	alogq_init(&q, 1024 * 1024);
	sink_reset(50000);
	sink.per_call = 1000;
	assert_int_equal(alogq_add(&q, in, sizeof(in)), 0);
	assert_int_equal(alogq_flush(&q, sink_write, &sink), -1);
	assert_int_equal(q.stats.bytes, sizeof(in) - 50000);
	sink.room = SINK_MAX;
	assert_int_equal(alogq_flush(&q, sink_write, &sink), 0);
	assert_int_equal(sink.len, sizeof(in));
	assert_memory_equal(sink.buf, in, sizeof(in));
	assert_int_equal(q.stats.lines, 0);
	assert_true(q.stats.total <= lines);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alogq_partial_and_retry),
		cmocka_unit_test(test_alogq_cap),
		cmocka_unit_test(test_alogq_open_line),
		cmocka_unit_test(test_alogq_clear),
		cmocka_unit_test(test_alogq_chunks),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
