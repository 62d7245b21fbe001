/*
 * orchd.conf parsing (orchd/parse.y), the workload rules and their JSON
 * form (common/workload.c, workload_json.c) as the parser makes them.
 * Units, names and the JSON form on its own are test_units.c's.
 *
 * Run from the top of the tree: the fixtures are in regress/config.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "budget.h"
#include "compat.h"
#include "log.h"
#include "orchd.h"
#include "units.h"
#include "workload.h"
#include "conf.h"
#include "../../confd/confd.h"

#define CONFDIR		"regress/config/"
#define MAXLINES	64

static char	*lines[MAXLINES];
static int	 nlines;

static void
capture(int pri, const char *line)
{
	if (nlines < MAXLINES)
		lines[nlines++] = strdup(line);
}

static void
capture_reset(void)
{
	while (nlines > 0)
		free(lines[--nlines]);
}

static int
setup(void **state)
{
	capture_reset();
	log_capture(capture);
	return (0);
}

static int
teardown(void **state)
{
	log_capture(NULL);
	capture_reset();
	return (0);
}

static struct workload_conf *
find_workload(struct orchd_conf *conf, const char *name)
{
	struct workload_conf	*wl;

	TAILQ_FOREACH(wl, &conf->workloads, entry)
		if (strcmp(wl->name, name) == 0)
			return (wl);
	return (NULL);
}

static int
strlist_count(const struct strlist *l)
{
	const struct strentry	*e;
	int			 n = 0;

	TAILQ_FOREACH(e, l, entry)
		n++;
	return (n);
}

static const char *
strlist_nth(const struct strlist *l, int n)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, l, entry)
		if (n-- == 0)
			return (e->str);
	return (NULL);
}

static void
print_lines(void)
{
	int	 i;

	for (i = 0; i < nlines; i++)
		print_message("  captured: %s\n", lines[i]);
}

/*
 * Good configurations.
 */

/*
 * What good.conf parses to, field by field, is regress/config/good.conf.ok
 * (test_printconf); here what a print does not show: the addresses the
 * listeners' names gave, the keypairs by host, where the workloads came
 * from.
 */
static void
test_good(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	struct listener_conf	*l;
	struct keypair_conf	*kp;
	struct sockaddr_in	*sin;
	struct sockaddr_in6	*sin6;
	int			 n;

	conf = parse_config(CONFDIR "good.conf", 0);
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_int_equal(nlines, 0);
	assert_string_equal(conf->conffile, CONFDIR "good.conf");

	/* listeners, in order */
	l = TAILQ_FIRST(&conf->listeners);
	assert_non_null(l);
	sin = (struct sockaddr_in *)&l->ss;
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 18000);
	assert_int_equal(sin->sin_addr.s_addr, htonl(INADDR_ANY));
	assert_int_equal(l->sslen, sizeof(*sin));
	assert_int_equal(l->api, 0);
	assert_int_equal(l->tls, 0);
	assert_int_equal(l->fd, -1);

	l = TAILQ_NEXT(l, entry);
	assert_non_null(l);
	sin6 = (struct sockaddr_in6 *)&l->ss;
	assert_int_equal(sin6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), 18443);
	assert_true(IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr));
	assert_int_equal(l->sslen, sizeof(*sin6));
	assert_int_equal(l->tls, 1);

	l = TAILQ_NEXT(l, entry);
	assert_non_null(l);
	assert_string_equal(l->name, "localhost");
	sin = (struct sockaddr_in *)&l->ss;
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(sin->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	assert_int_equal(l->api, 1);

	l = TAILQ_NEXT(l, entry);
	assert_non_null(l);
	assert_int_equal(l->ss.ss_family, AF_INET6);
	assert_int_equal(l->api, 1);
	assert_int_equal(l->tls, 1);
	assert_null(TAILQ_NEXT(l, entry));

	/* the file's, the included one where it was included */
	n = 0;
	TAILQ_FOREACH(wl, &conf->workloads, entry) {
		assert_int_equal(wl->source, SOURCE_CONFIG);
		n++;
	}
	assert_int_equal(n, 4);
	assert_string_equal(TAILQ_FIRST(&conf->workloads)->name, "docs");

	/* tls keypair: one per host of the workload, in its order */
	wl = find_workload(conf, "blog");
	assert_non_null(wl);
	n = 0;
	TAILQ_FOREACH(kp, &conf->keypairs, entry) {
		assert_string_equal(kp->cert, "/etc/ssl/blog.crt");
		assert_string_equal(kp->key, "/etc/ssl/private/blog.key");
		assert_string_equal(kp->host, strlist_nth(&wl->hosts, n));
		n++;
	}
	assert_int_equal(n, strlist_count(&wl->hosts));
	assert_int_equal(n, 2);

	/* depends on: a name defined further down, in the order written */
	assert_int_equal(strlist_count(&wl->depends), 1);
	assert_string_equal(strlist_nth(&wl->depends, 0), "v6");
	wl = find_workload(conf, "api-preview");
	assert_non_null(wl);
	assert_int_equal(strlist_count(&wl->depends), 2);
	assert_string_equal(strlist_nth(&wl->depends, 0), "blog");
	assert_string_equal(strlist_nth(&wl->depends, 1), "v6");

	free_config(conf);
}

/*
 * The defaults, every setting of an empty file, are good-minimal.conf.ok
 * (test_printconf); here what a print does not show.
 */
static void
test_defaults(void **state)
{
	struct orchd_conf	*conf;

	conf = parse_config(CONFDIR "good-minimal.conf", 0);
	assert_non_null(conf);
	assert_true(TAILQ_EMPTY(&conf->keypairs));
	free_config(conf);

	/* the last line needs no newline */
	conf = parse_config(CONFDIR "good-noeol.conf", 0);
	assert_non_null(conf);
	assert_non_null(find_workload(conf, "noeol"));
	assert_int_equal(find_workload(conf, "noeol")->port, 1);
	free_config(conf);
}

static void
test_example(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;

	conf = parse_config("etc/orchd.conf", 0);
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_int_equal(nlines, 0);
	assert_int_equal(conf->idle_timeout, 300);
	wl = find_workload(conf, "blog");
	assert_non_null(wl);
	assert_int_equal(wl->memory, 512LL * 1024 * 1024);
	assert_non_null(find_workload(conf, "api-preview"));
	/* a comment: its program, user and directory are not on every host */
	assert_null(find_workload(conf, "docs"));
	free_config(conf);
}

