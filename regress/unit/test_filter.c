/*
 * Requests that are not use: the patterns and networks of "ignore"
 * rules (common/ignore.c), their checks and their JSON form; a request
 * matched against rules as the gateway does it (gatewayd/filter.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "compat.h"
#include "http.h"
#include "ignore.h"
#include "msg.h"
#include "workload.h"
#include "../../gatewayd/filter.h"

static int
match(const char *pat, const char *s)
{
	return (glob_match(pat, s, strlen(s)));
}

static void
test_glob(void **state)
{
	static const struct {
		const char	*pat;
		const char	*s;
		int		 want;
	} cases[] = {
		{ "/up", "/up", 1 },
		{ "/up", "/up/", 0 },
		{ "/up", "/u", 0 },
		{ "/up", "", 0 },
		{ "*", "", 1 },
		{ "*", "/anything/at/all", 1 },
		{ "/health*", "/healthz", 1 },
		{ "/health*", "/health", 1 },
		{ "/health*", "/healt", 0 },
		{ "*/up", "/a/b/up", 1 },
		{ "*/up", "/a/b/upx", 0 },
		{ "/api/*/health", "/api/v1/x/health", 1 },
		{ "/a?c", "/abc", 1 },
		{ "/a?c", "/ac", 0 },
		{ "UptimeRobot/*", "UptimeRobot/2.0; http://x", 1 },
		{ "UptimeRobot/*", "uptimerobot/2.0", 0 },
		{ "*Pingdom*", "Mozilla/5.0 (compatible; Pingdom.com_bot)", 1 },
		{ "[a-c]x", "bx", 1 },
		{ "[a-c]x", "dx", 0 },
		{ "[!a-c]x", "dx", 1 },
		{ "[^a-c]x", "ax", 0 },
		{ "[]]", "]", 1 },
		{ "[!]]", "]", 0 },
		{ "[!]]", "a", 1 },
		{ "\\*", "*", 1 },
		{ "\\*", "a", 0 },
		{ "[\\]]", "]", 1 },
		{ "a*b*c", "abbbbc", 1 },
		{ "a*b*c", "acb", 0 },
		{ "**a", "bba", 1 },
		{ "*a*", "xyz", 0 },
		{ "*?", "", 0 },
		{ "*?", "x", 1 },
	};
	size_t	 i;

	for (i = 0; i < nitems(cases); i++)
		if (match(cases[i].pat, cases[i].s) != cases[i].want)
			fail_msg("\"%s\" against \"%s\": %d", cases[i].pat,
			    cases[i].s, !cases[i].want);
	/* the string is its length, not up to a NUL: a path before '?' */
	assert_true(glob_match("/up", "/up?x=1", 3));
	assert_false(glob_match("/up", "/up?x=1", 7));
	assert_true(glob_match("*", "", 0));
}

/* many stars against a long near miss: a pass per star, not exponential */
static void
test_glob_bounded(void **state)
{
	char	 s[8192], pat[ORCHD_PATTERN_MAX];
	clock_t	 t0;
	size_t	 i;

	memset(s, 'a', sizeof(s));
	for (i = 0; i + 2 < sizeof(pat); i += 2) {
		pat[i] = '*';
		pat[i + 1] = 'a';
	}
	pat[i] = 'b';
	pat[i + 1] = '\0';
	assert_true(glob_valid(pat));
	t0 = clock();
	assert_false(glob_match(pat, s, sizeof(s)));
	/* about 2 million steps: far under a second on any machine */
	assert_true(clock() - t0 < 2 * CLOCKS_PER_SEC);
}

