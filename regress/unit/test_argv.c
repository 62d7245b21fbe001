/*
 * Unit tests for common/argv.c: a process workload's command split into
 * argv the way sh(1) would, without a shell.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "argv.h"

/* split cmd and compare with the expected words, NULL-terminated */
static void
expect_words(const char *cmd, ...)
{
	va_list		 ap;
	char		**argv, err[128];
	const char	*want;
	int		 n, i = 0;

	err[0] = '\0';
	n = split_command(cmd, &argv, err, sizeof(err));
	if (n == -1)
		fail_msg("split_command(%s): %s", cmd, err);
	assert_non_null(argv);
	va_start(ap, cmd);
	while ((want = va_arg(ap, const char *)) != NULL) {
		assert_true(i < n);
		assert_non_null(argv[i]);
		assert_string_equal(argv[i], want);
		i++;
	}
	va_end(ap);
	assert_int_equal(n, i);
	assert_null(argv[n]);
	free_argv(argv);
}

static void
expect_error(const char *cmd, const char *msg)
{
	char	**argv = (char **)1, err[128];

	err[0] = '\0';
	assert_int_equal(split_command(cmd, &argv, err, sizeof(err)), -1);
	assert_null(argv);
	assert_non_null(strstr(err, msg));
}

static void
test_plain(void **state)
{
	expect_words("/bin/busybox httpd -f -p 127.0.0.1:8080",
	    "/bin/busybox", "httpd", "-f", "-p", "127.0.0.1:8080", NULL);
	expect_words("  spaced\t\tout  \n words ", "spaced", "out", "words",
	    NULL);
	expect_words("one", "one", NULL);
}

static void
test_empty(void **state)
{
	expect_words("", NULL);
	expect_words("   \t ", NULL);
	/* an empty quoted word is a word */
	expect_words("''", "", NULL);
	expect_words("a \"\" b", "a", "", "b", NULL);
}

static void
test_single_quotes(void **state)
{
	expect_words("echo 'hello world'", "echo", "hello world", NULL);
	/* nothing is special inside single quotes */
	expect_words("'a\\b \"c\" $HOME'", "a\\b \"c\" $HOME", NULL);
	/* quoted parts join the word they touch */
	expect_words("pre'mid dle'post", "premid dlepost", NULL);
}

static void
test_double_quotes(void **state)
{
	expect_words("echo \"hello  world\"", "echo", "hello  world", NULL);
	expect_words("\"it's\"", "it's", NULL);
	/* \" \\ \$ \` are escapes, any other backslash stays */
	expect_words("\"a\\\"b\\\\c\\$d\\`e\\nf\"", "a\"b\\c$d`e\\nf", NULL);
	expect_words("x\"y z\"'w'", "xy zw", NULL);
}

static void
test_escapes(void **state)
{
	expect_words("a\\ b c", "a b", "c", NULL);
	expect_words("\\'quoted\\'", "'quoted'", NULL);
	expect_words("\\\"x\\\"", "\"x\"", NULL);
	expect_words("back\\\\slash", "back\\slash", NULL);
	/* backslash-newline continues the line */
	expect_words("a\\\nb c", "ab", "c", NULL);
}

static void
test_no_expansion(void **state)
{
	expect_words("echo $HOME * ~ `id` $(id) > out; rm -rf /",
	    "echo", "$HOME", "*", "~", "`id`", "$(id)", ">", "out;", "rm",
	    "-rf", "/", NULL);
}

static void
test_errors(void **state)
{
	expect_error("echo 'unterminated", "unterminated single quote");
	expect_error("echo '", "unterminated single quote");
	expect_error("echo \"unterminated", "unterminated double quote");
	expect_error("echo \"", "unterminated double quote");
	/* the last quote is escaped: still open */
	expect_error("echo \"abc\\\"", "unterminated double quote");
	expect_error("echo trailing\\", "backslash at the end");
	expect_error(NULL, "no command");
}

static void
test_many(void **state)
{
	char	 *cmd, **argv, err[128], word[16];
	size_t	  len = 0, sz = 1000 * 8 + 1;
	int	  i, n;

	assert_non_null(cmd = malloc(sz));
	cmd[0] = '\0';
	for (i = 0; i < 1000; i++) {
		snprintf(word, sizeof(word), "w%d ", i);
		len = strlcat(cmd, word, sz);
	}
	assert_true(len < sz);
	n = split_command(cmd, &argv, err, sizeof(err));
	assert_int_equal(n, 1000);
	for (i = 0; i < n; i++) {
		snprintf(word, sizeof(word), "w%d", i);
		assert_string_equal(argv[i], word);
	}
	assert_null(argv[n]);
	free_argv(argv);
	free(cmd);
}

static void
test_too_many(void **state)
{
	char	 *cmd, **argv, err[128];
	size_t	  i, n = 5000;

	/* "a a a ... a": 5000 words is more than anyone means */
	assert_non_null(cmd = malloc(n * 2 + 1));
	for (i = 0; i < n; i++) {
		cmd[2 * i] = 'a';
		cmd[2 * i + 1] = ' ';
	}
	cmd[2 * n] = '\0';
	assert_int_equal(split_command(cmd, &argv, err, sizeof(err)), -1);
	assert_null(argv);
	assert_non_null(strstr(err, "words"));
	free(cmd);
}

static void
test_long_word(void **state)
{
	char	 *cmd, **argv, err[128];
	size_t	  n = 100000;

	assert_non_null(cmd = malloc(n + 1));
	memset(cmd, 'x', n);
	cmd[n] = '\0';
	assert_int_equal(split_command(cmd, &argv, err, sizeof(err)), 1);
	assert_int_equal(strlen(argv[0]), n);
	free_argv(argv);
	free(cmd);
	free_argv(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_single_quotes),
		cmocka_unit_test(test_double_quotes),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_no_expansion),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_long_word),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
