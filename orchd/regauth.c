/*
 * The registry logins ("registry auth file"): Docker's config.json, its
 * "auths" object, read by the parent as root at start and at every
 * reload, and checked as the API key file is: a regular file that no one
 * but its owner, root or orchd's user, may read or write.  A file that
 * cannot be read or understood makes the configuration invalid.
 *
 * The logins go to runtimed alone, which pulls images, in its
 * configuration transaction; no other process ever sees them, and the
 * parent forgets them once sent (regauth_send).  What runtimed gets is
 * what it hands the Docker daemon, made here so that runtimed decodes
 * nothing: for each registry host, the value of the X-Registry-Auth
 * header, base64url of {"username", "password", "serveraddress"}.  An
 * entry's key names its registry the ways docker login writes it
 * ("registry.example.com", "https://index.docker.io/v1/"): the host is
 * what remains without the scheme and the path, Docker Hub's names all
 * being docker.io, as runtimed names the registry of an image.
 *
 * An entry holds "auth", base64 of user:password, or "username" and
 * "password", and perhaps an "identitytoken".  One with none of them (a
 * credential helper keeps the password: "credsStore", "credHelpers",
 * which orchd does not run) is left out with a warning.
 *
 * This is the one JSON the root parent parses, and the reason it still
 * links jansson (nm build/orchd names no json_ symbol but this file's).
 * It does not bend trust rule 10 (DESIGN.md: root parses no text from a
 * child): the file is the operator's, read as root from a path in
 * orchd.conf, and refused unless secretfile_check finds it a regular file
 * that only its owner, root or orchd's user may read or write; no child
 * ever hands the parent a byte of it.  Parsing it in a child would give
 * that child the passwords of every registry, which only runtimed may
 * hold, and a reload must know at once whether the file is good.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "compat.h"
#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"

#define REGAUTH_HOSTS_MAX	256	/* registries in one file */
#define REGAUTH_FIELD_MAX	8192	/* a user name, password or token */
#define REGAUTH_HOST_MAX	256

static const char	 b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int
regauth_fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
regauth_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return (-1);
}

/* a base64 digit of either alphabet, -1 for none */
static int
b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return (c - 'A');
	if (c >= 'a' && c <= 'z')
		return (c - 'a' + 26);
	if (c >= '0' && c <= '9')
		return (c - '0' + 52);
	if (c == '+' || c == '-')
		return (62);
	if (c == '/' || c == '_')
		return (63);
	return (-1);
}

/* base64, padded or not: at most outlen bytes; -1 if it is not that */
static int
b64_decode(const char *in, uint8_t *out, size_t outlen, size_t *n)
{
	size_t		 len = strlen(in), i, o = 0;
	uint32_t	 acc = 0;
	int		 v, bits = 0;

	while (len > 0 && in[len - 1] == '=')
		len--;
	for (i = 0; i < len; i++) {
		if ((v = b64_value((unsigned char)in[i])) == -1)
			return (-1);
		acc = (acc << 6) | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= outlen)
				return (-1);
			out[o++] = (acc >> bits) & 0xff;
		}
	}
	/* a lone digit left over is not base64 */
	if (bits >= 6)
		return (-1);
	*n = o;
	return (0);
}

