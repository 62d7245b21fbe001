/*
 * "ignore" rules as the gateway matches them (filter.c): compiled once
 * per configuration, matched per request without allocating.
 */

#ifndef ORCHD_FILTER_H
#define ORCHD_FILTER_H

#include <stddef.h>

#include "http.h"
#include "msg.h"

#define FILTER_SUBJECT_MAX	512	/* a longer path or agent: no match */

struct gw_filter {
	int			 kind;		/* enum ignore_kind */
	int			 answer;	/* 503 or 200 */
	const char		*pattern;	/* the configuration's */
	struct netaddr		 net;		/* IGNORE_FROM */
};

/* one request, its parts found as the rules need them */
struct filter_req {
	const struct http_head	*h;
	const struct netaddr	*peer;
	int			 trusted;	/* peer is a trusted proxy */
	const char		*path;		/* without the query */
	size_t			 pathlen;
	int			 agent_done;
	const char		*agent;		/* NULL: none */
	size_t			 agentlen;
	int			 client_done;
	struct netaddr		 client;
};

int	filter_compile(struct gw_filter *, int, const char *, int);
void	filter_req_init(struct filter_req *, const struct http_head *,
	    const struct netaddr *, int);
const struct gw_filter *filter_match(const struct gw_filter *, size_t,
	    struct filter_req *);
int	filter_forwarded_last(const char *, size_t, struct netaddr *);
int	filter_forwarded_client(const struct http_head *, struct netaddr *);
const struct gw_filter *filter_match_from(const struct gw_filter *, size_t,
	    const struct netaddr *);

#endif /* ORCHD_FILTER_H */
