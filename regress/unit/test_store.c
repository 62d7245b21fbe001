/*
 * The store's database: schema and migrations, files it must refuse and
 * leave alone, and what it records and answers.  The writes it refused,
 * held in order and written again, are test_store_queue.c's.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "cause.h"
#include "compat.h"
#include "msg.h"
#include "workload.h"
#include "../../stored/store_db.h"
#include "../../stored/store_queue.h"
#include "storetest.h"

#define GIB		(1024LL * 1024 * 1024)
#define NOBODY		65534
/* a version 9 file made a version 8 one again: no maintenance */
#define V9_DROP		"ALTER TABLE workloads DROP COLUMN maint; " \
			"ALTER TABLE workloads DROP COLUMN maint_until; " \
			"ALTER TABLE workloads DROP COLUMN maint_message; "
/* a version 8 file made a version 7 one again: no keep warm until */
#define V8_DROP		V9_DROP \
			"ALTER TABLE workloads DROP COLUMN keep_warm_until; " \
			"ALTER TABLE counters DROP COLUMN wake_day; " \
			"ALTER TABLE counters DROP COLUMN day_wakes; "
/* a version 7 file made a version 6 one again: no jobs' hashes */
#define V7_DROP		V8_DROP "ALTER TABLE workloads DROP COLUMN job_hash; "
/* a version 6 file made a version 5 one again: no frozen rows */
#define V6_DROP		V7_DROP "ALTER TABLE workloads DROP COLUMN frozen; "
/* a version 5 file made a version 4 one again: no memory estimates */
#define V5_DROP		V6_DROP \
			"ALTER TABLE counters DROP COLUMN memory_estimate; "
/* a version 3 file made a version 2 one again: no causes */
#define V4_DROP		V5_DROP "DROP TABLE expired_transitions; "
#define V3_DROP		V4_DROP \
			"ALTER TABLE transitions DROP COLUMN cause; " \
			"ALTER TABLE transitions DROP COLUMN cause_method; " \
			"ALTER TABLE transitions DROP COLUMN cause_host; " \
			"ALTER TABLE transitions DROP COLUMN cause_path; " \
			"ALTER TABLE transitions DROP COLUMN cause_client; " \
			"ALTER TABLE transitions DROP COLUMN cause_agent; "

static void
set_state(struct store_db *sdb, const char *name, enum workload_state to,
    enum rt_reason reason, int64_t t_ms, const char *msg)
{
	struct rt_state	 st;

	memset(&st, 0, sizeof(st));
	strlcpy(st.name, name, sizeof(st.name));
	st.state = to;
	st.reason = reason;
	st.since = t_ms / 1000;
	st.since_ms = t_ms;
	if (msg != NULL)
		strlcpy(st.msg, msg, sizeof(st.msg));
	assert_int_equal(store_db_state(sdb, &st), 1);
}

static void
raw_exec(const char *path, const char *sql)
{
	sqlite3		*db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* sqlite3_exec's result, which may be an error */
static int
raw_try(const char *path, const char *sql)
{
	sqlite3		*db;
	int		 rc;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return (rc);
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat	 sb;
	unsigned char	*buf;
	int		 fd;

	assert_true((fd = open(path, O_RDONLY)) != -1);
	assert_int_equal(fstat(fd, &sb), 0);
	*len = sb.st_size;
	assert_non_null(buf = malloc(*len + 1));
	assert_int_equal(read(fd, buf, *len), (ssize_t)*len);
	close(fd);
	return (buf);
}

static void
assert_same_file(const char *path, const unsigned char *before, size_t len)
{
	unsigned char	*after;
	size_t		 alen;

	after = slurp(path, &alen);
	assert_int_equal(alen, len);
	assert_memory_equal(after, before, len);
	free(after);
}

static int
exists(const char *dir, const char *name)
{
	char	 path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return (access(path, F_OK) == 0);
}

/*
 * Query collectors.
 */

static struct ctl_stats *
stats_of(struct collect *c, const char *name)
{
	int	 i;

	for (i = 0; i < c->n && i < (int)nitems(c->cs); i++)
		if (strcmp(c->cs[i].name, name) == 0)
			return (&c->cs[i]);
	fail_msg("no stats for \"%s\"", name);
	return (NULL);
}

/*
 * Schema.
 */

static void
test_schema_created(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;

	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	assert_true(store_db_version() >= 1);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master "
	    "WHERE type = 'table' AND name IN ('workloads', 'transitions', "
	    "'counters', 'identities')"), 4);
	/* WAL: the header says so */
	assert_int_equal(raw_int(f->path, "SELECT journal_mode = 'wal' "
	    "FROM pragma_journal_mode"), 1);
	store_db_close(sdb);
}

static void
test_reopen_keeps_data(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	struct collect	 c;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	set_state(sdb, "a", WL_WAKING, RT_REASON_REQUEST, T0 + 1000, NULL);
	store_db_close(sdb);

	/* the migrations already applied are not applied again */
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "", collect_workload, &c), 1);
	assert_string_equal(c.wl[0].name, "a");
	assert_int_equal(c.wl[0].state, WL_WAKING);
	/* the reason of the present state, for orchctl's REASON */
	assert_int_equal(c.wl[0].reason, RT_REASON_REQUEST);
	store_db_close(sdb);
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions"),
	    1);
	store_db_close(sdb);
}

