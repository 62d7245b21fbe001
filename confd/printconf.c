/*
 * orchd -nv: the configuration as orchd reads it, printed back in
 * orchd.conf(5) syntax, as bgpd -nv does.  Macros and includes come out
 * expanded and every global setting with its value, the defaults filled
 * in, so that an operator sees what orchd would run with.
 *
 * What is printed parses again to the same configuration.  A workload
 * setting left to the global one or to the driver (an idle timeout of
 * -1, a stop signal of 0) keeps that meaning: its effective value is a
 * comment, since writing it out would tie the workload to today's value.
 * Strings are always quoted, so that no value is read back as a keyword,
 * a number or a macro: the lexer expands no '$' within quotes, and takes
 * a backslash before the quote or a backslash as that character.
 *
 * The API key is never printed, only the name of its file; nor are the
 * registry logins, only the name of theirs.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "compat.h"
#include "conf.h"
#include "errpage.h"
#include "confd.h"
#include "ignore.h"
#include "log.h"
#include "msg.h"
#include "notify_ev.h"
#include "orchd.h"
#include "units.h"
#include "schedule.h"
#include "workload.h"
#include "workload_fields.h"
#include "workload_print.h"

static int	 pc_errors;

static void	 print_string(FILE *, const char *);
static void	 print_duration(FILE *, const char *, int64_t);
static void	 print_size(FILE *, int64_t);
static void	 print_logs(FILE *, const struct orchd_conf *);
static void	 print_globals(FILE *, const struct orchd_conf *);
static void	 print_pull(FILE *, const struct orchd_conf *);
static void	 print_error_pages(FILE *, const char *,
		    const struct strlist *);
static void	 print_gateway(FILE *, const struct gateway_conf *);
static void	 print_listeners(FILE *, const struct orchd_conf *);
static void	 print_api(FILE *, const struct orchd_conf *);
static void	 print_ignores(FILE *, const char *,
		    const struct ignorelist *);
static void	 print_use(FILE *, const struct orchd_conf *);
static void	 print_budget(FILE *, const struct orchd_conf *);
static void	 print_notify(FILE *, const struct orchd_conf *);
static void	 print_workload(FILE *, const struct orchd_conf *,
		    const struct workload_conf *);

static const char	*suspend_text(int64_t, char *, size_t);

/* a quoted string, as the lexer reads it back (workload_print.c) */
static void
print_string(FILE *fp, const char *s)
{
	pc_errors += wl_print_string(fp, s);
}

/* "keyword 5m": a bare word, never a keyword or a macro */
static void
print_duration(FILE *fp, const char *what, int64_t secs)
{
	char	 buf[32];

	fprintf(fp, "%s %s\n", what, fmt_duration(secs, buf, sizeof(buf)));
}

/* the largest unit that divides the size, as parse_size() reads it */
static void
print_size(FILE *fp, int64_t bytes)
{
	static const struct {
		char	 suffix;
		int64_t	 mult;
	} units[] = {
		{ 'G', 1024 * 1024 * 1024 },
		{ 'M', 1024 * 1024 },
		{ 'K', 1024 }
	};
	size_t	 i;

	for (i = 0; i < nitems(units) && bytes > 0; i++)
		if (bytes % units[i].mult == 0) {
			fprintf(fp, "%lld%c", (long long)(bytes /
			    units[i].mult), units[i].suffix);
			return;
		}
	fprintf(fp, "%lld", (long long)bytes);
}

static const char *
on_change_name(int on_change)
{
	return (on_change == ON_CHANGE_RESTART ? "restart" : "next wake");
}

/* the access log, and the cap on the workloads' own log files */
static void
print_logs(FILE *fp, const struct orchd_conf *conf)
{
	if (conf->access_log_syslog)
		fputs("access log syslog\n", fp);
	else if (conf->access_log != NULL) {
		fputs("access log ", fp);
		print_string(fp, conf->access_log);
		fputs("\n", fp);
	} else
		fputs("# access log: none\n", fp);
	if (conf->access_log_syslog || conf->access_log != NULL)
		fprintf(fp, "access log format %s\n",
		    conf->access_log_format == ACCESS_LOG_JSON ? "json" :
		    "combined");
	if (conf->log_max_size > 0) {
		fputs("log max size ", fp);
		print_size(fp, conf->log_max_size);
		fputs("\n", fp);
	} else
		fputs("# log max size: none, the workloads' logs grow\n", fp);
}

