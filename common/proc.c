/*
 * Channels between processes and message dispatch.
 *
 * Every channel is an imsgbuf on a non-blocking unix socket, watched by one
 * libevent event: EV_READ always, EV_WRITE while messages are queued.
 * Messages are dispatched through the owner's table (struct proc_handler);
 * the table says who may send a type and how long its payload is, so the
 * handlers never see a message of the wrong shape.
 */

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "util.h"

static void	imsgev_dispatch(int, short, void *);
static void	imsgev_lost(struct imsgev *, const char *);

time_t
proc_uptime(struct privsep *ps)
{
	return (monotime() - ps->started);
}

struct imsgev *
imsgev_new(struct privsep *ps, int fd, int peer, uint32_t maxsize)
{
	struct imsgev	*iev;

	if ((iev = calloc(1, sizeof(*iev))) == NULL)
		return (NULL);
	if (imsgbuf_init(&iev->ibuf, fd) == -1 ||
	    imsgbuf_set_maxsize(&iev->ibuf, maxsize) == -1) {
		free(iev);
		return (NULL);
	}
	if (peer != -1)
		imsgbuf_allow_fdpass(&iev->ibuf);
	iev->peer = peer;
	iev->ps = ps;
	iev->handlers = ps->handlers;
	iev->nhandlers = ps->nhandlers;
	imsgev_add(iev);
	return (iev);
}

void
imsgev_free(struct imsgev *iev)
{
	if (iev == NULL)
		return;
	if (iev->events != 0)
		event_del(&iev->ev);
	imsgbuf_clear(&iev->ibuf);
	close(iev->ibuf.fd);
	free(iev);
}

void
imsgev_add(struct imsgev *iev)
{
	short	 events = EV_READ;

	if (iev->dead)
		return;
	if (imsgbuf_queuelen(&iev->ibuf) > 0)
		events |= EV_WRITE;
	if (events == iev->events)
		return;
	if (iev->events != 0)
		event_del(&iev->ev);
	iev->events = events;
	event_set(&iev->ev, iev->ibuf.fd, events | EV_PERSIST,
	    imsgev_dispatch, iev);
	event_add(&iev->ev, NULL);
}

int
imsgev_compose(struct imsgev *iev, uint32_t type, uint32_t peerid, int fd,
    const void *data, size_t len)
{
	if (iev == NULL || iev->dead) {
		if (fd != -1)
			close(fd);
		errno = EPIPE;
		return (-1);
	}
	if (imsg_compose(&iev->ibuf, type, peerid, 0, fd, data, len) == -1) {
		if (fd != -1)
			close(fd);
		return (-1);
	}
	imsgev_add(iev);
	return (0);
}

/* the channel to one process, or to one gateway of several */
struct imsgev *
proc_channel(struct privsep *ps, enum privsep_procid to, int instance)
{
	if ((unsigned int)to >= PROC_MAX)
		return (NULL);
	if (to != PROC_GATEWAY)
		return (instance == 0 ? ps->peers[to] : NULL);
	if (instance < 0 || instance >= ps->ngateways)
		return (NULL);
	return (ps->gateways[instance]);
}

/* how many processes a message for "to" reaches */
int
proc_instances(struct privsep *ps, enum privsep_procid to)
{
	if (to == PROC_GATEWAY)
		return (ps->ngateways);
	return ((unsigned int)to < PROC_MAX && ps->peers[to] != NULL);
}

int
proc_compose_instance(struct privsep *ps, enum privsep_procid to,
    int instance, uint32_t type, uint32_t peerid, int fd, const void *data,
    size_t len)
{
	return (imsgev_compose(proc_channel(ps, to, instance), type, peerid,
	    fd, data, len));
}

/*
 * A message for PROC_GATEWAY goes to every gateway, each with its own
 * copy of the descriptor; the first failure is returned, the others
 * still get theirs.
 */
