/*
 * What a pull needs to know and nothing else, in plain functions that
 * the unit tests call: an image reference split into the name, the tag
 * (or digest) and the registry host Docker would ask, and the reading of
 * the daemon's answer to a pull, a stream of JSON messages one a line:
 *
 *	{"status":"Pulling fs layer","progressDetail":{},"id":"4106603aec30"}
 *	{"status":"Downloading","progressDetail":{"current":69213,
 *	    "total":4065693},"progress":"[>   ]","id":"4106603aec30"}
 *	{"status":"Pull complete","progressDetail":{},"id":"4106603aec30"}
 *	{"status":"Digest: sha256:60552a4b..."}
 *	{"errorDetail":{"message":"..."},"error":"..."}
 *
 * The stream is read as it comes, in pieces cut anywhere; a line longer
 * than DK_PULL_LINE_MAX is skipped, and at most DK_PULL_LAYERS_MAX
 * layers are told apart: what a pull holds is bounded, however long the
 * daemon talks.
 */

#include <sys/types.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "docker.h"
#include "msg.h"

/* what Docker allows in a reference: no space, quote, '?', '%' or '#' */
static int
ref_char(int c)
{
	return (isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/' ||
	    c == ':' || c == '@');
}

/* the digest after an '@': "sha256:" and hex digits */
static int
ref_digest(const char *s)
{
	const char	*colon;
	size_t		 i;

	if ((colon = strchr(s, ':')) == NULL || colon == s || colon[1] == '\0')
		return (0);
	for (i = 0; s + i < colon; i++)
		if (!isalnum((unsigned char)s[i]))
			return (0);
	for (colon++; *colon != '\0'; colon++)
		if (!isxdigit((unsigned char)*colon))
			return (0);
	return (1);
}

/* the first part of a name, n bytes, names a registry (Docker's rule) */
static int
ref_host(const char *s, size_t n)
{
	size_t	 i;

	if (memchr(s, '.', n) != NULL || memchr(s, ':', n) != NULL ||
	    (n == 9 && strncmp(s, "localhost", n) == 0))
		return (1);
	for (i = 0; i < n; i++)
		if (isupper((unsigned char)s[i]))
			return (1);
	return (0);
}

/*
 * "registry.example.com:5000/app:pr-42": the name
 * "registry.example.com:5000/app", the tag "pr-42" ("latest" when none
 * is written; the digest of "app@sha256:..."), and the registry, the
 * first part of the name when it looks like a host (a dot, a colon, or
 * "localhost", as Docker decides), else Docker Hub's "docker.io".  The
 * registry is in lower case, as orchd/regauth.c names those of the
 * logins.  -1 with err for a reference Docker would refuse, or one this
 * code would not put in a path.
 */
