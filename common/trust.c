/*
 * The trust rules every workload obeys, whatever its source (orchd.conf,
 * the API, the store): the host paths no volume may touch, and the users
 * that are root.  The parser reports a breach at file:line, the parent's
 * policy (orchd/policy.c) answers the API's with 403; both ask here, so
 * the rule is written once.  The parent alone checks them: the
 * children take what it accepted.
 *
 * A host path is compared as written, once normalised ("//" and "/./"
 * collapsed, ".." refused outright), and again as realpath(3) resolves
 * it when it exists: a symbolic link left by a workload in a directory
 * it may write must not lead a later volume to "/".  Where a volume
 * leads is checked again at each use (voldir.c); the API's volumes are
 * names, made by the parent under its root, never host paths.  Some
 * paths are allowed but root on the host for whoever writes there:
 * orchd.conf's volumes on them are warned about.
 */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "orchd.h"
#include "workload.h"
#include "conf.h"

/* system directories: a volume may not be, contain or lie under them */
static const char *const forbidden_system[] = {
	"/proc", "/sys", "/dev", "/etc", "/boot", "/run", "/var/run"
};

enum relation {
	REL_NONE = 0,
	REL_IS,			/* the same path */
	REL_UNDER,		/* path lies under dir */
	REL_CONTAINS		/* path is an ancestor of dir */
};

