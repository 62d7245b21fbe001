/*
 * libFuzzer target for the HTTP/2 input path of gatewayd (gatewayd/h2.c):
 * the input, after the client preface, is what a client sends on a
 * connection with "http2 prior knowledge", fed to h2_input() as it would
 * be read, in pieces whose sizes byte 0 seeds.  nghttp2 frames and
 * decodes it; h2.c's callbacks build each stream's HTTP/1.1 request and
 * write it to a real socket pair.  What lies beyond (routing, the
 * pseudo-connection, the workload) is not reached: conn_attach() and the
 * other calls into the rest of the gateway are the stand-ins below.
 * Beyond crashes, the oracle is that everything a connection allocated
 * is freed when it closes (LeakSanitizer) and no descriptor is left
 * open.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../gatewayd/gateway.h"

#define PREFACE	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

static struct gateway		 fuzz_gw;
struct gateway			*gw = &fuzz_gw;
static struct gw_listener	 fuzz_listener;
static struct gw_conn		 fuzz_pseudo;

/* the rest of the gateway, as far as h2.c calls it */
struct gw_conn *
conn_attach(int s, struct gw_conn *parent, struct h2_stream *st)
{
	close(s);
	fuzz_pseudo.h2st = st;
	return (&fuzz_pseudo);
}

int	conn_full(void) { return (0); }
void	conn_close(struct gw_conn *c) { c->fd = -2; }
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
		/* the client reads everything */
		evbuffer_drain(c.out, evbuffer_get_length(c.out));
	}
	h2_conn_closed(&c);
	evbuffer_free(c.in);
	evbuffer_free(c.out);
	/* every stream's socket pair closed: the next descriptor is low */
	if ((fd = open("/dev/null", O_RDONLY)) > 16)
		abort();
	close(fd);
	return (0);
}
