/*
 * "docker labels on": containers made by someone else (docker run,
 * docker compose up) that carry org.orchd.host become workloads.  Only
 * runtimed talks to Docker, and what it reads here is text from outside:
 * the labels and the HostConfig of a container anyone with the Docker
 * socket made.  So nothing of it is trusted or passed on as text: each
 * container is inspected, its labels and HostConfig turned into a
 * definition (struct workload_conf, source label) field by field, and
 * that goes to the parent packed (common/workload_wire.c) with a fixed
 * struct rt_label saying what HostConfig asks that no field can say
 * (privileged, capabilities, devices, namespaces of the host, security
 * options, mounts that are no bind, ports published besides its own).
 * The parent judges it as it judges an API workload (orchd/labels.c);
 * this file decides nothing but what it can read.
 *
 * Its name is the container's name, which Docker already holds to the
 * characters of a workload name: one longer than a workload name may be
 * is refused.  A container some orchd made (org.orchd.workload), or one
 * labelled for another instance (org.orchd.instance), is never taken.
 *
 * They are found by a list at start, filtered on the label, and then
 * follow their own events stream (docker_events.c): a create is
 * inspected, a destroy (or a rename) tells the parent the workload is
 * gone; start, die, oom and kill go to the docker driver as for a
 * container of orchd's.  Each container is reported once, while it
 * lives: a refusal is logged once, by whoever refused it.
 */

#include <sys/types.h>
#include <sys/uio.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "units.h"
#include "workload.h"
#include "runtime.h"
#include "docker.h"
#include "driver_docker.h"

#define LABEL_VALUE_MAX		ORCHD_HOST_MAX	/* a label's value, bytes */

static int			 labels_on;
static struct dk_req		*labels_list_req;

static void	label_list(void);
static void	label_line(const char *, size_t);

/* "docker labels on" or off, with each configuration */
void
labels_apply(int on)
{
	if (on == labels_on)
		return;
	labels_on = on;
	if (on) {
		log_info("docker labels on: containers labelled %s are "
		    "workloads", DK_LABEL_HOST);
		docker_label_events(label_line, label_list);
		return;
	}
	docker_label_events(NULL, NULL);
	if (labels_list_req != NULL)
		dk_cancel(labels_list_req);
	labels_list_req = NULL;
	/* the parent drops their workloads with "docker labels off" */
	labeltab_clear();
}

/* a label's value: text of at most LABEL_VALUE_MAX bytes, or NULL */
static const char *
label_value(json_t *l, const char *key, const char *cname, int *bad)
{
	const char	*v;

	if ((v = json_string_value(json_object_get(l, key))) == NULL)
		return (NULL);
	if (strlen(v) >= LABEL_VALUE_MAX || !valid_text(v)) {
		log_warnx("docker labels: container %s: label %s is no "
		    "text of less than %d bytes: not a workload", cname, key,
		    LABEL_VALUE_MAX);
		*bad = 1;
		return (NULL);
	}
	return (v);
}

/* the labels that make it a workload: its host, port, idle and path */
static int
label_read(struct workload_conf *wc, json_t *l, const char *cname)
{
	const char	*host, *port, *idle, *path, *errstr;
	int		 bad = 0;

	host = label_value(l, DK_LABEL_HOST, cname, &bad);
	port = label_value(l, DK_LABEL_PORT, cname, &bad);
	idle = label_value(l, DK_LABEL_IDLE, cname, &bad);
	path = label_value(l, DK_LABEL_PATH, cname, &bad);
	if (bad)
		return (-1);
	if (host == NULL || port == NULL) {
		log_warnx("docker labels: container %s: labels %s and %s are "
		    "both needed: not a workload", cname, DK_LABEL_HOST,
		    DK_LABEL_PORT);
		return (-1);
	}
	wc->port = strtonum(port, 1, 65535, &errstr);
	if (errstr != NULL) {
		log_warnx("docker labels: container %s: %s \"%s\" is %s: "
		    "1 to 65535", cname, DK_LABEL_PORT, port, errstr);
		return (-1);
	}
	if (idle != NULL && parse_duration(idle, &wc->idle_timeout,
	    &errstr) == -1) {
		log_warnx("docker labels: container %s: %s \"%s\": %s", cname,
		    DK_LABEL_IDLE, idle, errstr);
		return (-1);
	}
	if (strlist_add(&wc->hosts, host) == -1 ||
	    (path != NULL && (wc->path = strdup(path)) == NULL))
		fatal("%s", __func__);
	return (0);
}

