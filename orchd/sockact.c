/*
 * Socket activation ("socket activation" in a process workload's
 * block): the parent binds the workload's address and port itself, with
 * the gateway's listeners, and holds the socket for as long as the
 * configuration names it, asleep or awake, so that nothing else on the
 * host (another workload, any local user, an outgoing connection given
 * the port by the kernel) can take it.  At each start spawn.c passes a
 * duplicate to the spawner, which checks it again and puts it on the
 * workload's fd 3 with LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES, as
 * systemd's sd_listen_fds(3) reads them.
 *
 * A connection to the port made while the workload starts waits in the
 * socket's own accept queue: the gateway connects once the spawn is
 * done, and the workload is ready when it accepts.  The socket is
 * blocking (systemd passes them so; the parent never accepts on it) and
 * close-on-exec here, and so is the duplicate spawn.c makes: no exec of
 * the parent's inherits either.  The spawner is passed the duplicate
 * over its channel (a descriptor passed carries no flag), and its child
 * alone gets it on fd 3, where dup2 leaves the flag clear
 * (spawnerd/exec.c).
 *
 * A reload keeps the socket of a workload whose address and port are
 * unchanged, so connections queued on it carry on, binds the new ones
 * and closes those of workloads gone or moved, as listen.c does for the
 * listeners.  A workload is found by its name, never by an address a
 * child gives: the socket passed is the one bound for that name.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "util.h"
#include "workload.h"

#define SOCKACT_BACKLOG	511
#define SOCKACT_FLUSH_MAX	SOCKACT_BACKLOG	/* at most a queue */

/* its port, for the log and errors */
static unsigned int
sockact_port(const struct sockact *sa)
{
	const struct sockaddr_in6	*sin6 = (const void *)&sa->ss;
	const struct sockaddr_in	*sin = (const void *)&sa->ss;

	if (sa->ss.ss_family == AF_INET6)
		return (ntohs(sin6->sin6_port));
	return (ntohs(sin->sin_port));
}

/* its address, for a message that names where it failed */
static const char *
sockact_addr(const struct sockact *sa, char *buf, size_t len)
{
	const struct sockaddr_in6	*sin6 = (const void *)&sa->ss;
	const struct sockaddr_in	*sin = (const void *)&sa->ss;
	const void			*a;

	a = sa->ss.ss_family == AF_INET6 ? (const void *)&sin6->sin6_addr :
	    (const void *)&sin->sin_addr;
	if (inet_ntop(sa->ss.ss_family, a, buf, len) == NULL)
		(void)strlcpy(buf, "?", len);
	return (buf);
}

static int
sockact_bind1(struct sockact *sa)
{
	struct stat	 st;
	int		 fd, on = 1;

	if ((fd = socket(sa->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
	    0)) == -1)
		return (-1);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    (sa->ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &on, sizeof(on)) == -1) ||
	    bind(fd, (struct sockaddr *)&sa->ss, sa->sslen) == -1 ||
	    listen(fd, SOCKACT_BACKLOG) == -1 || fstat(fd, &st) == -1) {
		close(fd);
		return (-1);
	}
	sa->fd = fd;
	sa->inode = st.st_ino;
	return (0);
}

/* oconf's socket for sa, the same workload on the same address */
static struct sockact *
sockact_old(struct orchd_conf *oconf, const struct sockact *sa)
{
	size_t	 i;

	for (i = 0; oconf != NULL && i < oconf->nsockacts; i++)
		if (oconf->sockacts[i].fd != -1 &&
		    strcmp(oconf->sockacts[i].name, sa->name) == 0 &&
		    oconf->sockacts[i].sslen == sa->sslen &&
		    memcmp(&oconf->sockacts[i].ss, &sa->ss, sa->sslen) == 0)
			return (&oconf->sockacts[i]);
	return (NULL);
}

