/*
 * A workload and a raw client for the end-to-end tests.
 *
 *	testhttp serve PORT [STARTFILE [REQLOG]]
 *					an HTTP/1.1 server on 127.0.0.1
 *	testhttp raw PORT [SECS]	send stdin as is, print what comes back
 *					until the server closes or SECS idle
 *	testhttp unix PATH [SECS]	the same on a unix socket; prints
 *					"closed" when the server closed it
 *
 * The server forks a process per connection, keeps connections alive and
 * answers by path:
 *	/			"hello from testhttp\n"
 *	/big?N			N bytes of a known pattern, Content-Length
 *	/chunked?N		N bytes in chunks of 1000, chunked
 *	/trailers		"with trailers\n", chunked, then the trailers
 *				X-Checksum: abc and Grpc-Status: 0, and a
 *				Connection: close among them (never passed)
 *	/stream?N		N chunks of "tick\n", one every 100 ms
 *	/echo			the request body back (Content-Length or
 *				chunked in), with X-Body-Length
 *	/headers		the request head back, as text
 *	/reset			half an answer, then a reset
 *	/slow?MS		waits MS ms, then answers
 *	/ws			101 to an Upgrade, then echoes bytes
 *	/busy			as the file $TESTHTTP_BUSY says: "200" a
 *				200 "busy", "hang" no answer for 10 s, and
 *				anything else or no file a 404
 *	/tcp?PORT		the request body and CRLF sent to
 *				127.0.0.1:PORT, its first line back
 *				(an app's handler asking its database);
 *				502 if it fails within 30 s
 * STARTFILE, if given, gets one line appended per start, REQLOG one line
 * per request: "METHOD PATH".  From the environment, for the memory
 * budget's tests: TESTHTTP_ALLOC=N allocates and writes N MiB before
 * listening (a workload that really uses memory), TESTHTTP_DELAY=MS
 * waits MS ms before listening (a slow start), and TESTHTTP_TIMES=FILE
 * gets "PID START_MS READY_MS" appended once it listens (wall clock,
 * from the program's start to its listen).  For a herd of connects:
 * TESTHTTP_BACKLOG=N listens with a queue of N (128), TESTHTTP_ACCEPT_MS
 * =MS waits MS ms before each accept, TESTHTTP_ACCEPTS=FILE gets a line
 * per connection accepted, and TESTHTTP_CLOSE closes each one at once
 * (a workload that hangs up).  Socket activation: it
 * serves on fd 3 when LISTEN_FDS and LISTEN_PID say so, unless
 * TESTHTTP_NO_LISTEN_FDS is set (a program that binds its port itself).
 *
 *	testhttp hold PORT N SECS [HEAD]
 *					open N connections, send HEAD (a
 *					partial request, say) on each, hold
 *					them SECS seconds, then print
 *					"open N closed N failed N"
 *	testhttp burst PORT N SECS HEAD	open N connections, send HEAD (a
 *					whole request with "Connection:
 *					close") on each at once, read every
 *					answer for at most SECS, and print
 *					per connection its status and its
 *					Retry-After ("-" for none), "0 -"
 *					for no answer; with TESTHTTP_BURST_MS
 *					set a third column, when its answer
 *					ended (ms from the start, -1: never)
 *	testhttp slow PORT SECS		slowloris: a request head one byte a
 *					second, for at most SECS; prints
 *					"closed after N" and what came back *	testhttp trickle PORT WAIT EVERY
 *					silent WAIT ms after connecting, then
 *					a request head a byte every EVERY ms;
 *					prints what came back and "closed
 *					after N ms" (from the connect)
 *	testhttp idle PORT N SECS HEAD	open N keep-alive connections one
 *					after the other, each sending HEAD (a
 *					whole request) and reading its answer;
 *					print "ready N failed N", hold them
 *					until SECS pass or SIGUSR1, then print
 *					"open N closed N oldest N" (see idle())
 *
 * Raw TCP, for a workload's own TCP listener:
 *	testhttp echo PORT [STARTFILE]	a TCP server on 127.0.0.1 that sends
 *					back what it reads and, at the end
 *					of its client's stream, "eof after
 *					N bytes" before it closes
 *	testhttp half PORT [SECS]	send stdin, shut down the write
 *					side, print what comes back until
 *					the server closes ("closed") or SECS
 *					idle
 *	testhttp forward PORT TO	a TCP server on 127.0.0.1 that
 *					relays each connection to port TO,
 *					both ways, ends passed on
 */

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX	65536