/* "N" or "N:G": N, unless G is root's; -1 for a name or none */
static int64_t
label_uid(const char *user)
{
	char		 buf[64], *colon;
	const char	*errstr;
	int64_t		 uid, gid;

	if (user == NULL || strlcpy(buf, user, sizeof(buf)) >= sizeof(buf))
		return (-1);
	if ((colon = strchr(buf, ':')) != NULL) {
		*colon++ = '\0';
		gid = strtonum(colon, 0, UINT32_MAX - 1, &errstr);
		if (errstr != NULL || gid == 0)
			return (-1);
	}
	uid = strtonum(buf, 0, UINT32_MAX - 1, &errstr);
	return (errstr != NULL ? -1 : uid);
}

/* a bool, a non-empty array, or a mode of the host's, in hc */
static int
label_set(json_t *hc, const char *key)
{
	json_t		*v = json_object_get(hc, key);
	const char	*s;

	if (json_is_true(v))
		return (1);
	if (json_is_array(v))
		return (json_array_size(v) > 0);
	if ((s = json_string_value(v)) != NULL)
		return (strcmp(s, "host") == 0);
	return (0);
}

/* what HostConfig asks that no field of a workload says */
static uint32_t
label_refuse(json_t *hc)
{
	uint32_t	 r = 0;

	if (label_set(hc, "Privileged"))
		r |= RT_LABEL_PRIVILEGED;
	if (label_set(hc, "CapAdd"))
		r |= RT_LABEL_CAPS;
	if (label_set(hc, "Devices") || label_set(hc, "DeviceRequests") ||
	    label_set(hc, "DeviceCgroupRules"))
		r |= RT_LABEL_DEVICES;
	/*
	 * the cgroup namespace is left out: the host's is Docker's default
	 * under cgroup v1, for orchd's own containers too
	 */
	if (label_set(hc, "PidMode") || label_set(hc, "IpcMode") ||
	    label_set(hc, "UTSMode") || label_set(hc, "UsernsMode") ||
	    label_set(hc, "VolumesFrom") || label_set(hc, "Links"))
		r |= RT_LABEL_NS_HOST;
	if (label_set(hc, "SecurityOpt"))
		r |= RT_LABEL_SECURITY;
	return (r);
}

/* its network: the host's, Docker's bridge, or one by name */
static int
label_network(struct workload_conf *wc, json_t *hc, uint32_t *refuse)
{
	const char	*mode;

	mode = json_string_value(json_object_get(hc, "NetworkMode"));
	if (mode == NULL || strcmp(mode, "default") == 0 ||
	    strcmp(mode, "bridge") == 0)
		wc->network = NETWORK_BRIDGE;
	else if (strcmp(mode, "host") == 0)
		wc->network = NETWORK_HOST;
	else if (strcmp(mode, "none") == 0 ||
	    strncmp(mode, "container:", 10) == 0 || !valid_network_name(mode))
		*refuse |= RT_LABEL_NET;
	else {
		wc->network = NETWORK_NAMED;
		if ((wc->netname = strdup(mode)) == NULL)
			fatal("%s", __func__);
	}
	return (0);
}

/*
 * Its published ports: off the host's network, its own port must be
 * published, on the address and host port the workload is reached at;
 * any other published is refused
 */
static int
label_ports(struct workload_conf *wc, json_t *hc, uint32_t *refuse)
{
	json_t		*pb, *b, *v;
	const char	*key, *ip, *hp, *errstr;
	char		 own[16];
	size_t		 i;

	(void)snprintf(own, sizeof(own), "%u/tcp", wc->port);
	pb = json_object_get(hc, "PortBindings");
	json_object_foreach(pb, key, v) {
		if (wc->network == NETWORK_HOST || strcmp(key, own) != 0 ||
		    json_array_size(v) != 1) {
			if (json_array_size(v) > 0)
				*refuse |= RT_LABEL_PORTS;
			continue;
		}
		json_array_foreach(v, i, b) {
			ip = json_string_value(json_object_get(b, "HostIp"));
			hp = json_string_value(json_object_get(b, "HostPort"));
			if (hp == NULL)
				continue;
			wc->publish = strtonum(hp, 1, 65535, &errstr);
			if (errstr != NULL)
				*refuse |= RT_LABEL_PORTS;
			if (ip == NULL || ip[0] == '\0')
				ip = "0.0.0.0";
			free(wc->address);
			if ((wc->address = strdup(ip)) == NULL)
				fatal("%s", __func__);
		}
	}
	/* -P: every port it exposes, on every address */
	if ((wc->network != NETWORK_HOST && wc->publish == 0) ||
	    label_set(hc, "PublishAllPorts"))
		*refuse |= RT_LABEL_PORTS;
	return (0);
}

