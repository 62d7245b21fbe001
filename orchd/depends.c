/*
 * "depends on" in the running configuration, as the parent keeps it.
 * The file's workloads depend on workloads of the file, checked by the
 * parser; those of the API may depend on any workload.  So a workload of
 * the API is checked against the running configuration before it joins
 * it, one that others depend on cannot be deleted, and a reload may not
 * remove what a workload of the API depends on.  At start, those of the
 * API are read back from the store in no useful order: they are checked
 * once all are in, and one that names a workload no longer there is
 * left out, as one the policy forbids is.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "deps.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "workload.h"

struct first_problem {
	char	*err;
	size_t	 len;
	int	 found;
};

static void
first_report(void *arg, const struct workload_conf *wc, const char *dep,
    const char *msg)
{
	struct first_problem	*fp = arg;

	if (fp->found++ == 0)
		(void)strlcpy(fp->err, msg, fp->len);
}

/*
 * conf's workloads, and extra after them if not NULL, in the place of
 * the one of its name (an update); *np their number.  One at rest
 * (pdef.c) depends on nothing: it stands as its name alone, in a stub
 * of the same block, which one free() lets go.
 */
static const struct workload_conf **
depends_set(const struct orchd_conf *conf, const struct workload_conf *extra,
    size_t *np)
{
	const struct workload_conf	**v, *wc;
	struct workload_conf		 *stub;
	const struct wl_rest		 *r;
	size_t				  n, nrest = 0;

	n = pdef_count(conf, NULL) + 1;
	TAILQ_FOREACH(r, &conf->rest, entry)
		nrest++;
	if ((v = calloc(1, n * sizeof(*v) + nrest * sizeof(*stub))) == NULL)
		return (NULL);
	stub = (struct workload_conf *)(v + n);
	n = 0;
	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (extra == NULL || strcmp(wc->name, extra->name) != 0)
			v[n++] = wc;
	TAILQ_FOREACH(r, &conf->rest, entry) {
		if (extra != NULL && strcmp(r->name, extra->name) == 0)
			continue;
		strlcpy(stub->name, r->name, sizeof(stub->name));
		TAILQ_INIT(&stub->depends);
		v[n++] = stub++;
	}
	if (extra != NULL)
		v[n++] = extra;
	*np = n;
	return (v);
}

/*
 * May wc, new or replacing the workload of its name, join conf?  Each
 * name it depends on is a workload of conf and it closes no cycle.  0,
 * 400 with err, or 503 out of memory.
 */
int
depends_check_new(const struct orchd_conf *conf,
    const struct workload_conf *wc, char *err, size_t len)
{
	const struct workload_conf	**v;
	struct first_problem		  fp = { err, len, 0 };
	size_t				  n;
	int				  r;

	/* with none, it is in no cycle and names nothing */
	if (TAILQ_EMPTY(&wc->depends))
		return (0);
	if ((v = depends_set(conf, wc, &n)) == NULL) {
		snprintf(err, len, "out of memory");
		return (503);
	}
	r = deps_check(v, n, first_report, &fp);
	free(v);
	if (r == -1) {
		snprintf(err, len, "out of memory");
		return (503);
	}
	return (fp.found > 0 ? 400 : 0);
}

/* does wc depend on name? */
static int
depends_on(const struct workload_conf *wc, const char *name)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, &wc->depends, entry)
		if (strcmp(e->str, name) == 0)
			return (1);
	return (0);
}

/*
 * The workloads of conf (only the API's if api) that depend on name,
 * "a, b", in buf (cut with "..." if it is too short); their number.
 */
static int
dependents(const struct orchd_conf *conf, const char *name, int api,
    char *buf, size_t len)
{
	const struct workload_conf	*wc;
	int				 n = 0, cut = 0;

	if (len > 0)
		buf[0] = '\0';
	TAILQ_FOREACH(wc, &conf->workloads, entry) {
		if (!depends_on(wc, name) || (api && wc->source != SOURCE_API))
			continue;
		if (!cut && len > 0 && ((n > 0 && strlcat(buf, ", ", len) >=
		    len) || strlcat(buf, wc->name, len) >= len))
			cut = 1;
		n++;
	}
	if (cut && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return (n);
}

int
depends_dependents(const struct orchd_conf *conf, const char *name,
    char *buf, size_t len)
{
	return (dependents(conf, name, 0, buf, len));
}

/*
 * May nconf, from the file, replace oconf, whose workloads of the API
 * stay?  Every name they depend on must still be there: in the new file,
 * or one of them.  0, or -1 with err naming the workload removed and
 * those that depend on it.
 */
int
depends_reload_check(const struct orchd_conf *nconf,
    const struct orchd_conf *oconf, char *err, size_t len)
{
	const struct workload_conf	*wc, *o;
	const struct strentry		*e;
	char				 who[CTL_MSG_MAX / 2];
	int				 n;

	TAILQ_FOREACH(wc, &oconf->workloads, entry) {
		if (wc->source != SOURCE_API)
			continue;
		TAILQ_FOREACH(e, &wc->depends, entry) {
			if (pdef_exists(nconf, e->str))
				continue;
			TAILQ_FOREACH(o, &oconf->workloads, entry)
				if (o->source == SOURCE_API &&
				    strcmp(o->name, e->str) == 0)
					break;
			if (o != NULL)
				continue;
			n = dependents(oconf, e->str, 1, who, sizeof(who));
			snprintf(err, len, "workload %s cannot be removed: %s "
			    "(created through the API) depend%s on it",
			    e->str, who, n > 1 ? "" : "s");
			return (-1);
		}
	}
	return (0);
}

/* the workloads to drop: those of the API with a problem */
struct drops {
	const struct workload_conf	**wc;
	size_t				  n;
	int				  other;	/* of the file */
};

static void
drop_report(void *arg, const struct workload_conf *wc, const char *dep,
    const char *msg)
{
	struct drops	*d = arg;
	size_t		 i;

	if (wc->source != SOURCE_API) {
		log_warnx("%s", msg);
		d->other++;
		return;
	}
	for (i = 0; i < d->n; i++)
		if (d->wc[i] == wc)
			return;
	log_warnx("workload %s created through the API is left out of the "
	    "running configuration: %s", wc->name, msg);
	d->wc[d->n++] = wc;
}

/*
 * The workloads of the API whose dependencies are not all there, or
 * that close a cycle, leave conf; and then those that depended on them,
 * until none is left that does.  They stay in the store.
 */
void
depends_prune(struct orchd_conf *conf)
{
	const struct workload_conf	**v;
	struct workload_conf		*wc, *next;
	struct drops			  d;
	size_t				  n, i;
	int				  r;

	do {
		if ((v = depends_set(conf, NULL, &n)) == NULL)
			fatal("%s", __func__);
		memset(&d, 0, sizeof(d));
		if ((d.wc = calloc(n + 1, sizeof(*d.wc))) == NULL)
			fatal("%s", __func__);
		if ((r = deps_check(v, n, drop_report, &d)) == -1)
			fatal("%s", __func__);
		free(v);
		TAILQ_FOREACH_SAFE(wc, &conf->workloads, entry, next)
			for (i = 0; i < d.n; i++)
				if (d.wc[i] == wc) {
					TAILQ_REMOVE(&conf->workloads, wc,
					    entry);
					/* its sockets go with it */
					api_listen_drop(conf, wc->name);
					workload_free(wc);
					break;
				}
		free(d.wc);
	} while (d.n > 0);
}