static int
readn(int fd, char *buf, size_t len)
{
	ssize_t	 n;
	size_t	 off = 0;

	while (off < len) {
		if ((n = read(fd, buf + off, len - off)) <= 0)
			return (-1);
		off += n;
	}
	return (0);
}

static int
writen(int fd, const char *buf, size_t len)
{
	ssize_t	 n;
	size_t	 off = 0;

	while (off < len) {
		if ((n = write(fd, buf + off, len - off)) <= 0)
			return (-1);
		off += n;
	}
	return (0);
}

/* one line (CRLF-terminated) from fd, byte by byte: slow but simple */
static int
readline(int fd, char *buf, size_t len)
{
	size_t	 off = 0;
	char	 ch;

	while (off + 1 < len) {
		if (read(fd, &ch, 1) != 1)
			return (-1);
		buf[off++] = ch;
		if (ch == '\n')
			break;
	}
	buf[off] = '\0';
	return (off);
}

static char *
field(char *head, const char *name)
{
	char	*p = head;
	size_t	 len = strlen(name);

	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncasecmp(p, name, len) == 0 && p[len] == ':') {
			p += len + 1;
			while (*p == ' ')
				p++;
			return (p);
		}
	}
	return (NULL);
}

static char *
read_body(int fd, char *head, size_t *lenp)
{
	char	*te = field(head, "Transfer-Encoding");
	char	*cl = field(head, "Content-Length");
	char	*body = NULL, line[256];
	size_t	 len = 0, n;

	if (te != NULL && strncasecmp(te, "chunked", 7) == 0) {
		for (;;) {
			if (readline(fd, line, sizeof(line)) <= 0)
				return (NULL);
			n = strtoul(line, NULL, 16);
			if (n == 0)
				break;
			if ((body = realloc(body, len + n + 1)) == NULL ||
			    readn(fd, body + len, n) == -1 ||
			    readline(fd, line, sizeof(line)) <= 0)
				return (NULL);
			len += n;
		}
		/* trailers, then the empty line */
		while (readline(fd, line, sizeof(line)) > 2)
			;
	} else if (cl != NULL) {
		len = strtoul(cl, NULL, 10);
		if ((body = malloc(len + 1)) == NULL || readn(fd, body,
		    len) == -1)
			return (NULL);
	}
	if (body == NULL)
		body = calloc(1, 1);
	*lenp = len;
	return (body);
}

static int	 tcp_connect(int);

static int	 head_only;	/* answering HEAD: no body */
static const char *reqlog;	/* REQLOG, or NULL */