int
proc_compose(struct privsep *ps, enum privsep_procid to, uint32_t type,
    uint32_t peerid, int fd, const void *data, size_t len)
{
	int	 i, n, dupfd, ret = 0, saved = 0;

	if ((unsigned int)to >= PROC_MAX) {
		if (fd != -1)
			close(fd);
		errno = EINVAL;
		return (-1);
	}
	if (to != PROC_GATEWAY)
		return (imsgev_compose(ps->peers[to], type, peerid, fd, data,
		    len));
	if ((n = ps->ngateways) == 0)
		return (imsgev_compose(NULL, type, peerid, fd, data, len));
	for (i = 0; i < n; i++) {
		dupfd = fd;
		if (fd != -1 && i < n - 1 && (dupfd = dup(fd)) == -1) {
			if (ret == 0)
				saved = errno;
			ret = -1;
			continue;
		}
		if (imsgev_compose(ps->gateways[i], type, peerid, dupfd, data,
		    len) == -1 && ret == 0) {
			saved = errno;
			ret = -1;
		}
	}
	if (ret == -1)
		errno = saved;
	return (ret);
}

static int
composev_one(struct imsgev *iev, uint32_t type, uint32_t peerid,
    const struct iovec *iov, int iovcnt)
{
	if (iev == NULL || iev->dead) {
		errno = EPIPE;
		return (-1);
	}
	if (imsg_composev(&iev->ibuf, type, peerid, 0, -1, iov, iovcnt) == -1)
		return (-1);
	imsgev_add(iev);
	return (0);
}

int
proc_composev(struct privsep *ps, enum privsep_procid to, uint32_t type,
    uint32_t peerid, const struct iovec *iov, int iovcnt)
{
	int	 i, ret = 0, saved = 0;

	if ((unsigned int)to >= PROC_MAX) {
		errno = EINVAL;
		return (-1);
	}
	if (to != PROC_GATEWAY)
		return (composev_one(ps->peers[to], type, peerid, iov,
		    iovcnt));
	if (ps->ngateways == 0) {
		errno = EPIPE;
		return (-1);
	}
	/* as proc_compose: every gateway gets it, the first failure counts */
	for (i = 0; i < ps->ngateways; i++)
		if (composev_one(ps->gateways[i], type, peerid, iov,
		    iovcnt) == -1 && ret == 0) {
			saved = errno;
			ret = -1;
		}
	if (ret == -1)
		errno = saved;
	return (ret);
}

/*
 * The row for a message's type and sender.  PROC_BAD_SENDER when the type
 * has rows but none for this sender, to say which in the log.
 */
static int
proc_find(const struct proc_handler *tab, size_t n, uint32_t type,
    uint32_t from, const struct proc_handler **row)
{
	size_t	 i;
	int	 ret = PROC_BAD_TYPE;

	for (i = 0; i < n; i++) {
		if (tab[i].type != type)
			continue;
		if (tab[i].from & from) {
			*row = &tab[i];
			return (PROC_ACCEPTED);
		}
		ret = PROC_BAD_SENDER;
	}
	return (ret);
}

static int
proc_length_ok(const struct proc_handler *h, size_t len)
{
	switch (h->lenkind) {
	case PROC_LEN_RECORDS:
		return (len % h->len == 0);
	case PROC_LEN_RECORDS1:
		return (len > 0 && len % h->len == 0);
	default:
		if (h->len == PROC_ANYLEN)
			return (len >= h->namelen);
		return (len == h->len);
	}
}

/* every record's name made a string: what the handlers rely on */
static void
proc_terminate(const struct proc_handler *h, struct imsg *imsg)
{
	unsigned char	*p = imsg->data;
	size_t		 len = imsg_get_len(imsg), step, off;

	if (h->namelen == 0 || len == 0)
		return;
	step = h->lenkind == PROC_LEN_EXACT ? len : h->len;
	for (off = 0; off + h->namelen <= len; off += step)
		p[off + h->namelen - 1] = '\0';
}

/*
 * Whether a message from sender mask from fits a row of the table: its
 * type and sender, then its length.  The row is in *row, and a leading
 * name the row flags is terminated in the payload itself.
 */
int
proc_accept(const struct proc_handler *tab, size_t n, uint32_t from,
    struct imsg *imsg, const struct proc_handler **row)
{
	const struct proc_handler	*h = NULL;
	int				 ret;

	*row = NULL;
	if ((ret = proc_find(tab, n, imsg_get_type(imsg), from, &h)) !=
	    PROC_ACCEPTED)
		return (ret);
	*row = h;
	if (!proc_length_ok(h, imsg_get_len(imsg)))
		return (PROC_BAD_LENGTH);
	proc_terminate(h, imsg);
	return (PROC_ACCEPTED);
}

