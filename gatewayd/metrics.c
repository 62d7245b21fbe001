/*
 * The gateway's metrics, counted where things happen and written out by
 * GET /metrics in the Prometheus text format (prom.c), names prefixed
 * orchd_.  Everything is as the gateway sees it, since it started: the
 * answers per workload by status class, their durations and the bytes
 * of their clients, what is in flight and parked, the wakes (their
 * duration from runtimed starting the workload to it being ready), the
 * state of each workload and the time it spent asleep, from the state
 * changes runtimed tells the gateway; requests for no known host.  The
 * parent tells its start and its last configuration load
 * (IMSG_CFG_STATUS), the store each workload's memory as last measured
 * (IMSG_ST_MEMORY, at its stops): nothing of theirs is asked for on a
 * request's way.  The store's held writes, as it last told them.  The
 * connections to workloads' own TCP listeners and their bytes, apart
 * from requests, for the workloads that have such listeners.
 */

#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "util.h"
#include "version.h"
#include "workload.h"
#include "gateway.h"
#include "api.h"
#include "metrics.h"

static const double metrics_bounds[METRICS_WAKE_BOUNDS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
};

static uint64_t		 metrics_api_status[5];
static uint64_t		 metrics_auth_failures;
static uint64_t		 metrics_unknown_hosts;
static uint64_t		 metrics_hellos[GW_HELLO_N];
static uint64_t		 metrics_protocol[2];	/* HTTP/1.x, h2 */
static struct st_queue_stats	 metrics_store;
static uint64_t		 metrics_idle_closes;
static uint64_t		 metrics_addr_refusals;
static const struct gw_wcounts	 metrics_zero;
static struct cfg_status	 metrics_cfg;	/* the parent's */
static int			 metrics_cfg_known;

/* a workload the gateway did not know: asleep from now */
void
metrics_workload_init(struct gw_workload *wl)
{
	memset(&wl->metrics, 0, sizeof(wl->metrics));
	wl->metrics.since_ms = monotime_ms();
}

void
metrics_workload_free(struct gw_workload *wl)
{
	free(wl->metrics.counts);
	wl->metrics.counts = NULL;
}

/* wl's counters, to count: made at the first count */
static struct gw_wcounts *
counts(struct gw_workload *wl)
{
	if (wl->metrics.counts == NULL && (wl->metrics.counts = calloc(1,
	    sizeof(*wl->metrics.counts))) == NULL)
		fatal("%s", __func__);
	return (wl->metrics.counts);
}

/* wl's counters, to read: zeros while nothing was counted */
static const struct gw_wcounts *
counts_read(const struct gw_workload *wl)
{
	return (wl->metrics.counts != NULL ? wl->metrics.counts :
	    &metrics_zero);
}

/* every workload's requests and wakes counted here, for hostsample.c */
void
metrics_totals(uint64_t *requests, uint64_t *wakes)
{
	struct gw_workload	*wl;
	const struct gw_wcounts	*c;
	int			 i;

	*requests = *wakes = 0;
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		c = counts_read(wl);
		for (i = 0; i < 5; i++)
			*requests += c->requests[i];
		*wakes += c->wakes;
	}
}

/*
 * Before wl->state becomes state, at since_ms (runtimed's clock, wall
 * time in milliseconds; 0 when the gateway changes it itself).  A wake's
 * duration is runtimed's, from its start to ready, so that every gateway
 * process counts the same one.
 */
void
metrics_state(struct gw_workload *wl, enum workload_state state,
    enum rt_reason reason, int64_t since_ms)
{
	struct gw_wmetrics	*m = &wl->metrics;
	int64_t			 now;
	double			 secs;

	if (wl->state == state)
		return;
	now = monotime_ms();
	if (wl->state == WL_ASLEEP)
		m->asleep_ms += now - m->since_ms;
	m->since_ms = now;
	if (state == WL_WAKING) {
		m->fail_counted = 0;
		m->waking_ms = since_ms;
		if (reason == RT_REASON_RESTART)
			counts(wl)->restarts++;
	}
	if (wl->state == WL_WAKING && state == WL_RUNNING &&
	    reason != RT_REASON_RESTORED) {
		counts(wl)->wakes++;
		if (m->waking_ms != 0 && since_ms >= m->waking_ms) {
			secs = (double)(since_ms - m->waking_ms) / 1000.0;
			m->counts->wake_hist[prom_bucket(metrics_bounds,
			    METRICS_WAKE_BOUNDS, secs)]++;
			m->counts->wake_sum += secs;
		}
	}
	if (wl->state == WL_WAKING && state == WL_FAILED && !m->fail_counted)
		counts(wl)->wake_failures++;
	if (state != WL_WAKING)
		m->waking_ms = 0;
}

