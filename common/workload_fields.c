/*
 * The table of a workload's fields: one row per field of struct
 * workload_conf, with its names in orchd.conf and in JSON, its type and
 * bounds, who may set it, whether a change needs a restart, where orchd
 * -nv and orchctl show it, and the rule of its own, if any, that its
 * type does not say.  workload.c checks and compares a definition by it,
 * workload_json.c reads and writes it, workload_pack.c copies it, and
 * orchd/printconf.c and orchctl/output.c print it.  The rules between
 * fields (a docker workload needs an image, ...) are workload.c's.
 *
 * The order of the rows is the order of the members of the JSON form.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "errpage.h"
#include "gate.h"
#include "schedule.h"
#include "wlimits.h"
#include "units.h"
#include "workload.h"
#include "workload_fields.h"

#define WL_CONSTRAINT_MAX	256	/* a placement constraint's bytes */
#define WL_DESCRIPTION_MAX	256	/* a description's bytes */

/* a string in an error: itself if it is text and short, else "?" */
static const char *
shown(const char *s, size_t max)
{
	return (valid_text(s) && strlen(s) < max ? s : "?");
}

/*
 * suspend freeze: a swarm service's tasks run on other nodes, where
 * runtimed cannot pause them; it is stopped as ever, and asked for
 * itself the freeze is refused rather than silently not done
 */
static int
check_freeze(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->freeze > 0 && wl->driver == DRIVER_SWARM)
		return (wl_fail(errbuf, len, "suspend freeze: not for driver "
		    "swarm (its tasks are stopped)"));
	return (0);
}

/* hosts: each a name or a pattern, none twice in any case */
static int
check_hosts(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;

	TAILQ_FOREACH(e, &wl->hosts, entry) {
		if (!valid_host_pattern(e->str))
			return (wl_fail(errbuf, len, "invalid host \"%s\"",
			    valid_text(e->str) ? e->str : "?"));
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (strcasecmp(e->str, o->str) == 0)
				return (wl_fail(errbuf, len, "host \"%s\" "
				    "listed twice", e->str));
	}
	return (0);
}

/* env: NAME=value, NAME a shell variable's */
static int
check_env(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e;
	const char		*p;

	TAILQ_FOREACH(e, &wl->env, entry) {
		if (!valid_text(e->str))
			return (wl_fail(errbuf, len, "env: invalid character "
			    "(control character or invalid UTF-8)"));
		p = e->str;
		if (isalpha((unsigned char)*p) || *p == '_')
			for (p++; isalnum((unsigned char)*p) || *p == '_';
			    p++)
				;
		if (p == e->str || *p != '=')
			return (wl_fail(errbuf, len, "env \"%s\": must be "
			    "NAME=value, NAME of letters, digits and '_', not "
			    "starting with a digit", e->str));
	}
	return (0);
}

/*
 * "depends on": names of workloads, each once, not its own.  Whether
 * they are workloads, and without a cycle, is for the whole set to say
 * (common/deps.c).
 */
static int
check_depends(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;
	int			 n = 0;

	TAILQ_FOREACH(e, &wl->depends, entry) {
		if (!valid_workload_name(e->str) || !valid_text(e->str))
			return (wl_fail(errbuf, len, "depends on \"%s\": not a "
			    "workload name", shown(e->str, ORCHD_NAME_MAX)));
		if (strcmp(e->str, wl->name) == 0)
			return (wl_fail(errbuf, len, "depends on itself"));
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (strcmp(e->str, o->str) == 0)
				return (wl_fail(errbuf, len, "depends on "
				    "\"%s\" twice", e->str));
		if (++n > ORCHD_DEPS_MAX)
			return (wl_fail(errbuf, len, "depends on more than %d "
			    "workloads", ORCHD_DEPS_MAX));
	}
	return (0);
}

/*
 * driver swarm: its placement constraints are Swarm's own expressions
 * ("node.labels.pool==previews"), passed on as they are, so only their
 * shape is checked here.
 */
static int
check_constraints(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, &wl->constraints, entry)
		if (!valid_text(e->str) ||
		    strlen(e->str) > WL_CONSTRAINT_MAX ||
		    strpbrk(e->str, "\"' \t") != NULL ||
		    (strstr(e->str, "==") == NULL &&
		    strstr(e->str, "!=") == NULL))
			return (wl_fail(errbuf, len, "constraint \"%s\": must "
			    "be NAME==value or NAME!=value, without spaces or "
			    "quotes", valid_text(e->str) ? e->str : "?"));
	return (0);
}