static void
print_globals(FILE *fp, const struct orchd_conf *conf)
{
	fputs("user ", fp);
	print_string(fp, conf->user);
	fputs("\nchroot ", fp);
	print_string(fp, conf->chroot);
	fputs("\ndatabase ", fp);
	print_string(fp, conf->database);
	fputs("\nsocket ", fp);
	print_string(fp, conf->socket);
	fputs("\nlog directory ", fp);
	print_string(fp, conf->logdir);
	fputs("\ndocker socket ", fp);
	print_string(fp, conf->docker_socket);
	fprintf(fp, "\ndocker labels %s\n", conf->docker_labels == 1 ?
	    "on" : "off");
	print_logs(fp, conf);
	print_duration(fp, "idle timeout", conf->idle_timeout);
	if (conf->reaper_off)
		fputs("# the reaper is off: ORCHD_IDLE_TIMEOUT=0\n", fp);
	print_duration(fp, "reaper interval", conf->reaper_interval);
	print_duration(fp, "wake timeout", conf->wake_timeout);
	if (conf->health_interval == 0)
		fputs("# health interval 0s: no liveness checks\n", fp);
	print_duration(fp, "health interval", conf->health_interval);
	print_duration(fp, "health timeout", conf->health_timeout);
	fprintf(fp, "health failures %lld\n",
	    (long long)conf->health_failures);
	print_pull(fp, conf);
	fprintf(fp, "on change %s\n", on_change_name(conf->on_change));
	fprintf(fp, "workload uids \"%lld-%lld\"\n",
	    (long long)conf->wl_uid_low, (long long)conf->wl_uid_high);
	fputs("workload directory ", fp);
	print_string(fp, conf->wl_dir);
	fputs("\n", fp);
	/* the host name is looked up at start: the print is host-blind */
	if (conf->instance[0] != '\0') {
		fputs("instance name ", fp);
		print_string(fp, conf->instance);
		fputs("\n", fp);
	} else
		fputs("# instance name: the host name\n", fp);
	print_error_pages(fp, "", &conf->error_pages);
}

/* "error page STATUS FILE", each entry of a list of "STATUS PATH" */
static void
print_error_pages(FILE *fp, const char *indent, const struct strlist *l)
{
	const struct strentry	*e;
	const char		*path;
	int			 status;

	TAILQ_FOREACH(e, l, entry) {
		if (errpage_entry_split(e->str, &status, &path) == -1)
			continue;
		fprintf(fp, "%serror page %d ", indent, status);
		print_string(fp, path);
		fputs("\n", fp);
	}
}

/* docker images: when they are pulled, and with which logins (never) */
static void
print_pull(FILE *fp, const struct orchd_conf *conf)
{
	const char	*pull;

	if ((pull = wl_word_name(wl_pulls, conf->pull)) == NULL) {
		log_warnx("%s: pull %d", __func__, conf->pull);
		pc_errors++;
	} else
		fprintf(fp, "pull %s\n", pull);
	print_duration(fp, "pull timeout", conf->pull_timeout);
	print_duration(fp, "expire after", conf->expire_after);
	if (conf->regauth_file != NULL) {
		fputs("registry auth file ", fp);
		print_string(fp, conf->regauth_file);
		fputs("\n", fp);
	}
	if (conf->swarm_manager != NULL) {
		fputs("swarm manager ", fp);
		print_string(fp, conf->swarm_manager);
		fputs(" ca ", fp);
		print_string(fp, conf->swarm_ca);
		fputs(" certificate ", fp);
		print_string(fp, conf->swarm_cert);
		fputs(" key ", fp);
		print_string(fp, conf->swarm_key);
		fputs("\n", fp);
	}
}