static void
log_request(const char *method, const char *path)
{
	char	 line[2100];
	int	 fd, n;

	if (reqlog == NULL)
		return;
	n = snprintf(line, sizeof(line), "%s %s\n", method, path);
	/* O_APPEND: one write per line, whole, from any process */
	if ((fd = open(reqlog, O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1)
		return;
	if (n > 0 && (size_t)n < sizeof(line))
		(void)write(fd, line, n);
	close(fd);
}

static void
answer(int fd, const char *status, const char *extra, const char *body,
    size_t len)
{
	char	 head[512];

	snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Length: %zu\r\n"
	    "%s\r\n", status, len, extra ? extra : "");
	if (writen(fd, head, strlen(head)) == -1 ||
	    (len > 0 && !head_only && writen(fd, body, len) == -1))
		exit(0);
}

static void
pattern(char *buf, size_t off, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		buf[i] = 'a' + (off + i) % 26;
}

/*
 * /tcp?PORT: a handler that reaches a server of its own over TCP, as an
 * app asks its database, one line out and one line back.
 */
static void
serve_tcp(int fd, size_t port, const char *body, size_t len)
{
	struct timeval	 tv = { 30, 0 };
	char		 line[1024];
	int		 s, n;

	if (port < 1 || port > 65535 || (s = tcp_connect((int)port)) == -1) {
		answer(fd, "502 Bad Gateway", NULL, "tcp: connect\n", 13);
		return;
	}
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (writen(s, body, len) == -1 || writen(s, "\r\n", 2) == -1 ||
	    (n = readline(s, line, sizeof(line))) <= 0) {
		close(s);
		answer(fd, "502 Bad Gateway", NULL, "tcp: no answer\n", 15);
		return;
	}
	close(s);
	answer(fd, "200 OK", NULL, line, n);
}

/* the busy veto's answer, switched by a file the test writes */
static void
serve_busy(int fd)
{
	const char	*file = getenv("TESTHTTP_BUSY");
	char		 what[16] = "";
	FILE		*f;

	if (file != NULL && (f = fopen(file, "r")) != NULL) {
		if (fgets(what, sizeof(what), f) == NULL)
			what[0] = '\0';
		fclose(f);
	}
	if (strncmp(what, "200", 3) == 0)
		answer(fd, "200 OK", NULL, "busy\n", 5);
	else if (strncmp(what, "hang", 4) == 0) {
		sleep(10);
		exit(0);
	} else
		answer(fd, "404 Not Found", NULL, "idle\n", 5);
}

static void
serve_path(int fd, char *head, const char *method, char *path)
{
	char	*q = strchr(path, '?'), *body, buf[1024];
	size_t	 n = q ? strtoul(q + 1, NULL, 10) : 0, len, off, i;

	if (q)
		*q = '\0';
	head_only = strcmp(method, "HEAD") == 0;
	if ((body = read_body(fd, head, &len)) == NULL)
		exit(0);
	if (strcmp(path, "/echo") == 0) {
		snprintf(buf, sizeof(buf), "X-Body-Length: %zu\r\n", len);
		answer(fd, "200 OK", buf, body, len);
	} else if (strcmp(path, "/headers") == 0) {
		answer(fd, "200 OK", NULL, head, strlen(head));
	} else if (strcmp(path, "/big") == 0) {
		free(body);
		if ((body = malloc(n + 1)) == NULL)
			exit(1);
		pattern(body, 0, n);
		answer(fd, "200 OK", NULL, body, n);
	} else if (strcmp(path, "/chunked") == 0 ||
	    strcmp(path, "/stream") == 0) {
		int stream = path[1] == 's';

		snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n");
		writen(fd, buf, strlen(buf));
		for (off = 0, i = 0; stream ? i < n : off < n; i++) {
			char	 chunk[1100];
			size_t	 cl = stream ? 5 : (n - off < 1000 ? n - off :
			    1000);

			if (stream)
				memcpy(chunk, "tick\n", 5);
			else
				pattern(chunk, off, cl);
			snprintf(buf, sizeof(buf), "%zx\r\n", cl);
			if (writen(fd, buf, strlen(buf)) == -1 ||
			    writen(fd, chunk, cl) == -1 ||
			    writen(fd, "\r\n", 2) == -1)
				exit(0);
			off += cl;
			if (stream)
				usleep(100000);
		}
		writen(fd, "0\r\n\r\n", 5);
	} else if (strcmp(path, "/trailers") == 0) {
		snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
		    "Transfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n"
		    "\r\ne\r\nwith trailers\n\r\n0\r\nX-Checksum: abc\r\n"
		    "Grpc-Status:  0 \r\nConnection: close\r\n\r\n");
		writen(fd, buf, strlen(buf));
	} else if (strcmp(path, "/reset") == 0) {
		struct linger	 lg = { 1, 0 };

		snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
		    "Content-Length: 100000\r\n\r\npartial");
		writen(fd, buf, strlen(buf));
		usleep(100000);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		exit(0);
	} else if (strcmp(path, "/slow") == 0) {
		usleep(n * 1000);
		answer(fd, "200 OK", NULL, "slow\n", 5);
	} else if (strcmp(path, "/busy") == 0) {
		serve_busy(fd);
	} else if (strcmp(path, "/tcp") == 0) {
		serve_tcp(fd, n, body, len);
	} else if (strcmp(path, "/ws") == 0) {
		snprintf(buf, sizeof(buf), "HTTP/1.1 101 Switching Protocols"
		    "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
		writen(fd, buf, strlen(buf));
		while ((len = read(fd, buf, sizeof(buf))) > 0)
			writen(fd, buf, len);
		exit(0);
	} else
		answer(fd, "200 OK", NULL, "hello from testhttp\n", 20);
	free(body);
}

