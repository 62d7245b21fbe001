/*
 * The graph of "depends on" over a set of workloads: every name depended
 * on is a workload of the set, none depends on itself through others,
 * and no chain is longer than ORCHD_DEPS_DEPTH.  One check for the file
 * (orchd/parse_check.c, which knows the lines), for a workload of the
 * API against the running configuration (orchd/parent_api.c) and for
 * what a reload keeps.
 *
 * Each problem goes to the caller's report function with the workload,
 * the name it depends on where the problem shows and the whole message.
 * The walk is iterative and linear in workloads and dependencies: the
 * set may hold 10,000 workloads, and an API client chooses some of them.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
#include "hashtab.h"
#include "workload.h"

#define DEPS_NONE	SIZE_MAX	/* a name of no workload of the set */
#define DEPS_MSG_MAX	512

enum deps_color {
	WHITE = 0,		/* not seen yet */
	GREY,			/* on the walk's stack */
	BLACK			/* done, its height known */
};

struct deps {
	const struct workload_conf *const *wl;
	size_t			 n;
	struct hashtab		 names;		/* to &wl[i]; zeroed: with case */
	size_t			*first;		/* edges of i: first[i] to
						   first[i + 1] */
	size_t			*edge;		/* the workload depended on */
	const char		**edgename;	/* its name, as written */
	unsigned char		*color;
	size_t			*next;		/* the next edge to walk */
	size_t			*height;	/* longest chain below, edges */
	size_t			*stack;
	size_t			*onstack;	/* its place there, if grey */
	int			 cycles;	/* found so far */
};

static size_t
deps_find(const struct deps *d, const char *name)
{
	const struct workload_conf *const	*w;

	if ((w = hashtab_find(&d->names, name)) == NULL)
		return (DEPS_NONE);
	return (w - d->wl);
}

static void
deps_free(struct deps *d)
{
	hashtab_clear(&d->names);
	free(d->first);
	free(d->edge);
	free(d->edgename);
	free(d->color);
	free(d->next);
	free(d->height);
	free(d->stack);
	free(d->onstack);
}

static int
deps_build(struct deps *d)
{
	const struct strentry	*e;
	size_t			 i, nedges = 0;

	for (i = 0; i < d->n; i++)
		TAILQ_FOREACH(e, &d->wl[i]->depends, entry)
			nedges++;
	d->first = calloc(d->n + 1, sizeof(*d->first));
	d->edge = calloc(nedges + 1, sizeof(*d->edge));
	d->edgename = calloc(nedges + 1, sizeof(*d->edgename));
	d->color = calloc(d->n, sizeof(*d->color));
	d->next = calloc(d->n, sizeof(*d->next));
	d->height = calloc(d->n, sizeof(*d->height));
	d->stack = calloc(d->n, sizeof(*d->stack));
	d->onstack = calloc(d->n, sizeof(*d->onstack));
	if (d->first == NULL || d->edge == NULL ||
	    d->edgename == NULL || d->color == NULL || d->next == NULL ||
	    d->height == NULL || d->stack == NULL || d->onstack == NULL)
		return (-1);
	/* a name given twice is the set's problem to report: the first
	   counts */
	for (i = 0; i < d->n; i++)
		if (hashtab_add(&d->names, d->wl[i]->name, &d->wl[i]) == -1)
			return (-1);
	nedges = 0;
	for (i = 0; i < d->n; i++) {
		d->first[i] = d->next[i] = nedges;
		TAILQ_FOREACH(e, &d->wl[i]->depends, entry) {
			d->edge[nedges] = deps_find(d, e->str);
			d->edgename[nedges++] = e->str;
		}
	}
	d->first[d->n] = nedges;
	return (0);
}

/* "a -> b -> a": the stack from v's place, then v again; cut with "..." */
static void
cycle_path(const struct deps *d, size_t sp, size_t v, char *buf, size_t len)
{
	size_t	 i;
	int	 cut = 0;

	buf[0] = '\0';
	for (i = d->onstack[v]; i < sp && !cut; i++)
		cut = strlcat(buf, d->wl[d->stack[i]]->name, len) >= len ||
		    strlcat(buf, " -> ", len) >= len;
	if (!cut && strlcat(buf, d->wl[v]->name, len) < len)
		return;
	if (len > 4)
		memcpy(buf + len - 4, "...", 4);
}

