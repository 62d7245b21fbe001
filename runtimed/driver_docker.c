/*
 * The docker driver: a workload that is a container,
 * orchd-INSTANCE-NAME, labelled org.orchd.workload=NAME,
 * org.orchd.instance=INSTANCE and org.orchd.hash=<its spec's hash>.  A
 * container of that name whose labels are not those is another's: it is
 * left alone and the log says so once (dk_inspected()).
 *
 * Start: with "network NAME", the network is made sure of first
 * (docker_network.c).  Then the image, inspected by the name the
 * workload gives it, and pulled (docker_pull.c) as "pull" says: always
 * before it is looked at, or when the daemon has none by that name
 * ("missing"), or never.  Then inspect orchd-INSTANCE-NAME.  None:
 * create it, then start it.  One with the same hash, made from the
 * image the name gives now: start it, or take it as it is if it runs
 * already.  One with another hash, because the definition changed
 * since it was made, or made from another image, because a pull or
 * docker pull brought a new one under the same name, or a stopped one
 * made on another network of that name, since removed: remove it (its
 * volumes stay) and create it again.  A definition that changes is
 * therefore used at the next wake, and a change never wakes anything.
 * While a pull goes on the wake timeout waits, the pull timeout
 * bounding it (lifecycle_pulling); a stop cancels the pull.
 * Stop: the container's memory figure for the store, then
 * POST /containers/ID/stop?t=<its stop timeout>: the daemon sends the
 * container's StopSignal and a SIGKILL once that has passed.  The
 * container is kept, to be started again.
 *
 * Freeze (the freeze tier): POST /containers/ID/pause, and unpause to
 * thaw; the lifecycle hears the outcome (lifecycle_frozen).  A stop of a
 * paused container unpauses it first, so that its StopSignal is seen.
 * A container found paused at start (frozen when an orchd died) is
 * thawed and stopped, not adopted: the store says it is asleep.  So is
 * a job's container found running: only its exit 0 seen by this orchd
 * counts as done (job.c).
 *
 * Each workload has at most one operation under way (struct rt_docker),
 * one call at a time: start, stop, the check that follows an exit the
 * events stream reported (or a connection a gateway found refused), the
 * look at a container started outside orchd, or the adoption of a
 * container found at start.  An adopted container's hash label is kept
 * while it runs: all runtimed knows of the definition it was made from,
 * for its drift (docker_drift()).
 * A stop asked for during a start waits for the call in flight, then
 * stops whatever it started.  Errors from the daemon, or no daemon,
 * fail the wake with the daemon's message; nothing here blocks, and the
 * next wake asks the daemon again.
 *
 * A labelled container ("docker labels on", runtimed/labels.c) is a
 * workload of source label whose name is the container's own: someone
 * else made it and removes it.  Its start inspects it by that name,
 * finds it still unclaimed by any orchd (dk_labels_theirs), asks the
 * parent (dk_use, RT_USE_START) and starts it; its stop stops it.  No
 * network, image, pull, create or remove is ever asked for it: a
 * container that is gone fails the wake, and no hash is compared.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "timer.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"
#include "driver_docker.h"
#include "driver.h"

/* a refusal's check found it running: no other for that long */
#define DK_REFUSED_PAUSE_MS	1000
/* a namesake's purge: looked at again that often */
#define DK_PURGEWAIT_MS		20

static int		 docker_start(struct rt_workload *, char *, size_t);
static int		 docker_stop(struct rt_workload *);
static enum rt_status	 docker_status(struct rt_workload *);
static int		 docker_freeze(struct rt_workload *, int);

const struct rt_driver driver_docker = {
	.name = "docker",
	.start = docker_start,
	.stop = docker_stop,
	.status = docker_status,
	.freeze = docker_freeze,
	.logs = docker_logs
};

static void	dk_done(const struct dk_resp *, void *);
static void	dk_stop_begin(struct rt_docker *);
static void	dk_network_ready(const char *, const char *, void *);
static int	dk_image_begin(struct rt_docker *, char *, size_t);
static void	dk_pulled(int, const char *, void *);
static void	dk_start_failed(struct rt_docker *, const char *);
static void	dk_use(struct rt_docker *, enum dk_step);
static int	dk_use_ask(struct rt_docker *, enum dk_step);
static int	dk_label_start(struct rt_docker *, char *, size_t);
static void	dk_purgewait(int, short, void *);
static int	dk_start_begin(struct rt_docker *, char *, size_t);

/* a labelled container's workload: never created, never removed */
int
dk_labelled(const struct rt_workload *wl)
{
	return (wl->conf != NULL && wl->conf->source == SOURCE_LABEL);
}

