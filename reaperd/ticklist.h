/*
 * The lists the reaper's tick walks instead of every workload
 * (ticklist.c).
 */

#ifndef ORCHD_TICKLIST_H
#define ORCHD_TICKLIST_H

#include <stddef.h>

struct reap_wl;

struct ticklist {
	struct reap_wl	**wl;
	size_t		  n;
	size_t		  cap;
};

extern struct ticklist	 tick_up, tick_used, tick_expiring;

void	tick_up_sync(struct reap_wl *);
void	tick_used_mark(struct reap_wl *);
void	tick_used_clear(void);
void	tick_forget(struct reap_wl *);
void	tick_expiring_reset(void);
void	tick_expiring_add(struct reap_wl *);
void	tick_expiring_drop(struct reap_wl *);

#endif /* ORCHD_TICKLIST_H */
