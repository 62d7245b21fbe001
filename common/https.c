/*
 * HTTP out, over libtls or (where the caller allows it) plain TCP, and
 * nothing else: one request a connection, HTTP/1.0 so that the answer
 * is never chunked and ends with the connection.  Every step is
 * bounded: the connect, each read and write (a socket timeout), the
 * whole exchange (a deadline), and the answer's size.  A server is
 * verified against the roots given to https_config, else the system's,
 * read before the chroot.  A name is resolved in the caller's chroot,
 * where the parent put a copy of resolv.conf and hosts (orchd(8)); an
 * IP literal needs neither.  Each address is offered to the caller's
 * check before the connect and again once connected, with its local
 * end: notifyd refuses loopback and the host's own addresses there, on
 * the address actually used, never on an earlier lookup.  acmed and
 * notifyd use it; no redirect is ever followed.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tls.h>

#include "compat.h"
#include "https.h"
#include "log.h"
#include "timer.h"

#define HTTPS_CONNECT_MS	10000
#define HTTPS_IO_SEC		15
#define HTTPS_TOTAL_MS		30000
#define HTTPS_HEAD_MAX		(16 * 1024)
#define HTTPS_HOST_MAX		256
#define HTTPS_PORT_MAX		8

static struct tls_config *https_cfg;
static uint8_t		*https_roots;	/* the system's, read at start */
static size_t		 https_roots_len;

/* before the chroot: libtls initialised, the system's roots read */
int
https_init(char *err, size_t errlen)
{
	if (tls_init() == -1) {
		snprintf(err, errlen, "tls_init failed");
		return (-1);
	}
	if ((https_roots = tls_load_file(tls_default_ca_cert_file(),
	    &https_roots_len, NULL)) == NULL)
		log_warnx("%s: cannot read the system's roots: only a "
		    "CA file in orchd.conf is trusted",
		    tls_default_ca_cert_file());
	return (0);
}

/* the roots to trust: the CA file's PEM, or (none) the system's */
int
https_config(const void *ca, size_t calen, char *err, size_t errlen)
{
	struct tls_config	*cfg;

	if ((cfg = tls_config_new()) == NULL) {
		snprintf(err, errlen, "tls_config_new failed");
		return (-1);
	}
	if (calen == 0 && https_roots == NULL) {
		snprintf(err, errlen, "no roots to trust");
		tls_config_free(cfg);
		return (-1);
	}
	if (tls_config_set_ca_mem(cfg, calen > 0 ? ca : https_roots,
	    calen > 0 ? calen : https_roots_len) == -1 ||
	    tls_config_set_protocols(cfg, TLS_PROTOCOL_TLSv1_2 |
	    TLS_PROTOCOL_TLSv1_3) == -1) {
		snprintf(err, errlen, "CA: %s", tls_config_error(cfg));
		tls_config_free(cfg);
		return (-1);
	}
	if (https_cfg != NULL)
		tls_config_free(https_cfg);
	https_cfg = cfg;
	return (0);
}

/* the caller's check of the address, once connected: its local end too */
static int
https_connected(int s, https_addr_fn addr_ok, char *err, size_t errlen)
{
	struct sockaddr_storage	 peer, local;
	socklen_t		 pl = sizeof(peer), ll = sizeof(local);

	if (addr_ok == NULL)
		return (0);
	if (getpeername(s, (struct sockaddr *)&peer, &pl) == -1 ||
	    getsockname(s, (struct sockaddr *)&local, &ll) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return (-1);
	}
	return (addr_ok((struct sockaddr *)&peer, (struct sockaddr *)&local,
	    err, errlen));
}

/* a TCP connection within HTTPS_CONNECT_MS, to any address of host */
static int
https_connect(const char *host, const char *port, https_addr_fn addr_ok,
    int64_t total_ms, char *err, size_t errlen)
{
	struct addrinfo	 hints, *res, *ai;
	struct pollfd	 pfd;
	struct timeval	 tv;
	socklen_t	 sl;
	int		 s = -1, e, soerr;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "%s: %s", host, gai_strerror(e));
		return (-1);
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (addr_ok != NULL && addr_ok(ai->ai_addr, NULL, err,
		    errlen) == -1)
			continue;
		if ((s = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol)) == -1)
			continue;
		if (connect(s, ai->ai_addr, ai->ai_addrlen) == 0) {
			if (https_connected(s, addr_ok, err, errlen) == 0)
				break;
			close(s);
			s = -1;
			continue;
		}
		soerr = errno;
		if (errno == EINPROGRESS) {
			pfd.fd = s;
			pfd.events = POLLOUT;
			sl = sizeof(soerr);
			if (poll(&pfd, 1, MINIMUM(HTTPS_CONNECT_MS,
			    total_ms)) == 1 &&
			    getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr,
			    &sl) == 0 && soerr == 0) {
				if (https_connected(s, addr_ok, err,
				    errlen) == 0)
					break;
				close(s);
				s = -1;
				continue;
			}
			if (soerr == EINPROGRESS)
				soerr = ETIMEDOUT;
		}
		snprintf(err, errlen, "%s port %s: %s", host, port,
		    strerror(soerr));
		close(s);
		s = -1;
	}
	freeaddrinfo(res);
	if (s == -1)
		return (-1);
	/* blocking from here, each read and write bounded */
	tv.tv_sec = MINIMUM(HTTPS_IO_SEC * 1000, total_ms) / 1000;
	tv.tv_usec = MINIMUM(HTTPS_IO_SEC * 1000, total_ms) % 1000 * 1000;
	if (fcntl(s, F_SETFL, 0) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		close(s);
		return (-1);
	}
	return (s);
}

