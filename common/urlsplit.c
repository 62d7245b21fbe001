/*
 * A URL of the outbound HTTP client (common/https.c) into its parts,
 * apart from it so that the configuration's parser checks a "notify"
 * URL with the very function notifyd uses, without linking libtls.
 */

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "compat.h"
#include "https.h"

/*
 * https://HOST[:PORT]/PATH, or http:// (*tls then 0), into its parts;
 * an IPv6 literal in brackets.  No user, no fragment, nothing but
 * visible ASCII: what goes on the request line cannot split it.
 */
int
https_url_parse(const char *url, int *tls, char *host, size_t hostlen,
    char *port, size_t portlen, char *path, size_t pathlen)
{
	const char	*p, *end, *slash;
	size_t		 n;

	if (strncmp(url, "https://", 8) == 0) {
		*tls = 1;
		p = url + 8;
	} else if (strncmp(url, "http://", 7) == 0) {
		*tls = 0;
		p = url + 7;
	} else
		return (-1);
	if ((slash = strchr(p, '/')) == NULL)
		slash = p + strlen(p);
	if (memchr(p, '@', slash - p) != NULL || strchr(p, '#') != NULL)
		return (-1);
	if (*p == '[') {
		if ((end = memchr(p, ']', slash - p)) == NULL)
			return (-1);
		n = end - p - 1;
		p++;
		end++;
	} else {
		if ((end = memchr(p, ':', slash - p)) == NULL)
			end = slash;
		n = end - p;
	}
	if (n == 0 || n >= hostlen)
		return (-1);
	memcpy(host, p, n);
	host[n] = '\0';
	if (*end == ':') {
		n = slash - end - 1;
		if (n == 0 || n >= portlen)
			return (-1);
		memcpy(port, end + 1, n);
		port[n] = '\0';
	} else if (end == slash)
		strlcpy(port, *tls ? "443" : "80", portlen);
	else
		return (-1);
	if (strlcpy(path, *slash == '\0' ? "/" : slash, pathlen) >= pathlen)
		return (-1);
	for (p = url; *p != '\0'; p++)
		if (!isgraph((unsigned char)*p))
			return (-1);
	return (0);
}

/* https:// alone, as acmed wants */
int
https_url_split(const char *url, char *host, size_t hostlen, char *port,
    size_t portlen, char *path, size_t pathlen)
{
	int	 tls;

	if (https_url_parse(url, &tls, host, hostlen, port, portlen, path,
	    pathlen) == -1 || !tls)
		return (-1);
	return (0);
}