/* runtimed never answered the wake */
void
metrics_wake_timeout(struct gw_workload *wl)
{
	if (!wl->metrics.fail_counted)
		counts(wl)->wake_failures++;
	wl->metrics.fail_counted = 1;
}

/*
 * The answer to a request routed to a workload: status, and own when
 * the gateway answers itself.  A 502, or a 504 while the workload runs,
 * of our own is an upstream error (connect, read or a bad answer); a
 * 504 for a wake that did not finish is not.  Counted once per request.
 */
void
metrics_status(struct gw_conn *c, int status, int own)
{
	struct gw_workload	*wl = c->wl;

	if (!c->routed || wl == NULL)
		return;
	c->routed = 0;
	if (status >= 100 && status < 600)
		counts(wl)->requests[status / 100 - 1]++;
	if (own && (status == 502 || (status == 504 &&
	    wl->state == WL_RUNNING)))
		counts(wl)->upstream_errors++;
}

void
metrics_api(int status)
{
	if (status >= 100 && status < 600)
		metrics_api_status[status / 100 - 1]++;
}

void
metrics_auth_failure(void)
{
	metrics_auth_failures++;
}

/* a request's head was read: by which protocol it came */
void
metrics_request_protocol(struct gw_conn *c)
{
	metrics_protocol[c->h2stream ? 1 : 0]++;
}

void
metrics_unknown_host(void)
{
	metrics_unknown_hosts++;
}

/*
 * A request was routed to c->wl (its head read): its time starts, and
 * the bytes read for it so far are its workload's, as is what the
 * connection reads and writes from now until another request is routed.
 * A request routed nowhere, or to the API, counts nothing.
 */
void
metrics_route(struct gw_conn *c)
{
	if (c->wl == NULL)
		return;
	c->acct = 1;
	if (c->rx_pending > 0) {
		counts(c->wl)->rx_bytes += c->rx_pending;
		c->rx_pending = 0;
	}
	c->req_ns = monotime_ns();
}

/*
 * The request is over, answered in full or cut short: its duration goes
 * in the histogram if its answer was counted (metrics_status), so that
 * the histogram's count is the sum of orchd_requests_total.
 */
void
metrics_request_end(struct gw_conn *c)
{
	struct gw_wcounts	*wc;
	int64_t			 ns;

	if (c->req_ns == 0)
		return;
	ns = monotime_ns() - c->req_ns;
	c->req_ns = 0;
	if (c->routed || c->wl == NULL)
		return;		/* never answered */
	wc = counts(c->wl);
	metrics_dur_observe(wc->dur_hist, &wc->dur_sum, (double)ns / 1e9);
}

/* n bytes read from c's client (after TLS) */
void
metrics_rx(struct gw_conn *c, size_t n)
{
	if (c->acct && c->wl != NULL && (c->state == CONN_PROXY ||
	    c->state == CONN_TUNNEL || c->state == CONN_CONNECT ||
	    c->state == CONN_PARKED))
		counts(c->wl)->rx_bytes += n;
	else
		c->rx_pending += n;
}

/* n bytes written to c's client (before TLS) */
void
metrics_tx(struct gw_conn *c, size_t n)
{
	if (n > 0 && c->acct && c->wl != NULL)
		counts(c->wl)->tx_bytes += n;
}

/* a connection to wl's own TCP listener, and its bytes */
void
metrics_tcp_accept(struct gw_workload *wl)
{
	counts(wl)->tcp_accepted++;
}

void
metrics_tcp_rx(struct gw_workload *wl, size_t n)
{
	counts(wl)->tcp_rx_bytes += n;
}

void
metrics_tcp_tx(struct gw_workload *wl, size_t n)
{
	counts(wl)->tcp_tx_bytes += n;
}

