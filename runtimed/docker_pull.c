/*
 * Pulls: a docker workload's image fetched through the Docker daemon,
 * POST /images/create, with the registry's login when the parent gave
 * one.  A wake pulls (driver_docker.c, as its "pull" says), and so does
 * orchctl pull, ahead of any wake.
 *
 * One pull per image at a time: whoever asks for an image already being
 * pulled waits on the same pull (struct dk_pull_watch), each with its
 * own timeout, its pull timeout; a pull nobody waits on any more is
 * cancelled, which the daemon takes as the end of it.  The pull has a
 * connection of its own to the daemon, outside the pool the other calls
 * share: it may take minutes, and must hold up no other workload's
 * wake.  Its answer is read as it streams (docker_image.c), bounded, and
 * told to those who want to know (orchctl pull) at most once a second.
 *
 * The logins come from the parent alone, in the configuration
 * transaction (IMSG_CFG_REGAUTH): for each registry host, the value of
 * the X-Registry-Auth header, made by the parent (orchd/regauth.c).
 * They are kept here, in memory only, until the next configuration's
 * replace them; nothing of them is logged.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "timer.h"
#include "units.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"

#define DK_PULLS_MAX		16	/* images being pulled at once */
#define DK_PULL_TICK_MS		1000	/* progress told at most this often */

struct dk_pull;

struct dk_pull_watch {
	TAILQ_ENTRY(dk_pull_watch) entry;
	struct dk_pull		*pull;
	struct event		 timer;		/* its pull timeout */
	int64_t			 deadline_ms;	/* monotonic */
	int64_t			 secs;
	dk_pull_progress_cb	 progress;	/* or NULL */
	dk_pull_done_cb		 done;
	void			*arg;
};
TAILQ_HEAD(dk_pull_watches, dk_pull_watch);

struct dk_pull {
	TAILQ_ENTRY(dk_pull)	 entry;
	char			 image[DK_IMAGE_MAX]; /* as written */
	struct dk_imageref	 ref;
	struct dk_req		*req;
	struct event		 tick;
	int			 finishing;	/* its watchers are told */
	struct dk_pull_watches	 watches;
	struct dk_progress	 prog;
};

static TAILQ_HEAD(, dk_pull)	 dk_pulls = TAILQ_HEAD_INITIALIZER(dk_pulls);
static int			 dk_npulls;
static json_t			*dk_logins; /* {"registry": "header"} */

/* IMSG_CFG_REGAUTH: the logins of the configuration, empty for none */
void
docker_recv_regauth(struct imsgev *iev, struct imsg *imsg)
{
	json_error_t	 jerr;
	json_t		*o = NULL, *v;
	const char	*host;
	size_t		 len = imsg_get_len(imsg);

	if (len > 0 && ((o = json_loadb(imsg->data, len, 0, &jerr)) == NULL ||
	    !json_is_object(o)))
		fatalx("%s: logins that are not a JSON object", __func__);
	json_object_foreach(o, host, v)
		if (!json_is_string(v))
			fatalx("%s: a login that is not a string", __func__);
	json_decref(dk_logins);
	dk_logins = o;
	if (len > 0)
		explicit_bzero(imsg->data, len);
	log_debug("registry logins for %zu registr%s", json_object_size(o),
	    json_object_size(o) == 1 ? "y" : "ies");
}

/* the X-Registry-Auth of a registry host, NULL for none */
const char *
docker_login(const char *registry)
{
	return (json_string_value(json_object_get(dk_logins, registry)));
}

/* what a watcher is told: the pull's progress so far */
static void
dk_pull_summary(struct dk_pull *p, int done, struct ctl_pull *cp)
{
	memset(cp, 0, sizeof(*cp));
	(void)strlcpy(cp->image, p->image, sizeof(cp->image));
	dk_progress_sum(&p->prog, cp);
	cp->done = done;
}

static void
dk_pull_free(struct dk_pull *p)
{
	evtimer_del(&p->tick);
	free(p);
}

static void
dk_pull_watch_free(struct dk_pull_watch *w)
{
	evtimer_del(&w->timer);
	free(w);
}

/* no one waits for it any more: the connection's end stops the daemon */
static void
dk_pull_abandon(struct dk_pull *p)
{
	log_info("pull of %s abandoned: no wake or orchctl waits for it",
	    p->image);
	dk_cancel(p->req);
	TAILQ_REMOVE(&dk_pulls, p, entry);
	dk_npulls--;
	dk_pull_free(p);
}

/*
 * The pull is over, one way or another: every watcher is told once,
 * each after its last look at the progress.  A watcher's report may
 * start another pull of the same image: that one is a new pull.
 */
