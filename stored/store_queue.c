/*
 * The store's held writes: what the database refused, kept in order
 * until it takes them.  Bounded in count and in bytes; a state change
 * is history and is never merged with another, but a last request, a
 * keep warm override or a memory figure only matters as its newest
 * value, so a newer one takes the older one's place.  When the queue is
 * full a new write is dropped and counted: the older ones, in order,
 * are worth more than a hole in the middle.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "msg.h"
#include "store_queue.h"
#include "workload.h"

void
sq_init(struct store_queue *q, size_t max_count, size_t max_bytes)
{
	memset(q, 0, sizeof(*q));
	TAILQ_INIT(&q->entries);
	q->max_count = max_count;
	q->max_bytes = max_bytes;
}

static void
sq_remove(struct store_queue *q, struct sq_entry *e)
{
	TAILQ_REMOVE(&q->entries, e, entry);
	q->stats.queued--;
	q->stats.bytes -= e->size;
	free(e);
	if (TAILQ_EMPTY(&q->entries))
		q->full = 0;
}

void
sq_clear(struct store_queue *q)
{
	struct sq_entry	*e;

	while ((e = TAILQ_FIRST(&q->entries)) != NULL)
		sq_remove(q, e);
}

int
sq_empty(const struct store_queue *q)
{
	return (TAILQ_EMPTY(&q->entries));
}

const char *
sq_name(const struct sq_entry *e)
{
	switch (e->kind) {
	case SQ_STATE:
		return (e->u.st.name);
	case SQ_LASTSEEN:
		return (e->u.ls.name);
	case SQ_KEEPWARM:
		return (e->u.kw.name);
	case SQ_MEMORY:
		return (e->u.mem.name);
	case SQ_JOB:
		return (e->u.job.name);
	case SQ_UID:
		return (e->u.uid.name);
	case SQ_MAINT:
		return (e->u.maint.name);
	}
	return ("");
}

/* the payload's size, what the byte bound counts, with the entry's own */
static size_t
sq_payload(enum sq_kind kind)
{
	switch (kind) {
	case SQ_STATE:
		return (sizeof(struct rt_state));
	case SQ_LASTSEEN:
		return (sizeof(struct reap_lastseen));
	case SQ_KEEPWARM:
		return (sizeof(struct ctl_keepwarm));
	case SQ_MEMORY:
		return (sizeof(struct rt_memory));
	case SQ_JOB:
		return (sizeof(struct rt_job));
	case SQ_UID:
		return (sizeof(struct wl_uid));
	case SQ_MAINT:
		return (sizeof(struct ctl_maint));
	}
	return (0);
}

/* the same workload's held entry of a kind that coalesces */
static struct sq_entry *
sq_find(struct store_queue *q, enum sq_kind kind, const char *name)
{
	struct sq_entry	*e;

	if (kind == SQ_STATE || kind == SQ_UID)
		return (NULL);
	TAILQ_FOREACH(e, &q->entries, entry)
		if (e->kind == kind && strcmp(sq_name(e), name) == 0)
			return (e);
	return (NULL);
}

/* the newer value over the older; a last request only moves forward */
static void
sq_coalesce(struct sq_entry *old, const struct sq_entry *new)
{
	if (old->kind == SQ_LASTSEEN &&
	    old->u.ls.last_seen > new->u.ls.last_seen)
		return;
	memcpy(&old->u, &new->u, sq_payload(new->kind));
}

int
sq_add(struct store_queue *q, enum sq_kind kind, const void *data)
{
	struct sq_entry	 tmp, *e;
	size_t		 size;

	memset(&tmp, 0, sizeof(tmp));
	tmp.kind = kind;
	memcpy(&tmp.u, data, sq_payload(kind));
	/* from another process: terminated here, whatever it sent */
	switch (kind) {
	case SQ_STATE:
		tmp.u.st.name[sizeof(tmp.u.st.name) - 1] = '\0';
		tmp.u.st.msg[sizeof(tmp.u.st.msg) - 1] = '\0';
		cause_sanitize(&tmp.u.st.cause);
		break;
	case SQ_LASTSEEN:
		tmp.u.ls.name[sizeof(tmp.u.ls.name) - 1] = '\0';
		break;
	case SQ_KEEPWARM:
		tmp.u.kw.name[sizeof(tmp.u.kw.name) - 1] = '\0';
		break;
	case SQ_MEMORY:
		tmp.u.mem.name[sizeof(tmp.u.mem.name) - 1] = '\0';
		break;
	case SQ_JOB:
		tmp.u.job.name[sizeof(tmp.u.job.name) - 1] = '\0';
		break;
	case SQ_UID:
		tmp.u.uid.name[sizeof(tmp.u.uid.name) - 1] = '\0';
		break;
	case SQ_MAINT:
		tmp.u.maint.name[sizeof(tmp.u.maint.name) - 1] = '\0';
		tmp.u.maint.m.msg[sizeof(tmp.u.maint.m.msg) - 1] = '\0';
		break;
	}
	if ((e = sq_find(q, kind, sq_name(&tmp))) != NULL) {
		sq_coalesce(e, &tmp);
		return (0);
	}
	size = sizeof(struct sq_entry) - sizeof(tmp.u) + sq_payload(kind);
	if (q->stats.queued >= q->max_count ||
	    q->stats.bytes + size > q->max_bytes ||
	    (e = malloc(sizeof(*e))) == NULL) {
		q->stats.drops++;
		q->full = 1;
		return (-1);
	}
	*e = tmp;
	e->size = size;
	TAILQ_INSERT_TAIL(&q->entries, e, entry);
	q->stats.queued++;
	q->stats.bytes += size;
	q->stats.total++;
	return (1);
}

