/*
 * A workload's schedules and the rules of the zones they name.  Only
 * the parent and confd can read the tzdata: the parent checks that each
 * zone exists (sched_zones_check) and, in what it sends its children,
 * gives the rule of each (sched_zones_fill), which runtimed and the
 * gateways read back (sched_zone_find) to compute the next times.
 *
 * A group's schedules (orchd.conf's "group NAME { ... }") are lines
 * "GROUP window TEXT" and "GROUP wake TEXT" of the configuration
 * (sched_group_line).  The parent copies a group's into each member's
 * group_windows and group_wakes in what it sends its children
 * (sched_group_fill), whichever made the member, so that one added
 * later is covered and a member's own definition never changes.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#include "compat.h"
#include "schedule.h"
#include "workload.h"

#define HOST_ZONE	"-"	/* in zones: the host's own */

/* each zone a schedule of wl names, by its name ("": the host's) */
static int
zones_walk(const struct workload_conf *wl,
    int (*fn)(const char *, void *, char *, size_t), void *arg, char *err,
    size_t len)
{
	const struct strlist	*lists[] = { &wl->warm_windows,
				    &wl->group_windows, &wl->wake_at,
				    &wl->group_wakes };
	const struct strentry	*e;
	struct sched_spec	 sp;
	size_t			 i;

	for (i = 0; i < nitems(lists); i++)
		TAILQ_FOREACH(e, lists[i], entry) {
			if (sched_parse(i < 2 ? SCHED_WINDOW : SCHED_WAKE,
			    e->str, &sp, err, len) == -1 ||
			    fn(sp.zone, arg, err, len) == -1)
				return (-1);
		}
	return (0);
}

static int
zone_exists(const char *zone, void *arg, char *err, size_t len)
{
	char	 rule[SCHED_RULE_MAX];

	/* a host without /etc/localtime counts in UTC */
	if (zone[0] == '\0')
		return (0);
	return (sched_zone_rule(zone, rule, sizeof(rule), err, len));
}

/* every zone that wl's schedules name is one of the tzdata's */
int
sched_zones_check(const struct workload_conf *wl, char *err, size_t len)
{
	return (zones_walk(wl, zone_exists, NULL, err, len));
}

static int
zone_add(const char *zone, void *arg, char *err, size_t len)
{
	struct workload_conf	*wl = arg;
	struct sched_tz		 tz;
	char			 rule[SCHED_RULE_MAX], line[SCHED_ZONE_MAX +
				    SCHED_RULE_MAX + 2];

	if (sched_zone_find(wl, zone, &tz) == 0)
		return (0);
	if (sched_zone_rule(zone, rule, sizeof(rule), err, len) == -1) {
		if (zone[0] != '\0')
			return (-1);
		(void)strlcpy(rule, "UTC0", sizeof(rule));
	}
	(void)snprintf(line, sizeof(line), "%s %s", zone[0] != '\0' ? zone :
	    HOST_ZONE, rule);
	if (strlist_add(&wl->zones, line) == -1)
		return (wl_fail(err, len, "out of memory"));
	return (0);
}

/* wl->zones anew: "ZONE RULE" for each zone its schedules name */
int
sched_zones_fill(struct workload_conf *wl, char *err, size_t len)
{
	strlist_free(&wl->zones);
	return (zones_walk(wl, zone_add, wl, err, len));
}

/* the rule of zone ("": the host's) as the parent gave it; -1: none */
int
sched_zone_find(const struct workload_conf *wl, const char *zone,
    struct sched_tz *tz)
{
	const struct strentry	*e;
	const char		*name = zone[0] != '\0' ? zone : HOST_ZONE;
	size_t			 n = strlen(name);

	TAILQ_FOREACH(e, &wl->zones, entry)
		if (strncmp(e->str, name, n) == 0 && e->str[n] == ' ')
			return (sched_tz_parse(e->str + n + 1, tz));
	return (-1);
}

/*
 * A workload's schedules parsed once (a plan): runtimed each tick and the
 * gateways for each API answer compute from it, not from the text.  One
 * allocation of n items, n at most 4 * SCHED_MAX (its own and its
 * group's windows and wakes): sizeof(struct sched_plan) + n *
 * sizeof(struct sched_item) bytes (16 and 312 on amd64); none at all for
 * a workload without one.  A text that does not parse, or whose zone has
 * no rule, is left out, as it never has a next time.
 */
static size_t
plan_add(struct sched_plan *p, const struct workload_conf *wl,
    const struct strlist *list, enum sched_kind kind, int group)
{
	const struct strentry	*e;
	struct sched_item	*it;
	size_t			 n = 0;
	char			 err[8];

	TAILQ_FOREACH(e, list, entry) {
		if (p == NULL) {
			n++;
			continue;
		}
		if (p->n >= p->max)
			break;
		it = &p->item[p->n];
		if (sched_parse(kind, e->str, &it->sp, err, sizeof(err)) == -1 ||
		    sched_zone_find(wl, it->sp.zone, &it->tz) == -1)
			continue;
		it->group = group;
		(void)strlcpy(it->text, e->str, sizeof(it->text));
		p->n++;
	}
	return (n);
}

