/*
 * The HTTP API's pure pieces: what a request line asks for, the JSON of
 * a workload and of its history, the Prometheus text format, the
 * request duration histogram and the gateways' summed counts, the bearer
 * key and the slowing down of guessers, and the store's rows for the
 * workloads the API creates.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event.h>
#include <jansson.h>

#include "compat.h"
#include "http.h"
#include "msg.h"
#include "util.h"
#include "workload.h"
#include "../../gatewayd/api.h"
#include "../../gatewayd/metrics.h"
#include "../../stored/store_db.h"

/*
 * api_route
 */

static void
route_ok(enum http_method m, const char *path, enum api_op op,
    const char *name)
{
	struct api_target	 t;

	assert_int_equal(api_route(m, path, strlen(path), &t), 0);
	assert_int_equal(t.op, op);
	assert_int_equal(t.status, 0);
	assert_string_equal(t.name, name);
}

static void
route_fails(enum http_method m, const char *path, int status,
    const char *allow)
{
	struct api_target	 t;

	assert_int_equal(api_route(m, path, strlen(path), &t), -1);
	assert_int_equal(t.op, API_NONE);
	assert_int_equal(t.status, status);
	assert_non_null(t.error);
	if (allow == NULL)
		assert_null(t.allow);
	else
		assert_string_equal(t.allow, allow);
}

static void
test_route_every_endpoint(void **state)
{
	route_ok(HTTP_M_GET, "/v1/workloads", API_LIST, "");
	route_ok(HTTP_M_GET, "/v1/workloads/", API_LIST, "");
	route_ok(HTTP_M_GET, "/v1/workloads?x=1", API_LIST, "");
	route_ok(HTTP_M_POST, "/v1/workloads", API_CREATE, "");
	route_ok(HTTP_M_GET, "/v1/workloads/blog", API_GET, "blog");
	route_ok(HTTP_M_DELETE, "/v1/workloads/blog", API_DELETE, "blog");
	route_ok(HTTP_M_PUT, "/v1/workloads/blog", API_UPDATE, "blog");
	route_ok(HTTP_M_PATCH, "/v1/workloads/blog", API_PATCH, "blog");
	route_ok(HTTP_M_POST, "/v1/workloads/a.b-c_d/keepwarm", API_KEEPWARM,
	    "a.b-c_d");
	route_ok(HTTP_M_POST, "/v1/workloads/x/wake", API_WAKE, "x");
	route_ok(HTTP_M_POST, "/v1/workloads/x/suspend", API_SUSPEND, "x");
	route_ok(HTTP_M_GET, "/v1/workloads/x/logs", API_LOGS, "x");
	route_ok(HTTP_M_GET, "/v1/workloads/x/history", API_HISTORY, "x");
	route_ok(HTTP_M_POST, "/v1/workloads/x/restart", API_RESTART, "x");
	route_ok(HTTP_M_POST, "/v1/workloads/x/maintenance", API_MAINT, "x");
	route_ok(HTTP_M_GET, "/v1/host/history", API_HOST_HISTORY, "");
	route_ok(HTTP_M_GET, "/v1/host/history?x", API_HOST_HISTORY, "");
	route_ok(HTTP_M_GET, "/v1/workloads/x/access", API_ACCESS, "x");
	route_ok(HTTP_M_GET, "/v1/workloads/x/access?limit=1", API_ACCESS,
	    "x");
	route_ok(HTTP_M_GET, "/metrics", API_METRICS, "");
	route_ok(HTTP_M_GET, "/metrics?name[]=x", API_METRICS, "");
	route_ok(HTTP_M_HEAD, "/metrics", API_METRICS, "");
	route_ok(HTTP_M_GET, "/healthz", API_HEALTHZ, "");
	route_ok(HTTP_M_HEAD, "/healthz", API_HEALTHZ, "");
	route_ok(HTTP_M_GET, "/healthz?x", API_HEALTHZ, "");
	route_ok(HTTP_M_GET, "/v1/events", API_EVENTS, "");
	route_ok(HTTP_M_GET, "/v1/events?since=now", API_EVENTS, "");
	/* the status page: its paths, an asset's name for ui.c to look up */
	route_ok(HTTP_M_GET, "/ui/", API_UI_ASSET, "");
	route_ok(HTTP_M_GET, "/ui/?login=failed", API_UI_ASSET, "");
	route_ok(HTTP_M_HEAD, "/ui/", API_UI_ASSET, "");
	route_ok(HTTP_M_GET, "/ui/app.0123456789abcdef.js", API_UI_ASSET,
	    "app.0123456789abcdef.js");
	route_ok(HTTP_M_GET, "/ui/../v1", API_UI_ASSET, "../v1");
	route_ok(HTTP_M_POST, "/ui/login", API_UI_LOGIN, "");
	route_ok(HTTP_M_POST, "/ui/logout", API_UI_LOGOUT, "");
	route_ok(HTTP_M_GET, "/ui/session", API_UI_SESSION, "");
}

