/*
 * The spawner's check of a request to start a process workload.
 *
 * The parent prepared the request and checked it against the
 * configuration and the policy (orchd/spawn.c).  The spawner checks it
 * again, alone, because it is the one process that can act on it: the
 * parent runs under a filter that forbids fork, exec and setuid, so a
 * parent taken over could only ask.  Whatever it asks, a workload never
 * runs as root, in group root, or as the daemons' uid or gid (a
 * supplementary group included); its words and variables are within
 * their bounds and each ends in NUL within the message, with nothing
 * after the directory; the directory is absolute; every variable is
 * NAME=value.  A socket to pass as fd 3 (socket activation) is a
 * listening TCP socket bound to the address and port the request names,
 * not a descriptor of anything else the parent holds.  The workload's
 * name is a valid one (its cgroup's directory is named for it: never a
 * path elsewhere), its cgroup's NAME or NAME@2, its memory, cpu, pids
 * and io limits within bounds.  What fails is refused with the reason,
 * and the spawner runs on.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "spawner.h"
#include "units.h"
#include "wlimits.h"

/* n strings, each ending in NUL, from *p within end */
static int
sp_strings(char **p, char *end, char **v, int n)
{
	char	*nul;
	int	 i;

	for (i = 0; i < n; i++) {
		if (*p >= end || (nul = memchr(*p, '\0', end - *p)) == NULL)
			return (-1);
		v[i] = *p;
		*p = nul + 1;
	}
	v[n] = NULL;
	return (0);
}

/* the counts of the header, and the fds that came before it */
static const char *
sp_check_counts(const struct sp_exec *h, int nfds)
{
	if (h->argc < 1 || h->argc > SP_ARGV_MAX)
		return ("words of the command out of bounds");
	if (h->nenv < 0 || h->nenv > SP_ENV_MAX)
		return ("variables out of bounds");
	if (h->ngroups < 0 || h->ngroups > SP_GROUPS_MAX)
		return ("groups out of bounds");
	if (h->sock != 0 && h->sock != 1)
		return ("socket activation out of step");
	if (nfds != 1 + h->sock || h->nfds != nfds)
		return ("descriptors out of step");
	return (NULL);
}

/* the cgroup it gets: named for it, its limits within bounds */
static const char *
sp_check_cgroup(const struct sp_exec *h)
{
	char	 err[128];
	size_t	 n = strlen(h->name);

	if (!valid_workload_name(h->name))
		return ("an invalid workload name");
	if (memchr(h->cgname, '\0', sizeof(h->cgname)) == NULL ||
	    strncmp(h->cgname, h->name, n) != 0 ||
	    (h->cgname[n] != '\0' && strcmp(h->cgname + n, "@2") != 0))
		return ("a cgroup not named for the workload");
	if (h->memory < 0)
		return ("a negative memory limit");
	if (limits_check(&h->lim, err, sizeof(err)) == -1)
		return ("cpu, pids or io limits out of bounds");
	return (NULL);
}

/* never root, never the daemons: the ids a workload takes */
static const char *
sp_check_ids(const struct sp_ids *ids, const struct sp_exec *h)
{
	int	 i;

	if (h->root != ids->root)
		return (ids->root ? "a workload of root's" :
		    "a change of user, not being root");
	if (!h->root)
		return (NULL);	/* it runs as we do, unprivileged */
	if (h->uid == 0 || h->gid == 0)
		return ("uid or gid 0");
	if (h->uid == ids->uid || h->gid == ids->gid)
		return ("the daemons' uid or gid");
	for (i = 0; i < h->ngroups; i++)
		if (h->groups[i] == 0 || h->groups[i] == ids->gid)
			return ("group root or the daemons' group");
	return (NULL);
}

