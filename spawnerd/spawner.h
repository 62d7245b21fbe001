/*
 * spawnerd's own: a request to start a process workload as it checked
 * it, and the functions its files share.
 */

#ifndef SPAWNER_H
#define SPAWNER_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>

#include "msg.h"

/* cgroup v1's hierarchies (v2 has the one, CG_MAIN) */
enum { CG_MAIN, CG_MEM, CG_CPU, CG_CPUACCT, CG_PIDS, CG_BLKIO, CG_NHIER };
#define CGROUP_FDS	CG_NHIER	/* v1: freezer, memory, cpu,
					   cpuacct, pids, blkio; v2: two */
#define SP_FDS		(SP_PASS_FDS + CGROUP_FDS)	/* the log, a socket
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
	int			 cgdir;	/* the last fd: v2 directory */
};

/*
 * cgroup.c: each process workload's cgroup, where the host has cgroups.
 * The files a child joins by, opened before fork (v1: the tasks files of
 * freezer and memory, which its one thread writes; v2: cgroup.procs).
 */
struct cgroup_fds {
	int			 fd[CGROUP_FDS];
	int			 n;
	int			 dir;	/* v2: the last fd is the directory */
};
struct cg_mount {
	char			 point[PATH_MAX];
	char			 root[PATH_MAX];
	char			 fstype[32];
	char			 opts[512];
};
void		 cgroup_init(pid_t);
void		 cgroup_fini(void);
int		 cgroup_prepare(const char *, int64_t, const struct wl_limits *,
		    struct cgroup_fds *, char *, size_t);
int		 cgroup_write(const char *, const char *);
int		 cgroup_read(const char *, char *, size_t);
int		 cgroup_path(char *, size_t, int, const char *, const char *);
const char	*cgroup_top(int);
const char	*cgroup_base(int);
int		 cgroup_v2_enable(const char *, const char *);
void		 cgroup_fds_close(struct cgroup_fds *);
void		 cgroup_kill(const char *);
int		 cgroup_freeze(const char *, int);
void		 cgroup_destroy(const char *);
int64_t		 cgroup_memory(const char *);
int64_t		 cgroup_oom_kills(const char *);
int64_t		 cgroup_memory_failcnt(const char *);
int64_t		 cgroup_parse_oom_kill(const char *);
int64_t		 cgroup_memory_peak(const char *);
int		 cgroup_parse_mountinfo(char *, struct cg_mount *);
int		 cgroup_parse_self(const char *, const char *, char *, size_t);
int		 cgroup_has_word(const char *, const char *);
int		 cgroup_join_path(char *, size_t, const char *, const char *,
		    const char *);

/* cglimit.c: cpu, pids and io limits in those cgroups */
void		 cglimit_init(const char *);
int		 cglimit_prepare(const char *, const struct wl_limits *,
		    struct cgroup_fds *, char *, size_t);

/* check.c */
int	sp_check(const struct sp_ids *, char *, size_t, int, struct sp_req *,
	    char *, size_t);
int	sp_check_sock(const struct sp_req *, char *, size_t);

/* exec.c */
pid_t	sp_start(const struct sp_req *, struct sp_started *);

/* pss.c */
int64_t	sp_group_pss(pid_t);
/* volrm.c */
int	volrm_check(const struct sp_ids *, struct sp_volrm *, char *, size_t);
pid_t	volrm_start(const struct sp_ids *, struct sp_volrm *,
	    struct sp_started *);

#endif /* SPAWNER_H */
