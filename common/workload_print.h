/*
 * A workload's fields in orchd.conf syntax, one printer for orchd -nv
 * (confd/printconf.c) and orchctl import compose --dry-run
 * (orchctl/import.c): each field by its row in common/workload_fields.c.
 */

#ifndef ORCHD_WORKLOAD_PRINT_H
#define ORCHD_WORKLOAD_PRINT_H

#include <stdio.h>

#include "workload.h"
#include "workload_fields.h"

int	 wl_print_string(FILE *, const char *);
int	 wl_print_keystr(FILE *, const char *, const char *);
int	 wl_print_volume(FILE *, const struct wl_field *,
	    const struct volume *);
int	 wl_print_listens(FILE *, const struct workload_conf *);
int	 wl_print_ignores(FILE *, const char *, const struct ignorelist *);
int	 wl_print_field(FILE *, const struct workload_conf *,
	    const struct wl_field *);

#endif /* ORCHD_WORKLOAD_PRINT_H */
