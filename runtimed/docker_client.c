/*
 * A small Docker Engine API client: HTTP/1.1 over the daemon's unix
 * socket, non-blocking on runtimed's event loop, so that other workloads
 * keep waking while the daemon takes its time over one container.
 *
 * Calls are queued here and each is sent, one at a time per connection,
 * on one of up to DK_CONNS_MAX connections that are kept alive between
 * calls: a slow call (a stop waits for the container to end) does not
 * hold up the wake of another workload.  A stream (the events) gets a
 * connection of its own outside that count.  Answers are read with the
 * gateway's strict parser (common/http.c), chunked bodies included.
 *
 * The API version is negotiated once, before the first call goes out:
 * GET /version, and the lower of the daemon's version and ours is put in
 * every path after.  A socket proxy may refuse /version: then GET /_ping,
 * whose API-Version header says the same, and failing that the daemon's
 * own default, paths without a version.  A daemon that cannot be reached
 * leaves the version to be negotiated again with the next call.
 *
 * Only the calls of enum dk_call are made, their paths built by
 * docker_path.c from names it checks: whatever else runtimed does, this
 * is all it can ask of Docker.  A pull's registry login travels in its
 * X-Registry-Auth header, never in a path or a log line.
 *
 * With "swarm manager" (IMSG_CFG_SWARM), the swarm driver's calls go to
 * that manager instead, over TCP and TLS with the client certificate the
 * parent read, the manager's certificate checked against the CA given
 * and its address: the same HTTP on the same pool, each connection to
 * one place, paths without a version (the manager's own), the version
 * negotiated with the local daemon only.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <event.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "util.h"
#include "workload.h"
#include "docker.h"
#include "tlslib.h"

#define DK_CONNS_MAX		8	/* at once, streams aside */
#define DK_TIMEOUT		30	/* seconds for one call */
#define DK_IDLE_TIMEOUT		60	/* seconds a kept connection waits */
#define DK_HEAD_MAX		16384
#define DK_BODY_MAX		(4 * 1024 * 1024)	/* buffered answers */
#define DK_PATH_MAX		2048
#define DK_ERR_MAX		RT_MSG_MAX
#define DK_READ_MAX		65536
/* the newest API this client is written against */
#define DK_API_MAJOR		1
#define DK_API_MINOR		43

enum dk_rd {
	RD_HEAD = 0,
	RD_LENGTH,
	RD_CHUNKED,
	RD_CLOSE
};

struct dk_conn;

struct dk_req {
	TAILQ_ENTRY(dk_req)	 entry;		/* the queue, until sent */
	enum dk_call		 call;
	char			 path[DK_PATH_MAX]; /* without the version */
	char			*body;
	size_t			 bodylen;
	int			 internal;	/* version negotiation */
	int			 remote;	/* to the swarm manager */
	int			 cancelled;
	int			 retried;
	int			 timeout;	/* seconds; 0: none */
	char			*auth;		/* X-Registry-Auth, or NULL */
	dk_done_cb		 done;
	dk_data_cb		 data;
	void			*arg;
	struct dk_conn		*conn;		/* sent on; NULL: queued */
	struct event		 timer;
	/* the answer */
	int			 status;
	char			 ctype[128];
	char			 apiver[16];
	struct evbuffer		*resp;
	char			 err[DK_ERR_MAX];
};
TAILQ_HEAD(dk_reqs, dk_req);

struct dk_conn {
	TAILQ_ENTRY(dk_conn)	 entry;
	int			 fd;
	struct event		 rev;
	struct event		 wev;
	struct event		 idle;
	struct evbuffer		*in;
	struct evbuffer		*out;
	struct dk_req		*req;		/* NULL: idle */
	int			 stream;	/* not pooled */
	int			 connecting;
	struct tls		*tls;		/* to the swarm manager */
	int			 handshaking;
	unsigned int		 gen;		/* of its dk_mgr_cfg */
	int			 used;		/* answered before */
	size_t			 got;		/* bytes of this answer */
	enum dk_rd		 rd;
	uint64_t		 left;
	struct http_head	 head;
	char			 headbuf[DK_HEAD_MAX];
	struct http_chunked	 chunked;
};
TAILQ_HEAD(dk_conns, dk_conn);

static const struct {
	const char		*method;
	enum http_method	 meth;
	int			 timeout;	/* seconds; 0: none */
	int			 stream;
} dk_calls[DK_CALL_MAX] = {
	[DK_VERSION] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_PING] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_INSPECT] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_CREATE] =	{ "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_START] =	{ "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	/* and the stop's own timeout: see dk_call() */
	[DK_STOP] =	{ "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_REMOVE] =	{ "DELETE", HTTP_M_DELETE, DK_TIMEOUT, 0 },
	[DK_STATS] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_LOGS] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 1 },
	[DK_EVENTS] =	{ "GET", HTTP_M_GET, 0, 1 },
	[DK_LIST] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_NET_INSPECT] = { "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_NET_CREATE] = { "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	/* as long as the pull timeout, which its caller keeps */
	[DK_PULL] =	{ "POST", HTTP_M_POST, 0, 1 },
	[DK_IMAGE] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_SVC_INSPECT] = { "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_SVC_CREATE] = { "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_SVC_UPDATE] = { "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_TASKS] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_NODE] =	{ "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_IMAGE_REMOVE] = { "DELETE", HTTP_M_DELETE, DK_TIMEOUT, 0 },
	[DK_PAUSE] =	{ "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_UNPAUSE] =	{ "POST", HTTP_M_POST, DK_TIMEOUT, 0 },
	[DK_LABEL_EVENTS] = { "GET", HTTP_M_GET, 0, 1 },
	[DK_LABEL_LIST] = { "GET", HTTP_M_GET, DK_TIMEOUT, 0 },
	[DK_WAIT_REMOVED] = { "POST", HTTP_M_POST, DK_TIMEOUT, 0 }
};

