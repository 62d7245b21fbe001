/*
 * orchd.conf's gate statements, as parse.y's actions call them: a
 * workload's "allow from", "deny from", "auth basic" and "auth request"
 * with their options, and "api allow auth basic|request", the files and
 * auth services the API's workloads may name.
 *
 * Every password file named is read here, with the configuration
 * (htpasswd.c): a bad line fails the load with its file and line, as a
 * bad line of orchd.conf does.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "gate.h"
#include "parser.h"
#include "units.h"

static int	 gate_kind;	/* of the "auth" being read: 'b' or 'r' */

/* "allow from CIDR", "deny from CIDR": in order, first match wins */
int
gate_access_add(int allow, const char *cidr)
{
	struct gate_rule	 r;
	const struct strentry	*e;
	char			 buf[128];
	int			 n = 0;

	if (snprintf(buf, sizeof(buf), "%s %s", allow ? "allow" : "deny",
	    cidr) >= (int)sizeof(buf) || gate_rule_parse(buf, &r) == -1) {
		yyerror("%s from \"%s\": an IPv4 or IPv6 address with an "
		    "optional /prefix, or all", allow ? "allow" : "deny", cidr);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->access, entry)
		n++;
	if (n >= WL_ACCESS_MAX) {
		yyerror("more than %d allow from and deny from",
		    WL_ACCESS_MAX);
		return (-1);
	}
	if (strlist_add(&wl->access, buf) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* a password file, read once per load whoever names it */
static int
gate_file_need(const char *path)
{
	struct htfile	*f;
	char		 err[1024];
	size_t		 n = 0;

	if (path[0] != '/') {
		yyerror("auth basic \"%s\": an absolute path is required",
		    path);
		return (-1);
	}
	if (htfile_find(&conf->htfiles, path) != NULL)
		return (0);
	TAILQ_FOREACH(f, &conf->htfiles, entry)
		n++;
	if (n >= HTPASSWD_FILES_MAX) {
		yyerror("more than %d auth basic files", HTPASSWD_FILES_MAX);
		return (-1);
	}
	if ((f = htpasswd_read(path, err, sizeof(err))) == NULL) {
		yyerror("auth basic: %s", err);
		return (-1);
	}
	inputs_htfile(f);
	TAILQ_INSERT_TAIL(&conf->htfiles, f, entry);
	return (0);
}

/* "auth basic FILE" or "auth request URL", its options to follow */
int
gate_auth_begin(const char *kind, const char *what)
{
	char		 host[64];
	const char	*path;
	int		 port;

	gate_kind = 0;
	if (wl->auth_basic != NULL || wl->auth_request != NULL) {
		yyerror("auth already set");
		return (-1);
	}
	if (strcmp(kind, "basic") == 0) {
		if (gate_file_need(what) == -1 ||
		    set_string(&wl->auth_basic, (char *)what,
		    "auth basic") == -1)
			return (-1);
		gate_kind = 'b';
		return (0);
	}
	if (strcmp(kind, "request") == 0) {
		if (strlen(what) >= WL_AUTH_URL_MAX ||
		    gate_url_split(what, host, sizeof(host), &port,
		    &path) == -1) {
			yyerror("auth request \"%s\": http://ADDRESS[:PORT]/"
			    "PATH, ADDRESS numeric (IPv6 in brackets)", what);
			return (-1);
		}
		if (set_string(&wl->auth_request, (char *)what,
		    "auth request") == -1)
			return (-1);
		gate_kind = 'r';
		return (0);
	}
	yyerror("unknown auth \"%s\": basic or request", kind);
	return (-1);
}

/* "pass authorization" (basic), "cache DURATION" (request) */
int
gate_auth_opt(const char *word, const char *value)
{
	const char	*errstr;
	int64_t		 secs;

	if (gate_kind == 'b' && strcmp(word, "pass") == 0 &&
	    strcmp(value, "authorization") == 0) {
		if (wl->auth_pass == 1) {
			yyerror("pass authorization already set");
			return (-1);
		}
		wl->auth_pass = 1;
		return (0);
	}
	if (gate_kind == 'r' && strcmp(word, "cache") == 0) {
		if (wl->auth_cache != -1) {
			yyerror("cache already set");
			return (-1);
		}
		if (parse_duration(value, &secs, &errstr) == -1 ||
		    secs < 1 || secs > WL_AUTH_CACHE_MAX) {
			yyerror("auth request cache \"%s\": 1s to %ds", value,
			    WL_AUTH_CACHE_MAX);
			return (-1);
		}
		wl->auth_cache = secs;
		return (0);
	}
	yyerror("auth %s: unknown option \"%s %s\": %s", gate_kind == 'b' ?
	    "basic" : "request", word, value, gate_kind == 'b' ?
	    "pass authorization" : "headers { ... }, timeout or cache");
	return (-1);
}

int
gate_auth_timeout(int64_t secs)
{
	if (gate_kind != 'r') {
		yyerror("auth basic: no timeout (auth request has one)");
		return (-1);
	}
	if (wl->auth_timeout != -1) {
		yyerror("timeout already set");
		return (-1);
	}
	if (secs < 1 || secs > WL_AUTH_TIMEOUT_MAX) {
		yyerror("auth request timeout: 1s to %ds",
		    WL_AUTH_TIMEOUT_MAX);
		return (-1);
	}
	wl->auth_timeout = secs;
	return (0);
}

/* "headers {": only after auth request */
int
gate_auth_headers(const char *word)
{
	if (gate_kind != 'r' || strcmp(word, "headers") != 0) {
		yyerror("\"%s { ... }\": auth request headers { NAME ... } "
		    "only", word);
		return (-1);
	}
	return (0);
}

int
gate_auth_header(const char *name)
{
	const struct strentry	*e;
	int			 n = 0;

	if (!gate_header_name_ok(name)) {
		yyerror("auth request header \"%s\": a field name of letters, "
		    "digits and '-', not one the gateway writes", name);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->auth_headers, entry) {
		if (strcasecmp(e->str, name) == 0) {
			yyerror("auth request header \"%s\" listed twice",
			    name);
			return (-1);
		}
		n++;
	}
	if (n >= WL_AUTH_HEADERS_MAX) {
		yyerror("more than %d auth request headers",
		    WL_AUTH_HEADERS_MAX);
		return (-1);
	}
	if (strlist_add(&wl->auth_headers, name) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * "api allow auth basic FILE": a file the API's workloads may name,
 * exactly; read now like the file's own.  "api allow auth request URL":
 * a URL they may name, exactly, or every URL under a prefix written
 * "http://ADDRESS:PORT/path/" and a star.
 */
int
api_allow_auth(const char *kind, const char *what)
{
	struct strlist	*l;
	struct strentry	*e;
	char		 host[64], *url;
	const char	*path;
	size_t		 n;
	int		 port, r;

	if (strcmp(kind, "basic") == 0) {
		if (gate_file_need(what) == -1)
			return (-1);
		l = &conf->api_allow_auth_basic;
	} else if (strcmp(kind, "request") == 0) {
		if ((url = strdup(what)) == NULL) {
			yyerror("out of memory");
			return (-1);
		}
		n = strlen(url);
		if (n >= 2 && strcmp(url + n - 2, "/*") == 0)
			url[n - 1] = '\0';
		r = n < WL_AUTH_URL_MAX ? gate_url_split(url, host,
		    sizeof(host), &port, &path) : -1;
		free(url);
		if (r == -1) {
			yyerror("api allow auth request \"%s\": "
			    "http://ADDRESS[:PORT]/PATH, or a prefix ending "
			    "in /*", what);
			return (-1);
		}
		l = &conf->api_allow_auth_request;
	} else {
		yyerror("unknown api allow auth \"%s\": basic or request",
		    kind);
		return (-1);
	}
	TAILQ_FOREACH(e, l, entry)
		if (strcmp(e->str, what) == 0) {
			yyerror("api allow auth %s \"%s\" listed twice", kind,
			    what);
			return (-1);
		}
	if (strlist_add(l, what) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}
