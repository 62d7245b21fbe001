/*
 * A workload's own TCP listeners ("listen on" in its block): raw TCP,
 * no HTTP, each connection for that workload alone.
 *
 * A connection to a workload that is not running is held like a parked
 * request (wake.c): not a byte is read from it, so a client that speaks
 * first waits with its bytes in the kernel, and one that waits for the
 * server's greeting gets it from the woken workload.  Any number of them
 * cause one wake.  Then, as for a running workload, the gateway connects
 * to the workload's port and moves the bytes both ways until both sides
 * have closed: splice(2) through a pipe, so that they never cross user
 * space.  Each direction ends on its own: the end of one side's stream is
 * passed on as shutdown(SHUT_WR) to the other, which may answer on (a
 * client that sends its request and closes its side still reads the
 * answer).
 *
 * Small exchanges, the queries and answers most TCP protocols are made
 * of, are not spliced: read(2) into one buffer shared by every
 * connection and written out at once, two system calls a message where
 * splice(2) through a pipe costs as many and more in the kernel, and
 * read and write are calls the sandbox's filter passes from the kernel's
 * cache while splice's flags are checked on every call.  Nothing stays
 * in the buffer between events: what the destination does not take at
 * once goes into the direction's pipe and is spliced out from there.  A
 * read that fills the buffer (a page) marks a bulk stream, spliced from
 * then on without crossing user space until a splice brings less than
 * a page.
 *
 * A pipe is needed only while bytes are under way: an empty one goes
 * back to a small pool, so that an idle connection holds its two sockets
 * and nothing more, and a busy one takes a pipe without a system call.
 * Only an empty pipe is ever splice(2)d into: then EAGAIN from the source
 * means the source has nothing, never that the pipe is full.  The
 * workload's socket and every pipe open, pooled or not, count among the
 * gateway's upstream descriptors (gw->nups), which conn_full() weighs
 * before it accepts another client.
 *
 * An open connection is use of its workload (in flight), unless it is
 * silent both ways for the tunnel idle timeout; it stops counting then,
 * until its next byte, as a WebSocket does (activity.c).  A wake that
 * fails or times out closes the connections held for it, and says so;
 * the workload's suspend closes its connections that no longer count.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cause.h"
#include "log.h"
#include "msg.h"
#include "util.h"
#include "workload.h"
#include "gateway.h"
#include "gatecheck.h"
#include "metrics.h"
#include "selfconn.h"

#define TCP_SPLICE_LEN		(64 * 1024)	/* a pipe's capacity */
#define TCP_SPLICE_ROUNDS	16	/* per event, then the others' turn */
#define TCP_PIPES_KEPT		64	/* empty pipes kept for reuse */
#define TCP_SPLICE_FLAGS	(SPLICE_F_MOVE | SPLICE_F_NONBLOCK)
/*
 * Copied, not spliced, up to a page: what any pipe holds, even one made
 * past its user's soft limit of pipe pages (pipe(7)), which gets the
 * fewest buffers, so that what the destination leaves always fits.
 */
#define TCP_COPY_LEN		4096

enum { TCP_UP = 0, TCP_DOWN = 1 };	/* client to workload, and back */

struct gw_pipe {
	int			 fd[2];		/* -1: none borrowed */
	size_t			 len;		/* bytes in it */
};

struct gw_tcp {
	TAILQ_ENTRY(gw_tcp)	 entry;		/* its workload's */
	struct gw_conn		*c;
	struct gw_pipe		 pipe[2];	/* by direction */
	int			 eof[2];	/* the direction's source ended */
	int			 shut[2];	/* and that was passed on */
	int			 bulk[2];	/* spliced, not copied */
};

static int	 tcp_pool[TCP_PIPES_KEPT][2];
static int	 tcp_npool;
static char	 tcp_buf[TCP_COPY_LEN];	/* empty between two events */

static void	 tcp_io(int, short, void *);
static void	 tcp_up_connect(int, short, void *);
static void	 tcp_up_close(struct gw_conn *);

static int
pipe_get(struct gw_pipe *p)
{
	if (p->fd[0] != -1)
		return (0);
	p->len = 0;
	if (tcp_npool > 0) {
		tcp_npool--;
		p->fd[0] = tcp_pool[tcp_npool][0];
		p->fd[1] = tcp_pool[tcp_npool][1];
		return (0);
	}
	if (pipe2(p->fd, O_NONBLOCK | O_CLOEXEC) == -1)
		return (-1);
	gw->nups += 2;
	return (0);
}

