/*
 * orchctl import compose, one service: each key of a Compose service
 * mapped to the fields of an API workload definition by the table
 * svc_keys[] below, one handler a key.  A key orchd cannot honour
 * (build, privileged, cap_add, devices, ...) or does not know is an
 * error naming it and its line: an import never drops what a file asks
 * for.  What is mapped is checked again by orchd's API and its policy,
 * as any client's definition: a bind mount or host network that "api
 * allow" does not permit is refused there.  What reads or names the
 * host's files (env_file, volumes) is compose_fs.c's.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "compat.h"
#include "units.h"
#include "workload.h"
#include "workload_fields.h"
#include "compose.h"
#include "compose_svc.h"

struct svc_key {
	const char	*key;
	void		(*map)(struct svc *, const struct ynode *);
	const char	*refused;	/* why, if it is refused */
};

static void	 map_image(struct svc *, const struct ynode *);
static void	 map_command(struct svc *, const struct ynode *);
static void	 map_entrypoint(struct svc *, const struct ynode *);
static void	 map_environment(struct svc *, const struct ynode *);
static void	 map_networks(struct svc *, const struct ynode *);
static void	 map_network_mode(struct svc *, const struct ynode *);
static void	 map_depends_on(struct svc *, const struct ynode *);
static void	 map_healthcheck(struct svc *, const struct ynode *);
static void	 map_ports(struct svc *, const struct ynode *);
static void	 map_expose(struct svc *, const struct ynode *);
static void	 map_labels(struct svc *, const struct ynode *);
static void	 map_user(struct svc *, const struct ynode *);
static void	 map_working_dir(struct svc *, const struct ynode *);
static void	 map_stop_signal(struct svc *, const struct ynode *);
static void	 map_stop_grace(struct svc *, const struct ynode *);
static void	 map_memory(struct svc *, const struct ynode *);
static void	 map_deploy(struct svc *, const struct ynode *);
static void	 map_ignored(struct svc *, const struct ynode *);

static const struct svc_key svc_keys[] = {
	{ "image",		map_image,		NULL },
	{ "command",		map_command,		NULL },
	{ "entrypoint",		map_entrypoint,		NULL },
	{ "environment",	map_environment,	NULL },
	{ "env_file",		map_env_file,		NULL },
	{ "volumes",		map_volumes,		NULL },
	{ "networks",		map_networks,		NULL },
	{ "network_mode",	map_network_mode,	NULL },
	{ "depends_on",		map_depends_on,		NULL },
	{ "healthcheck",	map_healthcheck,	NULL },
	{ "ports",		map_ports,		NULL },
	{ "expose",		map_expose,		NULL },
	{ "labels",		map_labels,		NULL },
	{ "user",		map_user,		NULL },
	{ "working_dir",	map_working_dir,	NULL },
	{ "stop_signal",	map_stop_signal,	NULL },
	{ "stop_grace_period",	map_stop_grace,		NULL },
	{ "mem_limit",		map_memory,		NULL },
	{ "deploy",		map_deploy,		NULL },
	/* orchd decides when it runs, and names it */
	{ "restart",		map_ignored,		NULL },
	{ "container_name",	map_ignored,		NULL },
	{ "build",		NULL,	"orchd runs images and builds none: "
	    "build and push the image, then give it as image" },
	{ "privileged",		NULL,	"orchd never runs a privileged "
	    "container" },
	{ "cap_add",		NULL,	"orchd adds no capability to a "
	    "container" },
	{ "devices",		NULL,	"orchd passes no device into a "
	    "container" },
	{ "security_opt",	NULL,	"orchd sets a container's security "
	    "options itself" },
	{ "pid",		NULL,	"orchd shares no PID namespace" },
	{ "ipc",		NULL,	"orchd shares no IPC namespace" },
	{ "userns_mode",	NULL,	"orchd sets the user namespace "
	    "itself" },
	{ "volumes_from",	NULL,	"each workload has its own volumes" },
	{ "sysctls",		NULL,	"orchd sets no sysctl" },
	{ "extra_hosts",	NULL,	"orchd writes no /etc/hosts entry" }
};

/* "svc.key" is set to v in the definition */
void
svc_set(struct svc *s, const char *field, json_t *v)
{
	if (v == NULL || json_object_set_new(s->def, field, v) == -1)
		cm_err(s->c, s->node, s->name, field, ": out of memory");
}

