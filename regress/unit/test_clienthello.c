/*
 * gatewayd/clienthello.c: the server_name and ALPN of a ClientHello, as
 * the TLS listener peeks it before the handshake.  Hellos are built here
 * field by field, then broken one way at a time: every prefix of a good
 * one asks for more, every length that lies is refused.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../gatewayd/clienthello.h"

struct hb {
	uint8_t		 b[CH_RECORD_MAX + 64];
	size_t		 len;
};

static void
put8(struct hb *h, size_t v)
{
	h->b[h->len++] = v & 0xff;
}

static void
put16(struct hb *h, size_t v)
{
	put8(h, v >> 8);
	put8(h, v);
}

static void
putn(struct hb *h, const void *p, size_t n)
{
	memcpy(h->b + h->len, p, n);
	h->len += n;
}

/* a 16-bit length at off, of what follows it up to the end */
static void
fix16(struct hb *h, size_t off)
{
	size_t	 n = h->len - off - 2;

	h->b[off] = n >> 8;
	h->b[off + 1] = n & 0xff;
}

struct hello_opts {
	const char	*names[3];	/* host_names in server_name */
	int		 nsni;		/* server_name extensions */
	const char	*alpn[3];
	int		 noext;		/* no extensions at all */
	size_t		 sidlen;
	int		 pad;		/* an unknown extension of pad bytes */
};

/* record, handshake header, body: a ClientHello as a client sends it */
static void
build(struct hb *h, const struct hello_opts *o)
{
	uint8_t		 zero[64];
	size_t		 rec, hs, ext, sn, list, i, k;

	memset(zero, 0, sizeof(zero));
	h->len = 0;
	put8(h, 22);
	put16(h, 0x0301);
	rec = h->len;
	put16(h, 0);
	put8(h, 1);
	hs = h->len;
	put8(h, 0);
	put16(h, 0);
	put16(h, 0x0303);
	putn(h, zero, 32);			/* random */
	put8(h, o->sidlen);
	putn(h, zero, o->sidlen);
	put16(h, 4);
	put16(h, 0x1301);
	put16(h, 0xc02b);
	put8(h, 1);
	put8(h, 0);
	if (!o->noext) {
		ext = h->len;
		put16(h, 0);
		for (k = 0; k < (size_t)o->nsni; k++) {
			put16(h, 0);		/* server_name */
			sn = h->len;
			put16(h, 0);
			list = h->len;
			put16(h, 0);
			for (i = 0; i < 3 && o->names[i] != NULL; i++) {
				put8(h, 0);
				put16(h, strlen(o->names[i]));
				putn(h, o->names[i], strlen(o->names[i]));
			}
			fix16(h, list);
			fix16(h, sn);
		}
		if (o->alpn[0] != NULL) {
			put16(h, 16);
			sn = h->len;
			put16(h, 0);
			list = h->len;
			put16(h, 0);
			for (i = 0; i < 3 && o->alpn[i] != NULL; i++) {
				put8(h, strlen(o->alpn[i]));
				putn(h, o->alpn[i], strlen(o->alpn[i]));
			}
			fix16(h, list);
			fix16(h, sn);
		}
		if (o->pad > 0) {
			put16(h, 21);
			put16(h, o->pad);
			for (i = 0; i < (size_t)o->pad; i++)
				put8(h, 0);
		}
		fix16(h, ext);
	}
	fix16(h, rec);
	k = h->len - hs - 3;
	h->b[hs] = k >> 16;
	h->b[hs + 1] = (k >> 8) & 0xff;
	h->b[hs + 2] = k & 0xff;
}

static struct hb		 hb;
static struct clienthello	 ch;

static enum ch_result
parse(void)
{
	return (clienthello_parse(hb.b, hb.len, &ch));
}

static void
test_name_alpn(void **state)
{
	struct hello_opts	 o = { { "Preview-1.Example.COM" }, 1,
				    { "h2", "http/1.1" }, 0, 32, 0 };

	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_string_equal(ch.name, "preview-1.example.com");
	assert_true(ch.alpn);
	assert_false(ch.alpn_acme);
}

static void
test_acme_alpn(void **state)
{
	struct hello_opts	 o = { { "a.test" }, 1, { "acme-tls/1" }, 0,
				    0, 0 };

	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_string_equal(ch.name, "a.test");
	assert_true(ch.alpn_acme);
	/* a fully qualified name is keyed as the tables key it */
	o.names[0] = "A.Test.";
	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_string_equal(ch.name, "a.test");
	o.names[0] = "a.test";
	/* a name that only starts like it is another protocol */
	o.alpn[0] = "acme-tls/10";
	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_false(ch.alpn_acme);
}