/*
 * A table's own consistency, checked once at start: a row that could
 * never match, or two that match the same message, is a bug in the table.
 */
static int
proc_row_check(const struct proc_handler *h, char *err, size_t errlen)
{
	if (h->from == 0 || h->fn == NULL)
		(void)snprintf(err, errlen, "type %u: no sender or handler",
		    h->type);
	else if (h->lenkind != PROC_LEN_EXACT && (h->len == 0 ||
	    h->len == PROC_ANYLEN || (h->lenkind != PROC_LEN_RECORDS &&
	    h->lenkind != PROC_LEN_RECORDS1)))
		(void)snprintf(err, errlen, "type %u: bad records", h->type);
	else if (h->namelen > 0 && h->len != PROC_ANYLEN &&
	    h->namelen > h->len)
		(void)snprintf(err, errlen, "type %u: name of %zu bytes in "
		    "%zu", h->type, h->namelen, h->len);
	else
		return (0);
	return (-1);
}

int
proc_table_check(const struct proc_handler *tab, size_t n, char *err,
    size_t errlen)
{
	size_t	 i, j;

	for (i = 0; i < n; i++) {
		if (proc_row_check(&tab[i], err, errlen) == -1)
			return (-1);
		for (j = i + 1; j < n; j++)
			if (tab[j].type == tab[i].type &&
			    (tab[j].from & tab[i].from) != 0) {
				(void)snprintf(err, errlen, "type %u: two rows "
				    "for one sender", tab[i].type);
				return (-1);
			}
	}
	return (0);
}

/* a lost channel's fatalx, put off by PROC_LOST_GRACE_MS (imsgev_lost) */
#define PROC_LOST_GRACE_MS	2000
static struct event	 proc_lost_ev;
static char		 proc_lost_msg[128];
static int		 proc_lost_pending;

/* who we are in the log: "gateway 2", "spawner", else by id */
static const char *
self_name(const struct privsep *ps)
{
	return (ps->title != NULL ? ps->title : proc_name(ps->id));
}

static const char *
peer_name(const struct imsgev *iev)
{
	return (iev->peer == -1 ? "control client" : proc_name(iev->peer));
}

/*
 * A channel is gone: EOF, a socket error or a message that breaks the
 * protocol.  Internal peers are our own processes and a broken one means
 * the set is desynchronised, so without a closed callback that is fatal.
 * The parent's callback for its children ends the daemon as well, once
 * it has stopped the others; only a control client's drops that client.
 */
static void
proc_lost_late(int fd, short event, void *arg)
{
	fatalx("%s", proc_lost_msg);
}

static void
imsgev_lost(struct imsgev *iev, const char *why)
{
	if (iev->dead)
		return;
	iev->dead = 1;
	if (iev->events != 0) {
		event_del(&iev->ev);
		iev->events = 0;
	}
	/*
	 * A sibling or the parent that closed its end has exited: in a
	 * shutdown, as the SIGTERM on its way to us too says, or because it
	 * died, which the parent sees and answers with that SIGTERM.  Either
	 * way ours comes within the grace, and the log is left to name the
	 * child that died, not the ones that lost it; past the grace it is
	 * fatal.  A broken message is fatal at once: the set is out of step.
	 */
	if (iev->closed == NULL && strcmp(why, "closed") == 0) {
		log_debug("channel to %s: %s", peer_name(iev), why);
		if (proc_lost_pending)
			return;
		(void)snprintf(proc_lost_msg, sizeof(proc_lost_msg),
		    "channel to %s: %s", peer_name(iev), why);
		evtimer_set(&proc_lost_ev, proc_lost_late, NULL);
		evtimer_add_ms(&proc_lost_ev, PROC_LOST_GRACE_MS);
		proc_lost_pending = 1;
		return;
	}
	if (iev->closed == NULL)
		fatalx("channel to %s: %s", peer_name(iev), why);
	log_debug("channel to %s: %s", peer_name(iev), why);
	iev->lost = why;
	iev->closed(iev);
}

