/*
 * The database removed or replaced under the store: written again from
 * the open file into a new one at its path (stored/store_moved.c).
 */

#ifndef ORCHD_STORE_MOVED_H
#define ORCHD_STORE_MOVED_H

#include <stdint.h>

#include "store_db.h"

/* the database at path (name in the logs), looked at when (for them) */
void	store_moved_check(struct store_db **, const char *, const char *,
	    const char *);
/* how long after a copy that failed it is tried again (tests: 0) */
extern int64_t	store_moved_retry_ms;

#endif /* ORCHD_STORE_MOVED_H */
