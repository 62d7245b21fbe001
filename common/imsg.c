/*
 * imsg-style framing between orchd's processes.  imsg_compose only queues;
 * imsgbuf_write sends the queue with sendmsg(2), an fd riding with the
 * first byte of its message.  imsgbuf_read appends what recvmsg(2) gives to
 * the read buffer and queues any fd; imsg_get cuts messages out of the
 * buffer and hands each flagged one the oldest queued fd.
 */

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"

/* messages gathered into one sendmsg; the rest wait for the next one */
#define IMSG_IOV_MAX	64

union imsg_cmsgbuf {
	struct cmsghdr	 hdr;
	char		 buf[CMSG_SPACE(sizeof(int))];
};

static void	 imsg_compact(struct imsgbuf *);
static unsigned char *imsg_rbuf_alloc(size_t);
static int	 imsg_rbuf_resize(struct imsgbuf *, size_t);
static int	 imsg_rbuf_fit(struct imsgbuf *);
static void	 imsg_rbuf_shrink(struct imsgbuf *);
static int	 imsg_take_fds(struct imsgbuf *, struct msghdr *);
static int	 imsg_enqueue_fd(struct imsgbuf *, int);
static int	 imsg_dequeue_fd(struct imsgbuf *);
static int	 imsg_payload_len(struct imsgbuf *, const struct iovec *, int,
		    size_t *);
static ssize_t	 msgbuf_send(struct imsgbuf *);
static int	 msgbuf_fill_iov(struct msgbuf *, struct iovec *);
static void	 msgbuf_drain(struct msgbuf *, size_t);
static void	 ibuf_free(struct ibuf *);

int
imsgbuf_init(struct imsgbuf *ibuf, int fd)
{
	if (fd < 0) {
		errno = EINVAL;
		return (-1);
	}
	memset(ibuf, 0, sizeof(*ibuf));
	/* not cleared: only the bytes a read wrote are ever looked at */
	ibuf->rsize = MINIMUM(IMSG_RBUF_SIZE, IMSG_MAXSIZE_DEFAULT);
	if ((ibuf->rbuf = imsg_rbuf_alloc(ibuf->rsize)) == NULL)
		return (-1);
	ibuf->fd = fd;
	ibuf->pid = getpid();
	ibuf->maxsize = IMSG_MAXSIZE_DEFAULT;
	TAILQ_INIT(&ibuf->fds);
	TAILQ_INIT(&ibuf->w.bufs);
	return (0);
}

void
imsgbuf_allow_fdpass(struct imsgbuf *ibuf)
{
	ibuf->fdpass = 1;
}

/*
 * A larger maxsize allocates nothing: the read buffer grows only when a
 * message needs it (imsg_rbuf_fit) and shrinks back once drained.
 */
int
imsgbuf_set_maxsize(struct imsgbuf *ibuf, uint32_t maxsize)
{
	if (maxsize < IMSG_HEADER_SIZE || maxsize > IMSG_MAXSIZE_LIMIT) {
		errno = EINVAL;
		return (-1);
	}
	imsg_compact(ibuf);
	if (ibuf->rlen > maxsize) {
		errno = EBUSY;
		return (-1);
	}
	if (ibuf->rsize > maxsize && imsg_rbuf_resize(ibuf, maxsize) == -1)
		return (-1);
	ibuf->maxsize = maxsize;
	return (0);
}

/*
 * A read buffer whose pages hold nothing until a read writes them.
 * malloc() often hands back memory freed earlier, a configuration's
 * burst say, its pages still the process's: a channel's 16 KiB then
 * stayed mapped for good though its reads wrote one page.  The whole
 * pages inside the buffer go back to the kernel (MADV_DONTNEED on
 * private memory: zeros when next written); the partial ones at the
 * ends, which the allocator's own headers may share, are left alone.
 */
