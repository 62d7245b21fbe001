/*
 * orchctl's commands that change a workload: wake, suspend, keepwarm and
 * restart,
 * forwarded by the parent under its request's id, or sent by a gateway
 * for the HTTP API under its own.  Each is answered once with IMSG_CTL_OK
 * or IMSG_CTL_FAIL to whoever asked (struct proc_asker, proc_reply_*);
 * a FAIL's code says why (CTL_ERR_*) for the API.
 *
 * wake and suspend are answered when they are done, as orchctl(8)
 * promises ("report whether it became ready"): the command waits on the
 * workload (struct rt_waiter) and the lifecycle's next states settle it.
 * The parent drops an answer for a request whose client has gone, so a
 * waiter is never cancelled here.  The control socket itself is the parent's
 * (orchd/control.c); this file only carries out what it forwards.
 */

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "util.h"
#include "workload.h"

#define RT_WAITERS_MAX		64	/* commands per workload */

/* the name of a command, and its workload if it is configured */
static struct rt_workload *
command_workload(const struct proc_asker *a, struct imsg *imsg, char *name,
    size_t len)
{
	struct rt_workload	*wl;
	struct ctl_name		 cn;

	(void)imsg_get_data(imsg, &cn, sizeof(cn));
	strlcpy(name, cn.name, len);
	if ((wl = lifecycle->find(cn.name)) == NULL || wl->conf == NULL) {
		proc_reply_fail(rt->ps, a, CTL_ERR_NOENT,
		    "no such workload: %s", cn.name);
		return (NULL);
	}
	return (wl);
}

static int
command_wait(struct rt_workload *wl, const struct proc_asker *a,
    enum workload_state want)
{
	struct rt_waiter	*w;
	int			 n = 0;

	TAILQ_FOREACH(w, &wl->waiters, entry)
		n++;
	if (n >= RT_WAITERS_MAX || (w = calloc(1, sizeof(*w))) == NULL) {
		proc_reply_fail(rt->ps, a, CTL_ERR_AGAIN,
		    "too many commands waiting on %s", wl->name);
		return (-1);
	}
	w->asker = *a;
	w->want = want;
	TAILQ_INSERT_TAIL(&wl->waiters, w, entry);
	return (0);
}

void
command_recv_wake(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct wake_cause	 cause;
	char			 name[ORCHD_NAME_MAX];
	char			 why[ORCHD_NAME_MAX + 48];
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	if ((wl = command_workload(&a, imsg, name, sizeof(name))) == NULL)
		return;
	if (maint_gate(wl, "orchctl wake", why, sizeof(why)) == -1) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY, "%s", why);
		return;
	}
	if (wl->state == WL_RUNNING) {
		(void)proc_reply_ok(rt->ps, &a);
		return;
	}
	/* before the wake: a start that fails at once settles it */
	if (command_wait(wl, &a, WL_RUNNING) == -1)
		return;
	/* orchctl comes through the parent, the API through a gateway */
	lifecycle->cause(&cause, a.peer == PROC_GATEWAY ? WAKE_API :
	    WAKE_ORCHCTL);
	lifecycle->wake(name, RT_REASON_OPERATOR, &cause);
}

void
command_recv_suspend(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl, *up;
	char			 name[ORCHD_NAME_MAX];
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	if ((wl = command_workload(&a, imsg, name, sizeof(name))) == NULL)
		return;
	/*
	 * Kept warm, whatever it does now: a restart or a wake under way
	 * ends running, and an answer "asleep" would not be true for long.
	 */
	if (lifecycle->keep_warm(wl)) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY,
		    "%s is kept warm: turn that off first", name);
		return;
	}
	/* after a restart, what runs of it is not known yet */
	if (wl->checking) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY,
		    "%s is checking: suspend it once checked", name);
		return;
	}
	switch (wl->state) {
	case WL_ASLEEP:
	case WL_FAILED:
		/* nothing runs, or it is being stopped already */
		(void)proc_reply_ok(rt->ps, &a);
		return;
	case WL_WAKING:
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY,
		    "%s is waking: suspend it once it runs", name);
		return;
	case WL_SUSPENDING:
		(void)command_wait(wl, &a, WL_ASLEEP);
		return;
	case WL_RUNNING:
	case WL_CHECKING:
	case WL_FROZEN:		/* stopped, as asked */
		break;
	}
	if ((up = lifecycle->dependent_up(wl)) != NULL) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY,
		    "%s depends on %s and is %s: suspend it first", up->name,
		    name, workload_state_name(up->state));
		return;
	}
	if (command_wait(wl, &a, WL_ASLEEP) == -1)
		return;
	if (lifecycle->suspend(name, RT_REASON_OPERATOR) == -1)
		command_refused(wl, "it cannot be suspended now");
}

