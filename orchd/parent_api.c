/*
 * The parent's side of the HTTP API: workloads created, updated and
 * deleted through it.  The gateway, which serves the API, only forwards the
 * request; the parent decides, as it does for the configuration file.
 *
 * An API workload lives in the running configuration's list like any
 * other, marked SOURCE_API, so that config_send, the logs and every
 * check see it; and in the store, which keeps it across restarts.  A
 * change is answered only when both are done: validated by the one set
 * of rules and the policy (api_def_read), written by the store (which must
 * acknowledge within API_STORE_WAIT seconds, else 503 and the write is
 * undone), and running everywhere as a new configuration generation.
 * Changes are carried out one at a time, in order.
 *
 * At start the API's workloads are read back from the store before the
 * first configuration is sent.  A reload keeps them; a reload whose file
 * defines a workload with the name or a host of one of them is refused.
 *
 * Every one of them, new, read back or kept, passes policy_check()
 * (policy.c) first; and nothing from a gateway is acted on when no API
 * key is configured.  What they depend on must be there (depends.c): a
 * new one naming no workload or closing a cycle gets 400, deleting one
 * that others depend on 409.
 *
 * An update (PUT, or PATCH: an RFC 7396 merge patch, which the gateway
 * merges onto the definition it has) comes as the whole new definition,
 * and is checked as a create is, in the place of the definition it
 * replaces; only a workload of the API may be updated.  A PATCH names
 * the definition it was merged onto (its workload_wire_hash): if that is
 * not the one here when its turn comes, it is refused with 409 and
 * nothing is lost.  What a running workload does with its new definition
 * is runtimed's to carry out, as after a reload ("on change").
 *
 * No JSON is read or written here (DESIGN.md, trust rule 10): every
 * definition comes and goes packed (common/workload_wire.c).
 *
 * The same queue carries orchctl's create, update, delete and keep from
 * the control socket (answered there, by the same rules and policy), and
 * the expiry of an API workload that reaperd found without a request for
 * its "expire after": checked again here, dropped from the store with its
 * history kept, then its container and unused image removed by runtimed.
 * orchctl's update is a PUT, its keep sets expire_after 0 on the
 * definition as it is in its turn.
 *
 * A labelled container's workload ("docker labels on", labels.c) comes
 * and goes in the same queue, checked in its turn as a create or a
 * delete is, but never written to the store (it lives with its
 * container, found again at each start) and never purged: orchd does
 * not remove what it did not make.  The API and orchctl cannot update
 * or delete it: its container's maker does.
 */

#include <sys/queue.h>
#include <sys/wait.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "procstat.h"
#include "units.h"
#include "workload.h"

#define API_OPS_MAX		64	/* changes queued */
#define API_LABEL_OPS_MAX	2048	/* ... with labelled containers': as
					   many as runtimed follows, twice */
#define API_RMOPS_MAX		4	/* volume removals at once */
#define API_STORE_WAIT		5	/* seconds for the store to write */
#define API_LOAD_WAIT		10	/* ... and to list them at start */

enum api_phase {
	OP_QUEUED = 0,
	OP_STORING,			/* waiting for the store */
	OP_SEND,			/* waiting to send a configuration */
	OP_ACTIVATING,			/* waiting for it to be running */
	OP_RMWAIT			/* a delete: for another's volumes to
					   be removed, API_RMOPS_MAX at once */
};

struct api_op {
	TAILQ_ENTRY(api_op)	 entry;
	struct proc_asker	 asker;		/* a gateway (the HTTP API),
						   orchctl, or the reaper
						   (an expiry) */
	uint32_t		 opid;		/* to the store */
	int			 create;
	int			 update;	/* UPDATE_PUT, _PATCH, _KEEP */
	uint64_t		 base;		/* PATCH: of what it replaces */
	int			 expire;	/* a delete: expired */
	int			 volumes;	/* a delete: its API volumes
						   too (spawnerd/volrm.c) */
	pid_t			 rmpid;		/* ... removed by this child
						   of the spawner */
	int			 label;		/* a labelled container's
						   workload: no store */
	struct rt_label		 rl;		/* label create: what runtimed
						   saw of its container */
	struct reap_expire	 re;		/* expire: as reaperd saw it */
	struct rt_purge		 purge;		/* a delete: what to remove */
	char			 name[ORCHD_NAME_MAX];
	struct workload_conf	*wc;		/* create, update: until
						   configured */
	void			*undo;		/* delete, update: what it
						   was, packed */
	size_t			 undolen;
	enum api_phase		 phase;
	uint32_t		 gen;		/* ACTIVATING: generation */
};

enum api_update_kind {
	UPDATE_NONE = 0,
	UPDATE_PUT,
	UPDATE_PATCH,			/* merged by the gateway onto base */
	UPDATE_KEEP			/* orchctl keep: expire_after 0 */
};

static TAILQ_HEAD(, api_op)	 api_ops = TAILQ_HEAD_INITIALIZER(api_ops);
/* deletes answered when their volumes are removed: out of the queue */
static TAILQ_HEAD(, api_op)	 api_rmops = TAILQ_HEAD_INITIALIZER(api_rmops);
static int			 api_nrmops;
static int			 api_nops;
static uint32_t			 api_lastid;
static struct event		 api_timer;
static int			 api_timer_set;
static int			 api_loading;	/* waiting for the store */

static void	api_next(struct orchd *);
static void	api_label_apply(struct orchd *, struct api_op *);

static void
api_timer_start(int secs, void (*fn)(int, short, void *), void *arg)
{
	struct timeval	 tv = { secs, 0 };

	if (api_timer_set)
		evtimer_del(&api_timer);
	evtimer_set(&api_timer, fn, arg);
	evtimer_add(&api_timer, &tv);
	api_timer_set = 1;
}

