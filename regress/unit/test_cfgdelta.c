/*
 * A child's receipt of a configuration delta (common/cfgrecv.c): the
 * generation a delta makes is the one a full send of the same
 * definitions makes, name for name, byte for byte, in the same order;
 * and every delta out of step (another base, a second delta, a run
 * outside the base or kept twice, a name twice, fewer or more
 * definitions than it said, a keep outside a delta) is answered RESEND,
 * not DONE, leaving the current generation as it was.  Last, as the
 * store and the reaper take it (cfg_take_delta: no definitions kept,
 * only the names): the apply function, given the sent ones, the kept
 * ones' places and the names gone, makes what a full send gives; a
 * delta on other globals, or one the process says it cannot take, is
 * refused.  The handlers are
 * called as the dispatcher would, with exactly sized messages; their
 * answers are read from a real socketpair.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "siphash.h"
#include "workload.h"

#define MAXWL		64

static struct privsep	 ps;
static struct imsgev	 iev;
static struct imsgbuf	 rx;
static int		 sv[2];
static uint32_t		 gen_id;

/* what the last apply saw: names and digests, in order */
static struct seen {
	uint32_t	 id;
	uint32_t	 n;
	char		 name[MAXWL][64];
	uint64_t	 digest[MAXWL];
	uint32_t	 nremoved;
	char		 removed[MAXWL][64];
} seen;

static const char	*veto;		/* the process cannot take a delta */

/*
 * A delta where no definitions are kept: the new list made as the store
 * makes its own, from the last one seen by the kept ones' places.
 */
static void
apply_delta(struct cfg_generation *gen)
{
	struct seen		 prev = seen;
	struct workload_conf	*wl = TAILQ_FIRST(&gen->workloads);
	uint32_t		 i, m;

	memset(&seen, 0, sizeof(seen));
	seen.id = gen->id;
	assert_true(gen->nworkloads <= MAXWL);
	for (i = 0; i < gen->nworkloads; i++) {
		if ((m = gen->keep_map[i]) == CFG_SENT) {
			assert_non_null(wl);
			(void)strlcpy(seen.name[i], wl->name,
			    sizeof(seen.name[0]));
			seen.digest[i] = workload_wire_digest(wl);
			wl = TAILQ_NEXT(wl, entry);
		} else {
			assert_true(m < prev.n);
			memcpy(seen.name[i], prev.name[m], sizeof(seen.name[0]));
			seen.digest[i] = prev.digest[m];
		}
	}
	assert_null(wl);
	seen.n = gen->nworkloads;
	assert_true(gen->nremoved <= MAXWL);
	for (i = 0; i < gen->nremoved; i++)
		(void)strlcpy(seen.removed[i], gen->removed[i],
		    sizeof(seen.removed[0]));
	seen.nremoved = gen->nremoved;
}

static void
apply(struct privsep *p, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	struct workload_conf	*wl;

	if (gen->delta) {
		apply_delta(gen);
		return;
	}
	memset(&seen, 0, sizeof(seen));
	seen.id = gen->id;
	TAILQ_FOREACH(wl, &gen->workloads, entry) {
		assert_true(seen.n < MAXWL);
		(void)strlcpy(seen.name[seen.n], wl->name,
		    sizeof(seen.name[0]));
		seen.digest[seen.n] = workload_wire_digest(wl);
		seen.n++;
	}
	assert_int_equal(seen.n, gen->nworkloads);
}

static void
deliver(void (*fn)(struct imsgev *, struct imsg *), uint32_t type,
    const void *data, size_t len)
{
	struct imsg	 m;

	memset(&m, 0, sizeof(m));
	m.hdr.type = type;
	m.hdr.len = IMSG_HEADER_SIZE + len;
	m.data = len > 0 ? (void *)data : NULL;
	m.datalen = len;
	m.fd = -1;
	fn(&iev, &m);
}

/* the answer to DONE: IMSG_CFG_DONE or IMSG_CFG_RESEND, and its id */
static uint32_t
answer(uint32_t *id)
{
	struct imsg	 m;
	uint32_t	 type;
	int		 i, r;

	for (i = 0; i < 100; i++) {
		assert_int_equal(imsgbuf_write(&iev.ibuf), 0);
		if ((r = imsg_get(&rx, &m)) != 0) {
			assert_int_equal(r, 1);
			type = imsg_get_type(&m);
			assert_int_equal(imsg_get_data(&m, id, sizeof(*id)), 0);
			imsg_free(&m);
			return (type);
		}
		assert_int_equal(imsgbuf_read(&rx), 1);
	}
	fail_msg("no answer");
	return (0);
}

