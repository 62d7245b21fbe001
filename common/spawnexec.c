/*
 * What the parent and the spawner share about the processes the spawner
 * starts.  A workload's child that gives up before exec says which step
 * failed, by number: the spawner writes the step's name in the
 * workload's log, the parent in its answer to runtimed.  The TLS keypair
 * check (gatewayd -n) is exec'd by the parent itself for orchd -n and at
 * start, and by the spawner at a reload: both exec it here, so that a
 * failed exec answers the same way.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "msg.h"
#include "spawnexec.h"

/* what the child did last before giving up, sent with its errno */
const char *
sp_step_name(int step)
{
	static const char *const names[] = {
		[SP_STEP_SETSID] = "setsid",
		[SP_STEP_STDIO] = "standard input and output",
		[SP_STEP_GROUPS] = "setgroups",
		[SP_STEP_GID] = "setresgid",
		[SP_STEP_UID] = "setresuid",
		[SP_STEP_PDEATHSIG] = "prctl",
		[SP_STEP_CHDIR] = "chdir",
		[SP_STEP_EXEC] = "exec",
		[SP_STEP_CGROUP] = "cgroup",
		[SP_STEP_REFUSED] = "the spawner's check"
	};

	if (step < 0 || (size_t)step >= nitems(names))
		return ("exec");
	return (names[step]);
}

/* in the checker's child, an exec that failed: that is its answer */
static __dead void
keycheck_exec_failed(const char *path, int err)
{
	struct tls_check_fail	 f;
	char			 msg[TLS_CHECK_MSG_MAX];

	snprintf(msg, sizeof(msg), "exec %s: %s", path, strerror(err));
	memset(&f, 0, sizeof(f));
	f.what = TLS_CHECK_OTHER;
	f.len = strlen(msg);
	(void)write(TLS_CHECK_FD, &f, sizeof(f));
	(void)write(TLS_CHECK_FD, msg, f.len);
	_exit(127);
}

/* in the checker's child, before exec: its socket on TLS_CHECK_FD alone */
__dead void
keycheck_exec(int fd, char *const argv[])
{
	if (fd == TLS_CHECK_FD) {
		if (fcntl(fd, F_SETFD, 0) == -1)
			_exit(127);
	} else if (dup2(fd, TLS_CHECK_FD) == -1)
		_exit(127);
	closefrom(TLS_CHECK_FD + 1);
	signal(SIGPIPE, SIG_DFL);
	execv(argv[0], argv);
	keycheck_exec_failed(argv[0], errno);
}

/*
 * In confd's child, before exec: its socket on CONF_FD alone, and no
 * environment (ORCHD_KEY is no business of confd's).  A failed exec is
 * the end of the socket without IMSG_CONF_END: the parent says so.
 */
__dead void
confd_exec(int fd, char *const argv[])
{
	char	*const envp[] = { NULL };

	if (fd == CONF_FD) {
		if (fcntl(fd, F_SETFD, 0) == -1)
			_exit(127);
	} else if (dup2(fd, CONF_FD) == -1)
		_exit(127);
	closefrom(CONF_FD + 1);
	signal(SIGPIPE, SIG_DFL);
	execve(argv[0], argv, envp);
	_exit(127);
}
