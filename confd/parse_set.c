/*
 * orchd.conf's settings as the grammar's actions set them: each once,
 * within its bounds, with the error that names the keyword.  The "api
 * allow" rules are the operator's API policy (orchd/policy.c applies
 * them); a volume root among them is checked against orchd's own files
 * once the whole file is read (parse_check.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "ignore.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

/* a string setting given once, not empty; s is kept on success */
int
set_string(char **dst, char *s, const char *what)
{
	if (*dst != NULL) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (s[0] == '\0') {
		yyerror("%s must not be empty", what);
		return (-1);
	}
	*dst = keep(s);
	return (0);
}

/*
 * "tcp://ADDRESS:PORT", ADDRESS numeric ("[...]" for IPv6): runtimed,
 * chrooted, resolves no names
 */
int
swarm_manager_check(const char *s)
{
	char	 addr[CFG_SWARM_ADDR_MAX];
	int	 port;

	if (swarm_manager_split(s, addr, sizeof(addr), &port) == -1) {
		yyerror("swarm manager \"%s\": must be \"tcp://ADDRESS:PORT\", "
		    "ADDRESS a numeric IPv4 or [IPv6] address", s);
		return (-1);
	}
	return (0);
}

/* a gateway timeout, set once; zero only where allowed */
int
gw_timeout(int64_t *dst, int64_t secs, const char *what, int zero_ok)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (secs == 0 && !zero_ok) {
		yyerror("%s must be positive", what);
		return (-1);
	}
	*dst = secs;
	return (0);
}

int
gw_limit(int64_t *dst, int64_t n, const char *what)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (n < 1 || n > INT32_MAX) {
		yyerror("invalid %s %lld", what, (long long)n);
		return (-1);
	}
	*dst = n;
	return (0);
}

/* "suspend stop | freeze [for DURATION]", once */
int
freeze_set(int64_t *dst, int64_t v)
{
	if (*dst != -1) {
		yyerror("suspend already set");
		return (-1);
	}
	if (v < 0 || v > WL_FREEZE_FOREVER) {
		yyerror("suspend freeze for: must be from 1s to %llds",
		    (long long)WL_FREEZE_FOREVER);
		return (-1);
	}
	*dst = v;
	return (0);
}

/* "health interval 10s", once, within bounds: unit is for the message */
int
health_set(int64_t *dst, int64_t n, const char *what, int64_t min,
    int64_t max, const char *unit)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (n < min || n > max) {
		yyerror("%s %lld%s: must be from %lld%s to %lld%s", what,
		    (long long)n, unit, (long long)min, unit, (long long)max,
		    unit);
		return (-1);
	}
	*dst = n;
	return (0);
}

/* "pull missing|always|never", once */
int
pull_set(int *dst, const char *s)
{
	int	 pull;

	if (*dst != -1) {
		yyerror("pull already set");
		return (-1);
	}
	if (wl_word_value(wl_pulls, s, &pull) == -1) {
		yyerror("pull \"%s\": missing, always or never", s);
		return (-1);
	}
	*dst = pull;
	return (0);
}

/* "trusted proxy 10.0.0.0/8", "::1", "192.0.2.7" (a /32) */
int
trusted_add(const char *s)
{
	struct gateway_conf	*g = &conf->gateway;
	const char		*errstr;

	if (g->ntrusted >= ORCHD_TRUSTED_MAX) {
		yyerror("more than %d trusted proxies", ORCHD_TRUSTED_MAX);
		return (-1);
	}
	if (netaddr_parse(s, &g->trusted[g->ntrusted], &errstr) == -1) {
		/* the host bits must be zero: 10.1.0.0/8 is a typo */
		if (strcmp(errstr, "host bits set") == 0)
			yyerror("trusted proxy %s: host bits set", s);
		else
			yyerror("invalid trusted proxy \"%s\": %s", s, errstr);
		return (-1);
	}
	g->ntrusted++;
	return (0);
}

