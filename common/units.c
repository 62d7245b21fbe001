/*
 * Units and names, shared by the config parser, the HTTP API and the
 * environment overrides: durations ("30", "30s", "5m", "1h"), sizes
 * ("512", "64K", "512M", "2G"), stop signals ("TERM", "SIGQUIT"),
 * workload names and host patterns.
 */

#include <ctype.h>
#include <signal.h>
#include <stdint.h>
#include <strings.h>
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "wlimits.h"
#include "units.h"

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

/* a number with an optional one-letter unit, and what to say when wrong */
struct unit {
	char		 suffix;	/* '\0': no unit */
	int64_t		 mult;
};

struct quantity {
	const struct unit	*units;
	size_t			 nunits;
	int64_t			 max;
	const char		*empty;
	const char		*negative;
	const char		*invalid;
	const char		*toolarge;
};

static const struct unit duration_units[] = {
	{ '\0', 1 }, { 's', 1 }, { 'm', 60 }, { 'h', 60 * 60 },
	{ 'd', 24 * 60 * 60 }
};

static const struct unit size_units[] = {
	{ '\0', 1 }, { 'K', 1024 }, { 'k', 1024 }, { 'M', 1024 * 1024 },
	{ 'm', 1024 * 1024 }, { 'G', 1024 * 1024 * 1024 },
	{ 'g', 1024 * 1024 * 1024 }
};

static const struct quantity duration = {
	duration_units, nitems(duration_units), DURATION_MAX,
	"empty duration", "negative duration", "invalid duration",
	"duration too large"
};

static const struct quantity size = {
	size_units, nitems(size_units), INT64_MAX,
	"empty size", "negative size", "invalid size", "size too large"
};

static int
parse_quantity(const struct quantity *q, const char *str, int64_t *out,
    const char **errstr)
{
	const char	*p, *dummy;
	int64_t		 n;
	size_t		 i;
	int		 toolarge;

	if (errstr == NULL)
		errstr = &dummy;
	*errstr = NULL;
	if (str == NULL || *str == '\0') {
		*errstr = q->empty;
		return (-1);
	}
	if (*str == '-') {
		*errstr = q->negative;
		return (-1);
	}
	if ((p = read_digits(str, q->max, &n, &toolarge)) == NULL) {
		*errstr = toolarge ? q->toolarge : q->invalid;
		return (-1);
	}
	for (i = 0; i < q->nunits; i++)
		if (q->units[i].suffix == *p)
			break;
	if (i == q->nunits || (*p != '\0' && p[1] != '\0')) {
		*errstr = q->invalid;
		return (-1);
	}
	if (n > q->max / q->units[i].mult) {
		*errstr = q->toolarge;
		return (-1);
	}
	*out = n * q->units[i].mult;
	return (0);
}

int
parse_duration(const char *str, int64_t *secs, const char **errstr)
{
	return (parse_quantity(&duration, str, secs, errstr));
}

int
parse_size(const char *str, int64_t *bytes, const char **errstr)
{
	return (parse_quantity(&size, str, bytes, errstr));
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

/*
 * A number of CPUs, "2", "0.5" or "1.25", into thousandths: at most three
 * decimals, within LIM_CPU_MIN and LIM_CPU_MAX.  0, or -1 with *errstr.
 */
int
parse_cpu(const char *s, int64_t *n, const char **errstr)
{
	const char	*p;
	int64_t		 v;
	int		 big, scale = 1000;

	if ((p = read_digits(s, LIM_CPU_MAX / 1000, &v, &big)) == NULL) {
		*errstr = big ? "above 256" : "not a number of CPUs";
		return (-1);
	}
	v *= 1000;
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1])) {
			*errstr = "not a number of CPUs";
			return (-1);
		}
		for (p++; isdigit((unsigned char)*p); p++) {
			if ((scale /= 10) == 0) {
				*errstr = "more than three decimals";
				return (-1);
			}
			v += (*p - '0') * scale;
		}
	}
	if (*p != '\0') {
		*errstr = "not a number of CPUs";
		return (-1);
	}
	if (v < LIM_CPU_MIN || v > LIM_CPU_MAX) {
		*errstr = v < LIM_CPU_MIN ? "below 0.01" : "above 256";
		return (-1);
	}
	*n = v;
	return (0);
}

/* thousandths of a CPU as parse_cpu() reads them: "0.5", "2" */
char *
fmt_cpu(int64_t n, char *buf, size_t len)
{
	char	 frac[8];
	int	 i;

	(void)snprintf(frac, sizeof(frac), "%03lld", (long long)(n % 1000));
	for (i = 2; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	if (len > 0)
		(void)snprintf(buf, len, "%lld%s%s", (long long)(n / 1000),
		    frac[0] != '\0' ? "." : "", frac);
	return (buf);
}

/*
 * The signals a workload may be stopped with: those whose default action
 * ends a process, that a server may catch to shut down its own way (nginx
 * QUIT, Apache WINCH), and KILL.  Not STOP, CONT or the job control
 * signals, and no numbers: their meaning differs between systems.
 */
static const struct {
	const char	*name;
	int		 sig;
} stop_signals[] = {
	{ "SIGHUP",	SIGHUP },
	{ "SIGINT",	SIGINT },
	{ "SIGQUIT",	SIGQUIT },
	{ "SIGKILL",	SIGKILL },
	{ "SIGUSR1",	SIGUSR1 },
	{ "SIGUSR2",	SIGUSR2 },
	{ "SIGTERM",	SIGTERM },
	{ "SIGWINCH",	SIGWINCH },
	{ "SIGPWR",	SIGPWR }
};

/* "TERM" or "SIGTERM", in any case, as kill(1) takes them */
int
parse_signal(const char *str, int *sig, const char **errstr)
{
	const char	*dummy;
	size_t		 i;

	if (errstr == NULL)
		errstr = &dummy;
	*errstr = NULL;
	if (str == NULL || *str == '\0') {
		*errstr = "empty signal name";
		return (-1);
	}
	if (strncasecmp(str, "SIG", 3) == 0)
		str += 3;
	for (i = 0; i < nitems(stop_signals); i++)
		if (strcasecmp(str, stop_signals[i].name + 3) == 0) {
			*sig = stop_signals[i].sig;
			return (0);
		}
	*errstr = "unknown signal: one of TERM, INT, QUIT, HUP, USR1, USR2, "
	    "WINCH, PWR or KILL";
	return (-1);
}

/* "SIGTERM", as Docker's StopSignal takes it; NULL if not a stop signal */
const char *
signal_name(int sig)
{
	size_t	 i;

	for (i = 0; i < nitems(stop_signals); i++)
		if (stop_signals[i].sig == sig)
			return (stop_signals[i].name);
	return (NULL);
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