static int
refuse(char *why, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	if (why != NULL && len > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return (-1);
}

/*
 * in, absolute, into out without empty or "." components and without a
 * trailing slash ("/" stays "/").  0, or -1 with why: relative, "..",
 * too long.
 */
int
hostpath_normalize(const char *in, char *out, size_t outlen, char *why,
    size_t len)
{
	const char	*p = in, *end;
	size_t		 o = 0, n;

	if (in == NULL || in[0] != '/')
		return (refuse(why, len, "host path \"%s\" must be absolute",
		    in != NULL ? in : ""));
	if (outlen < 2)
		return (refuse(why, len, "host path too long"));
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		if ((end = strchr(p, '/')) == NULL)
			end = p + strlen(p);
		n = end - p;
		if (n == 1 && p[0] == '.') {
			p = end;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return (refuse(why, len, "host path \"%s\": \"..\" is "
			    "not allowed", in));
		if (o + 1 + n + 1 > outlen)
			return (refuse(why, len, "host path \"%s\" too long",
			    in));
		out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p = end;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return (0);
}

/* both normalised */
static enum relation
relation(const char *path, const char *dir)
{
	size_t	 pl = strlen(path), dl = strlen(dir);

	if (strcmp(path, dir) == 0)
		return (REL_IS);
	if (strcmp(path, "/") == 0)
		return (REL_CONTAINS);
	if (strcmp(dir, "/") == 0)
		return (REL_UNDER);
	if (pl > dl && strncmp(path, dir, dl) == 0 && path[dl] == '/')
		return (REL_UNDER);
	if (dl > pl && strncmp(dir, path, pl) == 0 && dir[pl] == '/')
		return (REL_CONTAINS);
	return (REL_NONE);
}

/*
 * path, normalised (or resolved when rpath), against one forbidden
 * directory dir, as written and as resolved.  orig is the volume as
 * written, for the message; what names dir for the operator.
 */
static int
check_one(const char *orig, const char *path, int resolved, const char *dir,
    const char *what, char *why, size_t len)
{
	char		 ndir[PATH_MAX], rdir[PATH_MAX];
	const char	*dirs[2];
	enum relation	 rel;
	int		 j, ndirs = 0;

	if (dir == NULL || hostpath_normalize(dir, ndir, sizeof(ndir), NULL,
	    0) == -1)
		return (0);
	dirs[ndirs++] = ndir;
	if (realpath(dir, rdir) != NULL && strcmp(rdir, ndir) != 0)
		dirs[ndirs++] = rdir;
	for (j = 0; j < ndirs; j++) {
		if ((rel = relation(path, dirs[j])) == REL_NONE)
			continue;
		return (refuse(why, len, "host path \"%s\"%s%s%s %s %s (%s): "
		    "no volume may be, contain or lie under it", orig,
		    resolved ? " (resolved: " : "", resolved ? path : "",
		    resolved ? ")" : "", rel == REL_IS ? "is" :
		    rel == REL_UNDER ? "lies under" : "contains", dirs[j],
		    what));
	}
	return (0);
}

/* the directory part of path, absolute: the config file may be relative */
static int
dir_of(const char *path, char *out, size_t outlen)
{
	char	 copy[PATH_MAX], *d;

	if (path == NULL || strlcpy(copy, path, sizeof(copy)) >= sizeof(copy))
		return (-1);
	d = dirname(copy);
	if (realpath(d, out) != NULL)
		return (0);
	if (d[0] != '/' || strlcpy(out, d, outlen) >= outlen)
		return (-1);
	return (0);
}

/* path, normalised or resolved, against every forbidden directory */
static int
check_all(const char *orig, const char *path, int resolved,
    const struct orchd_conf *conf, char *why, size_t len)
{
	char		 dir[PATH_MAX];
	size_t		 i;

	if (strcmp(path, "/") == 0)
		return (refuse(why, len, "host path \"%s\"%s is / (the whole "
		    "host): no volume may be, contain or lie under it", orig,
		    resolved ? " (resolved)" : ""));
	for (i = 0; i < nitems(forbidden_system); i++)
		if (check_one(orig, path, resolved, forbidden_system[i],
		    "a system directory", why, len) == -1)
			return (-1);
	if (conf == NULL)
		return (0);
	if (check_one(orig, path, resolved, conf->docker_socket != NULL ?
	    conf->docker_socket : ORCHD_DOCKER_SOCKET, "the docker socket",
	    why, len) == -1)
		return (-1);
	if (dir_of(conf->database, dir, sizeof(dir)) == 0 &&
	    check_one(orig, path, resolved, dir, "the database's directory",
	    why, len) == -1)
		return (-1);
	if (dir_of(conf->conffile, dir, sizeof(dir)) == 0 &&
	    check_one(orig, path, resolved, dir, "the configuration file's "
	    "directory", why, len) == -1)
		return (-1);
	if (dir_of(conf->api_key_file, dir, sizeof(dir)) == 0 &&
	    check_one(orig, path, resolved, dir, "the api key file's "
	    "directory", why, len) == -1)
		return (-1);
	if (dir_of(conf->status_key_file, dir, sizeof(dir)) == 0 &&
	    check_one(orig, path, resolved, dir, "the status key file's "
	    "directory", why, len) == -1)
		return (-1);
	if (check_one(orig, path, resolved, conf->logdir, "the log directory",
	    why, len) == -1)
		return (-1);
	if (check_one(orig, path, resolved, conf->access_log, "the access log",
	    why, len) == -1)
		return (-1);
	return (0);
}

/*
 * May a volume's host path be mounted, by any workload?  0, or -1 with
 * why naming the rule.  conf gives orchd's own files; NULL checks the
 * system directories alone.  The path as written is checked first, then
 * where it leads if it exists.
 */
int
hostpath_forbidden(const char *path, const struct orchd_conf *conf,
    char *why, size_t len)
{
	char	 npath[PATH_MAX], rpath[PATH_MAX];

	if (hostpath_normalize(path, npath, sizeof(npath), why, len) == -1)
		return (-1);
	if (check_all(path, npath, 0, conf, why, len) == -1)
		return (-1);
	if (realpath(npath, rpath) != NULL && strcmp(rpath, npath) != 0 &&
	    check_all(path, rpath, 1, conf, why, len) == -1)
		return (-1);
	return (0);
}

/*
 * Where whoever may write is root on the host: root's home and keys,
 * the programs and libraries root runs, the container engine's state,
 * cron's tables, systemd's units.  The operator may still mount them
 * (orchd.conf is theirs): they are told so, not refused.
 */
static const char *const root_equivalent[] = {
	"/root", "/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64",
	"/libx32", "/var/lib/docker", "/var/lib/containerd",
	"/var/spool/cron", "/var/spool/anacron", "/var/lib/systemd"
};

/* path, normalised or resolved, against root_equivalent */
static int
root_equivalent_one(const char *orig, const char *path, int resolved,
    char *why, size_t len)
{
	enum relation	 rel;
	size_t		 i;

	for (i = 0; i < nitems(root_equivalent); i++) {
		if ((rel = relation(path, root_equivalent[i])) == REL_NONE)
			continue;
		(void)refuse(why, len, "host path \"%s\"%s%s%s %s %s: "
		    "whoever writes there, such as the workload, can become "
		    "root on the host", orig, resolved ? " (resolved: " : "",
		    resolved ? path : "", resolved ? ")" : "",
		    rel == REL_IS ? "is" : rel == REL_UNDER ? "lies under" :
		    "contains", root_equivalent[i]);
		return (1);
	}
	return (0);
}

/*
 * Is a volume's host path root on the host for whoever writes to it?
 * 1 with why, as written or where it leads; 0 if not, or if it cannot
 * be a host path at all (hostpath_forbidden() says why).
 */
int
hostpath_root_equivalent(const char *path, char *why, size_t len)
{
	char	 npath[PATH_MAX], rpath[PATH_MAX];

	if (hostpath_normalize(path, npath, sizeof(npath), NULL, 0) == -1)
		return (0);
	if (root_equivalent_one(path, npath, 0, why, len))
		return (1);
	if (realpath(npath, rpath) != NULL && strcmp(rpath, npath) != 0 &&
	    root_equivalent_one(path, rpath, 1, why, len))
		return (1);
	return (0);
}

/* "0", "root", "00": uid 0 however it is written */
static int
is_root_id(const char *s, size_t n)
{
	size_t	 i;

	if (n == 4 && strncmp(s, "root", 4) == 0)
		return (1);
	if (n == 0)
		return (0);
	for (i = 0; i < n; i++)
		if (s[i] != '0')
			return (0);
	return (1);
}

/*
 * Is user root: "root", "0", or for docker "root:GROUP", "0:GROUP",
 * and "USER:0", "USER:root" (group root)?
 */
int
user_is_root(const char *user)
{
	const char	*colon;

	if (user == NULL)
		return (0);
	if ((colon = strchr(user, ':')) == NULL)
		return (is_root_id(user, strlen(user)));
	return (is_root_id(user, colon - user) ||
	    is_root_id(colon + 1, strlen(colon + 1)));
}

/*
 * A workload's user against the root rule: a process workload never
 * runs as root; a docker one only with "allow root" (orchd.conf only).
 * 0, or -1 with why.
 */
int
workload_root_check(const struct workload_conf *wl, char *why, size_t len)
{
	if (!user_is_root(wl->user))
		return (0);
	if (wl->driver == DRIVER_PROCESS)
		return (refuse(why, len, "user \"%s\": a process workload "
		    "never runs as root", wl->user));
	if (!wl->allow_root)
		return (refuse(why, len, "user \"%s\" is root: a docker "
		    "workload runs as root only with \"allow root\"",
		    wl->user));
	return (0);
}