static void
test_newer_refused(void **state)
{
	struct fixture	*f = *state;
	unsigned char	*before;
	size_t		 len;
	char		 err[512] = "";

	store_db_close(db_open(f->path));
	raw_exec(f->path, "PRAGMA user_version = 99");
	before = slurp(f->path, &len);
	assert_null(store_db_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "newer"));
	assert_non_null(strstr(err, "99"));
	assert_same_file(f->path, before, len);
	free(before);
}

/*
 * Files to refuse, untouched.
 */

static void
test_garbage_refused(void **state)
{
	struct fixture	*f = *state;
	unsigned char	 garbage[4096], *before;
	size_t		 i, len;
	char		 err[512] = "";
	int		 fd;
	uint32_t	 x = 2463534242U;

	for (i = 0; i < sizeof(garbage); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		garbage[i] = x & 0xff;
	}
	assert_true((fd = open(f->path, O_WRONLY | O_CREAT, 0600)) != -1);
	assert_int_equal(write(fd, garbage, sizeof(garbage)),
	    (ssize_t)sizeof(garbage));
	close(fd);
	before = slurp(f->path, &len);
	assert_null(store_db_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "not a database"));
	assert_same_file(f->path, before, len);
	assert_false(exists(f->dir, "orchd.db-wal"));
	assert_false(exists(f->dir, "orchd.db-journal"));
	/* and again: a second attempt changes nothing either */
	assert_null(store_db_open(f->path, err, sizeof(err)));
	assert_same_file(f->path, before, len);
	free(before);
}

/* a real database with one of its pages overwritten */
static void
test_corrupt_refused(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	unsigned char	*before, junk[512];
	size_t		 len;
	char		 err[512] = "";
	int		 fd, i;

	sdb = db_open(f->path);
	for (i = 0; i < 20; i++) {
		char	 name[16];

		snprintf(name, sizeof(name), "w%d", i);
		wl_add(&f->wls, name, 0, SOURCE_CONFIG);
	}
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	store_db_close(sdb);
	assert_false(exists(f->dir, "orchd.db-wal"));
	memset(junk, 0xa5, sizeof(junk));
	assert_true((fd = open(f->path, O_WRONLY)) != -1);
	/* the page after the schema: a table's b-tree */
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 4096 + 0),
	    (ssize_t)sizeof(junk));
	close(fd);
	before = slurp(f->path, &len);
	assert_null(store_db_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "corrupt"));
	assert_same_file(f->path, before, len);
	free(before);
}

/*
 * Refused for want of write permission.  Root may write anything, so the
 * attempt is made by nobody in a child; its exit status is the verdict.
 */
static int
open_as_nobody(const char *path, const char *want)
{
	char	 err[512] = "";
	pid_t	 pid;
	int	 status;

	if ((pid = fork()) == -1)
		return (-1);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) == -1 ||
		    setgid(NOBODY) == -1 || setuid(NOBODY) == -1))
			_exit(2);
		if (store_db_open(path, err, sizeof(err)) != NULL)
			_exit(3);
		if (strstr(err, want) == NULL) {
			fprintf(stderr, "error \"%s\", want \"%s\"\n", err,
			    want);
			_exit(4);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status))
		return (-1);
	return (WEXITSTATUS(status));
}

static void
test_readonly_file_refused(void **state)
{
	struct fixture	*f = *state;
	unsigned char	*before;
	size_t		 len;

	store_db_close(db_open(f->path));
	assert_int_equal(chmod(f->path, 0444), 0);
	before = slurp(f->path, &len);
	assert_int_equal(open_as_nobody(f->path, "cannot be written"), 0);
	assert_same_file(f->path, before, len);
	free(before);
}

static void
test_readonly_directory_refused(void **state)
{
	struct fixture	*f = *state;

	/* nothing to create the file in */
	assert_int_equal(chmod(f->dir, 0555), 0);
	assert_int_equal(open_as_nobody(f->path, "Permission denied"), 0);
	assert_false(exists(f->dir, "orchd.db"));
}

/* a file of its own, but no room for the write-ahead log beside it */
static void
test_readonly_directory_existing(void **state)
{
	struct fixture	*f = *state;
	unsigned char	*before;
	size_t		 len;

	if (geteuid() != 0)
		skip();
	store_db_close(db_open(f->path));
	assert_int_equal(chown(f->path, NOBODY, NOBODY), 0);
	assert_int_equal(chmod(f->dir, 0555), 0);
	before = slurp(f->path, &len);
	assert_int_equal(open_as_nobody(f->path, "cannot be written"), 0);
	assert_same_file(f->path, before, len);
	free(before);
}

/*
 * What it records.
 */

static void
wake(struct store_db *sdb, const char *name, int64_t t, int64_t ms)
{
	set_state(sdb, name, WL_WAKING, RT_REASON_REQUEST, t, NULL);
	set_state(sdb, name, WL_RUNNING, RT_REASON_READY, t + ms, NULL);
}