size_t
sq_flush(struct store_queue *q, sq_write_fn fn, void *arg, size_t max)
{
	struct sq_entry	*e;
	size_t		 n = 0;

	if (TAILQ_EMPTY(&q->entries))
		return (0);
	q->stats.retries++;
	while (n < max && (e = TAILQ_FIRST(&q->entries)) != NULL) {
		if (fn(e, arg) == -1)
			break;
		sq_remove(q, e);
		n++;
	}
	return (n);
}

/*
 * The views, computed as store_db_state() and its kin will write: a
 * state told again changes nothing, a start is kept while running, a
 * wake ends in running (counted) or failed (counted apart) unless it
 * was adopted across a restart.
 */

struct sq_walk {
	enum workload_state	 state;
	uint64_t		 wakes;
	uint64_t		 failed;
};

/* 1: a transition, from w->state; w moves on */
static int
sq_step(struct sq_walk *w, const struct rt_state *st)
{
	int	 wake_end;

	if (st->state < WL_ASLEEP || st->state > WL_FAILED ||
	    (enum workload_state)st->state == w->state)
		return (0);
	wake_end = w->state == WL_WAKING && (st->state == WL_RUNNING ||
	    st->state == WL_FAILED) && st->reason != RT_REASON_RESTORED;
	if (wake_end && st->state == WL_RUNNING)
		w->wakes++;
	if (wake_end && st->state == WL_FAILED)
		w->failed++;
	w->state = st->state;
	return (1);
}

static int64_t
sq_time(const struct rt_state *st)
{
	if (st->since_ms > 0)
		return (st->since_ms / 1000);
	return (st->since);
}

void
sq_overlay_workload(const struct store_queue *q, struct ctl_workload *cw)
{
	const struct sq_entry	*e;
	struct sq_walk		 w;

	memset(&w, 0, sizeof(w));
	w.state = cw->state;
	TAILQ_FOREACH(e, &q->entries, entry) {
		if (strcmp(sq_name(e), cw->name) != 0)
			continue;
		switch (e->kind) {
		case SQ_STATE:
			if (!sq_step(&w, &e->u.st))
				break;
			cw->state = w.state;
			strlcpy(cw->msg, e->u.st.msg, sizeof(cw->msg));
			if (w.state == WL_RUNNING)
				cw->started_at = sq_time(&e->u.st);
			else if (w.state == WL_ASLEEP || w.state == WL_FAILED)
				cw->started_at = 0;
			break;
		case SQ_LASTSEEN:
			if (e->u.ls.last_seen > cw->last_seen)
				cw->last_seen = e->u.ls.last_seen;
			break;
		case SQ_KEEPWARM:
			/* -1, back to the definition's: the row knows it */
			if (e->u.kw.on != -1)
				cw->keep_warm = e->u.kw.on != 0;
			cw->keep_warm_until = e->u.kw.on == 1 ?
			    e->u.kw.until : 0;
			break;
		case SQ_MEMORY:
			if (e->u.mem.bytes > 0)
				cw->memory = e->u.mem.bytes;
			if (e->u.mem.estimate > 0)
				cw->memory_estimate = e->u.mem.estimate;
			break;
		case SQ_MAINT:
			cw->maint = e->u.maint.m;
			break;
		default:
			break;
		}
	}
	cw->wakes += w.wakes;
	cw->wakes_today += w.wakes;
}

/* a bound for the history's held part: the state changes held */
size_t
sq_transitions(const struct store_queue *q, const char *name)
{
	const struct sq_entry	*e;
	size_t			 n = 0;

	TAILQ_FOREACH(e, &q->entries, entry)
		if (e->kind == SQ_STATE && strcmp(e->u.st.name, name) == 0)
			n++;
	return (n);
}

int
sq_history(const struct store_queue *q, const char *name,
    enum workload_state from, int (*fn)(const struct ctl_transition *,
    void *), void *arg)
{
	const struct sq_entry	*e;
	struct ctl_transition	 ct;
	struct sq_walk		 w;
	int			 n = 0;

	memset(&w, 0, sizeof(w));
	w.state = from;
	TAILQ_FOREACH(e, &q->entries, entry) {
		if (e->kind != SQ_STATE || strcmp(e->u.st.name, name) != 0)
			continue;
		memset(&ct, 0, sizeof(ct));
		ct.from = w.state;
		if (!sq_step(&w, &e->u.st))
			continue;
		strlcpy(ct.name, name, sizeof(ct.name));
		ct.to = w.state;
		ct.reason = e->u.st.reason;
		strlcpy(ct.msg, e->u.st.msg, sizeof(ct.msg));
		ct.time = sq_time(&e->u.st);
		if (ct.to == WL_WAKING)
			ct.cause = e->u.st.cause;
		n++;
		if (fn(&ct, arg) == -1)
			break;
	}
	return (n);
}

/* from: the workload's state in the database */
void
sq_overlay_stats(const struct store_queue *q, struct ctl_stats *cs,
    enum workload_state from)
{
	const struct sq_entry	*e;
	struct sq_walk		 w;

	memset(&w, 0, sizeof(w));
	w.state = from;
	TAILQ_FOREACH(e, &q->entries, entry)
		if (e->kind == SQ_STATE && strcmp(e->u.st.name, cs->name) == 0)
			(void)sq_step(&w, &e->u.st);
	cs->wakes += w.wakes;
	cs->failed_wakes += w.failed;
}