static unsigned char *
imsg_rbuf_alloc(size_t size)
{
	unsigned char	*buf;
	uintptr_t	 lo, hi, mask;
	int		 pg;

	if ((buf = malloc(size)) == NULL || (pg = getpagesize()) <= 0)
		return (buf);
	mask = (uintptr_t)pg - 1;
	lo = ((uintptr_t)buf + mask) & ~mask;
	hi = ((uintptr_t)buf + size) & ~mask;
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	return (buf);
}

/*
 * Move the unparsed bytes into a new buffer of size bytes.  The old one
 * is cleared as far as reads ever wrote into it before it is freed:
 * payloads may be keys, and compaction leaves copies behind.
 */
static int
imsg_rbuf_resize(struct imsgbuf *ibuf, size_t size)
{
	unsigned char	*rbuf;

	if ((rbuf = imsg_rbuf_alloc(size)) == NULL)
		return (-1);
	if (ibuf->rlen > 0)
		memcpy(rbuf, ibuf->rbuf + ibuf->rpos, ibuf->rlen);
	freezero(ibuf->rbuf, ibuf->rhigh);
	ibuf->rbuf = rbuf;
	ibuf->rsize = size;
	ibuf->rpos = 0;
	ibuf->rhigh = ibuf->rlen;
	return (0);
}

/*
 * Grow the read buffer when the message at its head is longer than the
 * buffer; a header that does not parse is left for imsg_get to refuse.
 */
static int
imsg_rbuf_fit(struct imsgbuf *ibuf)
{
	struct imsg_hdr	 hdr;

	if (ibuf->rlen < IMSG_HEADER_SIZE ||
	    imsg_parse_hdr(ibuf->rbuf, ibuf->rlen, ibuf->maxsize, &hdr) == -1)
		return (0);
	if (hdr.len <= ibuf->rsize)
		return (0);
	return (imsg_rbuf_resize(ibuf, hdr.len));
}

/* Once drained, give back what a big message made the buffer grow to. */
static void
imsg_rbuf_shrink(struct imsgbuf *ibuf)
{
	size_t	 size;

	size = MINIMUM(IMSG_RBUF_SIZE, ibuf->maxsize);
	if (ibuf->rlen != 0 || ibuf->rsize <= size)
		return;
	/* on failure the big buffer simply stays */
	(void)imsg_rbuf_resize(ibuf, size);
}

/* Move the unparsed bytes to the front, making room for the next read. */
static void
imsg_compact(struct imsgbuf *ibuf)
{
	if (ibuf->rpos == 0)
		return;
	if (ibuf->rlen > 0)
		memmove(ibuf->rbuf, ibuf->rbuf + ibuf->rpos, ibuf->rlen);
	ibuf->rpos = 0;
}

int
imsgbuf_read(struct imsgbuf *ibuf)
{
	union imsg_cmsgbuf	 cmsgbuf;
	struct msghdr		 msg;
	struct iovec		 iov;
	ssize_t			 n;

	imsg_compact(ibuf);
	if (imsg_rbuf_fit(ibuf) == -1)
		return (-1);
	if (ibuf->rlen == ibuf->rsize) {
		/* reading 0 bytes would look like EOF */
		errno = ENOBUFS;
		return (-1);
	}
	iov.iov_base = ibuf->rbuf + ibuf->rlen;
	iov.iov_len = ibuf->rsize - ibuf->rlen;
	memset(&msg, 0, sizeof(msg));
	memset(&cmsgbuf, 0, sizeof(cmsgbuf));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	/* always offered, so a refused fd is seen and closed by us */
	msg.msg_control = cmsgbuf.buf;
	msg.msg_controllen = sizeof(cmsgbuf.buf);

	if ((n = recvmsg(ibuf->fd, &msg, MSG_CMSG_CLOEXEC)) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return (1);
		return (-1);
	}
	if (imsg_take_fds(ibuf, &msg) == -1)
		return (-1);
	if (n == 0)
		return (0);
	ibuf->rlen += n;
	ibuf->rhigh = MAXIMUM(ibuf->rhigh, ibuf->rlen);
	return (1);
}