static void
test_transitions_and_counters(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct collect		 c;
	struct ctl_stats	*cs;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);

	wake(sdb, "a", T0 + 10000, 500);		/* asleep 10 s */
	set_state(sdb, "a", WL_SUSPENDING, RT_REASON_IDLE, T0 + 70500, NULL);
	set_state(sdb, "a", WL_ASLEEP, RT_REASON_IDLE, T0 + 71000, NULL);
	set_state(sdb, "a", WL_WAKING, RT_REASON_REQUEST, T0 + 81000, NULL);
	set_state(sdb, "a", WL_FAILED, RT_REASON_START_FAILED, T0 + 84000,
	    "exited with status 1");
	set_state(sdb, "a", WL_WAKING, RT_REASON_REQUEST, T0 + 90000, NULL);
	set_state(sdb, "a", WL_RUNNING, RT_REASON_READY, T0 + 90200, NULL);
	/* told again what it is: not a transition */
	set_state(sdb, "a", WL_RUNNING, RT_REASON_NONE, T0 + 95000, NULL);

	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 8);
	assert_int_equal(c.tr[0].from, WL_ASLEEP);
	assert_int_equal(c.tr[0].to, WL_WAKING);
	assert_int_equal(c.tr[0].time, (T0 + 10000) / 1000);
	assert_int_equal(c.tr[4].to, WL_WAKING);
	assert_int_equal(c.tr[5].to, WL_FAILED);
	assert_int_equal(c.tr[5].reason, RT_REASON_START_FAILED);
	assert_string_equal(c.tr[5].msg, "exited with status 1");
	assert_int_equal(c.tr[7].from, WL_WAKING);
	assert_int_equal(c.tr[7].to, WL_RUNNING);
	assert_string_equal(c.tr[7].name, "a");
	assert_int_equal(raw_int(f->path, "SELECT wake_ms FROM transitions "
	    "WHERE to_state = 'failed'"), 3000);

	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].state, WL_RUNNING);
	assert_int_equal(c.wl[0].started_at, (T0 + 90200) / 1000);
	assert_int_equal(c.wl[0].wakes, 2);
	assert_string_equal(c.wl[0].hosts, "a.test");
	assert_int_equal(c.wl[0].idle_timeout, -1);

	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_stats(sdb, T0 + 100200, collect_stats, &c),
	    2);
	cs = stats_of(&c, "a");
	assert_int_equal(cs->wakes, 2);
	assert_int_equal(cs->failed_wakes, 1);
	assert_int_equal(cs->wake_median_ms, 350);	/* (500 + 200) / 2 */
	assert_int_equal(cs->wake_worst_ms, 500);
	assert_int_equal(cs->asleep_seconds, 20);
	/* 60 s, and the 10 s under way */
	assert_int_equal(cs->running_seconds, 70);

	/* an odd count: the middle one */
	set_state(sdb, "a", WL_ASLEEP, RT_REASON_EXITED, T0 + 101000, NULL);
	wake(sdb, "a", T0 + 102000, 1000);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_stats(sdb, T0 + 103000, collect_stats, &c),
	    2);
	cs = stats_of(&c, "a");
	assert_int_equal(cs->wakes, 3);
	assert_int_equal(cs->wake_median_ms, 500);
	assert_int_equal(cs->wake_worst_ms, 1000);
	store_db_close(sdb);
}

/*
 * store_db_shrink() finalizes every statement after a burst: each is
 * prepared again on its first use, reads and writes alike, and a
 * second shrink in between changes nothing either
 */
static void
test_shrink_prepares_again(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct collect		 c;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	store_db_shrink(sdb);
	wake(sdb, "a", T0 + 10000, 500);
	store_db_shrink(sdb);
	store_db_shrink(sdb);
	set_state(sdb, "a", WL_ASLEEP, RT_REASON_IDLE, T0 + 70500, NULL);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 3);
	assert_int_equal(c.tr[2].to, WL_ASLEEP);
	store_db_shrink(sdb);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "a", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].wakes, 1);
	/* a sync again, after a shrink, as at a reload */
	assert_int_equal(store_db_sync(sdb, &f->wls, T0 + 80000), 0);
	store_db_shrink(sdb);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0 + 90000), 0);
	assert_string_equal(store_db_error(sdb), "");
	store_db_close(sdb);
}

