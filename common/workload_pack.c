/*
 * A workload definition in one allocation: the struct, then its list
 * entries, then its strings.  The children hold every definition of the
 * current generation, and workload_from_json() makes a dozen small
 * allocations of each, which malloc's headers and rounding make a third
 * larger; at 10,000 workloads that is megabytes.  A packed definition is
 * read like any other, and workload_free() knows it by its packed flag.
 * What each field holds beyond the struct comes from its type, in the
 * table of the fields (workload_fields.c): a field added there is copied
 * here without a word.
 */

#include <sys/queue.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "workload_fields.h"

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

/* The bytes a field holds beyond the struct: strings, and in *objs entries */
static size_t
field_size(const struct workload_conf *wc, const struct wl_field *f,
    size_t *objs)
{
	const void			*p = WF_CPTR(wc, f);
	const struct volume		*v;
	const struct ignore_rule	*r;
	size_t				 n = 0;

	switch (f->type) {
	case WF_STRING:
		return (str_size(*(char * const *)p));
	case WF_NETWORK:
		return (str_size(wc->netname));
	case WF_STRLIST:
		return (strlist_size(p, objs));
	case WF_VOLUMES:
		TAILQ_FOREACH(v, (const struct volumelist *)p, entry) {
			*objs += sizeof(*v);
			n += str_size(v->host) + str_size(v->container);
		}
		return (n);
	case WF_IGNORES:
		TAILQ_FOREACH(r, (const struct ignorelist *)p, entry) {
			*objs += sizeof(*r);
			n += str_size(r->pattern);
		}
		return (n);
	default:
		return (0);
	}
}

/* a field's strings and entries, from wc into n */
static void
field_pack(struct pack *pk, struct workload_conf *n,
    const struct workload_conf *wc, const struct wl_field *f)
{
	const void	*src = WF_CPTR(wc, f);
	void		*dst = WF_PTR(n, f);

	switch (f->type) {
	case WF_STRING:
		*(char **)dst = pack_str(pk, *(char * const *)src);
		break;
	case WF_NETWORK:
		n->netname = pack_str(pk, wc->netname);
		break;
	case WF_STRLIST:
		pack_strlist(pk, dst, src);
		break;
	case WF_VOLUMES:
		pack_volumes(pk, dst, src);
		break;
	case WF_IGNORES:
		pack_ignores(pk, dst, src);
		break;
	default:
		break;
	}
}

/* NULL when out of memory; wc is left as it was either way. */
struct workload_conf *
workload_pack(const struct workload_conf *wc)
{
	struct workload_conf	*n;
	struct pack		 pk;
	size_t			 i, objs = 0, strs = 0;

	for (i = 0; i < wl_nfields; i++)
		strs += field_size(wc, &wl_fields[i], &objs);
	/* entries hold pointers: they come first, at the struct's alignment */
	if ((n = malloc(sizeof(*n) + objs + strs)) == NULL)
		return (NULL);
	memcpy(n, wc, sizeof(*n));
	n->packed = 1;
	pk.obj = (char *)(n + 1);
	pk.str = pk.obj + objs;
	for (i = 0; i < wl_nfields; i++)
		field_pack(&pk, n, wc, &wl_fields[i]);
	return (n);
}
