/*
 * What the store's unit tests share: see storetest.h.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "compat.h"
#include "msg.h"
#include "workload.h"
#include "../../stored/store_db.h"
#include "storetest.h"

int
setup(void **state)
{
	struct fixture	*f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return (-1);
	strlcpy(f->dir, "/tmp/test_store.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL)
		return (-1);
	/* the read-only tests run as nobody, who must get in */
	chmod(f->dir, 0755);
	snprintf(f->path, sizeof(f->path), "%s/orchd.db", f->dir);
	TAILQ_INIT(&f->wls);
	*state = f;
	return (0);
}

void
wls_clear(struct workloadlist *wls)
{
	struct workload_conf	*wc;

	while ((wc = TAILQ_FIRST(wls)) != NULL) {
		TAILQ_REMOVE(wls, wc, entry);
		workload_free(wc);
	}
}

int
teardown(void **state)
{
	struct fixture	*f = *state;
	char		 cmd[PATH_MAX + 16];

	wls_clear(&f->wls);
	chmod(f->dir, 0755);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return (-1);
	free(f);
	return (0);
}

/* a valid process workload */
struct workload_conf *
wl_add(struct workloadlist *wls, const char *name, int64_t memory,
    enum workload_source source)
{
	struct workload_conf	*wc;
	char			 host[ORCHD_HOST_MAX];

	wc = workload_new(name);
	assert_non_null(wc);
	snprintf(host, sizeof(host), "%s.test", name);
	assert_int_equal(strlist_add(&wc->hosts, host), 0);
	wc->command = strdup("/bin/true");
	wc->port = 8000;
	wc->memory = memory;
	wc->source = source;
	TAILQ_INSERT_TAIL(wls, wc, entry);
	return (wc);
}

struct store_db *
db_open(const char *path)
{
	struct store_db	*sdb;
	char		 err[512];

	sdb = store_db_open(path, err, sizeof(err));
	if (sdb == NULL)
		fail_msg("store_db_open %s: %s", path, err);
	return (sdb);
}

/* one integer from the file, through a connection of our own */
int64_t
raw_int(const char *path, const char *sql)
{
	sqlite3		*db;
	sqlite3_stmt	*s;
	int64_t		 v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL),
	    SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return (v);
}

int
collect_workload(const struct ctl_workload *cw, void *arg)
{
	struct collect	*c = arg;

	if (c->n < (int)nitems(c->wl))
		c->wl[c->n] = *cw;
	c->n++;
	return (0);
}

int
collect_history(const struct ctl_transition *ct, void *arg)
{
	struct collect	*c = arg;

	if (c->n < (int)nitems(c->tr))
		c->tr[c->n] = *ct;
	c->n++;
	return (0);
}

int
collect_stats(const struct ctl_stats *cs, void *arg)
{
	struct collect	*c = arg;

	if (c->n < (int)nitems(c->cs))
		c->cs[c->n] = *cs;
	c->n++;
	return (0);
}
