/*
 * Unit tests for common/imsg.c: framing, size limits, fd passing and
 * queueing, over real socketpairs.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "imsg.h"

#define MAXPAYLOAD	(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)

/* tx writes on sv[0], rx reads on sv[1]; tests may also use sv[0] raw */
struct pair {
	int		 sv[2];
	struct imsgbuf	 tx;
	struct imsgbuf	 rx;
};

static int
setup(void **state)
{
	struct pair	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-1);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    p->sv) == -1)
		return (-1);
	if (imsgbuf_init(&p->tx, p->sv[0]) == -1 ||
	    imsgbuf_init(&p->rx, p->sv[1]) == -1)
		return (-1);
	*state = p;
	return (0);
}

static int
teardown(void **state)
{
	struct pair	*p = *state;

	imsgbuf_clear(&p->tx);
	imsgbuf_clear(&p->rx);
	close(p->sv[0]);
	close(p->sv[1]);
	free(p);
	return (0);
}

static void
fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		buf[i] = (i * 7 + seed) & 0xff;
}

/* Pump bytes from tx to rx until rx yields one message. */
static void
transfer(struct pair *p, struct imsg *imsg)
{
	int	 i, r;

	for (i = 0; i < 100000; i++) {
		assert_int_equal(imsgbuf_write(&p->tx), 0);
		if ((r = imsg_get(&p->rx, imsg)) != 0) {
			assert_int_equal(r, 1);
			return;
		}
		assert_int_equal(imsgbuf_read(&p->rx), 1);
	}
	fail_msg("no message after %d rounds", i);
}

/* Pump until rx fails; return errno of the failing imsg_get. */
static int
transfer_fail(struct pair *p)
{
	struct imsg	 imsg;
	int		 i, r;

	for (i = 0; i < 100000; i++) {
		assert_int_equal(imsgbuf_write(&p->tx), 0);
		if ((r = imsg_get(&p->rx, &imsg)) == -1)
			return (errno);
		assert_int_equal(r, 0);
		assert_int_equal(imsgbuf_read(&p->rx), 1);
	}
	fail_msg("imsg_get never failed");
	return (0);
}

static void
raw_write(int fd, const void *buf, size_t len)
{
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static void
raw_hdr(struct imsg_hdr *hdr, uint32_t type, uint32_t len, uint16_t flags)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->type = type;
	hdr->len = len;
	hdr->flags = flags;
	hdr->peerid = 7;
	hdr->pid = 1234;
}

static int
fd_is_closed(int fd)
{
	return (fcntl(fd, F_GETFD) == -1 && errno == EBADF);
}

/* The number the kernel will give the next fd received. */
static int
lowest_free_fd(void)
{
	int	 fd;

	assert_true((fd = open("/dev/null", O_RDONLY)) != -1);
	close(fd);
	return (fd);
}

/* A pipe whose read end tells, by EOF, that no write end is left. */
static void
nbpipe(int fds[2])
{
	assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
}

static int
pipe_at_eof(int rfd)
{
	char	 c;

	return (read(rfd, &c, 1) == 0);
}

static void
roundtrip(struct pair *p, size_t len, uint32_t type)
{
	struct imsg	 imsg;
	unsigned char	*out, *in;

	assert_non_null(out = malloc(len + 1));
	assert_non_null(in = malloc(len + 1));
	fill(out, len, type);
	assert_int_equal(imsg_compose(&p->tx, type, type + 1, 0, -1, out,
	    len), 0);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_type(&imsg), type);
	assert_int_equal(imsg_get_id(&imsg), type + 1);
	assert_int_equal(imsg_get_pid(&imsg), getpid());
	assert_int_equal(imsg_get_len(&imsg), len);
	assert_int_equal(imsg_get_fd(&imsg), -1);
	if (len == 0)
		assert_null(imsg.data);
	assert_int_equal(imsg_get_data(&imsg, in, len), 0);
	assert_memory_equal(in, out, len);
	imsg_free(&imsg);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 0);
	assert_int_equal(imsg_get(&p->rx, &imsg), 0);
	free(out);
	free(in);
}

