/*
 * Warm windows ("keep warm during") and scheduled wakes ("wake at"):
 * their text, which comes from orchd.conf and from the API alike, parsed
 * into a struct sched_spec, and the next window or wake computed.
 *
 *	window:	DAYS HH:MM-HH:MM [timezone ZONE]
 *		DAYS a list of days and ranges, monday to sunday: "mon-fri",
 *		"sat,sun", "*"; a range never wraps ("fri-mon" is refused,
 *		"fri-sun,mon" says it).  An end at or before the start ends
 *		the next day: "fri 22:00-02:00" runs into saturday.
 *	wake:	MIN HOUR MDAY MONTH WDAY [timezone ZONE] [for DURATION]
 *		the five fields of cron(5): lists, ranges, steps, the names
 *		jan-dec and sun-sat; no sixth (seconds) field.
 *
 * A zone is a file of the system's tzdata (SCHED_ZONEINFO); without one,
 * the host's (SCHED_LOCALTIME).  Processes in a chroot cannot read those,
 * so the parent reads each named zone's POSIX rule, the line its file
 * ends with ("CET-1CEST,M3.5.0,M10.5.0/3"), and sends it with the
 * definition; the times are computed from that rule alone, here.  A
 * local time that a change to summer time skips is taken as the moment
 * of the change; one that the change back repeats, at its first pass.
 *
 * The clock is the wall clock, shifted by ORCHD_TEST_CLOCK_OFFSET for
 * the tests alone (sched_clock_init).
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "schedule.h"
#include "units.h"

#define DAY		86400
#define SCHED_TOKENS	12	/* words of one schedule, at most */
#define SCHED_YEARS	8	/* a wake's next is looked for this far */
#define CLOCK_SHIFT_MAX	(20LL * 366 * DAY)	/* the tests' shift */
#define TZIF_MAX	(1024 * 1024)	/* a zone file's bytes */

static const char *const wday_names[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat"
};
static const char *const month_names[] = {
	"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
	"nov", "dec"
};

static int64_t	clock_shift;

static int
fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	if (len > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return (-1);
}

/*
 * Calendar arithmetic on days since 1970-01-01, proleptic Gregorian,
 * without the C library's time zone code (it would read files).
 */
static int64_t
civil_days(int64_t y, int m, int d)
{
	int64_t	 era, yoe, doy, doe;

	if (m <= 2)
		y--;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468);
}

