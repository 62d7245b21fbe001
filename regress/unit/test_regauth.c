/*
 * The registry logins (orchd/regauth.c): Docker's config.json made into
 * what runtimed hands the Docker daemon, one X-Registry-Auth value per
 * registry host; the hosts as runtimed names them; the file refused
 * when others may read it, or when it is not one runtimed could use.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "compat.h"
#include "log.h"
#include "../../orchd/parent.h"
#include "conf.h"

/* base64url, padded, back to text: the test's own decoder */
static char *
unb64url(const char *s)
{
	static const char	 digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	char			*out, *p;
	size_t			 o = 0;
	uint32_t		 acc = 0;
	int			 bits = 0;

	out = calloc(1, strlen(s) + 1);
	assert_non_null(out);
	for (; *s != '\0' && *s != '='; s++) {
		p = strchr(digits, *s);
		assert_non_null(p);
		acc = (acc << 6) | (uint32_t)(p - digits);
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[o++] = (acc >> bits) & 0xff;
		}
	}
	return (out);
}

/* the converted logins as an object; NULL if refused, err says why */
static json_t *
convert(const char *text, char *err, size_t len)
{
	json_t	*o;
	char	*s;

	err[0] = '\0';
	if ((s = regauth_convert(text, strlen(text), "f", err, len)) == NULL)
		return (NULL);
	o = json_loads(s, 0, NULL);
	assert_non_null(o);
	free(s);
	return (o);
}

/* the header's JSON for host, as text */
static char *
header(json_t *o, const char *host)
{
	const char	*v;

	v = json_string_value(json_object_get(o, host));
	assert_non_null(v);
	return (unb64url(v));
}

static void
test_hosts(void **state)
{
	char	 h[256];

	assert_int_equal(regauth_host("registry.example.com", h,
	    sizeof(h)), 0);
	assert_string_equal(h, "registry.example.com");
	assert_int_equal(regauth_host("https://Registry.Example.com:5000/v2/",
	    h, sizeof(h)), 0);
	assert_string_equal(h, "registry.example.com:5000");
	assert_int_equal(regauth_host("http://127.0.0.1:25123", h,
	    sizeof(h)), 0);
	assert_string_equal(h, "127.0.0.1:25123");
	/* Docker Hub by any of its names */
	assert_int_equal(regauth_host("https://index.docker.io/v1/", h,
	    sizeof(h)), 0);
	assert_string_equal(h, "docker.io");
	assert_int_equal(regauth_host("registry-1.docker.io", h, sizeof(h)),
	    0);
	assert_string_equal(h, "docker.io");
	assert_int_equal(regauth_host("", h, sizeof(h)), -1);
	assert_int_equal(regauth_host("https:///v1", h, sizeof(h)), -1);
	assert_int_equal(regauth_host("a b", h, sizeof(h)), -1);
	assert_int_equal(regauth_host("a\"b", h, sizeof(h)), -1);
}

static void
test_convert(void **state)
{
	json_t	*o;
	char	 err[512], *s;

	/* docker login's "auth": base64 of alice:s3cret, and a password
	   with a colon in it, given as username and password */
	o = convert("{\"auths\": {"
	    "\"127.0.0.1:25123\": {\"auth\": \"YWxpY2U6czNjcmV0\"},"
	    "\"https://index.docker.io/v1/\": {\"username\": \"bob\","
	    "\"password\": \"p:w\\\"x\"}}}", err, sizeof(err));
	if (o == NULL)
		fail_msg("%s", err);
	assert_int_equal(json_object_size(o), 2);
	s = header(o, "127.0.0.1:25123");
	assert_string_equal(s, "{\"username\":\"alice\",\"password\":"
	    "\"s3cret\",\"serveraddress\":\"127.0.0.1:25123\"}");
	free(s);
	s = header(o, "docker.io");
	assert_string_equal(s, "{\"username\":\"bob\",\"password\":"
	    "\"p:w\\\"x\",\"serveraddress\":\"https://index.docker.io/v1/\"}");
	free(s);
	json_decref(o);

	/* an identity token, and an entry a helper keeps: left out */
	o = convert("{\"auths\": {\"r.test\": {\"identitytoken\": \"tok\"},"
	    "\"h.test\": {}}, \"credsStore\": \"desktop\"}", err,
	    sizeof(err));
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 1);
	s = header(o, "r.test");
	assert_string_equal(s, "{\"username\":\"\",\"password\":\"\","
	    "\"serveraddress\":\"r.test\",\"identitytoken\":\"tok\"}");
	free(s);
	json_decref(o);

	/* no logins is fine */
	o = convert("{\"auths\": {}}", err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 0);
	json_decref(o);

	/* the same registry twice: the first one */
	o = convert("{\"auths\": {\"docker.io\": {\"auth\": "
	    "\"YWxpY2U6czNjcmV0\"}, \"index.docker.io\": {\"auth\": "
	    "\"Ym9iOng=\"}}}", err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 1);
	s = header(o, "docker.io");
	assert_non_null(strstr(s, "\"alice\""));
	free(s);
	json_decref(o);
}

