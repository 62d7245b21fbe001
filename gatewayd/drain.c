/*
 * runtimed asks, before it suspends a workload, whether the gateway has
 * it idle (IMSG_GW_DRAIN): nothing in flight, upgraded or parked.  Then
 * the workload is suspending as far as the gateway goes, and the
 * connections of its TCP listeners that no longer count (tcp.c) close;
 * else activity.c says when it is idle.  Not wake.c's, which is below
 * tcp.c: this names tcp.c.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

void
wake_recv_drain(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_ref		 ref;
	struct gw_drained	 dr;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	memset(&dr, 0, sizeof(dr));
	strlcpy(dr.name, ref.name, sizeof(dr.name));
	if ((wl = gw_workload_find(ref.name)) != NULL && wl->inflight == 0 &&
	    wl->upgraded == 0 && wl->nparked == 0) {
		dr.idle = 1;
		if (wl->state == WL_RUNNING)
			instance_epoch(wl);
		metrics_state(wl, WL_SUSPENDING, RT_REASON_IDLE, 0);
		wl->state = WL_SUSPENDING;
		tcp_drain(wl);
	} else if (wl != NULL)
		wl->drain_watch = 1;	/* activity.c says when it is idle */
	if (imsgev_compose(iev, IMSG_GW_DRAINED, 0, -1, &dr, sizeof(dr)) == -1)
		log_warn("%s: compose", __func__);
}
