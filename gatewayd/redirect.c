/*
 * "redirect https" and "hsts" (orchd.conf(5)).  A request on a cleartext
 * listener with "redirect https", or for a workload with it, is answered
 * 308 by the gateway itself, to the same host, path and query over
 * https (with the listener's "port" if it names one): the workload is
 * neither woken nor counted as used.  http-01's path is answered before
 * (acme_http.c), so a redirect never hides a challenge.  A host that is
 * not a DNS name (an IP literal, a stray byte) gets a 400: no Location
 * is made of it.
 *
 * "hsts" adds Strict-Transport-Security to the workloads' answers over
 * a TLS listener that has it, unless the workload sent one itself.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "http.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "acme.h"

#define HSTS_NAME	"Strict-Transport-Security"

/* 1 when the request was answered with a redirect */
int
redirect_request(struct gw_conn *c, const struct gw_workload *wl)
{
	const struct http_head	*h = &c->req->h;
	const struct ctl_listener *l = &c->listener->conf;
	char			 name[ORCHD_HOST_MAX], port[16] = "";
	char			 loc[ORCHD_HOST_MAX + HTTP_HEAD_BUFSZ + 48];
	int			 n;

	if (l->tls || (!l->redirect && (wl == NULL || !wl->configured ||
	    !wl->redirect_https)))
		return (0);
	c->acct = 0;
	c->rx_pending = 0;
	accesslog_head(c, NULL);
	if (h->authoritylen == 0 ||
	    acme_name(h->authority, h->hostlen, name) == -1) {
		conn_answer(c, 400, "", "400 Bad Request\n");
		return (1);
	}
	if (l->redirect_port != 0 && l->redirect_port != 443)
		(void)snprintf(port, sizeof(port), ":%d", l->redirect_port);
	n = snprintf(loc, sizeof(loc), "Location: https://%s%s%.*s\r\n",
	    name, port, h->pathlen > 0 ? (int)h->pathlen : 1,
	    h->pathlen > 0 ? h->path : "/");
	if (n < 0 || (size_t)n >= sizeof(loc)) {
		conn_answer(c, 414, "", "414 URI Too Long\n");
		return (1);
	}
	log_debug("%s: redirected to https://%s", c->peer, name);
	conn_answer(c, 308, loc, "308 Permanent Redirect\n");
	return (1);
}

/* the field's value for the connection's listener, or NULL for none */
const char *
redirect_hsts(const struct gw_conn *c, const struct http_head *h,
    char *buf, size_t len)
{
	const struct ctl_listener	*l = &c->listener->conf;
	size_t				 i;

	if (!l->tls || !l->hsts)
		return (NULL);
	for (i = 0; i < h->nfields; i++)
		if (h->fields[i].namelen == sizeof(HSTS_NAME) - 1 &&
		    strncasecmp(h->fields[i].name, HSTS_NAME,
		    sizeof(HSTS_NAME) - 1) == 0)
			return (NULL);
	(void)snprintf(buf, len, "max-age=%lld%s", (long long)l->hsts_age,
	    l->hsts_sub ? "; includeSubDomains" : "");
	return (buf);
}
