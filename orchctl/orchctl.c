/*
 * orchctl: control orchd over its control socket.  Parse the command,
 * connect, send one request stamped with the control protocol's version,
 * then print the replies until orchd says the exchange is over.  A
 * command may take two requests on the same connection (show workload:
 * the workload, then its history), the second sent once the first has
 * ended.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cause.h"
#include "compat.h"
#include "event_json.h"
#include "imsg.h"
#include "msg.h"
#include "orchd.h"
#include "version.h"
#include "workload.h"
#include "orchctl.h"
#include "ctlcall.h"
#include "parser.h"

#define CTL_TIMEOUT	30	/* seconds orchd may stay silent */
#define CTL_TIMEOUT_LONG 600	/* wake, suspend, restart: as long as a
				   workload */

/*
 * What each action sends, the items its reply carries, how long orchd
 * may take to say anything, and the request that follows it on the same
 * connection once its reply has ended.
 */
struct request {
	enum actions		 rq_action;
	const char		*rq_name;
	uint32_t		 rq_type;
	uint32_t		 rq_item;	/* reply items; IMSG_NONE */
	int			 rq_timeout;	/* seconds; 0: none */
	const struct request	*rq_then;
};

static const struct request history_request = {
	SHOW_WORKLOAD,	"show workload", IMSG_CTL_SHOW_HISTORY,
	IMSG_CTL_HISTORY, CTL_TIMEOUT, NULL
};

static const struct request definition_request = {
	SHOW_WORKLOAD,	"show workload", IMSG_CTL_SHOW_DEFINITION,
	IMSG_CTL_DEFINITION, CTL_TIMEOUT, &history_request
};

