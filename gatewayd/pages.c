/*
 * Pages for the answers the gateway gives itself ("error page", orchd.conf
 * (5)): a 503 when a wake failed, a 502 or 504 from the upstream, a 404
 * for a host routed nowhere.  The parent sends each file's bytes as confd
 * read them, and the global entries (IMSG_CFG_PAGE, IMSG_CFG_ERRPAGE, in
 * a configuration transaction, taken on START); a workload's entries are
 * in its definition.  No file is read on the request path.
 *
 * What the client asks for decides (its Accept, looked at once per
 * request by serve.c): text/html gets the page, its {workload},
 * {status}, {retry_after} and {message} (the line of text that says
 * why, a maintenance's message among them) put in with HTML's escapes,
 * when one is
 * configured for that status; application/json gets a JSON object,
 * page or not; anything else the line of text it always got.  This is
 * only for what orchd answers with an error: a held request is held, as
 * ever, and a workload's own answers pass as they are.
 */

#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "errpage.h"
#include "http.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "pages.h"

struct gw_page {
	char		 path[ERRPAGE_PATH_MAX];
	char		*data;
	size_t		 len;
};

/* the counts first: with none used, one page of the set is touched */
struct gw_errpages {
	size_t		 npages;
	size_t		 nglobal;
	struct gw_page	 pages[ERRPAGE_FILES_MAX];
	struct cfg_errpage global[ERRPAGE_FILES_MAX];
};

/*
 * Two sets, taken in turn: a START swaps the pointers rather than copy
 * one set over the other, and only the entries used are ever written,
 * so the tables' unused pages (264 KiB) are never mapped at rest.
 */
static struct gw_errpages	 ep_a, ep_b;
static struct gw_errpages	*ep_next = &ep_a, *ep_cur = &ep_b;

static void
errpages_free(struct gw_errpages *e)
{
	size_t	 i;

	for (i = 0; i < e->npages; i++) {
		free(e->pages[i].data);
		memset(&e->pages[i], 0, sizeof(e->pages[i]));
	}
	memset(e->global, 0, e->nglobal * sizeof(e->global[0]));
	e->npages = 0;
	e->nglobal = 0;
}

/* a file's bytes: its path, then text without a NUL, bounded */
void
errpage_recv_page(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_page	 cp;
	struct gw_page	*p;
	size_t		 len = imsg_get_len(imsg);
	char		*buf;

	if (len < sizeof(cp) || len - sizeof(cp) > ERRPAGE_MAX ||
	    ep_next->npages >= nitems(ep_next->pages))
		fatalx("%s: a bad page from the parent", __func__);
	if ((buf = malloc(len)) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, buf, len);
	memcpy(&cp, buf, sizeof(cp));
	if (memchr(cp.path, '\0', sizeof(cp.path)) == NULL ||
	    cp.path[0] != '/' ||
	    memchr(buf + sizeof(cp), '\0', len - sizeof(cp)) != NULL)
		fatalx("%s: a bad page from the parent", __func__);
	p = &ep_next->pages[ep_next->npages++];
	memcpy(p->path, cp.path, sizeof(p->path));
	p->len = len - sizeof(cp);
	memmove(buf, buf + sizeof(cp), p->len);
	p->data = buf;
}

/* a global "error page" */
void
errpage_recv_global(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_errpage	*g;

	if (ep_next->nglobal >= nitems(ep_next->global))
		fatalx("%s: too many error pages", __func__);
	g = &ep_next->global[ep_next->nglobal];
	(void)imsg_get_data(imsg, g, sizeof(*g));
	if (!errpage_status_ok(g->status) ||
	    memchr(g->path, '\0', sizeof(g->path)) == NULL)
		fatalx("%s: a bad error page from the parent", __func__);
	ep_next->nglobal++;
}

/* on START: the pages the transaction brought */
void
errpage_apply(void)
{
	struct gw_errpages	*e;

	errpages_free(ep_cur);
	e = ep_cur;
	ep_cur = ep_next;
	ep_next = e;
}

/* what an answer of ours may be, from the request's Accept */
int
errpage_accept(const struct http_head *h)
{
	const struct http_field	*f;

	if ((f = http_head_find(h, "Accept")) == NULL)
		return (GW_ACCEPT_ANY);
	if (strcasestr(f->value, "text/html") != NULL)
		return (GW_ACCEPT_HTML);
	if (strcasestr(f->value, "application/json") != NULL)
		return (GW_ACCEPT_JSON);
	return (GW_ACCEPT_ANY);
}

static const struct gw_page *
page_by_path(const char *path)
{
	size_t	 i;

	for (i = 0; i < ep_cur->npages; i++)
		if (strcmp(ep_cur->pages[i].path, path) == 0)
			return (&ep_cur->pages[i]);
	return (NULL);
}

