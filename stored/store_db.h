/*
 * The store's database: orchd's persistent memory of its workloads.
 * Plain sqlite, no imsg and no event loop, so that it can be tested on
 * its own; stored/store.c wires it to the other processes.
 *
 * Times: *_ms are wall clock milliseconds, the rest wall clock seconds.
 * Functions that write return 0 on success and -1 on a database error,
 * whose text store_db_error() gives; store_db_broken() then says whether
 * the file itself has gone bad (corrupt, unreadable, unwritable), after
 * which nothing more should be attempted.
 */

#ifndef ORCHD_STORE_DB_H
#define ORCHD_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "workload.h"

#define STORE_HISTORY_MAX	100	/* transitions kept per workload */
#define STORE_BUSY_MS		5000	/* for a lock held elsewhere */

struct store_db;

typedef int	(*store_workload_cb)(const struct ctl_workload *, void *);
typedef int	(*store_history_cb)(const struct ctl_transition *, void *);
typedef int	(*store_stats_cb)(const struct ctl_stats *, void *);

/*
 * Opens or creates the database at path, checks it, brings its schema up
 * to date.  A file that is not a database, is corrupt, cannot be written
 * or has a newer schema is refused, untouched: NULL, and err says why
 * (without the file name, which the caller knows).
 */
struct store_db	*store_db_open(const char *, char *, size_t);
void		 store_db_close(struct store_db *);
const char	*store_db_error(const struct store_db *);
int		 store_db_broken(const struct store_db *);
void		 store_db_shrink(struct store_db *);
/*
 * Where the open file is: still at its path, gone from it, or another
 * file there (or the path cannot be looked at).  Copy writes the open
 * database, whole, into a new file at a path that must not exist.
 */
enum store_db_where {
	STORE_DB_HERE,
	STORE_DB_GONE,
	STORE_DB_REPLACED,
	STORE_DB_UNKNOWN
};
enum store_db_where store_db_moved(const struct store_db *);
int		 store_db_copy(struct store_db *, const char *, char *,
		    size_t);
/* the schema version this code writes */
int		 store_db_version(void);
/* store_schema.c: the SQL that takes a database from version to + 1 */
const char	*store_schema_step(int);

/* the configured workloads: a new generation's list, at now_ms */
int		 store_db_sync(struct store_db *,
		    const struct workloadlist *, int64_t);
/* only what changed since it: nput rows written, ndrop removed */
int		 store_db_sync_delta(struct store_db *,
		    const struct workload_conf *const *, size_t,
		    const char *const *, size_t, int64_t);

/* a change of state; 1: recorded, 0: no such workload, -1: error */
int		 store_db_state(struct store_db *, const struct rt_state *);

int		 store_db_lastseen(struct store_db *,
		    const struct reap_lastseen *, size_t);
int		 store_db_keepwarm(struct store_db *, const char *, int,
		    int64_t);
int		 store_db_job(struct store_db *, const char *, uint64_t);
int		 store_db_maint(struct store_db *, const char *,
		    const struct wl_maint *);
int		 store_db_memory(struct store_db *, const char *, int64_t,
		    int64_t);

/*
 * Queries call fn once per item; fn returning -1 stops them.  They
 * return -1 on a database error, else the number of items.  Workloads:
 * name "" for all.  History: the last max transitions, oldest first.
 * Stats: one per workload, then the total named "", the stretch under
 * way counted up to now_ms.
 */
int		 store_db_workloads(struct store_db *, const char *,
		    store_workload_cb, void *);
int		 store_db_workloads_page(struct store_db *, const char *,
		    uint32_t, store_workload_cb, void *);
int		 store_db_history(struct store_db *, const char *, size_t,
		    store_history_cb, void *);
int		 store_db_stats(struct store_db *, int64_t, store_stats_cb,
		    void *);

/*
 * The API's workloads: put inserts or replaces one (source "api"), drop
 * removes one with its history (1, or 0 when there was none), list calls
 * fn with each definition as JSON text.
 */
typedef int	(*store_definition_cb)(const char *, size_t, void *);
int		 store_db_api_put(struct store_db *,
		    const struct workload_conf *, int64_t);
int		 store_db_api_drop(struct store_db *, const char *);
int		 store_db_api_expire(struct store_db *, const char *,
		    const char *, int64_t);
int		 store_db_api_list(struct store_db *, store_definition_cb,
		    void *);

/*
 * The API's writes commit with PRAGMA synchronous FULL, the rest with
 * NORMAL: the level now, and for the tests a function called inside
 * each such transaction (NULL otherwise).
 */
int		 store_db_synchronous(struct store_db *);
extern void	(*store_db_tx_hook)(struct store_db *);

/*
 * The uids of process workloads (orchd/identity.c): put records one,
 * replacing the name's and any other name's row with that uid; list
 * calls fn with each name and uid.
 */
typedef int	(*store_uid_cb)(const char *, uint32_t, void *);
int		 store_db_uid_put(struct store_db *, const char *, uint32_t);
int		 store_db_uid_list(struct store_db *, store_uid_cb, void *);

/* what runtimed needs at start; 1: found, 0: no such workload, -1 */
int		 store_db_restore(struct store_db *, const char *,
		    struct st_restore *);
/* the same of every row, in one scan; 0, or -1 */
typedef void	(*store_restore_cb)(const struct st_restore *, void *);
int		 store_db_any_workload(struct store_db *);
int		 store_db_restore_all(struct store_db *, store_restore_cb,
		    void *);

#endif /* ORCHD_STORE_DB_H */