static void
test_stats_memory_and_total(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct collect		 c;
	struct ctl_stats	*cs;
	struct st_restore	 rs;

	sdb = db_open(f->path);
	wl_add(&f->wls, "big", GIB, SOURCE_CONFIG);
	wl_add(&f->wls, "small", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	wake(sdb, "small", T0 + 1000, 100);
	/* told again that it runs: no wake */
	set_state(sdb, "small", WL_RUNNING, RT_REASON_NONE, T0 + 2000, NULL);

	/* asleep the whole 2 hours, up to now */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_stats(sdb, T0 + 7200000, collect_stats,
	    &c), 3);
	cs = stats_of(&c, "big");
	assert_int_equal(cs->asleep_seconds, 7200);
	assert_int_equal(cs->memory, GIB);
	assert_true(cs->memory_hours_saved > 1.999 &&
	    cs->memory_hours_saved < 2.001);
	cs = stats_of(&c, "");
	assert_int_equal(cs->wakes, 1);
	assert_int_equal(cs->wake_median_ms, 100);
	assert_int_equal(cs->memory, GIB);
	assert_string_equal(c.cs[c.n - 1].name, "");

	/* measured beats configured */
	assert_int_equal(store_db_memory(sdb, "big", GIB / 2, GIB / 2 + 1),
	    0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_stats(sdb, T0 + 7200000, collect_stats,
	    &c), 3);
	cs = stats_of(&c, "big");
	assert_int_equal(cs->memory, GIB / 2);
	assert_true(cs->memory_hours_saved > 0.999 &&
	    cs->memory_hours_saved < 1.001);

	/* the peak and the estimate, to show and for runtimed at start */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "big", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].memory, GIB / 2);
	assert_int_equal(c.wl[0].memory_estimate, GIB / 2 + 1);
	assert_int_equal(store_db_restore(sdb, "big", &rs), 1);
	assert_int_equal(rs.memory, GIB / 2);
	assert_int_equal(rs.memory_estimate, GIB / 2 + 1);
	/* an estimate of 0 keeps the last one */
	assert_int_equal(store_db_memory(sdb, "big", GIB / 4, 0), 0);
	assert_int_equal(store_db_restore(sdb, "big", &rs), 1);
	assert_int_equal(rs.memory, GIB / 4);
	assert_int_equal(rs.memory_estimate, GIB / 2 + 1);
	/* never measured: none */
	assert_int_equal(store_db_restore(sdb, "small", &rs), 1);
	assert_int_equal(rs.memory, 0);
	assert_int_equal(rs.memory_estimate, 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "small", collect_workload,
	    &c), 1);
	assert_int_equal(c.wl[0].memory, 0);
	assert_int_equal(c.wl[0].memory_estimate, 0);
	store_db_close(sdb);
}

static void
test_history_bounded(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	struct collect	*c;
	int		 i;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	set_state(sdb, "b", WL_WAKING, RT_REASON_REQUEST, T0 + 1, NULL);
	for (i = 0; i < 250; i++)
		set_state(sdb, "a", i % 2 == 0 ? WL_WAKING : WL_FAILED,
		    RT_REASON_REQUEST, T0 + 1000 * (i + 1), NULL);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions "
	    "WHERE workload = 'a'"), STORE_HISTORY_MAX);
	/* another workload's history is its own */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions "
	    "WHERE workload = 'b'"), 1);
	assert_non_null(c = calloc(1, sizeof(*c)));
	assert_int_equal(store_db_history(sdb, "a", STORE_HISTORY_MAX,
	    collect_history, c), STORE_HISTORY_MAX);
	/* newest last */
	assert_int_equal(c->tr[STORE_HISTORY_MAX - 1].time, (T0 + 250000) /
	    1000);
	assert_int_equal(c->tr[0].time, (T0 + 151000) / 1000);
	/* the counters saw all 125 failed wakes */
	memset(c, 0, sizeof(*c));
	assert_int_equal(store_db_stats(sdb, T0 + 300000, collect_stats, c),
	    3);
	assert_int_equal(stats_of(c, "a")->failed_wakes, 125);
	free(c);
	store_db_close(sdb);
}

static void
test_lastseen_batch(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct reap_lastseen	 ls[4];
	struct collect		 c;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	memset(ls, 0, sizeof(ls));
	strlcpy(ls[0].name, "a", sizeof(ls[0].name));
	ls[0].last_seen = 1000;
	strlcpy(ls[1].name, "b", sizeof(ls[1].name));
	ls[1].last_seen = 2000;
	strlcpy(ls[2].name, "nosuch", sizeof(ls[2].name));
	ls[2].last_seen = 3000;
	/* from another process: not even terminated */
	memset(ls[3].name, 'x', sizeof(ls[3].name));
	ls[3].last_seen = 4000;
	assert_int_equal(store_db_lastseen(sdb, ls, 4), 0);
	/* older news does not take last_seen back */
	ls[0].last_seen = 500;
	ls[1].last_seen = 2500;
	assert_int_equal(store_db_lastseen(sdb, ls, 2), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "", collect_workload, &c), 2);
	assert_string_equal(c.wl[0].name, "a");
	assert_int_equal(c.wl[0].last_seen, 1000);
	assert_int_equal(c.wl[1].last_seen, 2500);
	store_db_close(sdb);
}

