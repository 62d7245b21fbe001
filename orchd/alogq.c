/*
 * The access log's queue: what the parent read from the gateways' pipe,
 * in order, until the file takes it.  Every read goes through it, and
 * is written at once as long as the file takes the writes; once one is
 * refused (ENOSPC, EDQUOT, EIO, whatever the reason) the rest of it and
 * everything after is held, and written again later, whole and once: a
 * write that took part of a chunk leaves its remainder at the head.
 *
 * Bounded by bytes.  When the cap is reached the newest lines are
 * dropped, whole, and counted: what is held then follows on from what
 * the file has, without a hole, and the one gap is where the log says
 * the drops began.  Dropping the oldest instead would need the head,
 * possibly half written, cut at a line, and would leave two stretches
 * the file never saw.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alogq.h"
#include "compat.h"

void
alogq_init(struct alogq *q, size_t max)
{
	memset(q, 0, sizeof(*q));
	TAILQ_INIT(&q->chunks);
	q->max = max;
}

int
alogq_empty(const struct alogq *q)
{
	return (TAILQ_EMPTY(&q->chunks));
}

static size_t
count_lines(const char *buf, size_t len)
{
	const char	*nl;
	size_t		 n = 0;

	while (len > 0 && (nl = memchr(buf, '\n', len)) != NULL) {
		n++;
		len -= nl - buf + 1;
		buf = nl + 1;
	}
	return (n);
}

/* into the tail chunk, and new ones: the bytes held (fewer: no memory) */
static size_t
hold(struct alogq *q, const char *buf, size_t len)
{
	struct alogq_chunk	*c;
	size_t			 n, done = 0;

	while (done < len) {
		c = TAILQ_LAST(&q->chunks, alogq_chunks);
		if (c == NULL || c->len == sizeof(c->data)) {
			if ((c = malloc(sizeof(*c))) == NULL)
				break;
			c->off = c->len = 0;
			TAILQ_INSERT_TAIL(&q->chunks, c, entry);
		}
		n = MINIMUM(len - done, sizeof(c->data) - c->len);
		memcpy(c->data + c->len, buf + done, n);
		c->len += n;
		done += n;
	}
	if (done == 0)
		return (0);
	n = count_lines(buf, done);
	q->stats.lines += n;
	if (q->held)
		q->stats.total += n;
	q->stats.bytes += done;
	q->open = buf[done - 1] != '\n';
	return (done);
}

/* the lines of len bytes dropped, from buf on */
static size_t
drop(struct alogq *q, const char *buf, size_t len)
{
	size_t	 n;

	if (len == 0)
		return (0);
	n = count_lines(buf, len);
	if (buf[len - 1] != '\n') {
		n++;
		q->skip = 1;
	}
	q->stats.drops += n;
	return (n);
}

size_t
alogq_add(struct alogq *q, const char *buf, size_t len)
{
	const char	*nl;
	size_t		 n, room;

	/* the rest of a line whose start was dropped */
	if (q->skip) {
		if ((nl = memchr(buf, '\n', len)) == NULL)
			return (0);
		q->skip = 0;
		len -= nl - buf + 1;
		buf = nl + 1;
	}
	room = q->stats.bytes < q->max ? q->max - q->stats.bytes : 0;
	n = len;
	if (len > room) {
		/* whole lines that fit; a line begun is ended all the same */
		nl = room > 0 ? memrchr(buf, '\n', room) : NULL;
		if (nl == NULL && q->open)
			nl = memchr(buf, '\n', len);
		n = nl != NULL ? (size_t)(nl - buf + 1) : 0;
	}
	n = hold(q, buf, n);
	return (drop(q, buf + n, len - n));
}

static void
chunk_free(struct alogq *q, struct alogq_chunk *c)
{
	TAILQ_REMOVE(&q->chunks, c, entry);
	free(c);
}

int
alogq_flush(struct alogq *q, alogq_write_fn fn, void *arg)
{
	struct alogq_chunk	*c;
	ssize_t			 n;

	if (q->held)
		q->stats.retries++;
	while ((c = TAILQ_FIRST(&q->chunks)) != NULL) {
		if ((n = fn(c->data + c->off, c->len - c->off, arg)) <= 0) {
			if (n == 0)
				errno = EIO;
			if (!q->held)
				q->stats.total += q->stats.lines;
			q->held = 1;
			return (-1);
		}
		q->stats.lines -= count_lines(c->data + c->off, n);
		q->stats.bytes -= n;
		c->off += n;
		if (c->off == c->len)
			chunk_free(q, c);
	}
	q->held = 0;
	q->open = 0;
	return (0);
}

size_t
alogq_clear(struct alogq *q)
{
	struct alogq_chunk	*c;
	size_t			 n;

	n = q->stats.lines + (q->open ? 1 : 0);
	while ((c = TAILQ_FIRST(&q->chunks)) != NULL)
		chunk_free(q, c);
	q->stats.drops += n;
	q->stats.lines = 0;
	q->stats.bytes = 0;
	q->held = 0;
	/* the rest of a line begun is no line's start */
	q->skip = q->open;
	q->open = 0;
	return (n);
}