static void
test_none(void **state)
{
	struct hello_opts	 o = { { NULL }, 0, { NULL }, 1, 0, 0 };

	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_string_equal(ch.name, "");
	o.noext = 0;
	o.pad = 100;
	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	assert_string_equal(ch.name, "");
	assert_false(ch.alpn);
}

/* every prefix of a good one asks for more, and sets no name */
static void
test_prefixes(void **state)
{
	struct hello_opts	 o = { { "a.test" }, 1, { "h2" }, 0, 32, 300 };
	size_t			 full, n;

	build(&hb, &o);
	full = hb.len;
	for (n = 0; n < full; n++) {
		hb.len = n;
		assert_int_equal(parse(), CH_MORE);
		assert_string_equal(ch.name, "");
	}
	hb.len = full;
	assert_int_equal(parse(), CH_OK);
}

/* refused from the first bytes, before the whole record is in */
static void
test_early(void **state)
{
	static const uint8_t	 http[] = "GET / HTTP/1.1\r\n";
	static const uint8_t	 v2[] = { 22, 2 };
	static const uint8_t	 big[] = { 22, 3, 1, 0x40, 0x01 };
	static const uint8_t	 small[] = { 22, 3, 1, 0, 3 };
	static const uint8_t	 sh[] = { 22, 3, 1, 0, 50, 2 };
	static const uint8_t	 span[] = { 22, 3, 1, 0, 50, 1, 0, 0, 47 };

	assert_int_equal(clienthello_parse(http, 1, &ch), CH_BAD);
	assert_int_equal(clienthello_parse(v2, 2, &ch), CH_BAD);
	assert_int_equal(clienthello_parse(big, 5, &ch), CH_BAD);
	assert_int_equal(clienthello_parse(small, 5, &ch), CH_BAD);
	assert_int_equal(clienthello_parse(sh, 6, &ch), CH_BAD);
	/* a hello longer than its record: it would span records */
	assert_int_equal(clienthello_parse(span, 9, &ch), CH_BAD);
}

static void
bad(struct hello_opts *o)
{
	build(&hb, o);
	assert_int_equal(parse(), CH_BAD);
	assert_string_equal(ch.name, "");
}

static void
test_bad_names(void **state)
{
	struct hello_opts	 o = { { "127.0.0.1" }, 1, { NULL }, 0, 0, 0 };
	char			 longname[300];

	bad(&o);
	o.names[0] = "a_b.test";
	bad(&o);
	o.names[0] = "a.test\r\nX: y";
	bad(&o);
	o.names[0] = "";
	bad(&o);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	o.names[0] = longname;
	bad(&o);
	longname[CH_NAME_MAX - 1] = '\0';	/* 255: the longest taken */
	build(&hb, &o);
	assert_int_equal(parse(), CH_OK);
	longname[CH_NAME_MAX - 1] = 'a';
	longname[CH_NAME_MAX] = '\0';		/* 256 */
	bad(&o);
	/* two names in the list, or two extensions */
	o.names[0] = "a.test";
	o.names[1] = "b.test";
	bad(&o);
	o.names[1] = NULL;
	o.nsni = 2;
	bad(&o);
}

static void
test_bad_lengths(void **state)
{
	struct hello_opts	 o = { { "a.test" }, 1, { "h2" }, 0, 0, 0 };
	size_t			 i;

	o.sidlen = 33;
	bad(&o);
	o.sidlen = 0;
	o.alpn[0] = "";
	bad(&o);
	o.alpn[0] = "h2";
	/* one byte more than the record says, in each length field */
	build(&hb, &o);
	for (i = 5; i < hb.len; i++) {
		struct hb	 save = hb;

		hb.b[i] ^= 0x80;
		(void)parse();	/* whatever it says, it reads in bounds */
		hb = save;
	}
	/* bytes after the extensions, inside the hello */
	build(&hb, &o);
	hb.b[hb.len++] = 0;
	hb.b[4]++;
	hb.b[8]++;
	assert_int_equal(parse(), CH_BAD);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_alpn),
		cmocka_unit_test(test_acme_alpn),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_early),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_bad_lengths),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