/* the acme block; the EAB key stays in its file, named only */
static void
print_acme(FILE *fp, const struct acme_settings *a)
{
	if (a == NULL)
		return;
	fputs("acme {\n\tdirectory ", fp);
	print_string(fp, a->directory);
	fputs("\n", fp);
	if (a->contact != NULL) {
		fputs("\tcontact ", fp);
		print_string(fp, a->contact);
		fputs("\n", fp);
	}
	if (a->ca_file != NULL) {
		fputs("\tca file ", fp);
		print_string(fp, a->ca_file);
		fputs("\n", fp);
	}
	if (a->eab_kid != NULL) {
		fputs("\teab kid ", fp);
		print_string(fp, a->eab_kid);
		fputs(" hmac file ", fp);
		print_string(fp, a->eab_hmac_file);
		fputs("\n", fp);
	}
	fprintf(fp, "\tissuances per hour %lld\n}\n\n",
	    (long long)a->per_hour);
}

static void
print_gateway(FILE *fp, const struct gateway_conf *g)
{
	const struct netaddr	*na;
	char			 buf[INET6_ADDRSTRLEN];
	int			 i, max;

	print_duration(fp, "header timeout", g->header_timeout);
	print_duration(fp, "body timeout", g->body_timeout);
	print_duration(fp, "connect timeout", g->connect_timeout);
	print_duration(fp, "upstream timeout", g->upstream_timeout);
	print_duration(fp, "keepalive timeout", g->keepalive_timeout);
	/* 0 cannot be written: the defaults are said in comments */
	if (g->max_conns > 0)
		fprintf(fp, "max connections %lld\n",
		    (long long)g->max_conns);
	else
		fputs("# max connections: from the open-files limit\n", fp);
	if (g->max_conns_addr > 0)
		fprintf(fp, "max connections per address %lld\n",
		    (long long)g->max_conns_addr);
	else
		fprintf(fp, "# max connections per address: %d, or an "
		    "eighth of the descriptors\n", ORCHD_CONNS_ADDR);
	fprintf(fp, "prefork %lld\n", (long long)g->prefork);
	fprintf(fp, "http2 max streams %lld\n", (long long)g->h2_max_streams);
	for (i = 0; i < g->ntrusted && i < ORCHD_TRUSTED_MAX; i++) {
		na = &g->trusted[i];
		max = na->af == AF_INET ? 32 : 128;
		if (inet_ntop(na->af, na->addr, buf, sizeof(buf)) == NULL) {
			log_warn("%s: trusted proxy %d", __func__, i);
			pc_errors++;
			continue;
		}
		if (na->prefix == max)
			fprintf(fp, "trusted proxy \"%s\"\n", buf);
		else
			fprintf(fp, "trusted proxy \"%s/%d\"\n", buf,
			    na->prefix);
	}
}

/* "ignore path|agent|from X [answer 200]", each after indent */
static void
print_ignores(FILE *fp, const char *indent, const struct ignorelist *l)
{
	pc_errors += wl_print_ignores(fp, indent, l);
}

/* what is not use: the global ignores, idle tunnels, Server-Timing */
static void
print_use(FILE *fp, const struct orchd_conf *conf)
{
	print_duration(fp, "tunnel idle timeout", conf->tunnel_idle);
	if (conf->tunnel_idle == 0)
		fputs("# 0: an open tunnel counts as use until it closes\n", fp);
	fprintf(fp, "server timing %s\n", conf->server_timing ? "on" : "off");
	print_ignores(fp, "", &conf->ignores);
}

/* the memory budget and wake admission; "none" is not a word of it */
static void
print_budget(FILE *fp, const struct orchd_conf *conf)
{
	char	 buf[16];

	if (conf->memory_budget == -1)
		fputs("memory budget auto\n", fp);
	else if (conf->memory_budget > 0) {
		fputs("memory budget ", fp);
		print_size(fp, conf->memory_budget);
		fputs("\n", fp);
	} else
		fputs("# memory budget: none, wakes are not held for memory\n",
		    fp);
	fputs("memory estimate ", fp);
	print_size(fp, conf->memory_estimate);
	fputs("\n", fp);
	fprintf(fp, "max concurrent wakes %lld\n", (long long)conf->max_wakes);
	if (conf->max_wakes == 0)
		fputs("# 0: no cap\n", fp);
	fprintf(fp, "memory pressure limit %s\n", conf->pressure_limit > 0 ?
	    fmt_percent(conf->pressure_limit, buf, sizeof(buf)) : "off");
	fprintf(fp, "suspend %s\n", suspend_text(conf->freeze, buf,
	    sizeof(buf)));
}

