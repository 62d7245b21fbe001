/*
 * A workload's rules, in one place: defaults, validation and the
 * comparison of two definitions.  The config parser and the API both end
 * with workload_validate(), so a workload is the same whichever way it
 * came in; its JSON form, which the config transaction, the store and
 * the HTTP API use, is in workload_json.c.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "ignore.h"
#include "units.h"
#include "workload.h"

#define WL_DEFAULT_ADDRESS	"127.0.0.1"

/*
 * The bytes of all strings of one workload together.  Its JSON form must
 * fit in one internal message (ORCHD_IMSG_MAXSIZE) even when every
 * character needs escaping.
 */
#define WL_SIZE_MAX		(96 * 1024)

struct workload_conf *
workload_new(const char *name)
{
	struct workload_conf	*wl;

	if (name == NULL || strlen(name) >= sizeof(wl->name)) {
		errno = ENAMETOOLONG;
		return (NULL);
	}
	if ((wl = calloc(1, sizeof(*wl))) == NULL)
		return (NULL);
	(void)strlcpy(wl->name, name, sizeof(wl->name));
	wl->driver = DRIVER_PROCESS;
	wl->source = SOURCE_CONFIG;
	TAILQ_INIT(&wl->hosts);
	TAILQ_INIT(&wl->env);
	TAILQ_INIT(&wl->volumes);
	TAILQ_INIT(&wl->ignores);
	TAILQ_INIT(&wl->depends);
	TAILQ_INIT(&wl->constraints);
	wl->replicas = 1;
	TAILQ_INIT(&wl->listens);
	wl->network = NETWORK_BRIDGE;
	wl->health = HEALTH_TCP;
	wl->health_interval = -1;
	wl->health_timeout = -1;
	wl->health_failures = -1;
	wl->idle_timeout = -1;
	wl->wake_timeout = -1;
	wl->stop_timeout = -1;
	wl->busy_max = -1;
	wl->init = -1;
	wl->tunnel_idle = -1;
	wl->server_timing = -1;
	wl->pull = -1;
	wl->pull_timeout = -1;
	wl->expire_after = -1;
	wl->on_change = -1;
	wl->run_uid = -1;
	if ((wl->address = strdup(WL_DEFAULT_ADDRESS)) == NULL) {
		free(wl);
		return (NULL);
	}
	return (wl);
}

void
workload_free(struct workload_conf *wl)
{
	struct volume	*v;

	if (wl == NULL)
		return;
	if (wl->packed) {
		free(wl);
		return;
	}
	strlist_free(&wl->hosts);
	strlist_free(&wl->env);
	ignore_free(&wl->ignores);
	strlist_free(&wl->depends);
	strlist_free(&wl->constraints);
	strlist_free(&wl->listens);
	while ((v = TAILQ_FIRST(&wl->volumes)) != NULL) {
		TAILQ_REMOVE(&wl->volumes, v, entry);
		free(v->host);
		free(v->container);
		free(v);
	}
	free(wl->command);
	free(wl->image);
	free(wl->runtime);
	free(wl->netname);
	free(wl->user);
	free(wl->directory);
	free(wl->address);
	free(wl->health_path);
	free(wl->busy_path);
	free(wl);
}

int
strlist_add(struct strlist *list, const char *str)
{
	struct strentry	*e;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (-1);
	if ((e->str = strdup(str)) == NULL) {
		free(e);
		return (-1);
	}
	TAILQ_INSERT_TAIL(list, e, entry);
	return (0);
}

void
strlist_free(struct strlist *list)
{
	struct strentry	*e;

	while ((e = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, e, entry);
		free(e->str);
		free(e);
	}
}

/*
 * Validation.
 */

/* a rule's or a field's error, formatted into errbuf (may be NULL): -1 */
int
wl_fail(char *errbuf, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	if (errbuf != NULL && len > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(errbuf, len, fmt, ap);
		va_end(ap);
	}
	return (-1);
}

/*
 * Valid UTF-8 without control characters: every string of a workload ends
 * up in JSON, in argv or in a container's configuration.
 */
