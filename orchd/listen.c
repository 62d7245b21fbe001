/*
 * Listening sockets, bound by the parent (the gateway never binds, so it
 * needs no privilege for port 80) and passed to the gateway with each
 * configuration.  A reload keeps the sockets of unchanged listeners, so
 * their accept queues carry on, binds new ones and closes removed ones.
 * A workload's own TCP listeners ("listen on" in its block) are bound and
 * passed the same way, named by their workload.  The ports of
 * socket-activated workloads are bound and closed with them (sockact.c).
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"

#define LISTEN_BACKLOG	511

static int
listener_same(const struct listener_conf *a, const struct listener_conf *b)
{
	return (a->sslen == b->sslen && memcmp(&a->ss, &b->ss, a->sslen) == 0);
}

/* its port, for a message that names where it failed */
static unsigned int
listener_port(const struct listener_conf *l)
{
	const struct sockaddr_in6	*sin6 = (const void *)&l->ss;
	const struct sockaddr_in	*sin = (const void *)&l->ss;

	if (l->ss.ss_family == AF_INET6)
		return (ntohs(sin6->sin6_port));
	return (ntohs(sin->sin_port));
}

int
listener_bind(struct listener_conf *l)
{
	int	 fd, on = 1;

	if ((fd = socket(l->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    (l->ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &on, sizeof(on)) == -1) ||
	    bind(fd, (struct sockaddr *)&l->ss, l->sslen) == -1 ||
	    listen(fd, LISTEN_BACKLOG) == -1) {
		close(fd);
		return (-1);
	}
	l->fd = fd;
	return (0);
}

/*
 * Give every listener of nconf a socket, taking over oconf's where the
 * address is the same.  On failure nothing of oconf is touched and the
 * sockets bound here are closed again.
 */
int
listeners_bind(struct orchd_conf *nconf, struct orchd_conf *oconf,
    char *err, size_t errlen)
{
	struct listener_conf	*l, *o;

	TAILQ_FOREACH(l, &nconf->listeners, entry) {
		l->fd = -1;
		/* never an API workload's: api_listen.c moves those */
		if (oconf != NULL)
			TAILQ_FOREACH(o, &oconf->listeners, entry)
				if (o->fd != -1 && listener_same(l, o) &&
				    !api_listen_is(oconf, o)) {
					l->fd = o->fd;
					break;
				}
		if (l->fd != -1)
			continue;
		if (listener_bind(l) == -1) {
			snprintf(err, errlen, "%s%s%slisten on %s port %u: %s",
			    l->workload[0] != '\0' ? "workload " : "",
			    l->workload, l->workload[0] != '\0' ? ": " : "",
			    l->name, listener_port(l), strerror(errno));
			listeners_close(nconf, oconf);
			return (-1);
		}
	}
	/* the ports of socket-activated workloads, bound alike */
	if (sockacts_bind(nconf, oconf, err, errlen) == -1) {
		listeners_close(nconf, oconf);
		return (-1);
	}
	/* the sockets moved to nconf are no longer oconf's to close */
	if (oconf != NULL)
		TAILQ_FOREACH(o, &oconf->listeners, entry)
			TAILQ_FOREACH(l, &nconf->listeners, entry)
				if (l->fd == o->fd)
					o->fd = -1;
	return (0);
}

/* close conf's sockets, except those that keep belonging to keep */
void
listeners_close(struct orchd_conf *conf, struct orchd_conf *keep)
{
	struct listener_conf	*l, *k;
	int			 kept;

	sockacts_close(conf, keep);
	TAILQ_FOREACH(l, &conf->listeners, entry) {
		if (l->fd == -1)
			continue;
		kept = 0;
		if (keep != NULL)
			TAILQ_FOREACH(k, &keep->listeners, entry)
				if (k->fd == l->fd)
					kept = 1;
		if (!kept)
			close(l->fd);
		l->fd = -1;
	}
}

/* to the gateway: a duplicate of each socket, the parent keeps its own */
void
listeners_send(struct orchd *env)
{
	struct listener_conf	*l;
	struct ctl_listener	 cl;
	int			 fd;

	TAILQ_FOREACH(l, &env->conf->listeners, entry) {
		memset(&cl, 0, sizeof(cl));
		strlcpy(cl.name, l->name, sizeof(cl.name));
		cl.api = l->api;
		cl.tls = l->tls;
		cl.http2 = l->http2;
		cl.acme = l->acme;
		cl.redirect = l->redirect;
		cl.redirect_port = l->redirect_port;
		cl.hsts = l->hsts;
		cl.hsts_age = l->hsts_age;
		cl.hsts_sub = l->hsts_sub;
		strlcpy(cl.workload, l->workload, sizeof(cl.workload));
		if ((fd = dup(l->fd)) == -1)
			fatal("%s: dup", __func__);
		if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_LISTENER, 0,
		    fd, &cl, sizeof(cl)) == -1)
			fatal("%s: compose", __func__);
	}
}
