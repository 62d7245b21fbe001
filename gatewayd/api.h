/*
 * The HTTP API that gatewayd serves: its limits, what a request asks for
 * (api_route.c), its JSON (api_json.c), the Prometheus text format
 * (prom.c), the bearer key and the slowing down of those who guess it
 * (api_auth.c), its configuration (api_conf.c) and the requests under
 * way (api.c).  The pure pieces know nothing of connections or events,
 * so that they can be tested alone (regress/unit/test_api.c).
 */

#ifndef ORCHD_GATEWAY_API_H
#define ORCHD_GATEWAY_API_H

#include <sys/types.h>
#include <sys/tree.h>

#include <event.h>
#include <jansson.h>
#include <stdint.h>

#include "http.h"
#include "msg.h"
#include "workload.h"

#define API_BODY_MAX		(1024 * 1024)	/* a request body: 413 */
#define API_TAIL_DEFAULT	100		/* lines of logs */
#define API_TAIL_MAX		10000
#define API_PAGE_DEFAULT	1000		/* workloads of a list */
#define API_PAGE_MAX_TEXT	"10000"		/* CTL_PAGE_MAX, said */
#define API_LOGS_MAX		(8 * 1024 * 1024) /* bytes of one answer */
#define API_REQS_MAX		256	/* waiting on another process */
#define API_LOGS_STREAMS_MAX	8	/* log answers at once */
#define API_STORE_WAIT		5	/* seconds for the store */
#define API_PARENT_WAIT		30	/* ... the parent, create, delete,
						   update */
#define API_RUNTIME_WAIT	15	/* ... runtimed, keepwarm */
#define API_SUSPEND_WAIT	60	/* ... a suspend (stop grace) */
#define API_LOGS_WAIT		30	/* ... between two pieces of log */
#define API_RETRY_AFTER		5	/* seconds, with a 503 */
#define API_EVENTS_MAX		64	/* event streams per gateway */
#define API_EVENTS_BUF		(64 * 1024) /* a stream's unsent bytes */
#define API_EVENTS_SNDBUF	(16 * 1024) /* and its socket's buffer */
#define API_EVENTS_PING		25	/* seconds between comments */
#define API_EVENTS_RING		1024	/* kept for Last-Event-ID */

/* every answer under /ui/ (ui.c): the page loads nothing from elsewhere */
#define UI_HEADERS \
	"Content-Security-Policy: default-src 'self'; script-src 'self'; " \
	"style-src 'self'; img-src 'self' data:; connect-src 'self'; " \
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'\r\n" \
	"Referrer-Policy: no-referrer\r\n" \
	"X-Frame-Options: DENY\r\n" \
	"Cross-Origin-Opener-Policy: same-origin\r\n"
#define UI_LOGIN_MAX		4096	/* bytes of a login's form */
#define UI_CACHE_MAX		256	/* sessions a gateway keeps */
#define UI_CACHE_MS		5000	/* ... this long, then asks */
#define UI_REAPER_WAIT		5	/* seconds for the reaper */
#define UI_ASK_AGAIN_MS		250	/* a cookie it lacks: asked again */

/* the bearer key's guessers, per client address */
#define AUTH_TABLE_MAX		1024	/* addresses remembered, LRU */
#define AUTH_FREE		3	/* failures answered at once */
#define AUTH_DELAY_MS		500	/* then this, doubling */
#define AUTH_DELAY_MAX_MS	10000
#define AUTH_FORGET_MS		(10 * 60 * 1000)
/* and their count for every gateway, in the reaper (reaperd/authlim.c) */
#define AUTH_VERDICT_WAIT_MS	1000	/* for its answer, at most */
#define AUTH_WAITS_MAX		1024	/* wrong keys waiting for it */
#define AUTH_BLOCK_MAX		1024	/* addresses it said are over */
#define AUTH_BLOCK_MAX_MS	(10 * 60 * 1000)	/* at the most */

