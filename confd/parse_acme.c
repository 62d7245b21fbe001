/*
 * The "acme" block of orchd.conf: the ACME server acmed asks for
 * certificates (orchd.conf(5)).  Each setting is checked as it is read,
 * and the files it names (a CA to trust, an EAB key) are read here, so
 * that a wrong one is refused with its file and line, not at the first
 * issuance.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "conf.h"
#include "parser.h"

#define ACME_HMAC_FILE_MAX	1024

/*
 * The block, begun: only one in a file.  A second is an error, and its
 * settings are read into the first (each then "already set"), not
 * skipped as a syntax error would skip them.
 */
int
acme_begin(struct orchd_conf *c)
{
	if (c->acme != NULL) {
		yyerror("acme block already given");
		return (0);
	}
	if ((c->acme = calloc(1, sizeof(*c->acme))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	c->acme->per_hour = -1;
	return (0);
}

int
acme_end(struct orchd_conf *c)
{
	if (c->acme == NULL)
		return (0);
	if (c->acme->directory == NULL) {
		yyerror("acme block without a directory");
		return (-1);
	}
	if (c->acme->per_hour == -1)
		c->acme->per_hour = ACME_PER_HOUR_DEFAULT;
	return (0);
}

static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isgraph((unsigned char)*s))
			return (0);
	return (1);
}

/* https://HOST[:PORT]/PATH: nothing but https, and a host */
int
acme_directory(struct orchd_conf *c, char *url)
{
	const char	*host;

	if (strncmp(url, "https://", 8) != 0) {
		yyerror("acme directory \"%s\": must be an https:// URL", url);
		return (-1);
	}
	host = url + 8;
	if (*host == '\0' || *host == '/' || *host == ':' ||
	    !printable(url) || strlen(url) >= ACME_URL_MAX) {
		yyerror("acme directory \"%s\": no host, a space or control "
		    "character, or longer than %d bytes", url,
		    ACME_URL_MAX - 1);
		return (-1);
	}
	return (set_string(&c->acme->directory, url, "acme directory"));
}

int
acme_contact(struct orchd_conf *c, char *contact)
{
	if (strncmp(contact, "mailto:", 7) != 0 || contact[7] == '\0' ||
	    strchr(contact + 7, '@') == NULL || !printable(contact) ||
	    strlen(contact) >= ACME_CONTACT_MAX) {
		yyerror("acme contact \"%s\": must be \"mailto:ADDRESS\", "
		    "shorter than %d bytes", contact, ACME_CONTACT_MAX);
		return (-1);
	}
	return (set_string(&c->acme->contact, contact, "acme contact"));
}

/* a regular file, read whole, at most max bytes */
static uint8_t *
acme_file(const char *path, size_t max, size_t *len, const char *what)
{
	struct stat	 sb;
	uint8_t		*buf;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		yyerror("%s \"%s\": %s", what, path, strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size <= 0 || (size_t)sb.st_size > max) {
		yyerror("%s \"%s\": not a regular file of 1 to %zu bytes",
		    what, path, max);
		close(fd);
		return (NULL);
	}
	if ((buf = malloc(sb.st_size + 1)) == NULL) {
		yyerror("out of memory");
		close(fd);
		return (NULL);
	}
	n = read(fd, buf, sb.st_size);
	close(fd);
	if (n != sb.st_size) {
		yyerror("%s \"%s\": cannot read it", what, path);
		free(buf);
		return (NULL);
	}
	buf[n] = '\0';
	*len = n;
	inputs_mix(CONF_INPUT_FILE, 0, path, buf, n);
	return (buf);
}

int
acme_ca(struct orchd_conf *c, char *path)
{
	struct acme_settings	*a = c->acme;

	if (a->ca_file != NULL) {
		yyerror("acme ca file already set");
		return (-1);
	}
	if ((a->ca = acme_file(path, ACME_FILE_MAX, &a->ca_len,
	    "acme ca file")) == NULL)
		return (-1);
	if (memmem(a->ca, a->ca_len, "-----BEGIN CERTIFICATE-----", 27) ==
	    NULL || memchr(a->ca, '\0', a->ca_len) != NULL) {
		yyerror("acme ca file \"%s\": no PEM certificate in it", path);
		free(a->ca);
		a->ca = NULL;
		return (-1);
	}
	return (set_string(&a->ca_file, path, "acme ca file"));
}

/* the EAB key: base64url on one line, as CAs hand it out */
int
acme_eab(struct orchd_conf *c, char *kid, char *path)
{
	struct acme_settings	*a = c->acme;
	uint8_t			*buf;
	size_t			 len, i;

	if (a->eab_kid != NULL) {
		yyerror("acme eab already set");
		return (-1);
	}
	if (!printable(kid) || strlen(kid) >= ACME_EAB_MAX) {
		yyerror("acme eab kid \"%s\": spaces, control characters, or "
		    "%d bytes or more", kid, ACME_EAB_MAX);
		return (-1);
	}
	if ((buf = acme_file(path, ACME_HMAC_FILE_MAX, &len,
	    "acme eab hmac file")) == NULL)
		return (-1);
	while (len > 0 && isspace(buf[len - 1]))
		buf[--len] = '\0';
	for (i = 0; i < len; i++)
		if (!isalnum(buf[i]) && buf[i] != '-' && buf[i] != '_' &&
		    buf[i] != '=')
			break;
	if (len == 0 || i < len || len >= sizeof(a->eab_hmac)) {
		yyerror("acme eab hmac file \"%s\": must hold the key in "
		    "base64url, on one line, shorter than %zu bytes", path,
		    sizeof(a->eab_hmac));
		freezero(buf, len);
		return (-1);
	}
	memcpy(a->eab_hmac, buf, len + 1);
	freezero(buf, len);
	if (set_string(&a->eab_kid, kid, "acme eab kid") == -1)
		return (-1);
	return (set_string(&a->eab_hmac_file, path, "acme eab hmac file"));
}

int
acme_per_hour(struct orchd_conf *c, int64_t n)
{
	if (c->acme->per_hour_set) {
		yyerror("acme issuances per hour already set");
		return (-1);
	}
	if (n < 1 || n > ACME_PER_HOUR_MAX) {
		yyerror("acme issuances per hour %lld: 1 to %d", (long long)n,
		    ACME_PER_HOUR_MAX);
		return (-1);
	}
	c->acme->per_hour = n;
	c->acme->per_hour_set = 1;
	return (0);
}
