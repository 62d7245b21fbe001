/*
 * The gate's fields of a workload, checked as every field is (the rows
 * of workload_fields.c name these checkers), and the small parsers the
 * parent, the gateway and orchctl share: an "allow"/"deny" entry, the
 * auth service's URL, a header name to copy.
 *
 * The auth service is reached as the gateway reaches a workload: a
 * numeric address (orchd resolves no names), plain HTTP, a port; what
 * it answers is parsed by the gateway's own HTTP parser.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "ignore.h"
#include "gate.h"
#include "workload_fields.h"

/*
 * Names an auth service may not set on the upstream request: the
 * framing and the hop-by-hop fields, and those the gateway writes itself.
 */
static const char *const gate_header_refused[] = {
	"Host", "Content-Length", "Transfer-Encoding", "Connection",
	"Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
	"Expect", "Via", "Forwarded", "X-Forwarded-For", "X-Forwarded-Proto",
	"X-Forwarded-Host", "X-Real-IP", "HTTP2-Settings"
};

/* "allow 10.0.0.0/8", "deny all": 0, or -1 */
int
gate_rule_parse(const char *s, struct gate_rule *r)
{
	const char	*errstr;

	memset(r, 0, sizeof(*r));
	if (strncmp(s, "allow ", 6) == 0) {
		r->allow = 1;
		s += 6;
	} else if (strncmp(s, "deny ", 5) == 0)
		s += 5;
	else
		return (-1);
	if (strcmp(s, "all") == 0) {
		r->all = 1;
		return (0);
	}
	return (netaddr_parse(s, &r->net, &errstr));
}

int
gate_rule_match(const struct gate_rule *r, const struct netaddr *client)
{
	return (r->all || netaddr_match(&r->net, client));
}

/*
 * "http://127.0.0.1:4180/oauth2/auth": the numeric host (IPv6 in
 * brackets, given back without them), the port (80 if none) and the
 * path with its query.  0, or -1 for anything else.
 */
int
gate_url_split(const char *url, char *host, size_t hostlen, int *port,
    const char **path)
{
	const char	*p, *h, *end;
	struct in6_addr	 in6;
	struct in_addr	 in4;
	size_t		 n;
	long		 v;
	char		*ep;

	if (strncmp(url, "http://", 7) != 0)
		return (-1);
	for (p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return (-1);
	h = url + 7;
	if (*h == '[') {
		if ((end = strchr(h, ']')) == NULL)
			return (-1);
		n = end - h - 1;
		h++;
		p = end + 1;
	} else {
		n = strcspn(h, ":/");
		p = h + n;
	}
	if (n == 0 || n >= hostlen)
		return (-1);
	memcpy(host, h, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &in4) != 1 &&
	    inet_pton(AF_INET6, host, &in6) != 1)
		return (-1);
	*port = 80;
	if (*p == ':') {
		if (!isdigit((unsigned char)p[1]))
			return (-1);
		v = strtol(p + 1, &ep, 10);
		if (v < 1 || v > 65535 || *ep != '/')
			return (-1);
		*port = (int)v;
		p = ep;
	}
	if (*p != '/')
		return (-1);
	*path = p;
	return (0);
}

/* a token of letters, digits and '-', short, none of the refused */
int
gate_header_name_ok(const char *s)
{
	size_t	 i, n = strlen(s);

	if (n == 0 || n >= WL_AUTH_HEADER_LEN)
		return (0);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-')
			return (0);
	for (i = 0; i < nitems(gate_header_refused); i++)
		if (strcasecmp(s, gate_header_refused[i]) == 0)
			return (0);
	return (1);
}

/* "allow from", "deny from": each entry parses, a bounded number */
int
check_gate_access(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e;
	struct gate_rule	 r;
	int			 n = 0;

	TAILQ_FOREACH(e, &wl->access, entry) {
		if (++n > WL_ACCESS_MAX)
			return (wl_fail(errbuf, len, "more than %d allow from "
			    "and deny from", WL_ACCESS_MAX));
		if (gate_rule_parse(e->str, &r) == -1)
			return (wl_fail(errbuf, len, "access \"%s\": must be "
			    "\"allow CIDR\" or \"deny CIDR\", CIDR an IPv4 or "
			    "IPv6 address with an optional /prefix, or all",
			    valid_text(e->str) && strlen(e->str) < 128 ?
			    e->str : "?"));
	}
	return (0);
}

