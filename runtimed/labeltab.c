/*
 * "docker labels on": the labelled containers runtimed follows, by id,
 * with the workload name each was told to the parent under (labels.c).
 * Apart, and calling nothing, so that the docker driver asks it too
 * (labeltab_judged): a labelled workload's container is started or
 * adopted only if it is the very container the parent judged, not one
 * made since under its name while the events stream was down.
 */

#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "workload.h"
#include "docker.h"

static struct label_seen	 labeltab[LABELTAB_MAX];

struct label_seen *
labeltab_find(const char *id)
{
	size_t	 i;

	for (i = 0; i < nitems(labeltab); i++)
		if (labeltab[i].id[0] != '\0' &&
		    strcmp(labeltab[i].id, id) == 0)
			return (&labeltab[i]);
	return (NULL);
}

/* a container not followed yet; NULL if the table is full */
struct label_seen *
labeltab_new(const char *id)
{
	size_t	 i;

	if (strlen(id) >= sizeof(labeltab[0].id))
		return (NULL);
	for (i = 0; i < nitems(labeltab); i++)
		if (labeltab[i].id[0] == '\0') {
			memset(&labeltab[i], 0, sizeof(labeltab[i]));
			(void)strlcpy(labeltab[i].id, id,
			    sizeof(labeltab[i].id));
			return (&labeltab[i]);
		}
	return (NULL);
}

void
labeltab_drop(struct label_seen *ls)
{
	memset(ls, 0, sizeof(*ls));
}

void
labeltab_clear(void)
{
	memset(labeltab, 0, sizeof(labeltab));
}

/* is id the container told to the parent as workload name?  1 if so */
int
labeltab_judged(const char *name, const char *id)
{
	size_t	 i;

	for (i = 0; i < nitems(labeltab); i++)
		if (labeltab[i].sent && strcmp(labeltab[i].name, name) == 0)
			return (strcmp(labeltab[i].id, id) == 0);
	return (0);
}