/* base64url with its padding, as Docker decodes the header; malloc'd */
static char *
b64url_encode(const uint8_t *in, size_t len)
{
	char	*out;
	size_t	 i, o = 0;
	uint32_t v;

	if (len > SIZE_MAX / 2 || (out = malloc((len + 2) / 3 * 4 + 1)) ==
	    NULL)
		return (NULL);
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
		    in[i + 2];
		out[o++] = b64url[v >> 18];
		out[o++] = b64url[(v >> 12) & 0x3f];
		out[o++] = b64url[(v >> 6) & 0x3f];
		out[o++] = b64url[v & 0x3f];
	}
	if (i < len) {
		v = (uint32_t)in[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		out[o++] = b64url[v >> 18];
		out[o++] = b64url[(v >> 12) & 0x3f];
		out[o++] = i + 1 < len ? b64url[(v >> 6) & 0x3f] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return (out);
}

/*
 * The registry host of an entry's key, as runtimed names the registry of
 * an image: "https://Registry.example.com:5000/v1/" is
 * "registry.example.com:5000", Docker Hub's names "docker.io".  -1 if
 * what remains is not a host, or a host and a port.
 */
int
regauth_host(const char *key, char *host, size_t len)
{
	static const char *const hub[] = { "docker.io", "index.docker.io",
	    "registry-1.docker.io" };
	size_t	 i, n;

	if (strncasecmp(key, "https://", 8) == 0)
		key += 8;
	else if (strncasecmp(key, "http://", 7) == 0)
		key += 7;
	n = strcspn(key, "/");
	if (n == 0 || n >= len || n >= REGAUTH_HOST_MAX)
		return (-1);
	for (i = 0; i < n; i++) {
		if (!isalnum((unsigned char)key[i]) && key[i] != '.' &&
		    key[i] != '-' && key[i] != ':' && key[i] != '[' &&
		    key[i] != ']')
			return (-1);
		host[i] = tolower((unsigned char)key[i]);
	}
	host[n] = '\0';
	for (i = 0; i < nitems(hub); i++)
		if (strcmp(host, hub[i]) == 0)
			(void)strlcpy(host, "docker.io", len);
	return (0);
}

/* a field's string, if it is one and not too long; NULL if absent */
static int
regauth_field(json_t *e, const char *name, const char **s)
{
	json_t	*v;

	*s = NULL;
	if ((v = json_object_get(e, name)) == NULL || json_is_null(v))
		return (0);
	if (!json_is_string(v) || json_string_length(v) > REGAUTH_FIELD_MAX)
		return (-1);
	if (json_string_length(v) > 0)
		*s = json_string_value(v);
	return (0);
}

/* the header's value of one entry: 0, 1 if it has no login, or -1 */
static int
regauth_value(const char *key, json_t *e, char **value, char *err,
    size_t errlen)
{
	uint8_t		 dec[REGAUTH_FIELD_MAX * 2 + 1];
	json_t		*o = NULL;
	const char	*auth, *user, *pass, *token;
	char		*json = NULL, *colon;
	size_t		 n = 0;
	int		 rv = -1;

	*value = NULL;
	if (!json_is_object(e) || regauth_field(e, "auth", &auth) == -1 ||
	    regauth_field(e, "username", &user) == -1 ||
	    regauth_field(e, "password", &pass) == -1 ||
	    regauth_field(e, "identitytoken", &token) == -1)
		return (regauth_fail(err, errlen, "\"%s\": not an object of "
		    "strings of at most %d bytes", key, REGAUTH_FIELD_MAX));
	if (auth != NULL) {
		if (b64_decode(auth, dec, sizeof(dec) - 1, &n) == -1 ||
		    (colon = memchr(dec, ':', n)) == NULL) {
			(void)regauth_fail(err, errlen, "\"%s\": auth is not "
			    "base64 of user:password", key);
			goto done;
		}
		dec[n] = '\0';
		*colon = '\0';
		user = (const char *)dec;
		pass = colon + 1;
	} else if ((user == NULL || pass == NULL) && token == NULL) {
		rv = 1;
		goto done;
	}
	/* jansson takes UTF-8 only: what the decoded auth may not be */
	if ((o = json_object()) == NULL ||
	    json_object_set_new(o, "username", json_string(user != NULL ?
	    user : "")) == -1 ||
	    json_object_set_new(o, "password", json_string(pass != NULL ?
	    pass : "")) == -1 ||
	    json_object_set_new(o, "serveraddress", json_string(key)) == -1 ||
	    (token != NULL && json_object_set_new(o, "identitytoken",
	    json_string(token)) == -1) ||
	    (json = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
	    NULL) {
		(void)regauth_fail(err, errlen, "\"%s\": a user name or "
		    "password that is not UTF-8", key);
		goto done;
	}
	if ((*value = b64url_encode((uint8_t *)json, strlen(json))) == NULL) {
		(void)regauth_fail(err, errlen, "out of memory");
		goto done;
	}
	rv = 0;
 done:
	if (json != NULL)
		freezero(json, strlen(json));
	json_decref(o);
	explicit_bzero(dec, sizeof(dec));
	return (rv);
}

/*
 * Docker's config.json, text, from path, as the JSON object runtimed
 * takes: {"registry.example.com": "<X-Registry-Auth>", ...}.  NULL with
 * err if it is not one.  The caller zeroes and frees it.
 */
char *
regauth_convert(const char *text, size_t len, const char *path, char *err,
    size_t errlen)
{
	json_error_t	 jerr;
	json_t		*o, *auths, *e, *out = NULL;
	const char	*key;
	char		 host[REGAUTH_HOST_MAX], why[CTL_MSG_MAX];
	char		*value, *s = NULL;
	int		 r;

	if ((o = json_loadb(text, len, JSON_REJECT_DUPLICATES,
	    &jerr)) == NULL) {
		(void)regauth_fail(err, errlen, "registry auth file %s: "
		    "invalid JSON: line %d: %s", path, jerr.line, jerr.text);
		return (NULL);
	}
	if (!json_is_object(o) ||
	    !json_is_object(auths = json_object_get(o, "auths"))) {
		(void)regauth_fail(err, errlen, "registry auth file %s: no "
		    "\"auths\" object, as in Docker's config.json", path);
		goto done;
	}
	if (json_object_get(o, "credsStore") != NULL ||
	    json_object_get(o, "credHelpers") != NULL)
		log_warnx("registry auth file %s: credential helpers "
		    "(credsStore, credHelpers) are not used", path);
	if (json_object_size(auths) > REGAUTH_HOSTS_MAX) {
		(void)regauth_fail(err, errlen, "registry auth file %s: more "
		    "than %d registries", path, REGAUTH_HOSTS_MAX);
		goto done;
	}
	if ((out = json_object()) == NULL) {
		(void)regauth_fail(err, errlen, "out of memory");
		goto done;
	}
	json_object_foreach(auths, key, e) {
		if (regauth_host(key, host, sizeof(host)) == -1) {
			(void)regauth_fail(err, errlen, "registry auth file "
			    "%s: \"%.64s\" is not a registry", path, key);
			goto done;
		}
		if ((r = regauth_value(key, e, &value, why,
		    sizeof(why))) == -1) {
			(void)regauth_fail(err, errlen, "registry auth file "
			    "%s: %s", path, why);
			goto done;
		}
		if (r == 1) {
			log_warnx("registry auth file %s: \"%s\" has no auth, "
			    "username and password, or identitytoken: left "
			    "out", path, key);
			continue;
		}
		if (json_object_get(out, host) != NULL) {
			log_warnx("registry auth file %s: \"%s\" is %s again: "
			    "the first one is used", path, key, host);
			freezero(value, strlen(value));
			continue;
		}
		r = json_object_set_new(out, host, json_string(value));
		freezero(value, strlen(value));
		if (r == -1) {
			(void)regauth_fail(err, errlen, "out of memory");
			goto done;
		}
	}
	if ((s = json_dumps(out, JSON_COMPACT)) == NULL)
		(void)regauth_fail(err, errlen, "out of memory");
 done:
	json_decref(out);
	json_decref(o);
	return (s);
}

/*
 * Part of loading a configuration: 0, or -1 (logged) to refuse it.
 * Without the setting runtimed is sent no logins, and forgets those of
 * an earlier configuration.
 */
int
regauth_load(struct orchd_conf *conf)
{
	struct stat	 st;
	const char	*path = conf->regauth_file;
	char		 err[CTL_MSG_MAX + PATH_MAX];
	char		*buf = NULL, *json = NULL;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd, rv = -1;

	conf->regauth_loaded = 1;
	if (path == NULL)
		return (0);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		log_warn("registry auth file %s", path);
		return (-1);
	}
	if (fstat(fd, &st) == -1) {
		log_warn("registry auth file %s", path);
		goto done;
	}
	if (secretfile_check("registry auth file", path, &st) == -1)
		goto done;
	if (st.st_size > REGAUTH_FILE_MAX) {
		log_warnx("registry auth file %s: larger than %d bytes", path,
		    REGAUTH_FILE_MAX);
		goto done;
	}
	if ((buf = malloc(REGAUTH_FILE_MAX + 1)) == NULL) {
		log_warn("%s", __func__);
		goto done;
	}
	/* read to its end: it may have grown since the fstat */
	while (len <= REGAUTH_FILE_MAX) {
		if ((n = read(fd, buf + len, REGAUTH_FILE_MAX + 1 - len)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			log_warn("registry auth file %s", path);
			goto done;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (len > REGAUTH_FILE_MAX) {
		log_warnx("registry auth file %s: larger than %d bytes", path,
		    REGAUTH_FILE_MAX);
		goto done;
	}
	confsame_parent_read(path, buf, len);
	if ((json = regauth_convert(buf, len, path, err,
	    sizeof(err))) == NULL) {
		log_warnx("%s", err);
		goto done;
	}
	conf->regauth = (uint8_t *)json;
	conf->regauth_len = strlen(json);
	log_debug("registry auth file %s: read", path);
	rv = 0;
 done:
	if (buf != NULL)
		freezero(buf, REGAUTH_FILE_MAX + 1);
	close(fd);
	return (rv);
}

/*
 * In runtimed's configuration transaction, once per configuration
 * loaded: the logins, or an empty message for none.  Later transactions
 * of the same configuration (the API's changes) send nothing, and
 * runtimed keeps what it has.
 */
void
regauth_send(struct orchd *env)
{
	struct orchd_conf	*conf = env->conf;

	if (!conf->regauth_loaded)
		return;
	if (proc_compose(&env->ps, PROC_RUNTIME, IMSG_CFG_REGAUTH, 0, -1,
	    conf->regauth, conf->regauth_len) == -1)
		fatal("%s: compose", __func__);
	freezero(conf->regauth, conf->regauth_len);
	conf->regauth = NULL;
	conf->regauth_len = 0;
	conf->regauth_loaded = 0;
}
