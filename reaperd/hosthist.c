/*
 * The host's figures over the last day, for the status page's charts
 * (GET /v1/host/history): a minute at a time, the requests answered,
 * the wakes, the memory charged to what runs and the budget.
 *
 * Each gateway tells its own minute (gatewayd/hostsample.c): with
 * "prefork N" the requests of a minute are the sum of what every
 * gateway answered, while the wakes and the memory, which every gateway
 * hears of alike from runtimed, only the first gateway tells (the most
 * said is kept: the others say 0).  The
 * reaper keeps them: unprivileged, it holds what the gateways share, and
 * outlives a reload (not a restart: the day starts again then).
 *
 * A fixed table of HOSTHIST_MINUTES slots, a minute's by its number
 * modulo the size, so that the memory is the same whatever comes: a
 * sample for a minute more than a day old, or ahead of now by more than
 * a minute, is not kept.
 */

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "hosthist.h"

void
hosthist_init(struct hosthist *h)
{
	memset(h, 0, sizeof(*h));
}

/* s from a gateway, at now (wall clock minutes): 0 kept, -1 not */
int
hosthist_add(struct hosthist *h, const struct host_sample *s, int64_t now)
{
	struct host_sample	*t;

	if (s->minute <= now - HOSTHIST_MINUTES || s->minute > now + 1 ||
	    s->minute <= 0 || s->in_use < 0 || s->budget < 0)
		return (-1);
	t = &h->slot[s->minute % HOSTHIST_MINUTES];
	if (t->minute != s->minute) {
		memset(t, 0, sizeof(*t));
		t->minute = s->minute;
	}
	if (t->requests + s->requests >= t->requests)
		t->requests += s->requests;
	t->wakes = MAXIMUM(t->wakes, s->wakes);
	t->in_use = MAXIMUM(t->in_use, s->in_use);
	t->budget = MAXIMUM(t->budget, s->budget);
	return (0);
}

/* the minutes of the last day at now, oldest first, into out: how many */
size_t
hosthist_get(const struct hosthist *h, int64_t now, struct host_sample *out,
    size_t max)
{
	const struct host_sample	*t;
	int64_t				 m;
	size_t				 n = 0;

	for (m = now - HOSTHIST_MINUTES + 1; m <= now + 1 && n < max; m++) {
		if (m <= 0)
			continue;
		t = &h->slot[m % HOSTHIST_MINUTES];
		if (t->minute == m)
			out[n++] = *t;
	}
	return (n);
}
