/*
 * What happens to orchd's containers, told by the daemon's events
 * stream: one long-lived GET /events, filtered to the start, die, oom,
 * kill and destroy events of containers labelled org.orchd.workload and
 * org.orchd.instance=<this instance>, one JSON object a line: another
 * instance's containers on the same daemon are none of ours, and their
 * events never reach runtimed.  An event only names the workload and the
 * container: driver_docker.c inspects the container before it believes
 * anything that changes a state.
 *
 * The stream is opened with the first docker workload.  When it breaks
 * (the daemon restarted, a proxy in front of it cut it) it is opened
 * again at once; if that fails, or it broke again as soon as it opened,
 * after a pause of EVENTS_RETRY_MIN_MS that doubles up to
 * EVENTS_RETRY_MAX_MS, so that a daemon that is down costs little and is
 * seen within seconds of coming back.  Each time it opens, what happened
 * while nobody listened is made up for: every container of orchd's is
 * compared with what runtimed believes (docker_reconcile()).
 *
 * With "docker labels on" a second stream, the same way kept open,
 * follows the containers carrying org.orchd.host that someone else made
 * (labels.c, which reads its lines); a line of it never reaches the
 * driver's handling of orchd's own.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "timer.h"
#include "units.h"
#include "docker.h"

#define EVENTS_RETRY_MIN_MS	250
#define EVENTS_RETRY_MAX_MS	5000
#define EVENTS_STEADY_MS	1000	/* open that long: reopened at once */
#define EVENTS_LINE_MAX		(64 * 1024)

/* one events stream, kept open */
struct dk_stream {
	const char	*what;			/* for the log */
	enum dk_call	 call;
	void		(*line)(const char *, size_t);
	void		(*opened)(void);	/* made up for what was missed */
	struct dk_req	*req;
	struct evbuffer	*buf;
	struct event	 timer;
	int		 started;
	int64_t		 delay;
	int64_t		 since;			/* monotonic ms, when up */
	int		 up;			/* it is open now */
};

static void	events_line(const char *, size_t);
static void	events_reconcile(void);
static void	events_open(struct dk_stream *);

static struct dk_stream	 orchd_stream = {
	.what = "events stream",
	.call = DK_EVENTS,
	.line = events_line,
	.opened = events_reconcile
};
static struct dk_stream	 label_stream = {
	.what = "labelled containers' events stream",
	.call = DK_LABEL_EVENTS
};

static void
events_reconcile(void)
{
	docker_events_to.reconcile();
}

static void
events_retry(int fd, short event, void *arg)
{
	events_open(arg);
}

static void
events_later(struct dk_stream *st)
{
	evtimer_add_ms(&st->timer, st->delay);
	st->delay = MINIMUM(st->delay * 2, EVENTS_RETRY_MAX_MS);
}

/* the events runtimed acts on, by their Action */
static const struct {
	const char	*action;
	enum dk_ev	 ev;
} events_actions[] = {
	{ "start",	DK_EV_START },
	{ "die",	DK_EV_DIE },
	{ "oom",	DK_EV_OOM },
	{ "kill",	DK_EV_KILL },
	{ "destroy",	DK_EV_DESTROY }
};

/* the enum dk_ev of an event's Action, or -1 for one of no interest */
int
dk_ev_action(const char *action)
{
	size_t	 i;

	for (i = 0; i < nitems(events_actions); i++)
		if (strcmp(action, events_actions[i].action) == 0)
			return (events_actions[i].ev);
	return (-1);
}

/*
 * One event: {"Type":"container","Action":"die","Actor":{"ID":...,
 * "Attributes":{"name":"orchd-i-x","org.orchd.workload":"x",
 * "org.orchd.instance":"i",...}}}
 */
