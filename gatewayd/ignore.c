/*
 * Requests that are not use ("ignore" in orchd.conf).  A routed request
 * matching one of its workload's rules, or else one of the global ones,
 * is no activity: to a running workload it is proxied without being
 * counted in flight nor moving the last time seen, so the reaper
 * suspends the workload as if it had not come (and the suspend may cut
 * it); to one that is not running it wakes nothing and is answered here,
 * 503 with Retry-After or the rule's 200, with Orchd-State saying the
 * state.  A failed workload's answer is always a 503: a monitor should
 * see that one.
 *
 * The global rules come from the parent in each configuration
 * transaction (IMSG_CFG_IGNORE) and take effect on START; a workload's
 * are compiled from its definition when the generation is applied.
 * Per workload too: the tunnel idle timeout and Server-Timing, resolved
 * against the global settings.
 *
 * A connection to a workload's own TCP listener is matched against the
 * "from" rules alone: if its client matches one, it is proxied uncounted
 * to a running workload, and closed without a wake otherwise (raw TCP has
 * no answer of ours to give).
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "util.h"
#include "workload.h"
#include "gateway.h"
#include "filter.h"

static struct cfg_ignore	 ign_next[ORCHD_IGNORE_MAX];
static size_t			 nign_next;
static struct cfg_ignore	 ign_cur[ORCHD_IGNORE_MAX];
static struct gw_filter		 glob_cur[ORCHD_IGNORE_MAX];
static size_t			 nglob_cur;

void
ignore_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_ignore	*ci;

	if (nign_next >= nitems(ign_next))
		fatalx("%s: more than %d global ignores", __func__,
		    ORCHD_IGNORE_MAX);
	ci = &ign_next[nign_next];
	(void)imsg_get_data(imsg, ci, sizeof(*ci));
	if (memchr(ci->pattern, '\0', sizeof(ci->pattern)) == NULL)
		fatalx("%s: an unterminated pattern", __func__);
	nign_next++;
}

/* on START: the global rules the transaction brought, compiled */
void
ignore_apply(struct cfg_generation *gen)
{
	size_t	 i;

	memcpy(ign_cur, ign_next, nign_next * sizeof(ign_cur[0]));
	nglob_cur = nign_next;
	nign_next = 0;
	for (i = 0; i < nglob_cur; i++)
		if (filter_compile(&glob_cur[i], ign_cur[i].kind,
		    ign_cur[i].pattern, ign_cur[i].answer) == -1)
			fatalx("%s: ignore \"%s\" from the parent", __func__,
			    ign_cur[i].pattern);
}

void
ignore_forget(struct gw_workload *wl)
{
	free(wl->filters);
	wl->filters = NULL;
	wl->nfilters = 0;
}

/* a workload of the new generation: its rules, tunnels, Server-Timing */
void
ignore_workload(struct gw_workload *wl, const struct workload_conf *wc,
    const struct cfg_generation *gen)
{
	const struct ignore_rule	*r;
	size_t				 n = 0;

	ignore_forget(wl);
	TAILQ_FOREACH(r, &wc->ignores, entry)
		n++;
	if (n > 0 && (wl->filters = calloc(n, sizeof(*wl->filters))) ==
	    NULL)
		fatal("%s", __func__);
	TAILQ_FOREACH(r, &wc->ignores, entry)
		if (filter_compile(&wl->filters[wl->nfilters++], r->kind,
		    r->pattern, r->answer) == -1)
			fatalx("%s: workload %s: ignore \"%s\"", __func__,
			    wc->name, r->pattern);
	wl->tunnel_idle = wc->tunnel_idle >= 0 ? wc->tunnel_idle :
	    gen->global.tunnel_idle;
	wl->server_timing = wc->server_timing >= 0 ? wc->server_timing :
	    gen->global.server_timing;
}

/*
 * A request routed to c->wl, its head read: -1 if it is use, else the
 * answer of the rule it matched (serve.c proxies it uncounted to a
 * running workload, or answers it without a wake).
 */
int
ignore_request(struct gw_conn *c)
{
	const struct gw_filter	*f = NULL;
	struct gw_workload	*wl = c->wl;
	struct filter_req	 rq;

	if (wl->nfilters == 0 && nglob_cur == 0)
		return (-1);
	filter_req_init(&rq, &c->req->h, &c->peeraddr, c->trusted);
	if ((f = filter_match(wl->filters, wl->nfilters, &rq)) == NULL &&
	    (f = filter_match(glob_cur, nglob_cur, &rq)) == NULL)
		return (-1);
	return (f->answer);
}

/*
 * A connection accepted on a TCP listener of c->wl (tcp.c): 1 if its
 * client matches a "from" rule, the workload's or a global one, and so
 * is not use; 0 if it is.
 */
int
ignore_tcp(const struct gw_conn *c)
{
	const struct gw_workload	*wl = c->wl;

	if (wl->nfilters == 0 && nglob_cur == 0)
		return (0);
	return (filter_match_from(wl->filters, wl->nfilters,
	    &c->peeraddr) != NULL ||
	    filter_match_from(glob_cur, nglob_cur, &c->peeraddr) != NULL);
}
