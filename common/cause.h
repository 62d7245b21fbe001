/*
 * What woke a workload, as JSON (common/cause.c); the rest of its
 * functions are in orchd.h, which does not include jansson; the payload,
 * struct wake_cause, is in msg.h.
 */

#ifndef ORCHD_CAUSE_H
#define ORCHD_CAUSE_H

#include <jansson.h>

#include "orchd.h"

json_t	*cause_json(const struct wake_cause *);

#endif /* ORCHD_CAUSE_H */
