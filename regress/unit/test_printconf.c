/*
 * orchd -nv (orchd/printconf.c): each regress/config/conf.N, parsed and
 * printed, must match conf.N.ok; the print, parsed again, must print the
 * same and give the same workloads (their JSON form, every field); so
 * must test_parse's good*.conf, with good*.conf.ok.  Each bad-*.conf must
 * be refused with the errors in its bad-*.conf.ok, every one with its
 * file and line, in order.  The API key is never printed, and what cannot
 * be read back is refused.
 *
 * Run from the top of the tree.  ORCHD_GOLDEN_UPDATE=1 writes the .ok
 * files instead of comparing: read the diff before committing one.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "log.h"
#include "workload.h"
#include "../../orchd/parent.h"
#include "conf.h"
#include "../../confd/confd.h"

#define CONFDIR		"regress/config/"
#define CONF_MAX	64		/* conf.1 to conf.64 at most */
#define GOLDEN_MAX	(1024 * 1024)

/* the configuration as print_config() writes it, NUL-terminated */
static char *
print_mem(const struct orchd_conf *conf, int *rv)
{
	FILE	*fp;
	char	*buf = NULL;
	size_t	 len = 0;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	*rv = print_config(fp, conf);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(buf);
	return (buf);
}

static char *
read_file(const char *path)
{
	FILE	*fp;
	char	*buf;
	size_t	 n;

	if ((fp = fopen(path, "r")) == NULL)
		return (NULL);
	buf = malloc(GOLDEN_MAX + 1);
	assert_non_null(buf);
	n = fread(buf, 1, GOLDEN_MAX, fp);
	assert_int_equal(ferror(fp), 0);
	assert_true(n < GOLDEN_MAX);
	buf[n] = '\0';
	fclose(fp);
	return (buf);
}

