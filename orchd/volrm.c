/*
 * A deleted API workload's volumes, removed when its delete asked for it
 * (orchctl delete --volumes, delete --project NAME --volumes, the API's
 * DELETE ...?volumes=true): the directory ROOT/INSTANCE/WORKLOAD that
 * voldir.c made, and all in it.  Root's work: the workload's files are
 * its uid's, ROOT/INSTANCE/WORKLOAD is root's.
 *
 * What is removed is named by the workload's name alone, a name as
 * valid_workload_name() allows (no '/', no "..", no pattern): never a
 * prefix, never a glob, never another workload's directory.  The walk
 * follows no link: ROOT is opened as voldir.c opens it, every directory
 * below by openat(2) with O_NOFOLLOW and checked by fstat(2) of what
 * was opened; a link is removed as a link, never followed; a directory
 * on another file system (a mount the workload could not make, but
 * someone did) stops the walk there, and is left with what leads to it.
 * The walk is bounded in depth and in entries: beyond, it stops and
 * says so, and what is left stays for the operator.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "parent.h"
#include "units.h"
#include "workload.h"

#define VOLRM_DEPTH	64		/* directories deep, at most */
#define VOLRM_ENTRIES	1000000		/* entries removed, at most */

struct volrm {
	dev_t		 dev;		/* ROOT's file system */
	size_t		 entries;
	char		*why;
	size_t		 len;
};

static int	rm_below(struct volrm *, int, const char *, int);

/* a directory name in dfd: what is in it, then itself */
static int
rm_dir(struct volrm *v, int dfd, const char *name, const char *path,
    int depth)
{
	struct stat	 st;
	int		 fd, r;

	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		/* replaced meanwhile by a link or a file: remove that */
		if (errno == ENOTDIR || errno == ELOOP)
			return (unlinkat(dfd, name, 0) == -1 && errno != ENOENT ?
			    -1 : 0);
		(void)snprintf(v->why, v->len, "%s/%s: %s", path, name,
		    strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1) {
		(void)snprintf(v->why, v->len, "%s/%s: %s", path, name,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	if (st.st_dev != v->dev) {
		(void)snprintf(v->why, v->len, "%s/%s: another file system: "
		    "left", path, name);
		close(fd);
		return (-1);
	}
	r = rm_below(v, fd, path, depth + 1);
	close(fd);
	if (r == -1)
		return (-1);
	if (unlinkat(dfd, name, AT_REMOVEDIR) == -1 && errno != ENOENT) {
		(void)snprintf(v->why, v->len, "%s/%s: %s", path, name,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* everything in the directory fd (path, for the messages) */
static int
rm_below(struct volrm *v, int fd, const char *path, int depth)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 dfd, r = 0;

	if (depth > VOLRM_DEPTH) {
		(void)snprintf(v->why, v->len, "%s: more than %d directories "
		    "deep: left", path, VOLRM_DEPTH);
		return (-1);
	}
	if ((dfd = dup(fd)) == -1 || (d = fdopendir(dfd)) == NULL) {
		(void)snprintf(v->why, v->len, "%s: %s", path,
		    strerror(errno));
		if (dfd != -1)
			close(dfd);
		return (-1);
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++v->entries > VOLRM_ENTRIES) {
			(void)snprintf(v->why, v->len, "%s: more than %d "
			    "entries: the rest left", path, VOLRM_ENTRIES);
			r = -1;
			break;
		}
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno == ENOENT)
				continue;
			(void)snprintf(v->why, v->len, "%s/%s: %s", path,
			    de->d_name, strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode))
			r = rm_dir(v, fd, de->d_name, path, depth);
		else if (unlinkat(fd, de->d_name, 0) == -1 &&
		    errno != ENOENT) {
			(void)snprintf(v->why, v->len, "%s/%s: %s", path,
			    de->d_name, strerror(errno));
			r = -1;
		}
	}
	closedir(d);
	return (r);
}

/*
 * Remove ROOT/INSTANCE/name, name a workload deleted.  0 when it is gone
 * or was never made (no "api allow volume", no volume), or -1 with why.
 */
int
volrm_workload(const struct orchd_conf *conf, const char *name, char *why,
    size_t len)
{
	struct volrm	 v;
	struct stat	 st;
	char		 inst[ORCHD_INSTANCE_MAX], path[ORCHD_VOLROOT_MAX];
	const char	*root;
	uid_t		 owner = geteuid();
	int		 rfd, ifd, r, saved;

	if (!valid_workload_name(name)) {
		(void)snprintf(why, len, "invalid workload name");
		return (-1);
	}
	if (TAILQ_EMPTY(&conf->api_allow_volumes))
		return (0);
	root = TAILQ_FIRST(&conf->api_allow_volumes)->str;
	instance_name(conf, inst, sizeof(inst));
	if (volume_root_instance(root, inst, path, sizeof(path)) == -1) {
		(void)snprintf(why, len, "volume root: path too long");
		return (-1);
	}
	if ((rfd = vd_open_root(root, owner, why, len)) == -1)
		return (-1);
	if ((ifd = openat(rfd, inst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		saved = errno;
		close(rfd);
		if (saved == ENOENT)
			return (0);
		(void)snprintf(why, len, "%s: %s", path, strerror(saved));
		return (-1);
	}
	close(rfd);
	memset(&v, 0, sizeof(v));
	if (vd_dir_ok(ifd, path, owner, 0, why, len) == -1 ||
	    fstat(ifd, &st) == -1) {
		close(ifd);
		return (-1);
	}
	/* the walk stays on ROOT/INSTANCE's file system, NAME included */
	v.dev = st.st_dev;
	if (fstatat(ifd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		saved = errno;
		close(ifd);
		if (saved == ENOENT)
			return (0);
		(void)snprintf(why, len, "%s/%s: %s", path, name,
		    strerror(saved));
		return (-1);
	}
	v.why = why;
	v.len = len;
	/* ours is a directory of root's: anything else is left */
	if (!S_ISDIR(st.st_mode) || st.st_uid != owner) {
		(void)snprintf(why, len, "%s/%s: not a directory of root's: "
		    "left", path, name);
		close(ifd);
		return (-1);
	}
	r = rm_dir(&v, ifd, name, path, 0);
	close(ifd);
	if (r == 0)
		log_info("workload %s: its volumes removed (%zu entries)",
		    name, v.entries);
	return (r);
}
