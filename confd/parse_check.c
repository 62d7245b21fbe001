/*
 * What orchd.conf's workloads are checked for against each other, as
 * each is added or once the whole file is read: names and hosts (each
 * host pattern belongs to one workload, or is an api host), workloads'
 * addresses and ports against each other and the listeners, host paths
 * against orchd's own files (known only at the end: "database" may come
 * after the volume), and the graph of "depends on" (common/deps.c).
 *
 * Names and hosts are looked up in hash tables (common/hashtab.c): a
 * walk of every workload per host made 10,000 workloads quadratic.  The
 * keys belong to the workloads.  The end-of-file checks keep where each
 * was written, for an error at its line.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "deps.h"
#include "hashtab.h"
#include "units.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

/* a host path: "volume", "api allow volume" */
struct pathcheck {
	char	*file;
	int	 lineno;
	char	*path;
	char	*what;
};

/* a workload's address and port */
struct portcheck {
	char				*file;
	int				 lineno;
	const struct workload_conf	*wl;
	struct sockaddr_storage		 ss;
	socklen_t			 sslen;
};

/* a "depends on" */
struct depcheck {
	char	*file;
	int	 lineno;
	char	*wl;		/* the workload's name */
	char	*dep;		/* the name it depends on */
};

static struct hashtab	 names_index = HASHTAB_INITIALIZER(0);
static struct hashtab	 hosts_index = HASHTAB_INITIALIZER(1);
/*
 * "host\tpath": a host routes each path to one workload; the path is
 * workload_path_len()'s, "" for the host's default.  A host's line in
 * the workload being read, for the error at it once its path is known.
 */
#define ROUTE_KEY_MAX	(ORCHD_HOST_MAX + ORCHD_PATH_MAX + 2)
static struct hashtab	 routes_index = HASHTAB_INITIALIZER(1);
static struct strlist	 route_keys = TAILQ_HEAD_INITIALIZER(route_keys);
struct hostline {
	const char	*host;
	int		 lineno;
};
static struct hostline	*hostlines;
static size_t		 nhostlines;
static struct pathcheck	*pathchecks;
static size_t		 npathchecks;
static struct portcheck	*portchecks;
static size_t		 nportchecks;
static struct depcheck	*depchecks;
static size_t		 ndepchecks;

static void
index_add(struct hashtab *t, const char *key, const struct workload_conf *w)
{
	if (hashtab_add(t, key, w) == -1)
		fatal("%s", __func__);
}

/* a workload of this name was defined before */
int
workload_named(const char *name)
{
	return (hashtab_find(&names_index, name) != NULL);
}

/* the parse is over */
void
index_clear(void)
{
	hashtab_clear(&names_index);
	hashtab_clear(&hosts_index);
	hashtab_clear(&routes_index);
	strlist_free(&route_keys);
	free(hostlines);
	hostlines = NULL;
	nhostlines = 0;
}

/* "host\tpath" of a route, for routes_index */
static int
route_key(const struct workload_conf *w, const char *host, char *buf,
    size_t len)
{
	size_t	 hlen, plen;

	/* by hand: snprintf(3) twice a host was a twentieth of the parse */
	hlen = strlen(host);
	plen = workload_path_len(w);
	if (hlen >= len || plen >= len - hlen - 1)
		return (-1);
	memcpy(buf, host, hlen);
	buf[hlen] = '\t';
	if (plen > 0)
		memcpy(buf + hlen + 1, w->path, plen);
	buf[hlen + 1 + plen] = '\0';
	return (0);
}

/*
 * The workload read: each of its hosts with its path is no other's,
 * said at the host's line.  Before the rest of its checks, which an
 * error of its own would skip.
 */
