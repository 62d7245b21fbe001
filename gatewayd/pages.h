/*
 * Pages for the gateway's own answers (pages.c).
 */

#ifndef ORCHD_GW_PAGES_H
#define ORCHD_GW_PAGES_H

struct evbuffer;
struct gw_conn;
struct http_head;
struct imsg;
struct imsgev;

/* what a client's Accept lets an answer of ours be */
#define GW_ACCEPT_ANY		0	/* the line of text, as ever */
#define GW_ACCEPT_HTML		1	/* a page, if one is configured */
#define GW_ACCEPT_JSON		2

void	errpage_recv_page(struct imsgev *, struct imsg *);
void	errpage_recv_global(struct imsgev *, struct imsg *);
void	errpage_apply(void);
int	errpage_accept(const struct http_head *);
int	errpage_body(struct gw_conn *, int, const char *, const char *,
	    const char *, struct evbuffer *, const char **);

#endif /* ORCHD_GW_PAGES_H */