static void
test_glob_valid(void **state)
{
	char	 big[ORCHD_PATTERN_MAX + 1];

	assert_true(glob_valid("/up"));
	assert_true(glob_valid("[]]"));
	assert_true(glob_valid("[!]a]"));
	assert_true(glob_valid("\\["));
	assert_true(glob_valid("[\\]]"));
	assert_false(glob_valid(""));
	assert_false(glob_valid("[abc"));
	assert_false(glob_valid("[]"));
	assert_false(glob_valid("abc\\"));
	assert_false(glob_valid("[a\\"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(glob_valid(big));
	big[ORCHD_PATTERN_MAX - 1] = '\0';
	assert_true(glob_valid(big));
}

static struct netaddr
addr(const char *s)
{
	struct netaddr	 na;

	memset(&na, 0, sizeof(na));
	if (inet_pton(AF_INET, s, na.addr) == 1)
		na.af = AF_INET;
	else if (inet_pton(AF_INET6, s, na.addr) == 1)
		na.af = AF_INET6;
	else
		fail_msg("bad address %s", s);
	return (na);
}

static void
test_netaddr(void **state)
{
	struct netaddr	 net, a;
	const char	*errstr;

	assert_int_equal(netaddr_parse("192.0.2.0/24", &net, &errstr), 0);
	assert_null(errstr);
	assert_int_equal(net.af, AF_INET);
	assert_int_equal(net.prefix, 24);
	a = addr("192.0.2.200");
	assert_true(netaddr_match(&net, &a));
	a = addr("192.0.3.1");
	assert_false(netaddr_match(&net, &a));
	a = addr("2001:db8::1");
	assert_false(netaddr_match(&net, &a));
	/* an IPv4 client on an IPv6 socket */
	a = addr("::ffff:192.0.2.9");
	assert_true(netaddr_match(&net, &a));
	a = addr("::ffff:192.0.4.9");
	assert_false(netaddr_match(&net, &a));

	/* a prefix that is not a whole number of bytes */
	assert_int_equal(netaddr_parse("10.0.0.128/25", &net, &errstr), 0);
	a = addr("10.0.0.129");
	assert_true(netaddr_match(&net, &a));
	a = addr("10.0.0.127");
	assert_false(netaddr_match(&net, &a));

	/* one address, and everything */
	assert_int_equal(netaddr_parse("127.0.0.1", &net, &errstr), 0);
	assert_int_equal(net.prefix, 32);
	a = addr("127.0.0.1");
	assert_true(netaddr_match(&net, &a));
	a = addr("127.0.0.2");
	assert_false(netaddr_match(&net, &a));
	assert_int_equal(netaddr_parse("0.0.0.0/0", &net, &errstr), 0);
	assert_true(netaddr_match(&net, &a));
	assert_int_equal(netaddr_parse("2001:db8::/33", &net, &errstr), 0);
	a = addr("2001:db8:7fff::1");
	assert_true(netaddr_match(&net, &a));
	a = addr("2001:db8:8000::1");
	assert_false(netaddr_match(&net, &a));
	assert_int_equal(netaddr_parse("::1", &net, &errstr), 0);
	assert_int_equal(net.prefix, 128);

	assert_int_equal(netaddr_parse("10.1.0.0/8", &net, &errstr), -1);
	assert_string_equal(errstr, "host bits set");
	assert_int_equal(netaddr_parse("10.0.0.0/33", &net, &errstr), -1);
	assert_int_equal(netaddr_parse("10.0.0.0/", &net, &errstr), -1);
	assert_int_equal(netaddr_parse("10.0.0.0/-1", &net, &errstr), -1);
	assert_int_equal(netaddr_parse("10.0.0.0/8x", &net, &errstr), -1);
	assert_int_equal(netaddr_parse("example.com", &net, &errstr), -1);
	assert_int_equal(netaddr_parse("", &net, &errstr), -1);
}

static void
test_check(void **state)
{
	char	 err[256];

	assert_int_equal(ignore_check(IGNORE_PATH, "/up", 503, err,
	    sizeof(err)), 0);
	assert_int_equal(ignore_check(IGNORE_AGENT, "Uptime*", 200, err,
	    sizeof(err)), 0);
	assert_int_equal(ignore_check(IGNORE_FROM, "::1", 503, err,
	    sizeof(err)), 0);
	assert_int_equal(ignore_check(IGNORE_PATH, "/up", 404, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "answer 404: 200 or 503"));
	assert_int_equal(ignore_check(IGNORE_PATH, "", 503, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "must not be empty"));
	assert_int_equal(ignore_check(IGNORE_PATH, "/a\tb", 503, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "control character"));
	assert_int_equal(ignore_check(IGNORE_AGENT, "[x", 503, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "unterminated"));
	assert_int_equal(ignore_check(IGNORE_FROM, "10.1.0.0/8", 503, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "host bits set"));
	assert_int_equal(ignore_check(7, "/x", 503, err, sizeof(err)), -1);
}

#define WL_JSON(extra) "{\"name\":\"f\",\"hosts\":[\"f.test\"]," \
	"\"command\":\"x\",\"port\":1" extra "}"

static void
test_json(void **state)
{
	static const struct {
		const char	*json;
		const char	*err;
	} bad[] = {
		{ WL_JSON(",\"ignore\":{}"), "must be an array" },
		{ WL_JSON(",\"ignore\":[\"/up\"]"), "must be an array" },
		{ WL_JSON(",\"ignore\":[{}]"), "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"answer\":200}]"),
		    "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"path\":\"/a\",\"agent\":\"b\"}]"),
		    "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"host\":\"/a\"}]"),
		    "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"path\":1}]"), "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"path\":\"/a\",\"answer\":404}]"),
		    "answer must be 200 or 503" },
		{ WL_JSON(",\"ignore\":[{\"path\":\"/a\",\"answer\":\"200\"}]"),
		    "must be an array" },
		{ WL_JSON(",\"ignore\":[{\"path\":\"\"}]"),
		    "must not be empty" },
		{ WL_JSON(",\"ignore\":[{\"from\":\"10.1.0.0/8\"}]"),
		    "host bits set" },
		{ WL_JSON(",\"ignore\":[{\"path\":\"/a\"},{\"path\":\"/a\"}]"),
		    "ignore path \"/a\" listed twice" },
		{ WL_JSON(",\"tunnel_idle_timeout\":-1"),
		    "must be a duration" },
		{ WL_JSON(",\"tunnel_idle_timeout\":\"soon\""),
		    "tunnel_idle_timeout" },
		{ WL_JSON(",\"server_timing\":\"off\""),
		    "must be true or false" },
	};
	const char		*good = WL_JSON(",\"ignore\":["
	    "{\"path\":\"/up\"},{\"agent\":\"Uptime*\",\"answer\":200},"
	    "{\"from\":\"::1\",\"answer\":503}],"
	    "\"tunnel_idle_timeout\":\"30m\",\"server_timing\":false");
	struct workload_conf	*wl, *back;
	struct ignore_rule	*r;
	char			*json, err[256], big[8192];
	size_t			 i, n;

	for (i = 0; i < nitems(bad); i++) {
		err[0] = '\0';
		wl = workload_from_json(bad[i].json, strlen(bad[i].json), err,
		    sizeof(err));
		if (wl != NULL) {
			workload_free(wl);
			fail_msg("accepted: %s", bad[i].json);
		}
		if (strstr(err, bad[i].err) == NULL)
			fail_msg("%s: \"%s\", expected \"%s\"", bad[i].json,
			    err, bad[i].err);
	}

	wl = workload_from_json(good, strlen(good), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->tunnel_idle, 1800);
	assert_int_equal(wl->server_timing, 0);
	r = TAILQ_FIRST(&wl->ignores);
	assert_int_equal(r->kind, IGNORE_PATH);
	assert_string_equal(r->pattern, "/up");
	assert_int_equal(r->answer, 503);
	r = TAILQ_NEXT(r, entry);
	assert_int_equal(r->kind, IGNORE_AGENT);
	assert_int_equal(r->answer, 200);
	r = TAILQ_NEXT(r, entry);
	assert_int_equal(r->kind, IGNORE_FROM);
	assert_null(TAILQ_NEXT(r, entry));
	json = workload_to_json(wl);
	assert_non_null(strstr(json, "\"ignore\":[{\"path\":\"/up\"},"
	    "{\"agent\":\"Uptime*\",\"answer\":200},{\"from\":\"::1\"}],"
	    "\"tunnel_idle_timeout\":1800,\"server_timing\":false"));
	back = workload_from_json(json, strlen(json), err, sizeof(err));
	assert_non_null(back);
	free(json);
	workload_free(back);
	workload_free(wl);

	/* unset: absent from the JSON, -1 read back */
	wl = workload_from_json(WL_JSON(""), strlen(WL_JSON("")), err,
	    sizeof(err));
	assert_non_null(wl);
	assert_int_equal(wl->tunnel_idle, -1);
	assert_int_equal(wl->server_timing, -1);
	json = workload_to_json(wl);
	assert_null(strstr(json, "ignore"));
	assert_null(strstr(json, "tunnel"));
	assert_null(strstr(json, "server_timing"));
	free(json);
	workload_free(wl);

	/* ORCHD_IGNORE_MAX rules, not one more */
	n = snprintf(big, sizeof(big), "{\"name\":\"f\",\"hosts\":"
	    "[\"f.test\"],\"command\":\"x\",\"port\":1,\"ignore\":[");
	for (i = 0; i <= ORCHD_IGNORE_MAX; i++)
		n += snprintf(big + n, sizeof(big) - n, "%s{\"path\":\"/%zu\"}",
		    i > 0 ? "," : "", i);
	(void)snprintf(big + n, sizeof(big) - n, "]}");
	assert_null(workload_from_json(big, strlen(big), err, sizeof(err)));
	assert_non_null(strstr(err, "more than 32 ignore rules"));
}

