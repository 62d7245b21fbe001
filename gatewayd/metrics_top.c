/*
 * Which workloads have series of their own in GET /metrics, by "metrics
 * per workload" (orchd.conf.5): every one (on, the default), none (off),
 * or the top N by requests answered, every gateway's counted.  The
 * others are summed into one series labelled workload="_other", a name
 * no workload can have (a name begins with a letter or a digit), so
 * that 100,000 workloads do not make /metrics 100,000 series per family.
 * Picked at each writing, so that the top follows the traffic.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

static int	metrics_others;		/* some are in "_other" */

struct ranked {
	uint64_t		 requests;
	struct gw_workload	*wl;
};

/*
 * a ranks before b: the most requests first, a tie by name, as the tree
 * sorts (names are unique: the top N is one set, however it is found)
 */
static int
ranked_before(const struct ranked *a, const struct ranked *b)
{
	if (a->requests != b->requests)
		return (a->requests > b->requests);
	return (strcmp(a->wl->name, b->wl->name) < 0);
}

static uint64_t
requests_of(const struct gw_workload *wl, const struct metrics_sum *sum)
{
	const struct gw_metrics_wl	*o;
	uint64_t			 n = 0;
	int				 i;

	o = metrics_sum_find(sum, wl->name);
	for (i = 0; i < 5; i++)
		n += (wl->metrics.counts != NULL ?
		    wl->metrics.counts->requests[i] : 0) +
		    (o != NULL ? o->requests[i] : 0);
	return (n);
}

/*
 * The top kept in a heap of at most top entries, the last of them at
 * its root: each workload is compared with that one only, and replaces
 * it if it ranks before, in log(top) steps.  O(n log top) and top
 * entries of memory at each writing, not a sort of every workload.
 */
static void
heap_down(struct ranked *h, size_t n, size_t i)
{
	struct ranked	 t;
	size_t		 c;

	while ((c = 2 * i + 1) < n) {
		/* of the two children, the one that ranks last */
		if (c + 1 < n && ranked_before(&h[c], &h[c + 1]))
			c++;
		if (!ranked_before(&h[i], &h[c]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

static void
heap_up(struct ranked *h, size_t i)
{
	struct ranked	 t;
	size_t		 p;

	while (i > 0) {
		p = (i - 1) / 2;
		if (!ranked_before(&h[p], &h[i]))
			return;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

/*
 * top: 0 every workload, -1 none, N the N with the most requests.  A
 * top of more than there are workloads is every one.
 */
void
metrics_top_pick(const struct metrics_sum *sum, int32_t top)
{
	struct gw_workload	*wl;
	struct ranked		*h, c;
	size_t			 n = 0, k = 0, i;

	metrics_others = 0;
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		wl->metrics.own = top >= 0;
		if (wl->configured)
			n++;
	}
	if (top == -1)
		metrics_others = n > 0;
	if (top <= 0 || n <= (size_t)top)
		return;
	/* no room to rank: every workload's own series, as with on */
	if ((h = calloc(top, sizeof(*h))) == NULL) {
		log_warn("%s", __func__);
		return;
	}
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		wl->metrics.own = 0;
		c.requests = requests_of(wl, sum);
		c.wl = wl;
		if (k < (size_t)top) {
			h[k] = c;
			heap_up(h, k++);
		} else if (ranked_before(&c, &h[0])) {
			h[0] = c;
			heap_down(h, k, 0);
		}
	}
	for (i = 0; i < k; i++)
		h[i].wl->metrics.own = 1;
	metrics_others = 1;
	free(h);
}

/* wl has series of its own at this writing */
int
metrics_top_own(const struct gw_workload *wl)
{
	return (wl->metrics.own);
}

/* the "_other" series are written at this writing */
int
metrics_top_others(void)
{
	return (metrics_others);
}
