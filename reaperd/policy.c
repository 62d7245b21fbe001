/*
 * The suspend decision, kept apart from any I/O so it can be tested.
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
	if (wl->inflight > 0 || wl->upgraded > 0)
		return (0);
	return (now - wl->last_seen >= wl->idle_timeout);
}