/* a parsed request head, in the test's buffer */
struct req {
	struct http_head	 h;
	char			 buf[HTTP_HEAD_BUFSZ];
};

static void
req_parse(struct req *r, const char *text)
{
	size_t	 used;

	http_req_init(&r->h, r->buf, sizeof(r->buf));
	assert_int_equal(http_head_feed(&r->h, text, strlen(text), &used),
	    HTTP_DONE);
}

/* the answer of the first rule req matches from peer, 0 for none */
static int
req_match(const struct gw_filter *f, size_t n, const char *text,
    const char *peer, int trusted)
{
	static struct req		 r;
	const struct gw_filter		*m;
	struct filter_req		 rq;
	struct netaddr			 na;

	req_parse(&r, text);
	na = addr(peer);
	filter_req_init(&rq, &r.h, &na, trusted);
	m = filter_match(f, n, &rq);
	return (m != NULL ? m->answer : 0);
}

static void
test_request(void **state)
{
	static const struct {
		int		 kind;
		const char	*pattern;
		int		 answer;
	} rules[] = {
		{ IGNORE_PATH, "/up", 200 },
		{ IGNORE_AGENT, "UptimeRobot/*", 503 },
		{ IGNORE_FROM, "192.0.2.0/24", 201 },	/* told apart */
		{ IGNORE_PATH, "/health*", 202 },
		{ IGNORE_FROM, "2001:db8::/32", 203 },
	};
	struct gw_filter	 f[nitems(rules)];
	char			 big[2048];
	size_t			 i;

#define GET(target, more) "GET " target " HTTP/1.1\r\nHost: a.test\r\n" \
	more "\r\n"
	for (i = 0; i < nitems(rules); i++)
		assert_int_equal(filter_compile(&f[i], rules[i].kind,
		    rules[i].pattern, rules[i].answer), 0);
	assert_int_equal(filter_compile(&f[0], IGNORE_FROM, "10.1.0.0/8",
	    503), -1);
	assert_int_equal(filter_compile(&f[0], IGNORE_PATH, "[x", 503), -1);
	assert_int_equal(filter_compile(&f[0], 9, "/x", 503), -1);
	assert_int_equal(filter_compile(&f[0], IGNORE_PATH, "/up", 200), 0);

	/* the path, without its query, in origin or absolute form */
	assert_int_equal(req_match(f, 5, GET("/up", ""), "127.0.0.1", 0),
	    200);
	assert_int_equal(req_match(f, 5, GET("/up?probe=1", ""),
	    "127.0.0.1", 0), 200);
	assert_int_equal(req_match(f, 5, GET("http://a.test/up", ""),
	    "127.0.0.1", 0), 200);
	assert_int_equal(req_match(f, 5, GET("/upx", ""), "127.0.0.1", 0),
	    0);
	assert_int_equal(req_match(f, 5, GET("/healthz?a=b", ""),
	    "127.0.0.1", 0), 202);
	assert_int_equal(req_match(f, 5, GET("/", ""), "127.0.0.1", 0), 0);
	/* the first rule that matches says the answer */
	assert_int_equal(req_match(f, 5, GET("/up",
	    "User-Agent: UptimeRobot/2.0\r\n"), "192.0.2.1", 0), 200);
	assert_int_equal(req_match(f, 5, GET("/",
	    "User-Agent: UptimeRobot/2.0\r\n"), "192.0.2.1", 0), 503);
	assert_int_equal(req_match(f, 5, GET("/",
	    "user-agent: UptimeRobot/2.0\r\n"), "127.0.0.1", 0), 503);
	assert_int_equal(req_match(f, 5, GET("/",
	    "User-Agent: Mozilla/5.0\r\n"), "127.0.0.1", 0), 0);
	/* the client's address */
	assert_int_equal(req_match(f, 5, GET("/", ""), "192.0.2.77", 0), 201);
	assert_int_equal(req_match(f, 5, GET("/", ""), "192.0.3.77", 0), 0);
	assert_int_equal(req_match(f, 5, GET("/", ""), "::ffff:192.0.2.9", 0),
	    201);
	assert_int_equal(req_match(f, 5, GET("/", ""), "2001:db8::5", 0), 203);
	/* X-Forwarded-For: believed from a trusted proxy, its last address */
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 192.0.2.1\r\n"), "10.0.0.1", 0), 0);
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 192.0.2.1\r\n"), "10.0.0.1", 1), 201);
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 10.9.9.9, 192.0.2.1 \r\n"), "10.0.0.1", 1),
	    201);
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 192.0.2.1, 10.9.9.9\r\n"), "10.0.0.1", 1), 0);
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 192.0.2.1\r\nX-Forwarded-For: 2001:db8::1\r\n"),
	    "10.0.0.1", 1), 203);
	/* one that does not parse: the proxy's own address */
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: unknown\r\n"), "192.0.2.3", 1), 201);
	assert_int_equal(req_match(f, 5, GET("/",
	    "X-Forwarded-For: 192.0.2.1,\r\n"), "10.0.0.1", 1), 0);

	/* a path longer than FILTER_SUBJECT_MAX matches nothing, not even * */
	assert_int_equal(filter_compile(&f[4], IGNORE_PATH, "*", 204), 0);
	memset(big, 'a', sizeof(big));
	(void)snprintf(big, sizeof(big), "GET /%0*d HTTP/1.1\r\nHost: a.test"
	    "\r\n\r\n", FILTER_SUBJECT_MAX, 0);
	assert_int_equal(req_match(f, 5, big, "127.0.0.1", 0), 0);
	(void)snprintf(big, sizeof(big), "GET /%0*d HTTP/1.1\r\nHost: a.test"
	    "\r\n\r\n", FILTER_SUBJECT_MAX - 1, 0);
	assert_int_equal(req_match(f, 5, big, "127.0.0.1", 0), 204);
	assert_int_equal(req_match(f, 0, GET("/up", ""), "127.0.0.1", 0), 0);
