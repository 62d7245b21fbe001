/*
 * The JSON form of an event and of its cause: GET /v1/events, the API's
 * history and orchctl -j.  Apart from event.c and cause.c so that a
 * program that makes events but writes no JSON, the root parent, links
 * no JSON encoder (DESIGN.md, trust rule 10).
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cause.h"
#include "compat.h"
#include "event_json.h"
#include "msg.h"
#include "util.h"
#include "workload.h"

/* a string field, cleaned again: json_string() wants UTF-8 */
static json_t *
field_json(const char *s, size_t len)
{
	char	 buf[CAUSE_PATH_MAX];

	cause_copy(buf, sizeof(buf), s, len);
	return (json_string(buf));
}

/*
 * {"kind": "request", "method": ..., "host": ..., "path": ...,
 * "client": ..., "agent": ...}, the request's fields for a request
 * only; null for none.  NULL when out of memory.
 */
json_t *
cause_json(const struct wake_cause *c)
{
	json_t	*o;
	int	 r = 0;

	if (c->kind == WAKE_NONE || cause_kind_name(c->kind, 1)[0] == '\0')
		return (json_null());
	if ((o = json_object()) == NULL)
		return (NULL);
	r |= json_object_set_new(o, "kind",
	    json_string(cause_kind_name(c->kind, 1)));
	if (c->kind == WAKE_REQUEST) {
		r |= json_object_set_new(o, "method",
		    field_json(c->method, sizeof(c->method)));
		r |= json_object_set_new(o, "host",
		    field_json(c->host, sizeof(c->host)));
		r |= json_object_set_new(o, "path",
		    field_json(c->path, sizeof(c->path)));
		r |= json_object_set_new(o, "client",
		    field_json(c->client, sizeof(c->client)));
		r |= json_object_set_new(o, "agent",
		    field_json(c->agent, sizeof(c->agent)));
	}
	if (r != 0) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/*
 * {"type": "state", "time": ..., "workload": ..., "from": ..., "to": ...,
 * "reason": ..., "message": ... or null, "cause": {...} or null};
 * {"type": "reload", "time": ..., "ok": true};
 * {"type": "maintenance", "time": ..., "workload": ..., "on": true,
 * "message": ... or null}.  NULL when out of memory.
 */
json_t *
event_json(const struct ctl_event *ev)
{
	char	 t[40];

	(void)event_time(ev->time_ms, t, sizeof(t));
	switch (ev->type) {
	case EVENT_STATE:
		return (json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}",
		    "type", event_type_name(ev->type),
		    "time", t,
		    "workload", ev->name,
		    "from", workload_state_name(ev->from),
		    "to", workload_state_name(ev->to),
		    "reason", workload_reason_name(ev->reason, 1),
		    "message", ev->msg[0] != '\0' ? json_string(ev->msg) :
		    json_null(),
		    "cause", cause_json(&ev->cause)));
	case EVENT_MAINT:
		return (json_pack("{s:s, s:s, s:s, s:b, s:o}",
		    "type", event_type_name(ev->type),
		    "time", t,
		    "workload", ev->name,
		    "on", ev->ok != 0,
		    "message", ev->msg[0] != '\0' ? json_string(ev->msg) :
		    json_null()));
	case EVENT_RELOAD:
		return (json_pack("{s:s, s:s, s:b}",
		    "type", event_type_name(ev->type),
		    "time", t,
		    "ok", ev->ok != 0));
	default:
		return (json_pack("{s:s, s:s, s:s, s:o}",
		    "type", event_type_name(ev->type),
		    "time", t,
		    "workload", ev->name,
		    "message", ev->msg[0] != '\0' ? json_string(ev->msg) :
		    json_null()));
	}
}
