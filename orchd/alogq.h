/*
 * The access log's lines on their way to the file (orchd/alogq.c): held
 * in order in memory while the file refuses them (a full disk), written
 * again later, bounded.  No event loop and no file here: logfiles.c
 * gives the function that writes, and the timer that retries; the unit
 * tests drive it.
 */

#ifndef ORCHD_ALOGQ_H
#define ORCHD_ALOGQ_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stddef.h>

#include "msg.h"

#define ALOGQ_CHUNK	(64 * 1024)	/* a piece of the queue, bytes */

struct alogq_chunk {
	TAILQ_ENTRY(alogq_chunk) entry;
	size_t			 off;		/* written already */
	size_t			 len;		/* filled */
	char			 data[ALOGQ_CHUNK];
};

struct alogq {
	TAILQ_HEAD(alogq_chunks, alogq_chunk) chunks;	/* oldest first */
	size_t			 max;	/* bytes held at most */
	int			 held;	/* a write was refused, and the queue
					   did not empty since */
	int			 open;	/* it ends inside a line */
	int			 skip;	/* a line's start was dropped: its
					   rest is too */
	struct alog_queue_stats	 stats;	/* lines, bytes: now */
};

/*
 * Writes at most len bytes: the number written (at least 1), or -1 with
 * errno set.
 */
typedef ssize_t	(*alogq_write_fn)(const char *, size_t, void *);

void		 alogq_init(struct alogq *, size_t);
int		 alogq_empty(const struct alogq *);

/*
 * Takes len bytes of lines, behind those there.  Whole lines that do
 * not fit under the cap are dropped, the newest: the number of lines
 * dropped (a line cut by the cap counts, and the rest of it is dropped
 * when it comes).
 */
size_t		 alogq_add(struct alogq *, const char *, size_t);

/*
 * Writes what is held, oldest first, until all of it is written (0) or
 * a write fails (-1, errno set): what was written is gone, whatever
 * part of a line, and the rest stays, held from then on.
 */
int		 alogq_flush(struct alogq *, alogq_write_fn, void *);

/* drops all of it, counted: the number of lines (a line begun counts) */
size_t		 alogq_clear(struct alogq *);

#endif /* ORCHD_ALOGQ_H */
