/*
 * A workload's definition between processes: the wire form of what
 * workload_pack() lays out in memory.  It is struct workload_conf, its
 * pointers and list heads zeroed, then each string and list in the order
 * of the table of the fields (workload_fields.c), every string as a
 * 32-bit length (its NUL included; 0 for none) and its bytes, every list
 * as a 32-bit count and its entries.  What a field sends comes from its
 * type, as in workload_pack(): a field added to the table travels
 * without a word here.
 *
 * It is how the root parent takes a definition from a child (the API's
 * from gatewayd, the store's rows) without parsing text: JSON is decoded
 * by the child, and what reaches the parent is bytes whose every length
 * and count is checked here against the message before it is read
 * (workload_unwire), then every field by workload_validate() and the
 * policy as a definition of the configuration file is.  It is also how
 * the parent sends its definitions to the children, and the bytes a
 * PATCH's base is compared by (workload_wire_hash).
 *
 * A value of the header read off the wire is never a pointer: every one
 * is set again here, so that what a child sends cannot point anywhere,
 * and what the parent sends shows nobody its addresses.
 */

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "ignore.h"
#include "workload.h"
#include "workload_fields.h"

/* the bytes a definition may take on the wire, header included */
#define WIRE_MAX	(256 * 1024)

struct wbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
	int	 error;
};

struct rbuf {
	const char	*p;
	size_t		 left;
	char		*err;
	size_t		 errlen;
};

/*
 * Writing.
 */

static void
w_bytes(struct wbuf *w, const void *data, size_t len)
{
	size_t	 cap;
	char	*p;

	if (w->error || len == 0)
		return;
	if (len > WIRE_MAX - w->len) {
		w->error = 1;
		return;
	}
	if (w->len + len > w->cap) {
		cap = w->cap > 0 ? w->cap : 1024;
		while (cap < w->len + len)
			cap *= 2;
		if ((p = realloc(w->p, cap)) == NULL) {
			w->error = 1;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, data, len);
	w->len += len;
}

static void
w_u32(struct wbuf *w, uint32_t v)
{
	w_bytes(w, &v, sizeof(v));
}

static void
w_str(struct wbuf *w, const char *s)
{
	size_t	 len = s != NULL ? strlen(s) + 1 : 0;

	if (len > UINT32_MAX) {
		w->error = 1;
		return;
	}
	w_u32(w, (uint32_t)len);
	w_bytes(w, s, len);
}

static void
w_strlist(struct wbuf *w, const struct strlist *l)
{
	const struct strentry	*e;
	uint32_t		 n = 0;

	TAILQ_FOREACH(e, l, entry)
		n++;
	w_u32(w, n);
	TAILQ_FOREACH(e, l, entry)
		w_str(w, e->str);
}

static void
w_volumes(struct wbuf *w, const struct volumelist *l)
{
	const struct volume	*v;
	uint32_t		 n = 0;

	TAILQ_FOREACH(v, l, entry)
		n++;
	w_u32(w, n);
	TAILQ_FOREACH(v, l, entry) {
		w_str(w, v->host);
		w_str(w, v->container);
	}
}

static void
w_ignores(struct wbuf *w, const struct ignorelist *l)
{
	const struct ignore_rule	*r;
	uint32_t			 n = 0;

	TAILQ_FOREACH(r, l, entry)
		n++;
	w_u32(w, n);
	TAILQ_FOREACH(r, l, entry) {
		w_u32(w, (uint32_t)r->kind);
		w_u32(w, (uint32_t)r->answer);
		w_str(w, r->pattern);
	}
}

/*
 * Every pointer and list head of a header set again, so that none is
 * sent or read: zeroed (zero, to send), or made empty (to fill).
 */
static void
wire_scrub(struct workload_conf *wl, int zero)
{
	const struct wl_field	*f;
	size_t			 i;
	void			*p;

	memset(&wl->entry, 0, sizeof(wl->entry));
	wl->packed = 0;
	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		p = WF_PTR(wl, f);
		switch (f->type) {
		case WF_STRING:
			*(char **)p = NULL;
			break;
		case WF_NETWORK:
			wl->netname = NULL;
			break;
		case WF_STRLIST:
			if (zero)
				memset(p, 0, sizeof(struct strlist));
			else
				TAILQ_INIT((struct strlist *)p);
			break;
		case WF_VOLUMES:
			if (zero)
				memset(p, 0, sizeof(struct volumelist));
			else
				TAILQ_INIT((struct volumelist *)p);
			break;
		case WF_IGNORES:
			if (zero)
				memset(p, 0, sizeof(struct ignorelist));
			else
				TAILQ_INIT((struct ignorelist *)p);
			break;
		default:
			break;
		}
	}
}

static void
w_header(struct wbuf *w, const struct workload_conf *wl)
{
	struct workload_conf	 h;

	memcpy(&h, wl, sizeof(h));
	wire_scrub(&h, 1);
	w_bytes(w, &h, sizeof(h));
}