/* an "ignore" line, global or a workload's, at most ORCHD_IGNORE_MAX */
int
ignore_rule_add(struct ignorelist *l, int kind, const char *pattern,
    int answer)
{
	const struct ignore_rule	*r;
	char				 err[512];
	int				 n = 0;

	if (ignore_check(kind, pattern, answer, err, sizeof(err)) == -1) {
		yyerror("%s", err);
		return (-1);
	}
	TAILQ_FOREACH(r, l, entry) {
		if ((int)r->kind == kind &&
		    strcmp(r->pattern, pattern) == 0) {
			yyerror("ignore %s \"%s\" listed twice",
			    ignore_kind_name(kind), pattern);
			return (-1);
		}
		n++;
	}
	if (n >= ORCHD_IGNORE_MAX) {
		yyerror("more than %d ignore rules", ORCHD_IGNORE_MAX);
		return (-1);
	}
	if (ignore_add(l, kind, pattern, answer) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

void
gateway_defaults(struct gateway_conf *g)
{
	if (g->header_timeout == -1)
		g->header_timeout = ORCHD_HEADER_TIMEOUT;
	if (g->body_timeout == -1)
		g->body_timeout = ORCHD_BODY_TIMEOUT;
	if (g->connect_timeout == -1)
		g->connect_timeout = ORCHD_CONNECT_TIMEOUT;
	if (g->upstream_timeout == -1)
		g->upstream_timeout = ORCHD_UPSTREAM_TIMEOUT;
	if (g->keepalive_timeout == -1)
		g->keepalive_timeout = ORCHD_KEEPALIVE_TIMEOUT;
	/* the gateway sizes the global limit from its descriptor limit */
	if (g->max_conns == -1)
		g->max_conns = 0;
	if (g->max_conns_addr == -1)
		g->max_conns_addr = 0;
	if (g->h2_max_streams == -1)
		g->h2_max_streams = ORCHD_H2_STREAMS;
	if (g->prefork == -1)
		g->prefork = 1;
}

/* "api allow image": a pattern of fnmatch(3), without flags */
int
api_allow_image(const char *pattern)
{
	struct strentry	*e;

	if (pattern[0] == '\0' || !is_utf8(pattern)) {
		yyerror("api allow image: invalid pattern");
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_images, entry)
		if (strcmp(e->str, pattern) == 0) {
			yyerror("api allow image \"%s\" listed twice",
			    pattern);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_images, pattern) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * "api allow volume": the one root under which orchd makes the API's
 * volumes (ROOT/WORKLOAD/NAME, orchd/voldir.c), kept normalised, itself
 * no forbidden path
 */
int
api_allow_volume(const char *path)
{
	char		 npath[PATH_MAX], why[512];

	if (hostpath_normalize(path, npath, sizeof(npath), why,
	    sizeof(why)) == -1) {
		yyerror("api allow volume: %s", why);
		return (-1);
	}
	if (strlen(npath) >= ORCHD_VOLROOT_MAX - 2 * ORCHD_VOLNAME_MAX) {
		yyerror("api allow volume \"%s\": longer than %d bytes", path,
		    ORCHD_VOLROOT_MAX - 2 * ORCHD_VOLNAME_MAX - 1);
		return (-1);
	}
	if (!TAILQ_EMPTY(&conf->api_allow_volumes)) {
		yyerror("api allow volume \"%s\": one root only, given "
		    "already as \"%s\" (orchd makes each workload's volumes "
		    "under it)", path,
		    TAILQ_FIRST(&conf->api_allow_volumes)->str);
		return (-1);
	}
	if (pathcheck_add(path, "api allow volume") == -1)
		return (-1);
	if (strlist_add(&conf->api_allow_volumes, npath) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow network": a pattern of fnmatch(3) for a network's name */
int
api_allow_network(const char *pattern)
{
	struct strentry	*e;

	if (pattern[0] == '\0' || !is_utf8(pattern)) {
		yyerror("api allow network: invalid pattern");
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_networks, entry)
		if (strcmp(e->str, pattern) == 0) {
			yyerror("api allow network \"%s\" listed twice",
			    pattern);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_networks, pattern) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * "api allow address": a network, ADDRESS/BITS or one address, that an
 * API workload's address may lie in (orchd/policy_net.c)
 */
int
api_allow_address(const char *s)
{
	struct netaddr	 na, o;
	struct strentry	*e;
	const char	*errstr;

	if (netaddr_parse(s, &na, &errstr) == -1) {
		yyerror("api allow address \"%s\": %s", s, errstr);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_addresses, entry)
		if (netaddr_parse(e->str, &o, &errstr) == 0 &&
		    o.af == na.af && o.prefix == na.prefix &&
		    memcmp(o.addr, na.addr, sizeof(o.addr)) == 0) {
			yyerror("api allow address \"%s\" listed twice", s);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_addresses, s) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow publish": one numeric host address, 0.0.0.0 or :: for all */
int
api_allow_publish(const char *s)
{
	struct netaddr	 na, o;
	struct strentry	*e;
	const char	*errstr;

	if (strchr(s, '/') != NULL || netaddr_parse(s, &na, &errstr) == -1) {
		yyerror("api allow publish \"%s\": a numeric IPv4 or IPv6 "
		    "address, without a prefix", s);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_publish, entry)
		if (netaddr_parse(e->str, &o, &errstr) == 0 &&
		    o.af == na.af &&
		    memcmp(o.addr, na.addr, sizeof(o.addr)) == 0) {
			yyerror("api allow publish \"%s\" listed twice", s);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_publish, s) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow publish port": one below 1024; the others need no rule */
int
api_allow_port(int64_t port)
{
	if (port < 1 || port >= API_LOW_PORTS) {
		yyerror("api allow publish port %lld: 1 to %d (from %d on, "
		    "no rule is needed)", (long long)port, API_LOW_PORTS - 1,
		    API_LOW_PORTS);
		return (-1);
	}
	if (API_PORT_ALLOWED(conf, port)) {
		yyerror("api allow publish port %lld listed twice",
		    (long long)port);
		return (-1);
	}
	conf->api_allow_ports[port / 8] |= 1 << (port % 8);
	return (0);
}
