/*
 * The global settings between confd and the root parent, one row each.
 *
 * confd (confd/) reads orchd.conf, unprivileged, and sends each setting
 * of the table as a struct conf_set: a number in num, or its bytes after
 * the header (a string with its NUL, an entry of a list, an array).  The
 * parent takes each with conf_setting_take(): the row by its index, then
 * the length the row's type allows, the terminator, printable bytes, the
 * bounds and the row's own rule.  The parent starts from a zeroed
 * configuration, so that a setting the table lacks never crosses, and a
 * row added here travels and is checked without a word elsewhere.
 *
 * The listeners, keypairs, workloads, ignore rules, password files and
 * the acme block are records of their own (msg.h); what the parent
 * reads as root after the parse (keys, logins) never comes from confd.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "conf.h"
#include "conf_wire.h"
#include "errpage.h"
#include "wlimits.h"
#include "msg.h"
#include "orchd.h"
#include "schedule.h"
#include "units.h"
#include "util.h"
#include "workload.h"

#define CF_DURATION_MAX		((int64_t)INT32_MAX)
#define CF(m)			offsetof(struct orchd_conf, m)

static int	cf_absolute(const void *, size_t, char *, size_t);
static int	cf_user(const void *, size_t, char *, size_t);
static int	cf_instance(const void *, size_t, char *, size_t);
static int	cf_host(const void *, size_t, char *, size_t);
static int	cf_trusted(const void *, size_t, char *, size_t);
static int	cf_group_sched(const void *, size_t, char *, size_t);

#define NUM(n, m, lo, hi)	{ n, CF_NUM, CF(m), 0, lo, hi, 1, NULL }
#define INT(n, m, lo, hi)	{ n, CF_INT, CF(m), 0, lo, hi, 1, NULL }
#define BOOL(n, m)		{ n, CF_INT, CF(m), 0, 0, 1, 1, NULL }
#define DUR(n, m)		NUM(n, m, 0, CF_DURATION_MAX)
#define STR(n, m, c)		{ n, CF_STRING, CF(m), 0, 0, 0, 0, c }
/* a path orchd itself needs: the parser gives its default */
#define PATH(n, m, c)		{ n, CF_STRING, CF(m), 0, 0, 0, 1, c }
#define LIST(n, m, c)		{ n, CF_STRLIST, CF(m), 0, 0, 0, 0, c }