/* the parent's start and its last load of the configuration */
void
metrics_recv_status(struct imsgev *iev, struct imsg *imsg)
{
	(void)imsg_get_data(imsg, &metrics_cfg, sizeof(metrics_cfg));
	metrics_cfg_known = 1;
}

/* a workload's memory as measured at a stop, from the store */
void
metrics_recv_memory(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_memory	 mem;
	struct gw_workload	*wl;

	(void)imsg_get_data(imsg, &mem, sizeof(mem));
	if ((wl = gw_workload_find(mem.name)) != NULL && mem.bytes > 0)
		wl->metrics.memory = mem.bytes;
	if (wl != NULL && mem.estimate > 0)
		wl->metrics.memory_estimate = mem.estimate;
}

/* an idle keep-alive connection closed to make room (conn.c) */
void
metrics_idle_closed(void)
{
	metrics_idle_closes++;
}

/* what became of a TLS connection's ClientHello (tlshello.c) */
void
metrics_hello(int which)
{
	if (which >= 0 && which < GW_HELLO_N)
		metrics_hellos[which]++;
}

/* a connection over "max connections per address", refused (conn.c) */
void
metrics_addr_refused(void)
{
	metrics_addr_refusals++;
}

/*
 * Writing.
 */

static void
wl_label(const struct gw_workload *wl, char *buf, size_t len)
{
	char	 esc[ORCHD_NAME_MAX * 2];

	prom_escape(esc, sizeof(esc), wl->name);
	snprintf(buf, len, "workload=\"%s\"", esc);
}

/* one gauge or counter with a value per configured workload */
static void
per_workload(struct evbuffer *b, const struct metrics_sum *sum,
    const char *name, const char *type, const char *help,
    uint64_t (*get)(const struct gw_workload *, const struct gw_metrics_wl *))
{
	struct gw_workload	*wl;
	char			 lab[256];
	uint64_t		 v, other = 0;

	prom_family(b, name, type, help);
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		v = get(wl, metrics_sum_find(sum, wl->name));
		if (!metrics_top_own(wl)) {
			other += v;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_sample_u64(b, name, lab, v);
	}
	if (metrics_top_others())
		prom_sample_u64(b, name, METRICS_OTHER, other);
}

/* the others' counts are added to the request counts, never the states */
static uint64_t
get_inflight(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (wl->inflight + (o != NULL ? o->inflight : 0));
}

static uint64_t
get_parked(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (wl->nparked + (o != NULL ? o->parked : 0));
}

static uint64_t
get_upgraded(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (wl->upgraded + (o != NULL ? o->upgraded : 0));
}

static uint64_t
get_upstream_errors(const struct gw_workload *wl,
    const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->upstream_errors +
	    (o != NULL ? o->upstream_errors : 0));
}

static uint64_t
get_wakes(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->wakes);
}

static uint64_t
get_wake_failures(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->wake_failures);
}

static uint64_t
get_restarts(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->restarts);
}

/* whole seconds left, rounded up, as Retry-After says them */
static uint64_t
get_backoff(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	int64_t	 left;

	if (wl->backoff_end == 0 || (wl->state != WL_FAILED &&
	    wl->state != WL_ASLEEP) ||
	    (left = wl->backoff_end - monotime_ms()) <= 0)
		return (0);
	return ((uint64_t)(left + 999) / 1000);
}

/* a flag, not a state: the workload's state says whether it still runs */
static uint64_t
get_maint(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (gw_maint(wl)->on ? 1 : 0);
}

static uint64_t
get_rx(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->rx_bytes + (o != NULL ? o->rx_bytes : 0));
}

static uint64_t
get_tx(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->tx_bytes + (o != NULL ? o->tx_bytes : 0));
}

static uint64_t
get_tcp_open(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (wl->ntcp + (o != NULL ? o->tcp_open : 0));
}

static uint64_t
get_tcp_accepted(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->tcp_accepted +
	    (o != NULL ? o->tcp_accepted : 0));
}

static uint64_t
get_tcp_rx(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->tcp_rx_bytes +
	    (o != NULL ? o->tcp_rx_bytes : 0));
}

static uint64_t
get_tcp_tx(const struct gw_workload *wl, const struct gw_metrics_wl *o)
{
	return (counts_read(wl)->tcp_tx_bytes +
	    (o != NULL ? o->tcp_tx_bytes : 0));
}

