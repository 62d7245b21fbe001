/*
 * Dropping privileges in a child, in a fixed order: everything that needs
 * root or the real file system happens before this is called.
 */

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "proc.h"
#include "sandbox.h"

/*
 * Empty the capability bounding set while we still hold CAP_SETPCAP, so
 * that nothing this process might execute could regain a capability
 * (seccomp forbids execve anyway: this is the second lock).  Best effort:
 * without CAP_SETPCAP, as under a systemd CapabilityBoundingSet that
 * leaves it out, the set stays what the service manager made it.
 */
static void
privdrop_capbset(void)
{
	int	 cap, r;

	for (cap = 0; (r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0)) != -1;
	    cap++) {
		if (r == 0)
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1) {
			log_debug("capability bounding set kept: %s",
			    strerror(errno));
			return;
		}
	}
}

/* whether capability cap (of the first word) is ours to keep */
static int
privdrop_permitted(int cap)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[_LINUX_CAPABILITY_U32S_3];

	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		fatal("capget");
	return ((data[0].permitted & (1U << cap)) != 0);
}

/*
 * setresuid away from 0 clears the capabilities: make sure it did, all
 * but the one kept (keep, a CAP_* bit of the first word; 0: none), which
 * PR_SET_KEEPCAPS left permitted and is made effective here.
 */
static void
privdrop_caps(uint32_t keep)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[_LINUX_CAPABILITY_U32S_3];
	size_t				 i;

	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (keep != 0) {
		memset(data, 0, sizeof(data));
		data[0].effective = data[0].permitted = keep;
		if (syscall(SYS_capset, &hdr, data) == -1)
			fatal("capset");
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) == -1)
			fatal("prctl PR_SET_KEEPCAPS");
	}
	if (syscall(SYS_capget, &hdr, data) == -1)
		fatal("capget");
	for (i = 0; i < nitems(data); i++)
		if (data[i].effective != (i == 0 ? keep : 0) ||
		    data[i].permitted != (i == 0 ? keep : 0) ||
		    data[i].inheritable != 0)
			fatalx("capabilities left after dropping privileges");
}

/* a supplementary group, instead of none: runtimed's Docker socket's */
static gid_t	privdrop_gid = (gid_t)-1;

void
privdrop_group(gid_t gid)
{
	privdrop_gid = gid;
}

/*
 * runtimed's root (PRIVDROP_SOCKDIR).  It must reach the Docker socket,
 * and it runs as _orchd with the socket's group, which may write where
 * that group or anybody may: on Debian the socket is in /run, and
 * /run/lock is world-writable.  So its root is not the socket's directory
 * but, in a mount namespace of its own, an empty read-only tmpfs mounted
 * on the chroot directory, with the socket's directory bound read-only
 * at its own path under it.  connect(2) to a socket on a read-only mount
 * works, and the directory rather than the socket is bound so that a
 * dockerd that restarts, or starts after us, and makes a new socket
 * there is still reached.  The bind is not recursive: the file systems
 * mounted under that directory (/run/lock, /run/user/...) are not
 * there, except the socket itself when it is a mount of its own (a
 * container given the host's socket).  Propagation is private: nothing
 * mounted here is seen outside, nor what is mounted outside later.
 */
static const char	*privdrop_sock;		/* the socket, -f */
static int		 privdrop_bound;

void
privdrop_sockdir(const char *file)
{
	privdrop_sock = file;
}

/* 1 when the socket is reached by its own path, in the private root */
int
privdrop_sockbound(void)
{
	return (privdrop_bound);
}

