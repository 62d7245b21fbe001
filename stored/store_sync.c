/*
 * The configuration's rows, written at a reload only where they changed
 * (issue 38).  The store keeps, from the last configuration it wrote,
 * each workload's name and the digest of its definition's wire form
 * (workload_wire_digest): a new generation's workloads are compared with
 * it, and only the new and changed rows are written and the rows of the
 * workloads gone removed, in one transaction (store_db_sync_delta).  At
 * 100,000 workloads a reload that changes nothing writes nothing, where
 * every definition was encoded as JSON and upserted before.
 *
 * The first configuration, and the one after a write that failed or
 * memory that ran out, is written whole (store_db_sync), as before: what
 * the database held from the last run is not known here.  A row the API
 * wrote or removed since (store.c) is written again whatever its digest
 * says, so that the database ends as a whole write would leave it.  The
 * digest has 64 bits and is no cryptographic hash: a definition changed
 * to one of the same digest would keep its old row.  The configuration
 * is root's file, and the API's rows are written by the API's own path
 * (and again here), so no client can choose that.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hashtab.h"
#include "log.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "store_db.h"
#include "store_sync.h"
#include "workload.h"

struct sync_ent {
	uint64_t	 digest;	/* 0: write it whatever it is */
	const char	*name;		/* in sync_names */
};

static struct sync_ent	*sync_ents;
static size_t		 sync_n;
static char		*sync_names;
static int		 sync_valid;	/* 0: the next write is whole */
/* the names the API wrote or removed since: strdup'd keys */
static struct hashtab	 sync_touched = HASHTAB_INITIALIZER(0);
static char		**sync_touched_keys;
static size_t		 sync_touched_n;

static void
sync_forget_all(void)
{
	free(sync_ents);
	free(sync_names);
	sync_ents = NULL;
	sync_names = NULL;
	sync_n = 0;
	sync_valid = 0;
}

static void
sync_touched_clear(void)
{
	size_t	 i;

	for (i = 0; i < sync_touched_n; i++)
		free(sync_touched_keys[i]);
	free(sync_touched_keys);
	sync_touched_keys = NULL;
	sync_touched_n = 0;
	hashtab_clear(&sync_touched);
}

/*
 * The API wrote or removed name's row: the next configuration writes it
 * as a whole write would.  Out of memory, the next write is whole.
 */
void
store_sync_touched(const char *field)
{
	char	**keys, *key, name[ORCHD_NAME_MAX];
	size_t	 len;

	/* a message's field: NUL within its bounds or not */
	len = strnlen(field, sizeof(name) - 1);
	memcpy(name, field, len);
	name[len] = '\0';
	if (!sync_valid || hashtab_find(&sync_touched, name) != NULL)
		return;
	keys = reallocarray(sync_touched_keys, sync_touched_n + 1,
	    sizeof(*keys));
	if (keys == NULL) {
		sync_forget_all();
		return;
	}
	sync_touched_keys = keys;
	if ((key = strdup(name)) == NULL) {
		sync_forget_all();
		return;
	}
	if (hashtab_add(&sync_touched, key, key) != 0) {
		free(key);
		sync_forget_all();
		return;
	}
	sync_touched_keys[sync_touched_n++] = key;
}

/* what was written: the names and digests of n workloads, kept */
static void
sync_keep(const struct workloadlist *list, const uint64_t *digests,
    size_t n)
{
	const struct workload_conf	*wc;
	struct sync_ent			*ents;
	char				*names, *p;
	size_t				 total = 0, len, i = 0;

	sync_forget_all();
	TAILQ_FOREACH(wc, list, entry)
		total += strnlen(wc->name, sizeof(wc->name)) + 1;
	if ((ents = calloc(n ? n : 1, sizeof(*ents))) == NULL)
		return;
	if ((names = malloc(total ? total : 1)) == NULL) {
		free(ents);
		return;
	}
	p = names;
	TAILQ_FOREACH(wc, list, entry) {
		if (i == n)
			break;
		len = strnlen(wc->name, sizeof(wc->name));
		memcpy(p, wc->name, len);
		p[len] = '\0';
		ents[i].name = p;
		ents[i].digest = digests[i];
		p += len + 1;
		i++;
	}
	sync_ents = ents;
	sync_names = names;
	sync_n = i;
	sync_valid = 1;
}

