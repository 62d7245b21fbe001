/*
 * A configuration's rows, written only where they changed
 * (store_sync.c).
 */

#ifndef STORE_SYNC_H
#define STORE_SYNC_H

#include <stdint.h>

struct cfg_generation;
struct store_db;

int	store_sync(struct store_db *, const struct cfg_generation *, int64_t);
void	store_sync_touched(const char *);
int	store_sync_known(void);

#endif /* STORE_SYNC_H */