static void
test_restore(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct st_restore	 rs;
	struct reap_lastseen	 ls;
	struct collect		 c;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_CONFIG)->keep_warm = 1;
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	wake(sdb, "a", T0 + 5000, 250);
	memset(&ls, 0, sizeof(ls));
	strlcpy(ls.name, "a", sizeof(ls.name));
	ls.last_seen = (T0 + 6000) / 1000;
	assert_int_equal(store_db_lastseen(sdb, &ls, 1), 0);
	assert_int_equal(store_db_keepwarm(sdb, "b", 0, 0), 0);
	store_db_close(sdb);

	/* as the next start finds it */
	sdb = db_open(f->path);
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_string_equal(rs.name, "a");
	assert_int_equal(rs.state, WL_RUNNING);
	assert_int_equal(rs.keep_warm, -1);
	assert_int_equal(rs.last_seen, (T0 + 6000) / 1000);
	assert_int_equal(rs.started_at, (T0 + 5250) / 1000);
	assert_int_equal(store_db_restore(sdb, "b", &rs), 1);
	assert_int_equal(rs.state, WL_ASLEEP);
	assert_int_equal(rs.keep_warm, 0);
	assert_int_equal(rs.started_at, 0);
	assert_int_equal(store_db_restore(sdb, "nosuch", &rs), 0);
	/* the override wins over the definition's keep warm */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "b", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].keep_warm, 0);
	assert_int_equal(store_db_keepwarm(sdb, "b", -1, 0), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "b", collect_workload, &c),
	    1);
	assert_int_equal(c.wl[0].keep_warm, 1);

	/* a restored adoption is not a wake */
	set_state(sdb, "a", WL_ASLEEP, RT_REASON_RESTORED, T0 + 9000, NULL);
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.state, WL_ASLEEP);
	assert_int_equal(rs.started_at, 0);
	store_db_close(sdb);
}

static void
test_sync_sources(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	struct collect	 c;
	struct rt_state	 st;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_API);
	wl_add(&f->wls, "c", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	wake(sdb, "c", T0 + 1000, 10);
	wake(sdb, "a", T0 + 1000, 10);

	/* a reload with only a */
	wls_clear(&f->wls);
	wl_add(&f->wls, "a", GIB, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0 + 5000), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "", collect_workload, &c), 2);
	assert_string_equal(c.wl[0].name, "a");
	assert_int_equal(c.wl[0].state, WL_RUNNING);	/* kept its state */
	assert_int_equal(c.wl[0].source, SOURCE_CONFIG);
	assert_string_equal(c.wl[1].name, "b");
	assert_int_equal(c.wl[1].source, SOURCE_API);
	/* c went, with its history and counters */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions "
	    "WHERE workload = 'c'"), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM counters "
	    "WHERE workload = 'c'"), 0);
	memset(&st, 0, sizeof(st));
	strlcpy(st.name, "c", sizeof(st.name));
	st.state = WL_ASLEEP;
	st.since_ms = T0 + 6000;
	assert_int_equal(store_db_state(sdb, &st), 0);
	/* nonsense from a peer is an error, not a database gone bad */
	strlcpy(st.name, "a", sizeof(st.name));
	st.state = 42;
	assert_int_equal(store_db_state(sdb, &st), -1);
	assert_non_null(strstr(store_db_error(sdb), "no such state"));
	assert_false(store_db_broken(sdb));
	/* the new definition is the one used */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_stats(sdb, T0 + 6000, collect_stats, &c), 3);
	assert_int_equal(stats_of(&c, "a")->memory, GIB);
	store_db_close(sdb);
}

/*
 * A reload's delta (stored/store_sync.c decides it): the rows put are
 * written, those dropped removed with their history, an API row never;
 * the rest are not touched.
 */
static void
test_sync_delta(void **state)
{
	struct fixture			*f = *state;
	struct store_db			*sdb;
	struct collect			 c;
	const struct workload_conf	*put[1];
	const char			*drop[] = { "b", "c" };
	struct workloadlist		 next = TAILQ_HEAD_INITIALIZER(next);
	int64_t				 d_updated;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "b", 0, SOURCE_API);
	wl_add(&f->wls, "c", 0, SOURCE_CONFIG);
	wl_add(&f->wls, "d", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	wake(sdb, "c", T0 + 1000, 10);
	wake(sdb, "d", T0 + 1000, 10);
	d_updated = raw_int(f->path, "SELECT updated FROM workloads "
	    "WHERE name = 'd'");
	/* nothing: no transaction at all */
	assert_int_equal(store_db_sync_delta(sdb, NULL, 0, NULL, 0, T0), 0);
	/* a changed, b and c gone */
	put[0] = wl_add(&next, "a", GIB, SOURCE_CONFIG);
	assert_int_equal(store_db_sync_delta(sdb, put, 1, drop, 2,
	    T0 + 5000), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_workloads(sdb, "", collect_workload, &c), 3);
	assert_string_equal(c.wl[0].name, "a");
	assert_string_equal(c.wl[1].name, "b");
	assert_int_equal(c.wl[1].source, SOURCE_API);
	assert_string_equal(c.wl[2].name, "d");
	assert_int_equal(c.wl[2].state, WL_RUNNING);	/* untouched */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions "
	    "WHERE workload = 'c'"), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM counters "
	    "WHERE workload = 'c'"), 0);
	/* a's new definition, its updated moved; d's row as it was */
	memset(&c, 0, sizeof(c));
	/* the three and their total */
	assert_int_equal(store_db_stats(sdb, T0 + 6000, collect_stats, &c), 4);
	assert_int_equal(stats_of(&c, "a")->memory, GIB);
	assert_int_equal(raw_int(f->path, "SELECT updated FROM workloads "
	    "WHERE name = 'a'"), (T0 + 5000) / 1000);
	assert_int_equal(raw_int(f->path, "SELECT updated FROM workloads "
	    "WHERE name = 'd'"), d_updated);
	wls_clear(&next);
	store_db_close(sdb);
}

