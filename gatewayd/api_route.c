/*
 * What an API request asks for, from its method and path alone: the
 * operation, the workload's name and the query's tail, or the status to
 * answer (400 for a bad name, tail or page, 404 for no such path, 405 with
 * the methods the path takes).  The query's other parameters are ignored.
 * /metrics and /healthz take HEAD as well as GET.
 */

#include <stdint.h>
#include <string.h>

#include "api.h"
#include "compat.h"
#include "http.h"
#include "units.h"

#define WL_PREFIX	"/v1/workloads"
#define EVENTS_PATH	"/v1/events"
#define GROUP_PREFIX	"/v1/groups/"
#define HOSTHIST_PATH	"/v1/host/history"
#define UI_PREFIX	"/ui/"

struct api_sub {
	const char	*name;		/* after /v1/workloads/{id}/ */
	enum http_method meth;
	enum api_op	 op;
	const char	*allow;
};

static const struct api_sub api_subs[] = {
	{ "keepwarm",	HTTP_M_POST,	API_KEEPWARM,	"POST" },
	{ "wake",	HTTP_M_POST,	API_WAKE,	"POST" },
	{ "suspend",	HTTP_M_POST,	API_SUSPEND,	"POST" },
	{ "restart",	HTTP_M_POST,	API_RESTART,	"POST" },
	{ "maintenance", HTTP_M_POST,	API_MAINT,	"POST" },
	{ "logs",	HTTP_M_GET,	API_LOGS,	"GET" },
	{ "history",	HTTP_M_GET,	API_HISTORY,	"GET" },
	{ "access",	HTTP_M_GET,	API_ACCESS,	"GET" },
};

static int
route_fail(struct api_target *t, int status, const char *error,
    const char *allow)
{
	t->op = API_NONE;
	t->status = status;
	t->error = error;
	t->allow = allow;
	return (-1);
}

/*
 * "KEY=N" among the query's parameters, from 0 to max (10 digits at the
 * most), into *out; the last one wins.  -1 with the error, why.
 */
static int
route_count(const char *q, size_t len, const char *key, int64_t max,
    int32_t *out, const char *why, struct api_target *t)
{
	const char	*p = q, *end = q + len, *amp;
	size_t		 i, plen, klen = strlen(key);
	int64_t		 n;

	while (p < end) {
		if ((amp = memchr(p, '&', end - p)) == NULL)
			amp = end;
		plen = amp - p;
		if (plen > klen && p[klen] == '=' &&
		    strncmp(p, key, klen) == 0) {
			if (plen == klen + 1 || plen > klen + 11)
				return (route_fail(t, 400, why, NULL));
			n = 0;
			for (i = klen + 1; i < plen; i++) {
				if (p[i] < '0' || p[i] > '9')
					return (route_fail(t, 400, why, NULL));
				n = n * 10 + (p[i] - '0');
			}
			if (n > max)
				return (route_fail(t, 400, why, NULL));
			*out = (int32_t)n;
		}
		p = amp + 1;
	}
	return (0);
}

/*
 * A delete's "volumes=true" or "volumes=false" among the query's
 * parameters (the last one wins); any other value is 400.
 */
static int
route_volumes(const char *q, size_t len, struct api_target *t)
{
	const char	*p = q, *end = q + len, *amp;
	size_t		 plen;

	while (p < end) {
		if ((amp = memchr(p, '&', end - p)) == NULL)
			amp = end;
		plen = amp - p;
		if (plen >= 8 && strncmp(p, "volumes=", 8) == 0) {
			if (plen == 12 && strncmp(p + 8, "true", 4) == 0)
				t->volumes = 1;
			else if (plen == 13 && strncmp(p + 8, "false", 5) == 0)
				t->volumes = 0;
			else
				return (route_fail(t, 400, "volumes: must be "
				    "true or false", NULL));
		}
		p = amp + 1;
	}
	return (0);
}

/*
 * GET /v1/workloads?limit=N&after=NAME: a page, limit from 1 to
 * CTL_PAGE_MAX (API_PAGE_DEFAULT without), after a workload's name or
 * from the first.  Anything else in either is a 400: a cursor is a
 * name, never decoded, never longer than a name.
 */
static int
route_page(const char *q, size_t len, struct api_target *t)
{
	const char	*p, *end, *amp;
	size_t		 plen, klen = strlen("after=");

	t->tail = API_PAGE_DEFAULT;
	if (q == NULL)
		return (0);
	if (route_count(q, len, "limit", CTL_PAGE_MAX, &t->tail, "limit: "
	    "must be a number of workloads from 1 to " API_PAGE_MAX_TEXT,
	    t) == -1)
		return (-1);
	if (t->tail == 0)
		return (route_fail(t, 400, "limit: must be a number of "
		    "workloads from 1 to " API_PAGE_MAX_TEXT, NULL));
	for (p = q, end = q + len; p < end; p = amp + 1) {
		if ((amp = memchr(p, '&', end - p)) == NULL)
			amp = end;
		plen = amp - p;
		if (plen < klen || strncmp(p, "after=", klen) != 0)
			continue;
		if (plen - klen >= sizeof(t->after) ||
		    memchr(p + klen, '\0', plen - klen) != NULL)
			return (route_fail(t, 400, "after: must be a "
			    "workload's name, the next of a page", NULL));
		memcpy(t->after, p + klen, plen - klen);
		t->after[plen - klen] = '\0';
		if (t->after[0] != '\0' && !valid_workload_name(t->after))
			return (route_fail(t, 400, "after: must be a "
			    "workload's name, the next of a page", NULL));
	}
	return (0);
}

