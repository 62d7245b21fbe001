/*
 * The gate's parsers and its cache: the parent's htpasswd loader
 * (orchd/htpasswd.c) takes bcrypt and yescrypt lines and refuses every
 * other kind with the file and line; the shared parsers of common/gate.c
 * (a hash, an allow/deny entry, the auth service's URL, a header name);
 * the gateway's cache of verified credentials (gatewayd/gate_cache.c):
 * found while fresh, gone once expired or cleared, a key of another
 * process start never equal, bounded however many are put.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gate.h"
#include "msg.h"
#include "htpasswd.h"
#include "../../gatewayd/gatecheck.h"

#define BCRYPT	"$2y$10$nu8F5Vv/lfz.ELVXHjID..s9yVPFtNpNmehGtiUtShmDc24RyFUUi"
#define YESCRYPT \
    "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL5"

static void
test_line(void **state)
{
	struct cfg_htuser	 u;
	const char		*why;

	assert_int_equal(htpasswd_line("alice:" BCRYPT, &u, &why), 1);
	assert_string_equal(u.user, "alice");
	assert_string_equal(u.hash, BCRYPT);
	assert_int_equal(htpasswd_line("carol:" YESCRYPT, &u, &why), 1);
	assert_int_equal(htpasswd_line("bob:$2b$10$nu8F5Vv/lfz.ELVXHjID..s9y"
	    "VPFtNpNmehGtiUtShmDc24RyFUUi", &u, &why), 1);
	assert_int_equal(htpasswd_line("", &u, &why), 0);
	assert_int_equal(htpasswd_line("# a comment", &u, &why), 0);
	/* the kinds refused */
	assert_int_equal(htpasswd_line("eve:plaintext", &u, &why), -1);
	assert_int_equal(htpasswd_line("eve:$apr1$abcdefgh$0123456789abcde"
	    "fghijk", &u, &why), -1);
	assert_int_equal(htpasswd_line("eve:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
	    &u, &why), -1);
	assert_int_equal(htpasswd_line("eve:abJnggxhB/yWI", &u, &why), -1);
	assert_int_equal(htpasswd_line("eve:$2a$10$nu8F5Vv/lfz.ELVXHjID..s9y"
	    "VPFtNpNmehGtiUtShmDc24RyFUUi", &u, &why), -1);
	/* a bcrypt cut short, a cost out of range */
	assert_int_equal(htpasswd_line("eve:$2y$10$nu8F5Vv", &u, &why), -1);
	assert_int_equal(htpasswd_line("eve:$2y$99$nu8F5Vv/lfz.ELVXHjID..s9y"
	    "VPFtNpNmehGtiUtShmDc24RyFUUi", &u, &why), -1);
	/* no user, no colon, a user that is not UTF-8 */
	assert_int_equal(htpasswd_line(":" BCRYPT, &u, &why), -1);
	assert_int_equal(htpasswd_line("alice", &u, &why), -1);
	assert_int_equal(htpasswd_line("\xff\xfe:" BCRYPT, &u, &why), -1);
}

static const char *
write_file(const char *text)
{
	static char	 path[64];
	FILE		*fp;
	int		 fd;

	(void)strlcpy(path, "/tmp/test_htpasswd.XXXXXX", sizeof(path));
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs(text, fp);
	fclose(fp);
	return (path);
}

static void
test_read(void **state)
{
	struct htfile	*f;
	const char	*path;
	char		 err[1024], want[256];

	path = write_file("# users\nalice:" BCRYPT "\n\ncarol:" YESCRYPT
	    "\r\n");
	assert_non_null(f = htpasswd_read(path, err, sizeof(err)));
	assert_int_equal(f->nusers, 2);
	assert_string_equal(f->users[1].user, "carol");
	htfile_free(f);
	unlink(path);

	path = write_file("alice:" BCRYPT "\neve:secret\n");
	assert_null(htpasswd_read(path, err, sizeof(err)));
	(void)snprintf(want, sizeof(want), "%s:2: not a bcrypt", path);
	assert_memory_equal(err, want, strlen(want));
	unlink(path);

	path = write_file("alice:" BCRYPT "\nalice:" YESCRYPT "\n");
	assert_null(htpasswd_read(path, err, sizeof(err)));
	assert_non_null(strstr(err, ":2: user listed twice"));
	unlink(path);

	assert_null(htpasswd_read("/nonexistent/htpasswd", err, sizeof(err)));
}