static void
test_macros(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;

	/* a later definition in the file replaces an earlier one */
	conf = parse_config(CONFDIR "good-macro.conf", 0);
	assert_non_null(conf);
	wl = find_workload(conf, "m");
	assert_non_null(wl);
	assert_int_equal(wl->port, 1112);
	free_config(conf);

	assert_int_equal(cmdline_symset("noequals"), -1);
	assert_int_equal(cmdline_symset("=value"), -1);
	assert_int_equal(cmdline_symset("bad-name=1"), -1);
	assert_int_equal(cmdline_symset("1abc=1"), -1);
	assert_int_equal(cmdline_symset("nl=a\nb"), -1);

	/* -D wins over the file, whatever the file says */
	assert_int_equal(cmdline_symset("orchd_test_port=2222"), 0);
	conf = parse_config(CONFDIR "good-macro.conf", 0);
	assert_non_null(conf);
	wl = find_workload(conf, "m");
	assert_non_null(wl);
	assert_int_equal(wl->port, 2222);
	free_config(conf);

	/* and it stays for the next parse (a reload) */
	conf = parse_config(CONFDIR "good-macro.conf", 0);
	assert_non_null(conf);
	assert_int_equal(find_workload(conf, "m")->port, 2222);
	free_config(conf);

	/* the file's macros do not survive their parse */
	assert_int_equal(cmdline_symset("orchd_test_empty="), 0);
	conf = parse_config(CONFDIR "good.conf", 0);
	assert_non_null(conf);
	free_config(conf);

	/* verbose: unused macros are reported, not errors */
	capture_reset();
	conf = parse_config(CONFDIR "good.conf", 1);
	assert_non_null(conf);
	free_config(conf);
	assert_true(nlines >= 1);
	assert_non_null(strstr(lines[0], "orchd_test_override"));
	assert_non_null(strstr(lines[0], "not used"));
}

/* write text to a temporary config, from the template path, and parse it */
static struct orchd_conf *
text_parse(const char *text, size_t len, char *path)
{
	struct orchd_conf	*conf;
	int			 fd;

	capture_reset();
	assert_int_not_equal((fd = mkstemp(path)), -1);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	conf = parse_config(path, 0);
	unlink(path);
	return (conf);
}

/* write text to a temporary config, parse it, expect the first error */
static void
bad_text(const char *text, size_t len, int line, const char *msg)
{
	struct orchd_conf	*conf;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	char			 where[64];

	conf = text_parse(text, len, path);
	if (conf != NULL)
		free_config(conf);
	assert_null(conf);
	(void)snprintf(where, sizeof(where), "%s:%d: ", path, line);
	if (nlines == 0 || strncmp(lines[0], where, strlen(where)) != 0 ||
	    strstr(lines[0], msg) == NULL) {
		print_lines();
		fail_msg("expected \"%s%s\"", where, msg);
	}
}

/* prefork: 1 when not said, and the number said, 1 to 32 */
/* include with a pattern: the files in sorted order, none is fine */
static void
test_include_glob(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	const char		*order[] = { "a", "b", "last" };
	int			 i = 0;

	conf = parse_config(CONFDIR "good-include-glob.conf", 0);
	assert_non_null(conf);
	TAILQ_FOREACH(wl, &conf->workloads, entry) {
		assert_true(i < 3);
		assert_string_equal(wl->name, order[i]);
		i++;
	}
	assert_int_equal(i, 3);
	free_config(conf);
	assert_int_equal(nlines, 0);
}

static void	roundtrip(const struct workload_conf *);

/* one port on several addresses; a workload's port beside a listener's */
static void
test_ports(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;

	conf = parse_config(CONFDIR "good-ports.conf", 0);
	assert_non_null(conf);
	assert_non_null(find_workload(conf, "c"));
	free_config(conf);
	/* one port inside two containers, published on two */
	conf = parse_config(CONFDIR "good-network.conf", 0);
	assert_non_null(conf);
	wl = find_workload(conf, "b");
	assert_non_null(wl);
	assert_int_equal(wl->network, NETWORK_NAMED);
	assert_string_equal(wl->netname, "pr-1");
	assert_int_equal(wl->port, 80);
	assert_int_equal(wl->publish, 9001);
	assert_int_equal(workload_upstream_port(wl), 9001);
	assert_string_equal(TAILQ_FIRST(&conf->api_allow_networks)->str,
	    "pr-*");
	roundtrip(wl);
	free_config(conf);
	assert_int_equal(nlines, 0);
}

static int
captured(const char *s)
{
	int	 i;

	for (i = 0; i < nlines; i++)
		if (strstr(lines[i], s) != NULL)
			return (1);
	return (0);
}

/*
 * What this host lacks, each at its line: errors when asked (orchd -n,
 * a reload), warnings at start, nothing for the parser alone.  No
 * "listen on" is a warning whenever the host is checked.
 */
static void
test_host_checks(void **state)
{
	struct orchd_conf	*conf;
	const char		*f = CONFDIR "host-checks.conf";

	parse_host_checks = PARSE_HOST_ERROR;
	assert_null(parse_config(f, 0));
	parse_host_checks = PARSE_HOST_NONE;
	assert_int_equal(nlines, 6);
	assert_true(captured("host-checks.conf:6: workload \"a\": command: "
	    "/nonexistent/orchd-test-prog: No such file or directory"));
	/* what confd keeps of a program found or not changes no answer */
	assert_true(captured("host-checks.conf:30: workload \"e\": command: "
	    "/nonexistent/orchd-test-prog: No such file or directory"));
	assert_true(captured("host-checks.conf:45: workload \"h\": command: "
	    "orchd-test-no-such-program: no such program in /usr/local/sbin:"));
	assert_true(captured("host-checks.conf:11: workload \"b\": command: "
	    "/etc/passwd: Permission denied"));
	assert_true(captured("host-checks.conf:16: workload \"c\": command: "
	    "orchd-test-no-such-program: no such program in /usr/local/sbin:"));
	assert_true(captured("host-checks.conf:22: workload \"d\": directory "
	    "/nonexistent/orchd-test-dir: No such file or directory"));
	capture_reset();

	parse_host_checks = PARSE_HOST_WARN;
	conf = parse_config(f, 0);
	parse_host_checks = PARSE_HOST_NONE;
	assert_non_null(conf);
	free_config(conf);
	assert_int_equal(nlines, 6);
	assert_true(captured("host-checks.conf:6: warning: workload \"a\""));
	capture_reset();

	conf = parse_config(f, 0);
	assert_non_null(conf);
	free_config(conf);
	assert_int_equal(nlines, 0);

	parse_host_checks = PARSE_HOST_ERROR;
	conf = parse_config(CONFDIR "good-minimal.conf", 0);
	parse_host_checks = PARSE_HOST_NONE;
	assert_non_null(conf);
	free_config(conf);
	assert_int_equal(nlines, 1);
	assert_true(captured("good-minimal.conf: warning: no \"listen on\""));
}

static void
test_prefork(void **state)
{
	struct orchd_conf	*conf;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	const char		*text = "prefork 32\n";

	conf = parse_config(CONFDIR "good.conf", 0);
	assert_non_null(conf);
	assert_int_equal(conf->gateway.prefork, 1);
	free_config(conf);

	conf = text_parse(text, strlen(text), path);
	assert_non_null(conf);
	assert_int_equal(conf->gateway.prefork, 32);
	free_config(conf);

	/* its errors: bad-prefork.conf (test_printconf) */
}

/*
 * The memory budget: none, no cap and no pressure limit unless said;
 * a size or auto; a percentage with its sign; each said once.
 */
