/*
 * The orchd instances of this host.  Containers, networks and the
 * Docker events runtimed listens to carry the instance's name, so two
 * instances on one Docker daemon never take each other's
 * (orchd-workload.7); that holds only if no two live instances have the
 * same name, and process workloads keep apart only if no two live
 * instances allocate uids from ranges that meet.  Both are checked here,
 * at start and at each reload.
 *
 * Each live instance holds an exclusive flock(2) on a file named after
 * it in INSTANCES_DIR (INSTANCES_DIR_USER when not run as root), taken
 * before daemon(3) and kept until it exits: the lock goes with the last
 * descriptor, so a killed orchd leaves nothing live behind, and the
 * file, never removed (a removal would race with a start taking it), is
 * only a name.  Written into it, one fixed-width line rewritten in
 * place: the parent's pid and its "workload uids".  A start finds the
 * name's file locked: another orchd of that name runs, and the start is
 * refused.  The other files whose lock cannot be shared are the other
 * live instances; a range of theirs that meets ours refuses the start or
 * the reload.  Two instances starting at once each write before they
 * read, so at least one of them sees the other.
 *
 * As root only: without root every workload runs as orchd's own user,
 * and the ranges are not used; the names are still checked.
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "parent.h"
#include "util.h"

/* not in /run/orchd: systemd's RuntimeDirectory= goes when one stops */
#define INSTANCES_DIR		"/run/orchd-instances"
#define INSTANCES_DIR_USER	"/tmp/orchd-instances-%u"
#define INSTANCES_LINE		"%10d %10lld %10lld\n"
#define INSTANCES_LINE_MAX	64
#define INSTANCES_TRIES		20	/* another looks at ours: waited */
#define INSTANCES_TRY_MS	50

static int	 inst_dfd = -1;		/* the directory */
static int	 inst_fd = -1;		/* our file, locked */
static char	 inst_dir[PATH_MAX];
static char	 inst_name[ORCHD_INSTANCE_MAX];
static int64_t	 inst_low, inst_high;

/* the instance's name: "instance name", else the host name, else orchd */
void
instance_name(const struct orchd_conf *conf, char *buf, size_t len)
{
	if (conf->instance[0] != '\0')
		strlcpy(buf, conf->instance, len);
	else if (instance_name_default(buf, len) == -1)
		strlcpy(buf, "orchd", len);
}

/* a directory of ours, no link, not writable by others; made if missing */
static int
inst_opendir(const char *dir, mode_t mode)
{
	struct stat	 sb;
	int		 fd;

	if (mkdir(dir, mode) == -1 && errno != EEXIST)
		fatal("instances directory %s", dir);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fatal("instances directory %s", dir);
	if (fstat(fd, &sb) == -1)
		fatal("instances directory %s", dir);
	if (sb.st_uid != geteuid() || (sb.st_mode & 022) != 0)
		fatalx("instances directory %s is not ours alone (owner %u, "
		    "mode %04o)", dir, (unsigned)sb.st_uid,
		    (unsigned)(sb.st_mode & 07777));
	return (fd);
}

/* its line: pid, low and high of its range; -1 if it has none yet */
static int
inst_read(int fd, int *pid, int64_t *lo, int64_t *hi)
{
	char		 line[INSTANCES_LINE_MAX], *p, *f[3];
	const char	*errstr;
	ssize_t		 n;
	int		 i;

	if ((n = pread(fd, line, sizeof(line) - 1, 0)) <= 0)
		return (-1);
	line[n] = '\0';
	p = line;
	for (i = 0; i < 3; i++) {
		while (*p == ' ')
			p++;
		f[i] = p;
		if ((p = strpbrk(p, " \n")) == NULL)
			return (-1);
		*p++ = '\0';
	}
	*pid = strtonum(f[0], 1, INT_MAX, &errstr);
	if (errstr == NULL)
		*lo = strtonum(f[1], 0, UINT32_MAX, &errstr);
	if (errstr == NULL)
		*hi = strtonum(f[2], 0, UINT32_MAX, &errstr);
	return (errstr == NULL ? 0 : -1);
}

static void
inst_write(void)
{
	char	 line[INSTANCES_LINE_MAX];
	int	 n;

	n = snprintf(line, sizeof(line), INSTANCES_LINE, (int)getpid(),
	    (long long)inst_low, (long long)inst_high);
	if (n < 0 || (size_t)n >= sizeof(line) ||
	    pwrite(inst_fd, line, n, 0) != n)
		log_warn("instance %s: %s/%s", inst_name, inst_dir, inst_name);
}

