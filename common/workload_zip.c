/*
 * A workload's definition kept small, for a process that reads it
 * seldom.  struct workload_conf is some 700 bytes of which a typical
 * definition sets a handful; a process that holds one for each of
 * 100,000 sleeping workloads and reads it only to answer the API holds
 * it in this form instead: its wire form (workload_wire.c, which a field
 * added to the table follows without a word), the header's bytes XORed
 * with those of a definition that sets nothing, so that what is not
 * given is zeros, and every run of zeros then cut to one byte.
 *
 * The form is private to the process that made it: it is never sent,
 * nor read from anyone else.  workload_unzip() checks every length all
 * the same, as the wire reader does, and gives back a packed definition.
 *
 * Tokens: a byte t below 0x80 is followed by t + 1 bytes as they are; a
 * byte t from 0x80 up stands for t - 0x7f zeros (1 to 128).
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "workload_zip.h"

#define ZIP_LIT_MAX	128	/* bytes in one literal token */
#define ZIP_RUN_MAX	128	/* zeros in one run token */
#define ZIP_RUN_MIN	3	/* shorter runs stay in a literal */

/* its form: the wire form's length, then the tokens */
struct wl_zip {
	uint32_t	 wirelen;
	uint32_t	 ziplen;
	unsigned char	 tok[];
};

/* the header of a definition that sets nothing, as the wire has it */
static const unsigned char *
zip_ref(void)
{
	static unsigned char	*ref;
	struct workload_conf	*wc;
	size_t			 len;

	if (ref != NULL)
		return (ref);
	if ((wc = workload_new("")) == NULL)
		return (NULL);
	ref = workload_wire(wc, &len);
	workload_free(wc);
	if (ref != NULL && len < sizeof(struct workload_conf)) {
		free(ref);
		ref = NULL;
	}
	return (ref);
}

/* the header's bytes against the reference's, both ways: 8 at a time */
static void
zip_xor(unsigned char *p, const unsigned char *ref)
{
	uint64_t	 a, b;
	size_t		 i;

	for (i = 0; i + sizeof(a) <= sizeof(struct workload_conf);
	    i += sizeof(a)) {
		memcpy(&a, p + i, sizeof(a));
		memcpy(&b, ref + i, sizeof(b));
		a ^= b;
		memcpy(p + i, &a, sizeof(a));
	}
	for (; i < sizeof(struct workload_conf); i++)
		p[i] ^= ref[i];
}

/* the zeros at p, up to a run token's: 8 at a time, for most are */
static size_t
zero_run(const unsigned char *p, size_t left)
{
	size_t		 n = 0, max = left < ZIP_RUN_MAX ? left : ZIP_RUN_MAX;
	uint64_t	 w;

	while (n + sizeof(w) <= max) {
		memcpy(&w, p + n, sizeof(w));
		if (w != 0)
			break;
		n += sizeof(w);
	}
	while (n < max && p[n] == 0)
		n++;
	return (n);
}

/* p's len bytes as tokens into out, which holds 2 * len + 1 at least */
static size_t
zip_tokens(const unsigned char *p, size_t len, unsigned char *out)
{
	size_t	 i = 0, o = 0, lit = 0, run;

	while (i < len) {
		run = zero_run(p + i, len - i);
		if (run >= ZIP_RUN_MIN || (run > 0 && run == len - i)) {
			out[o++] = 0x7f + run;
			i += run;
			continue;
		}
		/* a literal: up to the next long run of zeros */
		lit = 0;
		while (i + lit < len && lit < ZIP_LIT_MAX &&
		    (p[i + lit] != 0 || zero_run(p + i + lit,
		    len - i - lit) < ZIP_RUN_MIN))
			lit++;
		if (lit == 0)
			lit = 1;
		out[o++] = lit - 1;
		memcpy(out + o, p + i, lit);
		o += lit;
		i += lit;
	}
	return (o);
}

struct wl_zip *
workload_zip(const struct workload_conf *wc)
{
	struct wl_zip	*z;
	void		*wire;
	size_t		 len;

	if ((wire = workload_wire(wc, &len)) == NULL)
		return (NULL);
	z = workload_zip_bytes(wire, len);
	free(wire);
	return (z);
}

/* the same, of a wire form workload_wire() made (not checked again) */
struct wl_zip *
workload_zip_bytes(const void *def, size_t len)
{
	const unsigned char	*ref;
	unsigned char		*wire, *tok;
	struct wl_zip		*z = NULL;
	size_t			 n;

	if (len < sizeof(struct workload_conf) || len > UINT32_MAX ||
	    (ref = zip_ref()) == NULL || (wire = malloc(len)) == NULL)
		return (NULL);
	memcpy(wire, def, len);
	zip_xor(wire, ref);
	if ((tok = malloc(2 * len + 1)) == NULL)
		goto done;
	n = zip_tokens(wire, len, tok);
	if ((z = malloc(sizeof(*z) + n)) != NULL) {
		z->wirelen = len;
		z->ziplen = n;
		memcpy(z->tok, tok, n);
	}
	free(tok);
 done:
	free(wire);
	return (z);
}

/* z's tokens back into out, exactly z->wirelen bytes: 0, or -1 */
static int
unzip_tokens(const struct wl_zip *z, unsigned char *out)
{
	size_t		 i = 0, o = 0, n;
	unsigned char	 t;

	while (i < z->ziplen) {
		t = z->tok[i++];
		if (t >= 0x80) {
			n = t - 0x7f;
			if (n > z->wirelen - o)
				return (-1);
			memset(out + o, 0, n);
		} else {
			n = (size_t)t + 1;
			if (n > z->wirelen - o || n > z->ziplen - i)
				return (-1);
			memcpy(out + o, z->tok + i, n);
			i += n;
		}
		o += n;
	}
	return (o == z->wirelen ? 0 : -1);
}

/* z's wire form again, as workload_wire() made it (free()); or NULL */
void *
workload_zip_wire(const struct wl_zip *z, size_t *lenp)
{
	const unsigned char	*ref;
	unsigned char		*wire;

	if (z == NULL || (ref = zip_ref()) == NULL ||
	    z->wirelen < sizeof(struct workload_conf) ||
	    (wire = malloc(z->wirelen)) == NULL)
		return (NULL);
	if (unzip_tokens(z, wire) == -1) {
		free(wire);
		return (NULL);
	}
	zip_xor(wire, ref);
	*lenp = z->wirelen;
	return (wire);
}

struct workload_conf *
workload_unzip(const struct wl_zip *z)
{
	unsigned char		*wire;
	struct workload_conf	*wc, *p = NULL;
	size_t			 len;
	char			 err[128];

	if ((wire = workload_zip_wire(z, &len)) == NULL)
		return (NULL);
	if ((wc = workload_unwire(wire, len, err, sizeof(err))) != NULL) {
		p = workload_pack(wc);
		workload_free(wc);
	}
	free(wire);
	return (p);
}

/* a list of definitions at rest, emptied */
void
workload_rest_free(struct wl_restlist *l)
{
	struct wl_rest	*r;

	while ((r = TAILQ_FIRST(l)) != NULL) {
		TAILQ_REMOVE(l, r, entry);
		free(r);
	}
}

/* its bytes, for the tests and the memory's accounts */
size_t
workload_zip_size(const struct wl_zip *z)
{
	return (z != NULL ? sizeof(*z) + z->ziplen : 0);
}
