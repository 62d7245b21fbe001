/*
 * The swarm driver: a workload that is a Docker Swarm service,
 * orchd-NAME, labelled org.orchd.workload=NAME and org.orchd.hash=<its
 * spec's hash> (swarm_spec.c), made and scaled through a manager's
 * Engine API: the calls of docker_client.c, so the same socket and the
 * same allowlist.  Asleep it has 0 replicas, awake "replicas" (1).
 *
 * Start: inspect the service.  None: create it with its replicas.  One
 * of ours at the same hash with its replicas already: nothing to change
 * (another orchd woke it, or an operator).  Else update it under the
 * version index the inspect gave, Swarm's optimistic concurrency: of two
 * orchd instances that scale it at once, one is told "update out of
 * sequence", inspects again, finds it scaled and only waits.  Then the
 * tasks are listed every SW_POLL_MS until one runs, and readiness is
 * checked as for a container.
 *
 * Stop: inspect, then the manager's own spec with 0 replicas, again
 * under its version index (what was changed by hand stays), and the
 * tasks are listed until none is left running, at most the stop timeout
 * and SW_STOP_SLACK_MS more.
 *
 * Watch: every SW_WATCH_MS, a workload with no call under way has its
 * tasks listed.  A task that runs while orchd thinks it asleep (scaled
 * by hand, or by another orchd) is taken as a wake of the operator's and
 * checked for readiness; a service with no task meant to run any more
 * while orchd thinks it awake (scaled to 0 or removed by hand) is asleep.
 * A task that moves keeps its service's replicas: nothing ends.
 *
 * No manager: the wake fails with the daemon client's message (a 503),
 * the next wake asks again; what runs keeps running and serving.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "runtime.h"
#include "docker.h"

#define SW_POLL_MS		250	/* tasks listed while waiting */
#define SW_WATCH_MS		5000	/* tasks listed while nothing happens */
#define SW_STOP_SLACK_MS	30000	/* past the stop timeout */
#define SW_RETRIES		5	/* updates out of sequence in a row */
#define SW_VERSION_MAX		24

enum sw_op {
	SW_NONE = 0,
	SW_START,
	SW_STOP,
	SW_WATCH
};

enum sw_step {
	SW_INSPECT = 0,
	SW_CREATE,
	SW_UPDATE,
	SW_TASKS,
	SW_NODE
};

/* what a task list says */
struct sw_tasks {
	int	 running;		/* meant to run, and running */
	int	 meant;			/* meant to run, whatever they do */
	int	 alive;			/* a container that may still run */
	char	 node[DK_ID_MAX];	/* of the first that runs */
	char	 err[RT_MSG_MAX];	/* a task's error, "" if none */
};

struct rt_swarm {
	struct rt_workload	*wl;
	enum sw_op		 op;
	enum sw_step		 step;
	struct dk_req		*req;		/* the call in flight */
	struct event		*timer;		/* the next task list */
	char			 sname[DK_CNAME_MAX];
	char			 version[SW_VERSION_MAX];
	int			 replicas;	/* the service's, inspected */
	int			 running;	/* as far as we know */
	int			 stop_wanted;	/* once the call returns */
	int			 abandoned;	/* a start given up: stopping */
	int			 retries;
	int64_t			 deadline_ms;	/* a stop's wait */
	json_t			*spec;		/* ours, for a create */
	json_t			*have;		/* the manager's, inspected */
	char			 hash[DK_HASH_MAX];
	char			 err[RT_MSG_MAX]; /* the last task error told */
};

static int		 swarm_start(struct rt_workload *, char *, size_t);
static int		 swarm_stop(struct rt_workload *);
static enum rt_status	 swarm_status(struct rt_workload *);
static int		 swarm_logs(struct rt_workload *, size_t, rt_logs_cb,
			    void *);

const struct rt_driver driver_swarm = {
	.name = "swarm",
	.start = swarm_start,
	.stop = swarm_stop,
	.status = swarm_status,
	.logs = swarm_logs
};

static void	sw_done(const struct dk_resp *, void *);
static void	sw_stop_begin(struct rt_swarm *);
static void	sw_watch_arm(struct rt_swarm *, int64_t);

static struct rt_swarm *
sw_get(struct rt_workload *wl)
{
	struct rt_swarm	*sw;

	if (wl->swarm != NULL)
		return (wl->swarm);
	if ((sw = calloc(1, sizeof(*sw))) == NULL)
		fatal("%s: calloc", __func__);
	sw->wl = wl;
	dk_container_name(wl->name, sw->sname, sizeof(sw->sname));
	wl->swarm = sw;
	return (sw);
}

