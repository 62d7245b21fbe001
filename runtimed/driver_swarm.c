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
 * and SW_STOP_SLACK_MS more.  A task meant to run while the stop waits
 * may be one the manager has not told to stop yet, or one another orchd
 * (or an operator) scaled the service up for since: the service is
 * inspected again, and if it has replicas the stop ends here, at once,
 * so that the requests held for the next wake find it running rather
 * than wait on tasks that will not end (issue 30).  A start whose
 * service has no task meant to run looks again the same way: scaled to
 * 0 by another orchd's suspend after its own scale-up, it scales up
 * again rather than wait for a task until its wake timeout.
 *
 * Route: once a task runs, the nodes of the running tasks are looked up
 * (GET /nodes/ID, Status.Addr), and the gateways told to send requests
 * to those addresses at the workload's port (IMSG_RT_ROUTE, several
 * with replicas, taken in turn); readiness is checked at the first.
 * A task that moves is followed: the watch finds its tasks on other
 * nodes, or a gateway finds the connection refused and asks
 * (lifecycle_refused()), and the tasks are listed every SW_POLL_MS until
 * one runs again, at most the wake timeout; then it is routed there,
 * checked, and the gateway sends what it held.  On one machine a worker
 * joined to a manager on loopback has the manager's address: the swarm
 * records the address a node connects from.
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
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"
#include "driver.h"

#define SW_POLL_MS		250	/* tasks listed while waiting */
#define SW_WATCH_MS		5000	/* tasks listed while nothing happens */
#define SW_STOP_SLACK_MS	30000	/* past the stop timeout */
#define SW_RETRIES		5	/* updates out of sequence in a row */
#define SW_VERSION_MAX		24
#define SW_CHECK_MS		2000	/* a moved task's readiness check */

enum sw_op {
	SW_NONE = 0,
	SW_START,
	SW_STOP,
	SW_WATCH,
	SW_FOLLOW		/* its tasks moved: routed anew */
};

enum sw_step {
	SW_INSPECT = 0,
	SW_CREATE,
	SW_UPDATE,
	SW_TASKS,
	SW_NODE,
	SW_RELOOK		/* scaled up again meanwhile? */
};

/* what a task list says */
struct sw_tasks {
	int	 running;		/* meant to run, and running */
	int	 meant;			/* meant to run, whatever they do */
	int	 alive;			/* a container that may still run */
	char	 nodes[RT_ROUTE_MAX][DK_ID_MAX]; /* those running, on */
	int	 nnodes;
	char	 err[RT_MSG_MAX];	/* a task's error, "" if none */
};

struct rt_swarm {
	struct rt_workload	*wl;
	enum sw_op		 op;
	enum sw_step		 step;
	struct dk_req		*req;		/* the call in flight */
	struct event		*timer;		/* the next task list */
	char			 sname[DK_SNAME_MAX];
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
	/* the route: the nodes its tasks run on, and their addresses */
	char			 nodes[RT_ROUTE_MAX][DK_ID_MAX];
	int			 nnodes;
	int			 nlooked;	/* of them, looked up */
	union wl_addr		 addrs[RT_ROUTE_MAX];
	int			 naddrs;
	int			 routed;	/* the gateways have nodes */
	int			 refused;	/* a gateway awaits the look */
	int64_t			 follow_end;	/* monotonic ms */
	struct rt_probe		*probe;		/* a moved task's check */
	/* after a restart: the first watch compares, then the store's */
	int			 looked;
	int			 restore_pending;
	struct st_restore	 restore;
};

static int		 swarm_start(struct rt_workload *, char *, size_t);
static void		 sw_looked(struct rt_swarm *);
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
static void	sw_follow(struct rt_swarm *, int);
static void	sw_follow_cancel(struct rt_swarm *);
static void	sw_follow_end(struct rt_swarm *);