static const struct request requests[] = {
	{ SHOW_SUMMARY,	  "show summary",   IMSG_CTL_SHOW_SUMMARY,
	    IMSG_CTL_SUMMARY,	CTL_TIMEOUT,	  NULL },
	/* page by page: the next after the last name of a full one */
	{ SHOW_WORKLOADS, "show workloads", IMSG_CTL_SHOW_PAGE,
	    IMSG_CTL_WORKLOAD,	CTL_TIMEOUT,	  NULL },
	{ SHOW_WORKLOAD,  "show workload",  IMSG_CTL_SHOW_WORKLOADS,
	    IMSG_CTL_WORKLOAD,	CTL_TIMEOUT,	  &definition_request },
	{ SHOW_STATS,	  "show stats",	    IMSG_CTL_SHOW_STATS,
	    IMSG_CTL_STATS,	CTL_TIMEOUT,	  NULL },
	{ RELOAD,	  "reload",	    IMSG_CTL_RELOAD,
	    IMSG_CTL_RELOADINFO, CTL_TIMEOUT,	  NULL },
	{ LOG_VERBOSE,	  "log verbose",    IMSG_CTL_VERBOSE,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ LOG_BRIEF,	  "log brief",	    IMSG_CTL_VERBOSE,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ WAKE,		  "wake",	    IMSG_CTL_WAKE,
	    IMSG_NONE,		CTL_TIMEOUT_LONG, NULL },
	{ SUSPEND,	  "suspend",	    IMSG_CTL_SUSPEND,
	    IMSG_NONE,		CTL_TIMEOUT_LONG, NULL },
	{ KEEPWARM,	  "keepwarm",	    IMSG_CTL_KEEPWARM,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ LOGS,		  "logs",	    IMSG_CTL_LOGS,
	    IMSG_CTL_LOGDATA,	CTL_TIMEOUT,	  NULL },
	{ SHOW_VERSION,	  "show version",   IMSG_CTL_SHOW_VERSION,
	    IMSG_CTL_VERSION,	CTL_TIMEOUT,	  NULL },
	{ MONITOR,	  "monitor",	    IMSG_CTL_MONITOR,
	    IMSG_CTL_EVENT,	0,		  NULL },
	{ PULL,		  "pull",	    IMSG_CTL_PULL,
	    IMSG_CTL_PULLING,	CTL_TIMEOUT_LONG, NULL },
	{ CREATE,	  "create",	    IMSG_CTL_CREATE,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ UPDATE,	  "update",	    IMSG_CTL_UPDATE,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ DELETE,	  "delete",	    IMSG_CTL_DELETE,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ KEEP,		  "keep",	    IMSG_CTL_KEEP,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	/* a workload's, or a deleted one's that the store kept */
	{ SHOW_HISTORY,	  "show history",   IMSG_CTL_SHOW_HISTORY,
	    IMSG_CTL_HISTORY,	CTL_TIMEOUT,	  NULL },
	{ LOG_REOPEN,	  "log reopen",	    IMSG_CTL_LOG_REOPEN,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL },
	{ RESTART,	  "restart",	    IMSG_CTL_RESTART,
	    IMSG_NONE,		CTL_TIMEOUT_LONG, NULL },
	{ SHOW_CERTIFICATES, "show certificates", IMSG_ACME_SHOW,
	    IMSG_ACME_STATUS,	CTL_TIMEOUT,	  NULL },
	{ RENEW,	  "renew",	    IMSG_ACME_RENEW,
	    IMSG_NONE,		CTL_TIMEOUT,	  NULL }
};

/*
 * show workloads' page under way: the last name it got (the next
 * page's cursor) and how many; names come in strictly rising order, or
 * the reply is bad, so that the pages end.
 */
static struct {
	char		 after[ORCHD_NAME_MAX];
	uint32_t	 got;
} ctl_pg;

/* what ctl_dispatch made of a reply */
enum reply {
	REPLY_MORE,		/* an item: more will come */
	REPLY_END,		/* the end of a request's items */
	REPLY_DONE		/* OK: the command is done */
};

__dead static void	 usage(int);
static void		 ctl_dependent(struct imsg *);
static void		 ctl_page_item(const struct ctl_workload *);
static void		 ctl_definition(struct imsg *,
			    const struct parse_result *, const struct output *);
static void		 late_options(int *, char *[], const char **,
			    const struct output **);
static const struct request *request_find(enum actions);
static void		 ctl_known(const char *, const char *);
static void		 ctl_send(struct imsgbuf *, const struct request *,
			    const struct parse_result *);
static void		 ctl_receive(struct imsgbuf *, const struct request *,
			    const struct parse_result *, const struct output *);
static void		 ctl_deadline(struct timespec *, int);
static int		 ctl_wait(struct imsgbuf *, const struct timespec *,
			    int);
static enum reply	 ctl_dispatch(struct imsg *, const struct request *,
			    const struct parse_result *, const struct output *,
			    int *);
static void		 ctl_logdata(struct imsg *);
static void		 ctl_event(struct imsg *, const struct output *);
static void		 ctl_version(struct imsg *, const struct output *);
static int		 ctl_unknown(struct imsg *);
__dead static void	 ctl_fail(struct imsg *);
__dead static void	 bad_reply(void);

/*
 * The usage; asked for (-h, --help), on stdout with the commands and
 * exit 0, else on stderr and exit 1.
 */
__dead static void
usage(int status)
{
	FILE	*f = status == 0 ? stdout : stderr;

	fprintf(f, "usage: %s [-hjV] [-s socket] command [argument ...]\n",
	    getprogname());
	if (status == 0)
		parse_usage(f);
	exit(status);
}

/*
 * A word made of orchctl's own options: -h and -j, perhaps ending in -s
 * with or without its argument ("-js", "-s/run/x.sock").  The command's
 * own options (logs -f, -n) are never such a word.
 */
int
own_options(const char *w)
{
	if (w[0] != '-' || w[1] == '\0')
		return (0);
	for (w++; *w != '\0'; w++) {
		if (*w == 's')
			return (1);
		if (*w != 'h' && *w != 'j')
			return (0);
	}
	return (1);
}

/*
 * orchctl's options after the command ("show workloads -j", "logs web
 * -n 5 -s /tmp/orchd.sock") are taken out of argv, which is compacted;
 * the rest is the parser's.
 */
static void
late_options(int *argcp, char *argv[], const char **sockname,
    const struct output **out)
{
	const char	*w;
	int		 i, n = 0;

	for (i = 0; i < *argcp; i++) {
		if (!own_options(argv[i])) {
			argv[n++] = argv[i];
			continue;
		}
		for (w = argv[i] + 1; *w != '\0'; w++) {
			if (*w == 'h')
				usage(0);
			if (*w == 'j') {
				*out = &json_output;
				continue;
			}
			/* 's': the rest of the word, or the next one */
			if (w[1] != '\0')
				*sockname = w + 1;
			else if (i + 1 < *argcp)
				*sockname = argv[++i];
			else {
				warnx("option requires an argument -- s");
				usage(1);
			}
			break;
		}
	}
	argv[n] = NULL;
	*argcp = n;
}

int
main(int argc, char *argv[])
{
	const struct output		*out = &show_output;
	const struct parse_result	*res;
	const struct request		*rq;
	const char			*sockname = ORCHD_SOCKET;
	struct imsgbuf			 ibuf;
	int				 ch, fd;

	/* the shell's completion: its words are not orchctl's to take */
	if (argc > 1 && strcmp(argv[1], "complete") == 0)
		complete_main(argc - 2, argv + 2);
	for (ch = 1; ch < argc; ch++)
		if (strcmp(argv[ch], "--help") == 0)
			usage(0);

	/* "+": stop at the command, whose own options (logs -n) follow */
	while ((ch = getopt(argc, argv, "+:hjs:V")) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'j':
			out = &json_output;
			break;
		case 's':
			sockname = optarg;
			break;
		case 'V':
			printf("orchctl %s\n", ORCHD_VERSION);
			exit(0);
		case ':':
			warnx("option requires an argument -- %c", optopt);
			usage(1);
		default:
			warnx("unknown option -- %c", optopt);
			usage(1);
		}
	}
	argc -= optind;
	argv += optind;
	late_options(&argc, argv, &sockname, &out);

	/* import and groups: many requests each, their own (ctlcall.c) */
	if (argc > 0 && strcmp(argv[0], "import") == 0)
		import_main(sockname, argc, argv);
	if (argc > 0 && strcmp(argv[0], "maintenance") == 0)
		maint_main(sockname, out == &json_output, argc, argv);
	if ((argc == 2 && strcmp(argv[0], "show") == 0 &&
	    strcmp(argv[1], "groups") == 0) ||
	    (argc > 0 && strcmp(argv[0], "group") == 0) ||
	    (argc > 1 && strcmp(argv[0], "delete") == 0 &&
	    strcmp(argv[1], "--project") == 0)) {
		if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
			err(1, "signal");
		group_main(sockname, out == &json_output, argc, argv);
	}

	if ((res = parse(argc, argv)) == NULL)
		usage(1);
	rq = request_find(res->action);
	if (rq->rq_type == IMSG_NONE)
		errx(1, "%s: not supported by this orchd yet", rq->rq_name);

	/* a write to a closed socket is an error, not a signal */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");
	/* update: a workload orchd lacks is said before its definition */
	if (res->action == UPDATE) {
		ctl_known(sockname, res->name);
		res = define_load();
	}
	fd = ctl_connect(sockname);
	if (imsgbuf_init(&ibuf, fd) == -1)
		err(1, "imsgbuf_init");
	ctl_send(&ibuf, rq, res);
	ctl_receive(&ibuf, rq, res, out);

	imsgbuf_clear(&ibuf);
	close(fd);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	return (0);
}

