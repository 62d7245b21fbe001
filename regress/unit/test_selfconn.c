/*
 * sock_self() (common/selfconn.c): a TCP connect that reached itself is
 * told from one that reached a listener.  The self-connect is made on
 * purpose: a socket bound to port P and connected to 127.0.0.1:P is
 * TCP's simultaneous open with itself, every time.
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
#include <unistd.h>

#include <cmocka.h>

#include "selfconn.h"

/* a TCP socket bound to 127.0.0.1 (port 0: the kernel's pick) */
static int
bound(struct sockaddr_in *sin)
{
	socklen_t	 len = sizeof(*sin);
	int		 fd, on = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd != -1);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
	    sizeof(on)), 0);
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)sin, sizeof(*sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)sin, &len), 0);
	return (fd);
}

static void
test_self(void **state)
{
	struct sockaddr_in	 sin;
	struct linger		 lg;
	socklen_t		 len = sizeof(lg);
	int			 fd;

	fd = bound(&sin);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(sock_self(fd, (struct sockaddr *)&sin), 1);
	/* its close aborts it: no TIME_WAIT left to hold the port */
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len), 0);
	assert_int_equal(lg.l_onoff, 1);
	assert_int_equal(lg.l_linger, 0);
	close(fd);
	/* so the port is free at once, even to a bind without SO_REUSEADDR */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	close(fd);
}

static void
test_listener(void **state)
{
	struct sockaddr_in	 sin, any;
	int			 lfd, fd, afd;

	lfd = bound(&sin);
	assert_int_equal(listen(lfd, 1), 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd != -1);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(sock_self(fd, (struct sockaddr *)&sin), 0);
	/* and the listener's side of it is no self-connect either */
	afd = accept(lfd, NULL, NULL);
	assert_true(afd != -1);
	assert_int_equal(sock_self(afd, (struct sockaddr *)&sin), 0);
	/* connected to the wildcard address, the kernel's loopback */
	close(fd);
	any = sin;
	any.sin_addr.s_addr = htonl(INADDR_ANY);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd != -1);
	assert_int_equal(connect(fd, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(sock_self(fd, (struct sockaddr *)&any), 0);
	close(fd);
	close(afd);
	close(lfd);
}

static void
test_self_wildcard(void **state)
{
	struct sockaddr_in	 sin, any;
	int			 fd;

	/* to 0.0.0.0:P, which the kernel takes for 127.0.0.1:P */
	fd = bound(&sin);
	any = sin;
	any.sin_addr.s_addr = htonl(INADDR_ANY);
	assert_int_equal(connect(fd, (struct sockaddr *)&any, sizeof(any)), 0);
	assert_int_equal(sock_self(fd, (struct sockaddr *)&any), 1);
	close(fd);
}

static void
test_unconnected(void **state)
{
	struct sockaddr_in	 sin;
	int			 fd;

	/* bound, never connected: it cannot tell, so no */
	fd = bound(&sin);
	assert_int_equal(sock_self(fd, (struct sockaddr *)&sin), 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_listener),
		cmocka_unit_test(test_self_wildcard),
		cmocka_unit_test(test_unconnected),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
