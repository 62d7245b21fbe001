/*
 * A reload sends runtimed, the store, the reaper and the gateways only
 * what changed.
 *
 * The parent keeps, for the last generation it sent, each workload's name
 * and the digests of the definitions sent: runtimed's (it may carry a uid
 * the others' do not) and the others'.  The digest is keyed (SipHash-2-4,
 * its key drawn at random by this process and never sent): a definition
 * is the API client's to choose, and with an unkeyed digest a client
 * could make a changed definition collide with the one the children have,
 * which they would then keep.  When that generation runs everywhere, the
 * next one goes to those processes as a delta on it (IMSG_CFG_DELTA): the
 * workloads in the new order, each a run of the base's kept
 * (IMSG_CFG_KEEP, by index) or a definition sent in full
 * (IMSG_CFG_WORKLOAD) because it is new or its digest changed.  A name
 * removed is one no run keeps.  The globals and everything else of the
 * transaction are sent whole, as before: a child applies the whole new
 * generation either way, so a delta is exactly what a full send would
 * have given it.
 *
 * Each class of those that take a delta (runtimed; the store and the
 * reaper; the gateways, sent what they are sent) has its own runs: a
 * definition kept by one may be sent to another.  The others keep no
 * definitions cfgrecv.c can keep, only their own state of each workload
 * (the gateways' small forms, gatewayd/wldef.c; common/cfgrecv.c gives
 * them the kept ones' places): what they derived from the globals would
 * be stale after other globals, so a generation whose globals changed
 * goes to them in full, as does the first generation to all; and the
 * gateways are sent every one after a generation with "depends on", which
 * they would refuse (gatewayd/route_apply.c).  A child that refuses a
 * delta (its generation is not the base, or the delta does not add up:
 * common/cfgrecv.c) answers IMSG_CFG_RESEND; the generation is then
 * replaced by a full one to every child, and the answers to the replaced
 * one are let go.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "hashtab.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "parent.h"
#include "proc.h"
#include "siphash.h"
#include "util.h"
#include "workload.h"

/* those who take a delta, by the definition they are sent */
enum delta_class {
	DC_RUNTIME,			/* runtimed's */
	DC_DEFS,			/* the store's and the reaper's */
	DC_GATEWAY,			/* the gateways': the same */
	DC_N
};
/* the digest a class keeps by: the gateways' definitions are the store's */
#define DC_DIGEST(c)	((c) == DC_GATEWAY ? DC_DEFS : (c))

/* a workload as the children were sent it */
struct sent_wl {
	size_t		 name;		/* in its sent_gen's names */
	int		 taken;		/* found by the next generation */
	uint64_t	 digest[DC_GATEWAY]; /* of runtimed's, of the others' */
};

/*
 * The names are copied into one block, sized before the send: no
 * allocation that outlives the send sits among the messages queued to
 * the children, so that the heap they take goes back when they are
 * written (a name strdup'ed among them held 110 MiB at 30,000).
 */
struct sent_gen {
	struct sent_wl	*v;
	uint32_t	 n;
	uint32_t	 size;
	char		*arena;
	size_t		 alen;
	size_t		 asize;
	uint32_t	 gen;		/* 0: none */
	int		 deps;		/* a workload depends on another */
	struct global_settings gs;	/* what it was sent with */
	uint32_t	 next;		/* where the next name likely is */
	int		 indexed;	/* names is made */
	struct hashtab	 names;		/* name -> its sent_wl */
};

static void	sent_reserve(struct sent_gen *, uint32_t, size_t);

static struct sent_gen	 cur;		/* the last one sent */
static struct sent_gen	 nxt;		/* the one being sent */
static int		 delta_on[DC_N]; /* this generation goes as a delta */
static int		 force_full;	/* a child refused the last delta */
static uint32_t		 stale;		/* a generation replaced by a full */
static struct cfg_keep	 run[DC_N];	/* the run of kept ones being made */
static uint32_t		 nsent[DC_N];	/* definitions sent in this delta */

/* the digest of a definition, keyed by this process alone */
static uint64_t
sent_digest(const void *def, size_t len)
{
	static uint8_t	 key[SIPHASH_KEY_LEN];
	static int	 keyed;

	if (!keyed) {
		arc4random_buf(key, sizeof(key));
		keyed = 1;
	}
	return (siphash24(key, def, len));
}