/*
 * show workloads NAME, its reply printed by out, orchd given timeout
 * seconds to say anything: exits with orchd's message (no such
 * workload) if it has none of that name
 */
void
ctl_names(const char *sockname, const char *name, const struct output *out,
    int timeout)
{
	struct parse_result	 pr;
	struct request		 rq;
	struct imsgbuf		 ibuf;
	int			 fd;

	memset(&pr, 0, sizeof(pr));
	pr.action = SHOW_WORKLOADS;
	if (strlcpy(pr.name, name, sizeof(pr.name)) >= sizeof(pr.name))
		errx(1, "name too long: %s", name);
	rq = *request_find(SHOW_WORKLOADS);
	rq.rq_type = IMSG_CTL_SHOW_WORKLOADS;	/* the one name */
	rq.rq_timeout = timeout;
	fd = ctl_connect(sockname);
	if (imsgbuf_init(&ibuf, fd) == -1)
		err(1, "imsgbuf_init");
	ctl_send(&ibuf, &rq, &pr);
	ctl_receive(&ibuf, &rq, &pr, out);
	imsgbuf_clear(&ibuf);
	close(fd);
}

/* update NAME: orchd has a workload NAME, or orchctl says so and exits */
static void
ctl_known(const char *sockname, const char *name)
{
	ctl_names(sockname, name, &quiet_output, CTL_TIMEOUT);
}

