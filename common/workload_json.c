/*
 * A workload's JSON form, which the config transaction, the store and the
 * HTTP API all use: workload_to_json() and workload_from_json(), which
 * checks each field's type and then hands the whole to
 * workload_validate() (workload.c).  The string arrays are written and
 * read by strlist_to_json() and strlist_from_json(), for runtimed's
 * engine requests too.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compat.h"
#include "ignore.h"
#include "units.h"
#include "workload.h"

/*
 * JSON.
 */

/*
 * A list of strings as a new JSON array; NULL: out of memory.  The one
 * writer of a string array: the definition's, and runtimed's for the
 * engine (environment, placement constraints).
 */
json_t *
strlist_to_json(const struct strlist *l)
{
	const struct strentry	*e;
	json_t			*a;

	if ((a = json_array()) == NULL)
		return (NULL);
	TAILQ_FOREACH(e, l, entry)
		if (json_array_append_new(a, json_string(e->str)) == -1) {
			json_decref(a);
			return (NULL);
		}
	return (a);
}

/*
 * A JSON array of strings, appended to l: 0; -1 if v is not one (l then
 * holds those before the first that is not a string), -2 out of memory.
 */
int
strlist_from_json(json_t *v, struct strlist *l)
{
	json_t	*item;
	size_t	 i;

	if (!json_is_array(v))
		return (-1);
	json_array_foreach(v, i, item) {
		if (!json_is_string(item))
			return (-1);
		if (strlist_add(l, json_string_value(item)) == -1)
			return (-2);
	}
	return (0);
}

static int
set_str(json_t *o, const char *key, const char *s)
{
	if (s == NULL)
		return (0);
	return (json_object_set_new(o, key, json_string(s)));
}

static int
set_strlist(json_t *o, const char *key, const struct strlist *l)
{
	return (json_object_set_new(o, key, strlist_to_json(l)));
}

/* [{"path": "/up"}, {"agent": "Uptime*", "answer": 200}]; NULL: failed */
static json_t *
ignores_to_json(const struct workload_conf *wl)
{
	const struct ignore_rule	*r;
	json_t				*a, *o;

	if ((a = json_array()) == NULL)
		return (NULL);
	TAILQ_FOREACH(r, &wl->ignores, entry) {
		if (r->answer != IGNORE_ANSWER)
			o = json_pack("{s:s, s:i}", ignore_kind_name(r->kind),
			    r->pattern, "answer", r->answer);
		else
			o = json_pack("{s:s}", ignore_kind_name(r->kind),
			    r->pattern);
		if (json_array_append_new(a, o) == -1) {
			json_decref(a);
			return (NULL);
		}
	}
	return (a);
}

