/*
 * The seccomp filters of the children and of the parent, built from
 * promises named after pledge(2)'s.  A child calls sandbox_enter() once
 * its start-up is done, right before its event loop, and so does the
 * parent once its children and the spawner run (the promises from
 * SB_FATTR on are its alone); from then on every system call outside the
 * promises is refused and the process dies.
 *
 * Dying with a word: SCMP_ACT_KILL_PROCESS would kill without one, and
 * the parent could only log "killed by signal 31".  The default action is
 * SCMP_ACT_TRAP instead: the kernel does not run the call but raises
 * SIGSYS, and sandbox_sigsys() writes one line naming the call, then dies
 * of that same SIGSYS.  The call is refused either way; the handler only
 * adds the line.  It goes to stderr, which orchd -d, the journal under
 * systemd and the tests read, or, when stderr is /dev/null (orchd without
 * -d), to syslog over a socket opened before chroot by sandbox_prepare().
 * The handler cannot be replaced to shrug the traps off: rt_sigaction on
 * SIGSYS is itself forbidden, and the handler is reset to the default
 * action as it runs.  A call made for another architecture (i386 calls in
 * an x86_64 process) kills at once, without a handler.
 *
 * What seccomp cannot see, it cannot check: arguments that are pointers.
 * So the path promises are the same for every path (the chroot is what
 * keeps the store inside its directory), and SB_RECVFD and SB_SENDFD add
 * nothing: every process needs recvmsg(2) and sendmsg(2) for its imsg
 * channels, and the SCM_RIGHTS in their control data is out of reach.
 * They are still written where pledge would want them, for the reader.
 *
 * Built with ORCHD_SANITIZE (make check), the filter also lets through
 * what the ASan and UBSan runtimes call to write a report, so that a
 * sanitizer finding is reported, not turned into a SIGSYS.  Built with
 * ORCHD_NO_SANDBOX, for valgrind only, there is no filter at all.
 */

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <linux/netlink.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <seccomp.h>

#include "compat.h"
#include "log.h"
#include "sandbox.h"

#if defined(__SANITIZE_ADDRESS__) && !defined(ORCHD_SANITIZE)
/* gcc says so on its own: never leave ASan's reports to the trap */
#define ORCHD_SANITIZE	1
#endif

/* system call numbers that get a name in the report */
#define SB_NAMES	1024

static int		 sb_logfd = -1;	/* syslog, when stderr is /dev/null */
static pid_t		 sb_pid;
static char		 sb_prefix[128];	/* "gateway: " */
static char		 sb_syslog[128];	/* "<26>gatewayd[42]: " */
/*
 * The names, packed into one buffer: sb_name_at[nr] is 1 + the offset
 * of nr's name in sb_names, 0 for none.  A string and a pointer each
 * were 500 allocations and 8 KiB of table, 27 KiB of every process.
 */
static char		*sb_names;
static size_t		 sb_names_len, sb_names_size;
static uint16_t		 sb_name_at[SB_NAMES];

/*
 * The calls a promise allows whatever their arguments.  Those allowed
 * only with some arguments are in sandbox_rules().
 */