static void
test_budget(void **state)
{
	struct orchd_conf	*conf;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	char			 buf[16];
	const char		*t, *errstr;
	int64_t			 v;

	t = "listen on 127.0.0.1 port 80\n";
	conf = text_parse(t, strlen(t), path);
	assert_non_null(conf);
	assert_int_equal(conf->memory_budget, 0);
	assert_int_equal(conf->memory_estimate, ORCHD_MEMORY_ESTIMATE);
	assert_int_equal(conf->max_wakes, 0);
	assert_int_equal(conf->pressure_limit, 0);
	free_config(conf);

	t = "memory budget 2G\nmemory estimate 64M\nmax concurrent wakes 2\n"
	    "memory pressure limit 10%\n";
	(void)strlcpy(path, "/tmp/orchd-test-XXXXXX", sizeof(path));
	conf = text_parse(t, strlen(t), path);
	assert_non_null(conf);
	assert_int_equal(conf->memory_budget, 2LL * 1024 * 1024 * 1024);
	assert_int_equal(conf->memory_estimate, 64 * 1024 * 1024);
	assert_int_equal(conf->max_wakes, 2);
	assert_int_equal(conf->pressure_limit, 1000);
	free_config(conf);

	t = "memory budget auto\nmemory pressure limit off\n";
	(void)strlcpy(path, "/tmp/orchd-test-XXXXXX", sizeof(path));
	conf = text_parse(t, strlen(t), path);
	assert_non_null(conf);
	assert_int_equal(conf->memory_budget, -1);
	assert_int_equal(conf->pressure_limit, 0);
	free_config(conf);

	/* its errors: bad-budget.conf (test_printconf) */

	/* the percentages, both ways */
	assert_int_equal(parse_percent("2.5%", &v, &errstr), 0);
	assert_int_equal(v, 250);
	assert_string_equal(fmt_percent(v, buf, sizeof(buf)), "2.5%");
	assert_int_equal(parse_percent("0.25%", &v, &errstr), 0);
	assert_int_equal(v, 25);
	assert_string_equal(fmt_percent(v, buf, sizeof(buf)), "0.25%");
	assert_int_equal(parse_percent("100%", &v, &errstr), 0);
	assert_int_equal(v, 10000);
	assert_string_equal(fmt_percent(v, buf, sizeof(buf)), "100%");
	assert_int_equal(parse_percent("1.234%", &v, &errstr), -1);
	assert_int_equal(parse_percent(".5%", &v, &errstr), -1);
	assert_int_equal(parse_percent("5.%", &v, &errstr), -1);
	assert_int_equal(parse_percent("5", &v, &errstr), -1);
	assert_int_equal(parse_percent("5%%", &v, &errstr), -1);
	assert_int_equal(parse_percent("99999%", &v, &errstr), -1);
}

/* text_parse with a fresh name each time */
static struct orchd_conf *
filters_parse(const char *text, size_t len)
{
	char	 path[] = "/tmp/orchd-test-XXXXXX";

	return (text_parse(text, len, path));
}

/*
 * Requests that are not use, idle tunnels and Server-Timing: global and
 * per workload, the workload's ignores after the global ones.
 */
static void
test_filters(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	struct ignore_rule	*r;
	char			 text[4096];
	const char		*t;
	size_t			 n;
	int			 i;

	/* the defaults: nothing ignored, tunnels count, Server-Timing on */
	t = "listen on 127.0.0.1 port 80\n";
	conf = filters_parse(t, strlen(t));
	assert_non_null(conf);
	assert_true(TAILQ_EMPTY(&conf->ignores));
	assert_int_equal(conf->tunnel_idle, 0);
	assert_int_equal(conf->server_timing, 1);
	free_config(conf);

	t = "ignore path \"/up\"\n"
	    "ignore agent \"UptimeRobot/*\" answer 200\n"
	    "ignore from 192.0.2.0/24 answer 503\n"
	    "ignore from ::1\n"
	    "tunnel idle timeout 30m\n"
	    "server timing off\n"
	    "workload \"a\" {\n\thost \"a.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 8000\n\tignore path /up\n\tignore path \"/x/*\" answer 200\n"
	    "\ttunnel idle timeout 2s\n\tserver timing on\n}\n"
	    "workload \"b\" {\n\thost \"b.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 8001\n}\n";
	conf = filters_parse(t, strlen(t));
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_int_equal(conf->tunnel_idle, 30 * 60);
	assert_int_equal(conf->server_timing, 0);
	r = TAILQ_FIRST(&conf->ignores);
	assert_int_equal(r->kind, IGNORE_PATH);
	assert_string_equal(r->pattern, "/up");
	assert_int_equal(r->answer, 503);
	r = TAILQ_NEXT(r, entry);
	assert_int_equal(r->kind, IGNORE_AGENT);
	assert_string_equal(r->pattern, "UptimeRobot/*");
	assert_int_equal(r->answer, 200);
	r = TAILQ_NEXT(r, entry);
	assert_int_equal(r->kind, IGNORE_FROM);
	assert_string_equal(r->pattern, "192.0.2.0/24");
	assert_int_equal(r->answer, 503);
	r = TAILQ_NEXT(r, entry);
	assert_string_equal(r->pattern, "::1");
	assert_null(TAILQ_NEXT(r, entry));
	/* a workload's own: the same path as a global one is no clash */
	wl = find_workload(conf, "a");
	assert_non_null(wl);
	assert_int_equal(wl->tunnel_idle, 2);
	assert_int_equal(wl->server_timing, 1);
	r = TAILQ_FIRST(&wl->ignores);
	assert_string_equal(r->pattern, "/up");
	r = TAILQ_NEXT(r, entry);
	assert_string_equal(r->pattern, "/x/*");
	assert_int_equal(r->answer, 200);
	assert_null(TAILQ_NEXT(r, entry));
	wl = find_workload(conf, "b");
	assert_true(TAILQ_EMPTY(&wl->ignores));
	assert_int_equal(wl->tunnel_idle, -1);
	assert_int_equal(wl->server_timing, -1);
	free_config(conf);

	/* the errors, each at its line: bad-filters.conf (test_printconf) */

	/* ORCHD_IGNORE_MAX of them, not one more */
	for (i = 0, n = 0; i <= ORCHD_IGNORE_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n,
		    "ignore path \"/%d\"\n", i);
	bad_text(text, n, ORCHD_IGNORE_MAX + 1, "more than 32 ignore rules");
	text[n - strlen("ignore path \"/32\"\n")] = '\0';
	conf = filters_parse(text, strlen(text));
	assert_non_null(conf);
	free_config(conf);
}

/*
 * Docker images: "pull" and "pull timeout", global and per docker
 * workload, "registry auth file"; their JSON fields, what they refuse.
 */