/*
 * Queue the fd that came with one read.  Our writers pass one fd per
 * sendmsg and Linux ends a read after the segment carrying fds, so more
 * than one fd, a truncated control message (our fd table is full) or an
 * fd nobody allowed means the stream can no longer be trusted.
 */
static int
imsg_take_fds(struct imsgbuf *ibuf, struct msghdr *msg)
{
	struct cmsghdr	*cmsg;
	size_t		 i, nfds;
	int		 bad, fd, got;

	bad = (msg->msg_flags & MSG_CTRUNC) != 0;
	got = -1;
	for (cmsg = CMSG_FIRSTHDR(msg); cmsg != NULL;
	    cmsg = CMSG_NXTHDR(msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfds; i++) {
			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int),
			    sizeof(fd));
			if (got == -1)
				got = fd;
			else {
				close(fd);
				bad = 1;
			}
		}
	}
	if (got != -1 && !ibuf->fdpass)
		bad = 1;
	if (bad) {
		if (got != -1)
			close(got);
		errno = EBADMSG;
		return (-1);
	}
	if (got != -1 && imsg_enqueue_fd(ibuf, got) == -1) {
		close(got);
		return (-1);
	}
	return (0);
}

static int
imsg_enqueue_fd(struct imsgbuf *ibuf, int fd)
{
	struct imsg_fd	*ifd;

	if ((ifd = malloc(sizeof(*ifd))) == NULL)
		return (-1);
	ifd->fd = fd;
	TAILQ_INSERT_TAIL(&ibuf->fds, ifd, entry);
	return (0);
}

/* The oldest received fd, or -1 when none waits. */
static int
imsg_dequeue_fd(struct imsgbuf *ibuf)
{
	struct imsg_fd	*ifd;
	int		 fd;

	if ((ifd = TAILQ_FIRST(&ibuf->fds)) == NULL)
		return (-1);
	TAILQ_REMOVE(&ibuf->fds, ifd, entry);
	fd = ifd->fd;
	free(ifd);
	return (fd);
}

int
imsgbuf_write(struct imsgbuf *ibuf)
{
	ssize_t	 n;

	while (!TAILQ_EMPTY(&ibuf->w.bufs)) {
		if ((n = msgbuf_send(ibuf)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return (0);
			return (-1);
		}
		msgbuf_drain(&ibuf->w, n);
	}
	return (0);
}

/* One sendmsg of the head of the queue, with its fd if it has one. */
static ssize_t
msgbuf_send(struct imsgbuf *ibuf)
{
	struct iovec		 iov[IMSG_IOV_MAX];
	union imsg_cmsgbuf	 cmsgbuf;
	struct msghdr		 msg;
	struct cmsghdr		*cmsg;
	struct ibuf		*first;

	first = TAILQ_FIRST(&ibuf->w.bufs);
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = msgbuf_fill_iov(&ibuf->w, iov);
	if (first->fd != -1) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = sizeof(cmsgbuf.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cmsg), &first->fd, sizeof(int));
	}
	/* a vanished peer is EPIPE for the caller, not a SIGPIPE */
	return (sendmsg(ibuf->fd, &msg, MSG_NOSIGNAL));
}

/*
 * Gather queued messages for one sendmsg.  A message with an fd starts a
 * sendmsg of its own, so its fd arrives with its first byte.
 */
static int
msgbuf_fill_iov(struct msgbuf *w, struct iovec *iov)
{
	struct ibuf	*b;
	int		 n = 0;

	TAILQ_FOREACH(b, &w->bufs, entry) {
		if (n == IMSG_IOV_MAX || (n > 0 && b->fd != -1))
			break;
		iov[n].iov_base = b->buf + b->wpos;
		iov[n].iov_len = b->size - b->wpos;
		n++;
	}
	return (n);
}