struct rt_docker *
dk_get(struct rt_workload *wl)
{
	struct rt_docker	*dk;

	if (wl->docker != NULL)
		return (wl->docker);
	if ((dk = calloc(1, sizeof(*dk))) == NULL)
		fatal("%s: calloc", __func__);
	dk->wl = wl;
	dk->stop_timeout = WL_STOP_TIMEOUT;
	if (dk_labelled(wl))
		(void)strlcpy(dk->cname, wl->name, sizeof(dk->cname));
	else
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
	dk_pull_stop(dk->pull);
	dk_cancel(dk->req);
	timer_disarm(&dk->purge_timer);
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
	const char	*id, *h, *st;
	char		 whose[RT_MSG_MAX / 2];

	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "inspect: bad answer: %s", jerr.text);
		return (-1);
	}
	id = json_string_value(json_object_get(o, "Id"));
	labels = json_object_get(json_object_get(o, "Config"), "Labels");
	if (id == NULL || strlen(id) >= sizeof(dk->id)) {
		snprintf(err, errlen, "inspect %s: no id", dk->cname);
		json_decref(o);
		return (-1);
	}
	/*
	 * A container of that name that this instance did not make for
	 * this workload: never started, stopped, removed or taken.  A
	 * labelled one must still be no orchd's.
	 */
	if ((dk_labelled(dk->wl) ? dk_labels_theirs(labels, whose,
	    sizeof(whose)) : dk_labels_ours(labels, dk->wl->name, whose,
	    sizeof(whose))) == -1) {
		if (!dk->foreign_told)
			log_warnx("workload %s: container %s exists and is "
			    "%s: left alone", dk->wl->name, dk->cname, whose);
		dk->foreign_told = 1;
		snprintf(err, errlen, "container %.12s has its name and is "
		    "not this instance's: left alone", id);
		json_decref(o);
		return (-1);
	}
	/* a labelled one: the very container the parent judged */
	if (dk_labelled(dk->wl) && !labeltab_judged(dk->wl->name, id)) {
		snprintf(err, errlen, "container %.12s has its name and is not "
		    "the one judged: left alone until it is judged", id);
		json_decref(o);
		return (-1);
	}
	strlcpy(dk->id, id, sizeof(dk->id));
	dk_inspected_network(dk, o);
	*running = json_is_true(json_object_get(json_object_get(o, "State"),
	    "Running"));
	dk->paused = *running && json_is_true(json_object_get(
	    json_object_get(o, "State"), "Paused"));
	/* a deleted workload's purge under way: it cannot be started */
	st = json_string_value(json_object_get(json_object_get(o, "State"),
	    "Status"));
	dk->removing = st != NULL && (strcmp(st, "removing") == 0 ||
	    strcmp(st, "dead") == 0);
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

/* the workload's "pull", or the global one */
static int
dk_pull_mode(const struct workload_conf *wc)
{
	return (wc->pull != -1 ? wc->pull : rt->pull);
}

/* a wake waits for its image: the wake timeout too, until it is in */
static int
dk_pull_begin(struct rt_docker *dk, char *msg, size_t len)
{
	struct rt_workload	*wl = dk->wl;
	int64_t			 secs = docker_pull_timeout(wl->conf);

	dk->step = STEP_PULL;
	dk->use_early = USE_NONE;	/* asked again after the pull */
	if ((dk->pull = dk_pull_start(wl->conf->image, secs, NULL, dk_pulled,
	    dk, msg, len)) == NULL)
		return (-1);
	log_info("workload %s: waits for the pull of %s", wl->name,
	    wl->conf->image);
	lifecycle->pulling(wl, secs);
	return (0);
}

static int
docker_start(struct rt_workload *wl, char *msg, size_t len)
{
	struct rt_docker	*dk = dk_get(wl);
	struct dk_imageref	 ref;

	docker_events_start();
	if (dk->op == OP_ADOPT || dk->op == OP_LOOK || dk->op == OP_CHECK) {
		/* the start looks for itself */
		dk_cancel(dk->req);
		dk->req = NULL;
		if (dk->op == OP_ADOPT) {
			dk->adopted = 1;
			dk->restore_pending = 0;
		}
		dk->op = OP_NONE;
		dk->refused = 0;
	}
	if (dk->op != OP_NONE) {
		snprintf(msg, len, "a Docker call is already under way");
		return (-1);
	}
	if (dk_labelled(wl))
		return (dk_label_start(dk, msg, len));
	if (dk_image_parse(wl->conf->image, &ref, msg, len) == -1)
		return (-1);
	json_decref(dk->spec);
	if ((dk->spec = dk_spec(wl->conf, rt->volume_root, msg,
	    len)) == NULL)
		return (-1);
	if (dk_spec_hash(dk->spec, dk->hash, sizeof(dk->hash)) == -1) {
		snprintf(msg, len, "cannot hash the container's definition");
		return (-1);
	}
	dk->op = OP_START;
	dk->use_early = USE_NONE;
	dk->run_hash[0] = '\0';
	dk->stop_wanted = 0;
	dk->died = 0;
	dk->oom = dk->killsig = dk->removed = dk->start_seen = 0;
	dk->pulled = 0;
	dk->image_id[0] = '\0';
	dk_keep_stop_timeout(dk);
	if (docker_purging(wl->name)) {
		log_info("workload %s: its deleted namesake's container goes "
		    "first", wl->name);
		dk->step = STEP_PURGEWAIT;
		dk_purgewait(-1, 0, dk);
		return (0);
	}
	return (dk_start_begin(dk, msg, len));
}

