/*
 * gatewayd's own types: workloads as the gateway sees them, the route
 * table, listeners, client connections and their upstreams.
 */

#ifndef ORCHD_GATEWAY_H
#define ORCHD_GATEWAY_H

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/tree.h>

#include <event.h>

#include "http.h"
#include "proc.h"

/* limits and timeouts; orchd.conf settings arrive with the edge issue */
#define GW_PARKED_MAX_WORKLOAD	1024	/* parked requests per workload */
#define GW_PARKED_MAX_TOTAL	16384	/* parked requests in all */
#define GW_HEAD_TIMEOUT		60	/* seconds to read a request head */
#define GW_IDLE_TIMEOUT		75	/* keep-alive idle, seconds */
#define GW_BODY_TIMEOUT		60	/* idle while reading a body */
#define GW_CONNECT_TIMEOUT	10	/* upstream connect */
#define GW_UPSTREAM_TIMEOUT	300	/* upstream idle while answering */
#define GW_WAKE_SLACK		5	/* beyond runtimed's wake timeout */
#define GW_RETRY_AFTER		5	/* seconds, on 503 after a failed wake */
#define GW_BUF_HIGH		(256 * 1024)	/* stop reading above this */
#define GW_FLUSH_INTERVAL	1	/* activity to the reaper, seconds */
#define GW_HEADS_CACHED		64	/* head buffers kept for reuse */

struct gw_conn;

/*
 * A workload as the gateway knows it.  Kept across reloads while its name
 * is configured; a removed one lives on until the last connection using
 * it lets go (refs).
 */
struct gw_workload {
	RB_ENTRY(gw_workload)	 entry;		/* by name */
	char			 name[ORCHD_NAME_MAX];
	struct sockaddr_storage	 addr;		/* upstream */
	socklen_t		 addrlen;
	int64_t			 wake_timeout;	/* seconds */
	enum workload_state	 state;		/* as runtimed says */
	int			 wake_pending;	/* WAKE sent, no answer */
	uint32_t		 epoch;		/* bumped when it stops running */
	int			 configured;	/* in the current generation */
	unsigned int		 refs;		/* connections using it */
	TAILQ_HEAD(, gw_conn)	 parked;
	unsigned int		 nparked;
	struct event		 wake_timer;
	/* activity, for the reaper */
	uint32_t		 inflight;
	uint32_t		 upgraded;
	time_t			 last_seen;
	int			 dirty;
	TAILQ_ENTRY(gw_workload) dirty_entry;
};
RB_HEAD(gw_workloads, gw_workload);

/* one host or "*.suffix" of a workload */
struct gw_route {
	RB_ENTRY(gw_route)	 entry;
	char			*key;		/* lower case; ".suffix" */
	struct gw_workload	*wl;
};
RB_HEAD(gw_routes, gw_route);

struct gw_listener {
	TAILQ_ENTRY(gw_listener) entry;
	int			 fd;
	struct event		 ev;
	struct ctl_listener	 conf;
};

/* a request head being read or not yet forwarded, with its strings */
struct gw_head {
	SLIST_ENTRY(gw_head)	 next;
	struct http_head	 h;
	char			 buf[HTTP_HEAD_BUFSZ];
};

enum gw_conn_state {
	CONN_IDLE = 0,		/* between requests */
	CONN_HEAD,		/* reading a request head */
	CONN_PARKED,		/* waiting for a wake */
	CONN_CONNECT,		/* connecting upstream */
	CONN_PROXY,		/* request forwarded, answer under way */
	CONN_TUNNEL,		/* after 101: bytes both ways */
	CONN_CLOSING		/* flushing, then close */
};

struct gw_upstream {
	int			 fd;
	struct event		 rev;
	struct event		 wev;
	struct evbuffer		*in;
	struct evbuffer		*out;
	struct gw_workload	*wl;		/* the one it is connected to */
	int			 connected;
	int			 eof;
	uint32_t		 epoch;		/* of wl when connected */
};