static void
serve_conn(int fd)
{
	char	 head[HEAD_MAX], method[32], path[2048];
	size_t	 off;
	int	 n;

	for (;;) {
		off = 0;
		for (;;) {
			if ((n = readline(fd, head + off, sizeof(head) - off))
			    <= 0)
				exit(0);
			if (off == 0 && n <= 2)
				continue;
			off += n;
			if (n <= 2)
				break;
		}
		if (sscanf(head, "%31s %2047s", method, path) != 2)
			exit(1);
		log_request(method, path);
		serve_path(fd, head, method, path);
		if (field(head, "Connection") != NULL &&
		    strncasecmp(field(head, "Connection"), "close", 5) == 0)
			exit(0);
	}
}

static long long
wall_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* memory held for good, every page written: the kernel counts it */
static volatile char	*serve_mem;

/* TESTHTTP_ALLOC and TESTHTTP_DELAY, before the listen */
static void
serve_env(void)
{
	const char	*s;
	size_t		 n, i;

	if ((s = getenv("TESTHTTP_ALLOC")) != NULL && atoi(s) > 0) {
		n = (size_t)atoi(s) * 1024 * 1024;
		if ((serve_mem = malloc(n)) == NULL) {
			perror("testhttp: alloc");
			exit(1);
		}
		for (i = 0; i < n; i += 512)
			serve_mem[i] = (char)(i >> 9);
	}
	if ((s = getenv("TESTHTTP_DELAY")) != NULL && atoi(s) > 0)
		usleep((useconds_t)atoi(s) * 1000);
}

/* TESTHTTP_TIMES: when it started and when it listened */
static void
serve_times(long long start)
{
	const char	*path;
	char		 line[96];
	int		 fd, n;

	if ((path = getenv("TESTHTTP_TIMES")) == NULL)
		return;
	n = snprintf(line, sizeof(line), "%d %lld %lld\n", (int)getpid(),
	    start, wall_ms());
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666)) == -1)
		return;
	if (n > 0 && (size_t)n < sizeof(line))
		(void)write(fd, line, n);
	close(fd);
}

/*
 * Socket activation (sd_listen_fds(3)): a listening socket on fd 3 when
 * LISTEN_FDS is 1 and LISTEN_PID is ours, the variables then unset and
 * the socket close-on-exec, as sd_listen_fds(1) does; -1 for none.
 * TESTHTTP_NO_LISTEN_FDS makes a program that ignores them.
 */
static int
serve_listen_fds(void)
{
	const char	*fds = getenv("LISTEN_FDS"), *pid = getenv("LISTEN_PID");

	if (getenv("TESTHTTP_NO_LISTEN_FDS") != NULL || fds == NULL ||
	    pid == NULL || strcmp(fds, "1") != 0 ||
	    atol(pid) != (long)getpid())
		return (-1);
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDNAMES");
	if (fcntl(3, F_SETFD, FD_CLOEXEC) == -1)
		return (-1);
	return (3);
}

/* TESTHTTP_BACKLOG: the listen queue's length (a small one overflows) */
static int
serve_backlog(void)
{
	const char	*s = getenv("TESTHTTP_BACKLOG");

	if (s == NULL || atoi(s) < 1 || atoi(s) > 4096)
		return (128);
	return (atoi(s));
}

/*
 * accept(2), and from the environment: TESTHTTP_ACCEPT_MS waits so long
 * before each (a slow accept loop), TESTHTTP_ACCEPTS=FILE gets a line
 * per connection accepted, TESTHTTP_CLOSE closes each at once (a
 * workload that accepts and hangs up).  -1: none to serve.
 */
