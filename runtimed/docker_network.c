/*
 * The networks of "network NAME": user-defined Docker networks, on which
 * a workload's container is reached by its peers under the workload's
 * name.  Before each start of such a container runtimed makes sure its
 * network is there: GET /networks/NAME, and if there is none, POST
 * /networks/create, driver bridge, labelled org.orchd.network=1 so that
 * an operator can tell the networks orchd made, and
 * org.orchd.instance=INSTANCE: whose.  One that exists is used as it is
 * if an operator made it (no org.orchd.network: a network shared on
 * purpose), or an orchd older than instance labels, or this instance;
 * one that another instance made is never joined, so that no workload
 * of one instance reaches another's through it (orchd-workload.7).  runtimed
 * never removes a network: it may hold containers that are not orchd's.
 *
 * Its id goes back to the driver, which replaces a container made on a
 * network of that name that has since been removed and made again:
 * Docker would refuse to start it.
 *
 * Docker does not refuse a second network of the same name, so two
 * workloads waking together must not both create theirs: one look per
 * name is under way at a time, and those who ask meanwhile wait for its
 * answer.  Nothing is cached: the next start asks again.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "workload.h"
#include "docker.h"

/* one who waits for a network */
struct dk_netwait {
	TAILQ_ENTRY(dk_netwait)	 entry;
	struct dk_net		*net;
	dk_net_cb		 cb;
	void			*arg;
};
TAILQ_HEAD(dk_netwaits, dk_netwait);

enum dk_net_step {
	NET_LOOK = 0,		/* inspect */
	NET_CREATE,
	NET_LOOK_AGAIN		/* a create lost a race: inspect once more */
};

/* a network being looked for or made */
struct dk_net {
	TAILQ_ENTRY(dk_net)	 entry;
	char			 name[ORCHD_NAME_MAX];
	enum dk_net_step	 step;
	struct dk_req		*req;
	struct dk_netwaits	 waits;
	int			 finishing;	/* answering them */
};
TAILQ_HEAD(dk_nets, dk_net);

static struct dk_nets	 dk_nets = TAILQ_HEAD_INITIALIZER(dk_nets);

static void	net_done(const struct dk_resp *, void *);

/* the answer, to everyone waiting; the network is forgotten */
static void
net_finish(struct dk_net *net, const char *id, const char *err)
{
	struct dk_netwait	*w;

	/* callbacks may ask again (a new look) or cancel another wait */
	TAILQ_REMOVE(&dk_nets, net, entry);
	net->finishing = 1;
	if (err != NULL)
		log_warnx("network %s: %s", net->name, err);
	while ((w = TAILQ_FIRST(&net->waits)) != NULL) {
		TAILQ_REMOVE(&net->waits, w, entry);
		w->cb(id, err, w->arg);
		free(w);
	}
	free(net);
}

static int
net_call(struct dk_net *net, enum dk_net_step step)
{
	json_t	*body = NULL;

	net->step = step;
	if (step == NET_CREATE) {
		/*
		 * CheckDuplicate: Docker refuses a second one of that name
		 * (before API 1.44 it is off unless asked for).
		 */
		body = json_pack("{s:s, s:s, s:b, s:{s:s, s:s}}", "Name",
		    net->name, "Driver", "bridge", "CheckDuplicate", 1,
		    "Labels", DK_LABEL_NETWORK, "1", DK_LABEL_INSTANCE,
		    dk_instance());
		if (body == NULL)
			return (-1);
		net->req = dk_call(DK_NET_CREATE, NULL, NULL, body, net_done,
		    NULL, net);
		json_decref(body);
	} else
		net->req = dk_call(DK_NET_INSPECT, net->name, NULL, NULL,
		    net_done, NULL, net);
	return (net->req != NULL ? 0 : -1);
}

/* made by orchd for another instance: its name, else NULL */
static const char *
net_foreign(json_t *o)
{
	json_t		*labels;
	const char	*inst;

	labels = json_object_get(o, "Labels");
	inst = json_string_value(json_object_get(labels, DK_LABEL_INSTANCE));
	if (json_object_get(labels, DK_LABEL_NETWORK) == NULL ||
	    inst == NULL || strcmp(inst, dk_instance()) == 0)
		return (NULL);
	return (inst);
}

/*
 * The network's id from an inspect, or NULL.  Docker finds a network by
 * id, then by name, then by a prefix of an id: an answer for another
 * name is no network of ours.
 */