char *
workload_to_json(const struct workload_conf *wl)
{
	const struct volume	*v;
	json_t			*o, *a, *vo;
	char			*s = NULL;
	int			 r = 0;

	if ((o = json_object()) == NULL)
		return (NULL);
	r |= json_object_set_new(o, "name", json_string(wl->name));
	r |= json_object_set_new(o, "driver",
	    json_string(wl_word_name(wl_drivers, wl->driver)));
	r |= json_object_set_new(o, "source",
	    json_string(wl_word_name(wl_sources, wl->source)));
	r |= set_strlist(o, "hosts", &wl->hosts);
	r |= set_str(o, "command", wl->command);
	r |= set_str(o, "image", wl->image);
	r |= set_str(o, "runtime", wl->runtime);
	r |= json_object_set_new(o, "network",
	    json_string(wl->network == NETWORK_NAMED ? wl->netname :
	    wl_word_name(wl_networks, wl->network)));
	r |= set_strlist(o, "env", &wl->env);
	/* only when set: most have none */
	if (!TAILQ_EMPTY(&wl->depends))
		r |= set_strlist(o, "depends_on", &wl->depends);
	if ((a = json_array()) == NULL)
		r = -1;
	else {
		TAILQ_FOREACH(v, &wl->volumes, entry) {
			vo = json_pack("{s:s?, s:s?}", "host", v->host,
			    "container", v->container);
			r |= json_array_append_new(a, vo);
		}
		r |= json_object_set_new(o, "volumes", a);
	}
	r |= set_str(o, "user", wl->user);
	r |= set_str(o, "directory", wl->directory);
	r |= set_str(o, "address", wl->address);
	r |= json_object_set_new(o, "port", json_integer(wl->port));
	if (wl->publish != 0)
		r |= json_object_set_new(o, "publish",
		    json_integer(wl->publish));
	r |= json_object_set_new(o, "health",
	    json_string(wl_word_name(wl_healths, wl->health)));
	r |= set_str(o, "health_path", wl->health_path);
	r |= set_str(o, "busy_path", wl->busy_path);
	if (wl->busy_max != -1)
		r |= json_object_set_new(o, "busy_max",
		    json_integer(wl->busy_max));
	if (wl->busy_fail_safe)
		r |= set_str(o, "busy_fail", wl_word_name(wl_busy_fails, 1));
	if (wl->health_interval != -1)
		r |= json_object_set_new(o, "health_interval",
		    json_integer(wl->health_interval));
	if (wl->health_timeout != -1)
		r |= json_object_set_new(o, "health_timeout",
		    json_integer(wl->health_timeout));
	if (wl->health_failures != -1)
		r |= json_object_set_new(o, "health_failures",
		    json_integer(wl->health_failures));
	if (wl->idle_timeout != -1)
		r |= json_object_set_new(o, "idle_timeout",
		    json_integer(wl->idle_timeout));
	if (wl->wake_timeout != -1)
		r |= json_object_set_new(o, "wake_timeout",
		    json_integer(wl->wake_timeout));
	if (wl->memory != 0)
		r |= json_object_set_new(o, "memory",
		    json_integer(wl->memory));
	r |= json_object_set_new(o, "keep_warm",
	    json_boolean(wl->keep_warm));
	if (wl->init != -1)
		r |= json_object_set_new(o, "init", json_boolean(wl->init));
	if (wl->stop_signal != 0)
		r |= set_str(o, "stop_signal", signal_name(wl->stop_signal));
	if (wl->stop_timeout != -1)
		r |= json_object_set_new(o, "stop_timeout",
		    json_integer(wl->stop_timeout));
	if (!TAILQ_EMPTY(&wl->ignores))
		r |= json_object_set_new(o, "ignore", ignores_to_json(wl));
	if (wl->tunnel_idle != -1)
		r |= json_object_set_new(o, "tunnel_idle_timeout",
		    json_integer(wl->tunnel_idle));
	if (wl->server_timing != -1)
		r |= json_object_set_new(o, "server_timing",
		    json_boolean(wl->server_timing));
	if (wl->pull != -1)
		r |= set_str(o, "pull", wl_word_name(wl_pulls, wl->pull));
	if (wl->pull_timeout != -1)
		r |= json_object_set_new(o, "pull_timeout",
		    json_integer(wl->pull_timeout));
	/* only for swarm: the others have neither */
	if (wl->driver == DRIVER_SWARM) {
		r |= json_object_set_new(o, "replicas",
		    json_integer(wl->replicas));
		r |= set_strlist(o, "constraints", &wl->constraints);
	}
	if (wl->expire_after != -1)
		r |= json_object_set_new(o, "expire_after",
		    json_integer(wl->expire_after));
	if (wl->upstream_h2c)
		r |= set_str(o, "upstream", wl_word_name(wl_upstreams, 1));
	if (wl->on_change != -1)
		r |= set_str(o, "on_change", wl_word_name(wl_on_changes,
		    wl->on_change));
	/* only when set: the API never may, and most never do */
	if (!TAILQ_EMPTY(&wl->listens))
		r |= set_strlist(o, "listen", &wl->listens);
	if (wl->allow_root)
		r |= json_object_set_new(o, "allow_root", json_true());
	/* only in what the parent sends its children */
	if (wl->run_uid != -1)
		r |= json_object_set_new(o, "run_uid",
		    json_integer(wl->run_uid));
	if (r == 0)
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return (s);
}

/*
 * From JSON: every field is checked for its type here, then the whole
 * workload by workload_validate().
 */

/* how a field is read: most by their type, the rest by their own set() */
enum jkind {
	J_SET,			/* set() */
	J_STRING,		/* char * */
	J_STRLIST,		/* struct strlist */
	J_BOOL,			/* int: true or false */
	J_INT,			/* int, from min to max */
	J_PORT,			/* uint16_t, from min to max */
	J_INT64,		/* int64_t, from min to max */
	J_DURATION		/* int64_t seconds; min 1: positive; max */
};

