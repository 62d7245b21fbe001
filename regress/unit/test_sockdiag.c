/*
 * The kernel's list of TCP listeners as orchd/sockdiag.c reads it for the
 * listener check: answers made by hand, well formed, then short, lying
 * about their lengths, from another request, or cut anywhere.  A bad
 * answer is an error (EBADMSG), never a listener, never a read beyond
 * the bytes given.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../orchd/sockdiag.h"

#define SEQ	7
#define PORT	8080

struct buf {
	uint8_t	 b[8192];
	size_t	 len;
};

/* one inet_diag_msg of family, state, port, uid, inode; v6only -1: none */
static void
put_listener(struct buf *p, int family, int state, uint16_t port,
    uint32_t uid, uint32_t inode, const char *addr, int v6only)
{
	struct nlmsghdr		 nh;
	struct inet_diag_msg	 m;
	struct nlattr		 at;
	size_t			 len;
	uint8_t			 v = v6only;

	len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m));
	if (v6only != -1)
		len += NLA_ALIGN(NLA_HDRLEN + 1);
	memset(&nh, 0, sizeof(nh));
	nh.nlmsg_len = len;
	nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nh.nlmsg_seq = SEQ;
	memset(&m, 0, sizeof(m));
	m.idiag_family = family;
	m.idiag_state = state;
	m.id.idiag_sport = htons(port);
	m.idiag_uid = uid;
	m.idiag_inode = inode;
	assert_int_equal(inet_pton(family, addr, m.id.idiag_src), 1);
	assert_true(p->len + len <= sizeof(p->b));
	memset(p->b + p->len, 0, len);
	memcpy(p->b + p->len, &nh, sizeof(nh));
	memcpy(p->b + p->len + NLMSG_HDRLEN, &m, sizeof(m));
	if (v6only != -1) {
		at.nla_len = NLA_HDRLEN + 1;
		at.nla_type = INET_DIAG_SKV6ONLY;
		memcpy(p->b + p->len + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)),
		    &at, sizeof(at));
		memcpy(p->b + p->len + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)) +
		    NLA_HDRLEN, &v, 1);
	}
	p->len += len;
}

static void
put_done(struct buf *p, uint16_t type, int32_t error)
{
	struct nlmsghdr	 nh;
	size_t		 len = NLMSG_HDRLEN + sizeof(struct nlmsgerr);

	memset(&nh, 0, sizeof(nh));
	nh.nlmsg_len = len;
	nh.nlmsg_type = type;
	nh.nlmsg_seq = SEQ;
	memset(p->b + p->len, 0, len);
	memcpy(p->b + p->len, &nh, sizeof(nh));
	memcpy(p->b + p->len + NLMSG_HDRLEN, &error, sizeof(error));
	p->len += len;
}

static int
parse(const struct buf *p, struct diag_answer *a)
{
	memset(a, 0, sizeof(*a));
	return (sockdiag_parse(p->b, p->len, SEQ, PORT, a));
}

static void
test_listeners(void **state)
{
	struct buf		 p = { .len = 0 };
	struct diag_answer	 a;
	uint8_t			 lo[4] = { 127, 0, 0, 1 };

	put_listener(&p, AF_INET, TCP_LISTEN, PORT, 65534, 42, "127.0.0.1",
	    -1);
	/* another port, another state: not kept */
	put_listener(&p, AF_INET, TCP_LISTEN, PORT + 1, 0, 43, "0.0.0.0", -1);
	put_listener(&p, AF_INET, TCP_ESTABLISHED, PORT, 0, 44, "0.0.0.0",
	    -1);
	put_listener(&p, AF_INET6, TCP_LISTEN, PORT, 1000, 45, "::", 0);
	put_listener(&p, AF_INET6, TCP_LISTEN, PORT, 1001, 46, "::1", 1);
	assert_int_equal(parse(&p, &a), 1);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.l[0].family, AF_INET);
	assert_memory_equal(a.l[0].addr, lo, 4);
	assert_int_equal(a.l[0].uid, 65534);
	assert_int_equal(a.l[0].inode, 42);
	assert_int_equal(a.l[0].v6only, -1);
	assert_int_equal(a.l[1].uid, 1000);
	assert_int_equal(a.l[1].v6only, 0);
	assert_int_equal(a.l[2].v6only, 1);
	assert_false(a.overflow);

	put_done(&p, NLMSG_DONE, 0);
	assert_int_equal(parse(&p, &a), 0);
	assert_int_equal(a.n, 3);
}