/* "stop", "freeze", "freeze for 5m": as "suspend" takes it */
static const char *
suspend_text(int64_t freeze, char *buf, size_t len)
{
	char	 d[32];

	if (freeze <= 0)
		(void)snprintf(buf, len, "stop");
	else if (freeze >= WL_FREEZE_FOREVER)
		(void)snprintf(buf, len, "freeze");
	else
		(void)snprintf(buf, len, "freeze for %s",
		    fmt_duration(freeze, d, sizeof(d)));
	return (buf);
}

/* the port is the socket address's, the address as it was written */
static void
print_listeners(FILE *fp, const struct orchd_conf *conf)
{
	const struct listener_conf	*l;
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;
	int				 port, n = 0;

	TAILQ_FOREACH(l, &conf->listeners, entry) {
		if (l->workload[0] != '\0')
			continue;	/* in its workload's block */
		n++;
		if (l->ss.ss_family == AF_INET6) {
			sin6 = (const struct sockaddr_in6 *)&l->ss;
			port = ntohs(sin6->sin6_port);
		} else {
			sin = (const struct sockaddr_in *)&l->ss;
			port = ntohs(sin->sin_port);
		}
		fputs(l->api == LISTENER_STATUS ? "status listen on " :
		    l->api ? "api listen on " : "listen on ", fp);
		print_string(fp, l->name);
		fprintf(fp, " port %d", port);
		if (l->tls)
			fputs(l->acme ? " tls acme" : " tls", fp);
		if (l->tls_cert != NULL) {
			fputs(" certificate ", fp);
			print_string(fp, l->tls_cert);
			fputs(" key ", fp);
			print_string(fp, l->tls_key);
		}
		if (l->http2 == LISTENER_H2_OFF)
			fputs(" http2 off", fp);
		else if (l->http2 == LISTENER_H2_PRIOR)
			fputs(" http2 prior knowledge", fp);
		if (l->redirect)
			fputs(" redirect https", fp);
		if (l->redirect_port != 0)
			fprintf(fp, " port %d", l->redirect_port);
		if (l->hsts)
			fprintf(fp, " hsts max age %lld%s",
			    (long long)l->hsts_age, l->hsts_sub ?
			    " subdomains" : "");
		fputs("\n", fp);
	}
	if (n == 0)
		fputs("# no listen on: no requests are served\n", fp);
}

