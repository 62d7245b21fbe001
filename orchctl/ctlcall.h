/*
 * Control requests whose failure is returned (ctlcall.c), and the
 * commands built on them: import (import.c) and groups (group.c).
 */

#ifndef ORCHCTL_CTLCALL_H
#define ORCHCTL_CTLCALL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "imsg.h"

int	 ctl_call(const char *, uint32_t, const void *, size_t, uint32_t,
	    void (*)(struct imsg *, void *), void *, char *, size_t);
int	 ctl_call_name(const char *, uint32_t, const char *, char *, size_t);
json_t	*ctl_def_json(struct imsg *, int);

/* group.c: orchd's workloads, each {"name", "state", "def"} */
json_t	*group_workloads(const char *);
/* a group's members, dependents before what they depend on */
json_t	*group_members(json_t *, const char *);
/* output.c: the next of def's windows or wakes, "never", -1 if none */
int	 def_next(json_t *, const char *, int, char *, size_t, time_t *,
	    time_t *);
__dead void group_main(const char *, int, int, char *[]);

/* maint.c: maintenance, of a workload or a group */
__dead void maint_main(const char *, int, int, char *[]);
__dead void maint_group(const char *, int, char *[]);

/* import.c */
__dead void import_main(const char *, int, char *[]);

#endif /* ORCHCTL_CTLCALL_H */