/* a group's operations: POST its action, DELETE the group */
static void
test_route_groups(void **state)
{
	struct api_target	 t;

	route_ok(HTTP_M_POST, "/v1/groups/shop/wake", API_GROUP, "shop");
	assert_int_equal(api_route(HTTP_M_POST, "/v1/groups/shop/suspend",
	    strlen("/v1/groups/shop/suspend"), &t), 0);
	assert_int_equal(t.gop, API_SUSPEND);
	assert_int_equal(api_route(HTTP_M_POST, "/v1/groups/s/keepwarm?x",
	    strlen("/v1/groups/s/keepwarm?x"), &t), 0);
	assert_int_equal(t.gop, API_KEEPWARM);
	assert_int_equal(api_route(HTTP_M_POST, "/v1/groups/s/maintenance",
	    strlen("/v1/groups/s/maintenance"), &t), 0);
	assert_int_equal(t.gop, API_MAINT);
	assert_int_equal(api_route(HTTP_M_DELETE, "/v1/groups/shop",
	    strlen("/v1/groups/shop"), &t), 0);
	assert_int_equal(t.op, API_GROUP);
	assert_int_equal(t.gop, API_DELETE);
	route_fails(HTTP_M_GET, "/v1/groups/shop/wake", 405, "POST");
	route_fails(HTTP_M_POST, "/v1/groups/shop", 405, "GET, DELETE");
	route_fails(HTTP_M_POST, "/v1/groups/shop/logs", 404, NULL);
	route_fails(HTTP_M_POST, "/v1/groups//wake", 404, NULL);
	route_fails(HTTP_M_POST, "/v1/groups/../wake", 400, NULL);
	route_fails(HTTP_M_POST, "/v1/groups/a%2fb/wake", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/groups/", 404, NULL);
}

/* every path under /ui/ is the page's, its errors too */
static void
test_route_ui(void **state)
{
	struct api_target	 t;
	char			 longpath[256];

	route_fails(HTTP_M_GET, "/ui/login", 405, "POST");
	route_fails(HTTP_M_POST, "/ui/session", 405, "GET");
	route_fails(HTTP_M_POST, "/ui/", 405, "GET, HEAD");
	route_fails(HTTP_M_DELETE, "/ui/app.js", 405, "GET, HEAD");
	memset(longpath, 'a', sizeof(longpath) - 1);
	memcpy(longpath, "/ui/", 4);
	longpath[sizeof(longpath) - 1] = '\0';
	route_fails(HTTP_M_GET, longpath, 404, NULL);
	(void)api_route(HTTP_M_GET, longpath, strlen(longpath), &t);
	assert_int_equal(t.ui, 1);
	(void)api_route(HTTP_M_GET, "/ui/x", 5, &t);
	assert_int_equal(t.ui, 1);
	assert_int_equal(t.open, 1);
	(void)api_route(HTTP_M_POST, "/ui/login", 9, &t);
	assert_int_equal(t.open, 0);
	(void)api_route(HTTP_M_GET, "/uix", 4, &t);
	assert_int_equal(t.ui, 0);
	(void)api_route(HTTP_M_GET, "/v1/workloads", 13, &t);
	assert_int_equal(t.ui, 0);
}

static void
test_route_errors(void **state)
{
	struct api_target	 t;

	route_fails(HTTP_M_GET, "/", 404, NULL);
	route_fails(HTTP_M_GET, "/v1", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/workloadsx", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads//", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/nothing", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/logs/more", 404, NULL);
	route_fails(HTTP_M_GET, "/metrics/", 404, NULL);
	route_fails(HTTP_M_PUT, "/v1/workloads", 405, "GET, POST");
	route_fails(HTTP_M_POST, "/v1/workloads/x", 405,
	    "GET, PUT, PATCH, DELETE");
	route_fails(HTTP_M_GET, "/v1/workloads/x/wake", 405, "POST");
	route_fails(HTTP_M_GET, "/v1/workloads/x/restart", 405, "POST");
	route_fails(HTTP_M_POST, "/v1/host/history", 405, "GET");
	route_fails(HTTP_M_GET, "/v1/host/history/", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/host", 404, NULL);
	route_fails(HTTP_M_POST, "/v1/workloads/x/access", 405, "GET");
	route_fails(HTTP_M_GET, "/v1/workloads/x/access?limit=0", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/access?limit=101", 400,
	    NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/access?limit=", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/access?limit=-1", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/x/access?limit=99999999999",
	    400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/../access", 400, NULL);
	route_fails(HTTP_M_DELETE, "/v1/workloads/x/logs", 405, "GET");
	route_fails(HTTP_M_POST, "/metrics", 405, "GET, HEAD");
	route_fails(HTTP_M_DELETE, "/healthz", 405, "GET, HEAD");
	route_fails(HTTP_M_GET, "/healthz/", 404, NULL);
	route_fails(HTTP_M_GET, "/healthy", 404, NULL);
	route_fails(HTTP_M_POST, "/v1/events", 405, "GET");
	route_fails(HTTP_M_HEAD, "/v1/events", 405, "GET");
	route_fails(HTTP_M_GET, "/v1/events/", 404, NULL);
	route_fails(HTTP_M_GET, "/v1/eventsx", 404, NULL);
	/* a key is wanted, as everywhere but /healthz */
	(void)api_route(HTTP_M_GET, "/v1/events", 10, &t);
	assert_int_equal(t.open, 0);
	/* /healthz is open to all, its 405 too; nothing else is */
	(void)api_route(HTTP_M_POST, "/healthz", 8, &t);
	assert_int_equal(t.open, 1);
	(void)api_route(HTTP_M_GET, "/healthz", 8, &t);
	assert_int_equal(t.open, 1);
	(void)api_route(HTTP_M_GET, "/metrics", 8, &t);
	assert_int_equal(t.open, 0);
	(void)api_route(HTTP_M_GET, "/v1/workloads", 13, &t);
	assert_int_equal(t.open, 0);
	route_fails(HTTP_M_HEAD, "/v1/workloads/x", 405,
	    "GET, PUT, PATCH, DELETE");
	route_fails(HTTP_M_GET, "/v1/workloads/-x", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/a%20b", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/..", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads/"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    400, NULL);
}

static void
test_route_tail(void **state)
{
	struct api_target	 t;
	const char		*p;

	p = "/v1/workloads/x/logs";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_int_equal(t.tail, API_TAIL_DEFAULT);
	p = "/v1/workloads/x/logs?tail=0";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_int_equal(t.tail, 0);
	p = "/v1/workloads/x/logs?a=b&tail=10000&c";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_int_equal(t.tail, 10000);
	p = "/v1/workloads/x/logs?tail=10001";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), -1);
	assert_int_equal(t.status, 400);
	p = "/v1/workloads/x/logs?tail=-1";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), -1);
	p = "/v1/workloads/x/logs?tail=";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), -1);
	p = "/v1/workloads/x/logs?tail=99999999999999999999999";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), -1);
	/* not a path with a query: not length-terminated by NUL either */
	p = "/v1/workloads/x/logs?tail=12garbage";
	assert_int_equal(api_route(HTTP_M_GET, p, 28, &t), 0);
	assert_int_equal(t.tail, 12);
}

