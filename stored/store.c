/*
 * The store: stored, started by orchd, chrooted to the database
 * directory.  A program of its own so that only it maps sqlite, and it
 * maps no libtls and no libcrypto.  It is the only process that opens
 * the database: it records what runtimed and the reaper tell it, answers
 * orchctl's questions about workloads, history and stats, and at start
 * tells runtimed what the last run left behind.  Nothing on the request
 * path waits for it.
 *
 * A write the database refuses (its disk full) is held in order and
 * written again on a timer until it is taken (stored/store_queue.c); the
 * answers overlay what is held, so that they tell what runtimed
 * reported whether or not the database can be written.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/tree.h>

#include <errno.h>
#include <event.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cause.h"
#include "compat.h"
#include "hashtab.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "sandbox.h"
#include "store_check.h"
#include "store_sync.h"
#include "store_db.h"
#include "store_moved.h"
#include "store_queue.h"
#include "timer.h"
#include "units.h"
#include "util.h"
#include "workload.h"

/* states told before we could record them: held for the next apply */
#define STORE_PENDING_MAX	256

struct store_pending {
	TAILQ_ENTRY(store_pending) entry;
	struct rt_state		 st;
};
TAILQ_HEAD(store_pendings, store_pending);

static struct privsep	 store_ps;
static struct store_db	*store_db;
static struct store_pendings store_pendings =
			    TAILQ_HEAD_INITIALIZER(store_pendings);
static int		 store_npending;
static int		 store_restored;	/* the restore was sent */
static int		 store_empty;	/* no row at start: none to send */
static int		 store_told_none; /* the look for rows was made */

/* the held writes, retried every 1 s, doubling up to 30 s */
#define STORE_RETRY_MIN_MS	1000
#define STORE_RETRY_MAX_MS	30000
#define STORE_RETRY_BATCH	256	/* writes per pass, then a turn */
static struct store_queue store_q;
static struct event	 store_retry_ev;
static int64_t		 store_retry_ms = STORE_RETRY_MIN_MS;
static struct st_queue_stats store_q_sent;	/* the gateways know */

/* is the database still at its path?  Before writes, and on this timer */
#define STORE_MOVED_MS		5000
static struct event	 store_moved_ev;
static int		 store_chrooted;

/*
 * Workloads in a crash loop's backoff, as runtimed last said, for show
 * workloads: in memory only, as runtimed's own count is (a restart of
 * orchd starts afresh).  One entry per workload in backoff.
 */
#define STORE_BACKOFF_MAX	65536

struct store_backoff {
	RB_ENTRY(store_backoff)	 entry;
	char			 name[ORCHD_NAME_MAX];
	int64_t			 until;		/* monotonic clock, ms */
};
RB_HEAD(store_backoffs, store_backoff);
RB_PROTOTYPE(store_backoffs, store_backoff, entry, backoff_cmp);
static struct store_backoffs	 store_backoffs =
				    RB_INITIALIZER(&store_backoffs);
static int			 store_nbackoffs;

static int
backoff_cmp(struct store_backoff *a, struct store_backoff *b)
{
	return (strcmp(a->name, b->name));
}
RB_GENERATE(store_backoffs, store_backoff, entry, backoff_cmp);

/*
 * What of their definitions running workloads lack, as runtimed last
 * said (IMSG_ST_DRIFT), for show workloads: in memory only, as
 * runtimed's knowledge of what it started is.  One entry per workload
 * with a drift.
 */
#define STORE_DRIFT_MAX		65536

struct store_drift {
	RB_ENTRY(store_drift)	 entry;
	char			 name[ORCHD_NAME_MAX];
	char			 fields[RT_DRIFT_MAX];
};
RB_HEAD(store_drifts, store_drift);
RB_PROTOTYPE(store_drifts, store_drift, entry, drift_cmp);
static struct store_drifts	 store_drifts = RB_INITIALIZER(&store_drifts);
static int			 store_ndrifts;

static int
drift_cmp(struct store_drift *a, struct store_drift *b)
{
	return (strcmp(a->name, b->name));
}
RB_GENERATE(store_drifts, store_drift, entry, drift_cmp);

static void	store_cfg_done(struct imsgev *, struct imsg *);
static void	store_recv_state(struct imsgev *, struct imsg *);
static void	store_recv_drift(struct imsgev *, struct imsg *);
static void	store_recv_keepwarm(struct imsgev *, struct imsg *);
static void	store_recv_memory(struct imsgev *, struct imsg *);
static void	store_recv_job(struct imsgev *, struct imsg *);
static void	store_recv_maint(struct imsgev *, struct imsg *);
static void	store_recv_lastseen(struct imsgev *, struct imsg *);
static void	store_show_workloads(struct imsgev *, struct imsg *);
static void	store_show_page(struct imsgev *, struct imsg *);
static void	store_show_history(struct imsgev *, struct imsg *);
static void	store_show_stats(struct imsgev *, struct imsg *);
static void	store_api_load(struct imsgev *, struct imsg *);
static void	store_api_put(struct imsgev *, struct imsg *);
static void	store_api_drop(struct imsgev *, struct imsg *);
static void	store_api_expire(struct imsgev *, struct imsg *);
static void	store_uid_load(struct imsgev *, struct imsg *);
static void	store_uid_put(struct imsgev *, struct imsg *);
static void	store_show_summary(struct imsgev *, struct imsg *);

