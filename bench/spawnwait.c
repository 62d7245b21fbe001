/*
 * spawnwait: the raw start of a program, timed as a client sees it: from
 * just before fork() to the first complete HTTP 200 answer on its port.
 * Connection attempts are retried every interval (1 ms), each on a fresh
 * socket.  The program is then stopped (SIGTERM, then SIGKILL) and waited
 * for, and the next round begins.  One line per round: microseconds.
 *
 *	spawnwait [-x] [-c cpu] [-n rounds] [-i interval_us] [-u user]
 *	    [-p path] port -- command [arg ...]
 *
 * With -u the child runs as that user, as orchd runs a process workload;
 * with -c on that CPU alone.  With -x the command is one that starts the
 * server and exits (docker start): its exit is waited for, not an error,
 * and nothing is stopped afterwards.  Only the child it forked is ever
 * signalled.
 */

#define _GNU_SOURCE
#include <sys/types.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/*
 * A port in the ephemeral range polled while nothing listens on it: the
 * kernel may pick that very port as the connect's own, and TCP's
 * simultaneous open connects the socket to itself.  It then holds the
 * port, and the program started can no longer bind it.  1 if so.
 */
static int
self_connected(int fd, int port)
{
	struct sockaddr_in	 me;
	socklen_t		 len = sizeof(me);

	if (getsockname(fd, (struct sockaddr *)&me, &len) == -1)
		return (0);
	return (ntohs(me.sin_port) == port);
}

/* 1: got a 200; 0: not yet (refused, closed, other status) */
static int
try_get(int port, const char *path, int timeout_ms)
{
	struct sockaddr_in	 sin;
	struct pollfd		 pfd;
	char			 req[512], buf[4096];
	size_t			 got = 0;
	ssize_t			 n;
	int			 fd, ok = 0;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    self_connected(fd, port)) {
		close(fd);
		return (0);
	}
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: localhost\r\n"
	    "Connection: close\r\n\r\n", path);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return (0);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	/* the status line is enough, then read to the end of the answer */
	for (;;) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			break;
		if ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) <= 0) {
			if (got >= 12)
				ok = strncmp(buf + 9, "200", 3) == 0;
			break;
		}
		got += n;
		if (got == sizeof(buf) - 1) {
			/* long answer: its status decides, drain the rest */
			buf[got] = '\0';
			ok = strncmp(buf + 9, "200", 3) == 0;
			while (poll(&pfd, 1, timeout_ms) > 0 &&
			    read(fd, buf, sizeof(buf)) > 0)
				;
			break;
		}
	}
	close(fd);
	return (ok);
}

static void
usage(void)
{
	fprintf(stderr, "usage: spawnwait [-x] [-c cpu] [-n rounds] "
	    "[-i interval_us] [-u user] [-p path] port -- command "
	    "[arg ...]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct passwd	*pw = NULL;
	const char	*path = "/";
	uint64_t	 t0, t1, deadline;
	long		 interval = 1000;
	pid_t		 pid;
	cpu_set_t	 cpus;
	int		 ch, i, rounds = 1, port, status, cpu = -1;
	int		 exits = 0, exited, fd;

	while ((ch = getopt(argc, argv, "c:i:n:p:u:x")) != -1) {
		switch (ch) {
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'x':
			exits = 1;
			break;
		case 'i':
			interval = atol(optarg);
			break;
		case 'n':
			rounds = atoi(optarg);
			break;
		case 'p':
			path = optarg;
			break;
		case 'u':
			if ((pw = getpwnam(optarg)) == NULL)
				errx(1, "no user %s", optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	port = atoi(argv[0]);
	argc--;
	argv++;
	if (strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	if (argc < 1 || port <= 0 || port > 65535 || rounds < 1)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if (try_get(port, path, 100))
		errx(1, "port %d answers before the start", port);

	for (i = 0; i < rounds; i++) {
		t0 = now_us();
		deadline = t0 + 30 * 1000000ULL;
		if ((pid = fork()) == -1)
			err(1, "fork");
		if (pid == 0) {
			setpgid(0, 0);
			/* what it prints is not ours (docker start: a name) */
			if ((fd = open("/dev/null", O_WRONLY)) != -1) {
				dup2(fd, STDOUT_FILENO);
				if (fd != STDOUT_FILENO)
					close(fd);
			}
			if (cpu >= 0) {
				CPU_ZERO(&cpus);
				CPU_SET(cpu, &cpus);
				if (sched_setaffinity(0, sizeof(cpus),
				    &cpus) == -1)
					err(1, "sched_setaffinity");
			}
			if (pw != NULL && (setgroups(1, &pw->pw_gid) == -1 ||
			    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
			    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1))
				err(1, "drop to %s", pw->pw_name);
			execv(argv[0], argv);
			err(127, "%s", argv[0]);
		}
		exited = 0;
		while (!try_get(port, path, 1000)) {
			if (now_us() > deadline) {
				if (!exited) {
					kill(pid, SIGKILL);
					waitpid(pid, NULL, 0);
				}
				errx(1, "no 200 within 30 s");
			}
			if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
				if (!exits)
					errx(1, "%s exited before answering",
					    argv[0]);
				if (!WIFEXITED(status) ||
				    WEXITSTATUS(status) != 0)
					errx(1, "%s failed", argv[0]);
				exited = 1;
			}
			usleep(interval);
		}
		t1 = now_us();
		printf("%llu\n", (unsigned long long)(t1 - t0));
		fflush(stdout);
		if (exits) {
			if (!exited)
				waitpid(pid, NULL, 0);
			continue;
		}
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		/* until the port is free again */
		deadline = now_us() + 5 * 1000000ULL;
		while (try_get(port, path, 100) && now_us() < deadline)
			usleep(1000);
	}
	return (0);
}