/* a list's page: limit and after, both checked, after never decoded */
static void
test_route_page(void **state)
{
	struct api_target	 t;
	const char		*p;

	p = "/v1/workloads";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_int_equal(t.tail, API_PAGE_DEFAULT);
	assert_string_equal(t.after, "");
	p = "/v1/workloads?limit=10000&after=web-1.x_y";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_int_equal(t.op, API_LIST);
	assert_int_equal(t.tail, CTL_PAGE_MAX);
	assert_string_equal(t.after, "web-1.x_y");
	p = "/v1/workloads/?after=a&after=b";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_string_equal(t.after, "b");
	p = "/v1/workloads?after=";
	assert_int_equal(api_route(HTTP_M_GET, p, strlen(p), &t), 0);
	assert_string_equal(t.after, "");
	route_fails(HTTP_M_GET, "/v1/workloads?limit=0", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?limit=10001", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?limit=-1", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?limit=1000000000000", 400,
	    NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?after=a%2fb", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?after=../x", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?after=-x", 400, NULL);
	route_fails(HTTP_M_GET, "/v1/workloads?after="
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    400, NULL);
	/* a NUL inside the length given */
	p = "/v1/workloads?after=a\0b";
	assert_int_equal(api_route(HTTP_M_GET, p, 23, &t), -1);
	assert_int_equal(t.status, 400);
}

/*
 * The JSON.
 */

static struct workload_conf *
sample_workload(void)
{
	struct workload_conf	*wc;

	assert_non_null(wc = workload_new("blog"));
	assert_int_equal(strlist_add(&wc->hosts, "blog.example.com"), 0);
	assert_int_equal(strlist_add(&wc->hosts, "*.blog.test"), 0);
	wc->command = strdup("/bin/blog --port 3000");
	wc->port = 3000;
	wc->memory = 512 * 1024 * 1024;
	wc->source = SOURCE_API;
	assert_int_equal(workload_validate(wc, NULL, 0), 0);
	return (wc);
}

static void
test_time(void **state)
{
	char	 buf[64];

	assert_int_equal(apij_time(0, buf, sizeof(buf)), -1);
	assert_int_equal(apij_time(-5, buf, sizeof(buf)), -1);
	assert_int_equal(apij_time(1700000000, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2023-11-14T22:13:20Z");
	assert_int_equal(apij_time(1700000000, buf, 5), -1);
}

static void
test_workload_json(void **state)
{
	struct workload_conf	*wc = sample_workload();
	struct ctl_workload	 cw;
	const char		*keys[] = { "name", "state", "driver", "hosts",
	    "keep_warm", "keep_warm_until", "idle_timeout", "last_seen",
	    "started_at", "wakes" };
	json_t			*o;
	const char		*key;
	json_t			*v;
	size_t			 i = 0;

	memset(&cw, 0, sizeof(cw));
	cw.state = WL_RUNNING;
	cw.keep_warm = 1;
	cw.last_seen = 1700000000;
	cw.started_at = 1700000001;
	cw.wakes = 7;
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	/* the summary first, in this order, then the definition */
	json_object_foreach(o, key, v) {
		if (i < nitems(keys))
			assert_string_equal(key, keys[i]);
		i++;
	}
	assert_string_equal(json_string_value(json_object_get(o, "name")),
	    "blog");
	assert_string_equal(json_string_value(json_object_get(o, "state")),
	    "running");
	assert_string_equal(json_string_value(json_object_get(o, "driver")),
	    "process");
	assert_int_equal(json_array_size(json_object_get(o, "hosts")), 2);
	assert_true(json_is_true(json_object_get(o, "keep_warm")));
	assert_int_equal(json_integer_value(json_object_get(o,
	    "idle_timeout")), 300);
	assert_int_equal(json_integer_value(json_object_get(o,
	    "wake_timeout")), 30);
	assert_string_equal(json_string_value(json_object_get(o,
	    "last_seen")), "2023-11-14T22:13:20Z");
	assert_string_equal(json_string_value(json_object_get(o,
	    "started_at")), "2023-11-14T22:13:21Z");
	assert_int_equal(json_integer_value(json_object_get(o, "wakes")), 7);
	/* the driver's fields, as a create takes them */
	assert_string_equal(json_string_value(json_object_get(o, "command")),
	    "/bin/blog --port 3000");
	assert_int_equal(json_integer_value(json_object_get(o, "port")), 3000);
	assert_int_equal(json_integer_value(json_object_get(o, "memory")),
	    512 * 1024 * 1024);
	assert_string_equal(json_string_value(json_object_get(o, "source")),
	    "api");
	assert_null(json_object_get(o, "message"));
	assert_true(json_is_null(json_object_get(o, "backoff_until")));
	assert_true(json_is_null(json_object_get(o, "maintenance")));
	assert_int_equal(json_array_size(json_object_get(o, "drift")), 0);
	json_decref(o);

	/* in maintenance: its end and its message, as given */
	cw.maint.on = 1;
	cw.maint.until = 1700000060;
	strlcpy(cw.maint.msg, "<b>back</b> \"soon\"", sizeof(cw.maint.msg));
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    o, "maintenance"), "until")), "2023-11-14T22:14:20Z");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    o, "maintenance"), "message")), "<b>back</b> \"soon\"");
	json_decref(o);
	memset(&cw.maint, 0, sizeof(cw.maint));

	/* running with an older definition: what changed, one by one */
	strlcpy(cw.drift, "command, port", sizeof(cw.drift));
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	assert_int_equal(json_array_size(json_object_get(o, "drift")), 2);
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(o, "drift"), 1)), "port");
	json_decref(o);
	memset(cw.drift, 'x', sizeof(cw.drift));
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	assert_int_equal(json_array_size(json_object_get(o, "drift")), 1);
	json_decref(o);
	cw.drift[0] = '\0';

	/* asleep: never seen, not started; its own idle timeout */
	memset(&cw, 0, sizeof(cw));
	cw.state = WL_ASLEEP;
	cw.started_at = 1700000001;	/* stale: asleep has no start */
	strlcpy(cw.msg, "exited with status 1", sizeof(cw.msg));
	cw.backoff_until = 1700000030;	/* a crash loop's */
	wc->idle_timeout = 600;
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	assert_true(json_is_null(json_object_get(o, "last_seen")));
	assert_true(json_is_null(json_object_get(o, "started_at")));
	assert_string_equal(json_string_value(json_object_get(o,
	    "backoff_until")), "2023-11-14T22:13:50Z");
	assert_true(json_is_false(json_object_get(o, "keep_warm")));
	assert_int_equal(json_integer_value(json_object_get(o,
	    "idle_timeout")), 600);
	assert_string_equal(json_string_value(json_object_get(o, "message")),
	    "exited with status 1");
	json_decref(o);
	workload_free(wc);
}