/*
 * The API's writes run with PRAGMA synchronous FULL, asked from inside
 * their transaction; the rest of the time, and for every other write,
 * the level is NORMAL.
 */
static int	 hook_calls;
static int	 hook_level;

static void
sync_hook(struct store_db *sdb)
{
	hook_calls++;
	hook_level = store_db_synchronous(sdb);
}

static void
test_api_writes_durable(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct workload_conf	*api;
	struct reap_lastseen	 ls;

	wl_add(&f->wls, "conf", 0, SOURCE_CONFIG);
	sdb = db_open(f->path);
	store_db_tx_hook = sync_hook;
	assert_int_equal(store_db_synchronous(sdb), 1);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	memset(&ls, 0, sizeof(ls));
	strlcpy(ls.name, "conf", sizeof(ls.name));
	ls.last_seen = T0 / 1000;
	assert_int_equal(store_db_lastseen(sdb, &ls, 1), 0);
	set_state(sdb, "conf", WL_WAKING, RT_REASON_REQUEST, T0 + 1, "");
	assert_int_equal(hook_calls, 0);
	assert_int_equal(store_db_synchronous(sdb), 1);

	wls_clear(&f->wls);
	api = wl_add(&f->wls, "made", 0, SOURCE_API);
	assert_int_equal(store_db_api_put(sdb, api, T0 + 2), 0);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(hook_level, 2);
	assert_int_equal(store_db_synchronous(sdb), 1);

	hook_level = -1;
	assert_int_equal(store_db_api_drop(sdb, "made"), 1);
	assert_int_equal(hook_calls, 2);
	assert_int_equal(hook_level, 2);
	assert_int_equal(store_db_synchronous(sdb), 1);
	/* nothing to drop: still a durable transaction, still NORMAL after */
	assert_int_equal(store_db_api_drop(sdb, "made"), 0);
	assert_int_equal(hook_calls, 3);
	assert_int_equal(store_db_synchronous(sdb), 1);

	store_db_tx_hook = NULL;
	store_db_close(sdb);
}

/*
 * Workload uids: kept by name, outliving the workload's row, a uid
 * given anew taking it from the name that had it.
 */
struct uids {
	char		 name[8][ORCHD_NAME_MAX];
	uint32_t	 uid[8];
	int		 n;
};

static int
collect_uid(const char *name, uint32_t uid, void *arg)
{
	struct uids	*u = arg;

	if (u->n >= 8)
		return (-1);
	strlcpy(u->name[u->n], name, sizeof(u->name[u->n]));
	u->uid[u->n++] = uid;
	return (0);
}

static void
test_uids(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	struct uids	 u;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	assert_int_equal(store_db_uid_put(sdb, "a", 61184), 0);
	assert_int_equal(store_db_uid_put(sdb, "b", 61185), 0);
	/* a's uid again, then b takes c's */
	assert_int_equal(store_db_uid_put(sdb, "a", 61184), 0);
	assert_int_equal(store_db_uid_put(sdb, "c", 61186), 0);
	assert_int_equal(store_db_uid_put(sdb, "b", 61186), 0);
	/* uid 0 never makes it in */
	assert_int_equal(store_db_uid_put(sdb, "d", 0), -1);
	assert_false(store_db_broken(sdb));
	/* a leaves the configuration; its uid stays its own */
	wls_clear(&f->wls);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0 + 1000), 0);
	store_db_close(sdb);

	sdb = db_open(f->path);
	memset(&u, 0, sizeof(u));
	assert_int_equal(store_db_uid_list(sdb, collect_uid, &u), 2);
	assert_string_equal(u.name[0], "a");
	assert_int_equal(u.uid[0], 61184);
	assert_string_equal(u.name[1], "b");
	assert_int_equal(u.uid[1], 61186);
	/* one edited in by hand, out of bounds, is not handed out */
	raw_exec(f->path, "PRAGMA ignore_check_constraints = 1; "
	    "INSERT INTO identities VALUES ('e', -5, 0)");
	memset(&u, 0, sizeof(u));
	assert_int_equal(store_db_uid_list(sdb, collect_uid, &u), 2);
	store_db_close(sdb);
}

/* a version 1 file, from before workload uids, gains their table */
static void
test_migrate_v1(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;

	sdb = db_open(f->path);
	store_db_close(sdb);
	raw_exec(f->path, "DROP TABLE identities; " V3_DROP
	    "PRAGMA user_version = 1");
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	assert_int_equal(store_db_uid_put(sdb, "a", 61184), 0);
	store_db_close(sdb);
}