/* orchctl through the parent, or the HTTP API from the gateway */
#define FROM_ASKERS	(PROC_FROM(PROC_PARENT) | PROC_FROM(PROC_GATEWAY))

PROC_TABLE_BEGIN
static const struct proc_handler store_handlers[] = {
	/* what every child answers the parent (common/proc.c) */
	{ IMSG_PROC_PEER, sizeof(struct proc_peer), PROC_FROM(PROC_PARENT),
	    proc_recv_peer },
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	/* the common answer, and the queue of held writes */
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    store_show_summary },
	/* its configuration, as every child receives it (common/cfgrecv.c) */
	{ IMSG_CFG_RESET, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_reset },
	{ IMSG_CFG_GLOBAL, sizeof(struct global_settings),
	    PROC_FROM(PROC_PARENT), cfg_recv_global },
	{ IMSG_CFG_WORKLOAD, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    cfg_recv_workload },
	{ IMSG_CFG_DONE, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    store_cfg_done },
	{ IMSG_CFG_DELTA, sizeof(struct cfg_delta), PROC_FROM(PROC_PARENT),
	    cfg_recv_delta },
	{ IMSG_CFG_KEEP, sizeof(struct cfg_keep), PROC_FROM(PROC_PARENT),
	    cfg_recv_keep },
	{ IMSG_CFG_START, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_start },
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    store_recv_state, PROC_NAME(struct rt_state) },
	{ IMSG_ST_KEEPWARM, sizeof(struct ctl_keepwarm),
	    PROC_FROM(PROC_RUNTIME), store_recv_keepwarm,
	    PROC_NAME(struct ctl_keepwarm) },
	{ IMSG_ST_DRIFT, sizeof(struct rt_drift), PROC_FROM(PROC_RUNTIME),
	    store_recv_drift, PROC_NAME(struct rt_drift) },
	{ IMSG_ST_MEMORY, sizeof(struct rt_memory), PROC_FROM(PROC_RUNTIME),
	    store_recv_memory, PROC_NAME(struct rt_memory) },
	{ IMSG_ST_JOB, sizeof(struct rt_job), PROC_FROM(PROC_RUNTIME),
	    store_recv_job, PROC_NAME(struct rt_job) },
	{ IMSG_ST_MAINT, sizeof(struct ctl_maint), PROC_FROM(PROC_RUNTIME),
	    store_recv_maint, PROC_NAME(struct ctl_maint) },
	{ IMSG_ST_LASTSEEN, sizeof(struct reap_lastseen),
	    PROC_FROM(PROC_REAPER), store_recv_lastseen, PROC_RECORDS1,
	    PROC_NAME(struct reap_lastseen) },
	{ IMSG_CTL_SHOW_WORKLOADS, sizeof(struct ctl_name), FROM_ASKERS,
	    store_show_workloads, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SHOW_PAGE, sizeof(struct ctl_page), FROM_ASKERS,
	    store_show_page, PROC_NAME(struct ctl_page) },
	{ IMSG_CTL_SHOW_HISTORY, sizeof(struct ctl_name), FROM_ASKERS,
	    store_show_history, PROC_NAME(struct ctl_name) },
	{ IMSG_CTL_SHOW_STATS, 0, FROM_ASKERS, store_show_stats },
	{ IMSG_API_LOAD, 0, PROC_FROM(PROC_PARENT), store_api_load },
	{ IMSG_API_PUT, PROC_ANYLEN, PROC_FROM(PROC_PARENT), store_api_put },
	{ IMSG_API_EXPIRE, sizeof(struct reap_expire), PROC_FROM(PROC_PARENT),
	    store_api_expire, PROC_NAME(struct reap_expire) },
	{ IMSG_API_DROP, sizeof(struct ctl_name), PROC_FROM(PROC_PARENT),
	    store_api_drop, PROC_NAME(struct ctl_name) },
	{ IMSG_ST_UID_LOAD, 0, PROC_FROM(PROC_PARENT), store_uid_load },
	{ IMSG_ST_UID_PUT, sizeof(struct wl_uid), PROC_FROM(PROC_PARENT),
	    store_uid_put, PROC_NAME(struct wl_uid) },
};
PROC_TABLE_END

/*
 * A failed write that is not held (the configuration's, the API's, which
 * the parent hears of) is logged; a file gone bad would lose every later
 * one and could be damaged further, so that takes the daemon down for
 * the operator to see.
 */
static void
store_failed(const char *what)
{
	if (store_db_broken(store_db))
		fatalx("database %s: %s: %s", store_ps.file, what,
		    store_db_error(store_db));
	log_warnx("database %s: %s: %s", store_ps.file, what,
	    store_db_error(store_db));
}

/* the file removed or replaced under us: written again (store_moved.c) */
static void	store_path_check(const char *);

/*
 * Held writes.  Once one is held, every later one is held behind it, so
 * that the database takes them in the order they came.
 */

