/*
 * A whole HTTP/1.1 head, once its empty line is in (common/http.c reads
 * it): the checks that need more than one field (framing, Connection,
 * Host, Expect), which fields are hop-by-hop, the framing decision, and
 * the lookups the callers make in a parsed head.  See http.h.
 */

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "http_local.h"

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
		if (i - start == 9 && http_ci_eq(v + start, "websocket", 9))
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
		if (i - start == 7 && http_ci_eq(v + start, "chunked", 7))
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
		http_head_fail(h, 400, "repeated Content-Length");
		return -1;
	}
	if (sn->nte > 1) {
		http_head_fail(h, 400, "repeated Transfer-Encoding");
		return -1;
	}
	if (sn->cl != NULL && sn->te != NULL) {
		http_head_fail(h, 400, "Content-Length with Transfer-Encoding");
		return -1;
	}
	if (sn->cl != NULL) {
		if (parse_length(sn->cl->value, sn->cl->valuelen,
		    &h->content_length) == -1) {
			http_head_fail(h, 400, "invalid Content-Length");
			return -1;
		}
		h->flags |= HTTP_F_HAS_CL;
	}
	if (sn->te == NULL)
		return 0;
	if (h->version == 10) {
		http_head_fail(h, 400, "Transfer-Encoding in HTTP/1.0");
		return -1;
	}
	if ((te = parse_te(sn->te->value, sn->te->valuelen)) != 1) {
		http_head_fail(h, te == 0 ? 501 : 400, te == 0 ?
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

	if (n == 5 && http_ci_eq(t, "close", 5))
		h->flags |= HTTP_F_CONN_CLOSE;
	else if (n == 10 && http_ci_eq(t, "keep-alive", 10))
		h->flags |= HTTP_F_CONN_KEEPALIVE;
	else if (n == 7 && http_ci_eq(t, "upgrade", 7))
		h->flags |= HTTP_F_CONN_UPGRADE;
	else if ((n == 4 && http_ci_eq(t, "Host", 4)) ||
	    (n == 14 && http_ci_eq(t, "Content-Length", 14)) ||
	    (n == 17 && http_ci_eq(t, "Transfer-Encoding", 17))) {
		/* a hop that drops these changes the message's meaning */
		http_head_fail(h, 400, "Connection names an end-to-end field");
		return -1;
	}
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (f->namelen == n && http_ci_eq(f->name, t, n))
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
			http_head_fail(h, 400, "invalid Connection");
			return -1;
		}
		if (connection_token(h, v + start, i - start) == -1)
			return -1;
		while (i < n && IS(v[i], C_WS))
			i++;
		if (i < n && v[i] != ',') {
			http_head_fail(h, 400, "invalid Connection");
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
		http_head_fail(h, 400, "more than one Host");
		return -1;
	}
	if (f == NULL) {
		if (h->version == 11) {
			http_head_fail(h, 400, "missing Host");
			return -1;
		}
		return 0;
	}
	if (http_parse_authority(f->value, f->valuelen, 0, &hl, &port) == -1) {
		http_head_fail(h, 400, "invalid Host");
		return -1;
	}
	if (h->form == HTTP_FORM_ABSOLUTE || h->form == HTTP_FORM_AUTHORITY) {
		/* route and forward one authority, never two */
		if (h->authoritylen != f->valuelen ||
		    !http_ci_eq(h->authority, f->value, f->valuelen)) {
			http_head_fail(h, 400, "Host differs from the target");
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
		if (f->valuelen != 12 ||
		    !http_ci_eq(f->value, "100-continue", 12)) {
			http_head_fail(h, 417, "unsupported expectation");
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

void
http_head_finish(struct http_head *h)
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
		    http_ci_eq(h->fields[i].name, name, n))
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
