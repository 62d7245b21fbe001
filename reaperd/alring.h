/*
 * The last access-log lines of each workload, for every gateway: see
 * alring.c.
 */

#ifndef ORCHD_REAPER_ALRING_H
#define ORCHD_REAPER_ALRING_H

#include <sys/queue.h>
#include <sys/tree.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define ALRING_PER_WL	ALOG_ASK_MAX		/* lines of one workload */
#define ALRING_BYTES	(4 * 1024 * 1024)	/* of them all, overhead in */

struct alring_wl;

struct alring_line {
	TAILQ_ENTRY(alring_line) wl_entry;	/* its workload's, oldest 1st */
	TAILQ_ENTRY(alring_line) all_entry;	/* every one, oldest first */
	struct alring_wl	*wl;
	int64_t			 start_ms;	/* its order in its workload's */
	size_t			 len;
	char			 text[];
};
TAILQ_HEAD(alring_lines, alring_line);

struct alring_wl {
	RB_ENTRY(alring_wl)	 entry;
	struct alring_lines	 lines;
	size_t			 n;
	char			 name[ORCHD_NAME_MAX];
};
RB_HEAD(alring_tree, alring_wl);

struct alring {
	struct alring_tree	 tree;
	struct alring_lines	 all;
	size_t			 bytes;		/* lines and workloads */
	size_t			 lines;
	uint64_t		 dropped;	/* evicted for the total */
};

void	 alring_init(struct alring *);
int	 alring_add(struct alring *, const char *, int64_t, const char *,
	    size_t);
size_t	 alring_get(struct alring *, const char *, size_t,
	    const struct alring_line **, size_t);
void	 alring_forget(struct alring *, const char *);

#endif /* ORCHD_REAPER_ALRING_H */