/* its TCP listeners: each "ADDRESS:PORT", none twice, a few at most */
static int
check_listens(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;
	char			 addr[INET6_ADDRSTRLEN + 2];
	int			 n = 0, port;

	TAILQ_FOREACH(e, &wl->listens, entry) {
		if (++n > ORCHD_LISTEN_MAX)
			return (wl_fail(errbuf, len, "more than %d listen on",
			    ORCHD_LISTEN_MAX));
		if (listen_split(e->str, addr, sizeof(addr), &port) == -1)
			return (wl_fail(errbuf, len, "listen \"%s\": must be "
			    "ADDRESS:PORT, ADDRESS a numeric IPv4 address, an "
			    "IPv6 one in brackets, localhost or *",
			    valid_text(e->str) ? e->str : "?"));
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (strcmp(e->str, o->str) == 0)
				return (wl_fail(errbuf, len, "listen \"%s\" "
				    "listed twice", e->str));
	}
	return (0);
}

/* a user name or, for docker, "user:group" or numeric ids */
static int
check_user(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const char	*s = wl->user;

	if (s == NULL)
		return (0);
	if (strlen(s) >= ORCHD_USER_MAX)
		goto bad;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' &&
		    *s != '-' && !(wl->driver != DRIVER_PROCESS && *s == ':'))
			goto bad;
	return (0);
 bad:
	return (wl_fail(errbuf, len, "invalid user \"%s\"", wl->user));
}

static int
check_directory(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->directory != NULL && wl->directory[0] != '/')
		return (wl_fail(errbuf, len, "directory \"%s\" must be an "
		    "absolute path", wl->directory));
	return (0);
}

/* the upstream address: numeric, orchd resolves no names */
static int
check_address(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	struct in_addr	 in4;
	struct in6_addr	 in6;

	if (wl->address == NULL)
		return (wl_fail(errbuf, len, "an address is required"));
	if (inet_pton(AF_INET, wl->address, &in4) != 1 &&
	    inet_pton(AF_INET6, wl->address, &in6) != 1)
		return (wl_fail(errbuf, len, "address \"%s\": must be a "
		    "numeric IPv4 or IPv6 address", wl->address));
	return (0);
}

/*
 * "socket activation": the parent binds the port and passes it as fd 3
 * (orchd/sockact.c).  A process's alone: Docker has no way to hand a
 * listening socket to a container, its process is started by the
 * engine, in another network namespace, and sees none of orchd's
 * descriptors.  The variables of the protocol are orchd's to set.
 */
static int
check_sockact(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e;

	if (!wl->socket_activation)
		return (0);
	if (wl->driver != DRIVER_PROCESS)
		return (wl_fail(errbuf, len, "socket activation: process "
		    "workloads only: Docker cannot pass a listening socket "
		    "into a container"));
	TAILQ_FOREACH(e, &wl->env, entry)
		if (strncmp(e->str, "LISTEN_", 7) == 0)
			return (wl_fail(errbuf, len, "env \"%.32s\": with "
			    "socket activation the LISTEN_ variables are "
			    "orchd's", e->str));
	return (0);
}

/* the parent stamps what it reads: a container's log is Docker's */
static int
check_logstamps(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->log_timestamps && wl->driver != DRIVER_PROCESS)
		return (wl_fail(errbuf, len, "log timestamps: process "
		    "workloads only: Docker keeps a container's log (docker "
		    "logs --timestamps)"));
	return (0);
}

/* a line of prose for people: its length is all there is to bound */
/* group: a name as a workload's, so that orchctl can name it */
static int
check_group(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->group != NULL && (!valid_workload_name(wl->group) ||
	    !valid_text(wl->group)))
		return (wl_fail(errbuf, len, "group \"%s\": must be a name "
		    "as a workload's", shown(wl->group, ORCHD_NAME_MAX)));
	return (0);
}

static int
check_description(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->description != NULL &&
	    strlen(wl->description) > WL_DESCRIPTION_MAX)
		return (wl_fail(errbuf, len, "description: at most %d bytes",
		    WL_DESCRIPTION_MAX));
	return (0);
}

/* "group wake together" says what a request wakes: it needs a group */
static int
check_group_wake(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->group_wake == GROUP_WAKE_TOGETHER && wl->group == NULL)
		return (wl_fail(errbuf, len, "group wake together: the "
		    "workload has no group"));
	return (0);
}

