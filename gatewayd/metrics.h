/*
 * What the gateway counts for GET /metrics (metrics.c): per workload in
 * struct gw_workload, the rest in the file.  Counting on the request
 * path is a few increments; a workload's counters are allocated at its
 * first count, once, so that thousands that never answer cost nothing.
 */

#ifndef ORCHD_GATEWAY_METRICS_H
#define ORCHD_GATEWAY_METRICS_H

#include <event.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "workload.h"

/* the wake duration histogram's finite bounds; one more bucket: +Inf */
#define METRICS_WAKE_BOUNDS	13

struct gw_conn;
struct gw_workload;
struct evbuffer;
struct imsgev;
struct imsg;

/*
 * GET /metrics with several gateways: the others' counts, summed by name
 * (the names sorted as the gateway's own tree) while they come in.
 */
struct metrics_sum {
	struct gw_metrics_wl	*wl;
	size_t			 nwl;
	struct gw_metrics_total	 total;
	uint32_t		 expect;	/* gateways to hear from */
	uint32_t		 got;
	struct gw_procstat	 procs[GW_PROCSTAT_MAX]; /* the parent's */
	size_t			 nprocs;
};

/* what is counted for one workload */
struct gw_wcounts {
	uint64_t		 requests[5];	/* answers 1xx ... 5xx */
	uint64_t		 upstream_errors; /* our 502 and 504 */
	uint64_t		 wakes;		/* waking -> running */
	uint64_t		 wake_failures;	/* waking -> failed, or
						   no answer */
	uint64_t		 wake_hist[METRICS_WAKE_BOUNDS + 1];
	double			 wake_sum;	/* seconds */
	uint64_t		 restarts;	/* kept warm: started again */
	uint64_t		 rx_bytes;	/* from clients, after TLS */
	uint64_t		 tx_bytes;	/* to clients, before TLS */
	uint64_t		 dur_hist[METRICS_DUR_BOUNDS + 1];
	double			 dur_sum;	/* seconds */
	uint64_t		 tcp_accepted;	/* its own TCP listeners' */
	uint64_t		 tcp_rx_bytes;
	uint64_t		 tcp_tx_bytes;
};

struct gw_wmetrics {
	struct gw_wcounts	*counts;	/* NULL until one counts */
	int64_t			 waking_ms;	/* runtimed's start of it */
	int			 fail_counted;	/* the wake's failure is */
	int64_t			 since_ms;	/* in its state, monotonic */
	int64_t			 asleep_ms;	/* closed stretches asleep */
	int64_t			 memory;	/* bytes, last measured; 0:
						   never */
	int64_t			 memory_estimate; /* runtimed's; 0: none */
	int			 own;		/* series of its own at this
						   writing (metrics_top.c) */
};

/* the series of the workloads that have none of their own, summed */
#define METRICS_OTHER		"workload=\"_other\""

/* metrics_top.c */
void		 metrics_top_pick(const struct metrics_sum *, int32_t);
int		 metrics_top_own(const struct gw_workload *);
int		 metrics_top_others(void);

void		 metrics_workload_init(struct gw_workload *);
void		 metrics_workload_free(struct gw_workload *);
void		 metrics_state(struct gw_workload *, enum workload_state,
		    enum rt_reason, int64_t);
void		 metrics_wake_timeout(struct gw_workload *);
void		 metrics_status(struct gw_conn *, int, int);
void		 metrics_api(int);
void		 metrics_auth_failure(void);
void		 metrics_idle_closed(void);
void		 metrics_addr_refused(void);
void		 metrics_write(struct evbuffer *, const struct metrics_sum *);
void		 metrics_own(const struct gw_workload *, struct gw_metrics_wl *);
void		 metrics_own_total(struct gw_metrics_total *);
void		 metrics_recv_dump(struct imsgev *, struct imsg *);
void		 metrics_unknown_host(void);
/* TLS listeners before the handshake (tlshello.c) */
#define GW_HELLO_WANTS		0	/* IMSG_ACME_WANT sent */
#define GW_HELLO_NOROUTE	1	/* closed: the name routes nowhere */
#define GW_HELLO_BAD		2	/* closed: no ClientHello we take */
#define GW_HELLO_HELD		3	/* held for a certificate */
#define GW_HELLO_N		4
void		 metrics_hello(int);
void		 metrics_request_protocol(struct gw_conn *);
void		 metrics_route(struct gw_conn *);
void		 metrics_request_end(struct gw_conn *);
void		 metrics_rx(struct gw_conn *, size_t);
void		 metrics_tx(struct gw_conn *, size_t);
void		 metrics_tcp_accept(struct gw_workload *);
void		 metrics_tcp_rx(struct gw_workload *, size_t);
void		 metrics_tcp_tx(struct gw_workload *, size_t);
void		 metrics_recv_status(struct imsgev *, struct imsg *);
void		 metrics_recv_memory(struct imsgev *, struct imsg *);

/* metrics_budget.c: the memory budget, as runtimed tells it */
void		 metrics_recv_budget(struct imsgev *, struct imsg *);
void		 metrics_budget_write(struct evbuffer *);
void		 metrics_budget_now(int64_t *, int64_t *);
void		 metrics_totals(uint64_t *, uint64_t *);

/* metrics_acme.c: certificates from ACME, as the parent relays acmed */
void		 metrics_recv_acme(struct imsgev *, struct imsg *);
void		 metrics_acme_write(struct evbuffer *);
/* metrics_notify.c: notifyd's webhooks */
void		 metrics_recv_notify(struct imsgev *, struct imsg *);
void		 metrics_notify_write(struct evbuffer *);

/* metrics_procs.c: orchd's processes' CPU and memory, from the parent */
void		 metrics_procs_add(struct metrics_sum *, const void *, size_t);
void		 metrics_procs_write(struct evbuffer *,
		    const struct metrics_sum *);

/* metrics_alog.c: the access log's lines the parent holds */
void		 metrics_recv_alog(struct imsgev *, struct imsg *);
void		 metrics_alog_summary(struct imsgev *, struct imsg *);
void		 metrics_alog_write(struct evbuffer *, uint64_t);

/* metrics_add.c: pure, for the unit tests */
extern const double metrics_dur_bounds[METRICS_DUR_BOUNDS];
void		 metrics_dur_observe(uint64_t *, double *, double);
void		 metrics_wl_add(struct gw_metrics_wl *,
		    const struct gw_metrics_wl *);
void		 metrics_total_add(struct gw_metrics_total *,
		    const struct gw_metrics_total *);
void		 metrics_recv_store(struct imsgev *, struct imsg *);

/* metrics_sum.c */
struct metrics_sum *metrics_sum_new(void);
void		 metrics_sum_free(struct metrics_sum *);
void		 metrics_sum_add(struct metrics_sum *, const struct gw_metrics_wl *);
const struct gw_metrics_wl *metrics_sum_find(const struct metrics_sum *,
		    const char *);

#endif /* ORCHD_GATEWAY_METRICS_H */