/* what field f holds beyond the header */
static void
w_field(struct wbuf *w, const struct workload_conf *wl,
    const struct wl_field *f)
{
	const void	*p = WF_CPTR(wl, f);

	switch (f->type) {
	case WF_STRING:
		w_str(w, *(char * const *)p);
		break;
	case WF_NETWORK:
		w_str(w, wl->netname);
		break;
	case WF_STRLIST:
		w_strlist(w, p);
		break;
	case WF_VOLUMES:
		w_volumes(w, p);
		break;
	case WF_IGNORES:
		w_ignores(w, p);
		break;
	default:
		break;
	}
}

/* wl's wire form, *len bytes; NULL when out of memory or too large */
void *
workload_wire(const struct workload_conf *wl, size_t *len)
{
	struct wbuf	 w;
	size_t		 i;

	memset(&w, 0, sizeof(w));
	w_header(&w, wl);
	for (i = 0; i < wl_nfields; i++)
		w_field(&w, wl, &wl_fields[i]);
	if (w.error) {
		free(w.p);
		return (NULL);
	}
	*len = w.len;
	return (w.p);
}

/*
 * Reading: every length and count against what is left of the message,
 * every string ending at its length's NUL and holding no other.
 */

static int
r_fail(struct rbuf *r, const char *what)
{
	if (r->errlen > 0)
		snprintf(r->err, r->errlen, "bad definition: %s", what);
	return (-1);
}

static int
r_u32(struct rbuf *r, uint32_t *v, const char *what)
{
	if (r->left < sizeof(*v))
		return (r_fail(r, what));
	memcpy(v, r->p, sizeof(*v));
	r->p += sizeof(*v);
	r->left -= sizeof(*v);
	return (0);
}

/* a string, or NULL for none: 0 with *dst set (a copy), -1 */
static int
r_str(struct rbuf *r, char **dst, const char *what)
{
	uint32_t	 len;

	*dst = NULL;
	if (r_u32(r, &len, what) == -1)
		return (-1);
	if (len == 0)
		return (0);
	if (len > r->left)
		return (r_fail(r, what));
	if (r->p[len - 1] != '\0' || memchr(r->p, '\0', len - 1) != NULL)
		return (r_fail(r, what));
	if ((*dst = strdup(r->p)) == NULL)
		return (r_fail(r, "out of memory"));
	r->p += len;
	r->left -= len;
	return (0);
}

/* a count of entries, each of at least min bytes: bounded by the rest */
static int
r_count(struct rbuf *r, uint32_t *n, size_t min, const char *what)
{
	if (r_u32(r, n, what) == -1)
		return (-1);
	if (*n > r->left / min)
		return (r_fail(r, what));
	return (0);
}

/* a list's entries, none of them NULL */
static int
r_strlist(struct rbuf *r, struct strlist *l, const char *what)
{
	struct strentry	*e;
	uint32_t	 n, i;

	if (r_count(r, &n, sizeof(uint32_t), what) == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		if ((e = calloc(1, sizeof(*e))) == NULL)
			return (r_fail(r, "out of memory"));
		TAILQ_INSERT_TAIL(l, e, entry);
		if (r_str(r, &e->str, what) == -1)
			return (-1);
		if (e->str == NULL)
			return (r_fail(r, what));
	}
	return (0);
}

static int
r_volumes(struct rbuf *r, struct workload_conf *wl)
{
	struct volume	*v;
	uint32_t	 n, i;

	if (r_count(r, &n, 2 * sizeof(uint32_t), "volumes") == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		if ((v = calloc(1, sizeof(*v))) == NULL)
			return (r_fail(r, "out of memory"));
		TAILQ_INSERT_TAIL(&wl->volumes, v, entry);
		if (r_str(r, &v->host, "volumes") == -1 ||
		    r_str(r, &v->container, "volumes") == -1)
			return (-1);
	}
	return (0);
}

static int
r_ignores(struct rbuf *r, struct workload_conf *wl)
{
	struct ignore_rule	*g;
	uint32_t		 n, i, kind, answer;

	if (r_count(r, &n, 3 * sizeof(uint32_t), "ignore") == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		if (r_u32(r, &kind, "ignore") == -1 ||
		    r_u32(r, &answer, "ignore") == -1)
			return (-1);
		/* the values are workload_validate's to judge, in range */
		if (kind > INT32_MAX || answer > INT32_MAX)
			return (r_fail(r, "ignore"));
		if ((g = calloc(1, sizeof(*g))) == NULL)
			return (r_fail(r, "out of memory"));
		g->kind = (enum ignore_kind)kind;
		g->answer = (int)answer;
		TAILQ_INSERT_TAIL(&wl->ignores, g, entry);
		if (r_str(r, &g->pattern, "ignore") == -1)
			return (-1);
		if (g->pattern == NULL)
			return (r_fail(r, "ignore"));
	}
	return (0);
}

