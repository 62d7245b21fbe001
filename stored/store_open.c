/*
 * Opening the store's database.  Every check reads before anything is
 * written: a file that is not a database, is corrupt, cannot be written
 * or has a newer schema is refused and left exactly as it was, because
 * it may be the only copy of an operator's history.  Then write-ahead
 * log mode, the connection's settings, and the schema's migrations
 * (store_schema.c), each in its own transaction.
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
#include <unistd.h>

#include <sqlite3.h>

#include "compat.h"
#include "msg.h"
#include "store_db.h"
#include "store_open.h"
#include "workload.h"

/* "unable to open database file (Permission denied)" */
void
store_open_error(sqlite3 *db, int rc, const char *what, char *err,
    size_t errlen)
{
	int	 e = db != NULL ? sqlite3_system_errno(db) : 0;

	if (e != 0 && (rc & 0xff) != SQLITE_NOTADB &&
	    (rc & 0xff) != SQLITE_CORRUPT)
		snprintf(err, errlen, "%s: %s (%s)", what,
		    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc),
		    strerror(e));
	else
		snprintf(err, errlen, "%s: %s", what,
		    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

/* the file and its write-ahead log are made beside each other */
static int
dir_writable(const char *path)
{
	char		 dir[PATH_MAX];
	const char	*slash;

	if ((slash = strrchr(path, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		strlcpy(dir, "/", sizeof(dir));
	else if ((size_t)(slash - path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return (-1);
	} else
		strlcpy(dir, path, slash - path + 1);
	return (access(dir, W_OK | X_OK));
}

/*
 * Never CREATE over a file that exists: sqlite would not truncate it,
 * but a file we did not make is one we only ever open.
 */
static int
open_flags(const char *path, char *err, size_t errlen)
{
	struct stat	 sb;

	if (stat(path, &sb) == 0) {
		if (!S_ISREG(sb.st_mode)) {
			snprintf(err, errlen, "not a regular file");
			return (-1);
		}
		return (SQLITE_OPEN_READWRITE);
	}
	if (errno != ENOENT) {
		snprintf(err, errlen, "%s", strerror(errno));
		return (-1);
	}
	/* sqlite would only say "unable to open database file" */
	if (dir_writable(path) == -1) {
		snprintf(err, errlen, "cannot be created: its directory is "
		    "not writable (%s)", strerror(errno));
		return (-1);
	}
	return (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
}

/* the first row's first column of a PRAGMA, as text */
static int
pragma_text(sqlite3 *db, const char *sql, char *out, size_t outlen)
{
	sqlite3_stmt	*s;
	int		 rc;

	if ((rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL)) != SQLITE_OK)
		return (rc);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(s, 0);

		strlcpy(out, t != NULL ? (const char *)t : "", outlen);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(s);
	return (rc);
}

/* the first read: a file that is not a database fails here, unchanged */
static int
check_readable(sqlite3 *db, char *err, size_t errlen)
{
	int	 rc;

	rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
	    NULL);
	if (rc == SQLITE_OK)
		return (0);
	if ((rc & 0xff) == SQLITE_NOTADB)
		snprintf(err, errlen, "not a database (%s)",
		    sqlite3_errmsg(db));
	else if ((rc & 0xff) == SQLITE_READONLY)
		store_open_error(db, rc, "cannot be written", err, errlen);
	else if ((rc & 0xff) == SQLITE_CORRUPT)
		snprintf(err, errlen, "corrupt (%s)", sqlite3_errmsg(db));
	else
		store_open_error(db, rc, "cannot read", err, errlen);
	return (-1);
}

static int
check_integrity(sqlite3 *db, char *err, size_t errlen)
{
	char	 result[128] = "";
	int	 rc;

	if ((rc = pragma_text(db, "PRAGMA quick_check(1)", result,
	    sizeof(result))) != SQLITE_OK) {
		store_open_error(db, rc, "corrupt", err, errlen);
		return (-1);
	}
	if (strcmp(result, "ok") != 0) {
		snprintf(err, errlen, "corrupt (quick_check: %s)", result);
		return (-1);
	}
	return (0);
}

/* sqlite quietly opens read-only what it cannot open read-write */
static int
check_writable(sqlite3 *db, char *err, size_t errlen)
{
	int	 rc;

	if (sqlite3_db_readonly(db, "main") == 1) {
		snprintf(err, errlen, "cannot be written: the store has no "
		    "write permission on it");
		return (-1);
	}
	if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE; COMMIT", NULL, NULL,
	    NULL)) != SQLITE_OK) {
		store_open_error(db, rc, "cannot be written", err, errlen);
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return (-1);
	}
	return (0);
}

/*
 * WAL: readers never wait for the writer and a crash loses at most the
 * last transactions, never the file; NORMAL is durable enough with WAL
 * for all but the API's writes, which raise it (tx_begin_durable).
 */
static int
set_pragmas(sqlite3 *db, char *err, size_t errlen)
{
	char	 mode[16] = "";
	int	 rc;

	if ((rc = pragma_text(db, "PRAGMA journal_mode = WAL", mode,
	    sizeof(mode))) != SQLITE_OK) {
		store_open_error(db, rc, "cannot be written", err, errlen);
		return (-1);
	}
	if (strcmp(mode, "wal") != 0) {
		snprintf(err, errlen, "cannot be written: journal mode %s, "
		    "not wal", mode);
		return (-1);
	}
	/* lookups are by key: 256 KiB of page cache, not sqlite's 2 MiB */
	if ((rc = sqlite3_exec(db, "PRAGMA synchronous = NORMAL;"
	    "PRAGMA temp_store = MEMORY;"
	    "PRAGMA cache_size = -256;"
	    "PRAGMA foreign_keys = ON;", NULL, NULL, NULL)) != SQLITE_OK) {
		store_open_error(db, rc, "settings", err, errlen);
		return (-1);
	}
	return (0);
}

static int
schema_version(sqlite3 *db, int *version, char *err, size_t errlen)
{
	char	 v[32] = "0";
	int	 rc;

	if ((rc = pragma_text(db, "PRAGMA user_version", v, sizeof(v))) !=
	    SQLITE_OK) {
		store_open_error(db, rc, "schema version", err, errlen);
		return (-1);
	}
	*version = atoi(v);
	return (0);
}

static int
migrate(sqlite3 *db, char *err, size_t errlen)
{
	int	 version, rc;

	if (schema_version(db, &version, err, errlen) == -1)
		return (-1);
	if (version > store_db_version()) {
		snprintf(err, errlen, "schema version %d is newer than this "
		    "orchd knows (%d): refusing to touch it", version,
		    store_db_version());
		return (-1);
	}
	for (; version < store_db_version(); version++) {
		rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, store_schema_step(version), NULL,
			    NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			snprintf(err, errlen, "schema migration to version "
			    "%d: %s", version + 1, sqlite3_errmsg(db));
			(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return (-1);
		}
	}
	return (0);
}

/*
 * Opens or creates the file, then checks it before anything is written:
 * readable as a database, sound, writable, in WAL mode, its schema
 * brought up to date.  *dbp is set whenever sqlite made a handle, for
 * the caller to close.
 */
int
store_open_sqlite(const char *path, sqlite3 **dbp, char *err, size_t errlen)
{
	int	 flags, rc;

	*dbp = NULL;
	if ((flags = open_flags(path, err, errlen)) == -1)
		return (-1);
	/*
	 * No bulk page cache: sqlite allocates 20 pages (87 KiB) at once
	 * for a connection's cache and writes a header into each, and
	 * sqlite3_db_release_memory() (store_db_shrink) cannot give them
	 * back; page by page, the cache is returned after a burst.  Set
	 * before sqlite starts: a later call (a reopen) changes nothing.
	 */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	if ((rc = sqlite3_open_v2(path, dbp, flags, NULL)) != SQLITE_OK) {
		store_open_error(*dbp, rc, "cannot open", err, errlen);
		return (-1);
	}
	sqlite3_extended_result_codes(*dbp, 1);
	sqlite3_busy_timeout(*dbp, STORE_BUSY_MS);
	/* reads first: nothing is written before the file proved sound */
	if (check_readable(*dbp, err, errlen) == -1 ||
	    check_integrity(*dbp, err, errlen) == -1 ||
	    check_writable(*dbp, err, errlen) == -1 ||
	    set_pragmas(*dbp, err, errlen) == -1 ||
	    check_writable(*dbp, err, errlen) == -1 ||
	    migrate(*dbp, err, errlen) == -1)
		return (-1);
	return (0);
}
