/*
 * The API's volume directories as the parent makes them at each wake
 * (orchd/voldir.c): ROOT/WORKLOAD/NAME made by a walk that follows no
 * link, and refused wherever a link, a file or a directory others may
 * write stands in the way, with nothing made where a link leads; and
 * orchd.conf's volumes resolved again where they lead now
 * (hostpath_at_use).  In a scratch directory under /tmp, as whoever
 * runs the test: "root" is the test's own uid.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "workload.h"
#include "conf.h"
#include "../../orchd/parent.h"

static char	 top[64];		/* /tmp/vol-unit.XXXXXX */
static char	 root[PATH_MAX];	/* top/root, the volume root */
static char	 out[PATH_MAX];		/* top/out, where links lead */

static const char *
at(const char *fmt, const char *rest)
{
	static char	 buf[4][PATH_MAX];
	static int	 n;

	n = (n + 1) % 4;
	(void)snprintf(buf[n], sizeof(buf[n]), fmt, top, rest);
	return (buf[n]);
}

static int
setup(void **state)
{
	(void)strlcpy(top, "/tmp/vol-unit.XXXXXX", sizeof(top));
	if (mkdtemp(top) == NULL)
		return (-1);
	(void)snprintf(root, sizeof(root), "%s/root", top);
	(void)snprintf(out, sizeof(out), "%s/out", top);
	if (mkdir(root, 0755) == -1 || mkdir(out, 0755) == -1)
		return (-1);
	return (0);
}

