/*
 * The memory budget, wake admission and memory pressure.
 *
 * Every workload that holds memory (waking, running, being stopped) is
 * charged its estimate: its memory limit, else what it was measured to
 * need, else "memory estimate" (admit.c).  A wake starts only if its own
 * estimate fits in the budget less those charges.  If it does not,
 * workloads that are idle now are suspended, least recently used first,
 * until it fits; if that cannot make room, the wake waits in one queue,
 * first come first served, its requests held by the gateways, until room
 * appears or its wake timeout passes: then its requests are answered 503
 * with Retry-After (the workload did not fail, and stays as it was).
 * "max concurrent wakes" caps the starts under way through the same
 * queue.  With neither a budget nor a cap, a wake starts at once, as it
 * always did.
 *
 * Idle is the gateways' word: they tell runtimed, as they tell the
 * reaper, when each workload was last used and whether anything is in
 * flight (IMSG_GW_ACTIVITY); a workload picked is drained as for any
 * suspend (IMSG_RT_DRAIN), so that one busy after all stays up, is left
 * alone a moment, and the next one is picked.  Never picked: one kept
 * warm (it counts against the budget all the same), one that a workload
 * up (waking, running or being stopped) depends on ("depends on"), one
 * whose busy path said busy (the busy veto, busy.c), which is asked
 * before the suspend as the reaper's suspends ask it.
 *
 * A workload that depends on others is admitted for its own estimate;
 * each of its dependencies that does not run is then woken, and
 * admitted, on its own, so that one that waits holds up its dependents
 * and one that finds no room fails them with why.
 *
 * A workload replaced side by side (replace.c) is charged for both its
 * instances while they run together, and is no candidate meanwhile; one
 * replaced in place stops, and its new start is admitted as any wake.
 *
 * Swarm workloads are outside the budget: their tasks run where the
 * swarm places them, on any of its nodes, so this host's memory is not
 * what they use.  They are not charged, not queued and never suspended
 * for room or pressure.
 *
 * Memory pressure: the reaper reads PSI and, while it is above the
 * limit, asks once a tick; the least recently used idle workload is
 * suspended, ahead of its idle timeout.
 *
 * The estimates: each stop's measure (the Docker driver's, or the
 * parent's for a process) comes here, makes the next estimate and goes
 * to the store with it, which gives both back at the next start.
 */

#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "admit.h"
#include "driver.h"

#define BUDGET_BUSY_MS		1000	/* a busy one is not picked again */
#define BUDGET_RETRY_MS		1000	/* while wakes wait: look again */
#define BUDGET_REPORT_MS	1000	/* to the gateways, coalesced */
#define BUDGET_EVICT_AHEAD	256	/* waiting wakes room is made for */
#define MIB(b)			((long long)(((b) + (1 << 20) - 1) >> 20))

static struct event	 budget_retry_ev;
static struct event	 budget_report_ev;
static int		 budget_running;	/* budget_run under way */
static int		 budget_again;		/* ... and asked again */
static struct rt_budget	 budget_sent;		/* the gateways know */
static int		 budget_sent_any;

static void	budget_run(void);
static void	budget_report_soon(void);

/*
 * What other parts of runtimed decide.  A workload that one up depends
 * on ("depends on") is never suspended for room or for pressure: its
 * suspend would be refused anyway (lifecycle_suspend).
 */
int
budget_is_needed_by_running(const struct rt_workload *wl)
{
	return (lifecycle->dependent_up(wl) != NULL);
}

/*
 * Nor one whose busy path said busy since it was last used (busy.c), or
 * that is being asked now.
 */
int
budget_is_vetoed_busy(const struct rt_workload *wl)
{
	return (wl->busy != NULL || wl->busy_since != 0);
}

/* a swarm service's tasks run on the swarm's nodes, not in this budget */
static int
budget_exempt(const struct rt_workload *wl)
{
	return (wl->drv == &driver_swarm || (wl->conf != NULL &&
	    wl->conf->driver == DRIVER_SWARM));
}

