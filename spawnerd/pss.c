/*
 * What a process workload used, measured by the spawner at the first
 * signal that stops it, while it still runs, and said in its exit
 * report (the parent relays it to runtimed: its memory budget and the
 * figure of orchctl show stats).  In its cgroup, the peak (cgroup.c);
 * without one, the proportional share of its process group, here.
 */

#include <sys/types.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spawner.h"

/*
 * A process's proportional share of memory (PSS): its own pages, and
 * its part of those it shares (with the other processes of its group,
 * say), so that a group's sum counts each page once.  From
 * /proc/PID/smaps_rollup; where that cannot be read, the resident
 * pages of its stat.  -1 if neither.
 */
static int64_t
proc_pss(const char *pid, long long rss)
{
	FILE		*f;
	char		 path[64], line[256];
	long long	 kb;
	int64_t		 v = -1;

	if ((size_t)snprintf(path, sizeof(path), "/proc/%.20s/smaps_rollup",
	    pid) < sizeof(path) && (f = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "Pss: %lld kB", &kb) == 1) {
				v = (int64_t)kb * 1024;
				break;
			}
		fclose(f);
	}
	if (v == -1 && rss > 0)
		v = (int64_t)rss * sysconf(_SC_PAGESIZE);
	return (v);
}

/*
 * The memory of a workload's process group without a cgroup: the PSS of
 * each of its processes, found by the group in /proc/PID/stat (its 5th
 * field, the 24th the resident pages).  Only at a stop, so the scan of
 * /proc costs nothing on any request.
 */
int64_t
sp_group_pss(pid_t pgid)
{
	DIR		*d;
	struct dirent	*de;
	FILE		*f;
	char		 path[64], buf[1024], *p;
	long long	 grp, rss;
	int64_t		 total = 0, v;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "/proc/%.20s/stat",
		    de->d_name) >= sizeof(path) ||
		    (f = fopen(path, "re")) == NULL)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* the name may hold spaces and parentheses: skip to its end */
		if (p == NULL || (p = strrchr(buf, ')')) == NULL)
			continue;
		if (sscanf(p + 1, " %*c %*d %lld %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %lld", &grp,
		    &rss) == 2 && grp == pgid &&
		    (v = proc_pss(de->d_name, rss)) > 0)
			total += v;
	}
	closedir(d);
	return (total);
}
