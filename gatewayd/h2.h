/*
 * HTTP/2 inside gatewayd: a client connection's session and its streams,
 * shared by h2.c (the client's side) and h2up.c ("upstream h2c", HTTP/2
 * to the workload).
 */

#ifndef ORCHD_H2_H
#define ORCHD_H2_H

#include <sys/types.h>
#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <event.h>
#include <nghttp2/nghttp2.h>

#include "http.h"

struct gw_conn;			/* gateway.h, which includes this */
struct gw_head;

#define H2_BODY_HIGH		(64 * 1024)	/* answer bytes held per
						   stream: then read no more */
#define H2_POOL			16	/* idle pseudo-connections kept */

struct h2_stream {
	TAILQ_ENTRY(h2_stream)	 entry;
	struct h2_session	*sess;
	int32_t			 id;
	/* the request, as it comes */
	char			*method;
	char			*path;
	char			*authority;
	struct evbuffer		*fields;	/* "name: value\r\n" */
	struct evbuffer		*cookie;	/* joined with "; " */
	size_t			 hdrbytes;	/* decoded, as HTTP/1.1 */
	unsigned int		 nhdrs;
	int			 has_cl;	/* content-length given */
	int			 chunked;	/* body sent chunked */
	int			 ready;		/* its head is whole: starts
						   after the input taken */
	int			 endhead;	/* the head had END_STREAM */
	int			 started;	/* the head went out */
	int			 reqdone;	/* END_STREAM from client */
	size_t			 unconsumed;	/* DATA not yet windowed */
	/* the answer, as the pseudo-connection sends it */
	struct evbuffer		*rin;		/* taken from its output */
	struct gw_head		*resp;		/* while its head is read */
	enum http_method	 meth;		/* HEAD: no body */
	enum http_body		 body;
	uint64_t		 left;		/* LENGTH */
	struct http_chunked	 chunk;
	struct evbuffer		*out;		/* body for DATA frames */
	int			 submitted;	/* HEADERS submitted */
	int			 direct;	/* from the proxy's parsed
						   head: out is the body */
	int			 respdone;	/* all of the body in out */
	int			 deferred;	/* DATA waits for out */
	int			 eof;		/* the pseudo-connection
						   closed */
	/* "upstream h2c" (h2up.c): HTTP/2 to the workload itself */
	int			 h2c;		/* routed to such a workload */
	int			 te_trailers;	/* the client's TE: trailers */
	struct gw_conn		*pc;		/* the pseudo-connection */
	int			 ufd;		/* to the workload, or -1 */
	struct event		 urev;
	struct event		 uwev;
	int			 uconnected;
	nghttp2_session		*up;		/* a client session */
	int32_t			 upid;		/* its stream */
	int			 up_deferred;	/* DATA waits for the body */
	struct evbuffer		*uout;		/* frames toward it */
	struct evbuffer		*rhdr;		/* its answer's fields */
	struct evbuffer		*rtrl;		/* and trailers */
	int			 status;
	struct evbuffer		*body_in;	/* request body, h2c */
	int			 reusable;	/* the answer kept it alive */
	char			*trbuf;		/* a chunked answer's trailer
						   section, as it came */
};

struct h2_session {
	TAILQ_ENTRY(h2_session)	 entry;		/* every session */
	struct gw_conn		*c;
	nghttp2_session		*ng;
	TAILQ_HEAD(, h2_stream)	 streams;
	unsigned int		 nstreams;
	unsigned int		 nready;	/* streams ready to start */
	uint64_t		 nopened;	/* streams, ever */
	unsigned int		 nempty;	/* empty DATA frames in a row */
	uint64_t		 npriority;	/* PRIORITY frames, ever */
	int			 calm;		/* over a budget: ends with
						   ENHANCE_YOUR_CALM */
	int			 dead;		/* closing: no more input */
	int			 goaway;	/* going: no new streams */
	struct event		 sendev;	/* frames to make, from the
						   loop (h2_send_later) */
	struct event		 inev;		/* input left for the next
						   turn of the loop */
	unsigned int		 turn;		/* streams begun this turn */
	int			 backlog;	/* input waits for inev */
	/* h2_send(), for h2up.c, which h2.c calls and so cannot name */
	void			(*send)(struct h2_session *);
	/* idle pseudo-connections kept for the next streams (h2.c) */
	struct gw_conn		*pool[H2_POOL];
	unsigned int		 npool;
};

/* h2.c */
ssize_t	h2_data_read(nghttp2_session *, int32_t, uint8_t *, size_t,
	    uint32_t *, nghttp2_data_source *, void *);
void	h2_send(struct h2_session *);	/* h2up.c: s->send() */

/* h2up.c */
int	h2up_start(struct h2_stream *);
void	h2up_body(struct h2_stream *);
void	h2up_free(struct h2_stream *);
int	h2up_trailers(struct h2_stream *);
int	h2up_keep(struct evbuffer *, const void *, size_t, const void *,
	    size_t);

#endif /* ORCHD_H2_H */