/* as per_workload(), for the workloads with TCP listeners of their own */
static void
per_tcp_workload(struct evbuffer *b, const struct metrics_sum *sum,
    const char *name, const char *type, const char *help,
    uint64_t (*get)(const struct gw_workload *, const struct gw_metrics_wl *))
{
	struct gw_workload	*wl;
	char			 lab[256];
	uint64_t		 v, other = 0;
	int			 others = 0;

	prom_family(b, name, type, help);
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured || !wl->listens)
			continue;
		v = get(wl, metrics_sum_find(sum, wl->name));
		if (!metrics_top_own(wl)) {
			other += v;
			others = 1;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_sample_u64(b, name, lab, v);
	}
	if (others)
		prom_sample_u64(b, name, METRICS_OTHER, other);
}

static void
write_tcp(struct evbuffer *b, const struct metrics_sum *sum)
{
	per_tcp_workload(b, sum, "orchd_tcp_connections", "gauge",
	    "Connections to the workload's own TCP listeners open, those "
	    "held while it wakes included.", get_tcp_open);
	per_tcp_workload(b, sum, "orchd_tcp_connections_total", "counter",
	    "Connections accepted on the workload's own TCP listeners.",
	    get_tcp_accepted);
	per_tcp_workload(b, sum, "orchd_tcp_received_bytes_total", "counter",
	    "Bytes read from the clients of the workload's TCP listeners.",
	    get_tcp_rx);
	per_tcp_workload(b, sum, "orchd_tcp_sent_bytes_total", "counter",
	    "Bytes written to the clients of the workload's TCP listeners.",
	    get_tcp_tx);
}

/* the ClientHellos of TLS listeners, by what became of them */
static void
write_hellos(struct evbuffer *b, const struct metrics_sum *sum)
{
	static const char *const results[GW_HELLO_N] = {
		"result=\"certificate_asked\"", "result=\"no_route\"",
		"result=\"malformed\"", "result=\"held\""
	};
	int	 i;

	prom_family(b, "orchd_gateway_tls_hellos_total", "counter",
	    "ClientHellos of TLS listeners: a certificate asked of acmed, "
	    "closed for a name that routes nowhere or for bytes that are "
	    "no ClientHello, held for a certificate.");
	for (i = 0; i < GW_HELLO_N; i++)
		prom_sample_u64(b, "orchd_gateway_tls_hellos_total",
		    results[i], metrics_hellos[i] +
		    (sum != NULL ? sum->total.tls_hellos[i] : 0));
}

static void
write_requests(struct evbuffer *b, const struct metrics_sum *sum)
{
	const struct gw_metrics_wl	*o;
	struct gw_workload		*wl;
	char				 lab[256], one[192];
	uint64_t			 v, other[5];
	int				 i;

	memset(other, 0, sizeof(other));
	prom_family(b, "orchd_requests_total", "counter",
	    "Requests answered, by workload and status class.");
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		o = metrics_sum_find(sum, wl->name);
		wl_label(wl, one, sizeof(one));
		for (i = 0; i < 5; i++) {
			v = counts_read(wl)->requests[i] +
			    (o != NULL ? o->requests[i] : 0);
			if (!metrics_top_own(wl)) {
				other[i] += v;
				continue;
			}
			snprintf(lab, sizeof(lab), "%s,code=\"%dxx\"", one,
			    i + 1);
			prom_sample_u64(b, "orchd_requests_total", lab, v);
		}
	}
	for (i = 0; i < 5 && metrics_top_others(); i++) {
		snprintf(lab, sizeof(lab), "%s,code=\"%dxx\"", METRICS_OTHER,
		    i + 1);
		prom_sample_u64(b, "orchd_requests_total", lab, other[i]);
	}
}