/* what the API answers can be given back to create the same workload */
static void
test_workload_json_round_trip(void **state)
{
	struct workload_conf	*wc = sample_workload(), *back;
	struct ctl_workload	 cw;
	json_t			*o;
	const char		*drop[] = { "state", "last_seen", "started_at",
	    "wakes", "message", "backoff_until", "drift", "keep_warm_until",
	    "wakes_today", "next_window", "next_wake", "maintenance" };
	char			*text, err[256];
	size_t			 i;

	memset(&cw, 0, sizeof(cw));
	assert_non_null(o = apij_workload(wc, NULL, &cw, 300, 30));
	for (i = 0; i < nitems(drop); i++)
		(void)json_object_del(o, drop[i]);
	assert_non_null(text = json_dumps(o, 0));
	back = workload_from_json(text, strlen(text), err, sizeof(err));
	if (back == NULL)
		fail_msg("%s", err);
	assert_string_equal(back->name, "blog");
	assert_int_equal(back->port, 3000);
	assert_int_equal(back->idle_timeout, 300);
	workload_free(back);
	free(text);
	json_decref(o);
	workload_free(wc);
}

static void
test_transition_json(void **state)
{
	struct ctl_transition	 ct;
	json_t			*o;

	memset(&ct, 0, sizeof(ct));
	ct.from = WL_WAKING;
	ct.to = WL_FAILED;
	ct.reason = RT_REASON_START_FAILED;
	ct.time = 1700000000;
	strlcpy(ct.msg, "no such file", sizeof(ct.msg));
	assert_non_null(o = apij_transition(&ct));
	assert_string_equal(json_string_value(json_object_get(o, "time")),
	    "2023-11-14T22:13:20Z");
	assert_string_equal(json_string_value(json_object_get(o, "from")),
	    "waking");
	assert_string_equal(json_string_value(json_object_get(o, "to")),
	    "failed");
	assert_string_equal(json_string_value(json_object_get(o, "reason")),
	    "start_failed");
	assert_string_equal(json_string_value(json_object_get(o, "message")),
	    "no such file");
	json_decref(o);
	assert_string_equal(workload_reason_name(-1, 1), "unknown");
	assert_string_equal(workload_reason_name(1000, 1), "unknown");
}

static void
test_error_and_action(void **state)
{
	json_t	*o;
	char	*s;

	assert_non_null(s = apij_error("no \"such\" workload"));
	assert_string_equal(s, "{\"error\":\"no \\\"such\\\" workload\"}");
	free(s);
	/* not UTF-8: still an error object */
	assert_non_null(s = apij_error("\xff\xfe"));
	assert_non_null(strstr(s, "\"error\""));
	free(s);
	assert_non_null(o = apij_action("x", WL_RUNNING, -1));
	assert_null(json_object_get(o, "keep_warm"));
	json_decref(o);
	assert_non_null(o = apij_action("x", WL_WAKING, 1));
	assert_true(json_is_true(json_object_get(o, "keep_warm")));
	json_decref(o);
}