static void
api_timer_stop(void)
{
	if (api_timer_set)
		evtimer_del(&api_timer);
	api_timer_set = 0;
}

/* the HTTP status of a gateway's request */
static void
api_result(struct orchd *env, const struct proc_asker *a, int status,
    const char *msg)
{
	struct api_result	 res;

	memset(&res, 0, sizeof(res));
	res.status = status;
	if (msg != NULL)
		strlcpy(res.msg, msg, sizeof(res.msg));
	(void)proc_reply(&env->ps, a, IMSG_API_RESULT, &res, sizeof(res));
}

/*
 * name's definition in conf->workloads, brought back from rest (pdef.c)
 * if it was, for what follows may take it out of the list or read it
 */
static struct workload_conf *
api_conf_find(struct orchd_conf *conf, const char *name)
{
	struct workload_conf	*wc;

	pdef_expand(conf, name);
	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (strcmp(wc->name, name) == 0)
			return (wc);
	return (NULL);
}

/*
 * may wc be added to conf?  0, or the status with err: 403 if the
 * policy forbids it, 409 if it clashes
 */
static int
api_clash(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	int	 status;

	if ((status = policy_check(conf, wc, err, len)) != 0)
		return (status);
	if (pdef_exists(conf, wc->name)) {
		snprintf(err, len, "workload \"%s\" already exists", wc->name);
		return (409);
	}
	if (api_host_taken(conf, wc, err, len))
		return (409);
	return (0);
}

/*
 * api_clash(), and what wc depends on: 400 if that is not all there;
 * 409 while the volumes of a workload of its name are being removed
 */
static int
api_check_new(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	struct api_op	*op;
	int		 status;

	if ((status = api_clash(conf, wc, err, len)) != 0)
		return (status);
	/* not into the directory of the one deleted, while it goes */
	TAILQ_FOREACH(op, &api_rmops, entry)
		if (strcmp(op->name, wc->name) == 0) {
			snprintf(err, len, "workload %s: the volumes of the "
			    "one deleted are still being removed: try again "
			    "later", wc->name);
			return (409);
		}
	return (depends_check_new(conf, wc, err, len));
}

/*
 * May wc replace the workload of its name?  It must be one of the API's
 * (404, 409), and wc pass what a create passes, in its place (403, 409,
 * 400): api_host_taken() and depends_check_new() pass over the workload
 * of the same name.
 */
static int
api_check_update(const struct orchd_conf *conf,
    const struct workload_conf *wc, char *err, size_t len)
{
	const struct workload_conf	*o;
	struct workload_conf		*tmp;
	int				 status, api;

	if ((o = pdef_find(conf, wc->name, &tmp)) == NULL) {
		snprintf(err, len, "no such workload: %s", wc->name);
		return (404);
	}
	api = o->source == SOURCE_API;
	workload_free(tmp);
	if (!api) {
		snprintf(err, len, "workload \"%s\" is defined in the "
		    "configuration file: change it there", wc->name);
		return (409);
	}
	if ((status = policy_check(conf, wc, err, len)) != 0)
		return (status);
	if (api_host_taken(conf, wc, err, len))
		return (409);
	return (depends_check_new(conf, wc, err, len));
}

/* to whom asked: the gateway, orchctl, or the log for an expiry */
static void
api_answer(struct orchd *env, const struct api_op *op, int status,
    const char *msg)
{
	switch (op->asker.peer) {
	case PROC_GATEWAY:
		api_result(env, &op->asker, status, msg);
		break;
	case PROC_CLIENT:
		if (status >= 200 && status < 300)
			(void)proc_reply_ok(&env->ps, &op->asker);
		else
			(void)proc_reply_fail(&env->ps, &op->asker,
			    CTL_ERR_FAILED, "%s", msg != NULL ? msg : "failed");
		break;
	default:
		if (status >= 300 && op->label)
			log_warnx("docker labels: container %s %s: %s",
			    op->name, op->create ? "is not a workload, never "
			    "started by orchd" : "gone, its workload stays",
			    msg != NULL ? msg : "failed");
		else if (status >= 300)
			log_warnx("API: workload %s not expired: %s",
			    op->name, msg != NULL ? msg : "failed");
		break;
	}
}

static void
api_op_free(struct api_op *op)
{
	workload_free(op->wc);
	free(op->undo);
	free(op);
}

static const char *
api_op_what(const struct api_op *op)
{
	if (op->label)
		return (op->create ? "label" : "unlabel");
	if (op->create)
		return ("create");
	if (op->update)
		return ("update");
	return (op->expire ? "expiry" : "delete");
}

/* the head of the queue is done: answer, then the next one */
static void
api_op_done(struct orchd *env, int status, const char *msg)
{
	struct api_op	*op;

	if ((op = TAILQ_FIRST(&api_ops)) == NULL)
		return;
	api_timer_stop();
	TAILQ_REMOVE(&api_ops, op, entry);
	api_nops--;
	api_answer(env, op, status, msg);
	api_op_free(op);
	api_next(env);
}

/* a new generation with the change; answered once it runs */
static void
api_op_send(struct orchd *env, struct api_op *op)
{
	if (env->cfg_acks > 0) {
		/* a transaction is under way: ours goes after it */
		op->phase = OP_SEND;
		return;
	}
	config_send(env);
	op->phase = OP_ACTIVATING;
	op->gen = env->generation;
}

/* what the store wrote, or may still write, for op is undone (peerid 0) */
static void
api_store_undo(struct orchd *env, struct api_op *op)
{
	struct ctl_name	 cn;

	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, op->name, sizeof(cn.name));
	if (op->create)
		(void)proc_compose(&env->ps, PROC_STORE, IMSG_API_DROP, 0, -1,
		    &cn, sizeof(cn));
	else if (op->undo != NULL)
		(void)proc_compose(&env->ps, PROC_STORE, IMSG_API_PUT, 0, -1,
		    op->undo, op->undolen);
}

