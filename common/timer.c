/*
 * Clocks and timers, apart from the channels (proc.c) so that code that
 * only measures time or arms a timer needs nothing of the processes.
 * The monotonic clock: a step of the wall clock moves no deadline; the
 * wall clock only for times a person reads.
 */

#include <sys/types.h>
#include <sys/time.h>

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <event.h>

#include "log.h"
#include "timer.h"

time_t
monotime(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return (ts.tv_sec);
}

/* the same clock in milliseconds: deadlines and durations */
int64_t
monotime_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* in nanoseconds: durations well under a millisecond, a wake's wait */
int64_t
monotime_ns(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/*
 * The wall clock in milliseconds: for what is shown or kept, the
 * history, the events, the database's times; never for a deadline.
 */
int64_t
walltime_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * The wall time, in seconds, of mono, a monotonic second (monotime()):
 * from its age now, so a step of the wall clock since then shows as
 * the same age, not as a jump.  0 (never) stays 0.  For display and for
 * what leaves the host (the store, a swarm label): the monotonic clock
 * is this host's alone, and its times are read by nobody.
 */
int64_t
mono_to_wall(int64_t mono)
{
	if (mono == 0)
		return (0);
	return (walltime_ms() / 1000 - (monotime() - mono));
}

/* a one-shot timer ms milliseconds from now */
void
evtimer_add_ms(struct event *ev, int64_t ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(ev, &tv);
}

/*
 * A timer that is seldom armed, such as a workload's wake timeout: the
 * owner keeps a pointer, NULL while disarmed, not a 128-byte struct event
 * for each of thousands of workloads.  timer_disarm deletes and frees it,
 * from its own callback too (libevent no longer looks at a fired timer).
 */
void
timer_arm(struct event **evp, void (*cb)(int, short, void *), void *arg,
    const struct timeval *tv)
{
	if (*evp == NULL) {
		if ((*evp = calloc(1, sizeof(**evp))) == NULL)
			fatal("%s", __func__);
		evtimer_set(*evp, cb, arg);
	}
	evtimer_add(*evp, tv);
}

void
timer_disarm(struct event **evp)
{
	if (*evp == NULL)
		return;
	evtimer_del(*evp);
	free(*evp);
	*evp = NULL;
}
