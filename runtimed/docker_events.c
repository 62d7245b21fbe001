/*
 * Containers that exit by themselves, told by the daemon's events
 * stream: one long-lived GET /events, filtered to the die events of
 * containers labelled org.orchd.workload, one JSON object a line.  An
 * event only names the workload: driver_docker.c inspects the container
 * before it believes anything.
 *
 * The stream is opened with the first docker workload.  When it breaks
 * (the daemon restarted, or is not there yet) it is opened again after a
 * pause that doubles up to EVENTS_RETRY_MAX seconds, and each time it
 * opens every container believed running is inspected: what happened
 * while nobody listened was not seen.
 */

#include <sys/types.h>

#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runtime.h"
#include "docker.h"

#define EVENTS_RETRY_MIN	1	/* seconds */
#define EVENTS_RETRY_MAX	30
#define EVENTS_LINE_MAX		(64 * 1024)

static struct dk_req	*events_req;
static struct evbuffer	*events_buf;
static struct event	 events_timer;
static int		 events_started;
static int		 events_delay = EVENTS_RETRY_MIN;
static int		 events_open_once;	/* it opened at least once */
static int		 events_up;		/* it is open now */

static void	events_open(void);

static void
events_retry(int fd, short event, void *arg)
{
	events_open();
}

static void
events_later(void)
{
	struct timeval	 tv;

	timerclear(&tv);
	tv.tv_sec = events_delay;
	evtimer_add(&events_timer, &tv);
	events_delay = MINIMUM(events_delay * 2, EVENTS_RETRY_MAX);
}

/* one event: {"Type":"container","Action":"die","Actor":{...}} */
static void
events_line(const char *line, size_t len)
{
	json_error_t	 jerr;
	json_t		*o, *actor;
	const char	*name, *id, *action;

	if ((o = json_loadb(line, len, 0, &jerr)) == NULL) {
		log_debug("docker: events: %s", jerr.text);
		return;
	}
	actor = json_object_get(o, "Actor");
	name = json_string_value(json_object_get(json_object_get(actor,
	    "Attributes"), DK_LABEL_WORKLOAD));
	id = json_string_value(json_object_get(actor, "ID"));
	action = json_string_value(json_object_get(o, "Action"));
	if (name != NULL && id != NULL && action != NULL &&
	    strcmp(action, "die") == 0) {
		log_debug("docker: container %.12s of %s died", id, name);
		docker_died(name, id);
	}
	json_decref(o);
}

static void
events_data(const char *data, size_t len, void *arg)
{
	const char	*p, *nl;
	size_t		 n;

	if (data == NULL) {
		/* the daemon answered: listening again */
		log_debug("docker: events stream open");
		events_delay = EVENTS_RETRY_MIN;
		if (events_open_once)
			docker_reconcile();
		events_open_once = 1;
		events_up = 1;
		return;
	}
	if (evbuffer_add(events_buf, data, len) == -1)
		return;
	for (;;) {
		n = evbuffer_get_length(events_buf);
		p = (const char *)evbuffer_pullup(events_buf, -1);
		if (p == NULL || (nl = memchr(p, '\n', n)) == NULL)
			break;
		if (nl > p)
			events_line(p, nl - p);
		evbuffer_drain(events_buf, nl - p + 1);
	}
	if (evbuffer_get_length(events_buf) > EVENTS_LINE_MAX) {
		log_warnx("docker: events: line too long, dropped");
		evbuffer_drain(events_buf, evbuffer_get_length(events_buf));
	}
}

static void
events_done(const struct dk_resp *r, void *arg)
{
	events_req = NULL;
	evbuffer_drain(events_buf, evbuffer_get_length(events_buf));
	/* a daemon that went away is news; one still away is not */
	if (events_up)
		log_warnx("docker: events stream from %s lost: %s", dk_where(),
		    r->err != NULL ? r->err : "it ended");
	else
		log_debug("docker: events stream: %s", r->err != NULL ?
		    r->err : "refused");
	events_up = 0;
	events_later();
}

static void
events_open(void)
{
	if (events_req != NULL)
		return;
	if ((events_req = dk_call(DK_EVENTS, NULL, NULL, NULL, events_done,
	    events_data, NULL)) == NULL)
		events_later();
}

/* with the first docker workload; once */
void
docker_events_start(void)
{
	if (events_started)
		return;
	events_started = 1;
	if ((events_buf = evbuffer_new()) == NULL)
		fatal("%s: evbuffer_new", __func__);
	evtimer_set(&events_timer, events_retry, NULL);
	events_open();
}
