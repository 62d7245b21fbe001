/*
 * orchctl import compose: the keys of a service that read or name the
 * host's files.  env_file is read only from the Compose file's folder
 * or below it, its links resolved first, so that a file cannot pour
 * /etc/shadow into a definition; a volume is a named one (an API volume
 * of that name) or a bind whose host path is sent as written, made
 * absolute, for orchd's "api allow volume" to judge: orchctl widens
 * nothing.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "compat.h"
#include "workload.h"
#include "compose.h"
#include "compose_svc.h"

/*
 * env_file: a file in the Compose file's folder or below, never
 * elsewhere (a file must not read /etc/shadow into a definition).
 */
static void
env_file_read(struct svc *s, const struct ynode *n, const char *path)
{
	char		 real[PATH_MAX], full[PATH_MAX], *buf, *line, *next;
	const char	*dir = s->c->opts->dir;
	size_t		 dlen = strlen(dir), lno = 0;
	ssize_t		 r;
	int		 fd;

	if (snprintf(full, sizeof(full), "%s/%s", dir, path) >=
	    (int)sizeof(full) || path[0] == '/' ||
	    realpath(full, real) == NULL ||
	    strncmp(real, dir, dlen) != 0 || real[dlen] != '/') {
		cm_err(s->c, n, s->name, "env_file", ": \"%.128s\": %s", path,
		    path[0] == '/' || strstr(path, "..") != NULL ||
		    (realpath(full, real) != NULL &&
		    (strncmp(real, dir, dlen) != 0 || real[dlen] != '/')) ?
		    "outside the Compose file's folder" : "no such file");
		return;
	}
	if ((fd = open(real, O_RDONLY | O_NOFOLLOW)) == -1 ||
	    (buf = calloc(1, CM_ENVFILE_MAX + 1)) == NULL) {
		cm_err(s->c, n, s->name, "env_file", ": %.128s: %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	r = read(fd, buf, CM_ENVFILE_MAX + 1);
	close(fd);
	if (r < 0 || r > CM_ENVFILE_MAX) {
		cm_err(s->c, n, s->name, "env_file", ": %.128s: %s", path,
		    r < 0 ? "cannot be read" : "larger than 64 KiB");
		free(buf);
		return;
	}
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		lno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (*line == '#' || *line == '\0')
			continue;
		if (strchr(line, '=') == NULL || !valid_text(line)) {
			cm_err(s->c, n, s->name, "env_file", ": %.128s, line "
			    "%zu: must be NAME=value", path, lno);
			continue;
		}
		json_array_append_new(svc_array(s, "env"), json_string(line));
	}
	free(buf);
}

void
map_env_file(struct svc *s, const struct ynode *n)
{
	const char	*p;
	size_t		 i;

	if (n->type == YT_SCALAR) {
		if ((p = cm_str(s->c, n, s->name, "env_file")) != NULL)
			env_file_read(s, n, p);
		return;
	}
	if (n->type != YT_SEQ) {
		cm_err(s->c, n, s->name, "env_file", ": a path or a list of "
		    "paths");
		return;
	}
	for (i = 0; i < n->nkids; i++)
		if ((p = cm_str(s->c, n->kids[i], s->name, "env_file")) !=
		    NULL)
			env_file_read(s, n->kids[i], p);
}

/*
 * One mount: a named volume (declared at the top) is an API volume of
 * that name; a bind's host path is made absolute from the file's folder
 * and sent as it is, for orchd's "api allow volume" to judge.
 */
static void
volume_add(struct svc *s, const struct ynode *at, const char *src,
    const char *dst, int ro)
{
	const struct ynode	*decl;
	char			 abs[PATH_MAX];

	if (ro) {
		cm_err(s->c, at, s->name, "volumes", ": %.128s: read-only "
		    "mounts are not mapped: orchd's volumes are read-write",
		    dst);
		return;
	}
	if (src == NULL || *src == '\0') {
		cm_err(s->c, at, s->name, "volumes", ": %.128s: an anonymous "
		    "volume: name it (NAME:%.128s)", dst, dst);
		return;
	}
	if (dst[0] != '/') {
		cm_err(s->c, at, s->name, "volumes", ": \"%.128s\": the "
		    "container's path must be absolute", dst);
		return;
	}
	if (src[0] == '.' || src[0] == '~') {
		if (src[0] == '~' || snprintf(abs, sizeof(abs), "%s/%s",
		    s->c->opts->dir, src) >= (int)sizeof(abs)) {
			cm_err(s->c, at, s->name, "volumes", ": \"%.128s\": "
			    "a bind from the home directory is not mapped",
			    src);
			return;
		}
		src = abs;
	} else if (src[0] != '/') {
		decl = yt_get(s->c->root, "volumes");
		if (decl == NULL || decl->type != YT_MAP ||
		    yt_get(decl, src) == NULL) {
			cm_err(s->c, at, s->name, "volumes", ": named volume "
			    "\"%.64s\" is not declared under the top-level "
			    "volumes", src);
			return;
		}
	}
	json_array_append_new(svc_array(s, "volumes"), json_pack("{s:s, s:s}",
	    "host", src, "container", dst));
}

/* "SRC:DST[:ro|rw]" */
static void
volume_short(struct svc *s, const struct ynode *n)
{
	const char	*v;
	char		*src, *dst, *mode;

	if ((v = cm_str(s->c, n, s->name, "volumes")) == NULL ||
	    (src = strdup(v)) == NULL)
		return;
	if ((dst = strchr(src, ':')) == NULL) {
		volume_add(s, n, NULL, src, 0);
		free(src);
		return;
	}
	*dst++ = '\0';
	if ((mode = strchr(dst, ':')) != NULL) {
		*mode++ = '\0';
		if (strcmp(mode, "ro") != 0 && strcmp(mode, "rw") != 0) {
			cm_err(s->c, n, s->name, "volumes", ": mode \"%.32s\" "
			    "is not mapped (rw only)", mode);
			free(src);
			return;
		}
	}
	volume_add(s, n, src, dst, mode != NULL && strcmp(mode, "ro") == 0);
	free(src);
}

/* {type: volume | bind, source, target, read_only} */
static void
volume_long(struct svc *s, const struct ynode *n)
{
	const struct ynode	*ro;
	const char		*type, *src, *dst;
	size_t			 i;

	for (i = 0; i + 1 < n->nkids; i += 2)
		if (strcmp(n->kids[i]->str, "type") != 0 &&
		    strcmp(n->kids[i]->str, "source") != 0 &&
		    strcmp(n->kids[i]->str, "target") != 0 &&
		    strcmp(n->kids[i]->str, "read_only") != 0)
			cm_err(s->c, n->kids[i], s->name, "volumes", ".%.32s: "
			    "not mapped (type, source, target and read_only "
			    "are)", n->kids[i]->str);
	if ((type = cm_str(s->c, yt_get(n, "type"), s->name,
	    "volumes.type")) == NULL ||
	    (dst = cm_str(s->c, yt_get(n, "target"), s->name,
	    "volumes.target")) == NULL)
		return;
	if (strcmp(type, "volume") != 0 && strcmp(type, "bind") != 0) {
		cm_err(s->c, n, s->name, "volumes", ".type: \"%.32s\" is not "
		    "mapped (volume and bind are)", type);
		return;
	}
	src = yt_get(n, "source") != NULL ? cm_str(s->c, yt_get(n,
	    "source"), s->name, "volumes.source") : NULL;
	ro = yt_get(n, "read_only");
	volume_add(s, n, src, dst, ro != NULL && ro->type == YT_SCALAR &&
	    strcmp(ro->str, "true") == 0);
}

void
map_volumes(struct svc *s, const struct ynode *n)
{
	size_t	 i;

	if (n->type != YT_SEQ) {
		cm_err(s->c, n, s->name, "volumes", ": must be a list");
		return;
	}
	for (i = 0; i < n->nkids; i++) {
		if (n->kids[i]->type == YT_MAP)
			volume_long(s, n->kids[i]);
		else
			volume_short(s, n->kids[i]);
	}
}