/*
 * Its own before its group's, as an earlier start wins and at the same
 * start its own: with p NULL, how many there are; else p filled.
 */
static size_t
plan_walk(struct sched_plan *p, const struct workload_conf *wl)
{
	return (plan_add(p, wl, &wl->warm_windows, SCHED_WINDOW, 0) +
	    plan_add(p, wl, &wl->group_windows, SCHED_WINDOW, 1) +
	    plan_add(p, wl, &wl->wake_at, SCHED_WAKE, 0) +
	    plan_add(p, wl, &wl->group_wakes, SCHED_WAKE, 1));
}

/* wl's plan in *plan, NULL if it has no schedule; -1: out of memory */
int
sched_plan_build(const struct workload_conf *wl, struct sched_plan **plan)
{
	struct sched_plan	*p;
	size_t			 n;

	*plan = NULL;
	if ((n = plan_walk(NULL, wl)) == 0)
		return (0);
	if (n > SCHED_PLAN_MAX)
		n = SCHED_PLAN_MAX;
	if ((p = calloc(1, sizeof(*p) + n * sizeof(p->item[0]))) == NULL)
		return (-1);
	p->max = n;
	(void)plan_walk(p, wl);
	*plan = p;
	return (0);
}

void
sched_plan_free(struct sched_plan *plan)
{
	free(plan);
}

/*
 * Of plan's windows (kind SCHED_WINDOW) or wakes, its group's alone if
 * group, those that end after now: the one that begins first, with its
 * text and its "for" (0 none): 0, or -1 if it has none.
 */
int
sched_plan_next(const struct sched_plan *plan, enum sched_kind kind,
    int group, time_t now, time_t *start, time_t *end, const char **text,
    int64_t *hold)
{
	const struct sched_item	*it;
	time_t			 s, t;
	size_t			 i;
	int			 found = 0;

	for (i = 0; plan != NULL && i < plan->n; i++) {
		it = &plan->item[i];
		if (it->sp.kind != kind || (group && !it->group) ||
		    sched_next(&it->sp, &it->tz, now, &s, &t) == -1)
			continue;
		if (!found || s < *start) {
			*start = s;
			*end = t;
			if (text != NULL)
				*text = it->text;
			if (hold != NULL)
				*hold = it->sp.hold;
			found = 1;
		}
	}
	return (found ? 0 : -1);
}

/*
 * "GROUP window TEXT" or "GROUP wake TEXT": its group in group (of
 * size len), its kind and *text; -1 if it is not that.  The text's
 * own checks are sched_parse's.
 */
int
sched_group_line(const char *line, char *group, size_t len,
    enum sched_kind *kind, const char **text)
{
	const char	*sp;

	if ((sp = strchr(line, ' ')) == NULL || (size_t)(sp - line) >= len)
		return (-1);
	memcpy(group, line, sp - line);
	group[sp - line] = '\0';
	if (!valid_workload_name(group))
		return (-1);
	if (strncmp(sp, " window ", 8) == 0) {
		*kind = SCHED_WINDOW;
		*text = sp + 8;
	} else if (strncmp(sp, " wake ", 6) == 0) {
		*kind = SCHED_WAKE;
		*text = sp + 6;
	} else
		return (-1);
	return (0);
}

/*
 * wl's group_windows and group_wakes anew, from scheds, the lines of
 * the configuration's group blocks: its group's, at most SCHED_MAX of
 * each, none twice; a job (run once) has wakes only, never windows
 * (check_sched).  -1 when out of memory.
 */
int
sched_group_fill(struct workload_conf *wl, const struct strlist *scheds)
{
	const struct strentry	*e, *o;
	struct strlist		*list;
	enum sched_kind		 kind;
	const char		*text;
	char			 group[ORCHD_NAME_MAX];
	int			 n[2] = { 0, 0 }, dup;

	strlist_free(&wl->group_windows);
	strlist_free(&wl->group_wakes);
	if (wl->group == NULL)
		return (0);
	TAILQ_FOREACH(e, scheds, entry) {
		if (sched_group_line(e->str, group, sizeof(group), &kind,
		    &text) == -1 || strcmp(group, wl->group) != 0 ||
		    (kind == SCHED_WINDOW && wl->run_once != RUN_SERVICE) ||
		    n[kind] >= SCHED_MAX)
			continue;
		list = kind == SCHED_WINDOW ? &wl->group_windows :
		    &wl->group_wakes;
		dup = 0;
		TAILQ_FOREACH(o, list, entry)
			if (strcmp(o->str, text) == 0)
				dup = 1;
		if (dup)
			continue;
		if (strlist_add(list, text) == -1)
			return (-1);
		n[kind]++;
	}
	return (0);
}