static void
api_store_late(int fd, short event, void *arg)
{
	struct orchd	*env = arg;
	struct api_op	*op = TAILQ_FIRST(&api_ops);

	api_timer_set = 0;
	if (op == NULL || op->phase != OP_STORING)
		return;
	log_warnx("API: the store did not answer within %d seconds: %s of "
	    "%s not done", API_STORE_WAIT, api_op_what(op), op->name);
	/* should it write after all, the undo comes next */
	api_store_undo(env, op);
	api_op_done(env, 503, "the database is not answering: try again");
}

static int
api_store(struct orchd *env, struct api_op *op)
{
	struct ctl_name	 cn;
	void		*def;
	size_t		 len;
	int		 r;

	if (++api_lastid == 0)
		api_lastid = 1;
	op->opid = api_lastid;
	if (op->create || op->update) {
		if ((def = workload_wire(op->wc, &len)) == NULL)
			return (-1);
		r = proc_compose(&env->ps, PROC_STORE, IMSG_API_PUT,
		    op->opid, -1, def, len);
		free(def);
	} else if (op->expire) {
		r = proc_compose(&env->ps, PROC_STORE, IMSG_API_EXPIRE,
		    op->opid, -1, &op->re, sizeof(op->re));
	} else {
		memset(&cn, 0, sizeof(cn));
		strlcpy(cn.name, op->name, sizeof(cn.name));
		r = proc_compose(&env->ps, PROC_STORE, IMSG_API_DROP,
		    op->opid, -1, &cn, sizeof(cn));
	}
	if (r == -1)
		return (-1);
	op->phase = OP_STORING;
	api_timer_start(API_STORE_WAIT, api_store_late, env);
	return (0);
}

/* what op replaces or removes, kept to be put back should it fail */
static int
api_op_keep_undo(struct api_op *op, const struct workload_conf *cur,
    char *err, size_t len)
{
	free(op->undo);
	if ((op->undo = workload_wire(cur, &op->undolen)) == NULL) {
		snprintf(err, len, "out of memory");
		return (503);
	}
	return (0);
}

/* orchctl keep: the definition as it is now, with expire_after 0 (never) */
static struct workload_conf *
api_keep_make(const struct workload_conf *cur, char *err, size_t len)
{
	struct workload_conf	*wc;
	void			*def;
	size_t			 deflen;

	if ((def = workload_wire(cur, &deflen)) == NULL) {
		snprintf(err, len, "out of memory");
		return (NULL);
	}
	wc = workload_unwire(def, deflen, err, len);
	free(def);
	if (wc != NULL)
		wc->expire_after = 0;
	return (wc);
}

/* an update in its turn: the new definition, checked in the old's place */
static int
api_op_check_update(struct orchd *env, struct api_op *op, char *err,
    size_t len)
{
	struct workload_conf	*cur;
	int			 status;

	if ((cur = api_conf_find(env->conf, op->name)) == NULL) {
		snprintf(err, len, "no such workload: %s", op->name);
		return (404);
	}
	if (cur->source != SOURCE_API) {
		snprintf(err, len, "workload \"%s\" is defined in the "
		    "configuration file: change it there", op->name);
		return (409);
	}
	if (op->update == UPDATE_KEEP) {
		workload_free(op->wc);
		if ((op->wc = api_keep_make(cur, err, len)) == NULL)
			return (503);
	}
	if (op->update == UPDATE_PATCH && workload_wire_hash(cur) != op->base) {
		snprintf(err, len, "workload \"%s\" changed while the patch "
		    "was made: try again", op->name);
		return (409);
	}
	if ((status = api_check_update(env->conf, op->wc, err, len)) != 0)
		return (status);
	return (api_op_keep_undo(op, cur, err, len));
}

/* still expired?  orchctl keep, or an update, may have come between */
static int
api_expire_check(struct orchd *env, struct api_op *op,
    const struct workload_conf *wc, char *err, size_t len)
{
	int64_t	 secs;

	secs = wc->expire_after >= 0 ? wc->expire_after :
	    env->conf->expire_after;
	if (secs <= 0 || secs != op->re.secs) {
		snprintf(err, len, "its expire after changed meanwhile");
		return (-1);
	}
	return (0);
}

/* a delete or an expiry: what runtimed removes once it is stopped */
static void
api_purge_fill(struct api_op *op, const struct workload_conf *wc)
{
	memset(&op->purge, 0, sizeof(op->purge));
	strlcpy(op->purge.name, wc->name, sizeof(op->purge.name));
	if (wc->driver == DRIVER_DOCKER && wc->image != NULL)
		strlcpy(op->purge.image, wc->image, sizeof(op->purge.image));
}

/* checked again when its turn comes: the queue ahead may have changed it */
static int
api_op_check(struct orchd *env, struct api_op *op, char *err, size_t len)
{
	struct workload_conf	*wc;
	char			 who[CTL_MSG_MAX / 2];
	int			 n;

	if (op->create)
		return (api_check_new(env->conf, op->wc, err, len));
	if (op->update)
		return (api_op_check_update(env, op, err, len));
	if ((wc = api_conf_find(env->conf, op->name)) == NULL) {
		snprintf(err, len, "no such workload: %s", op->name);
		return (404);
	}
	if (op->label != (wc->source == SOURCE_LABEL) ||
	    (!op->label && wc->source != SOURCE_API)) {
		snprintf(err, len, "workload \"%s\" is %s: remove it there",
		    op->name, wc->source == SOURCE_LABEL ? "a labelled "
		    "container's" : "defined in the configuration file");
		return (409);
	}
	if (op->expire && api_expire_check(env, op, wc, err, len) != 0)
		return (409);
	if ((n = depends_dependents(env->conf, op->name, who,
	    sizeof(who))) > 0) {
		snprintf(err, len, "workload \"%s\" cannot be deleted: %s "
		    "depend%s on it", op->name, who, n > 1 ? "" : "s");
		return (409);
	}
	api_purge_fill(op, wc);
	return (api_op_keep_undo(op, wc, err, len));
}

