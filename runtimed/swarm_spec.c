/*
 * The service a swarm workload is, as the body of POST /services/create
 * and /services/ID/update.  As for the docker driver (docker_spec.c) it
 * is built field by field from the checked definition and nothing else:
 * no mounts, capabilities, devices or other JSON from outside reach the
 * manager.  Its hash, over the body without the replica count (which
 * changes at every wake and suspend), is kept in the service's label
 * org.orchd.hash and tells a service still right from one to update.
 *
 * The labels org.orchd.seen.INSTANCE, one per orchd instance sharing the
 * swarm, are the last use each has seen, in seconds since the epoch
 * (swarm_agree.c): they are not in the hash, and an update of the
 * definition keeps them.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker.h"
#include "msg.h"
#include "units.h"
#include "workload.h"

static json_t *
sw_container(const struct workload_conf *wc, char *err, size_t errlen)
{
	json_t		*c;
	int64_t		 grace;
	int		 r = 0;

	if ((c = json_object()) == NULL)
		return (NULL);
	r |= json_object_set_new(c, "Image", json_string(wc->image));
	if (dk_spec_argv(c, "Args", wc->command, err, errlen) == -1 ||
	    dk_spec_argv(c, "Command", wc->entrypoint, err, errlen) == -1) {
		json_decref(c);
		return (NULL);
	}
	if (!TAILQ_EMPTY(&wc->env))
		r |= json_object_set_new(c, "Env", strlist_to_json(&wc->env));
	if (wc->user != NULL)
		r |= json_object_set_new(c, "User", json_string(wc->user));
	if (wc->directory != NULL)
		r |= json_object_set_new(c, "Dir", json_string(wc->directory));
	r |= json_object_set_new(c, "Labels", json_pack("{s:s}",
	    DK_LABEL_WORKLOAD, wc->name));
	if (wc->stop_signal != 0)
		r |= json_object_set_new(c, "StopSignal",
		    json_string(signal_name(wc->stop_signal)));
	/* nanoseconds: what the node waits before its SIGKILL */
	grace = wc->stop_timeout != -1 ? wc->stop_timeout : WL_STOP_TIMEOUT;
	r |= json_object_set_new(c, "StopGracePeriod",
	    json_integer(grace * 1000000000LL));
	/* as the docker driver: tini as process 1 unless turned off */
	r |= json_object_set_new(c, "Init", json_boolean(wc->init != 0));
	r |= json_object_set_new(c, "TTY", json_false());
	if (r != 0) {
		json_decref(c);
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	return (c);
}

/*
 * Its memory, the limit and reserved on the node it is placed on; its
 * CPUs and processes (common/wlimits.c), limits only: a swarm task
 * takes no weights.
 */
static json_t *
sw_resources(const struct workload_conf *wc)
{
	struct wl_limits	 l;
	json_t			*res, *lim;
	int			 r = 0;

	if ((res = json_object()) == NULL)
		return (NULL);
	if ((lim = json_object()) == NULL ||
	    json_object_set_new(res, "Limits", lim) == -1) {
		json_decref(res);
		return (NULL);
	}
	if (wc->memory > 0) {
		r |= json_object_set_new(lim, "MemoryBytes",
		    json_integer(wc->memory));
		r |= json_object_set_new(res, "Reservations",
		    json_pack("{s:I}", "MemoryBytes", (json_int_t)wc->memory));
	}
	dk_limits(wc, &l);
	if (l.cpu > 0)
		r |= json_object_set_new(lim, "NanoCPUs",
		    json_integer(l.cpu * 1000000));
	if (l.pids > 0)
		r |= json_object_set_new(lim, "Pids", json_integer(l.pids));
	if (r != 0) {
		json_decref(res);
		return (NULL);
	}
	return (res);
}