static void
test_roundtrip_sizes(void **state)
{
	struct pair	*p = *state;
	/* around a header's size, and up to the limit (20-byte header) */
	const size_t	 sizes[] = { 0, 1, 15, 16, 17, 19, 20, 21, 1000,
			    4096, MAXPAYLOAD - 1, MAXPAYLOAD };
	size_t		 i;

	for (i = 0; i < nitems(sizes); i++)
		roundtrip(p, sizes[i], i);
}

static void
test_roundtrip_large(void **state)
{
	struct pair	*p = *state;
	const size_t	 sizes[] = { MAXPAYLOAD + 1, 65536, 300000,
			    IMSG_MAXSIZE_LIMIT - IMSG_HEADER_SIZE };
	size_t		 i;

	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_MAXSIZE_LIMIT), 0);
	assert_int_equal(imsgbuf_set_maxsize(&p->rx, IMSG_MAXSIZE_LIMIT), 0);
	for (i = 0; i < nitems(sizes); i++)
		roundtrip(p, sizes[i], 100 + i);
}

/*
 * A big maxsize allocates nothing up front; a big message grows the read
 * buffer, and draining it gives the memory back.
 */
static void
test_rbuf_grows_and_shrinks(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	unsigned char	*big;
	const size_t	 len = 300000;
	int		 i;

	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_MAXSIZE_LIMIT), 0);
	assert_int_equal(imsgbuf_set_maxsize(&p->rx, IMSG_MAXSIZE_LIMIT), 0);
	assert_int_equal(p->rx.rsize, IMSG_RBUF_SIZE);
	assert_non_null(big = malloc(len));
	fill(big, len, 5);
	assert_int_equal(imsg_compose(&p->tx, 5, 0, 0, -1, big, len), 0);
	assert_int_equal(imsg_compose(&p->tx, 6, 0, 0, -1, "x", 1), 0);
	for (i = 0; i < 1000 && p->rx.rsize < len; i++) {
		assert_int_equal(imsgbuf_write(&p->tx), 0);
		assert_int_equal(imsgbuf_read(&p->rx), 1);
	}
	assert_int_equal(p->rx.rsize, IMSG_HEADER_SIZE + len);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_type(&imsg), 5);
	assert_int_equal(imsg_get_data(&imsg, big, len), 0);
	imsg_free(&imsg);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_type(&imsg), 6);
	imsg_free(&imsg);
	assert_int_equal(p->rx.rsize, IMSG_RBUF_SIZE);
	assert_int_equal(p->rx.rlen, 0);
	free(big);
}

static void
test_pid(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;

	assert_int_equal(imsg_compose(&p->tx, 1, 0, 4242, -1, NULL, 0), 0);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_pid(&imsg), 4242);
	imsg_free(&imsg);
	p->tx.pid = 77;
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, NULL, 0), 0);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_pid(&imsg), 77);
	imsg_free(&imsg);
}

static void
test_composev(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	struct iovec	 iov[3];
	char		 buf[16];

	iov[0].iov_base = "abc";
	iov[0].iov_len = 3;
	iov[1].iov_base = NULL;
	iov[1].iov_len = 0;
	iov[2].iov_base = "defg";
	iov[2].iov_len = 4;
	assert_int_equal(imsg_composev(&p->tx, 9, 0, 0, -1, iov, 3), 0);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_data(&imsg, buf, 7), 0);
	assert_memory_equal(buf, "abcdefg", 7);
	imsg_free(&imsg);
}

