/*
 * sandboxtest CASE: enters the sandbox with the case's promises, then
 * makes the case's calls.  A call the promises allow must work (exit 0);
 * a forbidden one must kill the process by SIGSYS after one line on
 * stderr naming it.  regress/e2e/sandbox.sh runs every case and checks
 * which of the two happened.
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"

/* what stdio promises, all of it used: the allowed cases end here */
static void
stdio_calls(void)
{
	struct timespec	 ts;
	struct stat	 sb;
	char		*p;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1 ||
	    clock_gettime(CLOCK_REALTIME, &ts) == -1)
		fatal("clock_gettime");
	if ((p = malloc(1 << 20)) == NULL)
		fatal("malloc");
	memset(p, 1, 1 << 20);
	free(p);
	if ((p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		fatal("mmap");
	if (munmap(p, 4096) == -1)
		fatal("munmap");
	if (fstat(STDERR_FILENO, &sb) == -1)
		fatal("fstat");
	if (fcntl(STDERR_FILENO, F_GETFL) == -1)
		fatal("fcntl");
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fatal("signal");
	(void)getpid();
	(void)time(NULL);
	log_info("stdio calls done");
}

static void
inet_calls(void)
{
	int	 s;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		fatal("socket AF_INET");
	close(s);
	if ((s = socket(AF_INET6, SOCK_STREAM, 0)) == -1 &&
	    errno != EAFNOSUPPORT)
		fatal("socket AF_INET6");
	if (s != -1)
		close(s);
}

/* glibc's syslog reconnecting: refused with EACCES, not killed */
static void
syslog_socket(void)
{
	int	 s;

	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s != -1 || errno != EACCES)
		fatalx("syslog's socket: %d, errno %d", s, errno);
	syslog(LOG_DEBUG, "sandboxtest: syslog after the sandbox");
}

static void
rpath_calls(void)
{
	int	 fd;

	if ((fd = open("/dev/null", O_RDONLY)) == -1)
		fatal("open /dev/null read-only");
	close(fd);
}

static void
cpath_calls(const char *dir)
{
	char	 path[1024];
	int	 fd;

	snprintf(path, sizeof(path), "%s/sandboxtest.tmp", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) == -1)
		fatal("create %s", path);
	if (write(fd, "x", 1) != 1 || fsync(fd) == -1 || ftruncate(fd, 0))
		fatal("write %s", path);
	close(fd);
	if (unlink(path) == -1)
		fatal("unlink %s", path);
}

/*
 * The network as the gateway and runtimed have it: listeners made
 * before the filter (the parent's, passed on), outbound connections after.
 */
static int
tcp_listener(struct sockaddr_in *sin)
{
	socklen_t	 len = sizeof(*sin);
	int		 s;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)sin, sizeof(*sin)) == -1 ||
	    listen(s, 4) == -1 ||
	    getsockname(s, (struct sockaddr *)sin, &len) == -1)
		fatal("tcp listener");
	return (s);
}

static int
unix_listener(const char *dir, struct sockaddr_un *sun)
{
	int	 s;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if ((size_t)snprintf(sun->sun_path, sizeof(sun->sun_path),
	    "%s/sandboxtest.sock", dir) >= sizeof(sun->sun_path))
		fatalx("unix listener: path too long");
	(void)unlink(sun->sun_path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)sun, sizeof(*sun)) == -1 ||
	    listen(s, 4) == -1)
		fatal("unix listener %s", sun->sun_path);
	return (s);
}

static void
connect_to(int family, const void *sa, socklen_t len)
{
	int	 s;

	if ((s = socket(family, SOCK_STREAM, 0)) == -1 ||
	    connect(s, sa, len) == -1)
		fatal("connect, family %d", family);
	close(s);
}

/*
 * As the gateway: a connection to a workload, one accepted from a
 * client, and bytes spliced from one to the other through a pipe, as
 * for a workload's TCP listener (gatewayd/tcp.c).
 */
static void
gateway_calls(void)
{
	struct sockaddr_in	 sin;
	char			 buf[8];
	int			 l, s, a, p[2];

	l = tcp_listener(&sin);
	sandbox_enter("sandboxtest", SB_GATEWAY);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		fatal("connect");
	if ((a = accept4(l, NULL, NULL, SOCK_CLOEXEC)) == -1)
		fatal("accept4");
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		fatal("pipe2");
	if (write(s, "spliced", 7) != 7 ||
	    splice(a, NULL, p[1], NULL, 7, SPLICE_F_MOVE |
	    SPLICE_F_NONBLOCK) != 7 ||
	    splice(p[0], NULL, a, NULL, 7, SPLICE_F_MOVE |
	    SPLICE_F_NONBLOCK) != 7 || read(s, buf, 7) != 7 ||
	    memcmp(buf, "spliced", 7) != 0)
		fatal("splice");
	close(p[0]);
	close(p[1]);
	close(a);
	close(s);
	close(l);
}

