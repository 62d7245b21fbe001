/*
 * The store's statements by name (store_sql.c has their SQL), as
 * store_db.c prepares and runs them.
 */

#ifndef ORCHD_STORE_SQL_H
#define ORCHD_STORE_SQL_H

enum stmt_id {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_SYNC_CLEAR,
	S_SYNC_MARK,
	S_SYNC_UPSERT,
	S_SYNC_COUNTERS,
	S_SYNC_SWEEP,
	S_SYNC_DROP,
	S_STATE_GET,
	S_STATE_SET,
	S_TRANS_ADD,
	S_TRANS_TRIM,
	S_COUNT_ADD,
	S_LASTSEEN,
	S_KEEPWARM,
	S_MEMORY,
	S_JOB,
	S_WORKLOADS,
	S_HISTORY,
	S_STATS,
	S_WAKE_SUMMARY,
	S_WAKE_SUMMARY_ALL,
	S_WAKE_NTH,
	S_WAKE_NTH_ALL,
	S_RESTORE,
	S_API_DROP,
	S_API_LIST,
	S_API_EXPIRED,
	S_API_ARCHIVE,
	S_UID_PUT,
	S_UID_LIST,
	S_MAINT,
	S_WORKLOAD_PAGE,
	S_RESTORE_ALL,
	S_MAX
};

extern const char *const stmt_sql[S_MAX];

#endif /* ORCHD_STORE_SQL_H */
