/*
 * Units and names (common/units.c), and the JSON form of a workload on
 * its own (common/workload_json.c): its units, and the errors of a
 * definition that is refused.  The parser's side is test_parse.c's.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "orchd.h"
#include "units.h"
#include "wlimits.h"
#include "workload.h"

static void
test_units(void **state)
{
	static const struct {
		const char	*in;
		int64_t		 out;	/* -1: error */
	} durations[] = {
		{ "0", 0 }, { "30", 30 }, { "30s", 30 }, { "5m", 300 },
		{ "1h", 3600 }, { "2d", 172800 }, { "007s", 7 },
		{ "2147483647", 2147483647 }, { "2147483648", -1 },
		{ "35791394m", 2147483640 }, { "35791395m", -1 },
		{ "99999999999999999999999", -1 }, { "", -1 }, { "-1", -1 },
		{ "-0", -1 }, { "+5", -1 }, { "5x", -1 }, { "5mm", -1 },
		{ "5 m", -1 }, { " 5", -1 }, { "m", -1 }, { "5M", -1 },
		{ "1.5h", -1 }, { "0x10", -1 },
	}, sizes[] = {
		{ "0", 0 }, { "512", 512 }, { "64K", 65536 }, { "64k", 65536 },
		{ "512M", 536870912 }, { "2G", 2147483648LL },
		{ "9223372036854775807", INT64_MAX },
		{ "9223372036854775808", -1 },
		{ "8589934591G", 8589934591LL * 1024 * 1024 * 1024 },
		{ "8589934592G", -1 }, { "9007199254740992K", -1 },
		{ "8388607G", 8388607LL * 1024 * 1024 * 1024 },
		{ "", -1 }, { "-1", -1 }, { "1T", -1 }, { "1KB", -1 },
		{ "K", -1 }, { "1 K", -1 }, { "1.5G", -1 },
	};
	const char	*errstr;
	int64_t		 v;
	size_t		 i;
	char		 buf[32];

	for (i = 0; i < nitems(durations); i++) {
		v = 12345;
		errstr = NULL;
		if (durations[i].out == -1) {
			if (parse_duration(durations[i].in, &v, &errstr) != -1)
				fail_msg("duration \"%s\" accepted",
				    durations[i].in);
			assert_non_null(errstr);
			assert_int_equal(v, 12345);
		} else {
			if (parse_duration(durations[i].in, &v, &errstr) != 0)
				fail_msg("duration \"%s\": %s",
				    durations[i].in, errstr);
			assert_int_equal(v, durations[i].out);
		}
	}
	assert_int_equal(parse_duration("5x", &v, NULL), -1);
	assert_int_equal(parse_duration(NULL, &v, &errstr), -1);
	assert_int_equal(parse_duration("-5", &v, &errstr), -1);
	assert_string_equal(errstr, "negative duration");
	assert_int_equal(parse_duration("5y", &v, &errstr), -1);
	assert_string_equal(errstr, "invalid duration");
	assert_int_equal(parse_duration("9999999999", &v, &errstr), -1);
	assert_string_equal(errstr, "duration too large");

	for (i = 0; i < nitems(sizes); i++) {
		v = 12345;
		errstr = NULL;
		if (sizes[i].out == -1) {
			if (parse_size(sizes[i].in, &v, &errstr) != -1)
				fail_msg("size \"%s\" accepted", sizes[i].in);
			assert_non_null(errstr);
			assert_int_equal(v, 12345);
		} else {
			if (parse_size(sizes[i].in, &v, &errstr) != 0)
				fail_msg("size \"%s\": %s", sizes[i].in,
				    errstr);
			assert_int_equal(v, sizes[i].out);
		}
	}
	assert_int_equal(parse_size("8589934592G", &v, &errstr), -1);
	assert_string_equal(errstr, "size too large");
	assert_int_equal(parse_size("12Q", &v, &errstr), -1);
	assert_string_equal(errstr, "invalid size");

	assert_string_equal(fmt_duration(0, buf, sizeof(buf)), "0s");
	assert_string_equal(fmt_duration(30, buf, sizeof(buf)), "30s");
	assert_string_equal(fmt_duration(90, buf, sizeof(buf)), "90s");
	assert_string_equal(fmt_duration(300, buf, sizeof(buf)), "5m");
	assert_string_equal(fmt_duration(3600, buf, sizeof(buf)), "1h");
	assert_string_equal(fmt_duration(5400, buf, sizeof(buf)), "90m");
	assert_string_equal(fmt_duration(86400, buf, sizeof(buf)), "1d");
	assert_string_equal(fmt_duration(-1, buf, sizeof(buf)), "-1s");
	assert_string_equal(fmt_duration(123456, buf, 4), "123");
	/* what fmt_duration prints, parse_duration reads back */
	for (v = 0; v < 200000; v += 599) {
		int64_t	 back;

		assert_int_equal(parse_duration(fmt_duration(v, buf,
		    sizeof(buf)), &back, &errstr), 0);
		assert_int_equal(back, v);
	}

	/* stop signals: names only, with or without SIG, any case */
	{
		static const struct {
			const char	*in;
			int		 sig;	/* 0: refused */
		} sigs[] = {
			{ "TERM", SIGTERM }, { "SIGTERM", SIGTERM },
			{ "term", SIGTERM }, { "SigTerm", SIGTERM },
			{ "INT", SIGINT }, { "QUIT", SIGQUIT },
			{ "HUP", SIGHUP }, { "USR1", SIGUSR1 },
			{ "SIGUSR2", SIGUSR2 }, { "KILL", SIGKILL },
			{ "WINCH", SIGWINCH }, { "PWR", SIGPWR },
			{ "", 0 }, { "SIG", 0 }, { "15", 0 }, { "SIG15", 0 },
			{ "STOP", 0 }, { "CONT", 0 }, { "TSTP", 0 },
			{ "CHLD", 0 }, { "SEGV", 0 }, { "TERM ", 0 },
			{ " TERM", 0 }, { "SIGSIGTERM", 0 }, { "TERMINATE", 0 },
			{ "SIG_TERM", 0 },
		};
		int	 sig;

		for (i = 0; i < nitems(sigs); i++) {
			sig = -1;
			errstr = NULL;
			if (sigs[i].sig == 0) {
				if (parse_signal(sigs[i].in, &sig,
				    &errstr) != -1)
					fail_msg("signal \"%s\" accepted",
					    sigs[i].in);
				assert_non_null(errstr);
				assert_int_equal(sig, -1);
				continue;
			}
			if (parse_signal(sigs[i].in, &sig, &errstr) != 0)
				fail_msg("signal \"%s\": %s", sigs[i].in,
				    errstr);
			assert_int_equal(sig, sigs[i].sig);
		}
		assert_int_equal(parse_signal(NULL, &sig, &errstr), -1);
		assert_int_equal(parse_signal("X", &sig, NULL), -1);
		assert_string_equal(signal_name(SIGTERM), "SIGTERM");
		assert_string_equal(signal_name(SIGKILL), "SIGKILL");
		assert_null(signal_name(0));
		assert_null(signal_name(SIGSTOP));
		/* every name it gives, it reads back */
		for (sig = 1; sig < 65; sig++)
			if (signal_name(sig) != NULL) {
				int	 back;

				assert_int_equal(parse_signal(signal_name(sig),
				    &back, NULL), 0);
				assert_int_equal(back, sig);
			}
	}

	assert_true(valid_workload_name("a"));
	assert_true(valid_workload_name("blog"));
	assert_true(valid_workload_name("api-preview_2.x"));
	assert_true(valid_workload_name("0abc"));
	assert_true(valid_workload_name(
	    "a23456789012345678901234567890123456789012345678901234567890123"));
	assert_false(valid_workload_name(
	    "a234567890123456789012345678901234567890123456789012345678901234"));
	assert_false(valid_workload_name(""));
	assert_false(valid_workload_name(NULL));
	assert_false(valid_workload_name("-a"));
	assert_false(valid_workload_name(".a"));
	assert_false(valid_workload_name("_a"));
	assert_false(valid_workload_name("a b"));
	assert_false(valid_workload_name("a/b"));
	assert_false(valid_workload_name("a:b"));
	assert_false(valid_workload_name("\xc3\xa9t\xc3\xa9"));

	assert_true(valid_host_pattern("example.com"));
	assert_true(valid_host_pattern("localhost"));
	assert_true(valid_host_pattern("Blog.Example.COM"));
	assert_true(valid_host_pattern("*.preview.example.com"));
	assert_true(valid_host_pattern("*.com"));
	assert_true(valid_host_pattern("xn--bcher-kva.example"));
	assert_true(valid_host_pattern("127.0.0.1"));
	assert_true(valid_host_pattern("a-b.c-d.e"));
	assert_false(valid_host_pattern(""));
	assert_false(valid_host_pattern(NULL));
	assert_false(valid_host_pattern("*"));
	assert_false(valid_host_pattern("*."));
	assert_false(valid_host_pattern("*example.com"));
	assert_false(valid_host_pattern("a.*.example.com"));
	assert_false(valid_host_pattern("**.example.com"));
	assert_false(valid_host_pattern("example.com:80"));
	assert_false(valid_host_pattern("example..com"));
	assert_false(valid_host_pattern(".example.com"));
	assert_false(valid_host_pattern("example.com."));
	assert_false(valid_host_pattern("-a.example.com"));
	assert_false(valid_host_pattern("a-.example.com"));
	assert_false(valid_host_pattern("a_b.example.com"));
	assert_false(valid_host_pattern("a b"));
	assert_false(valid_host_pattern("[::1]"));
	assert_false(valid_host_pattern("\xc3\xa9.example"));
	assert_true(valid_host_pattern(
	    "a23456789012345678901234567890123456789012345678901234567890123"
	    ".com"));
	assert_false(valid_host_pattern(
	    "a234567890123456789012345678901234567890123456789012345678901234"
	    ".com"));
	{
		char	 host[300];
		size_t	 k;

		/* 253 characters is the limit */
		for (k = 0; k < 253; k++)
			host[k] = (k % 2) ? '.' : 'a';
		host[253] = '\0';
		assert_true(valid_host_pattern(host));
		host[253] = '.';
		host[254] = 'b';
		host[255] = '\0';
		assert_false(valid_host_pattern(host));
	}
}

