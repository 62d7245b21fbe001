/*
 * Logging for every orchd process.  In the foreground (-d) lines go to
 * stderr prefixed with the process name; otherwise to syslog, opened with
 * LOG_NDELAY so the socket exists before the process chroots.  When
 * stderr is the journal's stream (systemd's JOURNAL_STREAM names its
 * device and inode), each line starts with its "<N>" priority, as
 * sd-daemon(3) describes, so that journalctl -p finds the errors.
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"

static int	 log_debug_stderr;
static int	 log_journal;		/* stderr is the journal's stream */
static int	 log_verbose;
static const char *log_procname;
static void	(*log_capture_fn)(int, const char *);
static int	 log_forward_only;	/* captured lines go nowhere else */

/*
 * JOURNAL_STREAM is "device:inode" of the stream systemd connected to
 * stderr.  It is inherited: a program whose stderr was redirected since
 * must not prefix, hence the comparison with stderr itself.
 */
static int
log_journal_stream(void)
{
	struct stat		 sb;
	unsigned long long	 dev, ino;
	const char		*s;
	char			 c;

	if ((s = getenv("JOURNAL_STREAM")) == NULL)
		return (0);
	if (sscanf(s, "%llu:%llu%c", &dev, &ino, &c) != 2)
		return (0);
	if (fstat(STDERR_FILENO, &sb) == -1)
		return (0);
	return ((unsigned long long)sb.st_dev == dev &&
	    (unsigned long long)sb.st_ino == ino);
}

void
log_init(int to_stderr, int facility)
{
	log_debug_stderr = to_stderr;
	log_journal = to_stderr && log_journal_stream();
	if (!to_stderr)
		openlog(getprogname(), LOG_PID | LOG_NDELAY, facility);
	tzset();
}

void
log_procinit(const char *name)
{
	if (name != NULL)
		log_procname = name;
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

int
log_getverbose(void)
{
	return (log_verbose);
}

int
log_getstderr(void)
{
	return (log_debug_stderr);
}

void
log_capture(void (*fn)(int, const char *))
{
	log_capture_fn = fn;
	log_forward_only = 0;
}

/* as log_capture, but the lines are fn's alone: confd's to the parent */
void
log_forward(void (*fn)(int, const char *))
{
	log_capture_fn = fn;
	log_forward_only = fn != NULL;
}

void
logit(int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	char	 line[1024], pfx[8];
	int	 saved_errno = errno;

	(void)vsnprintf(line, sizeof(line), fmt, ap);
	if (log_capture_fn != NULL)
		log_capture_fn(pri, line);
	if (log_forward_only)
		;
	else if (log_debug_stderr) {
		/* one write a line: the children share this stderr */
		if (log_journal)
			snprintf(pfx, sizeof(pfx), "<%d>", LOG_PRI(pri));
		else
			pfx[0] = '\0';
		if (log_procname != NULL)
			fprintf(stderr, "%s%s: %s\n", pfx, log_procname, line);
		else
			fprintf(stderr, "%s%s\n", pfx, line);
		fflush(stderr);
	} else
		syslog(pri, "%s", line);
	errno = saved_errno;
}

/* as vlog, with ": strerror(errno)" appended */
static void
vlog_errno(int pri, int code, const char *fmt, va_list ap)
{
	char	 msg[1024];

	if (fmt == NULL) {
		logit(pri, "%s", strerror(code));
		return;
	}
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	logit(pri, "%s: %s", msg, strerror(code));
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	int	 saved_errno = errno;

	va_start(ap, fmt);
	vlog_errno(LOG_ERR, saved_errno, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

static __dead void
vfatalc(int code, const char *fmt, va_list ap)
{
	char	 msg[1024];

	if (fmt != NULL)
		(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	else
		msg[0] = '\0';
	/* the process is named once: its prefix on stderr, syslog's ident */
	if (code != 0)
		logit(LOG_CRIT, "fatal: %s%s%s", msg, fmt != NULL ? ": " : "",
		    strerror(code));
	else
		logit(LOG_CRIT, "fatal: %s", msg);
	exit(1);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;
	int	 code = errno;

	va_start(ap, fmt);
	vfatalc(code, fmt, ap);
	va_end(ap);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vfatalc(0, fmt, ap);
	va_end(ap);
}
