/*
 * hsload: new TLS handshakes, as many as it can for some seconds.  Each
 * of -c worker processes, in a loop: connect, a full handshake (no
 * session cache, no tickets: nothing can be resumed) with the server
 * name -H, one "GET PATH" with Connection: close, the answer read to
 * its end, close.  Prints one line:
 *
 *	n=HANDSHAKES ok=2xx failed=OTHER secs=ELAPSED hps=HANDSHAKES/S
 *
 * The certificate is not verified: what is measured is the server's
 * side of the handshake, and a verification would only add to the
 * client's.  Each connect, read and write gives up after IO_TIMEOUT
 * seconds, so that a run ends even if the server stops answering.
 *
 *	hsload [-c workers] [-t seconds] [-H host] [-p path] port
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define WORKERS_MAX	64
#define IO_TIMEOUT	5	/* seconds, each connect, read or write */

struct counts {
	unsigned long	 n;
	unsigned long	 ok;
	unsigned long	 failed;
};

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

/* one connection: 1 if answered 2xx, 0 if not, -1 if no handshake */
static int
one(SSL_CTX *ctx, const struct sockaddr_in *sin, const char *host,
    const char *req, size_t reqlen)
{
	SSL	*ssl;
	struct timeval	 tv = { IO_TIMEOUT, 0 };
	char		 buf[4096], head[16];
	size_t		 got = 0;
	int		 fd, r, hs = -1, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (-1);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a server that stops answering ends the connection, not the run */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1) {
		close(fd);
		return (-1);
	}
	if ((ssl = SSL_new(ctx)) == NULL) {
		close(fd);
		return (-1);
	}
	SSL_set_fd(ssl, fd);
	SSL_set_tlsext_host_name(ssl, host);
	if (SSL_connect(ssl) != 1)
		goto done;
	hs = 0;
	if (SSL_write(ssl, req, reqlen) != (int)reqlen)
		goto done;
	while ((r = SSL_read(ssl, buf, sizeof(buf))) > 0) {
		if (got < sizeof(head)) {
			size_t	 k = sizeof(head) - got;

			memcpy(head + got, buf, (size_t)r < k ? (size_t)r : k);
		}
		got += r;
	}
	if (got >= 10 && memcmp(head, "HTTP/1.", 7) == 0 && head[9] == '2')
		hs = 1;
 done:
	SSL_free(ssl);
	close(fd);
	ERR_clear_error();
	return (hs);
}

static void
worker(int wfd, const struct sockaddr_in *sin, const char *host,
    const char *path, double secs)
{
	struct counts	 c = { 0, 0, 0 };
	SSL_CTX		*ctx;
	char		 req[1024];
	double		 end = now() + secs;
	int		 n, r;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL)
		errx(1, "SSL_CTX_new");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	if (SSL_CTX_set_alpn_protos(ctx,
	    (const unsigned char *)"\x08http/1.1", 9) != 0)
		errx(1, "alpn");
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "Connection: close\r\n\r\n", path, host);
	if (n < 0 || (size_t)n >= sizeof(req))
		errx(1, "request too long");
	while (now() < end) {
		r = one(ctx, sin, host, req, n);
		if (r >= 0)
			c.n++;
		if (r == 1)
			c.ok++;
		else
			c.failed++;
	}
	if (write(wfd, &c, sizeof(c)) != sizeof(c))
		err(1, "write");
	SSL_CTX_free(ctx);
}

static void
usage(void)
{
	fprintf(stderr, "usage: hsload [-c workers] [-t seconds] [-H host] "
	    "[-p path] port\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	struct counts		 c, sum = { 0, 0, 0 };
	const char		*host = "localhost", *path = "/";
	double			 secs = 5, t0;
	pid_t			 pid[WORKERS_MAX];
	int			 ch, workers = 1, i, p[2], port;

	while ((ch = getopt(argc, argv, "c:t:H:p:")) != -1) {
		switch (ch) {
		case 'c':
			workers = atoi(optarg);
			if (workers < 1 || workers > WORKERS_MAX)
				usage();
			break;
		case 't':
			secs = atof(optarg);
			if (secs <= 0 || secs > 3600)
				usage();
			break;
		case 'H':
			host = optarg;
			break;
		case 'p':
			path = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	port = atoi(argv[optind]);
	if (port < 1 || port > 65535)
		usage();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(p) == -1)
		err(1, "pipe");
	t0 = now();
	for (i = 0; i < workers; i++) {
		if ((pid[i] = fork()) == -1)
			err(1, "fork");
		if (pid[i] == 0) {
			close(p[0]);
			worker(p[1], &sin, host, path, secs);
			_exit(0);
		}
	}
	close(p[1]);
	for (i = 0; i < workers; i++) {
		if (read(p[0], &c, sizeof(c)) != sizeof(c))
			errx(1, "a worker died");
		sum.n += c.n;
		sum.ok += c.ok;
		sum.failed += c.failed;
	}
	for (i = 0; i < workers; i++)
		waitpid(pid[i], NULL, 0);
	t0 = now() - t0;
	printf("n=%lu ok=%lu failed=%lu secs=%.3f hps=%.1f\n", sum.n, sum.ok,
	    sum.failed, t0, sum.n / t0);
	return (0);
}
