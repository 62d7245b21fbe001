/*
 * The child's side of a configuration transaction.  A new generation is
 * built beside the current one and only replaces it on START, which the
 * parent sends once every child has acknowledged DONE: either every
 * process runs the new configuration or none does.
 *
 * A delta (IMSG_CFG_DELTA, sent by orchd/config_delta.c to the processes
 * that hold their definitions) makes the new generation from the current
 * one: runs of its definitions kept (IMSG_CFG_KEEP) and new ones
 * (IMSG_CFG_WORKLOAD), in the order sent.  The kept ones are only noted
 * as they come, since the current generation serves until START; they
 * move to the new one then, so a definition that did not change is
 * neither sent nor read again.  Anything out of step (another base, a
 * run outside the base or kept twice, a name twice, a count that does not
 * add up) refuses the delta: DONE is answered IMSG_CFG_RESEND, and the
 * parent sends every child a full generation.  A full one is never
 * refused, so that ends it.
 *
 * A process that keeps no definitions (the store, the reaper) may take
 * a delta too (cfg_take_delta): only the names of its current generation
 * are kept here, in order, so that a keep can be checked as above.  Its
 * apply function is then given the definitions sent alone, with what it
 * needs to keep its own state of the others: the base's index of each
 * workload of the new generation, and the base's names that are gone.
 * Its globals must be the base's (what it derived from them for the kept
 * ones would be stale): other globals refuse the delta.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "util.h"
#include "workload.h"

static struct cfg_generation	*cfg_cur;
static struct cfg_generation	*cfg_next;
static void	(*cfg_apply)(struct privsep *, struct cfg_generation *,
		    struct cfg_generation *);
static int	  cfg_forget;
static int	  cfg_delta_ok;		/* cfg_forget, and takes deltas */
static const char *(*cfg_delta_check)(void);

/* the current generation's names, in order, where it keeps no definitions */
struct cfg_names {
	uint32_t		 gen;
	uint32_t		 n;
	uint32_t		*off;		/* in arena, which is < 4 GiB */
	char			*arena;
};
static struct cfg_names	  cn;		/* cfg_cur's */
static struct cfg_names	  cn_next;	/* the delta's, made at START */

/* a run of the new generation: the base's kept, or the next new ones */
struct cfg_run {
	uint32_t		 first;		/* in the base, if keep */
	uint32_t		 count;
	int			 keep;
};

/* the delta under way, if cfg_next is one */
static struct cfg_delta_rx {
	int			 active;
	const char		*refused;	/* why, or NULL */
	struct cfg_delta	 d;
	struct workload_conf	**base;		/* cfg_cur's, in order */
	uint8_t			*kept;		/* a bit per base entry */
	uint32_t		 nkept;
	uint32_t		 nadded;
	struct cfg_run		*runs;
	size_t			 nruns;
	size_t			 runsize;
} dx;

static void
cfg_delta_clear(void)
{
	free(dx.base);
	free(dx.kept);
	free(dx.runs);
	memset(&dx, 0, sizeof(dx));
}

static void
cfg_names_free(struct cfg_names *c)
{
	free(c->off);
	free(c->arena);
	memset(c, 0, sizeof(*c));
}

/* the i-th name of the delta's base */
static const char *
cfg_base_name(uint32_t i)
{
	return (cfg_forget ? cn.arena + cn.off[i] : dx.base[i]->name);
}

/* the first reason is kept: what follows a refusal is not read */
static void
cfg_delta_refuse(const char *why)
{
	if (dx.refused == NULL)
		dx.refused = why;
}

static struct cfg_generation *
cfg_new(uint32_t id)
{
	struct cfg_generation	*gen;

	if ((gen = calloc(1, sizeof(*gen))) == NULL)
		fatal("%s: calloc", __func__);
	gen->id = id;
	TAILQ_INIT(&gen->workloads);
	return (gen);
}

static void
cfg_free_workloads(struct cfg_generation *gen)
{
	struct workload_conf	*wl;

	while ((wl = TAILQ_FIRST(&gen->workloads)) != NULL) {
		TAILQ_REMOVE(&gen->workloads, wl, entry);
		workload_free(wl);
	}
}

