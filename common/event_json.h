/*
 * The events (common/event.c): made from the messages that make them,
 * written as text and as JSON, the data of GET /v1/events and the lines
 * of orchctl monitor.  The payload, struct ctl_event, is in msg.h.  Not
 * event.h: that is libevent's.
 */

#ifndef ORCHD_EVENT_JSON_H
#define ORCHD_EVENT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "msg.h"

int		 event_from_state(struct ctl_event *, const struct rt_state *);
void		 event_reload(struct ctl_event *, int, int64_t);
void		 event_sanitize(struct ctl_event *);
const char	*event_type_name(int);
char		*event_text(const struct ctl_event *, char *, size_t);
char		*event_time(int64_t, char *, size_t);
/* event_json.c: apart, so that the parent links no JSON encoder */
json_t		*event_json(const struct ctl_event *);

#endif /* ORCHD_EVENT_JSON_H */
