/*
 * orchctl import compose, the file as a whole: its top-level keys, the
 * project's name, each service mapped (compose_svc.c) and the whole
 * ordered so that a service comes after what it depends on, a cycle
 * being an error.  Every error is collected with its line, so that one
 * run names them all; one error and nothing is created.
 */

#include <sys/types.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compat.h"
#include "units.h"
#include "workload.h"
#include "compose.h"

#define CM_SERVICES_MAX	64	/* services in one file */

/* "FILE:LINE: services.web.build: why", one line of c->errs */
void
cm_err(struct compose *c, const struct ynode *n, const char *svc,
    const char *key, const char *fmt, ...)
{
	va_list	 ap;
	char	 why[512], *s;
	int	 len;

	if (++c->nerrs > CM_ERRORS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	len = asprintf(&s, "%s%s:%zu: %s%s%s%s%s\n", c->errs != NULL ?
	    c->errs : "", c->opts->file, n != NULL ? n->line : 1,
	    svc != NULL ? "services." : "", svc != NULL ? svc : "",
	    svc != NULL && key != NULL ? "." : "", key != NULL ? key : "",
	    why);
	if (len == -1)
		return;
	free(c->errs);
	c->errs = s;
	c->errslen = len;
}

/* what was mapped, with what it lacks: said on stderr, created anyway */
void
cm_note(struct compose *c, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(c->notes, json_string(buf));
}

/*
 * A named volume two services mount is one volume to Compose, but two to
 * orchd: an API workload's volume is a directory of its own (ROOT/
 * INSTANCE/WORKLOAD/NAME), never another's.  Said, not refused: each
 * still gets its volume.
 */
static void
cm_shared_volumes(struct compose *c)
{
	json_t		*d, *e, *o, *f;
	const char	*name, *first;
	size_t		 i, j, k, l;

	json_array_foreach(c->defs, i, d)
		json_array_foreach(json_object_get(d, "volumes"), j, e) {
			name = json_string_value(json_object_get(e, "host"));
			if (name == NULL || name[0] == '/')
				continue;
			first = json_string_value(json_object_get(d, "name"));
			json_array_foreach(c->defs, k, o) {
				if (k <= i)
					continue;
				json_array_foreach(json_object_get(o,
				    "volumes"), l, f)
					if (json_string_value(json_object_get(f,
					    "host")) != NULL && strcmp(name,
					    json_string_value(json_object_get(f,
					    "host"))) == 0)
						cm_note(c, "volume %s: %s and %s "
						    "each get their own: orchd "
						    "shares no volume between "
						    "workloads", name, first,
						    json_string_value(
						    json_object_get(o, "name")));
			}
		}
}

/*
 * Compose's "$$", a "$", made one in place (once: the node is marked
 * unescaped); -1 for a "$" that would be a variable, which orchctl does
 * not replace.
 */
static int
cm_dollars(char *s)
{
	char	*r, *w;

	if ((r = strchr(s, '$')) == NULL)
		return (0);
	for (w = r; *r != '\0'; r++) {
		if (*r == '$') {
			if (r[1] != '$')
				return (-1);
			r++;
		}
		*w++ = *r;
	}
	*w = '\0';
	return (0);
}

/* a scalar's text, or an error naming svc.key and NULL */
const char *
cm_str(struct compose *c, const struct ynode *n, const char *svc,
    const char *key)
{
	if (n == NULL || n->type != YT_SCALAR) {
		cm_err(c, n, svc, key, ": must be a string");
		return (NULL);
	}
	if (!valid_text(n->str)) {
		cm_err(c, n, svc, key, ": control characters or invalid "
		    "UTF-8");
		return (NULL);
	}
	if (!n->unescaped && cm_dollars(n->str) == -1) {
		cm_err(c, n, svc, key, ": \"%.64s\": variables ($NAME, "
		    "${NAME}) are not replaced: write the value, or $$ for "
		    "a $", n->str);
		return (NULL);
	}
	((struct ynode *)n)->unescaped = 1;
	return (n->str);
}

/*
 * Compose's durations ("1m30s", "500ms", "10s") in whole seconds, a
 * fraction rounded up: orchd counts seconds.
 */
int
cm_duration(struct compose *c, const struct ynode *n, const char *svc,
    const char *key, long long *secs)
{
	const char	*s, *p;
	long long	 v, ms = 0;
	char		*end;

	if ((s = cm_str(c, n, svc, key)) == NULL)
		return (-1);
	if (*s == '\0')
		goto bad;
	if (strspn(s, "0123456789") == strlen(s)) {
		/* a bare number: seconds */
		if (strlen(s) > 10)
			goto bad;
		*secs = strtoll(s, NULL, 10);
		return (0);
	}
	for (p = s; *p != '\0';) {
		if (!isdigit((unsigned char)*p))
			goto bad;
		v = strtoll(p, &end, 10);
		if (v > 1000000000LL)
			goto bad;
		p = end;
		if (strncmp(p, "ms", 2) == 0)
			ms += v, p += 2;
		else if (*p == 'h')
			ms += v * 3600000, p++;
		else if (*p == 'm')
			ms += v * 60000, p++;
		else if (*p == 's')
			ms += v * 1000, p++;
		else
			goto bad;
		if (ms > 100LL * 365 * 86400 * 1000)
			goto bad;
	}
	*secs = (ms + 999) / 1000;
	return (0);
 bad:
	cm_err(c, n, svc, key, ": \"%.32s\" is not a duration (such as "
	    "1m30s)", s);
	return (-1);
}

/* PROJECT-SERVICE, a workload name */
int
cm_svc_name(struct compose *c, const char *svc, char *buf, size_t len)
{
	int	 n;

	n = snprintf(buf, len, "%s-%s", c->project, svc);
	if (n < 0 || (size_t)n >= len || !valid_workload_name(buf))
		return (-1);
	return (0);
}

/* the project: --project, else the file's "name", else its folder's */
static int
cm_project(struct compose *c)
{
	const struct ynode	*n;
	const char		*p = c->opts->project, *slash;

	if (p == NULL && (n = yt_get(c->root, "name")) != NULL)
		p = cm_str(c, n, NULL, "name");
	if (p == NULL) {
		slash = strrchr(c->opts->dir, '/');
		p = slash != NULL && slash[1] != '\0' ? slash + 1 : "compose";
	}
	if (strlcpy(c->project, p, sizeof(c->project)) >=
	    sizeof(c->project) || !valid_workload_name(c->project) ||
	    strchr(c->project, '.') != NULL) {
		cm_err(c, yt_get(c->root, "name"), NULL, "project",
		    " \"%.64s\": must be a workload name, without dots "
		    "(--project NAME)", valid_text(p) ? p : "?");
		return (-1);
	}
	return (0);
}

/* top-level volumes and networks: declarations, none with options */
static void
cm_declared(struct compose *c, const char *what)
{
	const struct ynode	*m, *v;
	size_t			 i, j;

	if ((m = yt_get(c->root, what)) == NULL || yt_null(m))
		return;
	if (m->type != YT_MAP) {
		cm_err(c, m, NULL, what, ": must be a mapping");
		return;
	}
	for (i = 0; i + 1 < m->nkids; i += 2) {
		v = m->kids[i + 1];
		if (yt_null(v))
			continue;
		if (v->type != YT_MAP) {
			cm_err(c, v, NULL, what, ".%.64s: must be a mapping",
			    m->kids[i]->str);
			continue;
		}
		for (j = 0; j + 1 < v->nkids; j += 2)
			if (strncmp(v->kids[j]->str, "x-", 2) != 0)
				cm_err(c, v->kids[j], NULL, what,
				    ".%.64s.%.64s: not mapped: orchd makes "
				    "its %s itself, without options",
				    m->kids[i]->str, v->kids[j]->str, what);
	}
}

/*
 * The services in an order where each comes after those it depends on
 * (the definitions' depends_on), or an error naming a cycle.
 */
static int
cm_order(struct compose *c, json_t *byname, const struct ynode *svcs)
{
	json_t		*def, *deps, *d;
	const char	*name;
	size_t		 i, k, done = 0, total = json_object_size(byname);
	int		 progress, ready;

	while (done < total) {
		progress = 0;
		json_object_foreach(byname, name, def) {
			if (json_object_get(def, "@done") != NULL)
				continue;
			ready = 1;
			deps = json_object_get(def, "depends_on");
			json_array_foreach(deps, k, d) {
				json_t *o = json_object_get(byname,
				    json_string_value(d));
				if (o != NULL &&
				    json_object_get(o, "@done") == NULL)
					ready = 0;
			}
			if (!ready)
				continue;
			json_object_set_new(def, "@done", json_true());
			json_array_append(c->defs, def);
			done++;
			progress = 1;
		}
		if (progress)
			continue;
		for (i = 0; i + 1 < svcs->nkids; i += 2) {
			char	 wl[ORCHD_NAME_MAX];

			if (cm_svc_name(c, svcs->kids[i]->str, wl,
			    sizeof(wl)) == 0 && (def = json_object_get(byname,
			    wl)) != NULL && json_object_get(def, "@done") ==
			    NULL) {
				cm_err(c, yt_get(svcs->kids[i + 1],
				    "depends_on"), svcs->kids[i]->str,
				    "depends_on", ": a cycle: this service "
				    "depends, through others, on itself");
				return (-1);
			}
		}
		return (-1);
	}
	json_array_foreach(c->defs, i, def)
		json_object_del(def, "@done");
	return (0);
}

/*
 * Each container is published on its own port of 127.0.0.1 (publish,
 * else its port): two services on one are an error, fixed in the file
 * by publishing one on another ("8001:8000").
 */
static void
cm_ports(struct compose *c, json_t *byname, const struct ynode *svcs)
{
	json_t		*a, *b;
	const char	*na, *nb;
	size_t		 i, k;
	long long	 pa, pb;
	char		 wl[ORCHD_NAME_MAX];

	for (i = 0; i + 1 < svcs->nkids; i += 2) {
		if (cm_svc_name(c, svcs->kids[i]->str, wl, sizeof(wl)) == -1 ||
		    (a = json_object_get(byname, wl)) == NULL)
			continue;
		na = svcs->kids[i]->str;
		pa = json_integer_value(json_object_get(a, "publish"));
		if (pa == 0)
			pa = json_integer_value(json_object_get(a, "port"));
		for (k = i + 2; k + 1 < svcs->nkids; k += 2) {
			if (cm_svc_name(c, svcs->kids[k]->str, wl,
			    sizeof(wl)) == -1 ||
			    (b = json_object_get(byname, wl)) == NULL)
				continue;
			nb = svcs->kids[k]->str;
			pb = json_integer_value(json_object_get(b, "publish"));
			if (pb == 0)
				pb = json_integer_value(json_object_get(b,
				    "port"));
			if (pa != 0 && pa == pb)
				cm_err(c, svcs->kids[k], nb, "ports", ": "
				    "127.0.0.1 port %lld is %.64s's too: "
				    "publish one on another port (ports: "
				    "\"HOST:%lld\")", pb, na, pb);
		}
	}
}

static const char *top_keys[] = {
	"version", "name", "services", "volumes", "networks"
};

int
compose_map(struct compose *c, const struct compose_opts *opts,
    const struct ynode *root)
{
	const struct ynode	*svcs;
	json_t			*byname, *def;
	size_t			 i, k;
	char			 wl[ORCHD_NAME_MAX];

	memset(c, 0, sizeof(*c));
	c->opts = opts;
	c->root = root;
	if ((c->defs = json_array()) == NULL ||
	    (c->notes = json_array()) == NULL ||
	    (byname = json_object()) == NULL)
		return (-1);
	if (root->type != YT_MAP) {
		cm_err(c, root, NULL, NULL, "a Compose file is a mapping "
		    "with \"services\"");
		json_decref(byname);
		return (-1);
	}
	for (i = 0; i + 1 < root->nkids; i += 2) {
		for (k = 0; k < nitems(top_keys); k++)
			if (strcmp(root->kids[i]->str, top_keys[k]) == 0)
				break;
		if (k == nitems(top_keys) &&
		    strncmp(root->kids[i]->str, "x-", 2) != 0)
			cm_err(c, root->kids[i], NULL, root->kids[i]->str,
			    ": not mapped: orchd takes version, name, "
			    "services, volumes and networks (and x- "
			    "extensions)");
	}
	cm_declared(c, "volumes");
	cm_declared(c, "networks");
	if (cm_project(c) == -1) {
		json_decref(byname);
		return (-1);
	}
	svcs = yt_get(root, "services");
	if (svcs == NULL || svcs->type != YT_MAP || svcs->nkids == 0) {
		cm_err(c, svcs, NULL, "services", ": none: a mapping of "
		    "services is needed");
		json_decref(byname);
		return (-1);
	}
	if (svcs->nkids / 2 > CM_SERVICES_MAX)
		cm_err(c, svcs, NULL, "services", ": more than %d",
		    CM_SERVICES_MAX);
	for (i = 0; i + 1 < svcs->nkids && i / 2 < CM_SERVICES_MAX; i += 2) {
		if (cm_svc_name(c, svcs->kids[i]->str, wl, sizeof(wl)) ==
		    -1) {
			cm_err(c, svcs->kids[i], svcs->kids[i]->str, NULL,
			    ": %.64s-%.64s is not a workload name (letters, "
			    "digits, '-', '_', '.', at most %d bytes)",
			    c->project, svcs->kids[i]->str,
			    ORCHD_NAME_MAX - 1);
			continue;
		}
		if ((def = compose_service(c, svcs->kids[i]->str,
		    svcs->kids[i + 1])) != NULL)
			json_object_set_new(byname, wl, def);
	}
	if (c->nerrs == 0)
		cm_ports(c, byname, svcs);
	if (c->nerrs == 0)
		(void)cm_order(c, byname, svcs);
	if (c->nerrs == 0)
		cm_shared_volumes(c);
	json_decref(byname);
	if (c->nerrs > CM_ERRORS_MAX) {
		int	 more = c->nerrs - CM_ERRORS_MAX;

		c->nerrs = 0;
		cm_err(c, NULL, NULL, NULL, ": and %d errors more", more);
		c->nerrs = CM_ERRORS_MAX + more;
	}
	return (c->nerrs == 0 ? 0 : -1);
}

void
compose_free(struct compose *c)
{
	json_decref(c->defs);
	json_decref(c->notes);
	free(c->errs);
	c->defs = c->notes = NULL;
	c->errs = NULL;
}
