/*
 * A workload's schedules and the rules of the zones they name.  Only
 * the parent and confd can read the tzdata: the parent checks that each
 * zone exists (sched_zones_check) and, in what it sends its children,
 * gives the rule of each (sched_zones_fill), which runtimed and the
 * gateways read back (sched_zone_find) to compute the next times.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <string.h>

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
	const struct strlist	*lists[] = { &wl->warm_windows, &wl->wake_at };
	const struct strentry	*e;
	struct sched_spec	 sp;
	size_t			 i;

	for (i = 0; i < nitems(lists); i++)
		TAILQ_FOREACH(e, lists[i], entry) {
			if (sched_parse(i == 0 ? SCHED_WINDOW : SCHED_WAKE,
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
 * Of the windows (kind SCHED_WINDOW) or wakes of wl that end after now,
 * the one that begins first, with its text and its "for" (0 none): 0,
 * or -1 if it has none (or no rule for its zone).
 */
int
sched_wl_next(const struct workload_conf *wl, enum sched_kind kind,
    time_t now, time_t *start, time_t *end, const char **text,
    int64_t *hold)
{
	const struct strentry	*e;
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	time_t			 s, t;
	int			 found = 0;
	char			 err[8];

	TAILQ_FOREACH(e, kind == SCHED_WINDOW ? &wl->warm_windows :
	    &wl->wake_at, entry) {
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
	return (found ? 0 : -1);
}
