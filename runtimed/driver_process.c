/*
 * The process driver: a workload that is a local program.
 *
 * runtimed is sandboxed and whatever it forked would be too, so it does
 * not fork: the parent does (orchd/spawn.c).  Starting is IMSG_RT_SPAWN
 * with the name, answered by IMSG_RT_SPAWNED with the pid or why not;
 * stopping is IMSG_RT_KILL with the workload's stop signal (SIGTERM by
 * default) to the process group, and SIGKILL once its stop timeout has
 * passed; the parent reports IMSG_RT_EXITED when it has reaped the
 * process, whoever ended it.
 *
 * Freezing is IMSG_RT_FREEZE with the name and pid: the parent freezes
 * or thaws that process's cgroup (it owns the cgroups; the workload's
 * uid cannot write them) and answers IMSG_RT_FROZEN, done or not.
 *
 * Replaced side by side (replace.c), a workload has a second process
 * for a while: the old one, retiring, moved aside so that the new one
 * starts as any other; it is stopped as any other once its requests are
 * done, and its exit concerns the replacement alone.
 */

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "timer.h"
#include "units.h"
#include "workload.h"

static int		 process_start(struct rt_workload *, char *, size_t);
static int		 process_stop(struct rt_workload *);
static enum rt_status	 process_status(struct rt_workload *);
static int		 process_freeze(struct rt_workload *, int);
static int		 process_logs(struct rt_workload *, size_t,
			    rt_logs_cb, void *);

const struct rt_driver driver_process = {
	.name = "process",
	.start = process_start,
	.stop = process_stop,
	.status = process_status,
	.freeze = process_freeze,
	.logs = process_logs
};

static void	process_kill_timer(int, short, void *);

void
process_init(struct rt_workload *wl)
{
	memset(&wl->proc, 0, sizeof(wl->proc));
	wl->proc.wl = wl;
}

static int	process_signal(struct rt_workload *, pid_t, int);

/* forgotten: a process retiring still goes, at once */
void
process_clear(struct rt_workload *wl)
{
	struct rt_process	*p = wl->retiring;

	timer_disarm(&wl->proc.kill_timer);
	if (p == NULL)
		return;
	(void)process_signal(wl, p->pid, SIGKILL);
	timer_disarm(&p->kill_timer);
	free(p);
	wl->retiring = NULL;
}

/*
 * The running process moves aside for a new one: 0, or -1 if there is
 * none that runs and nothing else under way.
 */
int
process_retire(struct rt_workload *wl)
{
	struct rt_process	*p;

	if (wl->retiring != NULL || wl->proc.pid == 0 || wl->proc.spawning ||
	    wl->proc.stopping || wl->proc.kill_timer != NULL)
		return (-1);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	*p = wl->proc;
	wl->retiring = p;
	process_init(wl);
	return (0);
}

/* the new one is gone: the old one is the workload's again */
void
process_unretire(struct rt_workload *wl)
{
	struct rt_process	*p = wl->retiring;

	if (p == NULL || wl->proc.pid != 0 || wl->proc.spawning)
		return;
	timer_disarm(&wl->proc.kill_timer);
	wl->proc = *p;
	free(p);
	wl->retiring = NULL;
}

/* the parent signals the group after checking pid is this workload's */
static int
process_signal(struct rt_workload *wl, pid_t pid, int sig)
{
	struct rt_kill	 rk;

	memset(&rk, 0, sizeof(rk));
	strlcpy(rk.name, wl->name, sizeof(rk.name));
	rk.pid = pid;
	rk.sig = sig;
	if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_KILL, 0, -1, &rk,
	    sizeof(rk)) == -1) {
		log_warn("workload %s: kill", wl->name);
		return (-1);
	}
	return (0);
}

static void
process_kill_timer(int fd, short event, void *arg)
{
	struct rt_process	*p = arg;
	struct rt_workload	*wl = p->wl;

	if (p->pid == 0)
		return;
	log_warnx("workload %s: pid %d still there %llds after %s, "
	    "killing it", wl->name, p->pid, (long long)p->stop_timeout,
	    signal_name(p->stopsig));
	(void)process_signal(wl, p->pid, SIGKILL);
}

static int
process_start(struct rt_workload *wl, char *msg, size_t len)
{
	struct wl_ref	 ref;

	if (wl->proc.pid != 0 || wl->proc.spawning) {
		snprintf(msg, len, "already started");
		return (-1);
	}
	memset(&ref, 0, sizeof(ref));
	strlcpy(ref.name, wl->name, sizeof(ref.name));
	if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_SPAWN, 0, -1, &ref,
	    sizeof(ref)) == -1) {
		snprintf(msg, len, "cannot ask the parent: %s",
		    strerror(errno));
		return (-1);
	}
	wl->proc.spawning = 1;
	wl->proc.stop_wanted = 0;
	/* a reload while it runs changes how the next one stops */
	wl->proc.stopsig = wl->conf->stop_signal != 0 ?
	    wl->conf->stop_signal : SIGTERM;
	wl->proc.stop_timeout = wl->conf->stop_timeout != -1 ?
	    wl->conf->stop_timeout : WL_STOP_TIMEOUT;
	return (0);
}