/* its mounts: binds are volumes the policy judges; anything else, no */
static int
label_mounts(struct workload_conf *wc, json_t *o, uint32_t *refuse)
{
	json_t		*m;
	const char	*type, *src, *dst;
	struct volume	*v;
	size_t		 i;

	json_array_foreach(json_object_get(o, "Mounts"), i, m) {
		type = json_string_value(json_object_get(m, "Type"));
		src = json_string_value(json_object_get(m, "Source"));
		dst = json_string_value(json_object_get(m, "Destination"));
		if (type != NULL && strcmp(type, "tmpfs") == 0)
			continue;
		if (type == NULL || strcmp(type, "bind") != 0 || src == NULL ||
		    dst == NULL) {
			*refuse |= RT_LABEL_MOUNTS;
			continue;
		}
		if (strlen(src) >= ORCHD_VOLROOT_MAX ||
		    strlen(dst) >= ORCHD_VOLROOT_MAX || !valid_text(src) ||
		    !valid_text(dst))
			return (-1);
		if ((v = calloc(1, sizeof(*v))) == NULL ||
		    (v->host = strdup(src)) == NULL ||
		    (v->container = strdup(dst)) == NULL)
			fatal("%s", __func__);
		TAILQ_INSERT_TAIL(&wc->volumes, v, entry);
	}
	return (0);
}

/* the definition of an inspected container, and what it asks besides */
static struct workload_conf *
label_define(json_t *o, const char *cname, struct rt_label *rl)
{
	struct workload_conf	*wc;
	json_t			*cfg, *hc;
	const char		*image;

	cfg = json_object_get(o, "Config");
	hc = json_object_get(o, "HostConfig");
	if ((wc = workload_new(cname)) == NULL)
		fatal("%s", __func__);
	wc->driver = DRIVER_DOCKER;
	wc->source = SOURCE_LABEL;
	if (label_read(wc, json_object_get(cfg, "Labels"), cname) == -1)
		goto fail;
	image = json_string_value(json_object_get(cfg, "Image"));
	if (image == NULL || strlen(image) >= DK_IMAGE_MAX ||
	    !valid_text(image)) {
		log_warnx("docker labels: container %s: no image name that "
		    "orchd can judge: not a workload", cname);
		goto fail;
	}
	if ((wc->image = strdup(image)) == NULL)
		fatal("%s", __func__);
	rl->uid = label_uid(json_string_value(json_object_get(cfg, "User")));
	rl->refuse = label_refuse(hc);
	if (label_network(wc, hc, &rl->refuse) == -1 ||
	    label_ports(wc, hc, &rl->refuse) == -1 ||
	    label_mounts(wc, o, &rl->refuse) == -1) {
		log_warnx("docker labels: container %s: a mount orchd cannot "
		    "judge: not a workload", cname);
		goto fail;
	}
	return (wc);
 fail:
	workload_free(wc);
	return (NULL);
}

/* the parent is told of it: its facts, then its definition packed */
static void
label_send(struct label_seen *ls, const struct workload_conf *wc,
    const struct rt_label *rl)
{
	struct iovec	 iov[2];
	void		*def;
	size_t		 len;

	if ((def = workload_wire(wc, &len)) == NULL)
		fatal("%s: workload_wire", __func__);
	iov[0].iov_base = (void *)rl;
	iov[0].iov_len = sizeof(*rl);
	iov[1].iov_base = def;
	iov[1].iov_len = len;
	if (proc_composev(rt->ps, PROC_PARENT, IMSG_RT_LABEL, 0, iov,
	    nitems(iov)) == -1)
		log_warnx("docker labels: container %s: too large to tell",
		    ls->name);
	else
		ls->sent = 1;
	free(def);
}

static void
label_inspected(const struct dk_resp *r, void *arg)
{
	struct label_seen	*ls = arg;
	struct workload_conf	*wc;
	struct rt_label		 rl;
	json_error_t		 jerr;
	json_t			*o;
	const char		*name;
	char			 why[RT_MSG_MAX];

	if (!labels_on || r->status != 200 ||
	    (o = json_loadb(r->body, r->len, 0, &jerr)) == NULL)
		return;
	name = json_string_value(json_object_get(o, "Name"));
	if (name != NULL && name[0] == '/')
		name++;
	if (dk_labels_theirs(json_object_get(json_object_get(o, "Config"),
	    "Labels"), why, sizeof(why)) == -1) {
		log_warnx("docker labels: container %.12s: %s: never taken",
		    ls->id, why);
		json_decref(o);
		return;
	}
	if (name == NULL || strlen(name) >= sizeof(ls->name) ||
	    !valid_workload_name(name)) {
		log_warnx("docker labels: container %.12s: its name is no "
		    "workload name (at most %zu letters, digits, '.', '-' "
		    "or '_'): not a workload", ls->id, sizeof(ls->name) - 1);
		json_decref(o);
		return;
	}
	(void)strlcpy(ls->name, name, sizeof(ls->name));
	memset(&rl, 0, sizeof(rl));
	(void)strlcpy(rl.name, name, sizeof(rl.name));
	if ((wc = label_define(o, ls->name, &rl)) != NULL) {
		log_debug("docker labels: container %.12s is workload %s",
		    ls->id, ls->name);
		label_send(ls, wc, &rl);
		workload_free(wc);
	}
	json_decref(o);
}

