/*
 * notifyd, "orchd: notify": the webhooks of orchd.conf's "notify", a
 * child of its own, started only when the configuration has one.  It
 * alone connects to the receivers: unprivileged, chrooted, filtered,
 * and the parent's peer alone, like acmed.  Not the parent (root parses
 * no answer from the internet), not runtimed (it holds the container
 * engine's socket), not the reaper (it would block on a slow receiver,
 * and it holds the status page's sessions), not a gateway (there are
 * several, and they serve the internet): a process whose compromise
 * gives an attacker nothing but the webhook key and the events.
 *
 * From the parent: the configuration (CONF: the URLs, the events each
 * wants, the key, what addresses are allowed), runtimed's changes of
 * state as the parent got them (STATE), and the parent's own events (a
 * reload refused, an issuance of acmed's that failed, an API workload
 * expired).  To the parent: its counters (STATS), relayed to the
 * gateways' /metrics.
 *
 * Each event a target wants is queued for it.  A try is bounded
 * (NOTIFY_TOTAL_MS); a failed one is tried again after a delay that
 * doubles, NOTIFY_TRIES times in all, and an event older than
 * NOTIFY_AGE_MS or beyond NOTIFY_QUEUE_MAX queued is dropped; each drop
 * is counted.  A try blocks this process alone, never the daemon.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "event_json.h"
#include "https.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "notify_ev.h"
#include "notifyd.h"
#include "proc.h"
#include "sandbox.h"
#include "timer.h"
#include "util.h"

#define NOTIFY_TRIES		6
#define NOTIFY_BACKOFF_MS	1000		/* the first; then doubled */
#define NOTIFY_BACKOFF_MAX_MS	(5 * 60 * 1000)
#define NOTIFY_AGE_MS		(15 * 60 * 1000)
#define NOTIFY_QUEUE_MAX	512

struct delivery {
	TAILQ_ENTRY(delivery)	 entry;
	int			 target;
	int			 kind;		/* enum notify_ev */
	int			 tries;
	int64_t			 born_ms;	/* monotonic */
	int64_t			 next_ms;
	char			*body;
	size_t			 len;
};
static TAILQ_HEAD(, delivery)	 queue = TAILQ_HEAD_INITIALIZER(queue);
static size_t			 nqueued;

static struct privsep		 notify_ps;
static struct notify_conf	 conf;
static struct notify_stats	 stats;
static struct event		 notify_ev;
static int64_t			 backoff_ms = NOTIFY_BACKOFF_MS;
static uint64_t			 notify_boot;	/* random, at start */
static uint64_t			 notify_seq;

static void	notify_recv_conf(struct imsgev *, struct imsg *);
static void	notify_recv_state(struct imsgev *, struct imsg *);
static void	notify_recv_event(struct imsgev *, struct imsg *);

PROC_TABLE_BEGIN
static const struct proc_handler notify_handlers[] = {
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    proc_recv_summary },
	{ IMSG_NOTIFY_CONF, sizeof(struct notify_conf),
	    PROC_FROM(PROC_PARENT), notify_recv_conf },
	{ IMSG_NOTIFY_STATE, sizeof(struct rt_state), PROC_FROM(PROC_PARENT),
	    notify_recv_state, PROC_NAME(struct rt_state) },
	{ IMSG_NOTIFY_EVENT, sizeof(struct ctl_event),
	    PROC_FROM(PROC_PARENT), notify_recv_event },
};
PROC_TABLE_END

static void
stats_send(void)
{
	stats.queued = nqueued;
	if (proc_compose(&notify_ps, PROC_PARENT, IMSG_NOTIFY_STATS, 0, -1,
	    &stats, sizeof(stats)) == -1)
		fatal("to the parent");
}

static void
delivery_free(struct delivery *d)
{
	TAILQ_REMOVE(&queue, d, entry);
	nqueued--;
	free(d->body);
	free(d);
}

