/*
 * A workload's rules, in one place.  The config parser, the API and the
 * store all end with workload_validate(), so a workload is the same
 * whichever way it came in.  It checks each field by its row of the
 * table (workload_fields.c): the rule of its type, then the row's own;
 * then the few rules between fields, each named in wl_rules[].  And
 * workload_diff(): what of a running instance a new definition changes,
 * the fields the table marks WF_DRIFT.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "ignore.h"
#include "units.h"
#include "workload.h"
#include "workload_fields.h"

/*
 * The bytes of all strings of one workload together.  Its JSON form must
 * fit in one internal message (ORCHD_IMSG_MAXSIZE) even when every
 * character needs escaping.
 */
#define WL_SIZE_MAX		(96 * 1024)

/* one optional string: NULL is fine, empty is not */
static int
check_string(const struct wl_field *f, const char *s, size_t *total,
    char *errbuf, size_t len)
{
	if (s == NULL)
		return (0);
	if (*s == '\0')
		return (wl_fail(errbuf, len, "%s: must not be empty",
		    wl_field_label(f)));
	if (!valid_text(s))
		return (wl_fail(errbuf, len, "%s: invalid character "
		    "(control character or invalid UTF-8)", wl_field_label(f)));
	*total += strlen(s) + 8;
	return (0);
}

static int
check_strlist(const struct strlist *l, size_t *total)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, l, entry)
		*total += strlen(e->str) + 8;
	return (0);
}

/* "bridge", "host" or a network of the operator's, by its name */
static int
check_network(const struct workload_conf *wl, size_t *total, char *errbuf,
    size_t len)
{
	if (wl->network != NETWORK_BRIDGE && wl->network != NETWORK_HOST &&
	    wl->network != NETWORK_NAMED)
		return (wl_fail(errbuf, len, "invalid network"));
	if ((wl->network == NETWORK_NAMED) != (wl->netname != NULL))
		return (wl_fail(errbuf, len, "invalid network"));
	if (wl->netname == NULL)
		return (0);
	if (!valid_network_name(wl->netname))
		return (wl_fail(errbuf, len, "invalid network \"%s\": 1 to 63 "
		    "letters, digits, '_', '.' or '-', starting with a letter "
		    "or digit, and not host, bridge, none or default",
		    valid_text(wl->netname) && strlen(wl->netname) < 64 ?
		    wl->netname : "?"));
	*total += strlen(wl->netname) + 8;
	return (0);
}

static int
check_volumes(const struct volumelist *l, size_t *total, char *errbuf,
    size_t len)
{
	const struct volume	*v, *w;

	TAILQ_FOREACH(v, l, entry) {
		/*
		 * A host path, or for the API a name (policy.c says which
		 * the API may give, orchd.conf's parser that it gives
		 * paths): either way one Docker cannot take for a
		 * volume's or an option's
		 */
		if (v->host == NULL || v->container == NULL ||
		    !valid_text(v->host) || !valid_text(v->container) ||
		    v->host[0] == '\0')
			return (wl_fail(errbuf, len, "volume: invalid path"));
		if (v->container[0] != '/')
			return (wl_fail(errbuf, len, "volume \"%s\": container "
			    "path must be absolute", v->container));
		if (strchr(v->host, ':') != NULL ||
		    strchr(v->container, ':') != NULL)
			return (wl_fail(errbuf, len, "volume \"%s\": paths "
			    "must not contain ':'", v->host));
		for (w = TAILQ_NEXT(v, entry); w != NULL;
		    w = TAILQ_NEXT(w, entry))
			if (strcmp(v->container, w->container) == 0)
				return (wl_fail(errbuf, len, "volume \"%s\": "
				    "container path used twice",
				    v->container));
		*total += strlen(v->host) + strlen(v->container) + 24;
	}
	return (0);
}