static void
report_cycle(const struct deps *d, size_t sp, size_t k, deps_report_fn report,
    void *arg)
{
	char	 path[DEPS_MSG_MAX - 128], msg[DEPS_MSG_MAX];
	size_t	 u = d->stack[sp - 1];

	cycle_path(d, sp, d->edge[k], path, sizeof(path));
	(void)snprintf(msg, sizeof(msg), "workload \"%s\": depends on \"%s\": "
	    "a cycle: %s", d->wl[u]->name, d->edgename[k], path);
	report(arg, d->wl[u], d->edgename[k], msg);
}

/*
 * u is done: its height from its children's.  The chain becomes too long
 * at the edge whose child is just at the limit: reported there alone,
 * and not after a cycle, around which every chain is long.
 */
static int
deps_finish(struct deps *d, size_t u, deps_report_fn report, void *arg)
{
	char	 msg[DEPS_MSG_MAX];
	size_t	 k, v, h = 0;
	int	 problems = 0;

	for (k = d->first[u]; k < d->first[u + 1]; k++) {
		if ((v = d->edge[k]) == DEPS_NONE || d->color[v] != BLACK)
			continue;
		if (d->height[v] == ORCHD_DEPS_DEPTH && d->cycles == 0) {
			(void)snprintf(msg, sizeof(msg), "workload \"%s\": "
			    "depends on \"%s\": a chain of dependencies "
			    "longer than %d", d->wl[u]->name, d->edgename[k],
			    ORCHD_DEPS_DEPTH);
			report(arg, d->wl[u], d->edgename[k], msg);
			problems++;
		}
		if (d->height[v] + 1 > h)
			h = d->height[v] + 1;
	}
	/* kept from growing past the limit: reported once is enough */
	d->height[u] = h > ORCHD_DEPS_DEPTH + 1 ? ORCHD_DEPS_DEPTH + 1 : h;
	d->color[u] = BLACK;
	return (problems);
}

/* depth first from root, with a stack of our own */
static int
deps_walk(struct deps *d, size_t root, deps_report_fn report, void *arg)
{
	size_t	 sp = 0, u, v, k;
	int	 problems = 0;

	d->color[root] = GREY;
	d->onstack[root] = sp;
	d->stack[sp++] = root;
	while (sp > 0) {
		u = d->stack[sp - 1];
		if (d->next[u] == d->first[u + 1]) {
			problems += deps_finish(d, u, report, arg);
			sp--;
			continue;
		}
		k = d->next[u]++;
		if ((v = d->edge[k]) == DEPS_NONE || d->color[v] == BLACK)
			continue;
		if (d->color[v] == GREY) {
			report_cycle(d, sp, k, report, arg);
			d->cycles++;
			problems++;
			continue;
		}
		d->color[v] = GREY;
		d->onstack[v] = sp;
		d->stack[sp++] = v;
	}
	return (problems);
}

/*
 * The n workloads of wl, in the order their problems are to be found:
 * names of no workload first, then cycles and chains too long.  The
 * number of problems, or -1 out of memory.
 */
int
deps_check(const struct workload_conf *const *wl, size_t n,
    deps_report_fn report, void *arg)
{
	struct deps	 d;
	char		 msg[DEPS_MSG_MAX];
	size_t		 i, k;
	int		 problems = 0;

	memset(&d, 0, sizeof(d));
	d.wl = wl;
	d.n = n;
	if (deps_build(&d) == -1) {
		deps_free(&d);
		return (-1);
	}
	for (i = 0; i < n; i++)
		for (k = d.first[i]; k < d.first[i + 1]; k++) {
			if (d.edge[k] != DEPS_NONE)
				continue;
			(void)snprintf(msg, sizeof(msg), "workload \"%s\": "
			    "depends on \"%s\": no such workload",
			    wl[i]->name, d.edgename[k]);
			report(arg, wl[i], d.edgename[k], msg);
			problems++;
		}
	for (i = 0; i < n; i++)
		if (d.color[i] == WHITE)
			problems += deps_walk(&d, i, report, arg);
	deps_free(&d);
	return (problems);
}