static void
events_line(const char *line, size_t len)
{
	json_error_t	 jerr;
	json_t		*o, *actor, *attrs;
	struct dk_event	 e;
	const char	*action, *sig, *errstr, *inst;
	int		 ev;

	if ((o = json_loadb(line, len, 0, &jerr)) == NULL) {
		log_debug("docker: events: %s", jerr.text);
		return;
	}
	memset(&e, 0, sizeof(e));
	actor = json_object_get(o, "Actor");
	attrs = json_object_get(actor, "Attributes");
	e.workload = json_string_value(json_object_get(attrs,
	    DK_LABEL_WORKLOAD));
	e.cname = json_string_value(json_object_get(attrs, "name"));
	e.id = json_string_value(json_object_get(actor, "ID"));
	action = json_string_value(json_object_get(o, "Action"));
	/* another instance's: the filter leaves them out, and so does this */
	inst = json_string_value(json_object_get(attrs, DK_LABEL_INSTANCE));
	if (e.workload == NULL || e.id == NULL || action == NULL ||
	    inst == NULL || strcmp(inst, dk_instance()) != 0) {
		json_decref(o);
		return;
	}
	if ((ev = dk_ev_action(action)) == -1) {
		json_decref(o);
		return;
	}
	e.ev = ev;
	/* a kill's signal: a number ("9"), or a name; 0 if neither */
	if ((sig = json_string_value(json_object_get(attrs, "signal"))) !=
	    NULL && (e.signal = strtonum(sig, 1, 64, &errstr)) == 0 &&
	    parse_signal(sig, &e.signal, NULL) == -1)
		e.signal = 0;
	log_debug("docker: container %.12s of %s: %s", e.id, e.workload,
	    action);
	docker_events_to.event(&e);
	json_decref(o);
}

static void
events_data(const char *data, size_t len, void *arg)
{
	struct dk_stream	*st = arg;
	const char		*p, *nl;
	size_t			 n;

	if (data == NULL) {
		/* the daemon answered: listening again */
		log_debug("docker: %s open", st->what);
		st->delay = EVENTS_RETRY_MIN_MS;
		st->since = monotime_ms();
		st->up = 1;
		/* what was missed meanwhile, or before the first open */
		st->opened();
		return;
	}
	if (evbuffer_add(st->buf, data, len) == -1)
		return;
	for (;;) {
		n = evbuffer_get_length(st->buf);
		p = (const char *)evbuffer_pullup(st->buf, -1);
		if (p == NULL || (nl = memchr(p, '\n', n)) == NULL)
			break;
		if (nl > p)
			st->line(p, nl - p);
		evbuffer_drain(st->buf, nl - p + 1);
	}
	if (evbuffer_get_length(st->buf) > EVENTS_LINE_MAX) {
		log_warnx("docker: %s: line too long, dropped", st->what);
		evbuffer_drain(st->buf, evbuffer_get_length(st->buf));
	}
}

static void
events_done(const struct dk_resp *r, void *arg)
{
	struct dk_stream	*st = arg;
	int			 was_up = st->up;

	st->req = NULL;
	st->up = 0;
	evbuffer_drain(st->buf, evbuffer_get_length(st->buf));
	/* a daemon that went away is news; one still away is not */
	if (was_up)
		log_warnx("docker: %s from %s lost: %s", st->what, dk_where(),
		    r->err != NULL ? r->err : "it ended");
	else
		log_debug("docker: %s: %s", st->what, r->err != NULL ?
		    r->err : "refused");
	/*
	 * Lost after a while: at once, since every moment unheard is a
	 * moment a dead container is routed to.  Lost as soon as it
	 * opened, or not opened: later, so as not to spin.
	 */
	if (was_up && monotime_ms() - st->since >= EVENTS_STEADY_MS) {
		st->delay = EVENTS_RETRY_MIN_MS;
		evtimer_add_ms(&st->timer, 0);
	} else
		events_later(st);
}

static void
events_open(struct dk_stream *st)
{
	if (st->req != NULL || !st->started)
		return;
	if ((st->req = dk_call(st->call, NULL, NULL, NULL, events_done,
	    events_data, st)) == NULL)
		events_later(st);
}

static void
events_start(struct dk_stream *st)
{
	if (st->started)
		return;
	st->started = 1;
	st->delay = EVENTS_RETRY_MIN_MS;
	if (st->buf == NULL && (st->buf = evbuffer_new()) == NULL)
		fatal("%s: evbuffer_new", __func__);
	evtimer_set(&st->timer, events_retry, st);
	events_open(st);
}

/* with the first docker workload; once */
void
docker_events_start(void)
{
	events_start(&orchd_stream);
}

/*
 * "docker labels on": the labelled containers' stream, each line to
 * line, opened to opened (labels.c); "off" closes it
 */
void
docker_label_events(void (*line)(const char *, size_t), void (*opened)(void))
{
	struct dk_stream	*st = &label_stream;

	if (line != NULL) {
		st->line = line;
		st->opened = opened;
		events_start(st);
		return;
	}
	if (!st->started)
		return;
	st->started = 0;
	evtimer_del(&st->timer);
	if (st->req != NULL)
		dk_cancel(st->req);
	st->req = NULL;
	st->up = 0;
	evbuffer_drain(st->buf, evbuffer_get_length(st->buf));
}
