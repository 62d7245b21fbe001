/*
 * The store's database.
 *
 * One sqlite file in write-ahead-log mode, opened by the store process
 * only.  Opening checks before it changes anything: a file that is not a
 * database, is corrupt or cannot be written is refused and left exactly
 * as it was, because it may be the only copy of an operator's history.
 * The schema carries its version in PRAGMA user_version and is brought up
 * to date by ordered migrations (store_schema.c), each in its own
 * transaction.
 *
 * Every statement is prepared once at open from the fixed texts below;
 * values are always bound, never written into SQL.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cause.h"
#include "compat.h"
#include "msg.h"
#include "store_db.h"
#include "store_open.h"
#include "store_sql.h"
#include "timer.h"
#include "util.h"
#include "workload.h"


/* for the tests: called inside each durable transaction */
void		(*store_db_tx_hook)(struct store_db *);

struct store_db {
	sqlite3		*db;
	sqlite3_stmt	*stmt[S_MAX];
	char		 err[512];
	int		 broken;
	char		 path[PATH_MAX];
	dev_t		 dev;		/* the file opened at path */
	ino_t		 ino;
};

/* a workload's row as a state change needs it */
struct wl_row {
	enum workload_state	 state;
	int64_t			 since_ms;
	int64_t			 started_at;
};

static int	workload_rows(struct store_db *, sqlite3_stmt *,
		    store_workload_cb, void *);

static const char *
state_text(int state)
{
	return (workload_state_name((enum workload_state)state));
}

static int
state_parse(const unsigned char *text)
{
	int	 s;

	for (s = WL_ASLEEP; s <= WL_STATE_LAST; s++)
		if (s != WL_CHECKING && text != NULL &&
		    strcmp((const char *)text, state_text(s)) == 0)
			return (s);
	return (WL_ASLEEP);
}

/*
 * Errors.  The file has gone bad when sqlite says it is corrupt, not a
 * database, unreadable or unwritable: nothing later will succeed and
 * retrying could only make it worse.
 */
static int
rc_broken(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_IOERR:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
		return (1);
	default:
		return (0);
	}
}

/* sqlite's word first: the statement only says where */
static int
db_fail(struct store_db *sdb, int rc, const char *what)
{
	snprintf(sdb->err, sizeof(sdb->err), "%s (in \"%.60s\")",
	    sqlite3_errmsg(sdb->db), what);
	if (rc_broken(rc))
		sdb->broken = 1;
	return (-1);
}

const char *
store_db_error(const struct store_db *sdb)
{
	return (sdb->err);
}

int
store_db_broken(const struct store_db *sdb)
{
	return (sdb->broken);
}

/*
 * Statements.  st() hands out a prepared statement ready for binding;
 * step() runs it one row on and resets it when it is done.  All are
 * prepared at open, which proves their texts; store_db_shrink()
 * finalizes them after a burst, and st() prepares again the few used at
 * rest.  A prepare that fails then (memory) is the statement's error,
 * and a NULL statement fails its step.
 */
static sqlite3_stmt *
st(struct store_db *sdb, enum stmt_id id)
{
	sqlite3_stmt	*s = sdb->stmt[id];
	int		 rc;

	if (s == NULL) {
		if ((rc = sqlite3_prepare_v3(sdb->db, stmt_sql[id], -1,
		    SQLITE_PREPARE_PERSISTENT, &sdb->stmt[id], NULL)) !=
		    SQLITE_OK) {
			(void)db_fail(sdb, rc, stmt_sql[id]);
			sdb->stmt[id] = NULL;
			return (NULL);
		}
		return (sdb->stmt[id]);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return (s);
}

static int
step(struct store_db *sdb, sqlite3_stmt *s)
{
	int	 rc;

	if (s == NULL)
		return (-1);	/* st() said why */
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		return (rc);
	if (rc != SQLITE_DONE)
		(void)db_fail(sdb, rc, sqlite3_sql(s));
	sqlite3_reset(s);
	return (rc == SQLITE_DONE ? rc : -1);
}

/* a statement that returns no rows */
static int
run(struct store_db *sdb, sqlite3_stmt *s)
{
	int	 rc = step(sdb, s);

	if (rc == SQLITE_ROW) {
		sqlite3_reset(s);
		return (0);
	}
	return (rc == SQLITE_DONE ? 0 : -1);
}

static int
bind_text(sqlite3_stmt *s, int i, const char *text)
{
	return (sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT));
}

/* a fixed-size field of a message: bounded even if not terminated */
static int
bind_field(sqlite3_stmt *s, int i, const char *field, size_t size)
{
	return (sqlite3_bind_text(s, i, field, strnlen(field, size),
	    SQLITE_TRANSIENT));
}

static const char *
col_text(sqlite3_stmt *s, int i)
{
	const unsigned char	*t = sqlite3_column_text(s, i);

	return (t != NULL ? (const char *)t : "");
}

static int
tx_begin(struct store_db *sdb)
{
	return (run(sdb, st(sdb, S_BEGIN)));
}

static int
tx_commit(struct store_db *sdb)
{
	return (run(sdb, st(sdb, S_COMMIT)));
}

/* the error that made us roll back is the one worth keeping */
static int
tx_rollback(struct store_db *sdb)
{
	char	 err[sizeof(sdb->err)];

	strlcpy(err, sdb->err, sizeof(err));
	if (sqlite3_get_autocommit(sdb->db) == 0)
		(void)run(sdb, st(sdb, S_ROLLBACK));
	strlcpy(sdb->err, err, sizeof(sdb->err));
	return (-1);
}

