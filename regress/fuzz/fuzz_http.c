/*
 * libFuzzer target for common/http.c.
 *
 * Input: byte 0 picks the mode (request head, response head, chunked
 * body), byte 1 seeds the splits and the request method of a response,
 * the rest is the message.  Beyond crashes, the oracles are:
 *	- the same bytes fed whole and in random pieces give the same result,
 *	  status, parsed form and byte count;
 *	- an accepted head holds only what the rules allow, and
 *	  serialise(parse(x)) parses again to the same fields minus the
 *	  hop-by-hop ones, and serialises to the same bytes (idempotence);
 *	- a chunked body decodes to the same data however it is split.
 *
 * Built with -DFUZZ_CHUNKED_ONLY it is the chunked decoder's own target
 * (fuzz_chunked): byte 0 picks request or response, every input a body.
 * `make fuzz` builds and runs both; by hand:
 *
 * clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icommon \
 *     regress/fuzz/fuzz_http.c common/http.c -o fuzz_http
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define ORACLE(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "oracle failed: %s (line %d)\n", #cond,	\
		    __LINE__);						\
		abort();						\
	}								\
} while (0)

static uint32_t	rng;

static uint32_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* the size of the next piece: often tiny, sometimes large */
static size_t
piece(size_t left)
{
	size_t	n;

	switch (next_rand() % 4) {
	case 0:
		n = 1;
		break;
	case 1:
		n = 1 + next_rand() % 8;
		break;
	case 2:
		n = 1 + next_rand() % 512;
		break;
	default:
		n = left;
		break;
	}
	return n < left ? n : left;
}

static struct http_head	h1, h2, h3;
static char		b1[HTTP_HEAD_BUFSZ], b2[HTTP_HEAD_BUFSZ];
static char		b3[HTTP_HEAD_BUFSZ];
static char		ser1[HTTP_HEAD_BUFSZ + 512];
static char		ser2[HTTP_HEAD_BUFSZ + 512];

static void
head_init(struct http_head *h, enum http_kind kind, char *buf,
    enum http_method rm)
{
	if (kind == HTTP_REQUEST)
		http_req_init(h, buf, HTTP_HEAD_BUFSZ);
	else
		http_resp_init(h, buf, HTTP_HEAD_BUFSZ, rm);
}

static int
feed_pieces(struct http_head *h, const uint8_t *p, size_t len,
    size_t *consumed)
{
	size_t	off = 0, n, used;
	int	r = HTTP_MORE;

	*consumed = 0;
	while (off < len && r == HTTP_MORE) {
		n = piece(len - off);
		r = http_head_feed(h, (const char *)p + off, n, &used);
		ORACLE(used <= n);
		ORACLE(r != HTTP_MORE || used == n);
		*consumed += used;
		off += n;
	}
	return r;
}

static int
same_str(const char *a, size_t al, const char *b, size_t bl)
{
	if (a == NULL || b == NULL)
		return a == b && al == bl;
	return al == bl && memcmp(a, b, al) == 0;
}

static void
same_head(const struct http_head *a, const struct http_head *b)
{
	size_t	i;

	ORACLE(a->errcode == b->errcode && a->errstr == b->errstr);
	if (a->errcode != 0)
		return;
	ORACLE(a->version == b->version && a->meth == b->meth &&
	    a->form == b->form && a->code == b->code &&
	    a->flags == b->flags && a->body == b->body &&
	    a->content_length == b->content_length && a->port == b->port &&
	    a->hostlen == b->hostlen && a->nfields == b->nfields);
	ORACLE(same_str(a->method, a->methodlen, b->method, b->methodlen));
	ORACLE(same_str(a->target, a->targetlen, b->target, b->targetlen));
	ORACLE(same_str(a->path, a->pathlen, b->path, b->pathlen));
	ORACLE(same_str(a->authority, a->authoritylen, b->authority,
	    b->authoritylen));
	ORACLE(same_str(a->reason, a->reasonlen, b->reason, b->reasonlen));
	for (i = 0; i < a->nfields; i++) {
		ORACLE(a->fields[i].id == b->fields[i].id &&
		    a->fields[i].flags == b->fields[i].flags);
		ORACLE(same_str(a->fields[i].name, a->fields[i].namelen,
		    b->fields[i].name, b->fields[i].namelen));
		ORACLE(same_str(a->fields[i].value, a->fields[i].valuelen,
		    b->fields[i].value, b->fields[i].valuelen));
	}
}

