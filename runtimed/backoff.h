/*
 * Restarts and crash-loop protection: the arithmetic of both, apart
 * from the event loop so that the unit tests run it alone
 * (regress/unit/test_backoff.c).  Times are milliseconds of one
 * monotonic clock, given by the caller.
 *
 * Restart delay: a workload kept warm that stops by itself is started
 * again after a delay of 1 s, doubling with each restart up to 5 min;
 * once it has run 10 min it is back to 1 s.
 *
 * Crash-loop backoff: after 3 failed wakes within a minute a workload is
 * in backoff for 30 s, during which only an operator may wake it.  A
 * wake that fails after a backoff, before any wake succeeded, begins the
 * next one at once, twice as long, up to 10 min.  A wake that succeeds
 * ends it all; so do 10 min without a failed wake, after the last
 * backoff's end.
 *
 * Readiness (ready.c): the first check at once, the next ones 1 ms
 * apart for the start's first 16 ms, then an eighth of the time it has
 * taken so far, up to 50 ms (below any health interval, which is whole
 * seconds).  A workload that listens after T ms is seen at most
 * max(1 ms, min(T/8, 50 ms)) late, and one that takes seconds is
 * checked 20 times a second at most until its wake timeout.
 */

#ifndef RUNTIMED_BACKOFF_H
#define RUNTIMED_BACKOFF_H

#include <stdint.h>

#define RESTART_DELAY_MIN	1000		/* ms */
#define RESTART_DELAY_MAX	(5 * 60 * 1000)
#define RESTART_RESET_UP	(10 * 60 * 1000) /* ran this long: reset */

#define CRASH_FAILS		3		/* failed wakes ... */
#define CRASH_WINDOW		(60 * 1000)	/* ... within this */
#define CRASH_BACKOFF_MIN	(30 * 1000)	/* ms */
#define CRASH_BACKOFF_MAX	(10 * 60 * 1000)
#define CRASH_FORGET		(10 * 60 * 1000) /* quiet this long: afresh */

#define READY_DELAY_MIN		1		/* ms */
#define READY_DELAY_MAX		50
#define READY_DELAY_SHARE	8		/* of the time so far */
#define READY_FAST_MS		4		/* first, checks this often: */
#define READY_FAST_US		250

struct rt_backoff {
	int64_t		 fails[CRASH_FAILS];	/* the last failed wakes */
	int		 nfails;		/* in fails, up to CRASH_FAILS */
	int64_t		 last_fail;		/* 0: none */
	int64_t		 backoff;		/* the last one's length; 0 */
	int64_t		 until;			/* in backoff until; 0 */
	int64_t		 delay;			/* the last restart delay */
};

int64_t		 backoff_failed(struct rt_backoff *, int64_t);
void		 backoff_succeeded(struct rt_backoff *);
int64_t		 backoff_left(const struct rt_backoff *, int64_t);
int64_t		 restart_delay(struct rt_backoff *, int64_t);
int64_t		 ready_delay(int64_t);
int64_t		 ready_delay_us(int64_t);

#endif /* RUNTIMED_BACKOFF_H */
