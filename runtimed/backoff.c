/*
 * Restart delays, crash-loop backoff and the readiness checks' pace, as
 * backoff.h says: counting only, the lifecycle (lifecycle.c) and
 * readiness (ready.c) act on what these return.
 */

#include <stdint.h>
#include <string.h>

#include "backoff.h"

#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

/*
 * A wake failed at now.  Returns how long the workload is in backoff
 * from now, 0 if it is not.
 */
int64_t
backoff_failed(struct rt_backoff *b, int64_t now)
{
	int64_t	 quiet;
	int	 i;

	/* a failure long after the last one and its backoff: afresh */
	quiet = b->until > b->last_fail ? b->until : b->last_fail;
	if (b->last_fail != 0 && now - quiet >= CRASH_FORGET) {
		b->nfails = 0;
		b->backoff = 0;
	}
	b->last_fail = now;
	if (b->backoff != 0) {
		/* still crashing after a backoff: the next, longer */
		b->backoff = MIN(b->backoff * 2, CRASH_BACKOFF_MAX);
		b->until = now + b->backoff;
		return (b->backoff);
	}
	if (b->nfails == CRASH_FAILS) {
		for (i = 1; i < CRASH_FAILS; i++)
			b->fails[i - 1] = b->fails[i];
		b->nfails--;
	}
	b->fails[b->nfails++] = now;
	if (b->nfails < CRASH_FAILS || now - b->fails[0] > CRASH_WINDOW)
		return (0);
	b->backoff = CRASH_BACKOFF_MIN;
	b->until = now + b->backoff;
	b->nfails = 0;
	return (b->backoff);
}

/* a wake succeeded: no backoff, and no failure counts any more */
void
backoff_succeeded(struct rt_backoff *b)
{
	int64_t	 delay = b->delay;

	memset(b, 0, sizeof(*b));
	b->delay = delay;
}

/* milliseconds left of the backoff at now, 0 if it is over */
int64_t
backoff_left(const struct rt_backoff *b, int64_t now)
{
	return (b->until > now ? b->until - now : 0);
}

/*
 * The delay before the next restart of a workload kept warm, which ran
 * up ms before it stopped (0: it never ran).
 */
int64_t
restart_delay(struct rt_backoff *b, int64_t up)
{
	if (up >= RESTART_RESET_UP || b->delay == 0)
		b->delay = RESTART_DELAY_MIN;
	else
		b->delay = MIN(b->delay * 2, RESTART_DELAY_MAX);
	return (b->delay);
}

/*
 * The wait before the next readiness check of a start elapsed ms old
 * whose last check failed: a share of the time so far, at least
 * READY_DELAY_MIN, at most READY_DELAY_MAX.
 */
int64_t
ready_delay(int64_t elapsed)
{
	int64_t	 d = elapsed > 0 ? elapsed / READY_DELAY_SHARE : 0;

	return (MAX(READY_DELAY_MIN, MIN(d, READY_DELAY_MAX)));
}

/*
 * The same in microseconds, with a first phase: READY_FAST_US apart for
 * the first READY_FAST_MS.  Most programs listen within a few ms of
 * their exec, and a check 1 ms apart sees them half a millisecond late
 * on average, most of what a wake adds to the program's own start; a
 * refused connect on loopback costs microseconds.
 */
int64_t
ready_delay_us(int64_t elapsed_us)
{
	if (elapsed_us < (int64_t)READY_FAST_MS * 1000)
		return (READY_FAST_US);
	return (ready_delay(elapsed_us / 1000) * 1000);
}
