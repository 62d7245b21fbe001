/*
 * What every child does between exec and its event loop.
 */

#include <sys/types.h>
#include <sys/random.h>

#include <errno.h>
#include <event.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "util.h"

static void
child_usage(const char *name)
{
	fprintf(stderr, "usage: %s [-dv] [-f file] [-g gid] [-i instance] "
	    "-u uid:gid [-c root]\n"
	    "%s is started by orchd(8), not by hand.\n", name, name);
	exit(1);
}

/* route libevent's own complaints through our log */
static void
child_event_log(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_WARN)
		log_warnx("libevent: %s", msg);
	else
		log_debug("libevent: %s", msg);
}

/*
 * The options the parent starts a child with, those optstring names: a
 * child's "c:df:g:i:Tu:v", gatewayd -n's "c:dnu:".  -1 for one that is
 * not, a bad value, an operand, or no -u.
 */
int
child_getopt(int argc, char *argv[], const char *optstring,
    enum privsep_procid id, struct child_opts *o)
{
	const char	*errstr;
	gid_t		 gid;
	int		 ch, ids = 0;

	memset(o, 0, sizeof(*o));
	o->instance = -1;
	while ((ch = getopt(argc, argv, optstring)) != -1) {
		switch (ch) {
		case 'c':
			o->root = optarg;
			break;
		case 'd':
			o->debug = 1;
			break;
		case 'f':
			/* the store's database, runtimed's Docker socket */
			o->file = optarg;
			break;
		case 'g':
			/* runtimed: the group of the Docker socket */
			gid = strtonum(optarg, 1, INT_MAX, &errstr);
			if (errstr != NULL)
				return (-1);
			privdrop_group(gid);
			break;
		case 'i':
			/* one gateway of several ("prefork") */
			o->instance = strtonum(optarg, 0,
			    ORCHD_PREFORK_MAX - 1, &errstr);
			if (errstr != NULL || id != PROC_GATEWAY)
				return (-1);
			break;
		case 'n':
			/* gatewayd -n: said by its main() already */
			break;
		case 'T':
			/* runtimed: a swarm manager over TLS is configured */
			if (id != PROC_RUNTIME)
				return (-1);
			o->tls = 1;
			break;
		case 'u':
			if (privdrop_ids(optarg, &o->uid, &o->gid) == -1)
				return (-1);
			ids = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		default:
			return (-1);
		}
	}
	if (!ids || optind != argc)
		return (-1);
	return (0);
}

/*
 * The event loop.  libevent times its timers by CLOCK_MONOTONIC_COARSE
 * unless told otherwise, a clock that moves a tick at a time (4 ms at
 * HZ=250): a timer of 1 ms fires at the next tick, 4 ms later on
 * average.  runtimed's readiness checks retry 1 ms apart while a held
 * request waits (ready.c), so it asks for precise timers, which
 * libevent reads from its environment at event_init(): CLOCK_MONOTONIC,
 * and on epoll a timerfd, made here and re-armed by timerfd_settime()
 * at each turn of the loop.  Not the gateway: that call per turn would
 * be on every request's path.
 */
static void
child_event_init(enum privsep_procid id)
{
	int	 precise = id == PROC_RUNTIME;

	if (precise && setenv("EVENT_PRECISE_TIMER", "1", 1) == -1)
		fatal("setenv");
	if (event_init() == NULL)
		fatalx("event_init");
	if (precise)
		(void)unsetenv("EVENT_PRECISE_TIMER");
}

void
child_start(struct privsep *ps, int argc, char *argv[],
    enum privsep_procid id, const struct proc_handler *handlers,
    size_t nhandlers, int privflags)
{
	static char		 title[32];
	struct child_opts	 o;
	uint32_t		 seed;

	if (child_getopt(argc, argv, "c:df:g:i:Tu:v", id, &o) == -1)
		child_usage(proc_name(id));
	ps->file = o.file;
	ps->tls = o.tls;

	log_init(o.debug, LOG_DAEMON);
	log_setverbose(o.verbose);
	if (o.instance == -1)
		strlcpy(title, proc_name(id), sizeof(title));
	else
		snprintf(title, sizeof(title), "%s %d", proc_name(id),
		    o.instance);
	ps->instance = o.instance == -1 ? 0 : o.instance;
	ps->title = title;
	log_procinit(title);
	proc_title(title);

	/* ^C in a foreground orchd is the parent's to handle */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* the parent's, for logrotate: systemctl kill sends it to all */
	signal(SIGUSR1, SIG_IGN);

	/*
	 * jansson seeds its hash function from /dev/urandom on first use,
	 * which neither the chroot nor the sandbox allows: seed it now.
	 */
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		fatal("getrandom");
	json_object_seed(seed != 0 ? seed : 1);

	event_set_log_callback(child_event_log);
	child_event_init(id);
	if ((privflags & PRIVDROP_SOCKDIR) && ps->file != NULL)
		privdrop_sockdir(ps->file);
	if (ps->before_privdrop != NULL)
		ps->before_privdrop(ps);
	privdrop(o.uid, o.gid, o.root, privflags);
	proc_child_init(ps, id, handlers, nhandlers);
	proc_child_ready(ps);
	log_debug("%s: started", title);
}