/*
 * A workload deleted and created again: its start waits while the purge
 * of the old one's container runs (docker_purge.c), looked at every
 * DK_PURGEWAIT_MS, as long as the wake's timeout lets it.
 */
static void
dk_purgewait(int fd, short ev, void *arg)
{
	struct rt_docker	*dk = arg;
	struct timeval		 tv;
	char			 msg[RT_MSG_MAX];

	if (dk->op != OP_START || dk->step != STEP_PURGEWAIT)
		return;
	if (docker_purging(dk->wl->name)) {
		tv.tv_sec = 0;
		tv.tv_usec = DK_PURGEWAIT_MS * 1000;
		timer_arm(&dk->purge_timer, dk_purgewait, dk, &tv);
		return;
	}
	if (dk_start_begin(dk, msg, sizeof(msg)) == -1)
		dk_start_failed(dk, msg);
}

/* the start's Docker calls: its network, then its image, then on */
static int
dk_start_begin(struct rt_docker *dk, char *msg, size_t len)
{
	struct rt_workload	*wl = dk->wl;

	dk->netid[0] = '\0';
	if (wl->conf->network == NETWORK_NAMED) {
		dk->step = STEP_NETWORK;
		if ((dk->netwait = dk_network_ensure(wl->conf->netname,
		    dk_network_ready, dk)) != NULL)
			return (0);
		dk->op = OP_NONE;
		snprintf(msg, len, "cannot call the Docker daemon");
		return (-1);
	}
	if (dk_image_begin(dk, msg, len) == -1) {
		dk->op = OP_NONE;
		return (-1);
	}
	return (0);
}

/* a labelled container: looked at by its name, then started, no more */
static int
dk_label_start(struct rt_docker *dk, char *msg, size_t len)
{
	dk->op = OP_START;
	dk->use_early = USE_NONE;	/* asked at its start, as before */
	dk->hash[0] = dk->run_hash[0] = '\0';
	dk->stop_wanted = dk->died = 0;
	dk->oom = dk->killsig = dk->removed = dk->start_seen = 0;
	dk_keep_stop_timeout(dk);
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname, NULL) == -1) {
		dk->op = OP_NONE;
		snprintf(msg, len, "cannot call the Docker daemon");
		return (-1);
	}
	return (0);
}

/* the pull the start waited for is over */
static void
dk_pulled(int ok, const char *why, void *arg)
{
	struct rt_docker	*dk = arg;

	dk->pull = NULL;
	if (dk->op != OP_START || dk->step != STEP_PULL)
		return;
	if (!ok) {
		dk_start_failed(dk, why);
		return;
	}
	dk->pulled = 1;
	lifecycle->pulled(dk->wl);
	if (dk_next(dk, STEP_IMAGE, DK_IMAGE, dk->wl->conf->image,
	    NULL) == -1)
		dk_start_failed(dk, "cannot call Docker");
}

/*
 * The image's id, from its inspect.  404: the daemon has none by that
 * name, which a pull fetches ("pull missing"), or which the create
 * reports (never, or not even a pull brought one).  -1: the start
 * failed.
 */
static int
dk_image_step(struct rt_docker *dk, const struct dk_resp *r)
{
	json_error_t	 jerr;
	json_t		*o;
	const char	*id;
	char		 err[RT_MSG_MAX];

	if (r->status == 404) {
		if (!dk->pulled && dk_pull_mode(dk->wl->conf) == PULL_MISSING) {
			if (dk_pull_begin(dk, err, sizeof(err)) == 0)
				return (1);
			dk_start_failed(dk, err);
			return (-1);
		}
		log_debug("workload %s: no image %s", dk->wl->name,
		    dk->wl->conf->image);
		return (0);
	}
	if (r->status != 200) {
		dk_start_failed(dk, r->err);
		return (-1);
	}
	if ((o = json_loadb(r->body, r->len, 0, &jerr)) != NULL &&
	    (id = json_string_value(json_object_get(o, "Id"))) != NULL)
		(void)strlcpy(dk->image_id, id, sizeof(dk->image_id));
	json_decref(o);
	return (0);
}

