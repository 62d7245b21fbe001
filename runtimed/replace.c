/*
 * A running workload and its definition.
 *
 * Drift: runtimed keeps a copy of the definition each instance was
 * started with (run_conf), and whenever the definition or the instance
 * changes, tells the store what of it the instance lacks
 * (workload_diff(): "command, port"), for orchctl show workloads and
 * the API.  Only a running instance has a drift; of a container
 * adopted from before orchd's start, only its hash label is known: its
 * drift is "definition" when the definition makes another container.
 *
 * Replacement, when "on change restart" says so (lifecycle->changed()):
 * side by side where the old and the new instance can both listen, a
 * process workload whose new definition has another address or port;
 * in place otherwise (lifecycle->restart()), which a container always
 * is: its port is published on the host as the definition says, and
 * its name is the workload's.
 *
 * Side by side: the old process is moved aside (retiring), the new one
 * is started as any other and checked for readiness on its own address,
 * within the wake timeout, while the workload stays running on the old
 * one.  Once it is ready, the gateways route to it (IMSG_RT_ROUTE with
 * retire) and say when the old one's requests are done (IMSG_GW_HELD,
 * or after RT_HOLD_WAIT seconds); then the old one is stopped as it was
 * started to stop.  No request sees anything else.  A new one that does
 * not start or get ready is stopped, and the old one runs on, its drift
 * shown.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"
#include "driver.h"

/* side by side: at most this long for the old one's requests to end */
#define REPLACE_RETIRE_WAIT		30	/* seconds */

enum replace_phase {
	REPLACE_STARTING = 0,	/* the new instance starts beside the old */
	REPLACE_FAILING,		/* it did not make it: it is stopped */
	REPLACE_RETIRING		/* the new one runs: the old one's requests
				   end, then it stops */
};

struct rt_replace {
	enum replace_phase		 phase;
	struct workload_conf	*old_conf;	/* the old instance's */
	union wl_addr		 old_addr;
	socklen_t		 old_addrlen;
	pid_t			 old_pid;
	int			 old_gone;	/* it exited meanwhile */
	int			 old_status;
	int			 held;		/* GW_HELD answers expected */
	struct event		*timer;		/* bounds the phase */
	char			 why[RT_MSG_MAX]; /* FAILING: why */
};

/* what the store shows: sent when it changes */
static void
drift_send(struct rt_workload *wl, const char *fields)
{
	struct rt_drift	 rd;

	if (strcmp(wl->drift != NULL ? wl->drift : "", fields) == 0)
		return;
	/* kept only while there is one: most never have any */
	free(wl->drift);
	wl->drift = NULL;
	if (fields[0] != '\0' &&
	    (wl->drift = strndup(fields, RT_DRIFT_MAX - 1)) == NULL)
		fatal("%s", __func__);
	memset(&rd, 0, sizeof(rd));
	strlcpy(rd.name, wl->name, sizeof(rd.name));
	strlcpy(rd.fields, fields, sizeof(rd.fields));
	if (fields[0] != '\0')
		log_info("workload %s: runs with an older definition: %s "
		    "changed since it started", wl->name, fields);
	if (proc_compose(rt->ps, PROC_STORE, IMSG_ST_DRIFT, 0, -1, &rd,
	    sizeof(rd)) == -1)
		log_warn("workload %s: drift to the store", wl->name);
}

/*
 * its instance against its definition: the drift, "" if none; of a
 * container adopted at start only that it differs, "definition"
 */
const char *
drift_fields(struct rt_workload *wl, char *buf, size_t len)
{
	buf[0] = '\0';
	if (wl->conf == NULL)
		return (buf);
	if (wl->run_conf != NULL)
		(void)workload_diff(wl->run_conf, wl->conf, buf, len);
	else if (wl->state != WL_ASLEEP && wl->state != WL_FAILED &&
	    docker_drift(wl) == 1)
		strlcpy(buf, "definition", len);
	return (buf);
}

void
drift_update(struct rt_workload *wl)
{
	char	 buf[RT_DRIFT_MAX];

	drift_send(wl, drift_fields(wl, buf, sizeof(buf)));
}

/* an instance starts as its definition says now */
void
drift_started(struct rt_workload *wl)
{
	workload_free(wl->replace_failed);
	wl->replace_failed = NULL;
	workload_free(wl->run_conf);
	if ((wl->run_conf = workload_pack(wl->conf)) == NULL)
		log_warn("workload %s: its definition not kept", wl->name);
	drift_update(wl);
}

/* no instance runs */
void
drift_ended(struct rt_workload *wl)
{
	workload_free(wl->run_conf);
	wl->run_conf = NULL;
	workload_free(wl->replace_failed);
	wl->replace_failed = NULL;
	drift_send(wl, "");
}

/*
 * The gateways hear where an instance listens before it is running;
 * with retire, the instance before is being replaced.  The number of
 * gateways told, 0 if none was.
 */
