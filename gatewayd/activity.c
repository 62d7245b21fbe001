/*
 * Activity accounting for the reaper: per workload, requests in flight
 * (parked ones included), open tunnels and the last time a request started
 * or ended.  Counting is a few increments on the request path; what
 * changed goes to the reaper in one message per GW_FLUSH_INTERVAL at most,
 * however busy the gateway is, and the same message to runtimed, whose
 * memory budget suspends idle workloads least recently used first.  A
 * workload runtimed wanted to suspend and found busy is told about at
 * once when its last request ends: a wake may be waiting for its room.
 *
 * What is not use is not counted: a request matching an "ignore" rule
 * (ignore.c) never begins here, and a tunnel with no byte either way for
 * its workload's tunnel idle timeout stops counting until its next byte.
 * A connection to a workload's own TCP listener (tcp.c) is such a tunnel
 * from its accept, in flight but not an upgraded one.
 *
 * The last use is a monotonic second (monotime()), as it goes to the
 * reaper and runtimed: idleness is a duration, and a step of the wall
 * clock must neither make a workload just used look idle for an hour
 * nor keep an idle one awake.
 */

#include <sys/queue.h>

#include <event.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"

#define ACTIVITY_PER_MSG	((ORCHD_IMSG_MAXSIZE - IMSG_HEADER_SIZE) / \
				    sizeof(struct gw_activity))

/* the reaper and runtimed get the same batch */
static void
activity_send(const struct gw_activity *batch, size_t n)
{
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_ACTIVITY, 0, -1, batch,
	    n * sizeof(batch[0])) == -1 || proc_compose(gw->ps, PROC_RUNTIME,
	    IMSG_GW_ACTIVITY, 0, -1, batch, n * sizeof(batch[0])) == -1)
		log_warn("%s: compose", __func__);
}

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
			activity_send(batch, n);
			n = 0;
		}
	}
	if (n > 0)
		activity_send(batch, n);
}

void
activity_init(void)
{
	struct timeval	 tv = { GW_FLUSH_INTERVAL, 0 };

	event_set(&gw->flush_ev, -1, EV_PERSIST, activity_flush, NULL);
	evtimer_add(&gw->flush_ev, &tv);
}

static void
activity_dirty(struct gw_workload *wl)
{
	if (!wl->dirty) {
		wl->dirty = 1;
		TAILQ_INSERT_TAIL(&gw->dirty, wl, dirty_entry);
	}
}

/* runtimed asked and it was busy: now it is idle, say so now */
static void
activity_idle_now(struct gw_workload *wl)
{
	struct gw_activity	 act;

	if (!wl->drain_watch || wl->inflight > 0 || wl->upgraded > 0)
		return;
	wl->drain_watch = 0;
	memset(&act, 0, sizeof(act));
	strlcpy(act.name, wl->name, sizeof(act.name));
	act.last_seen = wl->last_seen;
	if (proc_compose(gw->ps, PROC_RUNTIME, IMSG_GW_ACTIVITY, 0, -1, &act,
	    sizeof(act)) == -1)
		log_warn("%s: compose", __func__);
}

void
activity_touch(struct gw_workload *wl)
{
	wl->last_seen = monotime();
	activity_dirty(wl);
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
	/* counted or not, it is no longer in flight to its instance */
	instance_unbind(c);
	if (!c->counted || c->wl == NULL)
		return;
	c->counted = 0;
	c->wl->inflight--;
	if (c->tunnel) {
		c->tunnel = 0;
		c->wl->upgraded--;
	}
	activity_touch(c->wl);
	activity_idle_now(c->wl);
}

/*
 * Bytes went through a tunnel: its idle time starts again, and one that
 * had gone silent counts again (if its workload is being suspended by
 * then, the stop closes it all the same).  A deadline moved, no system
 * call: conn_timer().
 */
void
activity_tunnel(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;

	if (wl == NULL)
		return;
	if (c->tunnel_idle) {
		c->tunnel_idle = 0;
		c->counted = 1;
		wl->inflight++;
		if (c->tcp == NULL) {
			c->tunnel = 1;
			wl->upgraded++;
		}
		activity_touch(wl);
		log_debug("%s: tunnel to %s in use again", c->peer, wl->name);
	}
	if ((c->tunnel || (c->tcp != NULL && c->counted)) &&
	    wl->tunnel_idle > 0)
		conn_timer(c, wl->tunnel_idle);
}

/*
 * No byte either way for the tunnel idle timeout: the tunnel stops
 * counting.  Its workload was last used when that byte went through,
 * a timeout ago, not now: the idle timeout runs from there.
 */
void
activity_tunnel_idle(struct gw_conn *c)
{
	struct gw_workload	*wl = c->wl;
	time_t			 last;

	if (wl == NULL || !c->counted || (!c->tunnel && c->tcp == NULL))
		return;
	if (c->tunnel)
		wl->upgraded--;
	c->counted = c->tunnel = 0;
	c->tunnel_idle = 1;
	wl->inflight--;
	last = monotime() - wl->tunnel_idle;
	if (last > wl->last_seen)
		wl->last_seen = last;
	activity_dirty(wl);
	activity_idle_now(wl);
	log_debug("%s: tunnel to %s silent for %llds, no longer use", c->peer,
	    wl->name, (long long)wl->tunnel_idle);
}
