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
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "runtime.h"

static int		 process_start(struct rt_workload *, char *, size_t);
static int		 process_stop(struct rt_workload *);
static enum rt_status	 process_status(struct rt_workload *);
static int		 process_logs(struct rt_workload *, size_t,
			    rt_logs_cb, void *);

const struct rt_driver driver_process = {
	.name = "process",
	.start = process_start,
	.stop = process_stop,
	.status = process_status,
	.logs = process_logs
};

static void	process_kill_timer(int, short, void *);

void
process_init(struct rt_workload *wl)
{
	memset(&wl->proc, 0, sizeof(wl->proc));
}

void
process_clear(struct rt_workload *wl)
{
	timer_disarm(&wl->proc.kill_timer);
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
	struct rt_workload	*wl = arg;

	if (wl->proc.pid == 0)
		return;
	log_warnx("workload %s: pid %d still there %llds after %s, "
	    "killing it", wl->name, wl->proc.pid,
	    (long long)wl->proc.stop_timeout, signal_name(wl->proc.stopsig));
	(void)process_signal(wl, wl->proc.pid, SIGKILL);
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
process_term(struct rt_workload *wl)
{
	struct timeval	 tv;

	wl->proc.stopping = 1;
	(void)process_signal(wl, wl->proc.pid, wl->proc.stopsig);
	/* even after a SIGKILL: the parent may know another stop signal */
	timerclear(&tv);
	tv.tv_sec = wl->proc.stop_timeout;
	timer_arm(&wl->proc.kill_timer, process_kill_timer, wl, &tv);
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
	rp->name[sizeof(rp->name) - 1] = '\0';
	rp->msg[sizeof(rp->msg) - 1] = '\0';
	/* after a reload the name may be gone: not worth dying for */
	if ((wl = lifecycle_find(rp->name)) == NULL)
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
		lifecycle_start_failed(wl, rp.msg);
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
	lifecycle_started(wl);
}

void
process_recv_exited(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct rt_proc		 rp;

	if ((wl = process_find(imsg, &rp)) == NULL)
		return;
	if (rp.pid <= 0 || rp.pid != wl->proc.pid) {
		log_warnx("workload %s: exit of pid %d, not ours (%d)",
		    wl->name, rp.pid, wl->proc.pid);
		return;
	}
	wl->proc.pid = 0;
	wl->proc.stopping = 0;
	timer_disarm(&wl->proc.kill_timer);
	lifecycle_ended(wl, rp.status, rp.oom != 0 ? RT_REASON_OOM :
	    RT_REASON_EXITED, NULL);
}