/*
 * Workloads and their JSON form.
 */

static void
test_json_units(void **state)
{
	struct workload_conf	*wl;
	const char		*json;
	char			*out, err[256];

	json = "{\"name\":\"u\",\"hosts\":[\"u.example.com\"],"
	    "\"command\":\"/bin/true\",\"port\":1,\"idle_timeout\":\"10m\","
	    "\"wake_timeout\":45,\"memory\":\"512M\"}";
	wl = workload_from_json(json, strlen(json), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->idle_timeout, 600);
	assert_int_equal(wl->wake_timeout, 45);
	assert_int_equal(wl->memory, 512LL * 1024 * 1024);
	assert_int_equal(wl->driver, DRIVER_PROCESS);
	assert_int_equal(wl->source, SOURCE_CONFIG);
	assert_string_equal(wl->address, "127.0.0.1");
	workload_free(wl);

	/* the stop: a signal by name, a timeout with a unit; init */
	json = "{\"name\":\"s\",\"hosts\":[\"s.example.com\"],"
	    "\"driver\":\"docker\",\"image\":\"i\",\"port\":1,"
	    "\"init\":false,\"stop_signal\":\"quit\","
	    "\"stop_timeout\":\"1m\"}";
	wl = workload_from_json(json, strlen(json), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->init, 0);
	assert_int_equal(wl->stop_signal, SIGQUIT);
	assert_int_equal(wl->stop_timeout, 60);
	out = workload_to_json(wl);
	assert_non_null(out);
	assert_non_null(strstr(out, "\"keep_warm\":false,\"init\":false,"
	    "\"stop_signal\":\"SIGQUIT\",\"stop_timeout\":60}"));
	free(out);
	workload_free(wl);

	/* on change: either spelling of next wake, written with '_' */
	json = "{\"name\":\"c\",\"hosts\":[\"c.example.com\"],"
	    "\"command\":\"/bin/true\",\"port\":1,\"on_change\":"
	    "\"next wake\"}";
	wl = workload_from_json(json, strlen(json), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->on_change, ON_CHANGE_NEXT_WAKE);
	out = workload_to_json(wl);
	assert_non_null(out);
	assert_non_null(strstr(out, "\"on_change\":\"next_wake\""));
	free(out);
	workload_free(wl);
	json = "{\"name\":\"c\",\"hosts\":[\"c.example.com\"],"
	    "\"command\":\"/bin/true\",\"port\":1,\"on_change\":"
	    "\"restart\"}";
	wl = workload_from_json(json, strlen(json), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->on_change, ON_CHANGE_RESTART);
	out = workload_to_json(wl);
	assert_non_null(out);
	assert_non_null(strstr(out, "\"on_change\":\"restart\""));
	free(out);
	workload_free(wl);

	/* not NUL-terminated: the length counts */
	json = "{\"name\":\"u\",\"hosts\":[\"u.example.com\"],"
	    "\"command\":\"/bin/true\",\"port\":1}garbage";
	wl = workload_from_json(json, strlen(json) - 7, err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	workload_free(wl);
}

static void
test_json_errors(void **state)
{
	static const struct {
		const char	*json;
		const char	*err;
	} cases[] = {
		{ "", "invalid JSON" },
		{ "{", "invalid JSON" },
		{ "[]", "expected a JSON object" },
		{ "\"x\"", "invalid JSON" },
		{ "{}", "field \"name\" is required" },
		{ "{\"name\":1}", "field \"name\": must be a string" },
		{ "{\"name\":\"bad name\"}", "invalid name \"bad name\"" },
		{ "{\"name\":\"\"}", "invalid name" },
		{ "{\"name\":\"-x\"}", "invalid name" },
		{ "{\"name\":\"a\",\"name\":\"b\"}", "invalid JSON" },
		{ "{\"name\":\"a\",\"foo\":1}", "unknown field \"foo\"" },
		{ "{\"name\":\"a\",\"on_change\":\"now\"}",
		    "field \"on_change\": must be \"restart\" or" },
		{ "{\"name\":\"a\",\"on_change\":true}",
		    "field \"on_change\": must be \"restart\" or" },
		{ "{\"name\":\"a\",\"port\":\"80\"}",
		    "field \"port\": must be an integer from 1 to 65535" },
		{ "{\"name\":\"a\",\"port\":0}",
		    "field \"port\": must be an integer from 1 to 65535" },
		{ "{\"name\":\"a\",\"port\":65536}",
		    "field \"port\": must be an integer from 1 to 65535" },
		{ "{\"name\":\"a\",\"port\":80.0}",
		    "field \"port\": must be an integer" },
		{ "{\"name\":\"a\",\"hosts\":\"a.example.com\"}",
		    "field \"hosts\": must be an array of strings" },
		{ "{\"name\":\"a\",\"hosts\":[1]}",
		    "field \"hosts\": must be an array of strings" },
		{ "{\"name\":\"a\",\"env\":{}}",
		    "field \"env\": must be an array of strings" },
		{ "{\"name\":\"a\",\"command\":[\"/bin/true\"]}",
		    "field \"command\": must be a string" },
		{ "{\"name\":\"a\",\"image\":null}",
		    "field \"image\": must be a string" },
		{ "{\"name\":\"a\",\"driver\":\"podman\"}",
		    "field \"driver\": must be \"process\", \"docker\" or "
		    "\"swarm\"" },
		{ "{\"name\":\"a\",\"driver\":1}", "field \"driver\"" },
		{ "{\"name\":\"a\",\"source\":\"file\"}", "field \"source\"" },
		{ "{\"name\":\"a\",\"network\":\"no such/net\"}",
		    "field \"network\"" },
		{ "{\"name\":\"a\",\"network\":\"none\"}",
		    "field \"network\"" },
		{ "{\"name\":\"a\",\"network\":\"default\"}",
		    "field \"network\"" },
		{ "{\"name\":\"a\",\"network\":1}", "field \"network\"" },
		{ "{\"name\":\"a\",\"publish\":0}",
		    "field \"publish\": must be an integer from 1 to 65535" },
		{ "{\"name\":\"a\",\"publish\":65536}",
		    "field \"publish\": must be an integer from 1 to 65535" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"network\":\"pr-1\"}",
		    "network \"pr-1\" is only for driver docker" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"publish\":8080}",
		    "publish is only for driver docker" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"driver\":\"docker\",\"image\":\"i\","
		    "\"network\":\"host\",\"publish\":8080}",
		    "publish is not for network host" },
		{ "{\"name\":\"a\",\"health\":\"http\"}", "field \"health\"" },
		{ "{\"name\":\"a\",\"keep_warm\":1}",
		    "field \"keep_warm\": must be true or false" },
		{ "{\"name\":\"a\",\"idle_timeout\":-1}",
		    "field \"idle_timeout\": must be a duration" },
		{ "{\"name\":\"a\",\"idle_timeout\":\"5x\"}",
		    "field \"idle_timeout\": invalid duration" },
		{ "{\"name\":\"a\",\"idle_timeout\":true}",
		    "field \"idle_timeout\": must be a number of seconds" },
		{ "{\"name\":\"a\",\"wake_timeout\":0}",
		    "field \"wake_timeout\": must be positive" },
		{ "{\"name\":\"a\",\"health_timeout\":0}",
		    "field \"health_timeout\": must be positive" },
		{ "{\"name\":\"a\",\"health_failures\":0}",
		    "field \"health_failures\": must be an integer from 1 "
		    "to 100" },
		{ "{\"name\":\"a\",\"health_failures\":\"3\"}",
		    "field \"health_failures\": must be an integer" },
		{ "{\"name\":\"a\",\"health_interval\":\"often\"}",
		    "field \"health_interval\": invalid duration" },
		{ "{\"name\":\"a\",\"wake_timeout\":99999999999}",
		    "field \"wake_timeout\": must be a duration" },
		{ "{\"name\":\"a\",\"memory\":-5}",
		    "field \"memory\": must not be negative" },
		{ "{\"name\":\"a\",\"memory\":\"lots\"}",
		    "field \"memory\": invalid size" },
		{ "{\"name\":\"a\",\"memory\":1.5}",
		    "field \"memory\": must be a number of bytes" },
		{ "{\"name\":\"a\",\"volumes\":[\"/a:/b\"]}",
		    "field \"volumes\": must be an array of" },
		{ "{\"name\":\"a\",\"volumes\":[{\"host\":\"/a\"}]}",
		    "field \"volumes\"" },
		{ "{\"name\":\"a\",\"volumes\":[{\"host\":\"/a\","
		    "\"container\":\"/b\",\"mode\":\"ro\"}]}",
		    "field \"volumes\"" },
		/* then the rules of workload_validate() */
		{ "{\"name\":\"a\",\"port\":1,\"command\":\"x\"}",
		    "at least one host is required" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.example.com\"],"
		    "\"command\":\"x\"}", "a port is required" },
		{ "{\"name\":\"a\",\"hosts\":[\"a..com\"],\"port\":1,"
		    "\"command\":\"x\"}", "invalid host \"a..com\"" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\",\"A.com\"],"
		    "\"port\":1,\"command\":\"x\"}", "listed twice" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1}",
		    "driver process needs a command" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"driver\":\"docker\"}", "driver docker needs an image" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"runtime\":\"runsc\"}",
		    "runtime is only for driver docker" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"volumes\":[{\"host\":\"/a\","
		    "\"container\":\"/b\"}]}", "volume is only for driver "
		    "docker" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"driver\":\"docker\",\"image\":\"i\",\"volumes\":"
		    "[{\"host\":\"\",\"container\":\"/b\"}]}",
		    "volume: invalid path" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"driver\":\"docker\",\"image\":\"i\",\"volumes\":"
		    "[{\"host\":\"/a\",\"container\":\"b\"}]}",
		    "container path must be absolute" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"env\":[\"NOVALUE\"]}",
		    "env \"NOVALUE\": must be NAME=value" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"env\":[\"A-B=1\"]}", "env \"A-B=1\"" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"health\":\"path\"}",
		    "health path must start with \"/\"" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"health_path\":\"/up\"}",
		    "health path given with health tcp" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"address\":\"example.com\"}",
		    "address \"example.com\": must be a numeric" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\\ny\"}", "command: invalid character" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"\"}", "command: must not be empty" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"directory\":\"tmp\"}",
		    "must be an absolute path" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"user\":\"a:b\"}", "invalid user" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"network\":\"host\"}",
		    "network host is only for driver docker" },
		{ "{\"name\":\"a\\u0000b\"}", "invalid JSON" },
		{ "{\"name\":\"a\",\"init\":\"yes\"}",
		    "field \"init\": must be true or false" },
		{ "{\"name\":\"a\",\"stop_signal\":15}",
		    "field \"stop_signal\": must be a signal name" },
		{ "{\"name\":\"a\",\"stop_signal\":\"TERMINATE\"}",
		    "field \"stop_signal\": unknown signal" },
		{ "{\"name\":\"a\",\"stop_signal\":\"STOP\"}",
		    "field \"stop_signal\": unknown signal" },
		{ "{\"name\":\"a\",\"stop_timeout\":301}",
		    "field \"stop_timeout\": must be at most 300s" },
		{ "{\"name\":\"a\",\"stop_timeout\":\"1h\"}",
		    "field \"stop_timeout\": must be at most" },
		{ "{\"name\":\"a\",\"stop_timeout\":-1}",
		    "field \"stop_timeout\": must be a duration" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"init\":true}",
		    "init is only for driver docker" },
		{ "{\"name\":\"a\",\"busy_fail\":true}",
		    "field \"busy_fail\": must be \"open\" or \"safe\"" },
		/* the words' tables (workload.c) make these messages */
		{ "{\"name\":\"a\",\"source\":\"file\"}",
		    "field \"source\": must be \"config\", \"api\" or \"label\"" },
		{ "{\"name\":\"a\",\"health\":\"http\"}",
		    "field \"health\": must be \"tcp\" or \"path\"" },
		{ "{\"name\":\"a\",\"on_change\":\"next-wake\"}",
		    "field \"on_change\": must be \"restart\" or "
		    "\"next_wake\"" },
		{ "{\"name\":\"a\",\"upstream\":\"h2\"}",
		    "field \"upstream\": \"h2c\" or \"http/1.1\"" },
		{ "{\"name\":\"a\",\"upstream\":true}",
		    "field \"upstream\": \"h2c\" or \"http/1.1\"" },
		{ "{\"name\":\"a\",\"pull\":\"Always\"}",
		    "field \"pull\": must be \"missing\", \"always\" or "
		    "\"never\"" },
		{ "{\"name\":\"a\",\"busy_max\":0}",
		    "field \"busy_max\": must be positive" },
		{ "{\"name\":\"a\",\"busy_path\":[\"/busy\"]}",
		    "field \"busy_path\": must be a string" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"busy_fail\":\"safe\"}",
		    "busy max and busy fail need a busy path" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"busy_path\":\"/a b\"}",
		    "busy path must not contain spaces" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"busy_path\":\"/a\\r\\nX: y\"}",
		    "busy path: invalid character" },
		{ "{\"name\":\"a\",\"listen\":\"127.0.0.1:5432\"}",
		    "field \"listen\": must be an array of strings" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"127.0.0.1\"]}",
		    "listen \"127.0.0.1\": must be ADDRESS:PORT" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"::1:5432\"]}",
		    "listen \"::1:5432\": must be ADDRESS:PORT" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"127.0.0.1:0\"]}",
		    "must be ADDRESS:PORT" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"127.0.0.1:65536\"]}",
		    "must be ADDRESS:PORT" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"h.example:5432\"]}",
		    "must be ADDRESS:PORT" },
		{ "{\"name\":\"a\",\"hosts\":[\"a.com\"],\"port\":1,"
		    "\"command\":\"x\",\"listen\":[\"*:1\",\"*:1\"]}",
		    "listen \"*:1\" listed twice" },
	};
	struct workload_conf	*wl;
	char			 err[256];
	size_t			 i;

	for (i = 0; i < nitems(cases); i++) {
		memset(err, 0, sizeof(err));
		wl = workload_from_json(cases[i].json, strlen(cases[i].json),
		    err, sizeof(err));
		if (wl != NULL) {
			workload_free(wl);
			fail_msg("accepted: %s", cases[i].json);
		}
		if (strstr(err, cases[i].err) == NULL)
			fail_msg("%s: \"%s\", expected \"%s\"", cases[i].json,
			    err, cases[i].err);
	}
	/* no error buffer is fine too */
	assert_null(workload_from_json("{}", 2, NULL, 0));
}

