/*
 * Unit tests of the chunked transfer coding (common/http_chunked.c): a
 * table of bodies, each decoded whole and in pieces, a 64 KiB body in
 * chunks of every size, and the limits of a size line and a trailer.
 */

#include <sys/types.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "httptest.h"

static char	decoded[200 * 1024];

/*
 * Decode raw in pieces of `piece` bytes (0: whole); returns the final
 * result, the bytes used and the data in `decoded`.
 */
static int
decode(enum http_kind kind, const char *raw, size_t len, size_t piece,
    size_t *consumed, size_t *outlen, struct http_chunked *c)
{
	const char	*span, *p;
	size_t		 off = 0, n, used, spanlen;
	int		 r = HTTP_MORE;

	http_chunked_init(c, kind);
	*outlen = 0;
	*consumed = 0;
	while (off < len) {
		n = piece == 0 || len - off < piece ? len - off : piece;
		p = raw + off;
		while (n > 0) {
			r = http_chunked_feed(c, p, n, &used, &span, &spanlen);
			assert_true(used <= n);
			assert_true(spanlen == 0 || (span >= p &&
			    span + spanlen <= p + used));
			if (spanlen > 0) {
				assert_int_equal(r, HTTP_DATA);
				assert_true(*outlen + spanlen <=
				    sizeof(decoded));
				memcpy(decoded + *outlen, span, spanlen);
				*outlen += spanlen;
			}
			p += used;
			n -= used;
			off += used;
			*consumed += used;
			if (r == HTTP_DONE || r == HTTP_ERROR)
				return r;
			if (r == HTTP_MORE)
				assert_int_equal(n, 0);
		}
	}
	return r == HTTP_DATA ? HTTP_MORE : r;
}

struct chunk_case {
	const char	*name;
	const char	*raw;
	size_t		 len;
	int		 result;	/* HTTP_DONE, HTTP_MORE, HTTP_ERROR */
	const char	*data;		/* decoded, when not an error */
	size_t		 datalen;
	size_t		 extra;		/* bytes after the body */
};

#define CY(n, r, d)	{ n, r, sizeof(r) - 1, HTTP_DONE, d, sizeof(d) - 1, 0 }
#define CX(n, r, d, x)	{ n, r, sizeof(r) - 1, HTTP_DONE, d, sizeof(d) - 1, x }
#define CM(n, r, d)	{ n, r, sizeof(r) - 1, HTTP_MORE, d, sizeof(d) - 1, 0 }
#define CN(n, r)	{ n, r, sizeof(r) - 1, HTTP_ERROR, NULL, 0, 0 }

