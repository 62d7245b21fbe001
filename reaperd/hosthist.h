/*
 * The host's figures over the last day, a minute at a time: see
 * hosthist.c.
 */

#ifndef ORCHD_REAPER_HOSTHIST_H
#define ORCHD_REAPER_HOSTHIST_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

struct hosthist {
	struct host_sample	 slot[HOSTHIST_MINUTES];	/* by minute */
};

void	 hosthist_init(struct hosthist *);
int	 hosthist_add(struct hosthist *, const struct host_sample *, int64_t);
size_t	 hosthist_get(const struct hosthist *, int64_t, struct host_sample *,
	    size_t);

#endif /* ORCHD_REAPER_HOSTHIST_H */
