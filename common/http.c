/*
 * Strict HTTP/1.1 message parsing; see http.h for the contract.
 *
 * The head parser is a state machine that takes runs of ordinary bytes in
 * one step (table lookups, then one memcpy into the caller's buffer) and
 * special bytes one at a time; a step follows its line from state to state
 * up to the LF that ends it.  Every decision is made at a fixed byte of
 * the input, and limits are checked before a byte is taken, so the outcome
 * cannot depend on how the input was split.  Nothing here recurses or
 * allocates.
 */

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http.h"

/* character classes (RFC 9110 section 5.6, RFC 9112) */
#define C_TCHAR		0x01	/* token character */
#define C_VCHAR		0x02	/* visible US-ASCII */
#define C_VALUE		0x04	/* field-vchar, SP, HTAB */
#define C_WS		0x08	/* SP, HTAB */
#define C_HEX		0x10
#define C_DIGIT		0x20
#define C_QDTEXT	0x40	/* inside a quoted-string */
#define C_TARGET	0x80	/* request-target: VCHAR but '#' */

#define T_	(C_TCHAR | C_VCHAR | C_VALUE | C_QDTEXT | C_TARGET)
#define X_	(T_ | C_HEX)
#define N_	(T_ | C_HEX | C_DIGIT)
#define D_	(C_VCHAR | C_VALUE | C_QDTEXT | C_TARGET)	/* delimiter */
#define Q_	(C_VCHAR | C_VALUE | C_TARGET)		/* '"' and '\' */
#define H_	(C_TCHAR | C_VCHAR | C_VALUE | C_QDTEXT)	/* '#' */
#define W_	(C_WS | C_VALUE | C_QDTEXT)
#define O_	(C_VALUE | C_QDTEXT)			/* obs-text */

static const uint8_t cclass[256] = {
	/* 0x00: CTLs, HTAB */
	0,  0,  0,  0,  0,  0,  0,  0,  0,  W_, 0,  0,  0,  0,  0,  0,
	/* 0x10: CTLs */
	0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	/* 0x20:  SP !  "  #  $  %  &  '  (  )  *  +  ,  -  .  / */
	W_, T_, Q_, H_, T_, T_, T_, T_, D_, D_, T_, T_, D_, T_, T_, D_,
	/* 0x30: 0-9 : ; < = > ? */
	N_, N_, N_, N_, N_, N_, N_, N_, N_, N_, D_, D_, D_, D_, D_, D_,
	/* 0x40: @ A-O */
	D_, X_, X_, X_, X_, X_, X_, T_, T_, T_, T_, T_, T_, T_, T_, T_,
	/* 0x50: P-Z [ \ ] ^ _ */
	T_, T_, T_, T_, T_, T_, T_, T_, T_, T_, T_, D_, Q_, D_, T_, T_,
	/* 0x60: ` a-o */
	T_, X_, X_, X_, X_, X_, X_, T_, T_, T_, T_, T_, T_, T_, T_, T_,
	/* 0x70: p-z { | } ~ DEL */
	T_, T_, T_, T_, T_, T_, T_, T_, T_, T_, T_, D_, T_, D_, T_, 0,
	/* 0x80-0xff: obs-text */
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_,
	O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_, O_
};

#define IS(c, cl)	((cclass[(unsigned char)(c)] & (cl)) != 0)

/* head parser states, in input order */
enum {
	S_START,	/* request: leading CRLF or the method */
	S_LEAD_LF,	/* LF of a leading empty line */
	S_METHOD,
	S_TARGET,
	S_VERSION,	/* request: "HTTP/x.y" up to CR */
	S_RVERSION,	/* response: "HTTP/x.y" up to SP */
	S_CODE,
	S_CODE_END,	/* SP or CR after the status code */
	S_REASON,
	S_LINE_LF,	/* LF ending the start line */
	S_FIELD_START,
	S_NAME,
	S_VALUE_OWS,
	S_VALUE,
	S_FIELD_LF,
	S_END_LF,	/* LF of the empty line */
	S_DONE,
	S_ERROR
};

/* which limit covers a state */
enum { P_NONE, P_LINE, P_FIELD };

struct known {
	const char	*name;
	size_t		 len;
	enum http_hdr	 id;
	int		 strict;	/* its '_' for '-' lookalike: */
};
#define K_REFUSED	1		/* the head is refused */
#define K_SAME		2		/* the same field: a CGI-style
					   backend reads it so */

#define K(s, id, strict)	{ s, sizeof(s) - 1, id, strict }
static const struct known known_fields[] = {
	K("Host", HTTP_H_HOST, 0),
	K("Content-Length", HTTP_H_CONTENT_LENGTH, K_REFUSED),
	K("Transfer-Encoding", HTTP_H_TRANSFER_ENCODING, K_REFUSED),
	K("Connection", HTTP_H_CONNECTION, 0),
	K("Keep-Alive", HTTP_H_KEEP_ALIVE, 0),
	K("Proxy-Connection", HTTP_H_PROXY_CONNECTION, 0),
	K("TE", HTTP_H_TE, 0),
	K("Trailer", HTTP_H_TRAILER, 0),
	K("Upgrade", HTTP_H_UPGRADE, 0),
	K("Expect", HTTP_H_EXPECT, 0),
	K("Via", HTTP_H_VIA, 0),
	K("Forwarded", HTTP_H_FORWARDED, 0),
	K("X-Forwarded-For", HTTP_H_X_FORWARDED_FOR, K_SAME),
	K("X-Forwarded-Proto", HTTP_H_X_FORWARDED_PROTO, K_SAME),
	K("X-Forwarded-Host", HTTP_H_X_FORWARDED_HOST, K_SAME),
	K("HTTP2-Settings", HTTP_H_HTTP2_SETTINGS, 0),
	K("X-Real-IP", HTTP_H_X_REAL_IP, K_SAME)
};
#undef K

