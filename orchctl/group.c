/*
 * Groups: the workloads whose definitions share a "group" (a Compose
 * project that orchctl import made, or "group NAME" in orchd.conf),
 * handled as one by orchctl alone, through the requests it makes of any
 * workload:
 *
 *	show groups			one line a group, its members' states
 *	group NAME wake | suspend	each member, in dependency order
 *	group NAME keep			never expire (API workloads)
 *	group NAME keepwarm on | off
 *	group NAME delete		(orchctl delete --project NAME)
 *	delete --project NAME --volumes	their API volumes too
 *
 * Waking stays dependency-driven: waking a member wakes what it depends
 * on, as a request to it would.
 */

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "compat.h"
#include "msg.h"
#include "schedule.h"
#include "units.h"
#include "util.h"
#include "workload.h"
#include "orchctl.h"
#include "ctlcall.h"

static void
list_item(struct imsg *imsg, void *arg)
{
	struct ctl_workload	 cw;

	if (imsg_get_data(imsg, &cw, sizeof(cw)) == -1)
		errx(1, "bad reply from orchd");
	cw.name[sizeof(cw.name) - 1] = '\0';
	json_array_append_new(arg, json_pack("{s:s, s:s}", "name", cw.name,
	    "state", workload_state_name(cw.state)));
}

static void
def_item(struct imsg *imsg, void *arg)
{
	json_object_set_new(arg, "def", ctl_def_json(imsg, 1));
}

json_t *
group_workloads(const char *sock)
{
	struct ctl_name	 cn;
	json_t		*all, *w;
	size_t		 i;
	char		 e[256];

	if ((all = json_array()) == NULL)
		errx(1, "out of memory");
	memset(&cn, 0, sizeof(cn));
	if (ctl_call(sock, IMSG_CTL_SHOW_WORKLOADS, &cn, sizeof(cn),
	    IMSG_CTL_WORKLOAD, list_item, all, e, sizeof(e)) == -1)
		errx(1, "%s", e);
	json_array_foreach(all, i, w) {
		memset(&cn, 0, sizeof(cn));
		strlcpy(cn.name, json_string_value(json_object_get(w, "name")),
		    sizeof(cn.name));
		/* a workload gone since: no definition, no group */
		(void)ctl_call(sock, IMSG_CTL_SHOW_DEFINITION, &cn,
		    sizeof(cn), IMSG_CTL_DEFINITION, def_item, w, e,
		    sizeof(e));
	}
	return (all);
}

static const char *
wl_group(json_t *w)
{
	return (json_string_value(json_object_get(json_object_get(w, "def"),
	    "group")));
}

/* does a member that is not yet in out depend on name? */
static int
depended_on(json_t *m, json_t *out, const char *name)
{
	json_t		*w, *d, *o;
	size_t		 i, k, j;
	int		 taken;

	json_array_foreach(m, i, w) {
		taken = 0;
		json_array_foreach(out, j, o)
			if (o == w)
				taken = 1;
		if (taken)
			continue;
		json_array_foreach(json_object_get(json_object_get(w, "def"),
		    "depends_on"), k, d)
			if (strcmp(json_string_value(d), name) == 0)
				return (1);
	}
	return (0);
}

/* the members of group, dependents first (the order to delete in) */
json_t *
group_members(json_t *all, const char *group)
{
	json_t		*m, *out, *w;
	size_t		 i, n, pass;
	const char	*g;

	m = json_array();
	out = json_array();
	json_array_foreach(all, i, w)
		if ((g = wl_group(w)) != NULL && strcmp(g, group) == 0)
			json_array_append(m, w);
	n = json_array_size(m);
	for (pass = 0; pass <= n && json_array_size(out) < n; pass++)
		json_array_foreach(m, i, w) {
			size_t	 j;
			json_t	*o;
			int	 taken = 0;

			json_array_foreach(out, j, o)
				if (o == w)
					taken = 1;
			if (!taken && !depended_on(m, out,
			    json_string_value(json_object_get(w, "name"))))
				json_array_append(out, w);
		}
	/* a cycle cannot be, orchd refuses them: the rest as they come */
	json_array_foreach(m, i, w)
		if (json_array_size(out) < n) {
			size_t	 j;
			json_t	*o;
			int	 taken = 0;

			json_array_foreach(out, j, o)
				if (o == w)
					taken = 1;
			if (!taken)
				json_array_append(out, w);
		}
	json_decref(m);
	return (out);
}

/*
 * A group's next window or wake (orchd.conf's group block), from the
 * schedules the parent gave its member x: a line under the group's, and
 * {"start", "end"} or null in o.
 */
static void
group_next(json_t *x, json_t *o, int json, int kind, const char *member,
    const char *label)
{
	char	 line[80], t[32];
	time_t	 s, e;

	if (def_next(json_object_get(x, "def"), member, kind, line,
	    sizeof(line), &s, &e) == -1 || s == 0) {
		json_object_set_new(o, label, json_null());
		return;
	}
	if (!json)
		printf("  next %s: %s\n", kind == SCHED_WINDOW ? "window" :
		    "wake", line);
	json_object_set_new(o, label, json_object());
	(void)strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", gmtime(&s));
	json_object_set_new(json_object_get(o, label), "start",
	    json_string(t));
	(void)strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", gmtime(&e));
	json_object_set_new(json_object_get(o, label), "end", json_string(t));
}

/*
 * show groups: GROUP, its count, each member's state, what others
 * depend on first, then its next window and wake if its group block
 * gives any; with -j an array of {"group", "members": [{"name",
 * "state"}], "next_window", "next_wake"}
 */