/* the workload is forgotten: no report may reach it any more */
void
swarm_clear(struct rt_workload *wl)
{
	struct rt_swarm	*sw = wl->swarm;

	agree_clear(wl);
	if (sw == NULL)
		return;
	dk_cancel(sw->req);
	timer_disarm(&sw->timer);
	json_decref(sw->spec);
	json_decref(sw->have);
	free(sw);
	wl->swarm = NULL;
}

static int
sw_call(struct rt_swarm *sw, enum sw_step step, enum dk_call call,
    const char *ref, const char *arg, json_t *body)
{
	sw->step = step;
	if ((sw->req = dk_call(call, ref, arg, body, sw_done, NULL,
	    sw)) == NULL)
		return (-1);
	return (0);
}

/* the service's version, replicas and hash, and its spec kept in have */
static int
sw_inspected(struct rt_swarm *sw, const struct dk_resp *r, char *hash,
    size_t hashlen, char *err, size_t errlen)
{
	json_error_t	 jerr;
	json_t		*o, *spec, *labels, *ver;
	const char	*owner, *h;

	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "inspect %s: bad answer: %s", sw->sname,
		    jerr.text);
		return (-1);
	}
	spec = json_object_get(o, "Spec");
	labels = json_object_get(spec, "Labels");
	owner = json_string_value(json_object_get(labels, DK_LABEL_WORKLOAD));
	ver = json_object_get(json_object_get(o, "Version"), "Index");
	if (!json_is_object(spec) || !json_is_integer(ver) ||
	    json_integer_value(ver) < 0) {
		snprintf(err, errlen, "inspect %s: no spec or version",
		    sw->sname);
		json_decref(o);
		return (-1);
	}
	/* a service of that name that orchd did not make: not ours */
	if (owner == NULL || strcmp(owner, sw->wl->name) != 0) {
		snprintf(err, errlen, "service %s exists and is not orchd's "
		    "(no label %s=%s)", sw->sname, DK_LABEL_WORKLOAD,
		    sw->wl->name);
		json_decref(o);
		return (-1);
	}
	(void)snprintf(sw->version, sizeof(sw->version), "%lld",
	    (long long)json_integer_value(ver));
	sw->replicas = json_integer_value(json_object_get(json_object_get(
	    json_object_get(spec, "Mode"), "Replicated"), "Replicas"));
	h = json_string_value(json_object_get(labels, DK_LABEL_HASH));
	strlcpy(hash, h != NULL ? h : "", hashlen);
	json_decref(sw->have);
	sw->have = json_incref(spec);
	json_decref(o);
	return (0);
}

/* what the tasks do; -1 if the answer makes no sense */
static int
sw_tasks(const struct dk_resp *r, struct sw_tasks *t)
{
	json_error_t	 jerr;
	json_t		*a, *task, *status;
	const char	*state, *desired, *node, *err;
	size_t		 i;

	memset(t, 0, sizeof(*t));
	if ((a = json_loadb(r->body, r->len, 0, &jerr)) == NULL ||
	    !json_is_array(a)) {
		json_decref(a);
		return (-1);
	}
	json_array_foreach(a, i, task) {
		status = json_object_get(task, "Status");
		state = json_string_value(json_object_get(status, "State"));
		desired = json_string_value(json_object_get(task,
		    "DesiredState"));
		err = json_string_value(json_object_get(status, "Err"));
		node = json_string_value(json_object_get(task, "NodeID"));
		if (state == NULL || desired == NULL)
			continue;
		/* states before running, and running: a container may be */
		if (strcmp(state, "assigned") == 0 ||
		    strcmp(state, "accepted") == 0 ||
		    strcmp(state, "preparing") == 0 ||
		    strcmp(state, "ready") == 0 ||
		    strcmp(state, "starting") == 0 ||
		    strcmp(state, "running") == 0)
			t->alive++;
		if (strcmp(desired, "running") != 0)
			continue;
		t->meant++;
		if (strcmp(state, "running") == 0) {
			if (t->running++ == 0 && node != NULL)
				strlcpy(t->node, node, sizeof(t->node));
		} else if (err != NULL && *err != '\0' && t->err[0] == '\0')
			strlcpy(t->err, err, sizeof(t->err));
	}
	json_decref(a);
	return (0);
}