static void
test_rules(void **state)
{
	struct gate_rule	 r;
	struct netaddr		 a;
	char			 host[64];
	const char		*path;
	int			 port;

	memset(&a, 0, sizeof(a));
	a.af = AF_INET;
	assert_int_equal(inet_pton(AF_INET, "10.1.2.3", a.addr), 1);
	assert_int_equal(gate_rule_parse("allow 10.0.0.0/8", &r), 0);
	assert_true(r.allow && gate_rule_match(&r, &a));
	assert_int_equal(gate_rule_parse("deny 192.0.2.0/24", &r), 0);
	assert_false(r.allow || gate_rule_match(&r, &a));
	assert_int_equal(gate_rule_parse("deny all", &r), 0);
	assert_true(gate_rule_match(&r, &a));
	assert_int_equal(gate_rule_parse("permit 10.0.0.0/8", &r), -1);
	assert_int_equal(gate_rule_parse("allow 10.0.0.0/33", &r), -1);
	assert_int_equal(gate_rule_parse("allow example.com", &r), -1);

	assert_int_equal(gate_url_split("http://127.0.0.1:4180/oauth2/auth",
	    host, sizeof(host), &port, &path), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 4180);
	assert_string_equal(path, "/oauth2/auth");
	assert_int_equal(gate_url_split("http://[::1]/a?b", host, sizeof(host),
	    &port, &path), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 80);
	assert_int_equal(gate_url_split("https://127.0.0.1/", host,
	    sizeof(host), &port, &path), -1);
	assert_int_equal(gate_url_split("http://auth.example/", host,
	    sizeof(host), &port, &path), -1);
	assert_int_equal(gate_url_split("http://127.0.0.1:99999/", host,
	    sizeof(host), &port, &path), -1);
	assert_int_equal(gate_url_split("http://127.0.0.1/a b", host,
	    sizeof(host), &port, &path), -1);
	assert_int_equal(gate_url_split("http://127.0.0.1", host,
	    sizeof(host), &port, &path), -1);

	assert_true(gate_header_name_ok("X-Auth-Request-User"));
	assert_false(gate_header_name_ok("Host"));
	assert_false(gate_header_name_ok("x-forwarded-for"));
	assert_false(gate_header_name_ok("X Bad"));
	assert_false(gate_header_name_ok(""));
}

static void
test_cache(void **state)
{
	uint8_t		 k1[32], k2[32], k3[32];
	const char	*v;
	size_t		 len, i, found;

	gate_cache_init();
	gate_cache_key(k1, "/etc/htpasswd", "Basic YTpi", 10, "", 0);
	gate_cache_key(k2, "/etc/htpasswd", "Basic YTpj", 10, "", 0);
	/* the parts' lengths are keyed: "ab" + "" is not "a" + "b" */
	gate_cache_key(k3, "/etc/htpasswd", "Basic YTpi", 9, "i", 1);
	assert_memory_not_equal(k1, k2, sizeof(k1));
	assert_memory_not_equal(k1, k3, sizeof(k1));
	gate_cache_put(0, k1, 1000, NULL, 0);
	assert_true(gate_cache_find(0, k1, 999, NULL, NULL));
	assert_false(gate_cache_find(0, k1, 1000, NULL, NULL));
	assert_false(gate_cache_find(0, k2, 999, NULL, NULL));
	gate_cache_clear();
	assert_false(gate_cache_find(0, k1, 999, NULL, NULL));

	/* table 1 keeps the fields with the key */
	gate_cache_put(1, k2, 5000, "X-User\0alice", 13);
	assert_true(gate_cache_find(1, k2, 10, &v, &len));
	assert_int_equal(len, 13);
	assert_string_equal(v + 7, "alice");

	/* a flood of keys: bounded, the table keeps at most its size */
	for (i = 0; i < 20000; i++) {
		gate_cache_key(k3, "f", (const char *)&i, sizeof(i), "", 0);
		gate_cache_put(0, k3, 100000 + i, NULL, 0);
	}
	for (i = 0, found = 0; i < 20000; i++) {
		gate_cache_key(k3, "f", (const char *)&i, sizeof(i), "", 0);
		found += gate_cache_find(0, k3, 0, NULL, NULL);
	}
	assert_true(found <= GATE_CACHE_MAX);
	assert_true(found > GATE_CACHE_MAX / 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_cache),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
