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
 *
 * Each event has an id, "EPOCH-N": EPOCH is 8 hex digits drawn when
 * this gateway starts, N counts its events from 1.  The last
 * API_EVENTS_RING events are kept, so that a client that reconnects with
 * Last-Event-ID gets those it missed; one whose id is older than that,
 * or another gateway's (the EPOCH differs: "prefork", or a gateway
 * restarted), gets "event: reset" instead and must read the state
 * again.  Every gateway numbers its own: the events come to each from
 * runtimed and the parent, but a gateway started later has seen fewer.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
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
#define EVENTS_RETRY_MS	2000	/* a reconnecting client waits this */

/* the last events, each as sent ("id: ...\nevent: ...\ndata: ...\n\n") */
struct ev_kept {
	uint64_t	 n;		/* 0: unused */
	char		*text;
	size_t		 len;
};
static struct ev_kept	 ev_ring[API_EVENTS_RING];
static uint64_t		 ev_last;	/* the last event's N */
static uint32_t		 ev_epoch;

static uint32_t
events_epoch(void)
{
	while (ev_epoch == 0)
		ev_epoch = arc4random();
	return (ev_epoch);
}

/* the next event as a stream's text, "id:" first, kept in the ring */
static struct ev_kept *
events_keep(const char *type, const char *data)
{
	struct ev_kept	*k;
	char		*text;
	int		 len;

	if ((len = asprintf(&text, "id: %08x-%llu\nevent: %s\ndata: %s\n\n",
	    events_epoch(), (unsigned long long)(ev_last + 1), type,
	    data)) == -1)
		return (NULL);
	ev_last++;
	k = &ev_ring[ev_last % API_EVENTS_RING];
	free(k->text);
	k->n = ev_last;
	k->text = text;
	k->len = (size_t)len;
	return (k);
}


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
	struct ev_kept	*k;
	json_t		*o;
	char		*data;

	if ((o = event_json(ev)) == NULL ||
	    (data = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
	    NULL) {
		json_decref(o);
		log_warnx("api: an event could not be encoded");
		return;
	}
	json_decref(o);
	k = events_keep(event_type_name(ev->type), data);
	free(data);
	if (k == NULL) {
		log_warnx("api: an event could not be kept");
		return;
	}
	TAILQ_FOREACH_SAFE(r, &api_evstreams, evs_entry, next) {
		if (evbuffer_get_length(r->c->out) + k->len > API_EVENTS_BUF) {
			events_drop(r, "it reads too slowly");
			continue;
		}
		evbuffer_add(r->c->out, k->text, k->len);
		conn_flush(r->c);
	}
}

/*
 * The request's Last-Event-ID, if any, before its head is gone: "EPOCH-N"
 * of this gateway, else r->lastev 0 with r->lastev_set (a reset).
 */
void
api_events_lastid(struct api_req *r, const struct http_head *h)
{
	const struct http_field	*f;
	char			 buf[32], *end;
	unsigned long		 epoch;
	unsigned long long	 n;

	if ((f = http_head_find(h, "Last-Event-ID")) == NULL)
		return;
	r->lastev_set = 1;
	r->lastev = 0;
	if (f->valuelen == 0 || f->valuelen >= sizeof(buf))
		return;
	memcpy(buf, f->value, f->valuelen);
	buf[f->valuelen] = '\0';
	if (strlen(buf) < 10 || buf[8] != '-')
		return;
	errno = 0;
	epoch = strtoul(buf, &end, 16);
	if (end != buf + 8 || epoch != events_epoch())
		return;
	if (buf[9] < '0' || buf[9] > '9')
		return;
	n = strtoull(buf + 9, &end, 10);
	if (*end != '\0' || errno != 0)
		return;
	r->lastev = n;
}

/*
 * What a reconnecting client missed, or a reset when the ring no longer
 * holds it all, the id is not ours, or it is more than a stream may hold.
 */
static void
events_replay(struct api_req *r)
{
	struct evbuffer	*out = r->c->out;
	uint64_t	 n, oldest;
	size_t		 total = 0;
	struct ev_kept	*k;

	oldest = ev_last >= API_EVENTS_RING ? ev_last - API_EVENTS_RING + 1 :
	    1;
	if (r->lastev == 0 || r->lastev > ev_last || r->lastev + 1 < oldest)
		goto reset;
	for (n = r->lastev + 1; n <= ev_last; n++) {
		k = &ev_ring[n % API_EVENTS_RING];
		if (k->n != n || (total += k->len) > API_EVENTS_BUF / 2)
			goto reset;
	}
	for (n = r->lastev + 1; n <= ev_last; n++) {
		k = &ev_ring[n % API_EVENTS_RING];
		evbuffer_add(out, k->text, k->len);
	}
	return;
 reset:
	/* the last event's id: reconnecting again, a client is up to date */
	evbuffer_add_printf(out, "id: %08x-%llu\nevent: reset\ndata: "
	    "{\"type\":\"reset\",\"reason\":\"events missed\"}\n\n",
	    events_epoch(), (unsigned long long)ev_last);
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
	evbuffer_add_printf(c->out, "retry: %d\n\n", EVENTS_RETRY_MS);
	if (r->lastev_set)
		events_replay(r);
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
