/*
 * Keep warm until a time: POST .../keepwarm {"enabled": true, "until":
 * TIME} keeps a workload warm, then at TIME keep warm turns off by
 * itself, as {"enabled": false} would, and the workload idles as any
 * other.  The time is kept by the store with the override, so that it
 * lapses after a restart of orchd too (at once, if it passed while
 * orchd was down).
 *
 * One timer for all: set to the earliest time of any workload, and
 * never further than WARM_RECHECK ahead, so that a step of the wall
 * clock is seen within that long.
 */

#include <sys/time.h>

#include <event.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "workload.h"
#include "lifecycle_events.h"

#define WARM_RECHECK	3600	/* seconds: the wall clock asked again */

static struct event	 warm_ev;
static int		 warm_set;	/* warm_ev is set */

static void	warm_fire(int, short, void *);

/* keep warm off, told as a command would tell it */
static void
warm_lapse(struct rt_workload *wl)
{
	struct ctl_keepwarm	 kw;

	log_info("workload %s: keep warm lapsed", wl->name);
	wl->keep_warm = 0;
	wl->keep_warm_until = 0;
	memset(&kw, 0, sizeof(kw));
	strlcpy(kw.name, wl->name, sizeof(kw.name));
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_KEEPWARM, 0, -1, &kw,
	    sizeof(kw)) == -1)
		log_warn("%s: compose", __func__);
	lifecycle->keep_warm_send(wl);
}

/* the timer, to the earliest time of any workload (or none) */
void
warm_until_arm(void)
{
	struct rt_workload	*wl;
	struct timeval		 tv;
	int64_t			 first = 0, now = time(NULL);

	if (!warm_set) {
		evtimer_set(&warm_ev, warm_fire, NULL);
		warm_set = 1;
	}
	evtimer_del(&warm_ev);
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->keep_warm == 1 && wl->keep_warm_until > 0 &&
		    (first == 0 || wl->keep_warm_until < first))
			first = wl->keep_warm_until;
	if (first == 0)
		return;
	memset(&tv, 0, sizeof(tv));
	if (first > now)
		tv.tv_sec = first - now > WARM_RECHECK ? WARM_RECHECK :
		    first - now;
	evtimer_add(&warm_ev, &tv);
}

static void
warm_fire(int fd, short event, void *arg)
{
	struct rt_workload	*wl;
	int64_t			 now = time(NULL);

	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->keep_warm == 1 && wl->keep_warm_until > 0 &&
		    wl->keep_warm_until <= now)
			warm_lapse(wl);
	warm_until_arm();
}

/*
 * until: when keep warm of wl lapses (wall clock, s; 0 never), as the
 * gateway checked it; one past lapses at once, one further than
 * KEEPWARM_UNTIL_MAX is brought to it.
 */
void
warm_until_set(struct rt_workload *wl, int64_t until)
{
	int64_t	 max = (int64_t)time(NULL) + KEEPWARM_UNTIL_MAX;

	if (wl->keep_warm != 1 || until < 0)
		until = 0;
	wl->keep_warm_until = until > max ? max : until;
	warm_until_arm();
}
