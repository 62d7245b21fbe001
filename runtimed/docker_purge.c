/*
 * IMSG_RT_PURGE: an API workload was deleted, by a DELETE, orchctl delete
 * or its expiry (orchd/parent_api.c).  The generation without it stopped
 * it; its container goes now, only if its labels say it is ours, and its
 * image after it.
 *
 * An image is removed only when a wake could bring it back: when it came
 * from a registry (the daemon knows a digest of it there, RepoDigests)
 * and no workload of ours names it.  One built or loaded on this host has
 * no such digest and is never removed: nothing could pull it again, and
 * it may be the operator's, or another instance's on the same daemon.
 * Volumes stay (v=0), and an image a container still has stays (Docker
 * refuses without force, which is never asked).
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
#include "workload.h"
#include "runtime.h"
#include "docker.h"

struct dk_purge {
	TAILQ_ENTRY(dk_purge)	 entry;
	int			 listed;	/* its container still goes */
	char			 name[ORCHD_NAME_MAX];
	char			 image[CTL_IMAGE_MAX];
};
TAILQ_HEAD(dk_purges, dk_purge);

/*
 * The names whose container a purge is removing: a workload of that name
 * created again meanwhile starts once it is gone (driver_docker.c asks),
 * neither in the container going nor by a remove racing the purge's.
 */
static struct dk_purges	 dk_purges = TAILQ_HEAD_INITIALIZER(dk_purges);

/* 1 while the container of a deleted workload of that name goes */
int
docker_purging(const char *name)
{
	struct dk_purge	*p;

	TAILQ_FOREACH(p, &dk_purges, entry)
		if (strcmp(p->name, name) == 0)
			return (1);
	return (0);
}

/* its container's part is over, removed or not */
static void
purge_unlist(struct dk_purge *p)
{
	if (p->listed)
		TAILQ_REMOVE(&dk_purges, p, entry);
	p->listed = 0;
}

static void
purge_free(struct dk_purge *p)
{
	purge_unlist(p);
	free(p);
}

static void
docker_purge_image_done(const struct dk_resp *r, void *arg)
{
	struct dk_purge	*p = arg;

	if (r->status == 200 || r->status == 404)
		log_info("%s: deleted: image %s removed", p->name, p->image);
	else
		log_warnx("%s: deleted: image %s kept: %s", p->name, p->image,
		    r->err);
	purge_free(p);
}

/* 1 if the inspected image has a digest in a registry */
static int
docker_image_pullable(const char *body, size_t len)
{
	json_error_t	 jerr;
	json_t		*o, *d;
	int		 yes;

	if ((o = json_loadb(body, len, 0, &jerr)) == NULL)
		return (0);
	d = json_object_get(o, "RepoDigests");
	yes = json_is_array(d) && json_array_size(d) > 0;
	json_decref(o);
	return (yes);
}

static void
docker_purge_image_inspected(const struct dk_resp *r, void *arg)
{
	struct dk_purge	*p = arg;

	if (r->status == 404) {
		purge_free(p);
		return;
	}
	if (r->status != 200 || !docker_image_pullable(r->body, r->len)) {
		log_info("%s: deleted: image %s kept: %s", p->name, p->image,
		    r->status == 200 ? "made on this host, not pulled from a "
		    "registry" : r->err);
		purge_free(p);
		return;
	}
	if (dk_call(DK_IMAGE_REMOVE, p->image, NULL, NULL,
	    docker_purge_image_done, NULL, p) == NULL) {
		log_warnx("%s: deleted: image %s: cannot ask", p->name,
		    p->image);
		purge_free(p);
	}
}

static int
docker_image_used(const char *image)
{
	struct rt_workload	*wl;

	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->conf != NULL && wl->conf->driver == DRIVER_DOCKER &&
		    wl->conf->image != NULL &&
		    strcmp(wl->conf->image, image) == 0)
			return (1);
	return (0);
}

static void
docker_purge_done(const struct dk_resp *r, void *arg)
{
	struct dk_purge	*p = arg;

	purge_unlist(p);
	if (r->status != 204 && r->status != 404) {
		log_warnx("%s: deleted: container not removed: %s", p->name,
		    r->err);
		purge_free(p);
		return;
	}
	if (r->status == 204)
		log_info("%s: deleted: container removed", p->name);
	/* asked now: a workload created meanwhile may use it */
	if (docker_image_used(p->image)) {
		log_info("%s: deleted: image %s kept, another workload uses "
		    "it", p->name, p->image);
		purge_free(p);
		return;
	}
	if (dk_call(DK_IMAGE, p->image, NULL, NULL,
	    docker_purge_image_inspected, NULL, p) == NULL) {
		log_warnx("%s: deleted: image %s: cannot ask", p->name,
		    p->image);
		purge_free(p);
	}
}

/* the container of that name is looked at first: only ours is removed */
static void
docker_purge_inspected(const struct dk_resp *r, void *arg)
{
	struct dk_purge	*p = arg;
	char		 id[DK_ID_MAX], why[RT_MSG_MAX / 2];

	if (r->status != 200) {
		docker_purge_done(r, p);
		return;
	}
	if (dk_inspected_ours(r, p->name, id, sizeof(id), why,
	    sizeof(why)) == -1)
		log_warnx("%s: deleted: %s: left alone", p->name, why);
	else if (dk_call(DK_REMOVE, id, NULL, NULL, docker_purge_done, NULL,
	    p) != NULL)
		return;
	else
		log_warnx("%s: deleted: container: cannot ask", p->name);
	purge_free(p);
}

void
docker_recv_purge(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_purge	 rp;
	struct dk_purge	*p;
	char		 cname[DK_CNAME_MAX];

	(void)iev;
	(void)imsg_get_data(imsg, &rp, sizeof(rp));
	rp.image[sizeof(rp.image) - 1] = '\0';
	rp.name[sizeof(rp.name) - 1] = '\0';
	/* a process workload: its container is none, nothing to do */
	if (rp.image[0] == '\0')
		return;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		log_warn("%s", __func__);
		return;
	}
	strlcpy(p->name, rp.name, sizeof(p->name));
	strlcpy(p->image, rp.image, sizeof(p->image));
	TAILQ_INSERT_TAIL(&dk_purges, p, entry);
	p->listed = 1;
	dk_container_name(rp.name, cname, sizeof(cname));
	if (dk_call(DK_INSPECT, cname, NULL, NULL, docker_purge_inspected,
	    NULL, p) == NULL) {
		log_warnx("%s: deleted: container: cannot ask", p->name);
		purge_free(p);
	}
}
