/*
 * gatewayd's own types: workloads as the gateway sees them, the route
 * table, listeners, client connections and their upstreams.
 */

#ifndef ORCHD_GATEWAY_H
#define ORCHD_GATEWAY_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/tree.h>

#include <stdint.h>
#include <time.h>

#include <event.h>
#include <tls.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "filter.h"
#include "metrics.h"

struct wl_zip;

/*
 * Fixed limits.  The timeouts and connection limits are orchd.conf
 * settings: gw->conf, struct gateway_conf.
 */
#define GW_PARKED_MAX_WORKLOAD	1024	/* parked requests per workload */
#define GW_PARKED_MAX_TOTAL	16384	/* parked requests in all */
#define GW_WAKE_SLACK		5	/* beyond runtimed's wake timeout */
#define GW_HOLD_WAIT		30	/* runtimed's RT_HOLD_WAIT: what in
					   flight before a replacement gets */
#define GW_FD_RESERVE		64	/* fds kept from clients: channels,
					   upstreams of the last ones */
#define GW_FD_HEADROOM		8	/* accept while more than 1/8 of
					   the fds are free: for upstreams */
#define GW_ACCEPT_PAUSE_MS	500	/* no accept after EMFILE/ENFILE */
#define GW_TLS_RECORD		16384	/* bytes per tls_read/tls_write */
#define GW_TLS_READ_BUDGET	(256 * 1024)	/* per read event */
#define GW_TURN_REQUESTS	16	/* pipelined requests begun per
					   connection and turn of the loop */
#define GW_RETRY_AFTER		5	/* seconds, on 503 after a failed wake */
#define GW_REFUSED_PAUSE_MS	1000	/* runtimed found it running: no
					   new question about a refusal */
/* a wake's held requests connect a window at a time (herd.c) */
#define GW_HERD_WINDOW		16	/* connects at once, to begin */
#define GW_HERD_WINDOW_MAX	256	/* grown by one per connect */
#define GW_HERD_CONNECT_MS	25	/* a connect not done by then was
					   dropped by a full listen queue */
#define GW_HERD_TRIES		12	/* connects per request, at most */
#define GW_HERD_FRESH_MS	2000	/* after the wake: retries end */
#define GW_HERD_BACKOFF_MS	5	/* after a failed connect */
#define GW_HERD_ACK_MS		250	/* a request sent: unacknowledged and
					   sent again by then, it never
					   reached the queue */
#define GW_BUF_HIGH		(256 * 1024)	/* stop reading above this */
#define GW_FLUSH_INTERVAL	1	/* activity to the reaper, seconds */
#define GW_HEADS_CACHED		64	/* head buffers kept for reuse */
/* lingering close: input discarded after the last answer (conn_finish) */
#define GW_LINGER_TIME		30	/* seconds in all */
#define GW_LINGER_WAIT		5	/* seconds for each read */
#define GW_LINGER_BYTES		(8 * 1024 * 1024)	/* then close */

struct gw_conn;
struct gw_tcp;
struct gw_certnames;		/* tls.c */
struct gw_want;			/* tlshello.c */
struct gw_gate;			/* gate.h */
struct gate_wait;
struct gate_add;
struct h2_session;		/* h2.h */
struct h2_stream;

/*
 * A workload as the gateway knows it.  Kept across reloads while its name
 * is configured; a removed one lives on until the last connection using
 * it lets go (refs).
 */
