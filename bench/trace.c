/*
 * trace: a request trace for the memory budget's bench part (09-budget.sh),
 * made and replayed.
 *
 *	trace gen [-n workloads] [-d seconds] [-r rate] [-z zipf-s]
 *	    [-b burst-every] [-w burst-width] [-s seed]
 *		prints "T_MS INDEX" lines, sorted by time: Poisson arrivals
 *		at rate per second, each for a workload chosen with Zipf
 *		popularity (exponent zipf-s) over a fixed shuffle of the
 *		indexes, so that popularity does not follow size; and every
 *		burst-every seconds (the first one after half of it) a burst,
 *		burst-width distinct workloads chosen uniformly, one request
 *		each within 500 ms: a crawler walking every host.
 *
 *	trace replay [-t timeout] [-f host-format] port < trace
 *		sends each line's request at its time, GET / with Host
 *		wINDEX.bench ("Connection: close"), on a connection of its
 *		own, and reads the answer to its end; prints "T_MS INDEX
 *		STATUS LATENCY_US" per request as it ends, STATUS 0 for no
 *		answer within timeout seconds (60).
 *
 * The same seed gives the same trace on any machine.
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
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NMAX		1024		/* workloads */
#define REQMAX		200000		/* requests in a trace */

/* xorshift64*: the same numbers everywhere for a seed */
static uint64_t	 rng_state = 88172645463325252ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL);
}

/* uniform in [0, 1) */
static double
unif(void)
{
	return ((double)(rng() >> 11) / 9007199254740992.0);
}

struct ev {
	int64_t	 t;
	int	 idx;
};

static int
ev_cmp(const void *a, const void *b)
{
	const struct ev	*x = a, *y = b;

	if (x->t != y->t)
		return (x->t < y->t ? -1 : 1);
	return (x->idx - y->idx);
}

