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

/* a workload of the file, by name, and its definition's digest */
struct wl_dig {
	const char	*name;		/* its configuration's */
	uint64_t	 d;
};

static int
wl_cmp(const void *a, const void *b)
{
	const struct wl_dig	*wa = a, *wb = b;

	return (strcmp(wa->name, wb->name));
}

/*
 * The workloads of the file, not the API's, sorted by name, each with
 * the digest of the form the children get (workload_wire(); of one at
 * rest, kept with it when it was made: pdef.c), valid while conf is
 */
static struct wl_dig *
wl_sorted(const struct orchd_conf *conf, size_t *np)
{
	const struct workload_conf	*wl;
	const struct wl_rest		*r;
	struct wl_dig			*v;
	void				*w;
	size_t				 n, len;

	n = pdef_count(conf, NULL);
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	n = 0;
	TAILQ_FOREACH(wl, &conf->workloads, entry) {
		if (wl->source != SOURCE_CONFIG)
			continue;
		if ((w = workload_wire(wl, &len)) == NULL)
			fatalx("%s: workload %s", __func__, wl->name);
		v[n].name = wl->name;
		v[n++].d = workload_wire_bytes_digest(w, len);
		free(w);
	}
	TAILQ_FOREACH(r, &conf->rest, entry) {
		v[n].name = r->name;
		v[n++].d = r->digest;
	}
	qsort(v, n, sizeof(*v), wl_cmp);
	*np = n;
	return (v);
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
	struct wl_dig	*ov, *nv;
	size_t		 on, nn, i = 0, j = 0;
	int		 c, count[CTL_RELOAD_CHANGED + 1];

	memset(count, 0, sizeof(count));
	ov = wl_sorted(oconf, &on);
	nv = wl_sorted(nconf, &nn);
	while (i < on || j < nn) {
		if (i == on)
			c = 1;
		else if (j == nn)
			c = -1;
		else
			c = strcmp(ov[i].name, nv[j].name);
		if (c < 0)
			reload_workload(CTL_RELOAD_REMOVED, ov[i++].name,
			    count);
		else if (c > 0)
			reload_workload(CTL_RELOAD_ADDED, nv[j++].name,
			    count);
		else {
			if (ov[i].d != nv[j].d)
				reload_workload(CTL_RELOAD_CHANGED,
				    nv[j].name, count);
			i++;
			j++;
		}
	}
	free(ov);
	free(nv);
	log_info("reload: workloads: %d added, %d removed, %d changed",
	    count[CTL_RELOAD_ADDED], count[CTL_RELOAD_REMOVED],
	    count[CTL_RELOAD_CHANGED]);
}
