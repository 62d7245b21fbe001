/*
 * A reload with nothing changed (issue 38): what the running
 * configuration's parse read, kept for the next reading of orchd.conf.
 *
 * confd (confd/inputs.c) digests every input of its parse with a key
 * drawn here at our start, and sends, with the configuration, the digest
 * and one record per input (a file, an include pattern, a password
 * file).  They are "taken" while the reading lasts, and become the
 * running ones only when that configuration does (confsame_commit(),
 * at start and when a reload is accepted): a reload refused later
 * leaves the running ones as they were.  The next reload sends them
 * back, with the key, and confd answers SAME when what it reads digests
 * the same: the parent then sends no child a configuration (only the
 * reload's status, as for any reload).
 *
 * The files that the parent reads itself, as root, at every reload are
 * not confd's to see: TLS certificates and keys, the API, status and
 * notify key files, the registry auth file, a swarm manager's
 * credentials.  Their loaders digest here, with the same key, the bytes
 * they took (confsame_parent_read()); when confd answers SAME, each is
 * read again and digested (confsame_parent_same()), and one changed (a
 * renewed certificate) makes the reload read everything, as before.
 *
 * The records are checked as any child's message: a known kind, a path
 * terminated within its field, no more than announced.  They only name
 * what confd reads again; confd trusts nothing here either.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "siphash.h"

/* a record kept small: its path alone allocated, sent as a conf_input */
struct input {
	int32_t			 kind;
	int32_t			 flags;
	char			*path;
};

struct inset {
	struct input		*v;
	size_t			 n, want;
	uint64_t		 digest;
	int			 usable;	/* a digest and its records */
};

static void	inset_clear(struct inset *);

/* a file the parent read: its path, the digest of its bytes */
struct pfile {
	char		*path;
	uint64_t	 digest;
	mode_t		 ltype;		/* the path's own type: a link? */
};
#define PFILES_MAX	1024	/* more: no fast path */
#define PFILE_MAX	(4 * 1024 * 1024)	/* larger than any loader's */

struct pset {
	struct pfile	 v[PFILES_MAX];
	size_t		 n;
	int		 overflow;
};

static uint8_t		 key[SIPHASH_KEY_LEN];	/* confd's too */
static uint8_t		 pkey[SIPHASH_KEY_LEN];	/* the parent's own files */
static int		 keyed;
static struct inset	 running, taken;
static struct pset	*prun, *ptaken;

static void
key_draw(void)
{
	if (!keyed) {
		arc4random_buf(key, sizeof(key));
		/* secrets' digests: a key confd never sees */
		arc4random_buf(pkey, sizeof(pkey));
		keyed = 1;
	}
}

static void
pset_free(struct pset *p)
{
	size_t	 i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p);
}

/*
 * The bytes' digest with what the loaders check besides them: the type,
 * mode and owner of the file (a key file made readable by others must
 * be refused at the next reload as at a whole one), and whether the
 * path itself is a link.  -1 if the path cannot be looked at.
 */
static int
pfile_mix(const char *path, const struct stat *st, uint64_t bytes_digest,
    uint64_t *d)
{
	struct stat	 lst;
	uint64_t	 v[5];

	if (lstat(path, &lst) == -1)
		return (-1);
	v[0] = bytes_digest;
	v[1] = st->st_mode;
	v[2] = st->st_uid;
	v[3] = st->st_gid;
	v[4] = lst.st_mode & S_IFMT;
	*d = siphash24(pkey, v, sizeof(v));
	return (0);
}

/* a loader of the parent's read path's bytes for the configuration */
void
confsame_parent_read(const char *path, const void *bytes, size_t len)
{
	struct stat	 st, lst;
	struct pfile	*pf;

	key_draw();
	if (ptaken == NULL && (ptaken = calloc(1, sizeof(*ptaken))) == NULL)
		fatal("%s", __func__);
	if (ptaken->n >= PFILES_MAX) {
		ptaken->overflow = 1;
		return;
	}
	pf = &ptaken->v[ptaken->n];
	/* the file as the loader found it, or no fast path */
	if (stat(path, &st) == -1 || lstat(path, &lst) == -1 ||
	    pfile_mix(path, &st, siphash24(pkey, bytes, len), &pf->digest) ==
	    -1) {
		ptaken->overflow = 1;
		return;
	}
	if ((pf->path = strdup(path)) == NULL)
		fatal("%s", __func__);
	pf->ltype = lst.st_mode & S_IFMT;
	ptaken->n++;
}

/*
 * pf's file now, digested as when it was read; -1 when it cannot be read
 * whole, or is no longer what it was (then the reload reads all, and
 * the loaders say why).  Opened as its loader did: a path that was no
 * link is not followed now (O_NOFOLLOW), and nothing but a regular file
 * is opened at all, so a path swapped for a device or a FIFO is not.
 * The buffer is the file's size, read to the end.
 */
