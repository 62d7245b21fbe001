/*
 * imsg-style framing between orchd's processes, written for orchd.
 *
 * A message is a fixed header followed by at most maxsize - header bytes of
 * payload, optionally with one file descriptor passed by SCM_RIGHTS along
 * with the message's first byte.  All peers are on the same host, so the
 * header is in host byte order.
 */

#ifndef ORCHD_IMSG_H
#define ORCHD_IMSG_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/uio.h>
#include <stdint.h>

#define IMSG_HEADER_SIZE	sizeof(struct imsg_hdr)
#define IMSG_MAXSIZE_DEFAULT	16384		/* header included */
#define IMSG_MAXSIZE_LIMIT	(1024 * 1024)	/* largest settable maxsize */
#define IMSG_RBUF_SIZE		16384		/* read buffer between big messages */

#define IMSGF_HASFD		0x0001		/* an fd travels with it */
#define IMSGF_MASK		0x0001		/* every flag we know */

struct imsg_hdr {
	uint32_t	 type;
	uint32_t	 len;		/* header included */
	uint16_t	 flags;
	uint16_t	 unused;	/* must be zero */
	uint32_t	 peerid;
	uint32_t	 pid;
};

/* one queued outgoing message */
struct ibuf {
	TAILQ_ENTRY(ibuf)	 entry;
	unsigned char		*buf;
	size_t			 size;		/* bytes in buf */
	size_t			 wpos;		/* bytes already written */
	int			 fd;		/* passed with the first byte */
};

struct msgbuf {
	TAILQ_HEAD(, ibuf)	 bufs;
	uint32_t		 queued;
};

/* a received fd, waiting for the message it came with */
struct imsg_fd {
	TAILQ_ENTRY(imsg_fd)	 entry;
	int			 fd;
};

struct imsgbuf {
	int			 fd;		/* the socket */
	pid_t			 pid;		/* stamped on what we send */
	uint32_t		 maxsize;	/* of one message, header included */
	int			 fdpass;	/* fds may be received and sent */
	unsigned char		*rbuf;		/* read buffer, rsize bytes */
	size_t			 rsize;		/* grows to maxsize on demand */
	size_t			 rlen;		/* bytes in rbuf */
	size_t			 rpos;		/* where those bytes start */
	size_t			 rhigh;		/* bytes of rbuf ever written */
	TAILQ_HEAD(, imsg_fd)	 fds;		/* received, not yet claimed */
	struct msgbuf		 w;
};

struct imsg {
	struct imsg_hdr		 hdr;
	void			*data;		/* payload, NULL when empty */
	size_t			 datalen;
	int			 fd;		/* -1 unless one came with it */
};

/*
 * imsgbuf_read: 1 when bytes were read or the read would block, 0 at end
 * of file, -1 on error (errno set).
 * imsgbuf_write: 0 when everything possible was written (EAGAIN included),
 * -1 on error (EPIPE when the peer went away).
 * imsgbuf_flush: writes the whole queue, waiting with poll(2) when the
 * socket is full; 0 or -1.
 * imsg_get: 1 with a message in *imsg (free it with imsg_free), 0 when no
 * complete message is buffered, -1 on a bad header (errno EBADMSG) or a
 * length outside [IMSG_HEADER_SIZE, maxsize] (errno ERANGE).  After -1 the
 * buffer is unusable and the peer must be dropped.
 *
 * imsgbuf_init: 0, or -1 (EINVAL for a negative fd, ENOMEM); the socket
 * must already be non-blocking, and it stays the caller's to close.
 * imsgbuf_set_maxsize: maxsize in [IMSG_HEADER_SIZE, IMSG_MAXSIZE_LIMIT],
 * else -1 EINVAL; -1 EBUSY when more bytes than that are already buffered.
 * The read buffer starts at IMSG_RBUF_SIZE (never above maxsize), grows to
 * the length of a longer message once its header has arrived, and shrinks
 * back when it is empty again: an idle channel holds no big buffer.
 * imsgbuf_read: -1 EBADMSG when an fd arrives and fd passing is off, when
 * more than one fd arrives with one read, or on MSG_CTRUNC (we ran out of
 * fds); the fds are closed.  -1 ENOBUFS when called with a whole message
 * still buffered: imsg_get must drain the buffer between reads.
 * imsgbuf_clear: frees the queues and the read buffer, closes every fd they
 * hold, not the socket; the buffer needs imsgbuf_init before reuse.
 * imsg_get: a message flagged IMSGF_HASFD with no received fd waiting is a
 * bad message (-1 EBADMSG), never a message with fd -1: fds are not lost
 * silently on the way (MSG_CTRUNC fails the read), so the peer lied.
 * imsg_compose, imsg_composev: 0 once queued, -1 with EINVAL (an fd while
 * fd passing is off), ERANGE (payload above maxsize - IMSG_HEADER_SIZE) or
 * ENOMEM.  pid 0 stamps ibuf->pid.  The queue owns fd from a successful
 * call and closes it once sent or on imsgbuf_clear; after -1 the caller
 * still owns it.
 * imsg_get_data: 0 only when len is exactly the payload length, else -1
 * EBADMSG.
 */
int		 imsgbuf_init(struct imsgbuf *, int);
void		 imsgbuf_allow_fdpass(struct imsgbuf *);
int		 imsgbuf_set_maxsize(struct imsgbuf *, uint32_t);
int		 imsgbuf_read(struct imsgbuf *);
int		 imsgbuf_write(struct imsgbuf *);
int		 imsgbuf_flush(struct imsgbuf *);
void		 imsgbuf_clear(struct imsgbuf *);
uint32_t	 imsgbuf_queuelen(struct imsgbuf *);

int		 imsg_get(struct imsgbuf *, struct imsg *);
int		 imsg_compose(struct imsgbuf *, uint32_t, uint32_t, pid_t, int,
		    const void *, size_t);
int		 imsg_composev(struct imsgbuf *, uint32_t, uint32_t, pid_t, int,
		    const struct iovec *, int);
void		 imsg_free(struct imsg *);

uint32_t	 imsg_get_type(const struct imsg *);
uint32_t	 imsg_get_id(const struct imsg *);
pid_t		 imsg_get_pid(const struct imsg *);
size_t		 imsg_get_len(const struct imsg *);
int		 imsg_get_fd(struct imsg *);	/* caller owns it after */
int		 imsg_get_data(const struct imsg *, void *, size_t);

/*
 * Pure decoding of one header from bytes, shared by imsg_get and the fuzz
 * target: 0 and *hdr filled when the header is valid for maxsize, -1 with
 * errno (EBADMSG, ERANGE) otherwise; EINVAL when fewer than
 * IMSG_HEADER_SIZE bytes are given.
 */
int		 imsg_parse_hdr(const void *, size_t, uint32_t,
		    struct imsg_hdr *);

#endif /* ORCHD_IMSG_H */
