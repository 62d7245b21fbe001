/*
 * /metrics for the webhooks notifyd sends ("notify"): its counters, as
 * the parent relays them (IMSG_NOTIFY_STATS), the same in every
 * gateway.  Nothing is written until notifyd has told any, so that an
 * orchd without "notify" has no such family.
 */

#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <string.h>

#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "api.h"
#include "metrics.h"

static struct notify_stats	 notify_stats;
static int			 notify_told;

void
metrics_recv_notify(struct imsgev *iev, struct imsg *imsg)
{
	(void)imsg_get_data(imsg, &notify_stats, sizeof(notify_stats));
	notify_told = 1;
}

void
metrics_notify_write(struct evbuffer *b)
{
	if (!notify_told)
		return;
	prom_family(b, "orchd_notify_sent_total", "counter",
	    "Webhook events a receiver accepted (2xx).");
	prom_sample_u64(b, "orchd_notify_sent_total", NULL,
	    notify_stats.sent);
	prom_family(b, "orchd_notify_failed_attempts_total", "counter",
	    "Webhook tries that failed, to be tried again or dropped.");
	prom_sample_u64(b, "orchd_notify_failed_attempts_total", NULL,
	    notify_stats.attempts_failed);
	prom_family(b, "orchd_notify_dropped_total", "counter",
	    "Webhook events given up: too many tries, too old, queue full, "
	    "or an address refused.");
	prom_sample_u64(b, "orchd_notify_dropped_total", NULL,
	    notify_stats.dropped);
	prom_family(b, "orchd_notify_refused_total", "counter",
	    "Webhook events refused for their address (notify allow).");
	prom_sample_u64(b, "orchd_notify_refused_total", NULL,
	    notify_stats.refused);
	prom_family(b, "orchd_notify_queued", "gauge",
	    "Webhook events waiting to be sent.");
	prom_sample_u64(b, "orchd_notify_queued", NULL, notify_stats.queued);
}
