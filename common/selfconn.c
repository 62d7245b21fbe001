/*
 * A TCP connect to a local port nobody listens on, when that port lies
 * in the kernel's ephemeral range, may be given that very port as its
 * own: TCP's simultaneous open then connects the socket to itself and
 * connect(2) succeeds.  Whoever probes or reaches a workload's port
 * (runtimed's readiness and busy checks, the gateway's upstreams) asks
 * sock_self() once its connect is done and takes a yes as a refusal:
 * nothing listens there, and the socket must be closed at once, for
 * while it lives it holds the port the workload is about to bind.  Nor
 * may its close be an orderly one: that leaves the pair in TIME_WAIT
 * for a minute, and a socket that never asked SO_REUSEADDR in TIME_WAIT
 * on the port makes the workload's bind fail (EADDRINUSE) all that
 * while.  So sock_self() sets its linger to 0: the close aborts it.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <string.h>

#include "selfconn.h"

/* the port of a TCP endpoint, or -1 */
static int
end_port(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return (((const struct sockaddr_in *)sa)->sin_port);
	case AF_INET6:
		return (((const struct sockaddr_in6 *)sa)->sin6_port);
	default:
		return (-1);
	}
}

/* 1 if a and b are the same TCP endpoint (address and port) */
static int
same_end(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in	*a4, *b4;
	const struct sockaddr_in6	*a6, *b6;

	if (a->sa_family != b->sa_family || end_port(a) != end_port(b))
		return (0);
	switch (a->sa_family) {
	case AF_INET:
		a4 = (const struct sockaddr_in *)a;
		b4 = (const struct sockaddr_in *)b;
		return (a4->sin_addr.s_addr == b4->sin_addr.s_addr);
	case AF_INET6:
		a6 = (const struct sockaddr_in6 *)a;
		b6 = (const struct sockaddr_in6 *)b;
		return (memcmp(&a6->sin6_addr, &b6->sin6_addr,
		    sizeof(a6->sin6_addr)) == 0);
	default:
		return (0);
	}
}

/*
 * 1 if fd, whose connect to "to" is done, is connected to itself, else
 * 0, also when it cannot tell (the connect's own error is the caller's
 * word).  Its own port is not the one it connected to: no (one system
 * call, as the gateway asks it of every upstream).  Else its own
 * address and its peer's, in full, say (to may be a wildcard address
 * the kernel took for a local one).  If 1, fd's close will abort it.
 */
int
sock_self(int fd, const struct sockaddr *to)
{
	struct sockaddr_storage	 me, peer;
	struct linger		 lg = { 1, 0 };	/* an abortive close */
	socklen_t		 mlen = sizeof(me), plen = sizeof(peer);

	memset(&me, 0, sizeof(me));
	memset(&peer, 0, sizeof(peer));
	if (getsockname(fd, (struct sockaddr *)&me, &mlen) == -1 ||
	    mlen > sizeof(me) || me.ss_family != to->sa_family ||
	    end_port((struct sockaddr *)&me) != end_port(to))
		return (0);
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) == -1 ||
	    plen > sizeof(peer))
		return (0);
	if (!same_end((struct sockaddr *)&me, (struct sockaddr *)&peer))
		return (0);
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return (1);
}
