/*
 * A workload's references: the connections and upstreams that use it.
 * A workload a reload removed lives on until the last of them lets go,
 * then what the other files keep for it goes with it.  Above route.c's
 * lookups, which instance.c and metrics.c use, and below conn.c.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "schedule.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "gatecheck.h"
#include "metrics.h"

void
gw_workload_ref(struct gw_workload *wl)
{
	wl->refs++;
}

void
gw_workload_free_if_unused(struct gw_workload *wl)
{
	if (wl->configured || wl->refs > 0 || wl->nparked > 0)
		return;
	if (wl->dirty)
		TAILQ_REMOVE(&gw->dirty, wl, dirty_entry);
	timer_disarm(&wl->wake_timer);
	timer_disarm(&wl->herd_timer);
	ignore_forget(wl);
	gate_forget(wl);
	metrics_workload_free(wl);
	instance_free(wl);
	sched_plan_free(wl->sched);
	free(wl->maint);
	free(wl);
}

void
gw_workload_unref(struct gw_workload *wl)
{
	if (wl->refs == 0)
		fatalx("%s: %s: no reference", __func__, wl->name);
	wl->refs--;
	gw_workload_free_if_unused(wl);
}
