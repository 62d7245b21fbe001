/*
 * Unit tests of the gateway's HTTP/1.1 parser (common/http.c): request
 * heads (a table of raw inputs and expected outcomes, each also fed split
 * at every byte), response heads and serialisation.  Chunked bodies are
 * test_chunked.c's.
 */

#include <sys/types.h>
#include <sys/mman.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "http.h"
#include "httptest.h"

#define OK		0

/*
 * Feeding helpers.  Each returns the final result and the number of bytes
 * the parser used in total.
 */

static int
feed_split(struct http_head *h, const char *raw, size_t len, size_t cut,
    size_t *consumed)
{
	size_t	used;
	int	r;

	r = http_head_feed(h, raw, cut, &used);
	*consumed = used;
	if (r != HTTP_MORE || cut == len)
		return r;
	r = http_head_feed(h, raw + cut, len - cut, &used);
	*consumed += used;
	return r;
}

static int
feed_bytes(struct http_head *h, const char *raw, size_t len,
    size_t *consumed)
{
	size_t	i, used;
	int	r = HTTP_MORE;

	*consumed = 0;
	for (i = 0; i < len && r == HTTP_MORE; i++) {
		r = http_head_feed(h, raw + i, 1, &used);
		*consumed += used;
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

/* two parses of the same bytes agree on everything a caller can see */
static int
same_head(const struct http_head *a, const struct http_head *b)
{
	size_t	i;

	if (a->errcode != b->errcode || a->version != b->version ||
	    a->meth != b->meth || a->form != b->form || a->code != b->code ||
	    a->nfields != b->nfields || a->flags != b->flags ||
	    a->body != b->body || a->content_length != b->content_length ||
	    a->hostlen != b->hostlen || a->port != b->port)
		return 0;
	if (a->errcode != 0)
		return a->errstr == b->errstr;
	if (!same_str(a->method, a->methodlen, b->method, b->methodlen) ||
	    !same_str(a->target, a->targetlen, b->target, b->targetlen) ||
	    !same_str(a->path, a->pathlen, b->path, b->pathlen) ||
	    !same_str(a->authority, a->authoritylen, b->authority,
	    b->authoritylen) ||
	    !same_str(a->reason, a->reasonlen, b->reason, b->reasonlen))
		return 0;
	for (i = 0; i < a->nfields; i++) {
		const struct http_field *fa = &a->fields[i];
		const struct http_field *fb = &b->fields[i];

		if (fa->id != fb->id || fa->flags != fb->flags ||
		    !same_str(fa->name, fa->namelen, fb->name, fb->namelen) ||
		    !same_str(fa->value, fa->valuelen, fb->value,
		    fb->valuelen))
			return 0;
		if (fa->name[fa->namelen] != '\0' ||
		    fa->value[fa->valuelen] != '\0')
			return 0;
	}
	return 1;
}

static void
head_init(struct http_head *h, enum http_kind kind, char *buf,
    size_t bufsz, enum http_method reqmeth)
{
	if (kind == HTTP_REQUEST)
		http_req_init(h, buf, bufsz);
	else
		http_resp_init(h, buf, bufsz, reqmeth);
}

static struct http_head	whole, part;
static char		wbuf[HTTP_HEAD_BUFSZ], pbuf[HTTP_HEAD_BUFSZ];

/*
 * Parse raw in one piece (from a guarded copy) into `whole`, then split at
 * every offset and byte by byte, and check every run agrees.  Returns the
 * one-piece result.
 */
static int
parse_all_ways(const char *name, enum http_kind kind, enum http_method rm,
    const char *raw, size_t len, size_t *consumed, int splits)
{
	size_t	cut, used, step;
	int	r, r2;

	head_init(&whole, kind, wbuf, sizeof(wbuf), rm);
	r = http_head_feed(&whole, guarded(raw, len), len, consumed);
	if (!splits)
		return r;
	/* long inputs: every offset near the ends, a stride elsewhere */
	step = len > 4096 ? 61 : 1;
	for (cut = 0; cut <= len; cut += (cut < 64 || len - cut < 64) ?
	    1 : step) {
		head_init(&part, kind, pbuf, sizeof(pbuf), rm);
		r2 = feed_split(&part, raw, len, cut, &used);
		CHECK(r2 == r && same_head(&whole, &part) &&
		    (r == HTTP_ERROR || used == *consumed),
		    "%s: split at %zu: result %d/%d errcode %d/%d (%s/%s) "
		    "used %zu/%zu", name, cut, r2, r, part.errcode,
		    whole.errcode, part.errstr ? part.errstr : "-",
		    whole.errstr ? whole.errstr : "-", used, *consumed);
	}
	head_init(&part, kind, pbuf, sizeof(pbuf), rm);
	r2 = feed_bytes(&part, raw, len, &used);
	CHECK(r2 == r && same_head(&whole, &part) &&
	    (r == HTTP_ERROR || used == *consumed),
	    "%s: byte at a time: result %d/%d errcode %d/%d", name, r2, r,
	    part.errcode, whole.errcode);
	return r;
}

/*
 * The request table.
 */

struct req_case {
	const char	*name;
	const char	*raw;
	size_t		 len;
	int		 status;	/* OK, or the errcode expected */
	enum http_body	 body;
	uint64_t	 cl;
	size_t		 extra;		/* bytes after the head */
};

#define Y(n, r, b, c)		{ n, r, sizeof(r) - 1, OK, b, c, 0 }
#define YX(n, r, x, b, c)	{ n, r, sizeof(r) - 1, OK, b, c, x }
#define N(n, r, s)		{ n, r, sizeof(r) - 1, s, 0, 0, 0 }

#define NONE	HTTP_BODY_NONE
#define LEN	HTTP_BODY_LENGTH
#define CHUNK	HTTP_BODY_CHUNKED

#define GETA	"GET / HTTP/1.1\r\nHost: a\r\n"
#define POSTA	"POST / HTTP/1.1\r\nHost: a\r\n"

static const struct req_case req_cases[] = {
	/* accepted */
	Y("simple GET", GETA "\r\n", NONE, 0),
	Y("fields and query", "GET /p/q?x=1&y=%2F HTTP/1.1\r\nHost: a.b\r\n"
	    "User-Agent: t/1.0\r\nAccept: */*\r\n\r\n", NONE, 0),
	Y("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", NONE, 0),
	Y("HTTP/1.0 absolute-form without Host", "GET http://a/x HTTP/1.0\r\n"
	    "\r\n", NONE, 0),
	Y("HTTP/1.0 CONNECT without Host", "CONNECT a:443 HTTP/1.0\r\n\r\n",
	    NONE, 0),
	Y("HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nHost: a\r\n"
	    "Connection: keep-alive\r\n\r\n", NONE, 0),
	Y("Content-Length", POSTA "Content-Length: 5\r\n\r\n", LEN, 5),
	Y("Content-Length 0", POSTA "Content-Length: 0\r\n\r\n", LEN, 0),
	Y("Content-Length leading zeros", POSTA "Content-Length: 010\r\n\r\n",
	    LEN, 10),
	Y("Content-Length 2^63-1", POSTA
	    "Content-Length: 9223372036854775807\r\n\r\n", LEN,
	    9223372036854775807ULL),
	Y("chunked", POSTA "Transfer-Encoding: chunked\r\n\r\n", CHUNK, 0),
	Y("chunked, any case, OWS", POSTA "transfer-encoding:  ChUnKeD \r\n"
	    "\r\n", CHUNK, 0),
	Y("one leading CRLF", "\r\n" GETA "\r\n", NONE, 0),
	Y("four leading CRLF", "\r\n\r\n\r\n\r\n" GETA "\r\n", NONE, 0),
	Y("OWS trimmed", GETA "X:  a b \t\r\nY:\tc\r\n\r\n", NONE, 0),
	Y("empty values", GETA "X:\r\nY: \r\nZ:\t \r\n\r\n", NONE, 0),
	Y("absolute-form", "GET http://a/x?y HTTP/1.1\r\nHost: a\r\n\r\n",
	    NONE, 0),
	Y("absolute-form https port, Host case",
	    "GET HTTPS://Ex.com:8443/ HTTP/1.1\r\nHost: ex.COM:8443\r\n\r\n",
	    NONE, 0),
	Y("absolute-form without path", "GET http://a HTTP/1.1\r\n"
	    "Host: a\r\n\r\n", NONE, 0),
	Y("absolute-form query only", "GET http://a?q HTTP/1.1\r\n"
	    "Host: a\r\n\r\n", NONE, 0),
	Y("CONNECT authority-form", "CONNECT a.b:443 HTTP/1.1\r\n"
	    "Host: a.b:443\r\n\r\n", NONE, 0),
	Y("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", NONE, 0),
	Y("Host with port", "GET / HTTP/1.1\r\nHost: a.example:8080\r\n\r\n",
	    NONE, 0),
	Y("Host IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n",
	    NONE, 0),
	Y("Host IPv4, trailing dot", "GET / HTTP/1.1\r\nHost: 10.0.0.1\r\n"
	    "X-H: example.com.\r\n\r\n", NONE, 0),
	Y("Host trailing dot", "GET / HTTP/1.1\r\nHost: example.com.\r\n\r\n",
	    NONE, 0),
	Y("obs-text and HTAB in value", GETA "X: caf\xc3\xa9\tok\r\n\r\n",
	    NONE, 0),
	Y("Expect 100-continue", POSTA "Expect: 100-Continue\r\n"
	    "Content-Length: 3\r\n\r\n", LEN, 3),
	Y("Expect ignored in HTTP/1.0", "GET / HTTP/1.0\r\n"
	    "Expect: whatever\r\n\r\n", NONE, 0),
	Y("Connection names a field", GETA "Connection: close, X-Foo\r\n"
	    "X-Foo: 1\r\nKeep-Alive: 5\r\n\r\n", NONE, 0),
	Y("Connection empty elements", GETA "Connection: , close ,,\r\n\r\n",
	    NONE, 0),
	Y("websocket upgrade", "GET /ws HTTP/1.1\r\nHost: a\r\n"
	    "Connection: Upgrade\r\nUpgrade: websocket\r\n"
	    "Sec-WebSocket-Key: x\r\n\r\n", NONE, 0),
	Y("unknown method", "PURGE /x HTTP/1.1\r\nHost: a\r\n\r\n", NONE, 0),
	Y("tchar method", "M-1.x_~! / HTTP/1.1\r\nHost: a\r\n\r\n", NONE, 0),
	Y("percent-encoded target", "GET /a%20b%2f HTTP/1.1\r\nHost: a\r\n"
	    "\r\n", NONE, 0),
	Y("loose VCHAR in target", "GET /a{b}|c\"d HTTP/1.1\r\nHost: a\r\n"
	    "\r\n", NONE, 0),
	Y("many tchar in name", GETA "!#$%&'*+-.^_`|~09aZ: v\r\n\r\n",
	    NONE, 0),
	Y("Host underscore label", "GET / HTTP/1.1\r\nHost: a_b.c-d\r\n\r\n",
	    NONE, 0),
	YX("body follows", POSTA "Content-Length: 5\r\n\r\nhello", 5, LEN, 5),
	YX("pipelined", GETA "\r\n" GETA "\r\n", 27, NONE, 0),
	YX("chunked body follows", POSTA "Transfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n0\r\n\r\n", 15, CHUNK, 0),

	/* line terminators */
	N("bare LF request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", 400),
	N("bare LF everywhere", "GET / HTTP/1.1\nHost: a\n\n", 400),
	N("bare LF field", GETA "x:x\nTransfer-Encoding: chunked\r\n\r\n",
	    400),
	N("bare LF end", GETA "\n", 400),
	N("bare CR in value", GETA "X: a\rb\r\n\r\n", 400),
	N("bare CR terminator", GETA "Foo: 1\rBar: 2\r\n\r\n", 400),
	N("bare CR before request", "\r\n\rZGET /evil HTTP/1.1\r\n\r\n", 400),
	N("bare CR end", GETA "\r\r\n", 400),
	N("leading LF", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("five leading CRLF", "\r\n\r\n\r\n\r\n\r\n" GETA "\r\n", 400),
	N("CR in request line", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", 400),

	/* field values */
	N("NUL in value", "GET / HTTP/1.1\r\nHost: a\0.evil\r\n\r\n", 400),
	N("NUL after value", GETA "User: admin\0x\r\n\r\n", 400),
	N("SOH in value", GETA "X: a\001b\r\n\r\n", 400),
	N("ESC in value", GETA "X: \033[0m\r\n\r\n", 400),
	N("DEL in value", GETA "X: a\177\r\n\r\n", 400),
	N("VT before chunked", POSTA "Transfer-Encoding:\x0b" "chunked\r\n\r\n",
	    400),
	N("FF before chunked", POSTA "Transfer-Encoding:\x0c" "chunked\r\n\r\n",
	    400),

	/* field lines and names */
	N("obs-fold", GETA "X: a\r\n b\r\n\r\n", 400),
	N("obs-fold TE", POSTA "Transfer-Encoding:\r\n chunked\r\n\r\n", 400),
	N("obs-fold tab", GETA "X: a\r\n\tb\r\n\r\n", 400),
	N("first field indented", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400),
	N("SP before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
	N("HTAB before colon", POSTA "Content-Length\t: 5\r\n\r\n", 400),
	N("no colon", POSTA "Content-Length 10\r\n\r\n", 400),
	N("name split across lines", POSTA "Transfer-\r\nEncoding: chunked\r\n"
	    "\r\n", 400),
	N("empty name", GETA ": x\r\n\r\n", 400),
	N("empty name, empty value", GETA ":\r\n\r\n", 400),
	N("@ in name", GETA "Fo@: x\r\n\r\n", 400),
	N("/ in name", GETA "Accept/Encoding: x\r\n\r\n", 400),
	N("{ in name", GETA "{: 1\r\n\r\n", 400),
	N("obs-text in name", GETA "Header\x85: v\r\n\r\n", 400),
	N("NUL in name", GETA "X\0: v\r\n\r\n", 400),
	N("Transfer_Encoding", POSTA "Transfer_Encoding: chunked\r\n\r\n",
	    400),
	N("Content_Length", POSTA "Content_length: 5\r\n\r\n", 400),

	/* request line */
	N("HTAB in method", "G\tT / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("colon method", ":GET / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("empty method", " / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
	N("DEL in target", "GET /\177 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("NUL in target", "GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("obs-text in target", "GET /\xff HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("fragment", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("bad percent end", "GET /foo/bar% HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("bad percent hex", "GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("relative target", "GET admin HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("asterisk for GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("asterisk plus", "OPTIONS *x HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("CONNECT without port", "CONNECT a.b HTTP/1.1\r\nHost: a.b\r\n\r\n",
	    400),
	N("CONNECT origin-form", "CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("authority-form for GET", "GET a.b:443 HTTP/1.1\r\nHost: a.b:443\r\n"
	    "\r\n", 400),
	N("ftp scheme", "GET ftp://a/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("userinfo", "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("empty authority", "GET http:/// HTTP/1.1\r\nHost: a\r\n\r\n", 400),
	N("absolute-form vs Host", "GET http://a/ HTTP/1.1\r\nHost: b\r\n\r\n",
	    400),
	N("absolute-form vs Host port", "GET http://a:80/ HTTP/1.1\r\n"
	    "Host: a\r\n\r\n", 400),
	N("CONNECT vs Host", "CONNECT a:443 HTTP/1.1\r\nHost: b:443\r\n\r\n",
	    400),

	/* versions */
	N("HTTP/0.9", "GET /\r\n\r\n", 400),
	Y("HTTP/1.2 as 1.1", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", NONE, 0),
	Y("HTTP/1.9 as 1.1", "GET / HTTP/1.9\r\nHost: a\r\n\r\n", NONE, 0),
	N("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
	N("HTTP/2.1", "GET / HTTP/2.1\r\nHost: a\r\n\r\n", 505),
	N("HTTP/3.0", "GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
	N("HTTP/0.5", "GET / HTTP/0.5\r\nHost: a\r\n\r\n", 505),
	N("HTTP/1.32", "GET / HTTP/1.32\r\nHost: a\r\n\r\n", 400),
	N("HTTP/4294967295.255", "GET / HTTP/4294967295.255\r\nHost: a\r\n"
	    "\r\n", 400),
	N("lowercase http", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
	N("HTTP/1", "GET / HTTP/1\r\nHost: a\r\n\r\n", 400),
	N("HTTP/ CR CR", "GET / HTTP/\r\r1.1\r\nHost: a\r\n\r\n", 400),
	N("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),

	/* Transfer-Encoding */
	N("CL then TE", POSTA "Content-Length: 5\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 400),
	N("TE then CL", POSTA "Transfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n", 400),
	N("TE gzip", POSTA "Transfer-Encoding: gzip\r\n\r\n", 501),
	N("TE identity", POSTA "Transfer-Encoding: identity\r\n\r\n", 501),
	N("TE xchunked", POSTA "Transfer-Encoding: xchunked\r\n\r\n", 501),
	N("TE list of unknowns", POSTA "Transfer-Encoding: gzip , br\r\n\r\n",
	    501),
	N("TE chunked, gzip", POSTA "Transfer-Encoding: chunked, gzip\r\n\r\n",
	    400),
	N("TE gzip, chunked", POSTA "Transfer-Encoding: gzip, chunked\r\n\r\n",
	    400),
	N("TE chunked twice in list", POSTA
	    "Transfer-Encoding: chunked, chunked\r\n\r\n", 400),
	N("TE twice", POSTA "Transfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 400),
	N("TE twice, other", POSTA "Transfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: cow\r\n\r\n", 400),
	N("TE parameter", POSTA "Transfer-Encoding: chunked;ext=v\r\n\r\n",
	    400),
	N("TE quoted", POSTA "Transfer-Encoding: \"chunked\"\r\n\r\n", 400),
	N("TE leading comma", POSTA "Transfer-Encoding: ,chunked\r\n\r\n", 400),
	N("TE trailing comma", POSTA "Transfer-Encoding: chunked,\r\n\r\n",
	    400),
	N("TE empty", POSTA "Transfer-Encoding:\r\n\r\n", 400),
	N("TE obs-text", POSTA "Transfer-Encoding: \xa0" "chunked\r\n\r\n",
	    400),
	N("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n", 400),

	/* Content-Length */
	N("CL empty", POSTA "Content-Length:\r\n\r\n", 400),
	N("CL plus", POSTA "Content-Length: +5\r\n\r\n", 400),
	N("CL minus", POSTA "Content-Length: -1\r\n\r\n", 400),
	N("CL hex", POSTA "Content-Length: 0x10\r\n\r\n", 400),
	N("CL underscore", POSTA "Content-Length: 1_0\r\n\r\n", 400),
	N("CL space inside", POSTA "Content-Length: 1 0\r\n\r\n", 400),
	N("CL suffix", POSTA "Content-Length: 5a\r\n\r\n", 400),
	N("CL 2^63", POSTA "Content-Length: 9223372036854775808\r\n\r\n", 400),
	N("CL overflow", POSTA "Content-Length: 99999999999999999999999\r\n"
	    "\r\n", 400),
	N("CL twice same", POSTA "Content-Length: 5\r\nContent-Length: 5\r\n"
	    "\r\n", 400),
	N("CL list same", POSTA "Content-Length: 5, 5\r\n\r\n", 400),
	N("CL list differing", POSTA "Content-Length: 5, 6\r\n\r\n", 400),
	N("CL twice differing", POSTA "Content-Length: 1\r\n"
	    "Content-Length: 0\r\n\r\n", 400),

	/* Host */
	N("no Host", "GET / HTTP/1.1\r\n\r\n", 400),
	N("two Host", GETA "Host: a\r\n\r\n", 400),
	N("Host list", "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", 400),
	N("Host space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
	N("Host dot", "GET / HTTP/1.1\r\nHost: .\r\n\r\n", 400),
	N("Host empty label", "GET / HTTP/1.1\r\nHost: a..b\r\n\r\n", 400),
	N("Host bad port", "GET / HTTP/1.1\r\nHost: x.com.:1.2\r\n\r\n", 400),
	N("Host userinfo", "GET / HTTP/1.1\r\nHost: a@b\r\n\r\n", 400),
	N("Host empty", "GET / HTTP/1.1\r\nHost:\r\n\r\n", 400),
	N("Host empty port", "GET / HTTP/1.1\r\nHost: a:\r\n\r\n", 400),
	N("Host port range", "GET / HTTP/1.1\r\nHost: a:65536\r\n\r\n", 400),
	N("Host unclosed IPv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
	N("Host bad IPv6", "GET / HTTP/1.1\r\nHost: [::g]\r\n\r\n", 400),
	N("Host percent", "GET / HTTP/1.1\r\nHost: a%2eb\r\n\r\n", 400),
	N("Host in HTTP/1.0 invalid", "GET / HTTP/1.0\r\nHost: a/b\r\n\r\n",
	    400),

	/* Connection, Expect */
	N("Connection: Content-Length", POSTA "Connection: Content-Length\r\n"
	    "Content-Length: 5\r\n\r\n", 400),
	N("Connection: Host", GETA "Connection: host\r\n\r\n", 400),
	N("Connection: Transfer-Encoding", GETA
	    "Connection: Transfer-Encoding\r\n\r\n", 400),
	N("Connection bad token", GETA "Connection: close close\r\n\r\n", 400),
	N("Connection too many", GETA "Connection: a,b,c,d,e,f,g,h,i,j,k,l,"
	    "m,n,o,p,q\r\n\r\n", 400),
	N("Expect 101-continue", POSTA "Expect: 101-continue\r\n\r\n", 417),
	N("Expect with param", POSTA "Expect: 100-continue; a=b\r\n\r\n", 417),
};

static void
check_req_case(const struct req_case *c)
{
	size_t	used;
	int	r;

	r = parse_all_ways(c->name, HTTP_REQUEST, 0, c->raw, c->len, &used,
	    1);
	if (c->status == OK) {
		CHECK(r == HTTP_DONE, "%s: rejected %d (%s)", c->name,
		    whole.errcode, whole.errstr ? whole.errstr : "-");
		if (r != HTTP_DONE)
			return;
		CHECK(whole.body == c->body && whole.content_length == c->cl,
		    "%s: framing %d/%llu, want %d/%llu", c->name, whole.body,
		    (unsigned long long)whole.content_length, c->body,
		    (unsigned long long)c->cl);
		CHECK(used == c->len - c->extra, "%s: used %zu of %zu",
		    c->name, used, c->len);
	} else {
		CHECK(r == HTTP_ERROR && whole.errcode == c->status,
		    "%s: result %d errcode %d, want %d", c->name, r,
		    whole.errcode, c->status);
	}
}

static void
test_request_table(void **state)
{
	size_t	i, nok = 0;

	for (i = 0; i < NITEMS(req_cases); i++) {
		check_req_case(&req_cases[i]);
		nok += req_cases[i].status == OK;
	}
	print_message("%zu request cases (%zu accepted, %zu rejected), "
	    "each fed whole, split at every offset and byte by byte\n",
	    NITEMS(req_cases), nok, NITEMS(req_cases) - nok);
	end_checks();
}

/*
 * Limits, with generated inputs.
 */

static void
expect_status(const char *name, size_t len, int status)
{
	size_t	used;
	int	r;

	r = parse_all_ways(name, HTTP_REQUEST, 0, big, len, &used, 1);
	if (status == OK)
		CHECK(r == HTTP_DONE && used == len, "%s: result %d (%s)",
		    name, r, whole.errstr ? whole.errstr : "-");
	else
		CHECK(r == HTTP_ERROR && whole.errcode == status,
		    "%s: result %d errcode %d, want %d", name, r,
		    whole.errcode, status);
}

/* a request line of exactly n bytes with its CRLF */
static size_t
request_line(size_t n)
{
	size_t	off;

	off = cat(0, "GET /");
	off = fill(off, 'a', n - strlen("GET / HTTP/1.1\r\n"));
	return cat(off, " HTTP/1.1\r\n");
}

static void
test_limits(void **state)
{
	size_t	off, i;
	char	line[64];

	off = request_line(HTTP_LINE_MAX);
	off = cat(off, "Host: a\r\n\r\n");
	expect_status("request line at the limit", off, OK);
	off = request_line(HTTP_LINE_MAX + 1);
	off = cat(off, "Host: a\r\n\r\n");
	expect_status("request line over the limit", off, 414);
	/* the limit strikes before the bad byte that would follow */
	off = request_line(HTTP_LINE_MAX + 100);
	big[off - 3] = '\001';
	expect_status("long line, bad byte late", off, 414);

	off = cat(0, "GET / HTTP/1.1\r\nHost: a\r\nX: ");
	off = fill(off, 'v', HTTP_FIELD_MAX - strlen("X: \r\n"));
	off = cat(off, "\r\n\r\n");
	expect_status("field line at the limit", off, OK);
	off = cat(0, "GET / HTTP/1.1\r\nHost: a\r\nX: ");
	off = fill(off, 'v', HTTP_FIELD_MAX + 1 - strlen("X: \r\n"));
	off = cat(off, "\r\n\r\n");
	expect_status("field line over the limit", off, 431);

	/* 4 fields of 8000 bytes, then enough to cross 32 KiB */
	off = cat(0, "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 0; i < 4; i++) {
		off = cat(off, "X: ");
		off = fill(off, 'v', 8000);
		off = cat(off, "\r\n");
	}
	off = cat(off, "Y: ");
	off = fill(off, 'w', 800);
	off = cat(off, "\r\n\r\n");
	expect_status("field section over the limit", off, 431);

	off = cat(0, "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 1; i < HTTP_FIELDS_MAX; i++) {
		snprintf(line, sizeof(line), "X-%zu: %zu\r\n", i, i);
		off = cat(off, line);
	}
	off = cat(off, "\r\n");
	expect_status("100 fields", off, OK);
	off -= 2;
	off = cat(off, "Z: 1\r\n\r\n");
	expect_status("101 fields", off, 431);

	/* a small buffer fills up: the limit's status, no overflow */
	off = cat(0, "GET /0123456789 HTTP/1.1\r\nHost: a\r\n"
	    "X: 0123456789012345678901234567890123456789\r\n\r\n");
	{
		struct http_head	h;
		char			small[40];
		size_t			used;

		http_req_init(&h, small, sizeof(small));
		CHECK(http_head_feed(&h, big, off, &used) == HTTP_ERROR &&
		    h.errcode == 431, "small buffer: %d", h.errcode);
		http_req_init(&h, small, 8);
		CHECK(http_head_feed(&h, big, off, &used) == HTTP_ERROR &&
		    h.errcode == 414, "tiny buffer: %d", h.errcode);
		/* room for "GET", not for its NUL */
		http_req_init(&h, small, 3);
		CHECK(http_head_feed(&h, big, off, &used) == HTTP_ERROR &&
		    h.errcode == 414, "buffer of 3: %d", h.errcode);
	}
	end_checks();
}

/*
 * Every buffer size up to what the head needs: the limit's status, never a
 * write past the buffer (each one is malloc'd to size, for ASan).
 */
static void
every_bufsz(enum http_kind kind, const char *raw)
{
	struct http_head	 h;
	char			*buf;
	size_t			 need, sz, used, len = strlen(raw);
	int			 r;

	head_init(&h, kind, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&h, raw, len, &used), HTTP_DONE);
	need = h.buflen;
	for (sz = 0; sz <= need; sz++) {
		buf = malloc(sz ? sz : 1);
		assert_non_null(buf);
		head_init(&h, kind, buf, sz, HTTP_M_GET);
		r = http_head_feed(&h, raw, len, &used);
		if (sz == need)
			CHECK(r == HTTP_DONE, "buffer of %zu: %d", sz, r);
		else
			CHECK(r == HTTP_ERROR && (kind == HTTP_RESPONSE ?
			    h.errcode == 502 : (h.errcode == 414 ||
			    h.errcode == 431)), "buffer of %zu: %d %d", sz, r,
			    h.errcode);
		free(buf);
	}
}

static void
test_buffer_sizes(void **state)
{
	every_bufsz(HTTP_REQUEST, "PUT /x?y HTTP/1.1\r\nHost: a\r\n"
	    "X:  v w  \r\nE:\r\nLong-Name: 0123456789\r\n\r\n");
	every_bufsz(HTTP_RESPONSE, "HTTP/1.1 200 Fine\r\nA: b\r\n"
	    "C: d \r\n\r\n");
	every_bufsz(HTTP_RESPONSE, "HTTP/1.1 204\r\nA: b\r\n\r\n");
	end_checks();
}

/*
 * The parsed form of a few requests, in detail.
 */

static const struct http_head *
parse_ok(const char *raw)
{
	size_t	used;
	int	r;

	r = parse_all_ways(raw, HTTP_REQUEST, 0, raw, strlen(raw), &used, 1);
	assert_int_equal(r, HTTP_DONE);
	return &whole;
}

static int
field_is(const struct http_field *f, const char *name, const char *value)
{
	return f != NULL && strcmp(f->name, name) == 0 &&
	    strcmp(f->value, value) == 0 && f->namelen == strlen(name) &&
	    f->valuelen == strlen(value);
}

static void
test_request_form(void **state)
{
	const struct http_head	*h;
	const struct http_field	*f;
	size_t			 used;

	h = parse_ok("\r\nPOST /p?q HTTP/1.1\r\nhOsT: Example.COM:8080\r\n"
	    "X:  a b \t\r\nY:\r\nContent-Length: 007\r\n\r\n");
	assert_int_equal(h->meth, HTTP_M_POST);
	assert_string_equal(h->method, "POST");
	assert_string_equal(h->target, "/p?q");
	assert_int_equal(h->version, 11);
	assert_int_equal(h->form, HTTP_FORM_ORIGIN);
	assert_int_equal(h->nfields, 4);
	assert_true(field_is(&h->fields[0], "hOsT", "Example.COM:8080"));
	assert_int_equal(h->fields[0].id, HTTP_H_HOST);
	assert_true(field_is(&h->fields[1], "X", "a b"));
	assert_true(field_is(&h->fields[2], "Y", ""));
	assert_int_equal(h->authoritylen, strlen("Example.COM:8080"));
	assert_int_equal(h->hostlen, strlen("Example.COM"));
	assert_int_equal(h->port, 8080);
	assert_int_equal(h->body, HTTP_BODY_LENGTH);
	assert_int_equal(h->content_length, 7);
	assert_true(h->flags & HTTP_F_HAS_CL);
	assert_true(http_head_persistent(h));
	f = http_head_find(h, "content-length");
	assert_true(field_is(f, "Content-Length", "007"));
	assert_ptr_equal(http_head_get(h, HTTP_H_CONTENT_LENGTH), f);
	assert_null(http_head_get(h, HTTP_H_UPGRADE));

	h = parse_ok("GET http://A.b:81?x HTTP/1.1\r\nHost: a.B:81\r\n\r\n");
	assert_int_equal(h->form, HTTP_FORM_ABSOLUTE);
	assert_int_equal(h->pathlen, 2);
	assert_memory_equal(h->path, "?x", 2);
	assert_memory_equal(h->authority, "A.b:81", h->authoritylen);
	assert_int_equal(h->port, 81);

	/* a higher minor version is 1.1: Host needed, persistent */
	h = parse_ok("GET / HTTP/1.2\r\nHost: a\r\n\r\n");
	assert_int_equal(h->version, 11);
	assert_true(http_head_persistent(h));
	parse_all_ways("1.7 no Host", HTTP_REQUEST, 0, "GET / HTTP/1.7\r\n\r\n",
	    18, &used, 0);
	assert_int_equal(whole.errcode, 400);

	h = parse_ok("GET / HTTP/1.0\r\n\r\n");
	assert_int_equal(h->version, 10);
	assert_int_equal(h->authoritylen, 0);
	assert_false(http_head_persistent(h));

	h = parse_ok("GET / HTTP/1.0\r\nHost: a\r\nConnection: Keep-Alive\r\n"
	    "\r\n");
	assert_true(h->flags & HTTP_F_CONN_KEEPALIVE);
	assert_true(http_head_persistent(h));

	h = parse_ok("GET / HTTP/1.1\r\nHost: a\r\nConnection: close, X-A\r\n"
	    "X-A: 1\r\nX-B: 2\r\nTE: trailers\r\nKeep-Alive: 1\r\n"
	    "Proxy-Connection: x\r\nTrailer: T\r\nUpgrade: h2c\r\n\r\n");
	assert_true(h->flags & HTTP_F_CONN_CLOSE);
	assert_true(h->flags & HTTP_F_UPGRADE);
	assert_false(h->flags & HTTP_F_CONN_UPGRADE);
	assert_false(http_head_persistent(h));
	assert_int_equal(h->fields[0].flags, 0);		/* Host */
	assert_int_equal(h->fields[1].flags, HTTP_FIELD_HOP);	/* Connection */
	assert_int_equal(h->fields[2].flags, HTTP_FIELD_HOP);	/* X-A */
	assert_int_equal(h->fields[3].flags, 0);		/* X-B */
	assert_int_equal(h->fields[4].flags, HTTP_FIELD_HOP);
	assert_int_equal(h->fields[5].flags, HTTP_FIELD_HOP);
	assert_int_equal(h->fields[6].flags, HTTP_FIELD_HOP);
	assert_int_equal(h->fields[7].flags, HTTP_FIELD_HOP);
	assert_int_equal(h->fields[8].flags, HTTP_FIELD_HOP);

	h = parse_ok("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n");
	assert_true(h->flags & HTTP_F_EXPECT_CONTINUE);
	assert_true(h->flags & HTTP_F_HAS_TE);
	assert_int_equal(h->body, HTTP_BODY_CHUNKED);

	h = parse_ok("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n");
	assert_int_equal(h->form, HTTP_FORM_AUTHORITY);
	assert_int_equal(h->hostlen, 5);
	assert_int_equal(h->port, 443);

	h = parse_ok("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n");
	assert_int_equal(h->form, HTTP_FORM_ASTERISK);
	assert_int_equal(h->meth, HTTP_M_OPTIONS);
}

/* once done or failed, a head takes no more bytes */
static void
test_final_states(void **state)
{
	struct http_head	h;
	char			buf[256];
	size_t			used;
	const char		*ok = "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET";

	http_req_init(&h, buf, sizeof(buf));
	assert_int_equal(http_head_feed(&h, ok, strlen(ok), &used), HTTP_DONE);
	assert_int_equal(used, strlen(ok) - 3);
	assert_int_equal(http_head_feed(&h, "x", 1, &used), HTTP_DONE);
	assert_int_equal(used, 0);
	assert_int_equal(http_head_feed(&h, NULL, 0, &used), HTTP_DONE);

	http_req_init(&h, buf, sizeof(buf));
	assert_int_equal(http_head_feed(&h, NULL, 0, &used), HTTP_MORE);
	assert_int_equal(http_head_feed(&h, "GET\n", 4, &used), HTTP_ERROR);
	assert_int_equal(h.errcode, 400);
	assert_non_null(h.errstr);
	assert_int_equal(http_head_feed(&h, "x", 1, &used), HTTP_ERROR);
	assert_int_equal(used, 0);
	assert_int_equal(http_head_serialize(&h, NULL, buf, sizeof(buf)), -1);
}

/*
 * Response heads.
 */

struct resp_case {
	const char		*name;
	enum http_method	 reqmeth;
	const char		*raw;
	size_t			 len;
	int			 status;	/* OK or errcode */
	enum http_body		 body;
	int			 code;
	int			 persistent;
};

#define RY(n, m, r, b, c, p)	{ n, m, r, sizeof(r) - 1, OK, b, c, p }
#define RN(n, m, r)		{ n, m, r, sizeof(r) - 1, 502, 0, 0, 0 }

static const struct resp_case resp_cases[] = {
	RY("200 CL", HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "\r\n", LEN, 200, 1),
	RY("200 chunked", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", CHUNK, 200, 1),
	RY("200 until close", HTTP_M_GET, "HTTP/1.1 200 OK\r\nX: y\r\n\r\n",
	    HTTP_BODY_CLOSE, 200, 0),
	RY("HEAD with CL", HTTP_M_HEAD, "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 100\r\n\r\n", NONE, 200, 1),
	RY("HEAD with chunked", HTTP_M_HEAD, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", NONE, 200, 1),
	RY("100 Continue", HTTP_M_POST, "HTTP/1.1 100 Continue\r\n\r\n", NONE,
	    100, 1),
	RY("101 Switching", HTTP_M_GET, "HTTP/1.1 101 Switching Protocols\r\n"
	    "Connection: upgrade\r\nUpgrade: websocket\r\n\r\n", NONE, 101, 1),
	RY("103 Early Hints", HTTP_M_GET, "HTTP/1.1 103 Early Hints\r\n"
	    "Link: </s.css>; rel=preload\r\n\r\n", NONE, 103, 1),
	RY("204 No Content", HTTP_M_DELETE, "HTTP/1.1 204 No Content\r\n\r\n",
	    NONE, 204, 1),
	RY("304 with CL", HTTP_M_GET, "HTTP/1.1 304 Not Modified\r\n"
	    "Content-Length: 50\r\n\r\n", NONE, 304, 1),
	RY("CONNECT 200", HTTP_M_CONNECT, "HTTP/1.1 200 Connection "
	    "established\r\n\r\n", HTTP_BODY_TUNNEL, 200, 1),
	RY("CONNECT 407", HTTP_M_CONNECT, "HTTP/1.1 407 Auth\r\n"
	    "Content-Length: 0\r\n\r\n", LEN, 407, 1),
	RY("HTTP/1.0 200", HTTP_M_GET, "HTTP/1.0 200 OK\r\n\r\n",
	    HTTP_BODY_CLOSE, 200, 0),
	RY("HTTP/1.0 CL", HTTP_M_GET, "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n"
	    "\r\n", LEN, 200, 0),
	RY("Connection close", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Connection: close\r\nContent-Length: 1\r\n\r\n", LEN, 200, 0),
	RY("no reason", HTTP_M_GET, "HTTP/1.1 404\r\nContent-Length: 0\r\n"
	    "\r\n", LEN, 404, 1),
	RY("empty reason", HTTP_M_GET, "HTTP/1.1 500 \r\nContent-Length: 0\r\n"
	    "\r\n", LEN, 500, 1),
	RY("obs-text reason", HTTP_M_GET, "HTTP/1.1 200 \xc3\xa9t\xc3\xa9\r\n"
	    "Content-Length: 0\r\n\r\n", LEN, 200, 1),
	RN("CL and TE", HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"),
	RN("CL twice", HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "Content-Length: 3\r\n\r\n"),
	RN("CL bad", HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3x\r\n"
	    "\r\n"),
	RN("TE gzip", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: gzip\r\n\r\n"),
	RN("TE twice", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
	RN("TE in HTTP/1.0", HTTP_M_GET, "HTTP/1.0 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"),
	RN("obs-fold", HTTP_M_GET, "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n"),
	RN("space before colon", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Content-Length : 3\r\n\r\n"),
	RN("bare LF", HTTP_M_GET, "HTTP/1.1 200 OK\nContent-Length: 0\n\n"),
	RN("bare CR", HTTP_M_GET, "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"),
	RN("NUL in value", HTTP_M_GET, "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n"),
	RN("status 99", HTTP_M_GET, "HTTP/1.1 099 X\r\n\r\n"),
	RN("status 600", HTTP_M_GET, "HTTP/1.1 600 X\r\n\r\n"),
	RN("status 4 digits", HTTP_M_GET, "HTTP/1.1 2000 OK\r\n\r\n"),
	RN("status 2 digits", HTTP_M_GET, "HTTP/1.1 20 OK\r\n\r\n"),
	RN("HTTP/2.0", HTTP_M_GET, "HTTP/2.0 200 OK\r\n\r\n"),
	RY("HTTP/1.2 as 1.1", HTTP_M_GET, "HTTP/1.2 200 OK\r\n"
	    "Content-Length: 0\r\n\r\n", LEN, 200, 1),
	RN("leading CRLF", HTTP_M_GET, "\r\nHTTP/1.1 200 OK\r\n\r\n"),
	RN("garbage", HTTP_M_GET, "<html>\r\n\r\n"),
	RN("CTL in reason", HTTP_M_GET, "HTTP/1.1 200 O\001K\r\n\r\n"),
	RN("Connection: Content-Length", HTTP_M_GET, "HTTP/1.1 200 OK\r\n"
	    "Connection: Content-Length\r\nContent-Length: 1\r\n\r\n"),
};

static void
test_response_table(void **state)
{
	const struct resp_case	*c;
	size_t			 i, used;
	int			 r;

	for (i = 0; i < NITEMS(resp_cases); i++) {
		c = &resp_cases[i];
		r = parse_all_ways(c->name, HTTP_RESPONSE, c->reqmeth, c->raw,
		    c->len, &used, 1);
		if (c->status != OK) {
			CHECK(r == HTTP_ERROR && whole.errcode == c->status,
			    "%s: result %d errcode %d", c->name, r,
			    whole.errcode);
			continue;
		}
		CHECK(r == HTTP_DONE && used == c->len, "%s: result %d (%s)",
		    c->name, r, whole.errstr ? whole.errstr : "-");
		CHECK(whole.body == c->body && whole.code == c->code,
		    "%s: framing %d code %d", c->name, whole.body, whole.code);
		CHECK(http_head_persistent(&whole) == c->persistent,
		    "%s: persistent", c->name);
	}
	print_message("%zu response cases\n", NITEMS(resp_cases));
	end_checks();
}

/* a 1xx is a head of its own: parse it, then the final response after it */
static void
test_response_interim(void **state)
{
	const char	*raw = "HTTP/1.1 100 Continue\r\n\r\n"
			    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
	size_t		 used, off;

	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_POST);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	assert_int_equal(whole.code, 100);
	off = used;
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_POST);
	assert_int_equal(http_head_feed(&whole, raw + off, strlen(raw) - off,
	    &used), HTTP_DONE);
	assert_int_equal(whole.code, 200);
	assert_string_equal(whole.reason, "OK");
	assert_int_equal(whole.body, HTTP_BODY_LENGTH);
	assert_int_equal(whole.content_length, 2);
	assert_string_equal(raw + off + used, "hi");
}

/*
 * Serialisation.
 */

static struct http_head	again;
static char		abuf[HTTP_HEAD_BUFSZ];
static char		out[HTTP_HEAD_BUFSZ];

static int
drop_xff(const struct http_field *f, void *arg)
{
	int	*calls = arg;

	(*calls)++;
	return f->id != HTTP_H_X_FORWARDED_FOR;
}

/* serialise, then parse what was written */
static const struct http_head *
reparse(const struct http_head *h, const struct http_ser *ser, ssize_t *n)
{
	size_t	used;

	*n = http_head_serialize(h, ser, out, sizeof(out));
	assert_true(*n > 0);
	if (h->kind == HTTP_REQUEST)
		http_req_init(&again, abuf, sizeof(abuf));
	else
		http_resp_init(&again, abuf, sizeof(abuf), h->reqmeth);
	assert_int_equal(http_head_feed(&again, out, *n, &used), HTTP_DONE);
	assert_int_equal(used, (size_t)*n);
	return &again;
}

/* b has a's fields that are kept, in order, then `tail` more */
static void
check_kept(const struct http_head *a, const struct http_head *b,
    size_t tail)
{
	size_t	i, j = 0;

	for (i = 0; i < a->nfields; i++) {
		const struct http_field *f = &a->fields[i];

		if (f->flags & (HTTP_FIELD_HOP | HTTP_FIELD_DROP) ||
		    f->id == HTTP_H_CONTENT_LENGTH ||
		    f->id == HTTP_H_X_FORWARDED_FOR)
			continue;
		assert_true(j < b->nfields);
		assert_true(field_is(&b->fields[j], f->name, f->value));
		j++;
	}
	assert_int_equal(b->nfields, j + tail);
}

static void
test_serialize_roundtrip(void **state)
{
	const struct http_head	*b;
	struct http_field	 add[] = {
		{ .name = "Via", .value = "1.1 orchd" },
		{ .name = "X-Forwarded-For", .value = "192.0.2.1" },
		{ .name = "X-Forwarded-Proto", .value = "https" },
	};
	struct http_ser		 ser = { 0 };
	ssize_t			 n;
	int			 calls = 0;
	const char		*raw;

	raw = "POST /a?b HTTP/1.1\r\nHost: a.b\r\nConnection: keep-alive, "
	    "X-Hop\r\nX-Hop: 1\r\nKeep-Alive: 300\r\nProxy-Connection: x\r\n"
	    "TE: trailers\r\nTrailer: X\r\nUpgrade: h2c\r\n"
	    "X-Forwarded-For: 6.6.6.6\r\nX-Keep:  spaced  value \r\n"
	    "Content-Length: 0010\r\nAccept: */*\r\n\r\n";
	parse_ok(raw);
	ser.filter = drop_xff;
	ser.arg = &calls;
	ser.add = add;
	ser.nadd = NITEMS(add);
	b = reparse(&whole, &ser, &n);
	assert_int_equal(calls, 4);	/* Host, XFF, X-Keep, Accept */
	check_kept(&whole, b, NITEMS(add) + 1);
	assert_string_equal(b->target, "/a?b");
	assert_int_equal(b->body, HTTP_BODY_LENGTH);
	assert_int_equal(b->content_length, 10);
	assert_true(field_is(http_head_find(b, "Content-Length"),
	    "Content-Length", "10"));
	assert_true(field_is(http_head_find(b, "X-Forwarded-For"),
	    "X-Forwarded-For", "192.0.2.1"));
	assert_null(http_head_find(b, "Connection"));
	assert_null(http_head_find(b, "X-Hop"));
	assert_null(http_head_find(b, "Upgrade"));
	assert_null(http_head_find(b, "TE"));
	assert_true(strstr(out, "X-Keep: spaced  value\r\n") != NULL);
	/* normalising twice changes nothing */
	{
		char	first[HTTP_HEAD_BUFSZ];
		ssize_t	n2;

		memcpy(first, out, n);
		n2 = http_head_serialize(b, NULL, out, sizeof(out));
		assert_int_equal(n2, n);
		assert_memory_equal(first, out, n);
	}

	/* absolute-form goes out as origin-form; chunked is re-emitted */
	parse_ok("PUT http://h:8/ HTTP/1.1\r\nHost: h:8\r\n"
	    "Transfer-Encoding: chunked\r\nX: 1\r\n\r\n");
	b = reparse(&whole, NULL, &n);
	assert_string_equal(b->target, "/");
	assert_int_equal(b->body, HTTP_BODY_CHUNKED);
	assert_int_equal(b->nfields, 3);
	parse_ok("GET http://h?q HTTP/1.1\r\nHost: h\r\n\r\n");
	b = reparse(&whole, NULL, &n);
	assert_string_equal(b->target, "/?q");

	/* HTTP/1.0 goes out as 1.1, with Host from the target */
	parse_ok("GET http://Ex.com:8/p HTTP/1.0\r\nX: 1\r\n\r\n");
	n = http_head_serialize(&whole, NULL, out, sizeof(out));
	assert_memory_equal(out, "GET /p HTTP/1.1\r\nX: 1\r\n"
	    "Host: Ex.com:8\r\n\r\n", n);

	/* a websocket upgrade keeps Upgrade when asked to */
	parse_ok("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n"
	    "Upgrade: websocket\r\nSec-WebSocket-Key: k\r\n\r\n");
	assert_true(http_head_websocket(&whole));
	ser = (struct http_ser){ .flags = HTTP_SER_UPGRADE };
	b = reparse(&whole, &ser, &n);
	assert_true(field_is(http_head_get(b, HTTP_H_UPGRADE), "Upgrade",
	    "websocket"));
	assert_true(http_head_websocket(b));
	assert_true(b->flags & HTTP_F_CONN_UPGRADE);
	assert_true(field_is(http_head_find(b, "Sec-WebSocket-Key"),
	    "Sec-WebSocket-Key", "k"));

	/* the caller's target, DROP, NO_FRAMING */
	parse_ok("POST /x HTTP/1.1\r\nHost: a\r\nCookie: c\r\n"
	    "Content-Length: 3\r\n\r\n");
	whole.fields[1].flags |= HTTP_FIELD_DROP;
	ser = (struct http_ser){ .target = "/y", .flags = HTTP_SER_NO_FRAMING };
	n = http_head_serialize(&whole, &ser, out, sizeof(out));
	assert_int_equal(n, strlen("POST /y HTTP/1.1\r\nHost: a\r\n\r\n"));
	assert_memory_equal(out, "POST /y HTTP/1.1\r\nHost: a\r\n\r\n", n);

	/* an HTTP/1.0 request goes out as 1.1: the caller adds Host */
	parse_ok("GET / HTTP/1.0\r\n\r\n");
	add[0] = (struct http_field){ .name = "Host", .value = "w" };
	ser = (struct http_ser){ .add = add, .nadd = 1 };
	b = reparse(&whole, &ser, &n);
	assert_int_equal(b->version, 11);
}

static void
test_serialize_refuses(void **state)
{
	struct http_field	bad[] = {
		{ .name = "X", .value = "a\r\nInjected: 1" },
		{ .name = "X Y", .value = "a" },
		{ .name = "", .value = "a" },
		{ .name = "X", .value = NULL },
	};
	struct http_ser		ser = { 0 };
	size_t			i;
	ssize_t			n;
	char			tiny[16];

	parse_ok("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\r\n");
	for (i = 0; i < NITEMS(bad); i++) {
		ser = (struct http_ser){ .add = &bad[i], .nadd = 1 };
		assert_int_equal(http_head_serialize(&whole, &ser, out,
		    sizeof(out)), -1);
	}
	ser = (struct http_ser){ .target = "/a b" };
	assert_int_equal(http_head_serialize(&whole, &ser, out, sizeof(out)),
	    -1);
	assert_int_equal(http_head_serialize(&whole, NULL, tiny,
	    sizeof(tiny)), -1);
	/* exactly enough room */
	n = http_head_serialize(&whole, NULL, out, sizeof(out));
	assert_int_equal(http_head_serialize(&whole, NULL, out, n), n);
	assert_int_equal(http_head_serialize(&whole, NULL, out, n - 1), -1);
}

static void
test_serialize_response(void **state)
{
	const struct http_head	*b;
	size_t			 used;
	ssize_t			 n;
	const char		*raw;

	raw = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n"
	    "Content-Length: 5\r\nServer: s\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	b = reparse(&whole, NULL, &n);
	assert_memory_equal(out, "HTTP/1.1 404 Not Found\r\nServer: s\r\n"
	    "Content-Length: 5\r\n\r\n", n);
	assert_int_equal(b->code, 404);

	/* HEAD: the length of the body not sent is kept */
	raw = "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_HEAD);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	b = reparse(&whole, NULL, &n);
	assert_int_equal(b->body, HTTP_BODY_NONE);
	assert_int_equal(b->content_length, 42);

	/* 204 and 1xx never carry framing fields */
	raw = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	n = http_head_serialize(&whole, NULL, out, sizeof(out));
	assert_memory_equal(out, "HTTP/1.1 204 No Content\r\n\r\n", n);

	/* no reason phrase: an empty one goes out */
	raw = "HTTP/1.0 200\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	n = http_head_serialize(&whole, NULL, out, sizeof(out));
	assert_memory_equal(out, "HTTP/1.1 200 \r\n\r\n", n);
}

/*
 * Only a WebSocket upgrade is one: h2c (request smuggling through a 101
 * the workload would answer) and any other Upgrade go out as ordinary
 * requests, without Upgrade, the Connection naming it, or HTTP2-Settings.
 */
static void
test_upgrade_websocket_only(void **state)
{
	static const char	*not_ws[] = {
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n"
		    "Connection: Upgrade, HTTP2-Settings\r\n"
		    "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n"
		    "Connection: Upgrade\r\n"
		    "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: TLS/1.2\r\n"
		    "Connection: Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket/13\r\n"
		    "Connection: Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websockets\r\n"
		    "Connection: Upgrade\r\n\r\n",
		/* no Connection: upgrade, a POST, HTTP/1.0 */
		"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n"
		    "Connection: Upgrade\r\n\r\n",
		"GET / HTTP/1.0\r\nHost: a\r\nUpgrade: websocket\r\n"
		    "Connection: Upgrade\r\n\r\n",
	};
	const struct http_head	*b;
	struct http_ser		 ser;
	size_t			 i, used;
	ssize_t			 n;
	const char		*raw;

	for (i = 0; i < NITEMS(not_ws); i++) {
		parse_ok(not_ws[i]);
		CHECK(!http_head_websocket(&whole), "not websocket: %s",
		    not_ws[i]);
		b = reparse(&whole, NULL, &n);
		CHECK(http_head_get(b, HTTP_H_UPGRADE) == NULL &&
		    http_head_find(b, "HTTP2-Settings") == NULL &&
		    http_head_find(b, "Connection") == NULL &&
		    b->nfields == 1, "forwarded plain: %s", not_ws[i]);
	}

	/* websocket among others, any case: websocket alone goes out */
	parse_ok("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: h2c, WebSocket\r\n"
	    "Connection: keep-alive, Upgrade\r\nUpgrade: foo\r\n"
	    "HTTP2-Settings: x\r\n\r\n");
	assert_true(http_head_websocket(&whole));
	ser = (struct http_ser){ .flags = HTTP_SER_UPGRADE };
	n = http_head_serialize(&whole, &ser, out, sizeof(out));
	assert_true(n > 0);
	assert_int_equal(n, strlen("GET /ws HTTP/1.1\r\nHost: a\r\n"
	    "Upgrade: websocket\r\nConnection: upgrade\r\n\r\n"));
	assert_memory_equal(out, "GET /ws HTTP/1.1\r\nHost: a\r\n"
	    "Upgrade: websocket\r\nConnection: upgrade\r\n\r\n", n);

	/* a 101 is known by the protocol it switches to */
	raw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	    "Connection: Upgrade\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	assert_true(whole.flags & HTTP_F_UPGRADE_WS);
	raw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
	    "Connection: Upgrade\r\n\r\n";
	http_resp_init(&whole, wbuf, sizeof(wbuf), HTTP_M_GET);
	assert_int_equal(http_head_feed(&whole, raw, strlen(raw), &used),
	    HTTP_DONE);
	assert_false(whole.flags & HTTP_F_UPGRADE_WS);
	end_checks();
}

/* every OK request of the table survives parse, serialise, parse */
static void
test_serialize_table(void **state)
{
	const struct req_case	*c;
	const struct http_head	*b;
	struct http_field	 host = { .name = "Host", .value = "h" };
	struct http_ser		 ser = { 0 };
	size_t			 i, used;
	ssize_t			 n;

	for (i = 0; i < NITEMS(req_cases); i++) {
		c = &req_cases[i];
		if (c->status != OK)
			continue;
		http_req_init(&whole, wbuf, sizeof(wbuf));
		assert_int_equal(http_head_feed(&whole, c->raw, c->len, &used),
		    HTTP_DONE);
		ser.add = &host;
		ser.nadd = whole.authoritylen == 0;
		b = reparse(&whole, &ser, &n);
		CHECK(b->body == whole.body &&
		    b->content_length == whole.content_length &&
		    b->meth == whole.meth, "%s: framing changed", c->name);
		check_kept(&whole, b, ser.nadd +
		    (whole.authoritylen > 0 &&
		    http_head_get(&whole, HTTP_H_HOST) == NULL) +
		    (whole.body == HTTP_BODY_LENGTH ||
		    whole.body == HTTP_BODY_CHUNKED));
	}
	end_checks();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_table),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_buffer_sizes),
		cmocka_unit_test(test_request_form),
		cmocka_unit_test(test_final_states),
		cmocka_unit_test(test_response_table),
		cmocka_unit_test(test_response_interim),
		cmocka_unit_test(test_serialize_roundtrip),
		cmocka_unit_test(test_serialize_refuses),
		cmocka_unit_test(test_serialize_response),
		cmocka_unit_test(test_upgrade_websocket_only),
		cmocka_unit_test(test_serialize_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
