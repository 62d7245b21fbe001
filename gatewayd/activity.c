/*
 * Activity accounting for the reaper: per workload, requests in flight
 * (parked ones included), open tunnels and the last time a request started
 * or ended.  Counting is a few increments on the request path; what
 * changed goes to the reaper in one message per GW_FLUSH_INTERVAL at most,
 * however busy the gateway is.
 */

#include <string.h>
#include <time.h>

#include "log.h"
#include "gateway.h"

#define ACTIVITY_PER_MSG	((ORCHD_IMSG_MAXSIZE - IMSG_HEADER_SIZE) / \
				    sizeof(struct gw_activity))

static void
activity_flush(int fd, short event, void *arg)
{
	static struct gw_activity	 batch[ACTIVITY_PER_MSG];
	struct gw_workload		*wl;
	size_t				 n = 0;

	while ((wl = TAILQ_FIRST(&gw->dirty)) != NULL) {
		TAILQ_REMOVE(&gw->dirty, wl, dirty_entry);
		wl->dirty = 0;
		memset(&batch[n], 0, sizeof(batch[n]));
		strlcpy(batch[n].name, wl->name, sizeof(batch[n].name));
		batch[n].last_seen = wl->last_seen;
		batch[n].inflight = wl->inflight;
		batch[n].upgraded = wl->upgraded;
		if (++n == nitems(batch)) {
			proc_compose(gw->ps, PROC_REAPER, IMSG_GW_ACTIVITY, 0,
			    -1, batch, n * sizeof(batch[0]));
			n = 0;
		}
	}
	if (n > 0 && proc_compose(gw->ps, PROC_REAPER, IMSG_GW_ACTIVITY, 0,
	    -1, batch, n * sizeof(batch[0])) == -1)
		log_warn("%s: compose", __func__);
}

void
activity_init(void)
{
	struct timeval	 tv = { GW_FLUSH_INTERVAL, 0 };

	event_set(&gw->flush_ev, -1, EV_PERSIST, activity_flush, NULL);
	evtimer_add(&gw->flush_ev, &tv);
}

void
activity_touch(struct gw_workload *wl)
{
	wl->last_seen = time(NULL);
	if (!wl->dirty) {
		wl->dirty = 1;
		TAILQ_INSERT_TAIL(&gw->dirty, wl, dirty_entry);
	}
}

void
activity_begin(struct gw_conn *c)
{
	/* its answer is counted for /metrics (metrics_status) */
	c->routed = 1;
	if (c->counted || c->wl == NULL)
		return;
	c->counted = 1;
	c->wl->inflight++;
	activity_touch(c->wl);
}

void
activity_end(struct gw_conn *c)
{
	if (!c->counted || c->wl == NULL)
		return;
	c->counted = 0;
	c->wl->inflight--;
	if (c->tunnel) {
		c->tunnel = 0;
		c->wl->upgraded--;
	}
	activity_touch(c->wl);
}