/* made from another image than the one its name gives now */
static int
dk_image_changed(struct rt_docker *dk, const struct dk_resp *r)
{
	json_error_t	 jerr;
	json_t		*o;
	const char	*image;
	int		 changed = 0;

	if (dk->image_id[0] == '\0' ||
	    (o = json_loadb(r->body, r->len, 0, &jerr)) == NULL)
		return (0);
	image = json_string_value(json_object_get(o, "Image"));
	changed = image != NULL && strcmp(image, dk->image_id) != 0;
	json_decref(o);
	return (changed);
}

/* the start did not happen: why, to the lifecycle */
static void
dk_start_failed(struct rt_docker *dk, const char *why)
{
	dk->op = OP_NONE;
	dk->use_early = USE_NONE;
	dk->stop_wanted = 0;
	log_warnx("workload %s: container not started: %s", dk->wl->name,
	    why);
	lifecycle->start_failed(dk->wl, why);
}

/* the network of "network NAME" is there: on to the container */
/* the image: pulled first if always, else inspected by its name */
static int
dk_image_begin(struct rt_docker *dk, char *msg, size_t len)
{
	const struct workload_conf	*wc = dk->wl->conf;
	int				 r;

	if (dk_pull_mode(wc) == PULL_ALWAYS)
		return (dk_pull_begin(dk, msg, len));
	if ((r = dk_next(dk, STEP_IMAGE, DK_IMAGE, wc->image, NULL)) == -1) {
		snprintf(msg, len, "cannot call the Docker daemon");
		return (r);
	}
	/* the parent's check meanwhile (dk_use) */
	dk->use_early = dk_use_ask(dk, STEP_START) == 0 ? USE_ASKED :
	    USE_NONE;
	return (0);
}

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
	if (dk_image_begin(dk, why, sizeof(why)) == -1)
		dk_start_failed(dk, why);
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

/*
 * Checked where used: before each create and each start, the parent is
 * asked whether the workload's definition, as it holds it now, may run,
 * and it makes its API volumes' directories (orchd/usecheck.c).  Docker
 * is called once it says yes (docker_recv_used); a no fails the wake
 * with its reason.  Asked without waiting: the answer comes back as a
 * message like any other.
 *
 * A wake asks early: with the image's inspect (dk_image_begin), so that
 * the parent's walk runs while Docker answers the inspects instead of
 * after them, off the wake's path.  That yes serves the first create or
 * start of this wake alone, a few Docker answers later; a pull in
 * between forgets it (minutes may pass), and a start after a create
 * asks again, as before.  An early no fails the wake at once.
 */
static int
dk_use_ask(struct rt_docker *dk, enum dk_step next)
{
	static uint32_t	 seq;
	struct rt_use	 use;

	memset(&use, 0, sizeof(use));
	(void)strlcpy(use.name, dk->wl->name, sizeof(use.name));
	if (++seq == 0)
		seq = 1;
	use.seq = dk->use_seq = seq;
	use.what = next == STEP_CREATE ? RT_USE_CREATE : RT_USE_START;
	return (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_USE, 0, -1, &use,
	    sizeof(use)));
}

/* the parent said yes: the create or the start */
static void
dk_use_go(struct rt_docker *dk, enum dk_step next)
{
	int	 r;

	if (next == STEP_CREATE)
		r = dk_next(dk, STEP_CREATE, DK_CREATE, NULL, dk->spec);
	else
		r = dk_next(dk, STEP_START, DK_START, dk->id, NULL);
	if (r == -1)
		dk_start_failed(dk, "cannot call Docker");
}

static void
dk_use(struct rt_docker *dk, enum dk_step next)
{
	enum dk_use_early	 early = dk->use_early;

	dk->use_next = next;
	dk->step = STEP_USE;
	dk->use_early = USE_NONE;
	if (early == USE_YES)
		dk_use_go(dk, next);
	else if (early != USE_ASKED && dk_use_ask(dk, next) == -1)
		dk_start_failed(dk, "cannot ask the parent");
	/* USE_ASKED: its answer goes on from STEP_USE */
}

