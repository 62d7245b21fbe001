/*
 * Unit tests for the dispatcher's checks (common/proc.c): a row found by
 * type and sender, the lengths it accepts (exact, any, arrays of
 * records), the leading name it terminates in the received payload, and
 * the check of a whole table at start.  Messages go through a real
 * socketpair, as a peer's would.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"

#define T_ONE		1001
#define T_TWO		1002
#define FROM_A		PROC_FROM(PROC_STORE)
#define FROM_B		PROC_FROM(PROC_GATEWAY)
#define FROM_C		PROC_FROM(PROC_REAPER)

struct pair {
	int		 sv[2];
	struct imsgbuf	 tx;
	struct imsgbuf	 rx;
	struct imsg	 imsg;
	int		 have;		/* imsg to free */
};

static void	fn_a(struct imsgev *, struct imsg *);
static void	fn_b(struct imsgev *, struct imsg *);

static void
fn_a(struct imsgev *iev, struct imsg *imsg)
{
}

static void
fn_b(struct imsgev *iev, struct imsg *imsg)
{
}

static int
setup(void **state)
{
	struct pair	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-1);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    p->sv) == -1)
		return (-1);
	if (imsgbuf_init(&p->tx, p->sv[0]) == -1 ||
	    imsgbuf_init(&p->rx, p->sv[1]) == -1)
		return (-1);
	*state = p;
	return (0);
}

static int
teardown(void **state)
{
	struct pair	*p = *state;

	if (p->have)
		imsg_free(&p->imsg);
	imsgbuf_clear(&p->tx);
	imsgbuf_clear(&p->rx);
	close(p->sv[0]);
	close(p->sv[1]);
	free(p);
	return (0);
}

/* one message of type with len bytes of data, as the receiver gets it */
static struct imsg *
deliver(struct pair *p, uint32_t type, const void *data, size_t len)
{
	int	 i, r;

	if (p->have)
		imsg_free(&p->imsg);
	p->have = 0;
	assert_int_equal(imsg_compose(&p->tx, type, 0, 0, -1, data, len), 0);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(imsgbuf_write(&p->tx), 0);
		if ((r = imsg_get(&p->rx, &p->imsg)) != 0) {
			assert_int_equal(r, 1);
			p->have = 1;
			return (&p->imsg);
		}
		assert_int_equal(imsgbuf_read(&p->rx), 1);
	}
	fail_msg("no message after %d rounds", i);
	return (NULL);
}

PROC_TABLE_BEGIN
static const struct proc_handler by_sender[] = {
	{ T_ONE, sizeof(struct ctl_name), FROM_A, fn_a },
	{ T_ONE, 0, FROM_B, fn_b },
	{ T_TWO, PROC_ANYLEN, FROM_A | FROM_B, fn_a },
};
PROC_TABLE_END

/* one type, a row per sender: each sender gets its own */
static void
test_type_and_sender(void **state)
{
	struct pair			*p = *state;
	const struct proc_handler	*h;
	struct ctl_name			 cn;
	struct imsg			*m;

	memset(&cn, 0, sizeof(cn));
	m = deliver(p, T_ONE, &cn, sizeof(cn));
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_A, m,
	    &h), PROC_ACCEPTED);
	assert_ptr_equal(h->fn, fn_a);

	m = deliver(p, T_ONE, NULL, 0);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_B, m,
	    &h), PROC_ACCEPTED);
	assert_ptr_equal(h->fn, fn_b);

	/* the type has rows, none for this sender */
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_C, m,
	    &h), PROC_BAD_SENDER);
	assert_null(h);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender),
	    PROC_FROM_CLIENT, m, &h), PROC_BAD_SENDER);

	m = deliver(p, 4242, NULL, 0);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_A, m,
	    &h), PROC_BAD_TYPE);
}

