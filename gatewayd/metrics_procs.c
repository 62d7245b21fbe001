/*
 * The CPU time and resident memory of orchd's own processes in GET
 * /metrics, as the parent read them from /proc when this gateway asked
 * (IMSG_GW_PROCSTAT, common/procstat.c): process_cpu_seconds_total and
 * process_resident_memory_bytes, labelled with the process as orchd's
 * logs name it ("parent", "spawner", "gateway", "gateway 1" with
 * several, "runtime", "reaper", "store", "acme").  Nothing is counted
 * here between scrapes.
 */

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "util.h"
#include "gateway.h"
#include "api.h"
#include "metrics.h"

/* the parent's records, len bytes of whole ones (the table's check) */
void
metrics_procs_add(struct metrics_sum *sum, const void *data, size_t len)
{
	const uint8_t		*p = data;
	struct gw_procstat	 one;
	size_t			 off;

	for (off = 0; off + sizeof(one) <= len; off += sizeof(one)) {
		memcpy(&one, p + off, sizeof(one));
		if (one.id < 0 || one.id > GW_PROC_SPAWNER ||
		    one.instance < 0 || one.instance >= ORCHD_PREFORK_MAX ||
		    sum->nprocs >= nitems(sum->procs))
			continue;
		sum->procs[sum->nprocs++] = one;
	}
}

static void
proc_label(const struct gw_procstat *p, char *buf, size_t len)
{
	if (p->id == GW_PROC_SPAWNER)
		snprintf(buf, len, "process=\"spawner\"");
	else if (p->id == PROC_GATEWAY && gw->conf.prefork > 1)
		snprintf(buf, len, "process=\"gateway %d\"", p->instance);
	else
		snprintf(buf, len, "process=\"%s\"", proc_name(p->id));
}

void
metrics_procs_write(struct evbuffer *b, const struct metrics_sum *sum)
{
	char	 lab[64];
	size_t	 i;

	if (sum == NULL || sum->nprocs == 0)
		return;
	prom_family(b, "process_cpu_seconds_total", "counter",
	    "CPU time, user and system, of each of orchd's processes.");
	for (i = 0; i < sum->nprocs; i++) {
		proc_label(&sum->procs[i], lab, sizeof(lab));
		prom_sample(b, "process_cpu_seconds_total", lab,
		    (double)sum->procs[i].cpu_us / 1e6);
	}
	prom_family(b, "process_resident_memory_bytes", "gauge",
	    "Resident memory of each of orchd's processes.");
	for (i = 0; i < sum->nprocs; i++) {
		proc_label(&sum->procs[i], lab, sizeof(lab));
		prom_sample_u64(b, "process_resident_memory_bytes", lab,
		    sum->procs[i].rss);
	}
}