/* an empty pipe to the pool; one with bytes left is closed */
static void
pipe_put(struct gw_pipe *p)
{
	if (p->fd[0] == -1)
		return;
	if (p->len == 0 && tcp_npool < TCP_PIPES_KEPT) {
		tcp_pool[tcp_npool][0] = p->fd[0];
		tcp_pool[tcp_npool][1] = p->fd[1];
		tcp_npool++;
	} else {
		close(p->fd[0]);
		close(p->fd[1]);
		gw->nups -= 2;
	}
	p->fd[0] = p->fd[1] = -1;
	p->len = 0;
}

static int
tcp_src(const struct gw_conn *c, int d)
{
	return (d == TCP_UP ? c->fd : c->up.fd);
}

static int
tcp_dst(const struct gw_conn *c, int d)
{
	return (d == TCP_UP ? c->up.fd : c->fd);
}

/* an event added or removed as wanted, no system call if it is so */
static void
tcp_want(struct event *ev, int on)
{
	if (on && !event_pending(ev, EV_READ | EV_WRITE, NULL))
		event_add(ev, NULL);
	else if (!on && event_pending(ev, EV_READ | EV_WRITE, NULL))
		event_del(ev);
}

/*
 * A source is read while its pipe is empty, a destination written
 * while its pipe holds bytes: each side pushes back on the other.
 */
static void
tcp_events(struct gw_conn *c)
{
	struct gw_tcp	*t = c->tcp;

	tcp_want(&c->rev, !t->eof[TCP_UP] && t->pipe[TCP_UP].len == 0);
	tcp_want(&c->up.rev, !t->eof[TCP_DOWN] &&
	    t->pipe[TCP_DOWN].len == 0);
	tcp_want(&c->up.wev, t->pipe[TCP_UP].len > 0);
	tcp_want(&c->wev, t->pipe[TCP_DOWN].len > 0);
}

/*
 * One read(2) of direction d into the shared buffer, written out at
 * once; what the destination leaves goes into the direction's empty
 * pipe, which holds a page at the least, so it all fits.  The
 * bytes read (0 at the source's end), or -1 with errno set.
 */
static ssize_t
tcp_copy(struct gw_conn *c, int d)
{
	struct gw_pipe	*p = &c->tcp->pipe[d];
	ssize_t		 n, w, k;

	if ((n = read(tcp_src(c, d), tcp_buf, sizeof(tcp_buf))) <= 0)
		return (n);
	if (d == TCP_UP)
		metrics_tcp_rx(c->wl, n);
	if ((w = write(tcp_dst(c, d), tcp_buf, n)) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			return (-1);
		w = 0;
	}
	if (d == TCP_DOWN)
		metrics_tcp_tx(c->wl, w);
	if (w == n)
		return (n);
	if (pipe_get(p) == -1)
		return (-1);
	if ((k = write(p->fd[1], tcp_buf + w, n - w)) != n - w) {
		/* cannot happen to an empty pipe; never lose bytes quietly */
		if (k > 0)
			p->len = k;
		errno = EIO;
		return (-1);
	}
	p->len = n - w;
	return (n);
}

/*
 * Move what direction d has: empty the pipe into the destination, fill
 * it from the source only once empty, a bounded number of rounds.  At
 * the source's end, the destination's write side is shut down.  A read
 * short of the pipe's capacity most likely emptied the source: once its
 * bytes are out, the event loop (level-triggered) says whether there is
 * more, rather than a splice(2) that would fail with EAGAIN.  -1 on an
 * error of either socket (a reset, a peer gone), errno set.
 */
