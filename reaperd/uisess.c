/*
 * The status page's sessions (gatewayd/ui*.c), held for every gateway.
 *
 * A login on one gateway of "prefork N" must hold on the others, a
 * logout must end it on all of them, and a reload must not log everyone
 * out.  The reaper already keeps what every gateway shares (the cap on
 * wrong keys, authlim.c), outlives reloads, holds no secret and parses
 * nothing from the network: it keeps the sessions too.  A gateway tells
 * it of a login, asks it about a cookie it does not know (then keeps
 * the answer a few seconds) and tells it of a logout, which it passes
 * on to every gateway.  The store would make them outlive a restart
 * too, at the price of a write per login; a restart logging people out
 * is acceptable.
 *
 * The table is UISESS_MAX slots taken once: when it is full an expired
 * session is reused, else the one that expires first, so that a flood
 * of logins costs bounded memory (and ends only the oldest sessions).
 * An expired session is never answered.  A reload that changes a key
 * ends the sessions it opened (uisess_flush): a leaked key replaced
 * leaves no session behind.
 */

#include <sys/tree.h>

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "uisess.h"

int	uisess_cmp(struct uisess_entry *, struct uisess_entry *);
RB_PROTOTYPE(uisess_tree, uisess_entry, entry, uisess_cmp);
RB_GENERATE(uisess_tree, uisess_entry, entry, uisess_cmp);

int
uisess_cmp(struct uisess_entry *a, struct uisess_entry *b)
{
	return (memcmp(a->s.id, b->s.id, sizeof(a->s.id)));
}

void
uisess_init(struct uisess *t)
{
	RB_INIT(&t->tree);
	t->n = 0;
}

static struct uisess_entry *
uisess_lookup(struct uisess *t, const uint8_t *id)
{
	struct uisess_entry	 key;

	memcpy(key.s.id, id, sizeof(key.s.id));
	return (RB_FIND(uisess_tree, &t->tree, &key));
}

/* a free slot: unused, else an expired one, else the first to expire */
static struct uisess_entry *
uisess_slot(struct uisess *t, int64_t now)
{
	struct uisess_entry	*e, *first = NULL;

	if (t->n < UISESS_MAX)
		return (&t->slot[t->n++]);
	RB_FOREACH(e, uisess_tree, &t->tree) {
		if (e->s.expires <= now) {
			first = e;
			break;
		}
		if (first == NULL || e->s.expires < first->s.expires)
			first = e;
	}
	RB_REMOVE(uisess_tree, &t->tree, first);
	return (first);
}

/* a login at now (wall clock, seconds); an id seen already is replaced */
void
uisess_add(struct uisess *t, const struct ui_sess *s, int64_t now)
{
	struct uisess_entry	*e;

	if ((e = uisess_lookup(t, s->id)) == NULL) {
		e = uisess_slot(t, now);
		e->s = *s;
		RB_INSERT(uisess_tree, &t->tree, e);
	} else
		e->s = *s;
	e->s.found = 1;
}

/* 1 with *out for a session that has not expired at now, else 0 */
int
uisess_find(struct uisess *t, const uint8_t *id, int64_t now,
    struct ui_sess *out)
{
	struct uisess_entry	*e;

	memset(out, 0, sizeof(*out));
	memcpy(out->id, id, sizeof(out->id));
	if ((e = uisess_lookup(t, id)) == NULL || e->s.expires <= now)
		return (0);
	*out = e->s;
	return (1);
}

/* a logout: 1 when the session was there */
int
uisess_end(struct uisess *t, const uint8_t *id)
{
	struct uisess_entry	*e;

	if ((e = uisess_lookup(t, id)) == NULL)
		return (0);
	/* its slot stays taken, expired, for the next login to reuse */
	explicit_bzero(&e->s.csrf, sizeof(e->s.csrf));
	e->s.expires = 0;
	e->s.found = 0;
	return (1);
}

/* a key changed: every session it opened ends; how many did */
size_t
uisess_flush(struct uisess *t, int readonly)
{
	struct uisess_entry	*e;
	size_t			 n = 0;

	RB_FOREACH(e, uisess_tree, &t->tree) {
		if (!e->s.found || (e->s.readonly != 0) != (readonly != 0))
			continue;
		explicit_bzero(&e->s.csrf, sizeof(e->s.csrf));
		e->s.expires = 0;
		e->s.found = 0;
		n++;
	}
	return (n);
}

size_t
uisess_count(const struct uisess *t)
{
	return (t->n);
}