struct gw_workload {
	RB_ENTRY(gw_workload)	 entry;		/* by name */
	const char		*name;		/* namebuf, or a key's */
	union wl_addr		 addr;		/* upstream */
	socklen_t		 addrlen;
	int64_t			 wake_timeout;	/* seconds, with the longest
						   chain it depends on */
	int64_t			 wake_wait;	/* the wake timer's, seconds */
	int64_t			 pull_timeout;	/* docker; 0: never pulls */
	enum workload_state	 state;		/* as runtimed says */
	int			 wake_pending;	/* WAKE sent, no answer */
	int			 refused_wait;	/* REFUSED sent, no answer */
	int64_t			 refused_ms;	/* monotonic: found running */
	int64_t			 backoff_end;	/* monotonic ms: a crash loop's
						   backoff ends; 0: none */
	struct wl_maint		*maint;		/* as runtimed says: on, its
						   requests answered 503;
						   NULL: off (gw_maint()) */
	uint32_t		 epoch;		/* bumped when it stops running,
						   or its instance changes */
	/* the instance its requests go to (instance.c) */
	int			 addr_rt;	/* addr is runtimed's */
	union wl_addr		 conf_addr;	/* its definition's */
	socklen_t		 conf_addrlen;
	union wl_addr		 conf_prev;	/* ... the generation before */
	socklen_t		 conf_prevlen;
	uint32_t		 bound;		/* in flight at epoch */
	uint32_t		 prev_epoch;	/* the epoch before */
	uint32_t		 prev_bound;	/* ... in flight at it */
	int			 held_wait;	/* GW_HELD once prev_bound
						   is 0 */
	union wl_addr		*nodes;		/* swarm: its tasks' nodes,
						   addr is one of them */
	uint32_t		 nnodes;
	uint32_t		 node_next;	/* the next connection's */
	int			 configured;	/* in the current generation */
	unsigned int		 refs;		/* connections using it */
	TAILQ_HEAD(, gw_conn)	 parked;
	unsigned int		 nparked;
	struct event		*wake_timer;	/* while a wake is awaited */
	/* the release of its parked requests after a wake (herd.c) */
	unsigned int		 herd_busy;	/* released, connecting */
	unsigned int		 herd_window;	/* connecting at most */
	unsigned int		 herd_thresh;	/* above: grows one a window */
	unsigned int		 herd_acked;	/* taken since it last grew */
	int			 herd_ok;	/* a connect of it succeeded */
	int			 herd_pumping;	/* herd_pump() under way */
	int			 herd_backoff;	/* herd_timer armed */
	int64_t			 herd_end;	/* monotonic ms: retries end */
	int64_t			 herd_cut_ms;	/* monotonic: window halved */
	struct event		*herd_timer;	/* backoff after a failure */
	/* activity, for the reaper */
	uint32_t		 inflight;
	uint32_t		 upgraded;
	time_t			 last_seen;	/* monotime() */
	int			 dirty;
	TAILQ_ENTRY(gw_workload) dirty_entry;
	int			 drain_watch;	/* a drain found it busy: tell
						   runtimed when it is idle */
	/*
	 * the current generation's definition (wldef.c): in full only if
	 * the request path reads it (a gate, a path, error pages, ignores,
	 * schedules), else in its small form, read back for the API by
	 * wldef_get(); both NULL once removed.  What the request path
	 * reads of every workload is copied out first (in the padding
	 * after drain_watch).
	 */
	unsigned int		 h2c:1;		/* upstream h2c */
	unsigned int		 redirect_https:1;
	unsigned int		 swarm:1;	/* driver swarm */
	unsigned int		 listens:1;	/* has TCP listeners */
	unsigned int		 grouped:1;	/* in a group */
	struct workload_conf	*def;
	struct wl_zip		*zip;
	struct sched_plan	*sched;		/* conf's schedules parsed
						   once (route_apply.c),
						   for the API; NULL: none */
	struct gw_wmetrics	 metrics;	/* for GET /metrics */
	/* what is not use (ignore.c), and what a wake's answer says */
	struct gw_filter	*filters;	/* its own ignores */
	size_t			 nfilters;
	int64_t			 tunnel_idle;	/* seconds; 0: never */
	int			 server_timing;
	/* its gate (gate_conf.c), NULL: none */
	struct gw_gate		*gate;
	/* connections to its own TCP listeners (tcp.c), held ones too */
	TAILQ_HEAD(, gw_tcp)	 tcp;
	unsigned int		 ntcp;
	char			 namebuf[];	/* as long as the name */
};
RB_HEAD(gw_workloads, gw_workload);

/* one host or "*.suffix" of a workload */
/* a workload's "path" on a host: its prefix, without a trailing '/' */
struct gw_path {
	const char		*prefix;	/* its definition's "path" */
	size_t			 len;		/* workload_path_len() */
	struct gw_workload	*wl;
	int			 strip;		/* "strip prefix" */
};