const struct conf_field conf_fields[] = {
	{ "user", CF_CHARS, CF(user), ORCHD_USER_MAX, 0, 0, 1, cf_user },
	PATH("chroot", chroot, cf_absolute),
	PATH("database", database, NULL),
	PATH("socket", socket, NULL),
	PATH("log directory", logdir, NULL),
	PATH("docker socket", docker_socket, NULL),
	BOOL("docker labels", docker_labels),
	DUR("idle timeout", idle_timeout),
	BOOL("idle timeout 0", reaper_off),
	DUR("reaper interval", reaper_interval),
	DUR("wake timeout", wake_timeout),
	DUR("health interval", health_interval),
	DUR("health timeout", health_timeout),
	NUM("health failures", health_failures, 1, 1000),
	LIST("api host", api_hosts, cf_host),
	STR("api key file", api_key_file, NULL),
	BOOL("api metrics public", api_metrics_public),
	INT("metrics per workload", metrics_top, -1, METRICS_TOP_MAX),
	BOOL("status page", status_page),
	DUR("status session timeout", status_session),
	STR("status key file", status_key_file, NULL),
	DUR("header timeout", gateway.header_timeout),
	DUR("body timeout", gateway.body_timeout),
	DUR("connect timeout", gateway.connect_timeout),
	DUR("upstream timeout", gateway.upstream_timeout),
	DUR("keepalive timeout", gateway.keepalive_timeout),
	NUM("max connections", gateway.max_conns, 0, INT32_MAX),
	NUM("max connections per address", gateway.max_conns_addr, 0,
	    INT32_MAX),
	NUM("prefork", gateway.prefork, 1, ORCHD_PREFORK_MAX),
	INT("trusted proxies", gateway.ntrusted, 0, ORCHD_TRUSTED_MAX),
	{ "trusted proxy", CF_BYTES, CF(gateway.trusted),
	    sizeof(((struct gateway_conf *)0)->trusted), 0, 0, 1, cf_trusted },
	NUM("http2 max streams", gateway.h2_max_streams, 1, INT32_MAX),
	BOOL("api allow process", api_allow_process),
	LIST("api allow image", api_allow_images, NULL),
	LIST("api allow volume", api_allow_volumes, cf_absolute),
	LIST("api allow network", api_allow_networks, NULL),
	BOOL("api allow root", api_allow_root),
	BOOL("api allow network host", api_allow_net_host),
	LIST("api allow address", api_allow_addresses, NULL),
	LIST("api allow publish", api_allow_publish, NULL),
	{ "api allow publish port", CF_BYTES, CF(api_allow_ports),
	    sizeof(((struct orchd_conf *)0)->api_allow_ports), 0, 0, 1, NULL },
	LIST("api allow auth basic", api_allow_auth_basic, cf_absolute),
	LIST("api allow auth request", api_allow_auth_request, NULL),
	NUM("workload uids low", wl_uid_low, 1, UINT32_MAX - 1),
	NUM("workload uids high", wl_uid_high, 1, UINT32_MAX - 1),
	PATH("workload directory", wl_dir, cf_absolute),
	DUR("tunnel idle timeout", tunnel_idle),
	BOOL("server timing", server_timing),
	INT("pull", pull, PULL_MISSING, PULL_NEVER),
	DUR("pull timeout", pull_timeout),
	STR("registry auth file", regauth_file, NULL),
	DUR("expire after", expire_after),
	STR("access log", access_log, cf_absolute),
	BOOL("access log syslog", access_log_syslog),
	INT("access log format", access_log_format, ACCESS_LOG_COMBINED,
	    ACCESS_LOG_JSON),
	NUM("log max size", log_max_size, 0, INT64_MAX),
	INT("on change", on_change, ON_CHANGE_NEXT_WAKE, ON_CHANGE_RESTART),
	NUM("memory budget", memory_budget, -1, INT64_MAX),
	NUM("memory estimate", memory_estimate, 0, INT64_MAX),
	NUM("max concurrent wakes", max_wakes, 0, ORCHD_MAX_WAKES),
	NUM("suspend freeze for", freeze, 0, WL_FREEZE_FOREVER),
	NUM("memory pressure limit", pressure_limit, 0, 10000),
	{ "instance name", CF_CHARS, CF(instance), ORCHD_INSTANCE_MAX, 0, 0, 1,
	    cf_instance },
	STR("swarm manager", swarm_manager, NULL),
	STR("swarm ca", swarm_ca, NULL),
	STR("swarm cert", swarm_cert, NULL),
	STR("swarm key", swarm_key, NULL),
	LIST("error page", error_pages, cf_error_page),
	STR("notify key file", notify_key_file, NULL),
	/* the limits' bounds are common/wlimits.c's; 0: none */
	NUM("cpu", lim_dflt.cpu, 0, LIM_CPU_MAX),
	NUM("cpu weight", lim_dflt.cpu_weight, 0, LIM_WEIGHT_MAX),
	NUM("pids", lim_dflt.pids, 0, LIM_PIDS_MAX),
	NUM("io weight", lim_dflt.io_weight, 0, LIM_WEIGHT_MAX),
	NUM("api max cpu", lim_max.cpu, 0, LIM_CPU_MAX),
	NUM("api max cpu weight", lim_max.cpu_weight, 0, LIM_WEIGHT_MAX),
	NUM("api max pids", lim_max.pids, 0, LIM_PIDS_MAX),
	NUM("api max io weight", lim_max.io_weight, 0, LIM_WEIGHT_MAX),
	LIST("group schedule", group_scheds, cf_group_sched),
};
const size_t	conf_nfields = nitems(conf_fields);

/*
 * Writing, in confd.
 */

static int
put_bytes(conf_put_fn put, void *arg, size_t i, const void *p, size_t len)
{
	struct conf_set	 s;

	memset(&s, 0, sizeof(s));
	s.field = i;
	s.len = len;
	return (put(arg, &s, p));
}

