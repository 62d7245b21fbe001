/*
 * Reading a socket into an evbuffer without evbuffer_read(), which asks
 * the kernel with ioctl(FIONREAD) how much there is before every read:
 * one system call per read on the hot path is worth saving.
 */

#include <sys/types.h>

#include <errno.h>
#include <event.h>
#include <unistd.h>

#include "gateway.h"

#define BUF_READ_MAX	(64 * 1024)

/* bytes read, 0 at the end of the stream, -1 with errno */
int
buf_read(struct evbuffer *buf, int fd)
{
	struct evbuffer_iovec	 v;
	ssize_t			 n;

	if (evbuffer_reserve_space(buf, BUF_READ_MAX, &v, 1) < 1) {
		errno = ENOMEM;
		return (-1);
	}
	if ((n = read(fd, v.iov_base, v.iov_len)) <= 0) {
		v.iov_len = 0;
		evbuffer_commit_space(buf, &v, 1);
		return (n);
	}
	v.iov_len = n;
	if (evbuffer_commit_space(buf, &v, 1) == -1) {
		errno = ENOMEM;
		return (-1);
	}
	return (n);
}
