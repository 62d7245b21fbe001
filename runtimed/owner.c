/*
 * The listener check, runtimed's side: a workload is served only by a
 * listener that is its own.
 *
 * A readiness check that passed says something answers on the
 * workload's address, not that it is the workload: another workload, or
 * any user of the host, may have bound the port while it slept.  So
 * before a woken workload is marked running (and anything proxied to
 * it), and after each liveness check that passed, runtimed asks the
 * parent whose the listeners on that address are (IMSG_RT_OWNER_ASK;
 * orchd/owner.c says why the parent answers).  The workload stays waking
 * meanwhile, its wake timeout running.  An answer that says another's,
 * or that it could not tell, fails the workload (lifecycle_squatted): the
 * requests held for its wake are answered 503, nothing is proxied to the
 * other listener, and the history says whose it is.
 *
 * One question at a time per workload; seq tells an answer to a question
 * no longer asked (the wake ended, the checks stopped), which is dropped.
 * This runs at wakes and health checks only, never per request.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "workload.h"

static uint32_t		 owner_seq;

/* ask whether wl's listeners are its own; for a wake, or a liveness check */
void
owner_ask(struct rt_workload *wl, enum owner_for why)
{
	struct rt_owner_ask	 q;

	memset(&q, 0, sizeof(q));
	strlcpy(q.name, wl->name, sizeof(q.name));
	memcpy(&q.addr, &wl->addr, sizeof(q.addr));
	q.addrlen = wl->addrlen;
	if (++owner_seq == 0)
		owner_seq = 1;
	q.seq = owner_seq;
	wl->owner_seq = q.seq;
	wl->owner_for = why;
	if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_OWNER_ASK, 0, -1, &q,
	    sizeof(q)) == -1) {
		log_warn("workload %s: listener check", wl->name);
		wl->owner_for = OWNER_NONE;
		lifecycle->squatted(wl, "listener check: cannot ask the parent");
	}
}

/* the question of why, if asked, is no longer: its answer is dropped */
void
owner_cancel(struct rt_workload *wl, enum owner_for why)
{
	if (wl->owner_for == why)
		wl->owner_for = OWNER_NONE;
}

void
owner_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_owner		 ro;
	struct rt_workload	*wl;
	enum owner_for		 why;
	char			 msg[RT_MSG_MAX];

	(void)imsg_get_data(imsg, &ro, sizeof(ro));
	if ((wl = lifecycle->find(ro.name)) == NULL ||
	    wl->owner_for == OWNER_NONE || wl->owner_seq != ro.seq)
		return;
	why = wl->owner_for;
	wl->owner_for = OWNER_NONE;
	if (ro.ok == 1) {
		if (why == OWNER_WAKE)
			lifecycle->ready(wl);
		return;
	}
	if (ro.ok == 0)
		(void)snprintf(msg, sizeof(msg), "%s", ro.msg);
	else
		(void)snprintf(msg, sizeof(msg), "listener check: %.200s", ro.msg);
	log_warnx("workload %s: %s: never proxied there", wl->name, msg);
	lifecycle->squatted(wl, msg);
}