static void
budget_retry(int fd, short event, void *arg)
{
	budget_run();
}

static void	budget_state(struct admit_state *);

static void
budget_fill(struct rt_budget *b)
{
	struct rt_queued	*w;
	struct admit_state	 s;

	*b = rt->stats;
	b->budget = rt->budget;
	b->max_wakes = rt->max_wakes;
	budget_state(&s);
	b->in_use = s.in_use;
	b->waking = (uint32_t)s.waking;
	b->queued = 0;
	TAILQ_FOREACH(w, &rt->queue, entry)
		b->queued++;
}

/* what the gateways show in /metrics, when it changed */
static void
budget_report(int fd, short event, void *arg)
{
	struct rt_budget	 b;

	budget_fill(&b);
	if (budget_sent_any && memcmp(&b, &budget_sent, sizeof(b)) == 0)
		return;
	if (proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_BUDGET, 0, -1, &b,
	    sizeof(b)) == -1) {
		log_warn("%s: compose", __func__);
		return;
	}
	budget_sent = b;
	budget_sent_any = 1;
}

static void
budget_report_soon(void)
{
	if (!evtimer_pending(&budget_report_ev, NULL))
		evtimer_add_ms(&budget_report_ev, BUDGET_REPORT_MS);
}

void
budget_init(void)
{
	TAILQ_INIT(&rt->queue);
	rt->mem_default = ORCHD_MEMORY_ESTIMATE;
	evtimer_set(&budget_retry_ev, budget_retry, NULL);
	evtimer_set(&budget_report_ev, budget_report, NULL);
}

void
budget_apply(const struct global_settings *gs)
{
	int64_t	 est;

	est = gs->memory_estimate > 0 ? gs->memory_estimate :
	    ORCHD_MEMORY_ESTIMATE;
	if (gs->memory_budget != rt->budget || gs->max_wakes !=
	    rt->max_wakes || est != rt->mem_default) {
		if (gs->memory_budget > 0)
			log_info("memory budget %lld MiB, estimate %lld MiB, "
			    "max concurrent wakes %lld",
			    MIB(gs->memory_budget), MIB(est),
			    (long long)gs->max_wakes);
		else
			log_info("no memory budget, max concurrent wakes %lld",
			    (long long)gs->max_wakes);
	}
	rt->budget = gs->memory_budget > 0 ? gs->memory_budget : 0;
	rt->mem_default = est;
	rt->max_wakes = gs->max_wakes > 0 ? gs->max_wakes : 0;
	/* a wake that waits may fit the new budget */
	budget_run();
}

static int
holds_memory(const struct rt_workload *wl)
{
	return (wl->stopping || wl->state == WL_WAKING ||
	    wl->state == WL_RUNNING || wl->state == WL_SUSPENDING ||
	    wl->state == WL_FROZEN);
}

static int64_t
estimate(const struct rt_workload *wl)
{
	return (admit_estimate(wl->conf != NULL ? wl->conf->memory : 0,
	    wl->mem_est, rt->mem_default));
}

/* it starts, or was found running: charged until it is gone */
void
budget_charge(struct rt_workload *wl)
{
	wl->charge = estimate(wl);
}

/* what runs and starts now, over every workload */
static void
budget_state(struct admit_state *s)
{
	struct rt_workload	*wl;

	memset(s, 0, sizeof(*s));
	s->budget = rt->budget;
	s->max_wakes = rt->max_wakes;
	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		if (budget_exempt(wl))
			continue;
		/*
		 * One that waits for its dependencies has not started: its
		 * slot would hold up their wakes, and so its own.
		 */
		if (wl->state == WL_WAKING && !wl->deps_wait)
			s->waking++;
		if (!holds_memory(wl))
			continue;
		if (wl->charge <= 0)
			budget_charge(wl);
		s->in_use += wl->charge;
		/* replaced side by side: its new instance runs beside it */
		if (wl->replace != NULL)
			s->in_use += estimate(wl);
		if (wl->evicting || wl->stopping ||
		    wl->state == WL_SUSPENDING)
			s->freeing += wl->charge;
	}
}