static int
tcp_move(struct gw_conn *c, int d, size_t *moved)
{
	struct gw_tcp	*t = c->tcp;
	struct gw_pipe	*p = &t->pipe[d];
	ssize_t		 n;
	int		 round, drained = 0;

	for (round = 0; round < TCP_SPLICE_ROUNDS; round++) {
		if (p->len > 0) {
			n = splice(p->fd[0], NULL, tcp_dst(c, d), NULL,
			    p->len, TCP_SPLICE_FLAGS);
			if (n == -1)
				return (errno == EAGAIN || errno == EINTR ?
				    0 : -1);
			p->len -= n;
			if (d == TCP_DOWN)
				metrics_tcp_tx(c->wl, n);
			if (p->len > 0)
				continue;
			pipe_put(p);
			if (drained)
				return (0);
			continue;
		}
		if (t->eof[d]) {
			if (!t->shut[d] &&
			    shutdown(tcp_dst(c, d), SHUT_WR) == -1 &&
			    errno != ENOTCONN)
				return (-1);
			t->shut[d] = 1;
			return (0);
		}
		if (!t->bulk[d]) {
			if ((n = tcp_copy(c, d)) == -1)
				return (errno == EAGAIN || errno == EINTR ?
				    0 : -1);
			if (n == 0) {
				t->eof[d] = 1;
				continue;
			}
			*moved += n;
			t->bulk[d] = n == TCP_COPY_LEN;
			/* the rest waits for the destination's room */
			if (p->len > 0 || !t->bulk[d])
				return (0);
			continue;
		}
		if (pipe_get(p) == -1)
			return (-1);
		n = splice(tcp_src(c, d), NULL, p->fd[1], NULL,
		    TCP_SPLICE_LEN, TCP_SPLICE_FLAGS);
		if (n == -1) {
			pipe_put(p);
			return (errno == EAGAIN || errno == EINTR ? 0 : -1);
		}
		if (n == 0) {
			pipe_put(p);
			t->eof[d] = 1;
			continue;
		}
		p->len = n;
		drained = n < TCP_SPLICE_LEN;
		t->bulk[d] = n >= TCP_COPY_LEN;
		*moved += n;
		if (d == TCP_UP)
			metrics_tcp_rx(c->wl, n);
	}
	return (0);
}

/* both ends closed their sides, or one failed: the connection ends */
static void
tcp_pump(struct gw_conn *c, int up, int down)
{
	struct gw_tcp	*t = c->tcp;
	size_t		 moved = 0;
	int		 saved;

	if ((up && tcp_move(c, TCP_UP, &moved) == -1) ||
	    (down && tcp_move(c, TCP_DOWN, &moved) == -1)) {
		saved = errno;
		/* our limit, not the peers': said louder */
		if (saved == EMFILE || saved == ENFILE)
			log_warnx("%s: tcp to %s: pipe: %s", c->peer,
			    c->wl->name, strerror(saved));
		else
			log_debug("%s: tcp to %s: %s", c->peer, c->wl->name,
			    strerror(saved));
		conn_close(c);
		return;
	}
	if (t->shut[TCP_UP] && t->shut[TCP_DOWN]) {
		log_debug("%s: tcp to %s: closed both ways", c->peer,
		    c->wl->name);
		conn_close(c);
		return;
	}
	/* bytes went through: its idle time starts again */
	if (moved > 0)
		activity_tunnel(c);
	tcp_events(c);
}

static void
tcp_io(int fd, short what, void *arg)
{
	struct gw_conn	*c = arg;
	int		 client = fd == c->fd;

	/* client readable or workload writable: up; the others: down */
	if (what & EV_READ)
		tcp_pump(c, client, !client);
	else
		tcp_pump(c, !client, client);
}

static void
tcp_connected(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;

	/* a wake's: its window's slot is free (herd.c) */
	if (c->herd) {
		herd_connected(c);
		herd_taken(c);
	}
	c->state = CONN_TCP;
	event_del(&c->rev);
	event_del(&c->wev);
	event_del(&up->wev);
	event_set(&c->rev, c->fd, EV_READ | EV_PERSIST, tcp_io, c);
	event_set(&c->wev, c->fd, EV_WRITE | EV_PERSIST, tcp_io, c);
	event_set(&up->rev, up->fd, EV_READ | EV_PERSIST, tcp_io, c);
	event_set(&up->wev, up->fd, EV_WRITE | EV_PERSIST, tcp_io, c);
	up->connected = 1;
	/* silent that long, it stops counting; else no timer at all */
	if (c->wl->tunnel_idle > 0 && c->counted)
		conn_timer(c, c->wl->tunnel_idle);
	else {
		evtimer_del(&c->timer);
		c->deadline = 0;
	}
	log_debug("%s: tcp to %s", c->peer, c->wl->name);
	/* what the client sent while it was held */
	tcp_pump(c, 1, 1);
}