static const struct chunk_case chunk_cases[] = {
	CY("one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello"),
	CY("empty body", "0\r\n\r\n", ""),
	CY("hex sizes", "A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n",
	    "0123456789abcdefghij"),
	CY("leading zeros", "0005\r\nhello\r\n000\r\n\r\n", "hello"),
	CY("16 digits", "0000000000000005\r\nhello\r\n0\r\n\r\n", "hello"),
	CY("binary data", "4\r\n\r\n\0\n\r\n0\r\n\r\n", "\r\n\0\n"),
	CY("extension", "5;a=b\r\nhello\r\n0;last\r\n\r\n", "hello"),
	CY("extensions, BWS, quoted", "5 ; a = \"q\\\"x;y\" ;b;c=d\r\nhello"
	    "\r\n0\r\n\r\n", "hello"),
	CY("extension BWS everywhere", "5;\t a ; b\t=\t\"\" ;c ;d= e\r\nhello"
	    "\r\n0\r\n\r\n", "hello"),
	CY("repeated BWS", "5  ;a  =b\r\nhello\r\n0\r\n\r\n", "hello"),
	CY("trailers", "3\r\nabc\r\n0\r\nX-T: 1\r\nY:\r\n\r\n", "abc"),
	CY("smuggle-shaped trailer", "0\r\nX:POST / HTTP/1.1\r\n\r\n", ""),
	CX("pipelined after", "1\r\na\r\n0\r\n\r\nGET / HTTP/1.1\r\n", "a",
	    16),
	CM("incomplete data", "5\r\nhel", "hel"),
	CM("incomplete trailers", "0\r\nX: 1\r\n", ""),
	CM("largest size", "3FFFFFFFFFFFFFFF\r\nab", "ab"),
	CN("0x prefix", "0x5\r\nhello\r\n0\r\n\r\n"),
	CN("plus", "+5\r\nhello\r\n0\r\n\r\n"),
	CN("minus", "-0\r\n\r\n"),
	CN("leading space", " 5\r\nhello\r\n0\r\n\r\n"),
	CN("trailing space", "5 \r\nhello\r\n0\r\n\r\n"),
	CN("underscore", "1_0\r\n0123456789abcdef\r\n0\r\n\r\n"),
	CN("not hex", "Z\r\n\r\n"),
	CN("1x", "1x\r\na\r\n0\r\n\r\n"),
	CN("empty size line", "\r\n5\r\nhello\r\n0\r\n\r\n"),
	CN("extra CRLF before last chunk", "5\r\nhello\r\n\r\n0\r\n\r\n"),
	CN("17 digits", "00000000000000005\r\nhello\r\n0\r\n\r\n"),
	CN("FFFFFFFFFFFFFFED", "FFFFFFFFFFFFFFED\r\n"),
	CN("2^62", "4000000000000000\r\n"),
	CN("huge", "1000000000000000000001\r\n"),
	CN("data too long", "4\r\nSEE-THIS\r\n0\r\n\r\n"),
	CN("no CRLF after data", "5\r\nABCDE0\r\n\r\n"),
	CN("LF only after data", "5\r\nhello\n0\r\n\r\n"),
	CN("CR only after data", "5\r\nhello\r0\r\n\r\n"),
	CN("bare LF size", "6\nhello!\r\n0\r\n\r\n"),
	CN("bare LF after data", "a\r\n0123456789\n0\r\n\r\n"),
	CN("CR CR", "5\r\r;ABCD\r\nhello\r\n0\r\n\r\n"),
	CN("leading LF", "\n0\r\n\r\n"),
	CN("1 CR 0 LF", "1\r0\n"),
	CN("bare semicolon", "5;\r\nhello\r\n0\r\n\r\n"),
	CN("NUL in extension", "5;\0x\r\nhello\r\n0\r\n\r\n"),
	CN("unbalanced quote", "5;a=\"b\r\nhello\r\n0\r\n\r\n"),
	CN("equals without value", "5;a=\r\nhello\r\n0\r\n\r\n"),
	CN("space after ext name", "5;a \r\nhello\r\n0\r\n\r\n"),
	CN("space after ext value", "5;a=b \r\nhello\r\n0\r\n\r\n"),
	CN("bad quoted-pair", "5;a=\"\\\001\"\r\nhello\r\n0\r\n\r\n"),
	CN("junk after ext name", "5;a b\r\nhello\r\n0\r\n\r\n"),
	CN("CTL in quoted ext", "5;a=\"\001\"\r\nhello\r\n0\r\n\r\n"),
	CN("trailer obs-fold", "0\r\nX: a\r\n b\r\n\r\n"),
	CN("trailer leading space", "0\r\n X: a\r\n\r\n"),
	CN("trailer space before colon", "0\r\nX : a\r\n\r\n"),
	CN("trailer no colon", "0\r\nX a\r\n\r\n"),
	CN("trailer bare LF", "0\r\nX: a\n\r\n"),
	CN("trailer NUL", "0\r\nX: a\0\r\n\r\n"),
	CN("trailer bare CR", "0\r\nX: a\rb\r\n\r\n"),
	CN("end bare CR", "0\r\n\r\r"),
	CN("end bare LF", "0\r\n\n"),
};

static void
check_chunk_case(const struct chunk_case *c)
{
	struct http_chunked	ch, ch2;
	size_t			used, outlen, used2, outlen2, piece;
	char			first[256];
	int			r, r2;

	r = decode(HTTP_REQUEST, guarded(c->raw, c->len), c->len, 0, &used,
	    &outlen, &ch);
	CHECK(r == c->result, "%s: result %d, want %d (%s)", c->name, r,
	    c->result, ch.errstr ? ch.errstr : "-");
	if (c->result == HTTP_ERROR)
		CHECK(ch.errcode == 400 && ch.errstr != NULL, "%s: errcode %d",
		    c->name, ch.errcode);
	else
		CHECK(outlen == c->datalen &&
		    memcmp(decoded, c->data, outlen) == 0,
		    "%s: decoded %zu bytes", c->name, outlen);
	if (c->result == HTTP_DONE)
		CHECK(used == c->len - c->extra, "%s: used %zu", c->name, used);
	assert_true(outlen <= sizeof(first));
	memcpy(first, decoded, outlen);
	for (piece = 1; piece < c->len; piece++) {
		r2 = decode(HTTP_REQUEST, c->raw, c->len, piece, &used2,
		    &outlen2, &ch2);
		CHECK(r2 == r && outlen2 == outlen &&
		    memcmp(first, decoded, outlen) == 0 &&
		    (r == HTTP_ERROR || used2 == used) &&
		    ch2.errstr == ch.errstr,
		    "%s: pieces of %zu: result %d/%d", c->name, piece, r2, r);
	}
	/* a response body fails the same way, answered with 502 */
	r2 = decode(HTTP_RESPONSE, c->raw, c->len, 0, &used2, &outlen2, &ch2);
	CHECK(r2 == r && (r != HTTP_ERROR || ch2.errcode == 502),
	    "%s: as a response: %d", c->name, r2);
}

static void
test_chunked_table(void **state)
{
	size_t	i;

	for (i = 0; i < NITEMS(chunk_cases); i++)
		check_chunk_case(&chunk_cases[i]);
	print_message("%zu chunked cases, each fed whole and in pieces of "
	    "every size\n", NITEMS(chunk_cases));
	end_checks();
}

static char	body[64 * 1024];
static char	enc[80 * 1024];