/* what field f holds beyond the header, read into wl */
static int
r_field(struct rbuf *r, struct workload_conf *wl, const struct wl_field *f)
{
	void	*p = WF_PTR(wl, f);

	switch (f->type) {
	case WF_STRING:
		return (r_str(r, (char **)p, f->json));
	case WF_NETWORK:
		return (r_str(r, &wl->netname, f->json));
	case WF_STRLIST:
		return (r_strlist(r, p, f->json));
	case WF_VOLUMES:
		return (r_volumes(r, wl));
	case WF_IGNORES:
		return (r_ignores(r, wl));
	default:
		return (0);
	}
}

static int
r_fields(struct rbuf *r, struct workload_conf *wl)
{
	size_t	 i;

	for (i = 0; i < wl_nfields; i++)
		if (r_field(r, wl, &wl_fields[i]) == -1)
			return (-1);
	return (0);
}

/*
 * A definition from len bytes of data, its own allocations, every length
 * in it checked against the message; its fields are not judged here
 * (workload_wire_read).  NULL with why in err.
 */
struct workload_conf *
workload_unwire(const void *data, size_t len, char *err, size_t errlen)
{
	struct workload_conf	*wl;
	struct rbuf		 r;

	r.err = err;
	r.errlen = errlen;
	if (len < sizeof(*wl) || len > WIRE_MAX) {
		(void)r_fail(&r, len < sizeof(*wl) ? "truncated" :
		    "too large");
		return (NULL);
	}
	if ((wl = malloc(sizeof(*wl))) == NULL) {
		(void)r_fail(&r, "out of memory");
		return (NULL);
	}
	memcpy(wl, data, sizeof(*wl));
	wire_scrub(wl, 0);
	r.p = (const char *)data + sizeof(*wl);
	r.left = len - sizeof(*wl);
	if (memchr(wl->name, '\0', sizeof(wl->name)) == NULL) {
		(void)r_fail(&r, "name");
		goto bad;
	}
	if (r_fields(&r, wl) == -1)
		goto bad;
	if (r.left != 0) {
		(void)r_fail(&r, "bytes after its end");
		goto bad;
	}
	return (wl);
 bad:
	workload_free(wl);
	return (NULL);
}

/* workload_unwire(), then its fields by the one set of rules */
struct workload_conf *
workload_wire_read(const void *data, size_t len, char *err, size_t errlen)
{
	struct workload_conf	*wl;

	if ((wl = workload_unwire(data, len, err, errlen)) == NULL)
		return (NULL);
	if (workload_validate(wl, err, errlen) == -1) {
		workload_free(wl);
		return (NULL);
	}
	return (wl);
}

/*
 * A digest of a wire form, all of it, 8 bytes a step: whether a
 * definition changed, for the store's rows (stored/store_sync.c) and
 * the parent's deltas (orchd/config_delta.c), at every reload for every
 * workload.  Each step is a bijection of the state, so two forms of one
 * length that differ in one word have different digests (but for 0,
 * which is made 1).
 */
uint64_t
workload_wire_bytes_digest(const void *data, size_t len)
{
	const unsigned char	*p = data;
	uint64_t		 h, w;
	size_t			 i;

	h = 0x9e3779b97f4a7c15ULL ^ len;
	for (i = 0; i < len; i += sizeof(w)) {
		w = 0;
		memcpy(&w, p + i, MINIMUM(sizeof(w), len - i));
		h ^= w;
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return (h != 0 ? h : 1);
}

/* the digest of wl's wire form; 0 when out of memory */
uint64_t
workload_wire_digest(const struct workload_conf *wl)
{
	unsigned char	*p;
	uint64_t	 h;
	size_t		 len;

	if ((p = workload_wire(wl, &len)) == NULL)
		return (0);
	h = workload_wire_bytes_digest(p, len);
	free(p);
	return (h);
}

/*
 * FNV-1a over wl's wire form: what a PATCH was merged onto, said by the
 * gateway and compared by the parent with the definition it has, to
 * refuse an update based on one that has changed since.  Not a defence:
 * the gateway could as well send a PUT.  0 when out of memory.  The
 * zones' rules and the group's schedules are left out: the parent gives
 * them to its children only (config.c), so the gateway's copy has them
 * and the parent's not.
 */
uint64_t
workload_wire_hash(const struct workload_conf *wl)
{
	struct workload_conf	 c = *wl;	/* read only: lists shared */
	unsigned char		*p;
	uint64_t		 h = 0xcbf29ce484222325ULL;
	size_t			 len, i;

	TAILQ_INIT(&c.zones);
	TAILQ_INIT(&c.group_windows);
	TAILQ_INIT(&c.group_wakes);
	if ((p = workload_wire(&c, &len)) == NULL)
		return (0);
	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	free(p);
	return (h != 0 ? h : 1);
}
