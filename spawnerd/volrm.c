/*
 * A deleted API workload's volumes, removed when its delete asked for it
 * (orchctl delete --volumes, delete --project NAME --volumes, the API's
 * DELETE ...?volumes=true): the directory ROOT/INSTANCE/WORKLOAD that
 * the parent's voldir.c made, and all in it.  The spawner does it in a
 * child of its own (IMSG_SP_VOLRM), so that a volume of a million files
 * stalls neither the parent's event loop nor the spawner's: the parent
 * answers the delete when the child's exit comes back.
 *
 * What is removed is named by the workload's name alone, a name as
 * valid_workload_name() allows (no '/', no "..", no pattern): never a
 * prefix, never a glob, never another workload's directory; the spawner
 * checks the request again (volrm_check).  The walk follows no link:
 * ROOT is opened as voldir.c opens it (common/vdopen.c), every directory
 * below by openat(2) with O_NOFOLLOW and checked by fstat(2) of what
 * was opened; a link is removed as a link, never followed; a directory
 * on another file system (a mount the workload could not make, but
 * someone did) stops the walk there, and is left with what leads to it.
 * The walk is bounded in depth and in entries: beyond, it stops and
 * says so, and what is left stays for the operator.
 *
 * ROOT/INSTANCE/WORKLOAD is root's, each volume NAME in it the
 * workload's uid's (voldir.c gives it away), and what is inside was made
 * by the workload.  So what is inside a volume is removed with the
 * effective ids of the workload (given by the parent, checked here):
 * a mistake in the walk could then reach no file the workload could not
 * remove itself.  The volume directories, and WORKLOAD last, are removed
 * as root, who alone may write in WORKLOAD.
 *
 * WORKLOAD is first renamed out of its name's way, to .gone-WORKLOAD.PID
 * (a workload name begins with a letter or digit: no workload has such
 * a directory): what a walk cut short leaves (a file the workload could
 * not remove, a stop of orchd, a crash) is then never found by the next
 * workload of that name, whose volumes begin empty.  Each removal of a
 * name first retries what earlier ones of that name left.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "spawner.h"
#include "units.h"
#include "vdopen.h"
#include "workload.h"

#define VOLRM_DEPTH	64		/* directories deep, at most */
#define VOLRM_ENTRIES	1000000		/* entries removed, at most */

struct volrm {
	dev_t		 dev;		/* ROOT's file system */
	uid_t		 uid;		/* inside a volume: 0, as root */
	gid_t		 gid;
	pid_t		 spawner;	/* our parent: we die with it */
	size_t		 entries;
	char		*why;
	size_t		 len;
};

static int	rm_below(struct volrm *, int, const char *, int);

/*
 * name in dfd, a directory, opened.  As a workload's uid, one of its own
 * it made unreadable or unwritable is given back u+rwx first: it could
 * do so itself, and root, who would not need it, is not walking here.
 * fchmodat(2) would follow a link put there meanwhile, but with the
 * workload's effective uid it changes nothing the workload does not own.
 * Its fd, or -1 with errno.
 */
static int
rm_open(int dfd, const char *name)
{
	struct stat	 st;
	int		 fd, flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC;

	if ((fd = openat(dfd, name, flags)) == -1 && errno == EACCES &&
	    geteuid() != 0 && fstatat(dfd, name, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && fchmodat(dfd, name, S_IRWXU, 0) == 0)
		fd = openat(dfd, name, flags);
	if (fd == -1 || geteuid() == 0)
		return (fd);
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & S_IRWXU) != S_IRWXU)
		(void)fchmod(fd, st.st_mode | S_IRWXU);
	return (fd);
}

/*
 * The effective ids of the walk: the workload's inside a volume (depth
 * 1 is a volume, in ROOT/INSTANCE/WORKLOAD), root's elsewhere
 */