static const struct request *
request_find(enum actions action)
{
	size_t	 i;

	for (i = 0; i < nitems(requests); i++)
		if (requests[i].rq_action == action)
			return (&requests[i]);
	errx(1, "no request for action %d", action);
}

/* Connect to orchd's socket; the descriptor is non-blocking. */
int
ctl_connect(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd, flags;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(1, "socket path too long: %s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		/* what an operator meets first: say what it likely means */
		if (errno == ENOENT || errno == ECONNREFUSED)
			errx(1, "%s: is orchd running? (socket %s)",
			    errno == ENOENT ? "no socket" :
			    "connection refused", path);
		err(1, "connect: %s", path);
	}
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		err(1, "fcntl");
	return (fd);
}

/* Compose one request and write it out. */
static void
ctl_send(struct imsgbuf *ibuf, const struct request *rq,
    const struct parse_result *res)
{
	struct ctl_name		 cn;
	struct ctl_keepwarm	 kw;
	struct ctl_logs		 cl;
	struct ctl_page		 cp;
	struct acme_host	 ah;
	const void		*data = NULL;
	size_t			 len = 0;
	int			 verbose;

	switch (rq->rq_type) {
	case IMSG_CTL_VERBOSE:
		verbose = res->action == LOG_VERBOSE;
		data = &verbose;
		len = sizeof(verbose);
		break;
	case IMSG_CTL_SHOW_WORKLOADS:	/* "" for every workload */
	case IMSG_CTL_SHOW_HISTORY:
	case IMSG_CTL_SHOW_DEFINITION:
	case IMSG_CTL_WAKE:
	case IMSG_CTL_SUSPEND:
	case IMSG_CTL_RESTART:
	case IMSG_CTL_PULL:
	case IMSG_CTL_DELETE:
	case IMSG_CTL_KEEP:
		memset(&cn, 0, sizeof(cn));
		strlcpy(cn.name, res->name, sizeof(cn.name));
		data = &cn;
		len = sizeof(cn);
		break;
	case IMSG_CTL_SHOW_PAGE:
		memset(&cp, 0, sizeof(cp));
		strlcpy(cp.name, ctl_pg.after, sizeof(cp.name));
		cp.limit = CTL_PAGE_ORCHCTL;
		ctl_pg.got = 0;
		data = &cp;
		len = sizeof(cp);
		break;
	case IMSG_ACME_RENEW:
		memset(&ah, 0, sizeof(ah));
		strlcpy(ah.name, res->host, sizeof(ah.name));
		data = &ah;
		len = sizeof(ah);
		break;
	case IMSG_CTL_CREATE:
	case IMSG_CTL_UPDATE:
		data = res->def;
		len = res->deflen;
		break;
	case IMSG_CTL_KEEPWARM:
		memset(&kw, 0, sizeof(kw));
		strlcpy(kw.name, res->name, sizeof(kw.name));
		kw.on = res->onoff;
		data = &kw;
		len = sizeof(kw);
		break;
	case IMSG_CTL_LOGS:
		memset(&cl, 0, sizeof(cl));
		strlcpy(cl.name, res->name, sizeof(cl.name));
		cl.lines = res->lines;
		cl.follow = (res->flags & F_FOLLOW) != 0;
		data = &cl;
		len = sizeof(cl);
		break;
	default:
		break;
	}
	if (imsg_compose(ibuf, rq->rq_type, ORCHD_CTL_VERSION, getpid(), -1,
	    data, len) == -1)
		err(1, "imsg_compose");
	if (imsgbuf_flush(ibuf) == -1) {
		if (errno == EPIPE || errno == ECONNRESET)
			errx(1, "connection closed by orchd");
		err(1, "write");
	}
}