static const struct {
	const char		*name;
	size_t			 len;
	enum http_method	 meth;
} known_methods[] = {
	{ "GET", 3, HTTP_M_GET },
	{ "HEAD", 4, HTTP_M_HEAD },
	{ "POST", 4, HTTP_M_POST },
	{ "PUT", 3, HTTP_M_PUT },
	{ "DELETE", 6, HTTP_M_DELETE },
	{ "CONNECT", 7, HTTP_M_CONNECT },
	{ "OPTIONS", 7, HTTP_M_OPTIONS },
	{ "TRACE", 5, HTTP_M_TRACE },
	{ "PATCH", 5, HTTP_M_PATCH }
};

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Small helpers.
 */

static int
lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* ASCII case-insensitive, independent of the locale */
static int
ci_eq(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	return 1;
}

/* as ci_eq, but '_' in a also matches '-' in b */
static int
ci_eq_underscore(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (a[i] == '_' && b[i] == '-')
			continue;
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	}
	return 1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return lower(c) - 'a' + 10;
}

/*
 * Head parser: bookkeeping.
 */

static void
head_fail(struct http_head *h, int code, const char *why)
{
	/* a bad response is the upstream's fault: the client gets 502 */
	h->errcode = h->kind == HTTP_RESPONSE ? 502 : code;
	h->errstr = why;
	h->state = S_ERROR;
}

static int
head_phase(int state)
{
	switch (state) {
	case S_START:
	case S_LEAD_LF:
	case S_DONE:
	case S_ERROR:
		return P_NONE;
	case S_FIELD_START:
	case S_NAME:
	case S_VALUE_OWS:
	case S_VALUE:
	case S_FIELD_LF:
	case S_END_LF:
		return P_FIELD;
	default:
		return P_LINE;
	}
}

/* the status to answer when a limit of this phase is exceeded */
static int
limit_code(int phase)
{
	return phase == P_LINE ? 414 : 431;
}

/* how many more bytes the current line may take */
static size_t
head_room(const struct http_head *h, int phase)
{
	size_t	line, sec;

	if (phase == P_LINE)
		return HTTP_LINE_MAX - h->linelen;
	line = HTTP_FIELD_MAX - h->linelen;
	sec = HTTP_SECTION_MAX - h->seclen;
	return line < sec ? line : sec;
}

/* keep n bytes in the caller's buffer */
static int
head_store(struct http_head *h, const char *s, size_t n)
{
	if (n > h->bufsz - h->buflen) {
		head_fail(h, limit_code(head_phase(h->state)),
		    "head does not fit the buffer");
		return -1;
	}
	memcpy(h->buf + h->buflen, s, n);
	h->buflen += n;
	return 0;
}

/* end the current item with a NUL; its start is in h->item */
static int
head_terminate(struct http_head *h)
{
	if (h->buflen == h->bufsz) {
		head_fail(h, limit_code(head_phase(h->state)),
		    "head does not fit the buffer");
		return -1;
	}
	h->buf[h->buflen++] = '\0';
	return 0;
}

/* length of the run of bytes of class cl at s, not beyond end */
static size_t
run(const char *s, const char *end, uint8_t cl)
{
	const char	*p = s;

	/* four bytes a round: a third of the loop's branches */
	while (end - p >= 4 && IS(p[0], cl) && IS(p[1], cl) &&
	    IS(p[2], cl) && IS(p[3], cl))
		p += 4;
	while (p < end && IS(*p, cl))
		p++;
	return p - s;
}

/*
 * Keep the run of class cl at s; return where it ends, NULL on failure.
 * end is capped at the limit, so a byte there is still within it and the
 * caller may take it in the same step.
 */
static const char *
take_run(struct http_head *h, const char *s, const char *end, uint8_t cl)
{
	size_t	n = run(s, end, cl);

	if (n > 0 && head_store(h, s, n) == -1)
		return NULL;
	return s + n;
}

static void
head_init(struct http_head *h, enum http_kind kind, char *buf,
    size_t bufsz)
{
	memset(h, 0, offsetof(struct http_head, fields));
	h->kind = kind;
	h->buf = buf;
	h->bufsz = bufsz;
	h->state = kind == HTTP_REQUEST ? S_START : S_RVERSION;
}

void
http_req_init(struct http_head *h, char *buf, size_t bufsz)
{
	head_init(h, HTTP_REQUEST, buf, bufsz);
}

void
http_resp_init(struct http_head *h, char *buf, size_t bufsz,
    enum http_method reqmeth)
{
	head_init(h, HTTP_RESPONSE, buf, bufsz);
	h->reqmeth = reqmeth;
}

/*
 * Start lines.
 */

/*
 * 10, 11, 0 for another well-formed HTTP/x.y, -1 for anything else.
 * HTTP/1.2 and above are 11: a message of a higher minor version is
 * understood as the highest minor version implemented (RFC 9110 section
 * 2.5), and the answer says HTTP/1.1.
 */
static int
version_of(const struct http_head *h)
{
	const char	*v = h->ver;

	if (h->nver != 8 || memcmp(v, "HTTP/", 5) != 0 ||
	    !IS(v[5], C_DIGIT) || v[6] != '.' || !IS(v[7], C_DIGIT))
		return -1;
	if (v[5] != '1')
		return 0;
	return v[7] == '0' ? 10 : 11;
}

static enum http_method
method_of(const char *m, size_t n)
{
	size_t	i;

	/* methods are case-sensitive (RFC 9110 section 9.1) */
	for (i = 0; i < NITEMS(known_methods); i++)
		if (known_methods[i].len == n &&
		    memcmp(known_methods[i].name, m, n) == 0)
			return known_methods[i].meth;
	return HTTP_M_OTHER;
}

