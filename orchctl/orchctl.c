/*
 * orchctl: control orchd over its control socket.  Parse the command,
 * connect, send one request stamped with the control protocol's version,
 * then print the replies until orchd says the exchange is over.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "imsg.h"
#include "orchctl.h"

#define CTL_TIMEOUT	30		/* seconds for the whole reply */

/*
 * What each action sends, and the items its reply carries.  A request
 * orchd does not have yet is IMSG_NONE: orchctl parses the command but
 * refuses to send it.
 */
struct request {
	enum actions	 rq_action;
	const char	*rq_name;
	uint32_t	 rq_type;
	uint32_t	 rq_item;	/* reply items, IMSG_NONE: none */
};

static const struct request requests[] = {
	{ SHOW_SUMMARY,	  "show summary",   IMSG_CTL_SHOW_SUMMARY,
	    IMSG_CTL_SUMMARY },
	{ SHOW_WORKLOADS, "show workloads", IMSG_NONE,		IMSG_NONE },
	{ SHOW_WORKLOAD,  "show workload",  IMSG_NONE,		IMSG_NONE },
	{ SHOW_STATS,	  "show stats",	    IMSG_NONE,		IMSG_NONE },
	{ RELOAD,	  "reload",	    IMSG_CTL_RELOAD,	IMSG_NONE },
	{ LOG_VERBOSE,	  "log verbose",    IMSG_CTL_VERBOSE,	IMSG_NONE },
	{ LOG_BRIEF,	  "log brief",	    IMSG_CTL_VERBOSE,	IMSG_NONE },
	{ WAKE,		  "wake",	    IMSG_NONE,		IMSG_NONE },
	{ SUSPEND,	  "suspend",	    IMSG_NONE,		IMSG_NONE },
	{ KEEPWARM,	  "keepwarm",	    IMSG_NONE,		IMSG_NONE },
	{ LOGS,		  "logs",	    IMSG_NONE,		IMSG_NONE }
};

__dead static void	 usage(void);
static const struct request *request_find(enum actions);
static int		 ctl_connect(const char *);
static void		 ctl_send(struct imsgbuf *, const struct request *,
			    const struct parse_result *);
static void		 ctl_receive(struct imsgbuf *, const struct request *,
			    const struct parse_result *, const struct output *);
static int		 ctl_wait(struct imsgbuf *, const struct timespec *);
static int		 ctl_dispatch(struct imsg *, const struct request *,
			    const struct parse_result *, const struct output *);
__dead static void	 ctl_fail(struct imsg *);
__dead static void	 bad_reply(void);

__dead static void
usage(void)
{
	fprintf(stderr, "usage: %s [-j] [-s socket] command [argument ...]\n",
	    getprogname());
	exit(1);
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

	/* "+": stop at the command, whose own options (logs -n) follow */
	while ((ch = getopt(argc, argv, "+:js:")) != -1) {
		switch (ch) {
		case 'j':
			out = &json_output;
			break;
		case 's':
			sockname = optarg;
			break;
		case ':':
			warnx("option requires an argument -- %c", optopt);
			usage();
		default:
			warnx("unknown option -- %c", optopt);
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if ((res = parse(argc, argv)) == NULL)
		usage();
	rq = request_find(res->action);
	if (rq->rq_type == IMSG_NONE)
		errx(1, "%s: not supported by this orchd yet", rq->rq_name);

	/* a write to a closed socket is an error, not a signal */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");
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
static int
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
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "connect: %s", path);
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		err(1, "fcntl");
	return (fd);
}

/* Compose the one request and write it out. */
static void
ctl_send(struct imsgbuf *ibuf, const struct request *rq,
    const struct parse_result *res)
{
	const void	*data = NULL;
	size_t		 len = 0;
	int		 verbose;

	switch (res->action) {
	case LOG_VERBOSE:
	case LOG_BRIEF:
		verbose = res->action == LOG_VERBOSE;
		data = &verbose;
		len = sizeof(verbose);
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

/* Print replies until one ends the exchange; every error exits. */
static void
ctl_receive(struct imsgbuf *ibuf, const struct request *rq,
    const struct parse_result *res, const struct output *out)
{
	struct timespec	 deadline;
	struct imsg	 imsg;
	int		 done, n;

	if (clock_gettime(CLOCK_MONOTONIC, &deadline) == -1)
		err(1, "clock_gettime");
	deadline.tv_sec += CTL_TIMEOUT;

	for (;;) {
		while ((n = imsg_get(ibuf, &imsg)) == 1) {
			done = ctl_dispatch(&imsg, rq, res, out);
			imsg_free(&imsg);
			if (done)
				return;
		}
		if (n == -1)
			bad_reply();
		if (ctl_wait(ibuf, &deadline) == 0)
			errx(1, "no reply from orchd in %d seconds",
			    CTL_TIMEOUT);
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

/* Wait until the socket is readable: 1, or 0 once deadline has passed. */
static int
ctl_wait(struct imsgbuf *ibuf, const struct timespec *deadline)
{
	struct pollfd	 pfd;
	struct timespec	 now;
	long long	 ms;
	int		 n;

	for (;;) {
		if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
			err(1, "clock_gettime");
		ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
		    (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0)
			return (0);
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

/* Handle one reply: 1 when it ends the exchange, 0 when more will come. */
static int
ctl_dispatch(struct imsg *imsg, const struct request *rq,
    const struct parse_result *res, const struct output *out)
{
	static int		 headed;
	struct ctl_summary	 cs;
	uint32_t		 type;

	type = imsg_get_type(imsg);
	switch (type) {
	case IMSG_CTL_FAIL:
		ctl_fail(imsg);
		/* NOTREACHED */
	case IMSG_CTL_OK:
		out->result(res);
		return (1);
	case IMSG_CTL_END:
		if (!headed)
			out->head(res);
		out->tail(res);
		return (1);
	default:
		break;
	}

	if (type != rq->rq_item)
		bad_reply();
	if (!headed) {
		out->head(res);
		headed = 1;
	}
	switch (type) {
	case IMSG_CTL_SUMMARY:
		if (imsg_get_data(imsg, &cs, sizeof(cs)) == -1)
			bad_reply();
		str_printable(cs.name, sizeof(cs.name));
		out->summary(&cs);
		break;
	default:
		bad_reply();
	}
	return (0);
}

__dead static void
ctl_fail(struct imsg *imsg)
{
	struct ctl_result	 cr;

	if (imsg_get_data(imsg, &cr, sizeof(cr)) == -1)
		bad_reply();
	str_printable(cr.msg, sizeof(cr.msg));
	errx(1, "%s", cr.msg[0] != '\0' ? cr.msg : "command failed");
}

__dead static void
bad_reply(void)
{
	errx(1, "bad reply from orchd");
}
