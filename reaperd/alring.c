/*
 * The last access-log lines of each workload, for the status page and
 * GET /v1/workloads/NAME/access (gatewayd/alogkeep.c sends them).
 *
 * Every gateway of "prefork N" writes the lines of the requests it
 * served; a client of the API reaches any one of them.  The reaper,
 * which already holds what the gateways share (the cap on wrong keys,
 * the sessions), unprivileged, with no network and no file, keeps them
 * for all: whichever gateway answers, the lines are every gateway's.
 * The root parent, which writes the log file, is not asked: it reads
 * no text from a child.
 *
 * Bounded twice: ALRING_PER_WL lines a workload (its oldest goes), and
 * ALRING_BYTES in all, the malloc'd lines and workloads counted (the
 * oldest line of any workload goes, so that a busy workload pushes out
 * old lines of quiet ones only when the total is reached).  A line is
 * at most ALOG_KEEP_LINE bytes (the gateway cut it), so the worst case
 * is known: ALRING_BYTES, whatever the number of workloads.
 */

#include <sys/queue.h>
#include <sys/tree.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "alring.h"

int	alring_cmp(struct alring_wl *, struct alring_wl *);
RB_PROTOTYPE(alring_tree, alring_wl, entry, alring_cmp);
RB_GENERATE(alring_tree, alring_wl, entry, alring_cmp);

int
alring_cmp(struct alring_wl *a, struct alring_wl *b)
{
	return (strcmp(a->name, b->name));
}

void
alring_init(struct alring *r)
{
	memset(r, 0, sizeof(*r));
	RB_INIT(&r->tree);
	TAILQ_INIT(&r->all);
}

static struct alring_wl *
alring_find(struct alring *r, const char *name)
{
	struct alring_wl	 key;

	if (strlcpy(key.name, name, sizeof(key.name)) >= sizeof(key.name))
		return (NULL);
	return (RB_FIND(alring_tree, &r->tree, &key));
}

/* one line out; its workload too when it was the last */
static void
alring_drop(struct alring *r, struct alring_line *l)
{
	struct alring_wl	*w = l->wl;

	TAILQ_REMOVE(&w->lines, l, wl_entry);
	TAILQ_REMOVE(&r->all, l, all_entry);
	w->n--;
	r->lines--;
	r->bytes -= sizeof(*l) + l->len;
	free(l);
	if (w->n == 0) {
		RB_REMOVE(alring_tree, &r->tree, w);
		r->bytes -= sizeof(*w);
		free(w);
	}
}

/*
 * A line of workload name, of a request started at start_ms (len bytes,
 * no newline needed): 0, or -1 when it cannot be kept (too long, no
 * memory); nothing else is lost.  Each gateway sends its lines a batch
 * at a time: a line goes after those of requests started before it,
 * found from the newest (most often at once).
 */
int
alring_add(struct alring *r, const char *name, int64_t start_ms,
    const char *text, size_t len)
{
	struct alring_wl	*w;
	struct alring_line	*l, *prev;

	if (len > ALOG_KEEP_LINE || name[0] == '\0' ||
	    strnlen(name, ORCHD_NAME_MAX) >= ORCHD_NAME_MAX)
		return (-1);
	if ((l = malloc(sizeof(*l) + len)) == NULL)
		return (-1);
	memcpy(l->text, text, len);
	l->len = len;
	l->start_ms = start_ms;
	if ((w = alring_find(r, name)) == NULL) {
		if ((w = calloc(1, sizeof(*w))) == NULL) {
			free(l);
			return (-1);
		}
		(void)strlcpy(w->name, name, sizeof(w->name));
		TAILQ_INIT(&w->lines);
		RB_INSERT(alring_tree, &r->tree, w);
		r->bytes += sizeof(*w);
	}
	l->wl = w;
	prev = TAILQ_LAST(&w->lines, alring_lines);
	while (prev != NULL && prev->start_ms > start_ms)
		prev = TAILQ_PREV(prev, alring_lines, wl_entry);
	if (prev == NULL)
		TAILQ_INSERT_HEAD(&w->lines, l, wl_entry);
	else
		TAILQ_INSERT_AFTER(&w->lines, prev, l, wl_entry);
	TAILQ_INSERT_TAIL(&r->all, l, all_entry);
	w->n++;
	r->lines++;
	r->bytes += sizeof(*l) + len;
	if (w->n > ALRING_PER_WL) {
		/* the oldest goes: the new one itself, if it came late */
		prev = TAILQ_FIRST(&w->lines);
		alring_drop(r, prev);
		if (prev == l)
			return (0);
	}
	/* the newest line stays: it is not the oldest while others are */
	while (r->bytes > ALRING_BYTES && TAILQ_FIRST(&r->all) != l) {
		alring_drop(r, TAILQ_FIRST(&r->all));
		r->dropped++;
	}
	return (0);
}

/*
 * The last n (at most max) lines of name, oldest first, into out: how
 * many.  They stay valid until the next add or forget.
 */
size_t
alring_get(struct alring *r, const char *name, size_t n,
    const struct alring_line **out, size_t max)
{
	struct alring_wl	*w;
	struct alring_line	*l;
	size_t			 k, skip;

	if ((w = alring_find(r, name)) == NULL)
		return (0);
	n = MINIMUM(n, max);
	n = MINIMUM(n, w->n);
	skip = w->n - n;
	k = 0;
	TAILQ_FOREACH(l, &w->lines, wl_entry) {
		if (skip > 0) {
			skip--;
			continue;
		}
		out[k++] = l;
	}
	return (k);
}

/* a workload removed: its lines go, a new one of its name starts empty */
void
alring_forget(struct alring *r, const char *name)
{
	struct alring_wl	*w;

	if ((w = alring_find(r, name)) == NULL)
		return;
	while (w->n > 1)
		alring_drop(r, TAILQ_FIRST(&w->lines));
	alring_drop(r, TAILQ_FIRST(&w->lines));
}
