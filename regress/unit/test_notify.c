/*
 * What a webhook may reach (notifyd/deliver.c, deliver_addr_ok): the
 * kind of each address before the connect, and once connected whether
 * its two ends are one host, against "notify allow".  The SSRF rule of
 * orchd.conf(5)'s NOTIFY, address by address, IPv4, IPv6 and mapped.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "msg.h"
#include "../../notifyd/notifyd.h"

static struct sockaddr_storage
sa(const char *text)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1)
		sin->sin_family = AF_INET;
	else {
		assert_int_equal(inet_pton(AF_INET6, text, &sin6->sin6_addr),
		    1);
		sin6->sin6_family = AF_INET6;
	}
	return (ss);
}

/* 0 if peer may be connected to (local: the other end, or NULL) */
static int
may(uint32_t allow, const char *peer, const char *local)
{
	struct sockaddr_storage	 p = sa(peer), l;
	char			 err[128];

	deliver_set_allow(allow);
	if (local == NULL)
		return (deliver_addr_ok((struct sockaddr *)&p, NULL, err,
		    sizeof(err)));
	l = sa(local);
	return (deliver_addr_ok((struct sockaddr *)&p, (struct sockaddr *)&l,
	    err, sizeof(err)));
}

static void
test_loopback(void **state)
{
	const char	*lo[] = { "127.0.0.1", "127.1.2.3", "::1",
			    "::ffff:127.0.0.1" };
	size_t		 i;

	for (i = 0; i < sizeof(lo) / sizeof(lo[0]); i++) {
		assert_int_equal(may(0, lo[i], NULL), -1);
		assert_int_equal(may(NOTIFY_ALLOW_LINKLOCAL |
		    NOTIFY_ALLOW_LOCAL, lo[i], NULL), -1);
		assert_int_equal(may(NOTIFY_ALLOW_LOOPBACK, lo[i], NULL), 0);
		/* a loopback connection's ends are one: still loopback's */
		assert_int_equal(may(NOTIFY_ALLOW_LOOPBACK, lo[i], lo[i]), 0);
	}
}

static void
test_linklocal(void **state)
{
	assert_int_equal(may(0, "169.254.169.254", NULL), -1);
	assert_int_equal(may(0, "fe80::1", NULL), -1);
	assert_int_equal(may(0, "::ffff:169.254.169.254", NULL), -1);
	assert_int_equal(may(NOTIFY_ALLOW_LINKLOCAL, "169.254.169.254", NULL),
	    0);
	assert_int_equal(may(NOTIFY_ALLOW_LOOPBACK, "fe80::1", NULL), -1);
}

/* never: they reach the host itself, or many */
static void
test_never(void **state)
{
	const char	*no[] = { "0.0.0.0", "0.1.2.3", "::", "224.0.0.1",
			    "255.255.255.255", "ff02::1", "::ffff:0.0.0.0" };
	size_t		 i;

	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(may(NOTIFY_ALLOW_ALL, no[i], NULL), -1);
}

/* the host's own address: the connection's two ends are one */
static void
test_local(void **state)
{
	assert_int_equal(may(0, "192.0.2.7", NULL), 0);
	assert_int_equal(may(0, "192.0.2.7", "192.0.2.8"), 0);
	assert_int_equal(may(0, "192.0.2.7", "192.0.2.7"), -1);
	assert_int_equal(may(0, "2001:db8::7", "2001:db8::7"), -1);
	assert_int_equal(may(0, "::ffff:192.0.2.7", "192.0.2.7"), -1);
	assert_int_equal(may(NOTIFY_ALLOW_LOCAL, "192.0.2.7", "192.0.2.7"),
	    0);
	assert_int_equal(may(0, "2001:db8::7", "2001:db8::8"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_linklocal),
		cmocka_unit_test(test_never),
		cmocka_unit_test(test_local),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