/* Account for n bytes sent: advance wpos, drop what went out whole. */
static void
msgbuf_drain(struct msgbuf *w, size_t n)
{
	struct ibuf	*b;
	size_t		 chunk;

	while (n > 0 && (b = TAILQ_FIRST(&w->bufs)) != NULL) {
		if (b->fd != -1) {
			/* the peer has it now: it went with the first byte */
			close(b->fd);
			b->fd = -1;
		}
		chunk = MINIMUM(n, b->size - b->wpos);
		b->wpos += chunk;
		n -= chunk;
		if (b->wpos == b->size) {
			TAILQ_REMOVE(&w->bufs, b, entry);
			ibuf_free(b);
			w->queued--;
		}
	}
}

int
imsgbuf_flush(struct imsgbuf *ibuf)
{
	struct pollfd	 pfd;

	pfd.fd = ibuf->fd;
	pfd.events = POLLOUT;
	for (;;) {
		if (imsgbuf_write(ibuf) == -1)
			return (-1);
		if (imsgbuf_queuelen(ibuf) == 0)
			return (0);
		/* no timeout: the peer is one of ours and must read */
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			return (-1);
	}
}

void
imsgbuf_clear(struct imsgbuf *ibuf)
{
	struct ibuf	*b;
	int		 fd;

	while ((b = TAILQ_FIRST(&ibuf->w.bufs)) != NULL) {
		TAILQ_REMOVE(&ibuf->w.bufs, b, entry);
		ibuf_free(b);
	}
	ibuf->w.queued = 0;
	while ((fd = imsg_dequeue_fd(ibuf)) != -1)
		close(fd);
	freezero(ibuf->rbuf, ibuf->rhigh);
	ibuf->rbuf = NULL;
	ibuf->rsize = 0;
	ibuf->rlen = 0;
	ibuf->rpos = 0;
	ibuf->rhigh = 0;
}

uint32_t
imsgbuf_queuelen(struct imsgbuf *ibuf)
{
	return (ibuf->w.queued);
}

static void
ibuf_free(struct ibuf *b)
{
	if (b->fd != -1)
		close(b->fd);
	freezero(b, sizeof(*b) + b->size);
}

int
imsg_parse_hdr(const void *buf, size_t len, uint32_t maxsize,
    struct imsg_hdr *hdr)
{
	struct imsg_hdr	 h;

	if (len < IMSG_HEADER_SIZE) {
		errno = EINVAL;
		return (-1);
	}
	/* buf may sit anywhere in the read buffer: copy, never cast */
	memcpy(&h, buf, sizeof(h));
	if ((h.flags & ~IMSGF_MASK) != 0 || h.unused != 0) {
		errno = EBADMSG;
		return (-1);
	}
	if (h.len < IMSG_HEADER_SIZE || h.len > maxsize) {
		errno = ERANGE;
		return (-1);
	}
	*hdr = h;
	return (0);
}

int
imsg_get(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct imsg_hdr	 hdr;
	unsigned char	*p;
	void		*data;
	size_t		 datalen;
	int		 fd;

	if (ibuf->rlen < IMSG_HEADER_SIZE)
		return (0);
	p = ibuf->rbuf + ibuf->rpos;
	/* judge the header now, not once a bogus length has been read */
	if (imsg_parse_hdr(p, ibuf->rlen, ibuf->maxsize, &hdr) == -1)
		return (-1);
	if (hdr.len > ibuf->rlen)
		return (0);

	data = NULL;
	datalen = hdr.len - IMSG_HEADER_SIZE;
	if (datalen > 0) {
		if ((data = malloc(datalen)) == NULL)
			return (-1);
		memcpy(data, p + IMSG_HEADER_SIZE, datalen);
	}
	fd = -1;
	if ((hdr.flags & IMSGF_HASFD) && (fd = imsg_dequeue_fd(ibuf)) == -1) {
		freezero(data, datalen);
		errno = EBADMSG;
		return (-1);
	}
	/* no copy of a payload lingers once it is handed out */
	explicit_bzero(p, hdr.len);
	ibuf->rpos += hdr.len;
	ibuf->rlen -= hdr.len;
	if (ibuf->rlen == 0)
		ibuf->rpos = 0;
	imsg_rbuf_shrink(ibuf);

	imsg->hdr = hdr;
	imsg->data = data;
	imsg->datalen = datalen;
	imsg->fd = fd;
	return (1);
}