#undef GET
}

/* a workload's TCP listener: "from" rules alone, against the peer */
static void
test_tcp_from(void **state)
{
	static const struct {
		int		 kind;
		const char	*pattern;
	} rules[] = {
		{ IGNORE_PATH, "*" },		/* no path: never */
		{ IGNORE_AGENT, "*" },		/* no User-Agent: never */
		{ IGNORE_FROM, "192.0.2.0/24" },
		{ IGNORE_FROM, "2001:db8::/32" },
	};
	struct gw_filter	 f[nitems(rules)];
	struct netaddr		 na;
	size_t			 i;

	for (i = 0; i < nitems(rules); i++)
		assert_int_equal(filter_compile(&f[i], rules[i].kind,
		    rules[i].pattern, 503), 0);
	na = addr("192.0.2.7");
	assert_ptr_equal(filter_match_from(f, nitems(f), &na), &f[2]);
	na = addr("::ffff:192.0.2.7");
	assert_ptr_equal(filter_match_from(f, nitems(f), &na), &f[2]);
	na = addr("2001:db8::1");
	assert_ptr_equal(filter_match_from(f, nitems(f), &na), &f[3]);
	na = addr("127.0.0.1");
	assert_null(filter_match_from(f, nitems(f), &na));
	na = addr("192.0.2.7");
	assert_null(filter_match_from(f, 2, &na));
	assert_null(filter_match_from(f, 0, &na));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_glob_bounded),
		cmocka_unit_test(test_glob_valid),
		cmocka_unit_test(test_netaddr),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_tcp_from),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
