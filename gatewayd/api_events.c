/*
 * GET /v1/events: what happens, as it happens, as Server-Sent Events
 * (text/event-stream): every change of state runtimed reports, with the
 * cause of a wake, and every load of orchd.conf the parent reports, each
 * as "event: TYPE" and one line of JSON data (common/event.c, the same
 * as orchctl -j monitor).  Each gateway streams to its own clients from
 * the messages it gets anyway (IMSG_RT_STATE, IMSG_CFG_STATUS): nothing
 * is asked of another process and nothing on the request path changes.
 *
 * A slow reader is dropped, never waited for: what it has not taken is
 * bounded by the socket's send buffer, made small (API_EVENTS_SNDBUF),
 * and API_EVENTS_BUF bytes of ours; an event that would go beyond that
 * closes its connection instead.  A comment every API_EVENTS_PING
 * seconds keeps proxies from timing the stream out and finds clients
 * that left.  The body runs to the close: no length, no chunks.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event_json.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"
#include "metrics.h"

#define CT_EVENTS	"text/event-stream"


static void
events_drop(struct api_req *r, const char *why)
{
	log_info("%s: api: events stream dropped: %s", r->c->peer, why);
	conn_close(r->c);
}

/*
 * One event to every stream; a stream over its bound is dropped.  The
 * hook for the events no message carries yet: an eviction or a restart
 * that runtimed reports is handed here, as to the parent's
 * control_event() for orchctl monitor.
 */
void
api_events_emit(const struct ctl_event *ev)
{
	struct api_req	*r, *next;
	json_t		*o;
	char		*data;
	size_t		 len;
	char		 head[64];

	if (TAILQ_EMPTY(&api_evstreams))
		return;
	if ((o = event_json(ev)) == NULL ||
	    (data = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
	    NULL) {
		json_decref(o);
		log_warnx("api: an event could not be encoded");
		return;
	}
	json_decref(o);
	(void)snprintf(head, sizeof(head), "event: %s\ndata: ",
	    event_type_name(ev->type));
	len = strlen(head) + strlen(data) + 2;
	TAILQ_FOREACH_SAFE(r, &api_evstreams, evs_entry, next) {
		if (evbuffer_get_length(r->c->out) + len > API_EVENTS_BUF) {
			events_drop(r, "it reads too slowly");
			continue;
		}
		evbuffer_add_printf(r->c->out, "%s%s\n\n", head, data);
		conn_flush(r->c);
	}
	free(data);
}

/* a change of state from runtimed; one told again is no event */
void
api_events_state(const struct rt_state *st)
{
	struct ctl_event	 ev;

	if (!TAILQ_EMPTY(&api_evstreams) && event_from_state(&ev, st) == 0)
		api_events_emit(&ev);
}

/* the parent loaded orchd.conf, or refused to; for /metrics first */
void
api_events_recv_status(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_status	 cs;
	struct ctl_event	 ev;
	int64_t			 ms;

	metrics_recv_status(iev, imsg);
	(void)imsg_get_data(imsg, &cs, sizeof(cs));
	ms = walltime_ms();
	event_reload(&ev, cs.reload_ok, cs.reload_ok && cs.reload_ms > 0 ?
	    cs.reload_ms : ms);
	api_events_emit(&ev);
}

/*
 * The request: the head, then the stream for as long as the client
 * stays.  Its input is read only to see it leave.
 */
void
api_events(struct api_req *r)
{
	struct gw_conn	*c = r->c;
	int		 sndbuf = API_EVENTS_SNDBUF;

	if (api_nevstreams >= API_EVENTS_MAX) {
		api_error(r, 503, "too many event streams", RETRY_AFTER);
		return;
	}
	if (setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof(sndbuf)) == -1)
		log_warn("%s: api: events: SO_SNDBUF", c->peer);
	r->chunked = 0;
	api_head(r, 200, CT_EVENTS, NULL, -1);
	/* a client that reconnects waits a little first */
	evbuffer_add_printf(c->out, "retry: %d\n\n", API_RETRY_AFTER * 1000);
	r->phase = PH_EVENTS;
	r->events = 1;
	TAILQ_INSERT_TAIL(&api_evstreams, r, evs_entry);
	api_nevstreams++;
	log_debug("%s: api: events stream, %u open", c->peer, api_nevstreams);
	conn_timer(c, API_EVENTS_PING);
	conn_reading(c, 1);
	conn_flush(c);
}

/* the connection's timer: a comment, unless the client is too slow */
void
api_events_ping(struct api_req *r)
{
	if (evbuffer_get_length(r->c->out) + 3 > API_EVENTS_BUF) {
		events_drop(r, "it reads too slowly");
		return;
	}
	evbuffer_add(r->c->out, ":\n\n", 3);
	conn_timer(r->c, API_EVENTS_PING);
	conn_flush(r->c);
}

/* bytes from a stream's client: nothing is expected but its leaving */
void
api_events_readable(struct api_req *r)
{
	struct gw_conn	*c = r->c;

	evbuffer_drain(c->in, evbuffer_get_length(c->in));
	if (c->eof)
		conn_close(c);
}
