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
 * NAME=value.  What fails is refused with the reason, and the spawner
 * runs on.
 */

#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "spawner.h"

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
	if (nfds < 1 || nfds > SP_FDS || h->nfds != nfds)
		return ("descriptors out of step");
	if (h->cgdir != 0 && (h->cgdir != 1 || nfds < 3))
		return ("cgroup directory out of step");
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
	    (bad = sp_check_ids(ids, &r->hdr)) != NULL ||
	    (bad = sp_check_strings(data, len, r)) != NULL) {
		(void)snprintf(why, whylen, "%s", bad);
		return (-1);
	}
	return (0);
}
