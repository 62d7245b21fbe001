/*
 * The walk to a volume root that follows no link, shared by the parent
 * (orchd/voldir.c, which makes ROOT/INSTANCE/WORKLOAD/NAME before a
 * container starts) and the spawner (spawnerd/volrm.c, which removes a
 * deleted workload's ROOT/INSTANCE/WORKLOAD in a child of its own): ROOT
 * is opened from "/" one component at a time with O_NOFOLLOW, and every
 * directory on the way is checked by fstat(2) of what was opened: root's
 * (the caller's user, "owner") and writable by no one else, or sticky
 * above ROOT.  Each function says why it failed in why, and returns -1.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vdopen.h"

#define VOLDIR_DEPTH	64	/* components of ROOT, at most */

int
vd_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return (-1);
}

/*
 * fd, a directory opened as path: root's (or owner's), and writable by
 * nobody else, unless sticky may do (above ROOT).  0, or -1 with why.
 */
int
vd_dir_ok(int fd, const char *path, uid_t owner, int sticky, char *why,
    size_t len)
{
	struct stat	 st;

	if (fstat(fd, &st) == -1)
		return (vd_fail(why, len, "%s: %s", path, strerror(errno)));
	if (!S_ISDIR(st.st_mode))
		return (vd_fail(why, len, "%s is not a directory", path));
	if (st.st_uid != owner && (!sticky || st.st_uid != 0))
		return (vd_fail(why, len, "%s belongs to uid %u, not root",
		    path, (unsigned)st.st_uid));
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (!sticky || (st.st_mode & S_ISVTX) == 0))
		return (vd_fail(why, len, "%s is writable by others than root",
		    path));
	return (0);
}

/* why openat(dfd, name, O_NOFOLLOW) failed, for path */
int
vd_open_failed(int dfd, const char *name, const char *path, char *why,
    size_t len)
{
	struct stat	 st;
	int		 saved = errno;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return (vd_fail(why, len, "%s is a symbolic link: refused",
		    path));
	if (saved == ELOOP)
		return (vd_fail(why, len, "%s is a symbolic link: refused",
		    path));
	return (vd_fail(why, len, "%s: %s", path, strerror(saved)));
}

int
vd_openat(int dfd, const char *name)
{
	return (openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC));
}

/*
 * ROOT, absolute and normalised, opened from "/" without following a
 * link, every directory on the way checked.  Its fd, or -1 with why.
 */
int
vd_open_root(const char *root, uid_t owner, char *why, size_t len)
{
	char		 copy[PATH_MAX], sofar[PATH_MAX];
	char		*p, *next;
	int		 fd, nfd, depth = 0;

	if (root == NULL || root[0] != '/' ||
	    strlcpy(copy, root, sizeof(copy)) >= sizeof(copy))
		return (vd_fail(why, len, "api allow volume: no root"));
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (vd_fail(why, len, "/: %s", strerror(errno)));
	(void)strlcpy(sofar, "", sizeof(sofar));
	for (p = copy + 1; p != NULL && *p != '\0'; p = next) {
		if ((next = strchr(p, '/')) != NULL)
			*next++ = '\0';
		if (*p == '\0' || strcmp(p, ".") == 0 ||
		    strcmp(p, "..") == 0 || ++depth > VOLDIR_DEPTH) {
			close(fd);
			return (vd_fail(why, len, "api allow volume \"%s\": "
			    "not a plain path", root));
		}
		/* the one above it, now that it is known to lead further */
		if (vd_dir_ok(fd, sofar[0] == '\0' ? "/" : sofar, owner, 1,
		    why, len) == -1) {
			close(fd);
			return (-1);
		}
		(void)strlcat(sofar, "/", sizeof(sofar));
		(void)strlcat(sofar, p, sizeof(sofar));
		if ((nfd = vd_openat(fd, p)) == -1) {
			(void)vd_open_failed(fd, p, sofar, why, len);
			close(fd);
			return (-1);
		}
		close(fd);
		fd = nfd;
	}
	if (vd_dir_ok(fd, root, owner, 0, why, len) == -1) {
		close(fd);
		return (-1);
	}
	return (fd);
}