int
dk_image_parse(const char *image, struct dk_imageref *ref, char *err,
    size_t errlen)
{
	const char	*at, *slash, *colon;
	size_t		 len, n, i;

	memset(ref, 0, sizeof(*ref));
	len = strlen(image);
	if (len == 0 || len >= sizeof(ref->name) ||
	    !isalnum((unsigned char)image[0]) || strstr(image, "..") != NULL ||
	    strstr(image, "//") != NULL || image[len - 1] == '/')
		goto bad;
	for (i = 0; i < len; i++)
		if (!ref_char((unsigned char)image[i]))
			goto bad;
	if ((at = strchr(image, '@')) != NULL) {
		if (strchr(at + 1, '@') != NULL || !ref_digest(at + 1))
			goto bad;
		n = at - image;
		if (strlcpy(ref->tag, at + 1, sizeof(ref->tag)) >=
		    sizeof(ref->tag))
			goto bad;
		/* name:tag@digest: the digest decides */
		slash = memrchr(image, '/', n);
		colon = memrchr(image, ':', n);
		if (colon != NULL && (slash == NULL || colon > slash))
			n = colon - image;
	} else {
		/* a colon after the last slash: a tag, not a port */
		slash = strrchr(image, '/');
		colon = strrchr(image, ':');
		if (colon != NULL && (slash == NULL || colon > slash)) {
			n = colon - image;
			if (colon[1] == '\0' || strlen(colon + 1) >=
			    sizeof(ref->tag))
				goto bad;
			(void)strlcpy(ref->tag, colon + 1, sizeof(ref->tag));
		} else {
			n = len;
			(void)strlcpy(ref->tag, "latest", sizeof(ref->tag));
		}
	}
	if (n == 0 || image[n - 1] == '/' || strchr(ref->tag, '/') != NULL)
		goto bad;
	memcpy(ref->name, image, n);
	ref->name[n] = '\0';
	/* a colon in the name is a registry's port: none after its slash */
	slash = strchr(ref->name, '/');
	colon = strchr(ref->name, ':');
	if (colon != NULL && (slash == NULL || colon > slash))
		goto bad;
	n = slash != NULL ? (size_t)(slash - ref->name) : 0;
	/* a host's port is digits, and there is one at most */
	if (colon != NULL && (colon[1] == '/' ||
	    strspn(colon + 1, "0123456789") != n - (colon - ref->name) - 1))
		goto bad;
	if (slash == NULL || !ref_host(ref->name, n))
		(void)strlcpy(ref->registry, "docker.io",
		    sizeof(ref->registry));
	else {
		if (n >= sizeof(ref->registry))
			goto bad;
		for (i = 0; i < n; i++)
			ref->registry[i] = tolower((unsigned char)ref->name[i]);
		ref->registry[n] = '\0';
		/* Docker Hub by another of its names */
		if (strcmp(ref->registry, "index.docker.io") == 0 ||
		    strcmp(ref->registry, "registry-1.docker.io") == 0)
			(void)strlcpy(ref->registry, "docker.io",
			    sizeof(ref->registry));
	}
	return (0);
 bad:
	(void)snprintf(err, errlen, "image \"%.200s\" is not a valid image "
	    "reference", image);
	return (-1);
}

/*
 * The progress of a pull.
 */

enum dk_layer_status {
	LS_NONE = 0,		/* not about a layer */
	LS_NEW,			/* known, waiting */
	LS_DOWNLOADING,
	LS_DOWNLOADED,
	LS_DONE			/* extracted, or there already */
};

static const struct {
	const char		*status;
	enum dk_layer_status	 ls;
} dk_layer_statuses[] = {
	{ "Pulling fs layer",	LS_NEW },
	{ "Waiting",		LS_NEW },
	{ "Retrying",		LS_NEW },	/* "Retrying in 5 seconds" */
	{ "Downloading",	LS_DOWNLOADING },
	{ "Verifying Checksum",	LS_DOWNLOADED },
	{ "Download complete",	LS_DOWNLOADED },
	{ "Extracting",		LS_DOWNLOADED },
	{ "Pull complete",	LS_DONE },
	{ "Already exists",	LS_DONE }
};

static enum dk_layer_status
dk_layer_status(const char *status)
{
	size_t	 i, n;

	for (i = 0; i < nitems(dk_layer_statuses); i++) {
		n = strlen(dk_layer_statuses[i].status);
		if (strncmp(status, dk_layer_statuses[i].status, n) == 0 &&
		    (status[n] == '\0' || status[n] == ' '))
			return (dk_layer_statuses[i].ls);
	}
	return (LS_NONE);
}

/* one line, printable, as logs and orchctl show it */
static void
dk_printable(char *dst, size_t len, const char *src)
{
	char	*p;

	(void)strlcpy(dst, src, len);
	for (p = dst; *p != '\0'; p++)
		if (iscntrl((unsigned char)*p))
			*p = ' ';
}

/* the layer of id, added if it is new and there is room; NULL if not */
static struct dk_layer *
dk_layer_get(struct dk_progress *p, const char *id)
{
	struct dk_layer	*l;
	size_t		 i;

	for (i = 0; i < p->nlayers; i++)
		if (strcmp(p->layers[i].id, id) == 0)
			return (&p->layers[i]);
	if (p->nlayers >= DK_PULL_LAYERS_MAX ||
	    strlen(id) >= sizeof(l->id))
		return (NULL);
	l = &p->layers[p->nlayers++];
	memset(l, 0, sizeof(*l));
	(void)strlcpy(l->id, id, sizeof(l->id));
	return (l);
}

