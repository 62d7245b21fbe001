/*
 * Listening sockets: bound by the parent, passed in with each
 * configuration.  A reload passes them again; the new descriptors replace
 * the old ones on START, and connections already accepted are untouched:
 * they keep a reference to the listener they came from (its TLS context
 * with it), which is freed when the last of them closes.
 *
 * Accepting stops, with the connections already accepted served on, in
 * two cases: the gateway holds as many connections as it may and none of
 * them is an idle keep-alive one that could make room (conn_full(); it
 * goes on when one closes or turns idle, the kernel's backlog holding the
 * new ones meanwhile), or accept(2) ran out of file descriptors (it goes
 * on GW_ACCEPT_PAUSE_MS later, rather than spinning on a listener that
 * stays readable).
 */

#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "orchd.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"

RB_GENERATE(gw_peers, gw_peer, entry, peer_cmp);

int
peer_cmp(struct gw_peer *a, struct gw_peer *b)
{
	if (a->addr.af != b->addr.af)
		return (a->addr.af < b->addr.af ? -1 : 1);
	return (memcmp(a->addr.addr, b->addr.addr, sizeof(a->addr.addr)));
}

static void
accept_resume(int fd, short event, void *arg)
{
	accept_update();
}

/*
 * Each connection takes a descriptor, so the soft limit is raised to the
 * hard one, before the sandbox: a default soft limit of 1024 would cap the
 * gateway at a few hundred clients.  Only gatewayd raises it: workloads,
 * started by the parent, keep the limit orchd was started with (a program
 * using select(2) must see no descriptor above 1023).
 */
void
listener_init(void)
{
	struct rlimit	 rl;
	rlim_t		 was;

	evtimer_set(&gw->accept_pause, accept_resume, NULL);
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("getrlimit");
	if ((was = rl.rlim_cur) < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
			log_warn("setrlimit RLIMIT_NOFILE %llu",
			    (unsigned long long)rl.rlim_max);
			rl.rlim_cur = was;
		} else
			log_debug("file descriptor limit raised from %llu "
			    "to %llu", (unsigned long long)was,
			    (unsigned long long)rl.rlim_cur);
	}
	gw->nofile = rl.rlim_cur;
}

/* are the connections or the descriptors at their limit? */
int
conn_full(void)
{
	if (gw->maxconns > 0 && gw->nconns >= gw->maxconns)
		return (1);
	/* the headroom is for the upstreams of clients accepted */
	return (gw->nconns + gw->nups + gw->fdmax / GW_FD_HEADROOM >=
	    gw->fdmax);
}

/* add or remove every listener's event as the limits say */
void
accept_update(void)
{
	static time_t		 logged;
	struct gw_listener	*l;
	time_t			 now;
	int			 on;

	on = (!conn_full() || !TAILQ_EMPTY(&gw->idle)) &&
	    !evtimer_pending(&gw->accept_pause, NULL);
	if (on == gw->accepting)
		return;
	gw->accepting = on;
	TAILQ_FOREACH(l, &gw->listeners, entry) {
		if (on)
			event_add(&l->ev, NULL);
		else
			event_del(&l->ev);
	}
	/*
	 * At the limit accepting goes off and on with each connection that
	 * closes: said once in 10 seconds at most.
	 */
	if (!on && conn_full() && (now = monotime()) - logged >= 10) {
		logged = now;
		log_info("%u connections, %u to workloads, none idle: "
		    "not accepting more for now", gw->nconns, gw->nups);
	}
}

/* accept(2) found no descriptor: stop for a moment */
void
accept_backoff(void)
{
	struct timeval	 tv = { 0, GW_ACCEPT_PAUSE_MS * 1000 };

	if (!evtimer_pending(&gw->accept_pause, NULL))
		log_warnx("out of file descriptors with %u connections: "
		    "not accepting for %d ms", gw->nconns, GW_ACCEPT_PAUSE_MS);
	evtimer_add(&gw->accept_pause, &tv);
	accept_update();
}

void
listener_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_listener	*l;
	int			 fd;

	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("%s: listener without a socket", __func__);
	if ((l = calloc(1, sizeof(*l))) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, &l->conf, sizeof(l->conf));
	l->fd = fd;
	TAILQ_INSERT_TAIL(&gw->next_listeners, l, entry);
}

