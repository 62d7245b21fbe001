/*
 * A workload definition in one allocation: the struct, then its list
 * entries, then its strings.  The children hold every definition of the
 * current generation, and workload_from_json() makes a dozen small
 * allocations of each, which malloc's headers and rounding make a third
 * larger; at 10,000 workloads that is megabytes.  A packed definition is
 * read like any other, and workload_free() knows it by its packed flag.
 */

#include <sys/queue.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/*
 * Every pointer of struct workload_conf is re-pointed below.  A field
 * added there must be copied here too: this stops the build until the
 * size below is brought up to date, so that one is not forgotten.
 */
#ifdef __LP64__
_Static_assert(sizeof(struct workload_conf) == 440,
    "struct workload_conf changed: update workload_pack()");
#endif

struct pack {
	char	*obj;		/* next list entry */
	char	*str;		/* next string */
};

static size_t
str_size(const char *s)
{
	return (s != NULL ? strlen(s) + 1 : 0);
}

static size_t
strlist_size(const struct strlist *l, size_t *objs)
{
	const struct strentry	*e;
	size_t			 n = 0;

	TAILQ_FOREACH(e, l, entry) {
		*objs += sizeof(*e);
		n += str_size(e->str);
	}
	return (n);
}

static char *
pack_str(struct pack *pk, const char *s)
{
	char	*p;
	size_t	 len;

	if (s == NULL)
		return (NULL);
	len = strlen(s) + 1;
	p = pk->str;
	memcpy(p, s, len);
	pk->str += len;
	return (p);
}

static void
pack_strlist(struct pack *pk, struct strlist *dst, const struct strlist *src)
{
	const struct strentry	*e;
	struct strentry		*n;

	TAILQ_INIT(dst);
	TAILQ_FOREACH(e, src, entry) {
		n = (struct strentry *)pk->obj;
		pk->obj += sizeof(*n);
		n->str = pack_str(pk, e->str);
		TAILQ_INSERT_TAIL(dst, n, entry);
	}
}

static void
pack_ignores(struct pack *pk, struct ignorelist *dst,
    const struct ignorelist *src)
{
	const struct ignore_rule	*r;
	struct ignore_rule		*n;

	TAILQ_INIT(dst);
	TAILQ_FOREACH(r, src, entry) {
		n = (struct ignore_rule *)pk->obj;
		pk->obj += sizeof(*n);
		n->kind = r->kind;
		n->answer = r->answer;
		n->pattern = pack_str(pk, r->pattern);
		TAILQ_INSERT_TAIL(dst, n, entry);
	}
}

static void
pack_volumes(struct pack *pk, struct volumelist *dst,
    const struct volumelist *src)
{
	const struct volume	*v;
	struct volume		*n;

	TAILQ_INIT(dst);
	TAILQ_FOREACH(v, src, entry) {
		n = (struct volume *)pk->obj;
		pk->obj += sizeof(*n);
		n->host = pack_str(pk, v->host);
		n->container = pack_str(pk, v->container);
		TAILQ_INSERT_TAIL(dst, n, entry);
	}
}

/* The bytes of the strings; *objs gets the bytes of the list entries. */
static size_t
pack_size(const struct workload_conf *wc, size_t *objs)
{
	const struct volume		*v;
	const struct ignore_rule	*r;
	size_t				 n;

	*objs = 0;
	n = strlist_size(&wc->hosts, objs) + strlist_size(&wc->env, objs) +
	    strlist_size(&wc->depends, objs) +
	    strlist_size(&wc->constraints, objs) +
	    strlist_size(&wc->listens, objs);
	TAILQ_FOREACH(v, &wc->volumes, entry) {
		*objs += sizeof(*v);
		n += str_size(v->host) + str_size(v->container);
	}
	TAILQ_FOREACH(r, &wc->ignores, entry) {
		*objs += sizeof(*r);
		n += str_size(r->pattern);
	}
	n += str_size(wc->command) + str_size(wc->image) +
	    str_size(wc->runtime) + str_size(wc->netname) +
	    str_size(wc->user) +
	    str_size(wc->directory) + str_size(wc->address) +
	    str_size(wc->health_path) + str_size(wc->busy_path);
	return (n);
}

/* NULL when out of memory; wc is left as it was either way. */
struct workload_conf *
workload_pack(const struct workload_conf *wc)
{
	struct workload_conf	*n;
	struct pack		 pk;
	size_t			 objs, strs;

	strs = pack_size(wc, &objs);
	/* entries hold pointers: they come first, at the struct's alignment */
	if ((n = malloc(sizeof(*n) + objs + strs)) == NULL)
		return (NULL);
	memcpy(n, wc, sizeof(*n));
	n->packed = 1;
	pk.obj = (char *)(n + 1);
	pk.str = pk.obj + objs;
	pack_strlist(&pk, &n->hosts, &wc->hosts);
	pack_strlist(&pk, &n->env, &wc->env);
	pack_strlist(&pk, &n->depends, &wc->depends);
	pack_strlist(&pk, &n->constraints, &wc->constraints);
	pack_strlist(&pk, &n->listens, &wc->listens);
	pack_volumes(&pk, &n->volumes, &wc->volumes);
	pack_ignores(&pk, &n->ignores, &wc->ignores);
	n->command = pack_str(&pk, wc->command);
	n->image = pack_str(&pk, wc->image);
	n->runtime = pack_str(&pk, wc->runtime);
	n->netname = pack_str(&pk, wc->netname);
	n->user = pack_str(&pk, wc->user);
	n->directory = pack_str(&pk, wc->directory);
	n->address = pack_str(&pk, wc->address);
	n->health_path = pack_str(&pk, wc->health_path);
	n->busy_path = pack_str(&pk, wc->busy_path);
	return (n);
}