struct jfield {
	const char	*name;
	enum jkind	 kind;
	size_t		 off;		/* in struct workload_conf */
	int64_t		 min, max;	/* J_INT, J_PORT, J_DURATION */
	int		(*set)(struct workload_conf *, const char *,
			    json_t *, char *, size_t);
};

static int
j_string(const char *key, json_t *v, char **dst, char *errbuf, size_t len)
{
	if (!json_is_string(v))
		return (wl_fail(errbuf, len, "field \"%s\": must be a string",
		    key));
	free(*dst);
	if ((*dst = strdup(json_string_value(v))) == NULL)
		return (wl_fail(errbuf, len, "out of memory"));
	return (0);
}

static int
j_strlist(const char *key, json_t *v, struct strlist *l, char *errbuf,
    size_t len)
{
	switch (strlist_from_json(v, l)) {
	case 0:
		return (0);
	case -1:
		return (wl_fail(errbuf, len,
		    "field \"%s\": must be an array of "
		    "strings", key));
	default:
		return (wl_fail(errbuf, len, "out of memory"));
	}
}

/* one of a table's words (workload.c), its value in *dst */
static int
j_word(const char *key, json_t *v, const struct wl_word *t, int *dst,
    char *errbuf, size_t len)
{
	const char	*s = json_string_value(v);
	char		 words[128];

	if (s != NULL && wl_word_value(t, s, dst) == 0)
		return (0);
	return (wl_fail(errbuf, len, "field \"%s\": must be %s", key,
	    wl_word_list(t, words, sizeof(words))));
}

static int
j_name(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	/* read before everything else, see workload_from_json() */
	return (0);
}

static int
j_driver(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	int	 d;

	if (j_word(key, v, wl_drivers, &d, errbuf, len) == -1)
		return (-1);
	wl->driver = d;
	return (0);
}

static int
j_source(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	int	 src;

	if (j_word(key, v, wl_sources, &src, errbuf, len) == -1)
		return (-1);
	wl->source = src;
	return (0);
}

/* "bridge", "host", or the name of a network of the operator's */
static int
j_network(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	const char	*s = json_string_value(v);
	int		 net;

	free(wl->netname);
	wl->netname = NULL;
	if (s != NULL && wl_word_value(wl_networks, s, &net) == 0)
		wl->network = net;
	else if (s != NULL && valid_network_name(s)) {
		if ((wl->netname = strdup(s)) == NULL)
			return (wl_fail(errbuf, len, "out of memory"));
		wl->network = NETWORK_NAMED;
	} else
		return (wl_fail(errbuf, len,
		    "field \"%s\": must be \"bridge\", "
		    "\"host\" or a network's name: 1 to 63 letters, digits, "
		    "'_', '.' or '-', starting with a letter or digit", key));
	return (0);
}

static int
j_health(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	int	 h;

	if (j_word(key, v, wl_healths, &h, errbuf, len) == -1)
		return (-1);
	wl->health = h;
	return (0);
}

static int
j_busy_fail(struct workload_conf *wl, const char *key, json_t *v,
    char *errbuf, size_t len)
{
	return (j_word(key, v, wl_busy_fails, &wl->busy_fail_safe, errbuf,
	    len));
}

static int
j_volumes(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	struct volume	*vol;
	json_t		*item, *h, *c;
	size_t		 i;

	if (!json_is_array(v))
		goto bad;
	json_array_foreach(v, i, item) {
		if (!json_is_object(item) || json_object_size(item) != 2)
			goto bad;
		h = json_object_get(item, "host");
		c = json_object_get(item, "container");
		if (!json_is_string(h) || !json_is_string(c))
			goto bad;
		if ((vol = calloc(1, sizeof(*vol))) == NULL)
			return (wl_fail(errbuf, len, "out of memory"));
		vol->host = strdup(json_string_value(h));
		vol->container = strdup(json_string_value(c));
		TAILQ_INSERT_TAIL(&wl->volumes, vol, entry);
		if (vol->host == NULL || vol->container == NULL)
			return (wl_fail(errbuf, len, "out of memory"));
	}
	return (0);
 bad:
	return (wl_fail(errbuf, len, "field \"%s\": must be an array of "
	    "{\"host\": PATH, \"container\": PATH}", key));
}