/* a container not seen before: looked at once */
static void
label_look(const char *id)
{
	struct label_seen	*ls;

	if (labeltab_find(id) != NULL)
		return;
	if ((ls = labeltab_new(id)) == NULL) {
		log_warnx("docker labels: more than %d labelled containers, "
		    "or a bad id: %.12s left out", LABELTAB_MAX, id);
		return;
	}
	if (dk_call(DK_INSPECT, ls->id, NULL, NULL, label_inspected, NULL,
	    ls) == NULL)
		ls->id[0] = '\0';
}

/* a container gone, or renamed: its workload goes */
static void
label_gone(const char *id)
{
	struct label_seen	*ls;
	struct wl_ref		 ref;

	if ((ls = labeltab_find(id)) == NULL)
		return;
	if (ls->sent) {
		memset(&ref, 0, sizeof(ref));
		(void)strlcpy(ref.name, ls->name, sizeof(ref.name));
		if (proc_compose(rt->ps, PROC_PARENT, IMSG_RT_UNLABEL, 0, -1,
		    &ref, sizeof(ref)) == -1)
			log_warn("%s: compose", __func__);
	}
	labeltab_drop(ls);
}

static void
label_listed(const struct dk_resp *r, void *arg)
{
	json_error_t	 jerr;
	json_t		*o = NULL, *c;
	const char	*id;
	size_t		 i;

	labels_list_req = NULL;
	if (r->status != 200 || (o = json_loadb(r->body, r->len, 0,
	    &jerr)) == NULL || !json_is_array(o)) {
		log_warnx("docker labels: cannot list the labelled "
		    "containers: %s", r->err != NULL ? r->err : "bad answer");
		json_decref(o);
		return;
	}
	json_array_foreach(o, i, c)
		if ((id = json_string_value(json_object_get(c, "Id"))) != NULL)
			label_look(id);
	json_decref(o);
}

/* when the stream opens: every labelled container, as at start */
static void
label_list(void)
{
	if (labels_list_req != NULL || !labels_on)
		return;
	labels_list_req = dk_call(DK_LABEL_LIST, NULL, NULL, NULL,
	    label_listed, NULL, NULL);
}

static void
label_line(const char *line, size_t len)
{
	json_error_t		 jerr;
	json_t			*o, *actor;
	struct label_seen	*ls;
	struct dk_event		 e;
	const char		*action, *id;
	int			 ev;

	if ((o = json_loadb(line, len, 0, &jerr)) == NULL)
		return;
	actor = json_object_get(o, "Actor");
	id = json_string_value(json_object_get(actor, "ID"));
	action = json_string_value(json_object_get(o, "Action"));
	if (id == NULL || action == NULL) {
		json_decref(o);
		return;
	}
	if (strcmp(action, "create") == 0)
		label_look(id);
	else if (strcmp(action, "rename") == 0) {
		label_gone(id);
		label_look(id);
	} else if ((ls = labeltab_find(id)) != NULL && ls->sent) {
		/* the events its workload lives through, as orchd's own */
		if ((ev = dk_ev_action(action)) != -1) {
			memset(&e, 0, sizeof(e));
			e.ev = ev;
			e.workload = e.cname = ls->name;
			e.id = ls->id;
			docker_event(&e);
		}
		if (strcmp(action, "destroy") == 0)
			label_gone(id);
	} else if (strcmp(action, "destroy") == 0)
		label_gone(id);
	json_decref(o);
}

static void
dk_unpaused_left(const struct dk_resp *r, void *arg)
{
	char	*name = arg;

	if (r->status / 100 == 2)
		log_info("workload %s: its container, left running, unpaused",
		    name);
	else
		log_warnx("workload %s: its container, left running, not "
		    "unpaused: %s", name, r->err != NULL ? r->err : "failed");
	free(name);
}

/*
 * A labelled workload that goes while frozen: its container is its
 * maker's, and is left running, so not paused either.  The call is the
 * container's, not the workload's, which is forgotten meanwhile.
 */
void
docker_unpause_left(struct rt_workload *wl)
{
	struct rt_docker	*dk = wl->docker;
	char			*name;

	if (dk == NULL || dk->id[0] == '\0' || (!dk->paused &&
	    dk->step != STEP_PAUSE))
		return;
	if ((name = strdup(wl->name)) == NULL)
		fatal("%s: strdup", __func__);
	if (dk_call(DK_UNPAUSE, dk->id, NULL, NULL, dk_unpaused_left, NULL,
	    name) == NULL) {
		log_warnx("workload %s: its container, left running, stays "
		    "paused: cannot call Docker", wl->name);
		free(name);
	}
}
