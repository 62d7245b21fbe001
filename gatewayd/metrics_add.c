/*
 * The pure arithmetic of the gateway's metrics: the request duration
 * histogram's buckets and one observation in it, and the sums of the
 * counts that several gateways ("prefork") each keep.  Nothing here
 * knows of connections or processes, so that every counter summed can
 * be checked alone (regress/unit/test_api.c): a counter added to struct
 * gw_metrics_wl or gw_metrics_total is added here too.
 */

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "metrics.h"
#include "api.h"

/* request durations: from a millisecond to a minute (a wake included) */
const double metrics_dur_bounds[METRICS_DUR_BOUNDS] = {
	0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
	60
};

/* one request of secs seconds: a bucket search over fixed bounds */
void
metrics_dur_observe(uint64_t *hist, double *sum, double secs)
{
	if (secs < 0)
		secs = 0;
	hist[prom_bucket(metrics_dur_bounds, METRICS_DUR_BOUNDS, secs)]++;
	*sum += secs;
}

void
metrics_wl_add(struct gw_metrics_wl *e, const struct gw_metrics_wl *add)
{
	int	 i;

	for (i = 0; i < 5; i++)
		e->requests[i] += add->requests[i];
	e->upstream_errors += add->upstream_errors;
	e->inflight += add->inflight;
	e->parked += add->parked;
	e->upgraded += add->upgraded;
	e->rx_bytes += add->rx_bytes;
	e->tx_bytes += add->tx_bytes;
	for (i = 0; i <= METRICS_DUR_BOUNDS; i++)
		e->dur_hist[i] += add->dur_hist[i];
	e->dur_sum += add->dur_sum;
	e->tcp_open += add->tcp_open;
	e->tcp_accepted += add->tcp_accepted;
	e->tcp_rx_bytes += add->tcp_rx_bytes;
	e->tcp_tx_bytes += add->tcp_tx_bytes;
}

void
metrics_total_add(struct gw_metrics_total *t, const struct gw_metrics_total *add)
{
	int	 i;

	t->conns += add->conns;
	for (i = 0; i < 5; i++)
		t->api[i] += add->api[i];
	t->auth_failures += add->auth_failures;
	t->unknown_hosts += add->unknown_hosts;
	t->idle_closed += add->idle_closed;
	t->addr_refused += add->addr_refused;
	t->protocol[0] += add->protocol[0];
	t->protocol[1] += add->protocol[1];
	t->access_log_drops += add->access_log_drops;
	for (i = 0; i < 4; i++)
		t->tls_hellos[i] += add->tls_hellos[i];
}
