/*
 * The directories systemd makes for orchd.service (StateDirectory=,
 * RuntimeDirectory=) and the one the parent makes itself.  systemd makes
 * /var/lib/orchd root's, mode 0755, and at each start gives back to root
 * whatever it finds owned by another user below it; the database's
 * directory must be the store's, 0700.  The parent takes it back, but
 * only a directory that systemd says it made ($STATE_DIRECTORY): never
 * one of root's an operator merely named.
 *
 * A database directory an operator made by hand is given to the user
 * only when nothing of anyone's could be lost or exposed by it: root's,
 * empty, writable by root alone, and named for orchd (its last name holds
 * "orchd"), as "mkdir /var/lib/orchd" makes it.  Any other that is not
 * the user's stops the start, and orchd -n, with what it needs.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "parent.h"

/* dir is one of the colon-separated $STATE_DIRECTORY */
static int
statedir_listed(const char *dir)
{
	const char	*s, *end;
	size_t		 n = strlen(dir);

	if ((s = getenv("STATE_DIRECTORY")) == NULL)
		return (0);
	for (; *s != '\0'; s = *end == ':' ? end + 1 : end) {
		if ((end = strchr(s, ':')) == NULL)
			end = s + strlen(s);
		if ((size_t)(end - s) == n && strncmp(s, dir, n) == 0)
			return (1);
	}
	return (0);
}

/*
 * The database's directory, if systemd made it: the store's, 0700, and
 * so are the files in it systemd gave to root (the database, its
 * journal, write-ahead log and shared memory).  Through descriptors, no
 * link followed.
 */
void
statedir_take(const char *dir, uid_t uid, gid_t gid)
{
	struct stat	 sb;
	struct dirent	*de;
	DIR		*d;
	int		 fd, dfd;

	if (!statedir_listed(dir))
		return;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fatal("state directory %s", dir);
	if (fstat(fd, &sb) == -1)
		fatal("state directory %s", dir);
	if ((sb.st_uid != uid || sb.st_gid != gid) &&
	    fchown(fd, uid, gid) == -1)
		fatal("chown %s", dir);
	if ((sb.st_mode & 07777) != 0700 && fchmod(fd, 0700) == -1)
		fatal("chmod %s", dir);
	if ((dfd = dup(fd)) == -1 || (d = fdopendir(dfd)) == NULL)
		fatal("state directory %s", dir);
	while ((de = readdir(d)) != NULL) {
		if (fstatat(fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (!S_ISREG(sb.st_mode) || sb.st_uid != 0)
			continue;
		if (fchownat(fd, de->d_name, uid, gid,
		    AT_SYMLINK_NOFOLLOW) == -1)
			log_warn("chown %s/%s", dir, de->d_name);
	}
	closedir(d);
	close(fd);
	log_debug("state directory %s: the store's", dir);
}

/* nothing in the directory fd but . and .. */
static int
statedir_empty(int fd)
{
	struct dirent	*de;
	DIR		*d;
	int		 dfd, empty = 1;

	if ((dfd = dup(fd)) == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		return (0);
	}
	while (empty && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return (empty);
}

/* the directory that holds dir is one */
static int
statedir_parent_ok(const char *dir)
{
	struct stat	 sb;
	char		 tmp[PATH_MAX];

	if (strlcpy(tmp, dir, sizeof(tmp)) >= sizeof(tmp))
		return (0);
	if (stat(dirname(tmp), &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		errno = ENOENT;
		return (0);
	}
	return (1);
}

/*
 * The database's directory dir, found there (not made here), for the
 * store that runs as user (uid, gid): 0 if it is the user's, or was
 * given to it (apply; only said, for orchd -n), else -1 and why in err.
 * A directory that is not there is mkdir's to make, and one systemd made
 * statedir_take()'s to give: both fine here.
 */
int
statedir_database(const char *dir, const char *user, uid_t uid, gid_t gid,
    int apply, char *err, size_t len)
{
	struct stat	 sb;
	struct passwd	*pw;
	const char	*base;
	char		 owner[64];
	int		 fd, r = -1;

	if (statedir_listed(dir))
		return (0);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		/* made at start, one level: its parent must be there */
		if (errno == ENOENT && statedir_parent_ok(dir))
			return (0);
		(void)snprintf(err, len, "database directory %s: %s%s", dir,
		    strerror(errno), errno == ENOENT ? " (orchd makes it, "
		    "but not the directories above it)" : "");
		return (-1);
	}
	if (fstat(fd, &sb) == -1) {
		(void)snprintf(err, len, "database directory %s: %s", dir,
		    strerror(errno));
		goto done;
	}
	if (sb.st_uid == uid) {
		r = 0;
		goto done;
	}
	base = (base = strrchr(dir, '/')) != NULL ? base + 1 : dir;
	if (sb.st_uid == 0 && (sb.st_mode & 022) == 0 &&
	    strstr(base, "orchd") != NULL && statedir_empty(fd)) {
		if (!apply)
			r = 0;
		else if (fchown(fd, uid, gid) == -1 || fchmod(fd, 0700) == -1)
			(void)snprintf(err, len, "database directory %s: "
			    "giving it to %s: %s", dir, user, strerror(errno));
		else {
			log_info("database directory %s: root's and empty, "
			    "given to %s, mode 0700", dir, user);
			r = 0;
		}
		goto done;
	}
	if ((pw = users_getpwuid(sb.st_uid)) != NULL)
		(void)strlcpy(owner, pw->pw_name, sizeof(owner));
	else
		(void)snprintf(owner, sizeof(owner), "uid %u",
		    (unsigned)sb.st_uid);
	(void)snprintf(err, len, "database directory %s is owned by %s, "
	    "mode %04o: the store runs as %s and needs it its own, mode 0700 "
	    "(chown %s %s && chmod 0700 %s); orchd gives it only a directory "
	    "systemd made, or an empty one of root's named for orchd", dir,
	    owner, (unsigned)(sb.st_mode & 07777), user, user, dir, dir);
 done:
	close(fd);
	return (r);
}

/*
 * The control socket's directory (/run/orchd by default), made root's,
 * mode 0755, if missing: systemd's RuntimeDirectory= makes it too, but
 * not when orchd starts otherwise.  One level only: a missing parent is
 * a mistake in the configuration, not something to build.
 */
void
statedir_socket(const char *sock)
{
	char	 tmp[PATH_MAX], *dir;

	if (strlcpy(tmp, sock, sizeof(tmp)) >= sizeof(tmp))
		fatalx("control socket path too long: %s", sock);
	dir = dirname(tmp);
	if (mkdir(dir, 0755) == 0) {
		/* under our umask: orchctl users must reach the socket */
		if (chmod(dir, 0755) == -1)
			fatal("chmod %s", dir);
		log_debug("made %s", dir);
	} else if (errno != EEXIST)
		fatal("control socket directory %s", dir);
}
