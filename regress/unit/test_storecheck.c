/*
 * The store's "checking" overlay after a restart (stored/store_check.c):
 * every workload of the first configuration shows "checking" until
 * runtimed tells its state, at 100,000 workloads too (a fixed bound of
 * 65,536 left the rest showing what the database remembered).
 */

#include <sys/queue.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "../../stored/store_check.h"

#define NWL	100000

static enum workload_state
shown(const char *name)
{
	struct ctl_workload	 cw;

	memset(&cw, 0, sizeof(cw));
	strlcpy(cw.name, name, sizeof(cw.name));
	cw.state = WL_RUNNING;		/* as the database remembers */
	store_check_overlay(&cw);
	return (cw.state);
}

static void
test_many(void **state)
{
	struct cfg_generation	 gen;
	struct workload_conf	*wc;
	char			 name[32];
	int			 i;

	memset(&gen, 0, sizeof(gen));
	TAILQ_INIT(&gen.workloads);
	if ((wc = calloc(NWL, sizeof(*wc))) == NULL)
		fail();
	for (i = 0; i < NWL; i++) {
		(void)snprintf(wc[i].name, sizeof(wc[i].name), "w%d", i);
		TAILQ_INSERT_TAIL(&gen.workloads, &wc[i], entry);
		gen.nworkloads++;
	}
	/* runtimed told one before the store had its configuration */
	store_check_told("w5");
	store_check_begin(&gen);
	assert_int_equal(shown("w0"), WL_CHECKING);
	assert_int_equal(shown("w70000"), WL_CHECKING);
	assert_int_equal(shown("w99999"), WL_CHECKING);
	assert_int_equal(shown("w5"), WL_RUNNING);
	/* told: what the database says */
	store_check_told("w99999");
	assert_int_equal(shown("w99999"), WL_RUNNING);
	for (i = 0; i < NWL; i++) {
		(void)snprintf(name, sizeof(name), "w%d", i);
		store_check_told(name);
	}
	assert_int_equal(shown("w70000"), WL_RUNNING);
	free(wc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