static void
test_refused(void **state)
{
	static const struct {
		const char	*text;
		const char	*err;
	} cases[] = {
		{ "", "invalid JSON" },
		{ "[]", "no \"auths\" object" },
		{ "{\"auths\": []}", "no \"auths\" object" },
		{ "{\"auths\": {}, \"auths\": {}}", "invalid JSON" },
		{ "{\"auths\": {\"a b\": {}}}", "\"a b\" is not a registry" },
		{ "{\"auths\": {\"r.test\": {\"auth\": \"!!\"}}}",
		    "auth is not base64 of user:password" },
		/* base64 of "nocolon" */
		{ "{\"auths\": {\"r.test\": {\"auth\": \"bm9jb2xvbg==\"}}}",
		    "auth is not base64 of user:password" },
		/* base64 of "a:\xff": not UTF-8 */
		{ "{\"auths\": {\"r.test\": {\"auth\": \"YTr/\"}}}",
		    "not UTF-8" },
		{ "{\"auths\": {\"r.test\": {\"username\": 1}}}",
		    "not an object of strings" },
		{ "{\"auths\": {\"r.test\": \"x\"}}",
		    "not an object of strings" },
	};
	json_t	*o;
	char	 err[512];
	size_t	 i;

	for (i = 0; i < nitems(cases); i++) {
		o = convert(cases[i].text, err, sizeof(err));
		if (o != NULL)
			fail_msg("accepted: %s", cases[i].text);
		if (strstr(err, cases[i].err) == NULL)
			fail_msg("%s: \"%s\", not \"%s\"", cases[i].text, err,
			    cases[i].err);
	}
}

/* regauth_load: the file's mode, as for the API key file */
static int
load_file(const char *text, mode_t mode)
{
	struct orchd_conf	 conf;
	char			 path[] = "/tmp/test_regauth.XXXXXX";
	int			 fd, rc;

	assert_int_not_equal(fd = mkstemp(path), -1);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	memset(&conf, 0, sizeof(conf));
	conf.regauth_file = path;
	rc = regauth_load(&conf);
	assert_int_equal(conf.regauth_loaded, 1);
	if (rc == 0)
		assert_non_null(conf.regauth);
	else
		assert_null(conf.regauth);
	free(conf.regauth);
	unlink(path);
	return (rc == 0);
}

static void
test_load(void **state)
{
	struct orchd_conf	 conf;
	const char		*good = "{\"auths\": {\"r.test\": "
				    "{\"auth\": \"YWxpY2U6czNjcmV0\"}}}";

	assert_true(load_file(good, 0600));
	assert_true(load_file(good, 0400));
	assert_false(load_file(good, 0640));
	assert_false(load_file(good, 0604));
	assert_false(load_file(good, 0620));
	assert_false(load_file("{\"auths\": 1}", 0600));

	/* none configured: none sent, which clears runtimed's */
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(regauth_load(&conf), 0);
	assert_int_equal(conf.regauth_loaded, 1);
	assert_null(conf.regauth);
	/* a file that is not there */
	conf.regauth_file = "/nonexistent/registry.json";
	assert_int_equal(regauth_load(&conf), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_convert),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_load),
	};

	log_init(1, LOG_DAEMON);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