/*
 * Print replies until one ends the exchange; every error exits.  orchd
 * may stay silent for the request's timeout between two messages; logs
 * -f waits for as long as it takes.
 */
static void
ctl_receive(struct imsgbuf *ibuf, const struct request *rq,
    const struct parse_result *res, const struct output *out)
{
	struct timespec	 deadline;
	struct imsg	 imsg;
	enum reply	 r;
	int		 headed = 0, n, timeout;

	/* logs -f and monitor wait for as long as it takes */
	timeout = rq->rq_timeout;
	if (res->action == LOGS && (res->flags & F_FOLLOW))
		timeout = 0;
	ctl_deadline(&deadline, timeout);

	for (;;) {
		while ((n = imsg_get(ibuf, &imsg)) == 1) {
			r = ctl_dispatch(&imsg, rq, res, out, &headed);
			imsg_free(&imsg);
			ctl_deadline(&deadline, timeout);
			if (r == REPLY_DONE)
				return;
			if (r == REPLY_MORE)
				continue;
			/* log bytes are printed as they come, not as a reply */
			if (rq->rq_item == IMSG_CTL_LOGDATA)
				return;
			/* a full page: the next one, the same request */
			if (rq->rq_type == IMSG_CTL_SHOW_PAGE &&
			    ctl_pg.got == CTL_PAGE_ORCHCTL) {
				ctl_send(ibuf, rq, res);
				continue;
			}
			if (rq->rq_then == NULL) {
				if (!headed)
					out->head(res);
				out->tail(res);
				return;
			}
			rq = rq->rq_then;
			ctl_send(ibuf, rq, res);
		}
		if (n == -1)
			bad_reply();
		if (ctl_wait(ibuf, &deadline, timeout) == 0)
			errx(1, "no reply from orchd in %d seconds", timeout);
		switch (imsgbuf_read(ibuf)) {
		case -1:
			if (errno == ECONNRESET)
				errx(1, "connection closed by orchd");
			err(1, "read");
		case 0:
			errx(1, "connection closed by orchd");
		default:
			break;
		}
	}
}

/* The time by which orchd must have said something; 0: no limit. */
static void
ctl_deadline(struct timespec *deadline, int timeout)
{
	if (clock_gettime(CLOCK_MONOTONIC, deadline) == -1)
		err(1, "clock_gettime");
	deadline->tv_sec += timeout;
}

/*
 * Wait until the socket is readable: 1, or 0 once deadline has passed
 * (never with no timeout).
 */