static int
serve_accept(int s)
{
	const char	*ms = getenv("TESTHTTP_ACCEPT_MS");
	const char	*path = getenv("TESTHTTP_ACCEPTS");
	int		 c, fd;

	if (ms != NULL && atoi(ms) > 0 && atoi(ms) <= 1000)
		usleep((useconds_t)atoi(ms) * 1000);
	if ((c = accept(s, NULL, NULL)) == -1)
		return (-1);
	if (path != NULL &&
	    (fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666)) != -1) {
		(void)write(fd, "accept\n", 7);
		close(fd);
	}
	if (getenv("TESTHTTP_CLOSE") != NULL) {
		close(c);
		return (-1);
	}
	return (c);
}

static int
serve(int port, const char *startfile)
{
	struct sockaddr_in	 sin;
	FILE			*f;
	long long		 start = wall_ms();
	int			 s, c, on = 1;

	if (startfile != NULL && (f = fopen(startfile, "a")) != NULL) {
		fprintf(f, "start %d\n", getpid());
		fclose(f);
	}
	serve_env();
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = serve_listen_fds()) == -1 &&
	    ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, serve_backlog()) == -1)) {
		perror("testhttp: listen");
		return (1);
	}
	serve_times(start);
	for (;;) {
		if ((c = serve_accept(s)) == -1)
			continue;
		switch (fork()) {
		case 0:
			close(s);
			serve_conn(c);
			exit(0);
		default:
			close(c);
		}
	}
}

static int
relay(int s, int secs)
{
	struct pollfd		 pfd;
	char			 buf[65536];
	ssize_t			 n;

	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (writen(s, buf, n) == -1)
			break;
	pfd.fd = s;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, secs * 1000) == 1) {
		if ((n = read(s, buf, sizeof(buf))) <= 0) {
			printf("closed\n");
			break;
		}
		writen(1, buf, n);
	}
	close(s);
	return (0);
}

static int
raw(int port, int secs)
{
	struct sockaddr_in	 sin;
	int			 s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		perror("testhttp: connect");
		return (1);
	}
	return (relay(s, secs));
}

static int
tcp_connect(int port)
{
	struct sockaddr_in	 sin;
	int			 s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (-1);
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(s);
		return (-1);
	}
	return (s);
}

/* is s closed by the peer (EOF or reset), without blocking? */
static int
peer_closed(int s)
{
	char	 buf[4096];
	ssize_t	 n;

	for (;;) {
		n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			continue;	/* an answer: read past it */
		if (n == 0)
			return (1);
		return (errno != EAGAIN && errno != EWOULDBLOCK);
	}
}

static int
hold(int port, int n, int secs, const char *head)
{
	int	*fds, i, open_ = 0, closed = 0, failed = 0;

	if ((fds = calloc(n, sizeof(*fds))) == NULL)
		return (1);
	for (i = 0; i < n; i++) {
		if ((fds[i] = tcp_connect(port)) == -1) {
			failed++;
			continue;
		}
		if (head != NULL && writen(fds[i], head, strlen(head)) == -1)
			failed++;
	}
	sleep(secs);
	for (i = 0; i < n; i++) {
		if (fds[i] == -1)
			continue;
		if (peer_closed(fds[i]))
			closed++;
		else
			open_++;
		close(fds[i]);
	}
	printf("open %d closed %d failed %d\n", open_, closed, failed);
	free(fds);
	return (0);
}

#define BURST_HEAD	4096	/* of each answer: enough for its head */

struct burst {
	int		 fd;
	char		 buf[BURST_HEAD];
	size_t		 len;
	long long	 ms;		/* answered, from the burst's start */
};

static long long
mono_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void
burst_print(const struct burst *b)
{
	const char	*ra;
	int		 status = 0;

	if (b->len > 9 && strncmp(b->buf, "HTTP/1.", 7) == 0)
		status = atoi(b->buf + 9);
	if ((ra = strstr(b->buf, "\r\nRetry-After:")) != NULL)
		printf("%d %d", status, atoi(ra + 14));
	else
		printf("%d -", status);
	/* TESTHTTP_BURST_MS: when its answer ended, -1 for never */
	if (getenv("TESTHTTP_BURST_MS") != NULL)
		printf(" %lld", b->ms);
	printf("\n");
}