/* a definition: name, its host, port; idle for a change */
static void
wire(const char *name, int idle, void **def, size_t *len)
{
	struct workload_conf	*wc;
	char			 host[128], err[256];

	assert_non_null(wc = workload_new(name));
	(void)snprintf(host, sizeof(host), "%s.test", name);
	assert_int_equal(strlist_add(&wc->hosts, host), 0);
	assert_non_null(wc->command = strdup("/bin/true"));
	wc->port = 8000;
	wc->idle_timeout = idle;
	if (workload_validate(wc, err, sizeof(err)) == -1)
		fail_msg("%s", err);
	assert_non_null(*def = workload_wire(wc, len));
	workload_free(wc);
}

static void
send_wl(const char *name, int idle)
{
	void	*def;
	size_t	 len;

	wire(name, idle, &def, &len);
	deliver(cfg_recv_workload, IMSG_CFG_WORKLOAD, def, len);
	free(def);
}

static int64_t	 g_idle;		/* the globals' idle timeout */

static void
begin(uint32_t id)
{
	struct global_settings	 gs;

	memset(&gs, 0, sizeof(gs));
	gs.idle_timeout = g_idle;
	gen_id = id;
	deliver(cfg_recv_reset, IMSG_CFG_RESET, &id, sizeof(id));
	deliver(cfg_recv_global, IMSG_CFG_GLOBAL, &gs, sizeof(gs));
}

static void
delta(uint32_t base, uint32_t base_count, uint32_t count)
{
	struct cfg_delta	 d;

	memset(&d, 0, sizeof(d));
	d.gen = gen_id;
	d.base = base;
	d.base_count = base_count;
	d.count = count;
	deliver(cfg_recv_delta, IMSG_CFG_DELTA, &d, sizeof(d));
}

static void
keep(uint32_t first, uint32_t count)
{
	struct cfg_keep	 k;

	k.first = first;
	k.count = count;
	deliver(cfg_recv_keep, IMSG_CFG_KEEP, &k, sizeof(k));
}

/* DONE; START if it was acknowledged: the answer's type */
static uint32_t
finish(void)
{
	uint32_t	 type, id;

	deliver(cfg_recv_done, IMSG_CFG_DONE, &gen_id, sizeof(gen_id));
	type = answer(&id);
	assert_int_equal(id, gen_id);
	if (type == IMSG_CFG_DONE)
		deliver(cfg_recv_start, IMSG_CFG_START, &gen_id,
		    sizeof(gen_id));
	return (type);
}

/* a full generation: aa bb cc dd, cc's idle timeout as given */
static void
full(uint32_t id, int cc_idle)
{
	begin(id);
	send_wl("aa", 60);
	send_wl("bb", 60);
	send_wl("cc", cc_idle);
	send_wl("dd", 60);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(seen.id, id);
}

static int
setup(void **state)
{
	(void)event_init();
	memset(&ps, 0, sizeof(ps));
	ps.id = PROC_GATEWAY;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    sv) == -1)
		return (-1);
	memset(&iev, 0, sizeof(iev));
	iev.ps = &ps;
	iev.peer = PROC_PARENT;
	if (imsgbuf_init(&iev.ibuf, sv[0]) == -1 ||
	    imsgbuf_init(&rx, sv[1]) == -1)
		return (-1);
	cfg_set_apply(apply);
	return (0);
}

/*
 * The delta's generation against the full one's: ee added first, bb
 * kept, cc replaced, aa moved after it, dd removed.
 */
static void
test_delta_is_full(void **state)
{
	struct seen	 d;

	full(1, 60);
	begin(2);
	delta(1, 4, 4);
	send_wl("ee", 60);
	keep(1, 1);
	send_wl("cc", 120);
	keep(0, 1);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	d = seen;
	begin(3);
	send_wl("ee", 60);
	send_wl("bb", 60);
	send_wl("cc", 120);
	send_wl("aa", 60);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(d.n, 4);
	assert_int_equal(seen.n, d.n);
	assert_memory_equal(seen.name, d.name, sizeof(d.name));
	assert_memory_equal(seen.digest, d.digest, sizeof(d.digest));
	assert_string_equal(d.name[0], "ee");
	assert_string_equal(d.name[3], "aa");

	/* nothing changed: one run keeps them all, the same again */
	begin(4);
	delta(3, 4, 4);
	keep(0, 4);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_memory_equal(seen.name, d.name, sizeof(d.name));
	assert_memory_equal(seen.digest, d.digest, sizeof(d.digest));
	/* all removed */
	begin(5);
	delta(4, 4, 0);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(seen.n, 0);
}

/* refused: RESEND, and the current generation (1) stays */
static void
refused(void)
{
	struct seen	 before = seen;

	assert_int_equal(finish(), IMSG_CFG_RESEND);
	assert_int_equal(cfg_current()->id, 1);
	assert_int_equal(cfg_current()->nworkloads, 4);
	assert_memory_equal(&seen, &before, sizeof(seen));
	/* and a full one is taken after */
	full(1, 60);
}

