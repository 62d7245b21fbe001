/*
 * What a reload reports.  orchctl reload hears, as items before the OK
 * or FAIL: the lines logged while the new file is read (its errors, each
 * at file:line, or its warnings), the settings kept until a restart, and
 * the workloads of the file added, removed or changed.  The log keeps
 * all of it, so that a reload by SIGHUP, which has nobody to answer,
 * says the same there.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <syslog.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "workload.h"

/* the lines kept for one reload; a file with more errors says how many */
#define RELOAD_LINES_MAX	64

static struct ctl_reload	 lines[RELOAD_LINES_MAX];
static int			 nlines;
static int			 ndropped;
static struct proc_asker	 reload_asker;	/* id 0: a SIGHUP */
static int			 in_capture;
static int			 nrestart;	/* settings kept: see below */

static void	reload_keep(int32_t, const char *);

/* a line of the log while the file is read: an error or a warning */
static void
reload_capture(int pri, const char *line)
{
	if (pri > LOG_WARNING || in_capture)
		return;
	reload_keep(CTL_RELOAD_WARNING, line);
}

/* a reload starts; conn is the control connection, 0 for a SIGHUP */
void
reload_begin(uint32_t conn)
{
	memset(&reload_asker, 0, sizeof(reload_asker));
	reload_asker.peer = PROC_CLIENT;
	reload_asker.id = conn;
	nlines = ndropped = nrestart = 0;
}

/* the log's lines from now on are kept, for orchctl */
void
reload_capture_start(void)
{
	if (reload_asker.id != 0)
		log_capture(reload_capture);
}

void
reload_capture_stop(void)
{
	log_capture(NULL);
}

static void
reload_send(int32_t what, const char *msg)
{
	struct ctl_reload	 cr;

	if (reload_asker.id == 0)
		return;
	memset(&cr, 0, sizeof(cr));
	cr.what = what;
	strlcpy(cr.msg, msg, sizeof(cr.msg));
	/* proc_reply() may log: that line is not one of the file's */
	in_capture = 1;
	(void)proc_reply(&orchd_env->ps, &reload_asker, IMSG_CTL_RELOADINFO,
	    &cr, sizeof(cr));
	in_capture = 0;
}

static void
reload_keep(int32_t what, const char *msg)
{
	if (nlines >= RELOAD_LINES_MAX) {
		ndropped++;
		return;
	}
	lines[nlines].what = what;
	strlcpy(lines[nlines].msg, msg, sizeof(lines[nlines].msg));
	nlines++;
}

/*
 * The lines kept so far go to orchctl: the log's as errors when the
 * reload is refused (the settings to restart for are then moot), as
 * warnings when it goes ahead.
 */
void
reload_flush(int failed)
{
	char	 msg[CTL_MSG_MAX];
	int	 i;

	reload_capture_stop();
	for (i = 0; i < nlines; i++) {
		if (lines[i].what == CTL_RELOAD_RESTART) {
			if (!failed)
				reload_send(CTL_RELOAD_RESTART, lines[i].msg);
			continue;
		}
		reload_send(failed ? CTL_RELOAD_ERROR : CTL_RELOAD_WARNING,
		    lines[i].msg);
	}
	if (ndropped > 0) {
		snprintf(msg, sizeof(msg), "%d more lines in the log",
		    ndropped);
		reload_send(failed ? CTL_RELOAD_ERROR : CTL_RELOAD_WARNING,
		    msg);
	}
	nlines = ndropped = 0;
}

/*
 * confd read every input of the running configuration again and found
 * none changed (confd/inputs.c): the reload is done, no child is sent
 * a configuration and the generation stays; orchctl hears so, and OK.
 */
void
reload_unchanged(const char *file, uint32_t gen)
{
	char	 msg[CTL_MSG_MAX];

	log_info("reload: %s and its inputs unchanged, configuration %u "
	    "kept", file, gen);
	snprintf(msg, sizeof(msg), "no change: %s and every file it reads "
	    "are as when configuration %u was loaded", file, gen);
	reload_send(CTL_RELOAD_SAME, msg);
	if (reload_asker.id != 0)
		(void)proc_reply_ok(&orchd_env->ps, &reload_asker);
}

/* a setting that only a restart changes: logged, and told to orchctl */
void
reload_restart(const char *what)
{
	log_warnx("%s changed: restart orchd to use it", what);
	reload_keep(CTL_RELOAD_RESTART, what);
	nrestart++;
}

/*
 * Whether what runs is what the file says: not when a setting was kept
 * until a restart.  Then the file's inputs are not kept (confsame.c), so
 * that the next reload reads it whole and says so again.
 */
int
reload_as_file(void)
{
	return (nrestart == 0);
}

static int
wl_cmp(const void *a, const void *b)
{
	const struct workload_conf	*const *wa = a, *const *wb = b;

	return (strcmp((*wa)->name, (*wb)->name));
}

