/*
 * The API's group operations: POST /v1/groups/{g}/wake, suspend or
 * keepwarm, DELETE /v1/groups/{g}[?volumes=true], and GET
 * /v1/groups/{g}, its members and its group block's next window and wake.  A group is the workloads whose
 * definitions say "group" g (orchctl import compose's projects); each
 * member is asked in turn, as its own request would ask, to runtimed
 * (wake, suspend, keepwarm) or to the parent (delete, under the same
 * policy), one at a time: wake takes what others depend on first,
 * suspend and delete the dependents first.  The answer lists each
 * member's result: 200 when all went well, else 502.  Only the API's key
 * may do this, never a status page session (ui_sess.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "schedule.h"
#include "workload.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"

static struct gw_workload *
grp_member(const char *name)
{
	struct gw_workload	*wl;

	if ((wl = api_workload(name)) == NULL)
		return (NULL);
	return (wl);
}

/* does one of m not yet in out depend on name? */
static int
group_depended(json_t *m, json_t *out, const char *name)
{
	const struct strentry	*e;
	struct gw_workload	*wl;
	struct workload_conf	*wc;
	json_t			*v, *o;
	size_t			 i, k;
	int			 taken, found = 0;

	json_array_foreach(m, i, v) {
		taken = 0;
		json_array_foreach(out, k, o)
			if (strcmp(json_string_value(o),
			    json_string_value(v)) == 0)
				taken = 1;
		if (taken || (wl = grp_member(json_string_value(v))) ==
		    NULL || (wc = wldef_get(wl)) == NULL)
			continue;
		TAILQ_FOREACH(e, &wc->depends, entry)
			if (strcmp(e->str, name) == 0)
				found = 1;
		wldef_put(wl, wc);
		if (found)
			return (1);
	}
	return (0);
}

/* the group's members, dependents first; NULL when out of memory */
static json_t *
group_order(const char *group)
{
	struct gw_workload	*wl;
	struct workload_conf	*wc;
	json_t			*m, *out, *v, *o;
	size_t			 i, k, n, pass;
	int			 taken;

	if ((m = json_array()) == NULL || (out = json_array()) == NULL) {
		json_decref(m);
		return (NULL);
	}
	/* only those in a group are read back (wldef.c) */
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured || !wl->grouped ||
		    (wc = wldef_get(wl)) == NULL)
			continue;
		if (wc->group != NULL && strcmp(wc->group, group) == 0)
			json_array_append_new(m, json_string(wl->name));
		wldef_put(wl, wc);
	}
	n = json_array_size(m);
	/* a cycle cannot be (orchd refuses them): n passes at most */
	for (pass = 0; pass <= n && json_array_size(out) < n; pass++)
		json_array_foreach(m, i, v) {
			taken = 0;
			json_array_foreach(out, k, o)
				if (o == v)
					taken = 1;
			if (!taken && !group_depended(m, out,
			    json_string_value(v)))
				json_array_append(out, v);
		}
	json_decref(m);
	return (out);
}

/* the next member's request, or the answer once all were asked */
static void
group_next(struct api_req *r)
{
	struct gw_workload	*wl;
	struct ctl_name		 cn;
	struct ctl_keepwarm	 kw;
	struct ctl_maint	 cm;
	json_t			*v;
	size_t			 n = json_array_size(r->group), i;
	int			 failed = 0;

	if (r->gnext >= n) {
		json_array_foreach(r->items, i, v)
			if (json_object_get(v, "error") != NULL)
				failed = 1;
		api_json(r, failed ? 502 : 200, json_pack("{s:s, s:O}",
		    "group", r->t.name, "workloads", r->items), NULL);
		return;
	}
	/* wake: from the end, what others depend on first */
	i = r->t.gop == API_WAKE ? n - 1 - r->gnext : r->gnext;
	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, json_string_value(json_array_get(r->group, i)),
	    sizeof(cn.name));
	switch (r->t.gop) {
	case API_WAKE:
		wl = api_workload(cn.name);
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_WAKE, &cn, sizeof(cn),
		    wl != NULL ? wl->wake_timeout + wl->pull_timeout +
		    GW_WAKE_SLACK : API_RUNTIME_WAIT);
		break;
	case API_SUSPEND:
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_SUSPEND, &cn,
		    sizeof(cn), API_SUSPEND_WAIT);
		break;
	case API_KEEPWARM:
		memset(&kw, 0, sizeof(kw));
		strlcpy(kw.name, cn.name, sizeof(kw.name));
		kw.on = r->keep_on;
		kw.until = r->keep_until;
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_KEEPWARM, &kw,
		    sizeof(kw), API_RUNTIME_WAIT);
		break;
	case API_MAINT:
		memset(&cm, 0, sizeof(cm));
		strlcpy(cm.name, cn.name, sizeof(cm.name));
		cm.m = r->maint;
		(void)api_ask(r, PROC_RUNTIME, IMSG_CTL_MAINT, &cm,
		    sizeof(cm), API_RUNTIME_WAIT);
		break;
	default:
		(void)api_ask(r, PROC_PARENT, r->t.volumes ?
		    IMSG_API_DELETE_VOLUMES : IMSG_API_DELETE, &cn,
		    sizeof(cn), API_PARENT_WAIT);
		break;
	}
}

/*
 * GET /v1/groups/{g}: {"group", "members": [names], "next_window",
 * "next_wake"}, the next of its group block's schedules, which the
 * parent gives each member alike: the first member's say.
 */
static void
group_show(struct api_req *r)
{
	struct gw_workload	*wl;
	json_t			*o;

	if ((wl = grp_member(json_string_value(json_array_get(r->group,
	    0)))) == NULL) {
		api_error(r, 404, "no such group", NULL);
		return;
	}
	o = json_pack("{s:s, s:O, s:o, s:o}", "group", r->t.name, "members",
	    r->group, "next_window", apij_next(wl->sched, SCHED_WINDOW, 1),
	    "next_wake", apij_next(wl->sched, SCHED_WAKE, 1));
	if (o == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	api_json(r, 200, o, NULL);
}

void
api_group(struct api_req *r)
{
	char	 err[256];

	if (r->t.gop == API_KEEPWARM) {
		if (api_keepwarm_body(r) == -1)
			return;
	}
	if (r->t.gop == API_MAINT) {
		if (api_maint_body(r) == -1)
			return;
	}
	if ((r->group = group_order(r->t.name)) == NULL ||
	    (r->items = json_array()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	if (json_array_size(r->group) == 0) {
		/* the name is a workload name's characters (api_route.c) */
		(void)snprintf(err, sizeof(err), "no such group: %s",
		    r->t.name);
		api_error(r, 404, err, NULL);
		return;
	}
	if (r->t.gop == API_GET) {
		group_show(r);
		return;
	}
	r->gnext = 0;
	group_next(r);
}

/* a member's answer: msg NULL for done, else why not; then the next */
void
api_group_answer(struct api_req *r, const char *msg)
{
	size_t		 n = json_array_size(r->group), i;
	const char	*name;

	i = r->t.gop == API_WAKE ? n - 1 - r->gnext : r->gnext;
	name = json_string_value(json_array_get(r->group, i));
	if (msg == NULL)
		json_array_append_new(r->items, json_pack("{s:s, s:s}",
		    "name", name, "result", "ok"));
	else
		json_array_append_new(r->items, json_pack("{s:s, s:s}",
		    "name", name, "error", msg));
	r->gnext++;
	group_next(r);
}