/* 64 KiB in chunks of awkward sizes, with extensions and trailers */
static size_t
encode_body(void)
{
	static const size_t	sizes[] = { 1, 0xfff, 0x1000, 0x3fff, 7, 0x2 };
	size_t			off = 0, pos = 0, n, i = 0;
	uint32_t		x = 2463534242u;

	for (n = 0; n < sizeof(body); n++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		body[n] = (char)x;
	}
	while (pos < sizeof(body)) {
		n = sizes[i++ % NITEMS(sizes)];
		if (n > sizeof(body) - pos)
			n = sizeof(body) - pos;
		off += snprintf(enc + off, sizeof(enc) - off, "%zX%s\r\n", n,
		    i % 3 == 0 ? ";x=\"1\"" : "");
		memcpy(enc + off, body + pos, n);
		off += n;
		pos += n;
		off += snprintf(enc + off, sizeof(enc) - off, "\r\n");
	}
	off += snprintf(enc + off, sizeof(enc) - off,
	    "0\r\nChecksum: x\r\n\r\n");
	assert_true(off < sizeof(enc));
	return off;
}

static void
test_chunked_64k(void **state)
{
	static const size_t	pieces[] = { 0, 1, 2, 3, 7, 13, 4093, 4096,
				    4097, 65537 };
	struct http_chunked	c;
	size_t			len, i, used, outlen;
	int			r;

	len = encode_body();
	for (i = 0; i < NITEMS(pieces); i++) {
		r = decode(HTTP_REQUEST, enc, len, pieces[i], &used, &outlen,
		    &c);
		CHECK(r == HTTP_DONE && used == len && outlen == sizeof(body) &&
		    memcmp(decoded, body, sizeof(body)) == 0,
		    "64 KiB in pieces of %zu: result %d (%s) used %zu out %zu",
		    pieces[i], r, c.errstr ? c.errstr : "-", used, outlen);
	}
	end_checks();
}

static void
test_chunked_limits(void **state)
{
	struct http_chunked	c;
	const char		*span;
	size_t			off, used, outlen, i, spanlen;
	int			r;

	/* no input, no change; a finished body takes no more */
	http_chunked_init(&c, HTTP_REQUEST);
	CHECK(http_chunked_feed(&c, NULL, 0, &used, &span, &spanlen) ==
	    HTTP_MORE && used == 0 && spanlen == 0, "empty feed");
	CHECK(http_chunked_feed(&c, "0\r\n\r\nX", 6, &used, &span,
	    &spanlen) == HTTP_DONE && used == 5, "done");
	CHECK(http_chunked_feed(&c, "X", 1, &used, &span, &spanlen) ==
	    HTTP_DONE && used == 0, "after done");
	CHECK(http_chunked_feed(&c, NULL, 0, &used, &span, &spanlen) ==
	    HTTP_DONE, "empty feed after done");

	/* extensions up to the size line limit, then one byte more */
	off = cat(0, "1;a=");
	off = fill(off, 'x', HTTP_CHUNK_LINE_MAX - 6);
	off = cat(off, "\r\nz\r\n0\r\n\r\n");
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_DONE, "size line at the limit: %s",
	    c.errstr ? c.errstr : "-");
	off = cat(0, "1;a=");
	off = fill(off, 'x', HTTP_CHUNK_LINE_MAX - 5);
	off = cat(off, "\r\nz\r\n0\r\n\r\n");
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_ERROR, "size line over the limit");
	/* unterminated extension: stops at the cap, not at the end */
	off = cat(0, "1;");
	off = fill(off, 'x', 64 * 1024);
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_ERROR && used == HTTP_CHUNK_LINE_MAX + 1,
	    "unterminated extension: used %zu", used);

	/* trailer section limit */
	off = cat(0, "0\r\nX: ");
	off = fill(off, 't', HTTP_TRAILER_MAX);
	off = cat(off, "\r\n\r\n");
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_ERROR, "trailer section over the limit");

	/* too many trailer fields */
	off = cat(0, "0\r\n");
	for (i = 0; i <= HTTP_FIELDS_MAX; i++)
		off = cat(off, "T: 1\r\n");
	off = cat(off, "\r\n");
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_ERROR, "too many trailer fields");

	/* one-byte chunks: a request is cut off, a response streams on */
	off = 0;
	for (i = 0; i < 20000; i++)
		off = cat(off, "1\r\nx\r\n");
	off = cat(off, "0\r\n\r\n");
	r = decode(HTTP_REQUEST, big, off, 0, &used, &outlen, &c);
	CHECK(r == HTTP_ERROR && c.errcode == 400,
	    "tiny chunks in a request: %d", r);
	r = decode(HTTP_RESPONSE, big, off, 7, &used, &outlen, &c);
	CHECK(r == HTTP_DONE && outlen == 20000,
	    "tiny chunks in a response: %d", r);
	end_checks();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunked_table),
		cmocka_unit_test(test_chunked_64k),
		cmocka_unit_test(test_chunked_limits),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