/* path is "/v1/workloads/" plus rest, rest without the query */
static int
route_workload(enum http_method meth, const char *rest, size_t len,
    struct api_target *t)
{
	const char	*slash;
	size_t		 namelen, i;

	if ((slash = memchr(rest, '/', len)) != NULL)
		namelen = slash - rest;
	else
		namelen = len;
	if (namelen == 0 || namelen >= sizeof(t->name))
		return (route_fail(t, namelen == 0 ? 404 : 400, namelen == 0 ?
		    "no such path" : "invalid workload name", NULL));
	memcpy(t->name, rest, namelen);
	t->name[namelen] = '\0';
	if (!valid_workload_name(t->name))
		return (route_fail(t, 400, "invalid workload name", NULL));
	if (slash == NULL) {
		if (meth == HTTP_M_GET)
			t->op = API_GET;
		else if (meth == HTTP_M_DELETE)
			t->op = API_DELETE;
		else if (meth == HTTP_M_PUT)
			t->op = API_UPDATE;
		else if (meth == HTTP_M_PATCH)
			t->op = API_PATCH;
		else
			return (route_fail(t, 405, "method not allowed",
			    "GET, PUT, PATCH, DELETE"));
		return (0);
	}
	rest = slash + 1;
	len -= namelen + 1;
	for (i = 0; i < nitems(api_subs); i++) {
		if (strlen(api_subs[i].name) != len ||
		    strncmp(api_subs[i].name, rest, len) != 0)
			continue;
		if (meth != api_subs[i].meth)
			return (route_fail(t, 405, "method not allowed",
			    api_subs[i].allow));
		t->op = api_subs[i].op;
		return (0);
	}
	return (route_fail(t, 404, "no such path", NULL));
}

/*
 * /v1/groups/{g}/wake, suspend, keepwarm or maintenance (POST), and
 * /v1/groups/{g} (GET, DELETE): rest is what follows the prefix,
 * without the query
 */
static int
route_group(enum http_method meth, const char *rest, size_t len,
    struct api_target *t)
{
	static const struct {
		const char	*name;
		enum api_op	 op;
	} acts[] = {
		{ "wake",	API_WAKE },
		{ "suspend",	API_SUSPEND },
		{ "keepwarm",	API_KEEPWARM },
		{ "maintenance", API_MAINT },
	};
	const char	*slash;
	size_t		 namelen, i;

	slash = memchr(rest, '/', len);
	namelen = slash != NULL ? (size_t)(slash - rest) : len;
	if (namelen == 0 || namelen >= sizeof(t->name))
		return (route_fail(t, namelen == 0 ? 404 : 400, namelen == 0 ?
		    "no such path" : "invalid group name", NULL));
	memcpy(t->name, rest, namelen);
	t->name[namelen] = '\0';
	if (!valid_workload_name(t->name))
		return (route_fail(t, 400, "invalid group name", NULL));
	t->op = API_GROUP;
	if (slash == NULL) {
		/* GET: its members and its schedules' next (api_group.c) */
		if (meth == HTTP_M_GET) {
			t->gop = API_GET;
			return (0);
		}
		if (meth != HTTP_M_DELETE)
			return (route_fail(t, 405, "method not allowed",
			    "GET, DELETE"));
		t->gop = API_DELETE;
		return (0);
	}
	rest = slash + 1;
	len -= namelen + 1;
	for (i = 0; i < nitems(acts); i++) {
		if (strlen(acts[i].name) != len ||
		    strncmp(acts[i].name, rest, len) != 0)
			continue;
		if (meth != HTTP_M_POST)
			return (route_fail(t, 405, "method not allowed",
			    "POST"));
		t->gop = acts[i].op;
		return (0);
	}
	return (route_fail(t, 404, "no such path", NULL));
}

/*
 * The status page, under /ui/ (rest: what follows, without the query):
 * the page, its login, logout and session, and its assets by name, which
 * ui.c looks up whole in its table (a name it lacks, "..", "%2e" and the
 * like are 404 there).
 */
static int
route_ui(enum http_method meth, const char *rest, size_t len,
    struct api_target *t)
{
	static const struct {
		const char	*name;
		enum http_method meth;
		enum api_op	 op;
		const char	*allow;
	} ui[] = {
		{ "login",	HTTP_M_POST,	API_UI_LOGIN,	"POST" },
		{ "logout",	HTTP_M_POST,	API_UI_LOGOUT,	"POST" },
		{ "session",	HTTP_M_GET,	API_UI_SESSION,	"GET" },
	};
	size_t	 i;

