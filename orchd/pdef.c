/*
 * The running configuration's definitions, kept small at rest.  The
 * parent holds a definition of every workload, and reads one at its
 * wake (spawn.c, checked where used), when the API or orchctl asks for
 * it, and at a reload; at 100,000 sleeping workloads a struct
 * workload_conf each is 70 MB of root's memory read a few times a day.
 *
 * So once a configuration has been sent to the children (config_send()),
 * each definition of the file that nothing in the parent walks by its
 * fields leaves conf->workloads for conf->rest: its name, the digest of
 * its wire form, and the rest in the small form of common/workload_zip.c
 * (about 100 bytes), made from the very bytes sent.  Those left
 * in full are the ones some code of the parent finds by a field rather
 * than by name (pdef_plain() below says which): the API's and the
 * labels' workloads, dependencies, groups, listeners, socket activation,
 * paths, error pages and schedules.
 *
 * A definition at rest is read three ways:
 *	pdef_find(), by name: expanded into a temporary the caller frees;
 *	pdef_first()/pdef_next(), every one in turn, one temporary at a
 *	time, so that a walk never holds more than one;
 *	pdef_expand(), by name, back into conf->workloads for code that
 *	changes the list (the API's), until the next config_send().
 * config_send() reads its wire form straight from the small form, byte
 * for byte what workload_wire() made, and the reload's diff its digest.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parent.h"
#include "workload_zip.h"

/* 1 if no code of the parent needs wc in full between two sends */
static int
pdef_plain(const struct workload_conf *wc)
{
	return (wc->source == SOURCE_CONFIG && wc->group == NULL &&
	    wc->path == NULL && !wc->socket_activation &&
	    TAILQ_EMPTY(&wc->depends) && TAILQ_EMPTY(&wc->listens) &&
	    TAILQ_EMPTY(&wc->error_pages) && TAILQ_EMPTY(&wc->warm_windows) &&
	    TAILQ_EMPTY(&wc->wake_at) && TAILQ_EMPTY(&wc->group_windows) &&
	    TAILQ_EMPTY(&wc->group_wakes) && TAILQ_EMPTY(&wc->zones));
}

/*
 * name at rest: the name, then its small form z of zlen bytes, in one
 * allocation (free()), z on an 8-byte boundary (its fields are of 32 bits)
 */
static struct wl_rest *
rest_alloc(const char *name, const void *z, size_t zlen, uint64_t digest)
{
	struct wl_rest	*r;
	size_t		 len, off;

	len = strlen(name) + 1;
	off = (sizeof(*r) + len + 7) & ~(size_t)7;
	if ((r = malloc(off + zlen)) == NULL)
		fatal("%s", __func__);
	memcpy(r->name, name, len);
	r->zip = (struct wl_zip *)((char *)r + off);
	memcpy(r->zip, z, zlen);
	r->digest = digest;
	return (r);
}

/* name at rest, from the wire form its definition was sent in */
static struct wl_rest *
rest_make(const char *name, const void *wire, size_t wlen)
{
	struct wl_rest	*r;
	struct wl_zip	*z;

	if ((z = workload_zip_bytes(wire, wlen)) == NULL)
		fatal("%s", __func__);
	r = rest_alloc(name, z, workload_zip_size(z),
	    workload_wire_bytes_digest(wire, wlen));
	free(z);
	return (r);
}

/*
 * The small forms made as config_send() sent them, for pdef_rest(): in
 * one block of records, not one allocation each, for an allocation that
 * outlives the send, made among the messages queued to the children,
 * would keep their pages when they are freed (megabytes: config_delta.c)
 */
struct sent_rec {
	uint64_t	 digest;
	uint32_t	 size;		/* the record's, 8-byte aligned */
	uint32_t	 zlen;		/* the small form, at zoff */
	uint32_t	 zoff;
	char		 name[];
};
static unsigned char	*sent;
static size_t		 sent_len, sent_cap;

/* wc was sent as wire: made small now if it is to rest, from those bytes */
void
pdef_sent(const struct workload_conf *wc, const void *wire, size_t len)
{
	struct sent_rec	*rec;
	struct wl_zip	*z;
	unsigned char	*p;
	size_t		 nlen, zoff, zlen, size, cap;

	if (!pdef_plain(wc))
		return;
	if ((z = workload_zip_bytes(wire, len)) == NULL)
		fatal("%s", __func__);
	nlen = strlen(wc->name) + 1;
	zoff = (sizeof(*rec) + nlen + 7) & ~(size_t)7;
	zlen = workload_zip_size(z);
	size = (zoff + zlen + 7) & ~(size_t)7;
	if (sent_cap - sent_len < size) {
		cap = sent_cap * 2 + size + 65536;
		if ((p = realloc(sent, cap)) == NULL)
			fatal("%s", __func__);
		sent = p;
		sent_cap = cap;
	}
	rec = (struct sent_rec *)(sent + sent_len);
	rec->digest = workload_wire_bytes_digest(wire, len);
	rec->size = size;
	rec->zlen = zlen;
	rec->zoff = zoff;
	memcpy(rec->name, wc->name, nlen);
	memcpy((unsigned char *)rec + zoff, z, zlen);
	sent_len += size;
	free(z);
}

/*
 * Every plain definition of conf in its small form, made as it was sent
 * (pdef_sent(), in the list's order), or now.  All are made before any
 * full one is freed, so that the small ones do not land in the full
 * ones' holes: the pages the full ones leave are then whole, and go back
 * to the kernel with heap_trim() at the transaction's end.
 */