/* put: those of list that differ from what was written; drop: gone */
static int
sync_diff(const struct workloadlist *list, const uint64_t *digests,
    const struct workload_conf **put, size_t *nput, const char **drop,
    size_t *ndrop)
{
	struct hashtab			 ht = HASHTAB_INITIALIZER(0);
	const struct workload_conf	*wc;
	const struct sync_ent		*e;
	unsigned char			*seen;
	size_t				 i;
	int				 r = -1;

	*nput = *ndrop = 0;
	if ((seen = calloc(sync_n ? sync_n : 1, 1)) == NULL)
		return (-1);
	/* a name twice would lose a row: whole instead */
	for (i = 0; i < sync_n; i++)
		if (hashtab_add(&ht, sync_ents[i].name, &sync_ents[i]) != 0)
			goto done;
	i = 0;
	TAILQ_FOREACH(wc, list, entry) {
		e = hashtab_find(&ht, wc->name);
		if (e != NULL)
			seen[e - sync_ents] = 1;
		if (e == NULL || e->digest == 0 || digests[i] == 0 ||
		    e->digest != digests[i] ||
		    hashtab_find(&sync_touched, wc->name) != NULL)
			put[(*nput)++] = wc;
		i++;
	}
	for (i = 0; i < sync_n; i++)
		if (!seen[i])
			drop[(*ndrop)++] = sync_ents[i].name;
	r = 0;
 done:
	hashtab_clear(&ht);
	free(seen);
	return (r);
}

/*
 * After a delta's write: what was written, in the new order.  A kept
 * one's digest is its base place's; one the API wrote since, and that
 * the delta did not send, is written whatever it is at the next full
 * one.  Out of step with the base (not expected: the store refuses a
 * delta when it does not know what it wrote), the next write is whole.
 */
static void
sync_keep_delta(const struct cfg_generation *gen)
{
	const struct workload_conf	*wc;
	struct sync_ent			*ents;
	const char			*name;
	char				*names;
	size_t				 total = 0, len, at = 0;
	uint32_t			 i, m;

	wc = TAILQ_FIRST(&gen->workloads);
	for (i = 0; i < gen->nworkloads; i++) {
		m = gen->keep_map[i];
		if (m == CFG_SENT) {
			if (wc == NULL)
				goto whole;
			total += strnlen(wc->name, sizeof(wc->name)) + 1;
			wc = TAILQ_NEXT(wc, entry);
		} else if (m < sync_n)
			total += strlen(sync_ents[m].name) + 1;
		else
			goto whole;
	}
	if ((ents = calloc(gen->nworkloads ? gen->nworkloads : 1,
	    sizeof(*ents))) == NULL)
		goto whole;
	if ((names = malloc(total ? total : 1)) == NULL) {
		free(ents);
		goto whole;
	}
	wc = TAILQ_FIRST(&gen->workloads);
	for (i = 0; i < gen->nworkloads; i++) {
		m = gen->keep_map[i];
		if (m == CFG_SENT) {
			name = wc->name;
			len = strnlen(wc->name, sizeof(wc->name));
			ents[i].digest = workload_wire_digest(wc);
			wc = TAILQ_NEXT(wc, entry);
		} else {
			name = sync_ents[m].name;
			len = strlen(name);
			ents[i].digest = sync_ents[m].digest;
			if (sync_touched_n > 0 &&
			    hashtab_find(&sync_touched, name) != NULL)
				ents[i].digest = 0;
		}
		memcpy(names + at, name, len);
		names[at + len] = '\0';
		ents[i].name = names + at;
		at += len + 1;
	}
	sync_forget_all();
	sync_ents = ents;
	sync_names = names;
	sync_n = gen->nworkloads;
	sync_valid = 1;
	return;
 whole:
	sync_forget_all();
}

