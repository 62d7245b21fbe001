/*
 * What orchd reads to find the cgroups of process workloads: lines of
 * /proc/self/mountinfo and /proc/self/cgroup, and where a cgroup of
 * orchd's is in a hierarchy's mount.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../spawnerd/spawner.h"

static int
parse(const char *text, struct cg_mount *m)
{
	char	 line[1024];

	strlcpy(line, text, sizeof(line));
	memset(m, 0, sizeof(*m));
	return (cgroup_parse_mountinfo(line, m));
}

static void
test_mountinfo_v1(void **state)
{
	struct cg_mount	 m;

	assert_int_equal(parse("37 31 0:34 / /sys/fs/cgroup/freezer "
	    "rw,relatime - cgroup cgroup rw,freezer\n", &m), 0);
	assert_string_equal(m.fstype, "cgroup");
	assert_string_equal(m.point, "/sys/fs/cgroup/freezer");
	assert_string_equal(m.root, "/");
	assert_true(cgroup_has_word(m.opts, "freezer"));
	assert_false(cgroup_has_word(m.opts, "memory"));

	/* co-mounted, with optional fields before the separator */
	assert_int_equal(parse("35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct "
	    "rw,nosuid shared:9 master:2 - cgroup cgroup "
	    "rw,cpu,cpuacct", &m), 0);
	assert_string_equal(m.point, "/sys/fs/cgroup/cpu,cpuacct");
	assert_true(cgroup_has_word(m.opts, "cpu"));
	assert_true(cgroup_has_word(m.opts, "cpuacct"));
	assert_false(cgroup_has_word(m.opts, "cpuset"));
}

static void
test_mountinfo_v2(void **state)
{
	struct cg_mount	 m;

	assert_int_equal(parse("29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev "
	    "shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot",
	    &m), 0);
	assert_string_equal(m.fstype, "cgroup2");
	assert_string_equal(m.point, "/sys/fs/cgroup");
	/* a container's view: the mount's root is its own cgroup */
	assert_int_equal(parse("600 590 0:26 /docker/abc /sys/fs/cgroup "
	    "ro - cgroup2 cgroup2 rw", &m), 0);
	assert_string_equal(m.root, "/docker/abc");
}

static void
test_mountinfo_escapes_and_bad_lines(void **state)
{
	struct cg_mount	 m;

	assert_int_equal(parse("40 31 0:37 / /mnt/my\\040cg\\134x rw - "
	    "cgroup2 none rw", &m), 0);
	assert_string_equal(m.point, "/mnt/my cg\\x");
	assert_int_equal(parse("", &m), -1);
	assert_int_equal(parse("40 31 0:37 / /mnt rw", &m), -1);
	assert_int_equal(parse("40 31 0:37 / /mnt rw shared:1", &m), -1);
	assert_int_equal(parse("40 31 0:37 / /mnt rw - cgroup2", &m), -1);
}

static void
test_has_word(void **state)
{
	assert_true(cgroup_has_word("cpuset cpu io memory pids\n", "memory"));
	assert_true(cgroup_has_word("memory", "memory"));
	assert_false(cgroup_has_word("cpuset cpu io pids\n", "memory"));
	assert_false(cgroup_has_word("rw,memory_recursiveprot", "memory"));
	assert_false(cgroup_has_word("", "memory"));
}

static void
test_self(void **state)
{
	char	 path[256];

	assert_int_equal(cgroup_parse_self("4:memory:/process_api/x\n",
	    "memory", path, sizeof(path)), 0);
	assert_string_equal(path, "/process_api/x");
	assert_int_equal(cgroup_parse_self("3:cpu,cpuacct:/a\n", "cpuacct",
	    path, sizeof(path)), 0);
	assert_string_equal(path, "/a");
	assert_int_equal(cgroup_parse_self("6:freezer:/\n", "memory", path,
	    sizeof(path)), -1);
	assert_int_equal(cgroup_parse_self("0::/user.slice/u.scope\n", NULL,
	    path, sizeof(path)), 0);
	assert_string_equal(path, "/user.slice/u.scope");
	assert_int_equal(cgroup_parse_self("6:freezer:/\n", NULL, path,
	    sizeof(path)), -1);
	assert_int_equal(cgroup_parse_self("garbage", "memory", path,
	    sizeof(path)), -1);
	assert_int_equal(cgroup_parse_self("4:memory:/a/long/path", "memory",
	    path, 8), -1);
}

static void
test_join_path(void **state)
{
	char	 buf[256];

	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/sys/fs/cgroup/"
	    "memory", "/", "/process_api/x"), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/memory/process_api/x");
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/sys/fs/cgroup/"
	    "freezer", "/", "/"), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/freezer");
	/* mounted from below the root: the path less that root */
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/cg", "/docker",
	    "/docker/abc"), 0);
	assert_string_equal(buf, "/cg/abc");
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/cg", "/docker",
	    "/docker"), 0);
	assert_string_equal(buf, "/cg");
	/* outside it, or only sharing a prefix: the mount point */
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/cg", "/docker",
	    "/dockerx/abc"), 0);
	assert_string_equal(buf, "/cg");
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/cg", "/docker",
	    "/../abc"), 0);
	assert_string_equal(buf, "/cg");
	assert_int_equal(cgroup_join_path(buf, sizeof(buf), "/cg", "/",
	    "/../../x"), 0);
	assert_string_equal(buf, "/cg");
	assert_int_equal(cgroup_join_path(buf, 8, "/sys/fs/cgroup", "/",
	    "/a"), -1);
}

/* v2's memory.events and v1's memory.oom_control: the oom_kill line */
static void
test_oom_kill(void **state)
{
	assert_int_equal(cgroup_parse_oom_kill("low 0\nhigh 0\nmax 12\n"
	    "oom 3\noom_kill 2\noom_group_kill 0\n"), 2);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill_disable 0\n"
	    "under_oom 0\noom_kill 7\n"), 7);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill 0"), 0);
	/* not the group kills, nor a name that begins alike */
	assert_int_equal(cgroup_parse_oom_kill("oom_group_kill 4\n"), -1);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill_disable 0\n"
	    "under_oom 0\n"), -1);
	assert_int_equal(cgroup_parse_oom_kill(""), -1);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill \n"), -1);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill -1\n"), -1);
	assert_int_equal(cgroup_parse_oom_kill("oom_kill 12345678901234567890"
	    "123\n"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo_v1),
		cmocka_unit_test(test_mountinfo_v2),
		cmocka_unit_test(test_mountinfo_escapes_and_bad_lines),
		cmocka_unit_test(test_has_word),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_join_path),
		cmocka_unit_test(test_oom_kill),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
