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
 * Each event has an id, "EPOCH-R-P", the same whichever gateway of
 * "prefork N" sends it: R counts the states runtimed sent the gateways
 * (it numbers them, and EPOCH is its own, drawn at its start), P the
 * loads of orchd.conf the parent told them of.  Every gateway gets both
 * in the same order as the others, from the same senders, and keeps the
 * last API_EVENTS_RING events whether or not a client listens, so that
 * a client that reconnects with Last-Event-ID, to this gateway or
 * another, gets those it missed: those of runtimed after R and of the
 * parent after P.  One whose id this gateway cannot answer in full (the
 * ring no longer holds them, this gateway started after runtimed told
 * some, another orchd's EPOCH, an id from the future, garbage) gets
 * "event: reset" instead and must read the state again; never a replay
 * with a hole.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
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

/* where an event came from: its count is R or P of the ids */
enum ev_src {
	EV_RUNTIME,
	EV_PARENT
};

/* the last events, each as sent ("id: ...\nevent: ...\ndata: ...\n\n") */
struct ev_kept {
	uint64_t	 n;		/* this gateway's count; 0: unused */
	enum ev_src	 src;
	uint64_t	 seq;		/* R or P of this event */
	char		*text;
	size_t		 len;
};
static struct ev_kept	 ev_ring[API_EVENTS_RING];
static uint64_t		 ev_last;	/* the last event's n */
static uint32_t		 ev_epoch;	/* runtimed's; 0: none yet */
static uint64_t		 ev_r;		/* runtimed's last state's number */
static uint64_t		 ev_r_first;	/* ... the first this one got */
static uint64_t		 ev_p;		/* the parent's loads told */
static uint64_t		 ev_lost_r;	/* the newest R, P of an event */
static uint64_t		 ev_lost_p;	/*   the ring let go */

/* the next event as a stream's text, "id:" first, kept in the ring */
static struct ev_kept *
events_keep(enum ev_src src, const char *type, const char *data)
{
	struct ev_kept	*k;
	char		*text;
	int		 len;

	if ((len = asprintf(&text, "id: %08x-%llu-%llu\nevent: %s\n"
	    "data: %s\n\n", ev_epoch, (unsigned long long)ev_r,
	    (unsigned long long)ev_p, type, data)) == -1)
		return (NULL);
	ev_last++;
	k = &ev_ring[ev_last % API_EVENTS_RING];
	if (k->n != 0 && k->src == EV_RUNTIME)
		ev_lost_r = k->seq;
	else if (k->n != 0)
		ev_lost_p = k->seq;
	free(k->text);
	k->n = ev_last;
	k->src = src;
	k->seq = src == EV_RUNTIME ? ev_r : ev_p;
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

/* one event to every stream; a stream over its bound is dropped */
static void
events_emit(enum ev_src src, const struct ctl_event *ev)
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
	k = events_keep(src, event_type_name(ev->type), data);
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

/* a number of at most 20 digits at *p, up to stop; -1 if none */
static int
events_num(const char **p, char stop, uint64_t *v)
{
	const char		*s = *p;
	unsigned long long	 n = 0;
	int			 i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i >= 19 || n > (ULLONG_MAX - 9) / 10)
			return (-1);
		n = n * 10 + (unsigned long long)(s[i] - '0');
	}
	if (i == 0 || s[i] != stop)
		return (-1);
	*v = n;
	*p = s + i + (stop != '\0');
	return (0);
}

/*
 * The request's Last-Event-ID, if any, before its head is gone: an id
 * of this orchd, "EPOCH-R-P", sets r->lastev_ok; any other, a reset.
 */
void
api_events_lastid(struct api_req *r, const struct http_head *h)
{
	const struct http_field	*f;
	char			 buf[64], *end;
	const char		*p;
	unsigned long		 epoch;

	if ((f = http_head_find(h, "Last-Event-ID")) == NULL)
		return;
	r->lastev_set = 1;
	r->lastev_ok = 0;
	if (f->valuelen < 12 || f->valuelen >= sizeof(buf))
		return;
	memcpy(buf, f->value, f->valuelen);
	buf[f->valuelen] = '\0';
	if (buf[8] != '-')
		return;
	epoch = strtoul(buf, &end, 16);
	if (end != buf + 8 || epoch != ev_epoch)
		return;
	p = buf + 9;
	if (events_num(&p, '-', &r->lastev_r) == -1 ||
	    events_num(&p, '\0', &r->lastev_p) == -1)
		return;
	r->lastev_ok = 1;
}

/*
 * What a reconnecting client missed, or a reset when this gateway cannot
 * say for sure it has it all, or it is more than a stream may hold.
 */
static void
events_replay(struct api_req *r)
{
	struct evbuffer	*out = r->c->out;
	uint64_t	 n, oldest, R = r->lastev_r, P = r->lastev_p;
	size_t		 total = 0;
	struct ev_kept	*k;
	int		 pass;

	if (!r->lastev_ok || R > ev_r || P > ev_p ||
	    (ev_r_first > 0 && R + 1 < ev_r_first) ||
	    R < ev_lost_r || P < ev_lost_p)
		goto reset;
	oldest = ev_last >= API_EVENTS_RING ? ev_last - API_EVENTS_RING + 1 :
	    1;
	/* the first pass counts, the second sends */
	for (pass = 0; pass < 2; pass++) {
		for (n = oldest; n <= ev_last; n++) {
			k = &ev_ring[n % API_EVENTS_RING];
			if (k->n != n || k->seq <= (k->src == EV_RUNTIME ?
			    R : P))
				continue;
			if (pass == 1)
				evbuffer_add(out, k->text, k->len);
			else if ((total += k->len) > API_EVENTS_BUF / 2)
				goto reset;
		}
	}
	return;
 reset:
	/* the last event's id: reconnecting again, a client is up to date */
	evbuffer_add_printf(out, "id: %08x-%llu-%llu\nevent: reset\ndata: "
	    "{\"type\":\"reset\",\"reason\":\"events missed\"}\n\n",
	    ev_epoch, (unsigned long long)ev_r, (unsigned long long)ev_p);
}

/*
 * A state from runtimed, numbered; one told again is no event, but its
 * number counts.  Kept whether or not a client listens: one may come
 * back with an id from before.  A new epoch (runtimed is never started
 * again while orchd runs) forgets the old numbers.
 */
void
api_events_state(const struct rt_state *st)
{
	struct ctl_event	 ev;

	if (st->ev_seq == 0)
		return;		/* not numbered: never an event */
	if (st->ev_epoch != ev_epoch) {
		ev_epoch = st->ev_epoch;
		ev_r_first = st->ev_seq;
		ev_lost_r = ev_lost_p = 0;
	}
	ev_r = st->ev_seq;
	if (event_from_state(&ev, st) == 0)
		events_emit(EV_RUNTIME, &ev);
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
	ev_p++;
	events_emit(EV_PARENT, &ev);
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
