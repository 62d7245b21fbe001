/*
 * The Prometheus text exposition format, version 0.0.4: a family is
 * "# HELP name text" and "# TYPE name type", then one line per sample,
 * "name{label="value",...} number".  Label values escape backslash,
 * double quote and line feed; HELP text backslash and line feed.
 * Numbers are written so that Go's ParseFloat reads them back exactly:
 * integers as such, other values in the fewest digits that do, and NaN,
 * +Inf and -Inf by name.
 */

#include <event.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* escape src into dst (len bytes, NUL-terminated); the length written */
size_t
prom_escape(char *dst, size_t len, const char *src)
{
	size_t	 n = 0;
	char	 e;

	if (len == 0)
		return (0);
	for (; *src != '\0'; src++) {
		e = *src == '\\' ? '\\' : *src == '"' ? '"' :
		    *src == '\n' ? 'n' : '\0';
		if (n + (e != '\0' ? 2 : 1) >= len)
			break;
		if (e != '\0') {
			dst[n++] = '\\';
			dst[n++] = e;
		} else
			dst[n++] = *src;
	}
	dst[n] = '\0';
	return (n);
}

void
prom_value(char *buf, size_t len, double v)
{
	int	 p;

	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	else if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else {
		/* the shortest form that reads back the same: 0.005 */
		for (p = 1; p < 17; p++) {
			snprintf(buf, len, "%.*g", p, v);
			if (strtod(buf, NULL) == v)
				return;
		}
		snprintf(buf, len, "%.17g", v);
	}
}

void
prom_family(struct evbuffer *b, const char *name, const char *type,
    const char *help)
{
	char	 text[512];
	size_t	 i, n = 0;

	/* HELP escapes \ and line feeds, not quotes */
	for (i = 0; help[i] != '\0' && n + 2 < sizeof(text); i++) {
		if (help[i] == '\\' || help[i] == '\n') {
			text[n++] = '\\';
			text[n++] = help[i] == '\n' ? 'n' : '\\';
		} else
			text[n++] = help[i];
	}
	text[n] = '\0';
	evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text,
	    name, type);
}

/* labels: already escaped, "a=\"x\",b=\"y\"", or NULL or "" for none */
void
prom_sample(struct evbuffer *b, const char *name, const char *labels,
    double v)
{
	char	 num[64];

	prom_value(num, sizeof(num), v);
	if (labels != NULL && *labels != '\0')
		evbuffer_add_printf(b, "%s{%s} %s\n", name, labels, num);
	else
		evbuffer_add_printf(b, "%s %s\n", name, num);
}

void
prom_sample_u64(struct evbuffer *b, const char *name, const char *labels,
    uint64_t v)
{
	if (labels != NULL && *labels != '\0')
		evbuffer_add_printf(b, "%s{%s} %" PRIu64 "\n", name, labels, v);
	else
		evbuffer_add_printf(b, "%s %" PRIu64 "\n", name, v);
}

/* the bucket v falls in: the first bound >= v, or n for +Inf */
size_t
prom_bucket(const double *bounds, size_t n, double v)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (v <= bounds[i])
			return (i);
	return (n);
}

/*
 * A histogram from per-bucket counts (n bounds, n + 1 counts, the last
 * for +Inf): the cumulative _bucket lines, _sum and _count.  labels as
 * for prom_sample, without le.
 */
void
prom_histogram(struct evbuffer *b, const char *name, const char *labels,
    const double *bounds, const uint64_t *counts, size_t n, double sum)
{
	char		 metric[128], lab[512], le[64];
	const char	*sep = labels != NULL && *labels != '\0' ? "," : "";
	uint64_t	 total = 0;
	size_t		 i;

	if (labels == NULL)
		labels = "";
	snprintf(metric, sizeof(metric), "%s_bucket", name);
	for (i = 0; i <= n; i++) {
		total += counts[i];
		if (i < n)
			prom_value(le, sizeof(le), bounds[i]);
		else
			strlcpy(le, "+Inf", sizeof(le));
		snprintf(lab, sizeof(lab), "%s%sle=\"%s\"", labels, sep, le);
		prom_sample_u64(b, metric, lab, total);
	}
	snprintf(metric, sizeof(metric), "%s_sum", name);
	prom_sample(b, metric, labels, sum);
	snprintf(metric, sizeof(metric), "%s_count", name);
	prom_sample_u64(b, metric, labels, total);
}