struct gw_route {
	RB_ENTRY(gw_route)	 entry;
	char			*key;		/* lower case; ".suffix" */
	struct gw_workload	*wl;		/* its "/"; NULL: none */
	struct gw_path		*paths;		/* the longest first */
	size_t			 npaths;
	char			 keybuf[];	/* key points here */
};
RB_HEAD(gw_routes, gw_route);

/* a PEM file as the parent sends it, in pieces */
struct gw_pem {
	uint8_t			*buf;
	size_t			 len;		/* received so far */
	size_t			 total;
};

/* a server context of a host's own (tls.c), counted */
struct gw_tlsctx {
	struct tls		*tls;
	unsigned int		 refs;
};

/* a keypair chosen by SNI, for every TLS listener */
struct gw_sni {
	TAILQ_ENTRY(gw_sni)	 entry;
	struct gw_pem		 cert;
	struct gw_pem		 key;
};
TAILQ_HEAD(gw_snis, gw_sni);

/*
 * A listener of one configuration generation.  A reload replaces every
 * listener by a new one (its socket is the same, duplicated), with a TLS
 * context built from the certificates of that generation: connections
 * accepted before keep the listener they came from, and its context,
 * until they close (refs).
 */
struct gw_listener {
	TAILQ_ENTRY(gw_listener) entry;
	int			 fd;		/* -1 once replaced */
	struct event		 ev;
	struct ctl_listener	 conf;
	struct tls		*tls;		/* server context, TLS only;
						   "tls acme" alone: NULL */
	struct gw_certnames	*names;		/* "tls acme": what its
						   keypairs cover (tls.c) */
	struct gw_pem		 cert;		/* until the context is built */
	struct gw_pem		 key;
	unsigned int		 refs;		/* connections */
};

/* connections per client address, for "max connections per address" */
struct gw_peer {
	RB_ENTRY(gw_peer)	 entry;
	struct netaddr		 addr;		/* netaddr_client()'s */
	unsigned int		 nconns;
};
RB_HEAD(gw_peers, gw_peer);

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
	CONN_CLOSING,		/* flushing, then close */
	CONN_API,		/* a request of the HTTP API (api.c) */
	CONN_LINGER,		/* all sent, write side shut: input is
				   discarded until EOF (conn_finish) */
	CONN_H2,		/* HTTP/2: streams are h2.c's */
	CONN_TCP,		/* a workload's TCP listener's: bytes
				   both ways (tcp.c) */
	CONN_HELLO		/* TLS: its ClientHello peeked, or held
				   for its host's certificate (tlshello.c) */
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

/*
 * What a connection is for, set by whoever takes it on: serve.c's
 * routing (the proxy, the API), tcp.c (a workload's TCP listener), h2.c
 * (an HTTP/2 session).  conn.c is the transport: it calls these and
 * names none of them.  A NULL member does what conn.c does without one.
 */
struct conn_ops {
	void	(*on_accept)(struct gw_conn *);	/* accepted */
	void	(*on_read)(struct gw_conn *);	/* input in c->in, or EOF */
	void	(*on_drained)(struct gw_conn *); /* c->out all written */
	void	(*on_timeout)(struct gw_conn *); /* conn_timer() ran out */
	void	(*on_close)(struct gw_conn *);	/* let go, before the free */
	/* held for a wake (wake.c) */
	void	(*on_woken)(struct gw_conn *);	/* the workload runs */
	void	(*on_hangup)(struct gw_conn *);	/* EV_CLOSED while held */
	void	(*on_cause)(const struct gw_conn *, struct wake_cause *);
};

/* an HTTP/2 stream's connection: bytes through h2.c, not a socket */
struct conn_stream_ops {
	void	(*on_take)(struct gw_conn *);	/* output to take */
	void	(*on_reading)(struct gw_conn *); /* reading again */
	void	(*on_close)(struct gw_conn *);
};