/*
 * "run once": a job runs to completion and serves nothing, so it has no
 * host, no listener of its own, and is not kept warm (it would be run
 * again and again); "run timeout" is a job's alone.
 */
static int
check_run_once(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->run_once == RUN_SERVICE)
		return (wl->run_timeout != -1 ? wl_fail(errbuf, len,
		    "run timeout: for a job (run once) only") : 0);
	if (!TAILQ_EMPTY(&wl->hosts))
		return (wl_fail(errbuf, len, "run once: a job serves no "
		    "host (give it to what depends on the job)"));
	if (!TAILQ_EMPTY(&wl->listens) || wl->socket_activation)
		return (wl_fail(errbuf, len, "run once: a job has no "
		    "listener"));
	if (wl->keep_warm)
		return (wl_fail(errbuf, len, "run once: a job is not kept "
		    "warm"));
	if (wl->driver == DRIVER_SWARM)
		return (wl_fail(errbuf, len, "run once: not for driver "
		    "swarm"));
	return (0);
}

/*
 * "path": a prefix of the request's path, matched by whole segments:
 * "/api/" or "/api" takes /api and /api/..., never /apiary.  Only plain
 * segments: no "." or "..", no empty one, nothing encoded, so that the
 * prefix means the same before and after any normalisation.
 */
