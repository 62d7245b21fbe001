/*
 * How many workloads there are, and how many run or failed, for the
 * parent's STATUS= line to systemd.  Counted when something changed,
 * at most once a second (a herd of wakes is one message), and sent only
 * when the numbers differ from the last ones sent.
 */

#include <sys/time.h>

#include <event.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "workload.h"

#define COUNTS_DELAY	1	/* seconds: changes coalesce this long */

static struct event	 counts_ev;
static int		 counts_armed;	/* counts_ev is set */
static struct rt_counts	 counts_sent;
static int		 counts_any;	/* counts_sent holds some */

static void
counts_fire(int fd, short event, void *arg)
{
	struct rt_workload	*wl;
	struct rt_counts	 c;

	memset(&c, 0, sizeof(c));
	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		/* one removed and still stopping is no longer configured */
		if (wl->conf == NULL)
			continue;
		c.workloads++;
		if (wl->state == WL_RUNNING)
			c.running++;
		else if (wl->state == WL_FAILED)
			c.failed++;
	}
	if (counts_any && memcmp(&c, &counts_sent, sizeof(c)) == 0)
		return;
	if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_COUNTS, 0, -1, &c,
	    sizeof(c)) == -1) {
		log_warn("%s: compose", __func__);
		return;
	}
	counts_sent = c;
	counts_any = 1;
}

/* a state or the set of workloads changed: count again soon */
void
counts_changed(void)
{
	struct timeval	 tv = { COUNTS_DELAY, 0 };

	if (!counts_armed) {
		evtimer_set(&counts_ev, counts_fire, NULL);
		counts_armed = 1;
	}
	if (!evtimer_pending(&counts_ev, NULL))
		evtimer_add(&counts_ev, &tv);
}