static void
cfg_free(struct cfg_generation *gen)
{
	if (gen == NULL)
		return;
	cfg_free_workloads(gen);
	free(gen);
}

void
cfg_set_apply(void (*fn)(struct privsep *, struct cfg_generation *,
    struct cfg_generation *))
{
	cfg_apply = fn;
}

/*
 * For a process whose apply function copies what it keeps: the workload
 * definitions are freed once applied, not held for the generation's life.
 * cfg_current()'s workload list is then empty (nworkloads still counts).
 */
void
cfg_forget_workloads(void)
{
	cfg_forget = 1;
}

/*
 * For such a process whose apply function can take a delta (struct
 * cfg_generation's delta): its names are kept for the next one.  check,
 * if not NULL, says why the process cannot take one now, or NULL.
 */
void
cfg_take_delta(const char *(*check)(void))
{
	cfg_forget = 1;
	cfg_delta_ok = 1;
	cfg_delta_check = check;
}

const struct cfg_generation *
cfg_current(void)
{
	return (cfg_cur);
}

void
cfg_recv_reset(struct imsgev *iev, struct imsg *imsg)
{
	uint32_t	 id;

	(void)imsg_get_data(imsg, &id, sizeof(id));
	cfg_free(cfg_next);
	cfg_delta_clear();
	cfg_next = cfg_new(id);
}

static struct cfg_generation *
cfg_pending(uint32_t type)
{
	if (cfg_next == NULL)
		fatalx("configuration message %u outside a transaction", type);
	return (cfg_next);
}

/*
 * The next run of the new generation: count of the base's from first
 * (keep), or one more new definition, after the last new one if that
 * was the run before.  -1, the delta refused, when more would come than
 * the delta said.
 */
static int
cfg_delta_run(uint32_t first, uint32_t count, int keep)
{
	struct cfg_run	*r, *n;
	size_t		 size;

	if (!keep)
		count = 1;
	if (count > dx.d.count - dx.nkept - dx.nadded) {
		cfg_delta_refuse("more definitions than it said");
		return (-1);
	}
	r = dx.nruns > 0 ? &dx.runs[dx.nruns - 1] : NULL;
	if (!keep && r != NULL && !r->keep) {
		r->count++;
		dx.nadded++;
		return (0);
	}
	if (dx.nruns == dx.runsize) {
		size = dx.runsize == 0 ? 16 : dx.runsize * 2;
		if ((n = reallocarray(dx.runs, size, sizeof(*n))) == NULL)
			fatal("%s", __func__);
		dx.runs = n;
		dx.runsize = size;
	}
	r = &dx.runs[dx.nruns++];
	r->first = first;
	r->count = count;
	r->keep = keep;
	if (keep)
		dx.nkept += count;
	else
		dx.nadded++;
	return (0);
}

/* the current generation's definitions, in order, to be kept by index */
static int
cfg_delta_base(void)
{
	struct workload_conf	*wl;
	uint32_t		 n = 0, nb = cfg_cur->nworkloads;

	if ((dx.kept = calloc(nb / 8 + 1, 1)) == NULL)
		fatal("%s", __func__);
	/* without definitions, their names */
	if (cfg_forget)
		return (cn.gen == cfg_cur->id && cn.n == nb ? 0 : -1);
	if ((dx.base = calloc(nb > 0 ? nb : 1, sizeof(*dx.base))) == NULL)
		fatal("%s", __func__);
	TAILQ_FOREACH(wl, &cfg_cur->workloads, entry) {
		if (n == nb)
			return (-1);
		dx.base[n++] = wl;
	}
	return (n == nb ? 0 : -1);
}

/*
 * IMSG_CFG_DELTA, right after GLOBAL.  Refused, its KEEPs and WORKLOADs
 * are not read, and DONE asks for a full generation.
 */
