/*
 * The reaper's count of wrong API keys (reaperd/authlim.c): the cap in a
 * window, the window's end, addresses grouped per IPv4 address and IPv6
 * /64, and a table that stays bounded under a flood of addresses.
 */

#include <sys/socket.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reaperd/authlim.h"
#include "msg.h"

#define T0	1000000LL	/* ms */

static struct netaddr
addr(const char *text)
{
	struct netaddr	 na;

	memset(&na, 0, sizeof(na));
	if (inet_pton(AF_INET, text, na.addr) == 1)
		na.af = AF_INET;
	else {
		assert_int_equal(inet_pton(AF_INET6, text, na.addr), 1);
		na.af = AF_INET6;
	}
	return (na);
}

static int
setup(void **state)
{
	struct authlim	*al;

	if ((al = malloc(sizeof(*al))) == NULL)
		return (-1);
	authlim_init(al);
	*state = al;
	return (0);
}

static int
teardown(void **state)
{
	free(*state);
	return (0);
}

/* n failures from text at now: the last one's answer */
static int64_t
fail_n(struct authlim *al, const char *text, int n, int64_t now)
{
	struct netaddr	 na = addr(text);
	int64_t		 r = 0;
	int		 i;

	for (i = 0; i < n; i++)
		r = authlim_fail(al, &na, now);
	return (r);
}

static void
test_cap(void **state)
{
	struct authlim	*al = *state;

	assert_int_equal(fail_n(al, "192.0.2.1", AUTHLIM_CAP, T0), 0);
	/* the next is refused until the window's end */
	assert_int_equal(fail_n(al, "192.0.2.1", 1, T0 + 1000),
	    AUTHLIM_WINDOW_MS - 1000);
	assert_int_equal(fail_n(al, "192.0.2.1", 50, T0 + 59999), 1);
	/* another address is another count */
	assert_int_equal(fail_n(al, "192.0.2.2", 1, T0 + 1000), 0);
	assert_int_equal(authlim_entries(al), 2);
}

static void
test_window(void **state)
{
	struct authlim	*al = *state;

	assert_true(fail_n(al, "192.0.2.1", AUTHLIM_CAP + 1, T0) > 0);
	/* a new window: the cap again, counted from this failure */
	assert_int_equal(fail_n(al, "192.0.2.1", AUTHLIM_CAP,
	    T0 + AUTHLIM_WINDOW_MS), 0);
	assert_int_equal(fail_n(al, "192.0.2.1", 1,
	    T0 + AUTHLIM_WINDOW_MS + 10), AUTHLIM_WINDOW_MS - 10);
	/* failures spread out: never over the cap */
	assert_int_equal(fail_n(al, "192.0.2.9", AUTHLIM_CAP, T0), 0);
	assert_int_equal(fail_n(al, "192.0.2.9", AUTHLIM_CAP,
	    T0 + AUTHLIM_WINDOW_MS), 0);
}

static void
test_ipv6_per_64(void **state)
{
	struct authlim	*al = *state;
	uint8_t		 a[AUTHLIM_KEYLEN], b[AUTHLIM_KEYLEN];
	struct netaddr	 na;

	/* one /64: every address in it counts for the whole */
	assert_int_equal(fail_n(al, "2001:db8:1:2::1", 5, T0), 0);
	assert_int_equal(fail_n(al, "2001:db8:1:2:ffff:1:2:3", 5, T0), 0);
	assert_true(fail_n(al, "2001:db8:1:2:abcd::9", 1, T0) > 0);
	/* the next /64 is another */
	assert_int_equal(fail_n(al, "2001:db8:1:3::1", 1, T0), 0);
	assert_int_equal(authlim_entries(al), 2);

	/* an IPv4-mapped address is its IPv4 address, not ::ffff:0:0/64 */
	na = addr("::ffff:192.0.2.7");
	assert_int_equal(authlim_prefix(&na, a), 0);
	na = addr("192.0.2.7");
	assert_int_equal(authlim_prefix(&na, b), 0);
	assert_memory_equal(a, b, sizeof(a));
	na = addr("::ffff:192.0.2.8");
	assert_int_equal(authlim_prefix(&na, a), 0);
	assert_memory_not_equal(a, b, sizeof(a));
	/* 1.2.3.4 and the IPv6 address of the same bytes differ */
	na = addr("102:304::");
	assert_int_equal(authlim_prefix(&na, a), 0);
	na = addr("1.2.3.4");
	assert_int_equal(authlim_prefix(&na, b), 0);
	assert_memory_not_equal(a, b, sizeof(a));

	memset(&na, 0, sizeof(na));
	na.af = AF_UNIX;
	assert_int_equal(authlim_fail(al, &na, T0), -1);
}

static void
test_bounded(void **state)
{
	struct authlim	*al = *state;
	struct netaddr	 na;
	uint32_t	 i;

	/* the guesser is over its cap */
	assert_true(fail_n(al, "198.51.100.1", AUTHLIM_CAP + 1, T0) > 0);
	/* a flood of other addresses, the guesser failing again midway */
	memset(&na, 0, sizeof(na));
	na.af = AF_INET6;
	na.addr[0] = 0x20;
	for (i = 0; i < 3 * AUTHLIM_MAX; i++) {
		memcpy(na.addr + 4, &i, sizeof(i));
		(void)authlim_fail(al, &na, T0 + 1);
		assert_true(authlim_entries(al) <= AUTHLIM_MAX);
		if (i == AUTHLIM_MAX / 2)
			assert_true(fail_n(al, "198.51.100.1", 1, T0 + 1) > 0);
	}
	assert_int_equal(authlim_entries(al), AUTHLIM_MAX);
	/* it failed least recently of all: forgotten, counted afresh */
	assert_int_equal(fail_n(al, "198.51.100.1", 1, T0 + 2), 0);
	/* the most recent of the flood is still counted: its one failure */
	i = 3 * AUTHLIM_MAX - 1;
	memcpy(na.addr + 4, &i, sizeof(i));
	for (i = 0; i < AUTHLIM_CAP - 1; i++)
		assert_int_equal(authlim_fail(al, &na, T0 + 2), 0);
	assert_true(authlim_fail(al, &na, T0 + 2) > 0);
}

/* the most recently failing addresses stay while older ones go */
static void
test_evicts_oldest(void **state)
{
	struct authlim	*al = *state;
	struct netaddr	 na, keep = addr("203.0.113.5");
	uint32_t	 i;

	assert_int_equal(fail_n(al, "203.0.113.5", AUTHLIM_CAP, T0), 0);
	memset(&na, 0, sizeof(na));
	na.af = AF_INET;
	for (i = 0; i < 2 * AUTHLIM_MAX; i++) {
		memcpy(na.addr, &i, sizeof(i));
		na.addr[0] = 10;
		(void)authlim_fail(al, &na, T0 + 1);
		/* it keeps failing, so it is never the least recent */
		if (i % (AUTHLIM_MAX / 2) == 0)
			assert_true(authlim_fail(al, &keep, T0 + 1) > 0);
	}
	assert_true(authlim_fail(al, &keep, T0 + 2) > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_per_64, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evicts_oldest, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
