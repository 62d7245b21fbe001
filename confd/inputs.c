/*
 * What a reading of orchd.conf read, so that a reload with nothing
 * changed costs a few reads instead of a parse (issue 38).
 *
 * Every input of the parse is mixed, as it is read, into one digest
 * keyed by the parent's key (SipHash-2-4, common/siphash.c): the
 * reading's own settings and -D macros first, then each file's bytes
 * (orchd.conf, its includes, error pages, the acme files), each include
 * pattern's list of matches, each password file's users as parsed.  The
 * bytes mixed are the very bytes parsed: a file is read once, whole,
 * and parsed from memory, so that a file changed between the digest and
 * the parse cannot be.  Each such input is also a record (its kind and
 * path) that goes to the parent with the configuration.
 *
 * At a reload the parent sends the running configuration's records and
 * digest back: confd reads each again, in order, mixing the same way,
 * and when the digest is the running one answers SAME and parses
 * nothing.  Any difference, or a file that cannot be read, and it parses
 * as it always did, from the prelude on.
 *
 * Keyed, so that whoever can write a file the parse reads (a glob's
 * directory, a password file) but does not know the key, drawn by the
 * parent at its start and never sent beyond confd, cannot make changed
 * bytes digest as the old ones.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "confd.h"
#include "htpasswd.h"
#include "log.h"
#include "msg.h"
#include "siphash.h"

#define INPUT_FILE_MAX	(1024 * 1024 * 1024)	/* one file's bytes */

struct input {
	int32_t		 kind;
	int32_t		 flags;
	char		*path;
};

static struct {
	uint8_t		 key[SIPHASH_KEY_LEN];
	uint64_t	 digest;	/* so far */
	uint64_t	 prelude;	/* after the settings and macros */
	uint64_t	 running;	/* the parent's, to compare */
	int		 replay;	/* the parent asks for the comparison */
	int		 overflow;	/* more records than fit */
	struct input	 v[CONF_INPUTS_MAX];
	size_t		 n;
	struct input	 old[CONF_INPUTS_MAX];	/* the parent's */
	size_t		 nold, nexpect;
} in;

static void
inputs_free(struct input *v, size_t *n)
{
	size_t	 i;

	for (i = 0; i < *n; i++)
		free(v[i].path);
	*n = 0;
}

/* the parent's key, the running digest and how many records follow */
void
inputs_key(const struct conf_digest *cd)
{
	memcpy(in.key, cd->key, sizeof(in.key));
	in.running = cd->digest;
	in.replay = cd->replay != 0;
	if (cd->ninputs < 0 || cd->ninputs > CONF_INPUTS_MAX)
		fatalx("%s: %d records", __func__, cd->ninputs);
	in.nexpect = cd->ninputs;
}

/* a record of the running configuration's, from the parent */
void
inputs_take(const struct conf_input *ci)
{
	struct input	*o;

	if (in.nold >= in.nexpect || ci->kind <= 0 ||
	    ci->kind >= CONF_INPUT_MAX ||
	    memchr(ci->path, '\0', sizeof(ci->path)) == NULL)
		fatalx("%s: a record out of rule", __func__);
	o = &in.old[in.nold];
	o->kind = ci->kind;
	o->flags = ci->flags & CONF_INPUT_NOFOLLOW;
	if ((o->path = strdup(ci->path)) == NULL)
		fatal("%s", __func__);
	in.nold++;
}

/*
 * One input into the digest: the digest so far, the kind and flags, the
 * bytes' own digest and the path, digested again.  kind 0: a setting of
 * the reading itself, not a record.
 */
void
inputs_mix(int32_t kind, int32_t flags, const char *path, const void *bytes,
    size_t len)
{
	uint8_t		 buf[24 + CONF_STRING_MAX];
	uint64_t	 h;
	size_t		 plen = strlen(path);

	if (plen >= CONF_STRING_MAX) {
		in.overflow = 1;	/* the parent could not take it */
		plen = CONF_STRING_MAX - 1;
	}
	h = siphash24(in.key, bytes, len);
	memcpy(buf, &in.digest, 8);
	memcpy(buf + 8, &kind, 4);
	memcpy(buf + 12, &flags, 4);
	memcpy(buf + 16, &h, 8);
	memcpy(buf + 24, path, plen);
	in.digest = siphash24(in.key, buf, 24 + plen);
	if (kind == 0)
		return;
	if (in.n >= CONF_INPUTS_MAX) {
		in.overflow = 1;
		return;
	}
	in.v[in.n].kind = kind;
	in.v[in.n].flags = flags;
	if ((in.v[in.n].path = strdup(path)) == NULL)
		fatal("%s", __func__);
	in.n++;
}

/* the settings and macros mixed: where a parse's digest starts */
void
inputs_prelude_done(void)
{
	in.prelude = in.digest;
}

