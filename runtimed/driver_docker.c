/*
 * The docker driver: a workload that is a container, orchd-NAME,
 * labelled org.orchd.workload=NAME and org.orchd.hash=<its spec's hash>.
 *
 * Start: inspect orchd-NAME.  None: create it, then start it.  One with
 * the same hash: start it, or take it as it is if it runs already.  One
 * with another hash, because the definition changed since it was made:
 * remove it (its volumes stay) and create it again.  With "network
 * NAME", the network is made sure of first (docker_network.c), and a
 * stopped container made on another network of that name, since
 * removed, is replaced too.  A definition that changes is therefore
 * used at the next wake, and a change never wakes anything.  Stop: the
 * container's memory figure for the store, then POST
 * /containers/ID/stop?t=<its stop timeout>: the daemon sends the
 * container's StopSignal and a SIGKILL once that has passed.  The
 * container is kept, to be started again.
 *
 * Each workload has at most one operation under way (struct rt_docker),
 * one call at a time: start, stop, the check that follows an exit the
 * events stream reported, or the adoption of a container found at start.
 * A stop asked for during a start waits for the call in flight, then
 * stops whatever it started.  Errors from the daemon, or no daemon,
 * fail the wake with the daemon's message; nothing here blocks, and the
 * next wake asks the daemon again.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runtime.h"
#include "docker.h"

enum dk_op {
	OP_NONE = 0,
	OP_ADOPT,		/* is a container there from before? */
	OP_START,
	OP_STOP,
	OP_CHECK		/* has it really exited? */
};

enum dk_step {
	STEP_NETWORK = 0,	/* dk_network_ensure(), not a dk_call() */
	STEP_INSPECT,
	STEP_REMOVE,
	STEP_CREATE,
	STEP_START,
	STEP_STATS,
	STEP_STOP
};

struct rt_docker {
	struct rt_workload	*wl;
	enum dk_op		 op;
	enum dk_step		 step;
	struct dk_req		*req;		/* the call in flight */
	char			 cname[DK_CNAME_MAX];
	char			 id[DK_ID_MAX];	/* "": none known */
	int			 running;	/* as far as we know */
	int			 stop_wanted;	/* once the call returns */
	int			 died;		/* an exit seen mid-start */
	int			 adopted;	/* the look at start is done */
	int			 restore_pending;
	struct st_restore	 restore;	/* the store's, held */
	json_t			*spec;		/* to create */
	char			 hash[DK_HASH_MAX];
	int64_t			 stop_timeout;	/* of the definition it
						   was started with */
	struct dk_netwait	*netwait;	/* STEP_NETWORK */
	char			 netid[DK_ID_MAX]; /* its network's, now */
	char			 cnetid[DK_ID_MAX]; /* the container's */
};

static int		 docker_start(struct rt_workload *, char *, size_t);
static int		 docker_stop(struct rt_workload *);
static enum rt_status	 docker_status(struct rt_workload *);

const struct rt_driver driver_docker = {
	.name = "docker",
	.start = docker_start,
	.stop = docker_stop,
	.status = docker_status,
	.logs = docker_logs
};

static void	dk_done(const struct dk_resp *, void *);
static void	dk_stop_begin(struct rt_docker *);
static void	dk_network_ready(const char *, const char *, void *);

static struct rt_docker *
dk_get(struct rt_workload *wl)
{
	struct rt_docker	*dk;

	if (wl->docker != NULL)
		return (wl->docker);
	if ((dk = calloc(1, sizeof(*dk))) == NULL)
		fatal("%s: calloc", __func__);
	dk->wl = wl;
	dk->stop_timeout = WL_STOP_TIMEOUT;
	dk_container_name(wl->name, dk->cname, sizeof(dk->cname));
	wl->docker = dk;
	return (dk);
}

/* the workload is forgotten: no report may reach it any more */
void
docker_clear(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;

	docker_logs_clear(wl);
	if (dk == NULL)
		return;
	dk_network_cancel(dk->netwait);
	dk_cancel(dk->req);
	json_decref(dk->spec);
	free(dk);
	wl->docker = NULL;
}

