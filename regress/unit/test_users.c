/*
 * orchd/users.c as make STATIC=1 builds it: users and groups read from
 * /etc/passwd and /etc/group, compared with what the name service (the
 * normal build's way) answers for the same names.  The file is included
 * with ORCHD_STATIC defined, so that this test of the static code runs in
 * the sanitizer build, which is never static.
 */

#ifndef ORCHD_STATIC
#define ORCHD_STATIC
#endif
#include "../../common/users.c"

#include <sys/types.h>

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* the users of /etc/passwd: each found by name and by uid, as by NSS */
static void
test_passwd(void **state)
{
	struct passwd	*pw, nss;
	FILE		*fp;
	char		 name[64], dir[PATH_MAX];
	int		 n = 0;

	assert_non_null((fp = fopen("/etc/passwd", "re")));
	while ((pw = fgetpwent(fp)) != NULL && n < 1000) {
		nss = *pw;
		strlcpy(name, pw->pw_name, sizeof(name));
		strlcpy(dir, pw->pw_dir, sizeof(dir));
		nss.pw_name = name;
		nss.pw_dir = dir;
		pw = users_getpwnam(name);
		assert_non_null(pw);
		assert_int_equal(pw->pw_uid, nss.pw_uid);
		assert_int_equal(pw->pw_gid, nss.pw_gid);
		assert_string_equal(pw->pw_dir, dir);
		pw = getpwnam(name);
		assert_non_null(pw);
		assert_int_equal(pw->pw_uid, nss.pw_uid);
		n++;
	}
	fclose(fp);
	assert_true(n > 0);

	pw = users_getpwuid(0);
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, "root");
	pw = users_getpwnam("root");
	assert_non_null(pw);
	assert_int_equal(pw->pw_uid, 0);
}

/* a name /etc/passwd does not have: NULL, where static NSS crashed */
static void
test_missing(void **state)
{
	assert_null(users_getpwnam("orchd-no-such-user"));
	assert_null(users_getpwnam(""));
	assert_null(users_getgrnam("orchd-no-such-group"));
	assert_null(users_getpwuid((uid_t)4000000000U));
}

static void
test_groups(void **state)
{
	struct group	*gr;
	struct passwd	*pw;
	gid_t		 mine[64], nss[64], one[1];
	int		 nmine, nnss, n, i, j;

	gr = users_getgrnam("root");
	assert_non_null(gr);
	assert_int_equal(gr->gr_gid, 0);

	/* every user's list: the same set as getgrouplist(3)'s */
	setpwent();
	while ((pw = getpwent()) != NULL) {
		nmine = nnss = 64;
		if (users_getgrouplist(pw->pw_name, pw->pw_gid, mine,
		    &nmine) == -1 || getgrouplist(pw->pw_name, pw->pw_gid,
		    nss, &nnss) == -1)
			continue;
		assert_int_equal(nmine, nnss);
		assert_int_equal(mine[0], pw->pw_gid);
		for (i = 0; i < nmine; i++) {
			for (j = 0; j < nnss; j++)
				if (mine[i] == nss[j])
					break;
			assert_true(j < nnss);
		}
	}
	endpwent();

	/* too small a list: -1, and the size it needs */
	n = 0;
	assert_int_equal(users_getgrouplist("root", 0, one, &n), -1);
	assert_true(n >= 1);
	n = 1;
	assert_true(users_getgrouplist("root", 0, one, &n) >= -1);
	assert_int_equal(one[0], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passwd),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_groups),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
