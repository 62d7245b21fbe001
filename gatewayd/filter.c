/*
 * Matching a request against "ignore" rules, on the request path: no
 * allocation, no system call, nothing computed that no rule asks for.
 * Rules are compiled when a configuration is applied (the networks
 * parsed, the patterns kept where the configuration holds them); a
 * request is then its path without the query, its User-Agent and its
 * client's address, each found once, when the first rule wants it.
 *
 * A path or a User-Agent longer than FILTER_SUBJECT_MAX matches no rule:
 * monitors send short ones, and the bound keeps the cost of a match (a
 * pass of the string per character of the pattern, common/filter.c)
 * small whatever a client sends.
 *
 * The client is the connection's peer; from a "trusted proxy", the last
 * address of its X-Forwarded-For, the one that proxy added, when there
 * is one that parses.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <string.h>

#include "http.h"
#include "ignore.h"
#include "msg.h"
#include "workload.h"
#include "filter.h"

/* 0, or -1 if the rule cannot be matched (the parent checked it) */
int
filter_compile(struct gw_filter *f, int kind, const char *pattern,
    int answer)
{
	const char	*errstr;

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->answer = answer;
	f->pattern = pattern;
	switch (kind) {
	case IGNORE_PATH:
	case IGNORE_AGENT:
		return (glob_valid(pattern) ? 0 : -1);
	case IGNORE_FROM:
		return (netaddr_parse(pattern, &f->net, &errstr));
	default:
		return (-1);
	}
}

void
filter_req_init(struct filter_req *rq, const struct http_head *h,
    const struct netaddr *peer, int trusted)
{
	const char	*q;

	memset(rq, 0, sizeof(*rq));
	rq->h = h;
	rq->peer = peer;
	rq->trusted = trusted;
	/* http://host with no path is "/" */
	rq->path = h->pathlen > 0 ? h->path : "/";
	rq->pathlen = h->pathlen > 0 ? h->pathlen : 1;
	if ((q = memchr(rq->path, '?', rq->pathlen)) != NULL)
		rq->pathlen = q - rq->path;
}

static void
filter_agent(struct filter_req *rq)
{
	const struct http_field	*f;

	rq->agent_done = 1;
	if ((f = http_head_find(rq->h, "User-Agent")) == NULL)
		return;
	rq->agent = f->value;
	rq->agentlen = f->valuelen;
}

/* the last element of an X-Forwarded-For value, if it is an address */
int
filter_forwarded_last(const char *v, size_t len, struct netaddr *na)
{
	const char	*end, *start;
	char		 buf[INET6_ADDRSTRLEN];
	size_t		 n;

	end = v + len;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (start = end; start > v && start[-1] != ','; start--)
		;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	if ((n = end - start) == 0 || n >= sizeof(buf))
		return (-1);
	memcpy(buf, start, n);
	buf[n] = '\0';
	memset(na, 0, sizeof(*na));
	if (inet_pton(AF_INET, buf, na->addr) == 1)
		na->af = AF_INET;
	else if (inet_pton(AF_INET6, buf, na->addr) == 1)
		na->af = AF_INET6;
	else
		return (-1);
	return (0);
}

/* the last element of the last X-Forwarded-For, if it is an address */
int
filter_forwarded_client(const struct http_head *h, struct netaddr *na)
{
	const struct http_field	*f, *last = NULL;
	size_t			 i;

	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->id == HTTP_H_X_FORWARDED_FOR)
			last = f;
	}
	if (last == NULL)
		return (-1);
	return (filter_forwarded_last(last->value, last->valuelen, na));
}

static void
filter_client(struct filter_req *rq)
{
	rq->client_done = 1;
	if (!rq->trusted || filter_forwarded_client(rq->h, &rq->client) == -1)
		rq->client = *rq->peer;
}

static int
filter_one(const struct gw_filter *f, struct filter_req *rq)
{
	switch (f->kind) {
	case IGNORE_PATH:
		return (rq->pathlen <= FILTER_SUBJECT_MAX &&
		    glob_match(f->pattern, rq->path, rq->pathlen));
	case IGNORE_AGENT:
		if (!rq->agent_done)
			filter_agent(rq);
		return (rq->agent != NULL &&
		    rq->agentlen <= FILTER_SUBJECT_MAX &&
		    glob_match(f->pattern, rq->agent, rq->agentlen));
	case IGNORE_FROM:
		if (!rq->client_done)
			filter_client(rq);
		return (netaddr_match(&f->net, &rq->client));
	default:
		return (0);
	}
}

/* the first of n rules the request matches, or NULL */
const struct gw_filter *
filter_match(const struct gw_filter *f, size_t n, struct filter_req *rq)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (filter_one(&f[i], rq))
			return (&f[i]);
	return (NULL);
}

/*
 * The first of n rules a raw TCP connection from peer matches: only
 * "from" rules, as it has no path and no User-Agent, and its client is
 * its peer, as it has no X-Forwarded-For.
 */
const struct gw_filter *
filter_match_from(const struct gw_filter *f, size_t n,
    const struct netaddr *peer)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (f[i].kind == IGNORE_FROM && netaddr_match(&f[i].net, peer))
			return (&f[i]);
	return (NULL);
}
