/*
 * The chunked transfer coding of an HTTP/1.1 body (http.h), read one
 * framing byte at a time so that the gateway knows where a message ends
 * without buffering it.
 */

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "http_local.h"

/*
 * Chunked transfer coding (RFC 9112 section 7.1), one framing byte at a
 * time; chunk data is handed back as spans of the caller's input.
 */

enum {
	/* the chunk-size line */
	C_SIZE,		/* first hex digit */
	C_SIZE_MORE,	/* more digits, or what follows them */
	C_SIZE_BWS,	/* whitespace: only ';' may follow */
	C_EXT_PRE,	/* after ';': BWS, then the name */
	C_EXT_NAME,
	C_EXT_NAME_BWS,	/* whitespace after the name: '=' or ';' */
	C_EXT_VAL_PRE,	/* after '=': BWS, then the value */
	C_EXT_TOKEN,
	C_EXT_QUOTED,
	C_EXT_QPAIR,
	C_EXT_END,	/* after a quoted value */
	C_SIZE_LF,
	/* chunk data and its CRLF */
	C_DATA,
	C_DATA_CR,
	C_DATA_LF,
	/* the trailer section */
	C_TR_START,
	C_TR_NAME,
	C_TR_VALUE,
	C_TR_LF,
	C_END_LF,
	C_DONE,
	C_ERROR
};

void
http_chunked_init(struct http_chunked *c, enum http_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->state = C_SIZE;
}

static void
chunked_fail(struct http_chunked *c, const char *why)
{
	c->errcode = c->kind == HTTP_RESPONSE ? 502 : 400;
	c->errstr = why;
	c->state = C_ERROR;
}

/* what may follow the size, an extension name or an extension value */
static const char *
ext_next(struct http_chunked *c, int ch)
{
	if (ch == ';')
		c->state = C_EXT_PRE;
	else if (IS(ch, C_WS))
		c->state = C_SIZE_BWS;
	else if (ch == '\r')
		c->state = C_SIZE_LF;
	else
		return "malformed chunk size line";
	return NULL;
}

static const char *
size_digit(struct http_chunked *c, int ch)
{
	/* sizes stay below 2^62: no overflow in any arithmetic on them */
	if (c->ndigits == HTTP_CHUNK_DIGITS_MAX ||
	    c->size >= (HTTP_CHUNK_SIZE_MAX >> 4))
		return "chunk size too large";
	c->size = c->size << 4 | http_hexval(ch);
	c->ndigits++;
	c->state = C_SIZE_MORE;
	return NULL;
}

static const char *
size_line_done(struct http_chunked *c)
{
	/* many tiny chunks: framing the peer makes us parse and rewrite */
	if (c->kind == HTTP_REQUEST && c->framing > HTTP_CHUNK_OVERHEAD_MIN &&
	    c->framing > c->data)
		return "too much chunk framing";
	c->linelen = 0;
	c->state = c->size == 0 ? C_TR_START : C_DATA;
	return NULL;
}

static const char *
chunk_ext_step(struct http_chunked *c, int ch)
{
	switch (c->state) {
	case C_SIZE_BWS:
		if (IS(ch, C_WS))
			return NULL;
		if (ch != ';')
			return "malformed chunk size line";
		c->state = C_EXT_PRE;
		return NULL;
	case C_EXT_PRE:
		if (IS(ch, C_WS))
			return NULL;
		if (!IS(ch, C_TCHAR))
			return "malformed chunk extension";
		c->state = C_EXT_NAME;
		return NULL;
	case C_EXT_NAME:
		if (IS(ch, C_TCHAR))
			return NULL;
		if (ch == '=') {
			c->state = C_EXT_VAL_PRE;
			return NULL;
		}
		if (IS(ch, C_WS)) {
			c->state = C_EXT_NAME_BWS;
			return NULL;
		}
		return ext_next(c, ch);
	case C_EXT_NAME_BWS:
		if (IS(ch, C_WS))
			return NULL;
		if (ch == '=')
			c->state = C_EXT_VAL_PRE;
		else if (ch == ';')
			c->state = C_EXT_PRE;
		else
			return "malformed chunk extension";
		return NULL;
	case C_EXT_VAL_PRE:
		if (IS(ch, C_WS))
			return NULL;
		if (ch == '"')
			c->state = C_EXT_QUOTED;
		else if (IS(ch, C_TCHAR))
			c->state = C_EXT_TOKEN;
		else
			return "malformed chunk extension";
		return NULL;
	case C_EXT_TOKEN:
		return IS(ch, C_TCHAR) ? NULL : ext_next(c, ch);
	case C_EXT_QUOTED:
		if (ch == '"')
			c->state = C_EXT_END;
		else if (ch == '\\')
			c->state = C_EXT_QPAIR;
		else if (!IS(ch, C_QDTEXT))
			return "malformed chunk extension";
		return NULL;
	case C_EXT_QPAIR:
		if (!IS(ch, C_VALUE))
			return "malformed chunk extension";
		c->state = C_EXT_QUOTED;
		return NULL;
	default:	/* C_EXT_END */
		return ext_next(c, ch);
	}
}