/* "ignore" rules: each valid, none twice, ORCHD_IGNORE_MAX at most */
static int
check_ignores(const struct ignorelist *l, size_t *total, char *errbuf,
    size_t len)
{
	const struct ignore_rule	*r, *o;
	int				 n = 0;

	TAILQ_FOREACH(r, l, entry) {
		if (++n > ORCHD_IGNORE_MAX)
			return (wl_fail(errbuf, len,
			    "more than %d ignore rules", ORCHD_IGNORE_MAX));
		if (ignore_check(r->kind, r->pattern, r->answer, errbuf,
		    len) == -1)
			return (-1);
		for (o = TAILQ_NEXT(r, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (o->kind == r->kind &&
			    strcmp(o->pattern, r->pattern) == 0)
				return (wl_fail(errbuf, len, "ignore %s \"%s\" "
				    "listed twice", ignore_kind_name(r->kind),
				    r->pattern));
		*total += strlen(r->pattern) + 24;
	}
	return (0);
}

/* a duration, -1 or dflt when not given; its bounds make the message */
static int
check_duration(const struct wl_field *f, int64_t v, char *errbuf,
    size_t len)
{
	const char	*what = wl_field_label(f);

	if (v == f->dflt || (v >= f->min && (f->max == 0 || v <= f->max)))
		return (0);
	if (f->min > 0 && f->max > 0)
		return (wl_fail(errbuf, len, "%s must be from %llds to %llds",
		    what, (long long)f->min, (long long)f->max));
	if (f->max > 0)
		return (wl_fail(errbuf, len, "%s must be at most %llds", what,
		    (long long)f->max));
	if (f->min > 0)
		return (wl_fail(errbuf, len, "%s must be positive", what));
	return (wl_fail(errbuf, len, "invalid %s", what));
}

/* the numbers: a word, a boolean, an integer, a port, an id, a size */
static int
check_number(const struct workload_conf *wl, const struct wl_field *f,
    char *errbuf, size_t len)
{
	const char	*what = wl_field_label(f);
	int64_t		 v = wl_field_num(wl, f);

	switch (f->type) {
	case WF_WORD:
		if ((v == f->dflt && f->dflt == -1) ||
		    wl_word_name(f->words, (int)v) != NULL)
			return (0);
		return (wl_fail(errbuf, len, "invalid %s", what));
	case WF_BOOL:
		if ((v == f->dflt && f->dflt == -1) || v == 0 || v == 1)
			return (0);
		return (wl_fail(errbuf, len, "invalid %s", what));
	case WF_INT:
		if (v == f->dflt || (v >= f->min && v <= f->max))
			return (0);
		return (wl_fail(errbuf, len, "%s must be from %lld to %lld",
		    what, (long long)f->min, (long long)f->max));
	case WF_PORT:
		/* a job serves nothing: its port is not asked for */
		if (v == 0 && (f->flags & WF_REQUIRED) &&
		    wl->run_once == RUN_SERVICE)
			return (wl_fail(errbuf, len, "a %s is required", what));
		return (0);
	case WF_ID:
		if (v == f->dflt || (v >= f->min && v <= f->max))
			return (0);
		return (wl_fail(errbuf, len, "invalid %s", what));
	case WF_DURATION:
		return (check_duration(f, v, errbuf, len));
	case WF_CPU:
		if (v == 0 || (v >= f->min && v <= f->max))
			return (0);
		return (wl_fail(errbuf, len, "%s must be from 0.01 to %lld "
		    "CPUs", what, (long long)f->max / 1000));
	case WF_SIZE:
		if (v < 0)
			return (wl_fail(errbuf, len, "invalid %s limit", what));
		return (0);
	case WF_SIGNAL:
		if (v != 0 && signal_name((int)v) == NULL)
			return (wl_fail(errbuf, len, "invalid %s %lld", what,
			    (long long)v));
		return (0);
	default:
		return (0);
	}
}

/* one field: the rule of its type, then its own */
static int
check_field(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const void	*p = WF_CPTR(wl, f);
	int		 r;

	switch (f->type) {
	case WF_NAME:
		r = valid_workload_name(wl->name) ? 0 : wl_fail(errbuf, len,
		    "invalid name \"%s\": 1 to 63 letters, digits, '_', '.' "
		    "or '-', starting with a letter or digit", wl->name);
		break;
	case WF_STRING:
		r = check_string(f, *(char * const *)p, total, errbuf, len);
		break;
	case WF_STRLIST:
		r = check_strlist(p, total);
		break;
	case WF_NETWORK:
		r = check_network(wl, total, errbuf, len);
		break;
	case WF_VOLUMES:
		r = check_volumes(p, total, errbuf, len);
		break;
	case WF_IGNORES:
		r = check_ignores(p, total, errbuf, len);
		break;
	default:
		r = check_number(wl, f, errbuf, len);
		break;
	}
	if (r == -1)
		return (-1);
	return (f->check != NULL ? f->check(wl, f, total, errbuf, len) : 0);
}

/*
 * The rules between fields.
 */

/*
 * One reached by its TCP listeners alone needs no host, and a job
 * ("run once"), which its dependents wake, has none
 */
static int
rule_reachable(const struct workload_conf *wl, char *errbuf, size_t len)
{
	if (TAILQ_EMPTY(&wl->hosts) && TAILQ_EMPTY(&wl->listens) &&
	    wl->run_once == RUN_SERVICE)
		return (wl_fail(errbuf, len, "at least one host is required"));
	return (0);
}

/* what it runs: a command, or an image and what only an image takes */
static int
rule_driver(const struct workload_conf *wl, char *errbuf, size_t len)
{
	const struct wl_field	*f;
	size_t			 i;

	if (wl->driver != DRIVER_PROCESS) {
		if (wl->image == NULL)
			return (wl_fail(errbuf, len, "driver %s needs an image",
			    wl_word_name(wl_drivers, wl->driver)));
		return (0);
	}
	if (wl->command == NULL)
		return (wl_fail(errbuf, len, "driver process needs a "
		    "command"));
	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		if (!(f->flags & WF_DOCKER) || !wl_field_given(wl, f))
			continue;
		if (f->type != WF_NETWORK)
			return (wl_fail(errbuf, len, "%s is only for driver "
			    "docker", wl_field_label(f)));
		if (wl->network == NETWORK_HOST)
			return (wl_fail(errbuf, len, "network host is only for "
			    "driver docker"));
		return (wl_fail(errbuf, len, "network \"%s\" is only for "
		    "driver docker", wl->netname != NULL &&
		    valid_text(wl->netname) ? wl->netname : "?"));
	}
	return (0);
}

/*
 * driver swarm: replicas and constraints mean nothing to the other
 * drivers.  Volumes and a runtime are the docker driver's: a bind mount
 * would name a path on whichever node the task lands on.
 */
static int
rule_swarm(const struct workload_conf *wl, char *errbuf, size_t len)
{
	const struct wl_field	*f;
	size_t			 i;

	if (wl->driver != DRIVER_SWARM) {
		for (i = 0; i < wl_nfields; i++) {
			f = &wl_fields[i];
			if ((f->flags & WF_SWARM) && wl_field_given(wl, f))
				return (wl_fail(errbuf, len, "%s is only for "
				    "driver swarm", wl_field_label(f)));
		}
		return (0);
	}
	if (!TAILQ_EMPTY(&wl->volumes))
		return (wl_fail(errbuf, len, "volume is not for driver swarm"));
	if (wl->runtime != NULL)
		return (wl_fail(errbuf, len,
		    "runtime is not for driver swarm"));
	return (0);
}

/* the host shares its ports with such a container: none to publish */
static int
rule_publish(const struct workload_conf *wl, char *errbuf, size_t len)
{
	if (wl->publish != 0 && wl->network == NETWORK_HOST)
		return (wl_fail(errbuf, len, "publish is not for network host: "
		    "the container listens on the host's port itself"));
	return (0);
}

/* an HTTP path runtimed asks: "/...", one word of a request line */
static int
check_path(const char *what, const char *path, char *errbuf, size_t len)
{
	if (path == NULL || path[0] != '/')
		return (wl_fail(errbuf, len, "%s must start with \"/\"",
		    what));
	if (strpbrk(path, " \t") != NULL)
		return (wl_fail(errbuf, len, "%s must not contain spaces",
		    what));
	return (0);
}

static int
rule_health(const struct workload_conf *wl, char *errbuf, size_t len)
{
	if (wl->health == HEALTH_PATH)
		return (check_path("health path", wl->health_path, errbuf,
		    len));
	if (wl->health_path != NULL)
		return (wl_fail(errbuf, len, "health path given with "
		    "health tcp"));
	return (0);
}

/*
 * The busy veto: a path runtimed asks before a suspend, as it asks the
 * health path, so the same form.  Its limit and its failure mode mean
 * nothing without it.
 */
static int
rule_busy(const struct workload_conf *wl, char *errbuf, size_t len)
{
	if (wl->busy_path == NULL) {
		if (wl->busy_max != -1 || wl->busy_fail_safe)
			return (wl_fail(errbuf, len, "busy max and busy fail "
			    "need a busy path"));
		return (0);
	}
	return (check_path("busy path", wl->busy_path, errbuf, len));
}

static const struct wl_rule {
	const char	*name;
	int		(*check)(const struct workload_conf *, char *, size_t);
} wl_rules[] = {
	{ "reachable",	rule_reachable },
	{ "driver",	rule_driver },
	{ "swarm",	rule_swarm },
	{ "publish",	rule_publish },
	{ "health",	rule_health },
	{ "busy",	rule_busy },
};

int
workload_validate(const struct workload_conf *wl, char *errbuf, size_t len)
{
	size_t	 i, total = 0;

	for (i = 0; i < wl_nfields; i++)
		if (check_field(wl, &wl_fields[i], &total, errbuf, len) == -1)
			return (-1);
	for (i = 0; i < nitems(wl_rules); i++)
		if (wl_rules[i].check(wl, errbuf, len) == -1)
			return (-1);
	if (total > WL_SIZE_MAX)
		return (wl_fail(errbuf, len, "workload too large"));
	return (0);
}

/*
 * Drift: what a running instance, started with definition a, lacks of
 * definition b.  Only what the instance itself is made of counts, the
 * fields marked WF_DRIFT: the rest (hosts, timeouts, keep warm, ignores,
 * liveness) takes effect without a restart.  The names are those of the
 * JSON form.
 */

static int
str_differ(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != b);
	return (strcmp(a, b) != 0);
}