/* seconds as a number, or a string with a unit: "10m" */
static int
j_seconds(const char *key, json_t *v, int64_t *dst, char *errbuf,
    size_t len)
{
	const char	*errstr;
	json_int_t	 n;

	if (json_is_integer(v)) {
		n = json_integer_value(v);
		if (n < 0 || n > INT32_MAX)
			return (wl_fail(errbuf, len, "field \"%s\": must be a "
			    "duration from 0 to %d seconds", key, INT32_MAX));
		*dst = n;
		return (0);
	}
	if (json_is_string(v)) {
		if (parse_duration(json_string_value(v), dst, &errstr) == -1)
			return (wl_fail(errbuf, len, "field \"%s\": %s", key,
			    errstr));
		return (0);
	}
	return (wl_fail(errbuf, len,
	    "field \"%s\": must be a number of seconds "
	    "or a string like \"10m\"", key));
}

/* a duration, then its bounds: 0 where it must be positive, a maximum */
static int
j_duration(const struct jfield *f, const char *key, json_t *v, int64_t *dst,
    char *errbuf, size_t len)
{
	if (j_seconds(key, v, dst, errbuf, len) == -1)
		return (-1);
	if (f->min > 0 && *dst == 0)
		return (wl_fail(errbuf, len, "field \"%s\": must be positive",
		    key));
	if (f->max > 0 && *dst > f->max)
		return (wl_fail(errbuf, len, "field \"%s\": must be at most "
		    "%llds", key, (long long)f->max));
	return (0);
}

static int
j_bool(const char *key, json_t *v, int *dst, char *errbuf, size_t len)
{
	if (!json_is_boolean(v))
		return (wl_fail(errbuf, len, "field \"%s\": must be true or "
		    "false", key));
	*dst = json_is_true(v);
	return (0);
}

/* an integer from f->min to f->max, in n */
static int
j_int(const struct jfield *f, const char *key, json_t *v, json_int_t *n,
    char *errbuf, size_t len)
{
	if (!json_is_integer(v) || (*n = json_integer_value(v)) < f->min ||
	    *n > f->max)
		return (wl_fail(errbuf, len, "field \"%s\": must be an integer "
		    "from %lld to %lld", key, (long long)f->min,
		    (long long)f->max));
	return (0);
}

static int
j_memory(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	const char	*errstr;
	json_int_t	 n;

	if (json_is_integer(v)) {
		if ((n = json_integer_value(v)) < 0)
			return (wl_fail(errbuf, len,
			    "field \"%s\": must not be "
			    "negative", key));
		wl->memory = n;
		return (0);
	}
	if (json_is_string(v)) {
		if (parse_size(json_string_value(v), &wl->memory,
		    &errstr) == -1)
			return (wl_fail(errbuf, len, "field \"%s\": %s", key,
			    errstr));
		return (0);
	}
	return (wl_fail(errbuf, len, "field \"%s\": must be a number of bytes "
	    "or a string like \"512M\"", key));
}

static int
j_stop_signal(struct workload_conf *wl, const char *key, json_t *v,
    char *errbuf, size_t len)
{
	const char	*errstr;

	if (!json_is_string(v))
		return (wl_fail(errbuf, len, "field \"%s\": must be a signal "
		    "name such as \"SIGTERM\"", key));
	if (parse_signal(json_string_value(v), &wl->stop_signal,
	    &errstr) == -1)
		return (wl_fail(errbuf, len, "field \"%s\": %s", key, errstr));
	return (0);
}

/* an array of {"path"|"agent"|"from": STRING[, "answer": 200|503]} */
static int
j_ignore(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	json_t		*item, *val, *pat = NULL;
	const char	*k;
	json_int_t	 answer;
	size_t		 i;
	int		 kind = -1, j;

	if (!json_is_array(v))
		goto bad;
	json_array_foreach(v, i, item) {
		if (!json_is_object(item))
			goto bad;
		answer = IGNORE_ANSWER;
		kind = -1;
		json_object_foreach(item, k, val) {
			if (strcmp(k, "answer") == 0) {
				if (!json_is_integer(val))
					goto bad;
				answer = json_integer_value(val);
				if (answer != IGNORE_ANSWER && answer != 200)
					return (wl_fail(errbuf, len, "field "
					    "\"%s\": answer must be 200 or "
					    "503", key));
				continue;
			}
			for (j = IGNORE_PATH; j <= IGNORE_FROM; j++)
				if (strcmp(k, ignore_kind_name(j)) == 0)
					break;
			if (j > IGNORE_FROM || kind != -1 ||
			    !json_is_string(val))
				goto bad;
			kind = j;
			pat = val;
		}
		if (kind == -1)
			goto bad;
		if (ignore_add(&wl->ignores, kind, json_string_value(pat),
		    answer) == -1)
			return (wl_fail(errbuf, len, "out of memory"));
	}
	return (0);
 bad:
	return (wl_fail(errbuf, len, "field \"%s\": must be an array of "
	    "{\"path\"|\"agent\"|\"from\": STRING[, \"answer\": 200]}",
	    key));
}

