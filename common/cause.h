/*
 * What woke a workload (common/cause.c): its names, its text and its
 * JSON; the payload, struct wake_cause, is in msg.h.
 */

#ifndef ORCHD_CAUSE_H
#define ORCHD_CAUSE_H

#include <stddef.h>

#include <jansson.h>

#include "msg.h"

const char	*cause_kind_name(int, int);
int		 cause_kind_parse(const char *);
void		 cause_copy(char *, size_t, const char *, size_t);
void		 cause_sanitize(struct wake_cause *);
char		*cause_text(const struct wake_cause *, char *, size_t);
json_t		*cause_json(const struct wake_cause *);

#endif /* ORCHD_CAUSE_H */
