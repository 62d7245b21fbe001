/*
 * The access log's lines (gatewayd/accesslog_fmt.c): both formats field
 * by field, the protocol (HTTP/2.0 for an h2 stream), fields that are
 * absent, a request refused before its head was whole, the escapes
 * (quote, backslash, control bytes, bytes past ASCII), the time and the
 * durations; every field past its bound, every byte of those escaped
 * one that needs it, still makes a line of at most ALOG_LINE_MAX bytes,
 * JSON that parses; and the pieces a gateway writes to the pipe are
 * whole lines of at most PIPE_BUF bytes.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "orchd.h"
#include "../../gatewayd/accesslog.h"

/* 2026-10-10 13:55:36.042 UTC */
#define START_MS	1791640536042LL

static struct alog_str
str(const char *s)
{
	struct alog_str	 f;

	f.s = s;
	f.len = s != NULL ? strlen(s) : 0;
	return (f);
}

static struct alog_line
line_base(int format)
{
	struct alog_line	 l;

	memset(&l, 0, sizeof(l));
	l.format = format;
	l.start_ms = START_MS;
	l.client = str("192.0.2.7");
	l.method = str("GET");
	l.target = str("/a?b=c");
	l.version = 11;
	l.host = str("app.example.com");
	l.agent = str("curl/8.0");
	l.workload = str("app");
	l.status = 200;
	l.bytes_in = 78;
	l.bytes_out = 153;
	l.duration_ns = 2345678;	/* 0.002 */
	return (l);
}

/* the line, NUL-terminated, its length checked */
static char *
fmt(const struct alog_line *l)
{
	static char	 buf[ALOG_LINE_MAX + 1];
	size_t		 n;

	memset(buf, 'Z', sizeof(buf));
	n = alog_format(buf, l);
	assert_true(n > 0 && n <= ALOG_LINE_MAX);
	assert_int_equal(buf[n - 1], '\n');
	assert_null(memchr(buf, '\n', n - 1));
	buf[n] = '\0';
	return (buf);
}

static void
test_combined(void **state)
{
	struct alog_line	 l = line_base(ACCESS_LOG_COMBINED);

	assert_string_equal(fmt(&l), "192.0.2.7 - - [10/Oct/2026:13:55:36 "
	    "+0000] \"GET /a?b=c HTTP/1.1\" 200 153 \"-\" \"curl/8.0\" "
	    "\"app.example.com\" 78 0.002 app -\n");
	/* an HTTP/2 stream, as nginx writes it */
	l.version = 20;
	assert_string_equal(fmt(&l), "192.0.2.7 - - [10/Oct/2026:13:55:36 "
	    "+0000] \"GET /a?b=c HTTP/2.0\" 200 153 \"-\" \"curl/8.0\" "
	    "\"app.example.com\" 78 0.002 app -\n");
	/* held for a wake; HTTP/1.0; a referer; no workload, no agent */
	l.held = 1;
	l.wake_ns = 85200000;
	l.duration_ns = 1086400000;
	l.version = 10;
	l.referer = str("http://r.example/");
	l.agent = str(NULL);
	l.workload = str(NULL);
	l.status = 404;
	assert_string_equal(fmt(&l), "192.0.2.7 - - [10/Oct/2026:13:55:36 "
	    "+0000] \"GET /a?b=c HTTP/1.0\" 404 153 \"http://r.example/\" "
	    "\"-\" \"app.example.com\" 78 1.086 - 0.085\n");
	/* refused before its head was whole: no request, no host */
	l = line_base(ACCESS_LOG_COMBINED);
	l.method = l.target = l.host = l.agent = l.workload = str(NULL);
	l.status = 400;
	l.bytes_out = 109;
	l.duration_ns = 0;
	assert_string_equal(fmt(&l), "192.0.2.7 - - [10/Oct/2026:13:55:36 "
	    "+0000] \"-\" 400 109 \"-\" \"-\" \"-\" 78 0.000 - -\n");
}