static void
civil_from(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t	 z = days + 719468, era, doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* 0 sunday ... 6 saturday; 1970-01-01 was a thursday */
static int
weekday(int64_t days)
{
	int64_t	 w = (days + 4) % 7;

	return ((int)(w < 0 ? w + 7 : w));
}

static int64_t
floordiv(int64_t a, int64_t b)
{
	return (a >= 0 ? a / b : -((-a + b - 1) / b));
}

static int
leap(int64_t y)
{
	return ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
}

/*
 * The POSIX TZ rule (tzfile(5), the footer of a version 2+ file).
 */

/* a zone abbreviation: 3 letters or more, or <...> */
static const char *
tz_name(const char *p)
{
	const char	*s = p;

	if (*p == '<') {
		for (p++; *p != '\0' && *p != '>'; p++)
			if (!isalnum((unsigned char)*p) && *p != '+' &&
			    *p != '-')
				return (NULL);
		return (*p == '>' && p - s >= 4 ? p + 1 : NULL);
	}
	while (isalpha((unsigned char)*p))
		p++;
	return (p - s >= 3 ? p : NULL);
}

/* [+-]hh[:mm[:ss]], hours up to max: seconds into *v */
static const char *
tz_hms(const char *p, int max, int32_t *v)
{
	int	 sign = 1, n, i, part[3] = { 0, 0, 0 };

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	for (i = 0; i < 3; i++) {
		if (i > 0) {
			if (*p != ':')
				break;
			p++;
		}
		if (!isdigit((unsigned char)*p))
			return (NULL);
		for (n = 0; isdigit((unsigned char)*p) && n < 1000; p++)
			n = n * 10 + (*p - '0');
		if (n > (i == 0 ? max : 59))
			return (NULL);
		part[i] = n;
	}
	*v = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
	return (p);
}

static const char *
tz_num(const char *p, int lo, int hi, int *v)
{
	int	 n = 0;

	if (!isdigit((unsigned char)*p))
		return (NULL);
	for (; isdigit((unsigned char)*p) && n <= hi; p++)
		n = n * 10 + (*p - '0');
	if (n < lo || n > hi)
		return (NULL);
	*v = n;
	return (p);
}

/* Mm.w.d, Jn or n, then [/time] (default 02:00) */
static const char *
tz_date(const char *p, struct sched_tzdate *dt)
{
	memset(dt, 0, sizeof(*dt));
	dt->secs = 2 * 3600;
	if (*p == 'M') {
		dt->kind = 'M';
		if ((p = tz_num(p + 1, 1, 12, &dt->m)) == NULL || *p++ != '.' ||
		    (p = tz_num(p, 1, 5, &dt->w)) == NULL || *p++ != '.' ||
		    (p = tz_num(p, 0, 6, &dt->d)) == NULL)
			return (NULL);
	} else if (*p == 'J') {
		dt->kind = 'J';
		if ((p = tz_num(p + 1, 1, 365, &dt->n)) == NULL)
			return (NULL);
	} else {
		dt->kind = 'n';
		if ((p = tz_num(p, 0, 365, &dt->n)) == NULL)
			return (NULL);
	}
	if (*p == '/')
		p = tz_hms(p + 1, 167, &dt->secs);
	return (p);
}

/* "CET-1CEST,M3.5.0,M10.5.0/3" into tz; -1 if it is not a rule */
int
sched_tz_parse(const char *rule, struct sched_tz *tz)
{
	const char	*p = rule;
	int32_t		 v;

	memset(tz, 0, sizeof(*tz));
	if (strlen(rule) >= SCHED_RULE_MAX ||
	    (p = tz_name(p)) == NULL || (p = tz_hms(p, 24, &v)) == NULL)
		return (-1);
	tz->std_off = tz->dst_off = -v;
	if (*p == '\0')
		return (0);
	if ((p = tz_name(p)) == NULL)
		return (-1);
	tz->has_dst = 1;
	tz->dst_off = tz->std_off + 3600;
	if (*p != ',' && *p != '\0') {
		if ((p = tz_hms(p, 24, &v)) == NULL)
			return (-1);
		tz->dst_off = -v;
	}
	if (*p == '\0')
		p = ",M3.2.0,M11.1.0";	/* POSIX leaves it open: the US's */
	if (*p++ != ',' || (p = tz_date(p, &tz->start)) == NULL ||
	    *p++ != ',' || (p = tz_date(p, &tz->end)) == NULL || *p != '\0')
		return (-1);
	return (0);
}

/* the day (since the epoch) a rule's date falls on in year y */
static int64_t
tz_day(const struct sched_tzdate *dt, int64_t y)
{
	int64_t	 first, len, day;

	if (dt->kind == 'J')
		return (civil_days(y, 1, 1) + dt->n - 1 +
		    (leap(y) && dt->n >= 60));
	if (dt->kind == 'n')
		return (civil_days(y, 1, 1) + dt->n);
	first = civil_days(y, dt->m, 1);
	len = (dt->m == 12 ? civil_days(y + 1, 1, 1) :
	    civil_days(y, dt->m + 1, 1)) - first;
	day = first + (dt->d - weekday(first) + 7) % 7 + (dt->w - 1) * 7;
	while (day >= first + len)
		day -= 7;
	return (day);
}

/* seconds east of UTC at t */
int32_t
sched_tz_offset(const struct sched_tz *tz, time_t t)
{
	int64_t	 y, s, e;
	int	 m, d, dst;

	if (!tz->has_dst)
		return (tz->std_off);
	civil_from(floordiv((int64_t)t + tz->std_off, DAY), &y, &m, &d);
	s = tz_day(&tz->start, y) * DAY + tz->start.secs - tz->std_off;
	e = tz_day(&tz->end, y) * DAY + tz->end.secs - tz->dst_off;
	if (s < e)
		dst = t >= s && t < e;
	else
		dst = !(t >= e && t < s);
	return (dst ? tz->dst_off : tz->std_off);
}

/*
 * A local time, counted as if it were UTC, to the instant it names: the
 * first of two in the hour the change back repeats, the change itself
 * for one in the hour that the change forward skips.
 */
time_t
sched_tz_utc(const struct sched_tz *tz, time_t local)
{
	time_t	 a = local - tz->std_off, b = local - tz->dst_off, lo, hi, mid;
	int	 va, vb;

	va = sched_tz_offset(tz, a) == tz->std_off;
	vb = sched_tz_offset(tz, b) == tz->dst_off;
	if (va && vb)
		return (a < b ? a : b);
	if (va || vb)
		return (va ? a : b);
	lo = a < b ? a : b;
	hi = a < b ? b : a;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (sched_tz_offset(tz, mid) == sched_tz_offset(tz, hi))
			hi = mid;
		else
			lo = mid;
	}
	return (hi);
}