/*
 * The API's writes are a client's request answered "done": they commit
 * with synchronous FULL, the WAL synced at every commit, so that a crash
 * or a power loss after the answer cannot take them back.  Everything
 * else keeps NORMAL (the WAL synced at checkpoints), which the frequent
 * small writes of states and last-seen times want, and where losing the
 * last ones costs nothing a restart does not recover.  sqlite refuses to
 * change the level inside a transaction, so it is raised before BEGIN
 * and put back after the COMMIT or the ROLLBACK, whatever happened (a
 * failure to put it back leaves FULL: slower, no less safe).  The level
 * is set when the PRAGMA is compiled, not when it runs, so it cannot be
 * a prepared statement: each is compiled anew by sqlite3_exec().
 */
static int
set_synchronous(struct store_db *sdb, const char *sql)
{
	int	 rc;

	if ((rc = sqlite3_exec(sdb->db, sql, NULL, NULL, NULL)) != SQLITE_OK)
		return (db_fail(sdb, rc, sql));
	return (0);
}

static void
tx_end_durable(struct store_db *sdb)
{
	char	 err[sizeof(sdb->err)];

	strlcpy(err, sdb->err, sizeof(err));
	(void)set_synchronous(sdb, "PRAGMA synchronous = NORMAL");
	strlcpy(sdb->err, err, sizeof(sdb->err));
}

static int
tx_begin_durable(struct store_db *sdb)
{
	if (set_synchronous(sdb, "PRAGMA synchronous = FULL") == -1)
		return (-1);
	if (tx_begin(sdb) == -1) {
		tx_end_durable(sdb);
		return (-1);
	}
	if (store_db_tx_hook != NULL)
		store_db_tx_hook(sdb);
	return (0);
}

/*
 * PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA; -1 on error.
 * Compiled anew, for the same reason.
 */
int
store_db_synchronous(struct store_db *sdb)
{
	sqlite3_stmt	*s;
	int		 level = -1;

	if (sqlite3_prepare_v2(sdb->db, "PRAGMA synchronous", -1, &s,
	    NULL) != SQLITE_OK)
		return (-1);
	if (sqlite3_step(s) == SQLITE_ROW)
		level = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return (level);
}

/*
 * Opening.
 */

/* per connection, in memory: the names of the generation being synced */
static int
prepare_all(struct store_db *sdb, char *err, size_t errlen)
{
	int	 i, rc;

	if ((rc = sqlite3_exec(sdb->db, "CREATE TEMP TABLE configured "
	    "(name TEXT PRIMARY KEY)", NULL, NULL, NULL)) != SQLITE_OK) {
		store_open_error(sdb->db, rc, "temporary table", err, errlen);
		return (-1);
	}
	for (i = 0; i < S_MAX; i++) {
		if ((rc = sqlite3_prepare_v3(sdb->db, stmt_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &sdb->stmt[i], NULL)) !=
		    SQLITE_OK) {
			snprintf(err, errlen, "prepare \"%s\": %s",
			    stmt_sql[i], sqlite3_errmsg(sdb->db));
			return (-1);
		}
	}
	return (0);
}

struct store_db *
store_db_open(const char *path, char *err, size_t errlen)
{
	struct stat	 sb;
	struct store_db	*sdb;

	if ((sdb = calloc(1, sizeof(*sdb))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return (NULL);
	}
	if (store_open_sqlite(path, &sdb->db, err, errlen) == -1 ||
	    prepare_all(sdb, err, errlen) == -1)
		goto fail;
	/* the file it opened, for store_db_moved() */
	if (strlcpy(sdb->path, path, sizeof(sdb->path)) >=
	    sizeof(sdb->path) || stat(path, &sb) == -1) {
		snprintf(err, errlen, "stat: %s", strerror(errno));
		goto fail;
	}
	sdb->dev = sb.st_dev;
	sdb->ino = sb.st_ino;
	return (sdb);
 fail:
	store_db_close(sdb);
	return (NULL);
}

/*
 * Is the file at the path still the one opened?  sqlite goes on writing
 * to a file removed or replaced under it without a word, in write-ahead
 * log mode, and all of it is lost when the store closes it.
 */
enum store_db_where
store_db_moved(const struct store_db *sdb)
{
	struct stat	 sb;

	if (stat(sdb->path, &sb) == -1)
		return (errno == ENOENT ? STORE_DB_GONE : STORE_DB_UNKNOWN);
	if (sb.st_dev != sdb->dev || sb.st_ino != sdb->ino)
		return (STORE_DB_REPLACED);
	return (STORE_DB_HERE);
}

/*
 * A copy of everything the open database holds, its write-ahead log's
 * commits included, into a new file at path (which must not exist):
 * sqlite's online backup reads through this connection, so it works
 * from a file no longer in any directory.
 */
int
store_db_copy(struct store_db *sdb, const char *path, char *err,
    size_t errlen)
{
	sqlite3		*to = NULL;
	sqlite3_backup	*b;
	int		 rc;

	rc = sqlite3_open_v2(path, &to, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		store_open_error(to, rc, "cannot create", err, errlen);
		goto fail;
	}
	if ((b = sqlite3_backup_init(to, "main", sdb->db, "main")) == NULL) {
		snprintf(err, errlen, "backup: %s", sqlite3_errmsg(to));
		goto fail;
	}
	rc = sqlite3_backup_step(b, -1);
	(void)sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "backup: %s", sqlite3_errstr(rc));
		goto fail;
	}
	if ((rc = sqlite3_close(to)) != SQLITE_OK) {
		to = NULL;
		snprintf(err, errlen, "close: %s", sqlite3_errstr(rc));
		goto fail;
	}
	return (0);
 fail:
	if (to != NULL)
		sqlite3_close(to);
	(void)unlink(path);
	return (-1);
}