/* auth basic: an absolute path; pass authorization only with it */
int
check_gate_basic(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const char	*s = wl->auth_basic;

	if (s == NULL) {
		if (wl->auth_pass == 1)
			return (wl_fail(errbuf, len, "auth basic pass "
			    "authorization without auth basic"));
		return (0);
	}
	if (s[0] != '/' || strlen(s) >= WL_AUTH_FILE_MAX || !valid_text(s))
		return (wl_fail(errbuf, len, "auth basic \"%s\": must be an "
		    "absolute path, shorter than %d bytes",
		    valid_text(s) && strlen(s) < 128 ? s : "?",
		    WL_AUTH_FILE_MAX));
	if (wl->auth_request != NULL)
		return (wl_fail(errbuf, len, "auth basic and auth request: "
		    "one of them"));
	/* an HTTP/2 request reaches it without Authorization (below) */
	if (wl->upstream_h2c)
		return (wl_fail(errbuf, len, "auth basic and upstream h2c: "
		    "not together"));
	return (0);
}

/*
 * auth request: an http:// URL with a numeric address.  Not with
 * "upstream h2c": an HTTP/2 client's request reaches the gateway's
 * routing then with its head alone, without the Cookie or the
 * Authorization the auth service must see.
 */
int
check_gate_request(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	char		 host[INET6_ADDRSTRLEN];
	const char	*path;
	int		 port;

	if (wl->auth_request == NULL)
		return (0);
	if (strlen(wl->auth_request) >= WL_AUTH_URL_MAX ||
	    gate_url_split(wl->auth_request, host, sizeof(host), &port,
	    &path) == -1)
		return (wl_fail(errbuf, len, "auth request \"%s\": must be "
		    "http://ADDRESS[:PORT]/PATH, ADDRESS a numeric IPv4 "
		    "address or an IPv6 one in brackets, at most %d bytes of "
		    "printable ASCII", valid_text(wl->auth_request) &&
		    strlen(wl->auth_request) < 128 ? wl->auth_request : "?",
		    WL_AUTH_URL_MAX - 1));
	if (wl->upstream_h2c)
		return (wl_fail(errbuf, len, "auth request and upstream h2c: "
		    "not together"));
	return (0);
}

/* the headers copied from the auth service's 2xx */
int
check_gate_headers(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;
	int			 n = 0;

	if (!TAILQ_EMPTY(&wl->auth_headers) && wl->auth_request == NULL)
		return (wl_fail(errbuf, len, "auth request headers without "
		    "auth request"));
	TAILQ_FOREACH(e, &wl->auth_headers, entry) {
		if (++n > WL_AUTH_HEADERS_MAX)
			return (wl_fail(errbuf, len, "more than %d auth request "
			    "headers", WL_AUTH_HEADERS_MAX));
		if (!gate_header_name_ok(e->str))
			return (wl_fail(errbuf, len, "auth request header "
			    "\"%s\": a field name of letters, digits and '-', "
			    "shorter than %d bytes, not one the gateway writes",
			    valid_text(e->str) && strlen(e->str) < 128 ?
			    e->str : "?", WL_AUTH_HEADER_LEN));
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (strcasecmp(e->str, o->str) == 0)
				return (wl_fail(errbuf, len, "auth request "
				    "header \"%s\" listed twice", e->str));
	}
	return (0);
}

/* the auth request's timeout and cache: only with auth request */
int
check_gate_option(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	if (wl->auth_request == NULL && wl_field_given(wl, f))
		return (wl_fail(errbuf, len, "%s without auth request",
		    wl_field_label(f)));
	return (0);
}

static int
gate_b64_chars(const char *s, size_t n, const char *extra)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '/' && strchr(extra, s[i]) == NULL)
			return (0);
	return (1);
}

/*
 * A hash orchd verifies: bcrypt ("$2y$" or "$2b$", a cost of 04 to 31,
 * 53 characters of salt and hash) or yescrypt ("$y$", its parameters,
 * salt and hash in crypt's alphabet).  1 if it is one, 0 if not.
 */
int
gate_hash_ok(const char *h)
{
	size_t	 n = strlen(h);

	if (n >= HTPASSWD_HASH_MAX)
		return (0);
	if (strncmp(h, "$2y$", 4) == 0 || strncmp(h, "$2b$", 4) == 0)
		return (n == 60 && isdigit((unsigned char)h[4]) &&
		    isdigit((unsigned char)h[5]) && h[6] == '$' &&
		    strncmp(h + 4, "04", 2) >= 0 &&
		    strncmp(h + 4, "31", 2) <= 0 &&
		    gate_b64_chars(h + 7, 53, ""));
	if (strncmp(h, "$y$", 3) == 0)
		return (n > 10 && n < HTPASSWD_HASH_MAX &&
		    gate_b64_chars(h + 3, n - 3, "$") &&
		    strchr(h + 3, '$') != NULL);
	return (0);
}
