/*
 * The API's JSON, with jansson.  A workload is its summary (name state
 * driver hosts keep_warm keep_warm_until idle_timeout last_seen
 * started_at wakes wakes_today backoff_until next_window next_wake),
 * then every field of its definition as workload_to_json() writes it, the
 * same fields a create takes; durations are seconds, times RFC 3339 UTC
 * or null.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "cause.h"
#include "compat.h"
#include "maint.h"
#include "msg.h"
#include "schedule.h"
#include "util.h"
#include "workload.h"

/* "2024-05-01T12:00:00Z"; -1 for a time that is not one (0: never) */
int
apij_time(int64_t t, char *buf, size_t len)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return (-1);
	return (0);
}

static json_t *
time_or_null(int64_t t)
{
	char	 buf[64];

	if (apij_time(t, buf, sizeof(buf)) == -1)
		return (json_null());
	return (json_string(buf));
}

/*
 * The next window or wake of a workload, its own or its group's, or with
 * group its group's alone, from its plan (its schedules parsed once when
 * the configuration was applied, route_apply.c; common/sched_wl.c):
 * {"start": TIME, "end": TIME}, null for none.
 */
json_t *
apij_next(const struct sched_plan *plan, int kind, int group)
{
	json_t	*o;
	time_t	 s, e;

	if (sched_plan_next(plan, kind, group, sched_now(), &s, &e, NULL,
	    NULL) == -1)
		return (json_null());
	if ((o = json_object()) == NULL)
		return (NULL);
	if (json_object_set_new(o, "start", time_or_null(s)) == -1 ||
	    json_object_set_new(o, "end", time_or_null(e)) == -1) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/* the definition as workload_to_json() writes it, as an object */
static json_t *
definition(const struct workload_conf *wc)
{
	json_t	*def;
	char	*text;

	if ((text = workload_to_json(wc)) == NULL)
		return (NULL);
	def = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	free(text);
	return (def);
}

/* "command, port" as ["command", "port"]: what changed since it started */
static json_t *
drift_json(const char *fields, size_t len)
{
	json_t		*a;
	const char	*p = fields, *end = fields + strnlen(fields, len), *c;

	if ((a = json_array()) == NULL)
		return (NULL);
	while (p < end) {
		if ((c = memchr(p, ',', end - p)) == NULL)
			c = end;
		while (p < c && *p == ' ')
			p++;
		if (c > p && json_array_append_new(a, json_stringn(p,
		    c - p)) == -1) {
			json_decref(a);
			return (NULL);
		}
		p = c + 1;
	}
	return (a);
}

/* null, or {"until": TIME or null, "message": TEXT} */
static json_t *
maint_json(const struct wl_maint *m)
{
	json_t	*s;

	if (!m->on)
		return (json_null());
	/* checked as UTF-8 by runtimed; should it not be, said without */
	if ((s = json_stringn(m->msg, strnlen(m->msg, sizeof(m->msg)))) ==
	    NULL)
		s = json_string("");
	return (json_pack("{s:o, s:o}", "until", time_or_null(m->until),
	    "message", s));
}

/*
 * wc as the gateway runs it, cw as the store remembers it, with the
 * gateway's fresher state and last request already merged in by the
 * caller.  Durations left to the global setting are given as it says.
 */
json_t *
apij_workload(const struct workload_conf *wc, const struct sched_plan *plan,
    const struct ctl_workload *cw, int64_t idle_timeout, int64_t wake_timeout)
{
	json_t	*o, *def;
	int	 r = 0, running;

	if ((def = definition(wc)) == NULL)
		return (NULL);
	if ((o = json_object()) == NULL) {
		json_decref(def);
		return (NULL);
	}
	running = cw->state == WL_RUNNING || cw->state == WL_SUSPENDING ||
	    cw->state == WL_FROZEN;
	r |= json_object_set_new(o, "name", json_string(wc->name));
	r |= json_object_set_new(o, "state",
	    json_string(workload_state_name(cw->state)));
	r |= json_object_set(o, "driver", json_object_get(def, "driver"));
	r |= json_object_set(o, "hosts", json_object_get(def, "hosts"));
	r |= json_object_set_new(o, "keep_warm",
	    json_boolean(cw->keep_warm));
	r |= json_object_set_new(o, "keep_warm_until",
	    time_or_null(cw->keep_warm ? cw->keep_warm_until : 0));
	r |= json_object_set_new(o, "idle_timeout", json_integer(
	    wc->idle_timeout >= 0 ? wc->idle_timeout : idle_timeout));
	r |= json_object_set_new(o, "last_seen", time_or_null(cw->last_seen));
	r |= json_object_set_new(o, "started_at",
	    time_or_null(running ? cw->started_at : 0));
	r |= json_object_set_new(o, "wakes", json_integer(cw->wakes));
	r |= json_object_set_new(o, "wakes_today",
	    json_integer((json_int_t)MINIMUM(cw->wakes_today, INT64_MAX)));
	r |= json_object_set_new(o, "backoff_until",
	    time_or_null(cw->backoff_until));
	r |= json_object_set_new(o, "maintenance", maint_json(&cw->maint));
	r |= json_object_set_new(o, "wake_timeout", json_integer(
	    wc->wake_timeout >= 0 ? wc->wake_timeout : wake_timeout));
	if (cw->msg[0] != '\0')
		r |= json_object_set_new(o, "message",
		    json_stringn(cw->msg, strnlen(cw->msg, sizeof(cw->msg))));
	r |= json_object_set_new(o, "drift", drift_json(cw->drift,
	    sizeof(cw->drift)));
	r |= json_object_set_new(o, "next_window", apij_next(plan,
	    SCHED_WINDOW, 0));
	r |= json_object_set_new(o, "next_wake", apij_next(plan, SCHED_WAKE,
	    0));
	/* the rest of the definition: the driver's fields */
	r |= json_object_update_missing(o, def);
	json_decref(def);
	if (r != 0) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

json_t *
apij_transition(const struct ctl_transition *ct)
{
	json_t	*o;

	o = json_pack("{s:o, s:s, s:s, s:s}",
	    "time", time_or_null(ct->time),
	    "from", workload_state_name(ct->from),
	    "to", workload_state_name(ct->to),
	    "reason", workload_reason_name(ct->reason, 1));
	/* a wake: what caused it */
	if (o != NULL && ct->cause.kind != WAKE_NONE &&
	    json_object_set_new(o, "cause", cause_json(&ct->cause)) == -1) {
		json_decref(o);
		return (NULL);
	}
	if (o != NULL && ct->msg[0] != '\0' &&
	    json_object_set_new(o, "message", json_stringn(ct->msg,
	    strnlen(ct->msg, sizeof(ct->msg)))) == -1) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/* the answer to wake, suspend and keepwarm; keep_warm -1 leaves it out */
json_t *
apij_action(const char *name, int state, int keep_warm)
{
	json_t	*o;

	if ((o = json_pack("{s:s, s:s}", "name", name, "state",
	    workload_state_name(state))) == NULL)
		return (NULL);
	if (keep_warm != -1 && json_object_set_new(o, "keep_warm",
	    json_boolean(keep_warm)) == -1) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/* {"error": msg}, as text to free; NULL only when out of memory */
char *
apij_error(const char *msg)
{
	json_t	*o;
	char	*s;

	if ((o = json_pack("{s:s}", "error", msg)) == NULL) {
		/* msg was not UTF-8: it came from us, so say less */
		if ((o = json_pack("{s:s}", "error", "error")) == NULL)
			return (NULL);
	}
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return (s);
}

/* n digits of s, a number from 0 to max, into *v */
static int
time_digits(const char *s, int n, int max, int *v)
{
	int	 i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		*v = *v * 10 + (s[i] - '0');
	}
	return (*v <= max ? 0 : -1);
}

/*
 * An RFC 3339 time, "YYYY-MM-DDTHH:MM:SS", a fraction of a second
 * (ignored), then "Z" or "+HH:MM" / "-HH:MM": 0 with *t in seconds
 * since the epoch, or -1.  A day the month has not is refused.
 */
int
apij_parse_time(const char *s, int64_t *t)
{
	struct tm	 tm, back;
	time_t		 tt;
	int		 y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	size_t		 len = strlen(s), i = 19;

	if (len < 20 || time_digits(s, 4, 9999, &y) == -1 || s[4] != '-' ||
	    time_digits(s + 5, 2, 12, &mo) == -1 || s[7] != '-' ||
	    time_digits(s + 8, 2, 31, &d) == -1 ||
	    (s[10] != 'T' && s[10] != 't') ||
	    time_digits(s + 11, 2, 23, &h) == -1 || s[13] != ':' ||
	    time_digits(s + 14, 2, 59, &mi) == -1 || s[16] != ':' ||
	    time_digits(s + 17, 2, 59, &sec) == -1 || y < 1970 || mo < 1 ||
	    d < 1)
		return (-1);
	if (s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == 20 || i > 29)
			return (-1);
	}
	if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == len)
		sign = 0;
	else if ((s[i] == '+' || s[i] == '-') && i + 6 == len &&
	    time_digits(s + i + 1, 2, 23, &oh) == 0 && s[i + 3] == ':' &&
	    time_digits(s + i + 4, 2, 59, &om) == 0)
		sign = s[i] == '+' ? 1 : -1;
	else
		return (-1);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	if ((tt = timegm(&tm)) == (time_t)-1 || gmtime_r(&tt, &back) == NULL ||
	    back.tm_mday != d || back.tm_mon != mo - 1)
		return (-1);
	*t = (int64_t)tt - sign * (oh * 3600 + om * 60);
	return (0);
}

/*
 * A request's body: a JSON object, no key twice, each key among keys
 * (NULL-terminated); NULL and why in err otherwise.
 */
static json_t *
apij_body(const char *body, size_t len, const char *const *keys, char *err,
    size_t errlen)
{
	json_error_t	 jerr;
	json_t		*o, *v;
	const char	*key;
	size_t		 i;

	if ((o = json_loadb(body, len, JSON_REJECT_DUPLICATES,
	    &jerr)) == NULL) {
		snprintf(err, errlen, "invalid JSON: %s", jerr.text);
		return (NULL);
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "expected a JSON object");
		json_decref(o);
		return (NULL);
	}
	json_object_foreach(o, key, v) {
		for (i = 0; keys[i] != NULL && strcmp(key, keys[i]) != 0; i++)
			;
		if (keys[i] == NULL) {
			snprintf(err, errlen, "unknown field \"%.64s\"", key);
			json_decref(o);
			return (NULL);
		}
	}
	return (o);
}