/* what an accepted head may contain */
static void
check_accepted(const struct http_head *h)
{
	const struct http_field	*f;
	size_t			 i, j;

	ORACLE(h->version == 10 || h->version == 11);
	ORACLE(h->nfields <= HTTP_FIELDS_MAX);
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		ORACLE(f->namelen > 0 && f->name[f->namelen] == '\0');
		ORACLE(f->value[f->valuelen] == '\0');
		for (j = 0; j < f->namelen; j++)
			ORACLE(f->name[j] > ' ' && f->name[j] < 0x7f &&
			    f->name[j] != ':');
		for (j = 0; j < f->valuelen; j++)
			ORACLE(f->value[j] != '\r' && f->value[j] != '\n' &&
			    f->value[j] != '\0' && f->value[j] != 0x7f);
		if (f->valuelen > 0)
			ORACLE(f->value[0] != ' ' && f->value[0] != '\t' &&
			    f->value[f->valuelen - 1] != ' ' &&
			    f->value[f->valuelen - 1] != '\t');
	}
	if (h->body == HTTP_BODY_CHUNKED)
		ORACLE((h->flags & HTTP_F_HAS_TE) &&
		    !(h->flags & HTTP_F_HAS_CL));
	if (h->body == HTTP_BODY_LENGTH)
		ORACLE((h->flags & HTTP_F_HAS_CL) &&
		    !(h->flags & HTTP_F_HAS_TE));
	if (h->flags & HTTP_F_HAS_CL)
		ORACLE(h->content_length <= (uint64_t)INT64_MAX);
	if (h->kind == HTTP_REQUEST) {
		ORACLE(h->body == HTTP_BODY_NONE ||
		    h->body == HTTP_BODY_LENGTH ||
		    h->body == HTTP_BODY_CHUNKED);
		ORACLE(h->methodlen > 0 && h->targetlen > 0);
		ORACLE(h->version == 10 || h->authoritylen > 0);
		ORACLE(h->body != HTTP_BODY_CHUNKED || h->version == 11);
	} else
		ORACLE(h->code >= 100 && h->code <= 599);
}

/* b holds a's forwarded fields in order, then `tail` more */
static void
check_kept(const struct http_head *a, const struct http_head *b,
    size_t tail)
{
	const struct http_field	*f;
	size_t			 i, j = 0;

	for (i = 0; i < a->nfields; i++) {
		f = &a->fields[i];
		if ((f->flags & HTTP_FIELD_HOP) ||
		    f->id == HTTP_H_CONTENT_LENGTH)
			continue;
		ORACLE(j < b->nfields);
		ORACLE(same_str(f->name, f->namelen, b->fields[j].name,
		    b->fields[j].namelen));
		ORACLE(same_str(f->value, f->valuelen, b->fields[j].value,
		    b->fields[j].valuelen));
		j++;
	}
	ORACLE(b->nfields >= j && b->nfields <= j + tail);
}

static void
roundtrip(const struct http_head *h)
{
	struct http_field	host = { .name = "Host", .value = "h" };
	struct http_ser		ser = { 0 };
	ssize_t			n, n2;
	size_t			used;
	int			r;

	/* an HTTP/1.0 request without Host goes out as 1.1: add one */
	if (h->kind == HTTP_REQUEST && h->authoritylen == 0) {
		ser.add = &host;
		ser.nadd = 1;
	}
	n = http_head_serialize(h, &ser, ser1, sizeof(ser1));
	ORACLE(n > 0);
	head_init(&h3, h->kind, b3, h->reqmeth);
	r = http_head_feed(&h3, ser1, n, &used);
	if (r == HTTP_ERROR) {
		/*
		 * ": " after each name can push a head at a limit over it,
		 * and an added Host can be field 101.
		 */
		ORACLE(strcmp(h3.errstr, "field section too large") == 0 ||
		    (ser.nadd > 0 && h->nfields == HTTP_FIELDS_MAX &&
		    strcmp(h3.errstr, "too many fields") == 0));
		return;
	}
	ORACLE(r == HTTP_DONE && used == (size_t)n);
	ORACLE(h3.body == h->body);
	if (h->body == HTTP_BODY_LENGTH)
		ORACLE(h3.content_length == h->content_length);
	if (h->kind == HTTP_REQUEST) {
		ORACLE(h3.meth == h->meth);
		ORACLE(h3.version == 11);
	} else
		ORACLE(h3.code == h->code);
	/* added: the caller's, Host from the target, the framing field */
	check_kept(h, &h3, ser.nadd + 2);
	/* the normal form is a fixed point */
	n2 = http_head_serialize(&h3, NULL, ser2, sizeof(ser2));
	ORACLE(n2 > 0);
	if (ser.nadd == 0)
		ORACLE(n2 == n && memcmp(ser1, ser2, n) == 0);
}