static int
imsgev_check(struct imsgev *iev, struct imsg *imsg)
{
	const struct proc_handler	*h;
	uint32_t			 from;
	uint32_t			 type = imsg_get_type(imsg);

	from = iev->peer == -1 ? PROC_FROM_CLIENT : PROC_FROM(iev->peer);
	switch (proc_accept(iev->handlers, iev->nhandlers, from, imsg, &h)) {
	case PROC_ACCEPTED:
		break;
	case PROC_BAD_TYPE:
		log_warnx("%s: unknown message type %u from %s",
		    self_name(iev->ps), type, peer_name(iev));
		return (-1);
	case PROC_BAD_SENDER:
		log_warnx("%s: message type %u not accepted from %s",
		    self_name(iev->ps), type, peer_name(iev));
		return (-1);
	default:
		log_warnx("%s: message type %u from %s: length %zu, want %zu",
		    self_name(iev->ps), type, peer_name(iev),
		    imsg_get_len(imsg), h->len);
		return (-1);
	}
	h->fn(iev, imsg);
	return (0);
}

static void
imsgev_dispatch(int fd, short event, void *arg)
{
	struct imsgev	*iev = arg;
	struct imsg	 imsg;
	int		 n;

	if (event & EV_READ) {
		if ((n = imsgbuf_read(&iev->ibuf)) == -1) {
			imsgev_lost(iev, strerror(errno));
			return;
		}
		if (n == 0) {
			imsgev_lost(iev, "closed");
			return;
		}
	}
	if (event & EV_WRITE) {
		if (imsgbuf_write(&iev->ibuf) == -1) {
			imsgev_lost(iev, strerror(errno));
			return;
		}
	}
	for (;;) {
		if ((n = imsg_get(&iev->ibuf, &imsg)) == -1) {
			imsgev_lost(iev, "bad message header");
			return;
		}
		if (n == 0)
			break;
		n = imsgev_check(iev, &imsg);
		imsg_free(&imsg);
		if (n == -1) {
			imsgev_lost(iev, "protocol error");
			return;
		}
		/* a handler may have closed this channel */
		if (iev->dead)
			return;
	}
	imsgev_add(iev);
}

/*
 * Answers (proc.h, "How to answer a request").
 */

/* who sent imsg on iev: a client is named by its connection, not peerid */
void
proc_asker(const struct imsgev *iev, struct imsg *imsg, struct proc_asker *a)
{
	memset(a, 0, sizeof(*a));
	if (iev->peer == -1) {
		a->peer = PROC_CLIENT;
		a->id = iev->client;
		return;
	}
	a->peer = iev->peer;
	a->instance = iev->peer == PROC_GATEWAY ? iev->instance : 0;
	a->id = imsg_get_id(imsg);
}

int
proc_asker_same(const struct proc_asker *a, const struct proc_asker *b)
{
	return (a->peer == b->peer && a->instance == b->instance &&
	    a->id == b->id);
}

/* the channel an answer goes on now, or NULL: the asker is gone */
struct imsgev *
proc_reply_channel(struct privsep *ps, const struct proc_asker *a)
{
	struct imsgev	*iev;

	if (a->peer == PROC_CLIENT)
		iev = ps->client_channel != NULL ?
		    ps->client_channel(a->id) : NULL;
	else
		iev = proc_channel(ps, a->peer, a->instance);
	return (iev != NULL && !iev->dead ? iev : NULL);
}

/*
 * A client's answer goes to its connection without an id: the control
 * protocol has none.  One for a client that left is dropped quietly.
 */
int
proc_reply(struct privsep *ps, const struct proc_asker *a, uint32_t type,
    const void *data, size_t len)
{
	struct imsgev	*iev;

	if ((iev = proc_reply_channel(ps, a)) == NULL) {
		if (a->peer != PROC_CLIENT)
			log_warnx("%s: no channel to %s %d", __func__,
			    proc_name(a->peer), a->instance);
		errno = EPIPE;
		return (-1);
	}
	if (imsgev_compose(iev, type, a->peer == PROC_CLIENT ? 0 : a->id, -1,
	    data, len) == -1) {
		log_warn("%s: to %s", __func__, peer_name(iev));
		return (-1);
	}
	return (0);
}

int
proc_reply_ok(struct privsep *ps, const struct proc_asker *a)
{
	return (proc_reply(ps, a, IMSG_CTL_OK, NULL, 0));
}