static struct rt_swarm *
sw_get(struct rt_workload *wl)
{
	struct rt_swarm	*sw;

	if (wl->swarm != NULL)
		return (wl->swarm);
	if ((sw = calloc(1, sizeof(*sw))) == NULL)
		fatal("%s: calloc", __func__);
	sw->wl = wl;
	dk_service_name(wl->name, sw->sname, sizeof(sw->sname));
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
	ready_check_cancel(&sw->probe);
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
	int		 n;

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
			t->running++;
			if (node == NULL || *node == '\0' ||
			    strlen(node) >= DK_ID_MAX)
				continue;
			for (n = 0; n < t->nnodes; n++)
				if (strcmp(t->nodes[n], node) == 0)
					break;
			/* beyond RT_ROUTE_MAX nodes, requests go to those */
			if (n == t->nnodes && n < RT_ROUTE_MAX)
				strlcpy(t->nodes[t->nnodes++], node,
				    sizeof(t->nodes[0]));
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
 * Route: the nodes the tasks run on.
 */

static socklen_t
sw_addrlen(const union wl_addr *a)
{
	return (a->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6));
}

/* the nodes of t are those routed already */
static int
sw_nodes_same(const struct rt_swarm *sw, const struct sw_tasks *t)
{
	int	 i, j;

	if (!sw->routed || sw->nnodes != t->nnodes)
		return (0);
	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < sw->nnodes; j++)
			if (strcmp(t->nodes[i], sw->nodes[j]) == 0)
				break;
		if (j == sw->nnodes)
			return (0);
	}
	return (1);
}

/* the nodes of t are looked up, one after the other (sw_node_step) */
static int
sw_nodes_begin(struct rt_swarm *sw, const struct sw_tasks *t)
{
	if (t->nnodes == 0)
		return (-1);
	memcpy(sw->nodes, t->nodes, sizeof(sw->nodes));
	sw->nnodes = t->nnodes;
	sw->nlooked = sw->naddrs = 0;
	sw->routed = 0;
	return (sw_call(sw, SW_NODE, DK_NODE, sw->nodes[0], NULL, NULL));
}

/* a node's Status.Addr, at the workload's port, unless known already */
static void
sw_node_addr(struct rt_swarm *sw, const struct dk_resp *r)
{
	const struct workload_conf	*wc = sw->wl->conf;
	const char			*node = sw->nodes[sw->nlooked];
	json_error_t			 jerr;
	json_t				*o;
	const char			*s;
	union wl_addr			 a;
	int				 i;

	if (r->status != 200 || wc == NULL) {
		log_warnx("workload %s: node %s: %s", sw->wl->name, node,
		    r->status != 200 && r->err != NULL ? r->err : "gone");
		return;
	}
	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL)
		return;
	s = json_string_value(json_object_get(json_object_get(o, "Status"),
	    "Addr"));
	memset(&a, 0, sizeof(a));
	if (s != NULL && inet_pton(AF_INET, s, &a.sin.sin_addr) == 1) {
		a.sin.sin_family = AF_INET;
		a.sin.sin_port = htons(workload_upstream_port(wc));
	} else if (s != NULL && inet_pton(AF_INET6, s, &a.sin6.sin6_addr) ==
	    1) {
		a.sin6.sin6_family = AF_INET6;
		a.sin6.sin6_port = htons(workload_upstream_port(wc));
	} else {
		log_warnx("workload %s: node %s has no address (Status.Addr "
		    "\"%s\")", sw->wl->name, node, s != NULL ? s : "");
		json_decref(o);
		return;
	}
	log_debug("workload %s: a task on node %s, %s", sw->wl->name, node,
	    s);
	json_decref(o);
	for (i = 0; i < sw->naddrs; i++)
		if (memcmp(&sw->addrs[i], &a, sizeof(a)) == 0)
			return;
	memcpy(&sw->addrs[sw->naddrs++], &a, sizeof(a));
}