/*
 * its last use: a request, or its start if it had none since; monotonic,
 * so that a step of the wall clock does not reorder the eviction
 */
static time_t
last_used(const struct rt_workload *wl)
{
	return (wl->last_used > wl->since_mono ? wl->last_used :
	    wl->since_mono);
}

/*
 * May wl be suspended now to make room for for_wl (NULL: pressure)?
 * One the gateways said busy may be idle by now: it is a candidate, after
 * the idle ones, and its drain says; one a drain found busy is left alone
 * until the gateway says it is idle, or a moment.
 */
static int
evictable(const struct rt_workload *wl, const struct rt_workload *for_wl,
    int64_t now_ms)
{
	/* frozen: idle by its freeze, first to go (admit.c) */
	if (wl != for_wl && wl->conf != NULL && wl->state == WL_FROZEN &&
	    !wl->stopping && !wl->evicting && !wl->thawing)
		return (!budget_is_needed_by_running(wl));
	if (wl == for_wl || wl->conf == NULL || wl->state != WL_RUNNING ||
	    wl->stopping || wl->draining || wl->evicting || wl->holding ||
	    wl->replace != NULL || budget_exempt(wl))
		return (0);
	if (lifecycle->keep_warm(wl))
		return (0);
	if (wl->busy_ms != 0 && now_ms - wl->busy_ms < BUDGET_BUSY_MS)
		return (0);
	if (budget_is_needed_by_running(wl) || budget_is_vetoed_busy(wl))
		return (0);
	return (1);
}

/* the idle workloads that may be suspended; *cp is for the caller to free */
static size_t
budget_cands(const struct rt_workload *for_wl, struct admit_cand **cp)
{
	struct rt_workload	*wl;
	struct admit_cand	*c;
	int64_t			 now_ms = monotime_ms();
	size_t			 n = 0;

	*cp = NULL;
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (evictable(wl, for_wl, now_ms))
			n++;
	if (n == 0)
		return (0);
	if ((c = calloc(n, sizeof(*c))) == NULL)
		fatal("%s", __func__);
	n = 0;
	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		if (!evictable(wl, for_wl, now_ms))
			continue;
		c[n].wl = wl;
		c[n].charge = wl->charge;
		c[n].last_used = last_used(wl);
		/* what the gateways said a second ago: its drain will tell */
		c[n].busy = wl->inflight != 0;
		c[n].frozen = wl->state == WL_FROZEN;
		c[n].name = wl->name;
		n++;
	}
	*cp = c;
	return (n);
}

/*
 * Too little room for wl, the first wake that waits (shortfall: what is
 * free and being freed leaves it short of, 0 or less if nothing): idle
 * workloads are suspended, least recently used first, for it and for as
 * many of the wakes behind it as they can make room for together
 * (admit.c), so that a burst of wakes waits for their stops side by
 * side, not one after the other.
 */
static void
budget_evict(struct rt_workload *wl, int64_t shortfall)
{
	struct admit_cand	*c;
	struct rt_workload	*v;
	struct rt_queued	*q;
	int64_t			 need[BUDGET_EVICT_AHEAD];
	size_t			 i, k, n, nneed = 0;
	time_t			 now = monotime();

	need[nneed++] = shortfall;
	for (q = TAILQ_NEXT(wl->wait, entry); q != NULL &&
	    nneed < BUDGET_EVICT_AHEAD; q = TAILQ_NEXT(q, entry))
		if (q->wl->conf != NULL)
			need[nneed++] = MINIMUM(estimate(q->wl), rt->budget);
	n = budget_cands(wl, &c);
	if ((k = admit_pick_queue(c, n, need, nneed)) == 0) {
		if (shortfall > 0)
			log_debug("workload %s: waits, %lld MiB short and too "
			    "little is idle", wl->name, MIB(shortfall));
		free(c);
		return;
	}
	for (i = 0; i < k; i++) {
		v = c[i].wl;
		log_info("workload %s: suspending it for room in the memory "
		    "budget: %s waits%s, %zu behind it; last used %llds ago",
		    v->name, wl->name, shortfall > 0 ? "" : " (room is being "
		    "made for it)", nneed - 1,
		    (long long)(now - c[i].last_used));
		/* frozen: stopped at once; else its busy path asked first */
		if (v->state == WL_FROZEN) {
			if (lifecycle->freeze_stop(v, RT_REASON_BUDGET) == 0)
				v->evicting = 1;
		} else if (busy_evict(v, RT_REASON_BUDGET) == 0)
			v->evicting = 1;
	}
	free(c);
}

