/*
 * A workload's JSON form, which the config transaction, the store and the
 * HTTP API all use: workload_to_json() and workload_from_json(), which
 * reads each member by its row of the table of the fields
 * (workload_fields.c), checks its JSON type and bounds, and then hands
 * the whole to workload_validate() (workload_check.c).  The string arrays are written and
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
#include "workload_fields.h"

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

/* [{"path": "/up"}, {"agent": "Uptime*", "answer": 200}]; NULL: failed */
static json_t *
ignores_to_json(const struct ignorelist *l)
{
	const struct ignore_rule	*r;
	json_t				*a, *o;

	if ((a = json_array()) == NULL)
		return (NULL);
	TAILQ_FOREACH(r, l, entry) {
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

/* [{"host": "data", "container": "/data"}]; NULL: failed */
static json_t *
volumes_to_json(const struct volumelist *l)
{
	const struct volume	*v;
	json_t			*a;

	if ((a = json_array()) == NULL)
		return (NULL);
	TAILQ_FOREACH(v, l, entry)
		if (json_array_append_new(a, json_pack("{s:s?, s:s?}",
		    "host", v->host, "container", v->container)) == -1) {
			json_decref(a);
			return (NULL);
		}
	return (a);
}

/* one field's value as JSON, by its type; NULL: failed */
static json_t *
field_to_json(const struct workload_conf *wl, const struct wl_field *f)
{
	const void	*p = WF_CPTR(wl, f);
	int64_t		 n = wl_field_num(wl, f);
	char		 buf[32];

	switch (f->type) {
	case WF_NAME:
		return (json_string(wl->name));
	case WF_WORD:
		return (json_string(wl_word_name(f->words, (int)n)));
	case WF_NETWORK:
		return (json_string(wl->network == NETWORK_NAMED ?
		    wl->netname : wl_word_name(wl_networks, wl->network)));
	case WF_STRING:
		return (json_string(*(char * const *)p));
	case WF_STRLIST:
		return (strlist_to_json(p));
	case WF_VOLUMES:
		return (volumes_to_json(p));
	case WF_IGNORES:
		return (ignores_to_json(p));
	case WF_BOOL:
		return (json_boolean(n));
	case WF_SIGNAL:
		return (json_string(signal_name((int)n)));
	case WF_CPU:
		/* "0.1", never 0.10000000000000001 */
		return (json_string(fmt_cpu(n, buf, sizeof(buf))));
	default:
		return (json_integer(n));
	}
}

/*
 * Every field the definition gives, in the table's order; those marked
 * WF_ALWAYS even when not given, those of driver swarm only for it.
 */
char *
workload_to_json(const struct workload_conf *wl)
{
	const struct wl_field	*f;
	json_t			*o;
	char			*s = NULL;
	size_t			 i;
	int			 r = 0;

	if ((o = json_object()) == NULL)
		return (NULL);
	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		/*
		 * the zones' rules and the group's schedules: the
		 * parent's, for its children; not written, so neither
		 * the API nor the store has them
		 */
		if (f->flags & WF_GIVEN)
			continue;
		if (f->flags & WF_SWARM) {
			if (wl->driver != DRIVER_SWARM)
				continue;
		} else if (!(f->flags & WF_ALWAYS) && !wl_field_given(wl, f))
			continue;
		/* a job's port: none, and 0 would not be read back */
		if (f->type == WF_PORT && wl_field_num(wl, f) == 0)
			continue;
		r |= json_object_set_new(o, f->json, field_to_json(wl, f));
	}
	if (r == 0)
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return (s);
}

/*
 * From JSON: every field is checked for its type here, then the whole
 * workload by workload_validate().
 */

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
		    "field \"%s\": must be an array of strings", key));
	default:
		return (wl_fail(errbuf, len, "out of memory"));
	}
}

/*
 * One of the row's words, its value in *dst; its alias too, the word
 * with '_' for its spaces ("next wake").  An upstream's error, as it
 * always was, lists the words without "must be".
 */