void
pdef_rest(struct orchd_conf *conf)
{
	struct workload_conf	*wc, *next;
	struct wl_rest		*r;
	struct wl_restlist	 keep;
	struct sent_rec		*rec;
	void			*wire;
	size_t			 len, off = 0;

	TAILQ_INIT(&keep);
	TAILQ_FOREACH(wc, &conf->workloads, entry) {
		if (!pdef_plain(wc))
			continue;
		rec = off < sent_len ? (struct sent_rec *)(sent + off) : NULL;
		if (rec != NULL && strcmp(rec->name, wc->name) == 0) {
			r = rest_alloc(rec->name, (unsigned char *)rec +
			    rec->zoff, rec->zlen, rec->digest);
			off += rec->size;
		} else {
			if ((wire = workload_wire(wc, &len)) == NULL)
				fatal("%s", __func__);
			r = rest_make(wc->name, wire, len);
			free(wire);
		}
		TAILQ_INSERT_TAIL(&keep, r, entry);
	}
	free(sent);
	sent = NULL;
	sent_len = sent_cap = 0;
	TAILQ_FOREACH_SAFE(wc, &conf->workloads, entry, next)
		if (pdef_plain(wc)) {
			TAILQ_REMOVE(&conf->workloads, wc, entry);
			workload_free(wc);
		}
	TAILQ_CONCAT(&conf->rest, &keep, entry);
}

static struct wl_rest *
rest_find(const struct orchd_conf *conf, const char *name)
{
	struct wl_rest	*r;

	TAILQ_FOREACH(r, &conf->rest, entry)
		if (strcmp(r->name, name) == 0)
			return (r);
	return (NULL);
}

/*
 * r whole again.  Its bytes are those every child read and took when
 * they were sent: only memory running out fails here, as in config_pack().
 */
static struct workload_conf *
rest_unzip(const struct wl_rest *r)
{
	struct workload_conf	*wc;

	if ((wc = workload_unzip(r->zip)) == NULL)
		fatalx("%s: workload %s", __func__, r->name);
	return (wc);
}

/* the same for a moment: not packed, which a walk of them all would pay */
static struct workload_conf *
rest_read(const struct wl_rest *r)
{
	struct workload_conf	*wc;
	void			*wire;
	size_t			 len;
	char			 err[128];

	if ((wire = workload_zip_wire(r->zip, &len)) == NULL ||
	    (wc = workload_unwire(wire, len, err, sizeof(err))) == NULL)
		fatalx("%s: workload %s", __func__, r->name);
	free(wire);
	return (wc);
}

/*
 * name's definition: conf's own, or one expanded into *tmp, which the
 * caller frees with workload_free() (NULL if none was); NULL: no such
 */
struct workload_conf *
pdef_find(const struct orchd_conf *conf, const char *name,
    struct workload_conf **tmp)
{
	struct workload_conf	*wc;
	struct wl_rest		*r;

	*tmp = NULL;
	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (strcmp(wc->name, name) == 0)
			return (wc);
	if ((r = rest_find(conf, name)) == NULL)
		return (NULL);
	return (*tmp = rest_read(r));
}

/* is name a workload of conf? */
int
pdef_exists(const struct orchd_conf *conf, const char *name)
{
	const struct workload_conf	*wc;

	TAILQ_FOREACH(wc, &conf->workloads, entry)
		if (strcmp(wc->name, name) == 0)
			return (1);
	return (rest_find(conf, name) != NULL);
}

/* name's definition, if at rest, back in conf->workloads in full */
void
pdef_expand(struct orchd_conf *conf, const char *name)
{
	struct workload_conf	*wc;
	struct wl_rest		*r;

	if ((r = rest_find(conf, name)) == NULL)
		return;
	wc = rest_unzip(r);
	TAILQ_INSERT_TAIL(&conf->workloads, wc, entry);
	TAILQ_REMOVE(&conf->rest, r, entry);
	free(r);
}

/* the number of conf's workloads, and the bytes of their names */
uint32_t
pdef_count(const struct orchd_conf *conf, size_t *namesp)
{
	const struct workload_conf	*wc;
	const struct wl_rest		*r;
	uint32_t			 n = 0;
	size_t				 names = 0;

	TAILQ_FOREACH(wc, &conf->workloads, entry) {
		names += strlen(wc->name) + 1;
		n++;
	}
	TAILQ_FOREACH(r, &conf->rest, entry) {
		names += strlen(r->name) + 1;
		n++;
	}
	if (namesp != NULL)
		*namesp = names;
	return (n);
}

/*
 * Every definition of conf, those in full first: the one returned is
 * valid until the next call, or pdef_end(), which a walk left early
 * must call.
 */
struct workload_conf *
pdef_first(struct pdef_iter *it, const struct orchd_conf *conf)
{
	memset(it, 0, sizeof(*it));
	it->conf = conf;
	it->wc = TAILQ_FIRST(&conf->workloads);
	if (it->wc != NULL)
		return (it->wc);
	it->r = TAILQ_FIRST(&conf->rest);
	return (it->r != NULL ? (it->tmp = rest_read(it->r)) : NULL);
}

struct workload_conf *
pdef_next(struct pdef_iter *it)
{
	workload_free(it->tmp);
	it->tmp = NULL;
	if (it->wc != NULL) {
		if ((it->wc = TAILQ_NEXT(it->wc, entry)) != NULL)
			return (it->wc);
		it->r = TAILQ_FIRST(&it->conf->rest);
	} else if (it->r != NULL)
		it->r = TAILQ_NEXT(it->r, entry);
	return (it->r != NULL ? (it->tmp = rest_read(it->r)) : NULL);
}

void
pdef_end(struct pdef_iter *it)
{
	workload_free(it->tmp);
	memset(it, 0, sizeof(*it));
}
