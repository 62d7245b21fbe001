/*
 * A parsed HTTP/1.1 head written out again (http.h): the gateway never
 * forwards the bytes it read, only what it parsed, with the changes the
 * caller asks for (a new target, hop-by-hop fields dropped, fields
 * added) and the framing the parse decided.
 */

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "http_local.h"

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
		if (n == 0 ||
		    http_run(ser->target, ser->target + n, C_TARGET) != n)
			o->bad = 1;
		put(o, ser->target, n);
	} else if (ser != NULL && ser->strip > 0 &&
	    ser->strip <= h->pathlen) {
		/* "/api/x" is "/x"; "/api" and "/api?q" "/" and "/?q" */
		n = h->pathlen - ser->strip;
		if (n == 0 || h->path[ser->strip] != '/')
			put(o, "/", 1);
		put(o, h->path + ser->strip, n);
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
	if (nl == 0 || http_run(f->name, f->name + nl, C_TCHAR) != nl ||
	    http_run(f->value, f->value + vl, C_VALUE) != vl) {
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
