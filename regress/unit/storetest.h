/*
 * What the store's unit tests share (regress/unit/storetest.c): a fresh
 * directory for a database, set up and torn down around each test; a
 * workload to sync; a database opened or the test failed; one integer
 * read through a connection of the test's own; the collectors of the
 * store's answers.  Include after cmocka.h.
 */

#ifndef ORCHD_STORETEST_H
#define ORCHD_STORETEST_H

#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>

#include "msg.h"
#include "workload.h"
#include "../../stored/store_db.h"

#define T0		1700000000000LL	/* ms: the tests' epoch */

struct fixture {
	char		 dir[64];
	char		 path[PATH_MAX];
	struct workloadlist wls;
};

struct collect {
	struct ctl_workload	 wl[8];
	struct ctl_transition	 tr[STORE_HISTORY_MAX + 1];
	struct ctl_stats	 cs[8];
	int			 n;
};

int		 setup(void **);
int		 teardown(void **);
void		 wls_clear(struct workloadlist *);
struct workload_conf *wl_add(struct workloadlist *, const char *, int64_t,
		    enum workload_source);
struct store_db	*db_open(const char *);
int64_t		 raw_int(const char *, const char *);
int		 collect_workload(const struct ctl_workload *, void *);
int		 collect_history(const struct ctl_transition *, void *);
int		 collect_stats(const struct ctl_stats *, void *);

#endif /* ORCHD_STORETEST_H */
