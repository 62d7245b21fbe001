/*
 * Unit tests for common/workload_pack.c: a packed definition reads the
 * same as the one it was made from, whatever it holds, and is freed by
 * workload_free() whole (ASan in make check would see it otherwise).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "orchd.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_full),
		cmocka_unit_test(test_pack_empty),
		cmocka_unit_test(test_pack_twice),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
