/*
 * What every child does between exec and its event loop.
 */

#include <sys/random.h>

#include <errno.h>
#include <event.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
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

void
child_start(struct privsep *ps, int argc, char *argv[],
    enum privsep_procid id, const struct proc_handler *handlers,
    size_t nhandlers, int privflags)
{
	static char	 title[32];
	const char	*root = NULL, *errstr;
	uid_t		 uid = 0;
	gid_t		 gid, ugid = 0;
	uint32_t	 seed;
	int		 ch, debug = 0, verbose = 0, instance = -1, ids = 0;

	while ((ch = getopt(argc, argv, "c:df:g:i:u:v")) != -1) {
		switch (ch) {
		case 'c':
			root = optarg;
			break;
		case 'd':
			debug = 1;
			break;
		case 'f':
			/* the store's database, runtimed's Docker socket */
			ps->file = optarg;
			break;
		case 'g':
			/* runtimed: the group of the Docker socket */
			gid = strtonum(optarg, 1, INT_MAX, &errstr);
			if (errstr != NULL)
				child_usage(proc_name(id));
			privdrop_group(gid);
			break;
		case 'i':
			/* one gateway of several ("prefork") */
			instance = strtonum(optarg, 0, ORCHD_PREFORK_MAX - 1,
			    &errstr);
			if (errstr != NULL || id != PROC_GATEWAY)
				child_usage(proc_name(id));
			break;
		case 'u':
			if (privdrop_ids(optarg, &uid, &ugid) == -1)
				child_usage(proc_name(id));
			ids = 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			child_usage(proc_name(id));
		}
	}
	if (!ids || optind != argc)
		child_usage(proc_name(id));

	log_init(debug, LOG_DAEMON);
	log_setverbose(verbose);
	if (instance == -1)
		strlcpy(title, proc_name(id), sizeof(title));
	else
		snprintf(title, sizeof(title), "%s %d", proc_name(id),
		    instance);
	ps->instance = instance == -1 ? 0 : instance;
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
	if (event_init() == NULL)
		fatalx("event_init");
	if ((privflags & PRIVDROP_SOCKDIR) && ps->file != NULL)
		privdrop_sockdir(ps->file);
	privdrop(uid, ugid, root, privflags);
	proc_child_init(ps, id, handlers, nhandlers);
	proc_child_ready(ps);
	log_debug("%s: started", title);
}