/* out of the queue: started, timed out, gone or found running */
static void
queue_leave(struct rt_workload *wl)
{
	struct rt_queued	*w = wl->wait;
	double		 secs;

	if (w == NULL)
		return;
	TAILQ_REMOVE(&rt->queue, w, entry);
	timer_disarm(&w->timer);
	if (w->counted) {
		secs = (double)(monotime_ms() - w->since_ms) / 1000.0;
		rt->stats.wait_hist[budget_wait_bucket(secs)]++;
		rt->stats.wait_sum += secs;
		if (secs > rt->stats.wait_max)
			rt->stats.wait_max = secs;
	}
	free(w);
	wl->wait = NULL;
	budget_report_soon();
}

/*
 * The wake timeout passed while it waited: its requests are answered
 * 503 with Retry-After by the gateways, which hear the reason; the
 * workload stays as it was, and so does its history.
 */
static void
queue_timeout(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	struct admit_state	 s;
	int64_t			 shortfall;
	char			 msg[RT_MSG_MAX];

	if (wl->wait == NULL)
		return;
	budget_state(&s);
	if (admit_check(&s, estimate(wl), &shortfall) == ADMIT_SLOT)
		(void)snprintf(msg, sizeof(msg), "no wake slot within %llds "
		    "(max concurrent wakes %lld)",
		    (long long)lifecycle->wake_timeout(wl),
		    (long long)rt->max_wakes);
	else
		(void)snprintf(msg, sizeof(msg), "no room in the memory budget "
		    "within %llds (needs %lld MiB, %lld MiB of %lld MiB free)",
		    (long long)lifecycle->wake_timeout(wl),
		    MIB(estimate(wl)), MIB(s.budget - s.in_use > 0 ?
		    s.budget - s.in_use : 0), MIB(s.budget));
	rt->stats.queue_timeouts++;
	queue_leave(wl);
	log_warnx("workload %s: wake not admitted: %s", wl->name, msg);
	lifecycle->no_room(wl, msg);
	budget_run();
}

/*
 * The queue, first come first served: its head starts as soon as it
 * fits and a wake slot is free; nothing behind it goes first, so that a
 * large workload is not starved by small ones.
 */
static void
budget_run(void)
{
	struct rt_workload	*wl;
	struct rt_queued	*w;
	struct admit_state	 s;
	enum rt_reason		 reason;
	char			 msg[RT_MSG_MAX];
	int64_t			 shortfall;
	enum admit_verdict	 v;

	if (budget_running) {
		budget_again = 1;
		return;
	}
	budget_running = 1;
	do {
		budget_again = 0;
		while ((w = TAILQ_FIRST(&rt->queue)) != NULL) {
			wl = w->wl;
			/* removed by a reload under way: never started */
			if (wl->conf == NULL) {
				queue_leave(wl);
				continue;
			}
			/* a stop not done yet: its wake goes behind it */
			if (wl->stopping) {
				wl->wake_queued = 1;
				wl->wake_reason = w->reason;
				queue_leave(wl);
				continue;
			}
			budget_state(&s);
			v = admit_check(&s, estimate(wl), &shortfall);
			if (v == ADMIT_START) {
				reason = w->reason;
				strlcpy(msg, w->msg, sizeof(msg));
				queue_leave(wl);
				lifecycle->start(wl, reason, msg[0] != '\0' ?
				    msg : NULL);
				continue;
			}
			/* room for it, and for those behind it */
			if (v == ADMIT_EVICT || v == ADMIT_FREEING)
				budget_evict(wl, MINIMUM(estimate(wl),
				    s.budget) - (s.budget - s.in_use) -
				    s.freeing);
			break;
		}
	} while (budget_again);
	budget_running = 0;
	if (TAILQ_EMPTY(&rt->queue))
		evtimer_del(&budget_retry_ev);
	else if (!evtimer_pending(&budget_retry_ev, NULL))
		evtimer_add_ms(&budget_retry_ev, BUDGET_RETRY_MS);
	budget_report_soon();
}

