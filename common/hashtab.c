/*
 * A table of strings to pointers, for lookups that a walk of a list
 * would make quadratic: orchd.conf may name 10,000 workloads, and each
 * one's name and hosts are checked against all before it.
 *
 * Open addressing with linear probing, at most half full, FNV-1a over
 * the key (folded to lower case for a table without case).  The slots
 * live in a mapping of their own, so that a table that grows leaves no
 * holes in the heap among what it indexes, and goes back whole when it
 * is cleared.  The table never copies a key.  Each slot keeps its key's
 * hash: a probe compares the key only when the hashes agree, and a table
 * that grows hashes nothing again (at 100,000 workloads, the compares
 * of other keys were a tenth of confd's parse).
 */

#include <sys/types.h>
#include <sys/mman.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "hashtab.h"

#define HASHTAB_MIN	256		/* slots: 6 KiB */

struct hashtab_slot {
	const char	*key;		/* NULL: empty */
	const void	*value;
	uint64_t	 hash;
};

/* ASCII's case only, as strcasecmp(3) in the C locale */
static uint64_t
hashtab_hash(const struct hashtab *t, const char *key)
{
	uint64_t	 h = 14695981039346656037ULL;
	unsigned char	 c;

	while ((c = *key++) != '\0') {
		if (t->nocase && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		h ^= c;
		h *= 1099511628211ULL;
	}
	return (h);
}

/* the slot of key (of hash h) in slots, or the empty one where it goes */
static struct hashtab_slot *
hashtab_slot(const struct hashtab *t, struct hashtab_slot *slots,
    size_t size, const char *key, uint64_t h)
{
	size_t	 i;

	for (i = h & (size - 1); slots[i].key != NULL;
	    i = (i + 1) & (size - 1))
		if (slots[i].hash == h && (t->nocase ?
		    strcasecmp(slots[i].key, key) : strcmp(slots[i].key,
		    key)) == 0)
			break;
	return (&slots[i]);
}

const void *
hashtab_find(const struct hashtab *t, const char *key)
{
	const struct hashtab_slot	*s;

	if (t->size == 0)
		return (NULL);
	s = hashtab_slot(t, t->slots, t->size, key, hashtab_hash(t, key));
	return (s->key != NULL ? s->value : NULL);
}

static int
hashtab_grow(struct hashtab *t)
{
	struct hashtab_slot	*slots;
	size_t			 size, count, i, j;

	size = t->size == 0 ? HASHTAB_MIN : t->size * 2;
	if (size > SIZE_MAX / 2 / sizeof(*slots)) {
		errno = ENOMEM;
		return (-1);
	}
	slots = mmap(NULL, size * sizeof(*slots), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		return (-1);
	/* the keys differ: each goes to the first empty slot of its probe */
	for (i = 0; i < t->size; i++) {
		if (t->slots[i].key == NULL)
			continue;
		for (j = t->slots[i].hash & (size - 1); slots[j].key != NULL;
		    j = (j + 1) & (size - 1))
			;
		slots[j] = t->slots[i];
	}
	count = t->count;
	hashtab_clear(t);
	t->slots = slots;
	t->size = size;
	t->count = count;
	return (0);
}

/*
 * 0: added; 1: the key was there, and keeps its first value (a clash is
 * the caller's to report); -1: no memory, errno set.
 */
int
hashtab_add(struct hashtab *t, const char *key, const void *value)
{
	struct hashtab_slot	*s;
	uint64_t		 h;

	/* at most half full, so that a probe is short */
	if ((t->count + 1) * 2 > t->size && hashtab_grow(t) == -1)
		return (-1);
	h = hashtab_hash(t, key);
	s = hashtab_slot(t, t->slots, t->size, key, h);
	if (s->key != NULL)
		return (1);
	s->key = key;
	s->value = value;
	s->hash = h;
	t->count++;
	return (0);
}

void
hashtab_clear(struct hashtab *t)
{
	/* munmap fails only on a bad range: the table's own, never */
	if (t->slots != NULL)
		(void)munmap(t->slots, t->size * sizeof(*t->slots));
	t->slots = NULL;
	t->size = t->count = 0;
}
