/*
 * Strict HTTP/1.1 message parsing for the gateway, and for runtimed's
 * Docker client: request and response heads, the chunked transfer
 * coding, and re-serialisation of a parsed head.
 *
 * This module does no I/O, allocates nothing and knows nothing of libevent,
 * so it can be unit tested and fuzzed on its own.  Its policy: reject
 * rather than repair, so that the gateway and a workload can never read one
 * message two ways (request smuggling), and re-serialise from the parsed
 * form instead of forwarding raw bytes.
 *
 * Heads
 * -----
 * The caller embeds a struct http_head and gives it a buffer to keep the
 * parsed strings in (HTTP_HEAD_BUFSZ bytes hold the largest head the limits
 * admit; a smaller buffer is allowed and turns into 414/431 when full):
 *
 *	http_req_init(&h, buf, sizeof(buf));
 *	for (;;) {
 *		r = http_head_feed(&h, data, len, &used);
 *		drain(used);
 *		if (r == HTTP_DONE)	break;	   head parsed, body is next
 *		if (r == HTTP_ERROR)	answer h.errcode and close
 *		wait for more bytes (r == HTTP_MORE: all of data was used)
 *	}
 *
 * Bytes may be fed in any split, down to one byte at a time; the result,
 * the error status and the parsed form do not depend on the split.  Input
 * is scanned once, never again on the next feed; only the finished target
 * and field values are checked again, from the buffer.  HTTP_DONE consumes
 * exactly the head, up to and including its empty line: what follows is
 * the body or the next message.
 *
 * After HTTP_DONE every string in the head (method, target, reason, field
 * names and values) points into the caller's buffer, is NUL-terminated and
 * carries its length.  Field values have their leading and trailing
 * whitespace removed; field names keep their case.
 *
 * Requests are rejected (HTTP_ERROR, errcode set) for: bare CR or LF, CTLs
 * other than HTAB in values, obs-fold, whitespace before a colon, invalid
 * characters in a method or field name, a target that does not fit its
 * form (origin-form; absolute-form with http or https; authority-form for
 * CONNECT only; asterisk-form for OPTIONS only), a missing (HTTP/1.1),
 * repeated or invalid Host, an absolute-form or authority-form target whose
 * authority differs from Host, any repeated, malformed or overflowing
 * Content-Length (identical repeats too: Varnish's policy), Content-Length
 * with Transfer-Encoding, Transfer-Encoding in HTTP/1.0, Transfer-Encoding
 * other than one "chunked", Connection naming Host, Content-Length or
 * Transfer-Encoding, and Content-Length or Transfer-Encoding spelt with '_'
 * for '-' (what CGI-style backends cannot tell apart).  An Expect field in
 * HTTP/1.0 is ignored and marked hop-by-hop.  The status to answer:
 *
 *	400	everything malformed or ambiguous
 *	414	request line longer than HTTP_LINE_MAX
 *	417	Expect other than 100-continue (HTTP/1.1 only)
 *	431	a field line longer than HTTP_FIELD_MAX, a field section longer
 *		than HTTP_SECTION_MAX, more than HTTP_FIELDS_MAX fields
 *	501	Transfer-Encoding that is a well-formed list of codings without
 *		"chunked" (gzip, identity): a coding we do not implement
 *	505	a well-formed HTTP/x.y version other than 1.x; the HTTP/2
 *		preface "PRI * HTTP/2.0" gets 505 this way
 *
 * HTTP/1.2 to HTTP/1.9 are read as HTTP/1.1 (RFC 9110 section 2.5: a
 * higher minor version is served by the highest one implemented).
 *
 * Leading empty lines (CRLF only) before a request line are skipped, at most
 * HTTP_LEADING_CRLF_MAX of them.  Responses follow the same field rules;
 * every response error has errcode 502 (the proxy's answer to the client).
 *
 * Framing (RFC 9112 section 6.3) is in h->body after HTTP_DONE: NONE,
 * LENGTH (h->content_length bytes), CHUNKED (use struct http_chunked),
 * CLOSE (responses: read until the upstream closes) or TUNNEL (a 2xx answer
 * to CONNECT).  A response to HEAD, a 1xx, 204 or 304 has no body.  After a
 * 1xx the caller initialises the head again for the final response; a 101
 * is the caller's to judge against the request.  Whether the connection
 * may carry another message is http_head_persistent().
 *
 * Chunked bodies
 * --------------
 *	http_chunked_init(&c, HTTP_REQUEST);
 *	while (len > 0) {
 *		r = http_chunked_feed(&c, data, len, &used, &span, &spanlen);
 *		data += used; len -= used;
 *		if (r == HTTP_ERROR)	answer c.errcode, close
 *		if (spanlen > 0)	forward span (points into data)
 *		if (r == HTTP_DONE)	body over; data is the next message
 *	}
 *
 * A call yields at most one span of chunk data (HTTP_DATA).  Chunk sizes
 * are 1 to HTTP_CHUNK_DIGITS_MAX hex digits and below HTTP_CHUNK_SIZE_MAX;
 * extensions are syntax-checked and skipped; a size line is at most
 * HTTP_CHUNK_LINE_MAX bytes; trailers are checked with the field rules, at
 * most HTTP_TRAILER_MAX bytes, and skipped (never merged into the head).
 * In a request, framing bytes beyond HTTP_CHUNK_OVERHEAD_MIN that exceed
 * the data bytes are an error (the many-tiny-chunks attack).  Errors are
 * 400 for a request body, 502 for a response body.
 *
 * Serialisation
 * -------------
 * http_head_serialize() writes a head from its parsed form: the request line
 * as "METHOD origin-target HTTP/1.1" (or the status line "HTTP/1.1 NNN
 * reason"), each field as "Name: value", a Host field from the target when
 * an HTTP/1.0 request had none, then the caller's added fields, then the
 * framing field the parsed framing calls for, then the empty line.  An
 * HTTP/1.0 request with neither Host nor an authority in its target needs
 * a Host from the caller (in add): HTTP/1.1 requires one.
 * Left out: fields marked HTTP_FIELD_HOP (Connection and the fields it
 * names, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade,
 * HTTP2-Settings, Transfer-Encoding), Content-Length (re-emitted
 * normalised), fields the caller marked HTTP_FIELD_DROP and fields its
 * filter refuses.
 */

