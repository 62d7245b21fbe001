/*
 * herd: N concurrent HTTP/1.1 requests (Connection: close), all sent at
 * once on N connections, each read to its end.  Prints one line:
 *
 *	n=N ok=2xx other=STATUS_OTHER failed=NO_ANSWER first_us=
 *	    p50_us= p90_us= last_us=
 *
 * times from the first connect() to each complete answer.  With -v every
 * request's time and status follow, one a line.  -n 1 times one request.
 *
 *	herd [-v] [-n count] [-H host] [-p path] [-t seconds] port
 */

#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct req {
	int		 fd;
	size_t		 sent;
	char		 head[16];	/* the status line's start */
	size_t		 got;
	int		 status;	/* 0: no answer */
	int		 done;
	uint64_t	 t;		/* microseconds to the end */
};

static uint64_t
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	struct epoll_event	 ev, evs[256];
	struct rlimit		 rl;
	struct req		*rq;
	const char		*host = "localhost", *path = "/";
	char			 reqbuf[1024], buf[65536];
	size_t			 reqlen;
	uint64_t		 t0, deadline, *times;
	int			 ch, i, n = 1, ep, left, timeout = 60, verbose = 0;
	int			 ok = 0, other = 0, failed = 0, nt = 0, port;

	while ((ch = getopt(argc, argv, "H:n:p:t:v")) != -1) {
		switch (ch) {
		case 'H':
			host = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'p':
			path = optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1 || n < 1) {
 usage:
		fprintf(stderr, "usage: herd [-v] [-n count] [-H host] "
		    "[-p path] [-t seconds] port\n");
		return (2);
	}
	port = atoi(argv[optind]);
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 16) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	reqlen = snprintf(reqbuf, sizeof(reqbuf), "GET %s HTTP/1.1\r\n"
	    "Host: %s\r\nConnection: close\r\n\r\n", path, host);
	if ((rq = calloc(n, sizeof(*rq))) == NULL ||
	    (times = calloc(n, sizeof(*times))) == NULL)
		err(1, "calloc");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		err(1, "epoll_create1");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	t0 = now_us();
	deadline = t0 + (uint64_t)timeout * 1000000;
	left = n;
	for (i = 0; i < n; i++) {
		rq[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (rq[i].fd == -1)
			err(1, "socket %d", i);
		if (connect(rq[i].fd, (struct sockaddr *)&sin,
		    sizeof(sin)) == -1 && errno != EINPROGRESS) {
			close(rq[i].fd);
			rq[i].fd = -1;
			rq[i].done = 1;
			left--;
			continue;
		}
		ev.events = EPOLLOUT | EPOLLIN;
		ev.data.u32 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, rq[i].fd, &ev) == -1)
			err(1, "epoll_ctl");
	}
	while (left > 0) {
		uint64_t	now = now_us();
		int		k, ne;

		if (now >= deadline)
			break;
		ne = epoll_wait(ep, evs, 256, (deadline - now) / 1000 + 1);
		if (ne == -1) {
			if (errno == EINTR)
				continue;
			err(1, "epoll_wait");
		}
		for (k = 0; k < ne; k++) {
			struct req	*r = &rq[evs[k].data.u32];
			ssize_t		 m;

			if (r->done)
				continue;
			if ((evs[k].events & EPOLLOUT) && r->sent < reqlen) {
				m = write(r->fd, reqbuf + r->sent,
				    reqlen - r->sent);
				if (m > 0)
					r->sent += m;
				else if (m == -1 && errno != EAGAIN)
					goto finish;
				if (r->sent == reqlen) {
					ev.events = EPOLLIN;
					ev.data.u32 = evs[k].data.u32;
					epoll_ctl(ep, EPOLL_CTL_MOD, r->fd,
					    &ev);
				}
			}
			if (!(evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
				continue;
			while ((m = read(r->fd, buf, sizeof(buf))) > 0) {
				if (r->got < sizeof(r->head)) {
					size_t	c = sizeof(r->head) - r->got;

					if (c > (size_t)m)
						c = m;
					memcpy(r->head + r->got, buf, c);
					r->got += c;
				}
			}
			if (m == -1 && errno == EAGAIN)
				continue;
 finish:
			r->t = now_us() - t0;
			r->done = 1;
			left--;
			if (r->got >= 12 && memcmp(r->head, "HTTP/1.", 7) == 0)
				r->status = atoi(r->head + 9);
			epoll_ctl(ep, EPOLL_CTL_DEL, r->fd, NULL);
			close(r->fd);
			r->fd = -1;
		}
	}
	for (i = 0; i < n; i++) {
		if (rq[i].fd != -1)
			close(rq[i].fd);
		if (rq[i].status >= 200 && rq[i].status < 300) {
			ok++;
			times[nt++] = rq[i].t;
		} else if (rq[i].status != 0)
			other++;
		else
			failed++;
	}
	qsort(times, nt, sizeof(*times), cmp_u64);
	printf("n=%d ok=%d other=%d failed=%d", n, ok, other, failed);
	if (nt > 0)
		printf(" first_us=%llu p50_us=%llu p90_us=%llu last_us=%llu",
		    (unsigned long long)times[0],
		    (unsigned long long)times[(nt - 1) / 2],
		    (unsigned long long)times[(nt * 9 + 9) / 10 - 1],
		    (unsigned long long)times[nt - 1]);
	printf("\n");
	if (verbose)
		for (i = 0; i < n; i++)
			printf("%llu %d\n", (unsigned long long)rq[i].t,
			    rq[i].status);
	return (ok == n ? 0 : 1);
}
