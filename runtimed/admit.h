/*
 * The memory budget's decisions as pure functions (admit.c), kept apart
 * from runtimed's state so that the unit tests call them as they are.
 */

#ifndef RUNTIMED_ADMIT_H
#define RUNTIMED_ADMIT_H

#include <stddef.h>
#include <stdint.h>

/* what runs and starts now, as the budget counts it */
struct admit_state {
	int64_t		 budget;	/* bytes; 0: none */
	int64_t		 in_use;	/* charged to what holds memory */
	int64_t		 freeing;	/* of in_use, being stopped now */
	int64_t		 max_wakes;	/* 0: no cap */
	int64_t		 waking;	/* starting now */
};

enum admit_verdict {
	ADMIT_START = 0,	/* it fits: start it */
	ADMIT_SLOT,		/* max concurrent wakes are under way */
	ADMIT_FREEING,		/* what is being stopped will make room */
	ADMIT_EVICT		/* room must be made: suspend idle ones */
};

/*
 * A workload that may be suspended for room: running and, as far as the
 * gateways last said, idle; or busy as they last said, which may be
 * stale by now (its drain will tell): those come after every idle one.
 */
struct admit_cand {
	void		*wl;		/* the caller's */
	int64_t		 charge;	/* bytes it gives back */
	int64_t		 last_used;	/* monotonic seconds */
	int		 busy;		/* in flight, last the gateways said */
	int		 frozen;	/* frozen: idle, evicted first */
	const char	*name;		/* ties: by name, for a stable order */
};

int64_t			 admit_estimate(int64_t, int64_t, int64_t);
enum admit_verdict	 admit_check(const struct admit_state *, int64_t,
			    int64_t *);
size_t			 admit_pick(struct admit_cand *, size_t, int64_t);
size_t			 admit_pick_queue(struct admit_cand *, size_t,
			    const int64_t *, size_t);

#endif /* RUNTIMED_ADMIT_H */