static void
test_many_small(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	uint32_t	 i, v;
	const uint32_t	 n = 500;	/* 500 * 24 bytes fit one read */

	for (i = 0; i < n; i++)
		assert_int_equal(imsg_compose(&p->tx, i, i, 0, -1, &i,
		    sizeof(i)), 0);
	assert_int_equal(imsgbuf_queuelen(&p->tx), n);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 0);

	assert_int_equal(imsgbuf_read(&p->rx), 1);
	for (i = 0; i < n; i++) {
		assert_int_equal(imsg_get(&p->rx, &imsg), 1);
		assert_int_equal(imsg_get_type(&imsg), i);
		assert_int_equal(imsg_get_data(&imsg, &v, sizeof(v)), 0);
		assert_int_equal(v, i);
		imsg_free(&imsg);
	}
	assert_int_equal(imsg_get(&p->rx, &imsg), 0);
	/* nothing left to read: would block, which is 1 */
	assert_int_equal(imsgbuf_read(&p->rx), 1);
}

static void
test_split_reads(void **state)
{
	struct pair	*p = *state;
	struct imsg_hdr	 hdr;
	struct imsg	 imsg;
	unsigned char	 frame[2 * (sizeof(hdr) + 20)];
	unsigned char	 payload[20];
	size_t		 i, len;
	int		 got;

	len = sizeof(hdr) + sizeof(payload);
	fill(payload, sizeof(payload), 3);
	raw_hdr(&hdr, 42, len, 0);
	memcpy(frame, &hdr, sizeof(hdr));
	memcpy(frame + sizeof(hdr), payload, sizeof(payload));
	memcpy(frame + len, frame, len);

	/* two frames, one byte per read: each complete on its last byte */
	got = 0;
	for (i = 0; i < sizeof(frame); i++) {
		raw_write(p->sv[0], frame + i, 1);
		assert_int_equal(imsgbuf_read(&p->rx), 1);
		if ((i + 1) % len != 0) {
			assert_int_equal(imsg_get(&p->rx, &imsg), 0);
			continue;
		}
		assert_int_equal(imsg_get(&p->rx, &imsg), 1);
		assert_int_equal(imsg_get_type(&imsg), 42);
		assert_int_equal(imsg_get_id(&imsg), 7);
		assert_int_equal(imsg_get_pid(&imsg), 1234);
		assert_int_equal(imsg_get_len(&imsg), sizeof(payload));
		assert_memory_equal(imsg.data, payload, sizeof(payload));
		imsg_free(&imsg);
		assert_int_equal(imsg_get(&p->rx, &imsg), 0);
		got++;
	}
	assert_int_equal(got, 2);
}

static void
test_compose_limits(void **state)
{
	struct pair	*p = *state;
	struct iovec	 iov[2];
	char		*big;

	assert_non_null(big = calloc(1, IMSG_MAXSIZE_LIMIT));
	errno = 0;
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, big,
	    MAXPAYLOAD + 1), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, big,
	    MAXPAYLOAD), 0);

	/* the iovec sum counts, not each part */
	iov[0].iov_base = big;
	iov[0].iov_len = MAXPAYLOAD;
	iov[1].iov_base = big;
	iov[1].iov_len = 1;
	errno = 0;
	assert_int_equal(imsg_composev(&p->tx, 1, 0, 0, -1, iov, 2), -1);
	assert_int_equal(errno, ERANGE);
	iov[1].iov_len = SIZE_MAX;
	assert_int_equal(imsg_composev(&p->tx, 1, 0, 0, -1, iov, 2), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 1);

	errno = 0;
	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_MAXSIZE_LIMIT + 1),
	    -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_HEADER_SIZE - 1),
	    -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_MAXSIZE_LIMIT), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, big,
	    IMSG_MAXSIZE_LIMIT - IMSG_HEADER_SIZE), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, big,
	    IMSG_MAXSIZE_LIMIT - IMSG_HEADER_SIZE + 1), -1);
	assert_int_equal(errno, ERANGE);

	/* lowered to the header alone: only empty messages */
	assert_int_equal(imsgbuf_set_maxsize(&p->tx, IMSG_HEADER_SIZE), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, big, 1), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 3);
	free(big);
}