/* splice(2) that may block, or in a process not promised it */
static void
no_splice(unsigned int promises, unsigned int flags)
{
	int	 p[2], q[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1 ||
	    pipe2(q, O_NONBLOCK | O_CLOEXEC) == -1)
		fatal("pipe2");
	if (write(p[1], "x", 1) != 1)
		fatal("write");
	sandbox_enter("sandboxtest", promises);
	(void)splice(p[0], NULL, q[1], NULL, 1, flags);
}

/* as runtimed: a workload's port, the container engine's socket */
static void
runtime_calls(const char *dir)
{
	struct sockaddr_in	 sin;
	struct sockaddr_un	 sun;
	int			 l, u;

	l = tcp_listener(&sin);
	u = unix_listener(dir, &sun);
	sandbox_enter("sandboxtest", SB_RUNTIME);
	connect_to(AF_INET, &sin, sizeof(sin));
	connect_to(AF_UNIX, &sun, sizeof(sun));
	close(l);
	close(u);
}

/*
 * as acmed: a name resolved by glibc (nscd's socket refused, not
 * fatal), then HTTPS's TCP connection
 */
static void
acme_calls(void)
{
	struct sockaddr_in	 sin;
	struct addrinfo		 hints, *res;
	int			 l, s;

	l = tcp_listener(&sin);
	sandbox_enter("sandboxtest", SB_ACME);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s != -1 || errno != EACCES)
		fatalx("nscd's socket: not refused with EACCES");
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo("localhost", "443", &hints, &res) != 0)
		fatalx("getaddrinfo localhost");
	freeaddrinfo(res);
	connect_to(AF_INET, &sin, sizeof(sin));
	close(l);
}

/* bind(2), or listen(2) on a socket bound before: neither may */
static void
no_bind(unsigned int promises)
{
	struct sockaddr_in	 sin;
	int			 s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sandbox_enter("sandboxtest", promises);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		fatal("socket");
	(void)bind(s, (struct sockaddr *)&sin, sizeof(sin));
}

static void
no_listen(unsigned int promises)
{
	struct sockaddr_in	 sin;
	int			 s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		fatal("socket");
	sandbox_enter("sandboxtest", promises);
	(void)listen(s, 4);
}

/*
 * What the parent does under SB_PARENT: a unix socket bound and listened
 * on in dir, its mode and owner set, a pipe, a socket pair, the host's
 * name, kill(2) of another pid, wait4(2) with nothing to reap.
 */
static void
parent_calls(const char *dir)
{
	struct sockaddr_un	 sun;
	char			 host[256];
	int			 s, p[2], st;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/p.sock",
	    dir) >= sizeof(sun.sun_path))
		fatalx("path too long");
	(void)unlink(sun.sun_path);
	sandbox_enter("sandboxtest", SB_PARENT);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(s, 4) == -1)
		fatal("bind %s", sun.sun_path);
	if (chmod(sun.sun_path, 0600) == -1 ||
	    chown(sun.sun_path, 0, 0) == -1)
		fatal("chmod %s", sun.sun_path);
	(void)umask(022);
	if (pipe2(p, O_CLOEXEC) == -1 || close(p[0]) == -1 ||
	    close(p[1]) == -1)
		fatal("pipe2");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == -1)
		fatal("socketpair");
	if (gethostname(host, sizeof(host)) == -1)
		fatal("gethostname");
	/* pid 1: EPERM unprivileged, and signal 0 sends nothing */
	(void)kill(1, 0);
	if (waitpid(-1, &st, WNOHANG) != -1 || errno != ECHILD)
		fatalx("waitpid");
	close(s);
	(void)unlink(sun.sun_path);
	stdio_calls();
}