/* the gateways send its requests to the nodes looked up */
static void
sw_route(struct rt_swarm *sw)
{
	struct rt_workload	*wl = sw->wl;
	struct rt_route		 rr;
	char			 buf[INET6_ADDRSTRLEN];
	const void		*ia;

	sw->routed = 1;
	if (sw->naddrs == 0) {
		log_warnx("workload %s: no node address of its tasks known: "
		    "routed as before", wl->name);
		return;
	}
	memcpy(&wl->addr, &sw->addrs[0], sizeof(wl->addr));
	wl->addrlen = sw_addrlen(&sw->addrs[0]);
	memset(&rr, 0, sizeof(rr));
	strlcpy(rr.name, wl->name, sizeof(rr.name));
	memcpy(&rr.addr, &wl->addr, sizeof(rr.addr));
	rr.addrlen = wl->addrlen;
	rr.nmore = sw->naddrs - 1;
	memcpy(rr.more, &sw->addrs[1], rr.nmore * sizeof(rr.more[0]));
	if (wl->addr.ss_family == AF_INET)
		ia = &wl->addr.sin.sin_addr;
	else
		ia = &wl->addr.sin6.sin6_addr;
	if (inet_ntop(wl->addr.ss_family, ia, buf, sizeof(buf)) == NULL)
		strlcpy(buf, "?", sizeof(buf));
	log_info("workload %s: routed to its task%s on %s%s", wl->name,
	    sw->naddrs > 1 ? "s" : "", buf, sw->naddrs > 1 ? " and others" :
	    "");
	if (proc_compose(rt->ps, PROC_GATEWAY, IMSG_RT_ROUTE, 0, -1, &rr,
	    sizeof(rr)) == -1)
		log_warn("workload %s: route to the gateways", wl->name);
}

