/*
 * "docker labels on": what runtimed saw of each labelled container whose
 * workload lives (struct rt_label: what its HostConfig asks that no field
 * says, and its uid), kept by the parent so that policy.c judges the
 * container again, as it was seen, before each start (usecheck.c) and at
 * each reload.  Apart from labels.c so that the policy's tests link it
 * alone.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "parent.h"

struct label_facts {
	TAILQ_ENTRY(label_facts) entry;
	struct rt_label		 rl;
};
static TAILQ_HEAD(, label_facts) label_facts =
    TAILQ_HEAD_INITIALIZER(label_facts);

static struct label_facts *
labels_find(const char *name)
{
	struct label_facts	*lf;

	TAILQ_FOREACH(lf, &label_facts, entry)
		if (strcmp(lf->rl.name, name) == 0)
			return (lf);
	return (NULL);
}

/* what runtimed saw of the container of workload name, or NULL */
const struct rt_label *
labels_facts(const char *name)
{
	struct label_facts	*lf = labels_find(name);

	return (lf != NULL ? &lf->rl : NULL);
}

/* the workload of name is gone, or was refused: its facts go */
void
labels_forget(const char *name)
{
	struct label_facts	*lf;

	if ((lf = labels_find(name)) == NULL)
		return;
	TAILQ_REMOVE(&label_facts, lf, entry);
	free(lf);
}

int
labels_keep(const struct rt_label *rl)
{
	struct label_facts	*lf;

	if ((lf = labels_find(rl->name)) == NULL) {
		if ((lf = calloc(1, sizeof(*lf))) == NULL)
			return (-1);
		TAILQ_INSERT_TAIL(&label_facts, lf, entry);
	}
	lf->rl = *rl;
	return (0);
}