/* a labelled container's workload: into or out of the configuration */
static void
api_label_apply(struct orchd *env, struct api_op *op)
{
	struct workload_conf	*wc;

	if (op->create) {
		TAILQ_INSERT_TAIL(&env->conf->workloads, op->wc, entry);
		op->wc = NULL;
	} else if ((wc = api_conf_find(env->conf, op->name)) != NULL) {
		TAILQ_REMOVE(&env->conf->workloads, wc, entry);
		workload_free(wc);
		labels_forget(op->name);
	}
	api_op_send(env, op);
}

static void
api_next(struct orchd *env)
{
	struct api_op		*op;
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	int			 status;

	while ((op = TAILQ_FIRST(&api_ops)) != NULL &&
	    op->phase == OP_QUEUED) {
		/*
		 * A container recreated while the queue was busy: the drop
		 * of the old one, ahead, forgot the facts the new one came
		 * with.  Its own are judged, as they were seen.
		 */
		if (op->label && op->create && labels_keep(&op->rl) == -1) {
			status = 503;
			strlcpy(err, "out of memory", sizeof(err));
		} else
			status = api_op_check(env, op, err, sizeof(err));
		if (status != 0) {
			if (op->label && op->create && ((wc = api_conf_find(
			    env->conf, op->name)) == NULL ||
			    wc->source != SOURCE_LABEL))
				labels_forget(op->name);
			api_op_done(env, status, err);
			return;
		}
		if (op->label) {
			api_label_apply(env, op);
			return;
		}
		if (api_store(env, op) == 0)
			return;
		log_warn("API: to the store");
		api_op_done(env, 503, "the database is not answering: try "
		    "again");
		return;
	}
}

static void
api_queue(struct orchd *env, struct api_op *op)
{
	TAILQ_INSERT_TAIL(&api_ops, op, entry);
	api_nops++;
	if (op == TAILQ_FIRST(&api_ops))
		api_next(env);
}

/* a change for a: a gateway's, orchctl's or the reaper's (an expiry) */
static struct api_op *
api_op_new(struct orchd *env, const struct proc_asker *a)
{
	struct api_op	 tmp, *op;

	memset(&tmp, 0, sizeof(tmp));
	tmp.asker = *a;
	if (api_nops >= API_OPS_MAX) {
		api_answer(env, &tmp, 503, "too many changes under way: try "
		    "again");
		return (NULL);
	}
	if ((op = calloc(1, sizeof(*op))) == NULL) {
		api_answer(env, &tmp, 503, "out of memory");
		return (NULL);
	}
	*op = tmp;
	return (op);
}

/* is a change of name queued already?  An expiry is then not needed */
static int
api_queued(const char *name)
{
	struct api_op	*op;

	TAILQ_FOREACH(op, &api_ops, entry)
		if (strcmp(op->name, name) == 0)
			return (1);
	return (0);
}

/*
 * From the gateway.
 *
 * The gateway decodes the client's JSON, and for a PATCH merges it onto
 * the definition it holds; what it sends is the definition packed
 * (common/workload_wire.c), which api_def_read() bounds-checks and then
 * judges as if nothing had been checked before: every field by the
 * rules of the file's definitions, then the policy.  The gateway parses
 * the internet and is the process most likely to be taken over, so what
 * it sends is input, never a result to trust; but it is bytes at known
 * places, not text for a parser running as root.  Nothing is read
 * unless an API key is configured (policy_api_open), and a bad one is
 * answered (400, 403, 413) and dropped.
 */

void
api_recv_create(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct workload_conf	*wc;
	struct api_op		*op;
	char			 err[CTL_MSG_MAX];
	struct proc_asker	 a;
	int			 status;

	proc_asker(iev, imsg, &a);
	/* answered, so that the gateway's request ends; nothing queued */
	if ((status = policy_api_open(env->conf, err, sizeof(err))) != 0) {
		log_warnx("API: create from gateway %d refused: %s",
		    iev->instance, err);
		api_result(env, &a, status, err);
		return;
	}
	if ((wc = api_def_read(env->conf, imsg->data, imsg_get_len(imsg),
	    &status, err, sizeof(err))) == NULL) {
		api_result(env, &a, status, err);
		return;
	}
	if ((status = api_check_new(env->conf, wc, err, sizeof(err))) != 0) {
		workload_free(wc);
		api_result(env, &a, status, err);
		return;
	}
	if ((op = api_op_new(env, &a)) == NULL) {
		workload_free(wc);
		return;
	}
	op->create = 1;
	op->wc = wc;
	strlcpy(op->name, wc->name, sizeof(op->name));
	log_info("API: creating workload %s", op->name);
	api_queue(env, op);
}

/*
 * From labels.c: a labelled container's workload, read and judged by the
 * policy there, checked again in its turn as a create is; and one whose
 * container went.
 */
static struct api_op *
api_label_op(const char *name)
{
	struct api_op	*op;

	/* not held to the API's cap: a start may find many at once */
	if (api_nops >= API_LABEL_OPS_MAX ||
	    (op = calloc(1, sizeof(*op))) == NULL) {
		log_warnx("docker labels: container %s: too many changes "
		    "under way, left out", name);
		return (NULL);
	}
	op->asker.peer = PROC_RUNTIME;
	op->label = 1;
	strlcpy(op->name, name, sizeof(op->name));
	return (op);
}

void
api_label_add(struct orchd *env, struct workload_conf *wc,
    const struct rt_label *rl)
{
	struct api_op		*op;

	if ((op = api_label_op(wc->name)) == NULL) {
		labels_forget(wc->name);
		workload_free(wc);
		return;
	}
	op->create = 1;
	op->wc = wc;
	op->rl = *rl;
	api_queue(env, op);
}