static void
write_wake_hist(struct evbuffer *b)
{
	struct gw_workload	*wl;
	uint64_t		 other[METRICS_WAKE_BOUNDS + 1];
	double			 other_sum = 0;
	char			 lab[256];
	int			 i;

	memset(other, 0, sizeof(other));
	prom_family(b, "orchd_wake_duration_seconds", "histogram",
	    "Wakes, from runtimed starting the workload to the workload "
	    "being ready.");
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		if (!metrics_top_own(wl)) {
			for (i = 0; i <= METRICS_WAKE_BOUNDS; i++)
				other[i] += counts_read(wl)->wake_hist[i];
			other_sum += counts_read(wl)->wake_sum;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_histogram(b, "orchd_wake_duration_seconds", lab,
		    metrics_bounds, counts_read(wl)->wake_hist,
		    METRICS_WAKE_BOUNDS, counts_read(wl)->wake_sum);
	}
	if (metrics_top_others())
		prom_histogram(b, "orchd_wake_duration_seconds", METRICS_OTHER,
		    metrics_bounds, other, METRICS_WAKE_BOUNDS, other_sum);
}

/* every gateway's requests: its own buckets and the others' */
static void
write_dur_hist(struct evbuffer *b, const struct metrics_sum *sum)
{
	const struct gw_metrics_wl	*o;
	const struct gw_wcounts		*wc;
	struct gw_workload		*wl;
	uint64_t			 hist[METRICS_DUR_BOUNDS + 1];
	uint64_t			 other[METRICS_DUR_BOUNDS + 1];
	double				 total, other_sum = 0;
	char				 lab[256];
	int				 i;

	memset(other, 0, sizeof(other));
	prom_family(b, "orchd_request_duration_seconds", "histogram",
	    "Requests answered, from their head read to their answer's "
	    "end, a wake included.");
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		wc = counts_read(wl);
		o = metrics_sum_find(sum, wl->name);
		total = wc->dur_sum + (o != NULL ? o->dur_sum : 0);
		for (i = 0; i <= METRICS_DUR_BOUNDS; i++)
			hist[i] = wc->dur_hist[i] +
			    (o != NULL ? o->dur_hist[i] : 0);
		if (!metrics_top_own(wl)) {
			for (i = 0; i <= METRICS_DUR_BOUNDS; i++)
				other[i] += hist[i];
			other_sum += total;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_histogram(b, "orchd_request_duration_seconds", lab,
		    metrics_dur_bounds, hist, METRICS_DUR_BOUNDS, total);
	}
	if (metrics_top_others())
		prom_histogram(b, "orchd_request_duration_seconds",
		    METRICS_OTHER, metrics_dur_bounds, other,
		    METRICS_DUR_BOUNDS, other_sum);
}

static int64_t
get_memory(const struct gw_workload *wl)
{
	return (wl->metrics.memory);
}

static int64_t
get_memory_estimate(const struct gw_workload *wl)
{
	return (wl->metrics.memory_estimate);
}

/*
 * Only the workloads measured: no sample is better than a false 0; the
 * others' summed, while one of them was.
 */
static void
write_measured(struct evbuffer *b, const char *name,
    int64_t (*get)(const struct gw_workload *))
{
	struct gw_workload	*wl;
	char			 lab[256];
	uint64_t		 other = 0;
	int			 others = 0;

	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured || get(wl) <= 0)
			continue;
		if (!metrics_top_own(wl)) {
			other += (uint64_t)get(wl);
			others = 1;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_sample_u64(b, name, lab, (uint64_t)get(wl));
	}
	if (others)
		prom_sample_u64(b, name, METRICS_OTHER, other);
}

static void
write_memory(struct evbuffer *b)
{
	prom_family(b, "orchd_workload_memory_bytes", "gauge",
	    "Memory the workload used when it last stopped, as last "
	    "measured.");
	write_measured(b, "orchd_workload_memory_bytes", get_memory);
	prom_family(b, "orchd_workload_memory_estimate_bytes", "gauge",
	    "What the memory budget charges the workload's next run, from "
	    "its runs measured.");
	write_measured(b, "orchd_workload_memory_estimate_bytes",
	    get_memory_estimate);
}