static const char *
net_inspected(const struct dk_net *net, json_t *o)
{
	const char	*name, *id;

	name = json_string_value(json_object_get(o, "Name"));
	id = json_string_value(json_object_get(o, "Id"));
	if (name == NULL || strcmp(name, net->name) != 0 || id == NULL ||
	    *id == '\0' || strlen(id) >= DK_ID_MAX)
		return (NULL);
	return (id);
}

static void
net_done(const struct dk_resp *r, void *arg)
{
	struct dk_net	*net = arg;
	json_error_t	 jerr;
	json_t		*o = NULL;
	const char	*id = NULL, *inst;
	char		 err[RT_MSG_MAX];

	net->req = NULL;
	if (r->status == -1) {
		net_finish(net, NULL, r->err != NULL ? r->err :
		    "no answer from the Docker daemon");
		return;
	}
	if ((r->status == 200 || r->status == 201) &&
	    (o = json_loadb(r->body, r->len, 0, &jerr)) != NULL) {
		if (net->step == NET_CREATE) {
			id = json_string_value(json_object_get(o, "Id"));
			if (id != NULL && (*id == '\0' ||
			    strlen(id) >= DK_ID_MAX))
				id = NULL;
		} else if ((id = net_inspected(net, o)) != NULL &&
		    (inst = net_foreign(o)) != NULL) {
			snprintf(err, sizeof(err), "made by orchd instance "
			    "%.64s for its workloads: not joined (name another "
			    "network, or make one by hand to share it)", inst);
			json_decref(o);
			net_finish(net, NULL, err);
			return;
		}
	}
	if (id != NULL) {
		if (net->step == NET_CREATE)
			log_info("network %s: created %.12s", net->name, id);
		else
			log_debug("network %s: is %.12s", net->name, id);
		net_finish(net, id, NULL);
		json_decref(o);
		return;
	}
	json_decref(o);
	switch (net->step) {
	case NET_LOOK:
		/* none of that name (or another's answer): make it */
		if (r->status == 404 || r->status == 200) {
			if (net_call(net, NET_CREATE) == -1)
				net_finish(net, NULL, "cannot call Docker");
			return;
		}
		break;
	case NET_CREATE:
		/* made by someone else meanwhile */
		if (r->status == 409) {
			if (net_call(net, NET_LOOK_AGAIN) == -1)
				net_finish(net, NULL, "cannot call Docker");
			return;
		}
		break;
	default:
		break;
	}
	if (r->status / 100 == 2)
		snprintf(err, sizeof(err), "%s: unexpected answer from the "
		    "Docker daemon", net->step == NET_CREATE ? "create" :
		    "inspect");
	else
		snprintf(err, sizeof(err), "%s: %s", net->step == NET_CREATE ?
		    "create" : "inspect", r->err != NULL ? r->err :
		    "refused");
	net_finish(net, NULL, err);
}

/*
 * Make sure the network name exists; cb is called later, from the event
 * loop, with its id or why not.  The handle cancels it; NULL if the look
 * could not even begin.
 */
struct dk_netwait *
dk_network_ensure(const char *name, dk_net_cb cb, void *arg)
{
	struct dk_net		*net;
	struct dk_netwait	*w;

	if (strlen(name) >= sizeof(net->name))
		return (NULL);
	TAILQ_FOREACH(net, &dk_nets, entry)
		if (strcmp(net->name, name) == 0)
			break;
	if (net == NULL) {
		if ((net = calloc(1, sizeof(*net))) == NULL)
			return (NULL);
		strlcpy(net->name, name, sizeof(net->name));
		TAILQ_INIT(&net->waits);
		if (net_call(net, NET_LOOK) == -1) {
			free(net);
			return (NULL);
		}
		TAILQ_INSERT_TAIL(&dk_nets, net, entry);
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		if (TAILQ_EMPTY(&net->waits)) {
			TAILQ_REMOVE(&dk_nets, net, entry);
			dk_cancel(net->req);
			free(net);
		}
		return (NULL);
	}
	w->net = net;
	w->cb = cb;
	w->arg = arg;
	TAILQ_INSERT_TAIL(&net->waits, w, entry);
	return (w);
}

/* no answer for w; the look goes on while others wait for it */
void
dk_network_cancel(struct dk_netwait *w)
{
	struct dk_net	*net;

	if (w == NULL)
		return;
	net = w->net;
	TAILQ_REMOVE(&net->waits, w, entry);
	free(w);
	if (!net->finishing && TAILQ_EMPTY(&net->waits)) {
		TAILQ_REMOVE(&dk_nets, net, entry);
		dk_cancel(net->req);
		free(net);
	}
}
