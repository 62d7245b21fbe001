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
 * Of the windows (kind SCHED_WINDOW) or wakes in list, those that end
 * after now: the one that begins first, with its text and its "for"
 * (0 none): 0, or -1 if it has none (or no rule for its zone).
 */
static int
list_next(const struct workload_conf *wl, const struct strlist *list,
    enum sched_kind kind, time_t now, time_t *start, time_t *end,
    const char **text, int64_t *hold, int found)
{
	const struct strentry	*e;
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	time_t			 s, t;
	char			 err[8];

	TAILQ_FOREACH(e, list, entry) {
		if (sched_parse(kind, e->str, &sp, err, sizeof(err)) == -1 ||
		    sched_zone_find(wl, sp.zone, &tz) == -1 ||
		    sched_next(&sp, &tz, now, &s, &t) == -1)
			continue;
		if (!found || s < *start) {
			*start = s;
			*end = t;
			if (text != NULL)
				*text = e->str;
			if (hold != NULL)
				*hold = sp.hold;
			found = 1;
		}
	}
	return (found);
}

/* the next of wl's own and its group's (list_next) */
int
sched_wl_next(const struct workload_conf *wl, enum sched_kind kind,
    time_t now, time_t *start, time_t *end, const char **text,
    int64_t *hold)
{
	int	 found;

	found = list_next(wl, kind == SCHED_WINDOW ? &wl->warm_windows :
	    &wl->wake_at, kind, now, start, end, text, hold, 0);
	found = list_next(wl, kind == SCHED_WINDOW ? &wl->group_windows :
	    &wl->group_wakes, kind, now, start, end, text, hold, found);
	return (found ? 0 : -1);
}

/* the next of its group's alone, as the parent gave them to member wl */
int
sched_group_next(const struct workload_conf *wl, enum sched_kind kind,
    time_t now, time_t *start, time_t *end)
{
	return (list_next(wl, kind == SCHED_WINDOW ? &wl->group_windows :
	    &wl->group_wakes, kind, now, start, end, NULL, NULL, 0) ? 0 : -1);
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