/* the workloads of the file, not the API's, sorted by name */
static struct workload_conf **
wl_sorted(struct orchd_conf *conf, size_t *np)
{
	struct workload_conf	*wl, **v;
	size_t			 n = 0;

	TAILQ_FOREACH(wl, &conf->workloads, entry)
		n++;
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	n = 0;
	TAILQ_FOREACH(wl, &conf->workloads, entry)
		if (wl->source == SOURCE_CONFIG)
			v[n++] = wl;
	qsort(v, n, sizeof(*v), wl_cmp);
	*np = n;
	return (v);
}

/* wl's definition in the form the children get, as a digest */
static uint64_t
wl_digest(const struct workload_conf *wl)
{
	void		*w;
	size_t		 len;
	uint64_t	 d;

	if ((w = workload_wire(wl, &len)) == NULL)
		fatalx("%s: workload %s", __func__, wl->name);
	d = workload_wire_bytes_digest(w, len);
	free(w);
	return (d);
}

/*
 * The last diff's new side, sorted, with each definition's digest: the
 * next diff's old side when that configuration is still the running one
 * with the same file workloads (the file's change only by a reload), so
 * that a reload makes each definition's wire form once, not twice, and
 * sorts one list.  "The same" is the same objects in the same order:
 * a digest of their addresses, taken again of the running configuration
 * before the list is used, so that no pointer to one freed is followed.
 */
static struct {
	const struct orchd_conf	*conf;
	uint64_t		 addrs;
	struct workload_conf	**v;
	uint64_t		*digest;
	size_t			 n;
} last;

static void
last_clear(void)
{
	free(last.v);
	free(last.digest);
	memset(&last, 0, sizeof(last));
}

/* the addresses of conf's file workloads, in their order */
static uint64_t
addrs_digest(const struct orchd_conf *conf)
{
	const struct workload_conf	*wl;
	uintptr_t			 p;
	uint64_t			 h = 0x9e3779b97f4a7c15ULL;

	TAILQ_FOREACH(wl, &conf->workloads, entry) {
		if (wl->source != SOURCE_CONFIG)
			continue;
		p = (uintptr_t)wl;
		h ^= (uint64_t)p;
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return (h);
}

static uint64_t *
digests(struct workload_conf **v, size_t n)
{
	uint64_t	*d;
	size_t		 i;

	if ((d = calloc(n + 1, sizeof(*d))) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < n; i++)
		d[i] = wl_digest(v[i]);
	return (d);
}

static void
reload_workload(int32_t what, const char *name, int *count)
{
	static const char	*verb[] = { "", "added", "removed", "changed" };

	count[what]++;
	log_debug("reload: workload %s %s", name, verb[what]);
	reload_send(what, name);
}

/*
 * The workloads of oconf's file against nconf's, both sorted by name and
 * walked together: a reload of 10,000 workloads stays quick.  Two
 * definitions are the same when their wire forms' digests are
 * (workload_wire_bytes_digest()): this only says what changed, to the
 * log and orchctl; what the children are sent is decided by its own.
 */
void
reload_diff(struct orchd_conf *oconf, struct orchd_conf *nconf)
{
	struct workload_conf	**ov, **nv;
	uint64_t		*od, *nd;
	size_t			 on, nn, i = 0, j = 0;
	int			 c, count[CTL_RELOAD_CHANGED + 1];

	memset(count, 0, sizeof(count));
	if (last.conf != oconf || last.addrs != addrs_digest(oconf)) {
		last_clear();
		last.v = wl_sorted(oconf, &last.n);
		last.digest = digests(last.v, last.n);
	}
	ov = last.v;
	od = last.digest;
	on = last.n;
	nv = wl_sorted(nconf, &nn);
	nd = digests(nv, nn);
	while (i < on || j < nn) {
		if (i == on)
			c = 1;
		else if (j == nn)
			c = -1;
		else
			c = strcmp(ov[i]->name, nv[j]->name);
		if (c < 0)
			reload_workload(CTL_RELOAD_REMOVED, ov[i++]->name,
			    count);
		else if (c > 0)
			reload_workload(CTL_RELOAD_ADDED, nv[j++]->name,
			    count);
		else {
			if (od[i] != nd[j])
				reload_workload(CTL_RELOAD_CHANGED,
				    nv[j]->name, count);
			i++;
			j++;
		}
	}
	last_clear();
	last.conf = nconf;
	last.addrs = addrs_digest(nconf);
	last.v = nv;
	last.digest = nd;
	last.n = nn;
	log_info("reload: workloads: %d added, %d removed, %d changed",
	    count[CTL_RELOAD_ADDED], count[CTL_RELOAD_REMOVED],
	    count[CTL_RELOAD_CHANGED]);
}