void
api_label_drop(struct orchd *env, const char *name)
{
	struct api_op	*op;

	if (api_conf_find(env->conf, name) == NULL && !api_queued(name)) {
		/* refused when it came: nothing to drop */
		labels_forget(name);
		return;
	}
	if ((op = api_label_op(name)) == NULL)
		return;
	api_queue(env, op);
}

/* PUT or PATCH: the whole new definition, checked again in its turn */
void
api_recv_update(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct api_update	 au;
	struct api_op		*op;
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	struct proc_asker	 a;
	size_t			 len = imsg_get_len(imsg);
	int			 status;

	proc_asker(iev, imsg, &a);
	if ((status = policy_api_open(env->conf, err, sizeof(err))) != 0) {
		log_warnx("API: update from gateway %d refused: %s",
		    iev->instance, err);
		api_result(env, &a, status, err);
		return;
	}
	if (len < sizeof(au)) {
		api_result(env, &a, 400, "a definition is required");
		return;
	}
	memcpy(&au, imsg->data, sizeof(au));
	if (memchr(au.name, '\0', sizeof(au.name)) == NULL ||
	    !valid_workload_name(au.name)) {
		api_result(env, &a, 400, "invalid workload name");
		return;
	}
	if ((wc = api_def_read(env->conf, (const char *)imsg->data +
	    sizeof(au), len - sizeof(au), &status, err, sizeof(err))) ==
	    NULL) {
		api_result(env, &a, status, err);
		return;
	}
	if (strcmp(wc->name, au.name) != 0) {
		workload_free(wc);
		snprintf(err, sizeof(err), "field \"name\": a workload cannot "
		    "be renamed (it is \"%s\")", au.name);
		api_result(env, &a, 400, err);
		return;
	}
	if ((op = api_op_new(env, &a)) == NULL) {
		workload_free(wc);
		return;
	}
	op->wc = wc;
	op->update = au.patch ? UPDATE_PATCH : UPDATE_PUT;
	op->base = au.base;
	strlcpy(op->name, au.name, sizeof(op->name));
	log_info("API: updating workload %s (%s)", op->name, au.patch ?
	    "PATCH" : "PUT");
	api_queue(env, op);
}

void
api_recv_delete(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct ctl_name		 cn;
	struct api_op		*op;
	struct proc_asker	 a;
	char			 err[CTL_MSG_MAX];
	int			 status;

	proc_asker(iev, imsg, &a);
	if ((status = policy_api_open(env->conf, err, sizeof(err))) != 0) {
		log_warnx("API: delete from gateway %d refused: %s",
		    iev->instance, err);
		api_result(env, &a, status, err);
		return;
	}
	(void)imsg_get_data(imsg, &cn, sizeof(cn));
	if ((op = api_op_new(env, &a)) == NULL)
		return;
	strlcpy(op->name, cn.name, sizeof(op->name));
	op->volumes = imsg_get_type(imsg) == IMSG_API_DELETE_VOLUMES;
	log_info("API: deleting workload %s%s", op->name, op->volumes ?
	    " and its volumes" : "");
	api_queue(env, op);
}

/*
 * From reaperd: an API workload without a request for its expire after.
 * Deleted as a DELETE would, unless it changed meanwhile (api_op_check).
 */
static void
api_expire_queue(struct orchd *env, const struct proc_asker *a,
    const struct reap_expire *re)
{
	struct api_op	*op;

	if (api_queued(re->name) || (op = api_op_new(env, a)) == NULL)
		return;
	op->expire = 1;
	op->re = *re;
	strlcpy(op->name, re->name, sizeof(op->name));
	log_info("API: workload %s: no request for %llds, expiring",
	    op->name, (long long)re->secs);
	api_queue(env, op);
}

void
api_recv_expire(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct workload_conf	*wc;
	struct reap_expire	 re;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);	/* the reaper: answered in the log */
	(void)imsg_get_data(imsg, &re, sizeof(re));
	re.name[sizeof(re.name) - 1] = '\0';
	if ((wc = api_conf_find(env->conf, re.name)) == NULL ||
	    wc->source != SOURCE_API || re.secs <= 0 || api_queued(re.name))
		return;
	/* a group expires as one: not while a member is used */
	if (!group_expire_ready(env->conf, wc))
		return;
	api_expire_queue(env, &a, &re);
}

/*
 * From orchctl: create, update (the whole definition), delete and keep,
 * on the control socket, root's alone.  orchctl decodes the JSON and
 * sends the definition packed, read here as the gateway's is, with the
 * same rules and policy, so that what orchctl makes is what the API
 * could have made, and is read back from the store as such at start.
 * An update is a PUT; keep sets expire_after 0 on the definition as it
 * is in its turn.
 */

/* the packed definition orchctl sent, or NULL, answered */
static struct workload_conf *
api_ctl_def(struct orchd *env, const struct proc_asker *a,
    struct imsg *imsg)
{
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	int			 status;

	if ((wc = api_def_read(env->conf, imsg->data, imsg_get_len(imsg),
	    &status, err, sizeof(err))) == NULL)
		(void)proc_reply_fail(&env->ps, a, CTL_ERR_FAILED, "%s", err);
	return (wc);
}

void
api_ctl_create(struct orchd *env, const struct proc_asker *a,
    struct imsg *imsg)
{
	struct workload_conf	*wc;
	struct api_op		*op;

	if ((wc = api_ctl_def(env, a, imsg)) == NULL)
		return;
	if ((op = api_op_new(env, a)) == NULL) {
		workload_free(wc);
		return;
	}
	op->create = 1;
	op->wc = wc;
	strlcpy(op->name, wc->name, sizeof(op->name));
	log_info("control: creating workload %s", op->name);
	api_queue(env, op);
}

