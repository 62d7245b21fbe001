/*
 * The API key's strength rule (orchd/apikey.c): at least 128 bits, told
 * from the key's alphabet, for a key file as for ORCHD_KEY.
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
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"
#include "../../orchd/parent.h"

static int
strong(const char *key)
{
	const char	*why = NULL;
	int		 rc;

	rc = apikey_strong((const uint8_t *)key, strlen(key), &why);
	if (rc == 0)
		assert_null(why);
	else
		assert_non_null(why);
	return (rc == 0);
}

static void
test_hex(void **state)
{
	/* openssl rand -hex 16 */
	assert_true(strong("3f8a0c2e9b41d7665e0fa3c2b19d8e47"));
	assert_true(strong("3F8A0C2E9B41D7665E0FA3C2B19D8E47"));
	assert_true(strong("3f8a0c2e9b41d7665e0fa3c2b19d8e4711"));
	/* 31 digits: 124 bits, though long enough as base64 */
	assert_false(strong("3f8a0c2e9b41d7665e0fa3c2b19d8e4"));
	assert_false(strong("0123456789abcdef"));
	assert_false(strong("00000000000000000000000"));
}

static void
test_base64(void **state)
{
	/* openssl rand -base64 16 */
	assert_true(strong("q5Xn0dO1Qe2Wc8Zr7YbT4g=="));
	assert_true(strong("q5Xn0dO1Qe2Wc8Zr7YbT4g"));
	/* base64url, as the e2e tests' keys */
	assert_true(strong("e2e-key-1234-0123456789abcdef"));
	assert_true(strong("abc_def-ghi_jkl-mno_pq"));
	/* 21 characters, padding not counted */
	assert_false(strong("q5Xn0dO1Qe2Wc8Zr7YbT4"));
	assert_false(strong("q5Xn0dO1Qe2Wc8Zr7YbT4=="));
	/* hex digits and padding: base64 */
	assert_true(strong("0123456789abcdef012345=="));
	assert_false(strong("secret"));
}

static void
test_neither(void **state)
{
	assert_false(strong(""));
	assert_false(strong("=="));
	assert_false(strong("correct.horse.battery.staple.and.more"));
	assert_false(strong("q5Xn0dO1Qe2Wc8Zr7YbT4g===="));
	assert_false(strong("q5Xn0dO1Qe2W=c8Zr7YbT4g"));
	assert_false(strong("q5Xn0dO1Qe2Wc8Zr7YbT4g!"));
}

/* apikey_load: the rule applied to a key file, line end and all */
static int
load_file(const char *text)
{
	struct orchd_conf	 conf;
	char			 path[] = "/tmp/test_apikey.XXXXXX";
	int			 fd, rc;

	assert_int_not_equal(fd = mkstemp(path), -1);
	assert_int_equal(fchmod(fd, 0600), 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	memset(&conf, 0, sizeof(conf));
	conf.api_key_file = path;
	unsetenv("ORCHD_KEY");
	rc = apikey_load(&conf);
	if (rc == 0) {
		assert_non_null(conf.api_key);
		assert_memory_equal(conf.api_key, text, conf.api_key_len);
	}
	free(conf.api_key);
	unlink(path);
	return (rc == 0);
}

static void
test_key_file(void **state)
{
	assert_true(load_file("3f8a0c2e9b41d7665e0fa3c2b19d8e47\n"));
	assert_true(load_file("q5Xn0dO1Qe2Wc8Zr7YbT4g==\r\n"));
	assert_false(load_file("3f8a0c2e9b41d7665e0fa3c2b19d8e\n"));
	assert_false(load_file("hunter2\n"));
	assert_false(load_file("a key with spaces in it, long enough\n"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_neither),
		cmocka_unit_test(test_key_file),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