/* the parent's: the same in every gateway, never summed */
static void
write_config(struct evbuffer *b)
{
	if (!metrics_cfg_known)
		return;
	prom_family(b, "orchd_config_last_reload_successful", "gauge",
	    "1 if the last load of the configuration succeeded, 0 if it "
	    "was refused.");
	prom_sample_u64(b, "orchd_config_last_reload_successful", NULL,
	    metrics_cfg.reload_ok != 0);
	prom_family(b, "orchd_config_last_reload_success_timestamp_seconds",
	    "gauge", "When the configuration was last loaded successfully.");
	prom_sample(b, "orchd_config_last_reload_success_timestamp_seconds",
	    NULL, (double)(metrics_cfg.reload_ms / 1000));
	prom_family(b, "process_start_time_seconds", "gauge",
	    "When orchd, the parent process, started.");
	prom_sample(b, "process_start_time_seconds", NULL,
	    (double)metrics_cfg.started_ms / 1000.0);
}

static void
write_states(struct evbuffer *b, int64_t now)
{
	struct gw_workload	*wl;
	char			 lab[256], one[192];
	uint64_t		 other[WL_STATE_LAST + 1];
	int			 s;
	int64_t			 ms, other_ms = 0;

	memset(other, 0, sizeof(other));
	prom_family(b, "orchd_workload_state", "gauge",
	    "1 for the state each workload is in, 0 for the others; for "
	    "\"_other\", how many are in it.");
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		if (!metrics_top_own(wl)) {
			if (wl->state >= WL_ASLEEP && wl->state <= WL_STATE_LAST)
				other[wl->state]++;
			continue;
		}
		wl_label(wl, one, sizeof(one));
		for (s = WL_ASLEEP; s <= WL_STATE_LAST; s++) {
			snprintf(lab, sizeof(lab), "%s,state=\"%s\"", one,
			    workload_state_name(s));
			prom_sample_u64(b, "orchd_workload_state", lab,
			    wl->state == (enum workload_state)s);
		}
	}
	for (s = WL_ASLEEP; s <= WL_STATE_LAST && metrics_top_others(); s++) {
		snprintf(lab, sizeof(lab), "%s,state=\"%s\"", METRICS_OTHER,
		    workload_state_name(s));
		prom_sample_u64(b, "orchd_workload_state", lab, other[s]);
	}
	prom_family(b, "orchd_workload_asleep_seconds_total", "counter",
	    "Time each workload spent asleep.");
	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		ms = wl->metrics.asleep_ms;
		if (wl->state == WL_ASLEEP)
			ms += now - wl->metrics.since_ms;
		if (!metrics_top_own(wl)) {
			other_ms += ms;
			continue;
		}
		wl_label(wl, lab, sizeof(lab));
		prom_sample(b, "orchd_workload_asleep_seconds_total", lab,
		    (double)ms / 1000.0);
	}
	if (metrics_top_others())
		prom_sample(b, "orchd_workload_asleep_seconds_total",
		    METRICS_OTHER, (double)other_ms / 1000.0);
}

static void
write_api(struct evbuffer *b, const struct metrics_sum *sum)
{
	char	 lab[32];
	int	 i;

	prom_family(b, "orchd_api_requests_total", "counter",
	    "Requests to the HTTP API answered, by status class.");
	for (i = 0; i < 5; i++) {
		snprintf(lab, sizeof(lab), "code=\"%dxx\"", i + 1);
		prom_sample_u64(b, "orchd_api_requests_total", lab,
		    metrics_api_status[i] + (sum != NULL ? sum->total.api[i] :
		    0));
	}
	prom_family(b, "orchd_api_auth_failures_total", "counter",
	    "Requests to the HTTP API without the right bearer key.");
	prom_sample_u64(b, "orchd_api_auth_failures_total", NULL,
	    metrics_auth_failures + (sum != NULL ?
	    sum->total.auth_failures : 0));
}

/* the store tells every gateway when its held writes change */
void
metrics_recv_store(struct imsgev *iev, struct imsg *imsg)
{
	(void)imsg_get_data(imsg, &metrics_store, sizeof(metrics_store));
}