/* the strings: argv, envp, the directory, and nothing after */
static const char *
sp_check_strings(char *data, size_t len, struct sp_req *r)
{
	char	*p = data + sizeof(r->hdr), *end = data + len, *nul;
	int	 i;

	if (sp_strings(&p, end, r->argv, r->hdr.argc) == -1 ||
	    sp_strings(&p, end, r->envp, r->hdr.nenv) == -1 ||
	    p >= end || (nul = memchr(p, '\0', end - p)) == NULL)
		return ("strings not ended within the message");
	if (nul + 1 != end)
		return ("bytes after the directory");
	r->dir = p;
	if (r->dir[0] != '/')
		return ("a directory that is not absolute");
	if (r->argv[0][0] == '\0')
		return ("an empty command");
	for (i = 0; i < r->hdr.nenv; i++)
		if ((p = strchr(r->envp[i], '=')) == NULL || p == r->envp[i])
			return ("a variable that is not NAME=value");
	return (NULL);
}

/*
 * data, len bytes, is an EXEC that came after nfds descriptors: 0 with
 * r filled (pointers into data), or -1 and why.
 */
int
sp_check(const struct sp_ids *ids, char *data, size_t len, int nfds,
    struct sp_req *r, char *why, size_t whylen)
{
	const char	*bad;

	memset(r, 0, sizeof(*r));
	if (len < sizeof(r->hdr)) {
		(void)snprintf(why, whylen, "short request");
		return (-1);
	}
	memcpy(&r->hdr, data, sizeof(r->hdr));
	r->hdr.name[sizeof(r->hdr.name) - 1] = '\0';
	r->hdr.user[sizeof(r->hdr.user) - 1] = '\0';
	if ((bad = sp_check_counts(&r->hdr, nfds)) != NULL ||
	    (bad = sp_check_cgroup(&r->hdr)) != NULL ||
	    (bad = sp_check_ids(ids, &r->hdr)) != NULL ||
	    (bad = sp_check_strings(data, len, r)) != NULL) {
		(void)snprintf(why, whylen, "%s", bad);
		return (-1);
	}
	return (0);
}

/* the address the socket is bound to is the one the request names */
static int
sp_sock_addr(const struct sp_exec *h, const struct sockaddr_storage *ss)
{
	const struct sockaddr_in	*a4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6	*a6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family != h->sockaddr.ss_family)
		return (-1);
	if (ss->ss_family == AF_INET)
		return (a4->sin_port == h->sockaddr.sin.sin_port &&
		    a4->sin_port != 0 && a4->sin_addr.s_addr ==
		    h->sockaddr.sin.sin_addr.s_addr ? 0 : -1);
	if (ss->ss_family == AF_INET6)
		return (a6->sin6_port == h->sockaddr.sin6.sin6_port &&
		    a6->sin6_port != 0 && memcmp(&a6->sin6_addr,
		    &h->sockaddr.sin6.sin6_addr, sizeof(a6->sin6_addr)) == 0 ?
		    0 : -1);
	return (-1);
}

/* an int option of fd's socket, or -1 */
static int
sp_sockopt(int fd, int opt)
{
	socklen_t	 len = sizeof(int);
	int		 v;

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) == -1 ||
	    len != sizeof(int))
		return (-1);
	return (v);
}

/*
 * Socket activation: the fd after the log must be a TCP socket that
 * listens, of the request's family, bound to its address and port.  0,
 * or -1 and why.  Nothing to check without one.
 */
int
sp_check_sock(const struct sp_req *r, char *why, size_t whylen)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl = sizeof(ss);
	int			 fd, dom;
	const char		*bad = NULL;

	if (!r->hdr.sock)
		return (0);
	fd = r->fds[1];
	dom = sp_sockopt(fd, SO_DOMAIN);
	if (sp_sockopt(fd, SO_TYPE) != SOCK_STREAM)
		bad = "not a stream socket";
	else if ((dom != AF_INET && dom != AF_INET6) ||
	    sp_sockopt(fd, SO_PROTOCOL) != IPPROTO_TCP)
		bad = "not a TCP socket";
	else if (sp_sockopt(fd, SO_ACCEPTCONN) != 1)
		bad = "not listening";
	else if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1 ||
	    sp_sock_addr(&r->hdr, &ss) == -1)
		bad = "not bound to the workload's address and port";
	if (bad == NULL)
		return (0);
	(void)snprintf(why, whylen, "socket activation: %s", bad);
	return (-1);
}