/* what the gateways count for GET /metrics, sent when it changes */
static void
held_report(void)
{
	if (memcmp(&store_q.stats, &store_q_sent, sizeof(store_q_sent)) == 0)
		return;
	store_q_sent = store_q.stats;
	if (proc_compose(&store_ps, PROC_GATEWAY, IMSG_ST_QUEUE, 0, -1,
	    &store_q_sent, sizeof(store_q_sent)) == -1)
		log_warn("%s: compose", __func__);
}

static void
held_schedule(void)
{
	if (!evtimer_pending(&store_retry_ev, NULL))
		evtimer_add_ms(&store_retry_ev, store_retry_ms);
}

/* one held write; a workload removed meanwhile has no row to write */
static int
held_write(const struct sq_entry *e, void *arg)
{
	int	 r = -1;

	switch (e->kind) {
	case SQ_STATE:
		if ((r = store_db_state(store_db, &e->u.st)) == 0)
			log_debug("workload %s: unknown, state %s dropped",
			    e->u.st.name, workload_state_name(e->u.st.state));
		break;
	case SQ_LASTSEEN:
		r = store_db_lastseen(store_db, &e->u.ls, 1);
		break;
	case SQ_KEEPWARM:
		r = store_db_keepwarm(store_db, e->u.kw.name, e->u.kw.on,
		    e->u.kw.until);
		break;
	case SQ_MEMORY:
		r = store_db_memory(store_db, e->u.mem.name, e->u.mem.bytes,
		    e->u.mem.estimate);
		break;
	case SQ_JOB:
		r = store_db_job(store_db, e->u.job.name, e->u.job.hash);
		break;
	case SQ_UID:
		r = store_db_uid_put(store_db, e->u.uid.name, e->u.uid.uid);
		break;
	case SQ_MAINT:
		r = store_db_maint(store_db, e->u.maint.name, &e->u.maint.m);
		break;
	}
	if (r == -1 && store_db_broken(store_db))
		fatalx("database %s: %s", store_ps.file,
		    store_db_error(store_db));
	return (r == -1 ? -1 : 0);
}

/* a pass; 1 when nothing is left held */
static int
held_flush(void)
{
	size_t	 n;

	if (sq_empty(&store_q))
		return (1);
	store_path_check("a write");
	n = sq_flush(&store_q, held_write, NULL, STORE_RETRY_BATCH);
	if (sq_empty(&store_q)) {
		log_info("database %s: caught up, the held writes are "
		    "written", store_ps.file);
		store_retry_ms = STORE_RETRY_MIN_MS;
	} else if (n > 0)
		store_retry_ms = STORE_RETRY_MIN_MS;
	else
		store_retry_ms = MINIMUM(store_retry_ms * 2,
		    STORE_RETRY_MAX_MS);
	held_report();
	return (sq_empty(&store_q));
}

static void
held_retry(int fd, short event, void *arg)
{
	if (!held_flush())
		held_schedule();
}

/* the first refusal of a stretch says so; then the queue speaks */
static void
held_add(enum sq_kind kind, const void *data, const char *what)
{
	int	 full = store_q.full;

	if (sq_empty(&store_q))
		log_warnx("database %s: %s: %s: writes held, and written "
		    "again until the database takes them", store_ps.file,
		    what, store_db_error(store_db));
	if (sq_add(&store_q, kind, data) == -1 && !full)
		log_warnx("database %s: %llu writes held, no room for more: "
		    "later ones are dropped and counted", store_ps.file,
		    (unsigned long long)store_q.stats.queued);
	held_schedule();
	held_report();
}

/*
 * A write, held behind those already held, else tried now.  A file
 * gone bad takes the daemon down (store_failed()).  The state's result
 * as store_db_state()'s, 1 when it is held.
 */
static int
store_write(enum sq_kind kind, const void *data, const char *what)
{
	struct sq_entry	 e;
	int		 r;

	store_path_check("a write");
	if (!sq_empty(&store_q)) {
		held_add(kind, data, what);
		return (1);
	}
	memset(&e, 0, sizeof(e));
	e.kind = kind;
	switch (kind) {
	case SQ_STATE:
		memcpy(&e.u.st, data, sizeof(e.u.st));
		if ((r = store_db_state(store_db, &e.u.st)) != -1)
			return (r);
		break;
	case SQ_LASTSEEN:
		memcpy(&e.u.ls, data, sizeof(e.u.ls));
		break;
	case SQ_KEEPWARM:
		memcpy(&e.u.kw, data, sizeof(e.u.kw));
		break;
	case SQ_MEMORY:
		memcpy(&e.u.mem, data, sizeof(e.u.mem));
		break;
	case SQ_JOB:
		memcpy(&e.u.job, data, sizeof(e.u.job));
		break;
	case SQ_UID:
		memcpy(&e.u.uid, data, sizeof(e.u.uid));
		break;
	case SQ_MAINT:
		memcpy(&e.u.maint, data, sizeof(e.u.maint));
		break;
	}
	if (kind != SQ_STATE && held_write(&e, NULL) == 0)
		return (1);
	if (store_db_broken(store_db))
		store_failed(what);
	held_add(kind, data, what);
	return (1);
}