/* the array of field, made if need be */
json_t *
svc_array(struct svc *s, const char *field)
{
	json_t	*a;

	if ((a = json_object_get(s->def, field)) == NULL) {
		a = json_array();
		svc_set(s, field, a);
	}
	return (a);
}

static void
map_ignored(struct svc *s, const struct ynode *n)
{
}

static void
map_image(struct svc *s, const struct ynode *n)
{
	const char	*v;

	if ((v = cm_str(s->c, n, s->name, "image")) != NULL)
		svc_set(s, "image", json_string(v));
}

/* a word for split_command (common/argv.c): single-quoted */
static int
quote_word(char **cmd, const char *w)
{
	char	*out, *p;
	size_t	 len = strlen(*cmd), i;

	/* each ' as '\'' is 4 bytes; two quotes, a space and NUL */
	if ((out = malloc(len + strlen(w) * 4 + 4)) == NULL)
		return (-1);
	memcpy(out, *cmd, len);
	p = out + len;
	if (len > 0)
		*p++ = ' ';
	*p++ = '\'';
	for (i = 0; w[i] != '\0'; i++) {
		if (w[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else
			*p++ = w[i];
	}
	*p++ = '\'';
	*p = '\0';
	free(*cmd);
	*cmd = out;
	return (0);
}

/*
 * command and entrypoint: a string as sh(1) would split it, or a list
 * of words, each quoted for that split
 */
static void
map_words(struct svc *s, const struct ynode *n, const char *key,
    const char *field)
{
	const char	*w;
	char		*cmd;
	size_t		 i;

	if (n->type == YT_SCALAR) {
		if ((w = cm_str(s->c, n, s->name, key)) != NULL)
			svc_set(s, field, json_string(w));
		return;
	}
	if (n->type != YT_SEQ || n->nkids == 0) {
		cm_err(s->c, n, s->name, key, ": a string or a list of "
		    "words");
		return;
	}
	if ((cmd = strdup("")) == NULL)
		return;
	for (i = 0; i < n->nkids; i++) {
		if ((w = cm_str(s->c, n->kids[i], s->name, key)) == NULL ||
		    quote_word(&cmd, w) == -1) {
			free(cmd);
			return;
		}
	}
	svc_set(s, field, json_string(cmd));
	free(cmd);
}

static void
map_command(struct svc *s, const struct ynode *n)
{
	map_words(s, n, "command", "command");
}

static void
map_entrypoint(struct svc *s, const struct ynode *n)
{
	map_words(s, n, "entrypoint", "entrypoint");
}

/* one NAME=value to env; a NAME orchd's checks refuse is theirs to say */
static void
env_add(struct svc *s, const struct ynode *at, const char *name,
    const char *value)
{
	char	*kv;

	if (asprintf(&kv, "%s=%s", name, value) == -1)
		return;
	if (!valid_text(kv))
		cm_err(s->c, at, s->name, "environment", ": %.64s: control "
		    "characters or invalid UTF-8", name);
	else
		json_array_append_new(svc_array(s, "env"), json_string(kv));
	free(kv);
}

/* environment: a mapping, or a list of NAME=value; no interpolation */
static void
map_environment(struct svc *s, const struct ynode *n)
{
	const char	*v;
	size_t		 i;

	if (n->type == YT_MAP) {
		for (i = 0; i + 1 < n->nkids; i += 2) {
			if (yt_null(n->kids[i + 1])) {
				cm_err(s->c, n->kids[i], s->name,
				    "environment", ".%.64s: no value: orchd "
				    "takes nothing from orchctl's environment",
				    n->kids[i]->str);
				continue;
			}
			if ((v = cm_str(s->c, n->kids[i + 1], s->name,
			    "environment")) != NULL)
				env_add(s, n->kids[i], n->kids[i]->str, v);
		}
		return;
	}
	if (n->type != YT_SEQ) {
		cm_err(s->c, n, s->name, "environment", ": a mapping or a "
		    "list of NAME=value");
		return;
	}
	for (i = 0; i < n->nkids; i++) {
		if ((v = cm_str(s->c, n->kids[i], s->name,
		    "environment")) == NULL)
			continue;
		if (strchr(v, '=') == NULL) {
			cm_err(s->c, n->kids[i], s->name, "environment",
			    ": \"%.64s\": must be NAME=value", v);
			continue;
		}
		json_array_append_new(svc_array(s, "env"), json_string(v));
	}
}

/*
 * networks: one, declared at the top; orchd names it PROJECT-NET, or by
 * its declared "name" when external.  A workload joins one network.
 */
static void
map_networks(struct svc *s, const struct ynode *n)
{
	const struct ynode	*decl, *net;
	char			 name[ORCHD_NAME_MAX];

	if ((n->type != YT_SEQ && n->type != YT_MAP) || n->nkids == 0) {
		cm_err(s->c, n, s->name, "networks", ": a list of networks");
		return;
	}
	if ((n->type == YT_SEQ && n->nkids > 1) ||
	    (n->type == YT_MAP && n->nkids > 2)) {
		cm_err(s->c, n, s->name, "networks", ": more than one: an "
		    "orchd workload joins one network");
		return;
	}
	net = n->kids[0];
	if (n->type == YT_MAP && !yt_null(n->kids[1]))
		cm_err(s->c, n->kids[1], s->name, "networks", ".%.64s: "
		    "aliases and addresses are not mapped", net->str);
	if (cm_str(s->c, net, s->name, "networks") == NULL)
		return;
	if (strcmp(net->str, "default") == 0)
		return;
	decl = yt_get(s->c->root, "networks");
	if (decl == NULL || yt_get(decl, net->str) == NULL) {
		cm_err(s->c, net, s->name, "networks", ": \"%.64s\" is not "
		    "declared under the top-level networks", net->str);
		return;
	}
	if (snprintf(name, sizeof(name), "%s-%s", s->c->project,
	    net->str) >= (int)sizeof(name)) {
		cm_err(s->c, net, s->name, "networks", ": \"%.64s\": its "
		    "name is too long", net->str);
		return;
	}
	svc_set(s, "network", json_string(name));
}

/* network_mode: bridge or host (which the API allows or refuses) */
static void
map_network_mode(struct svc *s, const struct ynode *n)
{
	const char	*v;

	if ((v = cm_str(s->c, n, s->name, "network_mode")) == NULL)
		return;
	if (strcmp(v, "host") != 0 && strcmp(v, "bridge") != 0) {
		cm_err(s->c, n, s->name, "network_mode", ": \"%.64s\" is not "
		    "mapped (bridge and host are)", v);
		return;
	}
	svc_set(s, "network", json_string(v));
}

/* one dependency, its condition mapped */
static void
depends_add(struct svc *s, const struct ynode *at, const char *dep,
    const char *cond)
{
	const struct ynode	*svcs;
	char			 wl[ORCHD_NAME_MAX];

	svcs = yt_get(s->c->root, "services");
	if (yt_get(svcs, dep) == NULL || cm_svc_name(s->c, dep, wl,
	    sizeof(wl)) == -1) {
		cm_err(s->c, at, s->name, "depends_on", ": \"%.64s\" is no "
		    "service of this file", dep);
		return;
	}
	if (cond != NULL && strcmp(cond, "service_started") != 0 &&
	    strcmp(cond, "service_healthy") != 0 &&
	    strcmp(cond, "service_completed_successfully") != 0) {
		cm_err(s->c, at, s->name, "depends_on", ".%.64s.condition: "
		    "\"%.64s\" is not one of service_started, service_healthy "
		    "and service_completed_successfully", dep, cond);
		return;
	}
	if (cond != NULL && strcmp(cond, "service_completed_successfully") ==
	    0) {
		if (wl_field_json("run_once") == NULL)
			cm_note(s->c, "%s-%s: depends on %s completed "
			    "successfully: this orchd has no \"run once\", "
			    "%s is a dependency that stays up", s->c->project,
			    s->name, wl, wl);
		else
			json_array_append_new(svc_array(s, "@run_once"),
			    json_string(wl));
	}
	json_array_append_new(svc_array(s, "depends_on"), json_string(wl));
}

static void
map_depends_on(struct svc *s, const struct ynode *n)
{
	const struct ynode	*cond, *opt;
	const char		*c;
	size_t			 i, k;

	if (n->type == YT_SEQ) {
		for (i = 0; i < n->nkids; i++)
			if (cm_str(s->c, n->kids[i], s->name, "depends_on") !=
			    NULL)
				depends_add(s, n->kids[i], n->kids[i]->str,
				    NULL);
		return;
	}
	if (n->type != YT_MAP) {
		cm_err(s->c, n, s->name, "depends_on", ": a list or a "
		    "mapping of services");
		return;
	}
	for (i = 0; i + 1 < n->nkids; i += 2) {
		opt = n->kids[i + 1];
		c = NULL;
		if (opt->type == YT_MAP) {
			for (k = 0; k + 1 < opt->nkids; k += 2)
				if (strcmp(opt->kids[k]->str, "condition") &&
				    strcmp(opt->kids[k]->str, "restart") &&
				    strcmp(opt->kids[k]->str, "required"))
					cm_err(s->c, opt->kids[k], s->name,
					    "depends_on", ".%.64s.%.64s: not "
					    "mapped", n->kids[i]->str,
					    opt->kids[k]->str);
			if ((cond = yt_get(opt, "condition")) != NULL)
				c = cm_str(s->c, cond, s->name,
				    "depends_on.condition");
		} else if (!yt_null(opt)) {
			cm_err(s->c, opt, s->name, "depends_on", ".%.64s: a "
			    "mapping with condition", n->kids[i]->str);
			continue;
		}
		depends_add(s, n->kids[i], n->kids[i]->str, c);
	}
}

/*
 * healthcheck: orchd checks a port or an HTTP path, never a command in
 * the container.  A test that fetches http://localhost[:PORT]/PATH is
 * that path; any other is a TCP check of the port.
 */
static void
health_test(struct svc *s, const struct ynode *n)
{
	const char	*t = NULL, *p, *h;
	char		 path[256];
	size_t		 i, len;

	if (n->type == YT_SCALAR)
		t = n->str;
	else if (n->type == YT_SEQ) {
		if (n->nkids > 0 && n->kids[0]->type == YT_SCALAR &&
		    strcmp(n->kids[0]->str, "NONE") == 0) {
			svc_set(s, "health_interval", json_integer(0));
			return;
		}
		for (i = 0; i < n->nkids && t == NULL; i++)
			if (n->kids[i]->type == YT_SCALAR &&
			    strstr(n->kids[i]->str, "http://") != NULL)
				t = n->kids[i]->str;
	}
	if (t == NULL || (h = strstr(t, "http://")) == NULL) {
		svc_set(s, "health", json_string("tcp"));
		return;
	}
	h += strlen("http://");
	if ((p = strchr(h, '/')) == NULL)
		p = "/";
	len = strcspn(p, " \t'\"");
	if (len >= sizeof(path))
		len = sizeof(path) - 1;
	memcpy(path, p, len);
	path[len] = '\0';
	svc_set(s, "health", json_string("path"));
	svc_set(s, "health_path", json_string(path));
}

static void
map_healthcheck(struct svc *s, const struct ynode *n)
{
	const struct ynode	*v;
	const char		*k, *r;
	const char		*errstr;
	long long		 secs, retries;
	size_t			 i;

	if (n->type != YT_MAP) {
		cm_err(s->c, n, s->name, "healthcheck", ": must be a "
		    "mapping");
		return;
	}
	for (i = 0; i + 1 < n->nkids; i += 2) {
		k = n->kids[i]->str;
		v = n->kids[i + 1];
		if (strcmp(k, "test") == 0)
			health_test(s, v);
		else if (strcmp(k, "interval") == 0) {
			if (cm_duration(s->c, v, s->name,
			    "healthcheck.interval", &secs) == 0)
				svc_set(s, "health_interval",
				    json_integer(secs));
		} else if (strcmp(k, "timeout") == 0) {
			if (cm_duration(s->c, v, s->name,
			    "healthcheck.timeout", &secs) == 0)
				svc_set(s, "health_timeout",
				    json_integer(secs > 0 ? secs : 1));
		} else if (strcmp(k, "retries") == 0) {
			if ((r = cm_str(s->c, v, s->name,
			    "healthcheck.retries")) == NULL)
				continue;
			retries = strtonum(r, 1, WL_HEALTH_FAILURES_MAX,
			    &errstr);
			if (errstr != NULL)
				cm_err(s->c, v, s->name, "healthcheck",
				    ".retries: \"%.32s\" is %s (1 to %d)", r,
				    errstr, WL_HEALTH_FAILURES_MAX);
			else
				svc_set(s, "health_failures",
				    json_integer(retries));
		} else if (strcmp(k, "disable") == 0) {
			if (v->type == YT_SCALAR && strcmp(v->str, "true") ==
			    0)
				svc_set(s, "health_interval", json_integer(0));
		} else if (strcmp(k, "start_period") != 0 &&
		    strcmp(k, "start_interval") != 0)
			cm_err(s->c, n->kids[i], s->name, "healthcheck",
			    ".%.64s: not mapped", k);
	}
}

/* a port number, 1 to 65535 */
static int
port_num(struct svc *s, const struct ynode *at, const char *key,
    const char *v, size_t len)
{
	char		 buf[8];
	const char	*errstr;
	int		 p;

	if (len == 0 || len >= sizeof(buf)) {
		cm_err(s->c, at, s->name, key, ": \"%.32s\" is not a port",
		    v);
		return (-1);
	}
	memcpy(buf, v, len);
	buf[len] = '\0';
	p = strtonum(buf, 1, 65535, &errstr);
	if (errstr != NULL) {
		cm_err(s->c, at, s->name, key, ": \"%.32s\" is not a port "
		    "(1 to 65535)", buf);
		return (-1);
	}
	return (p);
}

/*
 * ports: "[IP:]PUBLISHED:TARGET[/tcp]" or "TARGET", or the long form.
 * The first gives the container's port and the published one.
 */
static void
map_ports(struct svc *s, const struct ynode *n)
{
	const struct ynode	*e;
	const char		*v, *colon, *slash;
	int			 target, pub = 0;
	size_t			 i;

	if (n->type != YT_SEQ) {
		cm_err(s->c, n, s->name, "ports", ": must be a list");
		return;
	}
	for (i = 0; i < n->nkids; i++) {
		e = n->kids[i];
		if (e->type == YT_MAP) {
			if ((v = cm_str(s->c, yt_get(e, "target"), s->name,
			    "ports.target")) == NULL ||
			    (target = port_num(s, e, "ports", v,
			    strlen(v))) == -1)
				continue;
			if (yt_get(e, "published") != NULL &&
			    (v = cm_str(s->c, yt_get(e, "published"),
			    s->name, "ports.published")) != NULL)
				pub = port_num(s, e, "ports", v, strlen(v));
		} else {
			if ((v = cm_str(s->c, e, s->name, "ports")) == NULL)
				continue;
			if ((slash = strchr(v, '/')) != NULL &&
			    strcmp(slash, "/tcp") != 0) {
				cm_err(s->c, e, s->name, "ports", ": "
				    "\"%.32s\": only TCP is mapped", v);
				continue;
			}
			colon = strrchr(v, ':');
			target = port_num(s, e, "ports", colon != NULL ?
			    colon + 1 : v, slash != NULL ? (size_t)(slash -
			    (colon != NULL ? colon + 1 : v)) :
			    strlen(colon != NULL ? colon + 1 : v));
			if (colon != NULL) {
				const char *b = colon;

				while (b > v && b[-1] != ':')
					b--;
				pub = port_num(s, e, "ports", b, colon - b);
			}
		}
		if (target <= 0 || pub < 0)
			continue;
		if (s->port == 0) {
			s->port = target;
			s->tcp_port = pub;
		}
	}
}

static void
map_expose(struct svc *s, const struct ynode *n)
{
	const char	*v;
	int		 p;

	if (n->type != YT_SEQ || n->nkids == 0) {
		cm_err(s->c, n, s->name, "expose", ": must be a list of "
		    "ports");
		return;
	}
	if ((v = cm_str(s->c, n->kids[0], s->name, "expose")) != NULL &&
	    (p = port_num(s, n->kids[0], "expose", v, strcspn(v, "/"))) > 0 &&
	    s->port == 0)
		s->port = p;
}

/* org.orchd.LABEL: its value, others are Docker's and ignored */
static void
label_orchd(struct svc *s, const struct ynode *at, const char *k,
    const char *v)
{
	const char	*errstr;
	int		 p;

	if (strcmp(k, "org.orchd.host") == 0)
		json_array_append_new(svc_array(s, "hosts"), json_string(v));
	else if (strcmp(k, "org.orchd.port") == 0) {
		p = strtonum(v, 1, 65535, &errstr);
		if (errstr != NULL)
			cm_err(s->c, at, s->name, "labels", ".%s: \"%.32s\" is "
			    "not a port", k, v);
		else
			s->port = p;
	} else if (strcmp(k, "org.orchd.idle-timeout") == 0)
		svc_set(s, "idle_timeout", json_string(v));
	else if (strcmp(k, "org.orchd.path") == 0) {
		if (wl_field_json("path") == NULL)
			cm_err(s->c, at, s->name, "labels", ".%s: this orchd "
			    "has no path routing", k);
		/* "/": the rest of its host, which a workload without a
		   path takes */
		else if (strcmp(v, "/") != 0)
			svc_set(s, "path", json_string(v));
	} else if (strcmp(k, "org.orchd.group-wake") == 0) {
		/* a request to it wakes the whole project, or not */
		if (wl_word_value(wl_group_wakes, v, &p) == -1)
			cm_err(s->c, at, s->name, "labels", ".%s: \"%.32s\": "
			    "together or dependencies", k, v);
		else
			svc_set(s, "group_wake", json_string(v));
	} else
		cm_err(s->c, at, s->name, "labels", ".%.64s: not one of "
		    "org.orchd.host, org.orchd.port, org.orchd.idle-timeout, "
		    "org.orchd.path and org.orchd.group-wake", k);
}

static void
map_labels(struct svc *s, const struct ynode *n)
{
	const char	*v;
	char		*k, *eq;
	size_t		 i;

	if (n->type == YT_MAP) {
		for (i = 0; i + 1 < n->nkids; i += 2)
			if (strncmp(n->kids[i]->str, "org.orchd.", 10) == 0 &&
			    (v = cm_str(s->c, n->kids[i + 1], s->name,
			    "labels")) != NULL)
				label_orchd(s, n->kids[i], n->kids[i]->str, v);
		return;
	}
	if (n->type != YT_SEQ) {
		cm_err(s->c, n, s->name, "labels", ": a mapping or a list of "
		    "NAME=value");
		return;
	}
	for (i = 0; i < n->nkids; i++) {
		if ((v = cm_str(s->c, n->kids[i], s->name, "labels")) ==
		    NULL || strncmp(v, "org.orchd.", 10) != 0 ||
		    (k = strdup(v)) == NULL)
			continue;
		if ((eq = strchr(k, '=')) == NULL)
			cm_err(s->c, n->kids[i], s->name, "labels", ": "
			    "\"%.64s\": must be NAME=value", v);
		else {
			*eq = '\0';
			label_orchd(s, n->kids[i], k, eq + 1);
		}
		free(k);
	}
}

static void
map_user(struct svc *s, const struct ynode *n)
{
	const char	*v;

	if ((v = cm_str(s->c, n, s->name, "user")) != NULL)
		svc_set(s, "user", json_string(v));
}

static void
map_working_dir(struct svc *s, const struct ynode *n)
{
	const char	*v;

	if ((v = cm_str(s->c, n, s->name, "working_dir")) != NULL)
		svc_set(s, "directory", json_string(v));
}

static void
map_stop_signal(struct svc *s, const struct ynode *n)
{
	const char	*v;

	if ((v = cm_str(s->c, n, s->name, "stop_signal")) != NULL)
		svc_set(s, "stop_signal", json_string(v));
}

static void
map_stop_grace(struct svc *s, const struct ynode *n)
{
	long long	 secs;

	if (cm_duration(s->c, n, s->name, "stop_grace_period", &secs) == 0)
		svc_set(s, "stop_timeout", json_integer(secs));
}

/* Compose's sizes: bytes, or with b, k, m, g (and kb, mb, ...) */
static void
map_memory(struct svc *s, const struct ynode *n)
{
	const char	*v;
	char		*end;
	long long	 num, mul = 1;

	if ((v = cm_str(s->c, n, s->name, "mem_limit")) == NULL)
		return;
	errno = 0;
	num = strtoll(v, &end, 10);
	switch (tolower((unsigned char)*end)) {
	case 'g':
		mul *= 1024;
		/* FALLTHROUGH */
	case 'm':
		mul *= 1024;
		/* FALLTHROUGH */
	case 'k':
		mul *= 1024;
		end++;
		break;
	case 'b':
		end++;
		break;
	}
	if (tolower((unsigned char)*end) == 'b' && mul > 1)
		end++;
	if (end == v || *end != '\0' || errno != 0 || num <= 0 ||
	    num > (1LL << 50) / mul) {
		cm_err(s->c, n, s->name, "mem_limit", ": \"%.32s\" is not a "
		    "size (such as 512m)", v);
		return;
	}
	svc_set(s, "memory", json_integer(num * mul));
}

/* deploy: resources.limits.memory alone */
static void
map_deploy(struct svc *s, const struct ynode *n)
{
	const struct ynode	*r, *l;
	size_t			 i;

	r = yt_get(n, "resources");
	l = yt_get(r, "limits");
	if (n->type != YT_MAP || n->nkids != 2 || r == NULL ||
	    r->type != YT_MAP || r->nkids != 2 || l == NULL ||
	    l->type != YT_MAP) {
		cm_err(s->c, n, s->name, "deploy", ": only "
		    "resources.limits.memory is mapped");
		return;
	}
	for (i = 0; i + 1 < l->nkids; i += 2) {
		if (strcmp(l->kids[i]->str, "memory") == 0)
			map_memory(s, l->kids[i + 1]);
		else
			cm_err(s->c, l->kids[i], s->name, "deploy",
			    ".resources.limits.%.32s: not mapped (memory is)",
			    l->kids[i]->str);
	}
}

/* a database-like image: its port is a TCP listener, never a host */
static int
svc_tcp(const struct svc *s)
{
	static const char	*dbs[] = { "postgres", "mysql", "mariadb",
	    "redis", "valkey", "mongo", "memcached", "rabbitmq" };
	const char		*img;
	size_t			 i;

	img = json_string_value(json_object_get(s->def, "image"));
	for (i = 0; img != NULL && i < nitems(dbs); i++)
		if (strstr(img, dbs[i]) != NULL)
			return (1);
	return (0);
}

/* does another service wait for this one to complete successfully? */
static int
svc_job(const struct svc *s)
{
	const struct ynode	*svcs, *d, *o;
	size_t			 i;

	svcs = yt_get(s->c->root, "services");
	for (i = 0; svcs != NULL && i + 1 < svcs->nkids; i += 2) {
		d = yt_get(svcs->kids[i + 1], "depends_on");
		if ((o = yt_get(yt_get(d, s->name), "condition")) != NULL &&
		    o->type == YT_SCALAR &&
		    strcmp(o->str, "service_completed_successfully") == 0)
			return (1);
	}
	return (0);
}

/* a port of 127.0.0.1 that nothing has bound now, or 0 */
static int
free_port(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 fd, port = 0;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return (port);
}

/*
 * A database's TCP listener, where the file maps its port ("5432:5432"
 * is 127.0.0.1:5432): a connection there wakes it.  Its container is
 * then reached on its own port, published on the host where that is
 * not the listener's; where it is, on a port of the host that is free
 * now.  On the host's network the service's port is the host's own:
 * a listener on it cannot be, only on another mapped port.
 */
static void
svc_listen(struct svc *s)
{
	const char	*net;
	char		 listen[32];
	int		 host, pub;

	net = json_string_value(json_object_get(s->def, "network"));
	host = net != NULL && strcmp(net, "host") == 0;
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", s->tcp_port);
	if (s->tcp_port == s->port && host) {
		json_array_append_new(svc_array(s, "@listen"),
		    json_string(listen));
		return;
	}
	if (s->tcp_port == s->port) {
		if ((pub = free_port()) == 0) {
			cm_err(s->c, s->node, s->name, "ports", ": no free "
			    "port of the host to publish it on, its own "
			    "being its TCP listener's");
			return;
		}
		svc_set(s, "publish", json_integer(pub));
		cm_note(s->c, "%s-%s: its TCP listener is %s; its container "
		    "is published on port %d, free now", s->c->project,
		    s->name, listen, pub);
	}
	json_array_append_new(svc_array(s, "listen"), json_string(listen));
}

/*
 * hosts, port, listener: what the keys together say.  A service with no
 * host of its own and no listener (a database whose port the file does
 * not map) gets an internal one that the gateway
 * refuses to everyone ("deny all"): orchd needs a host or a listener to
 * route by, and it is woken as a dependency.  A job (run once) needs
 * neither: what waits for it wakes it.
 */
static void
svc_finish(struct svc *s)
{
	char	 host[ORCHD_HOST_MAX];

	if (json_object_get(s->def, "image") == NULL)
		cm_err(s->c, s->node, s->name, "image", ": none: orchd runs "
		    "images");
	/* a one-shot job may listen on nothing: run_once's rules say */
	if (s->port == 0 && (!svc_job(s) || wl_field_json("run_once") ==
	    NULL)) {
		cm_err(s->c, s->node, s->name, "ports", ": none: orchd needs "
		    "the port the service listens on (ports, expose or the "
		    "label org.orchd.port)");
		return;
	}
	if (s->port != 0)
		svc_set(s, "port", json_integer(s->port));
	/* a database's mapped port is its TCP listener's (svc_listen) */
	if (s->tcp_port > 0 && s->tcp_port != s->port && !svc_tcp(s))
		svc_set(s, "publish", json_integer(s->tcp_port));
	if (s->c->opts->suffix != NULL && !svc_tcp(s) && !svc_job(s) &&
	    json_object_get(s->def, "hosts") == NULL) {
		if (snprintf(host, sizeof(host), "%s.%s", s->name,
		    s->c->opts->suffix) >= (int)sizeof(host))
			cm_err(s->c, s->node, s->name, NULL, ": its host "
			    "%s.%s is too long", s->name, s->c->opts->suffix);
		else
			json_array_append_new(svc_array(s, "hosts"),
			    json_string(host));
	}
	/* a database's TCP listener, where the file maps its port */
	if (svc_tcp(s) && s->tcp_port > 0)
		svc_listen(s);
	/* a job is woken by what waits for it, and serves no host; a
	   listener is reached by its own port */
	if (json_object_get(s->def, "hosts") == NULL &&
	    json_object_get(s->def, "listen") == NULL &&
	    !(svc_job(s) && wl_field_json("run_once") != NULL)) {
		if (snprintf(host, sizeof(host), "%s.%s.internal", s->name,
		    s->c->project) >= (int)sizeof(host))
			cm_err(s->c, s->node, s->name, NULL, ": its host "
			    "%s.%s.internal is too long", s->name,
			    s->c->project);
		json_array_append_new(svc_array(s, "hosts"),
		    json_string(host));
		json_array_append_new(svc_array(s, "access"),
		    json_string("deny all"));
	}
}

json_t *
compose_service(struct compose *c, const char *name, const struct ynode *n)
{
	struct svc	 s;
	const char	*k;
	size_t		 i, t;
	int		 errs = c->nerrs;
	char		 wl[ORCHD_NAME_MAX];

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.name = name;
	s.node = n;
	if (n->type != YT_MAP) {
		cm_err(c, n, name, NULL, ": must be a mapping");
		return (NULL);
	}
	if (cm_svc_name(c, name, wl, sizeof(wl)) == -1 ||
	    (s.def = json_pack("{s:s, s:s, s:s}", "name", wl, "driver",
	    "docker", "group", c->project)) == NULL)
		return (NULL);
	for (i = 0; i + 1 < n->nkids; i += 2) {
		k = n->kids[i]->str;
		if (strncmp(k, "x-", 2) == 0)
			continue;
		for (t = 0; t < nitems(svc_keys); t++)
			if (strcmp(k, svc_keys[t].key) == 0)
				break;
		if (t == nitems(svc_keys))
			cm_err(c, n->kids[i], name, k, ": not mapped: orchd "
			    "does not know this key");
		else if (svc_keys[t].refused != NULL)
			cm_err(c, n->kids[i], name, k, ": not mapped: %s",
			    svc_keys[t].refused);
		else
			svc_keys[t].map(&s, n->kids[i + 1]);
	}
	svc_finish(&s);
	if (c->nerrs != errs) {
		json_decref(s.def);
		return (NULL);
	}
	return (s.def);
}
