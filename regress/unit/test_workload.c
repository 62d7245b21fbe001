/*
 * Unit tests for common/workload_pack.c: a packed definition reads the
 * same as the one it was made from, whatever it holds, and is freed by
 * workload_free() whole (ASan in make check would see it otherwise).
 * And workload_diff(): what of a running instance a new definition
 * changes, the drift orchctl shows.  And the one string-array codec
 * (common/workload_json.c) the definition and runtimed's specs share.
 * And common/workload_zip.c: a definition kept small reads back byte for
 * byte as its wire form, every field of the table in it.
 */

#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "ignore.h"
#include "workload.h"
#include "workload_fields.h"
#include "workload_zip.h"

static char *
xstrdup(const char *s)
{
	char	*p;

	assert_non_null(p = strdup(s));
	return (p);
}

static void
add_volume(struct workload_conf *wc, const char *host, const char *ctr)
{
	struct volume	*v;

	assert_non_null(v = calloc(1, sizeof(*v)));
	v->host = xstrdup(host);
	v->container = xstrdup(ctr);
	TAILQ_INSERT_TAIL(&wc->volumes, v, entry);
}

/* every string and list filled in, so that every one is packed */
static struct workload_conf *
full_workload(void)
{
	struct workload_conf	*wc;

	assert_non_null(wc = workload_new("full"));
	assert_int_equal(strlist_add(&wc->hosts, "a.example.com"), 0);
	assert_int_equal(strlist_add(&wc->hosts, "*.b.example.org"), 0);
	assert_int_equal(strlist_add(&wc->env, "A=1"), 0);
	assert_int_equal(strlist_add(&wc->env, "LONGER_NAME=some value"), 0);
	add_volume(wc, "/srv/data", "/data");
	add_volume(wc, "/srv/conf", "/etc/app");
	wc->command = xstrdup("/usr/bin/app --port 8080");
	wc->image = xstrdup("example/app:1.2");
	wc->runtime = xstrdup("runsc");
	wc->user = xstrdup("nobody");
	wc->directory = xstrdup("/var/app");
	free(wc->address);		/* workload_new's default */
	wc->address = xstrdup("::1");
	wc->health_path = xstrdup("/healthz");
	wc->port = 8080;
	wc->idle_timeout = 300;
	wc->wake_timeout = 30;
	wc->memory = 1 << 20;
	wc->keep_warm = 1;
	assert_int_equal(ignore_add(&wc->ignores, IGNORE_PATH, "/up", 200), 0);
	assert_int_equal(ignore_add(&wc->ignores, IGNORE_FROM, "192.0.2.0/24",
	    IGNORE_ANSWER), 0);
	wc->tunnel_idle = 1800;
	wc->server_timing = 0;
	/* swarm, so that its replicas and constraints go to JSON too */
	wc->driver = DRIVER_SWARM;
	wc->network = NETWORK_NAMED;
	wc->netname = xstrdup("backend");
	wc->publish = 18080;
	wc->replicas = 2;
	assert_int_equal(strlist_add(&wc->constraints, "node.role==worker"),
	    0);
	wc->pull = PULL_ALWAYS;
	wc->pull_timeout = 60;
	wc->expire_after = 3600;
	wc->upstream_h2c = 1;
	wc->on_change = ON_CHANGE_RESTART;
	return (wc);
}

static void
same_json(const struct workload_conf *a, const struct workload_conf *b)
{
	char	*ja, *jb;

	assert_non_null(ja = workload_to_json(a));
	assert_non_null(jb = workload_to_json(b));
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
}

static void
test_pack_full(void **state)
{
	struct workload_conf	*wc, *p;

	wc = full_workload();
	assert_non_null(p = workload_pack(wc));
	assert_true(p->packed);
	assert_false(wc->packed);
	same_json(wc, p);
	/* the copy owns nothing of the original */
	workload_free(wc);
	assert_string_equal(TAILQ_FIRST(&p->hosts)->str, "a.example.com");
	assert_string_equal(TAILQ_LAST(&p->volumes, volumelist)->container,
	    "/etc/app");
	assert_string_equal(p->health_path, "/healthz");
	assert_string_equal(TAILQ_LAST(&p->ignores, ignorelist)->pattern,
	    "192.0.2.0/24");
	assert_int_equal(TAILQ_FIRST(&p->ignores)->answer, 200);
	workload_free(p);
}