int
route_send(struct rt_workload *wl, int retire)
{
	struct rt_route	 rr;
	int		 n;

	if (wl->addrlen == 0)
		return (0);
	memset(&rr, 0, sizeof(rr));
	strlcpy(rr.name, wl->name, sizeof(rr.name));
	memcpy(&rr.addr, &wl->addr, sizeof(rr.addr));
	rr.addrlen = wl->addrlen;
	rr.retire = retire;
	if ((n = proc_instances(rt->ps, PROC_GATEWAY)) == 0 ||
	    proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_ROUTE, 0, -1, &rr,
	    sizeof(rr)) == -1) {
		log_warn("workload %s: route to the gateways", wl->name);
		return (0);
	}
	return (n);
}

/*
 * Side by side.
 */

int
replace_starting(const struct rt_workload *wl)
{
	return (wl->replace != NULL && wl->replace->phase != REPLACE_RETIRING);
}

static void
replace_free(struct rt_workload *wl)
{
	struct rt_replace	*rp = wl->replace;

	if (rp == NULL)
		return;
	timer_disarm(&rp->timer);
	workload_free(rp->old_conf);
	free(rp);
	wl->replace = NULL;
}

void
replace_clear(struct rt_workload *wl)
{
	replace_free(wl);
}

/* done: a definition that changed meanwhile is the next one's */
static void
replace_done(struct rt_workload *wl)
{
	replace_free(wl);
	lifecycle->changed(wl);
}

static void
replace_timer(struct rt_workload *wl, int64_t secs,
    void (*cb)(int, short, void *))
{
	struct timeval	 tv;

	timerclear(&tv);
	tv.tv_sec = secs;
	timer_disarm(&wl->replace->timer);
	timer_arm(&wl->replace->timer, cb, wl, &tv);
}

/* the new instance did not make it: it is stopped, if it runs at all */
void
replace_fail(struct rt_workload *wl, const char *why)
{
	struct rt_replace	*rp = wl->replace;

	timer_disarm(&rp->timer);
	ready_stop(wl);
	rp->phase = REPLACE_FAILING;
	strlcpy(rp->why, why, sizeof(rp->why));
	if (wl->drv->stop(wl) == 1)
		replace_gone(wl, why);
}

static void
replace_start_late(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;
	char			 why[64];

	if (wl->replace == NULL || wl->replace->phase != REPLACE_STARTING)
		return;
	snprintf(why, sizeof(why), "not ready after %llds",
	    (long long)lifecycle->wake_timeout(wl));
	replace_fail(wl, why);
}

/* the old one's requests are done, or waited for long enough */
static void
replace_retire_now(struct rt_workload *wl)
{
	struct rt_replace	*rp = wl->replace;

	timer_disarm(&rp->timer);
	rp->held = 0;
	if (wl->retiring != NULL)
		process_retire_stop(wl);
	else
		replace_done(wl);
}

static void
replace_retire_late(int fd, short event, void *arg)
{
	struct rt_workload	*wl = arg;

	if (wl->replace == NULL || wl->replace->phase != REPLACE_RETIRING)
		return;
	log_warnx("workload %s: requests to its old instance still in "
	    "flight after %ds: stopping it all the same", wl->name,
	    REPLACE_RETIRE_WAIT);
	replace_retire_now(wl);
}

/*
 * Where both can listen at once: a process workload moving to another
 * address, or port; *addr, *len the new one's.
 */
static int
replace_side_ok(const struct rt_workload *wl, union wl_addr *addr,
    socklen_t *len)
{
	if (wl->conf->driver != DRIVER_PROCESS || wl->drv != &driver_process ||
	    wl->run_conf == NULL || wl->run_conf->driver != DRIVER_PROCESS ||
	    wl->retiring != NULL || wl->proc.pid == 0)
		return (0);
	if (lifecycle->address(wl->conf, addr, len) == -1)
		return (0);
	return (*len != wl->addrlen || memcmp(addr, &wl->addr, *len) != 0);
}

static int
replace_side(struct rt_workload *wl, const union wl_addr *addr,
    socklen_t len)
{
	struct rt_replace	*rp;
	char			 msg[RT_MSG_MAX];

	if (process_retire(wl) == -1)
		return (-1);
	if ((rp = calloc(1, sizeof(*rp))) == NULL)
		fatal("%s", __func__);
	rp->phase = REPLACE_STARTING;
	rp->old_conf = wl->run_conf;
	wl->run_conf = NULL;
	memcpy(&rp->old_addr, &wl->addr, sizeof(rp->old_addr));
	rp->old_addrlen = wl->addrlen;
	rp->old_pid = wl->retiring->pid;
	wl->replace = rp;
	/* the checks of the old one stop: the new one is checked ready */
	live_stop(wl);
	busy_stop(wl);
	memcpy(&wl->addr, addr, sizeof(wl->addr));
	wl->addrlen = len;
	drift_started(wl);
	log_info("workload %s: starting its new definition beside pid %d",
	    wl->name, rp->old_pid);
	replace_timer(wl, lifecycle->wake_timeout(wl), replace_start_late);
	msg[0] = '\0';
	if (wl->drv->start(wl, msg, sizeof(msg)) == -1)
		replace_gone(wl, msg);
	return (0);
}