static int
strlist_differ(const struct strlist *a, const struct strlist *b)
{
	const struct strentry	*x, *y;

	for (x = TAILQ_FIRST(a), y = TAILQ_FIRST(b); x != NULL && y != NULL;
	    x = TAILQ_NEXT(x, entry), y = TAILQ_NEXT(y, entry))
		if (strcmp(x->str, y->str) != 0)
			return (1);
	return (x != y);
}

static int
volumes_differ(const struct volumelist *a, const struct volumelist *b)
{
	const struct volume	*x, *y;

	for (x = TAILQ_FIRST(a), y = TAILQ_FIRST(b); x != NULL && y != NULL;
	    x = TAILQ_NEXT(x, entry), y = TAILQ_NEXT(y, entry))
		if (str_differ(x->host, y->host) ||
		    str_differ(x->container, y->container))
			return (1);
	return (x != y);
}

static int
ignores_differ(const struct ignorelist *a, const struct ignorelist *b)
{
	const struct ignore_rule	*x, *y;

	for (x = TAILQ_FIRST(a), y = TAILQ_FIRST(b); x != NULL && y != NULL;
	    x = TAILQ_NEXT(x, entry), y = TAILQ_NEXT(y, entry))
		if (x->kind != y->kind || x->answer != y->answer ||
		    strcmp(x->pattern, y->pattern) != 0)
			return (1);
	return (x != y);
}