static int
put_num(conf_put_fn put, void *arg, size_t i, int64_t v)
{
	struct conf_set	 s;

	memset(&s, 0, sizeof(s));
	s.field = i;
	s.num = v;
	return (put(arg, &s, NULL));
}

static int
put_field(const struct orchd_conf *c, size_t i, conf_put_fn put, void *arg)
{
	const struct conf_field	*f = &conf_fields[i];
	const char		*p = (const char *)c + f->off;
	const struct strentry	*e;
	const char		*s;

	switch (f->type) {
	case CF_NUM:
		return (put_num(put, arg, i, *(const int64_t *)(const void *)p));
	case CF_INT:
		return (put_num(put, arg, i, *(const int *)(const void *)p));
	case CF_STRING:
		if ((s = *(char *const *)(const void *)p) == NULL)
			return (0);
		return (put_bytes(put, arg, i, s, strlen(s) + 1));
	case CF_CHARS:
		return (put_bytes(put, arg, i, p, strnlen(p, f->size) + 1));
	case CF_STRLIST:
		TAILQ_FOREACH(e, (const struct strlist *)(const void *)p, entry)
			if (put_bytes(put, arg, i, e->str, strlen(e->str) + 1)
			    == -1)
				return (-1);
		return (0);
	case CF_BYTES:
		return (put_bytes(put, arg, i, p, f->size));
	}
	return (-1);
}

/* every row of the table, in its order; -1 as soon as put fails */
int
conf_settings_put(const struct orchd_conf *c, conf_put_fn put, void *arg)
{
	size_t	 i;

	for (i = 0; i < conf_nfields; i++)
		if (put_field(c, i, put, arg) == -1)
			return (-1);
	return (0);
}

/*
 * Reading, in the parent.
 */

int
conf_string_ok(const char *s, size_t len)
{
	size_t	 i;

	if (len == 0 || s[len - 1] != '\0')
		return (0);
	for (i = 0; i + 1 < len; i++)
		if (!isprint((unsigned char)s[i]) &&
		    (s[i] & 0x80) == 0)
			return (0);
	return (1);
}

static int
take_num(struct orchd_conf *c, const struct conf_field *f, int64_t v,
    char *err, size_t errlen)
{
	void	*p = (char *)c + f->off;

	if (v < f->min || v > f->max) {
		snprintf(err, errlen, "%s: %lld out of range (%lld-%lld)",
		    f->name, (long long)v, (long long)f->min,
		    (long long)f->max);
		return (-1);
	}
	if (f->type == CF_NUM)
		*(int64_t *)p = v;
	else
		*(int *)p = (int)v;
	return (0);
}

static int
take_string(struct orchd_conf *c, const struct conf_field *f,
    const char *s, size_t len, char *err, size_t errlen)
{
	void	*p = (char *)c + f->off;
	char	**sp = p;

	if (len > CONF_STRING_MAX || !conf_string_ok(s, len) ||
	    (f->type == CF_CHARS && len > f->size)) {
		snprintf(err, errlen, "%s: not a string of at most %zu bytes",
		    f->name, f->type == CF_CHARS ? f->size - 1 :
		    (size_t)CONF_STRING_MAX - 1);
		return (-1);
	}
	if (f->check != NULL && f->check(s, len, err, errlen) == -1)
		return (-1);
	switch (f->type) {
	case CF_CHARS:
		memcpy(p, s, len);
		return (0);
	case CF_STRLIST:
		return (strlist_add(p, s));
	default:
		free(*sp);
		return ((*sp = strdup(s)) == NULL ? -1 : 0);
	}
}

