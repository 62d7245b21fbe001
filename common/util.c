/*
 * Small helpers every process shares.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "compat.h"
#include "msg.h"
#include "util.h"
#include "workload.h"

static const char *const proc_names[PROC_MAX] = {
	[PROC_PARENT] = "parent",
	[PROC_STORE] = "store",
	[PROC_GATEWAY] = "gateway",
	[PROC_REAPER] = "reaper",
	[PROC_RUNTIME] = "runtime",
	[PROC_ACME] = "acme",
	[PROC_NOTIFY] = "notify",
};

static const char *const state_names[] = {
	[WL_ASLEEP] = "asleep",
	[WL_WAKING] = "waking",
	[WL_RUNNING] = "running",
	[WL_SUSPENDING] = "suspending",
	[WL_FAILED] = "failed",
	[WL_CHECKING] = "checking",
	[WL_FROZEN] = "frozen",
};

/*
 * Why a workload changed state (enum rt_reason): as runtimed logs it and
 * orchctl prints it, "start failed", and in JSON (the API, the events,
 * orchctl -j), "start_failed".
 */
static const char *const reason_names[][2] = {
	[RT_REASON_NONE] = { "none", "none" },
	[RT_REASON_REQUEST] = { "request", "request" },
	[RT_REASON_READY] = { "ready", "ready" },
	[RT_REASON_START_FAILED] = { "start failed", "start_failed" },
	[RT_REASON_EXITED] = { "exited", "exited" },
	[RT_REASON_WAKE_TIMEOUT] = { "wake timeout", "wake_timeout" },
	[RT_REASON_IDLE] = { "idle", "idle" },
	[RT_REASON_OPERATOR] = { "operator", "operator" },
	[RT_REASON_KEEP_WARM] = { "keep warm", "keep_warm" },
	[RT_REASON_RESTORED] = { "restored", "restored" },
	[RT_REASON_SHUTDOWN] = { "shutdown", "shutdown" },
	[RT_REASON_REMOVED] = { "removed", "removed" },
	[RT_REASON_OOM] = { "oom", "oom" },
	[RT_REASON_DEPENDENCY] = { "dependency", "dependency" },
	[RT_REASON_RESTART] = { "restart", "restart" },
	[RT_REASON_UNHEALTHY] = { "unhealthy", "unhealthy" },
	[RT_REASON_EXPIRED] = { "expired", "expired" },
	[RT_REASON_REPLACED] = { "replaced", "replaced" },
	[RT_REASON_BUDGET] = { "budget", "budget" },
	[RT_REASON_PRESSURE] = { "pressure", "pressure" },
	[RT_REASON_NO_ROOM] = { "no room", "no_room" },
	[RT_REASON_THAWED] = { "thawed", "thawed" },
	[RT_REASON_NO_FREEZER] = { "no freezer", "no_freezer" },
	[RT_REASON_SCHEDULE] = { "schedule", "schedule" },
	[RT_REASON_MAINTENANCE] = { "maintenance", "maintenance" }
};

const char *
proc_name(enum privsep_procid id)
{
	if ((unsigned int)id >= nitems(proc_names))
		return ("unknown");
	return (proc_names[id]);
}

const char *
workload_state_name(enum workload_state state)
{
	if ((unsigned int)state >= nitems(state_names))
		return ("unknown");
	return (state_names[state]);
}

/* "start failed", or with json "start_failed"; "unknown" for none */
const char *
workload_reason_name(int reason, int json)
{
	if (reason < 0 || (size_t)reason >= nitems(reason_names) ||
	    reason_names[reason][0] == NULL)
		return ("unknown");
	return (reason_names[reason][json != 0]);
}

/*
 * Compare in time that depends only on the length, so that an attacker
 * timing bearer token checks learns nothing about the key.
 */
int
ct_memcmp(const void *a, const void *b, size_t len)
{
	const volatile unsigned char	*pa = a, *pb = b;
	unsigned char			 diff = 0;
	size_t				 i;

	for (i = 0; i < len; i++)
		diff |= pa[i] ^ pb[i];
	return (diff != 0);
}

/*
 * Give the heap a configuration load freed back to the kernel.  glibc
 * returns only the top of its heap by itself, and a transaction of
 * 10,000 workloads leaves megabytes free below what is still in use.
 */
void
heap_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * swarm: an instance name ends the service label org.orchd.seen.NAME,
 * so it keeps to what a host name and a label key both allow.
 */
int
instance_name_ok(const char *s)
{
	size_t	 n = strlen(s);

	if (n == 0 || n >= ORCHD_INSTANCE_MAX)
		return (0);
	return (strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n);
}

/* no "instance name": the host name, if it can be one; else -1 */
int
instance_name_default(char *buf, size_t len)
{
	char	 host[256];

	if (gethostname(host, sizeof(host)) == -1)
		return (-1);
	host[sizeof(host) - 1] = '\0';
	if (!instance_name_ok(host) || strlcpy(buf, host, len) >= len)
		return (-1);
	return (0);
}
/* -u uid:gid, the numbers the parent looked up (privdrop(), spawnerd) */
int
privdrop_ids(const char *arg, uid_t *uid, gid_t *gid)
{
	char		 buf[32], *colon;
	const char	*errstr;

	if (strlcpy(buf, arg, sizeof(buf)) >= sizeof(buf) ||
	    (colon = strchr(buf, ':')) == NULL)
		return (-1);
	*colon++ = '\0';
	*uid = strtonum(buf, 0, INT_MAX, &errstr);
	if (errstr != NULL)
		return (-1);
	*gid = strtonum(colon, 0, INT_MAX, &errstr);
	if (errstr != NULL)
		return (-1);
	return (0);
}

/* numeric address, "localhost" or "*"; IPv6 may be in brackets */
int
address_parse(const char *name, int port, struct sockaddr_storage *ss,
    socklen_t *sslen)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	char			 buf[INET6_ADDRSTRLEN + 2];
	size_t			 len;

	memset(ss, 0, sizeof(*ss));
	if (strcmp(name, "localhost") == 0)
		name = "127.0.0.1";
	else if (strcmp(name, "*") == 0)
		name = "0.0.0.0";
	if (inet_pton(AF_INET, name, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*sslen = sizeof(*sin);
		return (0);
	}
	len = strlen(name);
	if (len > 2 && len < sizeof(buf) && name[0] == '[' &&
	    name[len - 1] == ']') {
		memcpy(buf, name + 1, len - 2);
		buf[len - 2] = '\0';
		name = buf;
	}
	if (inet_pton(AF_INET6, name, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*sslen = sizeof(*sin6);
		return (0);
	}
	return (-1);
}