/* a keepwarm body without "until": any time later is fine */
static int
keepwarm_body(const char *body, int *on, char *err)
{
	int64_t	 until;

	return (apij_keepwarm_until(body, strlen(body), 0, on, &until, err,
	    256));
}

static void
test_keepwarm_body(void **state)
{
	char	 err[256];
	int	 on = -1;

	assert_int_equal(keepwarm_body("{\"enabled\":true}", &on, err), 0);
	assert_int_equal(on, 1);
	assert_int_equal(keepwarm_body(" {\"enabled\" : false} ", &on, err),
	    0);
	assert_int_equal(on, 0);
	assert_int_equal(keepwarm_body("{\"enabled\":1}", &on, err), -1);
	assert_non_null(strstr(err, "enabled"));
	assert_int_equal(keepwarm_body("{}", &on, err), -1);
	assert_int_equal(keepwarm_body("{\"enabled\":true,\"x\":1}", &on,
	    err), -1);
	assert_non_null(strstr(err, "unknown field \"x\""));
	assert_int_equal(keepwarm_body("[true]", &on, err), -1);
	assert_int_equal(keepwarm_body("{\"enabled\":tru", &on, err), -1);
	assert_non_null(strstr(err, "invalid JSON"));
	assert_int_equal(keepwarm_body(
	    "{\"enabled\":true,\"enabled\":true}", &on, err), -1);
}