struct gw_conn {
	TAILQ_ENTRY(gw_conn)	 entry;		/* parked list */
	const struct conn_ops	*ops;		/* what it is for */
	const struct conn_stream_ops *sops;	/* h2stream: its stream's */
	TAILQ_ENTRY(gw_conn)	 idle_entry;	/* gw->idle, oldest first */
	int			 idle;		/* on gw->idle */
	int			 fd;
	struct event		 rev;
	struct event		 wev;
	struct event		 timer;
	int64_t			 deadline;	/* ms, conn_timer(); 0: none */
	int64_t			 timer_at;	/* ms, when timer fires at the
						   latest */
	struct evbuffer		*in;
	struct evbuffer		*out;
	enum gw_conn_state	 state;
	struct gw_listener	*listener;	/* holds a ref */
	char			 peer[64];	/* client address, text */
	struct netaddr		 peeraddr;
	struct gw_peer		*peercount;	/* when counted per address */
	int			 trusted;	/* a trusted proxy */
	int			 eof;		/* client sent FIN */
	int			 close_after;	/* close once out is flushed */
	int			 nolinger;	/* and then without reading
						   (conn_finish): an abuser */
	int			 reading;	/* conn_reading() said so */
	int			 fresh;		/* no head begun: the header
						   timeout runs from accept */
	unsigned int		 nturn;		/* requests begun this turn */
	int			 backlog;	/* pipelined input waits for
						   the next turn (conn_next) */
	int64_t			 linger_end;	/* ms: CONN_LINGER closes */
	size_t			 lingered;	/* bytes discarded */

	/* TLS: the connection's context, and a direction an op waits for */
	struct tls		*tls;
	struct gw_tlsctx	*tlsctx;	/* its host's, counted; NULL:
						   the listener's */
	struct gw_want		*want;		/* held for this certificate */
	int64_t			 hello_end;	/* ms: the head's deadline */
	int			 tls_rw;	/* read waits until writable */
	int			 tls_wr;	/* write waits until readable */

	/* the request under way */
	struct gw_head		*req;		/* while reading or parked */
	struct gw_workload	*wl;		/* routed to, holds a ref */
	enum http_method	 meth;
	int			 version;	/* 10, 11 */
	int			 keepalive;	/* client wants to persist */
	int			 upgrade;	/* asked for an upgrade */
	size_t			 path_strip;	/* bytes of the path its
						   route's "strip prefix"
						   takes off; 0: none */
	enum http_body		 reqbody;
	uint64_t		 reqleft;	/* LENGTH: bytes to forward */
	struct http_chunked	 reqchunk;
	int			 reqdone;	/* body fully forwarded */
	int			 counted;	/* in wl->inflight */
	int			 refused;	/* parked once for a refusal */
	int			 herd;		/* connecting, released by
						   herd.c: its window's */
	unsigned int		 herd_tries;	/* connects of its herd */
	int			 bound;		/* in flight upstream, counted
						   by up.epoch (instance.c) */
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

	struct api_req		*api;		/* CONN_API: the request */
	int			 accept;	/* GW_ACCEPT_*: the request's
						   Accept, for our errors */
	int			 routed;	/* a workload's request, its
						   answer not yet counted */
	/* for /metrics: the request's start, and whose bytes these are */
	int64_t			 req_ns;	/* monotonic; 0: none timed */
	int			 acct;		/* bytes count for wl */
	uint64_t		 rx_pending;	/* read before routing */
	/* for the access log: the client's bytes, read and written */
	uint64_t		 rx_total;
	uint64_t		 tx_total;
	uint64_t		 alog_rx0;	/* rx taken before this head */
	struct alog_req		*alog;		/* the request's, accesslog.c */
	/* a tunnel silent past its idle timeout, uncounted till a byte */
	int			 tunnel_idle;
	/* the wake this request waited for, for Server-Timing */
	int64_t			 park_ns;	/* monotonic, when parked */
	int64_t			 wake_us;	/* how long; -1: none */
	/* HTTP/2 (h2.c): the session, or a stream's pseudo-connection */
	struct h2_session	*h2;
	int			 h2stream;
	struct h2_stream	*h2st;		/* its stream, while both live */
	struct h2_session	*h2pool;	/* idle in this session's pool */
	int			 h2conn;	/* HTTP/2: counted, h2.c */
	/* raw TCP to a workload's own listener (tcp.c); NULL: HTTP */
	struct gw_tcp		*tcp;
	/* the gate (gate*.c): a check under way, and fields it adds */
	struct gate_wait	*gate;
	struct gate_add		*gate_add;
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
	struct gateway_conf	 conf;		/* timeouts and limits */
	unsigned int		 maxconns;	/* "max connections", or 0 */
	unsigned int		 peermax;	/* this gateway's share of "max
						   connections per address" */
	rlim_t			 nofile;	/* RLIMIT_NOFILE at start */
	unsigned int		 fdmax;		/* fds for clients, upstreams */
	unsigned int		 nups;		/* upstream fds open, and
						   tcp.c's pipes */
	TAILQ_HEAD(, gw_conn)	 idle;		/* idle keep-alive, LRU */
	int			 accepting;	/* listeners' events added */
	struct event		 accept_pause;	/* after EMFILE/ENFILE */
	struct gw_peers		 peers;
	struct gw_snis		 next_sni;	/* being configured */
	struct event		 flush_ev;
	SLIST_HEAD(, gw_head)	 heads;			/* free head buffers */
	unsigned int		 nheads;
	int			 acme;		/* a "tls acme" listener */
};

