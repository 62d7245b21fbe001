/*
 * The store's writes that the database refused (its disk full, most
 * often), held in order in memory and written again later, so that the
 * database catches up once it can be written.  No sqlite, no imsg and
 * no event loop here: the store (stored/store.c) gives the function that
 * writes one entry and the timer that retries; the tests drive it.
 *
 * What is held is also what the views overlay on the database's rows,
 * so that orchctl and the API tell the state runtimed reported.
 */

#ifndef ORCHD_STORE_QUEUE_H
#define ORCHD_STORE_QUEUE_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "workload.h"

#define SQ_MAX_ENTRIES	4096		/* writes held at most */
#define SQ_MAX_BYTES	(1024 * 1024)	/* and their size at most */

enum sq_kind {
	SQ_STATE,		/* a change of state: never coalesced */
	SQ_LASTSEEN,		/* the newest per workload */
	SQ_KEEPWARM,		/* the newest per workload */
	SQ_MEMORY,		/* the newest per workload */
	SQ_JOB,			/* the newest per workload */
	SQ_UID,			/* never coalesced: it may take a uid over */
	SQ_MAINT		/* the newest per workload */
};

struct sq_entry {
	TAILQ_ENTRY(sq_entry)	 entry;
	enum sq_kind		 kind;
	size_t			 size;		/* counted against the bytes */
	union {
		struct rt_state		 st;
		struct reap_lastseen	 ls;
		struct ctl_keepwarm	 kw;
		struct rt_memory	 mem;
		struct rt_job		 job;
		struct wl_uid		 uid;
		struct ctl_maint	 maint;
	} u;
};
TAILQ_HEAD(sq_entries, sq_entry);

struct store_queue {
	struct sq_entries	 entries;	/* oldest first */
	size_t			 max_count;
	size_t			 max_bytes;
	struct st_queue_stats	 stats;		/* queued, bytes: now */
	int			 full;		/* drops since it emptied */
};

/*
 * Writes one entry: 0 done (or nothing left to write it to), -1 refused,
 * to be tried again later.
 */
typedef int	(*sq_write_fn)(const struct sq_entry *, void *);

void		 sq_init(struct store_queue *, size_t, size_t);
void		 sq_clear(struct store_queue *);
int		 sq_empty(const struct store_queue *);
/* the name the entry is about */
const char	*sq_name(const struct sq_entry *);

/*
 * Holds a copy of data, a struct of the kind's type, at the tail or
 * over the same workload's older entry of a kind that coalesces.
 * 1: held, 0: coalesced, -1: dropped, the queue is full (the first
 * drop since the queue last emptied sets full).
 */
int		 sq_add(struct store_queue *, enum sq_kind, const void *);

/*
 * Writes the held entries, oldest first, at most max of them, and stops
 * at the first refused: one retry.  The number written.
 */
size_t		 sq_flush(struct store_queue *, sq_write_fn, void *, size_t);

/*
 * The views.  A workload's row as the database has it, then as the held
 * writes will leave it: state, message, start, last request, keep warm
 * and wakes.  Its transitions still held, oldest first, each from the
 * state before it (from: the database's state); fn returning -1 stops
 * them.  The wakes and failed wakes still held, added to a workload's
 * stats (from: its state in the database).
 */
void		 sq_overlay_workload(const struct store_queue *,
		    struct ctl_workload *);
size_t		 sq_transitions(const struct store_queue *, const char *);
int		 sq_history(const struct store_queue *, const char *,
		    enum workload_state, int (*)(const struct ctl_transition *,
		    void *), void *);
void		 sq_overlay_stats(const struct store_queue *,
		    struct ctl_stats *, enum workload_state);

#endif /* ORCHD_STORE_QUEUE_H */
