/*
 * Several orchd instances, each with its own gateway, sharing the
 * services of one swarm: a service is suspended only when every one of
 * them has been idle for it.
 *
 * Each instance writes its last use of a workload into the service's
 * label org.orchd.seen.INSTANCE ("instance name", the host name by
 * default), in seconds since the epoch.  The reaper tells us when it
 * changed, at most once a tick (reaperd.c); the write is the manager's
 * own spec with that label, under the version index it was read at, so
 * that it never undoes a scale or a label another instance wrote
 * meanwhile: told "out of sequence", we read it again and write again.
 *
 * Before a suspend for idleness, the service is read: if another
 * instance's label is younger than the idle timeout, it is used there
 * and stays up; the reaper asks again at its next tick.  The stop that
 * follows reads the service once more and scales it to 0 under that
 * read's version index (driver_swarm.c): a label written in between
 * makes the scale "out of sequence", and the next read sees it.
 *
 * Labels of instances that are gone are old times: they never hold a
 * service up once older than the idle timeout, and those older than
 * SW_SEEN_FORGET are dropped by the next write of any instance.
 *
 * Only the suspend for idleness asks: an operator's suspend scales the
 * service to 0 whoever uses it, as for the busy veto.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "msg.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "docker.h"

#define AG_RETRIES	5		/* out of sequence in a row */
#define AG_RETRY_MS	5000		/* a write that failed, again */
#define AG_VERSION_MAX	24

enum ag_step {
	AG_IDLE = 0,
	AG_SEEN_INSPECT,		/* a write: the spec to write over */
	AG_SEEN_UPDATE,
	AG_CHECK			/* a suspend: who else uses it */
};

struct rt_agree {
	struct rt_workload	*wl;
	enum ag_step		 step;
	struct dk_req		*req;
	struct event		*timer;		/* a failed write, again */
	int64_t			 want;		/* last use to write */
	int64_t			 writing;	/* ... in the update sent */
	int64_t			 written;
	int64_t			 idle_since;	/* the reaper's, of a check */
	int			 retries;
	int			 told;		/* "used elsewhere" logged */
	char			 sname[DK_SNAME_MAX];
};

static void	ag_done(const struct dk_resp *, void *);
static void	ag_seen_begin(struct rt_agree *);

static struct rt_agree *
ag_get(struct rt_workload *wl)
{
	struct rt_agree	*ag;

	if (wl->agree != NULL)
		return (wl->agree);
	if ((ag = calloc(1, sizeof(*ag))) == NULL)
		fatal("%s: calloc", __func__);
	ag->wl = wl;
	dk_service_name(wl->name, ag->sname, sizeof(ag->sname));
	wl->agree = ag;
	return (ag);
}

void
agree_clear(struct rt_workload *wl)
{
	struct rt_agree	*ag = wl->agree;

	if (ag == NULL)
		return;
	dk_cancel(ag->req);
	timer_disarm(&ag->timer);
	free(ag);
	wl->agree = NULL;
}

static int64_t
ag_idle_timeout(const struct rt_workload *wl)
{
	if (wl->conf != NULL && wl->conf->idle_timeout >= 0)
		return (wl->conf->idle_timeout);
	return (rt->idle_timeout);
}

static int
ag_call(struct rt_agree *ag, enum ag_step step, enum dk_call call,
    const char *arg, json_t *body)
{
	ag->step = step;
	if ((ag->req = dk_call(call, ag->sname, arg, body, ag_done, NULL,
	    ag)) == NULL) {
		ag->step = AG_IDLE;
		return (-1);
	}
	return (0);
}

/*
 * A service's inspect: its spec (a new reference) and version index,
 * or NULL if it is not a service of this workload.
 */
static json_t *
ag_inspected(struct rt_agree *ag, const struct dk_resp *r, char *version,
    size_t len)
{
	json_error_t	 jerr;
	json_t		*o, *spec, *ver;
	const char	*owner;

	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL)
		return (NULL);
	spec = json_object_get(o, "Spec");
	ver = json_object_get(json_object_get(o, "Version"), "Index");
	owner = json_string_value(json_object_get(json_object_get(spec,
	    "Labels"), DK_LABEL_WORKLOAD));
	if (!json_is_object(spec) || !json_is_integer(ver) ||
	    json_integer_value(ver) < 0 || owner == NULL ||
	    strcmp(owner, ag->wl->name) != 0) {
		json_decref(o);
		return (NULL);
	}
	(void)snprintf(version, len, "%lld",
	    (long long)json_integer_value(ver));
	spec = json_incref(spec);
	json_decref(o);
	return (spec);
}

/*
 * Is the service in use at another instance, as spec's labels say?  The
 * first time in an idle stretch, the log says where.
 */
int
agree_busy_elsewhere(struct rt_workload *wl, json_t *spec)
{
	struct rt_agree	*ag = ag_get(wl);
	char		 who[ORCHD_INSTANCE_MAX];
	int64_t		 ago;

	if (!sw_seen_recent(spec, rt->instance, time(NULL),
	    ag_idle_timeout(wl), who, sizeof(who), &ago)) {
		ag->told = 0;
		return (0);
	}
	if (!ag->told) {
		ag->told = 1;
		log_info("workload %s: idle here, but instance %s used it "
		    "%llds ago: not suspended", wl->name, who,
		    (long long)ago);
	}
	return (1);
}