extern struct gateway	*gw;

/* route.c: lookups */
struct gw_workload	*route_lookup(const char *, size_t);
/* route_find()'s verdict on a path its host's routes cannot trust */
#define ROUTE_BAD_PATH	((struct gw_workload *)-1)
struct gw_workload	*route_find(const char *, size_t, const char *,
			    size_t, size_t *);
struct gw_workload	*gw_workload_find(const char *);
void			 gw_workload_address(struct gw_workload *,
			    const struct workload_conf *);
void			 gw_workload_conf_addresses(struct gw_workload *,
			    const struct workload_conf *);
/* route_apply.c */
void			 route_apply(struct cfg_generation *);
const char		*route_delta_check(void);
/* wlref.c */
void			 gw_workload_ref(struct gw_workload *);
void			 gw_workload_unref(struct gw_workload *);
void			 gw_workload_free_if_unused(struct gw_workload *);
int			 gw_workload_cmp(struct gw_workload *,
			    struct gw_workload *);
/* wldef.c: its definition, kept in full or small */
void			 wldef_keep(struct gw_workload *,
			    const struct workload_conf *);
void			 wldef_forget(struct gw_workload *);
struct workload_conf	*wldef_get(const struct gw_workload *);
void			 wldef_put(const struct gw_workload *,
			    struct workload_conf *);
int			 route_cmp(struct gw_route *, struct gw_route *);
RB_PROTOTYPE(gw_workloads, gw_workload, entry, gw_workload_cmp);
RB_PROTOTYPE(gw_routes, gw_route, entry, route_cmp);

/* listener.c */
void		 listener_init(void);
void		 listener_recv(struct imsgev *, struct imsg *);
void		 listener_apply(void (*)(struct gw_listener *));
void		 listener_unref(struct gw_listener *);
int		 conn_full(void);
void		 accept_update(void);
void		 accept_backoff(void);
int		 peer_cmp(struct gw_peer *, struct gw_peer *);
RB_PROTOTYPE(gw_peers, gw_peer, entry, peer_cmp);

/* tls.c */
void		 tls_recv(struct imsgev *, struct imsg *);
int		 tls_listener_setup(struct gw_listener *);
void		 tls_sni_clear(void);
int		 tls_listener_covers(const struct gw_listener *, const char *);
void		 tls_certnames_free(struct gw_listener *);
void		 pem_clear(struct gw_pem *);
struct gw_tlsctx *tls_ctx_new(const uint8_t *, size_t, const uint8_t *,
		    size_t, const char *, const char *);
void		 tls_ctx_unref(struct gw_tlsctx *);
int		 tls_conn_start(struct gw_conn *, struct tls *,
		    struct gw_tlsctx *);
ssize_t		 tls_conn_read(struct gw_conn *);
ssize_t		 tls_conn_write(struct gw_conn *);
void		 tls_conn_close(struct gw_conn *);

/* tls_check.c: gatewayd -n, for the parent */
__dead void	 tls_check_main(int, char *[]);

/* conn_timer.c */
int64_t		 conn_now_ms(void);
void		 conn_timer(struct gw_conn *, int64_t);
void		 conn_timer_ms(struct gw_conn *, int64_t);