/*
 * Does lo-hi meet the range of another live instance?  0 if not, -1
 * with why.
 */
static int
inst_overlap(int64_t lo, int64_t hi, char *err, size_t len)
{
	struct dirent	*de;
	DIR		*d;
	int64_t		 olo, ohi;
	int		 dfd, fd, pid, r = 0;

	if (geteuid() != 0)
		return (0);
	if ((dfd = dup(inst_dfd)) == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		snprintf(err, len, "instances directory %s: %s", inst_dir,
		    strerror(errno));
		return (-1);
	}
	rewinddir(d);
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, inst_name) == 0)
			continue;
		if ((fd = openat(inst_dfd, de->d_name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC)) == -1)
			continue;
		/* shared at once: nobody holds it, no instance of that name */
		if (flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK ||
		    inst_read(fd, &pid, &olo, &ohi) == -1) {
			close(fd);
			continue;
		}
		close(fd);
		if (lo <= ohi && olo <= hi) {
			snprintf(err, len, "workload uids %lld-%lld overlap "
			    "%lld-%lld of orchd instance \"%s\" (pid %d) on "
			    "this host: give each instance a range of its own",
			    (long long)lo, (long long)hi, (long long)olo,
			    (long long)ohi, de->d_name, pid);
			r = -1;
		}
	}
	closedir(d);
	return (r);
}

/*
 * At start, before daemon(3): the instance's name taken on this host,
 * and its range checked against the others'.  Fatal if either fails.
 */
void
instances_start(struct orchd *env)
{
	char	 why[512];
	int64_t	 lo, hi;
	int	 i, pid;

	instance_name(env->conf, inst_name, sizeof(inst_name));
	if (env->conf->instance[0] == '\0' && strcmp(inst_name, "orchd") == 0)
		log_warnx("the host name cannot be an instance name: "
		    "\"orchd\" instead");
	if (geteuid() == 0) {
		strlcpy(inst_dir, INSTANCES_DIR, sizeof(inst_dir));
		inst_dfd = inst_opendir(inst_dir, 0755);
	} else {
		(void)snprintf(inst_dir, sizeof(inst_dir), INSTANCES_DIR_USER,
		    (unsigned)geteuid());
		inst_dfd = inst_opendir(inst_dir, 0700);
	}
	if ((inst_fd = openat(inst_dfd, inst_name, O_RDWR | O_CREAT |
	    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644)) == -1)
		fatal("instance %s: %s/%s", inst_name, inst_dir, inst_name);
	/* another's look at our file holds it shared for a moment */
	for (i = 0; flock(inst_fd, LOCK_EX | LOCK_NB) == -1; i++) {
		if (errno != EWOULDBLOCK)
			fatal("instance %s: flock", inst_name);
		if (i == INSTANCES_TRIES) {
			if (inst_read(inst_fd, &pid, &lo, &hi) == -1)
				pid = 0;
			fatalx("instance name \"%s\" is taken: another orchd "
			    "(pid %d) runs under it on this host; give each "
			    "orchd its own \"instance name\" in its "
			    "orchd.conf", inst_name, pid);
		}
		usleep(INSTANCES_TRY_MS * 1000);
	}
	if (fchmod(inst_fd, 0644) == -1)
		fatal("instance %s: fchmod", inst_name);
	inst_low = env->conf->wl_uid_low;
	inst_high = env->conf->wl_uid_high;
	inst_write();
	if (inst_overlap(inst_low, inst_high, why, sizeof(why)) == -1)
		fatalx("%s", why);
	log_debug("instance %s: %s/%s", inst_name, inst_dir, inst_name);
}

/* after daemon(3): the pid that runs now */
void
instances_daemonized(void)
{
	if (inst_fd != -1)
		inst_write();
}

/*
 * The range of a configuration about to be used meets no other live
 * instance's: 0; or -1 and why.
 */
int
instances_check(int64_t lo, int64_t hi, char *err, size_t len)
{
	if (inst_fd == -1)
		return (0);
	return (inst_overlap(lo, hi, err, len));
}

/* the range of the configuration now used, for the others to see */
void
instances_commit(int64_t lo, int64_t hi)
{
	if (inst_fd == -1 || (lo == inst_low && hi == inst_high))
		return;
	inst_low = lo;
	inst_high = hi;
	inst_write();
}

/* the name this instance runs under */
const char *
instances_self(void)
{
	return (inst_name);
}