static struct dk_reqs	 dk_queue = TAILQ_HEAD_INITIALIZER(dk_queue);
static struct dk_conns	 dk_conns = TAILQ_HEAD_INITIALIZER(dk_conns);
static int		 dk_nconns;		/* pooled ones */
static struct sockaddr_un dk_sun;
static char		 dk_display[128];	/* for messages */
static struct event	 dk_kick_ev;
static int		 dk_inited;

static enum {
	NEG_NONE = 0,
	NEG_PENDING,
	NEG_DONE
}			 dk_neg;
static int		 dk_major, dk_minor;	/* 0.0: no version */

/* "swarm manager": where the swarm calls go, and how */
static struct tls_config *dk_mgr_cfg;		/* NULL: the local socket */
static union wl_addr	 dk_mgr_addr;
static socklen_t	 dk_mgr_addrlen;
static char		 dk_mgr_name[CFG_SWARM_ADDR_MAX]; /* checked */
static char		 dk_mgr_display[CFG_SWARM_ADDR_MAX + 16];
static unsigned int	 dk_mgr_gen;		/* bumped at each one */

static void	dk_kick(void);
static void	dk_dispatch(int, short, void *);
static void	dk_conn_close(struct dk_conn *);
static void	dk_conn_fail(struct dk_conn *, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
static void	dk_version_done(const struct dk_resp *, void *);
static void	dk_ping_done(const struct dk_resp *, void *);

/*
 * Where the daemon's socket is: file, its path as configured, or in a
 * root directory of its own (the parent chroots runtimed to the socket's
 * directory) by its name at the top.
 */
void
dk_init(const char *file, int chrooted)
{
	char	 tmp[PATH_MAX];
	size_t	 n;

	if (file == NULL)
		file = ORCHD_DOCKER_SOCKET;
	memset(&dk_sun, 0, sizeof(dk_sun));
	dk_sun.sun_family = AF_UNIX;
	if (chrooted) {
		strlcpy(tmp, file, sizeof(tmp));
		n = snprintf(dk_sun.sun_path, sizeof(dk_sun.sun_path), "/%s",
		    basename(tmp));
	} else
		n = strlcpy(dk_sun.sun_path, file, sizeof(dk_sun.sun_path));
	if (n >= sizeof(dk_sun.sun_path))
		fatalx("docker socket path too long: %s", file);
	strlcpy(dk_display, file, sizeof(dk_display));
	evtimer_set(&dk_kick_ev, dk_dispatch, NULL);
	dk_inited = 1;
}

/* a connection's daemon, for messages */
static const char *
dk_conn_where(const struct dk_conn *c)
{
	return (c->tls != NULL ? dk_mgr_display : dk_display);
}

/*
 * IMSG_CFG_SWARM: the manager's address and the TLS credentials to
 * reach it with, or empty for the local socket.  The key is wiped from
 * the message once libtls has it.  Connections already made keep the
 * place they go to until they close.
 */
void
docker_recv_swarm(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_swarm	 cs;
	struct tls_config	*cfg;
	const uint8_t		*p;
	size_t			 len = imsg_get_len(imsg);
	struct sockaddr_in	*sin = &dk_mgr_addr.sin;
	struct sockaddr_in6	*sin6 = &dk_mgr_addr.sin6;

	if (dk_mgr_cfg != NULL)
		tlslib.config_free(dk_mgr_cfg);
	dk_mgr_cfg = NULL;
	dk_mgr_gen++;
	if (len == 0) {
		log_debug("swarm calls to %s", dk_display);
		return;
	}
	if (len < sizeof(cs))
		fatalx("%s: short message", __func__);
	/* the parent starts runtimed with -T for a manager, and else sends none */
	if (!tlslib_loaded())
		fatalx("%s: a swarm manager, but no -T", __func__);
	memcpy(&cs, imsg->data, sizeof(cs));
	cs.addr[sizeof(cs.addr) - 1] = '\0';
	p = (const uint8_t *)imsg->data + sizeof(cs);
	if ((uint64_t)cs.calen + cs.certlen + cs.keylen != len - sizeof(cs))
		fatalx("%s: lengths that do not add up", __func__);
	memset(&dk_mgr_addr, 0, sizeof(dk_mgr_addr));
	if (inet_pton(AF_INET, cs.addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(cs.port);
		dk_mgr_addrlen = sizeof(*sin);
		(void)snprintf(dk_mgr_display, sizeof(dk_mgr_display),
		    "%s:%u", cs.addr, cs.port);
	} else if (inet_pton(AF_INET6, cs.addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(cs.port);
		dk_mgr_addrlen = sizeof(*sin6);
		(void)snprintf(dk_mgr_display, sizeof(dk_mgr_display),
		    "[%s]:%u", cs.addr, cs.port);
	} else
		fatalx("%s: not an address", __func__);
	strlcpy(dk_mgr_name, cs.addr, sizeof(dk_mgr_name));
	if ((cfg = tlslib.config_new()) == NULL)
		fatal("tls_config_new");
	if (tlslib.config_set_ca_mem(cfg, p, cs.calen) == -1 ||
	    tlslib.config_set_keypair_mem(cfg, p + cs.calen, cs.certlen,
	    p + cs.calen + cs.certlen, cs.keylen) == -1) {
		/* every swarm call fails with it, as with no manager */
		log_warnx("swarm manager %s: %s", dk_mgr_display,
		    tlslib.config_error(cfg));
	}
	explicit_bzero(imsg->data, len);
	dk_mgr_cfg = cfg;
	log_debug("swarm calls to %s, over TLS", dk_mgr_display);
}

const char *
dk_where(void)
{
	return (dk_display);
}

int
dk_api_at_least(int major, int minor)
{
	if (dk_neg != NEG_DONE || (dk_major == 0 && dk_minor == 0))
		return (0);
	return (dk_major > major || (dk_major == major && dk_minor >= minor));
}

/*
 * Calls.
 */

static void
dk_req_free(struct dk_req *req)
{
	evtimer_del(&req->timer);
	if (req->resp != NULL)
		evbuffer_free(req->resp);
	free(req->body);
	if (req->auth != NULL)
		freezero(req->auth, strlen(req->auth));
	free(req);
}

/* a person's reading of a refusal: Docker says {"message": "..."} */
static void
dk_req_error(struct dk_req *req, const char *body, size_t len)
{
	json_error_t	 jerr;
	json_t		*o;
	const char	*msg = NULL;
	char		*p;

	if ((o = json_loadb(body, len, 0, &jerr)) != NULL)
		msg = json_string_value(json_object_get(o, "message"));
	if (msg != NULL && *msg != '\0')
		strlcpy(req->err, msg, sizeof(req->err));
	else if (len > 0 && o == NULL)
		strlcpy(req->err, body, sizeof(req->err));
	else
		snprintf(req->err, sizeof(req->err), "HTTP status %d",
		    req->status);
	json_decref(o);
	/* one line, printable: it ends up in logs and orchctl */
	for (p = req->err; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r') {
			*p = '\0';
			break;
		} else if (iscntrl((unsigned char)*p))
			*p = ' ';
	/* a container, service or image not made yet is no news */
	if ((req->call == DK_INSPECT || req->call == DK_IMAGE ||
	    req->call == DK_SVC_INSPECT || req->call == DK_TASKS) &&
	    req->status == 404)
		log_debug("docker: %s %s: %d %s", dk_calls[req->call].method,
		    req->path, req->status, req->err);
	else
		log_warnx("docker: %s %s: %d %s", dk_calls[req->call].method,
		    req->path, req->status, req->err);
}

/* the call is over, whichever way: its one and only report */
static void
dk_req_finish(struct dk_req *req)
{
	struct dk_resp	 r;
	const char	*body = "";
	size_t		 len;

	evtimer_del(&req->timer);
	len = evbuffer_get_length(req->resp);
	if (evbuffer_add(req->resp, "", 1) == 0)
		body = (const char *)evbuffer_pullup(req->resp, -1);
	if (body == NULL) {
		body = "";
		len = 0;
	}
	if (req->status != -1 && req->status / 100 != 2 && req->status != 304)
		dk_req_error(req, body, len);
	memset(&r, 0, sizeof(r));
	r.status = req->status;
	r.body = body;
	r.len = len;
	r.ctype = req->ctype;
	r.api_version = req->apiver;
	r.err = req->err[0] != '\0' ? req->err : NULL;
	if (!req->cancelled && req->done != NULL)
		req->done(&r, req->arg);
	dk_req_free(req);
}

static void
dk_req_fail(struct dk_req *req, const char *fmt, ...)
    __attribute__((__format__ (printf, 2, 3)));

static void
dk_req_fail(struct dk_req *req, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(req->err, sizeof(req->err), fmt, ap);
	va_end(ap);
	req->status = -1;
	evbuffer_drain(req->resp, evbuffer_get_length(req->resp));
	if (!req->internal)
		log_debug("docker: %s %s: %s", dk_calls[req->call].method,
		    req->path, req->err);
	dk_req_finish(req);
}

static void
dk_req_timeout(int fd, short event, void *arg)
{
	struct dk_req	*req = arg;
	struct dk_conn	*c;
	const char	*where;

	if ((c = req->conn) != NULL) {
		/* its answer can no longer be told from the next one's */
		c->req = NULL;
		req->conn = NULL;
		dk_conn_close(c);
	} else
		TAILQ_REMOVE(&dk_queue, req, entry);
	where = req->remote ? dk_mgr_display : dk_display;
	log_warnx("docker: %s %s: no answer from %s within %ds",
	    dk_calls[req->call].method, req->path, where, req->timeout);
	dk_req_fail(req, "the Docker daemon at %s did not answer within %ds",
	    where, req->timeout);
	dk_kick();
}

/*
 * Start a call.  id names the container, arg is the name of a create,
 * the tail of the logs or the seconds a stop waits before its SIGKILL,
 * body is sent as JSON.  done is always called later, from the event
 * loop, never from here: the caller keeps the handle it gets first.
 * NULL for a call that cannot be made.
 */
struct dk_req *
dk_call(enum dk_call call, const char *id, const char *arg, json_t *body,
    dk_done_cb done, dk_data_cb data, void *cbarg)
{
	struct dk_req	*req;
	struct timeval	 tv;
	int		 secs;

	if (!dk_inited || call < 0 || call >= DK_CALL_MAX)
		return (NULL);
	if ((req = calloc(1, sizeof(*req))) == NULL)
		return (NULL);
	req->call = call;
	req->timeout = dk_calls[call].timeout;
	/* the swarm's calls: to the manager, if one is named */
	req->remote = dk_mgr_cfg != NULL && call >= DK_SVC_INSPECT &&
	    call <= DK_NODE;
	if (dk_path(call, id, arg, dk_api_at_least(1, 41), req->path,
	    sizeof(req->path), &secs) == -1) {
		log_warnx("docker: refused to build call %d for \"%s\"",
		    call, id != NULL ? id : arg != NULL ? arg : "");
		free(req);
		return (NULL);
	}
	/* a stop: the daemon waits that long before its SIGKILL */
	req->timeout += secs;
	if (body != NULL) {
		if ((req->body = json_dumps(body, JSON_COMPACT)) == NULL) {
			free(req);
			return (NULL);
		}
		req->bodylen = strlen(req->body);
	}
	if ((req->resp = evbuffer_new()) == NULL) {
		free(req->body);
		free(req);
		return (NULL);
	}
	req->done = done;
	req->data = data;
	req->arg = cbarg;
	evtimer_set(&req->timer, dk_req_timeout, req);
	if (req->timeout > 0) {
		timerclear(&tv);
		tv.tv_sec = req->timeout;
		evtimer_add(&req->timer, &tv);
	}
	TAILQ_INSERT_TAIL(&dk_queue, req, entry);
	dk_kick();
	return (req);
}

/*
 * The registry login a pull sends (X-Registry-Auth), made by the parent:
 * base64url, nothing that could end the header.  Before the call is
 * sent, that is before the event loop runs again.  -1 if it is refused.
 */
int
dk_set_auth(struct dk_req *req, const char *auth)
{
	size_t	 i;

	if (req->conn != NULL || req->call != DK_PULL)
		return (-1);
	for (i = 0; auth[i] != '\0'; i++)
		if (!isalnum((unsigned char)auth[i]) && auth[i] != '-' &&
		    auth[i] != '_' && auth[i] != '=')
			return (-1);
	if (req->auth != NULL)
		freezero(req->auth, strlen(req->auth));
	if ((req->auth = strdup(auth)) == NULL)
		return (-1);
	return (0);
}

/*
 * No report for this call.  One already sent is read to its end all the
 * same (the connection stays usable), except a stream, which is cut.
 */
void
dk_cancel(struct dk_req *req)
{
	if (req == NULL)
		return;
	req->cancelled = 1;
	req->done = NULL;
	req->data = NULL;
	if (req->conn == NULL) {
		TAILQ_REMOVE(&dk_queue, req, entry);
		dk_req_free(req);
		return;
	}
	/* the read that sees it ends closes it: nothing is freed here */
	if (req->conn->stream)
		(void)shutdown(req->conn->fd, SHUT_RDWR);
}

/*
 * Version negotiation.
 */

static void
dk_negotiate_call(enum dk_call call, dk_done_cb done)
{
	struct dk_req	*req;

	if ((req = dk_call(call, NULL, NULL, NULL, done, NULL, NULL)) == NULL)
		fatalx("%s: cannot make a call", __func__);
	/* ahead of the calls that wait for it */
	TAILQ_REMOVE(&dk_queue, req, entry);
	TAILQ_INSERT_HEAD(&dk_queue, req, entry);
	req->internal = 1;
}

static int
dk_parse_version(const char *s, int *major, int *minor)
{
	char	*end;
	long	 a, b;

	if (s == NULL || !isdigit((unsigned char)*s))
		return (-1);
	a = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return (-1);
	b = strtol(end + 1, &end, 10);
	if (*end != '\0' || a < 1 || a > 99 || b < 0 || b > 999)
		return (-1);
	*major = a;
	*minor = b;
	return (0);
}

static void
dk_set_version(int major, int minor, const char *how)
{
	if (major > DK_API_MAJOR || (major == DK_API_MAJOR &&
	    minor > DK_API_MINOR)) {
		major = DK_API_MAJOR;
		minor = DK_API_MINOR;
	}
	dk_major = major;
	dk_minor = minor;
	dk_neg = NEG_DONE;
	log_info("docker: Engine API %d.%d at %s (%s)", major, minor,
	    dk_display, how);
}

/* the daemon cannot be reached: every call waiting on it fails */
static void
dk_neg_failed(const struct dk_resp *r)
{
	struct dk_reqs	 failed = TAILQ_HEAD_INITIALIZER(failed);
	struct dk_req	*req, *next;

	dk_neg = NEG_NONE;
	log_debug("docker: %s", r->err != NULL ? r->err : "no answer");
	TAILQ_FOREACH_SAFE(req, &dk_queue, entry, next) {
		if (req->internal || req->remote)
			continue;
		TAILQ_REMOVE(&dk_queue, req, entry);
		TAILQ_INSERT_TAIL(&failed, req, entry);
	}
	/* the reports may make new calls: those negotiate again */
	while ((req = TAILQ_FIRST(&failed)) != NULL) {
		TAILQ_REMOVE(&failed, req, entry);
		dk_req_fail(req, "%s", r->err != NULL ? r->err :
		    "no answer from the Docker daemon");
	}
}

static void
dk_version_done(const struct dk_resp *r, void *arg)
{
	json_error_t	 jerr;
	json_t		*o;
	int		 major, minor, ok;

	if (r->status == -1) {
		dk_neg_failed(r);
		return;
	}
	if (r->status == 200 && (o = json_loadb(r->body, r->len, 0,
	    &jerr)) != NULL) {
		ok = dk_parse_version(json_string_value(json_object_get(o,
		    "ApiVersion")), &major, &minor) == 0;
		json_decref(o);
		if (ok) {
			dk_set_version(major, minor, "from /version");
			return;
		}
	}
	/* a proxy in front of the daemon may allow only the ping */
	log_warnx("docker: GET /version answered %d: trying /_ping",
	    r->status);
	dk_negotiate_call(DK_PING, dk_ping_done);
}

static void
dk_ping_done(const struct dk_resp *r, void *arg)
{
	int		 major, minor;

	if (r->status == -1) {
		dk_neg_failed(r);
		return;
	}
	if (r->status / 100 == 2 && dk_parse_version(r->api_version, &major,
	    &minor) == 0) {
		dk_set_version(major, minor, "from /_ping");
		return;
	}
	log_warnx("docker: no API version from %s: using the daemon's "
	    "default", dk_display);
	dk_major = dk_minor = 0;
	dk_neg = NEG_DONE;
}

/*
 * Connections.
 */

static void
dk_conn_close(struct dk_conn *c)
{
	event_del(&c->rev);
	event_del(&c->wev);
	evtimer_del(&c->idle);
	if (c->tls != NULL) {
		(void)tlslib.close(c->tls);
		tlslib.free(c->tls);
	}
	close(c->fd);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	TAILQ_REMOVE(&dk_conns, c, entry);
	if (!c->stream)
		dk_nconns--;
	free(c);
}

/* the connection broke: its call fails, or is sent again once */
static void
dk_conn_fail(struct dk_conn *c, const char *fmt, ...)
{
	struct dk_req	*req = c->req;
	char		 msg[DK_ERR_MAX];
	va_list		 ap;
	int		 again;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a kept connection the daemon closed before answering */
	again = req != NULL && c->used && c->got == 0 && !req->retried &&
	    !c->stream;
	c->req = NULL;
	dk_conn_close(c);
	if (req != NULL) {
		req->conn = NULL;
		if (again) {
			req->retried = 1;
			TAILQ_INSERT_HEAD(&dk_queue, req, entry);
		} else
			dk_req_fail(req, "%s", msg);
	}
	dk_kick();
}

static void
dk_conn_idle(int fd, short event, void *arg)
{
	struct dk_conn	*c = arg;

	dk_conn_close(c);
}

/* the answer is complete: the connection is kept if it may be */
static void
dk_conn_done(struct dk_conn *c)
{
	struct dk_req	*req = c->req;
	struct timeval	 tv = { DK_IDLE_TIMEOUT, 0 };

	c->req = NULL;
	req->conn = NULL;
	c->used = 1;
	if (c->stream || !http_head_persistent(&c->head) ||
	    evbuffer_get_length(c->in) > 0)
		dk_conn_close(c);
	else
		evtimer_add(&c->idle, &tv);
	dk_req_finish(req);
	dk_kick();
}

/* body bytes of the answer: kept, or streamed to the caller */
static int
dk_conn_body(struct dk_conn *c, const char *data, size_t len)
{
	struct dk_req	*req = c->req;

	if (len == 0)
		return (0);
	if (req->data != NULL && req->status / 100 == 2) {
		req->data(data, len, req->arg);
		return (0);
	}
	if (req->cancelled && c->stream)
		return (0);
	if (evbuffer_get_length(req->resp) + len > DK_BODY_MAX) {
		dk_conn_fail(c, "answer from the Docker daemon too large");
		return (-1);
	}
	if (evbuffer_add(req->resp, data, len) == -1) {
		dk_conn_fail(c, "out of memory");
		return (-1);
	}
	return (0);
}

static void
dk_field(const struct http_head *h, const char *name, char *buf,
    size_t len)
{
	const struct http_field	*f;

	if ((f = http_head_find(h, name)) != NULL)
		strlcpy(buf, f->value, len);
	else
		buf[0] = '\0';
}

/* the head is in: what follows, and how it ends */
static int
dk_conn_head(struct dk_conn *c)
{
	struct dk_req	*req = c->req;

	req->status = c->head.code;
	dk_field(&c->head, "Content-Type", req->ctype, sizeof(req->ctype));
	dk_field(&c->head, "API-Version", req->apiver, sizeof(req->apiver));
	/* a stream is open: say so before its first byte */
	if (req->data != NULL && req->status / 100 == 2)
		req->data(NULL, 0, req->arg);
	switch (c->head.body) {
	case HTTP_BODY_NONE:
		dk_conn_done(c);
		return (1);
	case HTTP_BODY_LENGTH:
		c->rd = RD_LENGTH;
		c->left = c->head.content_length;
		if (c->left == 0) {
			dk_conn_done(c);
			return (1);
		}
		break;
	case HTTP_BODY_CHUNKED:
		c->rd = RD_CHUNKED;
		http_chunked_init(&c->chunked, HTTP_RESPONSE);
		break;
	default:
		c->rd = RD_CLOSE;
		break;
	}
	return (0);
}

/*
 * What came in so far.  Returns when more is needed, or when the
 * connection is gone or idle again.
 */
static void
dk_conn_input(struct dk_conn *c, int eof)
{
	const char	*data, *span;
	size_t		 len, used, n, spanlen;
	int		 r;

	while (c->req != NULL) {
		len = evbuffer_get_length(c->in);
		data = (const char *)evbuffer_pullup(c->in, -1);
		if (len == 0 && c->rd != RD_CLOSE)
			break;
		switch (c->rd) {
		case RD_HEAD:
			r = http_head_feed(&c->head, data, len, &used);
			evbuffer_drain(c->in, used);
			if (r == HTTP_ERROR) {
				dk_conn_fail(c, "bad answer from the Docker "
				    "daemon: %s", c->head.errstr);
				return;
			}
			if (r == HTTP_MORE)
				goto more;
			if (c->head.code < 200) {
				/* 1xx: the real answer follows */
				http_resp_init(&c->head, c->headbuf,
				    sizeof(c->headbuf),
				    dk_calls[c->req->call].meth);
				break;
			}
			if (dk_conn_head(c))
				return;
			break;
		case RD_LENGTH:
			n = MINIMUM(len, c->left);
			if (dk_conn_body(c, data, n) == -1)
				return;
			evbuffer_drain(c->in, n);
			c->left -= n;
			if (c->left == 0) {
				dk_conn_done(c);
				return;
			}
			goto more;
		case RD_CHUNKED:
			r = http_chunked_feed(&c->chunked, data, len, &used,
			    &span, &spanlen);
			if (r == HTTP_ERROR) {
				dk_conn_fail(c, "bad answer from the Docker "
				    "daemon: %s", c->chunked.errstr);
				return;
			}
			/* span points into data: used before the drain */
			if (dk_conn_body(c, span, spanlen) == -1)
				return;
			evbuffer_drain(c->in, used);
			/* a stream's data callback may have cancelled it */
			if (r == HTTP_DONE) {
				dk_conn_done(c);
				return;
			}
			if (r == HTTP_MORE)
				goto more;
			break;
		case RD_CLOSE:
			if (dk_conn_body(c, data, len) == -1)
				return;
			evbuffer_drain(c->in, len);
			if (eof) {
				dk_conn_done(c);
				return;
			}
			goto more;
		}
	}
	if (c->req == NULL) {
		/* idle: the daemon closed it, or spoke out of turn */
		if (eof || evbuffer_get_length(c->in) > 0)
			dk_conn_close(c);
		return;
	}
 more:
	if (eof)
		dk_conn_fail(c, "the Docker daemon at %s closed the "
		    "connection", dk_conn_where(c));
}

/*
 * TLS: the handshake first, driven by both events, then tls_read() and
 * tls_write(), which may each want the other direction.  1 while the
 * handshake goes on, 0 once done, -1 once c is closed.
 */
static int
dk_tls_handshake(struct dk_conn *c)
{
	int	 r;

	if (!c->handshaking)
		return (0);
	if ((r = tlslib.handshake(c->tls)) == TLS_WANT_POLLIN)
		return (1);
	if (r == TLS_WANT_POLLOUT) {
		event_add(&c->wev, NULL);
		return (1);
	}
	if (r == -1) {
		dk_conn_fail(c, "TLS with the swarm manager at %s: %s",
		    dk_mgr_display, tlslib.error(c->tls));
		return (-1);
	}
	c->handshaking = 0;
	if (evbuffer_get_length(c->out) > 0)
		event_add(&c->wev, NULL);
	return (0);
}

/*
 * What TLS has for c, all of it: libevent cannot see what it buffers.
 * -1 once c is closed: a TLS error (a client certificate the manager
 * refuses shows here, after the handshake, with TLS 1.3).
 */
static int
dk_tls_read(struct dk_conn *c, int *eof)
{
	char	 buf[16384];
	ssize_t	 n;
	int	 got = 0;

	while (got < DK_READ_MAX) {
		n = tlslib.read(c->tls, buf, sizeof(buf));
		if (n == TLS_WANT_POLLIN)
			break;
		if (n == TLS_WANT_POLLOUT) {
			event_add(&c->wev, NULL);
			break;
		}
		if (n == -1 && got == 0 && c->got == 0) {
			dk_conn_fail(c, "TLS with the swarm manager at %s: %s",
			    dk_mgr_display, tlslib.error(c->tls));
			return (-1);
		}
		if (n <= 0) {
			*eof = 1;
			break;
		}
		if (evbuffer_add(c->in, buf, n) == -1) {
			*eof = 1;
			break;
		}
		got += n;
	}
	return (got);
}

static void
dk_conn_read(int fd, short event, void *arg)
{
	struct dk_conn	*c = arg;
	int		 n, eof = 0;

	if (c->tls != NULL) {
		if (dk_tls_handshake(c) != 0)
			return;
		if ((n = dk_tls_read(c, &eof)) == -1)
			return;
		c->got += n;
		if (evbuffer_get_length(c->out) > 0)
			event_add(&c->wev, NULL);
		if (n == 0 && !eof)
			return;
	} else if ((n = evbuffer_read(c->in, fd, DK_READ_MAX)) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		eof = 1;
	} else if (n == 0)
		eof = 1;
	else
		c->got += n;
	if (eof)
		event_del(&c->rev);
	dk_conn_input(c, eof);
}

/* what is queued for c through TLS: -1 once c is closed */
static int
dk_tls_write(struct dk_conn *c)
{
	size_t	 len;
	ssize_t	 n;

	while ((len = evbuffer_get_length(c->out)) > 0) {
		n = tlslib.write(c->tls, evbuffer_pullup(c->out, -1), len);
		if (n == TLS_WANT_POLLIN || n == TLS_WANT_POLLOUT)
			return (0);
		if (n == -1) {
			dk_conn_fail(c, "cannot write to the swarm manager at "
			    "%s: %s", dk_mgr_display, tlslib.error(c->tls));
			return (-1);
		}
		evbuffer_drain(c->out, n);
	}
	return (0);
}

static void
dk_conn_write(int fd, short event, void *arg)
{
	struct dk_conn	*c = arg;
	socklen_t	 len = sizeof(int);
	int		 err = 0;

	if (c->connecting) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err != 0) {
			dk_conn_fail(c, "cannot connect to the Docker daemon "
			    "at %s: %s", dk_conn_where(c), strerror(err));
			return;
		}
		c->connecting = 0;
	}
	if (c->tls != NULL) {
		if (dk_tls_handshake(c) != 0 || dk_tls_write(c) == -1)
			return;
	} else if (evbuffer_write(c->out, fd) == -1 && errno != EAGAIN &&
	    errno != EINTR) {
		dk_conn_fail(c, "cannot write to the Docker daemon at %s: %s",
		    dk_display, strerror(errno));
		return;
	}
	if (evbuffer_get_length(c->out) == 0)
		event_del(&c->wev);
}

/* a socket connecting to the local daemon, or the swarm manager */
static int
dk_socket(int remote, int *connecting, char *err, size_t errlen)
{
	const struct sockaddr	*sa = (struct sockaddr *)&dk_sun;
	socklen_t		 salen = sizeof(dk_sun);
	int			 fd;

	if (remote) {
		sa = (struct sockaddr *)&dk_mgr_addr;
		salen = dk_mgr_addrlen;
	}
	if ((fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return (-1);
	}
	*connecting = 0;
	if (connect(fd, sa, salen) == -1) {
		if (errno != EINPROGRESS) {
			snprintf(err, errlen, "cannot connect to the Docker "
			    "daemon at %s: %s", remote ? dk_mgr_display :
			    dk_display, strerror(errno));
			close(fd);
			return (-1);
		}
		*connecting = 1;
	}
	return (fd);
}

/* TLS on fd to the manager, its certificate checked against its address */
static struct tls *
dk_tls_new(int fd, char *err, size_t errlen)
{
	struct tls	*tls;

	if ((tls = tlslib.client()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	if (tlslib.configure(tls, dk_mgr_cfg) == -1 ||
	    tlslib.connect_socket(tls, fd, dk_mgr_name) == -1) {
		snprintf(err, errlen, "TLS with the swarm manager at %s: %s",
		    dk_mgr_display, tlslib.error(tls));
		tlslib.free(tls);
		return (NULL);
	}
	return (tls);
}

static struct dk_conn *
dk_conn_new(int stream, int remote, char *err, size_t errlen)
{
	struct dk_conn	*c;
	struct tls	*tls = NULL;
	int		 fd, connecting = 0;

	if ((fd = dk_socket(remote, &connecting, err, errlen)) == -1)
		return (NULL);
	if (remote && (tls = dk_tls_new(fd, err, errlen)) == NULL) {
		close(fd);
		return (NULL);
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->in = evbuffer_new()) == NULL ||
	    (c->out = evbuffer_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		if (c != NULL && c->in != NULL)
			evbuffer_free(c->in);
		free(c);
		tlslib.free(tls);
		close(fd);
		return (NULL);
	}
	c->fd = fd;
	c->stream = stream;
	c->connecting = connecting;
	c->tls = tls;
	c->handshaking = tls != NULL;
	c->gen = dk_mgr_gen;
	event_set(&c->rev, fd, EV_READ | EV_PERSIST, dk_conn_read, c);
	event_set(&c->wev, fd, EV_WRITE | EV_PERSIST, dk_conn_write, c);
	evtimer_set(&c->idle, dk_conn_idle, c);
	event_add(&c->rev, NULL);
	TAILQ_INSERT_TAIL(&dk_conns, c, entry);
	if (!stream)
		dk_nconns++;
	return (c);
}

static struct dk_conn *
dk_conn_idle_get(int remote)
{
	struct dk_conn	*c;

	TAILQ_FOREACH(c, &dk_conns, entry)
		if (!c->stream && c->req == NULL &&
		    (c->tls != NULL) == remote &&
		    (!remote || c->gen == dk_mgr_gen))
			return (c);
	return (NULL);
}

/* put req on a connection: a kept one, or a new one */
static void
dk_send(struct dk_req *req)
{
	struct dk_conn	*c = NULL;
	char		 err[DK_ERR_MAX], ver[24];
	int		 stream = dk_calls[req->call].stream;
	int		 r;

	if (!stream)
		c = dk_conn_idle_get(req->remote);
	if (c == NULL && (c = dk_conn_new(stream, req->remote, err,
	    sizeof(err))) == NULL) {
		dk_req_fail(req, "%s", err);
		return;
	}
	evtimer_del(&c->idle);
	c->req = req;
	req->conn = c;
	c->got = 0;
	c->rd = RD_HEAD;
	http_resp_init(&c->head, c->headbuf, sizeof(c->headbuf),
	    dk_calls[req->call].meth);
	ver[0] = '\0';
	if (!req->internal && !req->remote && (dk_major != 0 || dk_minor != 0))
		snprintf(ver, sizeof(ver), "/v%d.%d", dk_major, dk_minor);
	r = evbuffer_add_printf(c->out, "%s %s%s HTTP/1.1\r\n"
	    "Host: docker\r\nUser-Agent: orchd\r\n",
	    dk_calls[req->call].method, ver, req->path);
	if (r != -1 && req->auth != NULL)
		r = evbuffer_add_printf(c->out, "X-Registry-Auth: %s\r\n",
		    req->auth);
	if (r != -1 && req->body != NULL)
		r = evbuffer_add_printf(c->out, "Content-Type: "
		    "application/json\r\nContent-Length: %zu\r\n\r\n",
		    req->bodylen);
	else if (r != -1 && dk_calls[req->call].meth == HTTP_M_POST)
		r = evbuffer_add_printf(c->out, "Content-Length: 0\r\n\r\n");
	else if (r != -1)
		r = evbuffer_add(c->out, "\r\n", 2);
	if (r != -1 && req->body != NULL)
		r = evbuffer_add(c->out, req->body, req->bodylen);
	if (r == -1) {
		dk_conn_fail(c, "out of memory");
		return;
	}
	log_debug("docker: %s %s%s", dk_calls[req->call].method, ver,
	    req->path);
	event_add(&c->wev, NULL);
}

static int
dk_room(int stream, int remote)
{
	return (stream || dk_nconns < DK_CONNS_MAX ||
	    dk_conn_idle_get(remote) != NULL);
}

/* a call for the local daemon waits: its version is negotiated first */
static int
dk_local_queued(void)
{
	struct dk_req	*req;

	TAILQ_FOREACH(req, &dk_queue, entry)
		if (!req->remote)
			return (1);
	return (0);
}

/* send what can be sent; called from the event loop only */
static void
dk_dispatch(int fd, short event, void *arg)
{
	struct dk_req	*req;

	for (;;) {
		if (dk_neg == NEG_NONE && dk_local_queued()) {
			dk_neg = NEG_PENDING;
			dk_negotiate_call(DK_VERSION, dk_version_done);
		}
		TAILQ_FOREACH(req, &dk_queue, entry)
			if ((req->internal || req->remote ||
			    dk_neg == NEG_DONE) &&
			    dk_room(dk_calls[req->call].stream, req->remote))
				break;
		if (req == NULL)
			break;
		TAILQ_REMOVE(&dk_queue, req, entry);
		/* reports made from here may change the queue: look again */
		dk_send(req);
	}
}

static void
dk_kick(void)
{
	struct timeval	 tv;

	timerclear(&tv);
	if (!evtimer_pending(&dk_kick_ev, NULL))
		evtimer_add(&dk_kick_ev, &tv);
}
