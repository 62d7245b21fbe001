/*
 * common/workload_zip.c: a workload's definition in a few bytes, for a
 * process that holds one per workload and reads it seldom (gatewayd, for
 * its API).  Private to the process that made it; never sent.
 */

#ifndef ORCHD_WORKLOAD_ZIP_H
#define ORCHD_WORKLOAD_ZIP_H

#include <stddef.h>

struct workload_conf;
struct wl_zip;

/* wc in its small form, one allocation (free()); NULL: out of memory */
struct wl_zip		*workload_zip(const struct workload_conf *);
/* the definition again, packed (workload_free()); NULL: out of memory */
struct workload_conf	*workload_unzip(const struct wl_zip *);
size_t			 workload_zip_size(const struct wl_zip *);

#endif