/*
 * A stop waits as long as the definition the container was started with
 * says, even if a reload changed it since: so does its StopSignal.
 */
static void
dk_keep_stop_timeout(struct rt_docker *dk)
{
	const struct workload_conf	*wc = dk->wl->conf;

	if (wc != NULL)
		dk->stop_timeout = wc->stop_timeout != -1 ?
		    wc->stop_timeout : WL_STOP_TIMEOUT;
}

static int
dk_next(struct rt_docker *dk, enum dk_step step, enum dk_call call,
    const char *ref, json_t *body)
{
	const char	*arg = NULL;
	char		 secs[16];

	if (call == DK_CREATE) {
		arg = dk->cname;
		ref = NULL;
	} else if (call == DK_STOP) {
		(void)snprintf(secs, sizeof(secs), "%lld",
		    (long long)dk->stop_timeout);
		arg = secs;
	}
	dk->step = step;
	if ((dk->req = dk_call(call, ref, arg, body, dk_done, NULL,
	    dk)) == NULL)
		return (-1);
	return (0);
}

/* the id of the network of "network NAME" the container is on, or "" */
static void
dk_inspected_network(struct rt_docker *dk, json_t *o)
{
	const struct workload_conf	*wc = dk->wl->conf;
	json_t				*nets;
	const char			*id = NULL;

	dk->cnetid[0] = '\0';
	if (wc == NULL || wc->network != NETWORK_NAMED)
		return;
	nets = json_object_get(json_object_get(o, "NetworkSettings"),
	    "Networks");
	id = json_string_value(json_object_get(json_object_get(nets,
	    wc->netname), "NetworkID"));
	if (id != NULL)
		strlcpy(dk->cnetid, id, sizeof(dk->cnetid));
}

/* the container's id, running state and our labels, from an inspect */
static int
dk_inspected(struct rt_docker *dk, const struct dk_resp *r, int *running,
    char *hash, size_t hashlen, char *err, size_t errlen)
{
	json_error_t	 jerr;
	json_t		*o, *labels;
	const char	*id, *owner, *h;

	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "inspect %s: bad answer: %s", dk->cname,
		    jerr.text);
		return (-1);
	}
	id = json_string_value(json_object_get(o, "Id"));
	labels = json_object_get(json_object_get(o, "Config"), "Labels");
	owner = json_string_value(json_object_get(labels, DK_LABEL_WORKLOAD));
	if (id == NULL || strlen(id) >= sizeof(dk->id)) {
		snprintf(err, errlen, "inspect %s: no id", dk->cname);
		json_decref(o);
		return (-1);
	}
	/* a container of that name that orchd did not make: not ours */
	if (owner == NULL || strcmp(owner, dk->wl->name) != 0) {
		snprintf(err, errlen, "container %s exists and is not "
		    "orchd's (no label %s=%s)", dk->cname, DK_LABEL_WORKLOAD,
		    dk->wl->name);
		json_decref(o);
		return (-1);
	}
	strlcpy(dk->id, id, sizeof(dk->id));
	dk_inspected_network(dk, o);
	*running = json_is_true(json_object_get(json_object_get(o, "State"),
	    "Running"));
	if (hash != NULL) {
		h = json_string_value(json_object_get(labels, DK_LABEL_HASH));
		strlcpy(hash, h != NULL ? h : "", hashlen);
	}
	json_decref(o);
	return (0);
}

/*
 * Start.
 */