/* each sender's row has its own length: A's is B's wrong length */
static void
test_length_per_row(void **state)
{
	struct pair			*p = *state;
	const struct proc_handler	*h;
	struct ctl_name			 cn;
	struct imsg			*m;
	char				 big[300];

	memset(&cn, 0, sizeof(cn));
	m = deliver(p, T_ONE, &cn, sizeof(cn));
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_B, m,
	    &h), PROC_BAD_LENGTH);
	m = deliver(p, T_ONE, &cn, sizeof(cn) - 1);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_A, m,
	    &h), PROC_BAD_LENGTH);
	m = deliver(p, T_ONE, NULL, 0);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_A, m,
	    &h), PROC_BAD_LENGTH);

	/* PROC_ANYLEN: anything, nothing included */
	m = deliver(p, T_TWO, NULL, 0);
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_A, m,
	    &h), PROC_ACCEPTED);
	memset(big, 'x', sizeof(big));
	m = deliver(p, T_TWO, big, sizeof(big));
	assert_int_equal(proc_accept(by_sender, nitems(by_sender), FROM_B, m,
	    &h), PROC_ACCEPTED);
}

PROC_TABLE_BEGIN
static const struct proc_handler named[] = {
	{ T_ONE, sizeof(struct ctl_keepwarm), FROM_A, fn_a,
	    PROC_NAME(struct ctl_keepwarm) },
	{ T_ONE, sizeof(struct ctl_keepwarm), FROM_B, fn_b },
	{ T_TWO, PROC_ANYLEN, FROM_A, fn_a, PROC_NAME(struct ctl_name) },
};
PROC_TABLE_END

/* a name without its NUL, as a broken or hostile sender would send it */
static void
test_name_terminated(void **state)
{
	struct pair			*p = *state;
	const struct proc_handler	*h;
	struct ctl_keepwarm		 kw, got;
	struct imsg			*m;

	memset(&kw, 0, sizeof(kw));
	memset(kw.name, 'x', sizeof(kw.name));
	kw.on = 0x01020304;
	m = deliver(p, T_ONE, &kw, sizeof(kw));
	assert_int_equal(proc_accept(named, nitems(named), FROM_A, m, &h),
	    PROC_ACCEPTED);
	assert_int_equal(h->namelen, sizeof(kw.name));
	assert_int_equal(imsg_get_data(m, &got, sizeof(got)), 0);
	assert_int_equal(strlen(got.name), sizeof(got.name) - 1);
	assert_memory_equal(got.name, kw.name, sizeof(got.name) - 1);
	/* nothing after the name is touched */
	assert_int_equal(got.on, kw.on);

	/* the same type from B: its row has no flag, the payload is as sent */
	m = deliver(p, T_ONE, &kw, sizeof(kw));
	assert_int_equal(proc_accept(named, nitems(named), FROM_B, m, &h),
	    PROC_ACCEPTED);
	assert_int_equal(h->namelen, 0);
	assert_memory_equal(m->data, &kw, sizeof(kw));
}

/* any length with a name: at least the name, which is terminated */
static void
test_name_anylen(void **state)
{
	struct pair			*p = *state;
	const struct proc_handler	*h;
	struct ctl_name			 cn;
	struct imsg			*m;
	char				 buf[sizeof(cn) + 10];

	memset(buf, 'y', sizeof(buf));
	m = deliver(p, T_TWO, buf, sizeof(buf));
	assert_int_equal(proc_accept(named, nitems(named), FROM_A, m, &h),
	    PROC_ACCEPTED);
	assert_int_equal(((char *)m->data)[sizeof(cn.name) - 1], '\0');
	assert_int_equal(((char *)m->data)[sizeof(cn.name)], 'y');

	m = deliver(p, T_TWO, buf, sizeof(cn.name) - 1);
	assert_int_equal(proc_accept(named, nitems(named), FROM_A, m, &h),
	    PROC_BAD_LENGTH);
	m = deliver(p, T_TWO, NULL, 0);
	assert_int_equal(proc_accept(named, nitems(named), FROM_A, m, &h),
	    PROC_BAD_LENGTH);
}

PROC_TABLE_BEGIN
static const struct proc_handler records[] = {
	{ T_ONE, sizeof(struct reap_lastseen), FROM_A, fn_a, PROC_RECORDS,
	    PROC_NAME(struct reap_lastseen) },
	{ T_ONE, sizeof(struct reap_lastseen), FROM_B, fn_b, PROC_RECORDS1,
	    PROC_NAME(struct reap_lastseen) },
};
PROC_TABLE_END