static void
test_pull(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl, *back;
	char			*json, err[256];
	const char		*t;

	/* the defaults: missing, 5m, no logins */
	t = "listen on 127.0.0.1 port 80\n";
	conf = filters_parse(t, strlen(t));
	assert_non_null(conf);
	assert_int_equal(conf->pull, PULL_MISSING);
	assert_int_equal(conf->pull_timeout, ORCHD_PULL_TIMEOUT);
	assert_null(conf->regauth_file);
	free_config(conf);

	t = "pull always\npull timeout 10m\n"
	    "registry auth file \"/etc/orchd/registry.json\"\n"
	    "workload \"a\" {\n\thost \"a.test\"\n\tdriver docker\n"
	    "\timage \"r.test/a:1\"\n\tport 8000\n\tpull never\n"
	    "\tpull timeout 90s\n}\n"
	    "workload \"b\" {\n\thost \"b.test\"\n\tdriver docker\n"
	    "\timage \"b\"\n\tport 8001\n}\n";
	conf = filters_parse(t, strlen(t));
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_int_equal(conf->pull, PULL_ALWAYS);
	assert_int_equal(conf->pull_timeout, 600);
	assert_string_equal(conf->regauth_file, "/etc/orchd/registry.json");
	wl = find_workload(conf, "a");
	assert_int_equal(wl->pull, PULL_NEVER);
	assert_int_equal(wl->pull_timeout, 90);
	json = workload_to_json(wl);
	assert_non_null(strstr(json, "\"pull\":\"never\",\"pull_timeout\":90"));
	back = workload_from_json(json, strlen(json), err, sizeof(err));
	assert_non_null(back);
	assert_int_equal(back->pull, PULL_NEVER);
	assert_int_equal(back->pull_timeout, 90);
	workload_free(back);
	free(json);
	/* left to the global setting: not in its JSON */
	wl = find_workload(conf, "b");
	assert_int_equal(wl->pull, -1);
	assert_int_equal(wl->pull_timeout, -1);
	json = workload_to_json(wl);
	assert_null(strstr(json, "pull"));
	free(json);
	free_config(conf);

	/* the errors, each at its line: bad-pull.conf (test_printconf) */

	/* the API's form of them */
	t = "{\"name\":\"a\",\"hosts\":[\"a.test\"],\"driver\":\"docker\","
	    "\"image\":\"a\",\"port\":1,\"pull\":\"always\","
	    "\"pull_timeout\":\"2m\"}";
	wl = workload_from_json(t, strlen(t), err, sizeof(err));
	assert_non_null(wl);
	assert_int_equal(wl->pull, PULL_ALWAYS);
	assert_int_equal(wl->pull_timeout, 120);
	workload_free(wl);
	t = "{\"name\":\"a\",\"hosts\":[\"a.test\"],\"driver\":\"docker\","
	    "\"image\":\"a\",\"port\":1,\"pull\":\"sometimes\"}";
	assert_null(workload_from_json(t, strlen(t), err, sizeof(err)));
	assert_string_equal(err, "field \"pull\": must be \"missing\", "
	    "\"always\" or \"never\"");
	t = "{\"name\":\"a\",\"hosts\":[\"a.test\"],\"driver\":\"docker\","
	    "\"image\":\"a\",\"port\":1,\"pull_timeout\":0}";
	assert_null(workload_from_json(t, strlen(t), err, sizeof(err)));
	assert_string_equal(err, "field \"pull_timeout\": must be positive");
	t = "{\"name\":\"a\",\"hosts\":[\"a.test\"],"
	    "\"command\":\"/bin/true\",\"port\":1,\"pull\":\"never\"}";
	assert_null(workload_from_json(t, strlen(t), err, sizeof(err)));
	assert_string_equal(err, "pull is only for driver docker");
}

/*
 * access log: none, combined and no log cap when not said; a file or
 * syslog, a format, a cap (bad-access-log.conf's errors: test_printconf).
 */
static void
test_access_log(void **state)
{
	struct orchd_conf	*conf;
	char			 path[32];
	const char		*text;

	conf = parse_config(CONFDIR "good-minimal.conf", 0);
	assert_non_null(conf);
	assert_null(conf->access_log);
	assert_int_equal(conf->access_log_syslog, 0);
	assert_int_equal(conf->access_log_format, ACCESS_LOG_COMBINED);
	assert_int_equal(conf->log_max_size, 0);
	free_config(conf);

	text = "access log \"/var/log/orchd/access.log\"\n"
	    "access log format json\nlog max size 64K\n";
	strlcpy(path, "/tmp/orchd-test-XXXXXX", sizeof(path));
	conf = text_parse(text, strlen(text), path);
	assert_non_null(conf);
	assert_string_equal(conf->access_log, "/var/log/orchd/access.log");
	assert_int_equal(conf->access_log_syslog, 0);
	assert_int_equal(conf->access_log_format, ACCESS_LOG_JSON);
	assert_int_equal(conf->log_max_size, 64 * 1024);
	free_config(conf);

	/* syslog, bare or quoted: a file's name is absolute */
	text = "access log syslog\n";
	strlcpy(path, "/tmp/orchd-test-XXXXXX", sizeof(path));
	conf = text_parse(text, strlen(text), path);
	assert_non_null(conf);
	assert_null(conf->access_log);
	assert_int_equal(conf->access_log_syslog, 1);
	free_config(conf);
	text = "access log \"syslog\"\n";
	strlcpy(path, "/tmp/orchd-test-XXXXXX", sizeof(path));
	conf = text_parse(text, strlen(text), path);
	assert_non_null(conf);
	assert_int_equal(conf->access_log_syslog, 1);
	free_config(conf);
	/* the errors: bad-access-log*.conf (test_printconf) */
}

#define TCPWL(name, port, extra) "workload \"" name "\" {\n" \
	"\thost \"" name ".test\"\n\tcommand \"/bin/true\"\n" \
	"\tport " port "\n" extra "}\n"

/*
 * "listen on" in a workload block: its own raw TCP listeners, kept by
 * the workload as "ADDRESS:PORT" and among the parent's listeners with
 * the workload's name; checked against every other listener and every
 * workload's port, each error at its line.
 */