static int
docker_start(struct rt_workload *wl, char *msg, size_t len)
{
	struct rt_docker	*dk = dk_get(wl);

	docker_events_start();
	if (dk->op == OP_ADOPT) {
		/* the start looks for itself */
		dk_cancel(dk->req);
		dk->req = NULL;
		dk->op = OP_NONE;
		dk->adopted = 1;
		dk->restore_pending = 0;
	}
	if (dk->op != OP_NONE) {
		snprintf(msg, len, "a Docker call is already under way");
		return (-1);
	}
	json_decref(dk->spec);
	if ((dk->spec = dk_spec(wl->conf, msg, len)) == NULL)
		return (-1);
	if (dk_spec_hash(dk->spec, dk->hash, sizeof(dk->hash)) == -1) {
		snprintf(msg, len, "cannot hash the container's definition");
		return (-1);
	}
	dk->op = OP_START;
	dk->stop_wanted = 0;
	dk->died = 0;
	dk_keep_stop_timeout(dk);
	dk->netid[0] = '\0';
	if (wl->conf->network == NETWORK_NAMED) {
		dk->step = STEP_NETWORK;
		if ((dk->netwait = dk_network_ensure(wl->conf->netname,
		    dk_network_ready, dk)) != NULL)
			return (0);
	} else if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname,
	    NULL) == 0)
		return (0);
	dk->op = OP_NONE;
	snprintf(msg, len, "cannot call the Docker daemon");
	return (-1);
}

/* the start did not happen: why, to the lifecycle */
static void
dk_start_failed(struct rt_docker *dk, const char *why)
{
	dk->op = OP_NONE;
	dk->stop_wanted = 0;
	log_warnx("workload %s: container not started: %s", dk->wl->name,
	    why);
	lifecycle_start_failed(dk->wl, why);
}

/* the network of "network NAME" is there: on to the container */
static void
dk_network_ready(const char *id, const char *err, void *arg)
{
	struct rt_docker		*dk = arg;
	const struct workload_conf	*wc = dk->wl->conf;
	char				 why[RT_MSG_MAX];

	dk->netwait = NULL;
	if (id == NULL) {
		snprintf(why, sizeof(why), "network %s: %s", wc != NULL &&
		    wc->netname != NULL ? wc->netname : "?", err);
		dk_start_failed(dk, why);
		return;
	}
	if (dk->stop_wanted) {
		dk_start_failed(dk, "stopped before it started");
		return;
	}
	strlcpy(dk->netid, id, sizeof(dk->netid));
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname, NULL) == -1)
		dk_start_failed(dk, "cannot call Docker");
}

/*
 * A stopped container of the right definition can start as it is,
 * unless the network it was made on is not the network of that name
 * now: then Docker would refuse to start it.
 */
static int
dk_network_same(const struct rt_docker *dk)
{
	return (dk->netid[0] == '\0' || strcmp(dk->netid, dk->cnetid) == 0);
}

/* after the container was started, or found running */
static void
dk_start_done(struct rt_docker *dk)
{
	struct rt_workload	*wl = dk->wl;

	dk->op = OP_NONE;
	dk->running = 1;
	json_decref(dk->spec);
	dk->spec = NULL;
	if (dk->stop_wanted) {
		dk->stop_wanted = 0;
		dk_stop_begin(dk);
		return;
	}
	log_debug("workload %s: container %.12s runs", wl->name, dk->id);
	lifecycle_started(wl);
	/* it may have died before we knew it had started */
	if (dk->died && wl->docker == dk && dk->op == OP_NONE)
		docker_died(wl->name, dk->id);
}