int
main(int argc, char *argv[])
{
	const char	*c;
	char		*p;
	char		*volatile q;	/* hidden from gcc's own checks */
	volatile size_t	 off = 16;
	int		 fd;

	if (argc < 2) {
		fprintf(stderr, "usage: sandboxtest case [dir]\n");
		return (2);
	}
	c = argv[1];
	log_init(1, LOG_DAEMON);
	log_procinit("sandboxtest");
	/* as privdrop() does: with stderr on /dev/null, report to syslog */
	sandbox_prepare();

	if (strcmp(c, "stdio") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		stdio_calls();
	} else if (strcmp(c, "inet") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_INET);
		inet_calls();
	} else if (strcmp(c, "syslog") == 0) {
		openlog("sandboxtest", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		sandbox_enter("sandboxtest", SB_STDIO);
		syslog_socket();
	} else if (strcmp(c, "rpath") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_RPATH);
		rpath_calls();
	} else if (strcmp(c, "cpath") == 0 && argc == 3) {
		sandbox_enter("sandboxtest",
		    SB_STDIO | SB_RPATH | SB_WPATH | SB_CPATH | SB_FLOCK);
		cpath_calls(argv[2]);

	} else if (strcmp(c, "gateway") == 0) {
		gateway_calls();
	} else if (strcmp(c, "runtime") == 0 && argc == 3) {
		runtime_calls(argv[2]);
	} else if (strcmp(c, "acme") == 0) {
		acme_calls();
	} else if (strcmp(c, "parent") == 0 && argc == 3) {
		parent_calls(argv[2]);

	/* each of these must die */
	} else if (strcmp(c, "gateway-no-bind") == 0) {
		no_bind(SB_GATEWAY);
	} else if (strcmp(c, "gateway-no-listen") == 0) {
		no_listen(SB_GATEWAY);
	} else if (strcmp(c, "gateway-no-blocking-splice") == 0) {
		no_splice(SB_GATEWAY, SPLICE_F_MOVE);
	} else if (strcmp(c, "acme-no-bind") == 0) {
		no_bind(SB_ACME);
	} else if (strcmp(c, "acme-no-unix") == 0) {
		sandbox_enter("sandboxtest", SB_ACME);
		(void)socket(AF_UNIX, SOCK_STREAM, 0);
	} else if (strcmp(c, "acme-no-write") == 0) {
		sandbox_enter("sandboxtest", SB_ACME);
		(void)open("/dev/null", O_WRONLY);
	} else if (strcmp(c, "runtime-no-splice") == 0) {
		no_splice(SB_RUNTIME, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	} else if (strcmp(c, "runtime-no-bind") == 0) {
		no_bind(SB_RUNTIME);
	} else if (strcmp(c, "runtime-no-listen") == 0) {
		no_listen(SB_RUNTIME);
	} else if (strcmp(c, "runtime-no-accept") == 0) {
		struct sockaddr_in	 sin;
		int			 l = tcp_listener(&sin);

		sandbox_enter("sandboxtest", SB_RUNTIME);
		(void)accept4(l, NULL, NULL, 0);
	} else if (strcmp(c, "no-inet") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)socket(AF_INET, SOCK_STREAM, 0);
	} else if (strcmp(c, "no-unix") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_INET);
		(void)socket(AF_UNIX, SOCK_STREAM, 0);
	} else if (strcmp(c, "no-open") == 0) {
		/* not read-only: sanitizer builds let stdio read files */
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)open("/dev/null", O_WRONLY);
	} else if (strcmp(c, "no-write-open") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_RPATH);
		(void)open("/dev/null", O_WRONLY);
	} else if (strcmp(c, "no-create") == 0 && argc == 3) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_RPATH | SB_WPATH);
		(void)mkdir(argv[2], 0700);
	} else if (strcmp(c, "parent-no-fork") == 0) {
		sandbox_enter("sandboxtest", SB_PARENT);
		(void)fork();
	} else if (strcmp(c, "parent-no-exec") == 0) {
		sandbox_enter("sandboxtest", SB_PARENT);
		execl("/bin/true", "true", (char *)NULL);
	} else if (strcmp(c, "parent-no-setuid") == 0) {
		sandbox_enter("sandboxtest", SB_PARENT);
		(void)setresuid(1, 1, 1);
	} else if (strcmp(c, "parent-no-chroot") == 0) {
		sandbox_enter("sandboxtest", SB_PARENT);
		(void)chroot("/");
	} else if (strcmp(c, "no-fork") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)fork();
	} else if (strcmp(c, "no-exec") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO | SB_RPATH);
		execl("/bin/true", "true", (char *)NULL);
	} else if (strcmp(c, "no-mmap-exec") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (strcmp(c, "no-sigsys") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)signal(SIGSYS, SIG_IGN);
	} else if (strcmp(c, "no-kill") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)kill(1, 0);
	} else if (strcmp(c, "no-setuid") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		(void)setuid(0);
	} else if (strcmp(c, "no-flock") == 0) {
		sandbox_enter("sandboxtest", SB_STDIO);
		fd = STDERR_FILENO;
		(void)flock(fd, LOCK_SH);
	} else if (strcmp(c, "sanitizer") == 0) {
		/* a sanitizer build must still report, not trap */
		sandbox_enter("sandboxtest", SB_STDIO);
		if ((p = malloc(16)) == NULL)
			fatal("malloc");
		p[off] = 'x';
		free(p);
	} else if (strcmp(c, "sanitizer-asan") == 0) {
		/* one that only ASan sees: a use after free */
		sandbox_enter("sandboxtest", SB_STDIO);
		if ((p = malloc(16)) == NULL)
			fatal("malloc");
		q = p;
		free(p);
		return (q[0]);
	} else {
		fprintf(stderr, "sandboxtest: unknown case %s\n", c);
		return (2);
	}
	return (0);
}
