/*
 * The clocks and timers every process uses: the monotonic clock in
 * seconds, milliseconds and nanoseconds, the wall clock in milliseconds,
 * a one-shot libevent timer in milliseconds,
 * and a timer allocated only while it is armed.
 */

#ifndef ORCHD_TIMER_H
#define ORCHD_TIMER_H

#include <sys/types.h>
#include <sys/time.h>

#include <stdint.h>
#include <time.h>

#include <event.h>

time_t		 monotime(void);
int64_t		 monotime_ms(void);
int64_t		 monotime_ns(void);
int64_t		 walltime_ms(void);
int64_t		 mono_to_wall(int64_t);
void		 evtimer_add_ms(struct event *, int64_t);
void		 timer_arm(struct event **, void (*)(int, short, void *),
		    void *, const struct timeval *);
void		 timer_disarm(struct event **);

#endif /* ORCHD_TIMER_H */