/*
 * After a configuration's burst of writes: the page cache and the
 * prepared statements go back to the heap, for heap_trim() to return;
 * the cache fills again as it is used, st() prepares again.
 */
void
store_db_shrink(struct store_db *sdb)
{
	int	 i;

	/* prepared, the statements are 170 KiB; st() makes them again */
	for (i = 0; i < S_MAX; i++) {
		sqlite3_finalize(sdb->stmt[i]);
		sdb->stmt[i] = NULL;
	}
	sqlite3_db_release_memory(sdb->db);
}

void
store_db_close(struct store_db *sdb)
{
	int	 i;

	if (sdb == NULL)
		return;
	for (i = 0; i < S_MAX; i++)
		sqlite3_finalize(sdb->stmt[i]);
	sqlite3_close(sdb->db);
	free(sdb);
}

/*
 * The configured workloads.  Rows that came from the configuration and
 * are no longer in it go, with their history; rows made through the API
 * stay whatever the configuration says.  A labelled container's
 * workload ("docker labels on") is a row of the configuration's, its
 * source said by its definition alone: it goes with its container, and
 * the schema's sources stay "config" and "api".
 */
static int
sync_one(struct store_db *sdb, const struct workload_conf *wc,
    int64_t now_ms, int mark)
{
	sqlite3_stmt	*s;
	char		*json;
	int		 r;

	if ((json = workload_to_json(wc)) == NULL) {
		snprintf(sdb->err, sizeof(sdb->err), "workload %s: cannot "
		    "encode its definition", wc->name);
		return (-1);
	}
	s = st(sdb, S_SYNC_UPSERT);
	bind_text(s, 1, wc->name);
	bind_text(s, 2, json);
	bind_text(s, 3, wl_word_name(wl_sources, wc->source ==
	    SOURCE_LABEL ? SOURCE_CONFIG : wc->source));
	sqlite3_bind_int64(s, 4, now_ms);
	sqlite3_bind_int64(s, 5, now_ms / 1000);
	r = run(sdb, s);
	free(json);
	if (r == -1)
		return (-1);
	s = st(sdb, S_SYNC_COUNTERS);
	bind_text(s, 1, wc->name);
	if (run(sdb, s) == -1)
		return (-1);
	/* the full sync's sweep keeps what it marked */
	if (!mark)
		return (0);
	s = st(sdb, S_SYNC_MARK);
	bind_text(s, 1, wc->name);
	return (run(sdb, s));
}

int
store_db_sync(struct store_db *sdb, const struct workloadlist *list,
    int64_t now_ms)
{
	const struct workload_conf	*wc;

	if (tx_begin(sdb) == -1)
		return (-1);
	if (run(sdb, st(sdb, S_SYNC_CLEAR)) == -1)
		return (tx_rollback(sdb));
	TAILQ_FOREACH(wc, list, entry)
		if (sync_one(sdb, wc, now_ms, 1) == -1)
			return (tx_rollback(sdb));
	if (run(sdb, st(sdb, S_SYNC_SWEEP)) == -1 ||
	    run(sdb, st(sdb, S_SYNC_CLEAR)) == -1 || tx_commit(sdb) == -1)
		return (tx_rollback(sdb));
	return (0);
}

/*
 * A reload's rows (store_sync.c): the new and changed definitions
 * written as store_db_sync() writes them, the workloads gone from the
 * configuration removed as its sweep removes them (an API row stays),
 * all in one transaction; the rows of the rest are not touched.
 */
int
store_db_sync_delta(struct store_db *sdb,
    const struct workload_conf *const *put, size_t nput,
    const char *const *drop, size_t ndrop, int64_t now_ms)
{
	sqlite3_stmt	*s;
	size_t		 i;

	if (nput == 0 && ndrop == 0)
		return (0);
	if (tx_begin(sdb) == -1)
		return (-1);
	for (i = 0; i < nput; i++)
		if (sync_one(sdb, put[i], now_ms, 0) == -1)
			return (tx_rollback(sdb));
	for (i = 0; i < ndrop; i++) {
		s = st(sdb, S_SYNC_DROP);
		bind_text(s, 1, drop[i]);
		if (run(sdb, s) == -1)
			return (tx_rollback(sdb));
	}
	if (tx_commit(sdb) == -1)
		return (tx_rollback(sdb));
	return (0);
}

/*
 * A change of state: the row, one more transition, the counters.  Time
 * spent in the state being left is added to its counter; the end of a
 * wake gives its duration, measured from the start of waking.
 */