/* an update of name from orchctl: wc, or for a keep made in its turn */
static void
api_ctl_change(struct orchd *env, const struct proc_asker *a,
    const char *name, struct workload_conf *wc, int kind)
{
	struct api_op	*op;

	if ((op = api_op_new(env, a)) == NULL) {
		workload_free(wc);
		return;
	}
	op->wc = wc;
	op->update = kind;
	strlcpy(op->name, name, sizeof(op->name));
	log_info("control: updating workload %s (%s)", op->name,
	    kind == UPDATE_KEEP ? "keep" : "update");
	api_queue(env, op);
}

/* the whole new definition, whose name says which workload it replaces */
void
api_ctl_update(struct orchd *env, const struct proc_asker *a,
    struct imsg *imsg)
{
	struct workload_conf	*wc;
	char			 name[ORCHD_NAME_MAX];

	if ((wc = api_ctl_def(env, a, imsg)) == NULL)
		return;
	strlcpy(name, wc->name, sizeof(name));
	api_ctl_change(env, a, name, wc, UPDATE_PUT);
}

void
api_ctl_delete(struct orchd *env, const struct proc_asker *a,
    const char *name, int volumes)
{
	struct api_op	*op;

	if ((op = api_op_new(env, a)) == NULL)
		return;
	strlcpy(op->name, name, sizeof(op->name));
	op->volumes = volumes;
	log_info("control: deleting workload %s%s", op->name, volumes ?
	    " and its volumes" : "");
	api_queue(env, op);
}

/* orchctl keep: expire_after 0 (never), as a client's PATCH could set */
void
api_ctl_keep(struct orchd *env, const struct proc_asker *a,
    const char *name)
{
	struct workload_conf	*wc;

	if ((wc = api_conf_find(env->conf, name)) == NULL) {
		(void)proc_reply_fail(&env->ps, a, CTL_ERR_FAILED,
		    "no such workload: %s", name);
		return;
	}
	if (wc->source != SOURCE_API) {
		(void)proc_reply_fail(&env->ps, a, CTL_ERR_FAILED, "workload "
		    "\"%s\" is defined in the configuration file, which never "
		    "expires it", name);
		return;
	}
	api_ctl_change(env, a, name, NULL, UPDATE_KEEP);
}

/* the gateway's client for a log stream left: its request ends */
void
api_recv_logs_stop(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	request_cancel(&a);
}

/* GET /v1/workloads/{id}/logs: answered like orchctl logs */
void
api_recv_logs(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	struct ctl_logs		 cl;

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &cl, sizeof(cl));
	/* the gateway bounds what it asks for; never a follow */
	cl.follow = 0;
	if (cl.lines < 0) {
		(void)proc_reply_fail(&orchd_env->ps, &a, CTL_ERR_FAILED,
		    "invalid number of lines");
		return;
	}
	logs_start(&a, &cl);
}

/*
 * From the store.
 */

void
api_recv_stored(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct api_op		*op = TAILQ_FIRST(&api_ops);
	struct workload_conf	*wc;
	struct ctl_result	 res;
	char			 err[CTL_MSG_MAX];
	int			 status;

	(void)imsg_get_data(imsg, &res, sizeof(res));
	res.msg[sizeof(res.msg) - 1] = '\0';
	if (op == NULL || op->phase != OP_STORING ||
	    op->opid != imsg_get_id(imsg))
		return;		/* too late, or an undo */
	api_timer_stop();
	if (res.code != 0) {
		api_op_done(env, 503, res.msg);
		return;
	}
	if (op->create) {
		/*
		 * a reload while the store wrote may have taken the name,
		 * or removed what it depends on
		 */
		if ((status = api_check_new(env->conf, op->wc, err,
		    sizeof(err))) != 0 || (status = api_listen_bind(env->conf,
		    op->wc, err, sizeof(err)) == -1 ? 409 : 0) != 0) {
			api_store_undo(env, op);
			api_op_done(env, status, err);
			return;
		}
		TAILQ_INSERT_TAIL(&env->conf->workloads, op->wc, entry);
		op->wc = NULL;
	} else if (op->update) {
		/* a reload while the store wrote may have taken it */
		if ((status = api_check_update(env->conf, op->wc, err,
		    sizeof(err))) != 0 || (status = api_listen_bind(env->conf,
		    op->wc, err, sizeof(err)) == -1 ? 409 : 0) != 0) {
			api_store_undo(env, op);
			api_op_done(env, status, err);
			return;
		}
		wc = api_conf_find(env->conf, op->name);
		TAILQ_INSERT_AFTER(&env->conf->workloads, wc, op->wc, entry);
		TAILQ_REMOVE(&env->conf->workloads, wc, entry);
		workload_free(wc);
		op->wc = NULL;
	} else {
		if ((wc = api_conf_find(env->conf, op->name)) != NULL) {
			TAILQ_REMOVE(&env->conf->workloads, wc, entry);
			workload_free(wc);
		}
		api_listen_drop(env->conf, op->name);
	}
	api_op_send(env, op);
}

/*
 * A delete with its volumes: it is stopped and no longer configured, so
 * nothing uses them now.  A child of the spawner removes them, as the
 * workload's uid inside them: op leaves the queue, which goes on, and is
 * answered when the child's exit comes (api_volumes_exited), so that
 * what is gone when the delete is answered stays as before, and a
 * million files stall no one.  At most API_RMOPS_MAX walks run at once:
 * beyond, op stays at the head of the queue until one ends.  0 when
 * nothing is to be removed; -1 when op is answered later, or now (500)
 * if the child could not start.
 */
