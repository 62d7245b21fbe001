/*
 * The store's SQL, one statement by name (store_sql.h): what store_db.c
 * prepares once when the database opens, and binds and steps after.
 * The schema is store_schema.c's.
 */

#include "store_sql.h"

/*
 * A row's state as text: the column's, or "frozen" for a row that says
 * running and frozen (the column's CHECK, from version 1, knows no
 * "frozen", and sqlite cannot change a CHECK in place)
 */
#define ROW_STATE(t)	"CASE WHEN " t "frozen = 1 THEN 'frozen' ELSE " \
			t "state END"
/* a workload's row for show workloads, before its WHERE */
#define WORKLOAD_ROW	"SELECT w.name, w.definition, w.source, w.keep_warm, " \
	ROW_STATE("w.") ", w.message, w.last_seen, w.started_at, " \
	"coalesce(c.wakes, 0), w.reason, c.memory, c.memory_estimate, " \
	"w.keep_warm_until, " \
	"CASE WHEN c.wake_day = ?2 THEN c.day_wakes ELSE 0 END, " \
	"w.maint, w.maint_until, w.maint_message " \
	"FROM workloads w LEFT JOIN counters c ON c.workload = w.name "

const char *const stmt_sql[S_MAX] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_SYNC_CLEAR] = "DELETE FROM temp.configured",
	[S_SYNC_MARK] = "INSERT OR IGNORE INTO temp.configured (name) "
	    "VALUES (?1)",
	[S_SYNC_UPSERT] = "INSERT INTO workloads (name, definition, source, "
	    "since_ms, updated) VALUES (?1, ?2, ?3, ?4, ?5) "
	    "ON CONFLICT (name) DO UPDATE SET definition = excluded.definition,"
	    " source = excluded.source, updated = excluded.updated "
	    "WHERE definition IS NOT excluded.definition OR "
	    "source IS NOT excluded.source",
	[S_SYNC_COUNTERS] = "INSERT OR IGNORE INTO counters (workload) "
	    "VALUES (?1)",
	[S_SYNC_SWEEP] = "DELETE FROM workloads WHERE source = 'config' AND "
	    "name NOT IN (SELECT name FROM temp.configured)",
	/* one gone from the configuration, as the sweep takes it */
	[S_SYNC_DROP] = "DELETE FROM workloads WHERE name = ?1 AND "
	    "source = 'config'",
	/* frozen: a row running, and frozen (version 6) */
	[S_STATE_GET] = "SELECT " ROW_STATE("") ", since_ms, started_at "
	    "FROM workloads "
	    "WHERE name = ?1",
	[S_STATE_SET] = "UPDATE workloads SET state = CASE WHEN ?2 = 'frozen' "
	    "THEN 'running' ELSE ?2 END, frozen = (?2 = 'frozen'), "
	    "reason = ?3, message = ?4, since_ms = ?5, started_at = ?6, "
	    "updated = ?7 WHERE name = ?1",
	[S_TRANS_ADD] = "INSERT INTO transitions (workload, from_state, "
	    "to_state, reason, message, time_ms, wake_ms, cause, "
	    "cause_method, cause_host, cause_path, cause_client, cause_agent) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[S_TRANS_TRIM] = "DELETE FROM transitions WHERE workload = ?1 AND "
	    "id <= (SELECT id FROM transitions WHERE workload = ?1 "
	    "ORDER BY id DESC LIMIT 1 OFFSET ?2)",
	[S_COUNT_ADD] = "UPDATE counters SET wakes = wakes + ?2, "
	    "failed_wakes = failed_wakes + ?3, wake_ms = wake_ms + ?4, "
	    "asleep_ms = asleep_ms + ?5, running_ms = running_ms + ?6, "
	    "day_wakes = CASE WHEN ?2 = 0 THEN day_wakes "
	    "WHEN wake_day = ?7 THEN day_wakes + ?2 ELSE ?2 END, "
	    "wake_day = CASE WHEN ?2 = 0 THEN wake_day ELSE ?7 END "
	    "WHERE workload = ?1",
	[S_LASTSEEN] = "UPDATE workloads SET last_seen = ?2 "
	    "WHERE name = ?1 AND last_seen < ?2",
	[S_KEEPWARM] = "UPDATE workloads SET keep_warm = ?2, updated = ?3, "
	    "keep_warm_until = ?4 WHERE name = ?1",
	[S_MEMORY] = "UPDATE counters SET memory = ?2, "
	    "memory_estimate = coalesce(?3, memory_estimate) "
	    "WHERE workload = ?1",
	[S_JOB] = "UPDATE workloads SET job_hash = ?2 WHERE name = ?1",
	[S_MAINT] = "UPDATE workloads SET maint = ?2, maint_until = ?3, "
	    "maint_message = ?4, updated = ?5 WHERE name = ?1",
	[S_WORKLOADS] = WORKLOAD_ROW
	    "WHERE ?1 = '' OR w.name = ?1 ORDER BY w.name",
	/* a page: by the primary key's order, the byte order of names */
	[S_WORKLOAD_PAGE] = WORKLOAD_ROW
	    "WHERE w.name > ?1 ORDER BY w.name LIMIT ?3",
	/* an expired one's too, before any later one of the name */
	[S_HISTORY] = "SELECT from_state, to_state, reason, message, time_ms, "
	    "cause, cause_method, cause_host, cause_path, cause_client, "
	    "cause_agent FROM (SELECT *, 1 AS live FROM transitions "
	    "WHERE workload = ?1 UNION ALL SELECT *, 0 FROM "
	    "expired_transitions WHERE workload = ?1 "
	    "ORDER BY live DESC, id DESC LIMIT ?2) ORDER BY live, id",
	[S_STATS] = "SELECT w.name, w.definition, " ROW_STATE("w.") ", "
	    "w.since_ms, "
	    "coalesce(c.wakes, 0), coalesce(c.failed_wakes, 0), "
	    "coalesce(c.asleep_ms, 0), coalesce(c.running_ms, 0), c.memory "
	    "FROM workloads w LEFT JOIN counters c ON c.workload = w.name "
	    "ORDER BY w.name",
	/* successful wakes in the kept history: one workload's, or all */
	[S_WAKE_SUMMARY] = "SELECT count(wake_ms), coalesce(max(wake_ms), 0) "
	    "FROM transitions WHERE workload = ?1 AND to_state = 'running'",
	[S_WAKE_SUMMARY_ALL] = "SELECT count(wake_ms), "
	    "coalesce(max(wake_ms), 0) FROM transitions "
	    "WHERE to_state = 'running'",
	[S_WAKE_NTH] = "SELECT wake_ms FROM transitions WHERE workload = ?1 "
	    "AND to_state = 'running' AND wake_ms IS NOT NULL "
	    "ORDER BY wake_ms LIMIT ?2 OFFSET ?3",
	[S_WAKE_NTH_ALL] = "SELECT wake_ms FROM transitions "
	    "WHERE to_state = 'running' AND wake_ms IS NOT NULL "
	    "ORDER BY wake_ms LIMIT ?2 OFFSET ?3",
	[S_RESTORE] = "SELECT " ROW_STATE("w.") ", w.keep_warm, w.last_seen, "
	    "w.started_at, c.memory, c.memory_estimate, w.job_hash, "
	    "w.keep_warm_until, w.maint, w.maint_until, w.maint_message "
	    "FROM workloads w LEFT JOIN counters c ON c.workload = w.name "
	    "WHERE w.name = ?1",
	/* the API's workloads: only ever its own rows */
	[S_API_DROP] = "DELETE FROM workloads WHERE name = ?1 AND "
	    "source = 'api'",
	[S_API_LIST] = "SELECT definition FROM workloads WHERE source = 'api' "
	    "ORDER BY name",
	/* its last transition: from its state to asleep, expired */
	[S_API_EXPIRED] = "INSERT INTO transitions (workload, from_state, "
	    "to_state, reason, message, time_ms) SELECT name, "
	    ROW_STATE("") ", "
	    "'asleep', ?2, ?3, ?4 FROM workloads WHERE name = ?1 AND "
	    "source = 'api'",
	[S_API_ARCHIVE] = "INSERT INTO expired_transitions SELECT * FROM "
	    "transitions WHERE workload = ?1",
	/* REPLACE: a uid the parent gives anew is no longer another's */
	[S_UID_PUT] = "INSERT OR REPLACE INTO identities (name, uid, created) "
	    "VALUES (?1, ?2, ?3)",
	[S_UID_LIST] = "SELECT name, uid FROM identities ORDER BY name",
	/* S_RESTORE's columns for every row, then the name */
	[S_RESTORE_ALL] = "SELECT " ROW_STATE("w.") ", w.keep_warm, "
	    "w.last_seen, w.started_at, c.memory, c.memory_estimate, "
	    "w.job_hash, w.keep_warm_until, w.maint, w.maint_until, "
	    "w.maint_message, w.name "
	    "FROM workloads w LEFT JOIN counters c ON c.workload = w.name",
	/* whether the last run left any row to restore */
	[S_ANY_WORKLOAD] = "SELECT 1 FROM workloads LIMIT 1",
};
