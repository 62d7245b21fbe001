/*
 * confd, "orchd: conf": reads orchd.conf for the root parent, so that
 * root parses no text (DESIGN.md).  One run reads one configuration: at
 * start and for orchd -n the parent forks and execs it, at a reload the
 * spawner does (the parent forks no more once filtered); either way it
 * gets its socket on CONF_FD and the daemons' user with -u.
 *
 * It runs as that user, in an empty network namespace, keeping one
 * capability, CAP_DAC_READ_SEARCH: orchd.conf, its includes and the
 * password files it names may be root's alone, and confd reads them.  It
 * can write nothing (its filter opens files for reading only), and no
 * process of its user may trace it.  It asks the parent for nothing.
 *
 * The parent sends the -D macros and IMSG_CONF_READ (the file, how to
 * treat what this host lacks, whether to print it for orchd -nv).  confd
 * parses it with the grammar of confd/parse.y, then sends back, in
 * order: its log lines as they come (the parent logs them as its own,
 * so that orchd -n, a reload's answer and syslog say the same), every
 * global setting (common/conf_wire.c), the listeners, keypairs,
 * workloads, ignore rules, password files and acme block, and END with
 * the count of errors.  The parent checks each piece again.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "confd.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "sandbox.h"
#include "users.h"
#include "util.h"

static struct imsgbuf	 ibuf;
static int		 sending;	/* a failed send logs no more */

static __dead void
usage(void)
{
	fprintf(stderr, "usage: %s [-dv] -u uid:gid\n"
	    "%s is started by orchd(8), not by hand.\n", getprogname(),
	    getprogname());
	exit(1);
}

/*
 * Messages go out in batches of CONFD_BATCH, one sendmsg(2) each: a
 * message apiece cost a load of 100,000 workloads 100,000 system calls.
 * Each is still one whole, fixed message that the parent checks.
 */
#define CONFD_BATCH	64	/* imsg.c gathers up to 64 in one sendmsg */

/* queued; written when a batch is full */
void
confd_send(uint32_t type, const void *data, size_t len)
{
	if (sending)
		_exit(1);
	sending = 1;
	if (imsg_compose(&ibuf, type, 0, 0, -1, data, len) == -1)
		_exit(1);
	sending = 0;
	if (imsgbuf_queuelen(&ibuf) >= CONFD_BATCH)
		confd_flush();
}

/* everything queued, written: the parent reads it all */
void
confd_flush(void)
{
	if (sending)
		_exit(1);
	sending = 1;
	if (imsgbuf_flush(&ibuf) == -1)
		_exit(1);	/* the parent is gone, or refused us */
	sending = 0;
}

/* a line of ours, for the parent to log as its own */
static void
confd_log(int pri, const char *line)
{
	struct conf_log	 l;

	memset(&l, 0, sizeof(l));
	l.pri = pri;
	(void)strlcpy(l.line, line, sizeof(l.line));
	confd_send(IMSG_CONF_LOG, &l, sizeof(l));
	/* at once: a fatal() exits right after its line */
	confd_flush();
}

/*
 * What the reading itself says that changes the result: with the
 * macros, the start of the digest of the inputs (inputs.c).
 */
static void
request_mix(const struct conf_read *rq)
{
	inputs_mix(0, 0, "file", rq->file, strlen(rq->file));
	inputs_mix(0, 0, "host checks", &rq->host_checks,
	    sizeof(rq->host_checks));
	inputs_mix(0, 0, "idle timeout", &rq->idle_timeout,
	    sizeof(rq->idle_timeout));
	inputs_mix(0, 0, "key env", &rq->key_env, sizeof(rq->key_env));
	inputs_prelude_done();
}

/*
 * The key and the running inputs (a reload), the macros, then what to
 * read: the parent's, on our socket.
 */