static void
test_tcp_listen(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	struct listener_conf	*l;
	char			 text[4096];
	const char		*t;
	size_t			 n;
	int			 i, nwl = 0, nhttp = 0;

	t = "listen on 127.0.0.1 port 8080\n"
	    TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432\n"
	    "\tlisten on ::1 port 5432\n\tlisten on \"[::1]\" port 5433\n")
	    TCPWL("cache", "16379", "\tlisten on * port 6379\n")
	    TCPWL("web", "8000", "");
	conf = filters_parse(t, strlen(t));
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	wl = find_workload(conf, "db");
	assert_int_equal(strlist_count(&wl->listens), 3);
	assert_string_equal(strlist_nth(&wl->listens, 0), "127.0.0.1:5432");
	assert_string_equal(strlist_nth(&wl->listens, 1), "[::1]:5432");
	assert_string_equal(strlist_nth(&wl->listens, 2), "[::1]:5433");
	wl = find_workload(conf, "cache");
	assert_string_equal(strlist_nth(&wl->listens, 0), "*:6379");
	assert_true(TAILQ_EMPTY(&find_workload(conf, "web")->listens));
	TAILQ_FOREACH(l, &conf->listeners, entry) {
		if (l->workload[0] == '\0') {
			nhttp++;
			continue;
		}
		nwl++;
		assert_false(l->api);
		assert_false(l->tls);
		assert_true(strcmp(l->workload, "db") == 0 ||
		    strcmp(l->workload, "cache") == 0);
	}
	assert_int_equal(nhttp, 1);
	assert_int_equal(nwl, 4);
	/* a workload's JSON carries them, and reads them back */
	roundtrip(find_workload(conf, "db"));
	free_config(conf);
	assert_int_equal(nlines, 0);

	/* reached by its TCP listener alone: no host needed */
	t = "workload \"db\" {\n\tcommand \"/bin/true\"\n\tport 15432\n"
	    "\tlisten on 127.0.0.1 port 5432\n}\n";
	conf = filters_parse(t, strlen(t));
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_true(TAILQ_EMPTY(&find_workload(conf, "db")->hosts));
	roundtrip(find_workload(conf, "db"));
	free_config(conf);

	/* only workload listeners: still "no listen on" for HTTP */
	parse_host_checks = PARSE_HOST_WARN;
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432\n");
	conf = filters_parse(t, strlen(t));
	parse_host_checks = PARSE_HOST_NONE;
	assert_non_null(conf);
	free_config(conf);
	assert_true(captured("no \"listen on\""));

	/* the gateway's, another workload's, its own port, any order */
	t = "listen on 127.0.0.1 port 8080\n"
	    TCPWL("db", "15432", "\tlisten on * port 8080\n");
	bad_text(t, strlen(t), 6, "listen on * port 8080: overlaps listen on "
	    "127.0.0.1");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432\n")
	    "listen on 127.0.0.1 port 5432\n";
	bad_text(t, strlen(t), 7, "overlaps workload \"db\"'s listen on "
	    "127.0.0.1");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432\n")
	    TCPWL("db2", "15433", "\tlisten on 127.0.0.1 port 5432\n");
	bad_text(t, strlen(t), 11, "overlaps workload \"db\"'s listen on");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432\n")
	    TCPWL("app", "5432", "");
	bad_text(t, strlen(t), 7, "workload \"app\": address 127.0.0.1 port "
	    "5432 is workload \"db\"'s listen on 127.0.0.1");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 15432\n");
	bad_text(t, strlen(t), 1, "workload \"db\": address 127.0.0.1 port "
	    "15432 is workload \"db\"'s listen on");
	t = TCPWL("db", "15432", "\tlisten on db.example.com port 5432\n");
	bad_text(t, strlen(t), 5, "invalid listen address \"db.example.com\"");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 0\n");
	bad_text(t, strlen(t), 5, "invalid port 0");
	t = TCPWL("db", "15432", "\tlisten on 127.0.0.1 port 5432 tls "
	    "certificate \"c\" key \"k\"\n");
	bad_text(t, strlen(t), 5, "syntax error");

	/* ORCHD_LISTEN_MAX of them, not one more */
	n = snprintf(text, sizeof(text), "workload \"db\" {\n\thost \"d.test\""
	    "\n\tcommand \"/bin/true\"\n\tport 15432\n");
	for (i = 0; i <= ORCHD_LISTEN_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n,
		    "\tlisten on 127.0.0.1 port %d\n", 5000 + i);
	n += snprintf(text + n, sizeof(text) - n, "}\n");
	bad_text(text, n, 5 + ORCHD_LISTEN_MAX, "more than 8 listen on");
}

/* the parent's lookup, as a test sees users: _orchd 500, www 61190 */
static int
fake_lookup(const char *name, uid_t *uid, gid_t *gid)
{
	if (strcmp(name, "_orchd") == 0)
		*uid = 500;
	else if (strcmp(name, "toor") == 0)
		*uid = 0;
	else if (strcmp(name, "alias") == 0)
		*uid = 500;
	else if (strcmp(name, "www") == 0)
		*uid = 61190;
	else
		return (-1);
	*gid = *uid;
	return (0);
}

#define WL(user) "workload \"a\" {\n\thost \"a.example.com\"\n" \
	"\tcommand \"/bin/true\"\n\tport 8000\n" user "}\n"

/*
 * Process workloads' identities: the range of their uids, where their
 * state directories go, and users they may never run as.
 */
/* text_parse with a fresh name each time */
static struct orchd_conf *
id_parse(const char *text, size_t len)
{
	char	 path[] = "/tmp/orchd-test-XXXXXX";

	return (text_parse(text, len, path));
}

/* "socket activation": a process workload's, once, no LISTEN_ in env */
static void
test_sockact(void **state)
{
	struct orchd_conf	*conf;
	const char		*text;

	text = WL("\tsocket activation\n");
	conf = id_parse(text, strlen(text));
	assert_non_null(conf);
	assert_int_equal(TAILQ_FIRST(&conf->workloads)->socket_activation, 1);
	free_config(conf);
	text = WL("\tsocket activation\n\tsocket activation\n");
	bad_text(text, strlen(text), 6, "socket activation already set");
	text = WL("\tsocket activation\n\tenv \"LISTEN_FDS=2\"\n");
	bad_text(text, strlen(text), 1, "the LISTEN_ variables are orchd's");
	text = "workload \"d\" {\n\thost \"d.example.com\"\n"
	    "\tdriver docker\n\timage \"x\"\n\tport 80\n"
	    "\tsocket activation\n}\n";
	bad_text(text, strlen(text), 1, "Docker cannot pass a listening "
	    "socket");
}

static void
test_identities(void **state)
{
	struct orchd_conf	*conf;
	const char		*text;

	conf = id_parse(WL(""), strlen(WL("")));
	assert_non_null(conf);
	assert_int_equal(conf->wl_uid_low, ORCHD_WL_UID_LOW);
	assert_int_equal(conf->wl_uid_high, ORCHD_WL_UID_HIGH);
	/* beside the database's directory */
	assert_string_equal(conf->wl_dir, "/var/lib/orchd-workloads");
	free_config(conf);

	text = "database \"/orchd.db\"\n";
	conf = id_parse(text, strlen(text));
	assert_non_null(conf);
	assert_string_equal(conf->wl_dir, "/orchd-workloads");
	free_config(conf);

	text = "workload uids 70000-70009\nworkload directory \"/srv/w\"\n"
	    WL("\tuser \"www\"\n");
	conf = id_parse(text, strlen(text));
	assert_non_null(conf);
	assert_int_equal(conf->wl_uid_low, 70000);
	assert_int_equal(conf->wl_uid_high, 70009);
	assert_string_equal(conf->wl_dir, "/srv/w");
	free_config(conf);

	bad_text("workload uids 10-5\n", 19, 1, "10 is above 5");
	bad_text("workload uids 0-5\n", 18, 1, "too small");
	bad_text("workload uids 5\n", 16, 1, "LOW-HIGH");
	bad_text("workload uids 1-4294967295\n", 28, 1, "too large");
	bad_text("\nworkload uids 1-2\nworkload uids 1-2\n", 37, 3,
	    "already set");
	bad_text("workload directory \"w\"\n", 23, 1, "absolute path");

	/* by name, with or without the parent's lookup */
	text = WL("\tuser \"root\"\n");
	bad_text(text, strlen(text), 5, "a process workload never runs as root");
	text = WL("\tuser \"_orchd\"\n");
	bad_text(text, strlen(text), 5, "the daemons' user");
	/* the daemons' user is known once the file is read */
	text = WL("\tuser \"_x\"\n") "user \"_x\"\n";
	bad_text(text, strlen(text), 5, "the daemons' user");
	/* docker's user is the image's, not the host's (with allow root) */
	text = "workload \"d\" {\n\thost \"d.example.com\"\n"
	    "\tdriver docker\n\timage \"x\"\n\tport 80\n"
	    "\tuser \"root\"\n\tallow root\n}\n";
	conf = id_parse(text, strlen(text));
	assert_non_null(conf);
	free_config(conf);

	/* by uid, where users can be looked up */
	parse_user_lookup = fake_lookup;
	text = WL("\tuser \"toor\"\n");
	bad_text(text, strlen(text), 5, "has uid 0, root's");
	text = WL("\tuser \"alias\"\n");
	bad_text(text, strlen(text), 5, "has uid 500, the daemons' user's");
	/* one that does not exist is for the start to say */
	text = WL("\tuser \"nosuch\"\n");
	conf = id_parse(text, strlen(text));
	assert_non_null(conf);
	free_config(conf);
	text = "\n\nworkload uids 400-600\n";
	bad_text(text, strlen(text), 3, "hold uid 500 of the daemons' user");
	parse_user_lookup = NULL;
}

