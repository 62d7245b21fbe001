/*
 * libFuzzer target for the imsg receive path.  The input goes through a
 * socketpair, so imsgbuf_read and imsg_get see it as a peer's bytes.  The
 * first byte sets up the receiver:
 *
 *	bit 0		fd passing allowed
 *	bits 1-2	maxsize: default, header only, 64, 65536
 *	bits 3-7	bytes per write, 0 meaning all at once
 *
 * clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icommon \
 *     -isystem /usr/include/bsd -DLIBBSD_OVERLAY regress/fuzz/fuzz_imsg.c \
 *     common/imsg.c -lbsd -o /tmp/fuzz_imsg
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const uint32_t maxsizes[] = {
	IMSG_MAXSIZE_DEFAULT, IMSG_HEADER_SIZE, 64, 65536
};

/* Check what imsg_get promises of each message, then free it. */
static void
check_imsg(struct imsg *imsg, uint32_t maxsize)
{
	unsigned char	*p;
	size_t		 len;

	len = imsg_get_len(imsg);
	if (len > maxsize - IMSG_HEADER_SIZE ||
	    len != imsg->hdr.len - IMSG_HEADER_SIZE)
		abort();
	if ((p = malloc(len + 1)) == NULL)
		abort();
	if (imsg_get_data(imsg, p, len) != 0 ||
	    imsg_get_data(imsg, p, len + 1) != -1 || errno != EBADMSG)
		abort();
	if (len > 0 && imsg_get_data(imsg, p, len - 1) != -1)
		abort();
	/* bytes alone carry no fd, so a flagged message never gets here */
	if (imsg_get_fd(imsg) != -1)
		abort();
	(void)imsg_get_type(imsg);
	(void)imsg_get_id(imsg);
	(void)imsg_get_pid(imsg);
	free(p);
	imsg_free(imsg);
}

/* 1 while more may come, 0 once imsg_get has failed. */
static int
drain(struct imsgbuf *ibuf)
{
	struct imsg	 imsg;
	int		 r;

	while ((r = imsg_get(ibuf, &imsg)) == 1)
		check_imsg(&imsg, ibuf->maxsize);
	if (r == -1) {
		if (errno != EBADMSG && errno != ERANGE)
			abort();
		return (0);
	}
	return (1);
}

static void
feed(int wfd, struct imsgbuf *ibuf, const uint8_t *data, size_t size,
    size_t chunk)
{
	size_t	 off;
	ssize_t	 n;
	int	 r;

	off = 0;
	if (size == 0)
		shutdown(wfd, SHUT_WR);
	for (;;) {
		if (off < size) {
			n = write(wfd, data + off, MINIMUM(chunk, size - off));
			if (n == -1 && errno != EAGAIN)
				abort();
			if (n > 0 && (off += n) == size)
				shutdown(wfd, SHUT_WR);
		}
		/*
		 * Every complete message is drained before the next read,
		 * so the read buffer is never full: -1 here is a bug.
		 */
		if ((r = imsgbuf_read(ibuf)) == -1)
			abort();
		if (!drain(ibuf) || r == 0)
			return;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imsgbuf	 ibuf;
	struct imsg_hdr	 hdr;
	size_t		 chunk;
	int		 sv[2];
	uint8_t		 conf;

	if (size < 1)
		return (0);
	conf = data[0];
	data++;
	size--;

	/* the pure decoder on its own, unaligned */
	if (imsg_parse_hdr(data, size, maxsizes[(conf >> 1) & 3], &hdr) == 0 &&
	    (hdr.len < IMSG_HEADER_SIZE || hdr.len > maxsizes[(conf >> 1) & 3]))
		abort();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    sv) == -1)
		abort();
	if (imsgbuf_init(&ibuf, sv[1]) == -1)
		abort();
	if (conf & 1)
		imsgbuf_allow_fdpass(&ibuf);
	if (imsgbuf_set_maxsize(&ibuf, maxsizes[(conf >> 1) & 3]) == -1)
		abort();
	chunk = conf >> 3;
	if (chunk == 0)
		chunk = size;
	feed(sv[0], &ibuf, data, size, chunk);

	imsgbuf_clear(&ibuf);
	close(sv[0]);
	close(sv[1]);
	return (0);
}