/* every '%' starts "%" HEXDIG HEXDIG */
static int
valid_pct(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (s[i] != '%')
			continue;
		if (n - i < 3 || !IS(s[i + 1], C_HEX) || !IS(s[i + 2], C_HEX))
			return 0;
		i += 2;
	}
	return 1;
}

/* "[" IPv6 "]": checks the alphabet only; returns the length or 0 */
static size_t
ip_literal(const char *s, size_t n)
{
	size_t	i;

	for (i = 1; i < n && s[i] != ']'; i++)
		if (!IS(s[i], C_HEX) && s[i] != ':' && s[i] != '.')
			return 0;
	if (i == n || i < 3)
		return 0;
	return i + 1;
}

static int
host_char(int c)
{
	return IS(c, C_DIGIT) || (lower(c) >= 'a' && lower(c) <= 'z') ||
	    c == '-' || c == '_';
}

/*
 * A DNS-like reg-name: letters, digits, '-', '_' in non-empty labels, one
 * trailing dot allowed.  Stricter than RFC 3986 on purpose: we route by it.
 */
static size_t
reg_name(const char *s, size_t n)
{
	size_t	i, label = 0;

	for (i = 0; i < n && s[i] != ':'; i++) {
		if (s[i] == '.') {
			if (label == 0)
				return 0;
			label = 0;
		} else if (host_char((unsigned char)s[i]))
			label++;
		else
			return 0;
	}
	return i;
}

/* host [ ":" port ], port required when needport; 0 when valid */
static int
parse_authority(const char *s, size_t n, int needport, size_t *hostlen,
    int *port)
{
	size_t	hl, i;
	int	p = 0;

	if (n == 0)
		return -1;
	hl = s[0] == '[' ? ip_literal(s, n) : reg_name(s, n);
	if (hl == 0 || hl > HTTP_HOST_MAX)
		return -1;
	if (hl == n) {
		if (needport)
			return -1;
	} else {
		if (s[hl] != ':' || n - hl - 1 < 1 || n - hl - 1 > 5)
			return -1;
		for (i = hl + 1; i < n; i++) {
			if (!IS(s[i], C_DIGIT))
				return -1;
			p = p * 10 + (s[i] - '0');
		}
		if (p < 1 || p > 65535)
			return -1;
	}
	*hostlen = hl;
	*port = p;
	return 0;
}

static int
set_authority(struct http_head *h, const char *s, size_t n, int needport)
{
	if (parse_authority(s, n, needport, &h->hostlen, &h->port) == -1)
		return -1;
	h->authority = s;
	h->authoritylen = n;
	return 0;
}

/* absolute-form: http or https, an authority, then the origin part */
static int
absolute_form(struct http_head *h)
{
	const char	*t = h->target, *a;
	size_t		 n = h->targetlen, al;

	if (n > 7 && ci_eq(t, "http://", 7))
		a = t + 7;
	else if (n > 8 && ci_eq(t, "https://", 8))
		a = t + 8;
	else
		return -1;
	for (al = 0; a + al < t + n && a[al] != '/' && a[al] != '?'; al++)
		;
	/* '@' (userinfo) fails here: it is no host character */
	if (set_authority(h, a, al, 0) == -1)
		return -1;
	h->form = HTTP_FORM_ABSOLUTE;
	h->path = a + al;
	h->pathlen = t + n - h->path;
	return 0;
}

static void
check_target(struct http_head *h)
{
	const char	*t = h->target;
	size_t		 n = h->targetlen;

	if (!valid_pct(t, n)) {
		head_fail(h, 400, "bad percent-encoding in target");
		return;
	}
	h->path = t;
	h->pathlen = n;
	if (h->meth == HTTP_M_CONNECT) {
		h->form = HTTP_FORM_AUTHORITY;
		if (set_authority(h, t, n, 1) == -1)
			head_fail(h, 400, "CONNECT needs host:port");
	} else if (t[0] == '/')
		h->form = HTTP_FORM_ORIGIN;
	else if (n == 1 && t[0] == '*') {
		h->form = HTTP_FORM_ASTERISK;
		if (h->meth != HTTP_M_OPTIONS)
			head_fail(h, 400, "asterisk-form is for OPTIONS only");
	} else if (absolute_form(h) == -1)
		head_fail(h, 400, "invalid request target");
}

/* the LF of the request line */
static void
request_line_done(struct http_head *h)
{
	int	v;

	/* the version first: "PRI * HTTP/2.0" is a version matter, 505 */
	if ((v = version_of(h)) == -1) {
		head_fail(h, 400, "malformed HTTP version");
		return;
	}
	if (v == 0) {
		head_fail(h, 505, "unsupported HTTP version");
		return;
	}
	h->version = v;
	h->meth = method_of(h->method, h->methodlen);
	check_target(h);
}

/*
 * Head parser: one function per state.  Each consumes at least one byte or
 * changes state, and never more than end - s bytes; with bytes left it goes
 * on to the next state of the same line, never past the LF that ends the
 * line, so that one limit check per step (head_step) covers all it takes.
 */

static const char	*st_target(struct http_head *, const char *,
			    const char *);
static const char	*st_version(struct http_head *, const char *,
			    const char *);
static const char	*st_code(struct http_head *, const char *,
			    const char *);
static const char	*st_code_end(struct http_head *, const char *,
			    const char *);
static const char	*st_reason(struct http_head *, const char *,
			    const char *);
static const char	*st_line_lf(struct http_head *, const char *,
			    const char *);
static const char	*st_name(struct http_head *, const char *, const char *);
static const char	*st_value_ows(struct http_head *, const char *,
			    const char *);
static const char	*st_value(struct http_head *, const char *,
			    const char *);
static const char	*st_field_lf(struct http_head *, const char *,
			    const char *);