void
docker_recv_used(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_used		 ans;
	struct rt_workload	*wl;
	struct rt_docker	*dk;

	(void)imsg_get_data(imsg, &ans, sizeof(ans));
	ans.msg[sizeof(ans.msg) - 1] = '\0';
	/* a start abandoned, or another since: not this answer's */
	if ((wl = lifecycle->find(ans.name)) == NULL ||
	    (dk = wl->docker) == NULL || dk->op != OP_START ||
	    dk->use_seq != ans.seq)
		return;
	if (dk->step != STEP_USE) {
		/* the early answer, while Docker looks */
		if (dk->use_early != USE_ASKED)
			return;
		dk->use_early = USE_NONE;
		if (ans.ok == 1) {
			dk->use_early = USE_YES;
			return;
		}
		dk_cancel(dk->req);
		dk->req = NULL;
		dk_start_failed(dk, ans.msg[0] != '\0' ? ans.msg : "refused");
		return;
	}
	if (dk->stop_wanted) {
		dk_start_failed(dk, "stopped before it started");
		return;
	}
	if (ans.ok != 1) {
		dk_start_failed(dk, ans.msg[0] != '\0' ? ans.msg : "refused");
		return;
	}
	dk_use_go(dk, dk->use_next);
}

/* after the container was started, or found running */
static void
dk_start_done(struct rt_docker *dk)
{
	struct rt_workload	*wl = dk->wl;

	dk->op = OP_NONE;
	dk->use_early = USE_NONE;
	dk->running = 1;
	json_decref(dk->spec);
	dk->spec = NULL;
	if (dk->stop_wanted) {
		dk->stop_wanted = 0;
		dk_stop_begin(dk);
		return;
	}
	log_debug("workload %s: container %.12s runs", wl->name, dk->id);
	lifecycle->started(wl);
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
	case STEP_IMAGE:
		if (dk_image_step(dk, r) != 0)
			return;
		if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname,
		    NULL) == -1)
			dk_start_failed(dk, "cannot call Docker");
		return;
	case STEP_INSPECT:
		if (r->status == 404 && dk_labelled(dk->wl)) {
			dk_start_failed(dk, "its labelled container is gone: "
			    "orchd never creates one");
			return;
		}
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
		if (dk_labelled(dk->wl)) {
			if (dk->removing)
				dk_start_failed(dk, "its labelled container is "
				    "being removed");
			else if (running)
				dk_start_done(dk);
			else
				dk_use(dk, STEP_START);
			return;
		}
		/* the purge of a deleted workload of its name: waited for */
		if (dk->removing) {
			log_info("workload %s: container %.12s is being "
			    "removed: waiting for it to go", dk->wl->name,
			    dk->id);
			if (dk_next(dk, STEP_RMWAIT, DK_WAIT_REMOVED, dk->id,
			    NULL) == -1)
				dk_start_failed(dk, "cannot call Docker");
			return;
		}
		if (strcmp(hash, dk->hash) == 0 && dk_image_changed(dk, r)) {
			log_info("workload %s: image %s is another since "
			    "container %.12s was made, replacing it",
			    dk->wl->name, dk->wl->conf->image, dk->id);
			if (dk_next(dk, STEP_REMOVE, DK_REMOVE, dk->id,
			    NULL) == -1)
				dk_start_failed(dk, "cannot call Docker");
			return;
		}
		if (strcmp(hash, dk->hash) == 0 && (running ||
		    dk_network_same(dk))) {
			if (running) {
				log_info("workload %s: container %.12s "
				    "already runs", dk->wl->name, dk->id);
				dk_start_done(dk);
			} else
				dk_use(dk, STEP_START);
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
		/*
		 * 409: being removed already, by the purge of a deleted
		 * workload of this name: its end is waited for
		 */
		if (r->status == 409) {
			if (dk_next(dk, STEP_RMWAIT, DK_WAIT_REMOVED, dk->id,
			    NULL) == -1)
				dk_start_failed(dk, "cannot call Docker");
			return;
		}
		/* FALLTHROUGH */
	case STEP_RMWAIT:
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
		dk_use(dk, STEP_START);
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
	dk_use(dk, STEP_CREATE);
}

/*
 * Stop.
 */

/* what the container used, to the budget's next estimate and the store */
static void
dk_memory(struct rt_docker *dk, const struct dk_resp *r)
{
	int64_t	 used;

	if (r->status != 200 || (used = dk_stats_used(r->body, r->len)) <= 0)
		return;
	log_debug("workload %s: container used %lld bytes", dk->wl->name,
	    (long long)used);
	budget_measured(dk->wl, used);
}

static void
dk_stop_done(struct rt_docker *dk)
{
	dk->op = OP_NONE;
	dk->running = 0;
	dk->run_hash[0] = '\0';
	lifecycle->exited(dk->wl, 0);
}

