/*
 * libFuzzer target for the HTTP/2 input path of gatewayd (gatewayd/h2.c):
 * the input, after the client preface, is what a client sends on a
 * connection with "http2 prior knowledge", fed to h2_input() as it would
 * be read, in pieces whose sizes byte 0 seeds.  nghttp2 frames and
 * decodes it; h2.c's callbacks build each stream's HTTP/1.1 request into
 * its pseudo-connection's input.  The pseudo-connections here are bare:
 * they read their input away and answer every other one with a canned
 * HTTP/1.1 answer (chunked or not, by the input), which h2.c turns into
 * HEADERS and DATA and pools as the gateway's own would be.  What lies
 * beyond (routing, the proxy, the workload) is not reached: conn_attach()
 * and the other calls into the rest of the gateway are the stand-ins
 * below.  Beyond crashes, the oracle is that everything a connection
 * allocated is freed when it closes (LeakSanitizer).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../gatewayd/gateway.h"
#include "../../gatewayd/h2.h"
#include "../../gatewayd/metrics.h"
#include "log.h"
#include "msg.h"

#define PREFACE	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

static struct gateway		 fuzz_gw;
struct gateway			*gw = &fuzz_gw;
static struct gw_listener	 fuzz_listener;
static unsigned int		 fuzz_answers;

/* the rest of the gateway, as far as h2.c calls it */
struct gw_conn *
conn_attach(struct gw_conn *parent, struct h2_stream *st)
{
	struct gw_conn	*pc;

	if ((pc = calloc(1, sizeof(*pc))) == NULL ||
	    (pc->in = evbuffer_new()) == NULL ||
	    (pc->out = evbuffer_new()) == NULL)
		abort();
	pc->fd = -1;
	pc->h2stream = 1;
	pc->h2st = st;
	pc->state = CONN_IDLE;
	return (pc);
}

void
conn_reattach(struct gw_conn *pc, struct h2_stream *st)
{
	pc->h2st = st;
	pc->h2pool = NULL;
}

/* the request read away; every other stream answered */
void
conn_h2_input(struct gw_conn *pc)
{
	static const char	 plain[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 5\r\nX-A: b\r\n\r\nhello";
	static const char	 chunked[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n"
	    "\r\n3\r\nabc\r\n0\r\n\r\n";

	evbuffer_drain(pc->in, evbuffer_get_length(pc->in));
	if (pc->h2st == NULL || pc->h2st->submitted ||
	    evbuffer_get_length(pc->out) > 0 || fuzz_answers++ % 2)
		return;
	if (fuzz_answers % 4 == 1)
		evbuffer_add(pc->out, plain, sizeof(plain) - 1);
	else
		evbuffer_add(pc->out, chunked, sizeof(chunked) - 1);
}

void	conn_h2_output(struct gw_conn *c) { }

/* no workload routes here: each stream goes on as to an HTTP/1.1 one */
struct gw_workload *
route_find(const char *host, size_t len, const char *path, size_t pathlen,
    size_t *strip)
{
	return (NULL);
}

void
conn_close(struct gw_conn *c)
{
	if (!c->h2stream) {
		c->fd = -2;
		return;
	}
	h2_conn_closed(c);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	free(c);
}

/* what the event loop does for the pseudo-connections: take answers */
static void
fuzz_take(struct gw_conn *c)
{
	struct h2_stream	*st, *next;

	if (c->h2 == NULL)
		return;
	for (st = TAILQ_FIRST(&c->h2->streams); st != NULL; st = next) {
		next = TAILQ_NEXT(st, entry);
		if (st->pc != NULL && evbuffer_get_length(st->pc->out) > 0)
			h2_stream_take(st->pc);
	}
}

int	conn_full(void) { return (0); }
void	metrics_rx(struct gw_conn *c, size_t n) { }
void	conn_error(struct gw_conn *c, int s, const char *w) { }
void	conn_reading(struct gw_conn *c, int on) { c->reading = on; }
void	conn_flush(struct gw_conn *c) { }
void	conn_timer(struct gw_conn *c, int64_t secs) { }
void	instance_bind(struct gw_conn *c) { }
void	metrics_status(struct gw_conn *c, int s, int own) { }
struct gw_workload *route_lookup(const char *h, size_t l) { return (NULL); }
int	h2up_start(struct h2_stream *st) { return (-1); }
void	h2up_body(struct h2_stream *st) { }
void	h2up_free(struct h2_stream *st) { }
int	h2up_trailers(struct h2_stream *st) { return (-1); }
int	h2up_keep(struct evbuffer *b, const void *n, size_t nl,
	    const void *v, size_t vl) { return (-1); }
struct gw_head *head_get(void) { return (malloc(sizeof(struct gw_head))); }
void	head_put(struct gw_head *hd) { free(hd); }
void	log_debug(const char *fmt, ...) { }
void	log_warn(const char *fmt, ...) { }
void	log_warnx(const char *fmt, ...) { }

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int	 init;
	struct gw_conn	 c;
	size_t		 piece, off = 0;
	unsigned int	 seed;
	int		 fd;

	if (!init) {
		signal(SIGPIPE, SIG_IGN);
		(void)event_init();
		gw->conf.h2_max_streams = 100;
		gw->conf.keepalive_timeout = 75;
		gw->conf.upstream_timeout = 60;
		fuzz_listener.conf.http2 = LISTENER_H2_PRIOR;
		init = 1;
	}
	if (size < 1)
		return (0);
	seed = data[0];
	data++;
	size--;
	memset(&c, 0, sizeof(c));
	strlcpy(c.peer, "fuzz", sizeof(c.peer));
	c.fd = -1;
	c.listener = &fuzz_listener;
	c.state = CONN_IDLE;
	c.fresh = 1;
	if ((c.in = evbuffer_new()) == NULL || (c.out = evbuffer_new()) ==
	    NULL)
		abort();
	evbuffer_add(c.in, PREFACE, sizeof(PREFACE) - 1);
	while (off < size && c.fd == -1) {
		piece = seed == 0 ? size - off : 1 + (seed * 7919 + off) %
		    (seed * 4);
		if (piece > size - off)
			piece = size - off;
		evbuffer_add(c.in, data + off, piece);
		off += piece;
		(void)h2_input(&c);
		if (c.fd == -1) {
			fuzz_take(&c);
			(void)event_loop(EVLOOP_NONBLOCK);
		}
		/* the client reads everything */
		evbuffer_drain(c.out, evbuffer_get_length(c.out));
	}
	h2_conn_closed(&c);
	evbuffer_free(c.in);
	evbuffer_free(c.out);
	/* no descriptor is left open */
	if ((fd = open("/dev/null", O_RDONLY)) > 16)
		abort();
	close(fd);
	return (0);
}