static void
tcp_up_connect(int fd, short what, void *arg)
{
	struct gw_conn	*c = arg;
	int		 err = 0;
	socklen_t	 len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	else if (err == 0 && sock_self(fd, (struct sockaddr *)&c->wl->addr))
		err = ECONNREFUSED;	/* to itself: selfconn.c */
	/* nothing was sent: a wake's connection tries again (herd.c) */
	if (err != 0 && c->herd) {
		tcp_up_close(c);
		if (herd_retry(c) == 0)
			return;
	}
	if (err != 0) {
		log_warnx("%s: tcp to %s: connect: %s", c->peer, c->wl->name,
		    strerror(err));
		conn_close(c);
		return;
	}
	tcp_connected(c);
}

/* the workload runs: connect to its port */
static void
tcp_start(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;
	struct gw_workload	*wl = c->wl;
	int64_t			 ms;
	int			 on = 1;

	/* as proxy.c's up_open(): the oldest idle client makes room */
	if (gw->nconns + gw->nups >= gw->fdmax)
		(void)conn_evict_idle();
	instance_pick(wl);
	if ((up->fd = socket(wl->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		log_warn("%s: tcp to %s: socket", c->peer, wl->name);
		conn_close(c);
		return;
	}
	gw->nups++;
	(void)setsockopt(up->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	up->epoch = wl->epoch;
	event_set(&up->rev, up->fd, EV_READ | EV_PERSIST, tcp_io, c);
	event_set(&up->wev, up->fd, EV_WRITE, tcp_up_connect, c);
	if (connect(up->fd, (struct sockaddr *)&wl->addr, wl->addrlen) == 0) {
		if (!sock_self(up->fd, (struct sockaddr *)&wl->addr)) {
			tcp_connected(c);
			return;
		}
		errno = ECONNREFUSED;	/* to itself: selfconn.c */
	}
	if (errno != EINPROGRESS) {
		if ((errno == ECONNREFUSED || errno == ECONNRESET) &&
		    c->herd) {
			tcp_up_close(c);
			if (herd_retry(c) == 0)
				return;
		}
		log_warn("%s: tcp to %s: connect", c->peer, wl->name);
		conn_close(c);
		return;
	}
	c->state = CONN_CONNECT;
	event_add(&up->wev, NULL);
	/* a wake's: a SYN a full listen queue dropped is sent again */
	if (c->herd && (ms = herd_connect_ms(c)) > 0)
		conn_timer_ms(c, ms);
	else
		conn_timer(c, gw->conf.connect_timeout);
}

/*
 * A connection accepted on a listener of wl's: counted as use, then
 * proxied at once if wl runs, else held for its wake.  One from a
 * client an "ignore from" rule names is not use (ignore.c).
 */
static void
tcp_accept(struct gw_conn *c)
{
	const char		*name = c->listener->conf.workload;
	struct gw_workload	*wl;
	struct gw_tcp		*t;

	if ((wl = gw_workload_find(name)) == NULL || !wl->configured) {
		log_warnx("%s: tcp listener of %s, no such workload", c->peer,
		    name);
		conn_close(c);
		return;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		log_warn("%s", __func__);
		conn_close(c);
		return;
	}
	t->c = c;
	t->pipe[0].fd[0] = t->pipe[0].fd[1] = -1;
	t->pipe[1].fd[0] = t->pipe[1].fd[1] = -1;
	c->tcp = t;
	gw_workload_ref(wl);
	c->wl = wl;
	TAILQ_INSERT_TAIL(&wl->tcp, t, entry);
	wl->ntcp++;
	metrics_tcp_accept(wl);
	/* its gate's "deny from": closed, neither woken nor counted */
	if (gate_tcp_denied(c)) {
		log_debug("%s: tcp to %s: denied by its gate", c->peer,
		    wl->name);
		conn_close(c);
		return;
	}
	/* in maintenance: closed at once, nothing woken */
	if (wake_maint(c))
		return;
	/* not use ("ignore from"): proxied uncounted, or closed unwoken */
	if (ignore_tcp(c)) {
		if (wl->state == WL_RUNNING) {
			tcp_start(c);
			return;
		}
		log_debug("%s: tcp to %s, %s: ignored, not woken", c->peer,
		    wl->name, workload_state_name(wl->state));
		conn_close(c);
		return;
	}
	activity_begin(c);
	if (wl->state == WL_RUNNING) {
		tcp_start(c);
		return;
	}
	/* runtimed's timeout and ours answer first: a backstop */
	conn_timer(c, wl->wake_timeout + GW_WAKE_SLACK * 2);
	wake_park(c);
}

/*
 * What woke the workload, for its history: "TCP 127.0.0.1:5432 from
 * 127.0.0.1", the listener's address (the connection's own end) and the
 * client.  Once per wake, never per byte.
 */
static void
tcp_cause(const struct gw_conn *c, struct wake_cause *cause)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len = sizeof(ss);
	char			 addr[INET6_ADDRSTRLEN];
	int			 n;

	(void)strlcpy(cause->method, "TCP", sizeof(cause->method));
	cause_copy(cause->client, sizeof(cause->client), c->peer,
	    sizeof(c->peer));
	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) == -1)
		return;
	if (ss.ss_family == AF_INET &&
	    inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr)) != NULL)
		n = snprintf(cause->host, sizeof(cause->host), "%s:%u", addr,
		    ntohs(sin->sin_port));
	else if (ss.ss_family == AF_INET6 &&
	    inet_ntop(AF_INET6, &sin6->sin6_addr, addr, sizeof(addr)) != NULL)
		n = snprintf(cause->host, sizeof(cause->host), "[%s]:%u",
		    addr, ntohs(sin6->sin6_port));
	else
		return;
	if (n < 0 || (size_t)n >= sizeof(cause->host))
		cause->host[0] = '\0';
}

