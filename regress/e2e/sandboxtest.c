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

#include <errno.h>
#include <fcntl.h>
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

	/* each of these must die */
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
