/*
 * A group expires as one.  The reaper proposes each API workload whose
 * "expire after" has passed without a request (reaperd.c), again every
 * minute while it stays due.  A member of a group (its "group", a
 * project of orchctl import compose) is expired only once every other
 * member that can expire has been proposed too within
 * GROUP_EXPIRE_WINDOW, less than the reaper's minute, so that a mark is
 * as fresh as the last ask: none goes while another of its group is
 * used.  Each member goes on its own proposal, never on another's (the
 * parent does not see requests, and a member used since its mark must
 * not go): the group is gone within two of the reaper's asks, its
 * dependents first (a workload another depends on is refused, and
 * proposed again a minute later).
 *
 * The proposals are kept here by workload name, bounded, and forgotten
 * once older than the window.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "timer.h"
#include "workload.h"

#define GROUP_EXPIRE_WINDOW	45	/* seconds: under the reaper's 60 */
#define GROUP_EXPIRE_MAX	65536	/* proposals kept */

struct gexp {
	RB_ENTRY(gexp)	 entry;
	char		 name[ORCHD_NAME_MAX];
	time_t		 at;		/* monotonic */
};

int		gexp_cmp(struct gexp *, struct gexp *);
RB_HEAD(gexps, gexp);
RB_PROTOTYPE(gexps, gexp, entry, gexp_cmp);
RB_GENERATE(gexps, gexp, entry, gexp_cmp);

static struct gexps	 gexps = RB_INITIALIZER(&gexps);
static unsigned int	 ngexps;

int
gexp_cmp(struct gexp *a, struct gexp *b)
{
	return (strcmp(a->name, b->name));
}

/* the proposals older than the window go */
static void
gexp_prune(time_t now)
{
	struct gexp	*g, *next;

	RB_FOREACH_SAFE(g, gexps, &gexps, next) {
		if (now - g->at <= GROUP_EXPIRE_WINDOW)
			continue;
		RB_REMOVE(gexps, &gexps, g);
		free(g);
		ngexps--;
	}
}

static void
gexp_mark(const char *name, time_t now)
{
	struct gexp	 key, *g;

	(void)strlcpy(key.name, name, sizeof(key.name));
	if ((g = RB_FIND(gexps, &gexps, &key)) == NULL) {
		if (ngexps >= GROUP_EXPIRE_MAX ||
		    (g = calloc(1, sizeof(*g))) == NULL)
			return;
		(void)strlcpy(g->name, name, sizeof(g->name));
		RB_INSERT(gexps, &gexps, g);
		ngexps++;
	}
	g->at = now;
}

static int
gexp_recent(const char *name)
{
	struct gexp	 key;

	(void)strlcpy(key.name, name, sizeof(key.name));
	return (RB_FIND(gexps, &gexps, &key) != NULL);
}

/*
 * The reaper proposes wc: 1 if it may expire now, 0 while a member of
 * its group that can expire has not been proposed too (still used).
 */
int
group_expire_ready(const struct orchd_conf *conf,
    const struct workload_conf *wc)
{
	const struct workload_conf	*m;
	time_t				 now = monotime();
	int64_t				 secs;

	gexp_prune(now);
	if (wc->group == NULL)
		return (1);
	gexp_mark(wc->name, now);
	TAILQ_FOREACH(m, &conf->workloads, entry) {
		if (m == wc || m->group == NULL ||
		    strcmp(m->group, wc->group) != 0 ||
		    m->source != SOURCE_API)
			continue;
		secs = m->expire_after >= 0 ? m->expire_after :
		    conf->expire_after;
		if (secs > 0 && !gexp_recent(m->name)) {
			log_info("API: workload %s: expiry waits for %s, of "
			    "its group %s, still used", wc->name, m->name,
			    wc->group);
			return (0);
		}
	}
	return (1);
}