/*
 * The body of keepwarm: {"enabled": true} or false, and with true an
 * optional "until": an RFC 3339 time after now and at most
 * KEEPWARM_UNTIL_MAX seconds ahead (*until, else 0).
 */
int
apij_keepwarm_until(const char *body, size_t len, int64_t now, int *on,
    int64_t *until, char *err, size_t errlen)
{
	static const char *const keys[] = { "enabled", "until", NULL };
	json_t		*o, *v;
	int		 rv = -1;

	*until = 0;
	if ((o = apij_body(body, len, keys, err, errlen)) == NULL)
		return (-1);
	if (!json_is_boolean(v = json_object_get(o, "enabled"))) {
		snprintf(err, errlen, "field \"enabled\": must be true or "
		    "false");
		goto done;
	}
	*on = json_is_true(v);
	if ((v = json_object_get(o, "until")) != NULL && !json_is_null(v)) {
		if (!*on) {
			snprintf(err, errlen, "field \"until\": only with "
			    "\"enabled\": true");
			goto done;
		}
		if (!json_is_string(v) ||
		    apij_parse_time(json_string_value(v), until) == -1) {
			snprintf(err, errlen, "field \"until\": must be a "
			    "time as RFC 3339 has it, "
			    "\"2026-01-31T18:00:00Z\"");
			goto done;
		}
		if (*until <= now) {
			snprintf(err, errlen, "field \"until\": that time "
			    "has passed");
			goto done;
		}
		if (*until - now > KEEPWARM_UNTIL_MAX) {
			snprintf(err, errlen, "field \"until\": at most %d "
			    "days ahead", KEEPWARM_UNTIL_MAX / 86400);
			goto done;
		}
	}
	rv = 0;
 done:
	if (rv == -1)
		*until = 0;
	json_decref(o);
	return (rv);
}