static void
write_store(struct evbuffer *b)
{
	prom_family(b, "orchd_store_queued_writes", "gauge",
	    "Writes the database refused, held to be written again.");
	prom_sample_u64(b, "orchd_store_queued_writes", NULL,
	    metrics_store.queued);
	prom_family(b, "orchd_store_queued_bytes", "gauge",
	    "The size of the writes held.");
	prom_sample_u64(b, "orchd_store_queued_bytes", NULL,
	    metrics_store.bytes);
	prom_family(b, "orchd_store_queued_writes_total", "counter",
	    "Writes the database refused and that were held.");
	prom_sample_u64(b, "orchd_store_queued_writes_total", NULL,
	    metrics_store.total);
	prom_family(b, "orchd_store_write_retries_total", "counter",
	    "Attempts to write the held writes again.");
	prom_sample_u64(b, "orchd_store_write_retries_total", NULL,
	    metrics_store.retries);
	prom_family(b, "orchd_store_dropped_writes_total", "counter",
	    "Writes lost because the queue of held writes was full.");
	prom_sample_u64(b, "orchd_store_dropped_writes_total", NULL,
	    metrics_store.drops);
}

/* sum: the other gateways' counts ("prefork"), or NULL */
void
metrics_write(struct evbuffer *b, const struct metrics_sum *sum)
{
	const struct cfg_generation	*gen = cfg_current();

	metrics_top_pick(sum, gen != NULL ? gen->global.metrics_top : 0);
	prom_family(b, "orchd_build_info", "gauge",
	    "Always 1; the version of orchd in its label.");
	prom_sample_u64(b, "orchd_build_info", "version=\"" ORCHD_VERSION "\"",
	    1);
	prom_family(b, "orchd_open_connections", "gauge",
	    "Client connections open.");
	prom_sample_u64(b, "orchd_open_connections", NULL, gw->nconns +
	    (sum != NULL ? sum->total.conns : 0));
	prom_family(b, "orchd_gateway_idle_closed_total", "counter",
	    "Idle keep-alive connections closed to make room for new ones.");
	prom_sample_u64(b, "orchd_gateway_idle_closed_total", NULL,
	    metrics_idle_closes + (sum != NULL ? sum->total.idle_closed : 0));
	prom_family(b, "orchd_gateway_address_refused_total", "counter",
	    "Connections refused at once: their address held \"max "
	    "connections per address\".");
	prom_sample_u64(b, "orchd_gateway_address_refused_total", NULL,
	    metrics_addr_refusals +
	    (sum != NULL ? sum->total.addr_refused : 0));
	write_hellos(b, sum);
	write_requests(b, sum);
	per_workload(b, sum, "orchd_requests_in_flight", "gauge",
	    "Requests being answered that are use, parked ones included, "
	    "and TCP connections that are use.", get_inflight);
	per_workload(b, sum, "orchd_parked_requests", "gauge",
	    "Requests, and TCP connections, held while their workload "
	    "wakes.", get_parked);
	per_workload(b, sum, "orchd_upgraded_connections", "gauge",
	    "Upgraded connections (WebSocket) open and not idle.",
	    get_upgraded);
	per_workload(b, sum, "orchd_upstream_errors_total", "counter",
	    "502 and 504 answers for a workload that failed to answer.",
	    get_upstream_errors);
	per_workload(b, sum, "orchd_wakes_total", "counter",
	    "Wakes that ended with the workload running.", get_wakes);
	per_workload(b, sum, "orchd_wake_failures_total", "counter",
	    "Wakes that failed or were not answered in time.",
	    get_wake_failures);
	per_workload(b, sum, "orchd_workload_restarts_total", "counter",
	    "Workloads kept warm started again after they stopped by "
	    "themselves.", get_restarts);
	per_workload(b, sum, "orchd_workload_backoff_seconds", "gauge",
	    "Seconds left of a crash loop's backoff, 0 when none.",
	    get_backoff);
	per_workload(b, sum, "orchd_workload_maintenance", "gauge",
	    "1 while the workload is in maintenance: answered 503, never "
	    "woken.", get_maint);
	write_wake_hist(b);
	write_states(b, monotime_ms());
	write_api(b, sum);
	prom_family(b, "orchd_requests_unknown_host_total", "counter",
	    "Requests for a host no workload serves, answered 404.");
	prom_sample_u64(b, "orchd_requests_unknown_host_total", NULL,
	    metrics_unknown_hosts + (sum != NULL ? sum->total.unknown_hosts :
	    0));
	prom_family(b, "orchd_requests_by_protocol_total", "counter",
	    "Requests read, by the protocol of the client's connection.");
	prom_sample_u64(b, "orchd_requests_by_protocol_total",
	    "protocol=\"http/1.1\"", metrics_protocol[0] +
	    (sum != NULL ? sum->total.protocol[0] : 0));
	prom_sample_u64(b, "orchd_requests_by_protocol_total",
	    "protocol=\"h2\"", metrics_protocol[1] +
	    (sum != NULL ? sum->total.protocol[1] : 0));
	write_dur_hist(b, sum);
	per_workload(b, sum, "orchd_workload_received_bytes_total", "counter",
	    "Bytes of requests read from the workload's clients.", get_rx);
	per_workload(b, sum, "orchd_workload_sent_bytes_total", "counter",
	    "Bytes of answers written to the workload's clients.", get_tx);
	write_tcp(b, sum);
	write_memory(b);
	metrics_budget_write(b);
	metrics_acme_write(b);
	metrics_notify_write(b);
	write_config(b);
	write_store(b);
	metrics_alog_write(b, accesslog_drops() + (sum != NULL ?
	    sum->total.access_log_drops : 0));
	metrics_procs_write(b, sum);
}