static void
print_api(FILE *fp, const struct orchd_conf *conf)
{
	const struct strentry	*e;
	int			 port;

	TAILQ_FOREACH(e, &conf->api_hosts, entry) {
		fputs("api host ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	/* never the key itself */
	if (conf->api_key_file != NULL) {
		fputs("api key file ", fp);
		print_string(fp, conf->api_key_file);
		fputs("\n", fp);
	} else if (conf->api_key_set)
		fputs("# api key: from ORCHD_KEY\n", fp);
	if (conf->api_metrics_public)
		fputs("api metrics public\n", fp);
	/* on, the default, is not printed */
	if (conf->metrics_top == -1)
		fputs("metrics per workload off\n", fp);
	else if (conf->metrics_top > 0)
		fprintf(fp, "metrics per workload top %d\n", conf->metrics_top);
	if (conf->status_page)
		fputs("status page\n", fp);
	print_notify(fp, conf);
	if (conf->status_key_file != NULL) {
		fputs("status key file ", fp);
		print_string(fp, conf->status_key_file);
		fputs("\n", fp);
	}
	if (conf->status_session > 0)
		fprintf(fp, "status session timeout %llds\n",
		    (long long)conf->status_session);
	if (conf->api_allow_process)
		fputs("api allow process\n", fp);
	TAILQ_FOREACH(e, &conf->api_allow_images, entry) {
		fputs("api allow image ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	TAILQ_FOREACH(e, &conf->api_allow_volumes, entry) {
		fputs("api allow volume ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	TAILQ_FOREACH(e, &conf->api_allow_networks, entry) {
		fputs("api allow network ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	if (conf->api_allow_net_host)
		fputs("api allow network host\n", fp);
	TAILQ_FOREACH(e, &conf->api_allow_addresses, entry) {
		fputs("api allow address ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	TAILQ_FOREACH(e, &conf->api_allow_publish, entry) {
		fputs("api allow publish ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	for (port = 1; port < API_LOW_PORTS; port++)
		if (API_PORT_ALLOWED(conf, port))
			fprintf(fp, "api allow publish port %d\n", port);
	if (conf->api_allow_root)
		fputs("api allow root\n", fp);
	TAILQ_FOREACH(e, &conf->api_allow_auth_basic, entry) {
		fputs("api allow auth basic ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
	TAILQ_FOREACH(e, &conf->api_allow_auth_request, entry) {
		fputs("api allow auth request ", fp);
		print_string(fp, e->str);
		fputs("\n", fp);
	}
}

/* "keyword STRING" in a block, if s is set */
static void
print_wlstring(FILE *fp, const char *what, const char *s)
{
	pc_errors += wl_print_keystr(fp, what, s);
}

/* a workload's duration, or -1: the global's, or the fallback */
static void
print_wlduration(FILE *fp, const char *what, int64_t secs, int64_t dflt,
    const char *from)
{
	char	 buf[32];

	if (secs != -1)
		fprintf(fp, "\t%s %s\n", what,
		    fmt_duration(secs, buf, sizeof(buf)));
	else
		fprintf(fp, "\t# %s %s, %s\n", what,
		    fmt_duration(dflt, buf, sizeof(buf)), from);
}

/*
 * The keypair of a workload is kept per host in conf->keypairs, every
 * host of the workload with the same files: the first host's says it.
 */
static const struct keypair_conf *
workload_keypair(const struct orchd_conf *conf,
    const struct workload_conf *wl)
{
	const struct strentry		*e;
	const struct keypair_conf	*kp;

	if ((e = TAILQ_FIRST(&wl->hosts)) == NULL)
		return (NULL);
	TAILQ_FOREACH(kp, &conf->keypairs, entry)
		if (strcmp(kp->host, e->str) == 0)
			return (kp);
	return (NULL);
}

/*
 * A workload's fields, in the order of their rows' nv (workload_fields.c).
 * Most print by their type: "keyword VALUE" when given.  Those that say
 * what they fall back to, or print with another, have a printer below,
 * by their JSON name; a field added to the table needs none.
 */

struct nv_printer {
	const char	*json;
	void		(*print)(FILE *, const struct orchd_conf *,
			    const struct workload_conf *,
			    const struct wl_field *);
	size_t		 global;	/* nv_duration: in struct orchd_conf */
};

static int
is_docker(const struct workload_conf *wl)
{
	return (wl->driver != DRIVER_PROCESS);
}

/* the fields that print only with another, or not at all */
static void
nv_none(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
}

/* a duration, or the global setting's in a comment */
static void
nv_duration(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f);

static void
nv_network(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (is_docker(wl))
		pc_errors += wl_print_field(fp, wl, f);
}

static void
nv_user(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	print_wlstring(fp, f->conf, wl->user);
	if (wl->user == NULL && !is_docker(wl))
		fputs("\t# user: a uid of its own, from workload uids\n", fp);
}

static void
nv_directory(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	print_wlstring(fp, f->conf, wl->directory);
	if (wl->directory == NULL && !is_docker(wl))
		fprintf(fp, "\t# directory: its state directory, %s/%s\n",
		    conf->wl_dir, wl->name);
}

static void
nv_health(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->health == HEALTH_PATH)
		print_wlstring(fp, "health path", wl->health_path);
	else
		fputs("\thealth tcp\n", fp);
}

/* without a path there is no veto: its max and fail say nothing */
static void
nv_busy(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->busy_path == NULL)
		return;
	print_wlstring(fp, f->conf, wl->busy_path);
	print_wlduration(fp, "busy max", wl->busy_max, ORCHD_BUSY_MAX,
	    "the default");
	fputs(wl->busy_fail_safe ? "\tbusy fail safe\n" :
	    "\t# busy fail open, the default\n", fp);
}

/* liveness: one comment when all three are the global settings */
static void
nv_liveness(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	char	 ibuf[32], tbuf[32];

	if (wl->health_interval == -1 && wl->health_timeout == -1 &&
	    wl->health_failures == -1) {
		fprintf(fp, "\t# health interval %s, timeout %s, failures "
		    "%lld: the global settings\n", fmt_duration(
		    conf->health_interval, ibuf, sizeof(ibuf)), fmt_duration(
		    conf->health_timeout, tbuf, sizeof(tbuf)),
		    (long long)conf->health_failures);
		return;
	}
	print_wlduration(fp, "health interval", wl->health_interval,
	    conf->health_interval, "the global setting");
	print_wlduration(fp, "health timeout", wl->health_timeout,
	    conf->health_timeout, "the global setting");
	if (wl->health_failures != -1)
		fprintf(fp, "\thealth failures %d\n", wl->health_failures);
	else
		fprintf(fp, "\t# health failures %lld, the global setting\n",
		    (long long)conf->health_failures);
}

static void
nv_idle(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (conf->reaper_off)
		fputs("\t# the reaper is off: never suspended\n", fp);
	nv_duration(fp, conf, wl, f);
}

static void
nv_freeze(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	char	 buf[64];

	if (wl->freeze != -1)
		fprintf(fp, "\tsuspend %s\n", suspend_text(wl->freeze, buf,
		    sizeof(buf)));
	else
		fprintf(fp, "\t# suspend %s, the global setting\n",
		    suspend_text(conf->freeze, buf, sizeof(buf)));
}

static void
nv_memory(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->memory > 0) {
		fprintf(fp, "\t%s ", f->conf);
		print_size(fp, wl->memory);
		fputs("\n", fp);
	} else
		fputs("\t# memory: no limit\n", fp);
}

static void
nv_server_timing(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->server_timing != -1)
		fprintf(fp, "\tserver timing %s\n", wl->server_timing ?
		    "on" : "off");
	else
		fprintf(fp, "\t# server timing %s, the global setting\n",
		    conf->server_timing ? "on" : "off");
}

static void
nv_on_change(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->on_change != -1)
		fprintf(fp, "\ton change %s\n", on_change_name(wl->on_change));
	else
		fprintf(fp, "\t# on change %s, the global setting\n",
		    on_change_name(conf->on_change));
}

/* signal_name() says "SIGQUIT"; the lexer reads "QUIT" as well */
static void
nv_stop_signal(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	const char	*sig;

	if (wl->stop_signal != 0 &&
	    (sig = signal_name(wl->stop_signal)) != NULL)
		fprintf(fp, "\tstop signal %s\n", sig + 3);
	else if (wl->stop_signal != 0) {
		log_warnx("%s: workload %s: stop signal %d", __func__,
		    wl->name, wl->stop_signal);
		pc_errors++;
	} else if (is_docker(wl))
		fputs("\t# stop signal: the image's, else TERM\n", fp);
	else
		fputs("\t# stop signal TERM, the default\n", fp);
}

static void
nv_stop_timeout(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	print_wlduration(fp, f->conf, wl->stop_timeout, WL_STOP_TIMEOUT,
	    "the default");
}

static void
nv_init(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (is_docker(wl) && wl->init != -1)
		fprintf(fp, "\tinit %s\n", wl->init ? "yes" : "no");
	else if (is_docker(wl))
		fputs("\t# init yes, the default\n", fp);
}

static void
nv_pull(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	const char	*pull = wl_word_name(wl_pulls, wl->pull);

	if (!is_docker(wl))
		return;
	if (wl->pull != -1 && pull != NULL)
		fprintf(fp, "\tpull %s\n", pull);
	else if (wl->pull != -1) {
		log_warnx("%s: workload %s: pull %d", __func__, wl->name,
		    wl->pull);
		pc_errors++;
	} else
		fprintf(fp, "\t# pull %s, the global setting\n",
		    wl_word_name(wl_pulls, conf->pull));
}

static void
nv_pull_timeout(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (is_docker(wl))
		nv_duration(fp, conf, wl, f);
}

#define GLOBAL(m)	offsetof(struct orchd_conf, m)

/* the gate: "allow from" and "deny from" in their order */
static void
nv_access(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	const struct strentry	*e;
	const char		*sp;

	TAILQ_FOREACH(e, &wl->access, entry) {
		sp = strchr(e->str, ' ');
		fprintf(fp, "\t%.*s from ", sp != NULL ?
		    (int)(sp - e->str) : 0, e->str);
		print_string(fp, sp != NULL ? sp + 1 : e->str);
		fputs("\n", fp);
	}
}

/* "auth basic FILE [pass authorization]" */
static void
nv_auth_basic(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	if (wl->auth_basic == NULL)
		return;
	fputs("\tauth basic ", fp);
	print_string(fp, wl->auth_basic);
	fputs(wl->auth_pass == 1 ? " pass authorization\n" : "\n", fp);
}

static void
nv_error_pages(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	print_error_pages(fp, "\t", &wl->error_pages);
}

/* "auth request URL [headers { ... }] [timeout D] [cache D]" */
static void
nv_auth_request(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	const struct strentry	*e;
	char			 buf[32];

	if (wl->auth_request == NULL)
		return;
	fputs("\tauth request ", fp);
	print_string(fp, wl->auth_request);
	if (!TAILQ_EMPTY(&wl->auth_headers)) {
		fputs(" headers {", fp);
		TAILQ_FOREACH(e, &wl->auth_headers, entry) {
			fputs(" ", fp);
			print_string(fp, e->str);
		}
		fputs(" }", fp);
	}
	if (wl->auth_timeout != -1)
		fprintf(fp, " timeout %s", fmt_duration(wl->auth_timeout, buf,
		    sizeof(buf)));
	if (wl->auth_cache != -1)
		fprintf(fp, " cache %s", fmt_duration(wl->auth_cache, buf,
		    sizeof(buf)));
	fputs("\n", fp);
}

static const struct nv_printer nv_printers[] = {
	{ "network",		nv_network, 0 },
	{ "user",		nv_user, 0 },
	{ "directory",		nv_directory, 0 },
	{ "health",		nv_health, 0 },
	{ "health_path",	nv_none, 0 },
	{ "busy_path",		nv_busy, 0 },
	{ "busy_max",		nv_none, 0 },
	{ "busy_fail",		nv_none, 0 },
	{ "health_interval",	nv_liveness, 0 },
	{ "health_timeout",	nv_none, 0 },
	{ "health_failures",	nv_none, 0 },
	{ "idle_timeout",	nv_idle, GLOBAL(idle_timeout) },
	{ "wake_timeout",	nv_duration, GLOBAL(wake_timeout) },
	{ "freeze",		nv_freeze, 0 },
	{ "memory",		nv_memory, 0 },
	{ "tunnel_idle_timeout", nv_duration, GLOBAL(tunnel_idle) },
	{ "server_timing",	nv_server_timing, 0 },
	{ "on_change",		nv_on_change, 0 },
	{ "stop_signal",	nv_stop_signal, 0 },
	{ "stop_timeout",	nv_stop_timeout, 0 },
	{ "init",		nv_init, 0 },
	{ "pull",		nv_pull, 0 },
	{ "pull_timeout",	nv_pull_timeout, GLOBAL(pull_timeout) },
	{ "access",		nv_access, 0 },
	{ "auth_basic",		nv_auth_basic, 0 },
	{ "auth_request",	nv_auth_request, 0 },
	{ "error_pages",	nv_error_pages, 0 },
};

static const struct nv_printer *
nv_printer(const struct wl_field *f)
{
	size_t	 i;

	for (i = 0; i < nitems(nv_printers); i++)
		if (strcmp(nv_printers[i].json, f->json) == 0)
			return (&nv_printers[i]);
	return (NULL);
}

static void
nv_duration(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl, const struct wl_field *f)
{
	const struct nv_printer	*np = nv_printer(f);
	int64_t			 dflt;

	dflt = *(const int64_t *)((const char *)conf + np->global);
	print_wlduration(fp, f->conf, wl_field_num(wl, f), dflt,
	    "the global setting");
}

static void
print_workload(FILE *fp, const struct orchd_conf *conf,
    const struct workload_conf *wl)
{
	const struct keypair_conf	*kp;
	const struct nv_printer		*np;
	const struct wl_field		*f;
	size_t				 i;
	int				 nv, last = 0;

	fputs("\nworkload ", fp);
	print_string(fp, wl->name);
	fputs(" {\n", fp);
	/* places are not dense: up to the last row's */
	for (i = 0; i < wl_nfields; i++)
		if (wl_fields[i].nv > last)
			last = wl_fields[i].nv;
	for (nv = 1; nv <= last; nv++)
		for (i = 0; i < wl_nfields; i++) {
			f = &wl_fields[i];
			if (f->nv != nv || f->conf == NULL)
				continue;
			if ((np = nv_printer(f)) != NULL)
				np->print(fp, conf, wl, f);
			else
				pc_errors += wl_print_field(fp, wl, f);
		}
	if ((kp = workload_keypair(conf, wl)) != NULL) {
		fputs("\ttls keypair ", fp);
		print_string(fp, kp->cert);
		fputs(" ", fp);
		print_string(fp, kp->key);
		fputs("\n", fp);
	}
	fputs("}\n", fp);
}

/*
 * The whole configuration, to fp.  Only the file's workloads: those of
 * the API live in the store, not in orchd.conf.  -1 if something could
 * not be printed so that it reads back the same, or fp failed.
 */
/* the group blocks: one a group, in the order they first came */
static void
print_groups(FILE *fp, const struct orchd_conf *conf)
{
	const struct strentry	*e, *o;
	enum sched_kind		 kind;
	const char		*text, *t2;
	char			 g[ORCHD_NAME_MAX], g2[ORCHD_NAME_MAX];
	int			 seen;

	TAILQ_FOREACH(e, &conf->group_scheds, entry) {
		if (sched_group_line(e->str, g, sizeof(g), &kind, &text) == -1)
			continue;
		seen = 0;
		for (o = TAILQ_FIRST(&conf->group_scheds); o != e && !seen;
		    o = TAILQ_NEXT(o, entry))
			if (sched_group_line(o->str, g2, sizeof(g2), &kind,
			    &t2) == 0 && strcmp(g, g2) == 0)
				seen = 1;
		if (seen)
			continue;
		fputs("\ngroup ", fp);
		print_string(fp, g);
		fputs(" {\n", fp);
		for (o = e; o != NULL; o = TAILQ_NEXT(o, entry)) {
			if (sched_group_line(o->str, g2, sizeof(g2), &kind,
			    &t2) == -1 || strcmp(g, g2) != 0)
				continue;
			fputs(kind == SCHED_WINDOW ? "\tkeep warm during " :
			    "\twake at ", fp);
			print_string(fp, t2);
			fputs("\n", fp);
		}
		fputs("}\n", fp);
	}
}

int
print_config(FILE *fp, const struct orchd_conf *conf)
{
	const struct workload_conf	*wl;

	pc_errors = 0;
	fputs("# orchd.conf as read: defaults filled in, macros and "
	    "includes expanded\n\n", fp);
	print_globals(fp, conf);
	fputs("\n", fp);
	print_gateway(fp, &conf->gateway);
	print_use(fp, conf);
	print_budget(fp, conf);
	print_limits(fp, conf);
	fputs("\n", fp);
	print_listeners(fp, conf);
	print_api(fp, conf);
	print_acme(fp, conf->acme);
	print_groups(fp, conf);
	TAILQ_FOREACH(wl, &conf->workloads, entry)
		if (wl->source == SOURCE_CONFIG)
			print_workload(fp, conf, wl);
	if (fflush(fp) == EOF || ferror(fp)) {
		log_warn("%s", __func__);
		return (-1);
	}
	return (pc_errors == 0 ? 0 : -1);
}

/* notify: the key file, what is allowed, each URL and its events */
static void
print_notify(FILE *fp, const struct orchd_conf *conf)
{
	const struct notify_conf	*n = conf->notify;
	uint32_t			 i;
	int				 e;

	if (conf->notify_key_file != NULL) {
		fputs("notify key file ", fp);
		print_string(fp, conf->notify_key_file);
		fputs("\n", fp);
	}
	if (n == NULL)
		return;
	if (n->allow & NOTIFY_ALLOW_LOOPBACK)
		fputs("notify allow loopback\n", fp);
	if (n->allow & NOTIFY_ALLOW_LINKLOCAL)
		fputs("notify allow link-local\n", fp);
	if (n->allow & NOTIFY_ALLOW_LOCAL)
		fputs("notify allow local\n", fp);
	for (i = 0; i < n->ntargets; i++) {
		fputs("notify ", fp);
		print_string(fp, n->targets[i].url);
		for (e = 0; e < NOTIFY_EV_MAX; e++)
			if (n->targets[i].events & (1U << e))
				fprintf(fp, " %s", notify_ev_name(e));
		fputs("\n", fp);
	}
}