/*
 * Zones.
 */

/* "Europe/Paris": words of [A-Za-z0-9_+-] between slashes, no ".." */
int
sched_zone_valid(const char *z)
{
	const char	*p;
	size_t		 n;

	if (z[0] == '\0' || strlen(z) >= SCHED_ZONE_MAX)
		return (0);
	for (p = z; *p != '\0'; p += n + (p[n] == '/')) {
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
		    "tuvwxyz0123456789_+-");
		if (n == 0 || (p[n] != '/' && p[n] != '\0') ||
		    (p[n] == '/' && p[n + 1] == '\0'))
			return (0);
	}
	return (1);
}

/*
 * The POSIX rule of zone (NULL or "": the host's) into buf: the last
 * line of its tzfile(5), a version 2 file or later.  0, or -1 with err.
 */
int
sched_zone_rule(const char *zone, char *buf, size_t len, char *err,
    size_t errlen)
{
	char		 path[PATH_MAX], tail[SCHED_RULE_MAX + 2], head[5];
	struct stat	 st;
	struct sched_tz	 tz;
	ssize_t		 n;
	off_t		 at;
	char		*nl;
	int		 fd;

	if (zone == NULL || zone[0] == '\0')
		(void)strlcpy(path, SCHED_LOCALTIME, sizeof(path));
	else if (!sched_zone_valid(zone))
		return (fail(err, errlen, "timezone: not a zone name"));
	else
		(void)snprintf(path, sizeof(path), "%s/%s", SCHED_ZONEINFO,
		    zone);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return (fail(err, errlen, "timezone %s: no such zone in %s",
		    zone != NULL && zone[0] != '\0' ? zone : "(the host's)",
		    SCHED_ZONEINFO));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > TZIF_MAX || st.st_size < 48 ||
	    pread(fd, head, 5, 0) != 5 || memcmp(head, "TZif", 4) != 0 ||
	    head[4] < '2')
		goto bad;
	at = st.st_size > (off_t)sizeof(tail) - 1 ?
	    st.st_size - (off_t)(sizeof(tail) - 1) : 0;
	if ((n = pread(fd, tail, sizeof(tail) - 1, at)) <= 1)
		goto bad;
	tail[n] = '\0';
	if (tail[n - 1] != '\n')
		goto bad;
	tail[n - 1] = '\0';
	/* the rule's line, after the binary data and its NULs */
	if ((nl = memrchr(tail, '\n', n - 1)) == NULL ||
	    sched_tz_parse(nl + 1, &tz) == -1 ||
	    strlcpy(buf, nl + 1, len) >= len)
		goto bad;
	close(fd);
	return (0);
 bad:
	close(fd);
	return (fail(err, errlen, "timezone %s: %s is not a tzfile with a "
	    "rule (version 2 or later)", zone != NULL && zone[0] != '\0' ?
	    zone : "(the host's)", path));
}

/*
 * The text.
 */

/* s into at most max words; -1 if more, or a byte that is not text */
static int
words(char *s, char **w, int max)
{
	int	 n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			*s++ = '\0';
		if (*s == '\0')
			return (n);
		if (n == max)
			return (-1);
		w[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
	}
}

static int
name_index(const char *s, size_t len, const char *const *names, int n)
{
	int	 i;

	if (len != 3)
		return (-1);
	for (i = 0; i < n; i++)
		if (strncasecmp(s, names[i], 3) == 0)
			return (i);
	return (-1);
}

/* a day of "mon-fri": 0 sunday ... 6 saturday */
static int
day_of(const char *s, size_t len)
{
	return (name_index(s, len, wday_names, 7));
}

/* monday first, as the ranges of a window go */
#define MONFIRST(d)	(((d) + 6) % 7)