/* maintenance's body: enabled, until and message, checked */
static void
test_maint_body(void **state)
{
	struct wl_maint	 m;
	char		 err[256];
	const int64_t	 now = 1700000000;
	const char	*b;

	b = "{\"enabled\":true,\"message\":\"<b>back</b> at 6\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    0);
	assert_int_equal(m.on, 1);
	assert_int_equal(m.until, 0);
	assert_string_equal(m.msg, "<b>back</b> at 6");
	b = "{\"enabled\":true,\"until\":\"2023-11-14T23:13:20Z\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    0);
	assert_int_equal(m.until, now + 3600);
	b = "{\"enabled\":false}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    0);
	assert_int_equal(m.on, 0);
	/* refused, m left empty */
	b = "{\"enabled\":true,\"message\":\"a\\r\\nSet-Cookie: x\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "control character"));
	assert_int_equal(m.on, 0);
	b = "{\"enabled\":true,\"message\":\"a\\u0000b\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	b = "{\"enabled\":true,\"message\":7}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	b = "{\"enabled\":false,\"message\":\"x\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	b = "{\"enabled\":true,\"until\":\"2023-11-14T22:13:20Z\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "passed"));
	b = "{\"enabled\":true,\"until\":\"2123-11-14T22:13:20Z\"}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	b = "{\"enabled\":true,\"until\":1800000000}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	b = "{\"enabled\":true,\"why\":1}";
	assert_int_equal(apij_maint(b, strlen(b), now, &m, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "unknown field"));
}

/* keep warm until: an RFC 3339 time, ahead, not too far */
static void
test_keepwarm_until(void **state)
{
	char		 err[256];
	const char	*b;
	int64_t		 now = 1700000000, until, t;	/* 2023-11-14T22:13:20Z */
	int		 on;

	b = "{\"enabled\":true,\"until\":\"2023-11-15T00:00:00Z\"}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), 0);
	assert_int_equal(on, 1);
	assert_int_equal(until, 1700006400);
	b = "{\"enabled\":true,\"until\":\"2023-11-15T01:30:00.25+01:30\"}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), 0);
	assert_int_equal(until, 1700006400);
	b = "{\"enabled\":true,\"until\":null}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), 0);
	assert_int_equal(until, 0);
	b = "{\"enabled\":true,\"until\":\"2023-11-14T22:13:20Z\"}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "passed"));
	b = "{\"enabled\":true,\"until\":\"2023-12-15T00:00:00Z\"}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "30 days"));
	b = "{\"enabled\":false,\"until\":\"2023-11-15T00:00:00Z\"}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), -1);
	b = "{\"enabled\":true,\"until\":1700006400}";
	assert_int_equal(apij_keepwarm_until(b, strlen(b), now, &on, &until,
	    err, sizeof(err)), -1);
	assert_int_equal(until, 0);
	assert_int_equal(apij_parse_time("2024-02-29T00:00:00Z", &t), 0);
	assert_int_equal(apij_parse_time("2023-02-29T00:00:00Z", &t), -1);
	assert_int_equal(apij_parse_time("2023-04-31T00:00:00Z", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15T24:00:00Z", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15T00:00:00", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15 00:00:00Z", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15T00:00:00Zx", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15T00:00:00.Z", &t), -1);
	assert_int_equal(apij_parse_time("+2023-11-15T00:00:00Z", &t), -1);
	assert_int_equal(apij_parse_time("1969-12-31T23:59:59Z", &t), -1);
	assert_int_equal(apij_parse_time("", &t), -1);
	assert_int_equal(apij_parse_time("2023-11-15T00:00:00+1:00", &t), -1);
}

/*
 * The Prometheus text format.
 */

static char *
drain(struct evbuffer *b)
{
	size_t	 len = evbuffer_get_length(b);
	char	*s;

	assert_non_null(s = calloc(1, len + 1));
	evbuffer_remove(b, s, len);
	return (s);
}

static void
test_prom_escape_and_value(void **state)
{
	char	 buf[64];

	prom_escape(buf, sizeof(buf), "a\"b\\c\nd");
	assert_string_equal(buf, "a\\\"b\\\\c\\nd");
	/* cut rather than overflow, never half an escape */
	prom_escape(buf, 4, "ab\"");
	assert_string_equal(buf, "ab");
	prom_value(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0");
	prom_value(buf, sizeof(buf), 42);
	assert_string_equal(buf, "42");
	prom_value(buf, sizeof(buf), 0.005);
	assert_string_equal(buf, "0.005");
	prom_value(buf, sizeof(buf), 2.5);
	assert_string_equal(buf, "2.5");
	prom_value(buf, sizeof(buf), 1.0 / 3.0);
	assert_true(strtod(buf, NULL) == 1.0 / 3.0);
	prom_value(buf, sizeof(buf), INFINITY);
	assert_string_equal(buf, "+Inf");
	prom_value(buf, sizeof(buf), -INFINITY);
	assert_string_equal(buf, "-Inf");
	prom_value(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "NaN");
}

static void
test_prom_lines(void **state)
{
	struct evbuffer	*b;
	char		*s;

	assert_non_null(b = evbuffer_new());
	prom_family(b, "orchd_x_total", "counter", "Things\\done\nhere.");
	prom_sample(b, "orchd_x_total", NULL, 3);
	prom_sample(b, "orchd_x_total", "", 1.5);
	prom_sample_u64(b, "orchd_x_total", "workload=\"a\"",
	    18446744073709551615ULL);
	s = drain(b);
	assert_string_equal(s,
	    "# HELP orchd_x_total Things\\\\done\\nhere.\n"
	    "# TYPE orchd_x_total counter\n"
	    "orchd_x_total 3\n"
	    "orchd_x_total 1.5\n"
	    "orchd_x_total{workload=\"a\"} 18446744073709551615\n");
	free(s);
	evbuffer_free(b);
}

static void
test_prom_histogram(void **state)
{
	const double	 bounds[] = { 0.1, 1, 10 };
	uint64_t	 counts[4] = { 0 };
	struct evbuffer	*b;
	char		*s;

	assert_int_equal(prom_bucket(bounds, 3, 0.05), 0);
	assert_int_equal(prom_bucket(bounds, 3, 0.1), 0);
	assert_int_equal(prom_bucket(bounds, 3, 0.5), 1);
	assert_int_equal(prom_bucket(bounds, 3, 10), 2);
	assert_int_equal(prom_bucket(bounds, 3, 11), 3);
	counts[prom_bucket(bounds, 3, 0.05)]++;
	counts[prom_bucket(bounds, 3, 0.5)]++;
	counts[prom_bucket(bounds, 3, 0.7)]++;
	counts[prom_bucket(bounds, 3, 99)]++;
	assert_non_null(b = evbuffer_new());
	prom_histogram(b, "orchd_h", "workload=\"w\"", bounds, counts, 3,
	    100.25);
	s = drain(b);
	assert_string_equal(s,
	    "orchd_h_bucket{workload=\"w\",le=\"0.1\"} 1\n"
	    "orchd_h_bucket{workload=\"w\",le=\"1\"} 3\n"
	    "orchd_h_bucket{workload=\"w\",le=\"10\"} 3\n"
	    "orchd_h_bucket{workload=\"w\",le=\"+Inf\"} 4\n"
	    "orchd_h_sum{workload=\"w\"} 100.25\n"
	    "orchd_h_count{workload=\"w\"} 4\n");
	free(s);
	prom_histogram(b, "orchd_h", NULL, bounds, counts, 3, 0);
	s = drain(b);
	assert_non_null(strstr(s, "orchd_h_bucket{le=\"0.1\"} 1\n"));
	assert_non_null(strstr(s, "orchd_h_count 4\n"));
	free(s);
	evbuffer_free(b);
}

/* the request duration histogram: its buckets, written as Prometheus's */
static void
test_request_durations(void **state)
{
	uint64_t	 hist[METRICS_DUR_BOUNDS + 1] = { 0 };
	double		 sum = 0;
	struct evbuffer	*b;
	char		*s;
	int		 i;

	for (i = 1; i < METRICS_DUR_BOUNDS; i++)
		assert_true(metrics_dur_bounds[i - 1] < metrics_dur_bounds[i]);
	metrics_dur_observe(hist, &sum, 0.0004);	/* le 0.001 */
	metrics_dur_observe(hist, &sum, 0.001);		/* le 0.001 */
	metrics_dur_observe(hist, &sum, 0.3);		/* le 0.5 */
	metrics_dur_observe(hist, &sum, 75);		/* +Inf */
	metrics_dur_observe(hist, &sum, -1);		/* a clock step: 0 */
	assert_int_equal(hist[0], 3);
	assert_int_equal(hist[7], 1);
	assert_int_equal(hist[METRICS_DUR_BOUNDS], 1);
	assert_true(fabs(sum - 75.3014) < 1e-9);
	assert_non_null(b = evbuffer_new());
	prom_histogram(b, "orchd_request_duration_seconds",
	    "workload=\"w\"", metrics_dur_bounds, hist, METRICS_DUR_BOUNDS,
	    sum);
	s = drain(b);
	assert_non_null(strstr(s, "orchd_request_duration_seconds_bucket{"
	    "workload=\"w\",le=\"0.001\"} 3\n"));
	assert_non_null(strstr(s, "orchd_request_duration_seconds_bucket{"
	    "workload=\"w\",le=\"0.5\"} 4\n"));
	assert_non_null(strstr(s, "orchd_request_duration_seconds_bucket{"
	    "workload=\"w\",le=\"60\"} 4\n"));
	assert_non_null(strstr(s, "orchd_request_duration_seconds_bucket{"
	    "workload=\"w\",le=\"+Inf\"} 5\n"));
	assert_non_null(strstr(s, "orchd_request_duration_seconds_count{"
	    "workload=\"w\"} 5\n"));
	free(s);
	evbuffer_free(b);
}

/*
 * Every counter of one gateway adds to the others' ("prefork"): each
 * field of both structures is set apart from the others, so that one
 * forgotten, or added to the wrong one, is seen.
 */
static void
test_metrics_sums(void **state)
{
	struct gw_metrics_wl	 a, add;
	struct gw_metrics_total	 t, tadd;
	int			 i;

	memset(&a, 0, sizeof(a));
	memset(&add, 0, sizeof(add));
	strlcpy(a.name, "w", sizeof(a.name));
	strlcpy(add.name, "w", sizeof(add.name));
	for (i = 0; i < 5; i++) {
		a.requests[i] = 1 + i;
		add.requests[i] = 100 + i;
	}
	a.upstream_errors = 2; add.upstream_errors = 20;
	a.inflight = 3; add.inflight = 30;
	a.parked = 4; add.parked = 40;
	a.upgraded = 5; add.upgraded = 50;
	a.rx_bytes = 6; add.rx_bytes = 60;
	a.tx_bytes = 7; add.tx_bytes = 70;
	for (i = 0; i <= METRICS_DUR_BOUNDS; i++) {
		a.dur_hist[i] = i;
		add.dur_hist[i] = 1000 + i;
	}
	a.dur_sum = 0.5; add.dur_sum = 1.25;
	a.tcp_open = 8; add.tcp_open = 80;
	a.tcp_accepted = 9; add.tcp_accepted = 90;
	a.tcp_rx_bytes = 11; add.tcp_rx_bytes = 110;
	a.tcp_tx_bytes = 12; add.tcp_tx_bytes = 120;
	metrics_wl_add(&a, &add);
	for (i = 0; i < 5; i++)
		assert_int_equal(a.requests[i], 101 + 2 * i);
	assert_int_equal(a.upstream_errors, 22);
	assert_int_equal(a.inflight, 33);
	assert_int_equal(a.parked, 44);
	assert_int_equal(a.upgraded, 55);
	assert_int_equal(a.rx_bytes, 66);
	assert_int_equal(a.tx_bytes, 77);
	for (i = 0; i <= METRICS_DUR_BOUNDS; i++)
		assert_int_equal(a.dur_hist[i], 1000 + 2 * i);
	assert_true(a.dur_sum == 1.75);
	assert_int_equal(a.tcp_open, 88);
	assert_int_equal(a.tcp_accepted, 99);
	assert_int_equal(a.tcp_rx_bytes, 121);
	assert_int_equal(a.tcp_tx_bytes, 132);
	assert_string_equal(a.name, "w");

	memset(&t, 0, sizeof(t));
	memset(&tadd, 0, sizeof(tadd));
	t.conns = 1; tadd.conns = 10;
	for (i = 0; i < 5; i++) {
		t.api[i] = i;
		tadd.api[i] = 100 + i;
	}
	t.auth_failures = 2; tadd.auth_failures = 20;
	t.unknown_hosts = 3; tadd.unknown_hosts = 30;
	t.idle_closed = 4; tadd.idle_closed = 40;
	metrics_total_add(&t, &tadd);
	assert_int_equal(t.conns, 11);
	for (i = 0; i < 5; i++)
		assert_int_equal(t.api[i], 100 + 2 * i);
	assert_int_equal(t.auth_failures, 22);
	assert_int_equal(t.unknown_hosts, 33);
	assert_int_equal(t.idle_closed, 44);
}

/*
 * The bearer key.
 */

static void
test_bearer(void **state)
{
	const char	*tok;
	size_t		 len;
	const char	*v;

	v = "Bearer abc";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(tok, "abc", 3);
	v = "bearer \t  k.e-y_~+/=";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), 0);
	assert_int_equal(len, 10);
	v = "Bearer";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), -1);
	v = "Bearer   ";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), -1);
	v = "Bearerabc";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), -1);
	v = "Basic YWxhZGRpbjpvcGVuc2VzYW1l";
	assert_int_equal(auth_bearer(v, strlen(v), &tok, &len), -1);
}

