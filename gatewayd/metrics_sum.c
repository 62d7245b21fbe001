/*
 * GET /metrics when several gateways share the listeners ("prefork").
 *
 * The gateway that answers counts only the requests it took itself, so
 * it asks the parent for the others' counts: the parent says how many
 * gateways will answer, asks each of them (IMSG_GW_METRICS_DUMP) and
 * passes their answers on.  They are added up by workload name into a
 * table of the asker's own names, sorted like its tree; a workload the
 * asker does not know (a reload half done) is left out, as the asker
 * would leave it out anyway.  The answer to such a question, the
 * gateway's own counts, is metrics.c's (metrics_recv_dump()).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "gateway.h"
#include "metrics.h"

static int
sum_cmp(const void *key, const void *elem)
{
	const struct gw_metrics_wl	*e = elem;

	return (strcmp(key, e->name));
}

struct metrics_sum *
metrics_sum_new(void)
{
	struct metrics_sum	*sum;
	struct gw_workload	*wl;
	size_t			 n = 0;

	if ((sum = calloc(1, sizeof(*sum))) == NULL)
		return (NULL);
	sum->expect = UINT32_MAX;	/* until the parent says */
	RB_FOREACH(wl, gw_workloads, &gw->workloads)
		if (wl->configured)
			n++;
	if (n > 0 && (sum->wl = calloc(n, sizeof(*sum->wl))) == NULL) {
		free(sum);
		return (NULL);
	}
	/* the tree is in strcmp() order of the names: sorted already */
	RB_FOREACH(wl, gw_workloads, &gw->workloads)
		if (wl->configured)
			strlcpy(sum->wl[sum->nwl++].name, wl->name,
			    sizeof(sum->wl[0].name));
	return (sum);
}

void
metrics_sum_free(struct metrics_sum *sum)
{
	if (sum == NULL)
		return;
	free(sum->wl);
	free(sum);
}

static struct gw_metrics_wl *
sum_entry(const struct metrics_sum *sum, const char *name)
{
	if (sum == NULL || sum->nwl == 0)
		return (NULL);
	return (bsearch(name, sum->wl, sum->nwl, sizeof(*sum->wl), sum_cmp));
}

const struct gw_metrics_wl *
metrics_sum_find(const struct metrics_sum *sum, const char *name)
{
	return (sum_entry(sum, name));
}

void
metrics_sum_add(struct metrics_sum *sum, const struct gw_metrics_wl *add)
{
	struct gw_metrics_wl	*e;

	if ((e = sum_entry(sum, add->name)) != NULL)
		metrics_wl_add(e, add);
}
