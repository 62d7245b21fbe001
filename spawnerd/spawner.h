/*
 * spawnerd's own: a request to start a process workload as it checked
 * it, and the functions its files share.
 */

#ifndef SPAWNER_H
#define SPAWNER_H

#include <sys/types.h>

#include "msg.h"

#define SP_CGROUP_FDS	6		/* v1: freezer, memory, cpu,
					   cpuacct, pids, blkio; v2: two */
#define SP_FDS		(2 + SP_CGROUP_FDS)	/* the log, a socket
						   activation's, the cgroups */

/* the uid and gid of the daemons, which no workload may have */
struct sp_ids {
	uid_t			 uid;
	gid_t			 gid;
	int			 root;	/* we are root: workloads change user */
};

/* an EXEC, checked: pointers into the message's data */
struct sp_req {
	struct sp_exec		 hdr;
	char			*argv[SP_ARGV_MAX + 1];
	char			*envp[SP_ENV_MAX + 1];
	const char		*dir;
	int			 fds[SP_FDS];
	int			 nfds;
};

/* check.c */
int	sp_check(const struct sp_ids *, char *, size_t, int, struct sp_req *,
	    char *, size_t);
int	sp_check_sock(const struct sp_req *, char *, size_t);

/* exec.c */
pid_t	sp_start(const struct sp_req *, struct sp_started *);

/* volrm.c */
int	volrm_check(const struct sp_ids *, struct sp_volrm *, char *, size_t);
pid_t	volrm_start(const struct sp_ids *, struct sp_volrm *,
	    struct sp_started *);

#endif /* SPAWNER_H */