static int
burst(int port, int n, int secs, const char *head)
{
	struct burst	*b;
	struct pollfd	*pfd;
	time_t		 end = time(NULL) + secs;
	long long	 start = mono_ms();
	ssize_t		 r;
	int		 i, left = 0;

	signal(SIGPIPE, SIG_IGN);
	if ((b = calloc(n, sizeof(*b))) == NULL ||
	    (pfd = calloc(n, sizeof(*pfd))) == NULL)
		return (1);
	for (i = 0; i < n; i++) {
		pfd[i].fd = -1;
		b[i].ms = -1;
		if ((b[i].fd = tcp_connect(port)) == -1)
			continue;
		if (writen(b[i].fd, head, strlen(head)) == -1) {
			close(b[i].fd);
			b[i].fd = -1;
			continue;
		}
		pfd[i].fd = b[i].fd;
		pfd[i].events = POLLIN;
		left++;
	}
	while (left > 0 && time(NULL) < end) {
		if (poll(pfd, n, 200) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			r = read(b[i].fd, b[i].buf + b[i].len,
			    sizeof(b[i].buf) - 1 - b[i].len);
			if (r > 0)
				b[i].len += r;
			if (r <= 0 || b[i].len == sizeof(b[i].buf) - 1) {
				b[i].ms = mono_ms() - start;
				pfd[i].fd = -1;
				left--;
			}
		}
	}
	for (i = 0; i < n; i++) {
		burst_print(&b[i]);
		if (b[i].fd != -1)
			close(b[i].fd);
	}
	free(b);
	free(pfd);
	return (0);
}