static void
test_receive_oversize(void **state)
{
	struct pair	*p = *state;
	struct imsg_hdr	 hdr;
	struct imsg	 imsg;

	/* judged on the header alone, before any payload arrives */
	raw_hdr(&hdr, 1, IMSG_MAXSIZE_DEFAULT + 1, 0);
	raw_write(p->sv[0], &hdr, sizeof(hdr));
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	errno = 0;
	assert_int_equal(imsg_get(&p->rx, &imsg), -1);
	assert_int_equal(errno, ERANGE);
}

static void
test_receive_undersize(void **state)
{
	struct pair	*p = *state;
	struct imsg_hdr	 hdr;
	struct imsg	 imsg;

	raw_hdr(&hdr, 1, IMSG_HEADER_SIZE - 1, 0);
	raw_write(p->sv[0], &hdr, sizeof(hdr));
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	errno = 0;
	assert_int_equal(imsg_get(&p->rx, &imsg), -1);
	assert_int_equal(errno, ERANGE);
}

/* A sender allowed more than the receiver: the receiver refuses it. */
static void
test_receive_above_peer_max(void **state)
{
	struct pair	*p = *state;
	char		*buf;

	assert_non_null(buf = calloc(1, 20000));
	assert_int_equal(imsgbuf_set_maxsize(&p->tx, 32768), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, buf, 20000), 0);
	assert_int_equal(transfer_fail(p), ERANGE);
	free(buf);
}

static void
test_bad_header(void **state)
{
	struct pair	*p = *state;
	struct imsg_hdr	 hdr;
	struct imsg	 imsg;

	raw_hdr(&hdr, 1, IMSG_HEADER_SIZE, 0x8000);
	raw_write(p->sv[0], &hdr, sizeof(hdr));
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	errno = 0;
	assert_int_equal(imsg_get(&p->rx, &imsg), -1);
	assert_int_equal(errno, EBADMSG);
}

static void
test_parse_hdr(void **state)
{
	struct imsg_hdr	 hdr, out;
	unsigned char	 buf[sizeof(hdr) + 1];

	raw_hdr(&hdr, 5, 100, IMSGF_HASFD);
	/* unaligned on purpose */
	memcpy(buf + 1, &hdr, sizeof(hdr));
	assert_int_equal(imsg_parse_hdr(buf + 1, sizeof(hdr), 100, &out), 0);
	assert_memory_equal(&out, &hdr, sizeof(hdr));

	assert_int_equal(imsg_parse_hdr(buf + 1, sizeof(hdr) - 1, 100, &out),
	    -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(imsg_parse_hdr(&hdr, sizeof(hdr), 99, &out), -1);
	assert_int_equal(errno, ERANGE);

	hdr.unused = 1;
	assert_int_equal(imsg_parse_hdr(&hdr, sizeof(hdr), 100, &out), -1);
	assert_int_equal(errno, EBADMSG);
	hdr.unused = 0;
	hdr.flags = 0x0002;
	assert_int_equal(imsg_parse_hdr(&hdr, sizeof(hdr), 100, &out), -1);
	assert_int_equal(errno, EBADMSG);
}

static void
test_get_data_exact(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	uint64_t	 v = 0x0102030405060708ULL, w;
	char		 big[16];

	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, &v, sizeof(v)), 0);
	transfer(p, &imsg);
	errno = 0;
	assert_int_equal(imsg_get_data(&imsg, big, sizeof(v) - 1), -1);
	assert_int_equal(errno, EBADMSG);
	errno = 0;
	assert_int_equal(imsg_get_data(&imsg, big, sizeof(big)), -1);
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(imsg_get_data(&imsg, &w, sizeof(w)), 0);
	assert_true(w == v);
	imsg_free(&imsg);

	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, NULL, 0), 0);
	transfer(p, &imsg);
	assert_int_equal(imsg_get_data(&imsg, NULL, 0), 0);
	assert_int_equal(imsg_get_data(&imsg, big, 1), -1);
	assert_int_equal(errno, EBADMSG);
	imsg_free(&imsg);
}