void
cfg_recv_delta(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_delta	 d;
	const char		*why;

	(void)imsg_get_data(imsg, &d, sizeof(d));
	if (cfg_next == NULL) {
		log_warnx("configuration delta %u outside a transaction: "
		    "ignored", d.gen);
		return;
	}
	if (dx.active) {
		cfg_delta_refuse("a second delta in one generation");
		return;
	}
	dx.active = 1;
	dx.d = d;
	if (cfg_forget && !cfg_delta_ok)
		cfg_delta_refuse("this process keeps no definitions");
	else if (cfg_next->nworkloads > 0)
		cfg_delta_refuse("a delta after definitions");
	else if (d.gen != cfg_next->id)
		cfg_delta_refuse("not this generation's");
	else if (cfg_cur == NULL)
		cfg_delta_refuse("no generation to apply it to");
	else if (cfg_cur->id != d.base)
		cfg_delta_refuse("its base is not the current generation");
	else if (cfg_cur->nworkloads != d.base_count ||
	    cfg_delta_base() == -1)
		cfg_delta_refuse("its base has another count of workloads");
	else if (cfg_forget && memcmp(&cfg_cur->global, &cfg_next->global,
	    sizeof(cfg_cur->global)) != 0)
		cfg_delta_refuse("its globals are not its base's");
	else if (cfg_delta_check != NULL && (why = cfg_delta_check()) != NULL)
		cfg_delta_refuse(why);
}

/* IMSG_CFG_KEEP: each of the base's kept once, in its bounds */
void
cfg_recv_keep(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_keep	 k;
	uint32_t	 i;

	(void)imsg_get_data(imsg, &k, sizeof(k));
	if (cfg_next == NULL) {
		log_warnx("configuration keep outside a transaction: ignored");
		return;
	}
	if (!dx.active) {
		/* a full generation: DONE asks for it again, as a delta */
		dx.active = 1;
		cfg_delta_refuse("a keep outside a delta");
		return;
	}
	if (dx.refused != NULL)
		return;
	if (k.count == 0 || k.first >= dx.d.base_count ||
	    k.count > dx.d.base_count - k.first) {
		cfg_delta_refuse("a keep outside its base");
		return;
	}
	for (i = k.first; i < k.first + k.count; i++)
		if (dx.kept[i / 8] & (1U << (i % 8))) {
			cfg_delta_refuse("a definition kept twice");
			return;
		}
	if (cfg_delta_run(k.first, k.count, 1) == -1)
		return;
	for (i = k.first; i < k.first + k.count; i++)
		dx.kept[i / 8] |= 1U << (i % 8);
}

/*
 * At DONE: every definition the delta said came, and no name is twice.
 * The base's are each of one name, so a new one's name is looked for
 * among those kept, and among the other new ones.
 */
static int
cfg_delta_done(struct cfg_generation *gen)
{
	struct hashtab		 names = HASHTAB_INITIALIZER(0);
	struct workload_conf	*wl;
	uint32_t		 i;
	int			 r = 0;

	if (dx.refused != NULL)
		return (-1);
	if (dx.nkept + dx.nadded != dx.d.count) {
		cfg_delta_refuse("fewer definitions than it said");
		return (-1);
	}
	if (dx.nadded == 0)
		return (0);
	TAILQ_FOREACH(wl, &gen->workloads, entry)
		if ((r = hashtab_add(&names, wl->name, wl)) != 0)
			break;
	for (i = 0; r == 0 && i < dx.d.base_count; i++)
		if ((dx.kept[i / 8] & (1U << (i % 8))) &&
		    hashtab_find(&names, cfg_base_name(i)) != NULL)
			r = 1;
	hashtab_clear(&names);
	if (r == -1)
		fatal("%s", __func__);
	if (r != 0) {
		cfg_delta_refuse("a workload named twice");
		return (-1);
	}
	return (0);
}

/*
 * At START: the kept definitions move from the current generation into
 * the new one, each before the new definition its run came before.
 * What stays in cur is what was replaced or removed, freed with it.
 */
static void
cfg_delta_splice(const char *who, struct cfg_generation *cur,
    struct cfg_generation *gen)
{
	struct workload_conf	*next, *wl;
	const struct cfg_run	*r;
	size_t			 i;
	uint32_t		 j;