static void
test_pack_empty(void **state)
{
	struct workload_conf	*wc, *p;

	assert_non_null(wc = workload_new("empty"));
	assert_non_null(p = workload_pack(wc));
	same_json(wc, p);
	assert_true(TAILQ_EMPTY(&p->hosts));
	assert_true(TAILQ_EMPTY(&p->volumes));
	assert_null(p->command);
	workload_free(wc);
	workload_free(p);
}

/* a packed definition packs again: the children's copies of the parent's */
static void
test_pack_twice(void **state)
{
	struct workload_conf	*wc, *p, *q;

	wc = full_workload();
	assert_non_null(p = workload_pack(wc));
	assert_non_null(q = workload_pack(p));
	same_json(wc, q);
	workload_free(p);
	workload_free(wc);
	workload_free(q);
}

static void
test_diff(void **state)
{
	struct workload_conf	*a, *b;
	struct volume		*v;
	char			 buf[160], small[9];

	a = full_workload();
	assert_non_null(b = workload_pack(a));
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	/* what takes effect without a restart is no drift */
	b->idle_timeout = 1;
	b->keep_warm = 0;
	b->tunnel_idle = 5;
	b->health_interval = 10;
	TAILQ_FIRST(&b->hosts)->str[0] = 'z';
	b->pull = PULL_NEVER;
	b->pull_timeout = 5;
	b->expire_after = 0;
	b->upstream_h2c = 0;
	b->on_change = ON_CHANGE_NEXT_WAKE;
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 0);

	/* what the instance is made of is */
	b->port = 8081;
	b->command[1] = 'x';
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "command, port");
	workload_free(b);

	/* lists: one entry changed, one more, one fewer */
	assert_non_null(b = workload_pack(a));
	TAILQ_LAST(&b->env, strlist)->str[0] = 'X';
	v = TAILQ_LAST(&b->volumes, volumelist);
	TAILQ_REMOVE(&b->volumes, v, entry);
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "env, volumes");
	TAILQ_INSERT_TAIL(&b->volumes, v, entry);
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 1);
	assert_int_equal(workload_diff(b, a, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "env");

	/* a string set or not; cut short with "..." */
	b->user = NULL;
	b->memory = 0;
	b->init = 0;
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "env, user, memory, init");
	assert_int_equal(workload_diff(a, b, small, sizeof(small)), 4);
	assert_string_equal(small, "env, ...");
	workload_free(b);

	/* a network's name, the host's port, a swarm service's placement */
	assert_non_null(b = workload_pack(a));
	b->netname[0] = 'f';
	b->publish = 18081;
	b->replicas = 3;
	TAILQ_FIRST(&b->constraints)->str[0] = 'N';
	assert_int_equal(workload_diff(a, b, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "network, publish, replicas, constraints");
	workload_free(b);
	workload_free(a);
}

/* strings out as an array and back in order; not strings: refused */
static void
test_strlist_json(void **state)
{
	struct strlist		 a, b;
	struct strentry		*e;
	json_t			*j, *bad;
	char			*text;

	TAILQ_INIT(&a);
	TAILQ_INIT(&b);
	assert_non_null(j = strlist_to_json(&a));
	assert_true(json_is_array(j) && json_array_size(j) == 0);
	json_decref(j);

	assert_int_equal(strlist_add(&a, "A=1"), 0);
	assert_int_equal(strlist_add(&a, "B=\"2\""), 0);
	assert_non_null(j = strlist_to_json(&a));
	assert_non_null(text = json_dumps(j, JSON_COMPACT));
	assert_string_equal(text, "[\"A=1\",\"B=\\\"2\\\"\"]");
	free(text);
	assert_int_equal(strlist_from_json(j, &b), 0);
	e = TAILQ_FIRST(&b);
	assert_string_equal(e->str, "A=1");
	assert_string_equal(TAILQ_NEXT(e, entry)->str, "B=\"2\"");
	assert_null(TAILQ_NEXT(TAILQ_NEXT(e, entry), entry));
	json_decref(j);
	strlist_free(&b);

	/* an object, or an array with a number: the caller says which key */
	assert_non_null(bad = json_pack("{s:s}", "a", "b"));
	assert_int_equal(strlist_from_json(bad, &b), -1);
	json_decref(bad);
	assert_non_null(bad = json_pack("[s, i]", "x", 1));
	assert_int_equal(strlist_from_json(bad, &b), -1);
	json_decref(bad);
	strlist_free(&b);
	strlist_free(&a);
}