static int
j_word(const struct wl_field *f, json_t *v, int *dst, char *errbuf,
    size_t len)
{
	const char	*s = json_string_value(v);
	char		 words[128], alias[32];
	size_t		 i;

	if (s != NULL && f->alias != NULL && strcmp(s, f->alias) == 0 &&
	    strlcpy(alias, s, sizeof(alias)) < sizeof(alias)) {
		for (i = 0; alias[i] != '\0'; i++)
			if (alias[i] == ' ')
				alias[i] = '_';
		s = alias;
	}
	if (s != NULL && wl_word_value(f->words, s, dst) == 0)
		return (0);
	return (wl_fail(errbuf, len, "field \"%s\": %s%s", f->json,
	    (f->flags & WF_LOOSE) ? "" : "must be ",
	    wl_word_list(f->words, words, sizeof(words))));
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
j_volumes(const char *key, json_t *v, struct volumelist *l, char *errbuf,
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
		TAILQ_INSERT_TAIL(l, vol, entry);
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
j_duration(const struct wl_field *f, json_t *v, int64_t *dst, char *errbuf,
    size_t len)
{
	if (j_seconds(f->json, v, dst, errbuf, len) == -1)
		return (-1);
	if (f->min > 0 && *dst == 0)
		return (wl_fail(errbuf, len, "field \"%s\": must be positive",
		    f->json));
	if (f->max > 0 && *dst > f->max)
		return (wl_fail(errbuf, len, "field \"%s\": must be at most "
		    "%llds", f->json, (long long)f->max));
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
j_int(const struct wl_field *f, json_t *v, int64_t *n, char *errbuf,
    size_t len)
{
	if (!json_is_integer(v) || (*n = json_integer_value(v)) < f->min ||
	    *n > f->max)
		return (wl_fail(errbuf, len, "field \"%s\": must be an integer "
		    "from %lld to %lld", f->json, (long long)f->min,
		    (long long)f->max));
	return (0);
}

/*
 * CPUs as a number, 0.5, or a string, "0.5": in thousandths, at most
 * three decimals (common/units.c)
 */
static int
j_cpu(const struct wl_field *f, json_t *v, int64_t *dst, char *errbuf,
    size_t len)
{
	const char	*errstr = "not a number of CPUs";
	char		 buf[32];
	double		 d, diff;

	if (json_is_string(v)) {
		if (parse_cpu(json_string_value(v), dst, &errstr) == 0)
			return (0);
	} else if (json_is_number(v)) {
		d = json_number_value(v);
		/* "%.3f" of a number within bounds has its three decimals */
		if (!(d >= 0 && d <= f->max / 1000))
			errstr = d < 0 ? "negative" : "above the bound";
		else if (snprintf(buf, sizeof(buf), "%.3f", d) <
		    (int)sizeof(buf) && parse_cpu(buf, dst, &errstr) == 0) {
			diff = (double)*dst - d * 1000;
			if (diff < 0.001 && diff > -0.001)
				return (0);
			errstr = "more than three decimals";
		}
	}
	return (wl_fail(errbuf, len, "field \"%s\": %s: must be a number of "
	    "CPUs from 0.01 to %lld, such as 0.5", f->json, errstr,
	    (long long)f->max / 1000));
}

/* bytes as a number, or a string with a unit: "512M" */
static int
j_size(const char *key, json_t *v, int64_t *dst, char *errbuf, size_t len)
{
	const char	*errstr;
	json_int_t	 n;

	if (json_is_integer(v)) {
		if ((n = json_integer_value(v)) < 0)
			return (wl_fail(errbuf, len,
			    "field \"%s\": must not be negative", key));
		*dst = n;
		return (0);
	}
	if (json_is_string(v)) {
		if (parse_size(json_string_value(v), dst, &errstr) == -1)
			return (wl_fail(errbuf, len, "field \"%s\": %s", key,
			    errstr));
		return (0);
	}
	return (wl_fail(errbuf, len, "field \"%s\": must be a number of bytes "
	    "or a string like \"512M\"", key));
}

static int
j_signal(const char *key, json_t *v, int *dst, char *errbuf, size_t len)
{
	const char	*errstr;

	if (!json_is_string(v))
		return (wl_fail(errbuf, len, "field \"%s\": must be a signal "
		    "name such as \"SIGTERM\"", key));
	if (parse_signal(json_string_value(v), dst, &errstr) == -1)
		return (wl_fail(errbuf, len, "field \"%s\": %s", key, errstr));
	return (0);
}

/* an array of {"path"|"agent"|"from": STRING[, "answer": 200|503]} */
static int
j_ignore(const char *key, json_t *v, struct ignorelist *l, char *errbuf,
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
		if (ignore_add(l, kind, json_string_value(pat),
		    answer) == -1)
			return (wl_fail(errbuf, len, "out of memory"));
	}
	return (0);
 bad:
	return (wl_fail(errbuf, len, "field \"%s\": must be an array of "
	    "{\"path\"|\"agent\"|\"from\": STRING[, \"answer\": 200]}",
	    key));
}

/* one field of the definition, by its row's type */
static int
j_field(const struct wl_field *f, struct workload_conf *wl, json_t *v,
    char *errbuf, size_t len)
{
	void		*p = WF_PTR(wl, f);
	int64_t		 n = 0;	/* wl_fail() returns -1: -O1 cannot tell */
	int		 i = 0;

	switch (f->type) {
	case WF_NAME:
		return (0);	/* read first, see workload_from_json() */
	case WF_NETWORK:
		return (j_network(wl, f->json, v, errbuf, len));
	case WF_STRING:
		return (j_string(f->json, v, p, errbuf, len));
	case WF_STRLIST:
		return (j_strlist(f->json, v, p, errbuf, len));
	case WF_VOLUMES:
		return (j_volumes(f->json, v, p, errbuf, len));
	case WF_IGNORES:
		return (j_ignore(f->json, v, p, errbuf, len));
	case WF_DURATION:
		return (j_duration(f, v, p, errbuf, len));
	case WF_SIZE:
		return (j_size(f->json, v, p, errbuf, len));
	case WF_CPU:
		return (j_cpu(f, v, p, errbuf, len));
	case WF_WORD:
		if (j_word(f, v, &i, errbuf, len) == -1)
			return (-1);
		break;
	case WF_BOOL:
		if (j_bool(f->json, v, &i, errbuf, len) == -1)
			return (-1);
		break;
	case WF_SIGNAL:
		if (j_signal(f->json, v, &i, errbuf, len) == -1)
			return (-1);
		break;
	default:
		if (j_int(f, v, &n, errbuf, len) == -1)
			return (-1);
		wl_field_set_num(wl, f, n);
		return (0);
	}
	wl_field_set_num(wl, f, i);
	return (0);
}

struct workload_conf *
workload_from_json(const char *text, size_t textlen, char *errbuf,
    size_t len)
{
	struct workload_conf	*wl = NULL;
	const struct wl_field	*f;
	json_error_t		 jerr;
	json_t			*o, *v;
	const char		*key, *name;

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
		if ((f = wl_field_json(key)) == NULL) {
			(void)wl_fail(errbuf, len, "unknown field \"%.64s\"",
			    valid_text(key) ? key : "?");
			goto bad;
		}
		if (j_field(f, wl, v, errbuf, len) == -1)
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