static int
gen(int argc, char *argv[])
{
	static struct ev	 ev[REQMAX];
	double			 cdf[NMAX], sum = 0, t, s = 1.0, rate = 8;
	int			 perm[NMAX], chosen[NMAX];
	int			 n = 40, secs = 150, every = 25, width = 16;
	int			 ch, i, j, k, tmp, nev = 0;
	double			 u;

	while ((ch = getopt(argc, argv, "n:d:r:z:b:w:s:")) != -1) {
		switch (ch) {
		case 'n': n = atoi(optarg); break;
		case 'd': secs = atoi(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 'z': s = atof(optarg); break;
		case 'b': every = atoi(optarg); break;
		case 'w': width = atoi(optarg); break;
		case 's': rng_state ^= strtoull(optarg, NULL, 10) *
		    0x9E3779B97F4A7C15ULL; if (rng_state == 0) rng_state = 1;
		    break;
		default:
			errx(2, "usage: trace gen [-n N] [-d S] [-r R] [-z S] "
			    "[-b S] [-w N] [-s SEED]");
		}
	}
	if (n < 1 || n > NMAX || secs < 1 || rate <= 0 || width > n)
		errx(2, "bad arguments");
	for (i = 0; i < n; i++) {
		perm[i] = i;
		sum += 1.0 / pow(i + 1, s);
		cdf[i] = sum;
	}
	for (i = n - 1; i > 0; i--) {
		j = rng() % (uint64_t)(i + 1);
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	/* Poisson arrivals, Zipf popularity */
	for (t = 0;;) {
		t += -log(1.0 - unif()) / rate;
		if (t >= secs || nev >= REQMAX)
			break;
		u = unif() * sum;
		for (k = 0; k < n - 1 && cdf[k] < u; k++)
			;
		ev[nev].t = (int64_t)(t * 1000);
		ev[nev++].idx = perm[k];
	}
	/* bursts: width distinct workloads, uniformly, within 500 ms */
	for (t = every / 2.0; every > 0 && t < secs; t += every) {
		memset(chosen, 0, sizeof(chosen));
		for (i = 0; i < width && nev < REQMAX; i++) {
			do
				k = rng() % (uint64_t)n;
			while (chosen[k]);
			chosen[k] = 1;
			ev[nev].t = (int64_t)(t * 1000 + unif() * 500);
			ev[nev++].idx = k;
		}
	}
	qsort(ev, nev, sizeof(ev[0]), ev_cmp);
	for (i = 0; i < nev; i++)
		printf("%lld %d\n", (long long)ev[i].t, ev[i].idx);
	return (0);
}

struct req {
	int64_t	 t;		/* its time in the trace, ms */
	int	 idx;
	int	 fd;
	int64_t	 start_us;
	char	 out[160];	/* the request */
	size_t	 outlen, sent;
	char	 head[16];	/* the status line's start */
	size_t	 got;
	int	 done;
};

static int64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

static void
finish(struct req *r, int epfd, int64_t now)
{
	int	 status = 0;

	if (r->done)
		return;
	r->done = 1;
	if (r->got >= 12 && strncmp(r->head, "HTTP/1.", 7) == 0)
		status = atoi(r->head + 9);
	printf("%lld %d %d %lld\n", (long long)r->t, r->idx, status,
	    (long long)(now - r->start_us));
	fflush(stdout);
	if (r->fd != -1) {
		(void)epoll_ctl(epfd, EPOLL_CTL_DEL, r->fd, NULL);
		close(r->fd);
		r->fd = -1;
	}
}

static void
start(struct req *r, int epfd, const struct sockaddr_in *sin)
{
	struct epoll_event	 e;

	r->start_us = now_us();
	if ((r->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1) {
		finish(r, epfd, now_us());
		return;
	}
	if (connect(r->fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1 &&
	    errno != EINPROGRESS) {
		finish(r, epfd, now_us());
		return;
	}
	memset(&e, 0, sizeof(e));
	e.events = EPOLLOUT | EPOLLIN;
	e.data.ptr = r;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, r->fd, &e) == -1)
		finish(r, epfd, now_us());
}

static void
io(struct req *r, int epfd, uint32_t events)
{
	struct epoll_event	 e;
	char			 buf[16384];
	ssize_t			 n;

	if (r->sent < r->outlen && (events & (EPOLLOUT | EPOLLERR))) {
		n = write(r->fd, r->out + r->sent, r->outlen - r->sent);
		if (n == -1 && errno != EAGAIN) {
			finish(r, epfd, now_us());
			return;
		}
		if (n > 0)
			r->sent += n;
		if (r->sent == r->outlen) {
			memset(&e, 0, sizeof(e));
			e.events = EPOLLIN;
			e.data.ptr = r;
			(void)epoll_ctl(epfd, EPOLL_CTL_MOD, r->fd, &e);
		}
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		for (;;) {
			n = read(r->fd, buf, sizeof(buf));
			if (n > 0) {
				if (r->got < sizeof(r->head)) {
					size_t c = sizeof(r->head) - r->got;

					if (c > (size_t)n)
						c = n;
					memcpy(r->head + r->got, buf, c);
				}
				r->got += n;
				continue;
			}
			if (n == -1 && errno == EAGAIN)
				break;
			finish(r, epfd, now_us());
			break;
		}
	}
}

static int
replay(int argc, char *argv[])
{
	static struct req	 reqs[REQMAX];
	struct epoll_event	 evs[256];
	struct sockaddr_in	 sin;
	struct rlimit		 rl;
	const char		*fmt = "w%02d.bench";
	char			 host[64];
	long long		 t;
	int64_t			 t0, now, due;
	int			 ch, i, n, idx, nreq = 0, next = 0, left, epfd;
	int			 timeout = 60, port, wait_ms;

	while ((ch = getopt(argc, argv, "t:f:")) != -1) {
		switch (ch) {
		case 't': timeout = atoi(optarg); break;
		case 'f': fmt = optarg; break;
		default:
			errx(2, "usage: trace replay [-t secs] [-f fmt] port");
		}
	}
	if (optind != argc - 1 || (port = atoi(argv[optind])) <= 0)
		errx(2, "usage: trace replay [-t secs] [-f fmt] port");
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	while (nreq < REQMAX && scanf("%lld %d", &t, &idx) == 2) {
		reqs[nreq].t = t;
		reqs[nreq].idx = idx;
		reqs[nreq].fd = -1;
		(void)snprintf(host, sizeof(host), fmt, idx);
		reqs[nreq].outlen = (size_t)snprintf(reqs[nreq].out,
		    sizeof(reqs[nreq].out), "GET / HTTP/1.1\r\nHost: %s\r\n"
		    "Connection: close\r\n\r\n", host);
		nreq++;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((epfd = epoll_create1(0)) == -1)
		err(1, "epoll_create1");
	t0 = now_us();
	left = nreq;
	while (left > 0) {
		now = now_us();
		while (next < nreq && t0 + reqs[next].t * 1000 <= now)
			start(&reqs[next++], epfd, &sin);
		/* the ones that waited too long */
		for (i = 0; i < next; i++)
			if (!reqs[i].done && now - reqs[i].start_us >
			    (int64_t)timeout * 1000000)
				finish(&reqs[i], epfd, now);
		left = 0;
		for (i = 0; i < nreq; i++)
			if (!reqs[i].done)
				left++;
		if (left == 0)
			break;
		wait_ms = 100;
		if (next < nreq) {
			due = (t0 + reqs[next].t * 1000 - now) / 1000;
			if (due < wait_ms)
				wait_ms = due < 0 ? 0 : (int)due;
		}
		if ((n = epoll_wait(epfd, evs, 256, wait_ms)) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "epoll_wait");
		}
		for (i = 0; i < n; i++)
			io(evs[i].data.ptr, epfd, evs[i].events);
	}
	return (0);
}

int
main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "gen") == 0)
		return (gen(argc - 1, argv + 1));
	if (argc >= 2 && strcmp(argv[1], "replay") == 0)
		return (replay(argc - 1, argv + 1));
	fprintf(stderr, "usage: trace gen [options] | trace replay [options] "
	    "port\n");
	return (2);
}