static int
slow(int port, int secs)
{
	static const char	 head[] = "GET / HTTP/1.1\r\nHost: slow.test\r\n"
	    "X-Slow: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
	struct pollfd		 pfd;
	char			 buf[512];
	time_t			 start = time(NULL);
	ssize_t			 n;
	size_t			 i;
	int			 s;

	signal(SIGPIPE, SIG_IGN);
	if ((s = tcp_connect(port)) == -1) {
		perror("testhttp: connect");
		return (1);
	}
	pfd.fd = s;
	pfd.events = POLLIN;
	for (i = 0; i < sizeof(head) - 1 && time(NULL) - start < secs; i++) {
		if (write(s, head + i, 1) != 1 || poll(&pfd, 1, 1000) == 1)
			break;
	}
	/* the server's answer, if any, and its close */
	while (poll(&pfd, 1, 1000) == 1 &&
	    (n = read(s, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		fputs(buf, stdout);
	}
	printf("\nclosed after %lld\n", (long long)(time(NULL) - start));
	close(s);
	return (0);
}

static long long
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* a head that starts late and comes slowly; at most 30 s in all */
static int
trickle(int port, int wait, int every)
{
	static const char	 head[] = "GET / HTTP/1.1\r\nHost: slow.test\r\n"
	    "X-Slow: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
	struct pollfd		 pfd;
	char			 buf[512];
	long long		 start;
	ssize_t			 n;
	size_t			 i;
	int			 s;

	signal(SIGPIPE, SIG_IGN);
	if ((s = tcp_connect(port)) == -1) {
		perror("testhttp: connect");
		return (1);
	}
	start = now_ms();
	pfd.fd = s;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, wait) == 0) {
		for (i = 0; i < sizeof(head) - 1 &&
		    now_ms() - start < 30000; i++) {
			if (write(s, head + i, 1) != 1 ||
			    poll(&pfd, 1, every) == 1)
				break;
		}
	}
	while (poll(&pfd, 1, 5000) == 1 &&
	    (n = read(s, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		fputs(buf, stdout);
	}
	printf("\nclosed after %lld ms\n", now_ms() - start);
	close(s);
	return (0);
}

/*
 * One answer with a Content-Length (or none: no body), read whole within
 * 5 s a read: its status, or 0.
 */
static int
read_answer(int s)
{
	struct pollfd	 pfd;
	char		 buf[8192], *end, *cl;
	size_t		 len = 0, want = 0;
	ssize_t		 n;

	pfd.fd = s;
	pfd.events = POLLIN;
	for (;;) {
		buf[len] = '\0';
		if (want == 0 && (end = strstr(buf, "\r\n\r\n")) != NULL) {
			want = end + 4 - buf;
			*end = '\0';
			if ((cl = field(buf, "Content-Length")) != NULL)
				want += strtoul(cl, NULL, 10);
			*end = '\r';
		}
		if (want > 0 && len >= want)
			break;
		if (len == sizeof(buf) - 1 || poll(&pfd, 1, 5000) != 1 ||
		    (n = read(s, buf + len, sizeof(buf) - 1 - len)) <= 0)
			return (0);
		len += n;
	}
	if (strncmp(buf, "HTTP/1.1 ", 9) != 0)
		return (0);
	return (atoi(buf + 9));
}

static volatile sig_atomic_t	idle_stop;

static void
idle_signal(int sig)
{
	(void)sig;
	idle_stop = 1;
}

/*
 * Idle keep-alive connections, made idle in the order they were opened.
 * At the end "oldest" counts the closed connections from the first one
 * opened to the first one still open: oldest = closed when the ones the
 * server closed were the oldest.  Opening them stops at SECS or SIGUSR1
 * too, the rest counted as failed; a connect waits 5 s at most (a full
 * listen queue drops the SYN).
 */
static int
idle(int port, int n, int secs, const char *head)
{
	struct sigaction	 sa;
	struct timeval		 tv = { 5, 0 };
	struct sockaddr_in	 sin;
	time_t			 end = time(NULL) + secs;
	int			*fds, i, open_ = 0, closed = 0, failed = 0;
	int			 oldest = 0, prefix = 1;

	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = idle_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fds = calloc(n, sizeof(*fds))) == NULL)
		return (1);
	for (i = 0; i < n; i++) {
		fds[i] = -1;
		if (idle_stop || time(NULL) >= end ||
		    (fds[i] = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
		    setsockopt(fds[i], SOL_SOCKET, SO_SNDTIMEO, &tv,
		    sizeof(tv)) == -1 ||
		    connect(fds[i], (struct sockaddr *)&sin,
		    sizeof(sin)) == -1) {
			if (fds[i] != -1)
				close(fds[i]);
			fds[i] = -1;
			failed++;
			continue;
		}
		if (writen(fds[i], head, strlen(head)) == -1 ||
		    read_answer(fds[i]) == 0)
			failed++;
	}
	printf("ready %d failed %d\n", n - failed, failed);
	fflush(stdout);
	while (!idle_stop && time(NULL) < end)
		sleep(1);
	for (i = 0; i < n; i++) {
		if (fds[i] == -1)
			continue;
		if (peer_closed(fds[i])) {
			closed++;
			if (prefix)
				oldest++;
		} else {
			open_++;
			prefix = 0;
		}
		close(fds[i]);
	}
	printf("open %d closed %d oldest %d\n", open_, closed, oldest);
	free(fds);
	return (0);
}

static int
unixraw(const char *path, int secs)
{
	struct sockaddr_un	 sun;
	int			 s;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path, path, sizeof(sun.sun_path) - 1);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		perror("testhttp: connect");
		return (1);
	}
	return (relay(s, secs));
}

/* testhttp echo: one process per connection, as serve() */
static void
echo_conn(int fd)
{
	char		 buf[65536];
	ssize_t		 n;
	long long	 total = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		total += n;
		if (writen(fd, buf, n) == -1)
			exit(1);
	}
	/* the client's end came through as an end, its side still open */
	n = snprintf(buf, sizeof(buf), "eof after %lld bytes\n", total);
	(void)writen(fd, buf, n);
	close(fd);
	exit(0);
}

static int
echo_serve(int port, const char *startfile)
{
	struct sockaddr_in	 sin;
	FILE			*f;
	int			 s, c, on = 1;

	if (startfile != NULL && (f = fopen(startfile, "a")) != NULL) {
		fprintf(f, "start %d\n", getpid());
		fclose(f);
	}
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 128) == -1) {
		perror("testhttp: listen");
		return (1);
	}
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			continue;
		switch (fork()) {
		case 0:
			close(s);
			echo_conn(c);
			exit(0);
		default:
			close(c);
		}
	}
}

