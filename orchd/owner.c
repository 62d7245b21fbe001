/*
 * The listener check: a workload is served only by a listener that is its
 * own.
 *
 * A readiness or liveness check only connects: whoever listens on the
 * workload's port answers it.  A workload asleep leaves its port free, and
 * anything on the host that can bind it (another workload, any local
 * user) would be taken for it and sent its requests.  So before runtimed
 * marks a workload running after a wake, and after each liveness check
 * that passed, it asks here (IMSG_RT_OWNER_ASK): every TCP listener that
 * would take a connection to the workload's address and port, the
 * address itself and the wildcard ones (0.0.0.0, and :: unless it is
 * IPV6_V6ONLY), must belong to the workload:
 *
 *	process		the uid it runs as (its own, or its "user");
 *			and at least one listener: the check passed;
 *			with socket activation, the parent's own socket
 *			(by its inode), whoever accepts on it
 *	docker		published (bridge, a named network): root's
 *			docker-proxy, or none (Docker's NAT); network host:
 *			the container's "user" when it is numeric, the uid
 *			the parent gives an API container, a labelled
 *			container's numeric --user (labels.c), else nothing
 *			is known to check
 *	swarm		not checked: its address is a node's
 *
 * Why here, in the root parent, and not in runtimed: the listeners'
 * uids and inodes come from the kernel's sock_diag (sockdiag.c), which
 * needs no privilege, but only root can tell which process holds an
 * inode (/proc/PID/fd of another user) and so name the squatter, and the
 * parent alone knows a process workload's uid without being told: it
 * chose it.  What runtimed sends is the name and the address it will
 * route to, both fixed-size and checked; nothing it says makes the answer
 * one way or the other, so a compromised runtimed learns no more than
 * whose listener sits on an address, which /proc/net/tcp tells anyone.
 * runtimed's own filter stays as it is (no netlink for the process that
 * talks to Docker); the parent's gains socket(2) for NETLINK_SOCK_DIAG
 * alone (SB_DIAG).  The answer costs a dump of the host's listeners and,
 * only when one is foreign, a walk of /proc: at wakes and health checks,
 * never per request.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "sockdiag.h"
#include "workload.h"

#define OWNER_PROCS_MAX		100000	/* /proc entries looked at */
#define OWNER_FDS_MAX		1000000	/* descriptors, all processes */
#define OWNER_PROXY		"docker-proxy"

/* who the listeners must be */
struct owner_want {
	int		 checked;	/* 0: nothing known to check */
	uid_t		 uid;
	int		 proxy;		/* docker-proxy, or nothing */
	int		 need_one;	/* no listener at all is a failure */
	uint64_t	 inode;		/* socket activation: the parent's
					   socket, and no other */
};

static struct diag_answer	 owner_diag;

/* "1000" or "1000:1000": the uid; -1 for a name or nothing */
static int
owner_numeric_user(const char *user, uid_t *uid)
{
	char		 buf[32];
	const char	*errstr;
	long long	 n;

	if (user == NULL || strlcpy(buf, user, sizeof(buf)) >= sizeof(buf))
		return (-1);
	buf[strcspn(buf, ":")] = '\0';
	n = strtonum(buf, 0, UINT32_MAX - 1, &errstr);
	if (errstr != NULL)
		return (-1);
	*uid = (uid_t)n;
	return (0);
}

static int
owner_wanted(const struct workload_conf *wl, struct owner_want *w,
    char *msg, size_t len)
{
	const struct sockact	*sa;
	const struct rt_label	*rl;
	int64_t			 run;

	memset(w, 0, sizeof(*w));
	switch (wl->driver) {
	case DRIVER_PROCESS:
		if (wl->socket_activation) {
			if ((sa = sockact_find(orchd_env->conf,
			    wl->name)) == NULL) {
				snprintf(msg, len, "socket activation: its "
				    "port is not bound");
				return (-1);
			}
			w->inode = sa->inode;
			w->checked = w->need_one = 1;
			return (0);
		}
		if (spawn_uid(wl, &w->uid) == -1) {
			snprintf(msg, len, "its uid is not known");
			return (-1);
		}
		w->checked = w->need_one = 1;
		return (0);
	case DRIVER_DOCKER:
		if (wl->network != NETWORK_HOST) {
			w->checked = w->proxy = 1;
			w->uid = 0;
		} else if (owner_numeric_user(wl->user, &w->uid) == 0)
			w->checked = w->need_one = 1;
		else if ((run = identity_run_uid(orchd_env, wl)) != -1) {
			/* the API's container: the uid the parent gave it */
			w->uid = (uid_t)run;
			w->checked = w->need_one = 1;
		} else if (wl->source == SOURCE_LABEL &&
		    (rl = labels_facts(wl->name)) != NULL && rl->uid >= 0) {
			/* a labelled one: the numeric --user it was seen with */
			w->uid = (uid_t)rl->uid;
			w->checked = w->need_one = 1;
		}
		return (0);
	default:
		return (0);
	}
}