static int
sw_out_of_sequence(const struct dk_resp *r)
{
	return (r->err != NULL && strstr(r->err, "out of sequence") != NULL);
}

/*
 * Task lists, now or after ms.
 */

static void
sw_timer_fired(int fd, short event, void *arg)
{
	struct rt_swarm	*sw = arg;

	if (sw->req != NULL)
		return;
	if (sw->op == SW_NONE) {
		/* a workload that is gone or is no service any more */
		if (sw->wl->conf == NULL ||
		    sw->wl->conf->driver != DRIVER_SWARM)
			return;
		sw->op = SW_WATCH;
	}
	if (sw_call(sw, SW_TASKS, DK_TASKS, sw->sname, NULL, NULL) == -1) {
		if (sw->op == SW_WATCH) {
			sw->op = SW_NONE;
			sw_watch_arm(sw, SW_WATCH_MS);
		} else
			/* the next answer cannot come: try again later */
			sw_watch_arm(sw, SW_POLL_MS);
	}
}

static void
sw_watch_arm(struct rt_swarm *sw, int64_t ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	timer_arm(&sw->timer, sw_timer_fired, sw, &tv);
}

/*
 * Start.
 */

static int
swarm_start(struct rt_workload *wl, char *msg, size_t len)
{
	struct rt_swarm	*sw = sw_get(wl);

	if (sw->op == SW_WATCH) {
		/* the start looks for itself */
		dk_cancel(sw->req);
		sw->req = NULL;
		sw->op = SW_NONE;
	}
	if (sw->op != SW_NONE) {
		snprintf(msg, len, "a swarm call is already under way");
		return (-1);
	}
	timer_disarm(&sw->timer);
	json_decref(sw->spec);
	if ((sw->spec = sw_spec(wl->conf, sw->sname, sw->hash,
	    sizeof(sw->hash), msg, len)) == NULL)
		return (-1);
	sw->op = SW_START;
	sw->stop_wanted = sw->abandoned = sw->retries = 0;
	sw->err[0] = '\0';
	if (sw_call(sw, SW_INSPECT, DK_SVC_INSPECT, sw->sname, NULL,
	    NULL) == -1) {
		sw->op = SW_NONE;
		snprintf(msg, len, "cannot call the swarm manager");
		return (-1);
	}
	return (0);
}

static void
sw_start_failed(struct rt_swarm *sw, const char *why)
{
	sw->op = SW_NONE;
	sw->stop_wanted = 0;
	log_warnx("workload %s: service not scaled up: %s", sw->wl->name,
	    why);
	sw_watch_arm(sw, SW_WATCH_MS);
	lifecycle_start_failed(sw->wl, why);
}

static void
sw_start_done(struct rt_swarm *sw)
{
	sw->op = SW_NONE;
	sw->running = 1;
	json_decref(sw->spec);
	sw->spec = NULL;
	sw_watch_arm(sw, SW_WATCH_MS);
	log_debug("workload %s: service %s has a task running", sw->wl->name,
	    sw->sname);
	lifecycle_started(sw->wl);
}

/* a stop came mid-start: whatever was scaled up goes down again */
static void
sw_abandon(struct rt_swarm *sw)
{
	sw->stop_wanted = 0;
	sw->abandoned = 1;
	sw_stop_begin(sw);
}

/*
 * scale to n: the manager's spec if ours already, else ours.  A scale-up
 * is a use of ours: our label says so (swarm_agree.c).
 */
static void
sw_scale(struct rt_swarm *sw, json_t *spec, int n)
{
	time_t	 now = time(NULL);

	if (sw_spec_replicas(spec, n) == -1 ||
	    (n > 0 && sw_seen_set(spec, rt->instance, now, now) == -1) ||
	    sw_call(sw, SW_UPDATE, DK_SVC_UPDATE, sw->sname, sw->version,
	    spec) == -1) {
		if (sw->op == SW_START)
			sw_start_failed(sw, "cannot call the swarm manager");
		else {
			log_warnx("workload %s: cannot scale service %s to 0",
			    sw->wl->name, sw->sname);
			sw->op = SW_NONE;
		}
	}
}

