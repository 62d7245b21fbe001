/*
 * What the gateway counts for GET /metrics (metrics.c): per workload in
 * struct gw_workload, the rest in the file.  Counting on the request
 * path is a few increments, never an allocation.
 */

#ifndef ORCHD_GATEWAY_METRICS_H
#define ORCHD_GATEWAY_METRICS_H

#include <stdint.h>

#include "orchd.h"

/* the wake duration histogram's finite bounds; one more bucket: +Inf */
#define METRICS_WAKE_BOUNDS	13

struct gw_conn;
struct gw_workload;
struct evbuffer;

struct gw_wmetrics {
	uint64_t		 requests[5];	/* answers 1xx ... 5xx */
	uint64_t		 upstream_errors; /* our 502 and 504 */
	uint64_t		 wakes;		/* waking -> running */
	uint64_t		 wake_failures;	/* waking -> failed, or
						   no answer */
	uint64_t		 wake_hist[METRICS_WAKE_BOUNDS + 1];
	double			 wake_sum;	/* seconds */
	int64_t			 park_ms;	/* first park of a wake */
	int			 fail_counted;	/* the wake's failure is */
	int64_t			 since_ms;	/* in its state, monotonic */
	int64_t			 asleep_ms;	/* closed stretches asleep */
};

int64_t		 metrics_now_ms(void);
void		 metrics_workload_init(struct gw_workload *);
void		 metrics_state(struct gw_workload *, enum workload_state,
		    enum rt_reason);
void		 metrics_parked(struct gw_workload *);
void		 metrics_wake_timeout(struct gw_workload *);
void		 metrics_status(struct gw_conn *, int, int);
void		 metrics_api(int);
void		 metrics_auth_failure(void);
void		 metrics_write(struct evbuffer *);

#endif /* ORCHD_GATEWAY_METRICS_H */