static void
dk_start_step(struct rt_docker *dk, const struct dk_resp *r)
{
	char		 err[RT_MSG_MAX], hash[DK_HASH_MAX];
	json_error_t	 jerr;
	json_t		*o;
	const char	*id;
	int		 running;

	if (r->status == -1) {
		dk_start_failed(dk, r->err);
		return;
	}
	/*
	 * A stop wanted now is a start abandoned, unless the container
	 * runs: found running, or just started (STEP_START, below).
	 */
	if (dk->stop_wanted && dk->step != STEP_START) {
		if (dk->step == STEP_INSPECT && r->status == 200 &&
		    dk_inspected(dk, r, &running, NULL, 0, err,
		    sizeof(err)) == 0 && running) {
			dk->running = 1;
			dk_stop_begin(dk);
		} else
			dk_start_failed(dk, "stopped before it started");
		return;
	}
	switch (dk->step) {
	case STEP_INSPECT:
		if (r->status == 404) {
			dk->id[0] = '\0';
			break;
		}
		if (r->status != 200) {
			dk_start_failed(dk, r->err);
			return;
		}
		if (dk_inspected(dk, r, &running, hash, sizeof(hash), err,
		    sizeof(err)) == -1) {
			dk_start_failed(dk, err);
			return;
		}
		if (strcmp(hash, dk->hash) == 0 && (running ||
		    dk_network_same(dk))) {
			if (running) {
				log_info("workload %s: container %.12s "
				    "already runs", dk->wl->name, dk->id);
				dk_start_done(dk);
			} else if (dk_next(dk, STEP_START, DK_START, dk->id,
			    NULL) == -1)
				dk_start_failed(dk, "cannot call Docker");
			return;
		}
		if (strcmp(hash, dk->hash) == 0)
			log_info("workload %s: its network was made "
			    "again, replacing container %.12s", dk->wl->name,
			    dk->id);
		else
			log_info("workload %s: definition changed, replacing "
			    "container %.12s", dk->wl->name, dk->id);
		if (dk_next(dk, STEP_REMOVE, DK_REMOVE, dk->id, NULL) == -1)
			dk_start_failed(dk, "cannot call Docker");
		return;
	case STEP_REMOVE:
		if (r->status / 100 != 2 && r->status != 404) {
			dk_start_failed(dk, r->err);
			return;
		}
		dk->id[0] = '\0';
		dk->running = 0;
		break;
	case STEP_CREATE:
		if (r->status != 201) {
			dk_start_failed(dk, r->err);
			return;
		}
		if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL ||
		    (id = json_string_value(json_object_get(o, "Id"))) ==
		    NULL || strlen(id) >= sizeof(dk->id)) {
			json_decref(o);
			dk_start_failed(dk, "create: no id in the answer");
			return;
		}
		strlcpy(dk->id, id, sizeof(dk->id));
		json_decref(o);
		log_info("workload %s: created container %.12s", dk->wl->name,
		    dk->id);
		if (dk_next(dk, STEP_START, DK_START, dk->id, NULL) == -1)
			dk_start_failed(dk, "cannot call Docker");
		return;
	case STEP_START:
		/* 304: it was started meanwhile, by someone */
		if (r->status / 100 != 2 && r->status != 304) {
			dk_start_failed(dk, r->err);
			return;
		}
		dk_start_done(dk);
		return;
	default:
		dk_start_failed(dk, "confused");
		return;
	}
	/* no container (any more): make it */
	if (dk_next(dk, STEP_CREATE, DK_CREATE, NULL, dk->spec) == -1)
		dk_start_failed(dk, "cannot call Docker");
}

/*
 * Stop.
 */

/* what the container uses, as docker stats shows it: less the cache */
static void
dk_memory(struct rt_docker *dk, const struct dk_resp *r)
{
	struct rt_memory	 mem;
	json_error_t		 jerr;
	json_t			*o, *ms, *st;
	json_int_t		 usage, cache = 0;

	if (r->status != 200 || (o = json_loadb(r->body, r->len, 0,
	    &jerr)) == NULL)
		return;
	ms = json_object_get(o, "memory_stats");
	st = json_object_get(ms, "stats");
	usage = json_integer_value(json_object_get(ms, "usage"));
	/* cgroup v2 calls it inactive_file, v1 total_inactive_file */
	if (json_is_integer(json_object_get(st, "inactive_file")))
		cache = json_integer_value(json_object_get(st,
		    "inactive_file"));
	else if (json_is_integer(json_object_get(st, "total_inactive_file")))
		cache = json_integer_value(json_object_get(st,
		    "total_inactive_file"));
	json_decref(o);
	if (usage <= 0)
		return;
	if (cache > 0 && cache < usage)
		usage -= cache;
	memset(&mem, 0, sizeof(mem));
	strlcpy(mem.name, dk->wl->name, sizeof(mem.name));
	mem.bytes = usage;
	log_debug("workload %s: container uses %lld bytes", dk->wl->name,
	    (long long)usage);
	if (proc_compose(rt->ps, PROC_STORE, IMSG_RT_MEMORY, 0, -1, &mem,
	    sizeof(mem)) == -1)
		log_warn("workload %s: memory", dk->wl->name);
}