static void
test_fd_pass(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	int		 pfd[2], fd;
	char		 buf[8];

	imsgbuf_allow_fdpass(&p->tx);
	imsgbuf_allow_fdpass(&p->rx);
	nbpipe(pfd);
	assert_int_equal(imsg_compose(&p->tx, 3, 0, 0, pfd[1], "x", 1), 0);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	/* the sender's copy went with the message */
	assert_true(fd_is_closed(pfd[1]));

	transfer(p, &imsg);
	assert_int_equal(imsg_get_type(&imsg), 3);
	assert_true((imsg.hdr.flags & IMSGF_HASFD) != 0);
	assert_true((fd = imsg_get_fd(&imsg)) >= 0);
	assert_int_equal(imsg_get_fd(&imsg), -1);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	imsg_free(&imsg);

	/* claimed, so imsg_free left it open, and it works */
	assert_int_equal(write(fd, "hello", 5), 5);
	assert_int_equal(read(pfd[0], buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "hello", 5);
	close(fd);
	assert_true(pipe_at_eof(pfd[0]));
	close(pfd[0]);
}

/* Fds go to the flagged messages, in order, among plain ones. */
static void
test_fd_order(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	int		 a[2], b[2], fds[4], i;
	char		 c;

	imsgbuf_allow_fdpass(&p->tx);
	imsgbuf_allow_fdpass(&p->rx);
	nbpipe(a);
	nbpipe(b);
	assert_int_equal(imsg_compose(&p->tx, 0, 0, 0, -1, NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, a[1], NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 2, 0, 0, -1, "c", 1), 0);
	assert_int_equal(imsg_compose(&p->tx, 3, 0, 0, b[1], "d", 1), 0);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);

	for (i = 0; i < 4; i++) {
		transfer(p, &imsg);
		assert_int_equal(imsg_get_type(&imsg), i);
		fds[i] = imsg_get_fd(&imsg);
		imsg_free(&imsg);
	}
	assert_int_equal(fds[0], -1);
	assert_int_equal(fds[2], -1);
	assert_int_equal(write(fds[1], "A", 1), 1);
	assert_int_equal(write(fds[3], "B", 1), 1);
	assert_int_equal(read(a[0], &c, 1), 1);
	assert_int_equal(c, 'A');
	assert_int_equal(read(b[0], &c, 1), 1);
	assert_int_equal(c, 'B');
	close(fds[1]);
	close(fds[3]);
	assert_true(pipe_at_eof(a[0]));
	assert_true(pipe_at_eof(b[0]));
	close(a[0]);
	close(b[0]);
}

static void
test_fd_unclaimed(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;
	int		 pfd[2], fd;

	imsgbuf_allow_fdpass(&p->tx);
	imsgbuf_allow_fdpass(&p->rx);
	nbpipe(pfd);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, pfd[1], NULL, 0), 0);
	transfer(p, &imsg);
	fd = imsg.fd;
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) != -1);
	imsg_free(&imsg);
	assert_true(fd_is_closed(fd));
	assert_int_equal(imsg.fd, -1);
	assert_true(pipe_at_eof(pfd[0]));
	close(pfd[0]);
}

static void
test_fd_refused_compose(void **state)
{
	struct pair	*p = *state;
	int		 pfd[2];

	nbpipe(pfd);
	errno = 0;
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, pfd[1], NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 0);
	/* still the caller's */
	assert_true(fcntl(pfd[1], F_GETFD) != -1);
	close(pfd[0]);
	close(pfd[1]);
}

