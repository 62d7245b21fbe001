/*
 * A table of strings to pointers (common/hashtab.c): open addressing,
 * for the places that look names up among thousands, such as the
 * configuration's workloads and hosts.  The keys are the caller's and
 * must outlive the table; a table compares them with or without case.
 */

#ifndef ORCHD_HASHTAB_H
#define ORCHD_HASHTAB_H

#include <stddef.h>

struct hashtab_slot;

struct hashtab {
	struct hashtab_slot	*slots;
	size_t			 size;		/* a power of two, or 0 */
	size_t			 count;
	int			 nocase;	/* keys compared without case */
};

#define HASHTAB_INITIALIZER(nocase)	{ NULL, 0, 0, (nocase) }

const void	*hashtab_find(const struct hashtab *, const char *);
int		 hashtab_add(struct hashtab *, const char *, const void *);
void		 hashtab_clear(struct hashtab *);

#endif /* ORCHD_HASHTAB_H */