static void
process_term_one(struct rt_workload *wl, struct rt_process *p)
{
	struct timeval	 tv;

	p->stopping = 1;
	(void)process_signal(wl, p->pid, p->stopsig);
	/* even after a SIGKILL: the parent may know another stop signal */
	timerclear(&tv);
	tv.tv_sec = p->stop_timeout;
	timer_arm(&p->kill_timer, process_kill_timer, p, &tv);
}

static void
process_term(struct rt_workload *wl)
{
	process_term_one(wl, &wl->proc);
}

/* the old one's requests are done: it stops as it was started to */
void
process_retire_stop(struct rt_workload *wl)
{
	struct rt_process	*p = wl->retiring;

	if (p == NULL || p->stopping)
		return;
	log_info("workload %s: stopping pid %d, replaced", wl->name, p->pid);
	process_term_one(wl, p);
}

static int
process_stop(struct rt_workload *wl)
{
	if (wl->proc.spawning) {
		/* the pid is not known yet: stop it as soon as it is */
		wl->proc.stop_wanted = 1;
		return (0);
	}
	if (wl->proc.pid == 0)
		return (1);
	if (!wl->proc.stopping)
		process_term(wl);
	return (0);
}

static enum rt_status
process_status(struct rt_workload *wl)
{
	if (wl->proc.spawning)
		return (RT_STATUS_STARTING);
	if (wl->proc.pid == 0)
		return (RT_STATUS_STOPPED);
	return (wl->proc.stopping ? RT_STATUS_STOPPING : RT_STATUS_RUNNING);
}

/* the parent owns LOGDIR/NAME.log: runtimed, chrooted, cannot read it */
static int
process_logs(struct rt_workload *wl, size_t tail, rt_logs_cb cb, void *arg)
{
	errno = EOPNOTSUPP;
	return (-1);
}

/*
 * The parent's messages.
 */

static struct rt_workload *
process_find(struct imsg *imsg, struct rt_proc *rp)
{
	struct rt_workload	*wl;

	(void)imsg_get_data(imsg, rp, sizeof(*rp));
	rp->msg[sizeof(rp->msg) - 1] = '\0';
	/* after a reload the name may be gone: not worth dying for */
	if ((wl = lifecycle->find(rp->name)) == NULL)
		log_warnx("workload %s: message %u from the parent for an "
		    "unknown workload", rp->name, imsg_get_type(imsg));
	return (wl);
}

void
process_recv_spawned(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct rt_proc		 rp;

	if ((wl = process_find(imsg, &rp)) == NULL)
		return;
	if (!wl->proc.spawning) {
		/* not asked for: whatever it started must not run unseen */
		log_warnx("workload %s: unexpected spawn answer", wl->name);
		if (rp.pid > 0 && rp.pid != wl->proc.pid)
			(void)process_signal(wl, rp.pid, SIGKILL);
		return;
	}
	wl->proc.spawning = 0;
	if (rp.pid <= 0) {
		wl->proc.stop_wanted = 0;
		lifecycle->start_failed(wl, rp.msg);
		return;
	}
	wl->proc.pid = rp.pid;
	wl->proc.stopping = 0;
	log_debug("workload %s: pid %d", wl->name, rp.pid);
	if (wl->proc.stop_wanted) {
		wl->proc.stop_wanted = 0;
		process_term(wl);
		return;
	}
	lifecycle->started(wl);
}

void
process_recv_exited(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct rt_proc		 rp;

	if ((wl = process_find(imsg, &rp)) == NULL)
		return;
	if (wl->retiring != NULL && rp.pid > 0 && rp.pid == wl->retiring->pid) {
		timer_disarm(&wl->retiring->kill_timer);
		free(wl->retiring);
		wl->retiring = NULL;
		lifecycle->retired(wl, rp.status);
		return;
	}
	if (rp.pid <= 0 || rp.pid != wl->proc.pid) {
		log_warnx("workload %s: exit of pid %d, not ours (%d)",
		    wl->name, rp.pid, wl->proc.pid);
		return;
	}
	wl->proc.pid = 0;
	wl->proc.stopping = 0;
	timer_disarm(&wl->proc.kill_timer);
	/* the parent's reason, if it knows one (socket activation's) */
	lifecycle->ended(wl, rp.status, rp.oom != 0 ? RT_REASON_OOM :
	    RT_REASON_EXITED, rp.msg[0] != '\0' ? rp.msg : NULL);
}

/* its cgroup frozen or thawed, by the parent: the answer follows */
static int
process_freeze(struct rt_workload *wl, int on)
{
	struct rt_freeze	 rf;

	if (wl->proc.pid == 0 || wl->proc.spawning || wl->proc.stopping ||
	    wl->retiring != NULL)
		return (-1);
	memset(&rf, 0, sizeof(rf));
	strlcpy(rf.name, wl->name, sizeof(rf.name));
	rf.pid = wl->proc.pid;
	rf.on = on;
	if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_FREEZE, 0, -1, &rf,
	    sizeof(rf)) == -1) {
		log_warn("workload %s: freeze", wl->name);
		return (-1);
	}
	return (0);
}

void
process_recv_frozen(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct rt_freeze	 rf;

	(void)imsg_get_data(imsg, &rf, sizeof(rf));
	if ((wl = lifecycle->find(rf.name)) == NULL ||
	    rf.pid != wl->proc.pid || rf.pid == 0)
		return;
	lifecycle->frozen(wl, rf.on != 0, rf.ok == 1);
}