static int
pfile_digest(const struct pfile *pf, uint64_t *d)
{
	struct stat	 lst, st;
	uint8_t		*buf;
	size_t		 len = 0, size;
	ssize_t		 n = 0;
	int		 fd, flags, rv = -1;

	if (lstat(pf->path, &lst) == -1 ||
	    (lst.st_mode & S_IFMT) != pf->ltype ||
	    (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode)))
		return (-1);
	flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	if (pf->ltype == S_IFREG)
		flags |= O_NOFOLLOW;
	if ((fd = open(pf->path, flags)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size < 0 || st.st_size > PFILE_MAX ||
	    (buf = malloc((size = st.st_size) + 1)) == NULL) {
		close(fd);
		return (-1);
	}
	/* one byte more than its size: a file grown since is changed */
	while (len <= size) {
		if ((n = read(fd, buf + len, size + 1 - len)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	if (n == 0 && len == size)
		rv = pfile_mix(pf->path, &st, siphash24(pkey, buf, len), d);
	freezero(buf, size + 1);
	close(fd);
	return (rv);
}

/* every file the parent read for the running configuration, unchanged */
int
confsame_parent_same(void)
{
	uint64_t	 d;
	size_t		 i;

	if (prun == NULL)
		return (1);
	if (prun->overflow)
		return (0);
	for (i = 0; i < prun->n; i++)
		if (pfile_digest(&prun->v[i], &d) == -1 ||
		    d != prun->v[i].digest) {
			log_info("reload: %s changed", prun->v[i].path);
			return (0);
		}
	return (1);
}

/* the running inputs forgotten: the next reading is a whole one */
void
confsame_forget(void)
{
	inset_clear(&running);
}

static void
inset_clear(struct inset *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* a record kept, in the fixed form confd takes */
static int
input_send(struct imsgbuf *ibuf, const struct input *in)
{
	struct conf_input	*ci;
	int			 rv;

	if ((ci = calloc(1, sizeof(*ci))) == NULL)
		fatal("%s", __func__);
	ci->kind = in->kind;
	ci->flags = in->flags;
	(void)strlcpy(ci->path, in->path, sizeof(ci->path));
	rv = imsg_compose(ibuf, IMSG_CONF_INPUT, 0, 0, -1, ci, sizeof(*ci));
	free(ci);
	return (rv);
}

/*
 * Before the macros: the key, and for a reload of running, whose inputs
 * we keep, the digest and the records to read again.  1 when they are
 * sent (confd may answer SAME), 0 when not, -1 when the channel failed.
 */
int
confsame_ask(struct imsgbuf *ibuf, const struct orchd_conf *running_conf)
{
	struct conf_digest	 cd;
	size_t			 i;
	int			 replay;

	key_draw();
	inset_clear(&taken);
	pset_free(ptaken);
	ptaken = NULL;
	replay = running_conf != NULL && running.usable && running.n > 0;
	memset(&cd, 0, sizeof(cd));
	memcpy(cd.key, key, sizeof(cd.key));
	if (replay) {
		cd.digest = running.digest;
		cd.replay = 1;
		cd.ninputs = running.n;
	}
	if (imsg_compose(ibuf, IMSG_CONF_DIGEST, 0, 0, -1, &cd,
	    sizeof(cd)) == -1) {
		explicit_bzero(&cd, sizeof(cd));
		return (-1);
	}
	explicit_bzero(&cd, sizeof(cd));
	for (i = 0; replay && i < running.n; i++)
		if (input_send(ibuf, &running.v[i]) == -1)
			return (-1);
	return (replay);
}

/* confd's digest of its parse; NULL, or why it is out of rule */
const char *
confsame_take_digest(const struct conf_digest *cd)
{
	inset_clear(&taken);
	if (cd->ninputs < 0 || cd->ninputs > CONF_INPUTS_MAX ||
	    (cd->replay != 0 && cd->replay != 1))
		return ("inputs' digest out of range");
	taken.want = cd->ninputs;
	taken.digest = cd->digest;
	taken.usable = cd->replay;
	if (taken.want > 0 &&
	    (taken.v = calloc(taken.want, sizeof(*taken.v))) == NULL)
		fatal("%s", __func__);
	return (NULL);
}

/* one record of the inputs; NULL, or why it is out of rule */
const char *
confsame_take_input(const struct conf_input *ci)
{
	if (taken.n >= taken.want)
		return ("more inputs than announced");
	if (ci->kind <= 0 || ci->kind >= CONF_INPUT_MAX ||
	    (ci->flags & ~CONF_INPUT_NOFOLLOW) != 0)
		return ("an input of no known kind");
	if (memchr(ci->path, '\0', sizeof(ci->path)) == NULL ||
	    ci->path[0] == '\0')
		return ("an input's path unterminated");
	taken.v[taken.n].kind = ci->kind;
	taken.v[taken.n].flags = ci->flags;
	if ((taken.v[taken.n].path = strdup(ci->path)) == NULL)
		fatal("%s", __func__);
	taken.n++;
	return (NULL);
}

/*
 * The configuration read is running now: its inputs are the ones kept,
 * unless as_file is 0 (what runs is not all the file's: a setting kept
 * until a restart), when none are and the next reload reads it whole.
 */
void
confsame_commit(int as_file)
{
	inset_clear(&running);
	if (as_file && taken.usable && taken.n == taken.want && taken.n > 0)
		running = taken;
	else
		inset_clear(&taken);
	memset(&taken, 0, sizeof(taken));
	pset_free(prun);
	prun = ptaken;
	ptaken = NULL;
}