static void
dk_stop_begin(struct rt_docker *dk)
{
	dk->op = OP_STOP;
	dk->stop_wanted = 0;
	/* paused, it would not see its StopSignal: unpaused first */
	if (dk->paused && dk_next(dk, STEP_UNPAUSE, DK_UNPAUSE, dk->id,
	    NULL) == 0)
		return;
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
	case STEP_UNPAUSE:
		dk->paused = 0;
		if (dk_next(dk, STEP_STATS, DK_STATS, dk->id, NULL) == 0 ||
		    dk_next(dk, STEP_STOP, DK_STOP, dk->id, NULL) == 0)
			return;
		log_warnx("workload %s: cannot stop container %.12s",
		    dk->wl->name, dk->id);
		break;
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
		/* a pull may take minutes: nothing runs yet, so drop it */
		if (dk->step == STEP_PULL && dk->pull != NULL) {
			log_info("workload %s: stopped while its image was "
			    "pulled", wl->name);
			dk_pull_stop(dk->pull);
			dk->pull = NULL;
			dk->op = OP_NONE;
			dk->stop_wanted = 0;
			return (1);
		}
		/* nothing was asked of Docker yet */
		if (dk->step == STEP_PURGEWAIT) {
			timer_disarm(&dk->purge_timer);
			dk->op = OP_NONE;
			dk->stop_wanted = 0;
			return (1);
		}
		/* the parent is asked: nothing was created or started */
		if (dk->step == STEP_USE) {
			log_info("workload %s: stopped before its container "
			    "was %s", wl->name, dk->use_next == STEP_CREATE ?
			    "created" : "started");
			dk->op = OP_NONE;
			dk->stop_wanted = 0;
			return (1);
		}
		dk->stop_wanted = 1;
		return (0);
	case OP_CHECK:
	case OP_PAUSE:
		dk->stop_wanted = 1;
		return (0);
	case OP_STOP:
		return (0);
	case OP_ADOPT:
	case OP_LOOK:
		dk_cancel(dk->req);
		dk->req = NULL;
		if (dk->op == OP_ADOPT)
			dk->adopted = 1;
		dk->op = OP_NONE;
		break;
	case OP_NONE:
		break;
	}
	if (!dk->running || dk->id[0] == '\0')
		return (1);
	dk_stop_begin(dk);
	return (0);
}

/*
 * The freeze tier: pause (on 1) or unpause its container.  -1 while
 * another operation is under way or nothing runs: the lifecycle stops
 * it instead.
 */
static int
docker_freeze(struct rt_workload *wl, int on)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL || dk->op != OP_NONE || !dk->running ||
	    dk->id[0] == '\0')
		return (-1);
	dk->op = OP_PAUSE;
	if (dk_next(dk, on ? STEP_PAUSE : STEP_UNPAUSE, on ? DK_PAUSE :
	    DK_UNPAUSE, dk->id, NULL) == -1) {
		dk->op = OP_NONE;
		return (-1);
	}
	return (0);
}

static void
dk_pause_step(struct rt_docker *dk, const struct dk_resp *r)
{
	int	 on = dk->step == STEP_PAUSE, ok = r->status / 100 == 2;

	dk->op = OP_NONE;
	if (ok)
		dk->paused = on;
	else
		log_warnx("workload %s: %s container %.12s: %s", dk->wl->name,
		    on ? "pausing" : "unpausing", dk->id, r->err != NULL ?
		    r->err : "failed");
	/* a stop asked for meanwhile: it unpauses first if need be */
	if (dk->stop_wanted)
		dk_stop_begin(dk);
	lifecycle->frozen(dk->wl, on, ok);
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
 * Exits: the events stream says a container died, or a gateway could
 * not connect to it.  It is inspected before anything is believed, since
 * an event can be late and a stop of ours causes one too.  What the
 * stream said before (an oom, a kill not of ours, a destroy) says why.
 */

void
dk_check_begin(struct rt_docker *dk)
{
	dk->died = 0;
	dk->op = OP_CHECK;
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->id, NULL) == -1) {
		dk->op = OP_NONE;
		dk->refused = 0;
	}
}

void
docker_died(const char *name, const char *id)
{
	struct rt_workload	*wl;
	struct rt_docker	*dk;

	if ((wl = lifecycle->find(name)) == NULL || (dk = wl->docker) == NULL)
		return;
	switch (dk->op) {
	case OP_START:
	case OP_LOOK:
		dk->died = 1;
		return;
	case OP_CHECK:
		/* its inspect may have come before: look again after */
		if (id == NULL || strcmp(id, dk->id) == 0)
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
	dk_check_begin(dk);
}

/* waiting for its image: how much longer it may, in seconds; 0: not */
int64_t
docker_pulling(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL || dk->op != OP_START || dk->step != STEP_PULL ||
	    dk->pull == NULL)
		return (0);
	return (dk_pull_left(dk->pull));
}