/*
 * The body of maintenance: {"enabled": true, "until": TIME, "message":
 * TEXT} (until and message optional) or {"enabled": false}, into m,
 * checked at now (wall clock, s) as runtimed will check it again.
 */
int
apij_maint(const char *body, size_t len, int64_t now, struct wl_maint *m,
    char *err, size_t errlen)
{
	static const char *const keys[] = { "enabled", "until", "message",
	    NULL };
	json_t		*o, *v;
	const char	*key;
	int		 rv = -1;

	memset(m, 0, sizeof(*m));
	if ((o = apij_body(body, len, keys, err, errlen)) == NULL)
		return (-1);
	json_object_foreach(o, key, v) {
		if (strcmp(key, "enabled") != 0 && !json_is_null(v) &&
		    !json_is_true(json_object_get(o, "enabled"))) {
			snprintf(err, errlen, "field \"%s\": only with "
			    "\"enabled\": true", key);
			goto done;
		}
	}
	if (!json_is_boolean(v = json_object_get(o, "enabled"))) {
		snprintf(err, errlen, "field \"enabled\": must be true or "
		    "false");
		goto done;
	}
	m->on = json_is_true(v);
	if ((v = json_object_get(o, "until")) != NULL && !json_is_null(v) &&
	    (!json_is_string(v) ||
	    apij_parse_time(json_string_value(v), &m->until) == -1)) {
		snprintf(err, errlen, "field \"until\": must be a time as "
		    "RFC 3339 has it, \"2026-01-31T18:00:00Z\"");
		goto done;
	}
	if ((v = json_object_get(o, "message")) != NULL && !json_is_null(v)) {
		if (!json_is_string(v)) {
			snprintf(err, errlen, "field \"message\": must be a "
			    "string");
			goto done;
		}
		/* a NUL among its bytes is a control character too */
		if (maint_msg_ok(json_string_value(v), json_string_length(v),
		    err, errlen) == -1)
			goto done;
		memcpy(m->msg, json_string_value(v), json_string_length(v));
	}
	rv = maint_check(m, now, err, errlen);
 done:
	if (rv == -1)
		memset(m, 0, sizeof(*m));
	json_decref(o);
	return (rv);
}