static const struct {
	unsigned int	 promises;
	const char	*name;
} sb_calls[] = {
	/* SB_STDIO: the event loop and I/O on descriptors already open */
	{ SB_STDIO, "read" },
	{ SB_STDIO, "readv" },
	{ SB_STDIO, "write" },
	{ SB_STDIO, "writev" },
	{ SB_STDIO, "close" },
	{ SB_STDIO, "fstat" },
	{ SB_STDIO, "lseek" },
	{ SB_STDIO, "recvfrom" },
	{ SB_STDIO, "recvmsg" },
	{ SB_STDIO, "sendmsg" },
	{ SB_STDIO, "getsockopt" },
	{ SB_STDIO, "shutdown" },
	{ SB_STDIO, "epoll_ctl" },
	{ SB_STDIO, "epoll_wait" },
	{ SB_STDIO, "epoll_pwait" },
	{ SB_STDIO, "epoll_pwait2" },
	{ SB_STDIO, "poll" },
	{ SB_STDIO, "ppoll" },
	{ SB_STDIO, "brk" },
	{ SB_STDIO, "munmap" },
	{ SB_STDIO, "mremap" },
	{ SB_STDIO, "madvise" },
	{ SB_STDIO, "futex" },
	{ SB_STDIO, "clock_gettime" },
	{ SB_STDIO, "clock_getres" },
	{ SB_STDIO, "gettimeofday" },
	{ SB_STDIO, "time" },
	{ SB_STDIO, "nanosleep" },
	{ SB_STDIO, "clock_nanosleep" },
	/* libevent's precise timers re-arm a timerfd it made (runtimed) */
	{ SB_STDIO, "timerfd_settime" },
	{ SB_STDIO, "getrandom" },
	/* glibc's qsort(3) sizes its buffer by the RAM, once: OpenSSL's start */
	{ SB_STDIO, "sysinfo" },
	{ SB_STDIO, "getpid" },
	{ SB_STDIO, "gettid" },
	{ SB_STDIO, "getuid" },
	{ SB_STDIO, "geteuid" },
	{ SB_STDIO, "getgid" },
	{ SB_STDIO, "getegid" },
	{ SB_STDIO, "rt_sigprocmask" },
	{ SB_STDIO, "rt_sigreturn" },
	{ SB_STDIO, "restart_syscall" },
	{ SB_STDIO, "exit" },
	{ SB_STDIO, "exit_group" },

	/*
	 * SB_INET and SB_UNIX: socket(2) and setsockopt(2) are below.
	 * Outbound only: bind(2) and listen(2) are in no promise, since the
	 * parent binds every listener and passes it on; a compromised
	 * gateway or runtime can serve nothing of its own.
	 */
	{ SB_INET | SB_UNIX, "connect" },
	{ SB_INET | SB_UNIX | SB_ACCEPT, "getsockname" },
	{ SB_INET | SB_UNIX | SB_ACCEPT, "getpeername" },

	/* SB_ACCEPT: on the listeners the parent passed */
	{ SB_ACCEPT, "accept" },
	{ SB_ACCEPT, "accept4" },

	/* SB_RPATH; open(2) and openat(2) are below */
	{ SB_RPATH, "newfstatat" },
	{ SB_RPATH, "stat" },
	{ SB_RPATH, "lstat" },
	{ SB_RPATH, "statx" },
	{ SB_RPATH, "access" },
	{ SB_RPATH, "faccessat" },
	{ SB_RPATH, "faccessat2" },
	{ SB_RPATH, "readlink" },
	{ SB_RPATH, "readlinkat" },
	{ SB_RPATH, "getcwd" },
	{ SB_RPATH, "getdents64" },	/* a directory read: include globs */
	{ SB_RPATH | SB_WPATH, "pread64" },

	/* SB_WPATH */
	{ SB_WPATH, "pwrite64" },
	{ SB_WPATH, "fsync" },
	{ SB_WPATH, "fdatasync" },
	{ SB_WPATH, "ftruncate" },
	{ SB_WPATH, "fallocate" },

	/* SB_CPATH */
	{ SB_CPATH, "unlink" },
	{ SB_CPATH, "unlinkat" },
	{ SB_CPATH, "rename" },
	{ SB_CPATH, "renameat" },
	{ SB_CPATH, "renameat2" },
	{ SB_CPATH, "mkdir" },
	{ SB_CPATH, "mkdirat" },
	{ SB_CPATH, "rmdir" },

	/* SB_DNS: glibc sends a name's A and AAAA queries at once */
	{ SB_DNS, "sendmmsg" },

	/* SB_FLOCK; the fcntl(2) locks are below */
	{ SB_FLOCK, "flock" },

	/* SB_FATTR */
	{ SB_FATTR, "chmod" },
	{ SB_FATTR, "fchmod" },
	{ SB_FATTR, "fchmodat" },
	{ SB_FATTR, "chown" },
	{ SB_FATTR, "fchown" },
	{ SB_FATTR, "fchownat" },
	{ SB_FATTR, "lchown" },
	{ SB_FATTR, "umask" },

	/* SB_PROC: kill(2) of any pid is below; no fork, clone or exec */
	{ SB_PROC, "wait4" },
	{ SB_PROC, "waitid" },

	/* SB_LISTEN */
	{ SB_LISTEN, "bind" },
	{ SB_LISTEN, "listen" },

	/* SB_PIPE: the workloads' log pipes, the keypair check's socket */
	{ SB_PIPE, "pipe2" },
	{ SB_PIPE, "socketpair" },
	{ SB_PIPE, "dup" },

	/*
	 * SB_HOST: gethostname(3), a directory's entries (/proc, the
	 * cgroups, the name service's), sendto(2) to an address
	 */
	{ SB_HOST | SB_DNS, "uname" },	/* the resolver: gethostname(3) */
	{ SB_HOST, "getdents64" },
	{ SB_HOST, "sendto" },

#ifdef ORCHD_SANITIZE
	/*
	 * The sanitizer runtimes writing a report: /proc/self/exe and the
	 * libraries for the symbols (in a chroot they fail, harmlessly),
	 * and a pipe to probe whether memory is readable; at exit, the
	 * alternate signal stack.  isatty(3) and the read-only open(2) are
	 * below.
	 */
	{ SB_STDIO, "sigaltstack" },
	{ SB_STDIO, "readlink" },
	{ SB_STDIO, "readlinkat" },
	{ SB_STDIO, "pipe2" },
	{ SB_STDIO, "newfstatat" },
#endif
};