static const char *
st_start(struct http_head *h, const char *s)
{
	if (*s == '\r') {
		if (h->nlead++ == HTTP_LEADING_CRLF_MAX) {
			head_fail(h, 400, "too many empty lines");
			return s;
		}
		h->state = S_LEAD_LF;
		return s + 1;
	}
	h->state = S_METHOD;
	h->item = h->buflen;
	return s;
}

static const char *
st_lead_lf(struct http_head *h, const char *s)
{
	if (*s != '\n')
		head_fail(h, 400, "bare CR before request line");
	else
		h->state = S_START;
	return s + 1;
}

static const char *
st_method(struct http_head *h, const char *s, const char *end)
{
	const char	*e;

	if ((e = take_run(h, s, end, C_TCHAR)) == NULL || e == end)
		return e == NULL ? s : e;
	s = e;
	if (*s != ' ' || h->buflen == h->item) {
		head_fail(h, 400, "invalid method");
		return s;
	}
	if (head_terminate(h) == -1)
		return s;
	h->method = h->buf + h->item;
	h->methodlen = h->buflen - 1 - h->item;
	h->item = h->buflen;
	h->state = S_TARGET;
	return st_target(h, s + 1, end);
}

static const char *
st_target(struct http_head *h, const char *s, const char *end)
{
	const char	*e;

	if ((e = take_run(h, s, end, C_TARGET)) == NULL || e == end)
		return e == NULL ? s : e;
	s = e;
	if (*s != ' ' || h->buflen == h->item) {
		head_fail(h, 400, "invalid request target");
		return s;
	}
	if (head_terminate(h) == -1)
		return s;
	h->target = h->buf + h->item;
	h->targetlen = h->buflen - 1 - h->item;
	h->state = S_VERSION;
	return st_version(h, s + 1, end);
}

/* "HTTP/x.y" ended by CR (request) or SP (response) */
static const char *
st_version(struct http_head *h, const char *s, const char *end)
{
	int	stop = h->state == S_VERSION ? '\r' : ' ';
	int	v;

	for (; s < end && *s != stop; s++) {
		if (h->nver == sizeof(h->ver) || !IS(*s, C_VCHAR)) {
			head_fail(h, 400, "malformed HTTP version");
			return s + 1;
		}
		h->ver[h->nver++] = *s;
	}
	if (s == end)
		return s;
	if (h->state == S_VERSION) {
		h->state = S_LINE_LF;
		return st_line_lf(h, s + 1, end);
	}
	if ((v = version_of(h)) <= 0) {
		head_fail(h, 502, "bad version in status line");
		return s;
	}
	h->version = v;
	h->nver = 0;	/* now counts status code digits */
	h->state = S_CODE;
	return st_code(h, s + 1, end);
}

static const char *
st_code(struct http_head *h, const char *s, const char *end)
{
	for (; s < end; s++) {
		if (!IS(*s, C_DIGIT)) {
			head_fail(h, 502, "bad status code");
			return s;
		}
		h->code = h->code * 10 + (*s - '0');
		if (++h->nver < 3)
			continue;
		if (h->code < 100 || h->code > 599) {
			head_fail(h, 502, "bad status code");
			return s;
		}
		h->state = S_CODE_END;
		return st_code_end(h, s + 1, end);
	}
	return s;
}

static const char *
st_code_end(struct http_head *h, const char *s, const char *end)
{
	if (s == end)
		return s;
	h->item = h->buflen;
	if (*s == ' ') {
		h->state = S_REASON;
		return st_reason(h, s + 1, end);
	}
	if (*s != '\r') {
		head_fail(h, 502, "bad status line");
		return s;
	}
	/* no reason phrase at all: tolerated, nothing depends on it */
	if (head_terminate(h) == -1)
		return s;
	h->reason = h->buf + h->item;
	h->state = S_LINE_LF;
	return st_line_lf(h, s + 1, end);
}

static const char *
st_reason(struct http_head *h, const char *s, const char *end)
{
	const char	*e;

	if ((e = take_run(h, s, end, C_VALUE)) == NULL || e == end)
		return e == NULL ? s : e;
	s = e;
	if (*s != '\r') {
		head_fail(h, 502, "bad reason phrase");
		return s;
	}
	if (head_terminate(h) == -1)
		return s;
	h->reason = h->buf + h->item;
	h->reasonlen = h->buflen - 1 - h->item;
	h->state = S_LINE_LF;
	return st_line_lf(h, s + 1, end);
}

static const char *
st_line_lf(struct http_head *h, const char *s, const char *end)
{
	if (s == end)
		return s;
	if (*s != '\n') {
		head_fail(h, 400, "bare CR in start line");
		return s;
	}
	h->state = S_FIELD_START;
	if (h->kind == HTTP_REQUEST)
		request_line_done(h);
	return s + 1;
}

static const char *
st_field_start(struct http_head *h, const char *s, const char *end)
{
	if (*s == '\r') {
		h->state = S_END_LF;
		return s + 1;
	}
	if (IS(*s, C_WS)) {
		/* obs-fold, or whitespace before the first field */
		head_fail(h, 400, "field line starts with whitespace");
		return s;
	}
	if (!IS(*s, C_TCHAR)) {
		head_fail(h, 400, "invalid field name");
		return s;
	}
	if (h->nfields == HTTP_FIELDS_MAX) {
		head_fail(h, 431, "too many fields");
		return s;
	}
	h->item = h->buflen;
	h->state = S_NAME;
	return st_name(h, s, end);
}