/*
 * A gateway could not connect to the workload: 0 if a check is under
 * way, whose end tells the gateway (lifecycle_checked, or a new state).
 */
int
docker_refused(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL)
		return (-1);
	if (dk->op == OP_CHECK) {
		dk->refused = 1;
		return (0);
	}
	if (dk->op != OP_NONE || !dk->running || dk->id[0] == '\0')
		return (-1);
	/* the gateways ask once a second each; however many they are */
	if (dk->checked_ms != 0 &&
	    monotime_ms() - dk->checked_ms < DK_REFUSED_PAUSE_MS)
		return (-1);
	log_info("workload %s: a gateway cannot connect to it: inspecting "
	    "container %.12s", wl->name, dk->id);
	dk->refused = 1;
	dk_check_begin(dk);
	return (dk->op == OP_CHECK ? 0 : -1);
}

/* an exit's words for the history, and its wait status and reason */
static void
dk_exit_why(struct rt_docker *dk, int code, int *status,
    enum rt_reason *reason, char *why, size_t len)
{
	*status = (code & 0xff) << 8;
	*reason = RT_REASON_EXITED;
	why[0] = '\0';
	if (dk->removed) {
		/* nothing is left of it: asleep, made again at the next wake */
		*status = 0;
		snprintf(why, len, "its container was removed outside orchd");
	} else if (dk->oom) {
		*reason = RT_REASON_OOM;
		snprintf(why, len, "out of memory (the kernel killed a process "
		    "of its container), exited with status %d", code);
	} else if (dk->killsig > 0 && code == 128 + dk->killsig) {
		/* a wait status of a death by that signal */
		*status = dk->killsig;
		snprintf(why, len, "killed by signal %d outside orchd",
		    dk->killsig);
	}
}

static void
dk_check_step(struct rt_docker *dk, const struct dk_resp *r)
{
	struct rt_workload	*wl = dk->wl;
	json_error_t		 jerr;
	json_t			*o, *state;
	enum rt_reason		 reason;
	char			 name[ORCHD_NAME_MAX], why[RT_MSG_MAX];
	int			 code = 0, running = 1, status, refused, seen;

	dk->op = OP_NONE;
	refused = dk->refused;
	dk->refused = 0;
	if (r->status == 200 && (o = json_loadb(r->body, r->len, 0,
	    &jerr)) != NULL) {
		state = json_object_get(o, "State");
		running = json_is_true(json_object_get(state, "Running"));
		code = json_integer_value(json_object_get(state, "ExitCode"));
		if (json_is_true(json_object_get(state, "OOMKilled")))
			dk->oom = 1;
		json_decref(o);
	} else if (r->status == 404)
		dk->removed = 1;	/* removed behind our back */
	if (running && !dk->removed) {
		/* a kill it outlived (docker restart) is no cause of death */
		if (r->status == 200) {
			dk->killsig = 0;
			dk->start_seen = 0;
		}
		/* or no daemon: the next reconnection looks again */
		if (dk->stop_wanted) {
			dk->stop_wanted = 0;
			dk_stop_begin(dk);
			return;
		}
		if (refused) {
			dk->checked_ms = monotime_ms();
			lifecycle->checked(wl);
		}
		/* it died after the inspect's answer: look again */
		if (dk->died && wl->docker == dk && dk->op == OP_NONE)
			dk_check_begin(dk);
		return;
	}
	dk->stop_wanted = 0;
	dk->running = 0;
	dk->died = 0;
	seen = dk->start_seen;
	dk->start_seen = 0;
	dk_exit_why(dk, code, &status, &reason, why, sizeof(why));
	if (why[0] != '\0')
		log_info("workload %s: container %.12s: %s", wl->name, dk->id,
		    why);
	else
		log_info("workload %s: container %.12s exited with status %d",
		    wl->name, dk->id, code);
	if (dk->removed)
		dk->id[0] = '\0';
	dk->oom = dk->killsig = dk->removed = 0;
	/* the lifecycle may forget the workload, and dk with it */
	strlcpy(name, wl->name, sizeof(name));
	lifecycle->ended(wl, status, reason, why[0] != '\0' ? why : NULL);
	/* started again (docker restart) while it was looked at */
	if (seen && (wl = lifecycle->find(name)) != NULL &&
	    wl->docker != NULL)
		dk_look(wl->docker);
}

/*
 * Starts outside orchd: a container of orchd's started by hand (docker
 * start) while its workload sleeps.  It is inspected, by its name, and
 * if it runs the workload takes it as a wake of the operator's, its
 * readiness checked before a request goes to it
 * (lifecycle_found_running).  It is taken as it is, even if made from
 * an older definition: the next start after a suspend replaces it.
 */