/* a write on the TLS connection t, else on the plain socket s */
static ssize_t
io_write(struct tls *t, int s, const char *buf, size_t len)
{
	ssize_t	 n;

	if (t != NULL)
		return (tls_write(t, buf, len));
	if ((n = write(s, buf, len)) == -1 && errno == EINTR)
		return (TLS_WANT_POLLOUT);
	return (n);
}

static ssize_t
io_read(struct tls *t, int s, char *buf, size_t len)
{
	ssize_t	 n;

	if (t != NULL)
		return (tls_read(t, buf, len));
	if ((n = read(s, buf, len)) == -1 && errno == EINTR)
		return (TLS_WANT_POLLIN);
	return (n);
}

static int
https_write(struct tls *t, int s, const char *buf, size_t len,
    int64_t deadline)
{
	ssize_t	 n;

	while (len > 0) {
		if (monotime_ms() > deadline)
			return (-1);
		/*
		 * libtls asks again for a record that was not data; or
		 * the socket's timeout: the deadline ends that
		 */
		n = io_write(t, s, buf, len);
		if (n == TLS_WANT_POLLIN || n == TLS_WANT_POLLOUT)
			continue;
		if (n < 0)
			return (-1);
		buf += n;
		len -= n;
	}
	return (0);
}

/* all of the answer, to the end of the connection, at most max bytes */
static char *
https_read(struct tls *t, int s, size_t max, size_t *len, int64_t deadline,
    const char **why)
{
	char	*buf;
	size_t	 have = 0;
	ssize_t	 n;

	if ((buf = malloc(max + 1)) == NULL) {
		*why = "out of memory";
		return (NULL);
	}
	for (;;) {
		if (monotime_ms() > deadline) {
			*why = "timed out";
			break;
		}
		if (have == max) {
			*why = "answer too long";
			break;
		}
		n = io_read(t, s, buf + have, max - have);
		if (n == TLS_WANT_POLLIN || n == TLS_WANT_POLLOUT)
			continue;	/* as in https_write */
		if (n == 0) {
			buf[have] = '\0';
			*len = have;
			return (buf);
		}
		if (n < 0) {
			*why = t != NULL ? tls_error(t) : strerror(errno);
			if (*why == NULL)
				*why = "read failed";
			break;
		}
		have += n;
	}
	free(buf);
	return (NULL);
}

/* one header's value into val, when the line is that header */
static int
https_header(const char *line, size_t len, const char *name, char *val,
    size_t vallen)
{
	size_t	 n = strlen(name);

	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return (0);
	line += n + 1;
	len -= n + 1;
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len >= vallen)
		return (0);
	memcpy(val, line, len);
	val[len] = '\0';
	return (1);
}

/* the status line and the headers acmed reads; the body after them */
static int
https_parse(char *buf, size_t len, struct https_resp *r)
{
	char		*end, *line, *next, tmp[32];
	const char	*errstr;
	size_t		 hlen;

	if ((end = memmem(buf, len, "\r\n\r\n", 4)) == NULL ||
	    end - buf > HTTPS_HEAD_MAX)
		return (-1);
	if (len < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ' ||
	    !isdigit((unsigned char)buf[9]) ||
	    !isdigit((unsigned char)buf[10]) ||
	    !isdigit((unsigned char)buf[11]))
		return (-1);
	r->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 +
	    (buf[11] - '0');
	/* the status line ends at end when the answer has no fields */
	if ((line = memchr(buf, '\n', end + 2 - buf)) == NULL)
		return (-1);
	for (line++; line < end; line = next + 2) {
		if ((next = memmem(line, end + 2 - line, "\r\n", 2)) == NULL)
			return (-1);
		hlen = next - line;
		(void)https_header(line, hlen, "Replay-Nonce", r->nonce,
		    sizeof(r->nonce));
		(void)https_header(line, hlen, "Location", r->location,
		    sizeof(r->location));
		if (https_header(line, hlen, "Retry-After", tmp,
		    sizeof(tmp))) {
			r->retry_after = strtonum(tmp, 0, 86400, &errstr);
			if (errstr != NULL)
				r->retry_after = 0;	/* an HTTP date */
		}
	}
	r->len = len - (end + 4 - buf);
	memmove(buf, end + 4, r->len);
	buf[r->len] = '\0';
	r->body = buf;
	return (0);
}