/*
 * Held, the client's side closed (EV_CLOSED).  Having sent nothing, it
 * left: closed now.  Having sent bytes before its end, it half-closed
 * and waits for the answer: held on, no longer watched.
 */
static void
tcp_parked_closed(struct gw_conn *c)
{
	char	 b;
	ssize_t	 n;

	n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR))) {
		event_del(&c->rev);
		return;
	}
	log_debug("%s: left while %s woke", c->peer, c->wl->name);
	conn_close(c);
}

/* the timer of conn.c: connect, wake backstop, tunnel idle */
static void
tcp_timeout(struct gw_conn *c)
{
	switch (c->state) {
	case CONN_PARKED:
		log_warnx("%s: tcp to %s: held too long for its wake",
		    c->peer, c->wl->name);
		conn_close(c);
		break;
	case CONN_CONNECT:
		/* a wake's whose SYN was dropped: again, bounded (herd.c) */
		if (c->herd) {
			tcp_up_close(c);
			if (herd_retry(c) == 0)
				break;
		}
		log_warnx("%s: tcp to %s: connect timeout", c->peer,
		    c->wl->name);
		conn_close(c);
		break;
	case CONN_TCP:
		/* silent for its tunnel idle timeout: no longer use */
		activity_tunnel_idle(c);
		break;
	default:
		conn_close(c);
		break;
	}
}

/*
 * Suspended: the connections still open no longer counted (the drain
 * waits for those that do), and the workload's end closes them anyway.
 */
void
tcp_drain(struct gw_workload *wl)
{
	struct gw_tcp	*t;
	unsigned int	 n = 0;

	while ((t = TAILQ_FIRST(&wl->tcp)) != NULL) {
		conn_close(t->c);
		n++;
	}
	if (n > 0)
		log_info("%s: suspended: closed %u idle TCP connection%s",
		    wl->name, n, n == 1 ? "" : "s");
}

/* its socket to the workload, not conn.c's: no buffers */
static void
tcp_up_close(struct gw_conn *c)
{
	struct gw_upstream	*up = &c->up;

	if (up->fd == -1)
		return;
	event_del(&up->rev);
	event_del(&up->wev);
	close(up->fd);
	up->fd = -1;
	gw->nups--;
}

/* from conn_close(): the upstream, the pipes and the bookkeeping */
static void
tcp_close(struct gw_conn *c)
{
	struct gw_tcp		*t = c->tcp;

	if (t == NULL)
		return;
	c->tcp = NULL;
	tcp_up_close(c);
	pipe_put(&t->pipe[TCP_UP]);
	pipe_put(&t->pipe[TCP_DOWN]);
	TAILQ_REMOVE(&c->wl->tcp, t, entry);
	c->wl->ntcp--;
	free(t);
}

/* from conn_close(): a held one stops waiting first */
static void
tcp_closed(struct gw_conn *c)
{
	herd_settle(c);
	wake_unpark(c);
	tcp_close(c);
}

/* a connection of a workload's TCP listener, from its accept on */
const struct conn_ops tcp_ops = {
	.on_accept = tcp_accept,
	.on_timeout = tcp_timeout,
	.on_close = tcp_closed,
	.on_woken = tcp_start,
	.on_hangup = tcp_parked_closed,
	.on_cause = tcp_cause
};
