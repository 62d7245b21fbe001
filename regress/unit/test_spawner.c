/*
 * The spawner's own check of a request to start a process workload
 * (spawnerd/check.c), fed forged requests, as a parent taken over could
 * send them: a workload as root, in group root, as the daemons' uid or
 * gid or in their group, a change of user the spawner cannot make or
 * one it must, counts out of bounds, strings that do not end, bytes
 * after the directory, a relative directory, a variable without '=',
 * descriptors out of step.  Each is refused with its reason; a good one
 * passes with its words, variables and directory found.
 */

#include <sys/types.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../spawnerd/spawner.h"

#define DAEMON_UID	990
#define DAEMON_GID	991

struct msg {
	char		 buf[8192];
	size_t		 len;
	struct sp_exec	 hdr;
};

static const struct sp_ids	 ids = { DAEMON_UID, DAEMON_GID, 1 };

/* a good request: "/bin/echo hi", PATH=..., in /srv; then forge it */
static void
good(struct msg *m)
{
	memset(m, 0, sizeof(*m));
	strlcpy(m->hdr.name, "web", sizeof(m->hdr.name));
	strlcpy(m->hdr.user, "www", sizeof(m->hdr.user));
	m->hdr.uid = 2000;
	m->hdr.gid = 2000;
	m->hdr.root = 1;
	m->hdr.ngroups = 1;
	m->hdr.groups[0] = 2001;
	m->hdr.argc = 2;
	m->hdr.nenv = 1;
	m->hdr.nfds = 1;
}

/* the header, then the strings given, each with its NUL */
static void
pack(struct msg *m, const char *const *s, int n)
{
	int	 i;

	memcpy(m->buf, &m->hdr, sizeof(m->hdr));
	m->len = sizeof(m->hdr);
	for (i = 0; i < n; i++) {
		memcpy(m->buf + m->len, s[i], strlen(s[i]) + 1);
		m->len += strlen(s[i]) + 1;
	}
}

static const char *const good_strings[] = {
	"/bin/echo", "hi", "PATH=/bin", "/srv"
};

static int
check(struct msg *m, int nfds, char *why, size_t len)
{
	struct sp_req	 r;

	why[0] = '\0';
	return (sp_check(&ids, m->buf, m->len, nfds, &r, why, len));
}

static void
test_good(void **state)
{
	struct msg	 m;
	struct sp_req	 r;
	char		 why[128];

	good(&m);
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&ids, m.buf, m.len, 1, &r, why,
	    sizeof(why)), 0);
	assert_string_equal(r.argv[0], "/bin/echo");
	assert_string_equal(r.argv[1], "hi");
	assert_null(r.argv[2]);
	assert_string_equal(r.envp[0], "PATH=/bin");
	assert_null(r.envp[1]);
	assert_string_equal(r.dir, "/srv");
}

/* forge one field of a good request: refused, and why */
static void
refused(struct msg *m, int nfds, const char *want)
{
	char	 why[128];

	assert_int_equal(check(m, nfds, why, sizeof(why)), -1);
	if (strstr(why, want) == NULL)
		fail_msg("refused for \"%s\", not \"%s\"", why, want);
}

static void
test_ids(void **state)
{
	struct msg	 m;

	good(&m);
	m.hdr.uid = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "uid or gid 0");
	good(&m);
	m.hdr.gid = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "uid or gid 0");
	good(&m);
	m.hdr.uid = DAEMON_UID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' uid or gid");
	good(&m);
	m.hdr.gid = DAEMON_GID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' uid or gid");
	good(&m);
	m.hdr.groups[0] = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "group root");
	good(&m);
	m.hdr.ngroups = 2;
	m.hdr.groups[1] = DAEMON_GID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' group");
	/* as root, no change of user would run the workload as root */
	good(&m);
	m.hdr.root = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "root's");
}

static void
test_not_root(void **state)
{
	struct sp_ids	 me = { 1000, 1000, 0 };
	struct msg	 m;
	struct sp_req	 r;
	char		 why[128];

	/* not root: the workload runs as we do, never a change of user */
	good(&m);
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&me, m.buf, m.len, 1, &r, why,
	    sizeof(why)), -1);
	good(&m);
	m.hdr.root = 0;
	m.hdr.uid = 0;
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&me, m.buf, m.len, 1, &r, why,
	    sizeof(why)), 0);
}

static void
test_bounds(void **state)
{
	struct msg	 m;

	good(&m);
	m.hdr.argc = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "words");
	good(&m);
	m.hdr.argc = SP_ARGV_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "words");
	good(&m);
	m.hdr.nenv = -1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "variables");
	good(&m);
	m.hdr.nenv = SP_ENV_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "variables");
	good(&m);
	m.hdr.ngroups = SP_GROUPS_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "groups");
	good(&m);
	pack(&m, good_strings, 4);
	refused(&m, 2, "descriptors");
	good(&m);
	m.hdr.nfds = 2;
	m.hdr.cgdir = 1;
	pack(&m, good_strings, 4);
	refused(&m, 2, "cgroup directory");
	good(&m);
	m.hdr.nfds = SP_FDS + 1;
	pack(&m, good_strings, 4);
	refused(&m, SP_FDS + 1, "descriptors");
}

static void
test_strings(void **state)
{
	static const char *const relative[] = {
		"/bin/echo", "hi", "PATH=/bin", "srv"
	};
	static const char *const noeq[] = {
		"/bin/echo", "hi", "PATH", "/srv"
	};
	static const char *const empty[] = {
		"", "hi", "PATH=/bin", "/srv"
	};
	struct msg	 m;
	char		 why[128];

	good(&m);
	pack(&m, relative, 4);
	refused(&m, 1, "not absolute");
	good(&m);
	pack(&m, noeq, 4);
	refused(&m, 1, "NAME=value");
	good(&m);
	pack(&m, empty, 4);
	refused(&m, 1, "empty command");
	/* the directory's NUL cut off: it does not end */
	good(&m);
	pack(&m, good_strings, 4);
	m.len--;
	refused(&m, 1, "not ended");
	/* one string short: the directory is missing */
	good(&m);
	pack(&m, good_strings, 3);
	refused(&m, 1, "not ended");
	/* bytes after the directory */
	good(&m);
	pack(&m, good_strings, 4);
	m.buf[m.len++] = 'x';
	refused(&m, 1, "after the directory");
	/* shorter than a header */
	good(&m);
	m.len = 10;
	assert_int_equal(check(&m, 1, why, sizeof(why)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_strings),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
