/*
 * Wrong API keys counted per client address for every gateway at once
 * (reaperd/authlim.c): the table, with no I/O, so that it can be tested
 * alone (regress/unit/test_authlim.c).
 */

#ifndef ORCHD_REAPER_AUTHLIM_H
#define ORCHD_REAPER_AUTHLIM_H

#include <sys/queue.h>
#include <sys/tree.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define AUTHLIM_CAP		10	/* wrong keys per address per window */
#define AUTHLIM_WINDOW_MS	(60 * 1000)
#define AUTHLIM_MAX		2048	/* addresses remembered, LRU */
#define AUTHLIM_KEYLEN		9	/* 4 or 6, then the address or /64 */

struct authlim_entry {
	RB_ENTRY(authlim_entry)	 entry;		/* by key */
	TAILQ_ENTRY(authlim_entry) lru;		/* most recent first */
	uint8_t			 key[AUTHLIM_KEYLEN];
	uint32_t		 fails;		/* in this window */
	int64_t			 start_ms;	/* the window's start */
};
RB_HEAD(authlim_tree, authlim_entry);
TAILQ_HEAD(authlim_lru, authlim_entry);

struct authlim {
	struct authlim_tree	 tree;
	struct authlim_lru	 lru;
	size_t			 n;		/* slots used */
	struct authlim_entry	 slot[AUTHLIM_MAX];
};

void	 authlim_init(struct authlim *);
int	 authlim_prefix(const struct netaddr *, uint8_t *);
int64_t	 authlim_fail(struct authlim *, const struct netaddr *, int64_t);
size_t	 authlim_entries(const struct authlim *);

#endif /* ORCHD_REAPER_AUTHLIM_H */
