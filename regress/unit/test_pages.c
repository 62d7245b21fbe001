/*
 * The gateway's pages for its own answers (gatewayd/pages.c): a page the
 * parent sent, put in for a browser with its words HTML-escaped (a
 * workload's name cannot hold "<script>", but what is put in a page is
 * escaped whatever it holds), JSON for an API client with the same
 * escaped by JSON's rules, the line of text for anyone else, a
 * workload's own page before the global one, and unknown statuses
 * without a page.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include <event.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "imsg.h"
#include "msg.h"
#include "workload.h"
#include "../../gatewayd/gateway.h"
#include "../../gatewayd/pages.h"

static void
send_page(const char *path, const char *body)
{
	struct cfg_page	 cp;
	struct imsg	 imsg;
	char		 buf[sizeof(cp) + 256];

	memset(&cp, 0, sizeof(cp));
	strlcpy(cp.path, path, sizeof(cp.path));
	memcpy(buf, &cp, sizeof(cp));
	memcpy(buf + sizeof(cp), body, strlen(body));
	memset(&imsg, 0, sizeof(imsg));
	imsg.data = buf;
	imsg.datalen = sizeof(cp) + strlen(body);
	imsg.fd = -1;
	errpage_recv_page(NULL, &imsg);
}

static void
send_global(int status, const char *path)
{
	struct cfg_errpage	 ep;
	struct imsg		 imsg;

	memset(&ep, 0, sizeof(ep));
	ep.status = status;
	strlcpy(ep.path, path, sizeof(ep.path));
	memset(&imsg, 0, sizeof(imsg));
	imsg.data = &ep;
	imsg.datalen = sizeof(ep);
	imsg.fd = -1;
	errpage_recv_global(NULL, &imsg);
}

/* the body of an answer of ours as c asks for it, or NULL */
static char *
body(struct gw_conn *c, int status, const char *extra, const char **ctype)
{
	struct evbuffer	*b;
	char		*s;
	size_t		 len;

	assert_non_null(b = evbuffer_new());
	if (!errpage_body(c, status, "Service Unavailable", extra, "why",
	    b, ctype)) {
		evbuffer_free(b);
		return (NULL);
	}
	len = evbuffer_get_length(b);
	assert_non_null(s = calloc(1, len + 1));
	evbuffer_remove(b, s, len);
	evbuffer_free(b);
	return (s);
}

static void
test_pages(void **state)
{
	struct workload_conf	 wc;
	struct gw_workload	 wl;
	struct gw_conn		 c;
	const char		*ctype = NULL;
	char			*s;
	json_t			*o;

	send_page("/p/global.html", "<b>{workload}</b> {status} {retry_after}"
	    " {nope} {");
	send_page("/p/own.html", "own {workload}");
	send_global(503, "/p/global.html");
	errpage_apply();

	memset(&wc, 0, sizeof(wc));
	TAILQ_INIT(&wc.error_pages);
	memset(&wl, 0, sizeof(wl));
	wl.name = "<script>alert('x')&\"</script>";
	wl.def = &wc;		/* with error pages: kept in full */
	memset(&c, 0, sizeof(c));
	c.routed = 1;
	c.wl = &wl;

	/* a browser: escaped, Retry-After's seconds put in */
	c.accept = GW_ACCEPT_HTML;
	assert_non_null(s = body(&c, 503, "Retry-After: 7\r\n", &ctype));
	assert_string_equal(s, "<b>&lt;script&gt;alert(&#39;x&#39;)&amp;"
	    "&quot;&lt;/script&gt;</b> 503 7 {nope} {");
	assert_string_equal(ctype, "text/html; charset=utf-8");
	free(s);
	/* no page for 502, and none without a route */
	assert_null(body(&c, 502, NULL, &ctype));
	/* the workload's own page first */
	assert_int_equal(strlist_add(&wc.error_pages, "503 /p/own.html"), 0);
	assert_non_null(s = body(&c, 503, NULL, &ctype));
	assert_string_equal(s, "own &lt;script&gt;alert(&#39;x&#39;)&amp;"
	    "&quot;&lt;/script&gt;");
	free(s);
	/* not routed: the global page, no name */
	c.routed = 0;
	assert_non_null(s = body(&c, 503, NULL, &ctype));
	assert_string_equal(s, "<b></b> 503  {nope} {");
	free(s);
	c.routed = 1;

	/* an API client: the name as JSON holds it */
	c.accept = GW_ACCEPT_JSON;
	assert_non_null(s = body(&c, 503, "Retry-After: 7\r\n", &ctype));
	assert_string_equal(ctype, "application/json");
	assert_non_null(o = json_loads(s, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(o,
	    "workload")), wl.name);
	assert_int_equal(json_integer_value(json_object_get(o,
	    "retry_after")), 7);
	assert_string_equal(json_string_value(json_object_get(o, "detail")),
	    "why");
	json_decref(o);
	free(s);

	/* anyone else: the line of text, as ever */
	c.accept = GW_ACCEPT_ANY;
	assert_null(body(&c, 503, NULL, &ctype));
	strlist_free(&wc.error_pages);
}

int
main(void)
{
	const struct CMUnitTest	 tests[] = {
		cmocka_unit_test(test_pages),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
