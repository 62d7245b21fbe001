/*
 * Whether a host of a workload the API would add or change is taken:
 * by another workload (unless the two are routed apart by their paths),
 * by the API's own names, or, for a workload of the API, by a pattern of
 * the file's: the API takes no name the operator routed.  Read from the
 * configuration the parent holds; no input of its own.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "orchd.h"
#include "parent.h"
#include "workload.h"

/*
 * Does pattern "*.suffix" match host, or every name of host when host is
 * itself a pattern?  As gatewayd routes: "*.x.org" matches "a.x.org" and
 * "a.b.x.org", not "x.org".
 */
static int
api_host_covered(const char *host, const char *pattern)
{
	const char	*suffix, *name = host;
	size_t		 nl, sl;

	if (pattern[0] != '*' || pattern[1] != '.')
		return (0);
	suffix = pattern + 1;
	if (host[0] == '*' && host[1] == '.')
		name = host + 2;
	nl = strlen(name);
	sl = strlen(suffix);
	return (nl > sl && strcasecmp(name + nl - sl, suffix) == 0);
}

/*
 * Two workloads of one host routed apart by their paths ("path"): the
 * prefixes differ, and both are the file's or both the API's, so that
 * the API takes no part of a host the operator routed.
 */
static int
api_path_apart(const struct workload_conf *a, const struct workload_conf *b)
{
	size_t	 la = workload_path_len(a), lb = workload_path_len(b);

	if (a->source != b->source)
		return (0);
	if (la != lb)
		return (1);
	return (la != 0 && strncmp(a->path, b->path, la) != 0);
}

/* a host of wc that o has too, or that falls under one of o's: 1 */
static int
host_clash(const struct workload_conf *wc, const struct workload_conf *o,
    char *err, size_t len)
{
	const struct strentry	*h, *oh;
	int			 api = wc->source == SOURCE_API;

	TAILQ_FOREACH(h, &wc->hosts, entry)
		TAILQ_FOREACH(oh, &o->hosts, entry) {
			if (strcasecmp(h->str, oh->str) == 0 &&
			    !api_path_apart(wc, o)) {
				snprintf(err, len, "host \"%s\"%s%s%s is "
				    "already used by workload \"%s\"", h->str,
				    wc->path != NULL ? " path \"" : "",
				    wc->path != NULL ? wc->path : "",
				    wc->path != NULL ? "\"" : "", o->name);
				return (1);
			}
			if (strcasecmp(h->str, oh->str) == 0)
				continue;
			if (api && o->source == SOURCE_CONFIG &&
			    api_host_covered(h->str, oh->str)) {
				snprintf(err, len, "host \"%s\" falls under "
				    "\"%s\" of workload \"%s\"", h->str,
				    oh->str, o->name);
				return (1);
			}
		}
	return (0);
}

/*
 * A host of wc that another workload of conf, or the API, has; for a
 * workload of the API, also one that falls under a pattern of the file:
 * the API does not take names the operator routed.
 */
int
api_host_taken(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	struct pdef_iter		 it;
	const struct workload_conf	*o;
	const struct strentry		*h, *oh;
	int				 api = wc->source == SOURCE_API;
	int				 r = 0;

	TAILQ_FOREACH(h, &wc->hosts, entry)
		TAILQ_FOREACH(oh, &conf->api_hosts, entry)
			if (strcasecmp(h->str, oh->str) == 0 ||
			    (api && api_host_covered(h->str, oh->str))) {
				snprintf(err, len, "host \"%s\" is an api "
				    "host", h->str);
				return (1);
			}
	/* each other workload once: most are at rest (pdef.c) */
	for (o = pdef_first(&it, conf); o != NULL && r == 0;
	    o = pdef_next(&it))
		if (o != wc && strcmp(o->name, wc->name) != 0)
			r = host_clash(wc, o, err, len);
	pdef_end(&it);
	return (r);
}