static void
test_error(void **state)
{
	struct buf		 p = { .len = 0 };
	struct diag_answer	 a;

	put_done(&p, NLMSG_ERROR, -EPERM);
	assert_int_equal(parse(&p, &a), -1);
	assert_int_equal(errno, EPERM);
	/* an error that is no errno */
	p.len = 0;
	put_done(&p, NLMSG_ERROR, 5);
	assert_int_equal(parse(&p, &a), -1);
	assert_int_equal(errno, EPROTO);
}

static void
test_overflow(void **state)
{
	struct buf		 p = { .len = 0 };
	struct diag_answer	 a;
	int			 i;

	for (i = 0; i < DIAG_LISTENERS_MAX + 3; i++)
		put_listener(&p, AF_INET, TCP_LISTEN, PORT, 1, i, "0.0.0.0",
		    -1);
	assert_int_equal(parse(&p, &a), 1);
	assert_int_equal(a.n, DIAG_LISTENERS_MAX);
	assert_true(a.overflow);
}

/* a header that says more than there is, or less than a header */
static void
test_lying_lengths(void **state)
{
	struct buf		 p = { .len = 0 }, q;
	struct diag_answer	 a;
	struct nlmsghdr		 nh;
	struct nlattr		 at;
	size_t			 off;

	put_listener(&p, AF_INET6, TCP_LISTEN, PORT, 1, 1, "::", 1);

	q = p;
	memcpy(&nh, q.b, sizeof(nh));
	nh.nlmsg_len = q.len + 4;
	memcpy(q.b, &nh, sizeof(nh));
	assert_int_equal(parse(&q, &a), -1);
	assert_int_equal(errno, EBADMSG);

	q = p;
	nh.nlmsg_len = NLMSG_HDRLEN - 1;
	memcpy(q.b, &nh, sizeof(nh));
	assert_int_equal(parse(&q, &a), -1);

	/* a message too short for its inet_diag_msg */
	q = p;
	nh.nlmsg_len = NLMSG_HDRLEN + 8;
	memcpy(q.b, &nh, sizeof(nh));
	q.len = nh.nlmsg_len;
	assert_int_equal(parse(&q, &a), -1);
	assert_int_equal(a.n, 0);

	/* an attribute longer than its message, or shorter than a header */
	off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct inet_diag_msg));
	q = p;
	memcpy(&at, q.b + off, sizeof(at));
	at.nla_len = 200;
	memcpy(q.b + off, &at, sizeof(at));
	assert_int_equal(parse(&q, &a), -1);
	q = p;
	at.nla_len = 2;
	memcpy(q.b + off, &at, sizeof(at));
	assert_int_equal(parse(&q, &a), -1);

	/* another request's answer, an unknown type, a strange family */
	q = p;
	memcpy(&nh, q.b, sizeof(nh));
	nh.nlmsg_seq = SEQ + 1;
	memcpy(q.b, &nh, sizeof(nh));
	assert_int_equal(parse(&q, &a), -1);
	q = p;
	nh.nlmsg_seq = SEQ;
	nh.nlmsg_type = 99;
	memcpy(q.b, &nh, sizeof(nh));
	assert_int_equal(parse(&q, &a), -1);
	q = p;
	q.b[NLMSG_HDRLEN] = AF_UNIX;
	assert_int_equal(parse(&q, &a), -1);
}

/* every cut of a good answer, from any offset: an error or a prefix */
static void
test_cut_anywhere(void **state)
{
	struct buf		 p = { .len = 0 };
	struct diag_answer	 a;
	uint8_t			*copy;
	size_t			 from, len;
	int			 r;

	put_listener(&p, AF_INET, TCP_LISTEN, PORT, 65534, 42, "127.0.0.1",
	    -1);
	put_listener(&p, AF_INET6, TCP_LISTEN, PORT, 1000, 45, "::", 0);
	put_done(&p, NLMSG_DONE, 0);
	for (from = 0; from < p.len; from++)
		for (len = 0; from + len <= p.len; len++) {
			/* exactly len bytes: ASan sees a read beyond */
			copy = malloc(len > 0 ? len : 1);
			assert_non_null(copy);
			memcpy(copy, p.b + from, len);
			memset(&a, 0, sizeof(a));
			r = sockdiag_parse(copy, len, SEQ, PORT, &a);
			assert_true(r >= -1 && r <= 1);
			assert_true(a.n <= 2);
			free(copy);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_lying_lengths),
		cmocka_unit_test(test_cut_anywhere),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