static int
parse_days(const char *s, uint8_t *set, char *err, size_t len)
{
	const char	*p = s, *c, *dash;
	int		 a, b, i;

	*set = 0;
	if (strcmp(s, "*") == 0) {
		*set = 0x7f;
		return (0);
	}
	for (; *p != '\0'; p = *c == ',' ? c + 1 : c) {
		c = p + strcspn(p, ",");
		dash = memchr(p, '-', c - p);
		a = day_of(p, (dash != NULL ? dash : c) - p);
		b = dash != NULL ? day_of(dash + 1, c - dash - 1) : a;
		if (a == -1 || b == -1)
			return (fail(err, len, "days \"%.*s\": days are mon, "
			    "tue, wed, thu, fri, sat, sun, ranges of them "
			    "(mon-fri) and lists (sat,sun)", (int)(c - p), p));
		if (MONFIRST(a) > MONFIRST(b))
			return (fail(err, len, "days %s-%s: a range runs from "
			    "monday to sunday and does not wrap: write it as "
			    "%s-sun,mon%s%s", wday_names[a], wday_names[b],
			    wday_names[a], b == 1 ? "" : "-",
			    b == 1 ? "" : wday_names[b]));
		for (i = MONFIRST(a); i <= MONFIRST(b); i++)
			*set |= 1 << ((i + 1) % 7);
		if (*c == ',' && c[1] == '\0')
			return (fail(err, len, "days \"%s\": ends with ','", s));
	}
	return (*set != 0 ? 0 : fail(err, len, "no days"));
}

/* "09:00" into minutes of the day; 24:00 only as an end */
static int
parse_hhmm(const char *s, size_t n, int end, int *min, char *err,
    size_t len)
{
	int	 h, m;

	if (n != 5 || !isdigit((unsigned char)s[0]) ||
	    !isdigit((unsigned char)s[1]) || s[2] != ':' ||
	    !isdigit((unsigned char)s[3]) || !isdigit((unsigned char)s[4]))
		return (fail(err, len, "time \"%.*s\": must be HH:MM, as "
		    "09:00", (int)(n < 16 ? n : 16), s));
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	if (m > 59 || h > 24 || (h == 24 && (m != 0 || !end)))
		return (fail(err, len, "time %.5s: hours are 00 to 23, "
		    "minutes 00 to 59 (24:00 only as an end)", s));
	*min = h * 60 + m;
	return (0);
}

static int
parse_window(char **w, int n, struct sched_spec *sp, char *err, size_t len)
{
	const char	*dash;

	if (n != 2)
		return (fail(err, len, "a window is DAYS HH:MM-HH:MM, as "
		    "\"mon-fri 09:00-18:00\""));
	if (parse_days(w[0], &sp->wdays, err, len) == -1)
		return (-1);
	if ((dash = strchr(w[1], '-')) == NULL)
		return (fail(err, len, "hours \"%s\": must be HH:MM-HH:MM",
		    w[1]));
	if (parse_hhmm(w[1], dash - w[1], 0, &sp->from, err, len) == -1 ||
	    parse_hhmm(dash + 1, strlen(dash + 1), 1, &sp->to, err,
	    len) == -1)
		return (-1);
	if (sp->from == sp->to)
		return (fail(err, len, "hours %s: the window is empty", w[1]));
	if (sp->to == 24 * 60)
		sp->to = 0;
	return (0);
}

/* one number of a cron field, or a name where the field has them */
static int
cron_value(const char *s, size_t n, int lo, int hi,
    const char *const *names, int base, int *v)
{
	int	 i, x = 0;

	if (names != NULL && (i = name_index(s, n, names,
	    names == month_names ? 12 : 7)) != -1) {
		*v = i + base;
		return (0);
	}
	if (n == 0 || n > 2)
		return (-1);
	for (i = 0; (size_t)i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return (-1);
		x = x * 10 + (s[i] - '0');
	}
	if (x < lo || x > hi)
		return (-1);
	*v = x;
	return (0);
}

static const char *const cron_labels[] = {
	"minute", "hour", "day of month", "month", "day of week"
};
static const int cron_lo[] = { 0, 0, 1, 1, 0 };
static const int cron_hi[] = { 59, 23, 31, 12, 7 };