/*
 * State changes.
 */

static void
pending_add(const struct rt_state *st)
{
	struct store_pending	*p;

	if (store_npending >= STORE_PENDING_MAX) {
		log_warnx("workload %s: state %s not recorded: too many "
		    "held", st->name, workload_state_name(st->state));
		return;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	p->st = *st;
	TAILQ_INSERT_TAIL(&store_pendings, p, entry);
	store_npending++;
}

/* after an apply: what is still unknown was removed meanwhile */
static void
pending_replay(void)
{
	struct store_pending	*p;

	while ((p = TAILQ_FIRST(&store_pendings)) != NULL) {
		TAILQ_REMOVE(&store_pendings, p, entry);
		store_npending--;
		switch (store_write(SQ_STATE, &p->st, "state")) {
		case 0:
			log_debug("workload %s: unknown, state %s dropped",
			    p->st.name, workload_state_name(p->st.state));
			break;
		default:
			break;
		}
		free(p);
	}
}

/* each state says how long its backoff has left, 0 when none */
static void
backoff_note(const struct rt_state *st)
{
	struct store_backoff	 key, *b;

	strlcpy(key.name, st->name, sizeof(key.name));
	b = RB_FIND(store_backoffs, &store_backoffs, &key);
	if (st->backoff_ms <= 0) {
		if (b != NULL) {
			RB_REMOVE(store_backoffs, &store_backoffs, b);
			free(b);
			store_nbackoffs--;
		}
		return;
	}
	if (b == NULL) {
		if (store_nbackoffs >= STORE_BACKOFF_MAX ||
		    (b = calloc(1, sizeof(*b))) == NULL) {
			log_warnx("workload %s: backoff not kept", st->name);
			return;
		}
		strlcpy(b->name, st->name, sizeof(b->name));
		RB_INSERT(store_backoffs, &store_backoffs, b);
		store_nbackoffs++;
	}
	/* monotonic: a step of the wall clock neither ends nor prolongs it */
	b->until = monotime_ms() + st->backoff_ms;
}

/* show workloads: the end of its backoff, if it is not over */
static void
backoff_overlay(struct ctl_workload *cw)
{
	struct store_backoff	 key, *b;
	int64_t			 left;

	strlcpy(key.name, cw->name, sizeof(key.name));
	if ((b = RB_FIND(store_backoffs, &store_backoffs, &key)) != NULL &&
	    (left = b->until - monotime_ms()) > 0 &&
	    (cw->state == WL_FAILED || cw->state == WL_ASLEEP))
		/* to the second after it ends, as the gateway's Retry-After */
		cw->backoff_until = (walltime_ms() + left + 999) / 1000;
}

/*
 * Until the restore is sent, the rows must stay as the last run left
 * them; and runtimed may know a new workload a moment before we do.
 */
static void
store_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state	 st;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	st.msg[sizeof(st.msg) - 1] = '\0';
	st.name[sizeof(st.name) - 1] = '\0';
	/* never recorded: the overlay of store_check.c says it */
	if (st.state == WL_CHECKING)
		return;
	store_check_told(st.name);
	cause_sanitize(&st.cause);
	backoff_note(&st);
	if (!store_restored) {
		pending_add(&st);
		return;
	}
	switch (store_write(SQ_STATE, &st, "state")) {
	case 0:
		pending_add(&st);
		break;
	default:
		break;
	}
}

static void
store_recv_drift(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_drift		 rd;
	struct store_drift	 key, *d;

	(void)imsg_get_data(imsg, &rd, sizeof(rd));
	rd.fields[sizeof(rd.fields) - 1] = '\0';
	strlcpy(key.name, rd.name, sizeof(key.name));
	d = RB_FIND(store_drifts, &store_drifts, &key);
	if (rd.fields[0] == '\0') {
		if (d != NULL) {
			RB_REMOVE(store_drifts, &store_drifts, d);
			free(d);
			store_ndrifts--;
		}
		return;
	}
	if (d == NULL) {
		if (store_ndrifts >= STORE_DRIFT_MAX ||
		    (d = calloc(1, sizeof(*d))) == NULL) {
			log_warnx("workload %s: drift not kept", rd.name);
			return;
		}
		strlcpy(d->name, rd.name, sizeof(d->name));
		RB_INSERT(store_drifts, &store_drifts, d);
		store_ndrifts++;
	}
	strlcpy(d->fields, rd.fields, sizeof(d->fields));
}

/* show workloads: what a running one lacks of its definition */
static void
drift_overlay(struct ctl_workload *cw)
{
	struct store_drift	 key, *d;

	cw->drift[0] = '\0';
	if (cw->state == WL_ASLEEP || cw->state == WL_FAILED)
		return;
	strlcpy(key.name, cw->name, sizeof(key.name));
	if ((d = RB_FIND(store_drifts, &store_drifts, &key)) != NULL)
		strlcpy(cw->drift, d->fields, sizeof(cw->drift));
}

static void
store_recv_keepwarm(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_keepwarm	 kw;

	(void)imsg_get_data(imsg, &kw, sizeof(kw));
	kw.on = kw.on != 0;
	(void)store_write(SQ_KEEPWARM, &kw, "keep warm");
}

