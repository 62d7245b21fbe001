/*
 * An API workload's own TCP listeners ("listen": ["127.0.0.1:5432"]),
 * as orchd.conf's "listen on" in a workload block: the parent binds each
 * and passes it to the gateway with the configuration, named by its
 * workload, and a connection to it wakes that workload.  The policy
 * (policy_api_listens, policy_net.c) has allowed each one before:
 * loopback or an "api allow publish" address, a port from 1024 or an
 * "api allow publish port", never one of orchd's own, another
 * workload's or its own.
 *
 * They are bound when the workload enters the running configuration
 * (its creation or update once stored, the API's workloads at start)
 * and closed when it leaves it (delete, expiry, a reload whose policy
 * drops it); an update keeps the socket of an address it keeps.  A
 * reload moves them to the new configuration whole: a listener of the
 * file never takes over one of the API's (listen.c), it fails to bind
 * instead and the reload is refused.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "parent.h"
#include "workload.h"

/* is l a listener of an API workload of conf? */
int
api_listen_is(const struct orchd_conf *conf, const struct listener_conf *l)
{
	const struct workload_conf	*wc;

	if (l->workload[0] == '\0')
		return (0);
	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (wc->source == SOURCE_API &&
		    strcmp(wc->name, l->workload) == 0)
			return (1);
	return (0);
}

/* "ADDR:PORT" (numeric, the policy said) as a listener of name */
static struct listener_conf *
api_listen_new(const char *s, const char *name)
{
	struct listener_conf	*l;
	struct sockaddr_in	*sin;
	struct sockaddr_in6	*sin6;
	char			 addr[INET6_ADDRSTRLEN + 2], *bare = addr;
	int			 port;

	if (listen_split(s, addr, sizeof(addr), &port) == -1 ||
	    (l = calloc(1, sizeof(*l))) == NULL)
		return (NULL);
	if (addr[0] == '[') {
		bare = addr + 1;
		bare[strlen(bare) - 1] = '\0';
	}
	sin = (struct sockaddr_in *)&l->ss;
	sin6 = (struct sockaddr_in6 *)&l->ss;
	if (inet_pton(AF_INET, bare, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		l->sslen = sizeof(*sin);
	} else if (inet_pton(AF_INET6, bare, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		l->sslen = sizeof(*sin6);
	} else {
		free(l);
		return (NULL);
	}
	strlcpy(l->name, bare, sizeof(l->name));
	strlcpy(l->workload, name, sizeof(l->workload));
	l->fd = -1;
	return (l);
}

/* name's listener in conf at l's address, with its socket; or NULL */
static struct listener_conf *
api_listen_find(struct orchd_conf *conf, const char *name,
    const struct listener_conf *l)
{
	struct listener_conf	*o;

	TAILQ_FOREACH(o, &conf->listeners, entry)
		if (o->fd != -1 && strcmp(o->workload, name) == 0 &&
		    o->sslen == l->sslen && memcmp(&o->ss, &l->ss,
		    l->sslen) == 0)
			return (o);
	return (NULL);
}

/* name's listeners out of conf, their sockets closed */
void
api_listen_drop(struct orchd_conf *conf, const char *name)
{
	struct listener_conf	*l, *next;

	TAILQ_FOREACH_SAFE(l, &conf->listeners, entry, next) {
		if (l->workload[0] == '\0' || strcmp(l->workload, name) != 0)
			continue;
		TAILQ_REMOVE(&conf->listeners, l, entry);
		if (l->fd != -1)
			close(l->fd);
		free(l);
	}
}

/* 1 if a listener of nl already has l's socket address */
static int
api_listen_twice(const struct listenerlist *nl,
    const struct listener_conf *l)
{
	const struct listener_conf	*o;

	TAILQ_FOREACH(o, nl, entry)
		if (o->sslen == l->sslen && memcmp(&o->ss, &l->ss,
		    l->sslen) == 0)
			return (1);
	return (0);
}

/*
 * wc's listeners in conf, bound: those at an address it had already keep
 * their socket.  Two written apart ("[::1]:5000", "[0::1]:5000") but of
 * one address are refused: one socket cannot serve both.  0, or -1 with
 * err and conf as it was.
 */
int
api_listen_bind(struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	struct listenerlist	 nl;
	struct listener_conf	*l, *o;
	const struct strentry	*e;
	int			 r = 0;

	TAILQ_INIT(&nl);
	TAILQ_FOREACH(e, &wc->listens, entry) {
		if ((l = api_listen_new(e->str, wc->name)) == NULL) {
			(void)snprintf(err, len, "listen \"%s\": not an "
			    "address and port", e->str);
			r = -1;
			break;
		}
		if (api_listen_twice(&nl, l)) {
			(void)snprintf(err, len, "listen \"%s\": that address "
			    "and port twice", e->str);
			free(l);
			r = -1;
			break;
		}
		TAILQ_INSERT_TAIL(&nl, l, entry);
		/* looked for, not yet taken: a failure leaves conf whole */
		if (api_listen_find(conf, wc->name, l) != NULL)
			continue;
		if (listener_bind(l) == -1) {
			(void)snprintf(err, len, "listen on %s port %s: %s",
			    l->name, strrchr(e->str, ':') + 1,
			    strerror(errno));
			r = -1;
			break;
		}
	}
	if (r == -1) {
		while ((l = TAILQ_FIRST(&nl)) != NULL) {
			TAILQ_REMOVE(&nl, l, entry);
			if (l->fd != -1)
				close(l->fd);
			free(l);
		}
		return (-1);
	}
	/* now the kept sockets move, and the old listeners go */
	TAILQ_FOREACH(l, &nl, entry) {
		if (l->fd == -1 && (o = api_listen_find(conf, wc->name,
		    l)) != NULL) {
			l->fd = o->fd;
			o->fd = -1;
		}
		/* every one has its socket, or nothing above would pass */
		if (l->fd == -1)
			fatalx("%s: %s: a listener without a socket", __func__,
			    wc->name);
	}
	api_listen_drop(conf, wc->name);
	while ((l = TAILQ_FIRST(&nl)) != NULL) {
		TAILQ_REMOVE(&nl, l, entry);
		TAILQ_INSERT_TAIL(&conf->listeners, l, entry);
	}
	return (0);
}

/* a reload: name's listeners from oconf to nconf, their sockets kept */
void
api_listen_move(struct orchd_conf *nconf, struct orchd_conf *oconf,
    const char *name)
{
	struct listener_conf	*l, *next;

	TAILQ_FOREACH_SAFE(l, &oconf->listeners, entry, next) {
		if (l->workload[0] == '\0' || strcmp(l->workload, name) != 0)
			continue;
		TAILQ_REMOVE(&oconf->listeners, l, entry);
		TAILQ_INSERT_TAIL(&nconf->listeners, l, entry);
	}
}
