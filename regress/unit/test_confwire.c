/*
 * The global settings between confd and the parent (common/conf_wire.c):
 * every configuration of the parser's tests, its settings put as confd
 * puts them and taken as the parent takes them, must give every row of
 * the table its value back; and what a confd taken over could send is
 * refused: no such row, a length its type does not have, a number out
 * of its bounds, a string without its terminator or with a control
 * byte, a path that is not absolute, a user or instance name that is no
 * name, trusted proxies of an unknown family, a required row missing.
 *
 * Run from the top of the tree.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "conf.h"
#include "conf_wire.h"
#include "log.h"
#include "msg.h"
#include "schedule.h"
#include "workload.h"
#include "../../confd/confd.h"

struct taken {
	struct orchd_conf	*conf;
	uint8_t			 seen[256];
	int			 refused;
};

static int
take_one(void *arg, const struct conf_set *s, const void *bytes)
{
	struct taken	*t = arg;
	char		 buf[sizeof(*s) + CONF_STRING_MAX + 256], err[512];
	int		 row;

	assert_true(sizeof(*s) + s->len <= sizeof(buf));
	memcpy(buf, s, sizeof(*s));
	if (s->len > 0)
		memcpy(buf + sizeof(*s), bytes, s->len);
	if ((row = conf_setting_take(t->conf, buf, sizeof(*s) + s->len, err,
	    sizeof(err))) == -1) {
		fprintf(stderr, "refused: %s\n", err);
		t->refused++;
	} else
		t->seen[row] = 1;
	return (0);
}

static int
strlist_same(const struct strlist *a, const struct strlist *b)
{
	const struct strentry	*x, *y;

	for (x = TAILQ_FIRST(a), y = TAILQ_FIRST(b); x != NULL && y != NULL;
	    x = TAILQ_NEXT(x, entry), y = TAILQ_NEXT(y, entry))
		if (strcmp(x->str, y->str) != 0)
			return (0);
	return (x == NULL && y == NULL);
}

static void
assert_row_same(const struct orchd_conf *a, const struct orchd_conf *b,
    const struct conf_field *f)
{
	const char	*pa = (const char *)a + f->off;
	const char	*pb = (const char *)b + f->off;
	const char	*sa, *sb;

	switch (f->type) {
	case CF_NUM:
		assert_int_equal(*(const int64_t *)(const void *)pa,
		    *(const int64_t *)(const void *)pb);
		break;
	case CF_INT:
		assert_int_equal(*(const int *)(const void *)pa,
		    *(const int *)(const void *)pb);
		break;
	case CF_STRING:
		sa = *(char *const *)(const void *)pa;
		sb = *(char *const *)(const void *)pb;
		assert_true((sa == NULL) == (sb == NULL));
		if (sa != NULL)
			assert_string_equal(sa, sb);
		break;
	case CF_CHARS:
		assert_string_equal(pa, pb);
		break;
	case CF_STRLIST:
		assert_true(strlist_same((const struct strlist *)(const void *)
		    pa, (const struct strlist *)(const void *)pb));
		break;
	case CF_BYTES:
		assert_memory_equal(pa, pb, f->size);
		break;
	}
}

/* every parsed configuration's settings come back the same */
static void
test_roundtrip(void **state)
{
	struct orchd_conf	*conf;
	struct taken		 t;
	glob_t			 g;
	char			 err[256];
	size_t			 i, k, n = 0;

	assert_true(conf_nfields <= sizeof(t.seen));
	assert_int_equal(glob("regress/config/good*.conf", 0, NULL, &g), 0);
	assert_int_equal(glob("regress/config/conf.[0-9]*", GLOB_APPEND,
	    NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		if (strstr(g.gl_pathv[i], ".ok") != NULL)
			continue;
		if ((conf = parse_config(g.gl_pathv[i], 0)) == NULL)
			continue;	/* one that needs this host */
		memset(&t, 0, sizeof(t));
		assert_non_null(t.conf = conf_new());
		assert_int_equal(conf_settings_put(conf, take_one, &t), 0);
		assert_int_equal(t.refused, 0);
		assert_int_equal(conf_settings_missing(t.seen, err,
		    sizeof(err)), 0);
		for (k = 0; k < conf_nfields; k++)
			assert_row_same(conf, t.conf, &conf_fields[k]);
		free_config(t.conf);
		free_config(conf);
		n++;
	}
	globfree(&g);
	assert_true(n >= 5);
}

static size_t
row_named(const char *name)
{
	size_t	 i;

	for (i = 0; i < conf_nfields; i++)
		if (strcmp(conf_fields[i].name, name) == 0)
			return (i);
	fail_msg("no row %s", name);
	return (0);
}

/* one forged message: -1 (refused) or the row */
static int
forge(struct orchd_conf *c, uint32_t field, int64_t num, const void *bytes,
    size_t len, size_t claimed)
{
	char		 buf[sizeof(struct conf_set) + CONF_STRING_MAX + 64];
	struct conf_set	 s;
	char		 err[512];

	memset(&s, 0, sizeof(s));
	s.field = field;
	s.len = claimed;
	s.num = num;
	memcpy(buf, &s, sizeof(s));
	if (len > 0)
		memcpy(buf + sizeof(s), bytes, len);
	return (conf_setting_take(c, buf, sizeof(s) + len, err, sizeof(err)));
}

#define STR(c, row, s)	forge(c, row, 0, s, sizeof(s), sizeof(s))

static void
test_forged(void **state)
{
	struct orchd_conf	*c;
	struct netaddr		 tp[ORCHD_TRUSTED_MAX];
	char			 big[CONF_STRING_MAX + 8];
	uint8_t			 seen[256];
	char			 err[256];
	size_t			 idle, user, chroot, inst, host, trusted;

	assert_non_null(c = conf_new());
	idle = row_named("idle timeout");
	user = row_named("user");
	chroot = row_named("chroot");
	inst = row_named("instance name");
	host = row_named("api host");
	trusted = row_named("trusted proxy");

	/* no such row; a header alone, cut short */
	assert_int_equal(forge(c, conf_nfields, 0, NULL, 0, 0), -1);
	assert_int_equal(forge(c, UINT32_MAX, 0, NULL, 0, 0), -1);
	assert_int_equal(conf_setting_take(c, "abc", 3, err, sizeof(err)),
	    -1);
	/* a length that is not the message's */
	assert_int_equal(forge(c, chroot, 0, "/x", 3, 200), -1);
	/* a number with bytes, out of its bounds */
	assert_int_equal(forge(c, idle, 5, "ab", 2, 2), -1);
	assert_int_equal(forge(c, idle, -1, NULL, 0, 0), -1);
	assert_int_equal(forge(c, idle, INT64_MAX, NULL, 0, 0), -1);
	assert_int_equal(forge(c, idle, 300, NULL, 0, 0), (int)idle);
	assert_int_equal(c->idle_timeout, 300);
	/* strings: no terminator, a control byte, relative, too long */
	assert_int_equal(forge(c, chroot, 0, "/var/empty", 10, 10), -1);
	assert_int_equal(STR(c, chroot, "/var/\033[2Jempty"), -1);
	assert_int_equal(STR(c, chroot, "var/empty"), -1);
	assert_int_equal(STR(c, chroot, "/a\0b"), -1);
	memset(big, 'a', sizeof(big));
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(forge(c, chroot, 0, big, sizeof(big), sizeof(big)),
	    -1);
	assert_null(c->chroot);
	assert_int_equal(STR(c, chroot, "/var/empty"), (int)chroot);
	assert_string_equal(c->chroot, "/var/empty");
	/* names that are none, a host that is no host */
	assert_int_equal(STR(c, user, "-root"), -1);
	assert_int_equal(STR(c, user, "a b"), -1);
	assert_int_equal(STR(c, user, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	    -1);
	assert_int_equal(STR(c, user, "_orchd"), (int)user);
	assert_int_equal(STR(c, inst, "a/b"), -1);
	assert_int_equal(STR(c, host, "a..b"), -1);
	assert_true(TAILQ_EMPTY(&c->api_hosts));
	/* trusted proxies: wrong size, unknown family, prefix too long */
	memset(tp, 0, sizeof(tp));
	assert_int_equal(forge(c, trusted, 0, tp, sizeof(tp) - 1,
	    sizeof(tp) - 1), -1);
	tp[3].af = 99;
	assert_int_equal(forge(c, trusted, 0, tp, sizeof(tp), sizeof(tp)),
	    -1);
	tp[3].af = 2;	/* AF_INET */
	tp[3].prefix = 33;
	assert_int_equal(forge(c, trusted, 0, tp, sizeof(tp), sizeof(tp)),
	    -1);
	tp[3].prefix = 24;
	assert_int_equal(forge(c, trusted, 0, tp, sizeof(tp), sizeof(tp)),
	    (int)trusted);
	/* a required row that never came */
	memset(seen, 1, sizeof(seen));
	seen[chroot] = 0;
	assert_int_equal(conf_settings_missing(seen, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "chroot"));
	free_config(c);
}

/*
 * A group block's lines, forged as confd could: the parent takes only
 * "GROUP window|wake TEXT" whose group is a name, whose text parses and
 * whose zone is one of the tzdata's.
 */
static void
test_group_forged(void **state)
{
	struct orchd_conf	*c;
	size_t			 g;

	assert_non_null(c = conf_new());
	g = row_named("group schedule");
	assert_int_equal(STR(c, g, "gs"), -1);
	assert_int_equal(STR(c, g, "gs nap 0 3 * * *"), -1);
	assert_int_equal(STR(c, g, "../x wake 0 3 * * *"), -1);
	assert_int_equal(STR(c, g, " wake 0 3 * * *"), -1);
	assert_int_equal(STR(c, g, "gs window mon 25:00-26:00"), -1);
	assert_int_equal(STR(c, g, "gs wake 0 0 3 * * *"), -1);
	assert_int_equal(STR(c, g, "gs window 0 3 * * *"), -1);
	assert_int_equal(STR(c, g, "gs wake 0 3 * * * timezone Mars/Olympus"),
	    -1);
	assert_int_equal(STR(c, g,
	    "gs wake 0 3 * * * timezone ../../etc/shadow"), -1);
	assert_true(TAILQ_EMPTY(&c->group_scheds));
	assert_int_equal(STR(c, g, "gs wake 0 3 * * * timezone UTC for 1h"),
	    (int)g);
	assert_int_equal(STR(c, g, "gs window mon-fri 09:00-18:00"), (int)g);
	assert_false(TAILQ_EMPTY(&c->group_scheds));
	free_config(c);
}

static size_t
count(const struct strlist *l)
{
	const struct strentry	*e;
	size_t			 n = 0;

	TAILQ_FOREACH(e, l, entry)
		n++;
	return (n);
}

/*
 * What the parent gives a member: its group's lines alone, none twice,
 * at most SCHED_MAX of a kind, no window to a job; none without a group.
 */
static void
test_group_fill(void **state)
{
	struct strlist		 l = TAILQ_HEAD_INITIALIZER(l);
	struct workload_conf	*wl;
	char			 line[64];
	int			 i;

	assert_int_equal(strlist_add(&l, "gs window mon 09:00-10:00"), 0);
	assert_int_equal(strlist_add(&l, "gs window mon 09:00-10:00"), 0);
	assert_int_equal(strlist_add(&l, "other wake 0 3 * * *"), 0);
	assert_int_equal(strlist_add(&l, "gs wake 0 4 * * *"), 0);
	assert_int_equal(strlist_add(&l, "gsx wake 0 5 * * *"), 0);
	for (i = 0; i < SCHED_MAX + 4; i++) {
		(void)snprintf(line, sizeof(line), "gs wake %d 6 * * *", i);
		assert_int_equal(strlist_add(&l, line), 0);
	}
	assert_non_null(wl = workload_new("m"));
	assert_int_equal(sched_group_fill(wl, &l), 0);
	assert_int_equal(count(&wl->group_windows), 0);
	assert_int_equal(count(&wl->group_wakes), 0);
	assert_non_null(wl->group = strdup("gs"));
	assert_int_equal(sched_group_fill(wl, &l), 0);
	assert_int_equal(count(&wl->group_windows), 1);
	assert_string_equal(TAILQ_FIRST(&wl->group_windows)->str,
	    "mon 09:00-10:00");
	assert_int_equal(count(&wl->group_wakes), SCHED_MAX);
	assert_string_equal(TAILQ_FIRST(&wl->group_wakes)->str, "0 4 * * *");
	/* again: anew, not added */
	assert_int_equal(sched_group_fill(wl, &l), 0);
	assert_int_equal(count(&wl->group_windows), 1);
	wl->run_once = RUN_EVERY_WAKE;
	assert_int_equal(sched_group_fill(wl, &l), 0);
	assert_int_equal(count(&wl->group_windows), 0);
	assert_int_equal(count(&wl->group_wakes), SCHED_MAX);
	workload_free(wl);
	strlist_free(&l);
}

int
main(void)
{
	const struct CMUnitTest	 tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_forged),
		cmocka_unit_test(test_group_forged),
		cmocka_unit_test(test_group_fill),
	};

	log_init(1, 0);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
