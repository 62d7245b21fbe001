/*
 * The database removed or replaced under the store: written again from
 * the open file into a new one at its path (stored/store_moved.c).
 */

#ifndef ORCHD_STORE_MOVED_H
#define ORCHD_STORE_MOVED_H

#include "store_db.h"

/* the database at path (name in the logs), looked at when (for them) */
void	store_moved_check(struct store_db **, const char *, const char *,
	    const char *);

#endif /* ORCHD_STORE_MOVED_H */