/*
 * A wake of an asleep or failed workload, nothing of it running; msg,
 * if not NULL, for its history.  One whose wake waits already joins it.
 */
void
budget_admit(struct rt_workload *wl, enum rt_reason reason, const char *msg)
{
	struct admit_state	 s;
	struct rt_queued	*w;
	struct timeval		 tv;

	if (wl->wait != NULL)
		return;
	if ((rt->budget == 0 && rt->max_wakes == 0 &&
	    TAILQ_EMPTY(&rt->queue)) || budget_exempt(wl)) {
		lifecycle->start(wl, reason, msg);
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		fatal("%s", __func__);
	w->wl = wl;
	w->reason = reason;
	if (msg != NULL)
		strlcpy(w->msg, msg, sizeof(w->msg));
	w->since_ms = monotime_ms();
	wl->wait = w;
	TAILQ_INSERT_TAIL(&rt->queue, w, entry);
	timerclear(&tv);
	tv.tv_sec = lifecycle->wake_timeout(wl);
	timer_arm(&w->timer, queue_timeout, wl, &tv);
	budget_run();
	if ((w = wl->wait) == NULL)
		return;
	/* it waits: counted, and its wait will be */
	w->counted = 1;
	rt->stats.queued_total++;
	budget_state(&s);
	log_info("workload %s: wake waits: needs %lld MiB, %lld MiB of %lld "
	    "MiB in use, %lld waking", wl->name, MIB(estimate(wl)),
	    MIB(s.in_use), MIB(s.budget), (long long)s.waking);
}

/* removed, or found running: its wake no longer waits */
void
budget_forget(struct rt_workload *wl)
{
	queue_leave(wl);
}

/* something changed that may let the wake at the head start */
void
budget_changed(void)
{
	if (TAILQ_EMPTY(&rt->queue))
		budget_report_soon();
	else
		budget_run();
}

/* a drain for room found it busy: left alone a moment, the next picked */
void
budget_drain_refused(struct rt_workload *wl)
{
	if (!wl->evicting)
		return;
	wl->evicting = 0;
	wl->busy_ms = monotime_ms();
	log_info("workload %s: busy, not suspended for room", wl->name);
	budget_changed();
}

/* every suspend, counted by reason for show stats and /metrics */
void
budget_suspending(struct rt_workload *wl, enum rt_reason reason)
{
	switch (reason) {
	case RT_REASON_IDLE:
		rt->stats.suspends[SUSPEND_IDLE]++;
		break;
	case RT_REASON_BUDGET:
		rt->stats.suspends[SUSPEND_BUDGET]++;
		break;
	case RT_REASON_PRESSURE:
		rt->stats.suspends[SUSPEND_PRESSURE]++;
		break;
	case RT_REASON_OPERATOR:
		rt->stats.suspends[SUSPEND_OPERATOR]++;
		break;
	default:
		break;
	}
	budget_report_soon();
}

/*
 * A run's peak, measured before its stop: the next estimate, and both
 * to the store.
 */
void
budget_measured(struct rt_workload *wl, int64_t bytes)
{
	struct rt_memory	 mem;

	if (bytes <= 0)
		return;
	wl->mem_est = memory_estimate_next(wl->mem_est, bytes);
	log_debug("workload %s: used %lld MiB, estimate %lld MiB", wl->name,
	    MIB(bytes), MIB(wl->mem_est));
	memset(&mem, 0, sizeof(mem));
	strlcpy(mem.name, wl->name, sizeof(mem.name));
	mem.bytes = bytes;
	mem.estimate = wl->mem_est;
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_MEMORY, 0, -1, &mem,
	    sizeof(mem)) == -1)
		log_warn("workload %s: memory to the store", wl->name);
}