/* this gateway's own counts, for the one that answers GET /metrics */
void
metrics_own(const struct gw_workload *wl, struct gw_metrics_wl *out)
{
	memset(out, 0, sizeof(*out));
	strlcpy(out->name, wl->name, sizeof(out->name));
	memcpy(out->requests, counts_read(wl)->requests,
	    sizeof(out->requests));
	out->upstream_errors = counts_read(wl)->upstream_errors;
	out->rx_bytes = counts_read(wl)->rx_bytes;
	out->tx_bytes = counts_read(wl)->tx_bytes;
	memcpy(out->dur_hist, counts_read(wl)->dur_hist,
	    sizeof(out->dur_hist));
	out->dur_sum = counts_read(wl)->dur_sum;
	out->inflight = wl->inflight;
	out->parked = wl->nparked;
	out->upgraded = wl->upgraded;
	out->tcp_open = wl->ntcp;
	out->tcp_accepted = counts_read(wl)->tcp_accepted;
	out->tcp_rx_bytes = counts_read(wl)->tcp_rx_bytes;
	out->tcp_tx_bytes = counts_read(wl)->tcp_tx_bytes;
}

void
metrics_own_total(struct gw_metrics_total *t)
{
	memset(t, 0, sizeof(*t));
	t->conns = gw->nconns;
	memcpy(t->api, metrics_api_status, sizeof(t->api));
	t->auth_failures = metrics_auth_failures;
	t->unknown_hosts = metrics_unknown_hosts;
	t->idle_closed = metrics_idle_closes;
	t->addr_refused = metrics_addr_refusals;
	memcpy(t->tls_hellos, metrics_hellos, sizeof(t->tls_hellos));
	memcpy(t->protocol, metrics_protocol, sizeof(t->protocol));
	t->access_log_drops = accesslog_drops();
}

/* as many as fit in one message */
#define METRICS_WL_PER_MSG	((ORCHD_IMSG_MAXSIZE - IMSG_HEADER_SIZE) / \
				    sizeof(struct gw_metrics_wl))

/* the parent asks for our counts on behalf of another gateway */
void
metrics_recv_dump(struct imsgev *iev, struct imsg *imsg)
{
	static struct gw_metrics_wl	 batch[METRICS_WL_PER_MSG];
	struct gw_metrics_total		 total;
	struct gw_workload		*wl;
	uint32_t			 id = imsg_get_id(imsg);
	size_t				 n = 0;

	RB_FOREACH(wl, gw_workloads, &gw->workloads) {
		if (!wl->configured)
			continue;
		metrics_own(wl, &batch[n]);
		if (++n < nitems(batch))
			continue;
		if (imsgev_compose(iev, IMSG_GW_METRICS_WL, id, -1, batch,
		    n * sizeof(batch[0])) == -1)
			log_warn("%s: compose", __func__);
		n = 0;
	}
	if (n > 0 && imsgev_compose(iev, IMSG_GW_METRICS_WL, id, -1, batch,
	    n * sizeof(batch[0])) == -1)
		log_warn("%s: compose", __func__);
	metrics_own_total(&total);
	if (imsgev_compose(iev, IMSG_GW_METRICS_TOTAL, id, -1, &total,
	    sizeof(total)) == -1)
		log_warn("%s: compose", __func__);
}