static void
dk_pull_finish(struct dk_pull *p, int ok, const char *why)
{
	struct dk_pull_watch	*w;
	struct ctl_pull		 cp;
	dk_pull_progress_cb	 progress;
	dk_pull_done_cb		 done;
	void			*arg;
	char			 msg[RT_MSG_MAX];

	p->finishing = 1;
	TAILQ_REMOVE(&dk_pulls, p, entry);
	dk_npulls--;
	evtimer_del(&p->tick);
	dk_pull_summary(p, 1, &cp);
	if (ok) {
		msg[0] = '\0';
		log_info("pulled %s: %s", p->image, cp.status[0] != '\0' ?
		    cp.status : "done");
	} else {
		/* the registry's words matter more than a long name */
		(void)snprintf(msg, sizeof(msg), "pull of %.100s: %s",
		    p->image, why);
		log_warnx("%s", msg);
	}
	while ((w = TAILQ_FIRST(&p->watches)) != NULL) {
		TAILQ_REMOVE(&p->watches, w, entry);
		progress = w->progress;
		done = w->done;
		arg = w->arg;
		dk_pull_watch_free(w);
		if (progress != NULL)
			progress(&cp, arg);
		done(ok, msg, arg);
	}
	dk_pull_free(p);
}

static void
dk_pull_answer(const struct dk_resp *r, void *arg)
{
	struct dk_pull	*p = arg;

	p->req = NULL;
	if (r->status / 100 == 2 && !p->prog.failed)
		dk_pull_finish(p, 1, NULL);
	else if (p->prog.failed)
		dk_pull_finish(p, 0, p->prog.error);
	else
		dk_pull_finish(p, 0, r->err != NULL ? r->err :
		    "no answer from the Docker daemon");
}

static void
dk_pull_data(const char *data, size_t len, void *arg)
{
	struct dk_pull	*p = arg;

	if (data != NULL)
		dk_progress_feed(&p->prog, data, len);
}

/* once a second: what changed, to those who watch it go */
static void
dk_pull_tick(int fd, short event, void *arg)
{
	struct dk_pull		*p = arg;
	struct dk_pull_watch	*w, *next;
	struct ctl_pull		 cp;

	evtimer_add_ms(&p->tick, DK_PULL_TICK_MS);
	if (!p->prog.changed)
		return;
	p->prog.changed = 0;
	dk_pull_summary(p, 0, &cp);
	TAILQ_FOREACH_SAFE(w, &p->watches, entry, next)
		if (w->progress != NULL)
			w->progress(&cp, w->arg);
}

/* a watcher's pull timeout: it is told, the pull goes on for others */
static void
dk_pull_timeout(int fd, short event, void *arg)
{
	struct dk_pull_watch	*w = arg;
	dk_pull_done_cb		 done = w->done;
	char			 msg[RT_MSG_MAX], d[32];

	(void)snprintf(msg, sizeof(msg), "pull of %.100s: not done within %s "
	    "(pull timeout)", w->pull->image, fmt_duration(w->secs, d,
	    sizeof(d)));
	log_warnx("%s", msg);
	arg = w->arg;
	dk_pull_stop(w);
	done(0, msg, arg);
}

static struct dk_pull *
dk_pull_new(const char *image, char *err, size_t len)
{
	struct dk_pull	*p;
	const char	*login;

	if (dk_npulls >= DK_PULLS_MAX) {
		(void)snprintf(err, len, "pull of %s: %d other images are "
		    "being pulled", image, DK_PULLS_MAX);
		return (NULL);
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		(void)snprintf(err, len, "pull of %s: out of memory", image);
		return (NULL);
	}
	if (strlcpy(p->image, image, sizeof(p->image)) >= sizeof(p->image) ||
	    dk_image_parse(image, &p->ref, err, len) == -1) {
		if (strlen(image) >= sizeof(p->image))
			(void)snprintf(err, len, "image name too long");
		free(p);
		return (NULL);
	}
	TAILQ_INIT(&p->watches);
	evtimer_set(&p->tick, dk_pull_tick, p);
	if ((p->req = dk_call(DK_PULL, p->ref.name, p->ref.tag, NULL,
	    dk_pull_answer, dk_pull_data, p)) == NULL) {
		(void)snprintf(err, len, "pull of %s: cannot call the Docker "
		    "daemon", image);
		free(p);
		return (NULL);
	}
	login = docker_login(p->ref.registry);
	if (login != NULL && dk_set_auth(p->req, login) == -1) {
		dk_cancel(p->req);
		(void)snprintf(err, len, "pull of %s: the login for %s cannot "
		    "be sent", image, p->ref.registry);
		free(p);
		return (NULL);
	}
	log_info("pulling %s from %s, %s", image, p->ref.registry,
	    login != NULL ? "with its login" : "without a login");
	evtimer_add_ms(&p->tick, DK_PULL_TICK_MS);
	TAILQ_INSERT_TAIL(&dk_pulls, p, entry);
	dk_npulls++;
	return (p);
}

/*
 * Wait for image to be pulled, pulling it unless it is under way, for
 * secs at most: done is called once, later, from the event loop, with 1
 * or 0 and why not; progress, if not NULL, at most once a second and
 * once before done.  NULL with err if the pull cannot even begin.
 */
