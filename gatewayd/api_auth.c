/*
 * The API's bearer key: the Authorization field's token compared with
 * the key in constant time, and the addresses that keep getting it wrong
 * made to wait.
 *
 * A small table remembers recent failures per client address, at most
 * AUTH_TABLE_MAX addresses, the least recently failed one forgotten
 * first, so that a flood of addresses costs bounded memory.  The first
 * AUTH_FREE failures are answered at once; after that each 401 is held
 * (by the caller's timer, never by blocking) AUTH_DELAY_MS, doubling with
 * each failure up to AUTH_DELAY_MAX_MS.  A success, or AUTH_FORGET_MS
 * without a failure, wipes the slate.
 *
 * These delays are each gateway's own.  The cap on wrong keys that holds
 * for every gateway of "prefork" together is counted by the reaper
 * (reaperd/authlim.c), asked by api_deny() in api.c.  An address over it
 * is sent by the reaper to every gateway, which keeps it in a second
 * table (auth_block()) until its window ends: meanwhile the address's
 * requests are answered 429 before their key is looked at, so that a
 * guesser learns nothing from a right guess either.  That table holds
 * AUTH_BLOCK_MAX addresses, an expired one or else the one that ends
 * soonest given up for a new one.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "compat.h"
#include "ignore.h"
#include "msg.h"

struct auth_entry {
	RB_ENTRY(auth_entry)	 entry;		/* by address */
	TAILQ_ENTRY(auth_entry)	 lru;		/* most recent first */
	char			 peer[64];
	uint32_t		 fails;
	int64_t			 last_ms;
};
RB_HEAD(auth_tree, auth_entry);
TAILQ_HEAD(auth_lru, auth_entry);

static int	auth_cmp(struct auth_entry *, struct auth_entry *);
RB_PROTOTYPE(auth_tree, auth_entry, entry, auth_cmp);
RB_GENERATE(auth_tree, auth_entry, entry, auth_cmp);

/* an address over the cap, netaddr_client()'s, until its window ends */
struct auth_block {
	RB_ENTRY(auth_block)	 entry;
	struct netaddr		 client;
	int64_t			 until_ms;
};
RB_HEAD(auth_blocks, auth_block);

static int	auth_block_cmp(struct auth_block *, struct auth_block *);
RB_PROTOTYPE(auth_blocks, auth_block, entry, auth_block_cmp);
RB_GENERATE(auth_blocks, auth_block, entry, auth_block_cmp);

static struct auth_blocks auth_blocks = RB_INITIALIZER(&auth_blocks);
static struct auth_block auth_block_slot[AUTH_BLOCK_MAX];
static size_t		 auth_nblocks;

static struct auth_tree	 auth_tree = RB_INITIALIZER(&auth_tree);
static struct auth_lru	 auth_lru = TAILQ_HEAD_INITIALIZER(auth_lru);
static size_t		 auth_n;

static int
auth_cmp(struct auth_entry *a, struct auth_entry *b)
{
	return (strcmp(a->peer, b->peer));
}

static int
auth_block_cmp(struct auth_block *a, struct auth_block *b)
{
	if (a->client.af != b->client.af)
		return (a->client.af < b->client.af ? -1 : 1);
	return (memcmp(a->client.addr, b->client.addr,
	    sizeof(a->client.addr)));
}

/* a slot for a new address: an unused one, or the one that ends first */
static struct auth_block *
auth_block_slot_get(void)
{
	struct auth_block	*b, *first = NULL;

	if (auth_nblocks < AUTH_BLOCK_MAX)
		return (&auth_block_slot[auth_nblocks++]);
	RB_FOREACH(b, auth_blocks, &auth_blocks)
		if (first == NULL || b->until_ms < first->until_ms)
			first = b;
	RB_REMOVE(auth_blocks, &auth_blocks, first);
	return (first);
}

/* the reaper says: client is over the cap for ms more, from now_ms */
void
auth_block(const struct netaddr *client, int64_t ms, int64_t now_ms)
{
	struct auth_block	 find, *b;

	if (netaddr_client(client, &find.client) == -1 || ms <= 0)
		return;
	ms = MINIMUM(ms, AUTH_BLOCK_MAX_MS);
	if ((b = RB_FIND(auth_blocks, &auth_blocks, &find)) == NULL) {
		b = auth_block_slot_get();
		b->client = find.client;
		RB_INSERT(auth_blocks, &auth_blocks, b);
	}
	b->until_ms = now_ms + ms;
}