int
imsg_compose(struct imsgbuf *ibuf, uint32_t type, uint32_t id, pid_t pid,
    int fd, const void *data, size_t datalen)
{
	struct iovec	 iov;

	iov.iov_base = (void *)data;
	iov.iov_len = datalen;
	return (imsg_composev(ibuf, type, id, pid, fd, &iov, 1));
}

int
imsg_composev(struct imsgbuf *ibuf, uint32_t type, uint32_t id, pid_t pid,
    int fd, const struct iovec *iov, int iovcnt)
{
	struct imsg_hdr	 hdr;
	struct ibuf	*b;
	size_t		 datalen, off;
	int		 i;

	if (fd < -1 || (fd != -1 && !ibuf->fdpass) || iovcnt < 0 ||
	    (iovcnt > 0 && iov == NULL)) {
		errno = EINVAL;
		return (-1);
	}
	if (imsg_payload_len(ibuf, iov, iovcnt, &datalen) == -1)
		return (-1);
	if ((b = malloc(sizeof(*b) + IMSG_HEADER_SIZE + datalen)) == NULL)
		return (-1);
	b->buf = (unsigned char *)(b + 1);
	b->size = IMSG_HEADER_SIZE + datalen;
	b->wpos = 0;
	b->fd = fd;

	memset(&hdr, 0, sizeof(hdr));
	hdr.type = type;
	hdr.len = b->size;
	hdr.flags = fd != -1 ? IMSGF_HASFD : 0;
	hdr.peerid = id;
	hdr.pid = pid != 0 ? pid : ibuf->pid;
	memcpy(b->buf, &hdr, sizeof(hdr));
	off = IMSG_HEADER_SIZE;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len == 0)
			continue;
		memcpy(b->buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	TAILQ_INSERT_TAIL(&ibuf->w.bufs, b, entry);
	ibuf->w.queued++;
	return (0);
}

/* Total payload of an iovec, refusing what the peer could not accept. */
static int
imsg_payload_len(struct imsgbuf *ibuf, const struct iovec *iov, int iovcnt,
    size_t *lenp)
{
	size_t	 len, max;
	int	 i;

	len = 0;
	max = ibuf->maxsize - IMSG_HEADER_SIZE;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > 0 && iov[i].iov_base == NULL) {
			errno = EINVAL;
			return (-1);
		}
		/* compared before adding, so the sum cannot wrap */
		if (iov[i].iov_len > max - len) {
			errno = ERANGE;
			return (-1);
		}
		len += iov[i].iov_len;
	}
	*lenp = len;
	return (0);
}

void
imsg_free(struct imsg *imsg)
{
	freezero(imsg->data, imsg->datalen);
	imsg->data = NULL;
	imsg->datalen = 0;
	if (imsg->fd != -1)
		close(imsg->fd);
	imsg->fd = -1;
}

uint32_t
imsg_get_type(const struct imsg *imsg)
{
	return (imsg->hdr.type);
}

uint32_t
imsg_get_id(const struct imsg *imsg)
{
	return (imsg->hdr.peerid);
}

pid_t
imsg_get_pid(const struct imsg *imsg)
{
	return (imsg->hdr.pid);
}

size_t
imsg_get_len(const struct imsg *imsg)
{
	return (imsg->datalen);
}

/* The caller owns the fd from now on; imsg_free will not close it. */
int
imsg_get_fd(struct imsg *imsg)
{
	int	 fd;

	fd = imsg->fd;
	imsg->fd = -1;
	return (fd);
}

int
imsg_get_data(const struct imsg *imsg, void *p, size_t len)
{
	if (len != imsg->datalen) {
		errno = EBADMSG;
		return (-1);
	}
	if (len > 0)
		memcpy(p, imsg->data, len);
	return (0);
}
