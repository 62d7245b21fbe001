/*
 * What the docker driver makes of the Docker daemon's events
 * (docker_events.c follows the stream): a container of ours that
 * started, died or was destroyed by someone else, checked against what
 * its workload's state says.  Only a start changes anything without an
 * inspect; an oom, a kill and a destroy are remembered for the exit that
 * follows, or checked at once (a destroy of a running container).  It
 * calls down into the driver (driver_docker.h), which never calls it
 * back.
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

/* the container an event is about, if it is the one we know of */
static struct rt_docker *
dk_event_ours(struct rt_workload *wl, const struct dk_event *e)
{
	struct rt_docker	*dk = wl->docker;

	if (dk == NULL)
		return (NULL);
	if (dk->id[0] != '\0')
		return (strcmp(e->id, dk->id) == 0 ? dk : NULL);
	return (e->cname != NULL && strcmp(e->cname, dk->cname) == 0 ?
	    dk : NULL);
}

static void
dk_event_start(struct rt_workload *wl, const struct dk_event *e)
{
	struct rt_docker	*dk;

	if (wl->conf == NULL || wl->conf->driver != DRIVER_DOCKER)
		return;
	dk = dk_get(wl);
	/* by its name: another container with our label is not ours */
	if (e->cname == NULL || strcmp(e->cname, dk->cname) != 0)
		return;
	if (dk->op == OP_CHECK || dk->op == OP_STOP)
		dk->start_seen = 1;
	else
		dk_look(dk);
}

static void
dk_event_destroy(struct rt_docker *dk)
{
	struct rt_workload	*wl = dk->wl;

	switch (dk->op) {
	case OP_CHECK:
		dk->removed = 1;
		return;
	case OP_NONE:
		break;
	default:
		/* a call of ours under way sees for itself */
		return;
	}
	if (dk->running) {
		dk->removed = 1;
		dk_check_begin(dk);
		return;
	}
	log_info("workload %s: container %.12s was removed outside orchd",
	    wl->name, dk->id);
	dk->id[0] = '\0';
	lifecycle->gone(wl, "its container was removed outside orchd");
}

void
docker_event(const struct dk_event *e)
{
	struct rt_workload	*wl;
	struct rt_docker	*dk;

	if ((wl = lifecycle->find(e->workload)) == NULL)
		return;
	if (e->ev == DK_EV_START) {
		dk_event_start(wl, e);
		return;
	}
	if (e->ev == DK_EV_DIE) {
		docker_died(wl->name, e->id);
		return;
	}
	if ((dk = dk_event_ours(wl, e)) == NULL)
		return;
	switch (e->ev) {
	case DK_EV_OOM:
		log_warnx("workload %s: container %.12s ran out of memory",
		    wl->name, dk->id);
		dk->oom = 1;
		break;
	case DK_EV_KILL:
		/* our stop sends its own: only another's is news */
		if (dk->op == OP_STOP || wl->stopping || !dk->running)
			break;
		log_info("workload %s: container %.12s was sent signal %d "
		    "outside orchd", wl->name, dk->id, e->signal);
		dk->killsig = e->signal;
		break;
	case DK_EV_DESTROY:
		dk_event_destroy(dk);
		break;
	default:
		break;
	}
}