static int
row_get(struct store_db *sdb, const char *name, struct wl_row *row)
{
	sqlite3_stmt	*s = st(sdb, S_STATE_GET);
	int		 rc;

	bind_field(s, 1, name, ORCHD_NAME_MAX);
	if ((rc = step(sdb, s)) == -1)
		return (-1);
	if (rc == SQLITE_DONE)
		return (0);
	row->state = state_parse(sqlite3_column_text(s, 0));
	row->since_ms = sqlite3_column_int64(s, 1);
	row->started_at = sqlite3_column_int64(s, 2);
	sqlite3_reset(s);
	return (1);
}

/* the time of a change: runtimed's milliseconds, else its seconds */
static int64_t
state_time_ms(const struct rt_state *rs)
{
	if (rs->since_ms > 0)
		return (rs->since_ms);
	if (rs->since > 0)
		return (rs->since * 1000);
	return (walltime_ms());
}

static int
row_set(struct store_db *sdb, const struct rt_state *rs,
    const struct wl_row *row, int64_t t_ms)
{
	sqlite3_stmt	*s = st(sdb, S_STATE_SET);
	int64_t		 started_at = row->started_at;

	/* thawed: the same process, started when it was */
	if (rs->state == WL_RUNNING && rs->reason != RT_REASON_THAWED)
		started_at = t_ms / 1000;
	else if (rs->state == WL_ASLEEP || rs->state == WL_FAILED)
		started_at = 0;
	bind_field(s, 1, rs->name, sizeof(rs->name));
	bind_text(s, 2, state_text(rs->state));
	sqlite3_bind_int(s, 3, rs->reason);
	bind_field(s, 4, rs->msg, sizeof(rs->msg));
	sqlite3_bind_int64(s, 5, t_ms);
	sqlite3_bind_int64(s, 6, started_at);
	sqlite3_bind_int64(s, 7, t_ms / 1000);
	return (run(sdb, s));
}

/* parameters i to i + 5: what woke it, on a change to waking only */
static void
cause_bind(sqlite3_stmt *s, int i, const struct rt_state *rs)
{
	const struct wake_cause	*c = &rs->cause;
	int			 kind = WAKE_NONE;

	if (rs->state == WL_WAKING)
		kind = c->kind;
	bind_text(s, i, cause_kind_name(kind, 0));
	if (kind != WAKE_REQUEST) {
		bind_text(s, i + 1, "");
		bind_text(s, i + 2, "");
		bind_text(s, i + 3, "");
		bind_text(s, i + 4, "");
		bind_text(s, i + 5, "");
		return;
	}
	bind_field(s, i + 1, c->method, sizeof(c->method));
	bind_field(s, i + 2, c->host, sizeof(c->host));
	bind_field(s, i + 3, c->path, sizeof(c->path));
	bind_field(s, i + 4, c->client, sizeof(c->client));
	bind_field(s, i + 5, c->agent, sizeof(c->agent));
}

/* columns i to i + 5, as cause_bind() wrote them */
static void
cause_column(sqlite3_stmt *s, int i, struct wake_cause *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = cause_kind_parse(col_text(s, i));
	if (c->kind != WAKE_REQUEST)
		return;
	cause_copy(c->method, sizeof(c->method), col_text(s, i + 1),
	    sizeof(c->method));
	cause_copy(c->host, sizeof(c->host), col_text(s, i + 2),
	    sizeof(c->host));
	cause_copy(c->path, sizeof(c->path), col_text(s, i + 3),
	    sizeof(c->path));
	cause_copy(c->client, sizeof(c->client), col_text(s, i + 4),
	    sizeof(c->client));
	cause_copy(c->agent, sizeof(c->agent), col_text(s, i + 5),
	    sizeof(c->agent));
}

static int
transition_add(struct store_db *sdb, const struct rt_state *rs,
    const struct wl_row *row, int64_t t_ms, int64_t wake_ms)
{
	sqlite3_stmt	*s = st(sdb, S_TRANS_ADD);

	bind_field(s, 1, rs->name, sizeof(rs->name));
	bind_text(s, 2, state_text(row->state));
	bind_text(s, 3, state_text(rs->state));
	sqlite3_bind_int(s, 4, rs->reason);
	bind_field(s, 5, rs->msg, sizeof(rs->msg));
	sqlite3_bind_int64(s, 6, t_ms);
	if (wake_ms >= 0)
		sqlite3_bind_int64(s, 7, wake_ms);
	cause_bind(s, 8, rs);
	if (run(sdb, s) == -1)
		return (-1);
	s = st(sdb, S_TRANS_TRIM);
	bind_field(s, 1, rs->name, sizeof(rs->name));
	/* the newest STORE_HISTORY_MAX stay */
	sqlite3_bind_int(s, 2, STORE_HISTORY_MAX);
	return (run(sdb, s));
}

static int
counters_add(struct store_db *sdb, const struct rt_state *rs,
    const struct wl_row *row, int64_t t_ms, int64_t *wake_ms)
{
	sqlite3_stmt	*s = st(sdb, S_COUNT_ADD);
	int64_t		 dt = MAXIMUM(t_ms - row->since_ms, 0);
	int		 wake_end;

	/* a wake adopted across a restart took no measurable time */
	wake_end = row->state == WL_WAKING &&
	    (rs->state == WL_RUNNING || rs->state == WL_FAILED) &&
	    rs->reason != RT_REASON_RESTORED;
	*wake_ms = wake_end ? dt : -1;
	bind_field(s, 1, rs->name, sizeof(rs->name));
	sqlite3_bind_int(s, 2, wake_end && rs->state == WL_RUNNING);
	sqlite3_bind_int(s, 3, wake_end && rs->state == WL_FAILED);
	sqlite3_bind_int64(s, 4, wake_end && rs->state == WL_RUNNING ? dt : 0);
	sqlite3_bind_int64(s, 5, row->state == WL_ASLEEP ? dt : 0);
	sqlite3_bind_int64(s, 6, row->state == WL_RUNNING ? dt : 0);
	sqlite3_bind_int64(s, 7, t_ms / 86400000);
	return (run(sdb, s));
}