/* the workload's page for status, else the global one, or NULL */
static const struct gw_page *
page_for(const struct gw_workload *wl, int status)
{
	const struct strentry	*e;
	const char		*path;
	size_t			 i;
	int			 s;

	/* one with error pages keeps its definition in full (wldef.c) */
	if (wl != NULL && wl->def != NULL)
		TAILQ_FOREACH(e, &wl->def->error_pages, entry)
			if (errpage_entry_split(e->str, &s, &path) == 0 &&
			    s == status)
				return (page_by_path(path));
	for (i = 0; i < ep_cur->nglobal; i++)
		if (ep_cur->global[i].status == status)
			return (page_by_path(ep_cur->global[i].path));
	return (NULL);
}

/* HTML's five escapes, for what goes into a page */
static void
html_escaped(struct evbuffer *b, const char *s)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '&':
			evbuffer_add(b, "&amp;", 5);
			break;
		case '<':
			evbuffer_add(b, "&lt;", 4);
			break;
		case '>':
			evbuffer_add(b, "&gt;", 4);
			break;
		case '"':
			evbuffer_add(b, "&quot;", 6);
			break;
		case '\'':
			evbuffer_add(b, "&#39;", 5);
			break;
		default:
			evbuffer_add(b, s, 1);
		}
}

/* the page, its three words put in */
static void
page_render(struct evbuffer *b, const struct gw_page *p, const char *wl,
    const char *status, const char *retry, const char *text)
{
	static const struct {
		const char	*word;
		size_t		 len;
	} words[] = {
		{ "{workload}", 10 }, { "{status}", 8 },
		{ "{retry_after}", 13 }, { "{message}", 9 }
	};
	const char	*s = p->data, *end = p->data + p->len, *brace;
	const char	*vals[4] = { wl, status, retry, text };
	size_t		 i;

	while ((brace = memchr(s, '{', end - s)) != NULL) {
		evbuffer_add(b, s, brace - s);
		for (i = 0; i < nitems(words); i++)
			if ((size_t)(end - brace) >= words[i].len &&
			    memcmp(brace, words[i].word, words[i].len) == 0)
				break;
		if (i == nitems(words)) {
			evbuffer_add(b, "{", 1);
			s = brace + 1;
			continue;
		}
		html_escaped(b, vals[i]);
		s = brace + words[i].len;
	}
	evbuffer_add(b, s, end - s);
}

/* seconds of the Retry-After among extra's fields, or -1 */
static int
retry_after(const char *extra)
{
	const char	*p;
	long		 v;

	if (extra == NULL || (p = strstr(extra, "Retry-After: ")) == NULL)
		return (-1);
	v = strtol(p + 13, NULL, 10);
	return (v >= 0 && v <= 86400 ? (int)v : -1);
}

static int
json_render(struct evbuffer *b, int status, const char *reason,
    const char *wl, int retry, const char *text)
{
	json_t	*o;
	char	*s;

	if ((o = json_object()) == NULL)
		return (-1);
	if (json_object_set_new(o, "error", json_string(reason)) == -1 ||
	    json_object_set_new(o, "status", json_integer(status)) == -1 ||
	    json_object_set_new(o, "workload", wl != NULL ?
	    json_string(wl) : json_null()) == -1 ||
	    json_object_set_new(o, "retry_after", retry >= 0 ?
	    json_integer(retry) : json_null()) == -1 ||
	    (text != NULL && *text != '\0' && json_object_set_new(o,
	    "detail", json_string(text)) == -1) ||
	    (s = json_dumps(o, JSON_COMPACT)) == NULL) {
		json_decref(o);
		return (-1);
	}
	json_decref(o);
	evbuffer_add_printf(b, "%s\n", s);
	free(s);
	return (0);
}

/*
 * The body of an answer of ours to c, in b, and its type, when the
 * client asked for one we have: 1, or 0 for the line of text.
 */
int
errpage_body(struct gw_conn *c, int status, const char *reason,
    const char *extra, const char *text, struct evbuffer *b,
    const char **ctype)
{
	const struct gw_workload	*wl;
	const struct gw_page		*p;
	char				 st[8], rs[16];
	int				 retry;

	wl = c->routed ? c->wl : NULL;
	retry = retry_after(extra);
	if (c->accept == GW_ACCEPT_JSON) {
		if (json_render(b, status, reason, wl != NULL ? wl->name :
		    NULL, retry, text) == -1)
			return (0);
		*ctype = "application/json";
		return (1);
	}
	if (c->accept != GW_ACCEPT_HTML ||
	    (p = page_for(wl, status)) == NULL)
		return (0);
	(void)snprintf(st, sizeof(st), "%d", status);
	if (retry >= 0)
		(void)snprintf(rs, sizeof(rs), "%d", retry);
	else
		rs[0] = '\0';
	page_render(b, p, wl != NULL ? wl->name : "", st, rs,
	    text != NULL ? text : "");
	*ctype = "text/html; charset=utf-8";
	return (1);
}