static void
sb_add(scmp_filter_ctx ctx, uint32_t action, const char *name,
    unsigned int n, const struct scmp_arg_cmp *cmp)
{
	int	 nr, rc;

	if ((nr = seccomp_syscall_resolve_name(name)) == __NR_SCMP_ERROR)
		fatalx("sandbox: unknown system call %s", name);
	/* one this architecture does not have, such as open(2) on arm64 */
	if (nr < 0)
		return;
	if ((rc = seccomp_rule_add_array(ctx, action, nr, n, cmp)) < 0)
		fatalx("sandbox: rule for %s: %s", name, strerror(-rc));
}

/*
 * One comparison on argument arg, made by hand: clang -Wextra finds a
 * field missing in libseccomp's SCMP_A* macros.  Every int argument we
 * compare is non-negative, so its upper 32 bits are 0 in the register.
 */
static struct scmp_arg_cmp
sb_arg(unsigned int arg, enum scmp_compare op, uint64_t a, uint64_t b)
{
	struct scmp_arg_cmp	 cmp;

	memset(&cmp, 0, sizeof(cmp));
	cmp.arg = arg;
	cmp.op = op;
	cmp.datum_a = a;
	cmp.datum_b = b;
	return (cmp);
}

/* name, when argument arg is op a (SCMP_CMP_MASKED_EQ: arg & a is b) */
static void
sb_allow(scmp_filter_ctx ctx, const char *name, unsigned int arg,
    enum scmp_compare op, uint64_t a, uint64_t b)
{
	struct scmp_arg_cmp	 cmp = sb_arg(arg, op, a, b);

	sb_add(ctx, SCMP_ACT_ALLOW, name, 1, &cmp);
}

/* open(2) and openat(2) with flags matching want under mask */
static void
sb_open(scmp_filter_ctx ctx, uint32_t mask, uint32_t want)
{
	sb_allow(ctx, "open", 1, SCMP_CMP_MASKED_EQ, mask, want);
	sb_allow(ctx, "openat", 2, SCMP_CMP_MASKED_EQ, mask, want);
}