int
store_db_state(struct store_db *sdb, const struct rt_state *rs)
{
	struct wl_row	 row;
	int64_t		 t_ms = state_time_ms(rs), wake_ms;
	int		 r;

	if ((rs->state < WL_ASLEEP || rs->state > WL_FAILED) &&
	    rs->state != WL_FROZEN) {
		snprintf(sdb->err, sizeof(sdb->err), "workload %s: no such "
		    "state %d", rs->name, rs->state);
		return (-1);
	}
	if (tx_begin(sdb) == -1)
		return (-1);
	if ((r = row_get(sdb, rs->name, &row)) != 1) {
		(void)tx_rollback(sdb);
		return (r);
	}
	/* told again what we know: nothing happened, but a replacement */
	if (row.state == (enum workload_state)rs->state &&
	    rs->reason != RT_REASON_REPLACED)
		return (tx_commit(sdb) == -1 ? tx_rollback(sdb) : 1);
	if (counters_add(sdb, rs, &row, t_ms, &wake_ms) == -1 ||
	    transition_add(sdb, rs, &row, t_ms, wake_ms) == -1 ||
	    row_set(sdb, rs, &row, t_ms) == -1 || tx_commit(sdb) == -1)
		return (tx_rollback(sdb));
	return (1);
}

/* the reaper's batch: one transaction whatever its size */
int
store_db_lastseen(struct store_db *sdb, const struct reap_lastseen *ls,
    size_t n)
{
	sqlite3_stmt	*s;
	char		 name[ORCHD_NAME_MAX];
	size_t		 i;

	if (tx_begin(sdb) == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		/* from another process: never trusted to be terminated */
		memcpy(name, ls[i].name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		s = st(sdb, S_LASTSEEN);
		bind_text(s, 1, name);
		sqlite3_bind_int64(s, 2, ls[i].last_seen);
		if (run(sdb, s) == -1)
			return (tx_rollback(sdb));
	}
	if (tx_commit(sdb) == -1)
		return (tx_rollback(sdb));
	return (0);
}

/*
 * on: 1 or 0; -1 drops the override, back to the definition's; until:
 * when it lapses (wall clock, s), 0 never
 */
int
store_db_keepwarm(struct store_db *sdb, const char *name, int on,
    int64_t until)
{
	sqlite3_stmt	*s = st(sdb, S_KEEPWARM);

	bind_text(s, 1, name);
	if (on != -1)
		sqlite3_bind_int(s, 2, on != 0);
	sqlite3_bind_int64(s, 3, walltime_ms() / 1000);
	sqlite3_bind_int64(s, 4, on == 1 && until > 0 ? until : 0);
	return (run(sdb, s));
}

/* a run's peak and the estimate made from it (0: the estimate kept) */
int
store_db_memory(struct store_db *sdb, const char *name, int64_t bytes,
    int64_t estimate)
{
	sqlite3_stmt	*s = st(sdb, S_MEMORY);

	bind_text(s, 1, name);
	if (bytes > 0)
		sqlite3_bind_int64(s, 2, bytes);
	if (estimate > 0)
		sqlite3_bind_int64(s, 3, estimate);
	return (run(sdb, s));
}

/* maintenance: on with its end and message, or off */
int
store_db_maint(struct store_db *sdb, const char *name,
    const struct wl_maint *m)
{
	sqlite3_stmt	*s = st(sdb, S_MAINT);

	bind_text(s, 1, name);
	sqlite3_bind_int(s, 2, m->on == 1);
	sqlite3_bind_int64(s, 3, m->on == 1 ? m->until : 0);
	bind_text(s, 4, m->on == 1 ? m->msg : "");
	sqlite3_bind_int64(s, 5, walltime_ms() / 1000);
	return (run(sdb, s));
}

/* the three columns of maintenance from col on */
static void
maint_fill(sqlite3_stmt *s, int col, struct wl_maint *m)
{
	memset(m, 0, sizeof(*m));
	m->on = sqlite3_column_int(s, col) == 1;
	if (!m->on)
		return;
	m->until = sqlite3_column_int64(s, col + 1);
	strlcpy(m->msg, col_text(s, col + 2), sizeof(m->msg));
}

/* a job's last success: its definition's hash, 0 none */
int
store_db_job(struct store_db *sdb, const char *name, uint64_t hash)
{
	sqlite3_stmt	*s = st(sdb, S_JOB);

	bind_text(s, 1, name);
	sqlite3_bind_int64(s, 2, (int64_t)hash);
	return (run(sdb, s));
}

/*
 * Queries.
 */

/* the definition as stored; NULL if it no longer parses */
static struct workload_conf *
definition(sqlite3_stmt *s, int col)
{
	const void	*text = sqlite3_column_blob(s, col);
	char		 err[256];

	if (text == NULL)
		return (NULL);
	return (workload_from_json(text, sqlite3_column_bytes(s, col), err,
	    sizeof(err)));
}

static void
hosts_join(const struct strlist *l, char *buf, size_t len)
{
	const struct strentry	*e;

	buf[0] = '\0';
	TAILQ_FOREACH(e, l, entry) {
		if (buf[0] != '\0')
			strlcat(buf, ",", len);
		strlcat(buf, e->str, len);
	}
}

static void
workload_fill(sqlite3_stmt *s, struct ctl_workload *cw)
{
	struct workload_conf	*wc;

	memset(cw, 0, sizeof(*cw));
	strlcpy(cw->name, col_text(s, 0), sizeof(cw->name));
	cw->source = strcmp(col_text(s, 2), "api") == 0 ? SOURCE_API :
	    SOURCE_CONFIG;
	cw->idle_timeout = -1;
	if ((wc = definition(s, 1)) != NULL) {
		if (wc->source == SOURCE_LABEL)
			cw->source = SOURCE_LABEL;
		cw->driver = wc->driver;
		cw->keep_warm = wc->keep_warm;
		cw->idle_timeout = wc->idle_timeout;
		hosts_join(&wc->hosts, cw->hosts, sizeof(cw->hosts));
		hosts_join(&wc->listens, cw->listens, sizeof(cw->listens));
		workload_free(wc);
	}
	if (sqlite3_column_type(s, 3) != SQLITE_NULL)
		cw->keep_warm = sqlite3_column_int(s, 3);
	cw->state = state_parse(sqlite3_column_text(s, 4));
	strlcpy(cw->msg, col_text(s, 5), sizeof(cw->msg));
	cw->last_seen = sqlite3_column_int64(s, 6);
	cw->started_at = sqlite3_column_int64(s, 7);
	cw->wakes = sqlite3_column_int64(s, 8);
	cw->reason = sqlite3_column_int(s, 9);
	cw->memory = sqlite3_column_int64(s, 10);
	cw->memory_estimate = sqlite3_column_int64(s, 11);
	cw->keep_warm_until = sqlite3_column_int64(s, 12);
	cw->wakes_today = sqlite3_column_int64(s, 13);
	maint_fill(s, 14, &cw->maint);
}

/* name "": every workload */
int
store_db_workloads(struct store_db *sdb, const char *name,
    store_workload_cb fn, void *arg)
{
	sqlite3_stmt	*s = st(sdb, S_WORKLOADS);

	bind_text(s, 1, name);
	return (workload_rows(sdb, s, fn, arg));
}

/* at most limit workloads named after after, in name order */
int
store_db_workloads_page(struct store_db *sdb, const char *after,
    uint32_t limit, store_workload_cb fn, void *arg)
{
	sqlite3_stmt	*s = st(sdb, S_WORKLOAD_PAGE);

	bind_text(s, 1, after);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)MINIMUM(limit, CTL_PAGE_MAX));
	return (workload_rows(sdb, s, fn, arg));
}

