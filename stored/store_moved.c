/*
 * The database removed or replaced under the store (issue 30).
 *
 * sqlite goes on writing to an open file that is no longer at its path,
 * without a word, and everything in it is gone once the store closes it:
 * after a restart the history would be lost.  The store looks before its
 * writes and every few seconds (store.c), and when the file at the path
 * is not the one it opened, it writes what the open file holds, whole,
 * into a new file at the path and goes on with that one.  The open file
 * is the only complete copy left, and it is still readable, so this
 * loses nothing; stopping instead would lose all of it at once.
 *
 * A file put in its place is the operator's and is kept, renamed to
 * "<path>.replaced" (with its -wal and -shm, if any).  A copy that fails
 * (its directory removed, its disk full) is logged and tried again 5 s
 * later at the earliest; the writes meanwhile go on into the open file.
 */

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "store_db.h"
#include "store_moved.h"
#include "timer.h"

/* after a copy that failed: the next try, not before every write */
int64_t		 store_moved_retry_ms = 5000;

static const char *const moved_suffixes[] = { "-wal", "-shm" };

/* path + suffix into buf; -1 when it does not fit */
static int
moved_name(char *buf, size_t len, const char *path, const char *suffix)
{
	if ((size_t)snprintf(buf, len, "%s%s", path, suffix) >= len)
		return (-1);
	return (0);
}

/*
 * What is left at the path once the open file is closed: a file put
 * there is set aside whole; a write-ahead log or index left there is of
 * the old file (gone) or of the one set aside, never of the new one,
 * and would be applied to it.
 */
static int
moved_aside(const char *path, const char *name, int replaced)
{
	char	 from[PATH_MAX], to[PATH_MAX];
	size_t	 i;

	if (replaced) {
		if (moved_name(to, sizeof(to), path, ".replaced") == -1)
			return (-1);
		if (rename(path, to) == -1 && errno != ENOENT) {
			log_warn("database %s: rename to %s.replaced", name,
			    name);
			return (-1);
		}
		log_warnx("database %s: the file found in its place is kept "
		    "as %s.replaced", name, name);
	}
	for (i = 0; i < sizeof(moved_suffixes) / sizeof(moved_suffixes[0]);
	    i++) {
		if (moved_name(from, sizeof(from), path,
		    moved_suffixes[i]) == -1 ||
		    moved_name(to, sizeof(to), path, ".replaced") == -1 ||
		    strlcat(to, moved_suffixes[i], sizeof(to)) >= sizeof(to))
			return (-1);
		if (replaced ? rename(from, to) : unlink(from)) {
			if (errno == ENOENT)
				continue;
			log_warn("database %s%s", name, moved_suffixes[i]);
			return (-1);
		}
	}
	return (0);
}

/*
 * The look: nothing when the file at path is the one open.  Else the
 * copy, the open file closed, the new one opened in its place.  *sdbp
 * is never left NULL: a new file that cannot be opened stops the store.
 */
void
store_moved_check(struct store_db **sdbp, const char *path,
    const char *name, const char *when)
{
	static int		 failed;
	static int64_t		 failed_ms;
	enum store_db_where	 where;
	struct store_db		*sdb;
	char			 tmp[PATH_MAX], err[512];

	if ((where = store_db_moved(*sdbp)) == STORE_DB_HERE ||
	    where == STORE_DB_UNKNOWN)
		return;
	if (failed && monotime_ms() - failed_ms < store_moved_retry_ms)
		return;
	if (!failed)
		log_warnx("database %s was %s while orchd ran (seen at %s): "
		    "writing it again from the open file", name,
		    where == STORE_DB_GONE ? "removed" : "replaced by another "
		    "file", when);
	if (moved_name(tmp, sizeof(tmp), path, ".new") == -1)
		fatalx("database %s: path too long", name);
	(void)unlink(tmp);
	if (store_db_copy(*sdbp, tmp, err, sizeof(err)) == -1) {
		log_warnx("database %s was %s and cannot be written again "
		    "(%s): writes go on into the open file, lost if orchd "
		    "stops; tried again in a few seconds", name,
		    where == STORE_DB_GONE ? "removed" : "replaced", err);
		failed = 1;
		failed_ms = monotime_ms();
		return;
	}
	store_db_close(*sdbp);
	*sdbp = NULL;
	if (moved_aside(path, name, where == STORE_DB_REPLACED) == -1 ||
	    rename(tmp, path) == -1)
		fatalx("database %s: the copy of the open file is %s.new, "
		    "and cannot be put in place (%s): stopping", name, name,
		    strerror(errno));
	if ((sdb = store_db_open(path, err, sizeof(err))) == NULL)
		fatalx("database %s written again, and cannot be opened: %s",
		    name, err);
	*sdbp = sdb;
	failed = 0;
	log_warnx("database %s written again: a new file holding "
	    "everything the open one did", name);
}
