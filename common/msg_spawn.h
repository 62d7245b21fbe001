/*
 * The spawner's messages (common/msg.h lists them): the parent and
 * spawnerd.  Included by msg.h alone.
 */

#ifndef ORCHD_MSG_SPAWN_H
#define ORCHD_MSG_SPAWN_H

#include <sys/types.h>
#include <stdint.h>

/*
 * The spawner (spawnerd/): root, without a filter, the one process of
 * orchd that forks after start.  Its request channel is on
 * PROC_PARENT_FD, its event channel on SP_EV_FD.  It checks every field
 * of a request again: a workload never runs as root, nor as the daemons'
 * uid or gid, its command and environment within these bounds, its
 * directory absolute.
 */
#define SP_EV_FD		(PROC_PARENT_FD + 1)
#define SP_GROUPS_MAX		256	/* supplementary groups of a user */
#define SP_ARGV_MAX		256	/* words of a command */
#define SP_ENV_MAX		1024	/* variables of a workload */
#define SP_PASS_FDS		2	/* the log, a socket activation's */
#define SP_CGNAME_MAX		(ORCHD_NAME_MAX + 2)	/* NAME or NAME@2 */
#define SP_WHY_MAX		160	/* a refusal's or a cgroup's reason */

/* what a workload's child did last before giving up, with its errno */
enum sp_step {
	SP_STEP_SETSID = 0,
	SP_STEP_STDIO,
	SP_STEP_GROUPS,
	SP_STEP_GID,
	SP_STEP_UID,
	SP_STEP_PDEATHSIG,
	SP_STEP_CHDIR,
	SP_STEP_EXEC,
	SP_STEP_CGROUP,
	SP_STEP_REFUSED		/* the spawner's own check said no */
};

/*
 * IMSG_SP_EXEC: then argc and nenv strings, and the directory, each
 * ending in NUL, and nothing after them
 */
struct sp_exec {
	char			 name[ORCHD_NAME_MAX];
	char			 user[ORCHD_USER_MAX];
	uid_t			 uid;
	gid_t			 gid;
	int32_t			 root;		/* change user: the spawner
						   is root */
	int32_t			 ngroups;
	gid_t			 groups[SP_GROUPS_MAX];
	int32_t			 argc;
	int32_t			 nenv;
	int32_t			 nfds;		/* IMSG_SP_FDs before it */
	int32_t			 sock;		/* socket activation: the fd
						   after the log, listening
						   on sockaddr */
	union wl_addr		 sockaddr;
	/* its cgroup, which the spawner makes, limits and removes */
	char			 cgname[SP_CGNAME_MAX];	/* NAME or NAME@2 */
	int64_t			 memory;	/* bytes; 0: no limit */
	struct wl_limits	 lim;		/* cpu, pids, io */
};
struct sp_started {
	pid_t			 pid;		/* 0 if it failed */
	int32_t			 step;		/* enum sp_step */
	int32_t			 err;		/* errno */
	int32_t			 cgroup;	/* in a cgroup of its own */
	char			 why[SP_WHY_MAX];	/* SP_STEP_REFUSED,
						   SP_STEP_CGROUP: why */
};
struct sp_kill {
	pid_t			 pid;
	int32_t			 sig;
};
/*
 * IMSG_SP_VOLRM: remove ROOT/INSTANCE/NAME, a deleted API workload's
 * volumes, in a child of the spawner; the walk inside each volume as
 * uid:gid, the workload's (0: as root, who made them).  The parent
 * waits for the child's exit in its event loop, never in a call.
 */
struct sp_volrm {
	char			 root[ORCHD_VOLROOT_MAX];  /* absolute */
	char			 inst[ORCHD_INSTANCE_MAX];
	char			 name[ORCHD_NAME_MAX];
	uid_t			 uid;
	gid_t			 gid;
};
struct sp_exit {
	pid_t			 pid;
	int32_t			 status;	/* wait status */
	/* its cgroup's, read before it was removed; -1: unknown */
	int64_t			 oom_kills;	/* OOM kills since its start */
	int64_t			 failcnt;	/* v1: limit hits since then */
	int64_t			 memory;	/* bytes, at its first stop
						   signal (cgroup, else its
						   group's PSS); 0: none */
};
/* IMSG_SP_FREEZE, answered IMSG_SP_FROZEN with ok set */
struct sp_freeze {
	pid_t			 pid;
	int32_t			 on;		/* 1 freeze, 0 thaw */
	int32_t			 ok;		/* in that state now */
};

#endif