/* the rows of S_WORKLOADS or S_WORKLOAD_PAGE, bound but for the day */
static int
workload_rows(struct store_db *sdb, sqlite3_stmt *s, store_workload_cb fn,
    void *arg)
{
	struct ctl_workload	 cw;
	int			 rc, n = 0;

	/* today, as the UTC day of a wake counts it */
	sqlite3_bind_int64(s, 2, walltime_ms() / 86400000);
	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		workload_fill(s, &cw);
		n++;
		if (fn(&cw, arg) == -1) {
			sqlite3_reset(s);
			break;
		}
	}
	return (rc == -1 ? -1 : n);
}

/* the last max transitions, oldest first */
int
store_db_history(struct store_db *sdb, const char *name, size_t max,
    store_history_cb fn, void *arg)
{
	sqlite3_stmt		*s = st(sdb, S_HISTORY);
	struct ctl_transition	 ct;
	int			 rc, n = 0;

	bind_text(s, 1, name);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)MINIMUM(max,
	    STORE_HISTORY_MAX));
	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		memset(&ct, 0, sizeof(ct));
		strlcpy(ct.name, name, sizeof(ct.name));
		ct.from = state_parse(sqlite3_column_text(s, 0));
		ct.to = state_parse(sqlite3_column_text(s, 1));
		ct.reason = sqlite3_column_int(s, 2);
		strlcpy(ct.msg, col_text(s, 3), sizeof(ct.msg));
		ct.time = sqlite3_column_int64(s, 4) / 1000;
		cause_column(s, 5, &ct.cause);
		n++;
		if (fn(&ct, arg) == -1) {
			sqlite3_reset(s);
			break;
		}
	}
	return (rc == -1 ? -1 : n);
}

/* name NULL: every workload together */
static sqlite3_stmt *
st_wake(struct store_db *sdb, enum stmt_id one, enum stmt_id all,
    const char *name)
{
	sqlite3_stmt	*s;

	if (name == NULL)
		return (st(sdb, all));
	s = st(sdb, one);
	bind_text(s, 1, name);
	return (s);
}

/* one wake duration, the nth smallest of the kept history */
static int
wake_nth(struct store_db *sdb, const char *name, int64_t n, int64_t count,
    int64_t *ms)
{
	sqlite3_stmt	*s = st_wake(sdb, S_WAKE_NTH, S_WAKE_NTH_ALL, name);
	int64_t		 sum = 0;
	int		 rc, got = 0;

	sqlite3_bind_int64(s, 2, count);
	sqlite3_bind_int64(s, 3, n);
	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		sum += sqlite3_column_int64(s, 0);
		got++;
	}
	if (rc == -1)
		return (-1);
	*ms = got > 0 ? sum / got : 0;
	return (0);
}