static void
write_file(const char *path, const char *text)
{
	FILE	*fp;

	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/* the first line where a and b differ, both sides, to read the failure */
static void
show_difference(const char *name, const char *a, const char *b)
{
	int	 line = 1;
	size_t	 i, start = 0;

	for (i = 0; a[i] != '\0' && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	print_message("  %s: line %d differs\n  want: %.*s\n  got:  %.*s\n",
	    name, line, (int)strcspn(a + start, "\n"), a + start,
	    (int)strcspn(b + start, "\n"), b + start);
}

/* every workload of a, in order, is b's in every field */
static void
same_workloads(const struct orchd_conf *a, const struct orchd_conf *b)
{
	const struct workload_conf	*wa, *wb;
	char				*ja, *jb;

	wb = TAILQ_FIRST(&b->workloads);
	TAILQ_FOREACH(wa, &a->workloads, entry) {
		assert_non_null(wb);
		ja = workload_to_json(wa);
		jb = workload_to_json(wb);
		assert_non_null(ja);
		assert_non_null(jb);
		if (strcmp(ja, jb) != 0)
			show_difference(wa->name, ja, jb);
		assert_string_equal(ja, jb);
		free(ja);
		free(jb);
		wb = TAILQ_NEXT(wb, entry);
	}
	assert_null(wb);
}

/* text is path's golden file, path.ok; ORCHD_GOLDEN_UPDATE writes it */
static void
golden(const char *path, const char *text)
{
	char	 ok[PATH_MAX];
	char	*want;

	assert_true(snprintf(ok, sizeof(ok), "%s.ok", path) <
	    (int)sizeof(ok));
	if (getenv("ORCHD_GOLDEN_UPDATE") != NULL)
		write_file(ok, text);
	want = read_file(ok);
	if (want == NULL)
		fail_msg("%s: %s", ok, strerror(errno));
	if (strcmp(want, text) != 0)
		show_difference(ok, want, text);
	assert_string_equal(want, text);
	free(want);
}

/* conf.N: the golden file, then the round trip */
static void
check_one(const char *path)
{
	struct orchd_conf	*conf, *again;
	char			 tmp[] = "/tmp/printconf.XXXXXX";
	char			*text, *text2;
	int			 fd, rv;

	print_message("  %s\n", path);
	conf = parse_config(path, 0);
	assert_non_null(conf);
	text = print_mem(conf, &rv);
	assert_int_equal(rv, 0);

	golden(path, text);

	/* the print is a configuration: the same one */
	fd = mkstemp(tmp);
	assert_true(fd != -1);
	close(fd);
	write_file(tmp, text);
	again = parse_config(tmp, 0);
	unlink(tmp);
	assert_non_null(again);
	text2 = print_mem(again, &rv);
	assert_int_equal(rv, 0);
	if (strcmp(text, text2) != 0)
		show_difference("round trip", text, text2);
	assert_string_equal(text, text2);
	same_workloads(conf, again);

	free(text);
	free(text2);
	free_config(conf);
	free_config(again);
}

static void
test_golden(void **state)
{
	char	 path[PATH_MAX];
	int	 n, count = 0;

	for (n = 1; n <= CONF_MAX; n++) {
		(void)snprintf(path, sizeof(path), CONFDIR "conf.%d", n);
		if (access(path, F_OK) == -1)
			break;
		check_one(path);
		count++;
	}
	/* the files are there: not a pass by finding none */
	assert_true(count >= 8);
}

/*
 * test_parse's good configurations: what they parse to, field by field,
 * is their golden file; test_parse keeps what a print does not show.
 */
static void
test_golden_good(void **state)
{
	static const char *const files[] = {
		"good.conf",		/* every keyword, macros, include */
		"good-minimal.conf",
		"good-noeol.conf",
		"good-policy.conf",
		"good-health.conf",
		"good-swarm.conf",	/* driver swarm, replicas, constraint */
		"good-tcp.conf"		/* a workload's TCP listeners */
	};
	char	 path[PATH_MAX];
	size_t	 i;

	for (i = 0; i < nitems(files); i++) {
		(void)snprintf(path, sizeof(path), CONFDIR "%s", files[i]);
		check_one(path);
	}
}

/* what the parser logs, one line each */
static FILE	*errfp;

static void
capture(int pri, const char *line)
{
	fprintf(errfp, "%s\n", line);
}

/* bad-*.conf: refused, with the errors of its golden file */
static void
check_bad(const char *path)
{
	struct orchd_conf	*conf;
	char			*text = NULL;
	size_t			 len = 0;

	print_message("  %s\n", path);
	errfp = open_memstream(&text, &len);
	assert_non_null(errfp);
	log_capture(capture);
	conf = parse_config(path, 0);
	log_capture(NULL);
	assert_int_equal(fclose(errfp), 0);
	if (conf != NULL) {
		free_config(conf);
		fail_msg("%s: parsed", path);
	}
	/* refused, and saying why */
	assert_true(len > 0);

	golden(path, text);
	free(text);
}

static void
test_golden_bad(void **state)
{
	glob_t	 g;
	size_t	 i;

	assert_int_equal(glob(CONFDIR "bad-*.conf", 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
		check_bad(g.gl_pathv[i]);
	/* the files are there: not a pass by finding none */
	assert_true(g.gl_pathc >= 90);
	globfree(&g);
}

/* the key that was loaded never appears, its file does */
static void
test_no_key(void **state)
{
	struct orchd_conf	*conf;
	const char		*key = "0123456789abcdef0123456789abcdef";
	char			*text;
	int			 rv;

	conf = parse_config(CONFDIR "conf.6", 0);
	assert_non_null(conf);
	conf->api_key = (uint8_t *)strdup(key);
	assert_non_null(conf->api_key);
	conf->api_key_len = strlen(key);
	conf->api_key_set = 1;
	text = print_mem(conf, &rv);
	assert_int_equal(rv, 0);
	assert_null(strstr(text, key));
	assert_non_null(strstr(text, "api key file \"/etc/orchd/api.key\"\n"));
	free(text);

	/* from ORCHD_KEY: said, not shown */
	free(conf->api_key_file);
	conf->api_key_file = NULL;
	text = print_mem(conf, &rv);
	assert_int_equal(rv, 0);
	assert_null(strstr(text, key));
	assert_null(strstr(text, "api key file"));
	assert_non_null(strstr(text, "# api key: from ORCHD_KEY\n"));
	free(text);
	free_config(conf);
}

/* a string the lexer would refuse is not printed as if it were fine */
static void
test_unprintable(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	char			*text;
	int			 rv;

	conf = parse_config(CONFDIR "conf.3", 0);
	assert_non_null(conf);
	wl = TAILQ_FIRST(&conf->workloads);
	assert_non_null(wl);
	free(wl->command);
	wl->command = strdup("/bin/echo a\nlisten on * port 1");
	assert_non_null(wl->command);
	text = print_mem(conf, &rv);
	assert_int_equal(rv, -1);
	assert_null(strstr(text, "\nlisten on * port 1"));
	free(text);
	free_config(conf);
}

/* API workloads are the store's: not in the file's print */
static void
test_api_workload(void **state)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	char			*text;
	int			 rv;

	conf = parse_config(CONFDIR "conf.3", 0);
	assert_non_null(conf);
	wl = TAILQ_FIRST(&conf->workloads);
	assert_non_null(wl);
	wl->source = SOURCE_API;
	text = print_mem(conf, &rv);
	assert_int_equal(rv, 0);
	assert_null(strstr(text, "workload \"docs\""));
	assert_non_null(strstr(text, "workload \"v6\""));
	free(text);
	free_config(conf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_golden_good),
		cmocka_unit_test(test_golden_bad),
		cmocka_unit_test(test_no_key),
		cmocka_unit_test(test_unprintable),
		cmocka_unit_test(test_api_workload),
	};

	log_init(1, 0);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