/* nconf's workloads with socket activation, each with its address */
static int
sockacts_list(struct orchd_conf *nconf, char *err, size_t errlen)
{
	struct workload_conf	*w;
	struct sockact		*sa;
	size_t			 n = 0;

	TAILQ_FOREACH(w, &nconf->workloads, entry)
		if (w->socket_activation && w->driver == DRIVER_PROCESS)
			n++;
	if (n == 0)
		return (0);
	if ((nconf->sockacts = calloc(n, sizeof(*sa))) == NULL) {
		snprintf(err, errlen, "socket activation: %s",
		    strerror(errno));
		return (-1);
	}
	TAILQ_FOREACH(w, &nconf->workloads, entry) {
		if (!w->socket_activation || w->driver != DRIVER_PROCESS)
			continue;
		sa = &nconf->sockacts[nconf->nsockacts++];
		sa->fd = -1;
		strlcpy(sa->name, w->name, sizeof(sa->name));
		if (w->address == NULL || address_parse(w->address,
		    w->port, &sa->ss, &sa->sslen) == -1) {
			snprintf(err, errlen, "workload %s: socket activation: "
			    "address %s is not numeric", w->name,
			    w->address != NULL ? w->address : "(none)");
			return (-1);
		}
	}
	return (0);
}

/*
 * Bind the port of each workload of nconf with socket activation,
 * taking over oconf's socket where it is the same.  On failure nothing
 * of oconf is touched and what was bound here is closed again.
 */
int
sockacts_bind(struct orchd_conf *nconf, struct orchd_conf *oconf,
    char *err, size_t errlen)
{
	struct sockact	*sa, *o;
	size_t		 i;
	char		 addr[INET6_ADDRSTRLEN];

	if (sockacts_list(nconf, err, errlen) == -1)
		goto fail;
	for (i = 0; i < nconf->nsockacts; i++) {
		sa = &nconf->sockacts[i];
		if ((o = sockact_old(oconf, sa)) != NULL) {
			sa->fd = o->fd;
			sa->inode = o->inode;
			continue;
		}
		if (sockact_bind1(sa) == -1) {
			snprintf(err, errlen, "workload %s: socket activation: "
			    "cannot bind %s port %u: %s", sa->name,
			    sockact_addr(sa, addr, sizeof(addr)),
			    sockact_port(sa), strerror(errno));
			goto fail;
		}
		log_debug("workload %s: socket activation: port %u held",
		    sa->name, sockact_port(sa));
	}
	/* taken over: no longer oconf's to close */
	for (i = 0; i < nconf->nsockacts; i++)
		if ((o = sockact_old(oconf, &nconf->sockacts[i])) != NULL &&
		    o->fd == nconf->sockacts[i].fd)
			o->fd = -1;
	return (0);
 fail:
	sockacts_close(nconf, oconf);
	return (-1);
}

/* close c's sockets, except those that keep belonging to keep */
void
sockacts_close(struct orchd_conf *c, struct orchd_conf *keep)
{
	size_t	 i, j;
	int	 kept;

	for (i = 0; i < c->nsockacts; i++) {
		if (c->sockacts[i].fd == -1)
			continue;
		kept = 0;
		for (j = 0; keep != NULL && j < keep->nsockacts; j++)
			if (keep->sockacts[j].fd == c->sockacts[i].fd)
				kept = 1;
		if (!kept)
			close(c->sockacts[i].fd);
	}
	free(c->sockacts);
	c->sockacts = NULL;
	c->nsockacts = 0;
}

/* the held socket of workload name, or NULL */
const struct sockact *
sockact_find(const struct orchd_conf *c, const char *name)
{
	size_t	 i;

	for (i = 0; i < c->nsockacts; i++)
		if (c->sockacts[i].fd != -1 &&
		    strcmp(c->sockacts[i].name, name) == 0)
			return (&c->sockacts[i]);
	return (NULL);
}

/*
 * The workload of name failed without taking its socket (spawn.c says
 * when): the connections waiting in its queue would wait for a process
 * that will not accept them.  Each is accepted and reset, so that the
 * gateway answers at once instead of at its timeout.  Bounded by the
 * queue's length; never blocks (poll before each accept, and nothing
 * else accepts on the socket now).
 */
void
sockact_flush(const struct orchd_conf *c, const char *name)
{
	const struct sockact	*sa;
	struct pollfd		 pfd;
	struct linger		 lg;
	int			 fd, n;

	if ((sa = sockact_find(c, name)) == NULL)
		return;
	pfd.fd = sa->fd;
	pfd.events = POLLIN;
	lg.l_onoff = 1;
	lg.l_linger = 0;
	for (n = 0; n < SOCKACT_FLUSH_MAX; n++) {
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))
			break;
		if ((fd = accept4(sa->fd, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK)) == -1)
			break;
		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	if (n > 0)
		log_info("workload %s: socket activation: %d waiting "
		    "connections reset", name, n);
}
