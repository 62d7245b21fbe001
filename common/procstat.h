/*
 * The CPU time and resident memory of one of orchd's processes, from
 * /proc/PID/stat (common/procstat.c), for GET /metrics; the payload,
 * struct gw_procstat, is in msg.h.
 */

#ifndef ORCHD_PROCSTAT_H
#define ORCHD_PROCSTAT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

int	 procstat_parse(const char *, size_t, uint64_t *, uint64_t *);
int	 procstat_read(pid_t, int, int, struct gw_procstat *);

#endif /* ORCHD_PROCSTAT_H */