/* one field of a cron line: items "*", "N", "N-M", each "/STEP" */
static int
cron_field(const char *s, int f, uint64_t *set, int *any, char *err,
    size_t len)
{
	const char *const	*names = f == 3 ? month_names :
				    f == 4 ? wday_names : NULL;
	const char		*p, *c, *slash, *dash, *end;
	int			 lo = cron_lo[f], hi = cron_hi[f];
	int			 a, b, step, i;

	*set = 0;
	*any = strcmp(s, "*") == 0;
	for (p = s; *p != '\0'; p = *c == ',' ? c + 1 : c) {
		c = p + strcspn(p, ",");
		if (c == p || (*c == ',' && c[1] == '\0'))
			goto bad;
		slash = memchr(p, '/', c - p);
		end = slash != NULL ? slash : c;
		step = 1;
		if (slash != NULL && (cron_value(slash + 1, c - slash - 1, 1,
		    hi, NULL, 0, &step) == -1))
			goto bad;
		if (end - p == 1 && *p == '*') {
			a = lo;
			b = hi;
		} else if ((dash = memchr(p, '-', end - p)) != NULL) {
			if (cron_value(p, dash - p, lo, hi, names, f == 3,
			    &a) == -1 || cron_value(dash + 1, end - dash - 1,
			    lo, hi, names, f == 3, &b) == -1)
				goto bad;
			if (a > b)
				return (fail(err, len, "%s %.*s: a range goes "
				    "up, %d-%d does not", cron_labels[f],
				    (int)(c - p), p, a, b));
		} else {
			if (cron_value(p, end - p, lo, hi, names, f == 3,
			    &a) == -1)
				goto bad;
			b = slash != NULL ? hi : a;
		}
		for (i = a; i <= b; i += step)
			*set |= 1ULL << (f == 4 ? i % 7 : i);
	}
	return (0);
 bad:
	return (fail(err, len, "%s \"%.32s\": must be *, N, N-M or lists of "
	    "them, each with an optional /STEP, N from %d to %d%s",
	    cron_labels[f], s, lo, hi, f == 3 ? " or jan to dec" :
	    f == 4 ? " or sun to sat" : ""));
}

static int
parse_wake(char **w, int n, struct sched_spec *sp, char *err, size_t len)
{
	uint64_t	 set[5];
	int		 any[5], f;

	if (n != 5)
		return (fail(err, len, "a cron line of %d field%s: orchd takes "
		    "5 (minute hour day-of-month month day-of-week), no "
		    "seconds or years", n, n == 1 ? "" : "s"));
	for (f = 0; f < 5; f++)
		if (cron_field(w[f], f, &set[f], &any[f], err, len) == -1)
			return (-1);
	sp->minutes = set[0];
	sp->hours = (uint32_t)set[1];
	sp->mdays = (uint32_t)set[2];
	sp->months = (uint16_t)set[3];
	sp->wdays = (uint8_t)set[4];
	sp->mday_any = any[2];
	sp->wday_any = any[4];
	return (0);
}

/*
 * A window's or a wake's text into sp.  0, or -1 with a sentence in err
 * that names what is wrong.
 */