/*
 * The last use, written.
 */

static void
ag_retry_fired(int fd, short event, void *arg)
{
	struct rt_agree	*ag = arg;

	if (ag->req == NULL && ag->want > ag->written)
		ag_seen_begin(ag);
}

static void
ag_seen_later(struct rt_agree *ag)
{
	struct timeval	 tv = { AG_RETRY_MS / 1000, 0 };

	timer_arm(&ag->timer, ag_retry_fired, ag, &tv);
}

static void
ag_seen_begin(struct rt_agree *ag)
{
	timer_disarm(&ag->timer);
	if (ag_call(ag, AG_SEEN_INSPECT, DK_SVC_INSPECT, NULL, NULL) == -1)
		ag_seen_later(ag);
}

/* the reaper: this instance used wl last at t */
void
agree_seen(struct rt_workload *wl, int64_t t)
{
	struct rt_agree	*ag;

	if (wl->conf == NULL || wl->conf->driver != DRIVER_SWARM)
		return;
	ag = ag_get(wl);
	if (t <= ag->want)
		return;
	ag->want = t;
	ag->told = 0;
	ag->retries = 0;
	if (ag->req == NULL)
		ag_seen_begin(ag);
}

static void
ag_seen_inspected(struct rt_agree *ag, const struct dk_resp *r)
{
	json_t	*spec;
	char	 version[AG_VERSION_MAX];

	/* no service: nothing runs that another instance could stop */
	if (r->status == 404) {
		ag->written = ag->want;
		return;
	}
	if (r->status != 200) {
		log_debug("workload %s: reading service %s: %s",
		    ag->wl->name, ag->sname, r->err);
		ag_seen_later(ag);
		return;
	}
	if ((spec = ag_inspected(ag, r, version, sizeof(version))) == NULL) {
		/* not ours, or nonsense: the driver says so at its start */
		ag->written = ag->want;
		return;
	}
	ag->writing = ag->want;
	if (sw_seen_set(spec, rt->instance, ag->writing, time(NULL)) == -1 ||
	    ag_call(ag, AG_SEEN_UPDATE, DK_SVC_UPDATE, version, spec) == -1)
		ag_seen_later(ag);
	json_decref(spec);
}

static void
ag_seen_updated(struct rt_agree *ag, const struct dk_resp *r)
{
	if (r->err != NULL && strstr(r->err, "out of sequence") != NULL) {
		/* another write came first: read it, write over it */
		if (ag->retries++ < AG_RETRIES)
			ag_seen_begin(ag);
		else
			ag_seen_later(ag);
		return;
	}
	if (r->status != 200) {
		log_warnx("workload %s: label %s%s of service %s: %s",
		    ag->wl->name, SW_LABEL_SEEN, rt->instance, ag->sname,
		    r->err != NULL ? r->err : "no answer");
		ag_seen_later(ag);
		return;
	}
	ag->retries = 0;
	ag->written = ag->writing;
	log_debug("workload %s: service %s says %s used it at %lld",
	    ag->wl->name, ag->sname, rt->instance, (long long)ag->written);
	/* used again meanwhile */
	if (ag->want > ag->written)
		ag_seen_begin(ag);
}

/*
 * A suspend for idleness: the others first.
 */

/* the reaper finds wl idle here since idle_since */
void
agree_suspend(struct rt_workload *wl, int64_t idle_since)
{
	struct rt_agree	*ag = ag_get(wl);

	/* a write or a read under way: the next tick asks again */
	if (ag->req != NULL || wl->state != WL_RUNNING || wl->draining)
		return;
	ag->idle_since = idle_since;
	if (ag_call(ag, AG_CHECK, DK_SVC_INSPECT, NULL, NULL) == -1)
		log_debug("workload %s: cannot read service %s", wl->name,
		    ag->sname);
}

static void
ag_checked(struct rt_agree *ag, const struct dk_resp *r)
{
	struct rt_workload	*wl = ag->wl;
	json_t			*spec;
	char			 version[AG_VERSION_MAX];
	int			 busy;

	if (wl->state != WL_RUNNING)
		return;
	if (r->status == 404) {
		/* gone by hand: the stop finds so */
		busy_suspend(wl, ag->idle_since);
		return;
	}
	if (r->status != 200 ||
	    (spec = ag_inspected(ag, r, version, sizeof(version))) == NULL) {
		log_debug("workload %s: reading service %s: %s", wl->name,
		    ag->sname, r->status != 200 ? r->err : "not ours");
		return;
	}
	busy = agree_busy_elsewhere(wl, spec);
	json_decref(spec);
	if (!busy)
		busy_suspend(wl, ag->idle_since);
}

static void
ag_done(const struct dk_resp *r, void *arg)
{
	struct rt_agree	*ag = arg;
	enum ag_step	 step = ag->step;

	ag->req = NULL;
	ag->step = AG_IDLE;
	switch (step) {
	case AG_SEEN_INSPECT:
		ag_seen_inspected(ag, r);
		break;
	case AG_SEEN_UPDATE:
		ag_seen_updated(ag, r);
		break;
	case AG_CHECK:
		ag_checked(ag, r);
		/* a write that waited for the read */
		if (ag->req == NULL && ag->want > ag->written)
			ag_seen_begin(ag);
		break;
	case AG_IDLE:
		break;
	}
}
