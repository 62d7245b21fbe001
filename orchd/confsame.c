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
 * the same: the parent then sends no child anything.
 *
 * Not offered (a full reading instead) when the running configuration
 * names files that the parent reads itself, as root, at every reload:
 * TLS certificates and keys, the API, status and notify key files, the
 * registry auth file, a swarm manager's credentials.  confd does not
 * read those, so their change would go unseen.
 *
 * The records are checked as any child's message: a known kind, a path
 * terminated within its field, no more than announced.  They only name
 * what confd reads again; confd trusts nothing here either.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "siphash.h"

struct inset {
	struct conf_input	*v;	/* path and all, as sent */
	size_t			 n, want;
	uint64_t		 digest;
	int			 usable;	/* a digest and its records */
};

static uint8_t		 key[SIPHASH_KEY_LEN];
static int		 keyed;
static struct inset	 running, taken;

static void
inset_clear(struct inset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* files the parent reads itself: their change is not confd's to see */
static int
parent_reads(const struct orchd_conf *c)
{
	const struct listener_conf	*l;

	TAILQ_FOREACH(l, &c->listeners, entry)
		if (l->tls_cert != NULL || l->tls_key != NULL)
			return (1);
	return (!TAILQ_EMPTY(&c->keypairs) || c->api_key_file != NULL ||
	    c->status_key_file != NULL || c->notify_key_file != NULL ||
	    c->regauth_file != NULL || c->swarm_manager != NULL);
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

	if (!keyed) {
		arc4random_buf(key, sizeof(key));
		keyed = 1;
	}
	inset_clear(&taken);
	replay = running_conf != NULL && running.usable && running.n > 0 &&
	    !parent_reads(running_conf);
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
		if (imsg_compose(ibuf, IMSG_CONF_INPUT, 0, 0, -1,
		    &running.v[i], sizeof(running.v[i])) == -1)
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
	taken.v[taken.n++] = *ci;
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
}