/* conn.c: the transport */
void		 conn_init(const struct conn_ops *, const struct conn_ops *,
		    const struct conn_ops *);
void		 conn_hello_watch(struct gw_conn *, int);
void		 conn_accept(int, short, void *);
int		 conn_evict_idle(void);
void		 conn_input_wait(struct gw_conn *);
void		 conn_next(struct gw_conn *, int);
void		 conn_idle_leave(struct gw_conn *);
void		 upstream_close(struct gw_conn *);
void		 conn_error(struct gw_conn *, int, const char *);
void		 conn_close(struct gw_conn *);
void		 conn_finish(struct gw_conn *);
void		 conn_reading(struct gw_conn *, int);
void		 conn_flush(struct gw_conn *);
void		 conn_respond(struct gw_conn *, int, const char *, int);
void		 conn_answer(struct gw_conn *, int, const char *,
		    const char *);
void		 conn_answer_typed(struct gw_conn *, int, const char *,
		    const char *, const char *, size_t);
void		 conn_respond_text(struct gw_conn *, int, const char *, int,
		    const char *);
void		 conn_request_done(struct gw_conn *);
void		 conn_park_watch(struct gw_conn *, int);
struct gw_head	*head_get(void);
void		 head_put(struct gw_head *);

/* conn.c, for h2.c: a stream's pseudo-connection */
struct gw_conn	*conn_attach(struct gw_conn *, struct h2_stream *);
void		 conn_reattach(struct gw_conn *, struct h2_stream *);
void		 conn_h2_input(struct gw_conn *);
void		 conn_h2_output(struct gw_conn *);

/* h2.c */
int		 h2_input(struct gw_conn *);
void		 h2_drained(struct gw_conn *);
void		 h2_conn_closed(struct gw_conn *);
int		 h2_proxy_start(struct gw_conn *);
void		 h2_stream_take(struct gw_conn *);
int		 h2_stream_head(struct gw_conn *, struct http_head *,
		    const char *, const char *);
void		 h2_stream_trailers(struct gw_conn *);
void		 h2_listener_gone(struct gw_listener *);
unsigned int	 h2_stop(void);
void		 h2_stream_reading(struct gw_conn *);

/* bufio.c */
int		 buf_read(struct evbuffer *, int);

/* serve.c: reading and routing a request head */
extern const struct conn_ops serve_ops;
void		 serve_pass(struct gw_conn *);

/* redirect.c: "redirect https", "hsts" */
int		 redirect_request(struct gw_conn *, const struct gw_workload *);
const char	*redirect_hsts(const struct gw_conn *, const struct http_head *,
		    char *, size_t);

/* proxy.c */
void		 proxy_start(struct gw_conn *);
extern const struct conn_ops proxy_ops;

/* wake.c */
void		 wake_park(struct gw_conn *);
/* herd.c */
void		 herd_hold(struct gw_conn *, int);
void		 herd_unhold(struct gw_conn *);
void		 herd_release(struct gw_workload *, int);
int		 herd_join(struct gw_conn *);
void		 herd_connected(struct gw_conn *);
void		 herd_taken(struct gw_conn *);
void		 herd_settle(struct gw_conn *);
int		 herd_retry(struct gw_conn *);
int64_t		 herd_connect_ms(const struct gw_conn *);
int		 wake_maint(struct gw_conn *);
const struct wl_maint *gw_maint(const struct gw_workload *);
void		 gw_maint_set(struct gw_workload *, const struct wl_maint *);
int		 wake_refused(struct gw_conn *);
void		 wake_unpark(struct gw_conn *);
void		 wake_recv_state(struct imsgev *, struct imsg *);
/* state_early.c */
int		 state_early_keep(const struct rt_state *);
void		 state_early_apply(void);
void		 wake_recv_wait(struct imsgev *, struct imsg *);
void		 wake_workload_gone(struct gw_workload *);
void		 wake_timer_fired(int, short, void *);

/* drain.c */
void		 wake_recv_drain(struct imsgev *, struct imsg *);