static int
classify(struct http_field *f)
{
	const struct known	*k;
	size_t			 i;

	f->id = HTTP_H_OTHER;
	for (i = 0; i < NITEMS(known_fields); i++) {
		k = &known_fields[i];
		/* no name starts with '-', so the '_' check is unaffected */
		if (k->len != f->namelen ||
		    lower((unsigned char)f->name[0]) != lower(k->name[0]))
			continue;
		if (ci_eq(f->name, k->name, k->len)) {
			f->id = k->id;
			return 0;
		}
		/*
		 * Transfer_Encoding: what CGI-style backends read as TE, so
		 * refused; X_Real_IP: what they read as X-Real-IP, so the
		 * same field, which the gateway replaces
		 */
		if (k->strict && ci_eq_underscore(f->name, k->name, k->len)) {
			if (k->strict == K_REFUSED)
				return -1;
			f->id = k->id;
			return 0;
		}
	}
	return 0;
}

static const char *
st_name(struct http_head *h, const char *s, const char *end)
{
	struct http_field	*f = &h->fields[h->nfields];
	const char		*e;

	if ((e = take_run(h, s, end, C_TCHAR)) == NULL || e == end)
		return e == NULL ? s : e;
	s = e;
	if (*s != ':') {
		head_fail(h, 400, IS(*s, C_WS) ?
		    "whitespace before colon" : "invalid field name");
		return s;
	}
	if (head_terminate(h) == -1)
		return s;
	f->name = h->buf + h->item;
	f->namelen = h->buflen - 1 - h->item;
	f->flags = 0;
	if (classify(f) == -1) {
		head_fail(h, 400, "framing field name with '_'");
		return s;
	}
	h->state = S_VALUE_OWS;
	return st_value_ows(h, s + 1, end);
}

static const char *
st_value_ows(struct http_head *h, const char *s, const char *end)
{
	s += run(s, end, C_WS);
	if (s == end)
		return s;
	if (*s != '\r' && !IS(*s, C_VALUE)) {
		head_fail(h, 400, "invalid character in field value");
		return s;
	}
	/* the value, even an empty one, is read and ended by st_value */
	h->item = h->buflen;
	h->vtrim = 0;
	h->state = S_VALUE;
	return st_value(h, s, end);
}

static const char *
st_value(struct http_head *h, const char *s, const char *end)
{
	struct http_field	*f = &h->fields[h->nfields];
	const char		*e, *t;

	if ((e = take_run(h, s, end, C_VALUE)) == NULL)
		return s;
	/* remember where the value ends without trailing OWS */
	for (t = e; t > s && IS(t[-1], C_WS); t--)
		;
	if (t > s)
		h->vtrim = h->buflen - h->item - (e - t);
	if (e == end)
		return e;
	s = e;
	if (*s != '\r') {
		head_fail(h, 400, "invalid character in field value");
		return s;
	}
	h->buflen = h->item + h->vtrim;
	if (head_terminate(h) == -1)
		return s;
	f->value = h->buf + h->item;
	f->valuelen = h->vtrim;
	h->state = S_FIELD_LF;
	return st_field_lf(h, s + 1, end);
}

static const char *
st_field_lf(struct http_head *h, const char *s, const char *end)
{
	if (s == end)
		return s;
	if (*s != '\n') {
		head_fail(h, 400, "bare CR in field line");
		return s;
	}
	h->nfields++;
	h->state = S_FIELD_START;
	return s + 1;
}

static void	head_finish(struct http_head *);

static const char *
st_end_lf(struct http_head *h, const char *s)
{
	if (*s != '\n') {
		head_fail(h, 400, "bare CR in field section");
		return s;
	}
	h->state = S_DONE;
	head_finish(h);
	return s + 1;
}

static const char *
head_dispatch(struct http_head *h, const char *s, const char *end)
{
	switch (h->state) {
	case S_START:
		return st_start(h, s);
	case S_LEAD_LF:
		return st_lead_lf(h, s);
	case S_METHOD:
		return st_method(h, s, end);
	case S_TARGET:
		return st_target(h, s, end);
	case S_VERSION:
	case S_RVERSION:
		return st_version(h, s, end);
	case S_CODE:
		return st_code(h, s, end);
	case S_CODE_END:
		return st_code_end(h, s, end);
	case S_REASON:
		return st_reason(h, s, end);
	case S_LINE_LF:
		return st_line_lf(h, s, end);
	case S_FIELD_START:
		return st_field_start(h, s, end);
	case S_NAME:
		return st_name(h, s, end);
	case S_VALUE_OWS:
		return st_value_ows(h, s, end);
	case S_VALUE:
		return st_value(h, s, end);
	case S_FIELD_LF:
		return st_field_lf(h, s, end);
	case S_END_LF:
		return st_end_lf(h, s);
	default:
		head_fail(h, 400, "parser state");
		return s;
	}
}

/* one step: check the limit, take bytes, account for them */
static const char *
head_step(struct http_head *h, const char *s, const char *end)
{
	int		 phase = head_phase(h->state);
	size_t		 room;
	const char	*next;

	if (phase != P_NONE) {
		if ((room = head_room(h, phase)) == 0) {
			head_fail(h, limit_code(phase), phase == P_LINE ?
			    "start line too long" : "field section too large");
			return s;
		}
		if ((size_t)(end - s) > room)
			end = s + room;
	}
	next = head_dispatch(h, s, end);
	h->linelen += next - s;
	if (phase == P_FIELD)
		h->seclen += next - s;
	/* only the LF that ends a line leads here: the next line starts */
	if (h->state == S_FIELD_START)
		h->linelen = 0;
	return next;
}

int
http_head_feed(struct http_head *h, const char *p, size_t len, size_t *used)
{
	const char	*s = p, *end;

	*used = 0;
	if (len == 0)
		return h->state == S_DONE ? HTTP_DONE :
		    h->state == S_ERROR ? HTTP_ERROR : HTTP_MORE;
	end = p + len;
	while (s < end && h->state != S_DONE && h->state != S_ERROR)
		s = head_step(h, s, end);
	*used = s - p;
	if (h->state == S_DONE)
		return HTTP_DONE;
	if (h->state == S_ERROR)
		return HTTP_ERROR;
	return HTTP_MORE;
}