static void
test_records(void **state)
{
	struct pair			*p = *state;
	const struct proc_handler	*h;
	struct reap_lastseen		 ls[3], got[3];
	struct imsg			*m;
	size_t				 i;

	memset(ls, 'z', sizeof(ls));
	for (i = 0; i < nitems(ls); i++)
		ls[i].last_seen = 1000 + i;

	/* k >= 0: none is fine, k >= 1: none is not */
	m = deliver(p, T_ONE, NULL, 0);
	assert_int_equal(proc_accept(records, nitems(records), FROM_A, m, &h),
	    PROC_ACCEPTED);
	assert_int_equal(proc_accept(records, nitems(records), FROM_B, m, &h),
	    PROC_BAD_LENGTH);

	/* not a whole number of records */
	m = deliver(p, T_ONE, ls, sizeof(ls) - 1);
	assert_int_equal(proc_accept(records, nitems(records), FROM_A, m, &h),
	    PROC_BAD_LENGTH);
	m = deliver(p, T_ONE, ls, sizeof(ls[0]) + 1);
	assert_int_equal(proc_accept(records, nitems(records), FROM_B, m, &h),
	    PROC_BAD_LENGTH);

	/* three: every record's name is terminated, the rest kept */
	m = deliver(p, T_ONE, ls, sizeof(ls));
	assert_int_equal(proc_accept(records, nitems(records), FROM_B, m, &h),
	    PROC_ACCEPTED);
	memcpy(got, m->data, sizeof(got));
	for (i = 0; i < nitems(got); i++) {
		assert_int_equal(strlen(got[i].name), sizeof(got[i].name) - 1);
		assert_int_equal(got[i].last_seen, 1000 + i);
	}
}

/* the check at start: rows that clash or could never be right */
static void
test_table_check(void **state)
{
	char	 err[128];
	PROC_TABLE_BEGIN
	const struct proc_handler overlap[] = {
		{ T_ONE, 0, FROM_A | FROM_B, fn_a },
		{ T_ONE, 0, FROM_B | FROM_C, fn_b },
	};
	const struct proc_handler no_sender[] = {
		{ T_ONE, 0, 0, fn_a },
	};
	const struct proc_handler long_name[] = {
		{ T_ONE, sizeof(struct wl_ref) - 1, FROM_A, fn_a,
		    PROC_NAME(struct wl_ref) },
	};
	const struct proc_handler empty_record[] = {
		{ T_ONE, 0, FROM_A, fn_a, PROC_RECORDS },
	};
	const struct proc_handler any_records[] = {
		{ T_ONE, PROC_ANYLEN, FROM_A, fn_a, PROC_RECORDS1 },
	};
	const struct proc_handler bad_kind[] = {
		{ T_ONE, 8, FROM_A, fn_a, .lenkind = 7 },
	};
	PROC_TABLE_END

	assert_int_equal(proc_table_check(by_sender, nitems(by_sender), err,
	    sizeof(err)), 0);
	assert_int_equal(proc_table_check(named, nitems(named), err,
	    sizeof(err)), 0);
	assert_int_equal(proc_table_check(records, nitems(records), err,
	    sizeof(err)), 0);
	assert_int_equal(proc_table_check(overlap, nitems(overlap), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "two rows"));
	assert_int_equal(proc_table_check(no_sender, nitems(no_sender), err,
	    sizeof(err)), -1);
	assert_int_equal(proc_table_check(long_name, nitems(long_name), err,
	    sizeof(err)), -1);
	assert_int_equal(proc_table_check(empty_record, nitems(empty_record),
	    err, sizeof(err)), -1);
	assert_int_equal(proc_table_check(any_records, nitems(any_records),
	    err, sizeof(err)), -1);
	assert_int_equal(proc_table_check(bad_kind, nitems(bad_kind), err,
	    sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_type_and_sender,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_per_row,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_terminated,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_anylen,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_records,
		    setup, teardown),
		cmocka_unit_test(test_table_check),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