#ifndef ORCHD_HTTP_H
#define ORCHD_HTTP_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_LINE_MAX		8192	/* request/status line with CRLF: 414 */
#define HTTP_FIELD_MAX		8192	/* one field line with CRLF: 431 */
#define HTTP_SECTION_MAX	32768	/* field lines + empty line: 431 */
#define HTTP_FIELDS_MAX		100	/* field lines in a head: 431 */
#define HTTP_HEAD_BUFSZ		(HTTP_LINE_MAX + HTTP_SECTION_MAX)
#define HTTP_LEADING_CRLF_MAX	4	/* empty lines before a request line */
#define HTTP_CONN_TOKENS_MAX	16	/* tokens in all Connection fields */
#define HTTP_HOST_MAX		255	/* host part of an authority */

#define HTTP_CHUNK_DIGITS_MAX	16
#define HTTP_CHUNK_SIZE_MAX	(1ULL << 62)	/* a chunk must be smaller */
#define HTTP_CHUNK_LINE_MAX	4096	/* size line with extensions and CRLF */
#define HTTP_TRAILER_MAX	8192	/* trailers with the empty line */
#define HTTP_CHUNK_OVERHEAD_MIN	(64 * 1024)

enum http_result {
	HTTP_ERROR = -1,	/* errcode and errstr say why; final */
	HTTP_MORE = 0,		/* all input used, need more */
	HTTP_DONE = 1,		/* head or body complete; final */
	HTTP_DATA = 2		/* chunked: a span of body data */
};

enum http_kind {
	HTTP_REQUEST = 0,
	HTTP_RESPONSE
};

enum http_method {
	HTTP_M_OTHER = 0,	/* any other token, passed through */
	HTTP_M_GET,
	HTTP_M_HEAD,
	HTTP_M_POST,
	HTTP_M_PUT,
	HTTP_M_DELETE,
	HTTP_M_CONNECT,
	HTTP_M_OPTIONS,
	HTTP_M_TRACE,
	HTTP_M_PATCH
};