static void
dk_stop_done(struct rt_docker *dk)
{
	dk->op = OP_NONE;
	dk->running = 0;
	lifecycle_exited(dk->wl, 0);
}

static void
dk_stop_begin(struct rt_docker *dk)
{
	dk->op = OP_STOP;
	dk->stop_wanted = 0;
	/* measured while it runs: the figure of show stats */
	if (dk_next(dk, STEP_STATS, DK_STATS, dk->id, NULL) == 0)
		return;
	if (dk_next(dk, STEP_STOP, DK_STOP, dk->id, NULL) == -1) {
		log_warnx("workload %s: cannot stop container %.12s",
		    dk->wl->name, dk->id);
		dk_stop_done(dk);
	}
}

static void
dk_stop_step(struct rt_docker *dk, const struct dk_resp *r)
{
	switch (dk->step) {
	case STEP_STATS:
		dk_memory(dk, r);
		if (dk_next(dk, STEP_STOP, DK_STOP, dk->id, NULL) == 0)
			return;
		log_warnx("workload %s: cannot stop container %.12s",
		    dk->wl->name, dk->id);
		break;
	case STEP_STOP:
		/* 304: stopped already; 404: gone */
		if (r->status / 100 != 2 && r->status != 304 &&
		    r->status != 404)
			log_warnx("workload %s: stopping container %.12s: %s",
			    dk->wl->name, dk->id, r->err != NULL ? r->err :
			    "failed");
		else
			log_debug("workload %s: container %.12s stopped",
			    dk->wl->name, dk->id);
		break;
	default:
		break;
	}
	/*
	 * Even unsure, it counts as stopped: the next wake inspects it
	 * and takes it as it finds it.
	 */
	dk_stop_done(dk);
}

static int
docker_stop(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL)
		return (1);
	switch (dk->op) {
	case OP_START:
	case OP_CHECK:
		dk->stop_wanted = 1;
		return (0);
	case OP_STOP:
		return (0);
	case OP_ADOPT:
		dk_cancel(dk->req);
		dk->req = NULL;
		dk->op = OP_NONE;
		dk->adopted = 1;
		break;
	case OP_NONE:
		break;
	}
	if (!dk->running || dk->id[0] == '\0')
		return (1);
	dk_stop_begin(dk);
	return (0);
}

static enum rt_status
docker_status(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL)
		return (RT_STATUS_STOPPED);
	switch (dk->op) {
	case OP_START:
		return (RT_STATUS_STARTING);
	case OP_STOP:
		return (RT_STATUS_STOPPING);
	default:
		return (dk->running ? RT_STATUS_RUNNING : RT_STATUS_STOPPED);
	}
}

/*
 * Exits: the events stream says a container died.  It is inspected
 * before anything is believed, since an event can be late and a stop of
 * ours causes one too.
 */

void
docker_died(const char *name, const char *id)
{
	struct rt_workload	*wl;
	struct rt_docker	*dk;

	if ((wl = lifecycle_find(name)) == NULL || (dk = wl->docker) == NULL)
		return;
	switch (dk->op) {
	case OP_START:
		dk->died = 1;
		return;
	case OP_NONE:
		break;
	default:
		return;
	}
	if (!dk->running || dk->id[0] == '\0' ||
	    (id != NULL && strcmp(id, dk->id) != 0))
		return;
	dk->died = 0;
	dk->op = OP_CHECK;
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->id, NULL) == -1)
		dk->op = OP_NONE;
}