int
valid_text(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	unsigned int		 cp;
	int			 n, i;

	while (*p != '\0') {
		if (*p < 0x80) {
			if (*p < 0x20 || *p == 0x7f)
				return (0);
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0) {
			n = 1;
			cp = *p & 0x1f;
		} else if ((*p & 0xf0) == 0xe0) {
			n = 2;
			cp = *p & 0x0f;
		} else if ((*p & 0xf8) == 0xf0) {
			n = 3;
			cp = *p & 0x07;
		} else
			return (0);
		for (i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (0);
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		/* overlong forms, surrogates, past U+10FFFF, C1 controls */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
			return (0);
		p += n + 1;
	}
	return (1);
}

static int
valid_env(const char *s)
{
	const char	*p;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return (0);
	for (p = s + 1; *p != '='; p++)
		if (*p == '\0' ||
		    (!isalnum((unsigned char)*p) && *p != '_'))
			return (0);
	return (1);
}

static int
valid_address(const char *s)
{
	struct in_addr	 in4;
	struct in6_addr	 in6;

	return (inet_pton(AF_INET, s, &in4) == 1 ||
	    inet_pton(AF_INET6, s, &in6) == 1);
}

/*
 * A Docker network of the operator's: a workload name's characters,
 * which Docker's own rules allow, and none of the names Docker gives a
 * meaning of its own.
 */
int
valid_network_name(const char *s)
{
	static const char	*docker[] = { "host", "bridge", "none",
	    "default" };
	size_t			 i;

	if (!valid_workload_name(s))
		return (0);
	for (i = 0; i < nitems(docker); i++)
		if (strcmp(s, docker[i]) == 0)
			return (0);
	return (1);
}

/*
 * The source of an API volume: one name, of which orchd makes the
 * directory ROOT/INSTANCE/WORKLOAD/NAME itself, never a path.  Letters,
 * digits, '.', '-' and '_', not "." or "..", at most ORCHD_VOLNAME_MAX - 1.
 */
int
valid_volume_name(const char *s)
{
	size_t	 i;

	if (s == NULL || s[0] == '\0' || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return (0);
	for (i = 0; s[i] != '\0'; i++) {
		if (i >= ORCHD_VOLNAME_MAX - 1)
			return (0);
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && s[i] != '-')
			return (0);
	}
	return (1);
}

/*
 * orchd.conf's volumes name host paths, absolute ones: a name is for
 * the API (valid_volume_name), whose policy says what it may be.
 */
int
workload_volumes_absolute(const struct workload_conf *wl, char *errbuf,
    size_t len)
{
	const struct volume	*v;

	TAILQ_FOREACH(v, &wl->volumes, entry)
		if (v->host[0] != '/')
			return (wl_fail(errbuf, len, "volume \"%s\": host path "
			    "must be absolute", v->host));
	return (0);
}

/*
 * ROOT/INSTANCE, where one orchd instance's API volumes are: the root
 * runtimed is given, and the one the parent makes them under.  0, or -1
 * if it does not fit.
 */
int
volume_root_instance(const char *root, const char *inst, char *buf,
    size_t len)
{
	int	 n;

	if (root == NULL || root[0] != '/')
		return (-1);
	n = snprintf(buf, len, "%s/%s", strcmp(root, "/") == 0 ? "" : root,
	    inst);
	return (n < 0 || (size_t)n >= len ? -1 : 0);
}

/*
 * Where an API volume is on the host: ROOT/WORKLOAD/NAME, ROOT the
 * "api allow volume" of orchd.conf with the instance's name after it
 * (volume_root_instance).  The parent makes it
 * (orchd/voldir.c), runtimed hands it to Docker.  0, or -1 if root is
 * none or it does not fit.
 */
int
volume_api_path(const char *root, const char *wl, const char *name,
    char *buf, size_t len)
{
	int	 n;

	if (root == NULL || root[0] != '/')
		return (-1);
	n = snprintf(buf, len, "%s/%s/%s", strcmp(root, "/") == 0 ? "" :
	    root, wl, name);
	return (n < 0 || (size_t)n >= len ? -1 : 0);
}

/* where orchd reaches it: a container's published port, or its port */
uint16_t
workload_upstream_port(const struct workload_conf *wl)
{
	return (wl->publish != 0 ? wl->publish : wl->port);
}

/*
 * A workload's TCP listener, "ADDRESS:PORT": ADDRESS as "listen on" has
 * it (a numeric IPv4 address, an IPv6 one in brackets, localhost or *),
 * copied to addr; PORT from 1 to 65535.  0, or -1 if s is not one.
 */
int
listen_split(const char *s, char *addr, size_t addrlen, int *port)
{
	struct in_addr	 in4;
	struct in6_addr	 in6;
	const char	*colon, *p;
	char		 buf[INET6_ADDRSTRLEN + 2];
	size_t		 len;
	int		 n = 0;

	if ((colon = strrchr(s, ':')) == NULL || colon[1] == '\0' ||
	    (len = colon - s) == 0 || len >= sizeof(buf) || len >= addrlen)
		return (-1);
	for (p = colon + 1; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) || (n = n * 10 + *p - '0') >
		    65535)
			return (-1);
	}
	if (n < 1)
		return (-1);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (strcmp(buf, "localhost") != 0 && strcmp(buf, "*") != 0 &&
	    inet_pton(AF_INET, buf, &in4) != 1) {
		if (len < 3 || buf[0] != '[' || buf[len - 1] != ']')
			return (-1);
		buf[len - 1] = '\0';
		if (inet_pton(AF_INET6, buf + 1, &in6) != 1)
			return (-1);
		buf[len - 1] = ']';
	}
	memcpy(addr, buf, len + 1);
	*port = n;
	return (0);
}