static void
test_json(void **state)
{
	struct alog_line	 l = line_base(ACCESS_LOG_JSON);
	json_t			*o;
	json_error_t		 err;

	assert_string_equal(fmt(&l), "{\"time\":\"2026-10-10T13:55:36.042Z\","
	    "\"client\":\"192.0.2.7\",\"host\":\"app.example.com\","
	    "\"method\":\"GET\",\"target\":\"/a?b=c\",\"protocol\":"
	    "\"HTTP/1.1\",\"status\":200,\"bytes_in\":78,\"bytes_out\":153,"
	    "\"duration\":0.002,\"workload\":\"app\",\"wake\":null,"
	    "\"referer\":null,\"user_agent\":\"curl/8.0\"}\n");
	/* each protocol by its name */
	l.version = 10;
	assert_non_null(strstr(fmt(&l), ",\"protocol\":\"HTTP/1.0\","));
	l.version = 20;
	assert_non_null(strstr(fmt(&l), ",\"protocol\":\"HTTP/2.0\","));
	l.held = 1;
	l.wake_ns = 500;	/* rounds to 0.000, still a number */
	l.method = l.target = l.host = l.workload = str(NULL);
	o = json_loads(fmt(&l), 0, &err);
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(o, "method")));
	assert_true(json_is_null(json_object_get(o, "target")));
	assert_true(json_is_null(json_object_get(o, "protocol")));
	assert_true(json_is_null(json_object_get(o, "host")));
	assert_true(json_is_null(json_object_get(o, "workload")));
	assert_true(json_is_number(json_object_get(o, "wake")));
	assert_int_equal(json_object_size(o), 14);
	json_decref(o);
}

static void
test_escapes(void **state)
{
	struct alog_line	 l = line_base(ACCESS_LOG_COMBINED);
	json_t			*o;
	json_error_t		 err;
	const char		*agent = "a \"q\" \\ \t\x01\x7f caf\xc3\xa9";

	l.agent = str(agent);
	assert_non_null(strstr(fmt(&l), " \"a \\\"q\\\" \\\\ \\x09\\x01\\x7f "
	    "caf\\xc3\\xa9\" "));
	l.format = ACCESS_LOG_JSON;
	assert_non_null(strstr(fmt(&l), "\"user_agent\":\"a \\\"q\\\" \\\\ "
	    "\\u0009\\u0001\\u007f caf\\u00c3\\u00a9\"}"));
	o = json_loads(fmt(&l), 0, &err);
	assert_non_null(o);
	json_decref(o);
}

/* every field at its bound, every byte one that is escaped */
static void
test_bounds(void **state)
{
	static char		 big[4][8192], safe[4096];
	struct alog_line	 l;
	json_t			*o;
	json_error_t		 err;
	char			*s, *p;
	int			 f, i;

	for (i = 0; i < 4; i++)
		memset(big[i], i == 3 ? '"' : 1, sizeof(big[i]));
	memset(safe, 'h', sizeof(safe));
	for (f = ACCESS_LOG_COMBINED; f <= ACCESS_LOG_JSON; f++) {
		for (i = 0; i < 4; i++) {
			l = line_base(f);
			l.method.s = l.target.s = l.agent.s = l.referer.s =
			    big[i];
			l.method.len = ALOG_METHOD_MAX;
			l.target.len = ALOG_TARGET_MAX;
			l.agent.len = l.referer.len = 4096;
			/* those never escaped: longer than their bounds */
			l.client.s = l.host.s = l.workload.s = safe;
			l.client.len = l.host.len = l.workload.len = 4096;
			l.bytes_in = l.bytes_out = INT64_MAX;
			l.duration_ns = l.wake_ns = INT64_MAX;
			l.held = 1;
			s = fmt(&l);
			/* and the last fields are all there */
			p = strrchr(s, f == ACCESS_LOG_JSON ? ':' : ' ');
			assert_non_null(p);
			if (f == ACCESS_LOG_JSON) {
				o = json_loads(s, 0, &err);
				if (o == NULL)
					fail_msg("not JSON: %s", err.text);
				assert_int_equal(json_object_size(o), 14);
				json_decref(o);
			} else {
				assert_non_null(strstr(s,
				    " 9223372036854775807 "));
				assert_string_equal(p, " 9223372036.855\n");
			}
		}
	}
}

static void
test_chunk(void **state)
{
	static char	 buf[3 * ALOG_LINE_MAX];
	size_t		 n, off;

	assert_int_equal(alog_chunk("a\n", 2), 2);
	/* 100 lines of 100 bytes: chunks end at lines, PIPE_BUF at most */
	for (n = 0; n < 100; n++) {
		memset(buf + n * 100, 'x', 99);
		buf[n * 100 + 99] = '\n';
	}
	for (off = 0; off < 10000; off += n) {
		n = alog_chunk(buf + off, 10000 - off);
		assert_true(n > 0 && n <= ALOG_LINE_MAX);
		assert_int_equal(n % 100, 0);
	}
	assert_int_equal(off, 10000);
	assert_int_equal(alog_chunk(buf, 10000), (ALOG_LINE_MAX / 100) * 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combined),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_chunk),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
