/*
 * "error page STATUS FILE", globally or in a workload's block: the page
 * orchd answers with, in place of its line of text, when a browser asks
 * (gatewayd/errpage.c).  The file is read here, at its line, once however
 * many entries name it: a regular file (never followed through a link),
 * text without a NUL, at most ERRPAGE_MAX bytes.  The gateways get its
 * bytes; no file is read on the request path.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "errpage.h"
#include "log.h"
#include "msg.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

/* path's bytes, or NULL with why */
static uint8_t *
page_read(const char *path, size_t *lenp, const char **why)
{
	struct stat	 st;
	uint8_t		*buf;
	ssize_t		 n;
	size_t		 off = 0;
	int		 fd;

	*why = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return (NULL);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > ERRPAGE_MAX) {
		*why = S_ISREG(st.st_mode) ? "larger than 64 KiB" :
		    "not a regular file";
		close(fd);
		return (NULL);
	}
	if ((buf = malloc(st.st_size > 0 ? st.st_size : 1)) == NULL) {
		close(fd);
		return (NULL);
	}
	while (off < (size_t)st.st_size &&
	    (n = read(fd, buf + off, st.st_size - off)) > 0)
		off += n;
	close(fd);
	if (off != (size_t)st.st_size || memchr(buf, '\0', off) != NULL) {
		*why = off != (size_t)st.st_size ? "changed while read" :
		    "not text (a NUL byte)";
		free(buf);
		return (NULL);
	}
	*lenp = off;
	return (buf);
}

/* the file, read unless it was already */
static int
page_load(const char *path)
{
	struct errpage_file	*p;
	const char		*why;
	size_t			 n = 0;

	if (errpage_find(&conf->pages, path) != NULL)
		return (0);
	TAILQ_FOREACH(p, &conf->pages, entry)
		n++;
	if (n >= ERRPAGE_FILES_MAX) {
		yyerror("error page \"%s\": more than %d files",
		    path, ERRPAGE_FILES_MAX);
		return (-1);
	}
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->path = strdup(path)) == NULL)
		fatal("%s", __func__);
	if ((p->data = page_read(path, &p->len, &why)) == NULL) {
		yyerror("error page \"%s\": %s", path,
		    why != NULL ? why : strerror(errno));
		free(p->path);
		free(p);
		return (-1);
	}
	inputs_mix(CONF_INPUT_FILE, CONF_INPUT_NOFOLLOW, path, p->data,
	    p->len);
	TAILQ_INSERT_TAIL(&conf->pages, p, entry);
	return (0);
}

int
errpage_add(struct strlist *list, int64_t status, const char *path)
{
	char	 entry[ERRPAGE_PATH_MAX + 8], err[512];
	int	 n;

	n = snprintf(entry, sizeof(entry), "%lld %s", (long long)status,
	    path);
	if (status < 100 || status > 999 || n < 0 ||
	    (size_t)n >= sizeof(entry) ||
	    errpage_entry_check(entry, err, sizeof(err)) == -1) {
		if (status < 100 || status > 999)
			yyerror("error page %lld: not an HTTP status",
			    (long long)status);
		else
			yyerror("%s", err);
		return (-1);
	}
	if (page_load(path) == -1)
		return (-1);
	if (strlist_add(list, entry) == -1)
		fatal("%s", __func__);
	return (0);
}