enum api_op {
	API_NONE = 0,
	API_LIST,			/* GET /v1/workloads */
	API_CREATE,			/* POST /v1/workloads */
	API_GET,			/* GET /v1/workloads/{id} */
	API_DELETE,			/* DELETE /v1/workloads/{id} */
	API_KEEPWARM,			/* POST .../{id}/keepwarm */
	API_WAKE,			/* POST .../{id}/wake */
	API_SUSPEND,			/* POST .../{id}/suspend */
	API_LOGS,			/* GET .../{id}/logs?tail=N */
	API_HISTORY,			/* GET .../{id}/history */
	API_METRICS,			/* GET /metrics */
	API_HEALTHZ,			/* GET /healthz */
	API_EVENTS,			/* GET /v1/events */
	API_UPDATE,			/* PUT /v1/workloads/{id} */
	API_PATCH,			/* PATCH /v1/workloads/{id} */
	/* the status page, "status page" (ui.c) */
	API_UI_ASSET,			/* GET /ui/, /ui/NAME.HASH.EXT */
	API_UI_LOGIN,			/* POST /ui/login */
	API_UI_LOGOUT,			/* POST /ui/logout */
	API_UI_SESSION,			/* GET /ui/session */
	/* a group's members, each in turn (api_group.c) */
	API_GROUP,			/* POST /v1/groups/{g}/{action},
					   DELETE /v1/groups/{g} */
	API_ACCESS,			/* GET .../{id}/access?limit=N */
	API_RESTART,			/* POST .../{id}/restart */
	API_HOST_HISTORY,		/* GET /v1/host/history */
	API_MAINT			/* POST .../{id}/maintenance */
};

/* what a request line asks for: an op, or the error to answer */
struct api_target {
	enum api_op		 op;
	char			 name[ORCHD_NAME_MAX];
	int32_t			 tail;		/* API_LOGS; API_ACCESS's and
						   API_LIST's limit */
	char			 after[ORCHD_NAME_MAX]; /* API_LIST: its
						   page is after this */
	int			 status;	/* 0, or the error's */
	const char		*error;
	const char		*allow;		/* with 405 */
	int			 open;		/* no key wanted: /healthz */
	int			 ui;		/* under /ui/: its headers */
	enum api_op		 gop;		/* API_GROUP: what to each
						   member: API_WAKE, ... */
	int			 volumes;	/* a delete: ?volumes=true,
						   its API volumes too */
};

/* api_conf.c (its message handlers are in gateway.h) */
const uint8_t	*apiconf_key(size_t *);
int		 apiconf_metrics_public(void);
int		 apiconf_host_match(const char *, size_t);
const uint8_t	*apiconf_status_key(size_t *);
int		 apiconf_status_page(void);
int64_t		 apiconf_status_session(void);

/* api_route.c */
int		 api_route(enum http_method, const char *, size_t,
		    struct api_target *);

/* api_json.c */
struct sched_plan;
json_t		*apij_workload(const struct workload_conf *,
		    const struct sched_plan *, const struct ctl_workload *,
		    int64_t, int64_t);
json_t		*apij_transition(const struct ctl_transition *);
json_t		*apij_next(const struct sched_plan *, int, int);
json_t		*apij_action(const char *, int, int);
char		*apij_error(const char *);
int		 apij_keepwarm_until(const char *, size_t, int64_t, int *,
		    int64_t *, char *, size_t);
int		 apij_parse_time(const char *, int64_t *);
int		 apij_maint(const char *, size_t, int64_t, struct wl_maint *,
		    char *, size_t);
int		 apij_time(int64_t, char *, size_t);

/* prom.c: the Prometheus text format, version 0.0.4 */
void		 prom_family(struct evbuffer *, const char *, const char *,
		    const char *);
size_t		 prom_escape(char *, size_t, const char *);
void		 prom_value(char *, size_t, double);
void		 prom_sample(struct evbuffer *, const char *, const char *,
		    double);
void		 prom_sample_u64(struct evbuffer *, const char *,
		    const char *, uint64_t);
size_t		 prom_bucket(const double *, size_t, double);
void		 prom_histogram(struct evbuffer *, const char *, const char *,
		    const double *, const uint64_t *, size_t, double);

/* ui_sess.c: the status page's sessions, as this gateway knows them */
int		 ui_cookie(const struct http_head *, uint8_t *);
int		 ui_hexval(const char *, size_t, uint8_t *, size_t);
void		 ui_hex(const uint8_t *, size_t, char *);
const struct ui_sess *ui_cache_find(const uint8_t *, int64_t, int64_t);
void		 ui_cache_put(const struct ui_sess *, int64_t);
void		 ui_cache_drop(const uint8_t *);
void		 ui_sess_new(struct ui_sess *, int, int64_t, int64_t);
int		 ui_csrf_ok(const struct ui_sess *, const char *);
int		 ui_cookie_op(enum api_op);
int		 ui_action_op(enum api_op);
void		 ui_cache_drop_kind(int);

/* api_auth.c */
int		 auth_bearer(const char *, size_t, const char **, size_t *);
int		 auth_key_match(const uint8_t *, size_t, const char *, size_t);
int64_t		 auth_failed(const char *, int64_t);
void		 auth_succeeded(const char *);
void		 auth_block(const struct netaddr *, int64_t, int64_t);
int64_t		 auth_blocked(const struct netaddr *, int64_t);
void		 auth_clear(void);
size_t		 auth_entries(void);

#endif /* ORCHD_GATEWAY_API_H */