/* a and b the same to the byte on the wire: no field of either lost */
static void
same_wire(const struct workload_conf *a, const struct workload_conf *b)
{
	void	*wa, *wb;
	size_t	 la, lb;

	assert_non_null(wa = workload_wire(a, &la));
	assert_non_null(wb = workload_wire(b, &lb));
	assert_int_equal(la, lb);
	assert_memory_equal(wa, wb, la);
	free(wa);
	free(wb);
}

/* every number of the table set to a value of its own, none the default */
static void
set_numbers(struct workload_conf *wc)
{
	const struct wl_field	*f;
	size_t			 i;

	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		switch (f->type) {
		case WF_WORD:
		case WF_BOOL:
		case WF_INT:
		case WF_SIGNAL:
			wl_field_set_num(wc, f, 40 + (int64_t)i);
			break;
		case WF_PORT:
			wl_field_set_num(wc, f, 1000 + (int64_t)i);
			break;
		case WF_ID:
		case WF_DURATION:
		case WF_SIZE:
		case WF_CPU:
			wl_field_set_num(wc, f, ((int64_t)1 << 40) + (int64_t)i);
			break;
		default:
			break;
		}
	}
}

static struct workload_conf *
zip_back(const struct workload_conf *wc, size_t *size)
{
	struct wl_zip		*z;
	struct workload_conf	*back;

	assert_non_null(z = workload_zip(wc));
	*size = workload_zip_size(z);
	assert_non_null(back = workload_unzip(z));
	free(z);
	assert_true(back->packed);
	return (back);
}

static void
test_zip_full(void **state)
{
	struct workload_conf	*wc, *back;
	size_t			 size;

	wc = full_workload();
	set_numbers(wc);
	back = zip_back(wc, &size);
	same_wire(wc, back);
	assert_string_equal(back->name, "full");
	assert_string_equal(TAILQ_LAST(&back->hosts, strlist)->str,
	    "*.b.example.org");
	assert_string_equal(TAILQ_LAST(&back->volumes, volumelist)->container,
	    "/etc/app");
	assert_int_equal(TAILQ_FIRST(&back->ignores)->answer, 200);
	assert_string_equal(back->netname, "backend");
	workload_free(back);
	workload_free(wc);
}

/* what a sleeping workload of the bench holds: small, and all of it */
static void
test_zip_small(void **state)
{
	struct workload_conf	*wc, *back;
	size_t			 size;

	assert_non_null(wc = workload_new("w12345"));
	assert_int_equal(strlist_add(&wc->hosts, "w12345.bench"), 0);
	wc->command = xstrdup("/bin/busybox sleep 100000");
	free(wc->address);
	wc->address = xstrdup("127.0.2.1");
	wc->port = 12345;
	wc->idle_timeout = 300;
	back = zip_back(wc, &size);
	same_wire(wc, back);
	assert_int_equal(back->port, 12345);
	assert_int_equal(back->idle_timeout, 300);
	assert_string_equal(back->address, "127.0.2.1");
	/* a fifth of the packed struct, or it is not worth its decoding */
	assert_true(size < sizeof(struct workload_conf) / 5);
	workload_free(back);
	workload_free(wc);
}

static void
test_zip_empty(void **state)
{
	struct workload_conf	*wc, *back;
	size_t			 size;

	assert_non_null(wc = workload_new("e"));
	back = zip_back(wc, &size);
	same_wire(wc, back);
	workload_free(back);
	workload_free(wc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_full),
		cmocka_unit_test(test_pack_empty),
		cmocka_unit_test(test_pack_twice),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_strlist_json),
		cmocka_unit_test(test_zip_full),
		cmocka_unit_test(test_zip_small),
		cmocka_unit_test(test_zip_empty),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
