/*
 * Maintenance: the checks of what turns it on (common/maint.c), made
 * by runtimed, which decides, and early by the API and orchctl for a
 * clear error.
 */

#ifndef ORCHD_MAINT_H
#define ORCHD_MAINT_H

#include <stddef.h>
#include <stdint.h>

struct wl_maint;

#define MAINT_RETRY_AFTER_MAX	86400	/* a Retry-After, at most */

int	maint_msg_ok(const char *, size_t, char *, size_t);
int	maint_check(struct wl_maint *, int64_t, char *, size_t);
int	maint_retry_after(const struct wl_maint *, int64_t);

#endif /* ORCHD_MAINT_H */