static void
delivery_drop(struct delivery *d, const char *why)
{
	log_warnx("notify %s: %s event dropped after %d %s: %s",
	    conf.targets[d->target].url, notify_ev_name(d->kind),
	    d->tries, d->tries == 1 ? "try" : "tries", why);
	stats.dropped++;
	delivery_free(d);
}

/* the timer for the first delivery due, or none */
static void
schedule(void)
{
	struct delivery	*d;
	struct timeval	 tv;
	int64_t		 first = -1, now = monotime_ms();

	TAILQ_FOREACH(d, &queue, entry)
		if (first == -1 || d->next_ms < first)
			first = d->next_ms;
	evtimer_del(&notify_ev);
	if (first == -1)
		return;
	first = first > now ? first - now : 0;
	tv.tv_sec = first / 1000;
	tv.tv_usec = first % 1000 * 1000;
	evtimer_add(&notify_ev, &tv);
}

/* one due delivery a turn of the loop: the parent's messages between */
static void
notify_run(int fd, short ev, void *arg)
{
	struct delivery	*d, *due = NULL;
	struct notify_target *t;
	char		 err[256];
	int64_t		 now = monotime_ms(), delay;
	int		 rc;

	TAILQ_FOREACH(d, &queue, entry)
		if (d->next_ms <= now && (due == NULL ||
		    d->next_ms < due->next_ms))
			due = d;
	if ((d = due) == NULL) {
		schedule();
		return;
	}
	if (now - d->born_ms > NOTIFY_AGE_MS) {
		delivery_drop(d, "too old");
		goto done;
	}
	t = &conf.targets[d->target];
	d->tries++;
	rc = deliver_try(t->url, conf.key, conf.keylen, conf.allow, d->body,
	    d->len, d->kind, err, sizeof(err));
	if (rc == 0) {
		log_debug("notify %s: %s event sent", t->url,
		    notify_ev_name(d->kind));
		stats.sent++;
		delivery_free(d);
		goto done;
	}
	stats.attempts_failed++;
	if (rc == -2) {
		stats.refused++;
		delivery_drop(d, err);
		goto done;
	}
	if (d->tries >= NOTIFY_TRIES) {
		delivery_drop(d, err);
		goto done;
	}
	delay = backoff_ms << (d->tries - 1);
	d->next_ms = monotime_ms() + MINIMUM(delay, NOTIFY_BACKOFF_MAX_MS);
	log_info("notify %s: %s event: %s; again in %lld ms", t->url,
	    notify_ev_name(d->kind), err, (long long)(d->next_ms -
	    monotime_ms()));
 done:
	stats_send();
	schedule();
}

/* the event for every target that wants its kind */
static void
enqueue(const struct ctl_event *ev, int kind)
{
	struct delivery	*d;
	uint32_t	 i;
	char		 id[40];

	if (conf.keylen == 0)
		return;
	(void)snprintf(id, sizeof(id), "%016llx-%llu",
	    (unsigned long long)notify_boot,
	    (unsigned long long)++notify_seq);
	for (i = 0; i < conf.ntargets; i++) {
		if (!(conf.targets[i].events & (1U << kind)))
			continue;
		if (nqueued >= NOTIFY_QUEUE_MAX)
			delivery_drop(TAILQ_FIRST(&queue), "queue full");
		if ((d = calloc(1, sizeof(*d))) == NULL ||
		    (d->body = deliver_body(ev, kind, id, &d->len)) == NULL) {
			free(d);
			log_warnx("notify: out of memory: event dropped");
			stats.dropped++;
			continue;
		}
		d->target = i;
		d->kind = kind;
		d->born_ms = d->next_ms = monotime_ms();
		TAILQ_INSERT_TAIL(&queue, d, entry);
		nqueued++;
	}
	stats_send();
	schedule();
}

