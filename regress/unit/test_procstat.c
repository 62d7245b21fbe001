/*
 * Unit tests for common/procstat.c: the CPU time and resident memory of
 * one of orchd's processes from the text of /proc/PID/stat, whose
 * second field, the name the process gave itself, may hold anything a
 * process puts there (spaces, parentheses, digits); and the parent's own
 * file read for real.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "procstat.h"

/* the kernel's line: utime 150, stime 50, rss 1234 pages */
#define TAIL	" S 1 2 3 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 1 0 " \
		"5000 10000000 1234 18446744073709551615 1 1 0 0 0 0 0 0 0\n"

static int
parse(const char *s, uint64_t *ticks, uint64_t *pages)
{
	return (procstat_parse(s, strlen(s), ticks, pages));
}

static void
test_plain(void **state)
{
	uint64_t	 t = 0, p = 0;

	assert_int_equal(parse("4242 (orchd)" TAIL, &t, &p), 0);
	assert_int_equal(t, 200);
	assert_int_equal(p, 1234);
}

/*
 * A name that imitates the fields after it: only what follows the
 * last ')' counts, which the kernel writes.
 */
static void
test_hostile_name(void **state)
{
	uint64_t	 t = 0, p = 0;

	assert_int_equal(parse("4242 (x) S 1 2 3 0 -1 0 0 0 0 0 9999999 "
	    "9999999 0 0 0 0 0 0 0 0 99999999 )" TAIL, &t, &p), 0);
	assert_int_equal(t, 200);
	assert_int_equal(p, 1234);
	assert_int_equal(parse("4242 ((( ) ))" TAIL, &t, &p), 0);
	assert_int_equal(t, 200);
}

static void
test_malformed(void **state)
{
	uint64_t	 t = 7, p = 7;

	/* no ')', cut short, a field not a number, too big */
	assert_int_equal(parse("4242 orchd S 1 2 3", &t, &p), -1);
	assert_int_equal(parse("4242 (orchd) S 1 2 3 0 -1 0 0 0 0 0 1 2",
	    &t, &p), -1);
	assert_int_equal(parse("4242 (orchd) S 1 2 3 0 -1 0 0 0 0 0 x 50 "
	    "0 0 20 0 1 0 5000 10000000 1234\n", &t, &p), -1);
	assert_int_equal(parse("4242 (orchd) S 1 2 3 0 -1 0 0 0 0 0 "
	    "99999999999999999999 50 0 0 20 0 1 0 5000 10000000 1234\n", &t,
	    &p), -1);
	assert_int_equal(parse("4242 (orchd) S 1 2 3 0 -1 0 0 0 0 0 150 50 "
	    "0 0 20 0 1 0 5000 10000000 -1\n", &t, &p), -1);
	assert_int_equal(procstat_parse("", 0, &t, &p), -1);
	/* untouched on failure */
	assert_int_equal(t, 7);
	assert_int_equal(p, 7);
}

/* this process's own file: some memory, a pid that is not there: -1 */
static void
test_read(void **state)
{
	struct gw_procstat	 ps;

	assert_int_equal(procstat_read(getpid(), 3, 2, &ps), 0);
	assert_int_equal(ps.id, 3);
	assert_int_equal(ps.instance, 2);
	assert_true(ps.rss > 100 * 1024);
	assert_int_equal(procstat_read(0, 0, 0, &ps), -1);
	assert_int_equal(procstat_read(-1, 0, 0, &ps), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_hostile_name),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_read),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
