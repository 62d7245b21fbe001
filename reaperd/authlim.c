/*
 * Wrong API keys, counted per client address for every gateway.
 *
 * Each gateway holds its own 401s back (gatewayd/api_auth.c), but with
 * "prefork N" a guesser spread over N gateways would get N times the
 * guesses, so the count that caps them is kept in one process.  It is
 * the reaper's: every gateway already has a channel to it, it holds no
 * secret and parses nothing from the network, and the root parent is
 * left to parse as little as it can.  A gateway asks only for a wrong
 * key, which it answers late anyway; a right key never waits for this.
 *
 * An address is an IPv4 address (an IPv4-mapped IPv6 one too) or an
 * IPv6 /64, which one host usually holds whole.  Each has a fixed window
 * of AUTHLIM_WINDOW_MS from its first failure; past AUTHLIM_CAP failures
 * in it, the rest are refused until it ends (the gateway answers 429
 * with Retry-After).  The table is AUTHLIM_MAX slots taken once, never
 * freed: a flood of addresses reuses the one that failed least recently,
 * so its memory is bounded whatever the attacker holds.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <stdint.h>
#include <string.h>

#include "authlim.h"
#include "compat.h"
#include "ignore.h"
#include "msg.h"

int		authlim_cmp(struct authlim_entry *, struct authlim_entry *);
RB_PROTOTYPE(authlim_tree, authlim_entry, entry, authlim_cmp);
RB_GENERATE(authlim_tree, authlim_entry, entry, authlim_cmp);

int
authlim_cmp(struct authlim_entry *a, struct authlim_entry *b)
{
	return (memcmp(a->key, b->key, sizeof(a->key)));
}

void
authlim_init(struct authlim *al)
{
	RB_INIT(&al->tree);
	TAILQ_INIT(&al->lru);
	al->n = 0;
}

/* key: AUTHLIM_KEYLEN bytes; -1 for a family that is neither */
int
authlim_prefix(const struct netaddr *na, uint8_t *key)
{
	struct netaddr	 client;

	memset(key, 0, AUTHLIM_KEYLEN);
	if (netaddr_client(na, &client) == -1)
		return (-1);
	key[0] = client.af == AF_INET ? 4 : 6;
	memcpy(key + 1, client.addr, client.af == AF_INET ? 4 : 8);
	return (0);
}

/* a slot for a new address: an unused one, or the least recent one */
static struct authlim_entry *
authlim_slot(struct authlim *al)
{
	struct authlim_entry	*e;

	if (al->n < AUTHLIM_MAX)
		return (&al->slot[al->n++]);
	e = TAILQ_LAST(&al->lru, authlim_lru);
	TAILQ_REMOVE(&al->lru, e, lru);
	RB_REMOVE(authlim_tree, &al->tree, e);
	return (e);
}

/*
 * One more wrong key from na at now_ms (a monotonic clock): 0 while the
 * address is within the cap, else how many ms until its window ends (at
 * least 1); -1 for an address of no known family.
 */
int64_t
authlim_fail(struct authlim *al, const struct netaddr *na, int64_t now_ms)
{
	struct authlim_entry	 find, *e;

	if (authlim_prefix(na, find.key) == -1)
		return (-1);
	if ((e = RB_FIND(authlim_tree, &al->tree, &find)) != NULL)
		TAILQ_REMOVE(&al->lru, e, lru);
	else {
		e = authlim_slot(al);
		memcpy(e->key, find.key, sizeof(e->key));
		e->fails = 0;
		e->start_ms = now_ms;
		RB_INSERT(authlim_tree, &al->tree, e);
	}
	TAILQ_INSERT_HEAD(&al->lru, e, lru);
	if (now_ms - e->start_ms >= AUTHLIM_WINDOW_MS ||
	    now_ms < e->start_ms) {
		e->start_ms = now_ms;
		e->fails = 0;
	}
	if (e->fails < UINT32_MAX)
		e->fails++;
	if (e->fails <= AUTHLIM_CAP)
		return (0);
	return (MAXIMUM(e->start_ms + AUTHLIM_WINDOW_MS - now_ms, 1));
}

size_t
authlim_entries(const struct authlim *al)
{
	return (al->n);
}