	next = TAILQ_FIRST(&gen->workloads);
	for (i = 0; i < dx.nruns; i++) {
		r = &dx.runs[i];
		for (j = 0; j < r->count; j++) {
			if (!r->keep) {
				next = TAILQ_NEXT(next, entry);
				continue;
			}
			wl = dx.base[r->first + j];
			TAILQ_REMOVE(&cur->workloads, wl, entry);
			cur->nworkloads--;
			if (next != NULL)
				TAILQ_INSERT_BEFORE(next, wl, entry);
			else
				TAILQ_INSERT_TAIL(&gen->workloads, wl, entry);
		}
	}
	gen->nworkloads = dx.d.count;
	log_debug("%s: configuration %u: delta of %u on %u, %u kept", who,
	    gen->id, dx.nadded, dx.d.base, dx.nkept);
	cfg_delta_clear();
}

/*
 * The names of a full generation, in order, taken before its definitions
 * are freed: the base of the next delta.
 */
static void
cfg_names_full(const struct cfg_generation *gen)
{
	const struct workload_conf	*wl;
	struct cfg_names		 c;
	size_t				 size = 0, len;

	cfg_names_free(&cn);
	TAILQ_FOREACH(wl, &gen->workloads, entry)
		size += strlen(wl->name) + 1;
	memset(&c, 0, sizeof(c));
	if (size > UINT32_MAX)
		fatalx("%s: names of %zu bytes", __func__, size);
	if ((c.off = calloc(gen->nworkloads > 0 ? gen->nworkloads : 1,
	    sizeof(*c.off))) == NULL || (c.arena = malloc(size > 0 ? size :
	    1)) == NULL)
		fatal("%s", __func__);
	size = 0;
	TAILQ_FOREACH(wl, &gen->workloads, entry) {
		if (c.n == gen->nworkloads)
			break;
		len = strlen(wl->name) + 1;
		memcpy(c.arena + size, wl->name, len);
		c.off[c.n++] = size;
		size += len;
	}
	c.gen = gen->id;
	cn = c;
}

/* a name into c, at the next place */
static void
cfg_names_put(struct cfg_names *c, size_t *at, const char *name)
{
	size_t	 len = strlen(name) + 1;

	memcpy(c->arena + *at, name, len);
	c->off[c->n++] = *at;
	*at += len;
}

/*
 * At START of a delta where no definitions are kept: the new order's
 * names (the next base), each one's base index or CFG_SENT, and the
 * base's names that no run kept and no definition sent replaces.
 */
static void
cfg_delta_view(const char *who, struct cfg_generation *gen)
{
	struct hashtab		 sent = HASHTAB_INITIALIZER(0);
	struct workload_conf	*wl;
	const struct cfg_run	*r;
	uint32_t		*map, i, j, k = 0;
	const char		**removed;
	size_t			 size = 0, at = 0;

	TAILQ_FOREACH(wl, &gen->workloads, entry) {
		size += strlen(wl->name) + 1;
		if (hashtab_add(&sent, wl->name, wl) == -1)
			fatal("%s", __func__);
	}
	for (i = 0; i < dx.d.base_count; i++)
		if (dx.kept[i / 8] & (1U << (i % 8)))
			size += strlen(cfg_base_name(i)) + 1;
	memset(&cn_next, 0, sizeof(cn_next));
	if (size > UINT32_MAX)
		fatalx("%s: names of %zu bytes", __func__, size);
	if ((map = calloc(dx.d.count > 0 ? dx.d.count : 1,
	    sizeof(*map))) == NULL || (removed = calloc(dx.d.base_count -
	    dx.nkept + 1, sizeof(*removed))) == NULL ||
	    (cn_next.off = calloc(dx.d.count > 0 ? dx.d.count : 1,
	    sizeof(*cn_next.off))) == NULL ||
	    (cn_next.arena = malloc(size > 0 ? size : 1)) == NULL)
		fatal("%s", __func__);
	wl = TAILQ_FIRST(&gen->workloads);
	for (i = 0; i < dx.nruns; i++) {
		r = &dx.runs[i];
		for (j = 0; j < r->count; j++, k++) {
			if (r->keep) {
				map[k] = r->first + j;
				cfg_names_put(&cn_next, &at,
				    cfg_base_name(r->first + j));
				continue;
			}
			map[k] = CFG_SENT;
			cfg_names_put(&cn_next, &at, wl->name);
			wl = TAILQ_NEXT(wl, entry);
		}
	}
	for (i = 0; i < dx.d.base_count; i++)
		if ((dx.kept[i / 8] & (1U << (i % 8))) == 0 &&
		    hashtab_find(&sent, cfg_base_name(i)) == NULL)
			removed[gen->nremoved++] = cfg_base_name(i);
	hashtab_clear(&sent);
	cn_next.gen = gen->id;
	gen->delta = 1;
	gen->keep_map = map;
	gen->removed = removed;
	gen->nworkloads = dx.d.count;
	log_debug("%s: configuration %u: delta of %u on %u, %u kept, %u "
	    "removed", who, gen->id, dx.nadded, dx.d.base, dx.nkept,
	    gen->nremoved);
}

