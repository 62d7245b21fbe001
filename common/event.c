/*
 * The events of orchctl monitor and GET /v1/events (struct ctl_event):
 * made from runtimed's changes of state and the parent's loads of
 * orchd.conf, and written as one line of text or one JSON object, the
 * same for both, so that a monitor and an event stream never disagree.
 * A state told again (runtimed repeats what a gateway may have missed)
 * is no event.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cause.h"
#include "compat.h"
#include "event_json.h"
#include "msg.h"
#include "util.h"
#include "workload.h"

static const char *const event_types[] = {
	[EVENT_STATE] = "state",
	[EVENT_RELOAD] = "reload",
	[EVENT_EVICT] = "evict",
	[EVENT_RESTART] = "restart",
	[EVENT_CERT] = "certificate",
	[EVENT_MAINT] = "maintenance"
};

/* the SSE event name, and the JSON's "type" */
const char *
event_type_name(int type)
{
	if (type < 0 || (size_t)type >= nitems(event_types))
		return ("unknown");
	return (event_types[type]);
}

/*
 * 0 with ev filled for a change of state, or a replacement that left the
 * state as it was; -1 for a state told again
 */
int
event_from_state(struct ctl_event *ev, const struct rt_state *st)
{
	/* maintenance turned on or off: told with the state it leaves */
	if (st->from == st->state && st->reason == RT_REASON_MAINTENANCE) {
		memset(ev, 0, sizeof(*ev));
		ev->type = EVENT_MAINT;
		ev->ok = st->maint.on != 0;
		ev->time_ms = st->maint.changed_ms;
		cause_copy(ev->name, sizeof(ev->name), st->name,
		    sizeof(st->name));
		if (ev->ok)
			cause_copy(ev->msg, sizeof(ev->msg), st->maint.msg,
			    sizeof(st->maint.msg));
		return (0);
	}
	if ((st->from == st->state && st->reason != RT_REASON_REPLACED) ||
	    st->state < WL_ASLEEP || st->state > WL_STATE_LAST)
		return (-1);
	memset(ev, 0, sizeof(*ev));
	ev->type = EVENT_STATE;
	ev->from = st->from;
	ev->to = st->state;
	ev->reason = st->reason;
	ev->time_ms = st->since_ms > 0 ? st->since_ms : st->since * 1000;
	cause_copy(ev->name, sizeof(ev->name), st->name, sizeof(st->name));
	cause_copy(ev->msg, sizeof(ev->msg), st->msg, sizeof(st->msg));
	if (st->state == WL_WAKING) {
		ev->cause = st->cause;
		cause_sanitize(&ev->cause);
	}
	return (0);
}

/* a load of orchd.conf at time_ms, or its refusal */
void
event_reload(struct ctl_event *ev, int ok, int64_t time_ms)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EVENT_RELOAD;
	ev->ok = ok != 0;
	ev->time_ms = time_ms;
}

/* an event from another process: terminated, printable, in range */
void
event_sanitize(struct ctl_event *ev)
{
	cause_copy(ev->name, sizeof(ev->name), ev->name, sizeof(ev->name));
	cause_copy(ev->msg, sizeof(ev->msg), ev->msg, sizeof(ev->msg));
	cause_sanitize(&ev->cause);
	if (ev->from < WL_ASLEEP || ev->from > WL_STATE_LAST)
		ev->from = WL_ASLEEP;
	if (ev->to < WL_ASLEEP || ev->to > WL_STATE_LAST)
		ev->to = WL_ASLEEP;
}

/* "2026-11-29T10:02:03.042Z" */
char *
event_time(int64_t ms, char *buf, size_t len)
{
	struct tm	 tm;
	time_t		 t = (time_t)(ms / 1000);
	char		 sec[32];

	if (ms < 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		(void)snprintf(buf, len, "-");
	else
		(void)snprintf(buf, len, "%s.%03dZ", sec, (int)(ms % 1000));
	return (buf);
}

/*
 * One line, for orchctl monitor:
 *	2026-11-29T10:02:03.042Z blog: asleep -> waking (request) by GET ...
 *	2026-11-29T10:05:00.000Z reload: loaded
 */
char *
event_text(const struct ctl_event *ev, char *buf, size_t len)
{
	char	 t[40], cause[512];

	(void)event_time(ev->time_ms, t, sizeof(t));
	switch (ev->type) {
	case EVENT_STATE:
		(void)snprintf(buf, len, "%s %s: %s -> %s (%s)%s%s%s%s", t,
		    ev->name, workload_state_name(ev->from),
		    workload_state_name(ev->to),
		    workload_reason_name(ev->reason, 0),
		    ev->msg[0] != '\0' ? ": " : "", ev->msg,
		    ev->cause.kind != WAKE_NONE ? " by " : "",
		    ev->cause.kind != WAKE_NONE ? cause_text(&ev->cause,
		    cause, sizeof(cause)) : "");
		break;
	case EVENT_RELOAD:
		(void)snprintf(buf, len, "%s reload: %s", t, ev->ok ?
		    "loaded" : "refused");
		break;
	case EVENT_MAINT:
		(void)snprintf(buf, len, "%s %s: maintenance %s%s%s", t,
		    ev->name, ev->ok ? "on" : "off", ev->msg[0] != '\0' ?
		    ": " : "", ev->msg);
		break;
	default:
		(void)snprintf(buf, len, "%s %s: %s%s%s", t, ev->name,
		    event_type_name(ev->type), ev->msg[0] != '\0' ? ": " : "",
		    ev->msg);
		break;
	}
	return (buf);
}