static void
sw_start_inspected(struct rt_swarm *sw, const struct dk_resp *r)
{
	char	 err[RT_MSG_MAX], hash[DK_HASH_MAX];
	int	 want = sw->wl->conf != NULL ? sw->wl->conf->replicas : 1;

	if (r->status == 404) {
		if (sw_spec_replicas(sw->spec, want) == -1 ||
		    sw_seen_set(sw->spec, rt->instance, time(NULL),
		    time(NULL)) == -1 ||
		    sw_call(sw, SW_CREATE, DK_SVC_CREATE, NULL, NULL,
		    sw->spec) == -1)
			sw_start_failed(sw, "cannot call the swarm manager");
		return;
	}
	if (r->status != 200) {
		sw_start_failed(sw, r->err);
		return;
	}
	if (sw_inspected(sw, r, hash, sizeof(hash), err, sizeof(err)) == -1) {
		sw_start_failed(sw, err);
		return;
	}
	if (strcmp(hash, sw->hash) == 0) {
		if (sw->replicas == want) {
			/* scaled already, by another orchd or by hand */
			log_info("workload %s: service %s has %d replicas "
			    "already", sw->wl->name, sw->sname, want);
			if (sw_call(sw, SW_TASKS, DK_TASKS, sw->sname, NULL,
			    NULL) == -1)
				sw_start_failed(sw, "cannot call the swarm "
				    "manager");
			return;
		}
		sw_scale(sw, sw->have, want);
		return;
	}
	log_info("workload %s: definition changed, updating service %s",
	    sw->wl->name, sw->sname);
	/* what the instances have seen is no part of the definition */
	if (sw_seen_keep(sw->have, sw->spec) == -1) {
		sw_start_failed(sw, "out of memory");
		return;
	}
	sw_scale(sw, sw->spec, want);
}

static void
sw_start_tasks(struct rt_swarm *sw, const struct dk_resp *r)
{
	struct sw_tasks	 t;

	if (r->status != 200 || sw_tasks(r, &t) == -1) {
		sw_start_failed(sw, r->status != 200 ? r->err :
		    "bad task list");
		return;
	}
	if (t.running > 0) {
		/* where it runs: the node's address, for the log */
		if (t.node[0] != '\0' && sw_call(sw, SW_NODE, DK_NODE, t.node,
		    NULL, NULL) == 0)
			return;
		sw_start_done(sw);
		return;
	}
	/* the swarm retries tasks itself: say why once, and wait on */
	if (t.err[0] != '\0' && strcmp(t.err, sw->err) != 0) {
		strlcpy(sw->err, t.err, sizeof(sw->err));
		log_warnx("workload %s: service %s: task: %s", sw->wl->name,
		    sw->sname, t.err);
	}
	sw_watch_arm(sw, SW_POLL_MS);
}

static void
sw_start_node(struct rt_swarm *sw, const struct dk_resp *r)
{
	json_error_t	 jerr;
	json_t		*o;
	const char	*addr = NULL, *want;

	if (r->status == 200 &&
	    (o = json_loadb(r->body, r->len, 0, &jerr)) != NULL) {
		addr = json_string_value(json_object_get(json_object_get(o,
		    "Status"), "Addr"));
		want = sw->wl->conf != NULL ? sw->wl->conf->address : NULL;
		/*
		 * The gateway sends requests to the workload's address: on
		 * one node that is the node's; on several, routing to the
		 * task's node is not done yet, and this says so.
		 */
		if (addr != NULL && want != NULL && strcmp(addr, want) != 0 &&
		    strcmp(addr, "127.0.0.1") != 0 && strcmp(addr, "::1") != 0)
			log_warnx("workload %s: its task runs on node %s, "
			    "not at its address %s", sw->wl->name, addr, want);
		else if (addr != NULL)
			log_debug("workload %s: task on node %s", sw->wl->name,
			    addr);
		json_decref(o);
	}
	sw_start_done(sw);
}