struct dk_pull_watch *
dk_pull_start(const char *image, int64_t secs, dk_pull_progress_cb progress,
    dk_pull_done_cb done, void *arg, char *err, size_t len)
{
	struct dk_pull		*p;
	struct dk_pull_watch	*w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		(void)snprintf(err, len, "pull of %s: out of memory", image);
		return (NULL);
	}
	TAILQ_FOREACH(p, &dk_pulls, entry)
		if (strcmp(p->image, image) == 0)
			break;
	if (p != NULL)
		log_debug("pull of %s: one more waits for it", image);
	else if ((p = dk_pull_new(image, err, len)) == NULL) {
		free(w);
		return (NULL);
	}
	w->pull = p;
	w->secs = secs;
	w->deadline_ms = monotime_ms() + secs * 1000;
	w->progress = progress;
	w->done = done;
	w->arg = arg;
	evtimer_set(&w->timer, dk_pull_timeout, w);
	evtimer_add_ms(&w->timer, secs * 1000);
	TAILQ_INSERT_TAIL(&p->watches, w, entry);
	return (w);
}

/* w waits no longer, and is told nothing more */
void
dk_pull_stop(struct dk_pull_watch *w)
{
	struct dk_pull	*p;

	if (w == NULL)
		return;
	p = w->pull;
	TAILQ_REMOVE(&p->watches, w, entry);
	dk_pull_watch_free(w);
	if (!p->finishing && TAILQ_EMPTY(&p->watches))
		dk_pull_abandon(p);
}

/* the seconds w may still wait, 1 at least */
int64_t
dk_pull_left(const struct dk_pull_watch *w)
{
	int64_t	 ms = w->deadline_ms - monotime_ms();

	return (ms > 1000 ? (ms + 999) / 1000 : 1);
}

/*
 * orchctl pull NAME: the workload's image fetched now, whatever its
 * "pull" says, with its progress told to orchctl (IMSG_CTL_PULLING) as
 * it goes, then OK or FAIL.  orchctl going away does not stop the pull:
 * the parent drops what is sent for a request whose client is gone.
 */

struct ctl_puller {
	struct proc_asker	 asker;		/* the parent's request */
	char			 name[ORCHD_NAME_MAX];
};

static void
ctl_pull_fail(const struct proc_asker *a, const char *msg)
{
	(void)proc_reply_fail(rt->ps, a, CTL_ERR_FAILED, "%s", msg);
}

static void
ctl_pull_progress(const struct ctl_pull *cp, void *arg)
{
	struct ctl_puller	*cl = arg;
	struct ctl_pull		 m = *cp;

	(void)strlcpy(m.name, cl->name, sizeof(m.name));
	(void)proc_reply(rt->ps, &cl->asker, IMSG_CTL_PULLING, &m,
	    sizeof(m));
}

static void
ctl_pull_done(int ok, const char *why, void *arg)
{
	struct ctl_puller	*cl = arg;

	if (!ok)
		ctl_pull_fail(&cl->asker, why);
	else
		(void)proc_reply_ok(rt->ps, &cl->asker);
	free(cl);
}

/* the workload's pull timeout: its own, the global one, the default */
int64_t
docker_pull_timeout(const struct workload_conf *wc)
{
	if (wc->pull_timeout > 0)
		return (wc->pull_timeout);
	if (rt->pull_timeout > 0)
		return (rt->pull_timeout);
	return (ORCHD_PULL_TIMEOUT);
}

/* IMSG_CTL_PULL from the parent, for orchctl */
void
docker_recv_pull(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_workload	*wl;
	struct ctl_puller	*cl;
	struct ctl_name		 cn;
	struct proc_asker	 a;
	char			 err[RT_MSG_MAX];

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &cn, sizeof(cn));
	if ((wl = lifecycle->find(cn.name)) == NULL || wl->conf == NULL) {
		(void)snprintf(err, sizeof(err), "no such workload: %s",
		    cn.name);
		ctl_pull_fail(&a, err);
		return;
	}
	if (wl->conf->driver != DRIVER_DOCKER || wl->conf->image == NULL) {
		(void)snprintf(err, sizeof(err), "%s is not a docker workload: "
		    "it has no image to pull", cn.name);
		ctl_pull_fail(&a, err);
		return;
	}
	if ((cl = calloc(1, sizeof(*cl))) == NULL) {
		ctl_pull_fail(&a, "out of memory");
		return;
	}
	cl->asker = a;
	(void)strlcpy(cl->name, cn.name, sizeof(cl->name));
	log_info("workload %s: orchctl pull of %s", wl->name,
	    wl->conf->image);
	if (dk_pull_start(wl->conf->image, docker_pull_timeout(wl->conf),
	    ctl_pull_progress, ctl_pull_done, cl, err, sizeof(err)) == NULL) {
		ctl_pull_fail(&a, err);
		free(cl);
	}
}
