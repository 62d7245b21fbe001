/*
 * A connection's timer, shared by every file that handles connections,
 * down here so that those below conn.c (activity.c) may move it too.
 *
 * A keep-alive request moves the connection's timeout three or four
 * times (head, upstream, each piece of the answer, keep-alive), and each
 * evtimer_add() takes the timer out of libevent's heap and puts it back:
 * so the timer is armed again only when the deadline comes sooner than
 * it fires.  When it fires before the deadline, conn_timeout() arms it
 * for the rest.  The coarse clock is the vDSO's, no system call; its
 * ticks of a few milliseconds do not matter to timeouts in seconds.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <time.h>

#include "log.h"
#include "timer.h"
#include "gateway.h"

int64_t
conn_now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == -1)
		fatal("clock_gettime");
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

void
conn_timer(struct gw_conn *c, int64_t secs)
{
	int64_t	 deadline = conn_now_ms() + secs * 1000;

	if (c->timer_at <= deadline && evtimer_pending(&c->timer, NULL)) {
		c->deadline = deadline;
		return;
	}
	c->deadline = c->timer_at = deadline;
	evtimer_add_ms(&c->timer, secs * 1000);
}

/* a timeout to the millisecond (the API's): armed as it is, no deadline */
void
conn_timer_ms(struct gw_conn *c, int64_t ms)
{
	c->deadline = 0;
	c->timer_at = INT64_MAX;
	evtimer_add_ms(&c->timer, ms);
}