static void
test_fd_refused_receive(void **state)
{
	struct pair	*p = *state;
	int		 pfd[2], next;

	imsgbuf_allow_fdpass(&p->tx);
	nbpipe(pfd);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, pfd[1], NULL, 0), 0);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	next = lowest_free_fd();
	errno = 0;
	assert_int_equal(imsgbuf_read(&p->rx), -1);
	assert_int_equal(errno, EBADMSG);
	assert_true(fd_is_closed(next));
	assert_true(pipe_at_eof(pfd[0]));
	close(pfd[0]);
}

/* The flag without an fd: the peer lied, and we say so. */
static void
test_fd_flag_without_fd(void **state)
{
	struct pair	*p = *state;
	struct imsg_hdr	 hdr;
	struct imsg	 imsg;

	imsgbuf_allow_fdpass(&p->rx);
	raw_hdr(&hdr, 1, IMSG_HEADER_SIZE, IMSGF_HASFD);
	raw_write(p->sv[0], &hdr, sizeof(hdr));
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	errno = 0;
	assert_int_equal(imsg_get(&p->rx, &imsg), -1);
	assert_int_equal(errno, EBADMSG);
}

static void
test_clear_closes(void **state)
{
	struct pair	*p = *state;
	int		 a[2], b[2];

	imsgbuf_allow_fdpass(&p->tx);
	imsgbuf_allow_fdpass(&p->rx);
	nbpipe(a);
	nbpipe(b);
	/* b: received but never asked for */
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, b[1], NULL, 0), 0);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	/* a: queued but never sent */
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, a[1], NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 2, 0, 0, -1, "z", 1), 0);

	assert_false(pipe_at_eof(a[0]));
	assert_false(pipe_at_eof(b[0]));
	imsgbuf_clear(&p->tx);
	imsgbuf_clear(&p->rx);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 0);
	assert_true(pipe_at_eof(a[0]));
	assert_true(pipe_at_eof(b[0]));
	close(a[0]);
	close(b[0]);
	/* teardown clears again: that must be harmless */
}

static void
test_eof_and_epipe(void **state)
{
	struct pair	*p = *state;

	assert_int_equal(imsgbuf_read(&p->rx), 1);	/* would block */
	assert_int_equal(shutdown(p->sv[0], SHUT_WR), 0);
	assert_int_equal(imsgbuf_read(&p->rx), 0);

	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, NULL, 0), 0);
	errno = 0;
	assert_int_equal(imsgbuf_write(&p->tx), -1);
	assert_int_equal(errno, EPIPE);
}

