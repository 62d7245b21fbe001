/*
 * The store's schema (stored/store_db.c opens the database and migrates
 * it): its history, one migration per version.
 */

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "msg.h"
#include "store_db.h"

/*
 * Schema migrations, in order: migrations[i] takes the database from
 * version i to version i + 1, and ends by saying so.  Never edit a
 * released step; append a new one.
 *
 * Version 1.  workloads: one row per workload, its definition as
 * workload_to_json() makes it, where it came from, the keep warm
 * override (NULL: as defined), its state (as text, for an operator with
 * sqlite3) with the reason (enum rt_reason) and message of the change,
 * since_ms when that state began, last_seen (the last request) and
 * started_at (0: not running) in seconds, updated when the row last
 * changed.  transitions: each change, time_ms when, wake_ms how long a
 * wake took (waking -> running or failed only); the newest
 * STORE_HISTORY_MAX per workload are kept.  counters: what the history
 * cannot keep: wakes, failed wakes, the sum of wake times, the closed
 * stretches asleep and running in milliseconds, the memory measured
 * (NULL: never).  Both go with their workload.
 *
 * Version 2.  identities: the uid the parent allocated to a process
 * workload that names no user, by workload name, and when.  A row
 * outlives its workload on purpose: the name keeps its uid, and no
 * other name is ever given it (orchd/identity.c).
 *
 * Version 3.  transitions: what woke a workload, on its changes to
 * waking: cause, the kind as orchctl prints it ('request', 'orchctl',
 * 'api', 'keep warm', ...; '' for none), and for a request its method,
 * host, path, client and User-Agent, cut to the bounds of struct
 * wake_cause.  The rows from before have none.
 *
 * Version 4.  expired_transitions: the history of the API's workloads
 * that expired, kept past their row, as transitions has it.
 *
 * Version 5.  counters.memory_estimate: what runtimed's memory budget
 * charges the workload's next run, made from the runs measured so far;
 * counters.memory is the last run's peak (NULL for both: never).
 *
 * Version 6.  workloads.frozen: 1 while a workload is frozen (the freeze
 * tier), its state then "running"; the CHECK of state, from version 1,
 * cannot take a new word in place.
 *
 * Version 7.  workloads.job_hash: the hash of the definition a job ("run
 * once") last succeeded with, 0 for none: it runs again when that
 * changes (runtimed/job.c).
 *
 * Version 8.  workloads.keep_warm_until: when a keep warm override of 1
 * lapses (wall clock, seconds; 0: never), kept so that it lapses after
 * a restart too (runtimed/warmuntil.c).  counters.day_wakes: the wakes
 * of the UTC day wake_day (days since the epoch) of the last one, for
 * the status page's "wakes today".
 *
 * Version 9.  workloads.maint, maint_until, maint_message: maintenance
 * (runtimed/maint.c), kept across restarts: on (1), when it ends by
 * itself (wall clock, seconds; 0: never) and what clients are told.
 */
