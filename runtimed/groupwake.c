/*
 * Groups that wake together: a request (HTTP, or a TCP listener's
 * connection) that finds asleep a member whose definition says "group
 * wake together" wakes every member of its group, as Sablier's groups
 * do, rather than only the member and what it depends on.  Each other
 * member's wake is any wake: the memory budget admits it or makes it
 * wait, one under way is joined, one running is left alone.  The
 * gateway serves its held request once the member it asked for is
 * ready, whatever the others do; one of them that fails is in its own
 * history and fails only what depends on it.
 *
 * "group wake dependencies", the default, leaves the request to wake
 * the member and what it depends on (lifecycle.c) and nothing more.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "workload.h"
#include "lifecycle_events.h"

/* does o, another member of group g, need a wake? */
static int
group_asleep(const struct rt_workload *o, const struct rt_workload *wl,
    const char *g)
{
	if (o == wl || o->conf == NULL || o->conf->group == NULL ||
	    strcmp(o->conf->group, g) != 0)
		return (0);
	/* a job done stays done, as for a dependency's wake */
	return (o->state != WL_RUNNING && o->state != WL_WAKING &&
	    !job_done(o));
}

/* a request woke name: its group too, if it says so */
void
group_wake_request(const char *name)
{
	struct rt_workload	*wl, *o;
	struct wake_cause	 cause;
	char			 g[ORCHD_NAME_MAX];
	int			 n = 0;

	if ((wl = lifecycle->find(name)) == NULL || wl->conf == NULL ||
	    wl->conf->group == NULL ||
	    wl->conf->group_wake != GROUP_WAKE_TOGETHER)
		return;
	/* the group's name, ours while its members are woken */
	strlcpy(g, wl->conf->group, sizeof(g));
	lifecycle->cause(&cause, WAKE_DEPENDENCY);
	RB_FOREACH(o, rt_workloads, &rt->workloads) {
		if (!group_asleep(o, wl, g))
			continue;
		log_debug("workload %s: woken with group %s, for %s", o->name,
		    g, name);
		lifecycle->wake(o->name, RT_REASON_DEPENDENCY, &cause);
		n++;
	}
	if (n > 0)
		log_info("workload %s: group %s wakes together: %d more", name,
		    g, n);
}
