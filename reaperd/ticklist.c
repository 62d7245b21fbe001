/*
 * What the reaper's tick looks at, so that its cost follows the workloads
 * in use and not all of them (100,000 may be configured, nearly all
 * asleep):
 *
 *	up	waking, running or stopping (reaper_is_up): only these can
 *		be due for a suspend, hold up what they depend on, or have
 *		requests and tunnels in flight;
 *	used	a request since the last tick: the last use goes to the
 *		store, and to a swarm service's label;
 *	expiring  the API's workloads with an "expire after", which may be
 *		due whether used or not: rebuilt at each configuration.
 *
 * Each is an array of pointers.  A workload knows its place in up
 * (up_idx), so it leaves in constant time; used is emptied by each tick;
 * expiring is made anew by reaper_apply, or a delta's changed ones
 * taken out and put back.  Each costs a workload nothing
 * while it is in none of them but four bytes and a flag.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>

#include "compat.h"
#include "log.h"
#include "reaper.h"
#include "ticklist.h"

struct ticklist	 tick_up, tick_used, tick_expiring;

static void
tl_push(struct ticklist *tl, struct reap_wl *wl)
{
	struct reap_wl	**a;
	size_t		  cap;

	if (tl->n == tl->cap) {
		cap = tl->cap > 0 ? tl->cap * 2 : 64;
		if ((a = reallocarray(tl->wl, cap, sizeof(*a))) == NULL)
			fatal("%s", __func__);
		tl->wl = a;
		tl->cap = cap;
	}
	tl->wl[tl->n++] = wl;
}

/* wl's state changed: in up or out of it, as reaper_is_up says */
void
tick_up_sync(struct reap_wl *wl)
{
	struct reap_wl	*last;

	if (reaper_is_up(wl->state)) {
		if (wl->up_idx >= 0)
			return;
		if (tick_up.n >= INT32_MAX)
			fatalx("%s: too many", __func__);
		wl->up_idx = (int32_t)tick_up.n;
		tl_push(&tick_up, wl);
		return;
	}
	if (wl->up_idx < 0)
		return;
	last = tick_up.wl[--tick_up.n];
	tick_up.wl[wl->up_idx] = last;
	last->up_idx = wl->up_idx;
	wl->up_idx = -1;
}

/* a request for wl since the last tick */
void
tick_used_mark(struct reap_wl *wl)
{
	if (wl->used_marked)
		return;
	wl->used_marked = 1;
	tl_push(&tick_used, wl);
}

/* the tick has seen them all */
void
tick_used_clear(void)
{
	size_t	 i;

	for (i = 0; i < tick_used.n; i++)
		tick_used.wl[i]->used_marked = 0;
	tick_used.n = 0;
}

/* wl is about to be freed: in no list any more */
void
tick_forget(struct reap_wl *wl)
{
	size_t	 i;

	wl->state = WL_ASLEEP;
	tick_up_sync(wl);
	if (wl->used_marked) {
		for (i = 0; i < tick_used.n; i++)
			if (tick_used.wl[i] == wl) {
				tick_used.wl[i] = tick_used.wl[--tick_used.n];
				break;
			}
		wl->used_marked = 0;
	}
}

/* a new configuration: expiring is made again, from empty */
void
tick_expiring_reset(void)
{
	tick_expiring.n = 0;
}

void
tick_expiring_add(struct reap_wl *wl)
{
	tl_push(&tick_expiring, wl);
}

/*
 * A delta replaced or removed wl: out of expiring, where it is once at
 * most.  A scan: a delta changes few, and only API workloads expire.
 */
void
tick_expiring_drop(struct reap_wl *wl)
{
	size_t	 i;

	for (i = 0; i < tick_expiring.n; i++)
		if (tick_expiring.wl[i] == wl) {
			tick_expiring.wl[i] =
			    tick_expiring.wl[--tick_expiring.n];
			return;
		}
}
