/*
 * A ClientHello's server_name and ALPN, from the bytes a TLS listener
 * peeks before the handshake (tlshello.c), to choose the host's context
 * or hold the connection for its certificate.  RFC 8446 4.1.2 and 4.2,
 * RFC 6066 3 (server_name), RFC 7301 3.1 (ALPN).
 *
 * Only the first record is read, and the ClientHello must fit in it: a
 * client sends it whole in one (16 KiB), and a record is all the gateway
 * peeks.  Every length is checked against the one that holds it, to the
 * byte; anything else is CH_BAD, and the connection is closed.  A name
 * is taken only as a DNS name (letters, digits, '-', '.'), lowered; an
 * IP address or a byte out of that set is refused, never routed.
 */

#include <string.h>

#include "clienthello.h"

#define TLS_HANDSHAKE		22
#define TLS_CLIENT_HELLO	1
#define EXT_SERVER_NAME		0
#define EXT_ALPN		16
#define SNI_HOST_NAME		0

/* a reader over bytes that are all present: no read goes past end */
struct ch_buf {
	const uint8_t	*p;
	size_t		 left;
};

static int
get8(struct ch_buf *b, size_t *v)
{
	if (b->left < 1)
		return (-1);
	*v = b->p[0];
	b->p++;
	b->left--;
	return (0);
}

static int
get16(struct ch_buf *b, size_t *v)
{
	if (b->left < 2)
		return (-1);
	*v = (size_t)b->p[0] << 8 | b->p[1];
	b->p += 2;
	b->left -= 2;
	return (0);
}

/* the next len bytes, as a reader of their own */
static int
sub(struct ch_buf *b, size_t len, struct ch_buf *s)
{
	if (b->left < len)
		return (-1);
	s->p = b->p;
	s->left = len;
	b->p += len;
	b->left -= len;
	return (0);
}

static int
skip(struct ch_buf *b, size_t len)
{
	struct ch_buf	 s;

	return (sub(b, len, &s));
}

/* a vector with a length of lenbytes bytes in front */
static int
vec(struct ch_buf *b, int lenbytes, struct ch_buf *s)
{
	size_t	 len;

	if ((lenbytes == 1 ? get8(b, &len) : get16(b, &len)) == -1)
		return (-1);
	return (sub(b, len, s));
}

/*
 * A DNS name, lowered into ch->name, without a trailing dot: the key
 * the route table and the certificates' table (acme_name) use, so that
 * "host." finds the certificate "host" has.  An IP literal has no letter.
 */
static int
sni_name(const uint8_t *p, size_t len, struct clienthello *ch)
{
	size_t	 i;
	int	 alpha = 0;
	char	 c;

	if (len > 0 && p[len - 1] == '.')
		len--;
	if (len == 0 || len >= sizeof(ch->name))
		return (-1);
	for (i = 0; i < len; i++) {
		c = (char)p[i];
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c >= 'a' && c <= 'z')
			alpha = 1;
		else if (!(c >= '0' && c <= '9') && c != '-' && c != '.')
			return (-1);
		ch->name[i] = c;
	}
	ch->name[len] = '\0';
	return (alpha ? 0 : -1);
}

/* RFC 6066 3: a list holding one host_name, taken */
static int
ext_server_name(struct ch_buf *e, struct clienthello *ch)
{
	struct ch_buf	 list, name;
	size_t		 type;

	if (ch->name[0] != '\0' || vec(e, 2, &list) == -1 || e->left != 0)
		return (-1);
	while (list.left > 0) {
		if (get8(&list, &type) == -1 || vec(&list, 2, &name) == -1)
			return (-1);
		if (type != SNI_HOST_NAME)
			continue;
		if (ch->name[0] != '\0' ||
		    sni_name(name.p, name.left, ch) == -1)
			return (-1);
	}
	return (0);
}

/* RFC 7301 3.1: protocol names, none empty */
static int
ext_alpn(struct ch_buf *e, struct clienthello *ch)
{
	static const char	 acme[] = "acme-tls/1";
	struct ch_buf		 list, proto;

	if (ch->alpn || vec(e, 2, &list) == -1 || e->left != 0 ||
	    list.left == 0)
		return (-1);
	ch->alpn = 1;
	while (list.left > 0) {
		if (vec(&list, 1, &proto) == -1 || proto.left == 0)
			return (-1);
		if (proto.left == sizeof(acme) - 1 &&
		    memcmp(proto.p, acme, proto.left) == 0)
			ch->alpn_acme = 1;
	}
	return (0);
}

static int
extensions(struct ch_buf *b, struct clienthello *ch)
{
	struct ch_buf	 all, e;
	size_t		 type;

	if (b->left == 0)
		return (0);		/* none at all: TLS 1.2 allows it */
	if (vec(b, 2, &all) == -1 || b->left != 0)
		return (-1);
	while (all.left > 0) {
		if (get16(&all, &type) == -1 || vec(&all, 2, &e) == -1)
			return (-1);
		if (type == EXT_SERVER_NAME && ext_server_name(&e, ch) == -1)
			return (-1);
		if (type == EXT_ALPN && ext_alpn(&e, ch) == -1)
			return (-1);
	}
	return (0);
}

/* the handshake message's body, after its type and length */
static int
hello_body(struct ch_buf *b, struct clienthello *ch)
{
	struct ch_buf	 v;
	size_t		 major, minor;

	if (get8(b, &major) == -1 || get8(b, &minor) == -1 || major != 3 ||
	    skip(b, 32) == -1)				/* random */
		return (-1);
	if (vec(b, 1, &v) == -1 || v.left > 32)		/* session id */
		return (-1);
	if (vec(b, 2, &v) == -1 || v.left < 2 || v.left % 2 != 0)
		return (-1);				/* cipher suites */
	if (vec(b, 1, &v) == -1 || v.left < 1)		/* compression */
		return (-1);
	return (extensions(b, ch));
}

enum ch_result
clienthello_parse(const uint8_t *buf, size_t len, struct clienthello *ch)
{
	struct ch_buf	 b, rec, msg;
	size_t		 type, rlen, hlen;

	memset(ch, 0, sizeof(*ch));
	/* what can be refused from the first bytes is refused at once */
	if ((len >= 1 && buf[0] != TLS_HANDSHAKE) || (len >= 2 && buf[1] != 3))
		return (CH_BAD);
	if (len < 5)
		return (CH_MORE);
	rlen = (size_t)buf[3] << 8 | buf[4];
	if (rlen < 4 || rlen > CH_RECORD_MAX - 5)
		return (CH_BAD);
	if (len >= 6 && buf[5] != TLS_CLIENT_HELLO)
		return (CH_BAD);
	if (len >= 9) {
		hlen = (size_t)buf[6] << 16 | (size_t)buf[7] << 8 | buf[8];
		if (hlen + 4 > rlen)
			return (CH_BAD);	/* spans records: not taken */
	}
	if (len < 5 + rlen)
		return (CH_MORE);
	b.p = buf + 5;
	b.left = len - 5;
	if (sub(&b, rlen, &rec) == -1 || get8(&rec, &type) == -1 ||
	    skip(&rec, 3) == -1)
		return (CH_BAD);
	hlen = (size_t)buf[6] << 16 | (size_t)buf[7] << 8 | buf[8];
	if (sub(&rec, hlen, &msg) == -1 || hello_body(&msg, ch) == -1) {
		memset(ch, 0, sizeof(*ch));
		return (CH_BAD);
	}
	return (CH_OK);
}
