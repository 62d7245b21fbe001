/*
 * What the gate verified lately, so that a client sending the same
 * credentials again costs a hash of them, not a bcrypt: table 0 holds
 * Basic credentials that passed, table 1 an auth service's 2xx with the
 * fields copied from it ("auth request ... cache").
 *
 * An entry is keyed by SHA-256 over a key of this process's own, drawn
 * at start, and the credentials (gate_cache_key()): the table holds no
 * password, and its keys say nothing to whoever reads them without the
 * key.  Each table is fixed (GATE_CACHE_MAX, GATE_RCACHE_MAX entries),
 * an entry found in one of GATE_CACHE_WAYS slots chosen by its key, the
 * oldest of them given up for a new one: memory is bounded, and so is
 * the work of a lookup.  Entries expire; a reload empties both tables
 * (gate_apply()), so that a password removed from its file, or a
 * changed auth service, is asked again.
 */

#include <sys/types.h>

#include <sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "gatecheck.h"

#define GATE_CACHE_WAYS	8
#define GATE_CVAL_MAX	GATE_ADD_MAX	/* the fields kept, table 1 */

struct gate_centry {
	uint8_t		 key[SHA256_DIGEST_LENGTH];
	int64_t		 expires_ms;	/* monotonic; 0: empty */
	size_t		 len;
	char		*val;		/* table 1: GATE_CVAL_MAX bytes */
};

struct gate_ctable {
	struct gate_centry	*e;
	size_t			 n;
	size_t			 vmax;
};

static uint8_t			 gate_secret[SHA256_BLOCK_LENGTH];
static SHA2_CTX			 gate_secret_ctx;	/* after it */
static struct gate_ctable	 gate_tables[2] = {
	{ NULL, GATE_CACHE_MAX, 0 },
	{ NULL, GATE_RCACHE_MAX, GATE_CVAL_MAX }
};

void
gate_cache_init(void)
{
	arc4random_buf(gate_secret, sizeof(gate_secret));
	/* a whole block: each key's hash starts from this state */
	SHA256Init(&gate_secret_ctx);
	SHA256Update(&gate_secret_ctx, gate_secret, sizeof(gate_secret));
}

/*
 * key (32 bytes): SHA-256 of the secret, what (the file or the URL) and
 * the credentials a and b, each with its length, so that no two
 * different sets give the same input.
 */
void
gate_cache_key(uint8_t *key, const char *what, const char *a, size_t alen,
    const char *b, size_t blen)
{
	SHA2_CTX	 ctx;
	uint64_t	 n;

	ctx = gate_secret_ctx;
	n = strlen(what);
	SHA256Update(&ctx, (const uint8_t *)&n, sizeof(n));
	SHA256Update(&ctx, (const uint8_t *)what, n);
	n = alen;
	SHA256Update(&ctx, (const uint8_t *)&n, sizeof(n));
	SHA256Update(&ctx, (const uint8_t *)a, alen);
	n = blen;
	SHA256Update(&ctx, (const uint8_t *)&n, sizeof(n));
	SHA256Update(&ctx, (const uint8_t *)b, blen);
	SHA256Final(key, &ctx);
}

static size_t
gate_cache_base(const struct gate_ctable *t, const uint8_t *key)
{
	uint32_t	 h;

	memcpy(&h, key, sizeof(h));
	return ((h % (t->n / GATE_CACHE_WAYS)) * GATE_CACHE_WAYS);
}

/* 1 with its value if key is there and fresh, else 0 */
int
gate_cache_find(int table, const uint8_t *key, int64_t now_ms,
    const char **val, size_t *len)
{
	struct gate_ctable	*t = &gate_tables[table];
	struct gate_centry	*e;
	size_t			 i, base;

	if (t->e == NULL)
		return (0);
	base = gate_cache_base(t, key);
	for (i = 0; i < GATE_CACHE_WAYS; i++) {
		e = &t->e[base + i];
		if (e->expires_ms <= now_ms ||
		    ct_memcmp(e->key, key, sizeof(e->key)) != 0)
			continue;
		if (val != NULL) {
			*val = e->val;
			*len = e->len;
		}
		return (1);
	}
	return (0);
}

/* key is good until now_ms + ttl_ms, with len bytes of val (table 1) */
void
gate_cache_put(int table, const uint8_t *key, int64_t expires_ms,
    const char *val, size_t len)
{
	struct gate_ctable	*t = &gate_tables[table];
	struct gate_centry	*e, *old = NULL;
	size_t			 i, base;

	if (len > t->vmax)
		return;
	if (t->e == NULL) {
		if ((t->e = calloc(t->n, sizeof(*t->e))) == NULL) {
			log_warn("%s", __func__);
			return;
		}
		for (i = 0; t->vmax > 0 && i < t->n; i++)
			if ((t->e[i].val = malloc(t->vmax)) == NULL)
				fatal("%s", __func__);
	}
	base = gate_cache_base(t, key);
	for (i = 0; i < GATE_CACHE_WAYS; i++) {
		e = &t->e[base + i];
		if (memcmp(e->key, key, sizeof(e->key)) == 0) {
			old = e;
			break;
		}
		if (old == NULL || e->expires_ms < old->expires_ms)
			old = e;
	}
	memcpy(old->key, key, sizeof(old->key));
	old->expires_ms = expires_ms;
	old->len = len;
	if (len > 0)
		memcpy(old->val, val, len);
}

void
gate_cache_clear(void)
{
	size_t	 i, j;

	for (i = 0; i < nitems(gate_tables); i++)
		for (j = 0; gate_tables[i].e != NULL &&
		    j < gate_tables[i].n; j++) {
			gate_tables[i].e[j].expires_ms = 0;
			memset(gate_tables[i].e[j].key, 0,
			    sizeof(gate_tables[i].e[j].key));
		}
}