static void
group_show(const char *sock, int json)
{
	json_t		*all, *seen, *w, *m, *x, *arr, *mem, *o;
	const char	*g;
	char		*s;
	size_t		 i, k;

	all = group_workloads(sock);
	seen = json_object();
	arr = json_array();
	if (!json)
		printf("%-24s %-7s %s\n", "GROUP", "MEMBERS", "STATES");
	json_array_foreach(all, i, w) {
		if ((g = wl_group(w)) == NULL ||
		    json_object_get(seen, g) != NULL)
			continue;
		json_object_set_new(seen, g, json_true());
		m = group_members(all, g);
		mem = json_array();
		if (!json)
			printf("%-24s %-7zu", g, json_array_size(m));
		for (k = json_array_size(m); k > 0; k--) {
			x = json_array_get(m, k - 1);
			json_array_append_new(mem, json_pack("{s:O, s:O}",
			    "name", json_object_get(x, "name"), "state",
			    json_object_get(x, "state")));
			if (!json)
				printf(" %s:%s", json_string_value(
				    json_object_get(x, "name")),
				    json_string_value(json_object_get(x,
				    "state")));
		}
		if (!json)
			printf("\n");
		o = json_pack("{s:s, s:o}", "group", g, "members", mem);
		x = json_array_get(m, 0);
		group_next(x, o, json, SCHED_WINDOW, "group_keep_warm_during",
		    "next_window");
		group_next(x, o, json, SCHED_WAKE, "group_wake_at",
		    "next_wake");
		json_array_append_new(arr, o);
		json_decref(m);
	}
	if (json) {
		if ((s = json_dumps(arr, JSON_COMPACT)) == NULL)
			errx(1, "out of memory");
		printf("%s\n", s);
		free(s);
	}
	json_decref(arr);
	json_decref(seen);
	json_decref(all);
}

/* each member, dependents first or last; 1 if any failed */
static int
group_each(const char *sock, const char *group, const char *what)
{
	struct ctl_keepwarm	 kw;
	json_t			*all, *m, *w;
	const char		*name;
	size_t			 i, n;
	int			 fails = 0, r;
	char			 e[256];

	all = group_workloads(sock);
	m = group_members(all, group);
	if ((n = json_array_size(m)) == 0)
		errx(1, "no group %s", group);
	for (i = 0; i < n; i++) {
		/* delete and suspend: dependents first; wake: last */
		w = json_array_get(m, strcmp(what, "wake") == 0 ? n - 1 - i :
		    i);
		name = json_string_value(json_object_get(w, "name"));
		if (strcmp(what, "keepwarm on") == 0 ||
		    strcmp(what, "keepwarm off") == 0) {
			memset(&kw, 0, sizeof(kw));
			strlcpy(kw.name, name, sizeof(kw.name));
			kw.on = strcmp(what, "keepwarm on") == 0;
			r = ctl_call(sock, IMSG_CTL_KEEPWARM, &kw, sizeof(kw),
			    IMSG_NONE, NULL, NULL, e, sizeof(e));
		} else
			r = ctl_call_name(sock, strcmp(what, "wake") == 0 ?
			    IMSG_CTL_WAKE : strcmp(what, "suspend") == 0 ?
			    IMSG_CTL_SUSPEND : strcmp(what, "keep") == 0 ?
			    IMSG_CTL_KEEP : strcmp(what, "delete volumes") ==
			    0 ? IMSG_CTL_DELETE_VOLUMES : IMSG_CTL_DELETE, name,
			    e, sizeof(e));
		if (r == -1) {
			warnx("%s: %s", name, e);
			fails = 1;
		} else
			printf("%s: %s\n", name, strncmp(what, "delete", 6) ==
			    0 ? "deleted" : "done");
	}
	json_decref(m);
	json_decref(all);
	return (fails);
}

/*
 * argv: "show groups", "group NAME VERB [on|off]" or "delete --project
 * NAME [--volumes]"
 */
__dead void
group_main(const char *sock, int json, int argc, char *argv[])
{
	const char	*verb;
	char		 what[32];

	if (argc == 2 && strcmp(argv[0], "show") == 0) {
		group_show(sock, json);
		exit(0);
	}
	if (strcmp(argv[0], "delete") == 0) {
		if ((argc != 3 && (argc != 4 ||
		    strcmp(argv[3], "--volumes") != 0)) ||
		    !valid_workload_name(argv[2]))
			errx(1, "usage: delete --project name [--volumes]");
		exit(group_each(sock, argv[2], argc == 4 ? "delete volumes" :
		    "delete"));
	}
	if (argc < 3 || !valid_workload_name(argv[1]))
		errx(1, "usage: group name wake | suspend | keep | delete | "
		    "keepwarm on | off | maintenance on | off");
	verb = argv[2];
	if (strcmp(verb, "maintenance") == 0)
		maint_group(sock, argc, argv);
	if (argc == 3 && (strcmp(verb, "wake") == 0 ||
	    strcmp(verb, "suspend") == 0 || strcmp(verb, "delete") == 0 ||
	    strcmp(verb, "keep") == 0))
		exit(group_each(sock, argv[1], verb));
	if (argc == 4 && strcmp(verb, "keepwarm") == 0 &&
	    (strcmp(argv[3], "on") == 0 || strcmp(argv[3], "off") == 0)) {
		snprintf(what, sizeof(what), "keepwarm %s", argv[3]);
		exit(group_each(sock, argv[1], what));
	}
	errx(1, "usage: group name wake | suspend | keep | delete | "
	    "keepwarm on | off | maintenance on | off");
}