/* how long peer's requests are still refused, in ms: 0 when they are not */
int64_t
auth_blocked(const struct netaddr *peer, int64_t now_ms)
{
	struct auth_block	 find, *b;

	if (RB_EMPTY(&auth_blocks) ||
	    netaddr_client(peer, &find.client) == -1 ||
	    (b = RB_FIND(auth_blocks, &auth_blocks, &find)) == NULL ||
	    b->until_ms <= now_ms)
		return (0);
	return (b->until_ms - now_ms);
}

/*
 * "Bearer TOKEN" (the scheme in any case, then one or more spaces): 0
 * with the token, -1 for anything else.
 */
int
auth_bearer(const char *v, size_t len, const char **tok, size_t *toklen)
{
	size_t	 i;

	if (len < 7 || strncasecmp(v, "Bearer", 6) != 0 ||
	    (v[6] != ' ' && v[6] != '\t'))
		return (-1);
	for (i = 6; i < len && (v[i] == ' ' || v[i] == '\t'); i++)
		;
	if (i == len)
		return (-1);
	*tok = v + i;
	*toklen = len - i;
	return (0);
}

/*
 * 1 when the token is the key.  Both go into buffers of the largest key's
 * size, compared whole: the time taken says nothing of either's bytes or
 * length (a token longer than any key fails at once, which says nothing
 * of the key either).
 */
int
auth_key_match(const uint8_t *key, size_t keylen, const char *tok,
    size_t toklen)
{
	uint8_t	 a[ORCHD_API_KEY_MAX], b[ORCHD_API_KEY_MAX];
	int	 diff;

	if (key == NULL || keylen == 0 || keylen > sizeof(a) ||
	    toklen > sizeof(b))
		return (0);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memcpy(a, key, keylen);
	memcpy(b, tok, toklen);
	diff = ct_memcmp(a, b, sizeof(a));
	diff |= (keylen != toklen);
	explicit_bzero(a, sizeof(a));
	explicit_bzero(b, sizeof(b));
	return (diff == 0);
}

static struct auth_entry *
auth_find(const char *peer)
{
	struct auth_entry	 key;

	if (strlcpy(key.peer, peer, sizeof(key.peer)) >= sizeof(key.peer))
		return (NULL);
	return (RB_FIND(auth_tree, &auth_tree, &key));
}

static void
auth_remove(struct auth_entry *e)
{
	RB_REMOVE(auth_tree, &auth_tree, e);
	TAILQ_REMOVE(&auth_lru, e, lru);
	auth_n--;
	free(e);
}

static struct auth_entry *
auth_add(const char *peer)
{
	struct auth_entry	*e;

	if (auth_n >= AUTH_TABLE_MAX)
		auth_remove(TAILQ_LAST(&auth_lru, auth_lru));
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (NULL);
	strlcpy(e->peer, peer, sizeof(e->peer));
	RB_INSERT(auth_tree, &auth_tree, e);
	TAILQ_INSERT_HEAD(&auth_lru, e, lru);
	auth_n++;
	return (e);
}

/* one more failure from peer at now_ms: how long to hold its 401, in ms */
int64_t
auth_failed(const char *peer, int64_t now_ms)
{
	struct auth_entry	*e;
	uint32_t		 shift;
	int64_t			 delay;

	if ((e = auth_find(peer)) == NULL) {
		if ((e = auth_add(peer)) == NULL)
			return (AUTH_DELAY_MAX_MS);	/* out of memory */
	} else {
		TAILQ_REMOVE(&auth_lru, e, lru);
		TAILQ_INSERT_HEAD(&auth_lru, e, lru);
		if (now_ms - e->last_ms >= AUTH_FORGET_MS)
			e->fails = 0;
	}
	e->last_ms = now_ms;
	if (e->fails < UINT32_MAX)
		e->fails++;
	if (e->fails <= AUTH_FREE)
		return (0);
	shift = MINIMUM(e->fails - AUTH_FREE - 1, 16);
	delay = (int64_t)AUTH_DELAY_MS << shift;
	return (MINIMUM(delay, AUTH_DELAY_MAX_MS));
}

void
auth_succeeded(const char *peer)
{
	struct auth_entry	*e;

	if (auth_n > 0 && (e = auth_find(peer)) != NULL)
		auth_remove(e);
}

/* for the tests */
void
auth_clear(void)
{
	while (!TAILQ_EMPTY(&auth_lru))
		auth_remove(TAILQ_FIRST(&auth_lru));
	RB_INIT(&auth_blocks);
	auth_nblocks = 0;
}

size_t
auth_entries(void)
{
	return (auth_n);
}
