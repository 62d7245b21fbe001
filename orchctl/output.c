/*
 * orchctl's printers.  show_output writes the text tables as each reply
 * arrives; json_output collects the replies and writes one JSON document
 * when the reply ends, so that a failed or cut-off reply prints nothing.
 */

#include <sys/types.h>

#include <ctype.h>
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "orchctl.h"

#define SUMMARY_FMT	"%-9s %-8s %-10s %-10s %s\n"

static void	 show_head(const struct parse_result *);
static void	 show_summary(const struct ctl_summary *);
static void	 show_result(const struct parse_result *);
static void	 show_tail(const struct parse_result *);
static void	 json_head(const struct parse_result *);
static void	 json_summary(const struct ctl_summary *);
static void	 json_result(const struct parse_result *);
static void	 json_tail(const struct parse_result *);
static void	 json_print(json_t *);
static const char *fmt_uptime(int64_t, char *, size_t);

const struct output show_output = {
	.head = show_head,
	.summary = show_summary,
	.result = show_result,
	.tail = show_tail
};

const struct output json_output = {
	.head = json_head,
	.summary = json_summary,
	.result = json_result,
	.tail = json_tail
};

/* the reply being collected by json_output */
static json_t	*json_items;

/* Replace what a terminal should not see; the string ends within len. */
void
str_printable(char *s, size_t len)
{
	size_t	 i;

	if (len == 0)
		return;
	s[len - 1] = '\0';
	for (i = 0; s[i] != '\0'; i++)
		if (!isprint((unsigned char)s[i]))
			s[i] = '?';
}

/*
 * Seconds as "59s", "1m0s", "1h2m3s", "3d0h0m5s": every unit from the
 * largest one that is not zero down to seconds.
 */
static const char *
fmt_uptime(int64_t secs, char *buf, size_t len)
{
	int64_t	 d, h, m, s;

	if (secs < 0) {
		(void)snprintf(buf, len, "-");
		return (buf);
	}
	d = secs / 86400;
	h = secs / 3600 % 24;
	m = secs / 60 % 60;
	s = secs % 60;
	if (d > 0)
		(void)snprintf(buf, len, "%" PRId64 "d%" PRId64 "h%" PRId64
		    "m%" PRId64 "s", d, h, m, s);
	else if (h > 0)
		(void)snprintf(buf, len, "%" PRId64 "h%" PRId64 "m%" PRId64
		    "s", h, m, s);
	else if (m > 0)
		(void)snprintf(buf, len, "%" PRId64 "m%" PRId64 "s", m, s);
	else
		(void)snprintf(buf, len, "%" PRId64 "s", s);
	return (buf);
}

static void
show_head(const struct parse_result *res)
{
	switch (res->action) {
	case SHOW_SUMMARY:
		printf(SUMMARY_FMT, "PROCESS", "PID", "UPTIME", "WORKLOADS",
		    "GENERATION");
		break;
	default:
		break;
	}
}

static void
show_summary(const struct ctl_summary *cs)
{
	char	 pid[16], uptime[32], workloads[16], generation[16];

	(void)snprintf(pid, sizeof(pid), "%ld", (long)cs->pid);
	(void)snprintf(workloads, sizeof(workloads), "%" PRIu32,
	    cs->workloads);
	(void)snprintf(generation, sizeof(generation), "%" PRIu32,
	    cs->generation);
	printf(SUMMARY_FMT, cs->name, pid,
	    fmt_uptime(cs->uptime, uptime, sizeof(uptime)), workloads,
	    generation);
}

static void
show_result(const struct parse_result *res)
{
	printf("command succeeded\n");
}

static void
show_tail(const struct parse_result *res)
{
}

static void
json_head(const struct parse_result *res)
{
	if ((json_items = json_array()) == NULL)
		errx(1, "out of memory");
}

static void
json_summary(const struct ctl_summary *cs)
{
	json_t	*o;

	o = json_pack("{s:s, s:I, s:I, s:I, s:I}",
	    "process", cs->name,
	    "pid", (json_int_t)cs->pid,
	    "uptime_seconds", (json_int_t)cs->uptime,
	    "workloads", (json_int_t)cs->workloads,
	    "generation", (json_int_t)cs->generation);
	if (o == NULL || json_array_append_new(json_items, o) == -1)
		errx(1, "cannot build the JSON reply");
}

static void
json_result(const struct parse_result *res)
{
	json_t	*o;

	if ((o = json_pack("{s:s}", "result", "ok")) == NULL)
		errx(1, "cannot build the JSON reply");
	json_print(o);
}

static void
json_tail(const struct parse_result *res)
{
	json_print(json_items);
	json_items = NULL;
}

/* Write a document, one value, on stdout; it is freed. */
static void
json_print(json_t *o)
{
	if (json_dumpf(o, stdout, JSON_INDENT(2)) == -1)
		errx(1, "cannot write the JSON reply");
	putchar('\n');
	json_decref(o);
}
