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

/* the most requests first; a tie by name, as the tree sorts */
static int
ranked_cmp(const void *a, const void *b)
{
	const struct ranked	*ra = a, *rb = b;

	if (ra->requests != rb->requests)
		return (ra->requests > rb->requests ? -1 : 1);
	return (strcmp(ra->wl->name, rb->wl->name));
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
 * top: 0 every workload, -1 none, N the N with the most requests.  A
 * top of more than there are workloads is every one.
 */
void
metrics_top_pick(const struct metrics_sum *sum, int32_t top)
{
	struct gw_workload	*wl;
	struct ranked		*r;
	size_t			 n = 0, i;

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
	if ((r = calloc(n, sizeof(*r))) == NULL) {
		log_warn("%s", __func__);
		return;
	}
	i = 0;
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured || i >= n)
			continue;
		r[i].requests = requests_of(wl, sum);
		r[i++].wl = wl;
	}
	qsort(r, i, sizeof(*r), ranked_cmp);
	for (n = 0; n < i; n++)
		r[n].wl->metrics.own = n < (size_t)top;
	metrics_others = 1;
	free(r);
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
