/*
 * orchd.conf's listeners: "listen on" for the gateway, "api listen on",
 * and a workload's own raw TCP "listen on", each a numeric address and a
 * port that overlaps no other (a wildcard overlaps every address of its
 * family).  The workloads' upstream addresses are checked against them
 * at the end of the file (parse_check.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

static int
is_wildcard(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in	*sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6	*sin6 =
	    (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return (sin->sin_addr.s_addr == htonl(INADDR_ANY));
	return (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr));
}

/* same port and family, and the same address or a wildcard on one side */
int
listener_overlaps(const struct listener_conf *a,
    const struct listener_conf *b)
{
	const struct sockaddr_in	*a4 = (const struct sockaddr_in *)&a->ss;
	const struct sockaddr_in	*b4 = (const struct sockaddr_in *)&b->ss;
	const struct sockaddr_in6	*a6 =
	    (const struct sockaddr_in6 *)&a->ss;
	const struct sockaddr_in6	*b6 =
	    (const struct sockaddr_in6 *)&b->ss;

	if (a->ss.ss_family != b->ss.ss_family)
		return (0);
	if (is_wildcard(&a->ss) || is_wildcard(&b->ss)) {
		if (a->ss.ss_family == AF_INET)
			return (a4->sin_port == b4->sin_port);
		return (a6->sin6_port == b6->sin6_port);
	}
	if (a->ss.ss_family == AF_INET)
		return (a4->sin_port == b4->sin_port &&
		    a4->sin_addr.s_addr == b4->sin_addr.s_addr);
	return (a6->sin6_port == b6->sin6_port &&
	    memcmp(&a6->sin6_addr, &b6->sin6_addr,
	    sizeof(a6->sin6_addr)) == 0);
}

/* whose a listener is, for an error: "", "api " or "workload \"db\"'s " */
const char *
listener_whose(const struct listener_conf *l, char *buf, size_t len)
{
	if (l->workload[0] != '\0')
		(void)snprintf(buf, len, "workload \"%s\"'s ", l->workload);
	else
		(void)strlcpy(buf, l->api == LISTENER_STATUS ? "status " :
		    l->api ? "api " : "", len);
	return (buf);
}

/* "redirect https" and "hsts", read before the listener they follow */
static struct {
	int		 redirect;
	int		 redirect_port;
	int		 hsts;
	int64_t		 hsts_age;
	int		 hsts_sub;
} lopt;

int
listener_redirect(int64_t port)
{
	if (lopt.redirect) {
		yyerror("redirect https already set");
		return (-1);
	}
	lopt.redirect = 1;
	lopt.redirect_port = port;
	return (0);
}

int
listener_hsts(int64_t age, int sub)
{
	if (lopt.hsts) {
		yyerror("hsts already set");
		return (-1);
	}
	lopt.hsts = 1;
	lopt.hsts_age = age;
	lopt.hsts_sub = sub;
	return (0);
}

/*
 * The options of the listener just added: "tls acme", and the redirect
 * and hsts read before it.  A redirect is for a cleartext listener, HSTS
 * and ACME for a TLS one (HSTS over cleartext is ignored by browsers,
 * RFC 6797 8.1).
 */
int
listener_options(int acme)
{
	struct listener_conf	*l = TAILQ_LAST(&conf->listeners, listenerlist);
	int			 rv = -1;

	if (l == NULL)
		goto done;
	if (acme)
		l->tls = 1;	/* with or without a keypair of its own */
	if (lopt.redirect && l->tls) {
		yyerror("redirect https: cleartext listeners only");
		goto done;
	}
	if (lopt.hsts && !l->tls) {
		yyerror("hsts: TLS listeners only");
		goto done;
	}
	l->acme = acme;
	l->redirect = lopt.redirect;
	l->redirect_port = lopt.redirect_port;
	l->hsts = lopt.hsts;
	l->hsts_age = lopt.hsts_age;
	l->hsts_sub = lopt.hsts_sub;
	rv = 0;
 done:
	memset(&lopt, 0, sizeof(lopt));
	return (rv);
}