static void
sw_start_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	if (r->status == -1) {
		sw_start_failed(sw, r->err);
		return;
	}
	if (sw->stop_wanted) {
		sw_abandon(sw);
		return;
	}
	switch (sw->step) {
	case SW_INSPECT:
		sw_start_inspected(sw, r);
		return;
	case SW_CREATE:
		/* 409: another orchd made it meanwhile */
		if (r->status == 409 && sw->retries++ < SW_RETRIES)
			break;
		if (r->status != 201) {
			sw_start_failed(sw, r->err);
			return;
		}
		log_info("workload %s: created service %s", sw->wl->name,
		    sw->sname);
		sw_watch_arm(sw, 0);
		return;
	case SW_UPDATE:
		if (sw_out_of_sequence(r) && sw->retries++ < SW_RETRIES) {
			log_info("workload %s: service %s changed meanwhile, "
			    "looking again", sw->wl->name, sw->sname);
			break;
		}
		if (r->status != 200) {
			sw_start_failed(sw, r->err);
			return;
		}
		log_info("workload %s: scaled service %s up", sw->wl->name,
		    sw->sname);
		sw_watch_arm(sw, 0);
		return;
	case SW_TASKS:
		sw_start_tasks(sw, r);
		return;
	case SW_NODE:
		sw_start_node(sw, r);
		return;
	}
	/* look again */
	if (sw_call(sw, SW_INSPECT, DK_SVC_INSPECT, sw->sname, NULL,
	    NULL) == -1)
		sw_start_failed(sw, "cannot call the swarm manager");
}

/*
 * Stop.
 */

static void
sw_stop_done(struct rt_swarm *sw)
{
	struct rt_workload	*wl = sw->wl;
	int			 abandoned = sw->abandoned;

	sw->op = SW_NONE;
	sw->running = sw->abandoned = 0;
	sw_watch_arm(sw, SW_WATCH_MS);
	if (abandoned)
		lifecycle_start_failed(wl, "stopped before it started");
	else
		lifecycle_exited(wl, 0);
}

/*
 * A suspend for idleness that another instance's use overtook: the
 * service keeps its replicas.  The stop ends as one, and the watch,
 * at once, finds the task running and checks it as for any wake.
 */
static void
sw_stop_kept(struct rt_swarm *sw)
{
	sw->op = SW_NONE;
	sw->running = 0;
	sw_watch_arm(sw, 0);
	lifecycle_exited(sw->wl, 0);
}

static int
sw_idle_stop(const struct rt_swarm *sw)
{
	return (!sw->abandoned && sw->wl->stop_reason == RT_REASON_IDLE);
}

static void
sw_stop_begin(struct rt_swarm *sw)
{
	const struct workload_conf	*wc = sw->wl->conf;
	int64_t				 t = WL_STOP_TIMEOUT;

	if (wc != NULL && wc->stop_timeout != -1)
		t = wc->stop_timeout;
	sw->op = SW_STOP;
	sw->stop_wanted = 0;
	sw->retries = 0;
	sw->deadline_ms = monotime_ms() + t * 1000 + SW_STOP_SLACK_MS;
	timer_disarm(&sw->timer);
	if (sw_call(sw, SW_INSPECT, DK_SVC_INSPECT, sw->sname, NULL,
	    NULL) == -1) {
		log_warnx("workload %s: cannot scale service %s down",
		    sw->wl->name, sw->sname);
		sw_stop_done(sw);
	}
}

static void
sw_stop_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	struct sw_tasks	 t;
	char		 err[RT_MSG_MAX], hash[DK_HASH_MAX];

	/* even unsure, it counts as stopped: the next wake looks again */
	if (r->status == -1) {
		log_warnx("workload %s: scaling service %s down: %s",
		    sw->wl->name, sw->sname, r->err);
		sw_stop_done(sw);
		return;
	}
	switch (sw->step) {
	case SW_INSPECT:
		if (r->status == 404) {
			sw_stop_done(sw);
			return;
		}
		if (r->status != 200 || sw_inspected(sw, r, hash,
		    sizeof(hash), err, sizeof(err)) == -1) {
			log_warnx("workload %s: scaling service %s down: %s",
			    sw->wl->name, sw->sname, r->status != 200 ?
			    r->err : err);
			sw_stop_done(sw);
			return;
		}
		if (sw->replicas == 0)
			break;
		/* used at another instance since the reaper asked */
		if (sw_idle_stop(sw) && agree_busy_elsewhere(sw->wl,
		    sw->have)) {
			sw_stop_kept(sw);
			return;
		}
		sw_scale(sw, sw->have, 0);
		if (sw->op == SW_NONE)
			sw_stop_done(sw);
		return;
	case SW_UPDATE:
		if (sw_out_of_sequence(r) && sw->retries++ < SW_RETRIES) {
			if (sw_call(sw, SW_INSPECT, DK_SVC_INSPECT, sw->sname,
			    NULL, NULL) == -1)
				sw_stop_done(sw);
			return;
		}
		if (r->status != 200) {
			log_warnx("workload %s: scaling service %s down: %s",
			    sw->wl->name, sw->sname, r->err);
			sw_stop_done(sw);
			return;
		}
		log_info("workload %s: scaled service %s to 0", sw->wl->name,
		    sw->sname);
		break;
	case SW_TASKS:
		/* 404: the service is gone, and its tasks with it */
		if (r->status == 200 && sw_tasks(r, &t) == 0 && t.alive > 0 &&
		    monotime_ms() < sw->deadline_ms)
			break;
		sw_stop_done(sw);
		return;
	default:
		sw_stop_done(sw);
		return;
	}
	/* its tasks are ending: list them until none is left */
	sw_watch_arm(sw, sw->step == SW_TASKS ? SW_POLL_MS : 0);
}