/*
 * "swarm manager": "tcp://ADDRESS:PORT", ADDRESS a numeric address, an
 * IPv6 one in brackets; copied to addr without them.  0, or -1.
 */
int
swarm_manager_split(const char *s, char *addr, size_t addrlen, int *port)
{
	char	 buf[INET6_ADDRSTRLEN + 2];
	size_t	 len;

	if (strncmp(s, "tcp://", 6) != 0 ||
	    listen_split(s + 6, buf, sizeof(buf), port) == -1 ||
	    strcmp(buf, "localhost") == 0 || strcmp(buf, "*") == 0)
		return (-1);
	len = strlen(buf);
	if (buf[0] == '[') {
		buf[len - 1] = '\0';
		memmove(buf, buf + 1, len - 1);
	}
	if (strlcpy(addr, buf, addrlen) >= addrlen)
		return (-1);
	return (0);
}

/* a user name or, for docker, "user:group" or numeric ids */
static int
valid_user(const char *s, int docker)
{
	size_t	 len = strlen(s);

	if (len == 0 || len >= ORCHD_USER_MAX)
		return (0);
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' &&
		    *s != '-' && !(docker && *s == ':'))
			return (0);
	return (1);
}

/* check one optional string field: NULL is fine, empty is not */
static int
check_string(const char *field, const char *s, size_t *total, char *errbuf,
    size_t len)
{
	if (s == NULL)
		return (0);
	if (*s == '\0')
		return (wl_fail(errbuf, len, "%s: must not be empty", field));
	if (!valid_text(s))
		return (wl_fail(errbuf, len, "%s: invalid character "
		    "(control character or invalid UTF-8)", field));
	*total += strlen(s) + 8;
	return (0);
}