static int
j_pull(struct workload_conf *wl, const char *key, json_t *v, char *errbuf,
    size_t len)
{
	return (j_word(key, v, wl_pulls, &wl->pull, errbuf, len));
}

/* the protocol to the workload: HTTP/1.1, or cleartext HTTP/2 */
static int
j_upstream(struct workload_conf *wl, const char *key, json_t *v,
    char *errbuf, size_t len)
{
	const char	*s = json_string_value(v);
	char		 words[32];

	if (s == NULL || wl_word_value(wl_upstreams, s,
	    &wl->upstream_h2c) == -1)
		return (wl_fail(errbuf, len, "field \"%s\": %s", key,
		    wl_word_list(wl_upstreams, words, sizeof(words))));
	return (0);
}

/* "restart" or "next_wake"; "next wake" too, as orchd.conf says it */
static int
j_on_change(struct workload_conf *wl, const char *key, json_t *v,
    char *errbuf, size_t len)
{
	const char	*s = json_string_value(v);

	if (s != NULL && strcmp(s, "next wake") == 0) {
		wl->on_change = ON_CHANGE_NEXT_WAKE;
		return (0);
	}
	return (j_word(key, v, wl_on_changes, &wl->on_change, errbuf, len));
}

#define F(name, kind, field)	{ name, kind, \
	offsetof(struct workload_conf, field), 0, 0, NULL }
#define FN(name, kind, field, min, max)	{ name, kind, \
	offsetof(struct workload_conf, field), min, max, NULL }
#define FSET(name, set)		{ name, J_SET, 0, 0, 0, set }

static const struct jfield jfields[] = {
	FSET("name",		j_name),
	FSET("driver",		j_driver),
	FSET("source",		j_source),
	F("hosts",		J_STRLIST, hosts),
	F("command",		J_STRING, command),
	F("image",		J_STRING, image),
	F("runtime",		J_STRING, runtime),
	FSET("network",		j_network),
	F("env",		J_STRLIST, env),
	F("depends_on",		J_STRLIST, depends),
	FSET("volumes",		j_volumes),
	F("user",		J_STRING, user),
	F("directory",		J_STRING, directory),
	F("address",		J_STRING, address),
	FN("port",		J_PORT, port, 1, 65535),
	FN("publish",		J_PORT, publish, 1, 65535),
	FSET("health",		j_health),
	F("health_path",	J_STRING, health_path),
	F("busy_path",		J_STRING, busy_path),
	FN("busy_max",		J_DURATION, busy_max, 1, 0),
	FSET("busy_fail",	j_busy_fail),
	/* 0 turns liveness off for this workload, whatever the global says */
	F("health_interval",	J_DURATION, health_interval),
	FN("health_timeout",	J_DURATION, health_timeout, 1, 0),
	FN("health_failures",	J_INT, health_failures, 1,
	    WL_HEALTH_FAILURES_MAX),
	F("idle_timeout",	J_DURATION, idle_timeout),
	FN("wake_timeout",	J_DURATION, wake_timeout, 1, 0),
	FSET("memory",		j_memory),
	F("keep_warm",		J_BOOL, keep_warm),
	F("init",		J_BOOL, init),
	FSET("stop_signal",	j_stop_signal),
	FN("stop_timeout",	J_DURATION, stop_timeout, 0,
	    WL_STOP_TIMEOUT_MAX),
	/* orchd.conf's "allow root"; the parent's policy refuses it */
	F("allow_root",		J_BOOL, allow_root),
	FSET("ignore",		j_ignore),
	F("tunnel_idle_timeout", J_DURATION, tunnel_idle),
	F("server_timing",	J_BOOL, server_timing),
	FSET("pull",		j_pull),
	FN("pull_timeout",	J_DURATION, pull_timeout, 1, 0),
	FN("replicas",		J_INT, replicas, 1, WL_REPLICAS_MAX),
	F("constraints",	J_STRLIST, constraints),
	/* 0: never, as orchctl keep sets it */
	F("expire_after",	J_DURATION, expire_after),
	FSET("upstream",	j_upstream),
	FSET("on_change",	j_on_change),
	/* ["127.0.0.1:5432"]: orchd.conf's; the parent's policy refuses it */
	F("listen",		J_STRLIST, listens),
	/*
	 * the parent's to give, in what it sends its children (never 0:
	 * that is root); the parent's policy refuses it from anyone else
	 */
	FN("run_uid",		J_INT64, run_uid, 1, UINT32_MAX - 1),
};