static void
test_key_match(void **state)
{
	const uint8_t	 key[] = "secret";
	char		 huge[ORCHD_API_KEY_MAX + 10];

	assert_true(auth_key_match(key, 6, "secret", 6));
	assert_false(auth_key_match(key, 6, "secreT", 6));
	assert_false(auth_key_match(key, 6, "secret!", 7));
	assert_false(auth_key_match(key, 6, "secre", 5));
	assert_false(auth_key_match(key, 6, "", 0));
	assert_false(auth_key_match(NULL, 0, "", 0));
	assert_false(auth_key_match(key, 0, "", 0));
	memset(huge, 's', sizeof(huge));
	assert_false(auth_key_match(key, 6, huge, sizeof(huge)));
}

static void
test_guessers_slowed(void **state)
{
	int64_t	 now = 1000000, d, last = 0;
	int	 i;

	auth_clear();
	for (i = 1; i <= AUTH_FREE; i++)
		assert_int_equal(auth_failed("10.0.0.1", now + i), 0);
	/* then longer each time, up to the cap */
	for (i = 0; i < 20; i++) {
		d = auth_failed("10.0.0.1", now + 100 + i);
		assert_true(d >= last);
		assert_true(d <= AUTH_DELAY_MAX_MS);
		if (i == 0)
			assert_int_equal(d, AUTH_DELAY_MS);
		last = d;
	}
	assert_int_equal(last, AUTH_DELAY_MAX_MS);
	/* another address is not held for this one */
	assert_int_equal(auth_failed("10.0.0.2", now), 0);
	/* a success wipes the slate, and so does time */
	auth_succeeded("10.0.0.1");
	assert_int_equal(auth_failed("10.0.0.1", now + 200), 0);
	for (i = 0; i < 10; i++)
		(void)auth_failed("10.0.0.2", now + i);
	assert_int_equal(auth_failed("10.0.0.2", now + 20 + AUTH_FORGET_MS),
	    0);
	auth_clear();
	assert_int_equal(auth_entries(), 0);
}