/*
 * The whole head, once its empty line is in: the checks that need more
 * than one field, then the framing decision.
 */

struct seen {
	const struct http_field	*host;
	const struct http_field	*cl;
	const struct http_field	*te;
	int			 nhost;
	int			 ncl;
	int			 nte;
};

/*
 * Does an Upgrade value list the protocol "websocket", without a version
 * (RFC 6455 section 4.1)?  Its elements are protocol[/version] tokens,
 * separated by commas and optional whitespace; anything else is not
 * looked into.
 */
static int
lists_websocket(const char *v, size_t n)
{
	size_t	i = 0, start;

	while (i < n) {
		while (i < n && (v[i] == ',' || IS(v[i], C_WS)))
			i++;
		for (start = i; i < n && v[i] != ',' && !IS(v[i], C_WS); i++)
			;
		if (i - start == 9 && ci_eq(v + start, "websocket", 9))
			return 1;
	}
	return 0;
}

static void
count_fields(struct http_head *h, struct seen *sn)
{
	struct http_field	*f;
	size_t			 i;

	memset(sn, 0, sizeof(*sn));
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		switch (f->id) {
		case HTTP_H_HOST:
			if (sn->nhost++ == 0)
				sn->host = f;
			break;
		case HTTP_H_CONTENT_LENGTH:
			if (sn->ncl++ == 0)
				sn->cl = f;
			break;
		case HTTP_H_TRANSFER_ENCODING:
			if (sn->nte++ == 0)
				sn->te = f;
			break;
		case HTTP_H_UPGRADE:
			h->flags |= HTTP_F_UPGRADE;
			if (lists_websocket(f->value, f->valuelen))
				h->flags |= HTTP_F_UPGRADE_WS;
			break;
		default:
			break;
		}
	}
}

/* 1*DIGIT below 2^63, leading zeros allowed; 0 when valid */
static int
parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t	x = 0;
	size_t		i;
	unsigned int	d;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!IS(v[i], C_DIGIT))
			return -1;
		d = v[i] - '0';
		if (x > ((uint64_t)INT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

/*
 * Transfer-Encoding as a list of codings without parameters: 1 for exactly
 * "chunked", 0 for well-formed codings none of which is chunked, -1 for
 * anything else (chunked twice or not alone, empty elements, parameters).
 */
static int
parse_te(const char *v, size_t n)
{
	size_t	i = 0, start;
	int	chunked = 0, other = 0;

	for (;;) {
		for (start = i; i < n && IS(v[i], C_TCHAR); i++)
			;
		if (i == start)
			return -1;
		if (i - start == 7 && ci_eq(v + start, "chunked", 7))
			chunked++;
		else
			other++;
		while (i < n && IS(v[i], C_WS))
			i++;
		if (i == n)
			break;
		if (v[i++] != ',')
			return -1;
		while (i < n && IS(v[i], C_WS))
			i++;
	}
	if (chunked == 1 && other == 0)
		return 1;
	return chunked ? -1 : 0;
}

static int
check_framing_fields(struct http_head *h, const struct seen *sn)
{
	int	te;

	if (sn->ncl > 1) {
		head_fail(h, 400, "repeated Content-Length");
		return -1;
	}
	if (sn->nte > 1) {
		head_fail(h, 400, "repeated Transfer-Encoding");
		return -1;
	}
	if (sn->cl != NULL && sn->te != NULL) {
		head_fail(h, 400, "Content-Length with Transfer-Encoding");
		return -1;
	}
	if (sn->cl != NULL) {
		if (parse_length(sn->cl->value, sn->cl->valuelen,
		    &h->content_length) == -1) {
			head_fail(h, 400, "invalid Content-Length");
			return -1;
		}
		h->flags |= HTTP_F_HAS_CL;
	}
	if (sn->te == NULL)
		return 0;
	if (h->version == 10) {
		head_fail(h, 400, "Transfer-Encoding in HTTP/1.0");
		return -1;
	}
	if ((te = parse_te(sn->te->value, sn->te->valuelen)) != 1) {
		head_fail(h, te == 0 ? 501 : 400, te == 0 ?
		    "unsupported transfer coding" :
		    "invalid Transfer-Encoding");
		return -1;
	}
	h->flags |= HTTP_F_HAS_TE;
	return 0;
}

static int
connection_token(struct http_head *h, const char *t, size_t n)
{
	struct http_field	*f;
	size_t			 i;

	if (n == 5 && ci_eq(t, "close", 5))
		h->flags |= HTTP_F_CONN_CLOSE;
	else if (n == 10 && ci_eq(t, "keep-alive", 10))
		h->flags |= HTTP_F_CONN_KEEPALIVE;
	else if (n == 7 && ci_eq(t, "upgrade", 7))
		h->flags |= HTTP_F_CONN_UPGRADE;
	else if ((n == 4 && ci_eq(t, "Host", 4)) ||
	    (n == 14 && ci_eq(t, "Content-Length", 14)) ||
	    (n == 17 && ci_eq(t, "Transfer-Encoding", 17))) {
		/* a hop that drops these changes the message's meaning */
		head_fail(h, 400, "Connection names an end-to-end field");
		return -1;
	}
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->namelen == n && ci_eq(f->name, t, n))
			f->flags |= HTTP_FIELD_HOP;
	}
	return 0;
}

