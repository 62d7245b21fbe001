/*
 * After a restart the database holds each workload's state from before
 * it: running, say, for a process that died with orchd.  runtimed's
 * drivers compare that with what runs and then tell each workload's
 * state (runtimed/lifecycle.c, lifecycle_check_end()).  Until runtimed
 * has told a workload's state, orchctl's show workloads and show
 * workload answer "checking" for it rather than what the database
 * remembers.  Only names are kept, in memory: "checking" is never
 * written, and the history records what runtimed found.
 */

#include <sys/queue.h>
#include <sys/tree.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "util.h"
#include "workload.h"
#include "store_check.h"

/*
 * Names told before the first configuration: as many as one may name,
 * and more.  At the configuration, the bound becomes its workloads and
 * those: a fixed 65,536 left the rest of 100,000 showing the state the
 * database remembered (running, for a process that died with orchd).
 */
#define STORE_CHECK_EARLY	65536

struct check_name {
	RB_ENTRY(check_name)	 entry;
	int			 told;	/* before the restore: no check */
	char			 name[ORCHD_NAME_MAX];
};
RB_HEAD(check_names, check_name);

static int	check_cmp(struct check_name *, struct check_name *);
RB_PROTOTYPE(check_names, check_name, entry, check_cmp);
RB_GENERATE(check_names, check_name, entry, check_cmp);

static struct check_names	 check_names = RB_INITIALIZER(&check_names);
static size_t			 check_count;
static size_t			 check_max = STORE_CHECK_EARLY;
static int			 check_begun;

static int
check_cmp(struct check_name *a, struct check_name *b)
{
	return (strcmp(a->name, b->name));
}

static struct check_name *
check_find(const char *name)
{
	struct check_name	 key;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name))
		return (NULL);
	return (RB_FIND(check_names, &check_names, &key));
}

static void
check_add(const char *name, int told)
{
	struct check_name	*c;

	if (check_find(name) != NULL || check_count >= check_max)
		return;
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		log_warn("%s: workload %s", __func__, name);
		return;
	}
	if (strlcpy(c->name, name, sizeof(c->name)) >= sizeof(c->name)) {
		free(c);
		return;
	}
	c->told = told;
	RB_INSERT(check_names, &check_names, c);
	check_count++;
}

static void
check_remove(struct check_name *c)
{
	RB_REMOVE(check_names, &check_names, c);
	free(c);
	check_count--;
}

/*
 * The first configuration, read once at start: each name is checked, as
 * runtimed checks each until its driver's look or the restore's end
 * says (at a first start too, so that the store's answers and the
 * gateways' agree).
 */
void
store_check_begin(const struct cfg_generation *gen)
{
	const struct workload_conf	*wc;
	struct check_name		*c, *next;

	if (check_begun)
		return;
	check_begun = 1;
	check_max = check_count + gen->nworkloads;
	TAILQ_FOREACH(wc, &gen->workloads, entry)
		check_add(wc->name, 0);
	/* runtimed told these before the store was configured */
	RB_FOREACH_SAFE(c, check_names, &check_names, next)
		if (c->told)
			check_remove(c);
}

/* runtimed has told name's state: the database says what is true */
void
store_check_told(const char *name)
{
	struct check_name	*c;

	if (!check_begun) {
		check_add(name, 1);
		return;
	}
	if ((c = check_find(name)) != NULL) {
		check_remove(c);
		/* the last: the names and the states' messages go back */
		if (check_count == 0)
			heap_trim();
	}
}

/*
 * show workloads: "checking" for one runtimed has not told yet, and for
 * every one before the first configuration, which a question may beat
 */
void
store_check_overlay(struct ctl_workload *cw)
{
	struct check_name	*c;

	if (check_begun && check_count == 0)
		return;
	cw->name[sizeof(cw->name) - 1] = '\0';
	c = check_find(cw->name);
	if (check_begun ? c != NULL && !c->told : c == NULL || !c->told)
		cw->state = WL_CHECKING;
}
