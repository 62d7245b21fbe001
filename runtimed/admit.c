/*
 * Admission to the memory budget: what a wake is charged, whether it may
 * start now, and which idle workloads to suspend first to make room for
 * it.  No I/O and no state of runtimed's: budget.c gathers the numbers
 * and carries out the verdict.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"

/*
 * What a workload is charged while it runs: its memory limit if it has
 * one (it can never use more), else its measured estimate, else the
 * default for one never measured.
 */
int64_t
admit_estimate(int64_t limit, int64_t measured, int64_t dflt)
{
	if (limit > 0)
		return (limit);
	if (measured > 0)
		return (measured);
	return (dflt);
}

/*
 * May a wake charged need start now?  A cap on concurrent wakes comes
 * first: a slot frees as soon as a wake ends, whatever the budget.  A
 * workload larger than the whole budget fits only once nothing else
 * holds memory.  When what is being stopped already makes room, nothing
 * more is stopped; otherwise *shortp is what must still be freed.
 */
enum admit_verdict
admit_check(const struct admit_state *s, int64_t need, int64_t *shortp)
{
	int64_t	 room;

	*shortp = 0;
	if (s->max_wakes > 0 && s->waking >= s->max_wakes)
		return (ADMIT_SLOT);
	if (s->budget <= 0)
		return (ADMIT_START);
	if (need > s->budget)
		need = s->budget;
	room = s->budget - s->in_use;
	if (need <= room)
		return (ADMIT_START);
	if (need <= room + s->freeing)
		return (ADMIT_FREEING);
	*shortp = need - room - s->freeing;
	return (ADMIT_EVICT);
}

/*
 * frozen before idle before busy; least recently used first; the same
 * second: by name
 */
static int
cand_cmp(const void *a, const void *b)
{
	const struct admit_cand	*x = a, *y = b;

	if (x->frozen != y->frozen)
		return (x->frozen ? -1 : 1);
	if (x->busy != y->busy)
		return (x->busy ? 1 : -1);
	if (x->last_used != y->last_used)
		return (x->last_used < y->last_used ? -1 : 1);
	return (strcmp(x->name, y->name));
}

/*
 * Sorts the candidates idle first, least recently used first, and
 * returns how many of the first ones give back at least shortfall bytes
 * together: the fewest in that order.  0 when all of them would not be enough: then
 * none is suspended, since stopping them would not let the wake start
 * and would cost their next requests a wake each.
 */
size_t
admit_pick(struct admit_cand *c, size_t n, int64_t shortfall)
{
	int64_t	 freed = 0;
	size_t	 i;

	if (n == 0 || shortfall <= 0)
		return (0);
	qsort(c, n, sizeof(*c), cand_cmp);
	for (i = 0; i < n; i++) {
		if (c[i].charge > 0)
			freed += c[i].charge;
		if (freed >= shortfall)
			return (i + 1);
	}
	return (0);
}

/*
 * The same for the wakes that wait, first come first served: need[0] is
 * what the first one is short (0 or less: what is free and being freed
 * covers it, and the rest is to spare), need[1..] what each one after it
 * needs.  Room is made at once for as many of them, in order, as the
 * idle candidates can cover together, so that their stops run side by
 * side rather than one wake's after another's; none is stopped for a
 * wake beyond those.  0 when nothing is to be stopped.
 */
size_t
admit_pick_queue(struct admit_cand *c, size_t n, const int64_t *need,
    size_t nneed)
{
	int64_t	 total = 0;
	size_t	 i, k, best = 0;

	for (i = 0; i < nneed; i++) {
		total += need[i];
		if (total <= 0)
			continue;
		if ((k = admit_pick(c, n, total)) == 0)
			break;
		best = k;
	}
	return (best);
}