/* the tokens of one Connection value; empty list elements are skipped */
static int
connection_value(struct http_head *h, const char *v, size_t n,
    unsigned int *ntok)
{
	size_t	i = 0, start;

	for (;;) {
		while (i < n && (v[i] == ',' || IS(v[i], C_WS)))
			i++;
		if (i == n)
			return 0;
		for (start = i; i < n && IS(v[i], C_TCHAR); i++)
			;
		if (i == start || ++*ntok > HTTP_CONN_TOKENS_MAX) {
			head_fail(h, 400, "invalid Connection");
			return -1;
		}
		if (connection_token(h, v + start, i - start) == -1)
			return -1;
		while (i < n && IS(v[i], C_WS))
			i++;
		if (i < n && v[i] != ',') {
			head_fail(h, 400, "invalid Connection");
			return -1;
		}
	}
}

static int
check_connection(struct http_head *h)
{
	const struct http_field	*f;
	size_t			 i;
	unsigned int		 ntok = 0;

	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->id == HTTP_H_CONNECTION &&
		    connection_value(h, f->value, f->valuelen, &ntok) == -1)
			return -1;
	}
	return 0;
}

static void
mark_hop(struct http_head *h)
{
	size_t	i;

	for (i = 0; i < h->nfields; i++) {
		switch (h->fields[i].id) {
		case HTTP_H_CONNECTION:
		case HTTP_H_KEEP_ALIVE:
		case HTTP_H_PROXY_CONNECTION:
		case HTTP_H_TE:
		case HTTP_H_TRAILER:
		case HTTP_H_UPGRADE:
		case HTTP_H_HTTP2_SETTINGS:	/* h2c's, RFC 7540 3.2.1 */
		case HTTP_H_TRANSFER_ENCODING:
			h->fields[i].flags |= HTTP_FIELD_HOP;
			break;
		default:
			break;
		}
	}
}

static int
check_host(struct http_head *h, const struct seen *sn)
{
	const struct http_field	*f = sn->host;
	size_t			 hl;
	int			 port;

	if (sn->nhost > 1) {
		head_fail(h, 400, "more than one Host");
		return -1;
	}
	if (f == NULL) {
		if (h->version == 11) {
			head_fail(h, 400, "missing Host");
			return -1;
		}
		return 0;
	}
	if (parse_authority(f->value, f->valuelen, 0, &hl, &port) == -1) {
		head_fail(h, 400, "invalid Host");
		return -1;
	}
	if (h->form == HTTP_FORM_ABSOLUTE || h->form == HTTP_FORM_AUTHORITY) {
		/* route and forward one authority, never two */
		if (h->authoritylen != f->valuelen ||
		    !ci_eq(h->authority, f->value, f->valuelen)) {
			head_fail(h, 400, "Host differs from the target");
			return -1;
		}
		return 0;
	}
	h->authority = f->value;
	h->authoritylen = f->valuelen;
	h->hostlen = hl;
	h->port = port;
	return 0;
}

static int
check_expect(struct http_head *h)
{
	struct http_field	*f;
	size_t			 i;

	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->id != HTTP_H_EXPECT)
			continue;
		if (h->version == 10) {
			/* RFC 9110 section 10.1.1: ignored, so not forwarded */
			f->flags |= HTTP_FIELD_HOP;
			continue;
		}
		if (f->valuelen != 12 || !ci_eq(f->value, "100-continue", 12)) {
			head_fail(h, 417, "unsupported expectation");
			return -1;
		}
		h->flags |= HTTP_F_EXPECT_CONTINUE;
	}
	return 0;
}

/* RFC 9112 section 6.3, in its order */
static void
response_framing(struct http_head *h)
{
	if (h->reqmeth == HTTP_M_HEAD || h->code < 200 || h->code == 204 ||
	    h->code == 304)
		h->body = HTTP_BODY_NONE;
	else if (h->reqmeth == HTTP_M_CONNECT && h->code < 300)
		h->body = HTTP_BODY_TUNNEL;
	else if (h->flags & HTTP_F_HAS_TE)
		h->body = HTTP_BODY_CHUNKED;
	else if (h->flags & HTTP_F_HAS_CL)
		h->body = HTTP_BODY_LENGTH;
	else
		h->body = HTTP_BODY_CLOSE;
}

static void
head_finish(struct http_head *h)
{
	struct seen	sn;

	count_fields(h, &sn);
	if (check_framing_fields(h, &sn) == -1 || check_connection(h) == -1)
		return;
	mark_hop(h);
	if (h->kind == HTTP_RESPONSE) {
		response_framing(h);
		return;
	}
	if (check_host(h, &sn) == -1 || check_expect(h) == -1)
		return;
	if (h->flags & HTTP_F_HAS_TE)
		h->body = HTTP_BODY_CHUNKED;
	else if (h->flags & HTTP_F_HAS_CL)
		h->body = HTTP_BODY_LENGTH;
	else
		h->body = HTTP_BODY_NONE;
}

/*
 * Lookups.
 */

const struct http_field *
http_head_get(const struct http_head *h, enum http_hdr id)
{
	size_t	i;

	for (i = 0; i < h->nfields; i++)
		if (h->fields[i].id == id)
			return &h->fields[i];
	return NULL;
}

const struct http_field *
http_head_find(const struct http_head *h, const char *name)
{
	size_t	i, n = strlen(name);

	for (i = 0; i < h->nfields; i++)
		if (h->fields[i].namelen == n &&
		    ci_eq(h->fields[i].name, name, n))
			return &h->fields[i];
	return NULL;
}

/*
 * A WebSocket opening handshake (RFC 6455 section 4.1): a GET of HTTP/1.1
 * with Connection: upgrade and an Upgrade listing websocket.  Any other
 * Upgrade (h2c above all: its 101 would open an HTTP/2 connection past
 * the gateway's parser) is no upgrade: its fields are hop-by-hop and the
 * request is forwarded as an ordinary one.
 */
int
http_head_websocket(const struct http_head *h)
{
	unsigned int	want = HTTP_F_CONN_UPGRADE | HTTP_F_UPGRADE_WS;

	return (h->state == S_DONE && h->kind == HTTP_REQUEST &&
	    h->meth == HTTP_M_GET && h->version == 11 &&
	    (h->flags & want) == want);
}