void
dk_look(struct rt_docker *dk)
{
	struct rt_workload	*wl = dk->wl;

	if (dk->op != OP_NONE || wl->stopping || wl->conf == NULL ||
	    wl->conf->driver != DRIVER_DOCKER ||
	    (wl->state != WL_ASLEEP && wl->state != WL_FAILED))
		return;
	dk->op = OP_LOOK;
	dk->died = 0;
	dk_keep_stop_timeout(dk);
	if (dk_next(dk, STEP_INSPECT, DK_INSPECT, dk->cname, NULL) == -1)
		dk->op = OP_NONE;
}

static void
dk_look_step(struct rt_docker *dk, const struct dk_resp *r)
{
	struct rt_workload	*wl = dk->wl;
	char			 err[RT_MSG_MAX];
	int			 running = 0, died;

	dk->op = OP_NONE;
	died = dk->died;
	dk->died = 0;
	if (r->status != 200)
		return;		/* gone again, or no daemon */
	/* one not ours was logged, once */
	if (dk_inspected(dk, r, &running, NULL, 0, err, sizeof(err)) == -1)
		return;
	if (!running)
		return;
	dk->running = 1;
	dk->oom = dk->killsig = dk->removed = 0;
	log_info("workload %s: container %.12s was started outside orchd",
	    wl->name, dk->id);
	if (lifecycle->found_running(wl, &driver_docker,
	    "its container was started outside orchd") == -1)
		return;
	if (died && wl->docker == dk && dk->op == OP_NONE)
		dk_check_begin(dk);
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
		if (dk_inspected(dk, r, &running, dk->run_hash,
		    sizeof(dk->run_hash), err, sizeof(err)) == -1)
			dk->run_hash[0] = '\0';
		else {
			dk->running = running;
			log_debug("workload %s: found container %.12s, %s",
			    wl->name, dk->id, running ? "running" :
			    "stopped");
		}
	} else if (r->status != 404)
		log_warnx("workload %s: cannot look for its container: %s",
		    wl->name, r->err != NULL ? r->err : "no answer");
	/* frozen when an orchd died: thawed and stopped, not adopted */
	if (running && dk->paused) {
		log_info("workload %s: container %.12s found paused: thawed "
		    "and stopped", wl->name, dk->id);
		running = 0;
		dk_stop_begin(dk);
	}
	/*
	 * A job's container mid-run: what it did is not known, and only its
	 * exit 0 under this orchd counts as done.  Stopped; it runs again at
	 * the next wake, as a job whose success was never recorded does.
	 */
	if (running && job_is(wl)) {
		log_info("workload %s: its job's container %.12s found "
		    "running: stopped, it runs again at the next wake",
		    wl->name, dk->id);
		running = 0;
		dk_stop_begin(dk);
	}
	if (running && lifecycle->adopted(wl, &driver_docker,
	    "adopted a running container") == 0)
		return;
	if (pending)
		lifecycle->restore(&dk->restore);
	else if (rt->restored || rt->store_none)
		/* the store had no row for it: looked, so checked */
		lifecycle->check_end(wl);
}

/* 1 while it looks for a container that outlived orchd */
int
docker_looking(struct rt_workload *wl)
{
	return (wl->docker != NULL && wl->docker->op == OP_ADOPT);
}

/*
 * Does the definition make another container than the adopted one that
 * runs?  1 if so (its hash differs, or it is no container any more), 0
 * if not, -1 if that is not known: no container adopted runs.
 */
int
docker_drift(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;
	json_t			*spec;
	char			 hash[DK_HASH_MAX], err[RT_MSG_MAX];
	int			 r;

	if (dk == NULL || dk->run_hash[0] == '\0' || !dk->running ||
	    wl->conf == NULL)
		return (-1);
	/* made by someone else: there is no other to make */
	if (dk_labelled(wl))
		return (0);
	if (wl->conf->driver != DRIVER_DOCKER)
		return (1);
	if ((spec = dk_spec(wl->conf, rt->volume_root, err,
	    sizeof(err))) == NULL)
		return (-1);
	r = dk_spec_hash(spec, hash, sizeof(hash));
	json_decref(spec);
	if (r == -1)
		return (-1);
	return (strcmp(hash, dk->run_hash) != 0);
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
	case OP_LOOK:
		dk_look_step(dk, r);
		break;
	case OP_PAUSE:
		dk_pause_step(dk, r);
		break;
	default:
		break;
	}
}

/* what the events stream reads goes here (docker_events.c) */
const struct dk_events_to docker_events_to = {
	.event = docker_event,
	.reconcile = docker_reconcile
};