/*
 * 2,000 workloads, each name and host checked against all the others:
 * a clash is found whichever workload it is with, hosts compared without
 * case, and every workload that clashes with none is kept.
 */
static void
many_text(char *buf, size_t size, const char *last)
{
	size_t	 off = 0;
	int	 i, n;

	for (i = 0; i < 2000; i++) {
		n = snprintf(buf + off, size - off, "workload \"w%d\" {\n"
		    "\thost \"w%d.example.com\"\n\tcommand \"/bin/true\"\n"
		    "\tport %d\n}\n", i, i, 10000 + i);
		assert_true(n > 0 && (size_t)n < size - off);
		off += n;
	}
	assert_true(strlcpy(buf + off, last, size - off) < size - off);
}

static void
test_many(void **state)
{
	static char		 text[256 * 1024];
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	int			 n = 0;

	/* 5 lines a workload: the one added is on line 10001 */
	many_text(text, sizeof(text), "workload \"w1234\" {\n");
	bad_text(text, strlen(text), 10001, "workload \"w1234\" defined twice");
	many_text(text, sizeof(text), "workload \"x\" {\n"
	    "\thost \"W1999.Example.COM\"\n}\n");
	bad_text(text, strlen(text), 10002,
	    "host \"W1999.Example.COM\" already used by workload \"w1999\"");
	many_text(text, sizeof(text), "api host \"w0.example.com\"\n");
	bad_text(text, strlen(text), 10001,
	    "api host \"w0.example.com\" already used by workload \"w0\"");

	many_text(text, sizeof(text), "workload \"w2000\" {\n"
	    "\thost \"w2000.example.com\"\n\tcommand \"/bin/true\"\n"
	    "\tport 9999\n}\n");
	conf = text_parse(text, strlen(text), path);
	assert_non_null(conf);
	TAILQ_FOREACH(wl, &conf->workloads, entry)
		n++;
	assert_int_equal(n, 2001);
	free_config(conf);
}

/*
 * n workloads, w0 to w(n-1), each depending on the next; with cycle, the
 * last on the first.  6 lines a workload, its "depends on" the fifth.
 */
static void
chain_text(char *buf, size_t size, int n, int cycle)
{
	size_t	 off = 0;
	int	 i, k;

	for (i = 0; i < n; i++) {
		k = snprintf(buf + off, size - off, "workload \"w%d\" {\n"
		    "\thost \"w%d.example.com\"\n\tcommand \"/bin/true\"\n"
		    "\tport %d\n", i, i, 10000 + i);
		assert_true(k > 0 && (size_t)k < size - off);
		off += k;
		if (i + 1 < n || cycle)
			k = snprintf(buf + off, size - off, "\tdepends on "
			    "\"w%d\"\n}\n", (i + 1) % n);
		else
			k = snprintf(buf + off, size - off, "\n}\n");
		assert_true(k > 0 && (size_t)k < size - off);
		off += k;
	}
}

/* the graph of depends on: chains, their length, cycles, many at once */
static void
test_depends(void **state)
{
	static char		 text[256 * 1024];
	static const char	 diamond[] =
	    "workload \"a\" {\n\thost \"a.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 1\n\tdepends on \"b\"\n\tdepends on \"c\"\n}\n"
	    "workload \"b\" {\n\thost \"b.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 2\n\tdepends on \"d\"\n}\n"
	    "workload \"c\" {\n\thost \"c.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 3\n\tdepends on \"d\"\n}\n"
	    "workload \"d\" {\n\thost \"d.test\"\n\tcommand \"/bin/true\"\n"
	    "\tport 4\n}\n";
	struct orchd_conf	*conf;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	char			 path2[] = "/tmp/orchd-test-XXXXXX";
	char			 path3[] = "/tmp/orchd-test-XXXXXX";
	const char		*p;

	/* two ways to one: no cycle */
	conf = text_parse(diamond, strlen(diamond), path);
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	free_config(conf);

	/* 16 dependencies deep is allowed, 17 is not: at w0's */
	chain_text(text, sizeof(text), 17, 0);
	conf = text_parse(text, strlen(text), path2);
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	free_config(conf);
	chain_text(text, sizeof(text), 18, 0);
	bad_text(text, strlen(text), 5, "workload \"w0\": depends on \"w1\": "
	    "a chain of dependencies longer than 16");
	assert_int_equal(nlines, 1);

	/* 2000 around: the cycle at the last, its path cut short */
	chain_text(text, sizeof(text), 2000, 1);
	bad_text(text, strlen(text), 1999 * 6 + 5, "workload \"w1999\": "
	    "depends on \"w0\": a cycle: w0 -> w1 -> w2 -> ");
	p = lines[0] + strlen(lines[0]) - 3;
	assert_string_equal(p, "...");
	assert_int_equal(nlines, 1);

	/* each problem of a file, unknown names first */
	chain_text(text, sizeof(text), 3, 1);
	assert_true(strlcat(text, "workload \"x\" {\n\thost \"x.test\"\n"
	    "\tcommand \"/bin/true\"\n\tport 9\n\tdepends on \"nothere\"\n"
	    "}\n", sizeof(text)) < sizeof(text));
	conf = text_parse(text, strlen(text), path3);
	assert_null(conf);
	if (nlines != 2)
		print_lines();
	assert_int_equal(nlines, 2);
	assert_non_null(strstr(lines[0], ":23: workload \"x\": depends on "
	    "\"nothere\": no such workload"));
	assert_non_null(strstr(lines[1], ":17: workload \"w2\": depends on "
	    "\"w0\": a cycle: w0 -> w1 -> w2 -> w0"));
}

