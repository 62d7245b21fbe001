/*
 * A workload's definition as the gateway keeps it.  The gateway holds
 * one for each workload, asleep or not, and reads most of them only to
 * answer the API: a struct workload_conf is some 700 bytes whatever it
 * sets, which at 100,000 workloads is 70 MB in this one process.  So a
 * definition is kept in full only if the request path reads it, or if
 * what the gateway builds from it points into it (a route's path, the
 * gate's auth URL, the schedules' texts, the ignores); any other is kept
 * in its small form (common/workload_zip.c), some 100 bytes, and read
 * back when the API asks.  The few settings the request path reads of
 * every workload are copied into struct gw_workload here.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>

#include "log.h"
#include "workload.h"
#include "workload_zip.h"
#include "gateway.h"

/* 1 if the request path, or what route_apply() builds, reads wc itself */
static int
wldef_needed(const struct workload_conf *wc)
{
	return (!TAILQ_EMPTY(&wc->access) || wc->auth_basic != NULL ||
	    wc->auth_request != NULL || wc->path != NULL ||
	    !TAILQ_EMPTY(&wc->error_pages) || !TAILQ_EMPTY(&wc->ignores) ||
	    !TAILQ_EMPTY(&wc->warm_windows) || !TAILQ_EMPTY(&wc->wake_at) ||
	    !TAILQ_EMPTY(&wc->group_windows) ||
	    !TAILQ_EMPTY(&wc->group_wakes) || !TAILQ_EMPTY(&wc->zones));
}

/* wc, the generation's, for wl: kept in full or small, with its flags */
void
wldef_keep(struct gw_workload *wl, const struct workload_conf *wc)
{
	wldef_forget(wl);
	if (wldef_needed(wc)) {
		if ((wl->def = workload_pack(wc)) == NULL)
			fatal("%s", __func__);
	} else if ((wl->zip = workload_zip(wc)) == NULL)
		fatal("%s", __func__);
	wl->h2c = wc->upstream_h2c != 0;
	wl->redirect_https = wc->redirect_https != 0;
	wl->swarm = wc->driver == DRIVER_SWARM;
	wl->listens = !TAILQ_EMPTY(&wc->listens);
	wl->grouped = wc->group != NULL;
}

void
wldef_forget(struct gw_workload *wl)
{
	workload_free(wl->def);
	wl->def = NULL;
	free(wl->zip);
	wl->zip = NULL;
	wl->h2c = wl->redirect_https = wl->swarm = wl->listens = 0;
	wl->grouped = 0;
}

/*
 * wl's definition, to read and give back with wldef_put(): NULL if it
 * has none (removed by a reload), or if memory ran out.
 */
struct workload_conf *
wldef_get(const struct gw_workload *wl)
{
	if (wl->def != NULL)
		return (wl->def);
	if (wl->zip == NULL)
		return (NULL);
	return (workload_unzip(wl->zip));
}

void
wldef_put(const struct gw_workload *wl, struct workload_conf *wc)
{
	if (wc != NULL && wc != wl->def)
		workload_free(wc);
}