void
command_recv_keepwarm(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct wake_cause	 cause;
	struct ctl_keepwarm	 kw;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &kw, sizeof(kw));
	kw.on = kw.on != 0;
	if ((wl = lifecycle->find(kw.name)) == NULL || wl->conf == NULL) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_NOENT,
		    "no such workload: %s", kw.name);
		return;
	}
	wl->keep_warm = kw.on;
	warm_until_set(wl, kw.until);
	kw.until = wl->keep_warm_until;
	log_info("workload %s: keep warm %s%s", wl->name, kw.on ? "on" : "off",
	    kw.until > 0 ? " for a time" : "");
	/* the store keeps it across restarts */
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_KEEPWARM, 0, -1, &kw,
	    sizeof(kw)) == -1)
		log_warn("%s: compose", __func__);
	lifecycle->keep_warm_send(wl);
	if (kw.on && (wl->state == WL_ASLEEP || wl->state == WL_FAILED)) {
		lifecycle->cause(&cause, WAKE_KEEP_WARM);
		lifecycle->wake(wl->name, RT_REASON_KEEP_WARM, &cause);
	}
	(void)proc_reply_ok(rt->ps, &a);
}

/*
 * orchctl restart, or POST .../restart from the API: replaced in place
 * with the definition it has, and answered once it runs again (or
 * failed to).
 */
void
command_recv_restart(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	char			 name[ORCHD_NAME_MAX];
	char			 why[ORCHD_NAME_MAX + 48];
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	if ((wl = command_workload(&a, imsg, name, sizeof(name))) == NULL)
		return;
	if (maint_gate(wl, "orchctl restart", why, sizeof(why)) == -1) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY, "%s", why);
		return;
	}
	if (wl->state != WL_RUNNING || wl->stopping || wl->checking) {
		proc_reply_fail(rt->ps, &a, CTL_ERR_BUSY, "%s is %s: only a "
		    "running workload is restarted (orchctl wake starts one)",
		    name, workload_state_name(wl->checking ? WL_CHECKING :
		    wl->state));
		return;
	}
	if (command_wait(wl, &a, WL_RUNNING) == -1)
		return;
	if (lifecycle->restart(wl, iev->peer == PROC_GATEWAY ?
	    "restarted through the API" : "orchctl restart") == -1)
		command_state_refused(wl, "it is being replaced already");
}

/*
 * From the lifecycle.
 */

/* wl changed state: settle the commands that waited for it */
void
command_state(struct rt_workload *wl, const char *msg)
{
	struct rt_waiter	*w, *next;

	TAILQ_FOREACH_SAFE(w, &wl->waiters, entry, next) {
		/* a job woken is done once it sleeps again, exited 0 */
		if (wl->state == w->want || (w->want == WL_RUNNING &&
		    wl->state == WL_ASLEEP && job_done(wl)))
			(void)proc_reply_ok(rt->ps, &w->asker);
		else if (wl->state == WL_FAILED)
			proc_reply_fail(rt->ps, &w->asker, CTL_ERR_FAILED,
			    "%s failed: %s", wl->name,
			    msg != NULL && *msg != '\0' ? msg : "no reason");
		else
			continue;
		TAILQ_REMOVE(&wl->waiters, w, entry);
		free(w);
	}
}

/* a restart that will not happen: those waiting for it to run */
void
command_state_refused(struct rt_workload *wl, const char *why)
{
	struct rt_waiter	*w, *next;

	TAILQ_FOREACH_SAFE(w, &wl->waiters, entry, next) {
		if (w->want != WL_RUNNING)
			continue;
		proc_reply_fail(rt->ps, &w->asker, CTL_ERR_BUSY,
		    "%s not restarted: %s", wl->name, why);
		TAILQ_REMOVE(&wl->waiters, w, entry);
		free(w);
	}
}

/* a suspend that will not happen */
void
command_refused(struct rt_workload *wl, const char *why)
{
	struct rt_waiter	*w, *next;

	TAILQ_FOREACH_SAFE(w, &wl->waiters, entry, next) {
		if (w->want != WL_ASLEEP)
			continue;
		proc_reply_fail(rt->ps, &w->asker, CTL_ERR_BUSY,
		    "%s not suspended: %s", wl->name, why);
		TAILQ_REMOVE(&wl->waiters, w, entry);
		free(w);
	}
}

/* its wake waited its whole wake timeout for room: not started */
void
command_no_room(struct rt_workload *wl, const char *why)
{
	struct rt_waiter	*w, *next;

	TAILQ_FOREACH_SAFE(w, &wl->waiters, entry, next) {
		if (w->want != WL_RUNNING)
			continue;
		proc_reply_fail(rt->ps, &w->asker, CTL_ERR_AGAIN,
		    "%s not started: %s", wl->name, why);
		TAILQ_REMOVE(&wl->waiters, w, entry);
		free(w);
	}
}

/* wl is forgotten: removed from the configuration */
void
command_gone(struct rt_workload *wl)
{
	struct rt_waiter	*w;

	while ((w = TAILQ_FIRST(&wl->waiters)) != NULL) {
		if (w->want == WL_ASLEEP)
			(void)proc_reply_ok(rt->ps, &w->asker);
		else
			proc_reply_fail(rt->ps, &w->asker, CTL_ERR_NOENT,
			    "%s was removed", wl->name);
		TAILQ_REMOVE(&wl->waiters, w, entry);
		free(w);
	}
}