/* its definition changed and it runs: replaced, side by side or not */
void
replace_begin(struct rt_workload *wl)
{
	union wl_addr	 addr;
	socklen_t	 len;

	if (replace_side_ok(wl, &addr, &len) && replace_side(wl, &addr,
	    len) == 0)
		return;
	if (lifecycle->restart(wl, "new definition") == -1)
		log_warnx("workload %s: cannot be replaced now: it runs on "
		    "with its older definition", wl->name);
}

/* the driver started the new one: is it ready? */
void
replace_started(struct rt_workload *wl)
{
	if (wl->replace->phase == REPLACE_STARTING)
		ready_start(wl);
}

/* the new one is ready: requests go to it, the old one retires */
void
replace_ready(struct rt_workload *wl)
{
	struct rt_replace	*rp = wl->replace;
	char			 msg[RT_MSG_MAX];

	if (rp->phase != REPLACE_STARTING)
		return;
	timer_disarm(&rp->timer);
	rp->phase = REPLACE_RETIRING;
	wl->running_ms = monotime_ms();
	live_start(wl);
	(void)snprintf(msg, sizeof(msg), "replaced side by side: pid %d "
	    "for pid %d, the new definition", wl->proc.pid, rp->old_pid);
	lifecycle->replaced(wl, msg);
	workload_free(rp->old_conf);
	rp->old_conf = NULL;
	if (rp->old_gone || (rp->held = route_send(wl, 1)) == 0) {
		replace_retire_now(wl);
		return;
	}
	replace_timer(wl, REPLACE_RETIRE_WAIT, replace_retire_late);
}

/*
 * The new one is gone (it did not start, exited, or was stopped): the
 * old one is the workload's again, as if nothing happened, but the
 * drift and the history.  If the old one died meanwhile, the workload
 * ended as any that exits.
 */
void
replace_gone(struct rt_workload *wl, const char *msg)
{
	struct rt_replace	*rp = wl->replace;
	char			 why[RT_MSG_MAX], text[RT_MSG_MAX];
	int			 old_gone, status;

	ready_stop(wl);
	strlcpy(why, rp->phase == REPLACE_FAILING ? rp->why : msg != NULL ? msg :
	    "it stopped", sizeof(why));
	/* what failed is kept, not to be tried again (lifecycle_changed) */
	workload_free(wl->replace_failed);
	wl->replace_failed = wl->run_conf;
	wl->run_conf = rp->old_conf;
	rp->old_conf = NULL;
	memcpy(&wl->addr, &rp->old_addr, sizeof(wl->addr));
	wl->addrlen = rp->old_addrlen;
	process_unretire(wl);
	old_gone = rp->old_gone;
	status = rp->old_status;
	replace_free(wl);
	drift_update(wl);
	if (old_gone) {
		log_warnx("workload %s: its new definition did not start (%s), "
		    "and the old one has exited", wl->name, why);
		lifecycle->ended(wl, status, RT_REASON_EXITED, NULL);
		return;
	}
	log_warnx("workload %s: its new definition did not start (%s): the "
	    "old one runs on", wl->name, why);
	(void)snprintf(text, sizeof(text), "not replaced: %.200s; the old "
	    "instance runs on", why);
	lifecycle->replaced(wl, text);
	if (wl->state == WL_RUNNING)
		live_start(wl);
	/* changed meanwhile: the new one's turn */
	lifecycle->changed(wl);
}

/* a gateway has nothing in flight to the old one */
void
replace_held(struct rt_workload *wl)
{
	struct rt_replace	*rp = wl->replace;

	if (rp == NULL || rp->phase != REPLACE_RETIRING || rp->held == 0)
		return;
	if (--rp->held == 0)
		replace_retire_now(wl);
}

/* the old process exited: stopped as retired, or by itself */
void
replace_retired(struct rt_workload *wl, int status)
{
	struct rt_replace	*rp = wl->replace;

	if (rp == NULL) {
		log_debug("workload %s: its old instance exited", wl->name);
		return;
	}
	if (rp->phase != REPLACE_RETIRING) {
		log_warnx("workload %s: its old instance exited while the new "
		    "one started", wl->name);
		rp->old_gone = 1;
		rp->old_status = status;
		return;
	}
	log_info("workload %s: its old instance, pid %d, has stopped: "
	    "replaced", wl->name, rp->old_pid);
	replace_done(wl);
}

/*
 * Removed from the configuration while it was replaced: the new one
 * goes as the workload does, the old one is stopped as retired.
 */
void
replace_abandon(struct rt_workload *wl)
{
	struct rt_replace	*rp = wl->replace;

	if (rp == NULL || rp->phase == REPLACE_RETIRING)
		return;
	timer_disarm(&rp->timer);
	ready_stop(wl);
	rp->phase = REPLACE_RETIRING;
	rp->held = 0;
	if (rp->old_gone)
		replace_free(wl);
	else
		process_retire_stop(wl);
}