static const char *const migrations[] = {
	/* 1 */
	"CREATE TABLE workloads ("
	"  name		TEXT PRIMARY KEY NOT NULL,"
	"  definition	TEXT NOT NULL,"
	"  source	TEXT NOT NULL CHECK (source IN ('config', 'api')),"
	"  keep_warm	INTEGER CHECK (keep_warm IN (0, 1)),"
	"  state	TEXT NOT NULL DEFAULT 'asleep' CHECK (state IN"
	"		  ('asleep', 'waking', 'running', 'suspending',"
	"		  'failed')),"
	"  reason	INTEGER NOT NULL DEFAULT 0,"
	"  message	TEXT NOT NULL DEFAULT '',"
	"  since_ms	INTEGER NOT NULL,"
	"  last_seen	INTEGER NOT NULL DEFAULT 0,"
	"  started_at	INTEGER NOT NULL DEFAULT 0,"
	"  updated	INTEGER NOT NULL"
	");"
	"CREATE TABLE transitions ("
	"  id		INTEGER PRIMARY KEY,"
	"  workload	TEXT NOT NULL REFERENCES workloads (name)"
	"		  ON DELETE CASCADE,"
	"  from_state	TEXT NOT NULL,"
	"  to_state	TEXT NOT NULL,"
	"  reason	INTEGER NOT NULL,"
	"  message	TEXT NOT NULL DEFAULT '',"
	"  time_ms	INTEGER NOT NULL,"
	"  wake_ms	INTEGER"
	");"
	"CREATE INDEX transitions_by_workload ON transitions (workload, id);"
	"CREATE TABLE counters ("
	"  workload	TEXT PRIMARY KEY NOT NULL REFERENCES workloads (name)"
	"		  ON DELETE CASCADE,"
	"  wakes	INTEGER NOT NULL DEFAULT 0,"
	"  failed_wakes	INTEGER NOT NULL DEFAULT 0,"
	"  wake_ms	INTEGER NOT NULL DEFAULT 0,"
	"  asleep_ms	INTEGER NOT NULL DEFAULT 0,"
	"  running_ms	INTEGER NOT NULL DEFAULT 0,"
	"  memory	INTEGER"
	");"
	"PRAGMA user_version = 1;",
	/* 2 */
	"CREATE TABLE identities ("
	"  name		TEXT PRIMARY KEY NOT NULL,"
	"  uid		INTEGER NOT NULL UNIQUE CHECK (uid > 0 AND"
	"		  uid < 4294967295),"
	"  created	INTEGER NOT NULL"
	");"
	"PRAGMA user_version = 2;",
	/* 3 */
	"ALTER TABLE transitions ADD COLUMN cause TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE transitions ADD COLUMN cause_method TEXT NOT NULL "
	"  DEFAULT '';"
	"ALTER TABLE transitions ADD COLUMN cause_host TEXT NOT NULL "
	"  DEFAULT '';"
	"ALTER TABLE transitions ADD COLUMN cause_path TEXT NOT NULL "
	"  DEFAULT '';"
	"ALTER TABLE transitions ADD COLUMN cause_client TEXT NOT NULL "
	"  DEFAULT '';"
	"ALTER TABLE transitions ADD COLUMN cause_agent TEXT NOT NULL "
	"  DEFAULT '';"
	"PRAGMA user_version = 3;",
	/* 4: the history of expired API workloads, kept past their row */
	"CREATE TABLE expired_transitions AS SELECT * FROM transitions "
	"  WHERE 0;"
	"CREATE INDEX expired_by_workload ON expired_transitions "
	"  (workload, time_ms);"
	"PRAGMA user_version = 4;",
	/* 5 */
	"ALTER TABLE counters ADD COLUMN memory_estimate INTEGER;"
	"PRAGMA user_version = 5;",
	/* 6 */
	"ALTER TABLE workloads ADD COLUMN frozen INTEGER NOT NULL DEFAULT 0 "
	"  CHECK (frozen IN (0, 1));"
	"PRAGMA user_version = 6;",
	/* 7: a job's last success ("run once"), its definition's hash */
	"ALTER TABLE workloads ADD COLUMN job_hash INTEGER NOT NULL "
	"  DEFAULT 0;"
	"PRAGMA user_version = 7;",
	/* 8: keep warm until a time (the API's), then it lapses; the wakes
	   of the day */
	"ALTER TABLE workloads ADD COLUMN keep_warm_until INTEGER NOT NULL "
	"  DEFAULT 0;"
	"ALTER TABLE counters ADD COLUMN wake_day INTEGER NOT NULL "
	"  DEFAULT 0;"
	"ALTER TABLE counters ADD COLUMN day_wakes INTEGER NOT NULL "
	"  DEFAULT 0;"
	"PRAGMA user_version = 8;",
	/* 9: maintenance, its end and its message */
	"ALTER TABLE workloads ADD COLUMN maint INTEGER NOT NULL DEFAULT 0 "
	"  CHECK (maint IN (0, 1));"
	"ALTER TABLE workloads ADD COLUMN maint_until INTEGER NOT NULL "
	"  DEFAULT 0;"
	"ALTER TABLE workloads ADD COLUMN maint_message TEXT NOT NULL "
	"  DEFAULT '';"
	"PRAGMA user_version = 9;",
};

/* the version the migrations below bring a database to */
int
store_db_version(void)
{
	return ((int)nitems(migrations));
}

/* the migration from version to version + 1 */
const char *
store_schema_step(int version)
{
	if (version < 0 || version >= store_db_version())
		return (NULL);
	return (migrations[version]);
}