struct gw_conn {
	TAILQ_ENTRY(gw_conn)	 entry;		/* parked list */
	int			 fd;
	struct event		 rev;
	struct event		 wev;
	struct event		 timer;
	struct evbuffer		*in;
	struct evbuffer		*out;
	enum gw_conn_state	 state;
	struct gw_listener	*listener;
	char			 peer[64];	/* client address, text */
	int			 eof;		/* client sent FIN */
	int			 close_after;	/* close once out is flushed */

	/* the request under way */
	struct gw_head		*req;		/* while reading or parked */
	struct gw_workload	*wl;		/* routed to, holds a ref */
	enum http_method	 meth;
	int			 version;	/* 10, 11 */
	int			 keepalive;	/* client wants to persist */
	int			 upgrade;	/* asked for an upgrade */
	enum http_body		 reqbody;
	uint64_t		 reqleft;	/* LENGTH: bytes to forward */
	struct http_chunked	 reqchunk;
	int			 reqdone;	/* body fully forwarded */
	int			 counted;	/* in wl->inflight */
	int			 tunnel;	/* in wl->upgraded */

	/* the answer under way */
	struct gw_head		*resp;
	enum http_body		 respbody;
	uint64_t		 respleft;
	struct http_chunked	 respchunk;
	int			 respchunked_out; /* we send it chunked */
	int			 respdone;
	int			 up_keep;	/* upstream may persist */

	struct gw_upstream	 up;
};

struct gateway {
	struct privsep		*ps;
	struct gw_workloads	 workloads;
	struct gw_routes	 exact;
	struct gw_routes	 suffix;
	TAILQ_HEAD(, gw_listener) listeners;
	TAILQ_HEAD(, gw_listener) next_listeners;	/* being configured */
	TAILQ_HEAD(, gw_workload) dirty;
	unsigned int		 nparked;
	unsigned int		 nconns;
	struct event		 flush_ev;
	SLIST_HEAD(, gw_head)	 heads;			/* free head buffers */
	unsigned int		 nheads;
};

extern struct gateway	*gw;

/* route.c */
struct gw_workload	*route_lookup(const char *, size_t);
struct gw_workload	*workload_find(const char *);
void			 route_apply(struct cfg_generation *);
void			 workload_ref(struct gw_workload *);
void			 workload_unref(struct gw_workload *);
int			 workload_cmp(struct gw_workload *,
			    struct gw_workload *);
int			 route_cmp(struct gw_route *, struct gw_route *);
RB_PROTOTYPE(gw_workloads, gw_workload, entry, workload_cmp);
RB_PROTOTYPE(gw_routes, gw_route, entry, route_cmp);

/* listener.c */
void		 listener_recv(struct imsgev *, struct imsg *);
void		 listener_apply(void);

/* conn.c */
void		 conn_accept(int, short, void *);
void		 conn_resume(struct gw_conn *);
void		 conn_error(struct gw_conn *, int, const char *);
void		 conn_close(struct gw_conn *);
void		 conn_reading(struct gw_conn *, int);
void		 conn_flush(struct gw_conn *);
void		 conn_respond(struct gw_conn *, int, const char *, int);
void		 conn_request_done(struct gw_conn *);
void		 conn_park_watch(struct gw_conn *, int);
struct gw_head	*head_get(void);
void		 head_put(struct gw_head *);

/* proxy.c */
void		 proxy_start(struct gw_conn *);
void		 proxy_upstream_close(struct gw_conn *);
void		 proxy_client_readable(struct gw_conn *);
void		 proxy_client_drained(struct gw_conn *);

/* wake.c */
void		 wake_park(struct gw_conn *);
void		 wake_unpark(struct gw_conn *);
void		 wake_recv_state(struct imsgev *, struct imsg *);
void		 wake_recv_drain(struct imsgev *, struct imsg *);
void		 wake_workload_gone(struct gw_workload *);
void		 wake_timer_fired(int, short, void *);

/* activity.c */
void		 activity_init(void);
void		 activity_begin(struct gw_conn *);
void		 activity_end(struct gw_conn *);
void		 activity_touch(struct gw_workload *);

#endif /* ORCHD_GATEWAY_H */