static void
dk_layer_update(struct dk_layer *l, enum dk_layer_status ls, json_t *detail)
{
	json_int_t	 cur, total;

	switch (ls) {
	case LS_DOWNLOADING:
		cur = json_integer_value(json_object_get(detail, "current"));
		total = json_integer_value(json_object_get(detail, "total"));
		if (total > 0) {
			l->total = total;
			l->current = cur < 0 ? 0 : cur > total ? total : cur;
		}
		break;
	case LS_DOWNLOADED:
		l->current = l->total;
		break;
	case LS_DONE:
		l->current = l->total;
		l->done = 1;
		break;
	default:
		break;
	}
}

/* one message of the stream */
static void
dk_progress_msg(struct dk_progress *p, const char *line, size_t len)
{
	enum dk_layer_status	 ls;
	struct dk_layer		*l;
	json_error_t		 jerr;
	json_t			*o;
	const char		*err, *status, *id;

	if ((o = json_loadb(line, len, 0, &jerr)) == NULL ||
	    !json_is_object(o)) {
		json_decref(o);
		return;
	}
	p->changed = 1;
	err = json_string_value(json_object_get(json_object_get(o,
	    "errorDetail"), "message"));
	if (err == NULL)
		err = json_string_value(json_object_get(o, "error"));
	if (err != NULL) {
		/* the first one says why; what follows is its fallout */
		if (!p->failed)
			dk_printable(p->error, sizeof(p->error), err);
		p->failed = 1;
		goto done;
	}
	if ((status = json_string_value(json_object_get(o, "status"))) ==
	    NULL)
		goto done;
	id = json_string_value(json_object_get(o, "id"));
	ls = dk_layer_status(status);
	if (id != NULL && ls != LS_NONE) {
		if ((l = dk_layer_get(p, id)) != NULL)
			dk_layer_update(l, ls, json_object_get(o,
			    "progressDetail"));
	} else if (id != NULL && strncmp(status, "Pulling from ", 13) == 0)
		dk_printable(p->status, sizeof(p->status), status);
	else if (id == NULL)
		dk_printable(p->status, sizeof(p->status), status);
 done:
	json_decref(o);
}

/*
 * Bytes of the stream as they come, cut anywhere: each whole line is a
 * message.  A line too long for the buffer is skipped to its end.
 */
void
dk_progress_feed(struct dk_progress *p, const char *data, size_t len)
{
	const char	*nl;
	size_t		 n;

	while (len > 0) {
		nl = memchr(data, '\n', len);
		n = nl != NULL ? (size_t)(nl - data) : len;
		if (p->skipping || p->linelen + n > sizeof(p->line)) {
			if (!p->skipping)
				p->skipped++;
			p->skipping = nl == NULL;
			p->linelen = 0;
		} else {
			memcpy(p->line + p->linelen, data, n);
			p->linelen += n;
			if (nl != NULL) {
				while (p->linelen > 0 &&
				    p->line[p->linelen - 1] == '\r')
					p->linelen--;
				if (p->linelen > 0)
					dk_progress_msg(p, p->line,
					    p->linelen);
				p->linelen = 0;
			}
		}
		if (nl == NULL)
			break;
		data += n + 1;
		len -= n + 1;
	}
}

/* what orchctl is told: layers, bytes, the daemon's last word */
void
dk_progress_sum(const struct dk_progress *p, struct ctl_pull *cp)
{
	size_t	 i;

	cp->layers = p->nlayers;
	cp->layers_done = 0;
	cp->bytes = cp->bytes_total = 0;
	for (i = 0; i < p->nlayers; i++) {
		if (p->layers[i].done)
			cp->layers_done++;
		cp->bytes += p->layers[i].current;
		cp->bytes_total += p->layers[i].total;
	}
	(void)strlcpy(cp->status, p->failed ? p->error : p->status,
	    sizeof(cp->status));
}
