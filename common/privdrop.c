/*
 * Dropping privileges in a child, in a fixed order: everything that needs
 * root or the real file system happens before this is called.
 */

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/capability.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

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

/* setresuid away from 0 clears the capabilities: make sure it did */
static void
privdrop_nocaps(void)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[_LINUX_CAPABILITY_U32S_3];
	size_t				 i;

	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		fatal("capget");
	for (i = 0; i < nitems(data); i++)
		if (data[i].effective != 0 || data[i].permitted != 0 ||
		    data[i].inheritable != 0)
			fatalx("capabilities left after dropping privileges");
}

/* -u uid:gid, the numbers the parent looked up */
int
privdrop_ids(const char *arg, uid_t *uid, gid_t *gid)
{
	char		 buf[32], *colon;
	const char	*errstr;

	if (strlcpy(buf, arg, sizeof(buf)) >= sizeof(buf) ||
	    (colon = strchr(buf, ':')) == NULL)
		return (-1);
	*colon++ = '\0';
	*uid = strtonum(buf, 0, INT_MAX, &errstr);
	if (errstr != NULL)
		return (-1);
	*gid = strtonum(colon, 0, INT_MAX, &errstr);
	if (errstr != NULL)
		return (-1);
	return (0);
}

/* a supplementary group, instead of none: runtimed's Docker socket's */
static gid_t	privdrop_gid = (gid_t)-1;

void
privdrop_group(gid_t gid)
{
	privdrop_gid = gid;
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
		if (chroot(root) == -1)
			fatal("chroot %s", root);
		if (chdir("/") == -1)
			fatal("chdir /");
	}
	privdrop_capbset();
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
		privdrop_nocaps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_NO_NEW_PRIVS");
	/* setresuid cleared it */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
}
