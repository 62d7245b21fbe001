/*
 * docker_reconcile(): after the events stream was down, and when it
 * first opens, every container of orchd's, as the daemon lists them,
 * against what runtimed believes.  One believed running that is not (or is gone) is checked
 * as after a die event; one running that is believed not is looked at
 * as after a start event.  A workload with a call under way is left to
 * it.  If the list cannot be had, those believed running are checked
 * one by one.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "workload.h"
#include "runtime.h"
#include "lifecycle_events.h"
#include "docker.h"
#include "driver_docker.h"

static struct dk_req	*reconcile_req;

static void
dk_check_all(void)
{
	struct rt_workload	*wl;

	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->docker != NULL && wl->docker->running &&
		    wl->docker->op == OP_NONE)
			dk_check_begin(wl->docker);
}

/* one container of the list: {"Names":["/orchd-x"],"State":...} */
static void
dk_listed(json_t *c)
{
	struct rt_workload	*wl;
	struct rt_docker	*dk;
	json_t			*names, *n;
	const char		*name, *state, *s;
	char			 err[RT_MSG_MAX];
	size_t			 i;

	name = json_string_value(json_object_get(json_object_get(c,
	    "Labels"), DK_LABEL_WORKLOAD));
	/* the list is filtered on our instance: checked all the same */
	if (name == NULL || dk_labels_ours(json_object_get(c, "Labels"),
	    name, err, sizeof(err)) == -1 ||
	    (wl = lifecycle->find(name)) == NULL ||
	    wl->conf == NULL || wl->conf->driver != DRIVER_DOCKER)
		return;
	dk = dk_get(wl);
	names = json_object_get(c, "Names");
	json_array_foreach(names, i, n) {
		if ((s = json_string_value(n)) != NULL && s[0] == '/' &&
		    strcmp(s + 1, dk->cname) == 0)
			break;
	}
	if (i == json_array_size(names))
		return;
	state = json_string_value(json_object_get(c, "State"));
	dk->listed = state != NULL && strcmp(state, "running") == 0 ? 2 : 1;
}

static void
dk_list_done(const struct dk_resp *r, void *arg)
{
	struct rt_workload	*wl;
	struct rt_docker	*dk;
	json_error_t		 jerr;
	json_t			*o = NULL, *c;
	size_t			 i;
	int			 n = 0;

	reconcile_req = NULL;
	if (r->status != 200 || (o = json_loadb(r->body, r->len, 0,
	    &jerr)) == NULL || !json_is_array(o)) {
		log_warnx("docker: cannot list orchd's containers: %s",
		    r->err != NULL ? r->err : o == NULL ? jerr.text :
		    "not a list");
		json_decref(o);
		dk_check_all();
		return;
	}
	RB_FOREACH(wl, rt_workloads, &rt->workloads)
		if (wl->docker != NULL)
			wl->docker->listed = 0;
	json_array_foreach(o, i, c)
		dk_listed(c);
	json_decref(o);
	RB_FOREACH(wl, rt_workloads, &rt->workloads) {
		if ((dk = wl->docker) == NULL || dk->op != OP_NONE)
			continue;
		if (dk->running && dk->listed != 2) {
			dk_check_begin(dk);
			n++;
		} else if (!dk->running && dk->listed == 2 &&
		    (wl->state == WL_ASLEEP || wl->state == WL_FAILED)) {
			dk_look(dk);
			n++;
		}
	}
	log_debug("docker: reconciled, %d container%s to look at", n,
	    n == 1 ? "" : "s");
}

void
docker_reconcile(void)
{
	if (reconcile_req != NULL)
		return;
	if ((reconcile_req = dk_call(DK_LIST, NULL, NULL, NULL, dk_list_done,
	    NULL, NULL)) == NULL)
		dk_check_all();
}

