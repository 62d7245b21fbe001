/*
 * reaperd's view of each workload: what the gateway says of its use and
 * what runtimed says of its state.
 */

#ifndef ORCHD_REAPER_H
#define ORCHD_REAPER_H

#include <sys/tree.h>
#include <stdint.h>
#include <time.h>

#include "workload.h"

/*
 * Every time here is a monotonic second (monotime()): idleness and
 * expiry are durations, which a step of the wall clock must not
 * change.  What goes to the store or to a swarm label is turned into
 * wall time as it is sent (mono_to_wall()).
 */
struct reap_wl {
	RB_ENTRY(reap_wl)	 entry;
	const char		*name;		/* namebuf, or a key's */
	int64_t			 idle_timeout;	/* seconds, 0: never */
	int			 keep_warm;
	int			 warm_set;	/* keep_warm is orchctl's, not
						   the configuration's */
	int			 configured;
	enum workload_state	 state;
	time_t			 last_seen;	/* idle clock: use, wake, start */
	time_t			 used;		/* last request, as the gateway said */
	time_t			 sent;		/* used, as the store was last told */
	/* one bit per gateway ("prefork"): the ones that say so */
	uint32_t		 inflight;	/* requests in flight */
	uint32_t		 upgraded;	/* tunnels open */
	/* "depends on": what it depends on, of this generation */
	struct reap_wl		**deps;
	uint32_t		 ndeps;
	int			 held;		/* one depending on it is up */
	int64_t			 expire_after;	/* API's: seconds, 0: never */
	time_t			 born;		/* expiry clock's start */
	time_t			 expire_sent;	/* proposed to the parent */
	int			 swarm;		/* driver swarm: its last use
						   goes to its service too */
	time_t			 seen_sent;	/* ... as runtimed was told */
	int32_t			 up_idx;	/* in the ticks' list of those
						   up, or -1 */
	int			 used_marked;	/* in the list of those used
						   since the last tick */
	char			 namebuf[];	/* as long as the name */
};

/* policy.c: is this workload due to be suspended at now? */
int	reaper_due(const struct reap_wl *, time_t);
void	reaper_state(struct reap_wl *, enum workload_state, time_t);
void	reaper_hold(const struct reap_wl *);
int	reaper_is_up(enum workload_state);
/* policy.c: "some avg10" of a PSI file's text, in hundredths of a % */
int	reaper_psi_parse(const char *, int32_t *);

#endif /* ORCHD_REAPER_H */
