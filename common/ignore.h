/*
 * "ignore" rules (common/ignore.c): their sh(1) patterns, their networks
 * and their checks, shared by the parser, the JSON form and the gateway,
 * whose compiled form for matching requests is gatewayd/filter.h.
 */

#ifndef ORCHD_IGNORE_H
#define ORCHD_IGNORE_H

#include <stddef.h>

#include "msg.h"
#include "workload.h"

int		 glob_valid(const char *);
int		 glob_match(const char *, const char *, size_t);
int		 netaddr_parse(const char *, struct netaddr *, const char **);
int		 netaddr_match(const struct netaddr *, const struct netaddr *);
int		 netaddr_client(const struct netaddr *, struct netaddr *);
const char	*ignore_kind_name(enum ignore_kind);
int		 ignore_check(enum ignore_kind, const char *, int, char *,
		    size_t);
int		 ignore_add(struct ignorelist *, enum ignore_kind,
		    const char *, int);
void		 ignore_free(struct ignorelist *);

#endif /* ORCHD_IGNORE_H */