/* a wake with its cause, as runtimed tells it */
static void
wake_by(struct store_db *sdb, const char *name, int64_t t_ms,
    const struct wake_cause *cause)
{
	struct rt_state	 st;

	memset(&st, 0, sizeof(st));
	strlcpy(st.name, name, sizeof(st.name));
	st.from = WL_ASLEEP;
	st.state = WL_WAKING;
	st.reason = RT_REASON_REQUEST;
	st.since = t_ms / 1000;
	st.since_ms = t_ms;
	st.cause = *cause;
	assert_int_equal(store_db_state(sdb, &st), 1);
}

static void
request_cause(struct wake_cause *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = WAKE_REQUEST;
	strlcpy(c->method, "GET", sizeof(c->method));
	strlcpy(c->host, "a.test", sizeof(c->host));
	strlcpy(c->path, "/report?id=7", sizeof(c->path));
	strlcpy(c->client, "192.0.2.7", sizeof(c->client));
	strlcpy(c->agent, "curl/8.5.0 (x86_64)", sizeof(c->agent));
}

/* a version 2 file, from before wake causes: its history, then causes */
static void
test_migrate_v2(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct wake_cause	 cause;
	struct collect		 c;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	store_db_close(sdb);
	raw_exec(f->path, V3_DROP "PRAGMA user_version = 2");
	/* a wake recorded by a version 2 store */
	raw_exec(f->path, "INSERT INTO transitions (workload, from_state, "
	    "to_state, reason, time_ms) VALUES ('a', 'asleep', 'waking', 1, "
	    "1700000001000)");
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	request_cause(&cause);
	wake_by(sdb, "a", T0 + 5000, &cause);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 2);
	assert_int_equal(c.tr[0].cause.kind, WAKE_NONE);
	assert_int_equal(c.tr[1].cause.kind, WAKE_REQUEST);
	assert_string_equal(c.tr[1].cause.path, "/report?id=7");
	store_db_close(sdb);
}

/*
 * What woke it, in the history: a request's fields as they were, the
 * other kinds by name, none on the other changes; held, then written.
 */
static void
test_wake_cause(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct wake_cause	 cause;
	struct collect		 c;
	struct store_queue	 q;
	struct rt_state		 st;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	request_cause(&cause);
	wake_by(sdb, "a", T0 + 1000, &cause);
	/* a cause on another change is not kept */
	memset(&st, 0, sizeof(st));
	strlcpy(st.name, "a", sizeof(st.name));
	st.from = WL_WAKING;
	st.state = WL_RUNNING;
	st.reason = RT_REASON_READY;
	st.since_ms = T0 + 1200;
	st.cause = cause;
	assert_int_equal(store_db_state(sdb, &st), 1);
	set_state(sdb, "a", WL_SUSPENDING, RT_REASON_OPERATOR, T0 + 2000,
	    NULL);
	set_state(sdb, "a", WL_ASLEEP, RT_REASON_OPERATOR, T0 + 2100, NULL);
	memset(&cause, 0, sizeof(cause));
	cause.kind = WAKE_ORCHCTL;
	/* fields beyond its kind are not kept either */
	strlcpy(cause.host, "ignored", sizeof(cause.host));
	wake_by(sdb, "a", T0 + 3000, &cause);

	memset(&c, 0, sizeof(c));
	assert_int_equal(store_db_history(sdb, "a", STORE_HISTORY_MAX,
	    collect_history, &c), 5);
	assert_int_equal(c.tr[0].cause.kind, WAKE_REQUEST);
	assert_string_equal(c.tr[0].cause.method, "GET");
	assert_string_equal(c.tr[0].cause.host, "a.test");
	assert_string_equal(c.tr[0].cause.path, "/report?id=7");
	assert_string_equal(c.tr[0].cause.client, "192.0.2.7");
	assert_string_equal(c.tr[0].cause.agent, "curl/8.5.0 (x86_64)");
	assert_int_equal(c.tr[1].cause.kind, WAKE_NONE);
	assert_string_equal(c.tr[1].cause.path, "");
	assert_int_equal(c.tr[4].cause.kind, WAKE_ORCHCTL);
	assert_string_equal(c.tr[4].cause.host, "");
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM transitions "
	    "WHERE cause = 'orchctl'"), 1);

	/* held: the same from the queue, its bytes cleaned on the way in */
	sq_init(&q, SQ_MAX_ENTRIES, SQ_MAX_BYTES);
	memset(&st, 0, sizeof(st));
	strlcpy(st.name, "a", sizeof(st.name));
	st.from = WL_ASLEEP;
	st.state = WL_WAKING;
	st.reason = RT_REASON_REQUEST;
	st.since_ms = T0 + 4000;
	request_cause(&st.cause);
	memcpy(st.cause.agent, "bad\x01\xff\n", 7);
	memset(st.cause.path, 'p', sizeof(st.cause.path));
	assert_int_equal(sq_add(&q, SQ_STATE, &st), 1);
	memset(&c, 0, sizeof(c));
	assert_int_equal(sq_history(&q, "a", WL_ASLEEP, collect_history, &c),
	    1);
	assert_int_equal(c.tr[0].cause.kind, WAKE_REQUEST);
	assert_string_equal(c.tr[0].cause.agent, "bad???");
	assert_int_equal(strlen(c.tr[0].cause.path), CAUSE_PATH_MAX - 1);
	sq_clear(&q);
	store_db_close(sdb);
}