static void
test_guessers_bounded(void **state)
{
	char	 peer[64];
	int	 i;

	auth_clear();
	/* one address fails often, then a flood of others */
	for (i = 0; i < AUTH_FREE + 2; i++)
		(void)auth_failed("192.0.2.1", i);
	for (i = 0; i < AUTH_TABLE_MAX * 3; i++) {
		snprintf(peer, sizeof(peer), "2001:db8::%x", i);
		(void)auth_failed(peer, 100 + i);
		assert_true(auth_entries() <= AUTH_TABLE_MAX);
	}
	assert_int_equal(auth_entries(), AUTH_TABLE_MAX);
	/* the least recent was forgotten: its count starts again */
	assert_int_equal(auth_failed("192.0.2.1", 100000), 0);
	auth_clear();
}

/*
 * The store's rows for the API's workloads.
 */

static int
collect(const char *json, size_t len, void *arg)
{
	json_t	*names = arg, *o;

	assert_non_null(o = json_loadb(json, len, 0, NULL));
	json_array_append(names, json_object_get(o, "name"));
	json_decref(o);
	return (0);
}

static void
test_store_api_rows(void **state)
{
	char			 dir[] = "/tmp/test_api.XXXXXX", path[128];
	char			 err[256], cmd[160];
	struct store_db		*sdb;
	struct workload_conf	*api = sample_workload(), *conf;
	struct workloadlist	 list;
	json_t			*names;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/orchd.db", dir);
	if ((sdb = store_db_open(path, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	/* only an API workload is put through this way */
	assert_non_null(conf = workload_new("conf"));
	assert_int_equal(store_db_api_put(sdb, conf, 1000), -1);
	assert_int_equal(store_db_api_put(sdb, api, 1000), 0);
	/* a configuration without it keeps it */
	TAILQ_INIT(&list);
	assert_int_equal(store_db_sync(sdb, &list, 2000), 0);
	assert_non_null(names = json_array());
	assert_int_equal(store_db_api_list(sdb, collect, names), 1);
	assert_string_equal(json_string_value(json_array_get(names, 0)),
	    "blog");
	json_array_clear(names);
	/* a configuration workload is never dropped as the API's */
	conf->port = 1;
	conf->command = strdup("/bin/true");
	assert_int_equal(strlist_add(&conf->hosts, "conf.test"), 0);
	TAILQ_INSERT_TAIL(&list, conf, entry);
	assert_int_equal(store_db_sync(sdb, &list, 3000), 0);
	assert_int_equal(store_db_api_drop(sdb, "conf"), 0);
	assert_int_equal(store_db_api_drop(sdb, "blog"), 1);
	assert_int_equal(store_db_api_drop(sdb, "blog"), 0);
	assert_int_equal(store_db_api_list(sdb, collect, names), 0);
	TAILQ_REMOVE(&list, conf, entry);
	workload_free(conf);
	workload_free(api);
	json_decref(names);
	store_db_close(sdb);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_every_endpoint),
		cmocka_unit_test(test_route_groups),
		cmocka_unit_test(test_route_ui),
		cmocka_unit_test(test_route_errors),
		cmocka_unit_test(test_route_tail),
		cmocka_unit_test(test_route_page),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_workload_json),
		cmocka_unit_test(test_workload_json_round_trip),
		cmocka_unit_test(test_transition_json),
		cmocka_unit_test(test_error_and_action),
		cmocka_unit_test(test_keepwarm_body),
		cmocka_unit_test(test_maint_body),
		cmocka_unit_test(test_keepwarm_until),
		cmocka_unit_test(test_prom_escape_and_value),
		cmocka_unit_test(test_prom_lines),
		cmocka_unit_test(test_prom_histogram),
		cmocka_unit_test(test_request_durations),
		cmocka_unit_test(test_metrics_sums),
		cmocka_unit_test(test_bearer),
		cmocka_unit_test(test_key_match),
		cmocka_unit_test(test_guessers_slowed),
		cmocka_unit_test(test_guessers_bounded),
		cmocka_unit_test(test_store_api_rows),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