/* maintenance on or off, from runtimed, which checked it */
static void
store_recv_maint(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_maint	 cm;

	(void)imsg_get_data(imsg, &cm, sizeof(cm));
	cm.name[sizeof(cm.name) - 1] = '\0';
	cm.m.msg[sizeof(cm.m.msg) - 1] = '\0';
	cm.m.on = cm.m.on == 1;
	(void)store_write(SQ_MAINT, &cm, "maintenance");
}

static void
store_recv_memory(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_memory	 mem;

	(void)imsg_get_data(imsg, &mem, sizeof(mem));
	(void)store_write(SQ_MEMORY, &mem, "memory");
	/* the gateways show it in /metrics */
	if (proc_compose(&store_ps, PROC_GATEWAY, IMSG_ST_MEMORY, 0, -1, &mem,
	    sizeof(mem)) == -1)
		log_warn("%s: to the gateways", __func__);
}

/* a job's last success, so that a restart does not run it again */
static void
store_recv_job(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_job	 job;

	(void)imsg_get_data(imsg, &job, sizeof(job));
	(void)store_write(SQ_JOB, &job, "job");
}

/* the reaper's batch, written in one transaction */
static void
store_recv_lastseen(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_lastseen	*ls;
	size_t			 len = imsg_get_len(imsg), n, i;

	n = len / sizeof(*ls);
	/* copied: the payload is not aligned for its int64_t */
	if ((ls = calloc(n, sizeof(*ls))) == NULL)
		fatal("%s", __func__);
	memcpy(ls, imsg->data, len);
	store_path_check("a write");
	if (!sq_empty(&store_q) || store_db_lastseen(store_db, ls, n) == -1) {
		if (store_db_broken(store_db))
			store_failed("last seen");
		/* one each, so that each workload keeps only its newest */
		for (i = 0; i < n; i++)
			held_add(SQ_LASTSEEN, &ls[i], "last seen");
	}
	free(ls);
}

/*
 * orchctl through the parent, or the API from the gateway: items, then
 * END, to whoever asked (proc_reply).  An unknown name gets no item; the
 * asker answers for it.
 */

/* an answer from a callback of store_db.c, whose arg is the asker */
static int
reply(const struct proc_asker *a, uint32_t type, const void *data,
    size_t len)
{
	return (proc_reply(&store_ps, a, type, data, len));
}

/*
 * The idle timeout the reaper goes by, which the database cannot know:
 * the workload's own or the global one, none for a workload kept warm
 * or with the reaper off.
 */
static int64_t
idle_effective(const struct ctl_workload *cw)
{
	const struct cfg_generation	*gen = cfg_current();

	if (cw->keep_warm || cw->idle_timeout == 0)
		return (0);
	if (gen == NULL || gen->global.reaper_off)
		return (0);
	if (cw->idle_timeout > 0)
		return (cw->idle_timeout);
	return (gen->global.idle_timeout);
}

/* the row, then what the held writes will make of it */
static int
reply_workload(const struct ctl_workload *row, void *arg)
{
	struct ctl_workload	 cw = *row;

	sq_overlay_workload(&store_q, &cw);
	store_check_overlay(&cw);
	cw.idle_effective = idle_effective(&cw);
	backoff_overlay(&cw);
	drift_overlay(&cw);
	return (reply(arg, IMSG_CTL_WORKLOAD, &cw, sizeof(cw)));
}

static int
reply_history(const struct ctl_transition *ct, void *arg)
{
	return (reply(arg, IMSG_CTL_HISTORY, ct, sizeof(*ct)));
}

/* the wakes held are counted: the workload's, and the total's at the end */
struct stats_asker {
	struct proc_asker	 a;
	uint64_t		 wakes;
	uint64_t		 failed_wakes;
};

static int
reply_stats(const struct ctl_stats *row, void *arg)
{
	struct stats_asker	*sa = arg;
	struct ctl_stats	 cs = *row;
	struct st_restore	 rs;

	if (cs.name[0] == '\0') {
		cs.wakes += sa->wakes;
		cs.failed_wakes += sa->failed_wakes;
	} else if (!sq_empty(&store_q) &&
	    store_db_restore(store_db, cs.name, &rs) == 1) {
		sq_overlay_stats(&store_q, &cs, rs.state);
		sa->wakes += cs.wakes - row->wakes;
		sa->failed_wakes += cs.failed_wakes - row->failed_wakes;
	}
	return (reply(&sa->a, IMSG_CTL_STATS, &cs, sizeof(cs)));
}

static void
recv_name(struct imsg *imsg, struct ctl_name *cn)
{
	(void)imsg_get_data(imsg, cn, sizeof(*cn));
}

static void
store_show_workloads(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_name		 cn;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	recv_name(imsg, &cn);
	if (store_db_workloads(store_db, cn.name, reply_workload, &a) == -1)
		store_failed("show workloads");
	(void)reply(&a, IMSG_CTL_END, NULL, 0);
}