void
route_check(void)
{
	const struct workload_conf	*w;
	char				 key[ROUTE_KEY_MAX];
	size_t				 i;

	for (i = 0; i < nhostlines; i++) {
		if (route_key(wl, hostlines[i].host, key, sizeof(key)) == -1 ||
		    (w = hashtab_find(&routes_index, key)) == NULL)
			continue;
		if (wl->path == NULL && w->path == NULL)
			yyerror_at(hostlines[i].lineno, "host \"%s\" already "
			    "used by workload \"%s\"", hostlines[i].host,
			    w->name);
		else
			yyerror_at(hostlines[i].lineno, "host \"%s\" path "
			    "\"%s\" already used by workload \"%s\"",
			    hostlines[i].host,
			    wl->path != NULL ? wl->path : "/", w->name);
	}
	nhostlines = 0;
}

/* the workload is given up: its hosts' lines go with it */
void
route_forget(void)
{
	nhostlines = 0;
}

int
host_add(const char *host)
{
	struct strentry			*e;
	struct hostline			*hl;

	if (!valid_host_pattern(host)) {
		yyerror("invalid host \"%s\"", host);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("host \"%s\" listed twice", host);
			return (-1);
		}
	TAILQ_FOREACH(e, &conf->api_hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("host \"%s\" is an api host", host);
			return (-1);
		}
	if (strlist_add(&wl->hosts, host) == -1 ||
	    (hl = reallocarray(hostlines, nhostlines + 1,
	    sizeof(*hl))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	/* whether another workload has it is known once its path is */
	hostlines = hl;
	hl[nhostlines].host = TAILQ_LAST(&wl->hosts, strlist)->str;
	hl[nhostlines++].lineno = yylval.lineno;
	return (0);
}

int
api_host_add(const char *host)
{
	const struct workload_conf	*w;
	struct strentry			*e;

	if (!valid_host_pattern(host)) {
		yyerror("invalid api host \"%s\"", host);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("api host \"%s\" listed twice", host);
			return (-1);
		}
	if ((w = hashtab_find(&hosts_index, host)) != NULL) {
		yyerror("api host \"%s\" already used by workload \"%s\"",
		    host, w->name);
		return (-1);
	}
	if (strlist_add(&conf->api_hosts, host) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* a workload just added to the configuration */
void
index_workload(const struct workload_conf *w)
{
	const struct strentry	*e;
	struct strentry		*last;
	char			 key[ROUTE_KEY_MAX];
	int			 r;

	/* a key there already keeps its first workload: one probe each */
	index_add(&names_index, w->name, w);
	TAILQ_FOREACH(e, &w->hosts, entry) {
		index_add(&hosts_index, e->str, w);
		if (route_key(w, e->str, key, sizeof(key)) == -1)
			continue;
		/* the table keeps the key, not a copy */
		if (strlist_add(&route_keys, key) == -1)
			fatal("%s", __func__);
		last = TAILQ_LAST(&route_keys, strlist);
		if ((r = hashtab_add(&routes_index, last->str, w)) == -1)
			fatal("%s", __func__);
		if (r == 1) {
			TAILQ_REMOVE(&route_keys, last, entry);
			free(last->str);
			free(last);
		}
	}
}

/*
 * Host paths.  A path that cannot be one ("..", relative) is an error at
 * once; where it may point is checked by pathcheck_run().
 */
int
pathcheck_add(const char *path, const char *what)
{
	struct pathcheck	*pc;
	char			 npath[PATH_MAX], why[512];

	/* a relative volume is workload_validate()'s to report */
	if (path[0] != '/')
		return (0);
	if (hostpath_normalize(path, npath, sizeof(npath), why,
	    sizeof(why)) == -1) {
		yyerror("%s: %s", what, why);
		return (-1);
	}
	if ((pc = reallocarray(pathchecks, npathchecks + 1,
	    sizeof(*pc))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	pathchecks = pc;
	pc = &pathchecks[npathchecks];
	pc->lineno = yylval.lineno;
	pc->file = strdup(file->name);
	pc->path = strdup(path);
	pc->what = strdup(what);
	if (pc->file == NULL || pc->path == NULL || pc->what == NULL) {
		free(pc->file);
		free(pc->path);
		free(pc->what);
		yyerror("out of memory");
		return (-1);
	}
	npathchecks++;
	return (0);
}

/* c has its defaults: every host path against the forbidden ones */
void
pathcheck_run(const struct orchd_conf *c)
{
	struct pathcheck	*pc;
	char			 why[1024];
	size_t			 i;

	for (i = 0; i < npathchecks; i++) {
		pc = &pathchecks[i];
		if (c != NULL && hostpath_forbidden(pc->path, c, why,
		    sizeof(why)) == -1) {
			errors++;
			log_warnx("%s:%d: %s: %s", pc->file, pc->lineno,
			    pc->what, why);
		} else if (c != NULL && strcmp(pc->what, "volume") == 0 &&
		    hostpath_root_equivalent(pc->path, why, sizeof(why)))
			log_warnx("%s:%d: warning: %s \"%s\": %s", pc->file,
			    pc->lineno, pc->what, pc->path, why);
		free(pc->file);
		free(pc->path);
		free(pc->what);
	}
	free(pathchecks);
	pathchecks = NULL;
	npathchecks = 0;
}

/* the workload just parsed: its address and port, checked at the end */
void
portcheck_add(void)
{
	struct portcheck	*pc;

	if (wl->port == 0 || wl->address == NULL)
		return;
	if ((pc = reallocarray(portchecks, nportchecks + 1,
	    sizeof(*pc))) == NULL) {
		yyerror_at(wl_lineno, "out of memory");
		return;
	}
	portchecks = pc;
	pc = &portchecks[nportchecks];
	memset(pc, 0, sizeof(*pc));
	if (address_parse(wl->address, workload_upstream_port(wl), &pc->ss,
	    &pc->sslen) == -1)
		return;		/* workload_validate() said so */
	if ((pc->file = strdup(file->name)) == NULL) {
		yyerror_at(wl_lineno, "out of memory");
		return;
	}
	pc->lineno = wl_lineno;
	pc->wl = wl;
	nportchecks++;
}

/* by address, then port, then where: a duplicate follows its first */
static int
portcheck_cmp(const void *a, const void *b)
{
	const struct portcheck	*pa = a, *pb = b;
	int			 c;

	if (pa->sslen != pb->sslen)
		return (pa->sslen < pb->sslen ? -1 : 1);
	if ((c = memcmp(&pa->ss, &pb->ss, pa->sslen)) != 0)
		return (c);
	if ((c = strcmp(pa->file, pb->file)) != 0)
		return (c);
	return (pa->lineno - pb->lineno);
}

/*
 * No two workloads on one address and port, and none on the gateway's
 * own: sorted, so that 10,000 workloads stay quick.  c NULL: only free.
 */
void
portchecks_run(const struct orchd_conf *c)
{
	struct portcheck	*pc, *first;
	struct listener_conf	 wlc, *l;
	char			 whose[ORCHD_NAME_MAX + 16];
	int			 nlisten = 0;
	size_t			 i;

	if (c != NULL && nportchecks > 1)
		qsort(portchecks, nportchecks, sizeof(*portchecks),
		    portcheck_cmp);
	for (i = 0; c != NULL && i < nportchecks; i++) {
		pc = &portchecks[i];
		first = i > 0 ? &portchecks[i - 1] : NULL;
		if (first != NULL && first->sslen == pc->sslen &&
		    memcmp(&first->ss, &pc->ss, pc->sslen) == 0)
			check_error(pc->file, pc->lineno, "workload \"%s\": "
			    "address %s port %d is workload \"%s\"'s too",
			    pc->wl->name, pc->wl->address,
			    workload_upstream_port(pc->wl),
			    first->wl->name);
		memset(&wlc, 0, sizeof(wlc));
		wlc.ss = pc->ss;
		wlc.sslen = pc->sslen;
		TAILQ_FOREACH(l, &c->listeners, entry)
			if (listener_overlaps(&wlc, l)) {
				check_error(pc->file, pc->lineno, "workload "
				    "\"%s\": address %s port %d is %s%slisten "
				    "on %s", pc->wl->name, pc->wl->address,
				    workload_upstream_port(pc->wl),
				    l->workload[0] != '\0' ? "" :
				    "the gateway's ", listener_whose(l, whose,
				    sizeof(whose)), l->name);
				break;
			}
	}
	/* a status listener serves nothing but the page */
	if (c != NULL && !c->status_page)
		TAILQ_FOREACH(l, &c->listeners, entry)
			if (l->api == LISTENER_STATUS) {
				check_error(c->conffile, 1, "status listen on "
				    "%s: without \"status page\"", l->name);
				break;
			}
	if (c != NULL && parse_host_checks != PARSE_HOST_NONE) {
		TAILQ_FOREACH(l, &c->listeners, entry)
			if (!l->api && l->workload[0] == '\0')
				nlisten++;
		if (nlisten == 0)
			log_warnx("%s: warning: no \"listen on\": the gateway "
			    "serves no workload", c->conffile);
	}
	for (i = 0; i < nportchecks; i++)
		free(portchecks[i].file);
	free(portchecks);
	portchecks = NULL;
	nportchecks = 0;
}

/*
 * "depends on" in the workload being parsed: a name, once, not its own
 * (as workload_validate() says too); whether it is a workload is known
 * at the end of the file.
 */
int
depends_add(const char *name)
{
	struct depcheck	*dc;
	struct strentry	*e;
	int		 n = 0;

	if (!valid_workload_name(name)) {
		yyerror("depends on \"%s\": not a workload name", name);
		return (-1);
	}
	if (strcmp(name, wl->name) == 0) {
		yyerror("workload \"%s\" depends on itself", name);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->depends, entry) {
		if (strcmp(e->str, name) == 0) {
			yyerror("depends on \"%s\" listed twice", name);
			return (-1);
		}
		n++;
	}
	if (n >= ORCHD_DEPS_MAX) {
		yyerror("depends on more than %d workloads", ORCHD_DEPS_MAX);
		return (-1);
	}
	if ((dc = reallocarray(depchecks, ndepchecks + 1,
	    sizeof(*dc))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	depchecks = dc;
	dc = &depchecks[ndepchecks];
	dc->lineno = yylval.lineno;
	dc->file = strdup(file->name);
	dc->wl = strdup(wl->name);
	dc->dep = strdup(name);
	if (dc->file == NULL || dc->wl == NULL || dc->dep == NULL ||
	    strlist_add(&wl->depends, name) == -1) {
		free(dc->file);
		free(dc->wl);
		free(dc->dep);
		yyerror("out of memory");
		return (-1);
	}
	ndepchecks++;
	return (0);
}

/* a problem of the graph, at the line of the "depends on" it shows at */
static void
depcheck_report(void *arg, const struct workload_conf *w, const char *dep,
    const char *msg)
{
	const struct orchd_conf	*c = arg;
	size_t			 i;

	for (i = 0; i < ndepchecks; i++)
		if (strcmp(depchecks[i].wl, w->name) == 0 &&
		    strcmp(depchecks[i].dep, dep) == 0)
			break;
	if (i < ndepchecks)
		check_error(depchecks[i].file, depchecks[i].lineno, "%s", msg);
	else
		check_error(c->conffile, 1, "%s", msg);
}

/*
 * The file's workloads name workloads of the file: those of the API may
 * go, the file stands on its own (and orchd -n checks it alone).  c
 * NULL: only free.
 */
void
depchecks_run(const struct orchd_conf *c)
{
	const struct workload_conf	**v = NULL, *w;
	size_t				 i, n = 0;

	if (c != NULL && ndepchecks > 0) {
		TAILQ_FOREACH(w, &c->workloads, entry)
			n++;
		if ((v = calloc(n, sizeof(*v))) == NULL)
			check_error(c->conffile, 1, "out of memory");
		else {
			n = 0;
			TAILQ_FOREACH(w, &c->workloads, entry)
				v[n++] = w;
			if (deps_check(v, n, depcheck_report,
			    (void *)c) == -1)
				check_error(c->conffile, 1, "out of memory");
			free(v);
		}
	}
	for (i = 0; i < ndepchecks; i++) {
		free(depchecks[i].file);
		free(depchecks[i].wl);
		free(depchecks[i].dep);
	}
	free(depchecks);
	depchecks = NULL;
	ndepchecks = 0;
}