int
conf_setting_take(struct orchd_conf *c, const void *data, size_t len,
    char *err, size_t errlen)
{
	const struct conf_field	*f;
	struct conf_set		 s;
	const char		*bytes;

	if (len < sizeof(s)) {
		snprintf(err, errlen, "setting: short message");
		return (-1);
	}
	memcpy(&s, data, sizeof(s));
	bytes = (const char *)data + sizeof(s);
	if (s.field >= conf_nfields || s.len != len - sizeof(s)) {
		snprintf(err, errlen, "setting %u: no such row, or %u bytes "
		    "in %zu", s.field, s.len, len - sizeof(s));
		return (-1);
	}
	f = &conf_fields[s.field];
	switch (f->type) {
	case CF_NUM:
	case CF_INT:
		if (s.len != 0)
			break;
		return (take_num(c, f, s.num, err, errlen) == -1 ? -1 :
		    (int)s.field);
	case CF_BYTES:
		if (s.len != f->size)
			break;
		if (f->check != NULL && f->check(bytes, s.len, err, errlen)
		    == -1)
			return (-1);
		memcpy((char *)c + f->off, bytes, s.len);
		return (s.field);
	default:
		return (take_string(c, f, bytes, s.len, err, errlen) == -1 ?
		    -1 : (int)s.field);
	}
	snprintf(err, errlen, "%s: %u bytes", f->name, s.len);
	return (-1);
}

int
conf_settings_missing(const uint8_t *seen, char *err, size_t errlen)
{
	size_t	 i;

	for (i = 0; i < conf_nfields; i++)
		if (conf_fields[i].required && !seen[i]) {
			snprintf(err, errlen, "%s: not sent",
			    conf_fields[i].name);
			return (1);
		}
	return (0);
}

/*
 * The rows' own rules.
 */

static int
cf_absolute(const void *v, size_t len, char *err, size_t errlen)
{
	const char	*s = v;

	if (s[0] == '/')
		return (0);
	snprintf(err, errlen, "\"%s\": not an absolute path", s);
	return (-1);
}

/*
 * A group block's window or wake: "GROUP window TEXT" or "GROUP wake
 * TEXT", by the checks of a workload's own (common/sched.c), its zone
 * one of the tzdata's, which the parent reads; at most SCHED_MAX of a
 * kind in a group, none twice, are confd's to refuse with file:line,
 * and sched_group_fill takes no more.
 */
static int
cf_group_sched(const void *v, size_t len, char *err, size_t errlen)
{
	struct sched_spec	 sp;
	enum sched_kind		 kind;
	const char		*text;
	char			 group[ORCHD_NAME_MAX], rule[SCHED_RULE_MAX];

	if (sched_group_line(v, group, sizeof(group), &kind, &text) == -1) {
		snprintf(err, errlen, "group schedule: not GROUP window|wake "
		    "TEXT");
		return (-1);
	}
	if (sched_parse(kind, text, &sp, err, errlen) == -1 ||
	    (sp.zone[0] != '\0' && sched_zone_rule(sp.zone, rule,
	    sizeof(rule), err, errlen) == -1))
		return (-1);
	return (0);
}

static int
cf_user(const void *v, size_t len, char *err, size_t errlen)
{
	const char	*s = v;
	size_t		 i;

	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) ==
		    NULL)
			break;
	if (i > 0 && s[i] == '\0' && s[0] != '-')
		return (0);
	snprintf(err, errlen, "user \"%s\": not a user name", s);
	return (-1);
}

/* "" (the host's name), or what instance name allows */
static int
cf_instance(const void *v, size_t len, char *err, size_t errlen)
{
	const char	*s = v;

	if (s[0] == '\0' || instance_name_ok(s))
		return (0);
	snprintf(err, errlen, "instance name \"%s\": not an instance name",
	    s);
	return (-1);
}

static int
cf_host(const void *v, size_t len, char *err, size_t errlen)
{
	if (valid_host_pattern(v))
		return (0);
	snprintf(err, errlen, "api host \"%s\": not a host name",
	    (const char *)v);
	return (-1);
}

static int
cf_trusted(const void *v, size_t len, char *err, size_t errlen)
{
	struct netaddr	 n;
	size_t		 i;

	for (i = 0; i < ORCHD_TRUSTED_MAX; i++) {
		memcpy(&n, (const char *)v + i * sizeof(n), sizeof(n));
		if ((n.af == 0 && n.prefix == 0) ||
		    (n.af == AF_INET && n.prefix >= 0 && n.prefix <= 32) ||
		    (n.af == AF_INET6 && n.prefix >= 0 && n.prefix <= 128))
			continue;
		snprintf(err, errlen, "trusted proxy %zu: family %d, "
		    "prefix %d", i, n.af, n.prefix);
		return (-1);
	}
	return (0);
}