/* what the store remembers of its memory; one adopted is charged anew */
void
budget_restore(struct rt_workload *wl, const struct st_restore *rs)
{
	if (rs->memory_estimate > 0)
		wl->mem_est = rs->memory_estimate;
	if (holds_memory(wl))
		budget_charge(wl);
}

/*
 * The gateways' activity, batched as the reaper gets it: each workload's
 * last use and whether anything is in flight, one bit per gateway.
 */
void
budget_recv_activity(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_activity	 act;
	struct rt_workload	*wl;
	const unsigned char	*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;
	uint32_t		 bit = 1U << iev->instance;
	int			 freed = 0;

	/* whole records, each name terminated: the row (runtimed.c) */
	for (off = 0; off < len; off += sizeof(act)) {
		memcpy(&act, p + off, sizeof(act));
		if ((wl = lifecycle->find(act.name)) == NULL)
			continue;
		if (act.last_seen > wl->last_used)
			wl->last_used = act.last_seen;
		if (act.inflight > 0 || act.upgraded > 0) {
			/* used again: a busy veto of before is stale */
			wl->inflight |= bit;
			wl->busy_since = 0;
		} else if ((wl->inflight & bit) || wl->busy_ms != 0) {
			/* idle now; one found busy is a candidate again */
			wl->inflight &= ~bit;
			wl->busy_ms = 0;
			freed = 1;
		}
	}
	/* one that went idle may make room for a wake that waits */
	if (freed)
		budget_changed();
}

/* the parent measured a process workload before its stop */
void
budget_recv_memory(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_memory	 mem;
	struct rt_workload	*wl;

	(void)imsg_get_data(imsg, &mem, sizeof(mem));
	mem.name[sizeof(mem.name) - 1] = '\0';
	if ((wl = lifecycle->find(mem.name)) != NULL)
		budget_measured(wl, mem.bytes);
}

/*
 * The reaper found memory pressure above the limit: one idle workload,
 * the least recently used, is suspended ahead of its idle timeout.
 */
void
budget_recv_pressure(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_pressure	 rp;
	struct admit_cand	*c;
	struct rt_workload	*wl;
	char			 avg[16], lim[16];
	size_t			 n;

	(void)imsg_get_data(imsg, &rp, sizeof(rp));
	(void)fmt_percent(rp.avg10 > 0 ? rp.avg10 : 0, avg, sizeof(avg));
	(void)fmt_percent(rp.limit > 0 ? rp.limit : 0, lim, sizeof(lim));
	n = budget_cands(NULL, &c);
	if (admit_pick(c, n, 1) == 0) {
		log_debug("memory pressure %s above %s: nothing idle to "
		    "suspend", avg, lim);
		free(c);
		return;
	}
	wl = c[0].wl;
	log_info("workload %s: suspending it for memory pressure: some avg10 "
	    "%s above the limit %s; least recently used, %llds ago", wl->name,
	    avg, lim, (long long)(monotime() - c[0].last_used));
	free(c);
	/* its busy path, if any, is asked first */
	(void)busy_evict(wl, RT_REASON_PRESSURE);
}

/* show stats: the budget's item, then the end of this process's part */
void
budget_recv_stats(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_budget	 b;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	budget_fill(&b);
	(void)proc_reply(rt->ps, &a, IMSG_CTL_BUDGET, &b, sizeof(b));
	(void)proc_reply_end(rt->ps, &a);
}