/* a node's answer: 0 while others are looked up, 1 once routed */
static int
sw_node_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	sw_node_addr(sw, r);
	while (++sw->nlooked < sw->nnodes)
		if (sw_call(sw, SW_NODE, DK_NODE, sw->nodes[sw->nlooked],
		    NULL, NULL) == 0)
			return (0);
	sw_route(sw);
	return (1);
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
			/* no daemon to ask: checked as well as it can be */
			sw_looked(sw);
		} else if (sw->op == SW_FOLLOW &&
		    monotime_ms() >= sw->follow_end)
			sw_follow_end(sw);
		else
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

	if (sw->op == SW_WATCH || sw->op == SW_FOLLOW)
		/* the start looks for itself */
		sw_follow_cancel(sw);
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
	lifecycle->start_failed(sw->wl, why);
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
	lifecycle->started(sw->wl);
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
		/* where it runs: the gateways go there */
		if (sw_nodes_begin(sw, &t) == 0)
			return;
		sw_start_done(sw);
		return;
	}
	/* none meant to run: not made yet, or scaled to 0 by another */
	if (t.meant == 0) {
		if (sw_call(sw, SW_RELOOK, DK_SVC_INSPECT, sw->sname, NULL,
		    NULL) == -1)
			sw_start_failed(sw, "cannot call the swarm manager");
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

/* no task meant to run: scaled to 0 by another since it was scaled up? */
static void
sw_start_relooked(struct rt_swarm *sw, const struct dk_resp *r)
{
	char	 err[RT_MSG_MAX], hash[DK_HASH_MAX];

	if (r->status == 200 && sw_inspected(sw, r, hash, sizeof(hash), err,
	    sizeof(err)) == 0 && sw->replicas == 0) {
		if (sw->retries++ >= SW_RETRIES) {
			sw_start_failed(sw, "its service was scaled to 0 "
			    "again and again meanwhile");
			return;
		}
		log_info("workload %s: service %s was scaled to 0 meanwhile, "
		    "scaling it up again", sw->wl->name, sw->sname);
		sw_start_inspected(sw, r);
		return;
	}
	/* its task is not made yet: list them again */
	sw_watch_arm(sw, SW_POLL_MS);
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
		if (sw_node_step(sw, r) == 1)
			sw_start_done(sw);
		return;
	case SW_RELOOK:
		sw_start_relooked(sw, r);
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
	sw->routed = sw->nnodes = 0;
	sw_watch_arm(sw, SW_WATCH_MS);
	if (abandoned)
		lifecycle->start_failed(wl, "stopped before it started");
	else
		lifecycle->exited(wl, 0);
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
	lifecycle->exited(sw->wl, 0);
}

/*
 * Scaled to 0, the service was scaled up again before its tasks ended:
 * another orchd woke it for a request of its own, or an operator did.
 * This stop is over: the requests held here for the next wake find it
 * running (swarm_start: "has replicas already").
 */
static void
sw_stop_overtaken(struct rt_swarm *sw)
{
	log_info("workload %s: service %s was scaled up again while it "
	    "stopped: stopped here, running there", sw->wl->name, sw->sname);
	if (sw->abandoned)
		sw_stop_done(sw);
	else
		sw_stop_kept(sw);
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
		if (r->status != 200 || sw_tasks(r, &t) == -1 ||
		    monotime_ms() >= sw->deadline_ms) {
			sw_stop_done(sw);
			return;
		}
		/* one meant to run: not told to stop yet, or scaled up anew */
		if (t.meant > 0) {
			if (sw_call(sw, SW_RELOOK, DK_SVC_INSPECT, sw->sname,
			    NULL, NULL) == -1)
				sw_stop_done(sw);
			return;
		}
		if (t.alive > 0)
			break;
		sw_stop_done(sw);
		return;
	case SW_RELOOK:
		if (r->status == 200 && sw_inspected(sw, r, hash,
		    sizeof(hash), err, sizeof(err)) == 0 && sw->replicas > 0) {
			sw_stop_overtaken(sw);
			return;
		}
		/* 404: gone; else no manager: the next list says */
		if (r->status == 404) {
			sw_stop_done(sw);
			return;
		}
		break;
	default:
		sw_stop_done(sw);
		return;
	}
	/* its tasks are ending: list them until none is left */
	sw_watch_arm(sw, sw->step == SW_UPDATE || sw->step == SW_INSPECT ? 0 :
	    SW_POLL_MS);
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
	case SW_FOLLOW:
		sw_follow_cancel(sw);
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
sw_watch_look(struct rt_swarm *sw, const struct dk_resp *r)
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
		if (lifecycle->found_running(wl, &driver_swarm,
		    "its service was scaled up outside orchd") == -1)
			sw->running = 0;
		else
			sw_follow(sw, 0);
		return;
	}
	/* its tasks run elsewhere now: the gateways follow */
	if (sw->running && t.running > 0 && !sw_nodes_same(sw, &t) &&
	    (wl->state == WL_RUNNING || wl->state == WL_WAKING) &&
	    !wl->stopping) {
		sw_follow(sw, 0);
		return;
	}
	if (sw->running && t.meant == 0 && wl->state == WL_RUNNING &&
	    !wl->stopping) {
		log_info("workload %s: service %s has no task meant to run: "
		    "scaled down or removed outside orchd", wl->name,
		    sw->sname);
		sw->running = 0;
		lifecycle->ended(wl, 0, RT_REASON_EXITED, r->status == 404 ?
		    "its service was removed outside orchd" :
		    "its service was scaled to 0 outside orchd");
	}
}

/*
 * The first look after a start ends the check of a workload restarted
 * (lifecycle_check_end()): the store's memory is acted on once the
 * watch has said whether its service runs, as docker_restore() waits
 * for its container.  A look that had no answer (no manager) ends it
 * too: the store's memory is all there is then, and the next looks
 * correct it.
 */
static void
sw_watch_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	sw_watch_look(sw, r);
	sw_looked(sw);
}

static void
sw_looked(struct rt_swarm *sw)
{
	if (sw->looked)
		return;
	sw->looked = 1;
	if (sw->restore_pending) {
		sw->restore_pending = 0;
		lifecycle->restore(&sw->restore);
	} else if (rt->restored || rt->store_none)
		lifecycle->check_end(sw->wl);
}

/* the store's memory of wl, kept until the first look: 0 if kept */
int
swarm_restore(struct rt_workload *wl, const struct st_restore *rs)
{
	struct rt_swarm	*sw = wl->swarm;

	if (sw == NULL || sw->looked)
		return (-1);
	sw->restore = *rs;
	sw->restore_pending = 1;
	return (0);
}

/* 1 until its first look after a start */
int
swarm_looking(struct rt_workload *wl)
{
	return (wl->swarm != NULL && !wl->swarm->looked);
}

