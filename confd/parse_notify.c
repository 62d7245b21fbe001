/*
 * "notify" in orchd.conf: the webhooks notifyd sends (orchd.conf(5)).
 * The settings are built here directly as the packed struct notifyd
 * receives (msg.h, struct notify_conf), its key left to the parent,
 * which reads "notify key file" as root (apikey.c).  Each URL is
 * checked with the client's own parser (common/urlsplit.c): what is
 * accepted here is what notifyd can send to, and nothing that could
 * split a request line (a space, CR, LF) is.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "https.h"
#include "msg.h"
#include "notify_ev.h"
#include "conf.h"
#include "parser.h"

static struct notify_conf *
notify_get(struct orchd_conf *c)
{
	if (c->notify == NULL && (c->notify = calloc(1,
	    sizeof(*c->notify))) == NULL)
		yyerror("out of memory");
	return (c->notify);
}

/* a webhook: its URL and the events it wants, 0 for the default ones */
int
notify_add(struct orchd_conf *c, const char *url, uint32_t events)
{
	struct notify_conf	*n;
	char			 host[256], port[8], path[NOTIFY_URL_MAX];
	uint32_t		 i;
	int			 tls;

	if ((n = notify_get(c)) == NULL)
		return (-1);
	if (strlen(url) >= NOTIFY_URL_MAX || https_url_parse(url, &tls, host,
	    sizeof(host), port, sizeof(port), path, sizeof(path)) == -1) {
		yyerror("notify: not an http:// or https:// URL of at most "
		    "%d characters, without spaces or user: %.80s",
		    NOTIFY_URL_MAX - 1, url);
		return (-1);
	}
	for (i = 0; i < n->ntargets; i++)
		if (strcmp(n->targets[i].url, url) == 0) {
			yyerror("notify %s already given", url);
			return (-1);
		}
	if (n->ntargets >= NOTIFY_URLS_MAX) {
		yyerror("notify: at most %d URLs", NOTIFY_URLS_MAX);
		return (-1);
	}
	strlcpy(n->targets[n->ntargets].url, url, NOTIFY_URL_MAX);
	n->targets[n->ntargets++].events = events != 0 ? events :
	    NOTIFY_EV_DEFAULT;
	return (0);
}

/* one more event's name into the mask */
int
notify_event(uint32_t *mask, const char *name)
{
	uint32_t	 m;

	if ((m = notify_ev_lookup(name)) == 0) {
		yyerror("notify: unknown event %s (failed, backoff, expired, "
		    "evicted, reload-refused, certificate, state, all)", name);
		return (-1);
	}
	*mask |= m;
	return (0);
}

/* notify allow loopback | link-local | local */
int
notify_allow(struct orchd_conf *c, const char *what)
{
	struct notify_conf	*n;
	uint32_t		 a;

	if (strcmp(what, "loopback") == 0)
		a = NOTIFY_ALLOW_LOOPBACK;
	else if (strcmp(what, "link-local") == 0)
		a = NOTIFY_ALLOW_LINKLOCAL;
	else if (strcmp(what, "local") == 0)
		a = NOTIFY_ALLOW_LOCAL;
	else {
		yyerror("notify allow: loopback, link-local or local, not "
		    "%s", what);
		return (-1);
	}
	if ((n = notify_get(c)) == NULL)
		return (-1);
	n->allow |= a;
	return (0);
}