static void
confd_request(struct conf_read *rq)
{
	struct conf_macro	 m;
	struct conf_digest	 cd;
	struct conf_input	*ci;
	struct imsg		 imsg;
	ssize_t			 n;

	if ((ci = malloc(sizeof(*ci))) == NULL)
		fatal("%s", __func__);
	for (;;) {
		if ((n = imsg_get(&ibuf, &imsg)) == -1)
			fatal("%s: imsg_get", __func__);
		if (n == 0) {
			if (imsgbuf_read(&ibuf) != 1)
				fatalx("%s: the parent left", __func__);
			continue;
		}
		if (imsg_get_type(&imsg) == IMSG_CONF_MACRO &&
		    imsg_get_data(&imsg, &m, sizeof(m)) == 0) {
			m.def[sizeof(m.def) - 1] = '\0';
			if (cmdline_symset(m.def) < 0)
				fatalx("could not parse macro definition %s",
				    m.def);
			inputs_mix(0, 0, "-D", m.def, strlen(m.def));
		} else if (imsg_get_type(&imsg) == IMSG_CONF_DIGEST &&
		    imsg_get_data(&imsg, &cd, sizeof(cd)) == 0) {
			inputs_key(&cd);
			explicit_bzero(&cd, sizeof(cd));
		} else if (imsg_get_type(&imsg) == IMSG_CONF_INPUT &&
		    imsg_get_data(&imsg, ci, sizeof(*ci)) == 0) {
			inputs_take(ci);
		} else if (imsg_get_type(&imsg) == IMSG_CONF_READ &&
		    imsg_get_data(&imsg, rq, sizeof(*rq)) == 0) {
			rq->file[sizeof(rq->file) - 1] = '\0';
			imsg_free(&imsg);
			free(ci);
			request_mix(rq);
			return;
		} else
			fatalx("%s: message %u of %zu bytes", __func__,
			    imsg_get_type(&imsg), imsg_get_len(&imsg));
		imsg_free(&imsg);
	}
}

int
main(int argc, char *argv[])
{
	struct orchd_conf	*conf;
	struct conf_read	 rq;
	uid_t			 uid = 0;
	gid_t			 gid = 0;
	int32_t			 errors;
	int			 ch, debug = 0, verbose = 0, ids = 0;

	log_init(1, LOG_DAEMON);
	while ((ch = getopt(argc, argv, "du:v")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'u':
			if (privdrop_ids(optarg, &uid, &gid) == -1)
				usage();
			ids = 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !ids)
		usage();
	log_init(debug, LOG_DAEMON);
	log_setverbose(verbose);
	log_procinit("conf");

	/* modules of the name service now: none can be mapped later */
	users_preload();
	privdrop(uid, gid, NULL, PRIVDROP_NONET | PRIVDROP_READALL);
	sandbox_enter("conf", SB_STDIO | SB_RPATH | SB_DNS);

	if (imsgbuf_init(&ibuf, CONF_FD) == -1 ||
	    imsgbuf_set_maxsize(&ibuf, CONF_MSG_MAX) == -1)
		fatal("imsgbuf_init");
	confd_request(&rq);
	/* the parent logs what we say, as its own */
	log_forward(confd_log);
	parse_user_lookup = users_lookup;
	parse_host_checks = rq.host_checks;
	/* a reload with nothing changed: no parse, nothing sent */
	if (inputs_same()) {
		errors = 0;
		confd_send(IMSG_CONF_SAME, &errors, sizeof(errors));
		confd_flush();
		exit(0);
	}
	conf = parse_config(rq.file, rq.verbose);
	errors = conf == NULL;
	if (conf != NULL && rq.idle_timeout >= 0) {
		conf->idle_timeout = rq.idle_timeout;
		/* 0 turns the reaper off, workloads' own timeouts too */
		conf->reaper_off = rq.idle_timeout == 0;
	}
	if (conf != NULL) {
		confd_send_conf(conf);
		confd_send_inputs();
		confd_flush();
		conf->api_key_set = rq.key_env;
		if (rq.print && print_config(stdout, conf) == -1)
			errors = 1;
		fflush(stdout);
	}
	confd_send(IMSG_CONF_END, &errors, sizeof(errors));
	confd_flush();
	/*
	 * conf is not freed: the exit gives it back whole, where a free
	 * of each of 100,000 workloads' pieces cost a tenth of the parse
	 */
	/* no exit handlers: none has anything to do that the filter allows */
	_exit(0);
}