/* after its apply: the delta's names are the next base, the rest goes */
static void
cfg_delta_view_end(struct cfg_generation *gen)
{
	free((void *)gen->keep_map);
	free((void *)gen->removed);
	gen->keep_map = NULL;
	gen->removed = NULL;
	gen->nremoved = 0;
	gen->delta = 0;
	cfg_names_free(&cn);
	cn = cn_next;
	memset(&cn_next, 0, sizeof(cn_next));
	cfg_delta_clear();
}

void
cfg_recv_global(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));

	(void)imsg_get_data(imsg, &gen->global, sizeof(gen->global));
}

void
cfg_recv_workload(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));
	struct workload_conf	*wc, *wl;
	char			 err[256];

	if (dx.active && (dx.refused != NULL ||
	    cfg_delta_run(0, 1, 0) == -1))
		return;
	/* the parent validated it: a bad one means we are out of step */
	if ((wc = workload_wire_read(imsg->data, imsg_get_len(imsg), err,
	    sizeof(err))) == NULL)
		fatalx("workload from parent: %s", err);
	/* held for the generation's life: in one allocation */
	if ((wl = workload_pack(wc)) == NULL)
		fatal("%s", __func__);
	workload_free(wc);
	TAILQ_INSERT_TAIL(&gen->workloads, wl, entry);
	gen->nworkloads++;
}

void
cfg_recv_done(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));

	if (dx.active && cfg_delta_done(gen) == -1) {
		log_warnx("%s: configuration %u: delta refused: %s; a full "
		    "one is asked for", proc_name(iev->ps->id), gen->id,
		    dx.refused);
		imsgev_compose(iev, IMSG_CFG_RESEND, 0, -1, &gen->id,
		    sizeof(gen->id));
		cfg_free(cfg_next);
		cfg_next = NULL;
		cfg_delta_clear();
		return;
	}
	imsgev_compose(iev, IMSG_CFG_DONE, 0, -1, &gen->id, sizeof(gen->id));
}

void
cfg_recv_start(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = iev->ps;
	struct cfg_generation	*old;
	uint32_t		 id;

	(void)imsg_get_data(imsg, &id, sizeof(id));
	if (cfg_next == NULL || cfg_next->id != id)
		fatalx("start of configuration %u that was not sent", id);
	if (dx.active && !cfg_forget)
		cfg_delta_splice(proc_name(ps->id), cfg_cur, cfg_next);
	else if (dx.active)
		cfg_delta_view(proc_name(ps->id), cfg_next);
	old = cfg_cur;
	cfg_cur = cfg_next;
	cfg_next = NULL;
	ps->generation = cfg_cur->id;
	ps->workloads = cfg_cur->nworkloads;
	log_setverbose(cfg_cur->global.verbose);
	if (cfg_apply != NULL)
		cfg_apply(ps, cfg_cur, old);
	cfg_free(old);
	if (cfg_cur->delta)
		cfg_delta_view_end(cfg_cur);
	else if (cfg_delta_ok)
		cfg_names_full(cfg_cur);
	if (cfg_forget)
		cfg_free_workloads(cfg_cur);
	heap_trim();
	log_debug("%s: configuration %u applied, %u workload%s",
	    proc_name(ps->id), cfg_cur->id, cfg_cur->nworkloads,
	    cfg_cur->nworkloads == 1 ? "" : "s");
}

/*
 * The workloads of the generation being received, 0 outside a
 * transaction: what runtimed may hold of the store's restore before that
 * generation starts (one row a workload at most).
 */
uint32_t
cfg_pending_workloads(void)
{
	return (cfg_next != NULL ? cfg_next->nworkloads : 0);
}