/* mkdir top+dir, component by component: top is our empty tmpfs */
static int
privdrop_mkdirs(const char *top, const char *dir)
{
	char	 path[PATH_MAX], *p, c;
	size_t	 len;

	if ((len = strlcpy(path, top, sizeof(path))) >= sizeof(path) ||
	    strlcat(path, dir, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	/* each '/' after top ends a component: cut there, make it */
	for (p = path + len + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return (-1);
		if ((*p = c) == '\0')
			break;
	}
	return (0);
}

/* bind src on top+src, read-only, nothing to execute or open as a device */
static int
privdrop_bindro(const char *top, const char *src)
{
	char	 path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s", top, src) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (mount(src, path, NULL, MS_BIND, NULL) == -1 ||
	    mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		return (-1);
	return (0);
}

/* the socket is a mount point of its own: its mount is not the dir's */
static int
privdrop_ismount(const char *file, const char *dir)
{
	struct statx	 f, d;

	if (statx(AT_FDCWD, file, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &f) ==
	    -1 || statx(AT_FDCWD, dir, 0, STATX_MNT_ID, &d) == -1 ||
	    !(f.stx_mask & d.stx_mask & STATX_MNT_ID))
		return (0);
	return (f.stx_mnt_id != d.stx_mnt_id);
}

static int
privdrop_sockroot(const char *top, const char *dir, const char **why)
{
	*why = "unshare";
	if (unshare(CLONE_NEWNS) == -1)
		return (-1);
	*why = "private propagation";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return (-1);
	*why = "tmpfs";
	if (mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "mode=0755,size=16k,nr_inodes=32") == -1)
		return (-1);
	*why = "mkdir";
	if (privdrop_mkdirs(top, dir) == -1)
		return (-1);
	*why = "bind";
	if (privdrop_bindro(top, dir) == -1)
		return (-1);
	*why = "socket mount";
	if (privdrop_ismount(privdrop_sock, dir) &&
	    privdrop_bindro(top, privdrop_sock) == -1)
		return (-1);
	/* the mount read-only, not the superblock: top must stay ours */
	*why = "read-only";
	if (mount(NULL, top, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		return (-1);
	return (0);
}

/*
 * The directory to chroot to: top, made runtimed's private root, or
 * where the namespace or a mount is refused (a container without
 * CAP_SYS_ADMIN), the socket's directory as before, with a warning.
 */
static const char *
privdrop_sockdir_root(const char *top)
{
	static char	 dir[PATH_MAX];
	struct stat	 st;
	const char	*why;
	char		 tmp[PATH_MAX];

	strlcpy(tmp, privdrop_sock, sizeof(tmp));
	strlcpy(dir, dirname(tmp), sizeof(dir));
	/* no directory: the parent said docker workloads cannot start */
	if (dir[0] != '/' || stat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
		return (top);
	/* "/" itself would be bound over the tmpfs: today's chroot, then */
	if (strcmp(dir, "/") == 0) {
		errno = EINVAL;
		why = "the socket is in /";
	} else if (privdrop_sockroot(top, dir, &why) == 0) {
		privdrop_bound = 1;
		log_debug("root: %s read-only on an empty read-only %s", dir,
		    top);
		return (top);
	}
	log_warnx("no private root (%s: %s): chrooted to %s instead, where "
	    "the docker socket's group may write", why, strerror(errno), dir);
	return (dir);
}

void
privdrop(uid_t uid, gid_t gid, const char *root, int flags)
{
	uid_t		 ruid, euid, suid;
	gid_t		 rgid, egid, sgid;
	pid_t		 parent = getppid();

	/* the child must not outlive the parent, even one killed by SIGKILL */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
	if (getppid() != parent || parent == 1)
		fatalx("parent went away");
	/* where a forbidden system call is reported, while / is still / */
	sandbox_prepare();

	if (geteuid() != 0) {
		/* development and the demo: the parent already warned */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			fatal("prctl PR_SET_NO_NEW_PRIVS");
		return;
	}
	if ((flags & PRIVDROP_NONET) && unshare(CLONE_NEWNET) == -1)
		fatal("unshare network namespace");
	if (root != NULL) {
		if ((flags & PRIVDROP_SOCKDIR) && privdrop_sock != NULL)
			root = privdrop_sockdir_root(root);
		if (chroot(root) == -1)
			fatal("chroot %s", root);
		if (chdir("/") == -1)
			fatal("chdir /");
	}
	if ((flags & PRIVDROP_READALL) && !privdrop_permitted(
	    CAP_DAC_READ_SEARCH)) {
		log_warnx("CAP_DAC_READ_SEARCH is not permitted (the "
		    "bounding set): only what uid %u may read is read",
		    (unsigned int)uid);
		flags &= ~PRIVDROP_READALL;
	}
	privdrop_capbset();
	/* what PRIVDROP_READALL keeps must survive setresuid */
	if ((flags & PRIVDROP_READALL) &&
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_KEEPCAPS");
	if (setgroups(1, privdrop_gid != (gid_t)-1 ? &privdrop_gid : &gid)
	    == -1 ||
	    setresgid(gid, gid, gid) == -1 ||
	    setresuid(uid, uid, uid) == -1)
		fatal("cannot drop privileges to uid %u gid %u",
		    (unsigned int)uid, (unsigned int)gid);
	if (getresuid(&ruid, &euid, &suid) == -1 ||
	    getresgid(&rgid, &egid, &sgid) == -1 ||
	    ruid != uid || euid != uid || suid != uid ||
	    rgid != gid || egid != gid || sgid != gid)
		fatalx("privilege drop to uid %u did not stick",
		    (unsigned int)uid);
	if (uid != 0 && setuid(0) != -1)
		fatalx("could regain root after dropping privileges");
	if (uid != 0)
		privdrop_caps((flags & PRIVDROP_READALL) ?
		    1U << CAP_DAC_READ_SEARCH : 0);
	/* a process of the same uid (a daemon) may not trace this one */
	if ((flags & PRIVDROP_READALL) &&
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("prctl PR_SET_DUMPABLE");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_NO_NEW_PRIVS");
	/* setresuid cleared it */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
}