/* would a connection to addr:port reach listener l? */
static int
owner_catches(const struct diag_listener *l, const union wl_addr *addr)
{
	static const uint8_t	 any6[16];
	static const uint8_t	 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				    0xff, 0xff };
	const uint8_t		*a4 = (const uint8_t *)&addr->sin.sin_addr;
	const uint8_t		*a6 = (const uint8_t *)&addr->sin6.sin6_addr;

	if (addr->ss_family == AF_INET) {
		if (l->family == AF_INET)
			return (memcmp(l->addr, a4, 4) == 0 ||
			    memcmp(l->addr, any6, 4) == 0);
		if (memcmp(l->addr, any6, 16) == 0)
			return (l->v6only != 1);
		return (memcmp(l->addr, mapped, 12) == 0 &&
		    memcmp(l->addr + 12, a4, 4) == 0);
	}
	return (l->family == AF_INET6 && (memcmp(l->addr, a6, 16) == 0 ||
	    memcmp(l->addr, any6, 16) == 0));
}

/* the process that holds socket inode, and its name: 0, or -1 none */
static int
owner_holder(uint32_t inode, pid_t *pid, char *comm, size_t len)
{
	DIR		*proc, *fds;
	struct dirent	*p, *f;
	char		 path[600], link[64], want[32];
	const char	*errstr;
	ssize_t		 n;
	size_t		 procs = 0, nfd = 0;
	int		 found = 0, fd;

	snprintf(want, sizeof(want), "socket:[%u]", inode);
	if ((proc = opendir("/proc")) == NULL)
		return (-1);
	while (!found && (p = readdir(proc)) != NULL &&
	    procs++ < OWNER_PROCS_MAX && nfd < OWNER_FDS_MAX) {
		*pid = strtonum(p->d_name, 1, INT_MAX, &errstr);
		if (errstr != NULL)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		if ((fds = opendir(path)) == NULL)
			continue;
		while ((f = readdir(fds)) != NULL && nfd++ < OWNER_FDS_MAX) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
			    p->d_name, f->d_name);
			if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, want) == 0) {
				found = 1;
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	if (!found)
		return (-1);
	strlcpy(comm, "?", len);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)*pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		if ((n = read(fd, link, MINIMUM(sizeof(link), len) - 1)) > 0) {
			link[n] = '\0';
			link[strcspn(link, "\n")] = '\0';
			strlcpy(comm, link, len);
		}
		close(fd);
	}
	return (0);
}

static void
owner_addr_text(const union wl_addr *addr, char *buf, size_t len)
{
	char	 a[INET6_ADDRSTRLEN];

	if (addr->ss_family == AF_INET) {
		inet_ntop(AF_INET, &addr->sin.sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(addr->sin.sin_port));
	} else {
		inet_ntop(AF_INET6, &addr->sin6.sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(addr->sin6.sin6_port));
	}
}

/* the listener l, not the workload's: said in the answer and the log */
static void
owner_foreign(const struct workload_conf *wl, const struct owner_want *w,
    const struct diag_listener *l, const char *where, struct rt_owner *ro)
{
	char	 comm[OWNER_COMM_MAX], at[INET6_ADDRSTRLEN], who[48];
	pid_t	 pid = 0;

	inet_ntop(l->family, l->addr, at, sizeof(at));
	ro->ok = 0;
	ro->uid = l->uid;
	if (owner_holder(l->inode, &pid, comm, sizeof(comm)) == 0) {
		ro->pid = pid;
		(void)snprintf(who, sizeof(who), "pid %d, %s", (int)pid,
		    comm);
	} else
		(void)strlcpy(who, "its process not found", sizeof(who));
	(void)snprintf(ro->msg, sizeof(ro->msg), "its port is taken: a "
	    "listener on %s%.46s%s:%u of uid %u (%.47s), not %.63s's%s",
	    l->family == AF_INET6 ? "[" : "", at, l->family == AF_INET6 ?
	    "]" : "", l->port, l->uid, who, wl->name, w->proxy ?
	    " docker-proxy" : "");
	log_warnx("workload %s (uid %u) on %s: %s", wl->name,
	    (unsigned)w->uid, where, ro->msg);
}

