/*
 * The directories systemd makes for orchd.service (StateDirectory=,
 * RuntimeDirectory=) and the one the parent makes itself.  systemd makes
 * /var/lib/orchd root's, mode 0755, and at each start gives back to root
 * whatever it finds owned by another user below it; the database's
 * directory must be the store's, 0700.  The parent takes it back, but
 * only a directory that systemd says it made ($STATE_DIRECTORY): never
 * one of root's an operator merely named.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
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