/* whether a delta can be written: what was written last is known */
int
store_sync_known(void)
{
	return (sync_valid);
}

static int64_t
sync_now_us(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/*
 * A delta's rows (common/cfgrecv.c): those sent written, those gone
 * removed, the rest not read.
 */
static int
sync_delta(struct store_db *sdb, const struct cfg_generation *gen,
    int64_t now_ms, int64_t t0)
{
	const struct workload_conf	*wc, **put;
	size_t				 nput = 0;
	int				 r;

	TAILQ_FOREACH(wc, &gen->workloads, entry)
		nput++;
	if ((put = calloc(nput ? nput : 1, sizeof(*put))) == NULL)
		return (-1);
	nput = 0;
	TAILQ_FOREACH(wc, &gen->workloads, entry)
		put[nput++] = wc;
	r = store_db_sync_delta(sdb, put, nput, gen->removed, gen->nremoved,
	    now_ms);
	free(put);
	if (r == 0)
		sync_keep_delta(gen);
	else
		sync_forget_all();
	sync_touched_clear();
	log_debug("configuration %u: a delta of what changed, %zu row%s "
	    "written, %u removed, %zu unchanged, %lld ms", gen->id, nput,
	    nput == 1 ? "" : "s", gen->nremoved,
	    (size_t)gen->nworkloads - nput,
	    (long long)(sync_now_us() - t0) / 1000);
	return (r);
}

/*
 * A new generation's rows: only what changed when what was written last
 * is known, else all of them.  -1 when the write failed (the database
 * says why); the next one is then whole.
 */
int
store_sync(struct store_db *sdb, const struct cfg_generation *gen,
    int64_t now_ms)
{
	const struct workload_conf	*wc, **put = NULL;
	const char			**drop = NULL;
	uint64_t			*digests;
	size_t				 n = 0, nput = 0, ndrop = 0;
	int64_t				 t0 = sync_now_us();
	int				 r, whole = !sync_valid;

	if (gen->delta)
		return (sync_delta(sdb, gen, now_ms, t0));
	TAILQ_FOREACH(wc, &gen->workloads, entry)
		n++;
	if ((digests = calloc(n ? n : 1, sizeof(*digests))) == NULL)
		whole = 1;
	else {
		n = 0;
		TAILQ_FOREACH(wc, &gen->workloads, entry)
			digests[n++] = workload_wire_digest(wc);
	}
	if (!whole) {
		put = calloc(n ? n : 1, sizeof(*put));
		drop = calloc(sync_n ? sync_n : 1, sizeof(*drop));
		if (put == NULL || drop == NULL ||
		    sync_diff(&gen->workloads, digests, put, &nput, drop,
		    &ndrop) == -1)
			whole = 1;
	}
	if (whole) {
		nput = n;
		ndrop = 0;
		r = store_db_sync(sdb, &gen->workloads, now_ms);
	} else
		r = store_db_sync_delta(sdb, put, nput, drop, ndrop, now_ms);
	free(put);
	free(drop);
	sync_touched_clear();
	if (r == 0 && digests != NULL)
		sync_keep(&gen->workloads, digests, n);
	else
		sync_forget_all();
	free(digests);
	log_debug("configuration %u: %s, %zu row%s written, %zu "
	    "removed, %zu unchanged, %lld ms", gen->id, whole ? "whole" :
	    "what changed", nput, nput == 1 ? "" : "s", ndrop,
	    whole ? 0 : n - nput, (long long)(sync_now_us() - t0) / 1000);
	return (r);
}