/*
 * A page of show workloads, checked here whoever asks: a limit from 1
 * to CTL_PAGE_MAX, a name (terminated, by the table) that is a
 * workload's or "".  A bad one is answered FAIL, the asker's mistake.
 */
static void
store_show_page(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_page		 cp;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &cp, sizeof(cp));
	if (cp.limit < 1 || cp.limit > CTL_PAGE_MAX ||
	    (cp.name[0] != '\0' && !valid_workload_name(cp.name))) {
		(void)proc_reply_fail(&store_ps, &a, CTL_ERR_FAILED, "a page "
		    "is 1 to %d workloads after a workload's name",
		    CTL_PAGE_MAX);
		return;
	}
	if (store_db_workloads_page(store_db, cp.name, cp.limit,
	    reply_workload, &a) == -1)
		store_failed("show workloads");
	(void)reply(&a, IMSG_CTL_END, NULL, 0);
}

static void
store_show_history(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_name		 cn;
	struct proc_asker	 a;
	struct st_restore	 rs;
	size_t			 held;

	proc_asker(iev, imsg, &a);
	recv_name(imsg, &cn);
	/* the newest STORE_HISTORY_MAX, the held ones last */
	held = MINIMUM(sq_transitions(&store_q, cn.name), STORE_HISTORY_MAX);
	if (held < STORE_HISTORY_MAX && store_db_history(store_db, cn.name,
	    STORE_HISTORY_MAX - held, reply_history, &a) == -1)
		store_failed("show history");
	if (held > 0 && store_db_restore(store_db, cn.name, &rs) == 1)
		(void)sq_history(&store_q, cn.name, rs.state, reply_history,
		    &a);
	(void)reply(&a, IMSG_CTL_END, NULL, 0);
}

static void
store_show_stats(struct imsgev *iev, struct imsg *imsg)
{
	struct stats_asker	 sa;

	memset(&sa, 0, sizeof(sa));
	proc_asker(iev, imsg, &sa.a);
	if (store_db_stats(store_db, walltime_ms(), reply_stats, &sa) == -1)
		store_failed("show stats");
	(void)reply(&sa.a, IMSG_CTL_END, NULL, 0);
}