/* the table's calls, then those allowed with some arguments only */
static void
sandbox_rules(scmp_filter_ctx ctx, unsigned int promises)
{
	size_t		 i;
	const int	 stdio_fcntl[] = { F_GETFD, F_SETFD, F_GETFL, F_SETFL };
	const int	 lock_fcntl[] = { F_GETLK, F_SETLK, F_SETLKW,
			    F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW };
	const int	 inet_sockopt[] = { SOL_SOCKET, IPPROTO_TCP,
			    IPPROTO_IP, IPPROTO_IPV6 };

	for (i = 0; i < nitems(sb_calls); i++)
		if (sb_calls[i].promises & promises)
			sb_add(ctx, SCMP_ACT_ALLOW, sb_calls[i].name, 0, NULL);

	if (promises & SB_STDIO) {
		/* memory, but never executable: no new code */
		sb_allow(ctx, "mmap", 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
		sb_allow(ctx, "mprotect", 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
		/* glibc's fstat(3) is fstatat(fd, "", AT_EMPTY_PATH) */
		sb_allow(ctx, "newfstatat", 3, SCMP_CMP_MASKED_EQ,
		    AT_EMPTY_PATH, AT_EMPTY_PATH);
		for (i = 0; i < nitems(stdio_fcntl); i++)
			sb_allow(ctx, "fcntl", 1, SCMP_CMP_EQ,
			    (uint32_t)stdio_fcntl[i], 0);
		/* libevent's evbuffer_read() asks how much is there */
		sb_allow(ctx, "ioctl", 1, SCMP_CMP_EQ, FIONREAD, 0);
		/* send(2) on a connected socket, syslog's among them */
		if ((promises & SB_HOST) == 0)
			sb_allow(ctx, "sendto", 4, SCMP_CMP_EQ, 0, 0);
		/* any handler but SIGSYS's, which must stay ours */
		sb_allow(ctx, "rt_sigaction", 0, SCMP_CMP_NE, SIGSYS, 0);
		/* signals to ourselves only: raise(3), abort(3), the trap */
		if ((promises & SB_PROC) == 0)
			sb_allow(ctx, "kill", 0, SCMP_CMP_EQ,
			    (uint32_t)sb_pid, 0);
		sb_allow(ctx, "tgkill", 0, SCMP_CMP_EQ, (uint32_t)sb_pid, 0);
	}
	/* the parent's children, workloads' process groups: any pid */
	if (promises & SB_PROC)
		sb_add(ctx, SCMP_ACT_ALLOW, "kill", 0, NULL);
	/*
	 * The gateway's raw TCP (gatewayd/tcp.c): pipes made non-blocking
	 * and close-on-exec, bytes spliced without blocking.  No vmsplice
	 * or tee: nothing of the process's memory goes into a pipe.
	 */
	if (promises & SB_SPLICE) {
		sb_allow(ctx, "pipe2", 1, SCMP_CMP_EQ, O_NONBLOCK | O_CLOEXEC,
		    0);
		sb_allow(ctx, "splice", 5, SCMP_CMP_EQ, SPLICE_F_MOVE |
		    SPLICE_F_NONBLOCK, 0);
	}
	if (promises & SB_FLOCK)
		for (i = 0; i < nitems(lock_fcntl); i++)
			sb_allow(ctx, "fcntl", 1, SCMP_CMP_EQ,
			    (uint32_t)lock_fcntl[i], 0);

	if (promises & SB_INET) {
		sb_allow(ctx, "socket", 0, SCMP_CMP_EQ, AF_INET, 0);
		sb_allow(ctx, "socket", 0, SCMP_CMP_EQ, AF_INET6, 0);
		for (i = 0; i < nitems(inet_sockopt); i++)
			sb_allow(ctx, "setsockopt", 1, SCMP_CMP_EQ,
			    (uint32_t)inet_sockopt[i], 0);
	}
	/* the listeners' uids and inodes, nothing else of netlink */
	if (promises & SB_DIAG) {
		struct scmp_arg_cmp	 nl[3];

		nl[0] = sb_arg(0, SCMP_CMP_EQ, AF_NETLINK, 0);
		nl[1] = sb_arg(1, SCMP_CMP_EQ, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		nl[2] = sb_arg(2, SCMP_CMP_EQ, NETLINK_SOCK_DIAG, 0);
		sb_add(ctx, SCMP_ACT_ALLOW, "socket", nitems(nl), nl);
	}
	if (promises & SB_UNIX) {
		sb_allow(ctx, "socket", 0, SCMP_CMP_EQ, AF_UNIX, 0);
		if ((promises & SB_INET) == 0)
			sb_allow(ctx, "setsockopt", 1, SCMP_CMP_EQ,
			    SOL_SOCKET, 0);
	} else {
		/*
		 * glibc's getaddrinfo(3) asks nscd first, on a socket of
		 * its own: no nscd then, not a forbidden call.
		 */
		if (promises & SB_DNS) {
			struct scmp_arg_cmp	 ns[2];

			ns[0] = sb_arg(0, SCMP_CMP_EQ, AF_UNIX, 0);
			ns[1] = sb_arg(1, SCMP_CMP_EQ, SOCK_STREAM |
			    SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			sb_add(ctx, SCMP_ACT_ERRNO(EACCES), "socket",
			    nitems(ns), ns);
		}
		/*
		 * glibc's syslog(3) reconnects when a send fails (syslogd
		 * restarted): let that fail quietly rather than kill us.
		 * After chroot there is no /dev/log to reconnect to anyway.
		 */
		struct scmp_arg_cmp	 sl[2];

		sl[0] = sb_arg(0, SCMP_CMP_EQ, AF_UNIX, 0);
		sl[1] = sb_arg(1, SCMP_CMP_EQ, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		sb_add(ctx, SCMP_ACT_ERRNO(EACCES), "socket", nitems(sl), sl);
	}

	/*
	 * Opening files: reading alone, writing existing files, creating.
	 * O_TRUNC counts as writing.
	 */
	if (promises & SB_CPATH) {
		sb_add(ctx, SCMP_ACT_ALLOW, "open", 0, NULL);
		sb_add(ctx, SCMP_ACT_ALLOW, "openat", 0, NULL);
	} else if (promises & SB_WPATH)
		sb_open(ctx, O_CREAT, 0);
	else if (promises & SB_RPATH)
		sb_open(ctx, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY);
#ifdef ORCHD_SANITIZE
	else
		sb_open(ctx, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY);
	/* isatty(3) on stderr: colours or not */
	sb_allow(ctx, "ioctl", 1, SCMP_CMP_EQ, TCGETS, 0);
#endif
}

/*
 * The report, from a signal handler: nothing but plain stores and
 * async-signal-safe calls.
 */
static size_t
sb_cat(char *buf, size_t len, size_t size, const char *s)
{
	while (*s != '\0' && len < size - 1)
		buf[len++] = *s++;
	buf[len] = '\0';
	return (len);
}

static size_t
sb_catnum(char *buf, size_t len, size_t size, long n)
{
	char		 digits[24];
	size_t		 i = sizeof(digits) - 1;
	unsigned long	 u = n < 0 ? -(unsigned long)n : (unsigned long)n;

	digits[i] = '\0';
	do {
		digits[--i] = '0' + u % 10;
		u /= 10;
	} while (u != 0 && i > 1);
	if (n < 0)
		digits[--i] = '-';
	return (sb_cat(buf, len, size, digits + i));
}

static void
sandbox_sigsys(int sig, siginfo_t *si, void *ctx)
{
	char		 line[512];
	size_t		 len = 0, body;
	int		 nr = si->si_syscall, saved_errno = errno;
	sigset_t	 set;

	len = sb_cat(line, len, sizeof(line), sb_syslog);
	body = len;
	len = sb_cat(line, len, sizeof(line), sb_prefix);
	len = sb_cat(line, len, sizeof(line), "forbidden system call ");
	len = sb_catnum(line, len, sizeof(line), nr);
	if (nr >= 0 && nr < SB_NAMES && sb_name_at[nr] != 0) {
		len = sb_cat(line, len, sizeof(line), " (");
		len = sb_cat(line, len, sizeof(line),
		    sb_names + sb_name_at[nr] - 1);
		len = sb_cat(line, len, sizeof(line), ")");
	}
	if (sb_logfd != -1)
		(void)send(sb_logfd, line, len, MSG_NOSIGNAL);
	else {
		len = sb_cat(line, len, sizeof(line), "\n");
		(void)write(STDERR_FILENO, line + body, len - body);
	}

	/* SA_RESETHAND made SIGSYS deadly again: die of it */
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)kill(sb_pid, SIGSYS);
	errno = saved_errno;
	_exit(128 + SIGSYS);
}

/*
 * Before chroot: where the report goes.  With stderr going somewhere,
 * there; with stderr on /dev/null (orchd without -d), syslog, over our
 * own socket: glibc's syslog(3) is not for a signal handler.
 */
void
sandbox_prepare(void)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	int			 fd;

	if (fstat(STDERR_FILENO, &sb) == 0 && !(S_ISCHR(sb.st_mode) &&
	    sb.st_rdev == makedev(1, 3)))
		return;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, "/dev/log", sizeof(sun.sun_path));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return;
	}
	sb_logfd = fd;
}

/* nr's name at the end of sb_names; none if it does not fit */
static void
sb_name_add(int nr, const char *s)
{
	size_t	 n = strlen(s) + 1, size;
	char	*p;

	if (sb_names_len + n >= UINT16_MAX)
		return;
	if (sb_names_len + n > sb_names_size) {
		size = sb_names_size == 0 ? 4096 : sb_names_size * 2;
		if ((p = realloc(sb_names, size)) == NULL)
			return;
		sb_names = p;
		sb_names_size = size;
	}
	memcpy(sb_names + sb_names_len, s, n);
	sb_name_at[nr] = sb_names_len + 1;
	sb_names_len += n;
}

/* everything the handler needs, made before the filter forbids making it */
static void
sandbox_report_init(const char *name)
{
	char	*s;
	int	 nr;

	sb_prefix[0] = '\0';
	(void)sb_cat(sb_prefix, 0, sizeof(sb_prefix), name);
	(void)sb_cat(sb_prefix, strlen(sb_prefix), sizeof(sb_prefix), ": ");
	if (sb_logfd != -1)
		snprintf(sb_syslog, sizeof(sb_syslog), "<%d>%s[%d]: ",
		    LOG_DAEMON | LOG_CRIT, getprogname(), (int)sb_pid);
	for (nr = 0; nr < SB_NAMES; nr++) {
		s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		if (s != NULL && sb_name_at[nr] == 0)
			sb_name_add(nr, s);
		free(s);
	}
}

/*
 * Limits that say the same as the filter, for a build without it: no
 * process of ours forks after start-up (the spawner starts the workloads),
 * and only the store writes files.  RLIMIT_NPROC counts the user's
 * processes but only stops a fork(2), so the other children and the
 * workloads running as the same user are not affected.  A stderr that is
 * a file (orchd -d 2>file) keeps RLIMIT_FSIZE as it was: logging must
 * not cost SIGXFSZ.
 */
static void
sandbox_limits(unsigned int promises)
{
	struct rlimit	 rl;
	struct stat	 sb;

	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_NPROC, &rl) == -1)
		fatal("sandbox: setrlimit RLIMIT_NPROC");
	if (promises & (SB_WPATH | SB_CPATH))
		return;
	if ((fstat(STDOUT_FILENO, &sb) == 0 && S_ISREG(sb.st_mode)) ||
	    (fstat(STDERR_FILENO, &sb) == 0 && S_ISREG(sb.st_mode)))
		return;
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		fatal("sandbox: setrlimit RLIMIT_FSIZE");
}

void
sandbox_enter(const char *name, unsigned int promises)
{
	struct sigaction	 sa;
	scmp_filter_ctx		 ctx;
	int			 rc;

	sb_pid = getpid();
	sandbox_limits(promises);
#ifdef ORCHD_NO_SANDBOX
	log_warnx("%s: built without a sandbox (ORCHD_NO_SANDBOX)", name);
	return;
#endif
	sandbox_report_init(name);

	if ((ctx = seccomp_init(SCMP_ACT_TRAP)) == NULL)
		fatalx("sandbox: seccomp_init failed");
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) < 0)
		fatalx("sandbox: seccomp_attr_set: %s", strerror(-rc));
	sandbox_rules(ctx, promises);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sandbox_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) == -1)
		fatal("sandbox: sigaction SIGSYS");

	if ((rc = seccomp_load(ctx)) < 0)
		fatalx("sandbox: seccomp_load: %s", strerror(-rc));
	seccomp_release(ctx);
	log_debug("%s: sandboxed, promises 0x%x", name, promises);
}