/* what the parent sends is checked too */
static void
notify_recv_conf(struct imsgev *iev, struct imsg *imsg)
{
	struct notify_conf	 c;
	char			 host[256], port[8], path[NOTIFY_URL_MAX];
	uint32_t		 i;
	int			 tls;

	(void)imsg_get_data(imsg, &c, sizeof(c));
	if (c.ntargets > NOTIFY_URLS_MAX || c.keylen > NOTIFY_KEY_MAX ||
	    (c.allow & ~NOTIFY_ALLOW_ALL) != 0)
		fatalx("CONF: out of range");
	for (i = 0; i < c.ntargets; i++) {
		if (memchr(c.targets[i].url, '\0',
		    sizeof(c.targets[i].url)) == NULL ||
		    https_url_parse(c.targets[i].url, &tls, host,
		    sizeof(host), port, sizeof(port), path,
		    sizeof(path)) == -1 ||
		    (c.targets[i].events & ~((1U << NOTIFY_EV_MAX) - 1)) != 0)
			fatalx("CONF: target %u is not valid", i);
	}
	/* the queue's targets are numbers: a new list starts it again */
	if (nqueued > 0)
		log_warnx("notify: a new configuration: %zu queued %s "
		    "dropped", nqueued, nqueued == 1 ? "event" : "events");
	while (!TAILQ_EMPTY(&queue)) {
		stats.dropped++;
		delivery_free(TAILQ_FIRST(&queue));
	}
	explicit_bzero(&conf, sizeof(conf));
	conf = c;
	explicit_bzero(&c, sizeof(c));
	log_debug("notify: %u %s", conf.ntargets, conf.ntargets == 1 ?
	    "target" : "targets");
	stats_send();
	schedule();
}

/* runtimed's change of state: which kind of event, if any */
static int
state_kind(const struct rt_state *st, const struct ctl_event *ev)
{
	if (ev->reason == RT_REASON_EXPIRED)
		return (NOTIFY_EV_EXPIRED);
	if (ev->reason == RT_REASON_BUDGET || ev->reason == RT_REASON_PRESSURE)
		return (NOTIFY_EV_EVICTED);
	if (ev->to == WL_FAILED)
		return (st->backoff_ms > 0 ? NOTIFY_EV_BACKOFF :
		    NOTIFY_EV_FAILED);
	return (NOTIFY_EV_STATE);
}

static void
notify_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state		 st;
	struct ctl_event	 ev;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	if (event_from_state(&ev, &st) == -1)
		return;
	enqueue(&ev, state_kind(&st, &ev));
}

/* the parent's own: a reload refused, a certificate's failure, an expiry */
static void
notify_recv_event(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_event	 ev;

	(void)imsg_get_data(imsg, &ev, sizeof(ev));
	event_sanitize(&ev);
	if (ev.type == EVENT_RELOAD && !ev.ok)
		enqueue(&ev, NOTIFY_EV_RELOAD);
	else if (ev.type == EVENT_CERT)
		enqueue(&ev, NOTIFY_EV_CERT);
	else if (ev.type == EVENT_STATE && ev.reason == RT_REASON_EXPIRED)
		enqueue(&ev, NOTIFY_EV_EXPIRED);
}

int
main(int argc, char *argv[])
{
	const char	*errstr, *v;
	char		 err[256];

	proc_title_init(argc, argv);
	/* before the chroot: libtls and the system's roots */
	if (https_init(err, sizeof(err)) == -1)
		fatalx("%s", err);
	/* the tests' shorter delays; bounded all the same */
	if ((v = getenv("ORCHD_NOTIFY_BACKOFF_MS")) != NULL) {
		backoff_ms = strtonum(v, 10, NOTIFY_BACKOFF_MS, &errstr);
		if (errstr != NULL)
			backoff_ms = NOTIFY_BACKOFF_MS;
	}
	child_start(&notify_ps, argc, argv, PROC_NOTIFY, notify_handlers,
	    nitems(notify_handlers), 0);
	if (https_config(NULL, 0, err, sizeof(err)) == -1)
		log_warnx("notify: %s: https:// cannot be verified", err);
	arc4random_buf(&notify_boot, sizeof(notify_boot));
	evtimer_set(&notify_ev, notify_run, NULL);
	sandbox_enter(proc_name(PROC_NOTIFY), SB_NOTIFY);
	event_dispatch();
	return (0);
}