/* depends_on in JSON: the same rules as the file's */
static void
test_depends_json(void **state)
{
	static const struct {
		const char	*deps;
		const char	*err;		/* NULL: valid */
	} cases[] = {
		{ "[\"db\", \"cache\"]", NULL },
		{ "[]", NULL },
		{ "[\"db\", \"db\"]", "depends on \"db\" twice" },
		{ "[\"app\"]", "depends on itself" },
		{ "[\"bad name\"]", "depends on \"bad name\": not a workload "
		    "name" },
		{ "[\"\"]", "not a workload name" },
		{ "\"db\"", "field \"depends_on\": must be an array of "
		    "strings" },
		{ "[1]", "must be an array of strings" },
	};
	struct workload_conf	*wl;
	char			 json[4096], err[256], *out;
	size_t			 i;
	int			 n;

	for (i = 0; i < nitems(cases); i++) {
		n = snprintf(json, sizeof(json), "{\"name\": \"app\", "
		    "\"hosts\": [\"app.test\"], \"command\": \"/bin/true\", "
		    "\"port\": 80, \"depends_on\": %s}", cases[i].deps);
		assert_true(n > 0 && (size_t)n < sizeof(json));
		err[0] = '\0';
		wl = workload_from_json(json, strlen(json), err, sizeof(err));
		if (cases[i].err == NULL) {
			if (wl == NULL)
				fail_msg("%s: %s", cases[i].deps, err);
			out = workload_to_json(wl);
			assert_non_null(out);
			/* written only when there are some */
			assert_true((strstr(out, "\"depends_on\"") != NULL) ==
			    !TAILQ_EMPTY(&wl->depends));
			free(out);
			workload_free(wl);
			continue;
		}
		if (wl != NULL)
			fail_msg("%s: accepted", cases[i].deps);
		if (strstr(err, cases[i].err) == NULL)
			fail_msg("%s: \"%s\", expected \"%s\"", cases[i].deps,
			    err, cases[i].err);
	}

	/* at most ORCHD_DEPS_MAX */
	n = snprintf(json, sizeof(json), "{\"name\": \"app\", \"hosts\": "
	    "[\"app.test\"], \"command\": \"/bin/true\", \"port\": 80, "
	    "\"depends_on\": [");
	for (i = 0; i <= ORCHD_DEPS_MAX; i++)
		n += snprintf(json + n, sizeof(json) - n, "%s\"d%zu\"",
		    i > 0 ? ", " : "", i);
	assert_true((size_t)n + 3 < sizeof(json));
	strlcat(json, "]}", sizeof(json));
	assert_null(workload_from_json(json, strlen(json), err, sizeof(err)));
	assert_non_null(strstr(err, "depends on more than 32 workloads"));
}

static void
test_bad_bytes(void **state)
{
	static char	 big[20016];
	size_t		 n;

	bad_text("user \"a\0b\"\n", 11, 1, "invalid character 0x00");
	bad_text("user \"a\x01\"\n", 10, 1, "invalid character 0x01");
	bad_text("\nuser \"\xff\xfe\"\n", 11, 2, "invalid UTF-8");
	bad_text("\0", 1, 1, "invalid character 0x00");
	bad_text("\n\n\x80\n", 4, 3, "invalid character 0x80");
	bad_text("user \"x", 7, 1, "unterminated quoted string");
	bad_text("$", 1, 1, "'$' without a macro name");
	bad_text("a = \"$b\"\nuser $a $\n", 18, 2, "syntax error");
	bad_text("a = \"x\"\nb = \"$a\"\nuser $b\n", 24, 3, "syntax error");
	bad_text("x = docker\n", 11, 1, "syntax error near \"docker\"");
	bad_text("\nx = \"a\" b\n", 12, 2, "syntax error near \"b\"");
	bad_text("workload \"w\" {\n\tprot 80\n}\n", 26, 2,
	    "unknown keyword \"prot\"");
	bad_text("include \"/dev/null\"\n", 20, 1, "not a regular file");
	bad_text("include \"/\"\n", 12, 1, "not a regular file");

	/* a token longer than the lexer takes */
	n = sizeof(big) - 16;
	memcpy(big, "user \"", 6);
	memset(big + 6, 'a', n);
	memcpy(big + 6 + n, "\"\n", 2);
	bad_text(big, n + 8, 1, "string too long");
	memset(big, 'b', n);
	big[n] = '\n';
	bad_text(big, n + 1, 1, "string too long");

	/* nonexistent top file: one warning, no file:line */
	capture_reset();
	assert_null(parse_config(CONFDIR "does-not-exist.conf", 0));
	assert_int_equal(nlines, 1);
}

/* an include of itself is a loop, found at once */
static void
test_include_self(void **state)
{
	struct orchd_conf	*conf;
	char			 path[] = "/tmp/orchd-test-XXXXXX";
	char			 text[128];
	int			 fd, len;

	capture_reset();
	assert_int_not_equal((fd = mkstemp(path)), -1);
	len = snprintf(text, sizeof(text), "# self\ninclude \"%s\"\n", path);
	assert_int_equal(write(fd, text, len), len);
	close(fd);
	conf = parse_config(path, 0);
	unlink(path);
	assert_null(conf);
	assert_int_equal(nlines, 1);
	assert_non_null(strstr(lines[0], ":2: include"));
	assert_non_null(strstr(lines[0], "include loop"));
}

static void
assert_strings_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void
assert_strlists_equal(const struct strlist *a, const struct strlist *b)
{
	const struct strentry	*ea, *eb;

	for (ea = TAILQ_FIRST(a), eb = TAILQ_FIRST(b);
	    ea != NULL && eb != NULL;
	    ea = TAILQ_NEXT(ea, entry), eb = TAILQ_NEXT(eb, entry))
		assert_string_equal(ea->str, eb->str);
	assert_null(ea);
	assert_null(eb);
}

static void
assert_workloads_equal(const struct workload_conf *a,
    const struct workload_conf *b)
{
	const struct volume	*va, *vb;

	assert_string_equal(a->name, b->name);
	assert_int_equal(a->driver, b->driver);
	assert_int_equal(a->source, b->source);
	assert_strlists_equal(&a->hosts, &b->hosts);
	assert_strings_equal(a->command, b->command);
	assert_strings_equal(a->image, b->image);
	assert_strings_equal(a->runtime, b->runtime);
	assert_int_equal(a->network, b->network);
	assert_strings_equal(a->netname, b->netname);
	assert_strlists_equal(&a->env, &b->env);
	for (va = TAILQ_FIRST(&a->volumes), vb = TAILQ_FIRST(&b->volumes);
	    va != NULL && vb != NULL;
	    va = TAILQ_NEXT(va, entry), vb = TAILQ_NEXT(vb, entry)) {
		assert_string_equal(va->host, vb->host);
		assert_string_equal(va->container, vb->container);
	}
	assert_null(va);
	assert_null(vb);
	assert_strings_equal(a->user, b->user);
	assert_strings_equal(a->directory, b->directory);
	assert_strings_equal(a->address, b->address);
	assert_int_equal(a->port, b->port);
	assert_int_equal(a->publish, b->publish);
	assert_int_equal(a->health, b->health);
	assert_strings_equal(a->health_path, b->health_path);
	assert_strings_equal(a->busy_path, b->busy_path);
	assert_int_equal(a->busy_max, b->busy_max);
	assert_int_equal(a->busy_fail_safe, b->busy_fail_safe);
	assert_int_equal(a->health_interval, b->health_interval);
	assert_int_equal(a->health_timeout, b->health_timeout);
	assert_int_equal(a->health_failures, b->health_failures);
	assert_int_equal(a->idle_timeout, b->idle_timeout);
	assert_int_equal(a->wake_timeout, b->wake_timeout);
	assert_int_equal(a->memory, b->memory);
	assert_int_equal(a->keep_warm, b->keep_warm);
	assert_int_equal(a->init, b->init);
	assert_int_equal(a->stop_signal, b->stop_signal);
	assert_int_equal(a->stop_timeout, b->stop_timeout);
	assert_strlists_equal(&a->listens, &b->listens);
}

