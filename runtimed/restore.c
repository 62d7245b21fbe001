/*
 * What the store remembers from the last run: one IMSG_ST_RESTORE per
 * workload, then IMSG_ST_RESTORE_DONE, sent once when the store has
 * applied the first configuration.  The store and runtimed apply that
 * configuration independently, so the store's messages may come first:
 * they are kept here until runtimed knows its workloads.  A store whose
 * database had no workload's row says so first (IMSG_ST_RESTORE_NONE),
 * before it acknowledges the first configuration, and sends no row.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "util.h"
#include "runtime.h"

/*
 * Rows held before runtimed is configured are bounded by the generation
 * it has whole but not yet started (the parent starts it once every
 * child, the store too, has it; the store's rows come on another
 * channel): the store sends at most one row a workload of it.  A fixed
 * bound (65,536) dropped the rest at 100,000 workloads.
 */

struct restore_entry {
	TAILQ_ENTRY(restore_entry) entry;
	struct st_restore	 rs;
};
static TAILQ_HEAD(, restore_entry) restore_pending =
    TAILQ_HEAD_INITIALIZER(restore_pending);
static uint32_t	restore_npending;
static int	restore_done_pending;
static struct event	*restore_trim_ev;

/*
 * The restore's end tells every workload's state to four processes
 * (lifecycle_check_end()): 40 MiB of messages at 10,000 workloads, freed
 * as they are written, below whatever was allocated meanwhile, where
 * glibc keeps them.  A second later they are written: the heap goes back.
 */
static void
restore_trim(int fd, short ev, void *arg)
{
	heap_trim();
}

static void
restore_end(void)
{
	struct timeval	 tv = { 1, 0 };

	lifecycle_restore_done();
	timer_arm(&restore_trim_ev, restore_trim, NULL, &tv);
}

void
restore_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct restore_entry	*re;
	struct st_restore	 rs;

	(void)imsg_get_data(imsg, &rs, sizeof(rs));
	if (rt->configured) {
		lifecycle_restore(&rs);
		return;
	}
	if (restore_npending >= cfg_pending_workloads() ||
	    (re = calloc(1, sizeof(*re))) == NULL) {
		log_warnx("workload %s: restore dropped", rs.name);
		return;
	}
	re->rs = rs;
	TAILQ_INSERT_TAIL(&restore_pending, re, entry);
	restore_npending++;
}

void
restore_recv_done(struct imsgev *iev, struct imsg *imsg)
{
	if (rt->configured)
		restore_end();
	else
		restore_done_pending = 1;
}

/*
 * The store had no row at start (its database is new): nothing it sends
 * later can change a workload, and a wake need not wait for its end,
 * which comes after the store's first whole write.
 */
void
restore_recv_none(struct imsgev *iev, struct imsg *imsg)
{
	if (rt->store_none || rt->restored)
		return;
	rt->store_none = 1;
	log_debug("the store has no row: wakes wait on no restore");
	if (rt->configured)
		lifecycle_restore_none();
}

/* runtimed has its workloads now: what came early is acted on */
void
restore_replay(void)
{
	struct restore_entry	*re;

	while ((re = TAILQ_FIRST(&restore_pending)) != NULL) {
		TAILQ_REMOVE(&restore_pending, re, entry);
		lifecycle_restore(&re->rs);
		free(re);
	}
	restore_npending = 0;
	if (restore_done_pending) {
		restore_done_pending = 0;
		restore_end();
	}
}