/* the class of process id, or -1: sent every definition */
static int
delta_class(int id)
{
	switch (id) {
	case PROC_RUNTIME:
		return (DC_RUNTIME);
	case PROC_STORE:
	case PROC_REAPER:
		return (DC_DEFS);
	case PROC_GATEWAY:
		return (DC_GATEWAY);
	default:
		return (-1);
	}
}

static int
delta_child(int id)
{
	int	 c = delta_class(id);

	return (c != -1 && delta_on[c]);
}

static void
sent_free(struct sent_gen *s)
{
	hashtab_clear(&s->names);
	free(s->arena);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* to every process of class c */
static void
delta_compose(struct orchd *env, int c, uint32_t type, const void *data,
    size_t len)
{
	int	 id;

	for (id = PROC_PARENT + 1; id < PROC_ACME; id++)
		if (delta_class(id) == c && proc_compose(&env->ps, id, type,
		    0, -1, data, len) == -1)
			fatal("%s: compose to %s", __func__, proc_name(id));
}

/*
 * After GLOBAL: whether gen goes as a delta, said to those it goes to.
 * Only on the generation every child runs, whose definitions the parent
 * knows it sent.
 */
void
config_delta_begin(struct orchd *env, uint32_t gen, uint32_t count,
    const struct global_settings *gs)
{
	struct cfg_delta		 d;
	const struct workload_conf	*wl;
	size_t				 asize = 0;
	int				 c, on;

	sent_free(&nxt);
	(void)pdef_count(env->conf, &asize);
	/* none at rest has a "depends on": pdef.c keeps those whole */
	TAILQ_FOREACH(wl, &env->conf->workloads, entry)
		nxt.deps |= !TAILQ_EMPTY(&wl->depends);
	sent_reserve(&nxt, count, asize);
	nxt.gen = gen;
	nxt.gs = *gs;
	memset(run, 0, sizeof(run));
	memset(nsent, 0, sizeof(nsent));
	on = !force_full && cur.gen != 0 && cur.gen == env->ps.generation;
	force_full = 0;
	delta_on[DC_RUNTIME] = on;
	/* the same bytes: what they derived from them holds */
	delta_on[DC_DEFS] = on && memcmp(&cur.gs, gs, sizeof(*gs)) == 0;
	/* a gateway refuses one on a generation with "depends on" */
	delta_on[DC_GATEWAY] = delta_on[DC_DEFS] && !cur.deps;
	memset(&d, 0, sizeof(d));
	d.gen = gen;
	d.base = cur.gen;
	d.base_count = cur.n;
	d.count = count;
	for (c = 0; c < DC_N; c++)
		if (delta_on[c])
			delta_compose(env, c, IMSG_CFG_DELTA, &d, sizeof(d));
}

static void
run_flush(struct orchd *env, int c)
{
	if (run[c].count == 0)
		return;
	delta_compose(env, c, IMSG_CFG_KEEP, &run[c], sizeof(run[c]));
	memset(&run[c], 0, sizeof(run[c]));
}

/*
 * The entry of name in the last generation sent, or NULL.  Workloads
 * mostly come in the order they came before: the one after the last
 * found is tried first, and the names are only indexed at the first
 * that is elsewhere, so that a reload that changes little hashes
 * nothing.
 */
static struct sent_wl *
sent_find(struct sent_gen *s, const char *name)
{
	struct sent_wl	*e;
	uint32_t	 i;

	if (s->next < s->n && !s->v[s->next].taken &&
	    strcmp(s->arena + s->v[s->next].name, name) == 0)
		e = &s->v[s->next];
	else {
		if (!s->indexed) {
			for (i = 0; i < s->n; i++)
				if (hashtab_add(&s->names, s->arena +
				    s->v[i].name, &s->v[i]) == -1)
					fatal("%s", __func__);
			s->indexed = 1;
		}
		/* one found already is not again */
		if ((e = (struct sent_wl *)hashtab_find(&s->names,
		    name)) == NULL || e->taken)
			return (NULL);
	}
	e->taken = 1;
	s->next = e - s->v + 1;
	return (e);
}

/* room for n workloads and names of asize bytes, made before the send */
static void
sent_reserve(struct sent_gen *s, uint32_t n, size_t asize)
{
	struct sent_wl	*v;
	char		*a;

	if (n > s->size) {
		if ((v = reallocarray(s->v, n, sizeof(*v))) == NULL)
			fatal("%s", __func__);
		s->v = v;
		s->size = n;
	}
	if (asize > s->asize) {
		if ((a = realloc(s->arena, asize)) == NULL)
			fatal("%s", __func__);
		s->arena = a;
		s->asize = asize;
	}
}

/* a name, copied into the block of names */
static void
sent_add(struct sent_gen *s, const char *name, const uint64_t *digest)
{
	size_t	 len = strlen(name) + 1;

	/* more than reserved (not expected): grown, as any array */
	if (s->n == s->size || s->asize - s->alen < len)
		sent_reserve(s, s->n == s->size ? s->size * 2 + 1024 : s->size,
		    s->asize - s->alen < len ? s->asize * 2 + len : s->asize);
	memcpy(s->arena + s->alen, name, len);
	s->v[s->n].name = s->alen;
	s->v[s->n].taken = 0;
	memcpy(s->v[s->n].digest, digest, sizeof(s->v[s->n].digest));
	s->alen += len;
	s->n++;
}

/*
 * One workload's definitions: def for every child, rdef for runtimed.
 * Kept, when the children have them already, or sent.
 */
void
config_delta_workload(struct orchd *env, const char *name, const void *def,
    size_t len, const void *rdef, size_t rlen)
{
	struct sent_wl	*e;
	uint64_t	 d[DC_GATEWAY];
	uint32_t	 k;
	int		 c, id;

	d[DC_DEFS] = sent_digest(def, len);
	d[DC_RUNTIME] = rdef == def ? d[DC_DEFS] : sent_digest(rdef, rlen);
	e = sent_find(&cur, name);
	k = e != NULL ? e - cur.v : 0;
	sent_add(&nxt, name, d);
	for (id = PROC_PARENT + 1; id < PROC_ACME; id++) {
		if (delta_child(id))
			continue;
		if (proc_compose(&env->ps, id, IMSG_CFG_WORKLOAD, 0, -1,
		    id == PROC_RUNTIME ? rdef : def,
		    id == PROC_RUNTIME ? rlen : len) == -1)
			fatal("%s: compose to %s", __func__, proc_name(id));
	}
	for (c = 0; c < DC_N; c++) {
		if (!delta_on[c])
			continue;
		if (e != NULL && e->digest[DC_DIGEST(c)] == d[DC_DIGEST(c)]) {
			if (run[c].count > 0 && run[c].first + run[c].count == k)
				run[c].count++;
			else {
				run_flush(env, c);
				run[c].first = k;
				run[c].count = 1;
			}
			continue;
		}
		run_flush(env, c);
		nsent[c]++;
		if (c == DC_RUNTIME)
			delta_compose(env, c, IMSG_CFG_WORKLOAD, rdef, rlen);
		else
			delta_compose(env, c, IMSG_CFG_WORKLOAD, def, len);
	}
}

/* the last run; what was sent is the base of the next delta */
void
config_delta_end(struct orchd *env)
{
	static const char *const who[DC_N] = { "runtimed",
	    "the store and reaper", "the gateways" };
	int	 c;

	for (c = 0; c < DC_N; c++) {
		if (delta_on[c]) {
			run_flush(env, c);
			log_debug("configuration %u: to %s a delta of %u on "
			    "%u, %u workloads", nxt.gen, who[c], nsent[c],
			    cur.gen, nxt.n);
		} else
			log_debug("configuration %u: to %s in full, %u "
			    "workloads", nxt.gen, who[c], nxt.n);
	}
	sent_free(&cur);
	cur = nxt;
	memset(&nxt, 0, sizeof(nxt));
}

/* a DONE or RESEND of a generation replaced by a full one: let go */
int
config_delta_stale(uint32_t gen)
{
	return (stale != 0 && gen == stale);
}

/*
 * IMSG_CFG_RESEND: a child refused the delta of the generation under
 * way.  It is replaced by a full one, to every child.
 */
void
config_recv_resend(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	uint32_t	 gen;

	(void)imsg_get_data(imsg, &gen, sizeof(gen));
	if (config_delta_stale(gen))
		return;
	if (gen != env->generation || env->cfg_acks <= 0) {
		log_warnx("%s refused configuration %u, not the one under "
		    "way (%u): ignored", proc_name(iev->peer), gen,
		    env->generation);
		return;
	}
	log_warnx("%s refused the delta of configuration %u: sending a "
	    "full one", proc_name(iev->peer), gen);
	stale = gen;
	force_full = 1;
	config_send(env);
}
