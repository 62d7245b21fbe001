/*
 * systemd's service notification protocol, spoken directly: one datagram
 * a message to the AF_UNIX socket named by NOTIFY_SOCKET (a path, or an
 * abstract name written "@name"), as sd_notify(3) describes, with no
 * libsystemd.  READY=1 once the listeners are bound and every child runs
 * the first configuration; RELOADING=1 and READY=1 around a reload;
 * STOPPING=1 at the shutdown; STATUS= a line of counts from runtimed.
 * Without NOTIFY_SOCKET every call does nothing.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"

static int			 notify_fd = -1;
static struct sockaddr_un	 notify_sun;
static socklen_t		 notify_len;
static int			 notify_failed;	/* said once in the log */
static char			 notify_last[128];	/* STATUS= sent */

/*
 * Read NOTIFY_SOCKET and take it out of the environment: neither the
 * children nor the workloads are the service, and none may speak for it.
 */
void
notify_init(void)
{
	const char	*s;
	size_t		 n;

	if ((s = getenv("NOTIFY_SOCKET")) == NULL)
		return;
	memset(&notify_sun, 0, sizeof(notify_sun));
	notify_sun.sun_family = AF_UNIX;
	n = strlen(s);
	if ((s[0] != '/' && s[0] != '@') || n < 2 ||
	    n >= sizeof(notify_sun.sun_path)) {
		log_warnx("NOTIFY_SOCKET %s: not a socket path nor an "
		    "abstract name, ignored", s);
		goto done;
	}
	memcpy(notify_sun.sun_path, s, n);
	if (s[0] == '@')
		notify_sun.sun_path[0] = '\0';
	/* an abstract name's length is all there is of it: no NUL */
	notify_len = offsetof(struct sockaddr_un, sun_path) + n +
	    (s[0] == '@' ? 0 : 1);
	if ((notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		log_warn("NOTIFY_SOCKET: socket");
 done:
	if (unsetenv("NOTIFY_SOCKET") == -1)
		fatal("unsetenv NOTIFY_SOCKET");
}

static void
notify_send(const char *fmt, ...)
{
	char	 msg[256];
	va_list	 ap;
	int	 n;

	if (notify_fd == -1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg)) {
		log_warnx("%s: message too long", __func__);
		return;
	}
	if (sendto(notify_fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT,
	    (struct sockaddr *)&notify_sun, notify_len) == n) {
		notify_failed = 0;
		return;
	}
	/* systemd gone or busy: the service runs on, the log says it once */
	if (!notify_failed)
		log_warn("NOTIFY_SOCKET: sendto");
	notify_failed = 1;
}

void
notify_ready(void)
{
	notify_send("READY=1");
}

/* MONOTONIC_USEC: systemd >= 253 asks it with RELOADING=1 */
void
notify_reloading(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	notify_send("RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000ULL +
	    (unsigned long long)ts.tv_nsec / 1000ULL);
}

void
notify_stopping(void)
{
	notify_send("STOPPING=1");
}

/* runtimed's counts, when they changed: "12 workloads, 3 running, 0 failed" */
void
notify_recv_counts(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_counts	 c;
	char			 status[sizeof(notify_last)];

	if (imsg_get_data(imsg, &c, sizeof(c)) == -1)
		return;
	snprintf(status, sizeof(status), "%u workload%s, %u running, "
	    "%u failed", c.workloads, c.workloads == 1 ? "" : "s",
	    c.running, c.failed);
	if (strcmp(status, notify_last) == 0)
		return;
	strlcpy(notify_last, status, sizeof(notify_last));
	log_debug("status: %s", status);
	notify_send("STATUS=%s", status);
}