/* one field of the definition, by its row */
static int
j_field(const struct jfield *f, struct workload_conf *wl, const char *key,
    json_t *v, char *errbuf, size_t len)
{
	char		*p = (char *)wl + f->off;
	json_int_t	 n = 0;	/* wl_fail() returns -1: -O1 cannot tell */

	switch (f->kind) {
	case J_STRING:
		return (j_string(key, v, (char **)p, errbuf, len));
	case J_STRLIST:
		return (j_strlist(key, v, (struct strlist *)p, errbuf, len));
	case J_BOOL:
		return (j_bool(key, v, (int *)p, errbuf, len));
	case J_INT:
		if (j_int(f, key, v, &n, errbuf, len) == -1)
			return (-1);
		*(int *)p = (int)n;
		return (0);
	case J_PORT:
		if (j_int(f, key, v, &n, errbuf, len) == -1)
			return (-1);
		*(uint16_t *)p = (uint16_t)n;
		return (0);
	case J_INT64:
		if (j_int(f, key, v, &n, errbuf, len) == -1)
			return (-1);
		*(int64_t *)p = n;
		return (0);
	case J_DURATION:
		return (j_duration(f, key, v, (int64_t *)p, errbuf, len));
	default:
		return (f->set(wl, key, v, errbuf, len));
	}
}

struct workload_conf *
workload_from_json(const char *text, size_t textlen, char *errbuf,
    size_t len)
{
	struct workload_conf	*wl = NULL;
	json_error_t		 jerr;
	json_t			*o, *v;
	const char		*key, *name;
	size_t			 i;

	if ((o = json_loadb(text, textlen, JSON_REJECT_DUPLICATES,
	    &jerr)) == NULL) {
		(void)wl_fail(errbuf, len, "invalid JSON: %s", jerr.text);
		return (NULL);
	}
	if (!json_is_object(o)) {
		(void)wl_fail(errbuf, len, "expected a JSON object");
		goto done;
	}
	if ((v = json_object_get(o, "name")) == NULL) {
		(void)wl_fail(errbuf, len, "field \"name\" is required");
		goto done;
	}
	if ((name = json_string_value(v)) == NULL) {
		(void)wl_fail(errbuf, len, "field \"name\": must be a string");
		goto done;
	}
	if (!valid_workload_name(name) || !valid_text(name)) {
		(void)wl_fail(errbuf, len,
		    "invalid name \"%s\": 1 to 63 letters, "
		    "digits, '_', '.' or '-', starting with a letter or digit",
		    valid_text(name) && strlen(name) < 64 ? name : "?");
		goto done;
	}
	if ((wl = workload_new(name)) == NULL) {
		(void)wl_fail(errbuf, len, "out of memory");
		goto done;
	}
	json_object_foreach(o, key, v) {
		for (i = 0; i < nitems(jfields); i++)
			if (strcmp(key, jfields[i].name) == 0)
				break;
		if (i == nitems(jfields)) {
			(void)wl_fail(errbuf, len, "unknown field \"%.64s\"",
			    valid_text(key) ? key : "?");
			goto bad;
		}
		if (j_field(&jfields[i], wl, key, v, errbuf, len) == -1)
			goto bad;
	}
	if (workload_validate(wl, errbuf, len) == -1)
		goto bad;
	goto done;
 bad:
	workload_free(wl);
	wl = NULL;
 done:
	json_decref(o);
	return (wl);
}