int
sched_parse(enum sched_kind kind, const char *text, struct sched_spec *sp,
    char *err, size_t len)
{
	char		 buf[SCHED_TEXT_MAX], *w[SCHED_TOKENS];
	const char	*p, *errstr;
	int		 n, i;

	memset(sp, 0, sizeof(*sp));
	sp->kind = kind;
	for (p = text; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return (fail(err, len, "a byte that is not printable "
			    "ASCII"));
	if (strlcpy(buf, text, sizeof(buf)) >= sizeof(buf))
		return (fail(err, len, "longer than %d bytes",
		    SCHED_TEXT_MAX - 1));
	if ((n = words(buf, w, SCHED_TOKENS)) == -1)
		return (fail(err, len, "\"%.32s...\": too many words", text));
	for (i = 0; i < n; i++)
		if (strcmp(w[i], "timezone") == 0 || strcmp(w[i], "for") == 0)
			break;
	if ((kind == SCHED_WINDOW ? parse_window(w, i, sp, err, len) :
	    parse_wake(w, i, sp, err, len)) == -1)
		return (-1);
	if (i < n && strcmp(w[i], "timezone") == 0) {
		if (i + 1 == n || !sched_zone_valid(w[i + 1]))
			return (fail(err, len, "timezone \"%.*s\": must be a "
			    "zone of %s, as Europe/Paris", SCHED_ZONE_MAX,
			    i + 1 < n ? w[i + 1] : "", SCHED_ZONEINFO));
		(void)strlcpy(sp->zone, w[i + 1], sizeof(sp->zone));
		i += 2;
	}
	if (kind == SCHED_WAKE && i < n && strcmp(w[i], "for") == 0) {
		if (i + 1 == n || parse_duration(w[i + 1], &sp->hold,
		    &errstr) == -1 || sp->hold < 1 ||
		    sp->hold > SCHED_HOLD_MAX)
			return (fail(err, len, "wake at ... for: a duration "
			    "from 1s to 7d"));
		i += 2;
	}
	if (i != n)
		return (fail(err, len, "\"%.32s\": unexpected; after the %s "
		    "come only%s", w[i], kind == SCHED_WINDOW ? "hours" :
		    "cron line", kind == SCHED_WINDOW ? " timezone ZONE" :
		    " timezone ZONE, then for DURATION"));
	return (0);
}

/*
 * The next times.
 */

static int
wake_day(const struct sched_spec *sp, int64_t day)
{
	int64_t	 y;
	int	 m, d, md, wd;

	civil_from(day, &y, &m, &d);
	if (!(sp->months & (1U << m)))
		return (0);
	md = (sp->mdays & (1U << d)) != 0;
	wd = (sp->wdays & (1U << weekday(day))) != 0;
	if (sp->mday_any || sp->wday_any)
		return ((sp->mday_any || md) && (sp->wday_any || wd));
	return (md || wd);	/* both given: either, as cron(5) says */
}

/*
 * The first window, or wake, whose end is after now: [*start, *end).  A
 * wake lasts its "for", or a minute without one (the minute in which it
 * is due).  0, or -1 if there is none (a wake on February 30).
 */
int
sched_next(const struct sched_spec *sp, const struct sched_tz *tz,
    time_t now, time_t *start, time_t *end)
{
	int64_t	 day, d, span;
	time_t	 s, e;
	int	 h, m;

	if (sp->kind == SCHED_WINDOW) {
		day = floordiv((int64_t)now + sched_tz_offset(tz, now), DAY);
		for (d = day - 1; d <= day + 8; d++) {
			if (!(sp->wdays & (1 << weekday(d))))
				continue;
			s = sched_tz_utc(tz, d * DAY + sp->from * 60);
			e = sched_tz_utc(tz, (sp->to <= sp->from ? d + 1 : d) *
			    DAY + sp->to * 60);
			if (e > now && e > s) {
				*start = s;
				*end = e;
				return (0);
			}
		}
		return (-1);
	}
	span = sp->hold > 0 ? sp->hold : 60;
	now -= span - 1;	/* a wake that began within span is current */
	day = floordiv((int64_t)now + sched_tz_offset(tz, now), DAY) - 1;
	for (d = day; d <= day + SCHED_YEARS * 366; d++) {
		if (!wake_day(sp, d))
			continue;
		for (h = 0; h < 24; h++) {
			if (!(sp->hours & (1U << h)))
				continue;
			for (m = 0; m < 60; m++) {
				if (!(sp->minutes & (1ULL << m)))
					continue;
				s = sched_tz_utc(tz, d * DAY + h * 3600 +
				    m * 60);
				if (s >= now) {
					*start = s;
					*end = s + span;
					return (0);
				}
			}
		}
	}
	return (-1);
}

/*
 * The next of one schedule's text, its zone's rule read from the tzdata
 * here, as orchctl, which may, shows it; the host's zone is UTC where
 * there is no /etc/localtime.  0, or -1.
 */
int
sched_text_next(enum sched_kind kind, const char *text, time_t now,
    time_t *start, time_t *end)
{
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	char			 rule[SCHED_RULE_MAX], err[256];

	if (sched_parse(kind, text, &sp, err, sizeof(err)) == -1)
		return (-1);
	if (sched_zone_rule(sp.zone, rule, sizeof(rule), err,
	    sizeof(err)) == -1) {
		if (sp.zone[0] != '\0')
			return (-1);
		(void)strlcpy(rule, "UTC0", sizeof(rule));
	}
	if (sched_tz_parse(rule, &tz) == -1)
		return (-1);
	return (sched_next(&sp, &tz, now, start, end));
}

/*
 * The clock.  ORCHD_TEST_CLOCK_OFFSET, seconds, shifts it for the tests
 * (regress/e2e/sched.sh): the schedules alone see the shift.
 */
int
sched_clock_init(const char *v, char *err, size_t len)
{
	const char	*errstr;
	long long	 n;

	clock_shift = 0;
	if (v == NULL || *v == '\0')
		return (0);
	n = strtonum(v, -CLOCK_SHIFT_MAX, CLOCK_SHIFT_MAX, &errstr);
	if (errstr != NULL)
		return (fail(err, len, "ORCHD_TEST_CLOCK_OFFSET \"%.32s\" is "
		    "%s: seconds from %lld to %lld", v, errstr,
		    -CLOCK_SHIFT_MAX, CLOCK_SHIFT_MAX));
	clock_shift = n;
	return (0);
}

time_t
sched_now(void)
{
	return (time(NULL) + clock_shift);
}