int
proc_reply_end(struct privsep *ps, const struct proc_asker *a)
{
	return (proc_reply(ps, a, IMSG_CTL_END, NULL, 0));
}

/* IMSG_CTL_FAIL: code is a CTL_ERR_*, which the API maps to a status */
int
proc_reply_fail(struct privsep *ps, const struct proc_asker *a, int code,
    const char *fmt, ...)
{
	struct ctl_result	 res;
	va_list			 ap;

	memset(&res, 0, sizeof(res));
	res.code = code;
	va_start(ap, fmt);
	(void)vsnprintf(res.msg, sizeof(res.msg), fmt, ap);
	va_end(ap);
	return (proc_reply(ps, a, IMSG_CTL_FAIL, &res, sizeof(res)));
}

/*
 * Child side.
 */

void
proc_child_init(struct privsep *ps, enum privsep_procid id,
    const struct proc_handler *handlers, size_t nhandlers)
{
	char	 err[128];

	if (proc_table_check(handlers, nhandlers, err, sizeof(err)) == -1)
		fatalx("%s's table: %s", proc_name(id), err);
	ps->id = id;
	ps->handlers = handlers;
	ps->nhandlers = nhandlers;
	ps->started = monotime();
	if (fcntl(PROC_PARENT_FD, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(PROC_PARENT_FD, F_SETFD, FD_CLOEXEC) == -1)
		fatal("channel to parent on fd %d", PROC_PARENT_FD);
	if ((ps->peers[PROC_PARENT] = imsgev_new(ps, PROC_PARENT_FD,
	    PROC_PARENT, ORCHD_IMSG_MAXSIZE)) == NULL)
		fatal("%s: imsgev_new", __func__);
}

void
proc_child_ready(struct privsep *ps)
{
	uint32_t	 version = ORCHD_IMSG_VERSION;

	if (proc_compose(ps, PROC_PARENT, IMSG_PROC_READY, 0, -1, &version,
	    sizeof(version)) == -1)
		fatal("%s: compose", __func__);
}

/*
 * The length of the command line a program was started with: a title
 * shorter than it would make setproctitle() mark the old end with a dot
 * for Linux's /proc/PID/cmdline, and ps would show "orchd: store     .".
 * Padded with spaces to that length, the title shows alone.
 */
static int	proc_title_width;

void
proc_title_init(int argc, char **argv)
{
	extern char	**environ;

	if (argc > 0 && argv[argc - 1] != NULL)
		proc_title_width = argv[argc - 1] +
		    strlen(argv[argc - 1]) - argv[0];
	if (proc_title_width < 0 || proc_title_width > 4096)
		proc_title_width = 0;	/* not one block: no padding */
	setproctitle_init(argc, argv, environ);
}

/* "ps" shows "orchd: gateway" whatever the binary is called */
void
proc_title(const char *name)
{
	char	title[64];

	(void)snprintf(title, sizeof(title), "orchd: %s", name);
	setproctitle("-%-*s", proc_title_width, title);
}

void
proc_recv_peer(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = iev->ps;
	struct proc_peer	 pp;
	struct imsgev		*peer;
	int			 fd;

	if (imsg_get_data(imsg, &pp, sizeof(pp)) == -1 ||
	    pp.id <= PROC_PARENT || pp.id >= PROC_MAX || pp.id == (int)ps->id ||
	    pp.instance < 0 || pp.instance >= ORCHD_PREFORK_MAX ||
	    (pp.id != PROC_GATEWAY && pp.instance != 0))
		fatalx("%s: bad peer channel", __func__);
	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("%s: peer channel without a socket", __func__);
	if ((pp.id == PROC_GATEWAY && (pp.instance != ps->ngateways)) ||
	    (pp.id != PROC_GATEWAY && ps->peers[pp.id] != NULL))
		fatalx("%s: unexpected channel to %s %d", __func__,
		    proc_name(pp.id), pp.instance);
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	if ((peer = imsgev_new(ps, fd, pp.id, ORCHD_IMSG_MAXSIZE)) == NULL)
		fatal("%s: imsgev_new", __func__);
	peer->instance = pp.instance;
	if (pp.id == PROC_GATEWAY)
		ps->gateways[ps->ngateways++] = peer;
	else
		ps->peers[pp.id] = peer;
	log_debug("%s: channel to %s %d", proc_name(ps->id), proc_name(pp.id),
	    pp.instance);
}

void
proc_recv_verbose(struct imsgev *iev, struct imsg *imsg)
{
	int	 v;

	if (imsg_get_data(imsg, &v, sizeof(v)) == -1)
		return;
	log_setverbose(v);
	log_info("%s: log %s", proc_name(iev->ps->id), v ? "verbose" : "brief");
}

void
proc_summary(struct privsep *ps, struct ctl_summary *cs)
{
	memset(cs, 0, sizeof(*cs));
	strlcpy(cs->name, ps->title != NULL ? ps->title : proc_name(ps->id),
	    sizeof(cs->name));
	cs->pid = getpid();
	cs->uptime = proc_uptime(ps);
	cs->workloads = ps->workloads;
	cs->generation = ps->generation;
}

/* the parent fans "show summary" out, as one of its requests */
void
proc_recv_summary(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_summary	 cs;
	struct proc_asker	 a;

	proc_asker(iev, imsg, &a);
	proc_summary(iev->ps, &cs);
	(void)proc_reply(iev->ps, &a, IMSG_CTL_SUMMARY, &cs, sizeof(cs));
	(void)proc_reply_end(iev->ps, &a);
}

/*
 * In a new child, before exec: every signal back to its default (SIG_IGN
 * survives exec), then the mask given.  The parent's handlers (libevent's,
 * which only write to the parent's own socket) would swallow a SIGTERM
 * sent between fork and exec, and the child would then outlive the
 * shutdown's grace; blocked since before the fork, such a signal is
 * delivered now, with its default action.
 */
void
proc_signals_default(const sigset_t *omask)
{
	struct sigaction	 sa;
	int			 sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);	/* KILL, STOP: EINVAL */
	(void)sigprocmask(SIG_SETMASK, omask, NULL);
}