	t->ui = 1;
	for (i = 0; i < nitems(ui); i++) {
		if (strlen(ui[i].name) != len ||
		    strncmp(ui[i].name, rest, len) != 0)
			continue;
		if (meth != ui[i].meth)
			return (route_fail(t, 405, "method not allowed",
			    ui[i].allow));
		t->op = ui[i].op;
		return (0);
	}
	if (len >= sizeof(t->name) || memchr(rest, '\0', len) != NULL)
		return (route_fail(t, 404, "no such path", NULL));
	if (meth != HTTP_M_GET && meth != HTTP_M_HEAD)
		return (route_fail(t, 405, "method not allowed", "GET, HEAD"));
	memcpy(t->name, rest, len);
	t->name[len] = '\0';
	t->op = API_UI_ASSET;
	t->open = 1;
	return (0);
}

/*
 * path: the origin-form target, query included, len bytes.  0 with t
 * filled, or -1 with t->status and t->error (and t->allow for 405).
 */
int
api_route(enum http_method meth, const char *path, size_t len,
    struct api_target *t)
{
	const char	*q;
	size_t		 plen, pre = strlen(WL_PREFIX);

	memset(t, 0, sizeof(*t));
	t->tail = API_TAIL_DEFAULT;
	q = memchr(path, '?', len);
	plen = q != NULL ? (size_t)(q - path) : len;

	/* the two that HEAD asks too: their head alone is answered */
	if ((plen == 8 && strncmp(path, "/metrics", 8) == 0) ||
	    (plen == 8 && strncmp(path, "/healthz", 8) == 0)) {
		t->open = path[1] == 'h';
		if (meth != HTTP_M_GET && meth != HTTP_M_HEAD)
			return (route_fail(t, 405, "method not allowed",
			    "GET, HEAD"));
		t->op = path[1] == 'm' ? API_METRICS : API_HEALTHZ;
		return (0);
	}
	if (plen == strlen(EVENTS_PATH) && strncmp(path, EVENTS_PATH,
	    plen) == 0) {
		if (meth != HTTP_M_GET)
			return (route_fail(t, 405, "method not allowed",
			    "GET"));
		t->op = API_EVENTS;
		return (0);
	}
	if (plen == strlen(HOSTHIST_PATH) && strncmp(path, HOSTHIST_PATH,
	    plen) == 0) {
		if (meth != HTTP_M_GET)
			return (route_fail(t, 405, "method not allowed",
			    "GET"));
		t->op = API_HOST_HISTORY;
		return (0);
	}
	if (plen >= strlen(UI_PREFIX) && strncmp(path, UI_PREFIX,
	    strlen(UI_PREFIX)) == 0)
		return (route_ui(meth, path + strlen(UI_PREFIX), plen -
		    strlen(UI_PREFIX), t));
	if (plen > strlen(GROUP_PREFIX) && strncmp(path, GROUP_PREFIX,
	    strlen(GROUP_PREFIX)) == 0)
	{
		if (route_group(meth, path + strlen(GROUP_PREFIX), plen -
		    strlen(GROUP_PREFIX), t) == -1)
			return (-1);
		return (t->gop == API_DELETE && q != NULL ?
		    route_volumes(q + 1, len - plen - 1, t) : 0);
	}
	if (plen < pre || strncmp(path, WL_PREFIX, pre) != 0)
		return (route_fail(t, 404, "no such path", NULL));
	if (plen == pre || (plen == pre + 1 && path[pre] == '/')) {
		if (meth == HTTP_M_GET) {
			t->op = API_LIST;
			return (route_page(q != NULL ? q + 1 : NULL, q != NULL ?
			    len - plen - 1 : 0, t));
		} else if (meth == HTTP_M_POST)
			t->op = API_CREATE;
		else
			return (route_fail(t, 405, "method not allowed",
			    "GET, POST"));
		return (0);
	}
	if (path[pre] != '/')
		return (route_fail(t, 404, "no such path", NULL));
	if (route_workload(meth, path + pre + 1, plen - pre - 1, t) == -1)
		return (-1);
	if (t->op == API_DELETE && q != NULL)
		return (route_volumes(q + 1, len - plen - 1, t));
	if (t->op == API_LOGS && q != NULL)
		return (route_count(q + 1, len - plen - 1, "tail",
		    API_TAIL_MAX, &t->tail, "tail: must be a number of lines "
		    "from 0 to 10000", t));
	if (t->op == API_ACCESS) {
		t->tail = ALOG_ASK_MAX;
		if (q != NULL && route_count(q + 1, len - plen - 1, "limit",
		    ALOG_ASK_MAX, &t->tail, "limit: must be a number of lines "
		    "from 1 to 100", t) == -1)
			return (-1);
		if (t->tail == 0)
			return (route_fail(t, 400, "limit: must be a number "
			    "of lines from 1 to 100", NULL));
	}
	return (0);
}