/*
 * CPUs (common/units.c), their JSON form, the API's share of them
 * (common/wlimits.c)
 */
static void
test_cpu(void **state)
{
	static const struct {
		const char	*in;
		int64_t		 v;	/* -1: refused */
	} cases[] = {
		{ "0.5", 500 }, { "2", 2000 }, { "1.25", 1250 },
		{ "0.01", 10 }, { "256", 256000 }, { "0.125", 125 },
		{ "0", -1 }, { "0.009", -1 }, { "256.001", -1 },
		{ "1000", -1 }, { "0.0001", -1 }, { "abc", -1 }, { "", -1 },
		{ "1.", -1 }, { ".5", -1 }, { "-1", -1 }, { "1e3", -1 },
		{ "0.5 ", -1 }, { "99999999999999999999", -1 },
	};
	static const char *const bad_json[] = {
		"-1", "0", "1e300", "0.0001", "\"abc\"", "true", "[1]",
		"257", "0.0015",
	};
	struct workload_conf	*wl;
	struct wl_limits	 dflt, max, out;
	const char		*errstr;
	char			 buf[64], json[256], err[256];
	int64_t			 v;
	size_t			 i;

	for (i = 0; i < nitems(cases); i++) {
		errstr = NULL;
		if (parse_cpu(cases[i].in, &v, &errstr) == -1) {
			if (cases[i].v != -1)
				fail_msg("\"%s\": %s", cases[i].in, errstr);
			assert_non_null(errstr);
			continue;
		}
		if (cases[i].v == -1)
			fail_msg("\"%s\" taken as %lld", cases[i].in,
			    (long long)v);
		assert_int_equal(v, cases[i].v);
		/* printed as read back */
		assert_string_equal(fmt_cpu(v, buf, sizeof(buf)),
		    cases[i].in);
	}
	for (i = 0; i < nitems(bad_json); i++) {
		(void)snprintf(json, sizeof(json), "{\"name\":\"u\","
		    "\"hosts\":[\"u.example.com\"],\"command\":\"/bin/true\","
		    "\"port\":1,\"cpu\":%s}", bad_json[i]);
		if ((wl = workload_from_json(json, strlen(json), err,
		    sizeof(err))) != NULL) {
			workload_free(wl);
			fail_msg("cpu %s taken", bad_json[i]);
		}
		assert_non_null(strstr(err, "field \"cpu\""));
	}
	(void)snprintf(json, sizeof(json), "{\"name\":\"u\","
	    "\"hosts\":[\"u.example.com\"],\"command\":\"/bin/true\","
	    "\"port\":1,\"cpu\":0.1}");
	wl = workload_from_json(json, strlen(json), err, sizeof(err));
	if (wl == NULL)
		fail_msg("%s", err);
	assert_int_equal(wl->cpu, 100);

	/* the default, the API's never above the maximum, the host's CPUs */
	memset(&dflt, 0, sizeof(dflt));
	memset(&max, 0, sizeof(max));
	dflt.cpu = 2000;
	dflt.pids = 1024;
	max.cpu = 1000;
	limits_effective(&dflt, &max, wl, 0, &out);
	assert_int_equal(out.cpu, 100);		/* its own */
	assert_int_equal(out.pids, 1024);	/* the default */
	wl->cpu = 0;
	limits_effective(&dflt, &max, wl, 0, &out);
	assert_int_equal(out.cpu, 2000);	/* orchd.conf's: no max */
	wl->source = SOURCE_API;
	limits_effective(&dflt, &max, wl, 0, &out);
	assert_int_equal(out.cpu, 1000);	/* the API's: the max */
	dflt.cpu = 0;
	limits_effective(&dflt, &max, wl, 0, &out);
	assert_int_equal(out.cpu, 1000);	/* none: still the max */
	wl->source = SOURCE_CONFIG;
	wl->cpu = 8000;
	limits_effective(&dflt, &max, wl, 2, &out);
	assert_int_equal(out.cpu, 2000);	/* the host's two CPUs */
	assert_int_equal(limits_v1_shares(100), 1024);
	assert_int_equal(limits_v1_shares(1), 10);
	assert_int_equal(limits_v1_shares(10000), 102400);
	assert_int_equal(limits_v1_blkio(100), 500);
	assert_int_equal(limits_v1_blkio(1), 10);
	assert_int_equal(limits_v1_blkio(10000), 1000);
	out.cpu = 5;
	assert_int_equal(limits_check(&out, err, sizeof(err)), -1);
	workload_free(wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_json_units),
		cmocka_unit_test(test_json_errors),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