enum http_form {
	HTTP_FORM_ORIGIN = 0,	/* /path?query */
	HTTP_FORM_ABSOLUTE,	/* http://authority/path?query */
	HTTP_FORM_AUTHORITY,	/* host:port, CONNECT only */
	HTTP_FORM_ASTERISK	/* *, OPTIONS only */
};

enum http_body {
	HTTP_BODY_NONE = 0,
	HTTP_BODY_LENGTH,	/* content_length bytes */
	HTTP_BODY_CHUNKED,
	HTTP_BODY_CLOSE,	/* response: until the connection closes */
	HTTP_BODY_TUNNEL	/* response: 2xx to CONNECT */
};

/* field names the parser recognises, case-insensitively */
enum http_hdr {
	HTTP_H_OTHER = 0,
	HTTP_H_HOST,
	HTTP_H_CONTENT_LENGTH,
	HTTP_H_TRANSFER_ENCODING,
	HTTP_H_CONNECTION,
	HTTP_H_KEEP_ALIVE,
	HTTP_H_PROXY_CONNECTION,
	HTTP_H_TE,
	HTTP_H_TRAILER,
	HTTP_H_UPGRADE,
	HTTP_H_EXPECT,
	HTTP_H_VIA,
	HTTP_H_FORWARDED,
	HTTP_H_X_FORWARDED_FOR,
	HTTP_H_X_FORWARDED_PROTO,
	HTTP_H_X_FORWARDED_HOST,
	HTTP_H_HTTP2_SETTINGS,
	HTTP_H_X_REAL_IP
};

/* http_field flags */
#define HTTP_FIELD_HOP		0x01	/* hop-by-hop, set by the parser */
#define HTTP_FIELD_DROP		0x02	/* set by the caller: leave out */

struct http_field {
	const char	*name;		/* NUL-terminated, case as received */
	const char	*value;		/* NUL-terminated, OWS trimmed */
	uint32_t	 namelen;
	uint32_t	 valuelen;
	uint8_t		 id;		/* enum http_hdr */
	uint8_t		 flags;		/* HTTP_FIELD_* */
};

/* http_head flags, from the fields */
#define HTTP_F_CONN_CLOSE	0x0001	/* Connection: close */
#define HTTP_F_CONN_KEEPALIVE	0x0002	/* Connection: keep-alive */
#define HTTP_F_CONN_UPGRADE	0x0004	/* Connection: upgrade */
#define HTTP_F_UPGRADE		0x0008	/* an Upgrade field is present */
#define HTTP_F_EXPECT_CONTINUE	0x0010	/* Expect: 100-continue, HTTP/1.1 */
#define HTTP_F_HAS_CL		0x0020	/* a valid Content-Length was seen */
#define HTTP_F_HAS_TE		0x0040	/* Transfer-Encoding: chunked seen */
#define HTTP_F_UPGRADE_WS	0x0080	/* an Upgrade field lists websocket */

struct http_head {
	/* The parsed form, valid after HTTP_DONE. */
	enum http_kind		 kind;
	int			 version;	/* 10 or 11 */
	const char		*method;	/* request */
	size_t			 methodlen;
	enum http_method	 meth;
	const char		*target;	/* request, as received */
	size_t			 targetlen;
	enum http_form		 form;
	const char		*path;		/* origin-form part of target */
	size_t			 pathlen;	/* 0: http://host, no path */
	const char		*authority;	/* host[:port] to route by */
	size_t			 authoritylen;	/* 0: HTTP/1.0 without Host */
	size_t			 hostlen;	/* host part of authority */
	int			 port;		/* 0 when absent */
	int			 code;		/* response status code */
	const char		*reason;	/* response, may be empty */
	size_t			 reasonlen;
	size_t			 nfields;	/* in fields[], below */
	unsigned int		 flags;		/* HTTP_F_* */
	enum http_body		 body;
	uint64_t		 content_length; /* with HTTP_F_HAS_CL */