static int
api_volumes_start(struct orchd *env, struct api_op *op)
{
	struct sp_volrm	 r;
	const char	*root;

	if (TAILQ_EMPTY(&env->conf->api_allow_volumes))
		return (0);
	if (api_nrmops >= API_RMOPS_MAX) {
		/* the queue waits for one to end (api_volumes_exited) */
		op->phase = OP_RMWAIT;
		return (-1);
	}
	root = TAILQ_FIRST(&env->conf->api_allow_volumes)->str;
	memset(&r, 0, sizeof(r));
	(void)strlcpy(r.name, op->name, sizeof(r.name));
	instance_name(env->conf, r.inst, sizeof(r.inst));
	/*
	 * As the writer of the volume: its own uid, or root when "api allow
	 * root" let its container run as its image's user (identity.c).
	 */
	if (geteuid() == 0 && !env->conf->api_allow_root &&
	    identity_find(op->name, &r.uid) == 0)
		r.gid = r.uid;
	if (strlcpy(r.root, root, sizeof(r.root)) >= sizeof(r.root) ||
	    (op->rmpid = spawner_volrm(&r)) == -1) {
		log_warn("workload %s: deleted, its volumes not removed",
		    op->name);
		api_op_done(env, 500, "workload deleted, its volumes not "
		    "removed: see the log");
		return (-1);
	}
	log_info("workload %s: deleted, its volumes being removed (pid %d)",
	    op->name, (int)op->rmpid);
	api_timer_stop();
	TAILQ_REMOVE(&api_ops, op, entry);
	api_nops--;
	TAILQ_INSERT_TAIL(&api_rmops, op, entry);
	api_nrmops++;
	api_next(env);
	return (-1);
}

/* from the spawner: 1 if pid removed a deleted workload's volumes */
int
api_volumes_exited(struct orchd *env, pid_t pid, int status)
{
	struct api_op	*op;
	char		 msg[CTL_MSG_MAX];

	TAILQ_FOREACH(op, &api_rmops, entry)
		if (op->rmpid == pid)
			break;
	if (op == NULL)
		return (0);
	TAILQ_REMOVE(&api_rmops, op, entry);
	api_nrmops--;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		api_answer(env, op, 200, NULL);
	else {
		(void)snprintf(msg, sizeof(msg), "workload %s deleted, its "
		    "volumes not all removed: see the log", op->name);
		log_warnx("%s", msg);
		api_answer(env, op, 500, msg);
	}
	api_op_free(op);
	/* a delete that waited for a walk to end: its own now */
	if ((op = TAILQ_FIRST(&api_ops)) != NULL && op->phase == OP_RMWAIT &&
	    api_volumes_start(env, op) == 0)
		api_op_done(env, 200, NULL);
	return (1);
}

/* a configuration transaction ended: ours, or one ours waited for */
void
api_config_active(struct orchd *env)
{
	struct api_op	*op = TAILQ_FIRST(&api_ops);

	if (op == NULL)
		return;
	if (op->phase == OP_SEND) {
		api_op_send(env, op);
		return;
	}
	if (op->phase == OP_ACTIVATING && env->ps.generation >= op->gen) {
		if (op->expire) {
			log_info("API: workload %s expired: no request for "
			    "%llds, deleted", op->name,
			    (long long)op->re.secs);
			hook_expired(env, op->name, op->re.secs);
		} else if (op->label)
			log_info("docker labels: container %s is %s",
			    op->name, op->create ? "a workload" :
			    "gone, and its workload");
		else
			log_info("API: workload %s %s", op->name,
			    op->create ? "created" : op->update ? "updated" :
			    "deleted");
		/*
		 * a delete: runtimed stopped it with the generation, now go;
		 * a labelled container is its maker's to remove
		 */
		if (!op->create && !op->update && !op->label &&
		    proc_compose(&env->ps,
		    PROC_RUNTIME, IMSG_RT_PURGE, 0, -1, &op->purge,
		    sizeof(op->purge)) == -1)
			log_warn("%s: compose", __func__);
		if (op->volumes && api_volumes_start(env, op) == -1)
			return;
		api_op_done(env, op->create ? 201 : 200, NULL);
	}
}

/*
 * At start: the API's workloads, from the store, then the first
 * configuration.
 */

static void
api_load_late(int fd, short event, void *arg)
{
	struct orchd	*env = arg;

	api_timer_set = 0;
	if (!api_loading)
		return;
	api_loading = 0;
	log_warnx("the store did not list the workloads created through the "
	    "API within %d seconds: starting without them", API_LOAD_WAIT);
	depends_prune(env->conf);
	config_send(env);
}

void
api_load_start(struct orchd *env)
{
	if (proc_compose(&env->ps, PROC_STORE, IMSG_API_LOAD, 0, -1, NULL,
	    0) == -1)
		fatal("%s: compose", __func__);
	api_loading = 1;
	api_timer_start(API_LOAD_WAIT, api_load_late, env);
}

void
api_recv_definition(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	int			 status;

	if (!api_loading)
		return;
	/*
	 * The database is no more trusted than the gateway: the store
	 * decodes its row, and sends it packed, read as the gateway's is;
	 * a row breaking the policy is never run.  The file wins at start:
	 * it cannot be refused like a reload.  What it depends on may come
	 * later: api_recv_load_end.
	 */
	if ((wc = api_def_unpack(imsg->data, imsg_get_len(imsg), &status,
	    err, sizeof(err))) == NULL) {
		log_warnx("a workload created through the API is invalid, "
		    "skipped: %s", err);
		return;
	}
	if (api_clash(env->conf, wc, err, sizeof(err)) != 0) {
		log_warnx("workload %s created through the API is not "
		    "loaded: %s", wc->name, err);
		workload_free(wc);
		return;
	}
	if (api_listen_bind(env->conf, wc, err, sizeof(err)) == -1) {
		log_warnx("workload %s created through the API is not "
		    "loaded: %s", wc->name, err);
		workload_free(wc);
		return;
	}
	log_debug("workload %s: created through the API", wc->name);
	TAILQ_INSERT_TAIL(&env->conf->workloads, wc, entry);
}

