/*
 * The access log's lines held by the parent while its file refuses them
 * (a full disk, orchd/logfiles.c), as the parent last told every gateway
 * (IMSG_ALOG_QUEUE): for GET /metrics, and for orchctl show summary,
 * where the first gateway's answer carries them as the store's carries
 * its held writes.  The lines dropped are counted with their reason:
 * "buffer", a gateway's own buffer full (gatewayd/accesslog.c), summed
 * over the gateways by the caller; "held", no room left to hold them in
 * the parent, or no file to write them to.
 */

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "api.h"
#include "metrics.h"

static struct alog_queue_stats	 ma;

void
metrics_recv_alog(struct imsgev *iev, struct imsg *imsg)
{
	(void)imsg_get_data(imsg, &ma, sizeof(ma));
}

/* show summary: this gateway's row, and the first one's the held lines */
void
metrics_alog_summary(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_summary	 cs;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	proc_summary(iev->ps, &cs);
	(void)proc_reply(iev->ps, &a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	if (iev->ps->instance == 0)
		(void)proc_reply(iev->ps, &a, IMSG_CTL_ALOG_QUEUE, &ma,
		    sizeof(ma));
	(void)proc_reply_end(iev->ps, &a);
}

/* buffer: the lines the gateways' buffers dropped */
void
metrics_alog_write(struct evbuffer *b, uint64_t buffer)
{
	prom_family(b, "orchd_access_log_held_lines", "gauge",
	    "Lines of the access log its file refused, held to be written "
	    "again.");
	prom_sample_u64(b, "orchd_access_log_held_lines", NULL, ma.lines);
	prom_family(b, "orchd_access_log_held_bytes", "gauge",
	    "The size of the lines held.");
	prom_sample_u64(b, "orchd_access_log_held_bytes", NULL, ma.bytes);
	prom_family(b, "orchd_access_log_held_lines_total", "counter",
	    "Lines of the access log its file refused and that were held.");
	prom_sample_u64(b, "orchd_access_log_held_lines_total", NULL,
	    ma.total);
	prom_family(b, "orchd_access_log_write_retries_total", "counter",
	    "Attempts to write the held lines again.");
	prom_sample_u64(b, "orchd_access_log_write_retries_total", NULL,
	    ma.retries);
	prom_family(b, "orchd_access_log_dropped_total", "counter",
	    "Lines of the access log lost: a gateway's buffer was full "
	    "(buffer), or no more could be held while the file refused them "
	    "(held).");
	prom_sample_u64(b, "orchd_access_log_dropped_total",
	    "reason=\"buffer\"", buffer);
	prom_sample_u64(b, "orchd_access_log_dropped_total",
	    "reason=\"held\"", ma.drops);
}