/*
 * Median and worst successful wake over the kept history; name NULL for
 * every workload together.  An even count takes the mean of the middle
 * two.
 */
static int
wake_stats(struct store_db *sdb, const char *name, struct ctl_stats *cs)
{
	sqlite3_stmt	*s;
	int64_t		 count;

	s = st_wake(sdb, S_WAKE_SUMMARY, S_WAKE_SUMMARY_ALL, name);
	if (step(sdb, s) != SQLITE_ROW)
		return (-1);
	count = sqlite3_column_int64(s, 0);
	cs->wake_worst_ms = sqlite3_column_int64(s, 1);
	sqlite3_reset(s);
	cs->wake_median_ms = 0;
	if (count == 0)
		return (0);
	return (wake_nth(sdb, name, (count - 1) / 2, 2 - count % 2,
	    &cs->wake_median_ms));
}

/* 512 MiB asleep for an hour saved half a GiB-hour */
static double
gib_hours(int64_t seconds, int64_t bytes)
{
	return ((double)seconds / 3600.0 *
	    ((double)bytes / (1024.0 * 1024.0 * 1024.0)));
}

static int
stats_fill(struct store_db *sdb, sqlite3_stmt *s, int64_t now_ms,
    struct ctl_stats *cs)
{
	struct workload_conf	*wc;
	enum workload_state	 state;
	int64_t			 current, asleep_ms, running_ms;

	memset(cs, 0, sizeof(*cs));
	strlcpy(cs->name, col_text(s, 0), sizeof(cs->name));
	state = state_parse(sqlite3_column_text(s, 2));
	/* the stretch under way counts up to now */
	current = MAXIMUM(now_ms - sqlite3_column_int64(s, 3), 0);
	cs->wakes = sqlite3_column_int64(s, 4);
	cs->failed_wakes = sqlite3_column_int64(s, 5);
	asleep_ms = sqlite3_column_int64(s, 6) +
	    (state == WL_ASLEEP ? current : 0);
	running_ms = sqlite3_column_int64(s, 7) +
	    (state == WL_RUNNING ? current : 0);
	cs->asleep_seconds = asleep_ms / 1000;
	cs->running_seconds = running_ms / 1000;
	if (sqlite3_column_type(s, 8) != SQLITE_NULL)
		cs->memory = sqlite3_column_int64(s, 8);
	else if ((wc = definition(s, 1)) != NULL) {
		cs->memory = wc->memory;
		workload_free(wc);
	}
	cs->memory_hours_saved = gib_hours(cs->asleep_seconds, cs->memory);
	return (wake_stats(sdb, cs->name, cs));
}

static void
stats_add(struct ctl_stats *total, const struct ctl_stats *cs)
{
	total->wakes += cs->wakes;
	total->failed_wakes += cs->failed_wakes;
	total->asleep_seconds += cs->asleep_seconds;
	total->running_seconds += cs->running_seconds;
	total->memory += cs->memory;
	total->memory_hours_saved += cs->memory_hours_saved;
}

/* one item per workload, then the total, named "" */
int
store_db_stats(struct store_db *sdb, int64_t now_ms, store_stats_cb fn,
    void *arg)
{
	sqlite3_stmt		*s = st(sdb, S_STATS);
	struct ctl_stats	 cs, total;
	int			 rc, n = 0;

	memset(&total, 0, sizeof(total));
	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		if (stats_fill(sdb, s, now_ms, &cs) == -1) {
			sqlite3_reset(s);
			return (-1);
		}
		stats_add(&total, &cs);
		n++;
		if (fn(&cs, arg) == -1) {
			sqlite3_reset(s);
			return (n);
		}
	}
	if (rc == -1 || wake_stats(sdb, NULL, &total) == -1)
		return (-1);
	n++;
	(void)fn(&total, arg);
	return (n);
}

/* S_RESTORE's columns, from the first */
static void
restore_fill(sqlite3_stmt *s, struct st_restore *rs)
{
	rs->state = state_parse(sqlite3_column_text(s, 0));
	rs->keep_warm = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 1);
	rs->last_seen = sqlite3_column_int64(s, 2);
	rs->started_at = sqlite3_column_int64(s, 3);
	rs->memory = sqlite3_column_int64(s, 4);
	rs->memory_estimate = sqlite3_column_int64(s, 5);
	rs->job_hash = (uint64_t)sqlite3_column_int64(s, 6);
	rs->keep_warm_until = sqlite3_column_int64(s, 7);
	maint_fill(s, 8, &rs->maint);
}

int
store_db_restore(struct store_db *sdb, const char *name,
    struct st_restore *rs)
{
	sqlite3_stmt	*s = st(sdb, S_RESTORE);
	int		 rc;

	bind_text(s, 1, name);
	if ((rc = step(sdb, s)) == -1)
		return (-1);
	if (rc == SQLITE_DONE)
		return (0);
	memset(rs, 0, sizeof(*rs));
	strlcpy(rs->name, name, sizeof(rs->name));
	restore_fill(s, rs);
	sqlite3_reset(s);
	return (1);
}