static const char *
size_line_step(struct http_chunked *c, int ch)
{
	switch (c->state) {
	case C_SIZE:
		if (!IS(ch, C_HEX))
			return "malformed chunk size";
		return size_digit(c, ch);
	case C_SIZE_MORE:
		if (IS(ch, C_HEX))
			return size_digit(c, ch);
		return ext_next(c, ch);
	case C_SIZE_LF:
		if (ch != '\n')
			return "bare CR in chunk size line";
		return size_line_done(c);
	default:
		return chunk_ext_step(c, ch);
	}
}

static const char *
trailer_step(struct http_chunked *c, int ch)
{
	switch (c->state) {
	case C_TR_START:
		if (ch == '\r') {
			c->state = C_END_LF;
			return NULL;
		}
		if (!IS(ch, C_TCHAR))
			return "malformed trailer field";
		if (c->ntrailers++ == HTTP_FIELDS_MAX)
			return "too many trailer fields";
		c->state = C_TR_NAME;
		return NULL;
	case C_TR_NAME:
		if (ch == ':')
			c->state = C_TR_VALUE;
		else if (!IS(ch, C_TCHAR))
			return "malformed trailer field";
		return NULL;
	case C_TR_VALUE:
		if (ch == '\r')
			c->state = C_TR_LF;
		else if (!IS(ch, C_VALUE))
			return "invalid character in trailer field";
		return NULL;
	case C_TR_LF:
		if (ch != '\n')
			return "bare CR in trailer field";
		c->state = C_TR_START;
		return NULL;
	default:	/* C_END_LF */
		if (ch != '\n')
			return "bare CR after trailers";
		c->state = C_DONE;
		return NULL;
	}
}

static void
chunked_byte(struct http_chunked *c, int ch)
{
	const char	*why;

	c->framing++;
	if (c->state <= C_SIZE_LF) {
		if (++c->linelen > HTTP_CHUNK_LINE_MAX)
			why = "chunk size line too long";
		else
			why = size_line_step(c, ch);
	} else if (c->state == C_DATA_CR) {
		why = ch == '\r' ? NULL : "chunk data longer than its size";
		c->state = C_DATA_LF;
	} else if (c->state == C_DATA_LF) {
		why = ch == '\n' ? NULL : "bare CR after chunk data";
		c->size = 0;
		c->ndigits = 0;
		c->state = C_SIZE;
	} else {
		if (++c->trailerlen > HTTP_TRAILER_MAX)
			why = "trailer section too large";
		else
			why = trailer_step(c, ch);
		if (c->trbuf != NULL && c->trlen < c->trcap)
			c->trbuf[c->trlen++] = ch;
	}
	if (why != NULL)
		chunked_fail(c, why);
}

int
http_chunked_feed(struct http_chunked *c, const char *p, size_t len,
    size_t *used, const char **span, size_t *spanlen)
{
	const char	*s = p, *end;
	size_t		 n;

	*span = NULL;
	*spanlen = 0;
	*used = 0;
	if (len == 0)
		return c->state == C_DONE ? HTTP_DONE :
		    c->state == C_ERROR ? HTTP_ERROR : HTTP_MORE;
	end = p + len;
	while (s < end && c->state != C_DONE && c->state != C_ERROR) {
		if (c->state != C_DATA) {
			chunked_byte(c, (unsigned char)*s++);
			continue;
		}
		n = (size_t)(end - s);
		if (n > c->size)
			n = c->size;
		*span = s;
		*spanlen = n;
		s += n;
		c->size -= n;
		c->data += n;
		if (c->size == 0)
			c->state = C_DATA_CR;
		break;
	}
	*used = s - p;
	if (c->state == C_ERROR)
		return HTTP_ERROR;
	if (c->state == C_DONE)
		return HTTP_DONE;
	return *spanlen > 0 ? HTTP_DATA : HTTP_MORE;
}