/* is listener l the one w wants? */
static int
owner_is_own(const struct owner_want *w, const struct diag_listener *l)
{
	char	 comm[OWNER_COMM_MAX];
	pid_t	 pid;

	if (w->inode != 0)
		return (l->inode == w->inode);
	if (l->uid != w->uid)
		return (0);
	if (!w->proxy)
		return (1);
	/*
	 * root's, but is it Docker's proxy?  As root, one we cannot find
	 * is not; run as another user (the demo) we cannot look into
	 * root's processes, and root's is all that can be said.
	 */
	if (owner_holder(l->inode, &pid, comm, sizeof(comm)) == -1)
		return (geteuid() != 0);
	return (strcmp(comm, OWNER_PROXY) == 0);
}

static void
owner_check(const struct workload_conf *wl, const union wl_addr *addr,
    struct rt_owner *ro)
{
	struct owner_want	 w;
	struct diag_answer	*a = &owner_diag;
	char			 where[INET6_ADDRSTRLEN + 16];
	uint16_t		 port;
	size_t			 i, seen = 0;

	owner_addr_text(addr, where, sizeof(where));
	if (owner_wanted(wl, &w, ro->msg, sizeof(ro->msg)) == -1) {
		ro->ok = -1;
		return;
	}
	if (!w.checked) {
		ro->ok = 1;
		return;
	}
	port = ntohs(addr->ss_family == AF_INET ? addr->sin.sin_port :
	    addr->sin6.sin6_port);
	memset(a, 0, sizeof(*a));
	if ((addr->ss_family == AF_INET &&
	    sockdiag_listeners(AF_INET, port, a) == -1) ||
	    sockdiag_listeners(AF_INET6, port, a) == -1) {
		ro->ok = -1;
		snprintf(ro->msg, sizeof(ro->msg), "cannot list the "
		    "listeners on %s: %s", where, strerror(errno));
		return;
	}
	if (a->overflow) {
		ro->ok = -1;
		snprintf(ro->msg, sizeof(ro->msg), "more than %d listeners "
		    "on port %u", DIAG_LISTENERS_MAX, port);
		return;
	}
	for (i = 0; i < a->n; i++) {
		if (!owner_catches(&a->l[i], addr))
			continue;
		seen++;
		if (!owner_is_own(&w, &a->l[i])) {
			owner_foreign(wl, &w, &a->l[i], where, ro);
			return;
		}
	}
	if (seen == 0 && w.need_one) {
		ro->ok = 0;
		(void)snprintf(ro->msg, sizeof(ro->msg), "nothing of %.63s "
		    "listens on %.54s in orchd's network namespace", wl->name,
		    where);
		return;
	}
	ro->ok = 1;
}

/* the address as runtimed sends it: one of ours, or nothing is checked */
static int
owner_addr_valid(const struct rt_owner_ask *q)
{
	if (q->addr.ss_family == AF_INET)
		return (q->addrlen == sizeof(struct sockaddr_in) &&
		    q->addr.sin.sin_port != 0);
	if (q->addr.ss_family == AF_INET6)
		return (q->addrlen == sizeof(struct sockaddr_in6) &&
		    q->addr.sin6.sin6_port != 0);
	return (0);
}

void
owner_request(struct imsgev *iev, struct imsg *imsg)
{
	const struct workload_conf	*wl;
	struct workload_conf		*tmp = NULL;
	struct rt_owner_ask		 q;
	struct rt_owner			 ro;

	(void)imsg_get_data(imsg, &q, sizeof(q));
	memset(&ro, 0, sizeof(ro));
	strlcpy(ro.name, q.name, sizeof(ro.name));
	ro.seq = q.seq;
	ro.ok = -1;
	if (!owner_addr_valid(&q))
		snprintf(ro.msg, sizeof(ro.msg), "not an address");
	else if ((wl = pdef_find(orchd_env->conf, q.name, &tmp)) == NULL)
		snprintf(ro.msg, sizeof(ro.msg), "no such workload");
	else
		owner_check(wl, &q.addr, &ro);
	workload_free(tmp);
	if (ro.ok == -1)
		log_warnx("workload %s: listener check: %s", ro.name, ro.msg);
	if (imsgev_compose(iev, IMSG_RT_OWNER, 0, -1, &ro, sizeof(ro)) == -1)
		log_warn("%s: compose", __func__);
}
