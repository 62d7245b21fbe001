/*
 * "error page STATUS FILE" (common/errpage.c): which answers of orchd's
 * own may have a page, and the form "STATUS PATH" a page's entry has in
 * a list, global (struct orchd_conf) or a workload's (error_pages).
 */

#ifndef ORCHD_ERRPAGE_H
#define ORCHD_ERRPAGE_H

#include <stddef.h>

#include "workload.h"

struct wl_field;

int	errpage_status_ok(int);
int	errpage_entry_split(const char *, int *, const char **);
int	errpage_entry_check(const char *, char *, size_t);
/* conf_wire.c's row and workload_fields.c's */
int	cf_error_page(const void *, size_t, char *, size_t);
int	check_error_pages(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);

#endif /* ORCHD_ERRPAGE_H */