static void
listener_free(struct gw_listener *l)
{
	if (l->tls != NULL)
		tls_free(l->tls);
	tls_certnames_free(l);
	pem_clear(&l->cert);
	pem_clear(&l->key);
	free(l);
}

void
listener_unref(struct gw_listener *l)
{
	if (l->refs == 0)
		fatalx("%s: %s: no reference", __func__, l->conf.name);
	if (--l->refs == 0 && l->fd == -1)
		listener_free(l);
}

/*
 * The global limits: "max connections" if set, and always the
 * descriptors, counted as they are used (conn_full()): one for a client,
 * one more while it has an upstream connection.
 *
 * "max connections per address": with "prefork N", the kernel hands each
 * connection to one of the N gateways, so each holds the limit divided
 * by N, rounded up.  That keeps the accept path free of any question to
 * another process; the price is that an address whose connections the
 * kernel hands out unevenly is refused a little below the limit.
 * Unset, it is ORCHD_CONNS_ADDR, but never more than an eighth of this
 * gateway's descriptors: a client with an upstream takes two, so one
 * address then holds a quarter of them at the most.
 */
static void
limits_apply(void)
{
	rlim_t		 fds;
	int64_t		 n, share;

	gw->maxconns = gw->conf.max_conns > 0 ? gw->conf.max_conns : 0;
	fds = gw->nofile > GW_FD_RESERVE * 2 ? gw->nofile - GW_FD_RESERVE :
	    GW_FD_RESERVE;
	gw->fdmax = MINIMUM(fds, 2000000);
	n = MAXIMUM(gw->conf.prefork, 1);
	if (gw->conf.max_conns_addr > 0)
		share = (gw->conf.max_conns_addr + n - 1) / n;
	else
		share = MINIMUM((ORCHD_CONNS_ADDR + n - 1) / n,
		    MAXIMUM(gw->fdmax / 8, 1));
	gw->peermax = (unsigned int)MINIMUM(share, INT32_MAX);
	log_debug("%llu file descriptors: %u for clients and workloads, "
	    "%u connections per address", (unsigned long long)gw->nofile,
	    gw->fdmax, gw->peermax);
}

/* is l's socket one of the next generation's (the same, duplicated)? */
static int
listener_kept(struct gw_listener *l)
{
	struct gw_listener	*n;
	struct stat		 a, b;

	if (l->fd == -1 || fstat(l->fd, &a) == -1)
		return (0);
	TAILQ_FOREACH(n, &gw->next_listeners, entry)
		if (fstat(n->fd, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return (1);
	return (0);
}

/*
 * The next generation's listeners replace the current ones; gone(l) is
 * called for each one the new configuration no longer has (h2.c's, to
 * end its sessions, passed by gatewayd.c: h2.c is above this file).
 */
void
listener_apply(void (*gone)(struct gw_listener *))
{
	struct gw_listener	*l;

	/* a listener that goes: its HTTP/2 clients are told (GOAWAY) */
	TAILQ_FOREACH(l, &gw->listeners, entry)
		if (!listener_kept(l))
			gone(l);
	while ((l = TAILQ_FIRST(&gw->listeners)) != NULL) {
		TAILQ_REMOVE(&gw->listeners, l, entry);
		event_del(&l->ev);
		close(l->fd);
		l->fd = -1;
		if (l->refs == 0)
			listener_free(l);
	}
	limits_apply();
	gw->accepting = 0;
	gw->acme = 0;
	while ((l = TAILQ_FIRST(&gw->next_listeners)) != NULL) {
		TAILQ_REMOVE(&gw->next_listeners, l, entry);
		gw->acme |= l->conf.acme;
		if (l->conf.tls && tls_listener_setup(l) == -1)
			log_warnx("%s: TLS connections will be refused",
			    l->conf.name);
		event_set(&l->ev, l->fd, EV_READ | EV_PERSIST, conn_accept, l);
		TAILQ_INSERT_TAIL(&gw->listeners, l, entry);
		log_debug("listening on %s%s", l->conf.name,
		    l->conf.tls ? " (tls)" : "");
	}
	tls_sni_clear();
	accept_update();
}
