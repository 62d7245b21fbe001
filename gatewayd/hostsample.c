/*
 * A minute of the host, told the reaper (reaperd/hosthist.c), which
 * keeps the last day for GET /v1/host/history and the status page's
 * charts: the requests this gateway answered and the wakes it saw since
 * the last minute, and the memory charged and the budget now.  Counted
 * from what /metrics counts already (metrics_totals()), once a minute:
 * nothing on the request path.  A count that went down (a workload
 * removed took its counters) is a minute of none, not a negative one.
 * With "prefork N" every gateway tells its requests, but only the first
 * the wakes and the memory, which all hear of alike: their minutes do
 * not begin together, and a wake told by two in different minutes
 * would count twice.
 */

#include <sys/types.h>
#include <sys/time.h>

#include <event.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"
#include "metrics.h"

#define HOSTSAMPLE_SECS	60

static struct event	 hs_ev;
static uint64_t		 hs_requests, hs_wakes;	/* at the last minute */
static int		 hs_started;

static void
hostsample_fire(int fd, short event, void *arg)
{
	struct host_sample	 s;
	uint64_t		 req, wakes;

	memset(&s, 0, sizeof(s));
	s.minute = walltime_ms() / 1000 / 60;
	metrics_totals(&req, &wakes);
	s.requests = req >= hs_requests ? req - hs_requests : 0;
	s.wakes = wakes >= hs_wakes ? wakes - hs_wakes : 0;
	hs_requests = req;
	hs_wakes = wakes;
	metrics_budget_now(&s.in_use, &s.budget);
	if (gw->ps->instance != 0) {
		s.wakes = 0;
		s.in_use = s.budget = 0;
	}
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_HOSTSAMPLE, 0, -1, &s,
	    sizeof(s)) == -1)
		log_warn("%s: compose", __func__);
}

/* from the first configuration: a minute at a time from then */
void
hostsample_start(void)
{
	struct timeval	 tv = { HOSTSAMPLE_SECS, 0 };

	if (hs_started)
		return;
	hs_started = 1;
	metrics_totals(&hs_requests, &hs_wakes);
	event_set(&hs_ev, -1, EV_PERSIST, hostsample_fire, NULL);
	evtimer_add(&hs_ev, &tv);
}
