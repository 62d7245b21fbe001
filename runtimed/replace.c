/*
 * A running workload and its definition.
 *
 * Drift: runtimed keeps a copy of the definition each instance was
 * started with (run_conf), and whenever the definition or the instance
 * changes, tells the store what of it the instance lacks
 * (workload_diff(): "command, port"), for orchctl show workloads and
 * the API.  Only a running instance has a drift; a container adopted
 * from before orchd's start has none known.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runtime.h"

/* what the store shows: sent when it changes */
static void
drift_send(struct rt_workload *wl, const char *fields)
{
	struct rt_drift	 rd;

	if (strcmp(wl->drift, fields) == 0)
		return;
	strlcpy(wl->drift, fields, sizeof(wl->drift));
	memset(&rd, 0, sizeof(rd));
	strlcpy(rd.name, wl->name, sizeof(rd.name));
	strlcpy(rd.fields, fields, sizeof(rd.fields));
	if (fields[0] != '\0')
		log_info("workload %s: runs with an older definition: %s "
		    "changed since it started", wl->name, fields);
	if (proc_compose(rt->ps, PROC_STORE, IMSG_RT_DRIFT, 0, -1, &rd,
	    sizeof(rd)) == -1)
		log_warn("workload %s: drift to the store", wl->name);
}

/* its instance against its definition: the drift, "" if none */
const char *
drift_fields(const struct rt_workload *wl, char *buf, size_t len)
{
	buf[0] = '\0';
	if (wl->run_conf != NULL && wl->conf != NULL)
		(void)workload_diff(wl->run_conf, wl->conf, buf, len);
	return (buf);
}

void
drift_update(struct rt_workload *wl)
{
	char	 buf[RT_DRIFT_MAX];

	drift_send(wl, drift_fields(wl, buf, sizeof(buf)));
}

/* an instance starts as its definition says now */
void
drift_started(struct rt_workload *wl)
{
	workload_free(wl->run_conf);
	if ((wl->run_conf = workload_pack(wl->conf)) == NULL)
		log_warn("workload %s: its definition not kept", wl->name);
	drift_update(wl);
}

/* no instance runs */
void
drift_ended(struct rt_workload *wl)
{
	workload_free(wl->run_conf);
	wl->run_conf = NULL;
	drift_send(wl, "");
}