static json_t *
sw_task(const struct workload_conf *wc, char *err, size_t errlen)
{
	json_t	*t, *c, *res, *pl;
	int	 r = 0;

	if ((c = sw_container(wc, err, errlen)) == NULL)
		return (NULL);
	if ((t = json_object()) == NULL) {
		json_decref(c);
		return (NULL);
	}
	r |= json_object_set_new(t, "ContainerSpec", c);
	if ((res = sw_resources(wc)) == NULL)
		r = -1;
	else if (json_object_size(json_object_get(res, "Limits")) > 0)
		r |= json_object_set_new(t, "Resources", res);
	else
		json_decref(res);
	if ((pl = json_object()) == NULL || (!TAILQ_EMPTY(&wc->constraints) &&
	    json_object_set_new(pl, "Constraints",
	    strlist_to_json(&wc->constraints)) == -1))
		r = -1;
	r |= json_object_set_new(t, "Placement", pl);
	/* a task that ends is the swarm's to start again, a second later */
	r |= json_object_set_new(t, "RestartPolicy", json_pack("{s:s, s:I}",
	    "Condition", "any", "Delay", (json_int_t)1000000000LL));
	if (wc->network == NETWORK_HOST)
		r |= json_object_set_new(t, "Networks",
		    json_pack("[{s:s}]", "Target", "host"));
	if (r != 0) {
		json_decref(t);
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	return (t);
}

/*
 * The service for wc, labelled with its hash, without its mode: the
 * caller sets the replica count with sw_spec_replicas().  NULL with the
 * reason in err if it cannot be built.
 */
json_t *
sw_spec(const struct workload_conf *wc, const char *sname, char *hash,
    size_t hashlen, char *err, size_t errlen)
{
	json_t	*o, *t, *ep;
	int	 r = 0;

	if (wc->image == NULL) {
		snprintf(err, errlen, "no image");
		return (NULL);
	}
	if ((t = sw_task(wc, err, errlen)) == NULL)
		return (NULL);
	if ((o = json_object()) == NULL) {
		json_decref(t);
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	r |= json_object_set_new(o, "Name", json_string(sname));
	r |= json_object_set_new(o, "Labels", json_pack("{s:s}",
	    DK_LABEL_WORKLOAD, wc->name));
	r |= json_object_set_new(o, "TaskTemplate", t);
	if (wc->network != NETWORK_HOST) {
		/*
		 * Published in host mode: on the node that runs the task,
		 * not through the routing mesh, so that the gateway reaches
		 * the very task it checked.
		 */
		ep = json_pack("{s:s, s:[{s:s, s:i, s:i, s:s}]}",
		    "Mode", "dnsrr", "Ports", "Protocol", "tcp",
		    "TargetPort", (int)wc->port, "PublishedPort",
		    (int)wc->port, "PublishMode", "host");
		r |= ep != NULL ? json_object_set_new(o, "EndpointSpec", ep) :
		    -1;
	}
	if (r != 0 || dk_spec_hash(o, hash, hashlen) == -1) {
		json_decref(o);
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	return (o);
}

/* Mode.Replicated.Replicas of a service's spec, ours or the manager's */
int
sw_spec_replicas(json_t *spec, int replicas)
{
	json_t	*mode;

	mode = json_pack("{s:{s:i}}", "Replicated", "Replicas", replicas);
	if (mode == NULL)
		return (-1);
	return (json_object_set_new(spec, "Mode", mode));
}

/* NAME in org.orchd.seen.NAME, or NULL for another label */
static const char *
sw_seen_instance(const char *key)
{
	size_t	 n = sizeof(SW_LABEL_SEEN) - 1;

	if (strncmp(key, SW_LABEL_SEEN, n) != 0 || key[n] == '\0')
		return (NULL);
	return (key + n);
}

/* a label's time; -1 if it is no time */
static int64_t
sw_seen_time(json_t *v)
{
	const char	*s, *errstr;
	int64_t		 t;

	if ((s = json_string_value(v)) == NULL)
		return (-1);
	t = strtonum(s, 0, LLONG_MAX, &errstr);
	return (errstr != NULL ? -1 : t);
}

/*
 * Of the other instances' labels in a service's spec, the one used last
 * less than idle seconds before now: its name in who and how long ago in
 * *ago, and 1.  0 if every other instance is idle that long, or has no
 * label.  A time further ahead than idle is nobody's clock: ignored.
 */
int
sw_seen_recent(json_t *spec, const char *self, int64_t now, int64_t idle,
    char *who, size_t wholen, int64_t *ago)
{
	json_t		*labels, *v;
	const char	*key, *name;
	int64_t		 t, best = -1;

	labels = json_object_get(spec, "Labels");
	json_object_foreach(labels, key, v) {
		if ((name = sw_seen_instance(key)) == NULL ||
		    strcmp(name, self) == 0 || (t = sw_seen_time(v)) == -1)
			continue;
		if (t > now + idle || now - t >= idle || t <= best)
			continue;
		best = t;
		strlcpy(who, name, wholen);
	}
	if (best == -1)
		return (0);
	*ago = now - best;
	return (1);
}

/*
 * Our label in a service's spec says t; the labels of instances silent
 * for SW_SEEN_FORGET go (gone for good, most likely).  -1: no memory.
 */
int
sw_seen_set(json_t *spec, const char *self, int64_t t, int64_t now)
{
	json_t		*labels, *v;
	const char	*key, *name;
	void		*tmp;
	char		 mine[sizeof(SW_LABEL_SEEN) + ORCHD_INSTANCE_MAX];
	char		 val[24];
	int64_t		 seen;

	if ((labels = json_object_get(spec, "Labels")) == NULL) {
		if ((labels = json_object()) == NULL ||
		    json_object_set_new(spec, "Labels", labels) == -1)
			return (-1);
	} else if (!json_is_object(labels))
		return (-1);
	json_object_foreach_safe(labels, tmp, key, v) {
		if ((name = sw_seen_instance(key)) == NULL ||
		    strcmp(name, self) == 0)
			continue;
		if ((seen = sw_seen_time(v)) != -1 &&
		    now - seen >= SW_SEEN_FORGET)
			(void)json_object_del(labels, key);
	}
	(void)snprintf(mine, sizeof(mine), "%s%s", SW_LABEL_SEEN, self);
	(void)snprintf(val, sizeof(val), "%lld", (long long)t);
	return (json_object_set_new(labels, mine, json_string(val)));
}

/* what spec from's seen labels say, in to: kept over a new definition */
int
sw_seen_keep(json_t *from, json_t *to)
{
	json_t		*labels, *v;
	const char	*key;

	if ((labels = json_object_get(to, "Labels")) == NULL ||
	    !json_is_object(labels))
		return (-1);
	json_object_foreach(json_object_get(from, "Labels"), key, v)
		if (sw_seen_instance(key) != NULL &&
		    json_object_set(labels, key, v) == -1)
			return (-1);
	return (0);
}
