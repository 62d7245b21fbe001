/*
 * A workload definition's life and its parts: workload_new() and
 * workload_free(), which go by the table of its fields
 * (workload_fields.c), its lists, the checks of a string, a network's
 * name, a volume's name and path and a listener, and the words of the
 * settings that take one of a few.  Validation and the comparison of two
 * definitions are in workload_check.c, the JSON form in workload_json.c.
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
#include "workload_fields.h"

/* a field as workload_new() leaves it: not given */
static int
field_init(struct workload_conf *wl, const struct wl_field *f)
{
	void	*p = WF_PTR(wl, f);

	switch (f->type) {
	case WF_NAME:
		return (0);
	case WF_STRING:
		if (f->sdflt != NULL &&
		    (*(char **)p = strdup(f->sdflt)) == NULL)
			return (-1);
		return (0);
	case WF_STRLIST:
		TAILQ_INIT((struct strlist *)p);
		return (0);
	case WF_VOLUMES:
		TAILQ_INIT((struct volumelist *)p);
		return (0);
	case WF_IGNORES:
		TAILQ_INIT((struct ignorelist *)p);
		return (0);
	default:
		wl_field_set_num(wl, f, f->dflt);
		return (0);
	}
}

static void
field_free(struct workload_conf *wl, const struct wl_field *f)
{
	void		*p = WF_PTR(wl, f);
	struct volumelist *vl = p;
	struct volume	*v;

	switch (f->type) {
	case WF_STRING:
		free(*(char **)p);
		break;
	case WF_NETWORK:
		free(wl->netname);
		break;
	case WF_STRLIST:
		strlist_free(p);
		break;
	case WF_IGNORES:
		ignore_free(p);
		break;
	case WF_VOLUMES:
		while ((v = TAILQ_FIRST(vl)) != NULL) {
			TAILQ_REMOVE(vl, v, entry);
			free(v->host);
			free(v->container);
			free(v);
		}
		break;
	default:
		break;
	}
}


struct workload_conf *
workload_new(const char *name)
{
	struct workload_conf	*wl;
	size_t			 i;

	if (name == NULL || strlen(name) >= sizeof(wl->name)) {
		errno = ENAMETOOLONG;
		return (NULL);
	}
	if ((wl = calloc(1, sizeof(*wl))) == NULL)
		return (NULL);
	(void)strlcpy(wl->name, name, sizeof(wl->name));
	for (i = 0; i < wl_nfields; i++)
		if (field_init(wl, &wl_fields[i]) == -1) {
			workload_free(wl);
			return (NULL);
		}
	return (wl);
}

void
workload_free(struct workload_conf *wl)
{
	size_t	 i;

	if (wl == NULL)
		return;
	if (!wl->packed)
		for (i = 0; i < wl_nfields; i++)
			field_free(wl, &wl_fields[i]);
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

/*
 * Its "path" as routes compare it: without a trailing '/', "/api/" and
 * "/api" being one prefix; 0 for none, the host's default.
 */
size_t
workload_path_len(const struct workload_conf *wl)
{
	size_t	 n;

	if (wl->path == NULL)
		return (0);
	n = strlen(wl->path);
	while (n > 1 && wl->path[n - 1] == '/')
		n--;
	return (n);
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
	{ "label", SOURCE_LABEL },
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
const struct wl_word wl_run_onces[] = {
	{ "off", RUN_SERVICE },
	{ "once", RUN_ONCE },
	{ "every_wake", RUN_EVERY_WAKE },
	{ NULL, 0 }
};
const struct wl_word wl_group_wakes[] = {
	{ "dependencies", GROUP_WAKE_DEPS },
	{ "together", GROUP_WAKE_TOGETHER },
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
