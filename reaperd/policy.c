/*
 * The suspend decision, kept apart from any I/O so it can be tested: when
 * a workload is idle, and how "depends on" keeps a workload up for those
 * that depend on it.
 */

#include "reaper.h"

/*
 * A workload is suspended when it runs, is not kept warm, has an idle
 * timeout, has been idle that long, and has nothing in flight: no request
 * being proxied or parked, no open tunnel.  A streaming answer is a
 * request in flight until its last byte.
 */
int
reaper_due(const struct reap_wl *wl, time_t now)
{
	if (wl->state != WL_RUNNING || wl->keep_warm || wl->idle_timeout <= 0)
		return (0);
	if (wl->held)
		return (0);
	if (wl->inflight > 0 || wl->upgraded > 0)
		return (0);
	return (now - wl->last_seen >= wl->idle_timeout);
}

static int
is_up(enum workload_state state)
{
	return (state == WL_WAKING || state == WL_RUNNING ||
	    state == WL_SUSPENDING);
}

/*
 * runtimed says wl is in state since then.  A fresh start gets its whole
 * idle timeout, request or not; and when wl goes down, what it depends
 * on starts its idle time then, unless its own last use is later: the
 * last of those that depend on it to sleep sets it.
 */
void
reaper_state(struct reap_wl *wl, enum workload_state state, time_t since)
{
	uint32_t	 i;

	if (state == WL_RUNNING && wl->state != WL_RUNNING &&
	    since > wl->last_seen)
		wl->last_seen = since;
	if (is_up(wl->state) && !is_up(state))
		for (i = 0; i < wl->ndeps; i++)
			if (since > wl->deps[i]->last_seen)
				wl->deps[i]->last_seen = since;
	wl->state = state;
}

/*
 * Before each round: wl, if up (waking, running, stopping), holds up
 * what it depends on.  held is cleared for all first.
 */
void
reaper_hold(const struct reap_wl *wl)
{
	uint32_t	 i;

	if (!is_up(wl->state))
		return;
	for (i = 0; i < wl->ndeps; i++)
		wl->deps[i]->held = 1;
}