/* fd's bytes to its end, at most INPUT_FILE_MAX; 0 or -1 */
int
inputs_fd_read(int fd, uint8_t **bufp, size_t *lenp)
{
	struct stat	 st;
	uint8_t		*buf = NULL, *nb;
	size_t		 size, len = 0;
	ssize_t		 r;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		return (-1);
	size = st.st_size < INPUT_FILE_MAX ? (size_t)st.st_size + 1 : 4096;
	if ((buf = malloc(size)) == NULL)
		return (-1);
	for (;;) {
		/* it may have grown since the fstat: read to its end */
		if (len == size) {
			if (size >= INPUT_FILE_MAX) {
				errno = EFBIG;
				goto fail;
			}
			size = MINIMUM(size * 2, (size_t)INPUT_FILE_MAX);
			if ((nb = realloc(buf, size)) == NULL)
				goto fail;
			buf = nb;
		}
		if ((r = read(fd, buf + len, size - len)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += r;
	}
	*bufp = buf;
	*lenp = len;
	return (0);
 fail:
	free(buf);
	return (-1);
}

static int
replay_file(const struct input *o)
{
	uint8_t	*buf;
	size_t	 len;
	int	 fd, rv;

	if ((fd = open(o->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    ((o->flags & CONF_INPUT_NOFOLLOW) ? O_NOFOLLOW : 0))) == -1)
		return (-1);
	rv = inputs_fd_read(fd, &buf, &len);
	close(fd);
	if (rv == -1)
		return (-1);
	inputs_mix(o->kind, o->flags, o->path, buf, len);
	free(buf);
	return (0);
}

/* a pattern's matches, each with its NUL, as include_files() globs */
int
inputs_glob(const char *pattern, const glob_t *g)
{
	char	*buf;
	size_t	 i, n, len = 0;

	for (i = 0; i < g->gl_pathc; i++)
		len += strlen(g->gl_pathv[i]) + 1;
	if ((buf = malloc(len + 1)) == NULL)
		return (-1);
	for (i = 0, len = 0; i < g->gl_pathc; i++) {
		n = strlen(g->gl_pathv[i]) + 1;
		memcpy(buf + len, g->gl_pathv[i], n);
		len += n;
	}
	inputs_mix(CONF_INPUT_GLOB, 0, pattern, buf, len);
	free(buf);
	return (0);
}

static int
replay_glob(const struct input *o)
{
	glob_t	 g;
	int	 rc, rv;

	memset(&g, 0, sizeof(g));
	rc = glob(o->path, 0, NULL, &g);
	if (rc != 0 && rc != GLOB_NOMATCH) {
		globfree(&g);
		return (-1);
	}
	rv = inputs_glob(o->path, &g);
	globfree(&g);
	return (rv);
}

/* the users of a password file as parsed; the same for a replay */
void
inputs_htfile(const struct htfile *f)
{
	inputs_mix(CONF_INPUT_HTPASSWD, 0, f->path, f->users,
	    f->nusers * sizeof(f->users[0]));
}

static int
replay_htpasswd(const struct input *o)
{
	struct htfile	*f;
	char		 err[256];

	if ((f = htpasswd_read(o->path, err, sizeof(err))) == NULL)
		return (-1);
	inputs_htfile(f);
	htfile_free(f);
	return (0);
}

/*
 * The running configuration's inputs read again: 1 when the digest is
 * the running one's, else 0 with the digest back at the prelude for the
 * parse.
 */
int
inputs_same(void)
{
	const struct input	*o;
	size_t			 i;
	int			 rv = 0;

	if (!in.replay || in.nold != in.nexpect || in.nold == 0)
		goto parse;
	for (i = 0; i < in.nold; i++) {
		o = &in.old[i];
		if (o->kind == CONF_INPUT_GLOB)
			rv = replay_glob(o);
		else if (o->kind == CONF_INPUT_HTPASSWD)
			rv = replay_htpasswd(o);
		else
			rv = replay_file(o);
		if (rv == -1)
			break;
	}
	if (rv == 0 && !in.overflow && in.digest == in.running) {
		log_debug("inputs: %zu read again, none changed", in.nold);
		return (1);
	}
	log_debug("inputs: changed, parsing");
 parse:
	inputs_free(in.v, &in.n);
	inputs_free(in.old, &in.nold);
	in.overflow = 0;
	in.digest = in.prelude;
	return (0);
}

/* after a parse: the digest and the count of records, for the parent */
void
inputs_result(struct conf_digest *cd)
{
	memset(cd, 0, sizeof(*cd));
	cd->digest = in.digest;
	cd->replay = !in.overflow;
	cd->ninputs = in.overflow ? 0 : in.n;
	explicit_bzero(in.key, sizeof(in.key));
}

/* record i of those counted, as sent */
void
inputs_record(size_t i, struct conf_input *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (i >= in.n)
		fatalx("%s: record %zu of %zu", __func__, i, in.n);
	ci->kind = in.v[i].kind;
	ci->flags = in.v[i].flags;
	(void)strlcpy(ci->path, in.v[i].path, sizeof(ci->path));
}