/* the common summary, and the held writes */
static void
store_show_summary(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_summary	 cs;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	proc_summary(iev->ps, &cs);
	(void)reply(&a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	(void)reply(&a, IMSG_CTL_STORE_QUEUE, &store_q.stats,
	    sizeof(store_q.stats));
	(void)reply(&a, IMSG_CTL_END, NULL, 0);
}

/*
 * The API's workloads, for the parent: all of them at its start, and
 * each one created or deleted, acknowledged once written so that the
 * parent answers the client only for what will survive a restart.  The
 * rows are JSON, which the parent does not read (DESIGN.md, trust rule
 * 10): the store decodes each and sends it packed, and writes what the
 * parent sends it packed as JSON.  The parent checks every row again.
 */

static int
api_definition(const char *json, size_t len, void *arg)
{
	struct workload_conf	*wc;
	char			 err[256];
	void			*def;
	size_t			 deflen;
	int			 r;

	if (len > ORCHD_API_JSON_MAX) {
		log_warnx("an API workload's definition of %zu bytes is too "
		    "large: skipped", len);
		return (0);
	}
	if ((wc = workload_from_json(json, len, err, sizeof(err))) == NULL) {
		log_warnx("a workload created through the API is invalid, "
		    "skipped: %s", err);
		return (0);
	}
	def = workload_wire(wc, &deflen);
	workload_free(wc);
	if (def == NULL) {
		log_warnx("an API workload's definition: out of memory");
		return (0);
	}
	r = reply(arg, IMSG_API_DEFINITION, def, deflen);
	free(def);
	return (r);
}

static void
store_api_load(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	if (store_db_api_list(store_db, api_definition, &a) == -1)
		store_failed("API workloads");
	(void)reply(&a, IMSG_API_LOAD_END, NULL, 0);
}

static void
api_stored(struct imsgev *iev, struct imsg *imsg, int ok, const char *what)
{
	struct ctl_result	 res;
	struct proc_asker	 a;

	memset(&res, 0, sizeof(res));
	if (!ok) {
		res.code = CTL_ERR_FAILED;
		snprintf(res.msg, sizeof(res.msg), "database: %s: %s", what,
		    store_db_error(store_db));
		store_failed(what);
	}
	proc_asker(iev, imsg, &a);
	(void)reply(&a, IMSG_API_STORED, &res, sizeof(res));
}

static void
store_api_put(struct imsgev *iev, struct imsg *imsg)
{
	struct workload_conf	*wc;
	char			 err[256];

	/* the parent made it: one that does not read is a bug */
	if ((wc = workload_wire_read(imsg->data, imsg_get_len(imsg), err,
	    sizeof(err))) == NULL)
		fatalx("%s: workload from parent: %s", __func__, err);
	/* what came before it first: a held write must not outlive it */
	store_path_check("a write");
	(void)held_flush();
	store_sync_touched(wc->name);
	api_stored(iev, imsg, store_db_api_put(store_db, wc,
	    walltime_ms()) == 0, "create");
	workload_free(wc);
}

static void
store_api_drop(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_name	 cn;

	recv_name(imsg, &cn);
	store_path_check("a write");
	(void)held_flush();
	store_sync_touched(cn.name);
	api_stored(iev, imsg, store_db_api_drop(store_db,
	    cn.name) != -1, "delete");
}

/* an expired one: dropped, its history kept, the expiry said in it */
static void
store_api_expire(struct imsgev *iev, struct imsg *imsg)
{
	struct reap_expire	 re;
	char			 msg[128];

	(void)imsg_get_data(imsg, &re, sizeof(re));
	(void)snprintf(msg, sizeof(msg), "deleted: no request for %llds",
	    (long long)re.secs);
	store_path_check("a write");
	(void)held_flush();
	store_sync_touched(re.name);
	api_stored(iev, imsg, store_db_api_expire(store_db,
	    re.name, msg, walltime_ms()) != -1, "expire");
}

/*
 * The uids the parent allocated to process workloads: all of them at its
 * start, and each new one.  The parent checks what it reads back.
 */

static int
uid_entry(const char *name, uint32_t uid, void *arg)
{
	struct wl_uid	 wu;

	memset(&wu, 0, sizeof(wu));
	if (strlcpy(wu.name, name, sizeof(wu.name)) >= sizeof(wu.name))
		return (0);	/* no workload has such a name */
	wu.uid = uid;
	return (reply(arg, IMSG_ST_UID_ENTRY, &wu, sizeof(wu)));
}

static void
store_uid_load(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	if (store_db_uid_list(store_db, uid_entry, &a) == -1)
		store_failed("workload uids");
	(void)reply(&a, IMSG_ST_UID_LOAD_END, NULL, 0);
}

static void
store_uid_put(struct imsgev *iev, struct imsg *imsg)
{
	struct wl_uid	 wu;

	(void)imsg_get_data(imsg, &wu, sizeof(wu));
	(void)store_write(SQ_UID, &wu, "workload uid");
}

/*
 * Configuration.
 */

/* one row of the restore's scan: the workload's, if it is configured */
struct restore_scan {
	struct hashtab	 names;		/* the generation's workloads */
	size_t		 n;
};

static void
restore_one(const struct st_restore *rs, void *arg)
{
	struct restore_scan	*sc = arg;

	if (hashtab_find(&sc->names, rs->name) == NULL)
		return;
	sc->n++;
	log_debug("workload %s: restoring %s", rs->name,
	    workload_state_name(rs->state));
	if (proc_compose(&store_ps, PROC_RUNTIME, IMSG_ST_RESTORE, 0, -1,
	    rs, sizeof(*rs)) == -1)
		fatal("%s: compose", __func__);
}

/*
 * What the last run left, once, for runtimed to act on: a workload
 * recorded running may still run (a container) or not (a process that
 * died with orchd); runtimed asks its driver and says what it found.
 * The rows are read in one scan and kept for the workloads configured.
 */
static void
store_restore(const struct cfg_generation *gen)
{
	const struct workload_conf	*wc;
	struct restore_scan		 sc;
	int64_t				 t0 = monotime_ms();

	memset(&sc, 0, sizeof(sc));
	/* the rows just written say nothing runtimed does not know */
	TAILQ_FOREACH(wc, &gen->workloads, entry)
		if (!store_empty && hashtab_add(&sc.names, wc->name, wc) == -1)
			fatal("%s", __func__);
	if (!store_empty &&
	    store_db_restore_all(store_db, restore_one, &sc) == -1)
		store_failed("restore");
	hashtab_clear(&sc.names);
	if (proc_compose(&store_ps, PROC_RUNTIME, IMSG_ST_RESTORE_DONE, 0, -1,
	    NULL, 0) == -1)
		fatal("%s: compose", __func__);
	store_restored = 1;
	log_debug("restore: %zu workload%s the last run left, %lld ms", sc.n,
	    sc.n == 1 ? "" : "s", (long long)(monotime_ms() - t0));
}

/*
 * A database with no workload's row (a first start) has nothing to
 * restore: runtimed is told so before the first whole write (seconds at
 * 100,000 workloads), and a wake goes on without waiting for it.  Told
 * before the store acknowledges the first configuration, so before the
 * parent starts it: runtimed then has it when it builds its workloads,
 * and checks none that only a stored row could say runs.  The restore's
 * end still comes after the write.
 */
static void
store_none_tell(void)
{
	struct imsgev	*iev;

	if (store_told_none++ > 0 ||
	    store_db_any_workload(store_db) != 0)
		return;
	store_empty = 1;
	if (proc_compose(&store_ps, PROC_RUNTIME, IMSG_ST_RESTORE_NONE, 0, -1,
	    NULL, 0) == -1)
		fatal("%s: compose", __func__);
	/* now, not once the write is over: runtimed reads as it goes */
	if ((iev = proc_channel(&store_ps, PROC_RUNTIME, 0)) != NULL &&
	    imsgbuf_flush(&iev->ibuf) == -1)
		log_warn("%s: to runtimed", __func__);
}

/* the first configuration, whole: acknowledged once runtimed is told */
static void
store_cfg_done(struct imsgev *iev, struct imsg *imsg)
{
	if (!store_restored)
		store_none_tell();
	cfg_recv_done(iev, imsg);
}

/*
 * A delta is written as it comes only where what was written last is
 * known, and after the first configuration (whose rows are restored).
 */
static const char *
store_delta_check(void)
{
	if (!store_restored)
		return ("the store has not restored its rows yet");
	if (!store_sync_known())
		return ("the store does not know what it wrote last");
	return (NULL);
}

static void
store_apply(struct privsep *ps, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	/* the held writes of the workloads it may remove first */
	store_path_check("a write");
	(void)held_flush();
	if (store_sync(store_db, gen, walltime_ms()) == -1)
		store_failed("configuration");
	if (!store_restored) {
		store_restore(gen);
		store_check_begin(gen);
	}
	pending_replay();
	store_db_shrink(store_db);
}

/*
 * Start.
 */

/* chrooted to the database's directory, the file is its base name */
static const char *
store_path(const char *file, int chrooted)
{
	const char	*slash;

	if (!chrooted || (slash = strrchr(file, '/')) == NULL)
		return (file);
	return (slash + 1);
}

/*
 * The database and its logs are the store's alone: made 0600 (umask),
 * and one found readable by others, from an older orchd or a copy, is
 * tightened.  Here, unprivileged: root never chmods in a directory the
 * store can plant links in.
 */
static void
store_tighten(const char *path)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };
	struct stat	 sb;
	char		 file[PATH_MAX];
	size_t		 i;

	for (i = 0; i < nitems(suffixes); i++) {
		if ((size_t)snprintf(file, sizeof(file), "%s%s", path,
		    suffixes[i]) >= sizeof(file))
			continue;
		if (lstat(file, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    (sb.st_mode & 077) == 0)
			continue;
		if (chmod(file, sb.st_mode & 0600) == -1)
			log_warn("database file %s%s: chmod", store_ps.file,
			    suffixes[i]);
		else
			log_warnx("database file %s%s was mode %04o: now "
			    "%04o, the store's alone", store_ps.file,
			    suffixes[i], (unsigned)(sb.st_mode & 07777),
			    (unsigned)(sb.st_mode & 0600));
	}
}