static int
teardown(void **state)
{
	char	 cmd[PATH_MAX + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return (system(cmd) == 0 ? 0 : -1);
}

static int
make(const char *wl, const char *name, char *why, size_t len)
{
	why[0] = '\0';
	return (voldir_make(root, "i", wl, name, geteuid(), geteuid(), why, len));
}

static void
test_made(void **state)
{
	struct stat	 st;
	char		 why[256];

	assert_int_equal(make("w", "data", why, sizeof(why)), 0);
	assert_int_equal(lstat(at("%s/root/i/%s", "w"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(lstat(at("%s/root/i/%s", "w/data"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	/* again: found as it must be */
	assert_int_equal(make("w", "data", why, sizeof(why)), 0);
	assert_int_equal(make("w", "other", why, sizeof(why)), 0);
}

/* a link at ROOT/NAME, to a directory or to nothing: refused, none made */
static void
test_link_at_name(void **state)
{
	char	 why[256];

	assert_int_equal(symlink(out, at("%s/root/i/%s", "lw")), 0);
	assert_int_equal(make("lw", "data", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(access(at("%s/out/%s", "data"), F_OK), -1);
	assert_int_equal(symlink(at("%s/%s", "nowhere"),
	    at("%s/root/i/%s", "dw")), 0);
	assert_int_equal(make("dw", "data", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(access(at("%s/%s", "nowhere"), F_OK), -1);
}

/* a link or a file at ROOT/NAME/SOURCE */
static void
test_link_at_source(void **state)
{
	char	 why[256];
	FILE	*f;

	assert_int_equal(make("s", "data", why, sizeof(why)), 0);
	assert_int_equal(symlink("/", at("%s/root/i/%s", "s/x")), 0);
	assert_int_equal(make("s", "x", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_non_null(f = fopen(at("%s/root/i/%s", "s/f"), "w"));
	fclose(f);
	assert_int_equal(make("s", "f", why, sizeof(why)), -1);
}

/* a link above ROOT, or ROOT a link */
static void
test_link_above(void **state)
{
	char	 why[256];

	assert_int_equal(symlink(root, at("%s/%s", "rootlink")), 0);
	assert_int_equal(voldir_make(at("%s/%s", "rootlink"), "i", "w", "data",
	    geteuid(), geteuid(), why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(symlink(top, at("%s/%s", "toplink")), 0);
	assert_int_equal(voldir_make(at("%s/%s", "toplink/root"), "i", "w",
	    "data", geteuid(), geteuid(), why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(voldir_make(at("%s/%s", "missing"), "i", "w", "data",
	    geteuid(), geteuid(), why, sizeof(why)), -1);
}

/* what others may write: ROOT, ROOT/NAME; a root of another owner */
static void
test_writable(void **state)
{
	char	 why[256];

	assert_int_equal(chmod(root, 0775), 0);
	assert_int_equal(make("g", "data", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "writable"));
	assert_int_equal(chmod(root, 0755), 0);
	assert_int_equal(make("g", "data", why, sizeof(why)), 0);
	assert_int_equal(chmod(at("%s/root/i/%s", "g"), 0777), 0);
	assert_int_equal(make("g", "data", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "writable"));
	if (geteuid() != 0)
		return;
	assert_int_equal(chmod(at("%s/root/i/%s", "g"), 0755), 0);
	assert_int_equal(chown(root, 12345, 12345), 0);
	assert_int_equal(make("h", "data", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "belongs to uid 12345"));
	assert_int_equal(chown(root, 0, 0), 0);
}

/* as root, the source is the workload's */
static void
test_owner(void **state)
{
	struct stat	 st;
	char		 why[256];

	if (geteuid() != 0)
		skip();
	assert_int_equal(voldir_make(root, "i", "o", "data", 0, 61999, why,
	    sizeof(why)), 0);
	assert_int_equal(lstat(at("%s/root/i/%s", "o/data"), &st), 0);
	assert_int_equal(st.st_uid, 61999);
	assert_int_equal(st.st_gid, 61999);
	assert_int_equal(lstat(at("%s/root/i/%s", "o"), &st), 0);
	assert_int_equal(st.st_uid, 0);
}

static void
test_names(void **state)
{
	char	 why[256];

	assert_int_equal(make("n", "..", why, sizeof(why)), -1);
	assert_int_equal(make("n", ".", why, sizeof(why)), -1);
	assert_int_equal(make("n", "a/b", why, sizeof(why)), -1);
	assert_int_equal(make("n", "", why, sizeof(why)), -1);
	assert_int_equal(make("../n", "a", why, sizeof(why)), -1);
	assert_int_equal(make("", "a", why, sizeof(why)), -1);
	assert_int_equal(access(at("%s/%s", "a"), F_OK), -1);
}

/* orchd.conf's volumes, where they lead now */
static void
test_at_use(void **state)
{
	char	 why[512];

	assert_int_equal(mkdir(at("%s/%s", "plain"), 0755), 0);
	assert_int_equal(hostpath_at_use(at("%s/%s", "plain"), NULL, why,
	    sizeof(why)), 0);
	assert_int_equal(hostpath_at_use(at("%s/%s", "plain/new/sub"), NULL,
	    why, sizeof(why)), 0);
	assert_int_equal(symlink("/etc", at("%s/%s", "etc")), 0);
	assert_int_equal(hostpath_at_use(at("%s/%s", "etc"), NULL, why,
	    sizeof(why)), -1);
	assert_non_null(strstr(why, "/etc"));
	/* not there: where its deepest existing part leads */
	assert_int_equal(hostpath_at_use(at("%s/%s", "etc/new/sub"), NULL,
	    why, sizeof(why)), -1);
	assert_non_null(strstr(why, "/etc"));
	assert_int_equal(symlink("/", at("%s/%s", "slash")), 0);
	assert_int_equal(hostpath_at_use(at("%s/%s", "slash"), NULL, why,
	    sizeof(why)), -1);
	assert_int_equal(hostpath_at_use("relative", NULL, why, sizeof(why)),
	    -1);
}

/* ROOT/INSTANCE: a link there refused; two instances kept apart */
static void
test_instances(void **state)
{
	char	 why[256];

	assert_int_equal(symlink(out, at("%s/root/%s", "li")), 0);
	assert_int_equal(voldir_make(root, "li", "w", "data", geteuid(),
	    geteuid(), why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(access(at("%s/out/%s", "w"), F_OK), -1);
	assert_int_equal(voldir_make(root, "j", "w", "data", geteuid(),
	    geteuid(), why, sizeof(why)), 0);
	assert_int_equal(access(at("%s/root/j/%s", "w/data"), F_OK), 0);
	assert_int_equal(access(at("%s/root/i/%s", "w/data"), F_OK), 0);
	assert_int_equal(voldir_make(root, "..", "w", "data", geteuid(),
	    geteuid(), why, sizeof(why)), -1);
	assert_int_equal(voldir_make(root, "a/b", "w", "data", geteuid(),
	    geteuid(), why, sizeof(why)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_link_at_name),
		cmocka_unit_test(test_link_at_source),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_link_above),
		cmocka_unit_test(test_writable),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_at_use),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