/* "ignore" rules: each valid, none twice, ORCHD_IGNORE_MAX at most */
static int
ignores_validate(const struct ignorelist *l, size_t *total, char *errbuf,
    size_t len)
{
	const struct ignore_rule	*r, *o;
	int				 n = 0;

	TAILQ_FOREACH(r, l, entry) {
		if (++n > ORCHD_IGNORE_MAX)
			return (wl_fail(errbuf, len,
			    "more than %d ignore rules",
			    ORCHD_IGNORE_MAX));
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

/*
 * The busy veto: a path runtimed asks before a suspend, as it asks the
 * health path, so the same form.  Its limit and its failure mode mean
 * nothing without it.
 */
static int
validate_busy(const struct workload_conf *wl, char *errbuf, size_t len)
{
	if (wl->busy_path == NULL) {
		if (wl->busy_max != -1 || wl->busy_fail_safe)
			return (wl_fail(errbuf, len, "busy max and busy fail "
			    "need a busy path"));
		return (0);
	}
	if (wl->busy_path[0] != '/')
		return (wl_fail(errbuf, len,
		    "busy path must start with \"/\""));
	if (strpbrk(wl->busy_path, " \t") != NULL)
		return (wl_fail(errbuf, len, "busy path must not contain "
		    "spaces"));
	if (wl->busy_max < -1 || wl->busy_max == 0)
		return (wl_fail(errbuf, len, "busy max must be positive"));
	if (wl->busy_fail_safe != 0 && wl->busy_fail_safe != 1)
		return (wl_fail(errbuf, len, "invalid busy fail"));
	return (0);
}

/*
 * "depends on": names of workloads, each once, not its own.  Whether
 * they are workloads, and without a cycle, is for the whole set to say
 * (common/deps.c).
 */
static int
check_depends(const struct workload_conf *wl, size_t *total, char *errbuf,
    size_t len)
{
	const struct strentry	*e, *f;
	int			 n = 0;

	TAILQ_FOREACH(e, &wl->depends, entry) {
		if (!valid_workload_name(e->str) || !valid_text(e->str))
			return (wl_fail(errbuf, len, "depends on \"%s\": not a "
			    "workload name", valid_text(e->str) &&
			    strlen(e->str) < ORCHD_NAME_MAX ? e->str : "?"));
		if (strcmp(e->str, wl->name) == 0)
			return (wl_fail(errbuf, len, "depends on itself"));
		for (f = TAILQ_NEXT(e, entry); f != NULL;
		    f = TAILQ_NEXT(f, entry))
			if (strcmp(e->str, f->str) == 0)
				return (wl_fail(errbuf, len,
				    "depends on \"%s\" "
				    "twice", e->str));
		if (++n > ORCHD_DEPS_MAX)
			return (wl_fail(errbuf, len, "depends on more than %d "
			    "workloads", ORCHD_DEPS_MAX));
		*total += strlen(e->str) + 8;
	}
	return (0);
}

/*
 * driver swarm: its placement constraints are Swarm's own expressions
 * ("node.labels.pool==previews"), passed on as they are, so only their
 * shape is checked here; replicas and constraints mean nothing to the
 * other drivers.  Volumes and a runtime are the docker driver's: a bind
 * mount would name a path on whichever node the task lands on.
 */
static int
validate_swarm(const struct workload_conf *wl, size_t *total, char *errbuf,
    size_t len)
{
	const struct strentry	*e;

	if (wl->driver != DRIVER_SWARM) {
		if (!TAILQ_EMPTY(&wl->constraints))
			return (wl_fail(errbuf, len, "constraint is only for "
			    "driver swarm"));
		if (wl->replicas != 1)
			return (wl_fail(errbuf, len, "replicas is only for "
			    "driver swarm"));
		return (0);
	}
	if (wl->replicas < 1 || wl->replicas > WL_REPLICAS_MAX)
		return (wl_fail(errbuf, len, "replicas must be from 1 to %d",
		    WL_REPLICAS_MAX));
	if (!TAILQ_EMPTY(&wl->volumes))
		return (wl_fail(errbuf, len, "volume is not for driver swarm"));
	if (wl->runtime != NULL)
		return (wl_fail(errbuf, len,
		    "runtime is not for driver swarm"));
	TAILQ_FOREACH(e, &wl->constraints, entry) {
		if (!valid_text(e->str) || strlen(e->str) > 256 ||
		    strpbrk(e->str, "\"' \t") != NULL ||
		    (strstr(e->str, "==") == NULL &&
		    strstr(e->str, "!=") == NULL))
			return (wl_fail(errbuf, len,
			    "constraint \"%s\": must be "
			    "NAME==value or NAME!=value, without spaces or "
			    "quotes", valid_text(e->str) ? e->str : "?"));
		*total += strlen(e->str) + 8;
	}
	return (0);
}

/* its TCP listeners: each "ADDRESS:PORT", none twice, a few at most */
static int
listens_validate(const struct strlist *l, size_t *total, char *errbuf,
    size_t len)
{
	const struct strentry	*e, *f;
	char			 addr[INET6_ADDRSTRLEN + 2];
	int			 n = 0, port;

	TAILQ_FOREACH(e, l, entry) {
		if (++n > ORCHD_LISTEN_MAX)
			return (wl_fail(errbuf, len, "more than %d listen on",
			    ORCHD_LISTEN_MAX));
		if (listen_split(e->str, addr, sizeof(addr), &port) == -1)
			return (wl_fail(errbuf, len, "listen \"%s\": must be "
			    "ADDRESS:PORT, ADDRESS a numeric IPv4 address, an "
			    "IPv6 one in brackets, localhost or *",
			    valid_text(e->str) ? e->str : "?"));
		for (f = TAILQ_NEXT(e, entry); f != NULL;
		    f = TAILQ_NEXT(f, entry))
			if (strcmp(e->str, f->str) == 0)
				return (wl_fail(errbuf, len, "listen \"%s\" "
				    "listed twice", e->str));
		*total += strlen(e->str) + 8;
	}
	return (0);
}

int
workload_validate(const struct workload_conf *wl, char *errbuf, size_t len)
{
	const struct strentry	*e, *f;
	const struct volume	*v, *w;
	size_t			 total = 0;
	int			 docker = wl->driver != DRIVER_PROCESS;

	if (!valid_workload_name(wl->name))
		return (wl_fail(errbuf, len, "invalid name \"%s\": 1 to 63 "
		    "letters, digits, '_', '.' or '-', starting with a letter "
		    "or digit", wl->name));
	if (wl_word_name(wl_drivers, wl->driver) == NULL)
		return (wl_fail(errbuf, len, "invalid driver"));
	if (validate_swarm(wl, &total, errbuf, len) == -1)
		return (-1);
	if (wl_word_name(wl_sources, wl->source) == NULL)
		return (wl_fail(errbuf, len, "invalid source"));
	/* one reached by its TCP listeners alone needs no host */
	if (TAILQ_EMPTY(&wl->hosts) && TAILQ_EMPTY(&wl->listens))
		return (wl_fail(errbuf, len, "at least one host is required"));
	TAILQ_FOREACH(e, &wl->hosts, entry) {
		if (!valid_host_pattern(e->str))
			return (wl_fail(errbuf, len, "invalid host \"%s\"",
			    valid_text(e->str) ? e->str : "?"));
		for (f = TAILQ_NEXT(e, entry); f != NULL;
		    f = TAILQ_NEXT(f, entry))
			if (strcasecmp(e->str, f->str) == 0)
				return (wl_fail(errbuf, len,
				    "host \"%s\" listed "
				    "twice", e->str));
		total += strlen(e->str) + 8;
	}
	if (wl->port == 0)
		return (wl_fail(errbuf, len, "a port is required"));

	if (check_string("command", wl->command, &total, errbuf, len) == -1 ||
	    check_string("image", wl->image, &total, errbuf, len) == -1 ||
	    check_string("runtime", wl->runtime, &total, errbuf, len) == -1 ||
	    check_string("user", wl->user, &total, errbuf, len) == -1 ||
	    check_string("directory", wl->directory, &total, errbuf,
	    len) == -1 ||
	    check_string("address", wl->address, &total, errbuf, len) == -1 ||
	    check_string("health path", wl->health_path, &total, errbuf,
	    len) == -1 ||
	    check_string("busy path", wl->busy_path, &total, errbuf,
	    len) == -1)
		return (-1);

	if (docker) {
		if (wl->image == NULL)
			return (wl_fail(errbuf, len, "driver %s needs an image",
			    wl_word_name(wl_drivers, wl->driver)));
	} else {
		if (wl->command == NULL)
			return (wl_fail(errbuf, len, "driver process needs a "
			    "command"));
		if (wl->image != NULL)
			return (wl_fail(errbuf, len, "image is only for driver "
			    "docker"));
		if (wl->runtime != NULL)
			return (wl_fail(errbuf, len,
			    "runtime is only for driver "
			    "docker"));
		if (!TAILQ_EMPTY(&wl->volumes))
			return (wl_fail(errbuf, len,
			    "volume is only for driver "
			    "docker"));
		if (wl->network == NETWORK_HOST)
			return (wl_fail(errbuf, len, "network host is only for "
			    "driver docker"));
		if (wl->network == NETWORK_NAMED)
			return (wl_fail(errbuf, len,
			    "network \"%s\" is only for "
			    "driver docker", wl->netname != NULL &&
			    valid_text(wl->netname) ? wl->netname : "?"));
		if (wl->publish != 0)
			return (wl_fail(errbuf, len,
			    "publish is only for driver "
			    "docker"));
		if (wl->init != -1)
			return (wl_fail(errbuf, len, "init is only for driver "
			    "docker"));
		if (wl->allow_root)
			return (wl_fail(errbuf, len, "allow root is only for "
			    "driver docker"));
		if (wl->run_uid != -1)
			return (wl_fail(errbuf, len, "run_uid is only for "
			    "driver docker"));
		if (wl->pull != -1 || wl->pull_timeout != -1)
			return (wl_fail(errbuf, len, "pull is only for driver "
			    "docker"));
	}
	if (wl->network != NETWORK_BRIDGE && wl->network != NETWORK_HOST &&
	    wl->network != NETWORK_NAMED)
		return (wl_fail(errbuf, len, "invalid network"));
	if ((wl->network == NETWORK_NAMED) != (wl->netname != NULL))
		return (wl_fail(errbuf, len, "invalid network"));
	if (wl->netname != NULL) {
		if (!valid_network_name(wl->netname))
			return (wl_fail(errbuf, len,
			    "invalid network \"%s\": 1 "
			    "to 63 letters, digits, '_', '.' or '-', starting "
			    "with a letter or digit, and not host, bridge, "
			    "none or default", valid_text(wl->netname) &&
			    strlen(wl->netname) < 64 ? wl->netname : "?"));
		total += strlen(wl->netname) + 8;
	}
	/* the host shares its ports with such a container: none to publish */
	if (wl->publish != 0 && wl->network == NETWORK_HOST)
		return (wl_fail(errbuf, len, "publish is not for network host: "
		    "the container listens on the host's port itself"));

	switch (wl->health) {
	case HEALTH_TCP:
		if (wl->health_path != NULL)
			return (wl_fail(errbuf, len, "health path given with "
			    "health tcp"));
		break;
	case HEALTH_PATH:
		if (wl->health_path == NULL || wl->health_path[0] != '/')
			return (wl_fail(errbuf, len, "health path must start "
			    "with \"/\""));
		if (strpbrk(wl->health_path, " \t") != NULL)
			return (wl_fail(errbuf, len, "health path must not "
			    "contain spaces"));
		break;
	default:
		return (wl_fail(errbuf, len, "invalid health check"));
	}

	if (validate_busy(wl, errbuf, len) == -1)
		return (-1);

	TAILQ_FOREACH(e, &wl->env, entry) {
		if (!valid_text(e->str))
			return (wl_fail(errbuf, len, "env: invalid character "
			    "(control character or invalid UTF-8)"));
		if (!valid_env(e->str))
			return (wl_fail(errbuf, len, "env \"%s\": must be "
			    "NAME=value, NAME of letters, digits and '_', not "
			    "starting with a digit", e->str));
		total += strlen(e->str) + 8;
	}
	TAILQ_FOREACH(v, &wl->volumes, entry) {
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
			return (wl_fail(errbuf, len,
			    "volume \"%s\": paths must "
			    "not contain ':'", v->host));
		for (w = TAILQ_NEXT(v, entry); w != NULL;
		    w = TAILQ_NEXT(w, entry))
			if (strcmp(v->container, w->container) == 0)
				return (wl_fail(errbuf, len, "volume \"%s\": "
				    "container path used twice",
				    v->container));
		total += strlen(v->host) + strlen(v->container) + 24;
	}

	if (check_depends(wl, &total, errbuf, len) == -1)
		return (-1);

	if (wl->user != NULL && !valid_user(wl->user, docker))
		return (wl_fail(errbuf, len, "invalid user \"%s\"", wl->user));
	if (wl->directory != NULL && wl->directory[0] != '/')
		return (wl_fail(errbuf, len, "directory \"%s\" must be an "
		    "absolute path", wl->directory));
	if (wl->address == NULL)
		return (wl_fail(errbuf, len, "an address is required"));
	if (!valid_address(wl->address))
		return (wl_fail(errbuf, len,
		    "address \"%s\": must be a numeric "
		    "IPv4 or IPv6 address", wl->address));

	if (wl->health_interval < -1 ||
	    wl->health_interval > WL_HEALTH_INTERVAL_MAX)
		return (wl_fail(errbuf, len, "health interval must be at most "
		    "%ds", WL_HEALTH_INTERVAL_MAX));
	if (wl->health_timeout < -1 || wl->health_timeout == 0 ||
	    wl->health_timeout > WL_HEALTH_INTERVAL_MAX)
		return (wl_fail(errbuf, len,
		    "health timeout must be from 1s to "
		    "%ds", WL_HEALTH_INTERVAL_MAX));
	if (wl->health_failures < -1 || wl->health_failures == 0 ||
	    wl->health_failures > WL_HEALTH_FAILURES_MAX)
		return (wl_fail(errbuf, len,
		    "health failures must be from 1 to "
		    "%d", WL_HEALTH_FAILURES_MAX));
	if (wl->idle_timeout < -1)
		return (wl_fail(errbuf, len, "invalid idle timeout"));
	if (wl->wake_timeout < -1 || wl->wake_timeout == 0)
		return (wl_fail(errbuf, len, "wake timeout must be positive"));
	if (wl->memory < 0)
		return (wl_fail(errbuf, len, "invalid memory limit"));
	if (wl->stop_signal != 0 && signal_name(wl->stop_signal) == NULL)
		return (wl_fail(errbuf, len, "invalid stop signal %d",
		    wl->stop_signal));
	if (wl->stop_timeout < -1 || wl->stop_timeout > WL_STOP_TIMEOUT_MAX)
		return (wl_fail(errbuf, len, "stop timeout must be at most %ds",
		    WL_STOP_TIMEOUT_MAX));
	if (wl->init < -1 || wl->init > 1)
		return (wl_fail(errbuf, len, "invalid init"));
	if (ignores_validate(&wl->ignores, &total, errbuf, len) == -1)
		return (-1);
	if (wl->tunnel_idle < -1)
		return (wl_fail(errbuf, len, "invalid tunnel idle timeout"));
	if (wl->server_timing < -1 || wl->server_timing > 1)
		return (wl_fail(errbuf, len, "invalid server timing"));
	if (wl->pull != -1 && wl_word_name(wl_pulls, wl->pull) == NULL)
		return (wl_fail(errbuf, len, "invalid pull"));
	if (wl->pull_timeout < -1 || wl->pull_timeout == 0)
		return (wl_fail(errbuf, len, "pull timeout must be positive"));
	if (wl->expire_after < -1)
		return (wl_fail(errbuf, len, "invalid expire after"));
	if (wl->on_change < -1 || wl->on_change > ON_CHANGE_RESTART)
		return (wl_fail(errbuf, len, "invalid on change"));
	if (listens_validate(&wl->listens, &total, errbuf, len) == -1)
		return (-1);
	if (total > WL_SIZE_MAX)
		return (wl_fail(errbuf, len, "workload too large"));
	return (0);
}

/*
 * The words of the settings that take one of a few, in the JSON form;
 * orchd.conf, orchd -nv and orchctl say the same (on change says "next
 * wake" in orchd.conf).  Each table ends with a NULL word; an error lists
 * them in this order.
 */
const struct wl_word wl_drivers[] = {
	{ "process", DRIVER_PROCESS },
	{ "docker", DRIVER_DOCKER },
	{ "swarm", DRIVER_SWARM },
	{ NULL, 0 }
};
const struct wl_word wl_sources[] = {
	{ "config", SOURCE_CONFIG },
	{ "api", SOURCE_API },
	{ NULL, 0 }
};
/* and NETWORK_NAMED, which is the network's own name */
const struct wl_word wl_networks[] = {
	{ "bridge", NETWORK_BRIDGE },
	{ "host", NETWORK_HOST },
	{ NULL, 0 }
};
const struct wl_word wl_healths[] = {
	{ "tcp", HEALTH_TCP },
	{ "path", HEALTH_PATH },
	{ NULL, 0 }
};
const struct wl_word wl_pulls[] = {
	{ "missing", PULL_MISSING },
	{ "always", PULL_ALWAYS },
	{ "never", PULL_NEVER },
	{ NULL, 0 }
};
/* busy_fail_safe */
const struct wl_word wl_busy_fails[] = {
	{ "open", 0 },
	{ "safe", 1 },
	{ NULL, 0 }
};
/* upstream_h2c */
const struct wl_word wl_upstreams[] = {
	{ "h2c", 1 },
	{ "http/1.1", 0 },
	{ NULL, 0 }
};
const struct wl_word wl_on_changes[] = {
	{ "restart", ON_CHANGE_RESTART },
	{ "next_wake", ON_CHANGE_NEXT_WAKE },
	{ NULL, 0 }
};

/* the word of a value; NULL for none */
const char *
wl_word_name(const struct wl_word *t, int value)
{
	for (; t->name != NULL; t++)
		if (t->value == value)
			return (t->name);
	return (NULL);
}

/* the value of a word, in *value: 0; -1 for none */
int
wl_word_value(const struct wl_word *t, const char *s, int *value)
{
	for (; t->name != NULL; t++)
		if (strcmp(t->name, s) == 0) {
			*value = t->value;
			return (0);
		}
	return (-1);
}

/* "\"tcp\" or \"path\"", for an error; buf is cut to fit */
const char *
wl_word_list(const struct wl_word *t, char *buf, size_t len)
{
	size_t	 i;

	buf[0] = '\0';
	for (i = 0; t[i].name != NULL; i++) {
		if (i > 0)
			(void)strlcat(buf, t[i + 1].name == NULL ? " or " :
			    ", ", len);
		(void)strlcat(buf, "\"", len);
		(void)strlcat(buf, t[i].name, len);
		(void)strlcat(buf, "\"", len);
	}
	return (buf);
}

/*
 * Drift: what a running instance, started with definition a, lacks of
 * definition b.  Only what the instance itself is made of counts: the
 * rest (hosts, timeouts, keep warm, ignores, liveness) takes effect
 * without a restart.  The names are those of the JSON form.
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
	int	 n = 0;

	if (len > 0)
		buf[0] = '\0';
	if (a->driver != b->driver)
		diff_add(buf, len, "driver", &n);
	if (str_differ(a->command, b->command))
		diff_add(buf, len, "command", &n);
	if (str_differ(a->image, b->image))
		diff_add(buf, len, "image", &n);
	if (str_differ(a->runtime, b->runtime))
		diff_add(buf, len, "runtime", &n);
	if (a->network != b->network || str_differ(a->netname, b->netname))
		diff_add(buf, len, "network", &n);
	if (strlist_differ(&a->env, &b->env))
		diff_add(buf, len, "env", &n);
	if (volumes_differ(&a->volumes, &b->volumes))
		diff_add(buf, len, "volumes", &n);
	if (str_differ(a->user, b->user))
		diff_add(buf, len, "user", &n);
	if (str_differ(a->directory, b->directory))
		diff_add(buf, len, "directory", &n);
	if (str_differ(a->address, b->address))
		diff_add(buf, len, "address", &n);
	if (a->port != b->port)
		diff_add(buf, len, "port", &n);
	if (a->publish != b->publish)
		diff_add(buf, len, "publish", &n);
	if (a->memory != b->memory)
		diff_add(buf, len, "memory", &n);
	if (a->stop_signal != b->stop_signal)
		diff_add(buf, len, "stop_signal", &n);
	if (a->stop_timeout != b->stop_timeout)
		diff_add(buf, len, "stop_timeout", &n);
	if (a->init != b->init)
		diff_add(buf, len, "init", &n);
	if (a->allow_root != b->allow_root)
		diff_add(buf, len, "allow_root", &n);
	if (a->run_uid != b->run_uid)
		diff_add(buf, len, "run_uid", &n);
	if (a->replicas != b->replicas)
		diff_add(buf, len, "replicas", &n);
	if (strlist_differ(&a->constraints, &b->constraints))
		diff_add(buf, len, "constraints", &n);
	return (n);
}