/*
 * Every row's, for the restore at start: one scan, where a query a
 * workload took the store 3.9 s at 100,000.  A name too long to be a
 * workload's is no workload's.
 */
int
store_db_restore_all(struct store_db *sdb, store_restore_cb cb, void *arg)
{
	sqlite3_stmt	*s = st(sdb, S_RESTORE_ALL);
	struct st_restore rs;
	int		 rc;

	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		memset(&rs, 0, sizeof(rs));
		if (strlcpy(rs.name, col_text(s, 11), sizeof(rs.name)) >=
		    sizeof(rs.name))
			continue;
		restore_fill(s, &rs);
		cb(&rs, arg);
	}
	return (rc == SQLITE_DONE ? 0 : -1);
}

/* 1 if the database holds any workload's row, 0 if none, -1 on error */
int
store_db_any_workload(struct store_db *sdb)
{
	sqlite3_stmt	*s = st(sdb, S_ANY_WORKLOAD);
	int		 rc;

	if ((rc = step(sdb, s)) == -1)
		return (-1);
	sqlite3_reset(s);
	return (rc == SQLITE_ROW);
}

/*
 * Workloads made through the API.  The configuration's sync never
 * removes them: they are written and removed here, each in its own
 * transaction, and read back at start.
 */
int
store_db_api_put(struct store_db *sdb, const struct workload_conf *wc,
    int64_t now_ms)
{
	if (wc->source != SOURCE_API) {
		snprintf(sdb->err, sizeof(sdb->err), "workload %s: not from "
		    "the API", wc->name);
		return (-1);
	}
	if (tx_begin_durable(sdb) == -1)
		return (-1);
	if (sync_one(sdb, wc, now_ms, 0) == -1 || tx_commit(sdb) == -1) {
		(void)tx_rollback(sdb);
		tx_end_durable(sdb);
		return (-1);
	}
	tx_end_durable(sdb);
	return (0);
}

/* 1: removed, with its history and counters; 0: no such API workload */
int
store_db_api_drop(struct store_db *sdb, const char *name)
{
	sqlite3_stmt	*s;
	int		 n;

	if (tx_begin_durable(sdb) == -1)
		return (-1);
	s = st(sdb, S_API_DROP);
	bind_text(s, 1, name);
	if (run(sdb, s) == -1)
		n = -1;
	else {
		n = sqlite3_changes(sdb->db) > 0;
		if (tx_commit(sdb) == -1)
			n = -1;
	}
	if (n == -1)
		(void)tx_rollback(sdb);
	tx_end_durable(sdb);
	return (n);
}

/*
 * An expired API workload: its last transition said, its history kept
 * (expired_transitions, which show history reads too), then dropped as
 * store_db_api_drop does.  1: done; 0: no such API workload.
 */
int
store_db_api_expire(struct store_db *sdb, const char *name, const char *msg,
    int64_t now_ms)
{
	sqlite3_stmt	*s;
	int		 n = -1;

	if (tx_begin_durable(sdb) == -1)
		return (-1);
	s = st(sdb, S_API_EXPIRED);
	bind_text(s, 1, name);
	sqlite3_bind_int(s, 2, RT_REASON_EXPIRED);
	bind_text(s, 3, msg);
	sqlite3_bind_int64(s, 4, now_ms);
	if (run(sdb, s) == -1)
		goto done;
	s = st(sdb, S_API_ARCHIVE);
	bind_text(s, 1, name);
	if (run(sdb, s) == -1)
		goto done;
	s = st(sdb, S_API_DROP);
	bind_text(s, 1, name);
	if (run(sdb, s) == -1)
		goto done;
	n = sqlite3_changes(sdb->db) > 0;
	if (tx_commit(sdb) == -1)
		n = -1;
 done:
	if (n == -1)
		(void)tx_rollback(sdb);
	tx_end_durable(sdb);
	return (n);
}

int
store_db_api_list(struct store_db *sdb, store_definition_cb fn, void *arg)
{
	sqlite3_stmt	*s = st(sdb, S_API_LIST);
	int		 rc, n = 0;

	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		n++;
		if (fn(sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0),
		    arg) == -1) {
			sqlite3_reset(s);
			break;
		}
	}
	return (rc == -1 ? -1 : n);
}

/*
 * The uids of process workloads.  The parent checks every one it reads
 * back; here they are only kept.
 */
int
store_db_uid_put(struct store_db *sdb, const char *name, uint32_t uid)
{
	sqlite3_stmt	*s = st(sdb, S_UID_PUT);

	bind_field(s, 1, name, ORCHD_NAME_MAX);
	sqlite3_bind_int64(s, 2, uid);
	sqlite3_bind_int64(s, 3, walltime_ms() / 1000);
	return (run(sdb, s));
}

int
store_db_uid_list(struct store_db *sdb, store_uid_cb fn, void *arg)
{
	sqlite3_stmt	*s = st(sdb, S_UID_LIST);
	sqlite3_int64	 uid;
	int		 rc, n = 0;

	while ((rc = step(sdb, s)) == SQLITE_ROW) {
		uid = sqlite3_column_int64(s, 1);
		/* the CHECK holds unless the file was edited: skip those */
		if (uid <= 0 || uid >= UINT32_MAX)
			continue;
		n++;
		if (fn(col_text(s, 0), (uint32_t)uid, arg) == -1) {
			sqlite3_reset(s);
			break;
		}
	}
	return (rc == -1 ? -1 : n);
}