static int
rm_ids(const struct volrm *v, int inside)
{
	if (v->uid == 0)
		return (0);
	if (inside) {
		if (setegid(v->gid) == -1 || seteuid(v->uid) == -1)
			return (-1);
	} else if (seteuid(0) == -1 || setegid(getgid()) == -1)
		return (-1);
	/*
	 * A change of effective ids clears the death signal: armed
	 * again, and a spawner gone meanwhile ends the walk here
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    getppid() != v->spawner)
		_exit(1);
	return (0);
}

/* a directory name in dfd: what is in it, then itself */
static int
rm_dir(struct volrm *v, int dfd, const char *name, const char *path,
    int depth)
{
	struct stat	 st;
	char		 sub[ORCHD_VOLROOT_MAX];
	int		 fd, r;

	/* what the messages below it name: cut short if it must be */
	(void)snprintf(sub, sizeof(sub), "%s/%s", path, name);
	if ((fd = rm_open(dfd, name)) == -1) {
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
	if (depth == 1 && rm_ids(v, 1) == -1) {
		(void)snprintf(v->why, v->len, "%s/%s: as uid %u: %s", path,
		    name, (unsigned)v->uid, strerror(errno));
		close(fd);
		return (-1);
	}
	/* a volume its workload made 0000: it could open it again itself */
	if (depth == 1 && v->uid != 0 && st.st_uid == v->uid &&
	    (st.st_mode & S_IRWXU) != S_IRWXU)
		(void)fchmod(fd, st.st_mode | S_IRWXU);
	r = rm_below(v, fd, sub, depth + 1);
	close(fd);
	/* root's again, or the child ends here: nothing more is done */
	if (depth == 1 && rm_ids(v, 0) == -1)
		fatal("%s: back to root", __func__);
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

/* 1 if entry is what an earlier removal of name left: .gone-NAME.PID */
static int
rm_is_aside(const char *entry, const char *name)
{
	size_t	 n = strlen(name);

	if (strncmp(entry, ".gone-", 6) != 0 ||
	    strncmp(entry + 6, name, n) != 0 || entry[6 + n] != '.' ||
	    entry[7 + n] == '\0')
		return (0);
	return (strspn(entry + 7 + n, "0123456789") == strlen(entry + 7 + n));
}

/*
 * What earlier removals of name, cut short, left in ifd (ROOT/INSTANCE,
 * path), but ours (mine): tried again; what is still left is logged,
 * not counted against this removal.
 */
static void
rm_asides(struct volrm *v, int ifd, const char *name, const char *mine,
    const char *path)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 dfd;

	if ((dfd = dup(ifd)) == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!rm_is_aside(de->d_name, name) ||
		    strcmp(de->d_name, mine) == 0 ||
		    fstatat(ifd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (rm_dir(v, ifd, de->d_name, path, 0) == -1)
			log_warnx("workload %s: an earlier removal's "
			    "leftover: %s", name, v->why);
	}
	closedir(d);
}

/*
 * The request again, as the spawner trusts no field of it: ROOT an
 * absolute path (vd_open_root() refuses one not plain), INSTANCE and
 * NAME names, the ids none of the daemons'.  0, or -1 with why.
 */
int
volrm_check(const struct sp_ids *ids, struct sp_volrm *r, char *why,
    size_t len)
{
	if (memchr(r->root, '\0', sizeof(r->root)) == NULL ||
	    memchr(r->inst, '\0', sizeof(r->inst)) == NULL ||
	    memchr(r->name, '\0', sizeof(r->name)) == NULL)
		return (vd_fail(why, len, "a field without its end"));
	if (!valid_workload_name(r->name))
		return (vd_fail(why, len, "invalid workload name"));
	if (!valid_volume_name(r->inst))
		return (vd_fail(why, len, "invalid instance name"));
	if (r->root[0] != '/')
		return (vd_fail(why, len, "volume root not absolute"));
	if ((r->uid != 0 || r->gid != 0) && (r->uid == ids->uid ||
	    r->gid == ids->gid || r->uid == 0 || r->gid == 0))
		return (vd_fail(why, len, "ids %u:%u refused",
		    (unsigned)r->uid, (unsigned)r->gid));
	/* not root: the files are ours, whoever made them */
	if (!ids->root)
		r->uid = r->gid = 0;
	return (0);
}

/*
 * Remove ROOT/INSTANCE/NAME, in the child.  0 when it is gone or was
 * never made, or -1 with why.
 */
static int
volrm_run(const struct sp_volrm *r, char *why, size_t len)
{
	struct volrm	 v;
	struct stat	 st;
	char		 path[ORCHD_VOLROOT_MAX];
	char		 aside[ORCHD_NAME_MAX + 32];
	uid_t		 owner = geteuid();
	int		 rfd, ifd, ret, saved;

	if (volume_root_instance(r->root, r->inst, path, sizeof(path)) == -1)
		return (vd_fail(why, len, "volume root: path too long"));
	if ((rfd = vd_open_root(r->root, owner, why, len)) == -1)
		return (-1);
	ifd = vd_openat(rfd, r->inst);
	saved = errno;
	close(rfd);
	if (ifd == -1)
		return (saved == ENOENT ? 0 : vd_fail(why, len, "%s: %s", path,
		    strerror(saved)));
	memset(&v, 0, sizeof(v));
	if (vd_dir_ok(ifd, path, owner, 0, why, len) == -1 ||
	    fstat(ifd, &st) == -1)
		goto fail;
	/* the walk stays on ROOT/INSTANCE's file system, NAME included */
	v.dev = st.st_dev;
	v.uid = r->uid;
	v.gid = r->gid;
	v.spawner = getppid();
	v.why = why;
	v.len = len;
	if (fstatat(ifd, r->name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		saved = errno;
		close(ifd);
		return (saved == ENOENT ? 0 : vd_fail(why, len, "%s/%s: %s",
		    path, r->name, strerror(saved)));
	}
	/* ours is a directory of root's: anything else is left */
	if (!S_ISDIR(st.st_mode) || st.st_uid != owner) {
		(void)vd_fail(why, len, "%s/%s: not a directory of root's: "
		    "left", path, r->name);
		goto fail;
	}
	(void)snprintf(aside, sizeof(aside), ".gone-%s.%ld", r->name,
	    (long)getpid());
	if (renameat(ifd, r->name, ifd, aside) == -1) {
		(void)vd_fail(why, len, "%s/%s: %s", path, r->name,
		    strerror(errno));
		goto fail;
	}
	rm_asides(&v, ifd, r->name, aside, path);
	v.entries = 0;
	ret = rm_dir(&v, ifd, aside, path, 0);
	close(ifd);
	if (ret == 0)
		log_info("workload %s: its volumes removed (%zu entries)",
		    r->name, v.entries);
	return (ret);
 fail:
	close(ifd);
	return (-1);
}

/*
 * The child: its own session, gone with us, then the walk.  It keeps our
 * channels open but never reads or writes them, nor returns to our event
 * loop: it ends by _exit(2), its log lines going where ours go.
 */
static __dead void
volrm_child(const struct sp_volrm *r)
{
	sigset_t	 none;
	char		 why[512], title[128];
	gid_t		 gid = r->gid;

	sigemptyset(&none);
	proc_signals_default(&none);
	if (setsid() == -1 || prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    (r->uid != 0 && setgroups(1, &gid) == -1)) {
		log_warn("workload %s: volumes not removed", r->name);
		_exit(1);
	}
	(void)snprintf(title, sizeof(title), "spawner: removing %s's volumes",
	    r->name);
	proc_title(title);
	if (volrm_run(r, why, sizeof(why)) == -1) {
		log_warnx("workload %s: its volumes not all removed: %s",
		    r->name, why);
		_exit(1);
	}
	_exit(0);
}

/*
 * IMSG_SP_VOLRM: the child that removes them, started; its pid in st,
 * or 0 with the step that failed.  Its exit is reported as a workload's.
 */
pid_t
volrm_start(const struct sp_ids *ids, struct sp_volrm *r,
    struct sp_started *st)
{
	sigset_t	 all, saved;
	char		 why[128];

	memset(st, 0, sizeof(*st));
	if (volrm_check(ids, r, why, sizeof(why)) == -1) {
		log_warnx("volume removal refused: %s", why);
		st->step = SP_STEP_REFUSED;
		st->err = EINVAL;
		return (0);
	}
	sigfillset(&all);
	(void)sigprocmask(SIG_BLOCK, &all, &saved);
	if ((st->pid = fork()) == 0)
		volrm_child(r);
	if (st->pid == -1) {
		st->pid = 0;
		st->step = SP_STEP_EXEC;
		st->err = errno;
	}
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	return (st->pid);
}
