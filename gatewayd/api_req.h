/*
 * An API request under way in the gateway, shared by api.c (the request:
 * key, body, answers, waiting) and api_ops.c (the operations).
 */

#ifndef ORCHD_GATEWAY_API_REQ_H
#define ORCHD_GATEWAY_API_REQ_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <stddef.h>
#include <stdint.h>

#include <event.h>
#include <jansson.h>

#include "api.h"
#include "gateway.h"
#include "http.h"
#include "imsg.h"
#include "metrics.h"
#include "msg.h"
#include "proc.h"

#define RETRY_AFTER	"Retry-After: 5\r\n"	/* API_RETRY_AFTER */
#define CT_JSON		"application/json"
#define CT_TEXT		"text/plain; charset=utf-8"
#define CT_METRICS	"text/plain; version=0.0.4; charset=utf-8"

enum api_phase {
	PH_START = 0,
	PH_BODY,			/* reading the request body */
	PH_DELAY,			/* holding a 401 for a guesser, and
					   asking the reaper for its count */
	PH_WAIT,			/* asked another process */
	PH_STREAM,			/* logs: the answer is going out */
	PH_EVENTS,			/* events: streamed until the close */
	PH_SESSAGAIN			/* a cookie the reaper did not know,
					   asked once more after a while */
};

struct api_req {
	RB_ENTRY(api_req)	 entry;		/* by id, while asking */
	uint32_t		 id;		/* 0: not asking */
	struct gw_conn		*c;
	struct api_target	 t;
	enum api_phase		 phase;
	int			 nokey;		/* none is configured */
	int			 token;		/* one was given */
	int			 logs;		/* counted in api_nlogs */
	struct evbuffer		*body;
	struct http_chunked	 chunk;
	json_t			*items;		/* the store's answer */
	json_t			*group;		/* API_GROUP: the members'
						   names, in order */
	size_t			 gnext;		/* ... the one asked */
	int			 keep_on;	/* keepwarm */
	int64_t			 keep_until;	/* its end, 0: none */
	struct wl_maint		 maint;		/* maintenance */
	size_t			 sent;		/* logs: bytes */
	int			 chunked;	/* logs: chunked coding */
	struct metrics_sum	*msum;		/* metrics: the others' */
	int64_t			 deny_ms;	/* PH_DELAY: the 401 not before */
	int			 authwait;	/* counted in api_authwaits */
	int			 verdict;	/* the reaper answered */
	int			 events;	/* an events stream */
	/* the status page's session cookie (ui_sess.c, api_conn.c) */
	int			 expect;	/* 100-continue, kept */
	int			 cookie;	/* orchd_session= was sent */
	uint8_t			 sessid[UI_SESS_IDLEN];
	char			 csrfhdr[UI_SESS_IDLEN * 2 + 1]; /* "" */
	int			 sessok;	/* authorized by sess */
	int			 sessagain;	/* the reaper asked twice */
	struct ui_sess		 sess;
	int			 lastev_set;	/* events: Last-Event-ID */
	int			 lastev_ok;	/* ... of this orchd: R, P */
	uint64_t		 lastev_r;
	uint64_t		 lastev_p;
	const char		*cache;		/* Cache-Control; NULL:
						   no-store */
	TAILQ_ENTRY(api_req)	 evs_entry;	/* ... in api_events.c's list */
};

extern unsigned int	 api_nlogs;	/* log answers under way */
TAILQ_HEAD(api_evstreams, api_req);
extern struct api_evstreams api_evstreams; /* api_events.c's, in api.c */
extern unsigned int	 api_nevstreams;

/* api_group.c */
void			 api_group(struct api_req *);
void			 api_group_answer(struct api_req *, const char *);

/* api.c */
struct api_req		*api_find(uint32_t);
struct gw_workload	*api_workload(const char *);
int			 api_list_begin(struct api_req *);
void			 api_done(struct api_req *);
void			 api_head(struct api_req *, int, const char *,
			    const char *, ssize_t);
void			 api_body(struct api_req *, const void *, size_t);
void			 api_send(struct api_req *, int, const char *,
			    const char *, const char *, size_t);
void			 api_error(struct api_req *, int, const char *,
			    const char *);
int			 api_keepwarm_body(struct api_req *);
int			 api_maint_body(struct api_req *);
void			 api_json(struct api_req *, int, json_t *,
			    const char *);
int			 api_ask(struct api_req *, enum privsep_procid,
			    uint32_t, const void *, size_t, int64_t);
struct api_req		*api_answered(struct imsgev *, struct imsg *,
			    enum privsep_procid);
void			 api_free(struct api_req *);
int64_t			 api_body_timeout(void);
int			 api_authorized(struct api_req *,
			    const struct http_head *);
void			 api_unauthorized(struct api_req *);
void			 api_limited(struct api_req *, int);
void			 api_deny(struct api_req *);
void			 api_unask(struct api_req *);
void			 api_see_other(struct api_req *, const char *,
			    const char *);

/* api_define.c: the definitions of create, PUT and PATCH, packed */
void			*api_define_create(struct api_req *, size_t *);
void			*api_define_update(struct api_req *, size_t *);

/* api_events.c: GET /v1/events */
void			 api_events(struct api_req *);
void			 api_events_ping(struct api_req *);
void			 api_events_readable(struct api_req *);
void			 api_events_lastid(struct api_req *,
			    const struct http_head *);

/* ui.c: the status page's own requests */
void			 ui_asset(struct api_req *);
void			 ui_login(struct api_req *);
void			 ui_logout(struct api_req *);
void			 ui_session(struct api_req *);

/* api_ops.c */
void			 api_dispatch(struct api_req *);
/* api_access.c */
void			 api_access(struct api_req *);
void			 api_host_history(struct api_req *);
void			 api_logs_stop(struct api_req *);
void			 api_logs_abort(struct api_req *);

#endif /* ORCHD_GATEWAY_API_REQ_H */