/*
 * "tls acme" asks acmed for certificates, and acmed runs only with an
 * "acme" block: without one, the listener's hosts would wait for nothing.
 */
void
listener_acme_check(const struct orchd_conf *c)
{
	const struct listener_conf	*l;

	if (c->acme != NULL)
		return;
	TAILQ_FOREACH(l, &c->listeners, entry)
		if (l->acme) {
			log_warnx("%s: listen on %s: tls acme without an "
			    "acme block", c->conffile, l->name);
			errors++;
			return;
		}
}

/* workload: a workload's raw TCP listener, NULL for the gateway's */
int
listener_add(const char *name, int64_t port, int api, char *cert, char *key,
    const char *workload)
{
	struct listener_conf	*l, *o;
	char			 whose[ORCHD_NAME_MAX + 16];

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	l->fd = -1;
	l->api = api;
	if (workload != NULL)
		(void)strlcpy(l->workload, workload, sizeof(l->workload));
	if (strlcpy(l->name, name, sizeof(l->name)) >= sizeof(l->name) ||
	    address_parse(name, port, &l->ss, &l->sslen) == -1) {
		yyerror("invalid listen address \"%s\": a numeric IPv4 or "
		    "IPv6 address, localhost or *", name);
		free(l);
		return (-1);
	}
	if (api || workload != NULL)
		memset(&lopt, 0, sizeof(lopt));
	if (cert != NULL && (cert[0] == '\0' || key[0] == '\0')) {
		yyerror("tls: empty file name");
		free(l);
		return (-1);
	}
	TAILQ_FOREACH(o, &conf->listeners, entry)
		if (listener_overlaps(l, o)) {
			yyerror("listen on %s port %lld: overlaps %slisten on "
			    "%s", name, (long long)port, listener_whose(o,
			    whose, sizeof(whose)), o->name);
			free(l);
			return (-1);
		}
	if (cert != NULL) {
		tls_file_check(cert, "tls certificate");
		tls_file_check(key, "tls key");
		l->tls = 1;
		l->tls_cert = keep(cert);
		l->tls_key = keep(key);
	}
	TAILQ_INSERT_TAIL(&conf->listeners, l, entry);
	return (0);
}

/*
 * "listen on ADDRESS port N" in a workload block: a raw TCP listener of
 * its own, bound by the parent with the gateway's and checked against
 * them and every workload's port alike.  The workload keeps it as
 * "ADDRESS:PORT" (an IPv6 address in brackets), for its JSON form.
 */
int
wl_listen_add(const char *name, int64_t port)
{
	struct strentry	*e;
	char		 buf[ORCHD_HOST_MAX + 16];
	int		 n = 0, bracket;

	TAILQ_FOREACH(e, &wl->listens, entry)
		n++;
	if (n >= ORCHD_LISTEN_MAX) {
		yyerror("more than %d listen on in a workload",
		    ORCHD_LISTEN_MAX);
		return (-1);
	}
	if (listener_add(name, port, 0, NULL, NULL, wl->name) == -1)
		return (-1);
	bracket = strchr(name, ':') != NULL && name[0] != '[';
	n = snprintf(buf, sizeof(buf), "%s%s%s:%lld", bracket ? "[" : "",
	    name, bracket ? "]" : "", (long long)port);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    strlist_add(&wl->listens, buf) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * The HTTP/2 of the listener just added: offered by ALPN on TLS unless
 * "http2 off"; on cleartext only with "http2 prior knowledge".
 */
int
listener_http2(int mode)
{
	struct listener_conf	*l = TAILQ_LAST(&conf->listeners, listenerlist);

	if (l == NULL)
		return (-1);
	if (mode == LISTENER_H2_PRIOR && l->tls) {
		yyerror("http2 prior knowledge: cleartext listeners only, "
		    "TLS offers h2 by ALPN");
		return (-1);
	}
	l->http2 = mode;
	return (0);
}