/*
 * Follow: its tasks run on other nodes than routed, or a gateway was
 * refused.  A gateway that asked hears once it is routed and ready, or
 * the wake timeout has passed: it sends what it held, or answers.
 */

static void
sw_follow_end(struct rt_swarm *sw)
{
	int	 refused = sw->refused;

	sw->op = SW_NONE;
	sw->refused = 0;
	sw_watch_arm(sw, SW_WATCH_MS);
	if (refused)
		lifecycle->checked(sw->wl);
}

/* a start or a stop takes over: it tells the gateways */
static void
sw_follow_cancel(struct rt_swarm *sw)
{
	dk_cancel(sw->req);
	sw->req = NULL;
	ready_check_cancel(&sw->probe);
	timer_disarm(&sw->timer);
	sw->op = SW_NONE;
	sw->refused = 0;
}

static void
sw_follow(struct rt_swarm *sw, int refused)
{
	if (sw->op == SW_WATCH)
		sw_follow_cancel(sw);
	sw->refused |= refused;
	if (sw->op == SW_FOLLOW)
		return;
	sw->op = SW_FOLLOW;
	sw->follow_end = monotime_ms() +
	    lifecycle->wake_timeout(sw->wl) * 1000;
	log_debug("workload %s: %s: looking where its tasks run",
	    sw->wl->name, refused ? "a gateway could not connect" :
	    "its tasks run elsewhere");
	timer_disarm(&sw->timer);
	sw_watch_arm(sw, 0);
}

static void
sw_follow_ready(struct rt_workload *wl, const char *why)
{
	struct rt_swarm	*sw = wl->swarm;

	if (why == NULL || monotime_ms() >= sw->follow_end) {
		sw_follow_end(sw);
		return;
	}
	/* not listening yet, or moved again: look again */
	sw_watch_arm(sw, SW_POLL_MS);
}

/* routed: checked there first if a gateway waits */
static void
sw_follow_check(struct rt_swarm *sw)
{
	if (!sw->refused || sw->wl->state != WL_RUNNING) {
		sw_follow_end(sw);
		return;
	}
	ready_check(sw->wl, &sw->probe, SW_CHECK_MS, sw_follow_ready);
}

static void
sw_follow_step(struct rt_swarm *sw, const struct dk_resp *r)
{
	struct sw_tasks	 t;

	if (r->status == -1 || (sw->step == SW_TASKS && r->status != 200 &&
	    r->status != 404)) {
		/* no manager: the gateway hears it runs, as far as known */
		sw_follow_end(sw);
		return;
	}
	if (sw->step == SW_NODE) {
		if (sw_node_step(sw, r) == 1)
			sw_follow_check(sw);
		return;
	}
	if (r->status == 404 || sw_tasks(r, &t) == -1 || t.meant == 0) {
		/* none meant to run: the watch says it ended */
		sw->op = SW_WATCH;
		sw_watch_step(sw, r);
		return;
	}
	if (t.running > 0) {
		if (!sw_nodes_same(sw, &t)) {
			if (sw_nodes_begin(sw, &t) == 0)
				return;
			sw->routed = 1;
		}
		sw_follow_check(sw);
		return;
	}
	/* moving: pending on no node yet, or starting on its new one */
	if (monotime_ms() >= sw->follow_end) {
		log_warnx("workload %s: no task of service %s runs yet",
		    sw->wl->name, sw->sname);
		sw_follow_end(sw);
		return;
	}
	sw_watch_arm(sw, SW_POLL_MS);
}

/*
 * A gateway could not connect to the workload it was told runs: where
 * do its tasks run now?  0 if the gateway hears once that is known.
 */
int
swarm_refused(struct rt_workload *wl)
{
	struct rt_swarm	*sw = wl->swarm;

	if (sw == NULL || !sw->running || (sw->op != SW_NONE &&
	    sw->op != SW_WATCH && sw->op != SW_FOLLOW))
		return (-1);
	sw_follow(sw, 1);
	return (0);
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
	case SW_FOLLOW:
		sw_follow_step(sw, r);
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
