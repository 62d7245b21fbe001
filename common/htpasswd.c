/*
 * The password files of "auth basic", read by the parent as it reads
 * orchd.conf: at start, at each reload and for orchd -n.  They are the
 * operator's files, named in orchd.conf (a workload's "auth basic", or
 * "api allow auth basic" for the API's workloads), never a path a child
 * or a key holder chose.  What the gateways get is the records, user and
 * hash, checked here and bounded (struct cfg_htuser): the gateways never
 * open a file.
 *
 * A line is "user:hash", as htpasswd(1) writes it; blank lines and
 * lines starting with '#' are skipped.  Only hashes the gateway can
 * verify slowly are taken: bcrypt ("htpasswd -B") and yescrypt.  Plain
 * text, MD5 ($apr1$), SHA-1 ({SHA}) and crypt(3)'s DES are refused with
 * the file and line, so that a weak file is never served half-read.
 */

#include <sys/queue.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "gate.h"
#include "htpasswd.h"
#include "workload.h"

#define HT_LINE_MAX	512	/* a line's bytes, newline included */

/*
 * One line into u: 1, or 0 for a line that says nothing, or -1 with
 * why.  line has no newline.
 */
int
htpasswd_line(const char *line, struct cfg_htuser *u, const char **why)
{
	const char	*colon;
	size_t		 n;

	if (line[0] == '\0' || line[0] == '#')
		return (0);
	memset(u, 0, sizeof(*u));
	if ((colon = strchr(line, ':')) == NULL) {
		*why = "not user:hash";
		return (-1);
	}
	if ((n = colon - line) == 0 || n >= sizeof(u->user)) {
		*why = "a user name of 1 to 127 bytes is required";
		return (-1);
	}
	memcpy(u->user, line, n);
	if (!valid_text(u->user)) {
		*why = "the user name is not text (a control character or "
		    "invalid UTF-8)";
		return (-1);
	}
	if (strlcpy(u->hash, colon + 1, sizeof(u->hash)) >= sizeof(u->hash) ||
	    !gate_hash_ok(u->hash)) {
		*why = "not a bcrypt ($2y$, $2b$) or yescrypt ($y$) hash: "
		    "plain text, MD5 ($apr1$), SHA-1 ({SHA}) and DES are "
		    "refused (htpasswd -B makes bcrypt)";
		return (-1);
	}
	return (1);
}

void
htfile_free(struct htfile *f)
{
	if (f == NULL)
		return;
	if (f->users != NULL)
		explicit_bzero(f->users, f->nusers * sizeof(*f->users));
	free(f->users);
	free(f->path);
	free(f);
}

static int
htfile_dup(const struct htfile *f, const char *user)
{
	size_t	 i;

	for (i = 0; i < f->nusers; i++)
		if (strcmp(f->users[i].user, user) == 0)
			return (1);
	return (0);
}

/* the whole file, or NULL with "path:line: why" in err */
struct htfile *
htpasswd_read(const char *path, char *err, size_t len)
{
	struct htfile		*f;
	struct cfg_htuser	 u;
	FILE			*fp;
	char			 line[HT_LINE_MAX];
	const char		*why = NULL;
	size_t			 n;
	int			 lineno = 0, r;

	if (strlen(path) >= HTPASSWD_PATH_MAX) {
		(void)snprintf(err, len, "auth basic: path too long");
		return (NULL);
	}
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->path = strdup(path)) == NULL ||
	    (f->users = calloc(HTPASSWD_USERS_MAX, sizeof(*f->users))) ==
	    NULL) {
		htfile_free(f);
		(void)snprintf(err, len, "%s: out of memory", path);
		return (NULL);
	}
	if ((fp = fopen(path, "re")) == NULL) {
		(void)snprintf(err, len, "%s: %s", path, strerror(errno));
		htfile_free(f);
		return (NULL);
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		n = strlen(line);
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		else if (!feof(fp)) {
			why = "line too long";
			break;
		}
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (strlen(line) != n) {
			why = "a NUL byte";
			break;
		}
		if ((r = htpasswd_line(line, &u, &why)) == -1)
			break;
		if (r == 0)
			continue;
		if (htfile_dup(f, u.user)) {
			why = "user listed twice";
			break;
		}
		if (f->nusers >= HTPASSWD_USERS_MAX) {
			why = "more users than orchd takes from one file";
			break;
		}
		f->users[f->nusers++] = u;
	}
	explicit_bzero(line, sizeof(line));
	explicit_bzero(&u, sizeof(u));
	if (why == NULL && ferror(fp))
		why = strerror(errno);
	fclose(fp);
	if (why != NULL) {
		(void)snprintf(err, len, "%s:%d: %s", path, lineno, why);
		htfile_free(f);
		return (NULL);
	}
	return (f);
}

/* the file of that path among those read, or NULL */
struct htfile *
htfile_find(const struct htfilelist *l, const char *path)
{
	struct htfile	*f;

	TAILQ_FOREACH(f, l, entry)
		if (strcmp(f->path, path) == 0)
			return (f);
	return (NULL);
}

void
htfiles_free(struct htfilelist *l)
{
	struct htfile	*f;

	while ((f = TAILQ_FIRST(l)) != NULL) {
		TAILQ_REMOVE(l, f, entry);
		htfile_free(f);
	}
}