void
api_recv_load_end(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;

	if (!api_loading)
		return;
	api_loading = 0;
	api_timer_stop();
	/* in no useful order: what they depend on is known now */
	depends_prune(env->conf);
	config_send(env);
}

/*
 * Reload.
 */

/* may nconf, read from the file, replace oconf?  0, or -1 with err */
int
api_reload_check(const struct orchd_conf *nconf,
    const struct orchd_conf *oconf, char *err, size_t len)
{
	const struct workload_conf	*wc;
	char				 why[CTL_MSG_MAX];

	TAILQ_FOREACH(wc, &oconf->workloads, entry) {
		if (wc->source != SOURCE_API)
			continue;
		if (pdef_exists(nconf, wc->name)) {
			snprintf(err, len, "workload %s already exists "
			    "(created through the API)", wc->name);
			return (-1);
		}
		if (api_host_taken(nconf, wc, why, sizeof(why))) {
			snprintf(err, len, "workload %s (created through the "
			    "API): %s", wc->name, why);
			return (-1);
		}
	}
	return (depends_reload_check(nconf, oconf, err, len));
}

/*
 * A labelled container's workload stays if "docker labels" is still on,
 * the new policy allows it and the file took neither its name nor its
 * host; else it leaves the running configuration, and its container is
 * looked at again only when it is made again or orchd starts.
 */
static void
api_reload_label(struct orchd_conf *nconf, struct workload_conf *wc)
{
	char	 err[CTL_MSG_MAX];

	if (policy_check(nconf, wc, err, sizeof(err)) == 0) {
		if (api_conf_find(nconf, wc->name) != NULL)
			snprintf(err, sizeof(err), "workload \"%s\" already "
			    "exists", wc->name);
		else if (!api_host_taken(nconf, wc, err, sizeof(err))) {
			TAILQ_INSERT_TAIL(&nconf->workloads, wc, entry);
			return;
		}
	}
	log_warnx("docker labels: container %s is no more a workload: %s",
	    wc->name, err);
	labels_forget(wc->name);
	workload_free(wc);
}

/*
 * The API's workloads move from oconf to nconf, but those the new
 * policy forbids: they leave the running configuration (and stop), and
 * stay in the store, to be checked again at the next start.
 */
void
api_reload_keep(struct orchd_conf *nconf, struct orchd_conf *oconf)
{
	struct workload_conf	*wc, *next;
	char			 err[CTL_MSG_MAX];

	TAILQ_FOREACH_SAFE(wc, &oconf->workloads, entry, next) {
		if (wc->source == SOURCE_LABEL) {
			TAILQ_REMOVE(&oconf->workloads, wc, entry);
			api_reload_label(nconf, wc);
			continue;
		}
		if (wc->source != SOURCE_API)
			continue;
		TAILQ_REMOVE(&oconf->workloads, wc, entry);
		if (policy_check(nconf, wc, err, sizeof(err)) != 0) {
			log_warnx("workload %s created through the API is "
			    "dropped from the running configuration: %s",
			    wc->name, err);
			workload_free(wc);
			continue;
		}
		TAILQ_INSERT_TAIL(&nconf->workloads, wc, entry);
		api_listen_move(nconf, oconf, wc->name);
	}
	/* and those that depended on one dropped */
	depends_prune(nconf);
}

/*
 * In every configuration transaction to the gateway: where the API is
 * served by Host, and the key when there is a new one.
 */
void
api_config_send(struct orchd *env)
{
	struct strentry	*h;

	TAILQ_FOREACH(h, &env->conf->api_hosts, entry)
		if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_APIHOST, 0,
		    -1, h->str, strlen(h->str)) == -1)
			fatal("%s: compose", __func__);
	apikey_send(env);
}

/* the CPU and memory of the parent, the spawner and each child */
static void
metrics_procs(struct privsep *ps, const struct proc_asker *a)
{
	struct gw_procstat	 p[GW_PROCSTAT_MAX];
	const struct child	*ch;
	size_t			 n = 0;
	int			 i;

	if (procstat_read(getpid(), PROC_PARENT, 0, &p[n]) == 0)
		n++;
	if (spawner_running() && procstat_read(spawner_pid(),
	    GW_PROC_SPAWNER, 0, &p[n]) == 0)
		n++;
	for (i = 0; i < orchd_env->nchildren && n < nitems(p); i++) {
		ch = &orchd_env->children[i];
		if (procstat_read(ch->pid, ch->id, ch->instance, &p[n]) == 0)
			n++;
	}
	if (n > 0)
		(void)proc_reply(ps, a, IMSG_GW_PROCSTAT, p, n * sizeof(p[0]));
}

/*
 * GET /metrics: the gateway asked hears the processes' CPU and memory
 * (common/procstat.c), and with several gateways gathers the others'
 * counts through us (gatewayd/metrics_sum.c), a request in flight
 * (request.c) whose answers, each gateway's records and then its TOTAL,
 * are relayed to the asker.  It hears how many will answer before any
 * answer: they can only come in a later turn of the event loop.
 */
void
api_recv_metrics_ask(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = &orchd_env->ps;
	struct proc_asker	 a;
	struct request		*r;
	uint32_t		 n = 0;
	int			 i;

	proc_asker(iev, imsg, &a);
	metrics_procs(ps, &a);
	if ((r = request_new(&a)) != NULL) {
		r->last = IMSG_GW_METRICS_TOTAL;
		for (i = 0; i < proc_instances(ps, PROC_GATEWAY); i++)
			if (i != iev->instance)
				(void)request_send(r, PROC_GATEWAY, i,
				    IMSG_GW_METRICS_DUMP, NULL, 0);
		if ((n = r->waiting) == 0)
			request_free(r);
	}
	(void)proc_reply(ps, &a, IMSG_GW_METRICS_EXPECT, &n, sizeof(n));
}
