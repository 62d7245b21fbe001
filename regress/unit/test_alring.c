/*
 * Each workload's last access-log lines in the reaper (reaperd/alring.c):
 * the last ALRING_PER_WL of each, oldest first whatever order the
 * gateways' batches come in, the last n of them asked for, one
 * workload's never another's, forgotten with the workload, a line too
 * long refused, and the total bound in bytes held under a flood of
 * workloads, the oldest lines given up first.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reaperd/alring.h"
#include "msg.h"

static int
setup(void **state)
{
	struct alring	*r;

	if ((r = malloc(sizeof(*r))) == NULL)
		return (-1);
	alring_init(r);
	*state = r;
	return (0);
}

static int
teardown(void **state)
{
	struct alring	*r = *state;
	char		 name[ORCHD_NAME_MAX];

	/* every workload forgotten: nothing is left */
	while (RB_ROOT(&r->tree) != NULL) {
		strlcpy(name, RB_ROOT(&r->tree)->name, sizeof(name));
		alring_forget(r, name);
	}
	assert_int_equal(r->bytes, 0);
	assert_int_equal(r->lines, 0);
	free(r);
	return (0);
}

static void
add(struct alring *r, const char *name, int64_t ms, const char *text)
{
	assert_int_equal(alring_add(r, name, ms, text, strlen(text)), 0);
}

static void
test_last_per_workload(void **state)
{
	struct alring			*r = *state;
	const struct alring_line	*out[ALRING_PER_WL];
	char				 buf[32];
	size_t				 n;
	int				 i;

	for (i = 0; i < 150; i++) {
		snprintf(buf, sizeof(buf), "a-%d", i);
		add(r, "a", 1000 + i, buf);
		if (i < 3) {
			snprintf(buf, sizeof(buf), "b-%d", i);
			add(r, "b", 1000 + i, buf);
		}
	}
	n = alring_get(r, "a", 1000, out, ALRING_PER_WL);
	assert_int_equal(n, ALRING_PER_WL);
	assert_memory_equal(out[0]->text, "a-50", 4);
	assert_memory_equal(out[99]->text, "a-149", 5);
	n = alring_get(r, "a", 2, out, ALRING_PER_WL);
	assert_int_equal(n, 2);
	assert_memory_equal(out[0]->text, "a-148", 5);
	n = alring_get(r, "b", 100, out, ALRING_PER_WL);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(out[i]->text[0], 'b');
	assert_int_equal(alring_get(r, "c", 100, out, ALRING_PER_WL), 0);
	assert_int_equal(alring_get(r, "../a", 100, out, ALRING_PER_WL), 0);
	alring_forget(r, "a");
	assert_int_equal(alring_get(r, "a", 100, out, ALRING_PER_WL), 0);
	assert_int_equal(r->lines, 3);
}

/* two gateways' batches, interleaved late: in the requests' order */
static void
test_order(void **state)
{
	struct alring			*r = *state;
	const struct alring_line	*out[ALRING_PER_WL];
	size_t				 n;

	add(r, "a", 10, "1");
	add(r, "a", 30, "3");
	add(r, "a", 20, "2");
	add(r, "a", 5, "0");
	add(r, "a", 40, "4");
	n = alring_get(r, "a", 100, out, ALRING_PER_WL);
	assert_int_equal(n, 5);
	assert_memory_equal(out[0]->text, "0", 1);
	assert_memory_equal(out[2]->text, "2", 1);
	assert_memory_equal(out[4]->text, "4", 1);
}

/* a full workload: a line older than all it has is not kept */
static void
test_late_line(void **state)
{
	struct alring			*r = *state;
	const struct alring_line	*out[ALRING_PER_WL];
	int				 i;

	for (i = 0; i < ALRING_PER_WL; i++)
		add(r, "a", 100 + i, "x");
	add(r, "a", 1, "late");
	assert_int_equal(alring_get(r, "a", 100, out, ALRING_PER_WL),
	    ALRING_PER_WL);
	for (i = 0; i < ALRING_PER_WL; i++)
		assert_int_equal(out[i]->text[0], 'x');
}

static void
test_refused(void **state)
{
	struct alring	*r = *state;
	char		 big[ALOG_KEEP_LINE + 1], name[ORCHD_NAME_MAX + 1];

	memset(big, 'x', sizeof(big));
	assert_int_equal(alring_add(r, "a", 1, big, sizeof(big)), -1);
	assert_int_equal(alring_add(r, "a", 1, big, sizeof(big) - 1), 0);
	assert_int_equal(alring_add(r, "", 1, "x", 1), -1);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(alring_add(r, name, 1, "x", 1), -1);
	assert_int_equal(r->lines, 1);
}

/* many workloads of long lines: the total stays under its bound */
static void
test_total_bound(void **state)
{
	struct alring			*r = *state;
	const struct alring_line	*out[ALRING_PER_WL];
	char				 line[ALOG_KEEP_LINE], name[32];
	int				 i, j;

	memset(line, 'l', sizeof(line));
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		for (j = 0; j < ALRING_PER_WL; j++) {
			assert_int_equal(alring_add(r, name, i * 1000 + j,
			    line, sizeof(line)), 0);
			assert_true(r->bytes <= ALRING_BYTES);
		}
	}
	assert_true(r->dropped > 0);
	/* the newest workload whole, the oldest gone */
	assert_int_equal(alring_get(r, "w199", 100, out, ALRING_PER_WL),
	    ALRING_PER_WL);
	assert_int_equal(alring_get(r, "w0", 100, out, ALRING_PER_WL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_last_per_workload, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_line, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total_bound, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