	/* Set on HTTP_ERROR: the status to answer and why, for the log. */
	int			 errcode;
	const char		*errstr;

	/* Parser state: private. */
	enum http_method	 reqmeth;	/* response: the request's */
	int			 state;
	char			*buf;
	size_t			 bufsz;
	size_t			 buflen;
	size_t			 linelen;	/* bytes of the current line */
	size_t			 seclen;	/* bytes of the field section */
	size_t			 item;		/* buf offset of current item */
	size_t			 vtrim;		/* value length without OWS */
	unsigned int		 nlead;		/* leading CRLFs skipped */
	unsigned int		 nver;
	char			 ver[8];	/* "HTTP/x.y" being read */

	/*
	 * Last, and left alone by http_req_init() and http_resp_init(),
	 * which clear only what comes before: nfields says how many are
	 * valid, and clearing 3 KiB per head costs more than the parse.
	 */
	struct http_field	 fields[HTTP_FIELDS_MAX];
};

struct http_chunked {
	/* Set on HTTP_ERROR. */
	int			 errcode;
	const char		*errstr;

	/* Decoder state: private. */
	enum http_kind		 kind;
	int			 state;
	uint64_t		 size;		/* of the chunk being read */
	uint64_t		 data;		/* body bytes so far */
	uint64_t		 framing;	/* everything else so far */
	size_t			 linelen;
	size_t			 trailerlen;
	unsigned int		 ndigits;
	unsigned int		 ntrailers;

	/*
	 * Set by the caller after http_chunked_init(), or NULL: the
	 * trailer section's bytes (its field lines and the empty line
	 * that ends it) are copied to trbuf, at most trcap of them.
	 */
	char			*trbuf;
	size_t			 trcap;
	size_t			 trlen;
};

/* http_ser flags */
#define HTTP_SER_UPGRADE	0x01	/* Upgrade: websocket, Connection */
#define HTTP_SER_NO_FRAMING	0x02	/* the caller adds framing fields */

/*
 * What to change while serialising.  A NULL struct changes nothing.
 * HTTP_SER_UPGRADE writes "Upgrade: websocket" and "Connection: upgrade"
 * in place of the Upgrade fields received, whatever else they listed: set
 * it only for a request http_head_websocket() accepts, or for the 101
 * answering one (h2c and friends must never reach a workload).
 * filter returns 0 to leave a field out; it is not asked about fields
 * already left out.  Added fields must be a token name and a value with no
 * CTL other than HTAB: anything else fails the whole serialisation.
 */
struct http_ser {
	unsigned int		 flags;		/* HTTP_SER_* */
	const char		*target;	/* request: NULL for h->path */
	size_t			 strip;		/* request: bytes of h->path
						   left out ("strip prefix") */
	int			(*filter)(const struct http_field *, void *);
	void			*arg;
	const struct http_field	*add;		/* names and values only */
	size_t			 nadd;
};

void	http_req_init(struct http_head *, char *, size_t);
void	http_resp_init(struct http_head *, char *, size_t, enum http_method);
int	http_head_feed(struct http_head *, const char *, size_t, size_t *);

/* the first field with this id or name (case-insensitive), or NULL */
const struct http_field	*http_head_get(const struct http_head *,
	    enum http_hdr);
const struct http_field	*http_head_find(const struct http_head *,
	    const char *);
/* may the connection carry another message after this one? */
int	http_head_persistent(const struct http_head *);
/* is this a WebSocket upgrade, the one upgrade the gateway tunnels? */
int	http_head_websocket(const struct http_head *);

/* the bytes written (no NUL), or -1 if buf is too small or an add is bad */
ssize_t	http_head_serialize(const struct http_head *, const struct http_ser *,
	    char *, size_t);

void	http_chunked_init(struct http_chunked *, enum http_kind);
int	http_chunked_feed(struct http_chunked *, const char *, size_t,
	    size_t *, const char **, size_t *);

/*
 * The value of one hex digit, either case, independent of the locale;
 * -1 if c is none.  The one for every caller: chunk sizes, the status
 * UI's cookies, the ACME path's percent-decoding.
 */
static inline int
http_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif /* ORCHD_HTTP_H */