static int
swarm_stop(struct rt_workload *wl)
{
	struct rt_swarm	*sw = wl->swarm;

	if (sw == NULL)
		return (1);
	switch (sw->op) {
	case SW_START:
		if (sw->req == NULL) {
			/* between two task lists */
			sw_abandon(sw);
			return (0);
		}
		sw->stop_wanted = 1;
		return (0);
	case SW_STOP:
		return (0);
	case SW_WATCH:
		dk_cancel(sw->req);
		sw->req = NULL;
		sw->op = SW_NONE;
		break;
	case SW_NONE:
		break;
	}
	if (!sw->running)
		return (1);
	sw_stop_begin(sw);
	return (0);
}

static enum rt_status
swarm_status(struct rt_workload *wl)
{
	struct rt_swarm	*sw = wl->swarm;

	if (sw == NULL)
		return (RT_STATUS_STOPPED);
	switch (sw->op) {
	case SW_START:
		return (RT_STATUS_STARTING);
	case SW_STOP:
		return (RT_STATUS_STOPPING);
	default:
		return (sw->running ? RT_STATUS_RUNNING : RT_STATUS_STOPPED);
	}
}

/* a service's logs are spread over its nodes: docker service logs */
static int
swarm_logs(struct rt_workload *wl, size_t tail, rt_logs_cb cb, void *arg)
{
	errno = EOPNOTSUPP;
	return (-1);
}

/*
 * Watch: what the swarm does that orchd did not ask for.
 */

static void
sw_watch_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	struct rt_workload	*wl = sw->wl;
	struct sw_tasks		 t;

	sw->op = SW_NONE;
	sw_watch_arm(sw, SW_WATCH_MS);
	/* no service (yet, or removed by hand): no task */
	if (r->status == 404)
		memset(&t, 0, sizeof(t));
	else if (r->status != 200 || sw_tasks(r, &t) == -1)
		/* no manager: nothing is believed, the next look says */
		return;
	if (!sw->running && t.running > 0 && (wl->state == WL_ASLEEP ||
	    wl->state == WL_FAILED)) {
		log_info("workload %s: service %s was scaled up outside this "
		    "orchd", wl->name, sw->sname);
		sw->running = 1;
		if (lifecycle_found_running(wl, &driver_swarm,
		    "its service was scaled up outside orchd") == -1)
			sw->running = 0;
		return;
	}
	if (sw->running && t.meant == 0 && wl->state == WL_RUNNING &&
	    !wl->stopping) {
		log_info("workload %s: service %s has no task meant to run: "
		    "scaled down or removed outside orchd", wl->name,
		    sw->sname);
		sw->running = 0;
		lifecycle_ended(wl, 0, RT_REASON_EXITED, r->status == 404 ?
		    "its service was removed outside orchd" :
		    "its service was scaled to 0 outside orchd");
	}
}

static void
sw_done(const struct dk_resp *r, void *arg)
{
	struct rt_swarm	*sw = arg;

	sw->req = NULL;
	switch (sw->op) {
	case SW_START:
		sw_start_step(sw, r);
		break;
	case SW_STOP:
		sw_stop_step(sw, r);
		break;
	case SW_WATCH:
		sw_watch_step(sw, r);
		break;
	case SW_NONE:
		break;
	}
}

/*
 * A new generation names wl with driver swarm: its service may run
 * already, from another orchd or the last run of this one.  The first
 * watch looks at once.
 */
void
swarm_adopt(struct rt_workload *wl)
{
	struct rt_swarm	*sw = sw_get(wl);

	if (sw->op == SW_NONE && sw->req == NULL)
		sw_watch_arm(sw, 0);
}
