/*
 * /metrics for the memory budget: runtimed keeps the budget, what runs
 * is charged, the wakes that wait and how long they waited, and the
 * suspends by reason, and tells every gateway when they change
 * (IMSG_RT_BUDGET, coalesced to once a second).  The same in every
 * gateway: never summed across them.
 */

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "api.h"
#include "metrics.h"

static struct rt_budget	 mb;
static int		 mb_known;

static const char *const suspend_reasons[SUSPEND_REASONS] = {
	[SUSPEND_IDLE] = "idle",
	[SUSPEND_BUDGET] = "budget",
	[SUSPEND_PRESSURE] = "pressure",
	[SUSPEND_OPERATOR] = "operator"
};

void
metrics_recv_budget(struct imsgev *iev, struct imsg *imsg)
{
	(void)imsg_get_data(imsg, &mb, sizeof(mb));
	mb_known = 1;
}

/* the memory charged and the budget, as runtimed last said (0 before) */
void
metrics_budget_now(int64_t *in_use, int64_t *budget)
{
	*in_use = mb_known ? mb.in_use : 0;
	*budget = mb_known ? mb.budget : 0;
}

void
metrics_budget_write(struct evbuffer *b)
{
	char	 lab[64];
	int	 i;

	if (!mb_known)
		return;
	prom_family(b, "orchd_memory_budget_bytes", "gauge",
	    "The memory budget; 0: none.");
	prom_sample_u64(b, "orchd_memory_budget_bytes", NULL,
	    (uint64_t)mb.budget);
	prom_family(b, "orchd_memory_in_use_bytes", "gauge",
	    "Memory charged to the workloads that run, start or stop: "
	    "each its estimate.");
	prom_sample_u64(b, "orchd_memory_in_use_bytes", NULL,
	    (uint64_t)mb.in_use);
	prom_family(b, "orchd_wakes_starting", "gauge",
	    "Wakes under way: workloads starting.");
	prom_sample_u64(b, "orchd_wakes_starting", NULL, mb.waking);
	prom_family(b, "orchd_wakes_queued", "gauge",
	    "Wakes waiting for room in the budget or for a wake slot.");
	prom_sample_u64(b, "orchd_wakes_queued", NULL, mb.queued);
	prom_family(b, "orchd_wakes_queued_total", "counter",
	    "Wakes that had to wait.");
	prom_sample_u64(b, "orchd_wakes_queued_total", NULL, mb.queued_total);
	prom_family(b, "orchd_wake_queue_timeouts_total", "counter",
	    "Wakes that waited their whole wake timeout: answered 503.");
	prom_sample_u64(b, "orchd_wake_queue_timeouts_total", NULL,
	    mb.queue_timeouts);
	prom_family(b, "orchd_wake_queue_wait_seconds", "histogram",
	    "How long the wakes that had to wait waited.");
	prom_histogram(b, "orchd_wake_queue_wait_seconds", NULL,
	    budget_wait_bounds, mb.wait_hist, BUDGET_WAIT_BOUNDS,
	    mb.wait_sum);
	prom_family(b, "orchd_suspends_total", "counter",
	    "Suspends begun, by reason.");
	for (i = 0; i < SUSPEND_REASONS; i++) {
		(void)snprintf(lab, sizeof(lab), "reason=\"%s\"",
		    suspend_reasons[i]);
		prom_sample_u64(b, "orchd_suspends_total", lab,
		    mb.suspends[i]);
	}
}
