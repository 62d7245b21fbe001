/*
 * The CPU time and resident memory of orchd's own processes, as
 * process_cpu_seconds_total and process_resident_memory_bytes in GET
 * /metrics.  The parent reads them, from /proc/PID/stat, because it
 * alone knows every pid and sees /proc: its children are chrooted.  It
 * reads them when a gateway asks for its /metrics, never on a timer,
 * and sends numbers (struct gw_procstat), no text.
 *
 * The second field of the file is the name a process gave itself (its
 * comm, set by the process: proc_title), which may hold spaces and
 * parentheses; the fields are read after the last ')', which only the
 * kernel writes.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

/* after the ')': state is the first field, utime the 12th, rss the 22nd */
#define FIELD_UTIME	11
#define FIELD_STIME	12
#define FIELD_RSS	21

/* one field of digits, as a number; -1 if it is none or too big */
static int
field_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t	 n = 0;
	size_t		 i;

	if (len == 0 || len > 19)
		return (-1);
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	*v = n;
	return (0);
}

/*
 * The text of /proc/PID/stat, len bytes: its CPU time in clock ticks
 * (user and system) and its resident set in pages.  0, or -1 when the
 * text is not what the kernel writes.
 */
int
procstat_parse(const char *buf, size_t len, uint64_t *ticks,
    uint64_t *pages)
{
	const char	*p, *end = buf + len, *tok;
	uint64_t	 ut = 0, st = 0, rss = 0;
	int		 field = 0, got = 0;

	if ((p = memrchr(buf, ')', len)) == NULL)
		return (-1);
	for (p++; p < end && field <= FIELD_RSS; field++) {
		while (p < end && *p == ' ')
			p++;
		tok = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (field == FIELD_UTIME)
			got += field_u64(tok, p - tok, &ut) == 0;
		else if (field == FIELD_STIME)
			got += field_u64(tok, p - tok, &st) == 0;
		else if (field == FIELD_RSS)
			got += field_u64(tok, p - tok, &rss) == 0;
	}
	if (got != 3 || ut > UINT64_MAX - st)
		return (-1);
	*ticks = ut + st;
	*pages = rss;
	return (0);
}

/* pid's numbers into out, which says it is process id (instance): 0 or -1 */
int
procstat_read(pid_t pid, int id, int instance, struct gw_procstat *out)
{
	char		 path[64], buf[1024];
	uint64_t	 ticks, pages;
	ssize_t		 n;
	long		 hz, pagesize;
	int		 fd, saved;

	hz = sysconf(_SC_CLK_TCK);
	pagesize = sysconf(_SC_PAGESIZE);
	if (pid <= 0 || hz <= 0 || pagesize <= 0)
		return (-1);
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof(buf));
	saved = errno;
	close(fd);
	errno = saved;
	if (n <= 0 || procstat_parse(buf, (size_t)n, &ticks, &pages) == -1)
		return (-1);
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->instance = instance;
	out->cpu_us = ticks / (uint64_t)hz * 1000000 +
	    ticks % (uint64_t)hz * 1000000 / (uint64_t)hz;
	out->rss = pages > UINT64_MAX / (uint64_t)pagesize ? UINT64_MAX :
	    pages * (uint64_t)pagesize;
	return (0);
}