static void
test_hostile(void **state)
{
	full(1, 60);

	/* a base that is not the current generation */
	begin(2);
	delta(7, 4, 4);
	keep(0, 4);
	refused();
	/* a base of another count */
	begin(2);
	delta(1, 3, 3);
	keep(0, 3);
	refused();
	/* a delta of another generation (a replayed one) */
	begin(2);
	gen_id = 9;
	delta(1, 4, 4);
	gen_id = 2;
	keep(0, 4);
	refused();
	/* a second delta in one generation */
	begin(2);
	delta(1, 4, 4);
	delta(1, 4, 4);
	keep(0, 4);
	refused();
	/* a delta after definitions */
	begin(2);
	send_wl("aa", 60);
	delta(1, 4, 4);
	refused();
	/* truncated: fewer definitions than it said */
	begin(2);
	delta(1, 4, 4);
	keep(0, 3);
	refused();
	/* more than it said */
	begin(2);
	delta(1, 4, 3);
	keep(0, 4);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(0, 4);
	send_wl("ee", 60);
	refused();
	/* a definition kept twice (a replayed keep) */
	begin(2);
	delta(1, 4, 4);
	keep(0, 2);
	keep(1, 2);
	refused();
	/* a run outside the base, or empty, or wrapping */
	begin(2);
	delta(1, 4, 4);
	keep(3, 2);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(4, 1);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(0, 0);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(2, UINT32_MAX);
	refused();
	/* a workload named twice: kept and sent again */
	begin(2);
	delta(1, 4, 4);
	keep(0, 3);
	send_wl("aa", 120);
	refused();
	/* ... or sent twice */
	begin(2);
	delta(1, 4, 4);
	keep(0, 2);
	send_wl("ee", 60);
	send_wl("ee", 60);
	refused();
	/* a keep in a full generation */
	begin(2);
	send_wl("aa", 60);
	keep(1, 3);
	refused();
}

static const char *
check(void)
{
	return (veto);
}

/*
 * As the store and the reaper take a delta: the same generation as a
 * full send, made from their own state; the names gone, and only they,
 * said.  Last: a process cannot go back to keeping its definitions.
 */
static void
test_forget(void **state)
{
	struct seen	 d;

	cfg_take_delta(check);
	full(1, 60);
	begin(2);
	delta(1, 4, 4);
	send_wl("ee", 60);
	keep(1, 1);
	send_wl("cc", 120);
	keep(0, 1);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	d = seen;
	assert_int_equal(d.nremoved, 1);
	assert_string_equal(d.removed[0], "dd");
	assert_int_equal(cfg_current()->nworkloads, 4);
	assert_true(TAILQ_EMPTY(&cfg_current()->workloads));
	begin(3);
	send_wl("ee", 60);
	send_wl("bb", 60);
	send_wl("cc", 120);
	send_wl("aa", 60);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(seen.n, d.n);
	assert_memory_equal(seen.name, d.name, sizeof(d.name));
	assert_memory_equal(seen.digest, d.digest, sizeof(d.digest));

	/* a delta on the delta: its names are the next base */
	begin(4);
	delta(3, 4, 4);
	send_wl("ee", 60);
	keep(1, 3);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	begin(5);
	delta(4, 4, 3);
	keep(1, 3);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(seen.n, 3);
	assert_string_equal(seen.name[0], "bb");
	assert_string_equal(seen.name[2], "aa");
	assert_int_equal(seen.nremoved, 1);
	assert_string_equal(seen.removed[0], "ee");

	/* other globals: refused, and a full one taken */
	full(1, 60);
	g_idle = 300;
	begin(2);
	delta(1, 4, 4);
	keep(0, 4);
	refused();
	g_idle = 0;
	/* the process cannot take one now */
	veto = "its last write is not known";
	begin(2);
	delta(1, 4, 4);
	keep(0, 4);
	refused();
	veto = NULL;
	/* out of step as before: kept twice, a name twice, truncated */
	begin(2);
	delta(1, 4, 4);
	keep(0, 2);
	keep(1, 2);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(0, 3);
	send_wl("aa", 120);
	refused();
	begin(2);
	delta(1, 4, 4);
	keep(0, 3);
	refused();
	/* and a good one still taken */
	begin(2);
	delta(1, 4, 4);
	keep(0, 4);
	assert_int_equal(finish(), IMSG_CFG_DONE);
	assert_int_equal(seen.nremoved, 0);
	assert_int_equal(seen.n, 4);
}

/* SipHash-2-4, which decides what the parent keeps: the paper's vectors */
static void
test_siphash(void **state)
{
	uint8_t	 key[SIPHASH_KEY_LEN], msg[64];
	size_t	 i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	assert_true(siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
	assert_true(siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);
	assert_true(siphash24(key, msg, 8) == 0x93f5f5799a932462ULL);
	assert_true(siphash24(key, msg, 63) == 0x958a324ceb064572ULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_is_full),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_siphash),
		/* last: it makes cfgrecv.c keep no definitions */
		cmocka_unit_test(test_forget),
	};

	return (cmocka_run_group_tests(tests, setup, NULL));
}
