/*
 * Reading a socket into an evbuffer without evbuffer_read(), which asks
 * the kernel with ioctl(FIONREAD) how much there is before every read:
 * one system call per read on the hot path is worth saving.
 *
 * Nor by evbuffer_reserve_space() of the most a read may bring: libevent
 * sizes a chain to the next power of two above what is asked and its own
 * header, so 64 KiB asked was a 128 KiB malloc(3) for every read, however
 * few bytes came (a request, an answer's head), freed again once sent:
 * at glibc's mmap threshold, an mmap(2), a munmap(2) and fresh pages to
 * fault in for each, or the top of the heap trimmed and grown again.
 * The read goes into one buffer shared by every connection, and only
 * the bytes that came are added to the evbuffer, into the room its last
 * chain has or a chain their size; a full read still fits a chain of
 * 64 KiB with its header.  Nothing stays in the shared buffer between
 * two calls.
 */

#include <sys/types.h>

#include <errno.h>
#include <event.h>
#include <unistd.h>

#include "gateway.h"

#define BUF_READ_MAX	(64 * 1024 - 512)	/* a chain's header fits */

static char	 buf_shared[BUF_READ_MAX];

/* bytes read, 0 at the end of the stream, -1 with errno */
int
buf_read(struct evbuffer *buf, int fd)
{
	ssize_t	 n;

	if ((n = read(fd, buf_shared, sizeof(buf_shared))) <= 0)
		return (n);
	if (evbuffer_add(buf, buf_shared, n) == -1) {
		errno = ENOMEM;
		return (-1);
	}
	return (n);
}
