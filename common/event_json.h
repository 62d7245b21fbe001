/*
 * An event as JSON (common/event.c): the data of GET /v1/events and
 * the lines of orchctl -j monitor.
 */

#ifndef ORCHD_EVENT_JSON_H
#define ORCHD_EVENT_JSON_H

#include <jansson.h>

#include "orchd.h"

json_t	*event_json(const struct ctl_event *);

#endif /* ORCHD_EVENT_JSON_H */
