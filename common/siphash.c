/*
 * SipHash-2-4, as Aumasson and Bernstein define it: a keyed digest for
 * deciding that two definitions are the same when one of them may come
 * from someone who would like them taken as the same (the parent's
 * configuration deltas, orchd/config_delta.c).  An unkeyed digest such as
 * workload_wire_bytes_digest() can be steered by whoever chooses the
 * bytes; this one cannot without the key, which never leaves the
 * process that drew it.
 */

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "siphash.h"

#define ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

struct sipstate {
	uint64_t	 v0, v1, v2, v3;
};

static void
sipround(struct sipstate *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

/* n bytes of p, little-endian, n at most 8 */
static uint64_t
le64(const uint8_t *p, size_t n)
{
	uint64_t	 w = 0;
	size_t		 i;

	if (n == sizeof(w)) {
		memcpy(&w, p, sizeof(w));
		return (le64toh(w));
	}
	for (i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return (w);
}

static void
sipcompress(struct sipstate *s, uint64_t m)
{
	s->v3 ^= m;
	sipround(s);
	sipround(s);
	s->v0 ^= m;
}

uint64_t
siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len)
{
	const uint8_t	*p = data;
	struct sipstate	 s;
	uint64_t	 k0, k1;
	size_t		 i, whole = len - len % 8;

	k0 = le64(key, 8);
	k1 = le64(key + 8, 8);
	s.v0 = k0 ^ 0x736f6d6570736575ULL;
	s.v1 = k1 ^ 0x646f72616e646f6dULL;
	s.v2 = k0 ^ 0x6c7967656e657261ULL;
	s.v3 = k1 ^ 0x7465646279746573ULL;
	for (i = 0; i < whole; i += 8)
		sipcompress(&s, le64(p + i, 8));
	sipcompress(&s, ((uint64_t)len << 56) | le64(p + whole, len % 8));
	s.v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		sipround(&s);
	return (s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
}