static void
test_read_needs_drain(void **state)
{
	struct pair	*p = *state;
	struct imsg	 imsg;

	assert_int_equal(imsgbuf_set_maxsize(&p->rx, 2 * IMSG_HEADER_SIZE), 0);
	assert_int_equal(imsg_compose(&p->tx, 1, 0, 0, -1, NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 2, 0, 0, -1, NULL, 0), 0);
	assert_int_equal(imsg_compose(&p->tx, 3, 0, 0, -1, NULL, 0), 0);
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	errno = 0;
	assert_int_equal(imsgbuf_read(&p->rx), -1);
	assert_int_equal(errno, ENOBUFS);
	/* more buffered than the new size allows */
	assert_int_equal(imsgbuf_set_maxsize(&p->rx, IMSG_HEADER_SIZE), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(imsg_get(&p->rx, &imsg), 1);
	assert_int_equal(imsg_get_type(&imsg), 1);
	imsg_free(&imsg);
	assert_int_equal(imsgbuf_read(&p->rx), 1);
	assert_int_equal(imsg_get(&p->rx, &imsg), 1);
	assert_int_equal(imsg_get_type(&imsg), 2);
	imsg_free(&imsg);
	assert_int_equal(imsg_get(&p->rx, &imsg), 1);
	assert_int_equal(imsg_get_type(&imsg), 3);
	imsg_free(&imsg);
}

#define FLUSH_PAYLOAD	1000

/*
 * The far side of test_flush_after_eagain, in a child: read until EOF and
 * check every message arrived whole and in order.
 */
static int
drain_loop(struct imsgbuf *ibuf, uint32_t expect)
{
	struct imsg	 imsg;
	struct pollfd	 pfd;
	unsigned char	 want[FLUSH_PAYLOAD], got[FLUSH_PAYLOAD];
	uint32_t	 n;
	int		 eof, r;

	pfd.fd = ibuf->fd;
	pfd.events = POLLIN;
	n = 0;
	for (eof = 0; !eof;) {
		if (poll(&pfd, 1, 10000) != 1)
			return (3);
		if ((r = imsgbuf_read(ibuf)) == -1)
			return (4);
		eof = r == 0;
		while ((r = imsg_get(ibuf, &imsg)) == 1) {
			fill(want, sizeof(want), n);
			if (imsg_get_type(&imsg) != n ||
			    imsg_get_data(&imsg, got, sizeof(got)) == -1 ||
			    memcmp(got, want, sizeof(got)) != 0) {
				imsg_free(&imsg);
				return (5);
			}
			imsg_free(&imsg);
			n++;
		}
		if (r == -1)
			return (6);
	}
	return (n == expect && ibuf->rlen == 0 ? 0 : 7);
}

static int
drain_child(int fd, uint32_t expect)
{
	struct imsgbuf	 ibuf;
	int		 rv;

	if (imsgbuf_init(&ibuf, fd) == -1)
		return (2);
	rv = drain_loop(&ibuf, expect);
	imsgbuf_clear(&ibuf);
	return (rv);
}

static void
compose_seq(struct imsgbuf *ibuf, uint32_t n)
{
	unsigned char	 buf[FLUSH_PAYLOAD];

	fill(buf, sizeof(buf), n);
	assert_int_equal(imsg_compose(ibuf, n, 0, 0, -1, buf, sizeof(buf)),
	    0);
}

static void
test_flush_after_eagain(void **state)
{
	struct pair	*p = *state;
	pid_t		 pid;
	uint32_t	 n, q;
	int		 sz = 4096, status;

	assert_int_equal(setsockopt(p->sv[0], SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)), 0);
	for (n = 0; n < 10000; n++) {
		compose_seq(&p->tx, n);
		assert_int_equal(imsgbuf_write(&p->tx), 0);
		if (imsgbuf_queuelen(&p->tx) > 0)
			break;
	}
	n++;
	assert_true(imsgbuf_queuelen(&p->tx) > 0);
	/* full: another write is no error, and no progress */
	q = imsgbuf_queuelen(&p->tx);
	assert_int_equal(imsgbuf_write(&p->tx), 0);
	assert_int_equal(imsgbuf_queuelen(&p->tx), q);
	for (q = 0; q < 50; q++)
		compose_seq(&p->tx, n++);

	switch (pid = fork()) {
	case -1:
		fail_msg("fork: %s", strerror(errno));
		break;
	case 0:
		_exit(drain_child(p->sv[1], n));
	}
	assert_int_equal(imsgbuf_flush(&p->tx), 0);
	assert_int_equal(imsgbuf_queuelen(&p->tx), 0);
	assert_int_equal(shutdown(p->sv[0], SHUT_WR), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_sizes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip_large,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rbuf_grows_and_shrinks,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_composev,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_small,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_reads,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_compose_limits,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_receive_oversize,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_receive_undersize,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_receive_above_peer_max,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header,
		    setup, teardown),
		cmocka_unit_test(test_parse_hdr),
		cmocka_unit_test_setup_teardown(test_get_data_exact,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_pass,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_order,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_unclaimed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_refused_compose,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_refused_receive,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_flag_without_fd,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_closes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_and_epipe,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_needs_drain,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_after_eagain,
		    setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