static int
ctl_wait(struct imsgbuf *ibuf, const struct timespec *deadline, int timeout)
{
	struct pollfd	 pfd;
	struct timespec	 now;
	long long	 ms = -1;
	int		 n;

	for (;;) {
		if (timeout > 0) {
			if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
				err(1, "clock_gettime");
			ms = (long long)(deadline->tv_sec - now.tv_sec) *
			    1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
			if (ms <= 0)
				return (0);
		}
		pfd.fd = ibuf->fd;
		pfd.events = POLLIN;
		if ((n = poll(&pfd, 1, (int)ms)) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (n > 0)
			return (1);
	}
}

/* Handle one reply: an item, the end of the items, or the end of all. */
static enum reply
ctl_dispatch(struct imsg *imsg, const struct request *rq,
    const struct parse_result *res, const struct output *out, int *headed)
{
	struct ctl_summary	 cs;
	struct ctl_workload	 cw;
	struct ctl_transition	 ct;
	struct ctl_stats	 st;
	struct st_queue_stats	 sq;
	struct alog_queue_stats	 aq;
	struct rt_budget	 rb;
	struct ctl_reload	 cr;
	struct ctl_pull		 cp;
	struct acme_status	 as;
	uint32_t		 type;

	type = imsg_get_type(imsg);
	switch (type) {
	case IMSG_CTL_FAIL:
		/*
		 * A workload without a single transition has no history,
		 * which orchd reports as an unknown name; the workload
		 * itself was just shown, so that is an empty history.  A
		 * definition gone since (an API workload deleted) is
		 * none to show.
		 */
		if ((rq->rq_type == IMSG_CTL_SHOW_HISTORY ||
		    rq->rq_type == IMSG_CTL_SHOW_DEFINITION) &&
		    ctl_unknown(imsg))
			return (REPLY_END);
		ctl_fail(imsg);
		/* NOTREACHED */
	case IMSG_CTL_OK:
		/* a reload's and a pull's items end with an OK, not an END */
		if (rq->rq_item != IMSG_NONE &&
		    rq->rq_item != IMSG_CTL_RELOADINFO &&
		    rq->rq_item != IMSG_CTL_PULLING)
			bad_reply();
		out->result(res);
		return (REPLY_DONE);
	case IMSG_CTL_END:
		if (rq->rq_item == IMSG_NONE ||
		    rq->rq_item == IMSG_CTL_RELOADINFO ||
		    rq->rq_item == IMSG_CTL_PULLING)
			bad_reply();
		return (REPLY_END);
	case IMSG_CTL_VERSION:
		if (rq->rq_item != IMSG_CTL_VERSION)
			bad_reply();
		ctl_version(imsg, out);
		return (REPLY_DONE);
	default:
		break;
	}

	/* the store's summary carries its held writes too */
	if (type == IMSG_CTL_STORE_QUEUE && rq->rq_item == IMSG_CTL_SUMMARY) {
		if (imsg_get_data(imsg, &sq, sizeof(sq)) == -1)
			bad_reply();
		out->store_queue(&sq);
		return (REPLY_MORE);
	}
	/* and a gateway's, the access log's lines held */
	if (type == IMSG_CTL_ALOG_QUEUE && rq->rq_item == IMSG_CTL_SUMMARY) {
		if (imsg_get_data(imsg, &aq, sizeof(aq)) == -1)
			bad_reply();
		out->alog_queue(&aq);
		return (REPLY_MORE);
	}
	/* show stats: the memory budget, runtimed's */
	if (type == IMSG_CTL_BUDGET && rq->rq_item == IMSG_CTL_STATS) {
		if (imsg_get_data(imsg, &rb, sizeof(rb)) == -1)
			bad_reply();
		out->budget(&rb);
		return (REPLY_MORE);
	}
	if (type == IMSG_CTL_DEPENDENT && rq->rq_item == IMSG_CTL_DEFINITION) {
		ctl_dependent(imsg);
		return (REPLY_MORE);
	}
	if (type != rq->rq_item)
		bad_reply();
	if (type == IMSG_CTL_LOGDATA) {
		ctl_logdata(imsg);
		return (REPLY_MORE);
	}
	if (type == IMSG_CTL_DEFINITION) {
		/* after the workload, which heads the reply */
		if (!*headed)
			bad_reply();
		ctl_definition(imsg, res, out);
		return (REPLY_MORE);
	}
	if (type == IMSG_CTL_RELOADINFO) {
		if (imsg_get_data(imsg, &cr, sizeof(cr)) == -1)
			bad_reply();
		str_printable(cr.msg, sizeof(cr.msg));
		out->reload(&cr);
		return (REPLY_MORE);
	}
	if (type == IMSG_CTL_EVENT) {
		ctl_event(imsg, out);
		return (REPLY_MORE);
	}
	if (type == IMSG_CTL_PULLING) {
		if (imsg_get_data(imsg, &cp, sizeof(cp)) == -1)
			bad_reply();
		str_printable(cp.name, sizeof(cp.name));
		str_printable(cp.image, sizeof(cp.image));
		str_printable(cp.status, sizeof(cp.status));
		out->pull(res, &cp);
		return (REPLY_MORE);
	}
	if (!*headed) {
		out->head(res);
		*headed = 1;
	}
	switch (type) {
	case IMSG_CTL_SUMMARY:
		if (imsg_get_data(imsg, &cs, sizeof(cs)) == -1)
			bad_reply();
		str_printable(cs.name, sizeof(cs.name));
		out->summary(&cs);
		break;
	case IMSG_ACME_STATUS:
		if (imsg_get_data(imsg, &as, sizeof(as)) == -1)
			bad_reply();
		str_printable(as.name, sizeof(as.name));
		str_printable(as.issuer, sizeof(as.issuer));
		str_printable(as.error, sizeof(as.error));
		out->certificate(&as);
		break;
	case IMSG_CTL_WORKLOAD:
		if (imsg_get_data(imsg, &cw, sizeof(cw)) == -1)
			bad_reply();
		str_printable(cw.name, sizeof(cw.name));
		str_printable(cw.hosts, sizeof(cw.hosts));
		str_printable(cw.msg, sizeof(cw.msg));
		str_printable(cw.drift, sizeof(cw.drift));
		if (rq->rq_type == IMSG_CTL_SHOW_PAGE)
			ctl_page_item(&cw);
		out->workload(res, &cw);
		break;
	case IMSG_CTL_HISTORY:
		if (imsg_get_data(imsg, &ct, sizeof(ct)) == -1)
			bad_reply();
		str_printable(ct.name, sizeof(ct.name));
		str_printable(ct.msg, sizeof(ct.msg));
		cause_sanitize(&ct.cause);
		out->transition(res, &ct);
		break;
	case IMSG_CTL_STATS:
		if (imsg_get_data(imsg, &st, sizeof(st)) == -1)
			bad_reply();
		str_printable(st.name, sizeof(st.name));
		out->stats(res, &st);
		break;
	default:
		bad_reply();
	}
	return (REPLY_MORE);
}

/* an item of a page: after the last, no more than a page */
static void
ctl_page_item(const struct ctl_workload *cw)
{
	if (ctl_pg.got >= CTL_PAGE_ORCHCTL || strnlen(cw->name,
	    sizeof(cw->name)) >= sizeof(cw->name) ||
	    strcmp(cw->name, ctl_pg.after) <= 0)
		bad_reply();
	strlcpy(ctl_pg.after, cw->name, sizeof(ctl_pg.after));
	ctl_pg.got++;
}

/*
 * Log bytes, written as they come whatever the output format: they are
 * the workload's, not orchd's.  A reader that went away ends orchctl.
 */
static void
ctl_logdata(struct imsg *imsg)
{
	size_t	 len = imsg_get_len(imsg);

	if (len == 0)
		return;
	if (fwrite(imsg->data, 1, len, stdout) != len ||
	    fflush(stdout) == EOF) {
		if (errno == EPIPE)
			exit(1);
		err(1, "stdout");
	}
}

/* show workload: those that depend on it, which come before it */
static json_t	*dependents;

static void
ctl_dependent(struct imsg *imsg)
{
	struct ctl_name	 cn;

	if (imsg_get_data(imsg, &cn, sizeof(cn)) == -1)
		bad_reply();
	cn.name[sizeof(cn.name) - 1] = '\0';
	if (dependents == NULL && (dependents = json_array()) == NULL)
		err(1, "out of memory");
	if (json_array_append_new(dependents, json_string(cn.name)) == -1)
		errx(1, "bad reply from orchd: dependent");
}

/*
 * show workload: the definition, which the parent sends packed (it
 * writes no JSON), as JSON with its "dependents"
 */
static void
ctl_definition(struct imsg *imsg, const struct parse_result *res,
    const struct output *out)
{
	json_t			*o;
	char			*json;

	o = ctl_def_json(imsg, 0);
	if (dependents != NULL &&
	    json_object_set_new(o, "dependents", dependents) == -1)
		errx(1, "out of memory");
	dependents = NULL;
	if ((json = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
	    NULL)
		errx(1, "out of memory");
	json_decref(o);
	out->definition(res, json, strlen(json));
	free(json);
}

/*
 * monitor: each event as it comes, a line of text or, with -j, one
 * JSON object a line (the data of GET /v1/events).  A reader that went
 * away ends orchctl.
 */
static void
ctl_event(struct imsg *imsg, const struct output *out)
{
	struct ctl_event	 ev;
	json_t			*o;
	char			 line[1024], *s;

	if (imsg_get_data(imsg, &ev, sizeof(ev)) == -1)
		bad_reply();
	event_sanitize(&ev);
	if (out == &json_output) {
		if ((o = event_json(&ev)) == NULL ||
		    (s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
		    NULL)
			errx(1, "cannot build the JSON event");
		json_decref(o);
		printf("%s\n", s);
		free(s);
	} else
		printf("%s\n", event_text(&ev, line, sizeof(line)));
	if (fflush(stdout) == EOF) {
		if (errno == EPIPE)
			exit(1);
		err(1, "stdout");
	}
}

/* show version: this orchctl's, then the daemon's */
static void
ctl_version(struct imsg *imsg, const struct output *out)
{
	struct ctl_version	 cv;
	json_t			*o;

	if (imsg_get_data(imsg, &cv, sizeof(cv)) == -1)
		bad_reply();
	str_printable(cv.version, sizeof(cv.version));
	if (out != &json_output) {
		printf("orchctl %s\norchd %s\n", ORCHD_VERSION, cv.version);
		return;
	}
	if ((o = json_pack("{s:s, s:s}", "orchctl", ORCHD_VERSION, "orchd",
	    cv.version)) == NULL)
		errx(1, "cannot build the JSON reply");
	if (json_dumpf(o, stdout, JSON_INDENT(2)) == -1)
		err(1, "stdout");
	putchar('\n');
	json_decref(o);
}

/* A FAIL saying that the name is not known. */
static int
ctl_unknown(struct imsg *imsg)
{
	struct ctl_result	 cr;
	static const char	 unknown[] = "no such workload";

	if (imsg_get_data(imsg, &cr, sizeof(cr)) == -1)
		bad_reply();
	cr.msg[sizeof(cr.msg) - 1] = '\0';
	return (strncmp(cr.msg, unknown, sizeof(unknown) - 1) == 0);
}

__dead static void
ctl_fail(struct imsg *imsg)
{
	struct ctl_result	 cr;

	if (imsg_get_data(imsg, &cr, sizeof(cr)) == -1)
		bad_reply();
	str_printable(cr.msg, sizeof(cr.msg));
	/* what was printed before the failure is kept */
	(void)fflush(stdout);
	errx(1, "%s", cr.msg[0] != '\0' ? cr.msg : "command failed");
}

__dead static void
bad_reply(void)
{
	(void)fflush(stdout);
	errx(1, "bad reply from orchd");
}