/* instance.c: which instance requests go to, and a replacement's */
void		 instance_bind(struct gw_conn *);
void		 instance_unbind(struct gw_conn *);
void		 instance_epoch(struct gw_workload *);
void		 instance_idle(struct gw_workload *);
void		 instance_recv_route(struct imsgev *, struct imsg *);
void		 instance_recv_hold(struct imsgev *, struct imsg *);
void		 instance_pick(struct gw_workload *);
void		 instance_free(struct gw_workload *);
/* accesslog.c */
struct alog_req;
void		 accesslog_recv_fd(struct imsgev *, struct imsg *);
void		 accesslog_apply(const struct global_settings *);
void		 accesslog_flush(void);
void		 accesslog_stop(void);
uint64_t	 accesslog_drops(void);
/* hostsample.c: a minute of the host, to the reaper */
void		 hostsample_start(void);
/* alogkeep.c: each workload's last lines, to the reaper */
void		 alogkeep_add(const char *, int64_t, const char *, size_t);
void		 alogkeep_flush(void);
uint64_t	 alogkeep_drops(void);
void		 accesslog_head(struct gw_conn *, const struct gw_workload *);
void		 accesslog_status(struct gw_conn *, int, int);
void		 accesslog_park(struct gw_conn *);
void		 accesslog_gate(struct gw_conn *, const char *);
void		 accesslog_unpark(struct gw_conn *);
void		 accesslog_end(struct gw_conn *, int);
/* tcp.c: a workload's own TCP listeners */
extern const struct conn_ops tcp_ops;
void		 tcp_drain(struct gw_workload *);

/* activity.c */
void		 activity_init(void);
void		 activity_begin(struct gw_conn *);
void		 activity_end(struct gw_conn *);
void		 activity_touch(struct gw_workload *);
void		 activity_tunnel(struct gw_conn *);
void		 activity_tunnel_idle(struct gw_conn *);

/* ignore.c: requests that are not use */
void		 ignore_recv(struct imsgev *, struct imsg *);
void		 ignore_apply(struct cfg_generation *);
void		 ignore_workload(struct gw_workload *,
		    const struct workload_conf *, const struct cfg_generation *);
void		 ignore_forget(struct gw_workload *);
int		 ignore_request(struct gw_conn *);
int		 ignore_tcp(const struct gw_conn *);

/* api.c, api_conf.c: the HTTP API (api.h), hooked into conn.c */
struct api_req;
/* api_conn.c: the connection's side of an API request */
extern const struct conn_ops api_ops;
int		 api_wants(struct gw_conn *);
void		 api_request(struct gw_conn *);
void		 api_apply(struct cfg_generation *);
void		 apiconf_recv_key(struct imsgev *, struct imsg *);
void		 apiconf_recv_host(struct imsgev *, struct imsg *);
void		 api_recv_result(struct imsgev *, struct imsg *);
void		 api_recv_workload(struct imsgev *, struct imsg *);
void		 api_recv_history(struct imsgev *, struct imsg *);
void		 api_recv_end(struct imsgev *, struct imsg *);
void		 api_recv_ok(struct imsgev *, struct imsg *);
void		 api_recv_fail(struct imsgev *, struct imsg *);
void		 api_recv_logdata(struct imsgev *, struct imsg *);
void		 api_recv_metrics_expect(struct imsgev *, struct imsg *);
void		 api_recv_metrics_wl(struct imsgev *, struct imsg *);
void		 api_recv_metrics_total(struct imsgev *, struct imsg *);
void		 api_recv_metrics_procs(struct imsgev *, struct imsg *);
void		 api_recv_authlimit(struct imsgev *, struct imsg *);
void		 api_recv_authblock(struct imsgev *, struct imsg *);
/* api_conn.c, ui_sess.c: the status page's sessions, from the reaper */
void		 api_recv_sess(struct imsgev *, struct imsg *);
void		 api_recv_alog_line(struct imsgev *, struct imsg *);
void		 api_recv_alog_end(struct imsgev *, struct imsg *);
void		 api_recv_hosthist(struct imsgev *, struct imsg *);
void		 ui_recv_sess_end(struct imsgev *, struct imsg *);
/* api_events.c: GET /v1/events, from the messages that make them */
void		 api_events_state(const struct rt_state *);
void		 api_events_recv_status(struct imsgev *, struct imsg *);

#endif /* ORCHD_GATEWAY_H */