/* after the events stream was down: did anything end meanwhile? */
void
docker_reconcile(void)
{
	struct rt_workload	*wl;

	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->docker != NULL && wl->docker->running &&
		    wl->docker->op == OP_NONE)
			docker_died(wl->name, NULL);
}

static void
dk_check_step(struct rt_docker *dk, const struct dk_resp *r)
{
	json_error_t	 jerr;
	json_t		*o, *state;
	int		 code = 0, running = 1;

	dk->op = OP_NONE;
	if (r->status == 200 && (o = json_loadb(r->body, r->len, 0,
	    &jerr)) != NULL) {
		state = json_object_get(o, "State");
		running = json_is_true(json_object_get(state, "Running"));
		code = json_integer_value(json_object_get(state, "ExitCode"));
		json_decref(o);
	} else if (r->status == 404)
		running = 0;		/* removed behind our back */
	else {
		/* no daemon: the next reconnection looks again */
		if (dk->stop_wanted) {
			dk->stop_wanted = 0;
			dk_stop_begin(dk);
		}
		return;
	}
	if (running) {
		if (dk->stop_wanted) {
			dk->stop_wanted = 0;
			dk_stop_begin(dk);
		}
		return;
	}
	dk->stop_wanted = 0;
	dk->running = 0;
	log_info("workload %s: container %.12s exited with status %d",
	    dk->wl->name, dk->id, code);
	lifecycle_exited(dk->wl, (code & 0xff) << 8);
}

/*
 * Adoption: a container that outlived the last orchd.  Running, the
 * workload is running; stopped, it is asleep and will be started, not
 * created, at its next wake.
 */

void
docker_adopt(struct rt_workload *wl)
{
	struct rt_docker	*dk = dk_get(wl);

	if (dk->adopted || dk->op != OP_NONE || wl->stopping ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED))
		return;
	docker_events_start();
	dk->op = OP_ADOPT;
	dk_keep_stop_timeout(dk);
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname, NULL) == -1) {
		dk->op = OP_NONE;
		dk->adopted = 1;
	}
}

/*
 * The store's memory of a workload (lifecycle_restore) waits for the
 * look at its container: 0 if it is held here, -1 to go on with it.
 */
int
docker_restore(struct rt_workload *wl, const struct st_restore *rs)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL || dk->op != OP_ADOPT)
		return (-1);
	dk->restore = *rs;
	dk->restore_pending = 1;
	return (0);
}

static void
dk_adopt_step(struct rt_docker *dk, const struct dk_resp *r)
{
	struct rt_workload	*wl = dk->wl;
	char			 err[RT_MSG_MAX];
	int			 running = 0, pending;

	dk->op = OP_NONE;
	dk->adopted = 1;
	pending = dk->restore_pending;
	dk->restore_pending = 0;
	if (r->status == 200) {
		if (dk_inspected(dk, r, &running, NULL, 0, err,
		    sizeof(err)) == -1)
			log_warnx("workload %s: %s", wl->name, err);
		else {
			dk->running = running;
			log_debug("workload %s: found container %.12s, %s",
			    wl->name, dk->id, running ? "running" :
			    "stopped");
		}
	} else if (r->status != 404)
		log_warnx("workload %s: cannot look for its container: %s",
		    wl->name, r->err != NULL ? r->err : "no answer");
	if (running && lifecycle_adopted(wl, &driver_docker,
	    "adopted a running container") == 0)
		return;
	if (pending)
		lifecycle_restore(&dk->restore);
}

/* every answer comes here, and goes to the operation's step */
static void
dk_done(const struct dk_resp *r, void *arg)
{
	struct rt_docker	*dk = arg;

	dk->req = NULL;
	switch (dk->op) {
	case OP_START:
		dk_start_step(dk, r);
		break;
	case OP_STOP:
		dk_stop_step(dk, r);
		break;
	case OP_CHECK:
		dk_check_step(dk, r);
		break;
	case OP_ADOPT:
		dk_adopt_step(dk, r);
		break;
	default:
		break;
	}
}