/* text and JSON of a cause (common/cause.c) */
static void
test_cause_text(void **state)
{
	struct wake_cause	 cause;
	char			 buf[512], *s;
	json_t			*o;

	request_cause(&cause);
	assert_string_equal(cause_text(&cause, buf, sizeof(buf)),
	    "GET a.test/report?id=7 from 192.0.2.7 \"curl/8.5.0 (x86_64)\"");
	o = cause_json(&cause);
	assert_non_null(o);
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(s, "{\"kind\":\"request\",\"method\":\"GET\","
	    "\"host\":\"a.test\",\"path\":\"/report?id=7\","
	    "\"client\":\"192.0.2.7\",\"agent\":\"curl/8.5.0 (x86_64)\"}");
	free(s);
	json_decref(o);
	cause.agent[0] = '\0';
	assert_string_equal(cause_text(&cause, buf, sizeof(buf)),
	    "GET a.test/report?id=7 from 192.0.2.7");
	/* cut, never overrun */
	assert_string_equal(cause_text(&cause, buf, 8), "GET a.t");

	memset(&cause, 0, sizeof(cause));
	cause.kind = WAKE_KEEP_WARM;
	assert_string_equal(cause_text(&cause, buf, sizeof(buf)),
	    "keep warm");
	o = cause_json(&cause);
	s = json_dumps(o, JSON_COMPACT);
	assert_string_equal(s, "{\"kind\":\"keep_warm\"}");
	free(s);
	json_decref(o);
	cause.kind = WAKE_NONE;
	assert_true(json_is_null(o = cause_json(&cause)));
	json_decref(o);
	assert_int_equal(cause_kind_parse("keep warm"), WAKE_KEEP_WARM);
	assert_int_equal(cause_kind_parse("api"), WAKE_API);
	assert_int_equal(cause_kind_parse("nonsense"), WAKE_NONE);
	assert_int_equal(cause_kind_parse(""), WAKE_NONE);
	cause.kind = 99;
	cause_sanitize(&cause);
	assert_int_equal(cause.kind, WAKE_NONE);
}

/* a version 4 file, from before the memory budget, keeps its measures */
static void
test_migrate_v4(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct st_restore	 rs;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	store_db_close(sdb);
	raw_exec(f->path, V5_DROP "UPDATE counters SET memory = 1000; "
	    "PRAGMA user_version = 4");
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.memory, 1000);
	assert_int_equal(rs.memory_estimate, 0);
	assert_int_equal(store_db_memory(sdb, "a", 2000, 3000), 0);
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.memory_estimate, 3000);
	store_db_close(sdb);
}

/*
 * a version 8 file, from before maintenance: none, then one kept with
 * its end and message, and off again
 */
static void
test_migrate_v8(void **state)
{
	struct fixture		*f = *state;
	struct store_db		*sdb;
	struct st_restore	 rs;
	struct wl_maint		 m;

	sdb = db_open(f->path);
	wl_add(&f->wls, "a", 0, SOURCE_CONFIG);
	assert_int_equal(store_db_sync(sdb, &f->wls, T0), 0);
	store_db_close(sdb);
	raw_exec(f->path, V9_DROP "PRAGMA user_version = 8");
	sdb = db_open(f->path);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	    store_db_version());
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.maint.on, 0);
	memset(&m, 0, sizeof(m));
	m.on = 1;
	m.until = 1900000000;
	strlcpy(m.msg, "<b>back soon</b>", sizeof(m.msg));
	assert_int_equal(store_db_maint(sdb, "a", &m), 0);
	store_db_close(sdb);
	/* across a restart of the store */
	sdb = db_open(f->path);
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.maint.on, 1);
	assert_int_equal(rs.maint.until, 1900000000);
	assert_string_equal(rs.maint.msg, "<b>back soon</b>");
	/* a bad value edited in by hand is refused by the schema */
	assert_int_not_equal(raw_try(f->path,
	    "UPDATE workloads SET maint = 7"), 0);
	memset(&m, 0, sizeof(m));
	assert_int_equal(store_db_maint(sdb, "a", &m), 0);
	assert_int_equal(store_db_restore(sdb, "a", &rs), 1);
	assert_int_equal(rs.maint.on, 0);
	assert_int_equal(rs.maint.until, 0);
	assert_string_equal(rs.maint.msg, "");
	store_db_close(sdb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_created, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reopen_keeps_data, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_newer_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_garbage_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_readonly_file_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_directory_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_readonly_directory_existing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transitions_and_counters,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_memory_and_total,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_bounded, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lastseen_batch, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_restore, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sync_delta, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sync_sources, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_api_writes_durable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_uids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v2, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wake_cause, setup,
		    teardown),
		cmocka_unit_test(test_cause_text),
		cmocka_unit_test_setup_teardown(test_shrink_prepares_again,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v4, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v8, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
