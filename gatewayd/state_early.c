/*
 * runtimed's states that come before this gateway's first configuration.
 * At a start gatewayd shows each workload of its first generation as
 * "checking" until runtimed tells what its driver found
 * (route_apply.c); runtimed may tell it before gatewayd has applied
 * that generation, its messages and the parent's coming on different
 * channels.  Such a state is kept here, the last one of each name, and
 * given to the workload once it exists: else it would stay "checking".
 * After the first configuration nothing is kept: a state for a name
 * unknown then is for one a reload removed.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "gateway.h"
#include "metrics.h"

/* as many workloads as a configuration names, and more */
#define STATE_EARLY_MAX		16384

struct state_early {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 state;
	int32_t			 reason;
	int64_t			 since_ms;
	int64_t			 backoff_ms;
	struct wl_maint		 maint;
};

static struct state_early	*early;
static size_t			 nearly, early_cap;
static int			 early_done;

/* 1 if st was kept for a workload not configured yet */
int
state_early_keep(const struct rt_state *st)
{
	struct state_early	*e, *n;
	size_t			 i, cap;

	if (early_done)
		return (0);
	for (i = 0; i < nearly; i++)
		if (strcmp(early[i].name, st->name) == 0)
			break;
	if (i == nearly) {
		if (nearly >= STATE_EARLY_MAX) {
			log_warnx("%s: state before the configuration "
			    "dropped", st->name);
			return (1);
		}
		if (nearly == early_cap) {
			cap = early_cap == 0 ? 64 : early_cap * 2;
			if ((n = reallocarray(early, cap, sizeof(*n))) == NULL) {
				log_warn("%s", __func__);
				return (1);
			}
			early = n;
			early_cap = cap;
		}
		nearly++;
	}
	e = &early[i];
	strlcpy(e->name, st->name, sizeof(e->name));
	e->state = st->state;
	e->reason = st->reason;
	e->since_ms = st->since_ms;
	e->backoff_ms = st->backoff_ms;
	e->maint = st->maint;
	e->maint.msg[sizeof(e->maint.msg) - 1] = '\0';
	return (1);
}

/* the first generation is applied: each kept state to its workload */
void
state_early_apply(void)
{
	struct gw_workload	*wl;
	size_t			 i;

	if (early_done)
		return;
	early_done = 1;
	for (i = 0; i < nearly; i++) {
		if ((wl = gw_workload_find(early[i].name)) == NULL)
			continue;
		/* no request can have been parked yet: the state alone */
		metrics_state(wl, early[i].state, early[i].reason,
		    early[i].since_ms);
		wl->state = early[i].state;
		wl->backoff_end = early[i].backoff_ms > 0 ?
		    monotime_ms() + early[i].backoff_ms : 0;
		gw_maint_set(wl, &early[i].maint);
	}
	free(early);
	early = NULL;
	nearly = early_cap = 0;
}
