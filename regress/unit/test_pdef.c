/*
 * Unit tests for orchd/pdef.c, the parent's definitions kept small at
 * rest: a plain definition of the file leaves conf->workloads once sent,
 * and every way of reading it back (by name, a walk, an expansion, the
 * wire form and its digest) gives exactly what was sent; the others stay
 * whole.  And common/workload_zip.c's tokens at every length of a run of
 * zeros and of a literal, read back byte for byte.
 */

#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "conf.h"
#include "workload.h"
#include "workload_zip.h"
#include "../../orchd/parent.h"

static struct workload_conf *
plain(const char *name, int port)
{
	struct workload_conf	*wc;
	char			 host[64];

	assert_non_null(wc = workload_new(name));
	snprintf(host, sizeof(host), "%s.test", name);
	assert_int_equal(strlist_add(&wc->hosts, host), 0);
	assert_int_equal(strlist_add(&wc->env, "ODD=a b  c"), 0);
	assert_non_null(wc->command = strdup("/bin/sh -c 'exec x' one"));
	assert_non_null(wc->directory = strdup("/var/odd"));
	wc->port = port;
	wc->idle_timeout = 17;
	wc->stop_signal = 2;
	return (wc);
}

/* wc's wire form, and its length in *len */
static void *
wire(const struct workload_conf *wc, size_t *len)
{
	void	*w;

	assert_non_null(w = workload_wire(wc, len));
	return (w);
}

static void
same_wire(const struct workload_conf *a, const void *wb, size_t lb)
{
	void	*wa;
	size_t	 la;

	wa = wire(a, &la);
	assert_int_equal(la, lb);
	assert_memory_equal(wa, wb, la);
	free(wa);
}

/* a conf of three: p1 and p2 plain, g in a group, api the API's */
static struct orchd_conf *
three(void **w1, size_t *l1, void **w2, size_t *l2, int sent)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wc;

	assert_non_null(conf = conf_new());
	/* TAILQ_INSERT_TAIL() names its element more than once */
	wc = plain("p1", 8001);
	TAILQ_INSERT_TAIL(&conf->workloads, wc, entry);
	wc = plain("g", 8002);
	assert_non_null(wc->group = strdup("grp"));
	TAILQ_INSERT_TAIL(&conf->workloads, wc, entry);
	wc = plain("p2", 8003);
	TAILQ_INSERT_TAIL(&conf->workloads, wc, entry);
	wc = plain("api", 8004);
	wc->source = SOURCE_API;
	TAILQ_INSERT_TAIL(&conf->workloads, wc, entry);
	*w1 = wire(TAILQ_FIRST(&conf->workloads), l1);
	*w2 = wire(TAILQ_NEXT(TAILQ_NEXT(TAILQ_FIRST(&conf->workloads),
	    entry), entry), l2);
	/* as config_send() does: each sent, in the list's order */
	if (sent)
		TAILQ_FOREACH(wc, &conf->workloads, entry) {
			void	*w;
			size_t	 l;

			w = wire(wc, &l);
			pdef_sent(wc, w, l);
			free(w);
		}
	pdef_rest(conf);
	return (conf);
}

static void
rest_checks(int sent)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wc, *tmp;
	const struct wl_rest	*r;
	struct pdef_iter	 it;
	void			*w1, *w2, *w;
	size_t			 l1, l2, l, names;
	int			 n = 0, seen = 0;

	conf = three(&w1, &l1, &w2, &l2, sent);
	/* the group's and the API's whole, the plain ones at rest */
	assert_string_equal(TAILQ_FIRST(&conf->workloads)->name, "g");
	assert_string_equal(TAILQ_LAST(&conf->workloads,
	    workloadlist)->name, "api");
	assert_string_equal((r = TAILQ_FIRST(&conf->rest))->name, "p1");
	assert_string_equal(TAILQ_NEXT(r, entry)->name, "p2");
	assert_int_equal(pdef_count(conf, &names), 4);
	assert_int_equal(names, 3 + 2 + 3 + 4);
	/* the wire form and the digest: those sent */
	assert_non_null(w = workload_zip_wire(r->zip, &l));
	assert_int_equal(l, l1);
	assert_memory_equal(w, w1, l1);
	free(w);
	assert_true(r->digest == workload_wire_bytes_digest(w1, l1));
	/* by name: a temporary with every field */
	assert_non_null(wc = pdef_find(conf, "p2", &tmp));
	assert_ptr_equal(wc, tmp);
	same_wire(wc, w2, l2);
	assert_string_equal(wc->directory, "/var/odd");
	assert_string_equal(TAILQ_FIRST(&wc->env)->str, "ODD=a b  c");
	workload_free(tmp);
	assert_non_null(wc = pdef_find(conf, "g", &tmp));
	assert_null(tmp);
	assert_null(pdef_find(conf, "nosuch", &tmp));
	assert_true(pdef_exists(conf, "p1") && pdef_exists(conf, "api"));
	assert_false(pdef_exists(conf, "p"));
	/* a walk: each once, the whole ones first */
	for (wc = pdef_first(&it, conf); wc != NULL; wc = pdef_next(&it)) {
		if (strcmp(wc->name, "p1") == 0) {
			same_wire(wc, w1, l1);
			seen |= 1;
		} else if (strcmp(wc->name, "p2") == 0) {
			same_wire(wc, w2, l2);
			seen |= 2;
		}
		n++;
	}
	pdef_end(&it);
	assert_int_equal(n, 4);
	assert_int_equal(seen, 3);
	/* left early, the temporary freed (ASan sees it otherwise) */
	(void)pdef_first(&it, conf);
	(void)pdef_next(&it);
	(void)pdef_next(&it);
	pdef_end(&it);
	/* expanded: whole in the list, at rest no more, and then again */
	pdef_expand(conf, "p1");
	assert_string_equal(TAILQ_LAST(&conf->workloads,
	    workloadlist)->name, "p1");
	same_wire(TAILQ_LAST(&conf->workloads, workloadlist), w1, l1);
	assert_string_equal(TAILQ_FIRST(&conf->rest)->name, "p2");
	assert_int_equal(pdef_count(conf, NULL), 4);
	pdef_rest(conf);
	assert_string_equal(TAILQ_LAST(&conf->rest, wl_restlist)->name,
	    "p1");
	assert_int_equal(pdef_count(conf, NULL), 4);
	free(w1);
	free(w2);
	free_config(conf);
}

static void
test_rest_sent(void **state)
{
	rest_checks(1);
}

/* made by pdef_rest() itself when nothing was sent through pdef_sent() */
static void
test_rest_unsent(void **state)
{
	rest_checks(0);
}

/* the tokens: runs of zeros and literals of every length, and their edges */
static void
test_zip_runs(void **state)
{
	struct wl_zip	*z;
	unsigned char	*b, *back;
	size_t		 len = sizeof(struct workload_conf) + 700, i, run, l;

	assert_non_null(b = malloc(len));
	for (run = 1; run < 300; run += (run < 20 ? 1 : 7)) {
		memset(b, 0, len);
		/* literals of 1, 2, ... bytes between runs of run zeros */
		for (i = 0, l = 1; i < len; i += l + run, l = l % 140 + 1)
			memset(b + i, 0xa5, MINIMUM(l, len - i));
		assert_non_null(z = workload_zip_bytes(b, len));
		assert_non_null(back = workload_zip_wire(z, &l));
		assert_int_equal(l, len);
		assert_memory_equal(back, b, len);
		free(back);
		free(z);
	}
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rest_sent),
		cmocka_unit_test(test_rest_unsent),
		cmocka_unit_test(test_zip_runs),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