/* testhttp half: stdin, then the end of ours, then theirs */
static int
half(int port, int secs)
{
	struct pollfd	 pfd;
	char		 buf[65536];
	ssize_t		 n;
	int		 s;

	if ((s = tcp_connect(port)) == -1) {
		perror("testhttp: connect");
		return (1);
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (writen(s, buf, n) == -1)
			break;
	if (shutdown(s, SHUT_WR) == -1) {
		perror("testhttp: shutdown");
		return (1);
	}
	pfd.fd = s;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, secs * 1000) == 1) {
		if ((n = read(s, buf, sizeof(buf))) <= 0) {
			printf("%sclosed\n", n == 0 ? "" : "reset, ");
			break;
		}
		writen(1, buf, n);
	}
	close(s);
	return (0);
}

/* testhttp forward: bytes both ways, each end passed on as a half-close */
static void
forward_conn(int c, int to)
{
	struct pollfd	 pfd[2];
	char		 buf[65536];
	ssize_t		 n;
	int		 s, i, open_ = 2;

	if ((s = tcp_connect(to)) == -1)
		exit(1);
	pfd[0].fd = c;
	pfd[1].fd = s;
	pfd[0].events = pfd[1].events = POLLIN;
	while (open_ > 0 && poll(pfd, 2, -1) > 0) {
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if ((n = read(pfd[i].fd, buf, sizeof(buf))) <= 0) {
				shutdown(i == 0 ? s : c, SHUT_WR);
				pfd[i].fd = -1;
				open_--;
			} else if (writen(i == 0 ? s : c, buf, n) == -1)
				exit(1);
		}
	}
	exit(0);
}

static int
forward(int port, int to)
{
	struct sockaddr_in	 sin;
	int			 s, c, on = 1;

	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 128) == -1) {
		perror("testhttp: listen");
		return (1);
	}
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			continue;
		switch (fork()) {
		case 0:
			close(s);
			forward_conn(c, to);
			exit(0);
		default:
			close(c);
		}
	}
}

int
main(int argc, char *argv[])
{
	if (argc >= 3 && strcmp(argv[1], "serve") == 0) {
		reqlog = argc > 4 ? argv[4] : NULL;
		return (serve(atoi(argv[2]), argc > 3 && argv[3][0] != '\0' ?
		    argv[3] : NULL));
	}
	if (argc >= 5 && strcmp(argv[1], "hold") == 0)
		return (hold(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		    argc > 5 ? argv[5] : NULL));
	if (argc >= 6 && strcmp(argv[1], "burst") == 0)
		return (burst(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		    argv[5]));
	if (argc >= 6 && strcmp(argv[1], "idle") == 0)
		return (idle(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		    argv[5]));
	if (argc >= 4 && strcmp(argv[1], "slow") == 0)
		return (slow(atoi(argv[2]), atoi(argv[3])));
	if (argc >= 5 && strcmp(argv[1], "trickle") == 0)
		return (trickle(atoi(argv[2]), atoi(argv[3]), atoi(argv[4])));
	if (argc >= 3 && strcmp(argv[1], "raw") == 0)
		return (raw(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 2));
	if (argc >= 3 && strcmp(argv[1], "unix") == 0)
		return (unixraw(argv[2], argc > 3 ? atoi(argv[3]) : 2));
	if (argc >= 3 && strcmp(argv[1], "echo") == 0)
		return (echo_serve(atoi(argv[2]), argc > 3 && argv[3][0] !=
		    '\0' ? argv[3] : NULL));
	if (argc >= 4 && strcmp(argv[1], "forward") == 0)
		return (forward(atoi(argv[2]), atoi(argv[3])));
	if (argc >= 3 && strcmp(argv[1], "half") == 0)
		return (half(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 2));
	fprintf(stderr, "usage: testhttp serve PORT [STARTFILE [REQLOG]] | "
	    "raw PORT [SECS] | unix PATH [SECS] | hold PORT N SECS [HEAD] | "
	    "burst PORT N SECS HEAD | slow PORT SECS |\n"
	    "    trickle PORT WAIT EVERY | idle PORT N SECS HEAD | "
	    "echo PORT [STARTFILE] |\n    half PORT [SECS] | "
	    "forward PORT TO\n");
	return (1);
}
