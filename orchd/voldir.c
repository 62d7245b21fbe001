/*
 * Volumes at the moment of use: the parent runs this before runtimed
 * hands Docker a container to create or start (orchd/usecheck.c).
 *
 * An API workload never names a host path.  Its volume's source is a
 * name, and the directory is ROOT/INSTANCE/WORKLOAD/NAME, ROOT the "api
 * allow volume" of orchd.conf and INSTANCE this orchd's instance name,
 * made here at each use by a walk that follows no link: ROOT is opened
 * from "/" one component at a time with O_NOFOLLOW, then INSTANCE,
 * WORKLOAD and NAME under it, each by openat(2) on the
 * directory opened before, and each checked by fstat(2) of what was
 * opened, never by its name again.  Every directory from "/" to ROOT
 * must be root's and writable by no one else, or sticky (/tmp: then no
 * one else may rename or remove root's entries in it); ROOT,
 * ROOT/INSTANCE and ROOT/INSTANCE/WORKLOAD must be root's and writable
 * by root alone (the last two are made 0755); NAME is made 0700 and
 * given to the workload's uid.  So nothing above the mount point is a
 * workload's to change, and no link can be planted there between this
 * walk and Docker's mount of the same names.  What lies below the mount point is
 * the workload's own; Docker mounts NAME itself and resolves nothing in
 * it.  A link found where a directory should be is refused, never
 * followed, never replaced: whoever planted it had root.
 *
 * orchd.conf's volumes are host paths, the operator's: they are resolved
 * again here, where they lead now, and checked against the forbidden
 * paths once more (hostpath_at_use).
 *
 * "Root" is the parent's own user: geteuid(), 0 when orchd runs as root.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "parent.h"
#include "units.h"
#include "vdopen.h"
#include "workload.h"

/*
 * name in dfd (path, for the messages), made with mode if it is not
 * there, opened without following a link.  Its fd and *made, or -1 with
 * why.  A link there, dangling or not, stays as it is: mkdirat(2)
 * creates nothing through one.
 */
static int
vd_sub(int dfd, const char *name, const char *path, mode_t mode, int *made,
    char *why, size_t len)
{
	int	 fd;

	*made = 0;
	if (mkdirat(dfd, name, mode) == 0)
		*made = 1;
	else if (errno != EEXIST)
		return (vd_fail(why, len, "%s: %s", path, strerror(errno)));
	if ((fd = vd_openat(dfd, name)) == -1)
		return (vd_open_failed(dfd, name, path, why, len));
	/* not the umask's to say */
	if (*made && fchmod(fd, mode) == -1) {
		close(fd);
		return (vd_fail(why, len, "%s: %s", path, strerror(errno)));
	}
	return (fd);
}

/*
 * Make sure of ROOT/INSTANCE/WORKLOAD/NAME: owner is root (the parent's
 * user), uid the workload's, who gets NAME (as owner, nothing is
 * given).  INSTANCE keeps two orchd instances that share a root, and
 * a workload's name, apart: each has its own uids, and neither ever
 * sees, or gives away, the other's files.  0, or -1 with why; nothing
 * is ever made outside ROOT.
 */
int
voldir_make(const char *root, const char *inst, const char *wl,
    const char *name, uid_t owner, uid_t uid, char *why, size_t len)
{
	struct stat	 st;
	char		 iroot[ORCHD_VOLROOT_MAX], path[ORCHD_VOLROOT_MAX];
	int		 rfd = -1, ifd = -1, wfd = -1, nfd = -1, made, r = -1;

	if (!valid_workload_name(wl))
		return (vd_fail(why, len, "invalid workload name"));
	if (!valid_volume_name(inst))
		return (vd_fail(why, len, "invalid instance name"));
	if (!valid_volume_name(name))
		return (vd_fail(why, len, "volume \"%s\": not a name",
		    valid_text(name) ? name : "?"));
	if ((rfd = vd_open_root(root, owner, why, len)) == -1)
		return (-1);
	if (volume_root_instance(root, inst, iroot, sizeof(iroot)) == -1 ||
	    volume_api_path(iroot, wl, name, path, sizeof(path)) == -1) {
		(void)vd_fail(why, len, "volume \"%s\": path too long", name);
		goto done;
	}
	if ((ifd = vd_sub(rfd, inst, iroot, 0755, &made, why, len)) == -1 ||
	    vd_dir_ok(ifd, iroot, owner, 0, why, len) == -1)
		goto done;
	(void)volume_api_path(iroot, wl, "", path, sizeof(path));
	path[strlen(path) - 1] = '\0';		/* ROOT/INSTANCE/WORKLOAD */
	if ((wfd = vd_sub(ifd, wl, path, 0755, &made, why, len)) == -1 ||
	    vd_dir_ok(wfd, path, owner, 0, why, len) == -1)
		goto done;
	(void)volume_api_path(iroot, wl, name, path, sizeof(path));
	if ((nfd = vd_sub(wfd, name, path, 0700, &made, why, len)) == -1)
		goto done;
	if (fstat(nfd, &st) == -1) {
		(void)vd_fail(why, len, "%s: %s", path, strerror(errno));
		goto done;
	}
	/* ROOT/INSTANCE/WORKLOAD is root's alone: whatever is in it, we made */
	if (uid != owner && (st.st_uid != uid || st.st_gid != uid) &&
	    fchown(nfd, uid, uid) == -1) {
		(void)vd_fail(why, len, "%s: %s", path, strerror(errno));
		goto done;
	}
	r = 0;
 done:
	if (nfd != -1)
		close(nfd);
	if (wfd != -1)
		close(wfd);
	if (ifd != -1)
		close(ifd);
	close(rfd);
	return (r);
}

/*
 * An orchd.conf volume, where it leads now: as hostpath_forbidden()
 * checks it, and where it does not exist (Docker would make it), where
 * its deepest existing directory leads, with the rest after it.  0, or
 * -1 with why.
 */
int
hostpath_at_use(const char *path, const struct orchd_conf *conf, char *why,
    size_t len)
{
	char	 npath[PATH_MAX], part[PATH_MAX], rpath[PATH_MAX];
	char	 joined[PATH_MAX];
	char	*slash;
	int	 n;

	if (hostpath_forbidden(path, conf, why, len) == -1)
		return (-1);
	if (hostpath_normalize(path, npath, sizeof(npath), why, len) == -1)
		return (-1);
	if (realpath(npath, rpath) != NULL || errno != ENOENT)
		return (0);	/* checked just now, where it leads */
	/* the deepest part that exists ("/" does), the rest after it */
	(void)strlcpy(part, npath, sizeof(part));
	while ((slash = strrchr(part, '/')) != NULL) {
		if (slash == part)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (realpath(part, rpath) == NULL) {
			if (slash == part)
				return (0);
			continue;
		}
		n = snprintf(joined, sizeof(joined), "%s%s",
		    strcmp(rpath, "/") == 0 ? "" : rpath,
		    npath + (slash == part ? 0 : strlen(part)));
		if (n < 0 || (size_t)n >= sizeof(joined))
			return (vd_fail(why, len, "host path \"%s\" too long",
			    path));
		if (strcmp(joined, npath) == 0)
			return (0);
		if (hostpath_forbidden(joined, conf, why, len) == -1)
			return (-1);
		return (0);
	}
	return (0);
}