void
https_resp_free(struct https_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/*
 * The request q: the answer in r, its body NUL-terminated; 0, or -1 and
 * why in err.  Whatever the status, even a redirect: the caller judges.
 */
int
https_send(const struct https_req *q, struct https_resp *r, char *err,
    size_t errlen)
{
	char		 host[HTTPS_HOST_MAX], port[HTTPS_PORT_MAX];
	char		 path[ACME_URL_MAX], *head = NULL, *buf, clen[48];
	char		 authority[HTTPS_HOST_MAX + HTTPS_PORT_MAX + 4];
	const char	*why = NULL;
	struct tls	*t = NULL;
	size_t		 len;
	int64_t		 deadline = monotime_ms() + q->total_ms;
	int		 s, n, tls, rc = -1;

	memset(r, 0, sizeof(*r));
	if (https_url_parse(q->url, &tls, host, sizeof(host), port,
	    sizeof(port), path, sizeof(path)) == -1 || (!tls && !q->plain)) {
		snprintf(err, errlen, "not an %s URL: %.64s", q->plain ?
		    "http or https" : "https", q->url);
		return (-1);
	}
	if (tls && https_cfg == NULL) {
		snprintf(err, errlen, "no TLS configuration");
		return (-1);
	}
	/* the server names its URLs after Host: the port too */
	(void)snprintf(authority, sizeof(authority), "%s%s%s%s%s",
	    strchr(host, ':') != NULL ? "[" : "", host,
	    strchr(host, ':') != NULL ? "]" : "",
	    strcmp(port, tls ? "443" : "80") != 0 ? ":" : "",
	    strcmp(port, tls ? "443" : "80") != 0 ? port : "");
	if ((s = https_connect(host, port, q->addr_ok,
	    q->total_ms, err, errlen)) == -1)
		return (-1);
	if (tls && ((t = tls_client()) == NULL ||
	    tls_configure(t, https_cfg) == -1 ||
	    tls_connect_socket(t, s, host) == -1)) {
		snprintf(err, errlen, "%s: %s", host, t != NULL &&
		    tls_error(t) != NULL ? tls_error(t) : "tls_client");
		goto done;
	}
	clen[0] = '\0';
	if (q->body != NULL)
		(void)snprintf(clen, sizeof(clen), "Content-Length: %zu\r\n",
		    q->bodylen);
	n = asprintf(&head, "%s %s HTTP/1.0\r\nHost: %s\r\n"
	    "User-Agent: %s\r\nAccept: */*\r\n%s%s%s%s%s\r\n", q->method,
	    path, authority, q->agent, q->body != NULL ? "Content-Type: " :
	    "", q->body != NULL ? q->ctype : "", q->body != NULL ? "\r\n" :
	    "", clen, q->headers != NULL ? q->headers : "");
	if (n == -1) {
		head = NULL;
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (t != NULL && tls_handshake(t) == -1) {
		snprintf(err, errlen, "%s: %s", host, tls_error(t) != NULL ?
		    tls_error(t) : "handshake failed");
		goto done;
	}
	if (https_write(t, s, head, strlen(head), deadline) == -1 ||
	    (q->body != NULL && https_write(t, s, q->body, q->bodylen,
	    deadline) == -1)) {
		snprintf(err, errlen, "%s: cannot send the request", host);
		goto done;
	}
	if ((buf = https_read(t, s, q->max + HTTPS_HEAD_MAX, &len,
	    deadline, &why)) == NULL) {
		snprintf(err, errlen, "%s: %s", host, why);
		goto done;
	}
	if (https_parse(buf, len, r) == -1) {
		free(buf);
		snprintf(err, errlen, "%s: not an HTTP answer", host);
		goto done;
	}
	rc = 0;
 done:
	free(head);
	if (t != NULL) {
		(void)tls_close(t);
		tls_free(t);
	}
	close(s);
	return (rc);
}

/*
 * acmed's: method (GET, HEAD or POST) of url, with body (JSON of a
 * JWS) if any, https alone, to any address.
 */
int
https_request(const char *method, const char *url, const char *body,
    size_t bodylen, struct https_resp *r, char *err, size_t errlen)
{
	struct https_req	 q;

	memset(&q, 0, sizeof(q));
	q.method = method;
	q.url = url;
	q.body = body;
	q.bodylen = bodylen;
	q.ctype = "application/jose+json";
	q.agent = "orchd-acmed";
	q.max = HTTPS_BODY_MAX;
	q.total_ms = HTTPS_TOTAL_MS;
	return (https_send(&q, r, err, errlen));
}