int
http_head_persistent(const struct http_head *h)
{
	if (h->state != S_DONE || (h->flags & HTTP_F_CONN_CLOSE))
		return 0;
	if (h->kind == HTTP_RESPONSE && h->body == HTTP_BODY_CLOSE)
		return 0;
	if (h->version >= 11)
		return 1;
	return (h->flags & HTTP_F_CONN_KEEPALIVE) != 0;
}

/*
 * Serialisation.
 */

struct out {
	char	*p;
	size_t	 len;
	size_t	 cap;
	int	 bad;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->bad || n > o->cap - o->len) {
		o->bad = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void
put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
put_u64(struct out *o, uint64_t v)
{
	char	tmp[20];
	size_t	i = sizeof(tmp);

	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v != 0 && i > 0);
	put(o, tmp + i, sizeof(tmp) - i);
}

static void
put_field(struct out *o, const char *name, size_t namelen,
    const char *value, size_t valuelen)
{
	put(o, name, namelen);
	put(o, ": ", 2);
	put(o, value, valuelen);
	put(o, "\r\n", 2);
}

static void
put_request_line(struct out *o, const struct http_head *h,
    const struct http_ser *ser)
{
	size_t	n;

	put(o, h->method, h->methodlen);
	put(o, " ", 1);
	if (ser != NULL && ser->target != NULL) {
		n = strlen(ser->target);
		if (n == 0 || run(ser->target, ser->target + n, C_TARGET) != n)
			o->bad = 1;
		put(o, ser->target, n);
	} else {
		/* absolute-form goes upstream as origin-form */
		if (h->form == HTTP_FORM_ABSOLUTE &&
		    (h->pathlen == 0 || h->path[0] != '/'))
			put(o, "/", 1);
		put(o, h->path, h->pathlen);
	}
	put_str(o, " HTTP/1.1\r\n");
}

static void
put_status_line(struct out *o, const struct http_head *h)
{
	char	code[3];

	code[0] = '0' + h->code / 100;
	code[1] = '0' + h->code / 10 % 10;
	code[2] = '0' + h->code % 10;
	put_str(o, "HTTP/1.1 ");
	put(o, code, sizeof(code));
	put(o, " ", 1);
	put(o, h->reason, h->reasonlen);
	put(o, "\r\n", 2);
}

static int
keep_field(const struct http_field *f, const struct http_ser *ser)
{
	if ((f->flags & (HTTP_FIELD_DROP | HTTP_FIELD_HOP)) ||
	    f->id == HTTP_H_CONTENT_LENGTH)
		return 0;
	if (ser != NULL && ser->filter != NULL && !ser->filter(f, ser->arg))
		return 0;
	return 1;
}

/* the caller's fields obey the rules the parser enforces */
static void
put_added(struct out *o, const struct http_field *f)
{
	size_t	nl, vl;

	if (f->name == NULL || f->value == NULL) {
		o->bad = 1;
		return;
	}
	nl = strlen(f->name);
	vl = strlen(f->value);
	if (nl == 0 || run(f->name, f->name + nl, C_TCHAR) != nl ||
	    run(f->value, f->value + vl, C_VALUE) != vl) {
		o->bad = 1;
		return;
	}
	put_field(o, f->name, nl, f->value, vl);
}

static void
put_framing(struct out *o, const struct http_head *h)
{
	int	te = 0, cl = 0;

	switch (h->body) {
	case HTTP_BODY_CHUNKED:
		te = 1;
		break;
	case HTTP_BODY_LENGTH:
		cl = 1;
		break;
	case HTTP_BODY_NONE:
		/* HEAD and 304: the fields describe the body not sent */
		if (h->kind == HTTP_RESPONSE && h->code >= 200 &&
		    h->code != 204) {
			te = (h->flags & HTTP_F_HAS_TE) != 0;
			cl = (h->flags & HTTP_F_HAS_CL) != 0;
		}
		break;
	default:
		break;
	}
	if (te)
		put_str(o, "Transfer-Encoding: chunked\r\n");
	if (cl) {
		put_str(o, "Content-Length: ");
		put_u64(o, h->content_length);
		put(o, "\r\n", 2);
	}
}

ssize_t
http_head_serialize(const struct http_head *h, const struct http_ser *ser,
    char *buf, size_t bufsz)
{
	struct out		 o = { buf, 0, bufsz, 0 };
	const struct http_field	*f;
	size_t			 i;

	if (h->state != S_DONE)
		return -1;
	if (h->kind == HTTP_REQUEST)
		put_request_line(&o, h, ser);
	else
		put_status_line(&o, h);
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (keep_field(f, ser))
			put_field(&o, f->name, f->namelen, f->value,
			    f->valuelen);
	}
	/* HTTP/1.1 needs Host: an HTTP/1.0 target may be all we have */
	if (h->kind == HTTP_REQUEST && h->authoritylen > 0 &&
	    http_head_get(h, HTTP_H_HOST) == NULL)
		put_field(&o, "Host", 4, h->authority, h->authoritylen);
	/* never the other protocols an Upgrade listed: websocket alone */
	if (ser != NULL && (ser->flags & HTTP_SER_UPGRADE))
		put_str(&o, "Upgrade: websocket\r\nConnection: upgrade\r\n");
	for (i = 0; ser != NULL && i < ser->nadd; i++)
		put_added(&o, &ser->add[i]);
	if (ser == NULL || !(ser->flags & HTTP_SER_NO_FRAMING))
		put_framing(&o, h);
	put(&o, "\r\n", 2);
	if (o.bad || o.len > SSIZE_MAX)
		return -1;
	return o.len;
}

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
	c->size = c->size << 4 | hexval(ch);
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
