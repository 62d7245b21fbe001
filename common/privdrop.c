/*
 * Dropping privileges in a child, in a fixed order: everything that needs
 * root or the real file system happens before this is called.
 */

#include <sys/prctl.h>
#include <sys/types.h>

#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

void
privdrop(const char *user, const char *root, int flags)
{
	struct passwd	*pw;
	uid_t		 ruid, euid, suid;
	gid_t		 rgid, egid, sgid;
	pid_t		 parent = getppid();

	/* the child must not outlive the parent, even one killed by SIGKILL */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
	if (getppid() != parent || parent == 1)
		fatalx("parent went away");

	if (geteuid() != 0) {
		/* development and the demo: the parent already warned */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			fatal("prctl PR_SET_NO_NEW_PRIVS");
		return;
	}
	if ((pw = getpwnam(user)) == NULL)
		fatalx("unknown user %s", user);
	if ((flags & PRIVDROP_NONET) && unshare(CLONE_NEWNET) == -1)
		fatal("unshare network namespace");
	if (root != NULL) {
		if (chroot(root) == -1)
			fatal("chroot %s", root);
		if (chdir("/") == -1)
			fatal("chdir /");
	}
	if (setgroups(1, &pw->pw_gid) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1)
		fatal("cannot drop privileges to %s", user);
	if (getresuid(&ruid, &euid, &suid) == -1 ||
	    getresgid(&rgid, &egid, &sgid) == -1 ||
	    ruid != pw->pw_uid || euid != pw->pw_uid || suid != pw->pw_uid ||
	    rgid != pw->pw_gid || egid != pw->pw_gid || sgid != pw->pw_gid)
		fatalx("privilege drop to %s did not stick", user);
	if (pw->pw_uid != 0 && setuid(0) != -1)
		fatalx("could regain root after dropping privileges");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_NO_NEW_PRIVS");
	/* setresuid cleared it */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
}
