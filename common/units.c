/*
 * Units and names, shared by the config parser, the HTTP API and the
 * environment overrides: durations ("30", "30s", "5m", "1h"), sizes
 * ("512", "64K", "512M", "2G"), workload names and host patterns.
 */

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "orchd.h"
#include "log.h"

/* durations stay far from any overflow when turned into milliseconds */
#define DURATION_MAX	((int64_t)INT32_MAX)

/* DNS limits: RFC 1035 */
#define HOST_NAME_MAXLEN	253
#define HOST_LABEL_MAXLEN	63

#define WORKLOAD_NAME_MAXLEN	63

/*
 * Read the leading decimal digits of s into *n.  Returns the first
 * character after them, or NULL if there are none or the value would go
 * past max.
 */
static const char *
read_digits(const char *s, int64_t max, int64_t *n, int *toolarge)
{
	int64_t	 v = 0;
	int	 d;

	*toolarge = 0;
	if (!isdigit((unsigned char)*s))
		return (NULL);
	for (; isdigit((unsigned char)*s); s++) {
		d = *s - '0';
		if (v > (max - d) / 10) {
			*toolarge = 1;
			return (NULL);
		}
		v = v * 10 + d;
	}
	*n = v;
	return (s);
}

int
parse_duration(const char *str, int64_t *secs, const char **errstr)
{
	const char	*p, *dummy;
	int64_t		 n, mult;
	int		 toolarge;

	if (errstr == NULL)
		errstr = &dummy;
	*errstr = NULL;
	if (str == NULL || *str == '\0') {
		*errstr = "empty duration";
		return (-1);
	}
	if (*str == '-') {
		*errstr = "negative duration";
		return (-1);
	}
	if ((p = read_digits(str, DURATION_MAX, &n, &toolarge)) == NULL) {
		*errstr = toolarge ? "duration too large" : "invalid duration";
		return (-1);
	}
	switch (*p) {
	case '\0':
	case 's':
		mult = 1;
		break;
	case 'm':
		mult = 60;
		break;
	case 'h':
		mult = 60 * 60;
		break;
	case 'd':
		mult = 24 * 60 * 60;
		break;
	default:
		*errstr = "invalid duration";
		return (-1);
	}
	if (*p != '\0' && p[1] != '\0') {
		*errstr = "invalid duration";
		return (-1);
	}
	if (n > DURATION_MAX / mult) {
		*errstr = "duration too large";
		return (-1);
	}
	*secs = n * mult;
	return (0);
}

int
parse_size(const char *str, int64_t *bytes, const char **errstr)
{
	const char	*p, *dummy;
	int64_t		 n, mult;
	int		 toolarge;

	if (errstr == NULL)
		errstr = &dummy;
	*errstr = NULL;
	if (str == NULL || *str == '\0') {
		*errstr = "empty size";
		return (-1);
	}
	if (*str == '-') {
		*errstr = "negative size";
		return (-1);
	}
	if ((p = read_digits(str, INT64_MAX, &n, &toolarge)) == NULL) {
		*errstr = toolarge ? "size too large" : "invalid size";
		return (-1);
	}
	switch (*p) {
	case '\0':
		mult = 1;
		break;
	case 'K':
	case 'k':
		mult = 1024;
		break;
	case 'M':
	case 'm':
		mult = 1024 * 1024;
		break;
	case 'G':
	case 'g':
		mult = 1024 * 1024 * 1024;
		break;
	default:
		*errstr = "invalid size";
		return (-1);
	}
	if (*p != '\0' && p[1] != '\0') {
		*errstr = "invalid size";
		return (-1);
	}
	if (n > INT64_MAX / mult) {
		*errstr = "size too large";
		return (-1);
	}
	*bytes = n * mult;
	return (0);
}

/* the largest unit that divides secs exactly: "1h", "5m", "90s" */
char *
fmt_duration(int64_t secs, char *buf, size_t len)
{
	long long	 n = secs;
	const char	*unit = "s";

	if (secs > 0) {
		if (secs % (24 * 60 * 60) == 0) {
			n = secs / (24 * 60 * 60);
			unit = "d";
		} else if (secs % (60 * 60) == 0) {
			n = secs / (60 * 60);
			unit = "h";
		} else if (secs % 60 == 0) {
			n = secs / 60;
			unit = "m";
		}
	}
	if (len > 0)
		(void)snprintf(buf, len, "%lld%s", n, unit);
	return (buf);
}

/* containers are named orchd-NAME: [A-Za-z0-9][A-Za-z0-9_.-]{0,62} */
int
valid_workload_name(const char *name)
{
	size_t	 i;

	if (name == NULL || !isalnum((unsigned char)name[0]))
		return (0);
	for (i = 0; name[i] != '\0'; i++) {
		if (i >= WORKLOAD_NAME_MAXLEN)
			return (0);
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '.' && name[i] != '-')
			return (0);
	}
	return (1);
}

/*
 * A host name as in a Host header, without port: labels of letters,
 * digits and inner hyphens, 1 to 63 long, separated by single dots, 253
 * in all; or "*." followed by such a name, matching any name below it.
 */
int
valid_host_pattern(const char *host)
{
	const char	*p;
	size_t		 label = 0;

	if (host == NULL || strlen(host) > HOST_NAME_MAXLEN)
		return (0);
	if (host[0] == '*' && host[1] == '.')
		host += 2;
	if (*host == '\0')
		return (0);
	for (p = host; *p != '\0'; p++) {
		if (*p == '.') {
			if (label == 0 || p[-1] == '-')
				return (0);
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-')
			return (0);
		if (label == 0 && *p == '-')
			return (0);
		if (++label > HOST_LABEL_MAXLEN)
			return (0);
	}
	if (label == 0 || p[-1] == '-')
		return (0);
	return (1);
}