/* whether b's field differs from a's */
static int
field_differ(const struct workload_conf *a, const struct workload_conf *b,
    const struct wl_field *f)
{
	const void	*pa = WF_CPTR(a, f), *pb = WF_CPTR(b, f);

	switch (f->type) {
	case WF_NAME:
		return (strcmp(a->name, b->name) != 0);
	case WF_STRING:
		return (str_differ(*(char * const *)pa, *(char * const *)pb));
	case WF_STRLIST:
		return (strlist_differ(pa, pb));
	case WF_VOLUMES:
		return (volumes_differ(pa, pb));
	case WF_IGNORES:
		return (ignores_differ(pa, pb));
	case WF_NETWORK:
		return (a->network != b->network ||
		    str_differ(a->netname, b->netname));
	default:
		return (wl_field_num(a, f) != wl_field_num(b, f));
	}
}

/* "name" after those in buf, comma-separated; cut with "..." at len */
static void
diff_add(char *buf, size_t len, const char *name, int *n)
{
	size_t	 used;

	(*n)++;
	if (len == 0)
		return;
	used = strlen(buf);
	if (used >= 3 && strcmp(buf + used - 3, "...") == 0)
		return;		/* cut already */
	if ((*n > 1 && strlcat(buf, ", ", len) >= len) ||
	    strlcat(buf, name, len) >= len) {
		buf[used] = '\0';
		if (used + 6 <= len)
			(void)strlcat(buf, used > 0 ? ", ..." : "...", len);
	}
}

/*
 * The fields of a's instance that b changes, "command, port", in buf;
 * their number, 0 when b runs as a does.
 */
int
workload_diff(const struct workload_conf *a, const struct workload_conf *b,
    char *buf, size_t len)
{
	size_t	 i;
	int	 n = 0;

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < wl_nfields; i++)
		if ((wl_fields[i].flags & WF_DRIFT) &&
		    field_differ(a, b, &wl_fields[i]))
			diff_add(buf, len, wl_fields[i].json, &n);
	return (n);
}