static int
check_path(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const char	*p = wl->path, *seg;
	size_t		 n;

	if (p == NULL)
		return (wl->path_strip ? wl_fail(errbuf, len, "strip prefix: "
		    "without a path") : 0);
	if (strlen(p) >= ORCHD_PATH_MAX || p[0] != '/' ||
	    strcmp(p, "/") == 0)
		goto bad;
	for (seg = p + 1; *seg != '\0'; seg += n + (seg[n] == '/')) {
		n = strspn(seg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
		    "tuvwxyz0123456789-._~");
		if (seg[n] != '/' && seg[n] != '\0')
			goto bad;
		if (n == 0 || (n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			goto bad;
	}
	return (0);
 bad:
	return (wl_fail(errbuf, len, "path \"%s\": must be a prefix such "
	    "as \"/api/\": '/' then segments of letters, digits and -._~, "
	    "no \".\" or \"..\", at most %d bytes", shown(p, ORCHD_PATH_MAX),
	    ORCHD_PATH_MAX - 1));
}

/*
 * "keep warm during" and "wake at" (common/sched.c): each parses, none
 * twice, at most SCHED_MAX.  They only wake a workload or keep it up,
 * as a request would, so the API may set them; whether a zone they name
 * exists is for the parent to say (sched_zones_check), as only it and
 * confd may read the tzdata.
 */
static int
check_sched(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;
	struct sched_spec	 sp;
	enum sched_kind		 kind;
	char			 err[256];
	int			 n = 0;

	kind = f->off == offsetof(struct workload_conf, warm_windows) ||
	    f->off == offsetof(struct workload_conf, group_windows) ?
	    SCHED_WINDOW : SCHED_WAKE;
	TAILQ_FOREACH(e, (const struct strlist *)WF_CPTR(wl, f), entry) {
		if (++n > SCHED_MAX)
			return (wl_fail(errbuf, len, "%s: at most %d",
			    wl_field_label(f), SCHED_MAX));
		if (sched_parse(kind, e->str, &sp, err, sizeof(err)) == -1)
			return (wl_fail(errbuf, len, "%s \"%s\": %s",
			    wl_field_label(f), shown(e->str, SCHED_TEXT_MAX),
			    err));
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (strcmp(e->str, o->str) == 0)
				return (wl_fail(errbuf, len, "%s \"%s\" given "
				    "twice", wl_field_label(f), e->str));
	}
	if (kind == SCHED_WINDOW && n > 0 && wl->run_once != RUN_SERVICE)
		return (wl_fail(errbuf, len, "keep warm during: a job (run "
		    "once) is not kept warm; wake at runs it"));
	return (0);
}

/* the parent's "ZONE RULE" lines: a zone's name ("-": the host's) */
static int
check_zones(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e;
	struct sched_tz		 tz;
	const char		*sp;
	char			 zone[SCHED_ZONE_MAX];
	int			 n = 0;

	TAILQ_FOREACH(e, &wl->zones, entry) {
		if (++n > 4 * SCHED_MAX + 1 ||
		    (sp = strchr(e->str, ' ')) == NULL ||
		    (size_t)(sp - e->str) >= sizeof(zone))
			goto bad;
		memcpy(zone, e->str, sp - e->str);
		zone[sp - e->str] = '\0';
		if ((strcmp(zone, "-") != 0 && !sched_zone_valid(zone)) ||
		    sched_tz_parse(sp + 1, &tz) == -1)
			goto bad;
	}
	return (0);
 bad:
	return (wl_fail(errbuf, len, "zones: not ZONE RULE lines"));
}

#define OFF(m)		.off = offsetof(struct workload_conf, m)

const struct wl_field wl_fields[] = {
	{ .json = "name", .type = WF_NAME, OFF(name),
	    .flags = WF_API | WF_ALWAYS | WF_REQUIRED },
	{ .json = "driver", .conf = "driver", .type = WF_WORD, OFF(driver),
	    .words = wl_drivers, .allow = "process",
	    .flags = WF_API | WF_DRIFT | WF_ALWAYS, .nv = 1 },
	/* the store's to say; what the API says of it is not taken */
	{ .json = "source", .type = WF_WORD, OFF(source),
	    .words = wl_sources, .flags = WF_API | WF_ALWAYS },
	{ .json = "hosts", .conf = "host", .type = WF_STRLIST, OFF(hosts),
	    .flags = WF_API | WF_ALWAYS, .nv = 4, .check = check_hosts },
	{ .json = "command", .conf = "command", .type = WF_STRING,
	    OFF(command), .flags = WF_API | WF_DRIFT, .nv = 7,
	    .show = "command:" },
	{ .json = "image", .conf = "image", .type = WF_STRING, OFF(image),
	    .allow = "image", .flags = WF_API | WF_DRIFT | WF_DOCKER, .nv = 6,
	    .show = "image:" },
	/* orchd.conf's: the parent's policy refuses it */
	{ .json = "runtime", .conf = "runtime", .type = WF_STRING,
	    OFF(runtime), .flags = WF_DRIFT | WF_DOCKER, .nv = 8,
	    .show = "runtime:" },
	{ .json = "network", .conf = "network", .type = WF_NETWORK,
	    OFF(network), .dflt = NETWORK_BRIDGE, .allow = "network",
	    .flags = WF_API | WF_DRIFT | WF_DOCKER | WF_ALWAYS, .nv = 9,
	    .show = "network:" },
	{ .json = "env", .conf = "env", .type = WF_STRLIST, OFF(env),
	    .flags = WF_API | WF_DRIFT | WF_ALWAYS, .nv = 10,
	    .show = "env:", .check = check_env },
	{ .json = "depends_on", .conf = "depends on", .type = WF_STRLIST,
	    OFF(depends), .flags = WF_API, .nv = 5, .show = "depends on:",
	    .check = check_depends },
	{ .json = "volumes", .conf = "volume", .type = WF_VOLUMES,
	    OFF(volumes), .allow = "volume",
	    .flags = WF_API | WF_DRIFT | WF_DOCKER | WF_ALWAYS, .nv = 11,
	    .show = "volumes:" },
	/* orchd.conf's: the parent's policy refuses it */
	{ .json = "user", .conf = "user", .type = WF_STRING, OFF(user),
	    .flags = WF_DRIFT, .nv = 12, .show = "user:",
	    .check = check_user },
	{ .json = "directory", .conf = "directory", .type = WF_STRING,
	    OFF(directory), .flags = WF_API | WF_DRIFT, .nv = 14,
	    .show = "directory:", .check = check_directory },
	{ .json = "address", .conf = "address", .type = WF_STRING,
	    OFF(address), .sdflt = "127.0.0.1", .allow = "address",
	    .flags = WF_API | WF_DRIFT, .nv = 15, .show = "address:",
	    .show_dflt = "127.0.0.1", .check = check_address },
	{ .json = "port", .conf = "port", .type = WF_PORT, OFF(port),
	    .min = 1, .max = 65535,
	    .flags = WF_API | WF_DRIFT | WF_ALWAYS | WF_REQUIRED, .nv = 16,
	    .show = "port:" },
	{ .json = "publish", .conf = "publish", .type = WF_PORT,
	    OFF(publish), .min = 1, .max = 65535, .allow = "publish",
	    .flags = WF_API | WF_DRIFT | WF_DOCKER, .nv = 17,
	    .show = "publish:" },
	{ .json = "health", .conf = "health", .label = "health check",
	    .type = WF_WORD, OFF(health), .words = wl_healths,
	    .flags = WF_API | WF_ALWAYS, .nv = 19, .show = "health:" },
	{ .json = "health_path", .conf = "health path", .type = WF_STRING,
	    OFF(health_path), .flags = WF_API, .nv = 20,
	    .show = "health path:" },
	{ .json = "busy_path", .conf = "busy path", .type = WF_STRING,
	    OFF(busy_path), .flags = WF_API, .nv = 21 },
	{ .json = "busy_max", .conf = "busy max", .type = WF_DURATION,
	    OFF(busy_max), .dflt = -1, .min = 1, .flags = WF_API, .nv = 22 },
	{ .json = "busy_fail", .conf = "busy fail", .type = WF_WORD,
	    OFF(busy_fail_safe), .words = wl_busy_fails, .flags = WF_API,
	    .nv = 23 },
	/* 0 turns liveness off for this workload, whatever the global says */
	{ .json = "health_interval", .conf = "health interval",
	    .type = WF_DURATION, OFF(health_interval), .dflt = -1,
	    .max = WL_HEALTH_INTERVAL_MAX, .flags = WF_API, .nv = 24 },
	{ .json = "health_timeout", .conf = "health timeout",
	    .type = WF_DURATION, OFF(health_timeout), .dflt = -1, .min = 1,
	    .max = WL_HEALTH_INTERVAL_MAX, .flags = WF_API, .nv = 25 },
	{ .json = "health_failures", .conf = "health failures",
	    .type = WF_INT, OFF(health_failures), .dflt = -1, .min = 1,
	    .max = WL_HEALTH_FAILURES_MAX, .flags = WF_API, .nv = 26 },
	{ .json = "idle_timeout", .conf = "idle timeout", .type = WF_DURATION,
	    OFF(idle_timeout), .dflt = -1, .flags = WF_API, .nv = 27 },
	/* 0: "suspend stop"; WL_FREEZE_FOREVER: "suspend freeze" alone */
	{ .json = "freeze", .conf = "suspend freeze for", .type = WF_DURATION,
	    OFF(freeze), .dflt = -1, .max = WL_FREEZE_FOREVER,
	    .flags = WF_API, .nv = 44, .show = "freeze for:",
	    .show_dflt = "global", .check = check_freeze },
	{ .json = "wake_timeout", .conf = "wake timeout", .type = WF_DURATION,
	    OFF(wake_timeout), .dflt = -1, .min = 1, .flags = WF_API,
	    .nv = 28, .show = "wake timeout:", .show_dflt = "global" },
	{ .json = "memory", .conf = "memory", .type = WF_SIZE, OFF(memory),
	    .flags = WF_API | WF_DRIFT, .nv = 29, .show = "memory:",
	    .show_dflt = "-" },
	{ .json = "keep_warm", .conf = "keep warm", .type = WF_BOOL,
	    OFF(keep_warm), .flags = WF_API | WF_ALWAYS, .nv = 30 },
	{ .json = "init", .conf = "init", .type = WF_BOOL, OFF(init),
	    .dflt = -1, .flags = WF_API | WF_DRIFT | WF_DOCKER, .nv = 38 },
	{ .json = "stop_signal", .conf = "stop signal", .type = WF_SIGNAL,
	    OFF(stop_signal), .flags = WF_API | WF_DRIFT, .nv = 36,
	    .show = "stop signal:" },
	{ .json = "stop_timeout", .conf = "stop timeout", .type = WF_DURATION,
	    OFF(stop_timeout), .dflt = -1, .max = WL_STOP_TIMEOUT_MAX,
	    .flags = WF_API | WF_DRIFT, .nv = 37, .show = "stop timeout:" },
	{ .json = "ignore", .conf = "ignore", .type = WF_IGNORES,
	    OFF(ignores), .flags = WF_API, .nv = 31 },
	{ .json = "tunnel_idle_timeout", .conf = "tunnel idle timeout",
	    .type = WF_DURATION, OFF(tunnel_idle), .dflt = -1,
	    .flags = WF_API, .nv = 32 },
	{ .json = "server_timing", .conf = "server timing", .type = WF_BOOL,
	    OFF(server_timing), .dflt = -1, .flags = WF_API, .nv = 34 },
	{ .json = "redirect_https", .conf = "redirect https",
	    .type = WF_BOOL, OFF(redirect_https), .flags = WF_API, .nv = 45 },
	{ .json = "pull", .conf = "pull", .type = WF_WORD, OFF(pull),
	    .dflt = -1, .words = wl_pulls, .flags = WF_API | WF_DOCKER,
	    .nv = 39, .show = "pull:", .show_dflt = "global" },
	{ .json = "pull_timeout", .conf = "pull timeout", .type = WF_DURATION,
	    OFF(pull_timeout), .dflt = -1, .min = 1,
	    .flags = WF_API | WF_DOCKER, .nv = 40, .show = "pull timeout:",
	    .show_dflt = "global" },
	{ .json = "replicas", .conf = "replicas", .type = WF_INT,
	    OFF(replicas), .dflt = 1, .min = 1, .max = WL_REPLICAS_MAX,
	    .flags = WF_API | WF_DRIFT | WF_SWARM, .nv = 2 },
	{ .json = "constraints", .conf = "constraint", .type = WF_STRLIST,
	    OFF(constraints), .flags = WF_API | WF_DRIFT | WF_SWARM, .nv = 3,
	    .check = check_constraints },
	/* the API's alone; 0: never, as orchctl keep sets it */
	{ .json = "expire_after", .label = "expire after",
	    .type = WF_DURATION, OFF(expire_after), .dflt = -1,
	    .flags = WF_API },
	{ .json = "upstream", .conf = "upstream", .type = WF_WORD,
	    OFF(upstream_h2c), .words = wl_upstreams,
	    .flags = WF_API | WF_LOOSE, .nv = 33 },
	{ .json = "on_change", .conf = "on change", .type = WF_WORD,
	    OFF(on_change), .dflt = -1, .words = wl_on_changes,
	    .alias = "next wake", .flags = WF_API, .nv = 35 },
	/* ["127.0.0.1:5432"]: the parent binds them (orchd/listen.c, for
	   the API's api_listen.c, under policy_api_listens) */
	{ .json = "listen", .conf = "listen on", .type = WF_STRLIST,
	    OFF(listens), .flags = WF_API, .nv = 18,
	    .check = check_listens },
	/* orchd.conf's: the parent binds the port (orchd/sockact.c) */
	{ .json = "socket_activation", .conf = "socket activation",
	    .type = WF_BOOL, OFF(socket_activation), .flags = WF_DRIFT,
	    .nv = 46, .show = "socket activation:", .check = check_sockact },
	/* a process's log lines, stamped by the parent (orchd/logfiles.c) */
	{ .json = "log_timestamps", .conf = "log timestamps",
	    .type = WF_BOOL, OFF(log_timestamps), .flags = WF_API, .nv = 47,
	    .show = "log timestamps:", .check = check_logstamps },
	/* orchd.conf's "allow root"; the API's under "api allow root" */
	{ .json = "allow_root", .conf = "allow root", .type = WF_BOOL,
	    OFF(allow_root), .flags = WF_DRIFT | WF_DOCKER, .nv = 13 },
	/*
	 * the parent's to give, in what it sends its children (never 0:
	 * that is root); the parent's policy refuses it from anyone else
	 */
	{ .json = "run_uid", .label = "run_uid", .type = WF_ID,
	    OFF(run_uid), .dflt = -1, .min = 1, .max = UINT32_MAX - 1,
	    .flags = WF_PARENT | WF_DRIFT | WF_DOCKER },
	/* for people: a line of text the API and orchctl show */
	{ .json = "description", .type = WF_STRING, OFF(description),
	    .flags = WF_API, .show = "description:",
	    .check = check_description },
	/* docker: the image's entrypoint replaced, split as command is */
	{ .json = "entrypoint", .conf = "entrypoint", .type = WF_STRING,
	    OFF(entrypoint), .flags = WF_API | WF_DRIFT | WF_DOCKER,
	    .nv = 50, .show = "entrypoint:" },
	/* a project: orchctl show groups and group handle it as one */
	{ .json = "group", .conf = "group", .type = WF_STRING, OFF(group),
	    .flags = WF_API, .nv = 49, .show = "group:",
	    .check = check_group },
	/*
	 * The gate (common/gate.c): who may reach and wake it.  "allow
	 * from" and "deny from" only narrow, so the API may set them; a
	 * password file or an auth service only among those orchd.conf
	 * lists (orchd/policy.c).
	 */
	{ .json = "access", .conf = "allow from", .label = "access",
	    .type = WF_STRLIST, OFF(access), .flags = WF_API, .nv = 41,
	    .show = "access:", .check = check_gate_access },
	{ .json = "auth_basic", .conf = "auth basic", .type = WF_STRING,
	    OFF(auth_basic), .allow = "auth basic", .flags = WF_API,
	    .nv = 42, .show = "auth basic:", .check = check_gate_basic },
	{ .json = "auth_basic_pass", .label = "auth basic pass authorization",
	    .type = WF_BOOL, OFF(auth_pass), .flags = WF_API },
	{ .json = "auth_request", .conf = "auth request", .type = WF_STRING,
	    OFF(auth_request), .allow = "auth request", .flags = WF_API,
	    .nv = 43, .show = "auth request:", .check = check_gate_request },
	{ .json = "auth_request_headers", .label = "auth request headers",
	    .type = WF_STRLIST, OFF(auth_headers), .flags = WF_API,
	    .check = check_gate_headers },
	{ .json = "auth_request_timeout", .label = "auth request timeout",
	    .type = WF_DURATION, OFF(auth_timeout), .dflt = -1, .min = 1,
	    .max = WL_AUTH_TIMEOUT_MAX, .flags = WF_API,
	    .check = check_gate_option },
	{ .json = "auth_request_cache", .label = "auth request cache",
	    .type = WF_DURATION, OFF(auth_cache), .dflt = -1, .min = 1,
	    .max = WL_AUTH_CACHE_MAX, .flags = WF_API,
	    .check = check_gate_option },
	/* orchd.conf's alone: files confd reads (common/errpage.c) */
	{ .json = "error_pages", .conf = "error page", .type = WF_STRLIST,
	    OFF(error_pages), .nv = 48, .show = "error pages:",
	    .check = check_error_pages },
	/* a job (runtimed/job.c): "run once [every wake]" */
	{ .json = "run_once", .conf = "run once", .type = WF_WORD,
	    OFF(run_once), .words = wl_run_onces, .flags = WF_API, .nv = 55,
	    .show = "run once:", .check = check_run_once },
	{ .json = "run_timeout", .conf = "run timeout", .type = WF_DURATION,
	    OFF(run_timeout), .dflt = -1, .min = 1, .flags = WF_API,
	    .nv = 56, .show = "run timeout:", .show_dflt = "wake timeout" },
	/* path routing (gatewayd/route.c): its prefix of its hosts */
	{ .json = "path", .conf = "path", .type = WF_STRING, OFF(path),
	    .flags = WF_API, .nv = 57, .show = "path:", .check = check_path },
	{ .json = "path_strip", .conf = "strip prefix", .type = WF_BOOL,
	    OFF(path_strip), .flags = WF_API, .nv = 58 },
	/* schedules (common/sched.c, runtimed/schedule.c) */
	{ .json = "keep_warm_during", .conf = "keep warm during",
	    .type = WF_STRLIST, OFF(warm_windows), .flags = WF_API, .nv = 60,
	    .show = "warm during:", .check = check_sched },
	{ .json = "wake_at", .conf = "wake at", .type = WF_STRLIST,
	    OFF(wake_at), .flags = WF_API, .nv = 61, .show = "wake at:",
	    .check = check_sched },
	/* its group's (orchd.conf's group block), given by the parent */
	{ .json = "group_keep_warm_during", .label = "group keep warm during",
	    .type = WF_STRLIST, OFF(group_windows),
	    .flags = WF_PARENT | WF_GIVEN, .check = check_sched },
	{ .json = "group_wake_at", .label = "group wake at",
	    .type = WF_STRLIST, OFF(group_wakes),
	    .flags = WF_PARENT | WF_GIVEN, .check = check_sched },
	/* the zones' rules, read by the parent for its children */
	{ .json = "zones", .label = "zones", .type = WF_STRLIST, OFF(zones),
	    .flags = WF_PARENT | WF_GIVEN, .check = check_zones },
	/* a request to it wakes its whole group (runtimed/groupwake.c) */
	{ .json = "group_wake", .conf = "group wake", .type = WF_WORD,
	    OFF(group_wake), .words = wl_group_wakes, .flags = WF_API,
	    .nv = 76, .show = "group wake:", .check = check_group_wake },
	/*
	 * Limits (common/wlimits.c): 0 takes the global default; the API's
	 * within the operator's "api max" (orchd/policy.c)
	 */
	{ .json = "cpu", .conf = "cpu", .type = WF_CPU, OFF(cpu),
	    .min = LIM_CPU_MIN, .max = LIM_CPU_MAX,
	    .flags = WF_API | WF_DRIFT, .nv = 65, .show = "cpu:",
	    .show_dflt = "global" },
	{ .json = "cpu_weight", .conf = "cpu weight", .type = WF_INT,
	    OFF(cpu_weight), .min = LIM_WEIGHT_MIN, .max = LIM_WEIGHT_MAX,
	    .flags = WF_API | WF_DRIFT, .nv = 66, .show = "cpu weight:",
	    .show_dflt = "global" },
	{ .json = "pids", .conf = "pids", .type = WF_INT, OFF(pids),
	    .min = LIM_PIDS_MIN, .max = LIM_PIDS_MAX,
	    .flags = WF_API | WF_DRIFT, .nv = 67, .show = "pids:",
	    .show_dflt = "global" },
	{ .json = "io_weight", .conf = "io weight", .type = WF_INT,
	    OFF(io_weight), .min = LIM_WEIGHT_MIN, .max = LIM_WEIGHT_MAX,
	    .flags = WF_API | WF_DRIFT, .nv = 68, .show = "io weight:",
	    .show_dflt = "global" },
};
const size_t	wl_nfields = nitems(wl_fields);

/* a row by its JSON name; NULL for none */
const struct wl_field *
wl_field_json(const char *name)
{
	size_t	 i;

	for (i = 0; i < wl_nfields; i++)
		if (strcmp(wl_fields[i].json, name) == 0)
			return (&wl_fields[i]);
	return (NULL);
}

/* its name in an error: "health path" */
const char *
wl_field_label(const struct wl_field *f)
{
	if (f->label != NULL)
		return (f->label);
	return (f->conf != NULL ? f->conf : f->json);
}

/* a number's value, whichever C type holds it */
int64_t
wl_field_num(const struct workload_conf *wl, const struct wl_field *f)
{
	const void	*p = WF_CPTR(wl, f);

	switch (f->type) {
	case WF_PORT:
		return (*(const uint16_t *)p);
	case WF_ID:
	case WF_DURATION:
	case WF_SIZE:
	case WF_CPU:
		return (*(const int64_t *)p);
	case WF_WORD:
	case WF_NETWORK:
	case WF_BOOL:
	case WF_INT:
	case WF_SIGNAL:
		return (*(const int *)p);
	default:
		return (0);
	}
}

void
wl_field_set_num(struct workload_conf *wl, const struct wl_field *f,
    int64_t n)
{
	void	*p = WF_PTR(wl, f);

	switch (f->type) {
	case WF_PORT:
		*(uint16_t *)p = (uint16_t)n;
		break;
	case WF_ID:
	case WF_DURATION:
	case WF_SIZE:
	case WF_CPU:
		*(int64_t *)p = n;
		break;
	case WF_WORD:
	case WF_NETWORK:
	case WF_BOOL:
	case WF_INT:
	case WF_SIGNAL:
		*(int *)p = (int)n;
		break;
	default:
		break;
	}
}

/* whether the definition gives it: not its default, not empty */
int
wl_field_given(const struct workload_conf *wl, const struct wl_field *f)
{
	const void	*p = WF_CPTR(wl, f);

	switch (f->type) {
	case WF_NAME:
		return (1);
	case WF_STRING:
		return (*(char * const *)p != NULL);
	case WF_STRLIST:
		return (!TAILQ_EMPTY((const struct strlist *)p));
	case WF_VOLUMES:
		return (!TAILQ_EMPTY((const struct volumelist *)p));
	case WF_IGNORES:
		return (!TAILQ_EMPTY((const struct ignorelist *)p));
	default:
		return (wl_field_num(wl, f) != f->dflt);
	}
}

/*
 * The one setter of a string field, by its JSON name, for orchd.conf's
 * parser: given once, not empty.  0, or -1 with the error in errbuf.
 */
int
wl_field_set_string(struct workload_conf *wl, const char *json,
    const char *s, char *errbuf, size_t len)
{
	const struct wl_field	*f;
	char			**dst;

	if ((f = wl_field_json(json)) == NULL || f->type != WF_STRING)
		return (wl_fail(errbuf, len, "%s: not a string", json));
	dst = WF_PTR(wl, f);
	if (*dst != NULL && (f->sdflt == NULL || strcmp(*dst, f->sdflt) != 0))
		return (wl_fail(errbuf, len, "%s already set",
		    wl_field_label(f)));
	if (s[0] == '\0')
		return (wl_fail(errbuf, len, "%s must not be empty",
		    wl_field_label(f)));
	free(*dst);
	if ((*dst = strdup(s)) == NULL)
		return (wl_fail(errbuf, len, "out of memory"));
	return (0);
}