static void
store_path_check(const char *when)
{
	store_moved_check(&store_db, store_path(store_ps.file,
	    store_chrooted), store_ps.file, when);
}

static void
store_moved_timer(int fd, short event, void *arg)
{
	store_path_check("the periodic check");
	evtimer_add_ms(&store_moved_ev, STORE_MOVED_MS);
}

static void
store_open(int chrooted)
{
	char	 err[512];

	if (store_ps.file == NULL)
		fatalx("no database given (-f)");
	(void)umask(077);
	store_tighten(store_path(store_ps.file, chrooted));
	if ((store_db = store_db_open(store_path(store_ps.file, chrooted),
	    err, sizeof(err))) == NULL)
		fatalx("database %s: %s", store_ps.file, err);
	log_debug("database %s: open, schema version %d", store_ps.file,
	    store_db_version());
}

/*
 * However we exit (SIGTERM, or fatalx() when a sibling's channel
 * closes), a sound database is closed, which folds the write-ahead log
 * back into the file.  One gone bad is not written again.
 */
static void
store_atexit(void)
{
	if (store_db != NULL && !store_db_broken(store_db)) {
		/* a last try: what is still held then is lost */
		(void)sq_flush(&store_q, held_write, NULL, SIZE_MAX);
		if (!sq_empty(&store_q))
			log_warnx("database %s: %llu held writes never "
			    "written", store_ps.file,
			    (unsigned long long)store_q.stats.queued);
		store_db_close(store_db);
	}
	store_db = NULL;
}

static void
store_sig(int sig, short event, void *arg)
{
	log_debug("store: signal %d, closing the database", sig);
	exit(0);
}

int
main(int argc, char *argv[])
{
	struct event	 ev_term;
	/* root is chrooted by child_start(), anyone else is not */
	int		 chrooted = geteuid() == 0;

	proc_title_init(argc, argv);
	child_start(&store_ps, argc, argv, PROC_STORE, store_handlers,
	    nitems(store_handlers), PRIVDROP_NONET);
	store_chrooted = chrooted;
	store_open(chrooted);
	sq_init(&store_q, SQ_MAX_ENTRIES, SQ_MAX_BYTES);
	evtimer_set(&store_retry_ev, held_retry, NULL);
	evtimer_set(&store_moved_ev, store_moved_timer, NULL);
	evtimer_add_ms(&store_moved_ev, STORE_MOVED_MS);
	if (atexit(store_atexit) != 0)
		fatal("atexit");
	cfg_set_apply(store_apply);
	/* the definitions are in the database once applied */
	cfg_forget_workloads();
	cfg_take_delta(store_delta_check);
	signal_set(&ev_term, SIGTERM, store_sig, NULL);
	signal_add(&ev_term, NULL);
	sandbox_enter(proc_name(PROC_STORE),
	    SB_STDIO | SB_RPATH | SB_WPATH | SB_CPATH | SB_FLOCK);
	event_dispatch();
	exit(0);
}
