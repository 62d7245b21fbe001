/*
 * Strict HTTP/1.1 message parsing; see http.h for the contract.  This
 * file reads a head, its start line and its fields; the checks that need
 * the whole head are http_head.c's, writing a head out http_ser.c's, and
 * the chunked coding of a body http_chunked.c's.
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
#include "http_local.h"

/* the character classes of each byte, made of http_local.h's C_* */
#define T_	(C_TCHAR | C_VCHAR | C_VALUE | C_QDTEXT | C_TARGET)
#define X_	(T_ | C_HEX)
#define N_	(T_ | C_HEX | C_DIGIT)
#define D_	(C_VCHAR | C_VALUE | C_QDTEXT | C_TARGET)	/* delimiter */
#define Q_	(C_VCHAR | C_VALUE | C_TARGET)		/* '"' and '\' */
#define H_	(C_TCHAR | C_VCHAR | C_VALUE | C_QDTEXT)	/* '#' */
#define W_	(C_WS | C_VALUE | C_QDTEXT)
#define O_	(C_VALUE | C_QDTEXT)			/* obs-text */

const uint8_t http_cclass[256] = {
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

/* as ci_eq, but '_' in a also matches '-' in b */
static int
ci_eq_underscore(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (a[i] == '_' && b[i] == '-')
			continue;
		if (http_lower((unsigned char)a[i]) !=
		    http_lower((unsigned char)b[i]))
			return 0;
	}
	return 1;
}

/*
 * Head parser: bookkeeping.
 */

void
http_head_fail(struct http_head *h, int code, const char *why)
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
		http_head_fail(h, limit_code(head_phase(h->state)),
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
		http_head_fail(h, limit_code(head_phase(h->state)),
		    "head does not fit the buffer");
		return -1;
	}
	h->buf[h->buflen++] = '\0';
	return 0;
}

/* length of the run of bytes of class cl at s, not beyond end */
size_t
http_run(const char *s, const char *end, uint8_t cl)
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
	size_t	n = http_run(s, end, cl);

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
	return IS(c, C_DIGIT) || (http_lower(c) >= 'a' &&
	    http_lower(c) <= 'z') || c == '-' || c == '_';
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
int
http_parse_authority(const char *s, size_t n, int needport, size_t *hostlen,
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
	if (http_parse_authority(s, n, needport, &h->hostlen, &h->port) == -1)
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

	if (n > 7 && http_ci_eq(t, "http://", 7))
		a = t + 7;
	else if (n > 8 && http_ci_eq(t, "https://", 8))
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
		http_head_fail(h, 400, "bad percent-encoding in target");
		return;
	}
	h->path = t;
	h->pathlen = n;
	if (h->meth == HTTP_M_CONNECT) {
		h->form = HTTP_FORM_AUTHORITY;
		if (set_authority(h, t, n, 1) == -1)
			http_head_fail(h, 400, "CONNECT needs host:port");
	} else if (t[0] == '/')
		h->form = HTTP_FORM_ORIGIN;
	else if (n == 1 && t[0] == '*') {
		h->form = HTTP_FORM_ASTERISK;
		if (h->meth != HTTP_M_OPTIONS)
			http_head_fail(h, 400,
			    "asterisk-form is for OPTIONS only");
	} else if (absolute_form(h) == -1)
		http_head_fail(h, 400, "invalid request target");
}

/* the LF of the request line */
static void
request_line_done(struct http_head *h)
{
	int	v;

	/* the version first: "PRI * HTTP/2.0" is a version matter, 505 */
	if ((v = version_of(h)) == -1) {
		http_head_fail(h, 400, "malformed HTTP version");
		return;
	}
	if (v == 0) {
		http_head_fail(h, 505, "unsupported HTTP version");
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
			http_head_fail(h, 400, "too many empty lines");
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
		http_head_fail(h, 400, "bare CR before request line");
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
		http_head_fail(h, 400, "invalid method");
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
		http_head_fail(h, 400, "invalid request target");
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
			http_head_fail(h, 400, "malformed HTTP version");
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
		http_head_fail(h, 502, "bad version in status line");
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
			http_head_fail(h, 502, "bad status code");
			return s;
		}
		h->code = h->code * 10 + (*s - '0');
		if (++h->nver < 3)
			continue;
		if (h->code < 100 || h->code > 599) {
			http_head_fail(h, 502, "bad status code");
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
		http_head_fail(h, 502, "bad status line");
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
		http_head_fail(h, 502, "bad reason phrase");
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
		http_head_fail(h, 400, "bare CR in start line");
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
		http_head_fail(h, 400, "field line starts with whitespace");
		return s;
	}
	if (!IS(*s, C_TCHAR)) {
		http_head_fail(h, 400, "invalid field name");
		return s;
	}
	if (h->nfields == HTTP_FIELDS_MAX) {
		http_head_fail(h, 431, "too many fields");
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
		    http_lower((unsigned char)f->name[0]) !=
		    http_lower(k->name[0]))
			continue;
		if (http_ci_eq(f->name, k->name, k->len)) {
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
		http_head_fail(h, 400, IS(*s, C_WS) ?
		    "whitespace before colon" : "invalid field name");
		return s;
	}
	if (head_terminate(h) == -1)
		return s;
	f->name = h->buf + h->item;
	f->namelen = h->buflen - 1 - h->item;
	f->flags = 0;
	if (classify(f) == -1) {
		http_head_fail(h, 400, "framing field name with '_'");
		return s;
	}
	h->state = S_VALUE_OWS;
	return st_value_ows(h, s + 1, end);
}

static const char *
st_value_ows(struct http_head *h, const char *s, const char *end)
{
	s += http_run(s, end, C_WS);
	if (s == end)
		return s;
	if (*s != '\r' && !IS(*s, C_VALUE)) {
		http_head_fail(h, 400, "invalid character in field value");
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
		http_head_fail(h, 400, "invalid character in field value");
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
		http_head_fail(h, 400, "bare CR in field line");
		return s;
	}
	h->nfields++;
	h->state = S_FIELD_START;
	return s + 1;
}

static const char *
st_end_lf(struct http_head *h, const char *s)
{
	if (*s != '\n') {
		http_head_fail(h, 400, "bare CR in field section");
		return s;
	}
	h->state = S_DONE;
	http_head_finish(h);
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
		http_head_fail(h, 400, "parser state");
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
			http_head_fail(h, limit_code(phase), phase == P_LINE ?
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