/*
 * Parent side: a program started with the channels fds on
 * PROC_PARENT_FD, PROC_PARENT_FD + 1, ..., and nothing else open, so
 * that it starts with a fresh address space and no descriptor it was
 * not meant to have.  The caller closes its copies of fds.
 */
pid_t
proc_exec(char *const argv[], const int *fds, int nfds)
{
	sigset_t	 all, omask;
	pid_t		 pid;
	int		 i, tmp[PROC_EXEC_FDS];

	if (nfds < 1 || nfds > PROC_EXEC_FDS)
		fatalx("%s: %d channels", __func__, nfds);
	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, &omask) == -1)
		fatal("%s: sigprocmask", __func__);
	switch ((pid = fork())) {
	case -1:
		fatal("%s: fork", __func__);
	case 0:
		/* each first above the others' places: none lands on one */
		for (i = 0; i < nfds; i++)
			if ((tmp[i] = fcntl(fds[i], F_DUPFD,
			    PROC_PARENT_FD + nfds)) == -1)
				_exit(1);
		for (i = 0; i < nfds; i++)
			if (dup2(tmp[i], PROC_PARENT_FD + i) == -1)
				_exit(1);
		closefrom(PROC_PARENT_FD + nfds);
		proc_signals_default(&omask);
		execv(argv[0], argv);
		fprintf(stderr, "orchd: exec %s: %s\n", argv[0],
		    strerror(errno));
		_exit(1);
	default:
		break;
	}
	if (sigprocmask(SIG_SETMASK, &omask, NULL) == -1)
		fatal("%s: sigprocmask", __func__);
	return (pid);
}

/* start one child, its channel to us in ps */
pid_t
proc_spawn(struct privsep *ps, enum privsep_procid id, int instance,
    char *const argv[])
{
	struct imsgev	*iev;
	int		 sp[2];
	pid_t		 pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		fatal("%s: socketpair", __func__);
	pid = proc_exec(argv, &sp[1], 1);
	close(sp[1]);
	if (fcntl(sp[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	if ((iev = imsgev_new(ps, sp[0], id, ORCHD_IMSG_MAXSIZE)) == NULL)
		fatal("%s: imsgev_new", __func__);
	iev->instance = instance;
	if (id == PROC_GATEWAY)
		ps->gateways[ps->ngateways++] = iev;
	else
		ps->peers[id] = iev;
	return (pid);
}
