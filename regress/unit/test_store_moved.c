/*
 * The database removed or replaced under the store (stored/store_moved.c):
 * the change is seen by device and inode, the open file is written whole
 * into a new one at the path, writes made after the removal included, and
 * a file put in its place is kept as <path>.replaced, unchanged.
 */

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>

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
#include "msg.h"
#include "workload.h"
#include "../../stored/store_db.h"
#include "../../stored/store_moved.h"
#include "storetest.h"

/* the uid rows: one a name, as the store writes them */
static void
put_uid(struct store_db *sdb, const char *name, uint32_t uid)
{
	assert_int_equal(store_db_uid_put(sdb, name, uid), 0);
}

static void
rm_db(const char *path)
{
	char	 f[PATH_MAX];

	assert_int_equal(unlink(path), 0);
	snprintf(f, sizeof(f), "%s-wal", path);
	(void)unlink(f);
	snprintf(f, sizeof(f), "%s-shm", path);
	(void)unlink(f);
}

static void
test_here(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;

	sdb = db_open(f->path);
	assert_int_equal(store_db_moved(sdb), STORE_DB_HERE);
	/* nothing to do: the same connection stays */
	store_moved_check(&sdb, f->path, "test", "test");
	assert_int_equal(store_db_moved(sdb), STORE_DB_HERE);
	store_db_close(sdb);
}

static void
test_gone_written_again(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb, *old;
	struct stat	 sb;

	sdb = db_open(f->path);
	put_uid(sdb, "a", 1001);
	rm_db(f->path);
	assert_int_equal(store_db_moved(sdb), STORE_DB_GONE);
	/* sqlite takes this without a word: the reason for the check */
	put_uid(sdb, "b", 1002);
	old = sdb;
	/* the store's, from its start (store.c) */
	(void)umask(077);
	store_moved_check(&sdb, f->path, "test", "test");
	assert_non_null(sdb);
	assert_ptr_not_equal(sdb, old);
	assert_int_equal(store_db_moved(sdb), STORE_DB_HERE);
	assert_int_equal(stat(f->path, &sb), 0);
	/* the store's alone, as at start */
	assert_int_equal(sb.st_mode & 077, 0);
	put_uid(sdb, "c", 1003);
	store_db_close(sdb);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM identities"),
	    3);
	assert_int_equal(raw_int(f->path,
	    "SELECT count(*) FROM pragma_integrity_check WHERE "
	    "integrity_check = 'ok'"), 1);
}

static void
test_replaced_kept(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb;
	char		 other[PATH_MAX], kept[PATH_MAX + 16], buf[64];
	FILE		*fp;

	sdb = db_open(f->path);
	put_uid(sdb, "a", 1001);
	snprintf(other, sizeof(other), "%s/other", f->dir);
	assert_non_null(fp = fopen(other, "w"));
	fputs("somebody's file\n", fp);
	fclose(fp);
	assert_int_equal(rename(other, f->path), 0);
	assert_int_equal(store_db_moved(sdb), STORE_DB_REPLACED);
	store_moved_check(&sdb, f->path, "test", "test");
	assert_int_equal(store_db_moved(sdb), STORE_DB_HERE);
	store_db_close(sdb);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM identities"),
	    1);
	snprintf(kept, sizeof(kept), "%s.replaced", f->path);
	assert_non_null(fp = fopen(kept, "r"));
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "somebody's file\n");
}

/* a copy that cannot be made leaves the open file in use, for later */
static void
test_copy_fails_kept_open(void **state)
{
	struct fixture	*f = *state;
	struct store_db	*sdb, *old;
	char		 tmp[PATH_MAX + 8];

	sdb = db_open(f->path);
	put_uid(sdb, "a", 1001);
	rm_db(f->path);
	/* a directory where the copy would be made */
	snprintf(tmp, sizeof(tmp), "%s.new", f->path);
	assert_int_equal(mkdir(tmp, 0700), 0);
	old = sdb;
	store_moved_check(&sdb, f->path, "test", "test");
	assert_ptr_equal(sdb, old);
	assert_int_equal(store_db_moved(sdb), STORE_DB_GONE);
	put_uid(sdb, "b", 1002);
	assert_int_equal(rmdir(tmp), 0);
	/* not before the retry's time: at once, here */
	store_moved_check(&sdb, f->path, "test", "test");
	assert_ptr_equal(sdb, old);
	store_moved_retry_ms = 0;
	store_moved_check(&sdb, f->path, "test", "test");
	assert_int_equal(store_db_moved(sdb), STORE_DB_HERE);
	store_db_close(sdb);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM identities"),
	    2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_here, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_written_again,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_kept, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_copy_fails_kept_open,
		    setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