static void
roundtrip(const struct workload_conf *wl)
{
	struct workload_conf	*back;
	char			*json, *json2, err[256];

	json = workload_to_json(wl);
	assert_non_null(json);
	back = workload_from_json(json, strlen(json), err, sizeof(err));
	if (back == NULL)
		fail_msg("%s: %s", json, err);
	assert_workloads_equal(wl, back);
	json2 = workload_to_json(back);
	assert_non_null(json2);
	assert_string_equal(json, json2);
	free(json);
	free(json2);
	workload_free(back);
}

static void
test_json_roundtrip(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	struct volume		*v;
	char			*json, err[256];
	int			 n = 0;

	conf = parse_config(CONFDIR "good.conf", 0);
	assert_non_null(conf);
	TAILQ_FOREACH(wl, &conf->workloads, entry) {
		assert_int_equal(workload_validate(wl, err, sizeof(err)), 0);
		roundtrip(wl);
		n++;
	}
	assert_int_equal(n, 4);

	/* the exact form, for one workload */
	wl = find_workload(conf, "docs");
	json = workload_to_json(wl);
	assert_string_equal(json,
	    "{\"name\":\"docs\",\"driver\":\"process\",\"source\":\"config\","
	    "\"hosts\":[\"docs.example.com\"],"
	    "\"command\":\"/usr/local/bin/docs-server --port 9001\","
	    "\"network\":\"bridge\",\"env\":[],\"volumes\":[],"
	    "\"user\":\"_docs\",\"directory\":\"/var/www/docs\","
	    "\"address\":\"127.0.0.1\",\"port\":9001,\"health\":\"tcp\","
	    "\"idle_timeout\":0,\"keep_warm\":true}");
	free(json);
	free_config(conf);

	/* built by hand: several volumes, quotes, UTF-8, the API source */
	wl = workload_new("hand");
	assert_non_null(wl);
	assert_string_equal(wl->address, "127.0.0.1");
	assert_int_equal(wl->idle_timeout, -1);
	assert_int_equal(wl->wake_timeout, -1);
	assert_int_equal(wl->stop_timeout, -1);
	assert_int_equal(wl->stop_signal, 0);
	assert_int_equal(wl->init, -1);
	assert_int_equal(wl->driver, DRIVER_PROCESS);
	assert_int_equal(wl->network, NETWORK_BRIDGE);
	assert_int_equal(wl->health, HEALTH_TCP);
	wl->driver = DRIVER_DOCKER;
	wl->source = SOURCE_API;
	assert_int_equal(strlist_add(&wl->hosts, "hand.example.com"), 0);
	assert_int_equal(strlist_add(&wl->hosts, "*.hand.example.org"), 0);
	assert_int_equal(strlist_add(&wl->env, "Q=\"quoted\" \\ back"), 0);
	assert_int_equal(strlist_add(&wl->env, "GREETING=h\xc3\xa9llo"), 0);
	assert_non_null((wl->image = strdup("alpine:3")));
	assert_non_null((wl->command = strdup("sh -c 'echo \"hi\"'")));
	wl->wake_timeout = 10;
	wl->init = 0;
	wl->stop_signal = SIGUSR2;
	wl->stop_timeout = 300;
	wl->memory = 1;
	wl->port = 65535;
	wl->health = HEALTH_PATH;
	assert_non_null((wl->health_path = strdup("/healthz?x=1")));
	assert_int_equal(wl->busy_max, -1);
	assert_null(wl->busy_path);
	assert_non_null((wl->busy_path = strdup("/busy?job=all")));
	wl->busy_max = 7200;
	wl->busy_fail_safe = 1;
	free(wl->address);
	assert_non_null((wl->address = strdup("fe80::1")));
	for (n = 0; n < 3; n++) {
		assert_non_null((v = calloc(1, sizeof(*v))));
		assert_int_not_equal(asprintf(&v->host, "/srv/hand/%d", n), -1);
		assert_int_not_equal(asprintf(&v->container, "/d%d", n), -1);
		TAILQ_INSERT_TAIL(&wl->volumes, v, entry);
	}
	assert_int_equal(workload_validate(wl, err, sizeof(err)), 0);
	roundtrip(wl);
	workload_free(wl);

	assert_null(workload_new(
	    "a234567890123456789012345678901234567890123456789012345678901234"));
	workload_free(NULL);
}

/* liveness: global settings, a workload's own, and the defaults */
static void
test_health(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;

	conf = parse_config(CONFDIR "good-health.conf", 0);
	if (conf == NULL)
		print_lines();
	assert_non_null(conf);
	assert_int_equal(conf->health_interval, 10);
	assert_int_equal(conf->health_timeout, 3);
	assert_int_equal(conf->health_failures, 5);
	wl = find_workload(conf, "inherits");
	assert_non_null(wl);
	assert_int_equal(wl->health_interval, -1);
	assert_int_equal(wl->health_timeout, -1);
	assert_int_equal(wl->health_failures, -1);
	wl = find_workload(conf, "own");
	assert_non_null(wl);
	assert_int_equal(wl->health_interval, 60);
	assert_int_equal(wl->health_timeout, 1);
	assert_int_equal(wl->health_failures, 1);
	roundtrip(wl);
	/* 0 turns the global checks off for it */
	wl = find_workload(conf, "off");
	assert_non_null(wl);
	assert_int_equal(wl->health_interval, 0);
	roundtrip(wl);
	free_config(conf);

	/* off unless set */
	conf = parse_config(CONFDIR "good-minimal.conf", 0);
	assert_non_null(conf);
	assert_int_equal(conf->health_interval, 0);
	assert_int_equal(conf->health_timeout, ORCHD_HEALTH_TIMEOUT);
	assert_int_equal(conf->health_failures, ORCHD_HEALTH_FAILURES);
	free_config(conf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_defaults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_example, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health, setup, teardown),
		cmocka_unit_test_setup_teardown(test_macros, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_bytes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_include_self, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_prefork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_glob, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_host_checks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pull, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access_log, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tcp_listen, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sockact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identities, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_depends, setup,
		    teardown),
		cmocka_unit_test(test_depends_json),
		cmocka_unit_test(test_json_roundtrip),
	};

	/* errors go to stderr too, so that a failing run shows them */
	log_init(1, LOG_DAEMON);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