static char	out1[1 << 20], out2[1 << 20];

static int
decode(const uint8_t *p, size_t len, int split, enum http_kind kind,
    char *out, size_t *outlen, size_t *consumed, struct http_chunked *c)
{
	const char	*span;
	size_t		 off = 0, n, used, spanlen;
	int		 r = HTTP_MORE;

	http_chunked_init(c, kind);
	*outlen = 0;
	*consumed = 0;
	while (off < len) {
		n = split ? piece(len - off) : len - off;
		r = http_chunked_feed(c, (const char *)p + off, n, &used,
		    &span, &spanlen);
		ORACLE(used <= n);
		ORACLE(r != HTTP_MORE || used == n);
		ORACLE(spanlen == 0 || r == HTTP_DATA);
		if (spanlen > 0) {
			ORACLE(span >= (const char *)p + off &&
			    span + spanlen <= (const char *)p + off + used);
			ORACLE(*outlen + spanlen <= sizeof(out1));
			memcpy(out + *outlen, span, spanlen);
			*outlen += spanlen;
		}
		off += used;
		*consumed += used;
		if (r == HTTP_DONE || r == HTTP_ERROR)
			return r;
	}
	return r == HTTP_DATA ? HTTP_MORE : r;
}

static void
fuzz_chunked(const uint8_t *p, size_t len, enum http_kind kind)
{
	struct http_chunked	c1, c2;
	size_t			o1, o2, u1, u2;
	int			r1, r2;

	r1 = decode(p, len, 0, kind, out1, &o1, &u1, &c1);
	r2 = decode(p, len, 1, kind, out2, &o2, &u2, &c2);
	ORACLE(r1 == r2 && o1 == o2 && memcmp(out1, out2, o1) == 0);
	ORACLE(c1.errcode == c2.errcode && c1.errstr == c2.errstr);
	if (r1 != HTTP_ERROR)
		ORACLE(u1 == u2);
	ORACLE(o1 <= u1);
	if (r1 == HTTP_ERROR)
		ORACLE(c1.errcode == (kind == HTTP_REQUEST ? 400 : 502));
}

static void
fuzz_head(const uint8_t *p, size_t len, enum http_kind kind,
    enum http_method rm)
{
	uint8_t	*copy;
	size_t	u1, u2;
	int	r1, r2;

	/* an exact-size copy, so ASan sees any read past the end */
	if ((copy = malloc(len ? len : 1)) == NULL)
		return;
	memcpy(copy, p, len);
	head_init(&h1, kind, b1, rm);
	r1 = http_head_feed(&h1, (const char *)copy, len, &u1);
	head_init(&h2, kind, b2, rm);
	r2 = feed_pieces(&h2, copy, len, &u2);
	ORACLE(r1 == r2);
	same_head(&h1, &h2);
	if (r1 != HTTP_ERROR)
		ORACLE(u1 == u2);
	if (r1 == HTTP_ERROR)
		ORACLE(h1.errcode >= 400 && h1.errstr != NULL);
	if (r1 == HTTP_DONE) {
		check_accepted(&h1);
		roundtrip(&h1);
		if (h1.body == HTTP_BODY_CHUNKED)
			fuzz_chunked(copy + u1, len - u1, kind);
	}
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum http_method	methods[] = { HTTP_M_GET, HTTP_M_HEAD,
					    HTTP_M_CONNECT, HTTP_M_POST };

	if (size < 2)
		return 0;
	rng = 0x9e3779b9u ^ data[1];
#ifdef FUZZ_CHUNKED_ONLY
	/* the chunked decoder alone: every input is a body */
	fuzz_chunked(data + 2, size - 2, data[0] & 1 ? HTTP_RESPONSE :
	    HTTP_REQUEST);
	return 0;
#endif
	switch (data[0] % 4) {
	case 0:
		fuzz_head(data + 2, size - 2, HTTP_REQUEST, HTTP_M_OTHER);
		break;
	case 1:
		fuzz_head(data + 2, size - 2, HTTP_RESPONSE,
		    methods[data[1] % 4]);
		break;
	case 2:
		fuzz_chunked(data + 2, size - 2, HTTP_REQUEST);
		break;
	default:
		fuzz_chunked(data + 2, size - 2, HTTP_RESPONSE);
		break;
	}
	return 0;
}
