/*
 * orchctl's printers.  show_output collects the rows of a table and
 * writes it when the reply ends, each column as wide as its widest cell,
 * so that a long name never shifts the columns after it; json_output
 * collects the replies and writes one JSON document when the reply ends.
 * Either way a failed or cut-off reply prints no half a table.
 *
 * Times are printed as RFC 3339 in UTC (null in JSON when there is none),
 * durations in JSON as seconds.
 */

#include <sys/types.h>

#include <ctype.h>
#include <err.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "budget.h"
#include "cause.h"
#include "compat.h"
#include "msg.h"
#include "schedule.h"
#include "units.h"
#include "util.h"
#include "workload.h"
#include "workload_fields.h"
#include "orchctl.h"
#include "parser.h"
#include "ctlcall.h"

#define DETAIL_FMT	"%-14s%s\n"
#define STATS_TOTAL	"(total)"	/* no workload is called that */

/*
 * A text table: the header and every row kept until the reply ends.
 * align has one letter per column, 'l' or 'r'; the last column is never
 * padded, so that no line ends in blanks.
 */
#define TABLE_COLS_MAX	12
#define TABLE_GAP	"  "		/* between two columns */
struct table {
	const char	*align;
	int		 ncols;
	char		**cells;	/* nrows * ncols */
	size_t		 nrows;
	size_t		 maxrows;
	size_t		 width[TABLE_COLS_MAX];
};

static void	 show_head(const struct parse_result *);
static void	 show_summary(const struct ctl_summary *);
static void	 show_store_queue(const struct st_queue_stats *);
static void	 keep_alog_queue(const struct alog_queue_stats *);
static void	 show_budget(const struct rt_budget *);
static void	 show_workload(const struct parse_result *,
		    const struct ctl_workload *);
static void	 show_transition(const struct parse_result *,
		    const struct ctl_transition *);
static void	 show_stats(const struct parse_result *,
		    const struct ctl_stats *);
static void	 show_definition(const struct parse_result *, const char *,
		    size_t);
static void	 show_reload(const struct ctl_reload *);
static void	 show_pull(const struct parse_result *,
		    const struct ctl_pull *);
static void	 show_result(const struct parse_result *);
static void	 show_tail(const struct parse_result *);
static void	 json_head(const struct parse_result *);
static void	 json_summary(const struct ctl_summary *);
static void	 json_store_queue(const struct st_queue_stats *);
static void	 json_budget(const struct rt_budget *);
static void	 json_workload(const struct parse_result *,
		    const struct ctl_workload *);
static void	 json_transition(const struct parse_result *,
		    const struct ctl_transition *);
static void	 json_stats(const struct parse_result *,
		    const struct ctl_stats *);
static void	 json_definition(const struct parse_result *, const char *,
		    size_t);
static void	 json_reload(const struct ctl_reload *);
static void	 json_pull(const struct parse_result *,
		    const struct ctl_pull *);
static void	 json_result(const struct parse_result *);
static void	 json_tail(const struct parse_result *);
static void	 json_print(json_t *);
static void	 json_add(json_t *, json_t *);
static json_t	*json_time(int64_t);
static const char *fmt_uptime(int64_t, char *, size_t);
static const char *fmt_time(int64_t, char *, size_t);
static const char *fmt_ago(int64_t, char *, size_t);
static const char *fmt_left(int64_t, char *, size_t);
static const char *fmt_ms(int64_t, char *, size_t);
static const char *fmt_bytes(int64_t, char *, size_t);
static const char *word_name(const struct wl_word *, int32_t);
static const char *fmt_idle(const struct ctl_workload *, int, char *,
		    size_t);
static void	 show_certificate(const struct acme_status *);
static void	 json_certificate(const struct acme_status *);
static void	 table_start(const char *, ...);
static void	 table_row(const char *, ...);
static void	 table_vrow(va_list);
static void	 table_print(void);

const struct output show_output = {
	.head = show_head,
	.summary = show_summary,
	.store_queue = show_store_queue,
	.alog_queue = keep_alog_queue,
	.budget = show_budget,
	.workload = show_workload,
	.transition = show_transition,
	.stats = show_stats,
	.definition = show_definition,
	.reload = show_reload,
	.pull = show_pull,
	.certificate = show_certificate,
	.result = show_result,
	.tail = show_tail
};

const struct output json_output = {
	.head = json_head,
	.summary = json_summary,
	.store_queue = json_store_queue,
	.alog_queue = keep_alog_queue,
	.budget = json_budget,
	.workload = json_workload,
	.transition = json_transition,
	.stats = json_stats,
	.definition = json_definition,
	.reload = json_reload,
	.pull = json_pull,
	.certificate = json_certificate,
	.result = json_result,
	.tail = json_tail
};

/* show workloads: those running with an older definition, marked */
static int			 drifted;
/* pull: the last of its progress, which the OK sums up */
static struct ctl_pull		 pull_last;
static int			 pull_got;

/* show summary: the store's held writes, printed after the processes */
static struct st_queue_stats	 store_queue;
static int			 store_queue_got;
static struct alog_queue_stats	 alog_queue;
static int			 alog_queue_got;
/* show stats: runtimed's memory budget, printed after the table */
static struct rt_budget		 budget;
static int			 budget_got;

/* the reply being collected by json_output */
static json_t	*json_items;	/* the items of a list */
static json_t	*json_doc;	/* show workload, show stats: one object */
/* the table show_output is collecting, if any */
static struct table	 table;

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

/* Start a table: align, then one header per column. */
static void
table_start(const char *align, ...)
{
	va_list	 ap;

	table.align = align;
	table.ncols = (int)strlen(align);
	if (table.ncols < 1 || table.ncols > TABLE_COLS_MAX)
		errx(1, "table of %d columns", table.ncols);
	va_start(ap, align);
	table_vrow(ap);
	va_end(ap);
}

/* A row: one cell per column of the table, in order. */
static void
table_row(const char *first, ...)
{
	va_list	 ap;
	char	*cell;
	int	 i;

	if (table.ncols == 0)
		errx(1, "a row without a table");
	/* the first cell is named so that a row cannot be empty */
	if (table.nrows == table.maxrows) {
		table.maxrows = table.maxrows == 0 ? 16 : table.maxrows * 2;
		if ((table.cells = reallocarray(table.cells, table.maxrows,
		    table.ncols * sizeof(char *))) == NULL)
			err(1, NULL);
	}
	va_start(ap, first);
	for (i = 0; i < table.ncols; i++) {
		if ((cell = strdup(i == 0 ? first :
		    va_arg(ap, const char *))) == NULL)
			err(1, NULL);
		if (strlen(cell) > table.width[i])
			table.width[i] = strlen(cell);
		table.cells[table.nrows * table.ncols + i] = cell;
	}
	va_end(ap);
	table.nrows++;
}

static void
table_vrow(va_list ap)
{
	const char	*first = va_arg(ap, const char *);
	const char	*c[TABLE_COLS_MAX];
	int		 i;

	c[0] = first;
	for (i = 1; i < table.ncols; i++)
		c[i] = va_arg(ap, const char *);
	for (; i < TABLE_COLS_MAX; i++)
		c[i] = NULL;
	table_row(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8],
	    c[9], c[10], c[11]);
}

/* Write the table, if there is one, and forget it. */
static void
table_print(void)
{
	const char	*cell;
	size_t		 r;
	int		 i, last, w;

	for (r = 0; r < table.nrows; r++) {
		/* the line ends at its last cell that is not empty */
		for (last = table.ncols - 1; last > 0; last--)
			if (table.cells[r * table.ncols + last][0] != '\0')
				break;
		for (i = 0; i <= last; i++) {
			cell = table.cells[r * table.ncols + i];
			w = (int)table.width[i];
			if (table.align[i] == 'r')
				printf("%*s", w, cell);
			else if (i == last)
				printf("%s", cell);
			else
				printf("%-*s", w, cell);
			printf("%s", i == last ? "\n" : TABLE_GAP);
		}
		for (i = 0; i < table.ncols; i++)
			free(table.cells[r * table.ncols + i]);
	}
	free(table.cells);
	memset(&table, 0, sizeof(table));
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

/* A wall clock time as RFC 3339 in UTC, "2026-11-29T10:02:03Z". */
static const char *
fmt_time(int64_t t, char *buf, size_t len)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(buf, len, "%" PRId64, t);
	return (buf);
}

/* How long ago t was: "3m12s ago", "never" for 0. */
static const char *
fmt_ago(int64_t t, char *buf, size_t len)
{
	char	 age[32];
	int64_t	 d;

	if (t == 0) {
		(void)snprintf(buf, len, "never");
		return (buf);
	}
	d = (int64_t)time(NULL) - t;
	(void)snprintf(buf, len, "%s ago",
	    fmt_uptime(d < 0 ? 0 : d, age, sizeof(age)));
	return (buf);
}

/* How long until t: "25s", "-" for 0 or a time gone. */
static const char *
fmt_left(int64_t t, char *buf, size_t len)
{
	int64_t	 d = t - (int64_t)time(NULL);

	if (t == 0 || d <= 0) {
		(void)snprintf(buf, len, "-");
		return (buf);
	}
	return (fmt_uptime(d, buf, len));
}

/* Milliseconds as "850ms", "1.2s", then as fmt_uptime does. */
static const char *
fmt_ms(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		(void)snprintf(buf, len, "-");
	else if (ms < 1000)
		(void)snprintf(buf, len, "%" PRId64 "ms", ms);
	else if (ms < 60 * 1000)
		(void)snprintf(buf, len, "%.1fs", (double)ms / 1000.0);
	else
		(void)fmt_uptime(ms / 1000, buf, len);
	return (buf);
}

/* Bytes in the units of orchd.conf: "512M", "1.5G"; "-" for none. */
static const char *
fmt_bytes(int64_t bytes, char *buf, size_t len)
{
	static const char	 units[] = "KMGT";
	double			 v = (double)bytes;
	int			 u = -1;

	if (bytes <= 0) {
		(void)snprintf(buf, len, "-");
		return (buf);
	}
	while (v >= 1024.0 && u < (int)sizeof(units) - 2) {
		v /= 1024.0;
		u++;
	}
	if (u == -1)
		(void)snprintf(buf, len, "%" PRId64, bytes);
	else if (v == (double)(int64_t)v)
		(void)snprintf(buf, len, "%" PRId64 "%c", (int64_t)v,
		    units[u]);
	else
		(void)snprintf(buf, len, "%.1f%c", v, units[u]);
	return (buf);
}

/* "process", "docker", "swarm"; "config" or "api": the definition's */
static const char *
word_name(const struct wl_word *t, int32_t value)
{
	const char	*s;

	return ((s = wl_word_name(t, value)) != NULL ? s : "unknown");
}

/*
 * The idle timeout the reaper goes by: "5m", "never" for a workload kept
 * warm or with none; in show workload, "(global)" after one that is not
 * the workload's own.
 */
static const char *
fmt_idle(const struct ctl_workload *cw, int detail, char *buf, size_t len)
{
	char	 d[32];

	if (cw->idle_effective <= 0)
		(void)snprintf(buf, len, "never");
	else if (detail && cw->idle_timeout < 0)
		(void)snprintf(buf, len, "%s (global)",
		    fmt_duration(cw->idle_effective, d, sizeof(d)));
	else
		(void)fmt_duration(cw->idle_effective, buf, len);
	return (buf);
}

/* Why a failed workload failed: "start failed: exec: ...", else "-". */
static const char *
fmt_failure(const struct ctl_workload *cw, char *buf, size_t len)
{
	if (cw->state != WL_FAILED)
		(void)snprintf(buf, len, "-");
	else if (cw->msg[0] == '\0')
		(void)snprintf(buf, len, "%s",
		    workload_reason_name(cw->reason, 0));
	else
		(void)snprintf(buf, len, "%s: %s",
		    workload_reason_name(cw->reason, 0), cw->msg);
	return (buf);
}

static void
show_head(const struct parse_result *res)
{
	switch (res->action) {
	case SHOW_SUMMARY:
		table_start("lrrrr", "PROCESS", "PID", "UPTIME", "WORKLOADS",
		    "GENERATION");
		break;
	case SHOW_WORKLOADS:
		table_start("lllrlllllll", "NAME", "STATE", "DRIVER", "MEM",
		    "WARM", "IDLE", "LAST SEEN", "BACKOFF", "HOSTS", "TCP",
		    "REASON");
		break;
	case SHOW_STATS:
		table_start("lrrrrrrr", "NAME", "WAKES", "FAILED", "MEDIAN",
		    "WORST", "ASLEEP", "MEMORY", "SAVED GiB-h");
		break;
	case SHOW_CERTIFICATES:
		table_start("llllrll", "HOST", "STATE", "ISSUER", "NOT AFTER",
		    "FAILURES", "NEXT", "LAST ERROR");
		break;
	default:
		break;
	}
}

static const char *const acme_state_names[] = {
	[ACME_STATE_NONE] = "none",
	[ACME_STATE_ISSUING] = "issuing",
	[ACME_STATE_VALID] = "valid",
	[ACME_STATE_FAILED] = "failed",
	[ACME_STATE_CAPPED] = "capped"
};

static const char *
acme_state_name(uint32_t s)
{
	return (s < nitems(acme_state_names) ? acme_state_names[s] : "?");
}

/* show certificates: one host, its certificate and its last error */
static void
show_certificate(const struct acme_status *as)
{
	char	 na[32], fails[16], next[32];

	(void)snprintf(fails, sizeof(fails), "%u", as->failures);
	table_row(as->name, acme_state_name(as->state),
	    as->issuer[0] != '\0' ? as->issuer : "-",
	    as->not_after != 0 ? fmt_time(as->not_after, na, sizeof(na)) :
	    "-", fails, fmt_left(as->next_try, next, sizeof(next)),
	    as->error[0] != '\0' ? as->error : "-");
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
	table_row(cs->name, pid,
	    fmt_uptime(cs->uptime, uptime, sizeof(uptime)), workloads,
	    generation);
}

/* "maintenance: until TIME (in 2h): MESSAGE", or "no" */
static void
show_maint(const struct ctl_workload *cw)
{
	char	 buf[MAINT_MSG_MAX + 128], t[32], left[32];

	if (!cw->maint.on) {
		printf(DETAIL_FMT, "maintenance:", "no");
		return;
	}
	if (cw->maint.until > 0)
		(void)snprintf(buf, sizeof(buf), "until %s (%s left)%s%s",
		    fmt_time(cw->maint.until, t, sizeof(t)),
		    fmt_left(cw->maint.until, left, sizeof(left)),
		    cw->maint.msg[0] != '\0' ? ": " : "", cw->maint.msg);
	else
		(void)snprintf(buf, sizeof(buf), "yes%s%s",
		    cw->maint.msg[0] != '\0' ? ": " : "", cw->maint.msg);
	printf(DETAIL_FMT, "maintenance:", buf);
}

static void
show_workload(const struct parse_result *res, const struct ctl_workload *cw)
{
	char	 idle[48], seen[32], t[32], ago[48], buf[96], left[32];
	char	 why[sizeof(cw->msg) + 32], state[32], mem[32], est[32];
	char	 drift[sizeof(cw->drift) + 64];

	if (res->action == SHOW_WORKLOADS) {
		/*
		 * "running*": its definition changed since it started;
		 * "asleep/maint": in maintenance
		 */
		(void)snprintf(state, sizeof(state), "%s%s%s",
		    workload_state_name(cw->state), cw->drift[0] != '\0' ?
		    "*" : "", cw->maint.on ? "/maint" : "");
		if (cw->drift[0] != '\0')
			drifted++;
		table_row(cw->name, state, word_name(wl_drivers, cw->driver),
		    fmt_bytes(cw->memory, mem, sizeof(mem)),
		    cw->keep_warm ? "yes" : "no",
		    fmt_idle(cw, 0, idle, sizeof(idle)),
		    fmt_ago(cw->last_seen, seen, sizeof(seen)),
		    fmt_left(cw->backoff_until, left, sizeof(left)),
		    cw->hosts[0] != '\0' ? cw->hosts : "-",
		    cw->listens[0] != '\0' ? cw->listens : "-",
		    fmt_failure(cw, why, sizeof(why)));
		return;
	}

	printf(DETAIL_FMT, "name:", cw->name);
	printf(DETAIL_FMT, "state:", workload_state_name(cw->state));
	if (cw->state == WL_FAILED)
		printf(DETAIL_FMT, "reason:",
		    workload_reason_name(cw->reason, 0));
	if (cw->msg[0] != '\0')
		printf(DETAIL_FMT, "last failure:", cw->msg);
	printf(DETAIL_FMT, "driver:", word_name(wl_drivers, cw->driver));
	printf(DETAIL_FMT, "source:", word_name(wl_sources, cw->source));
	printf(DETAIL_FMT, "hosts:", cw->hosts[0] != '\0' ? cw->hosts : "-");
	if (cw->listens[0] != '\0')
		printf(DETAIL_FMT, "listen on:", cw->listens);
	if (cw->keep_warm && cw->keep_warm_until > 0) {
		(void)snprintf(buf, sizeof(buf), "until %s",
		    fmt_time(cw->keep_warm_until, t, sizeof(t)));
		printf(DETAIL_FMT, "keep warm:", buf);
	} else
		printf(DETAIL_FMT, "keep warm:", cw->keep_warm ? "yes" : "no");
	show_maint(cw);
	printf(DETAIL_FMT, "idle timeout:", fmt_idle(cw, 1, idle,
	    sizeof(idle)));
	if (cw->last_seen == 0)
		printf(DETAIL_FMT, "last seen:", "never");
	else {
		(void)snprintf(buf, sizeof(buf), "%s (%s)",
		    fmt_time(cw->last_seen, t, sizeof(t)),
		    fmt_ago(cw->last_seen, ago, sizeof(ago)));
		printf(DETAIL_FMT, "last seen:", buf);
	}
	if (cw->started_at == 0)
		printf(DETAIL_FMT, "started at:", "-");
	else {
		(void)snprintf(buf, sizeof(buf), "%s (%s)",
		    fmt_time(cw->started_at, t, sizeof(t)),
		    fmt_ago(cw->started_at, ago, sizeof(ago)));
		printf(DETAIL_FMT, "started at:", buf);
	}
	if (cw->drift[0] != '\0') {
		(void)snprintf(drift, sizeof(drift), "%s changed since it "
		    "started", cw->drift);
		printf(DETAIL_FMT, "drift:", drift);
	}
	(void)snprintf(buf, sizeof(buf), "%" PRIu64 ", %" PRIu64 " today (UTC)",
	    cw->wakes, cw->wakes_today);
	printf(DETAIL_FMT, "wakes:", buf);
	if (cw->memory <= 0)
		printf(DETAIL_FMT, "memory used:", "never measured");
	else {
		(void)snprintf(buf, sizeof(buf), "%s at its last run's peak, "
		    "estimate %s", fmt_bytes(cw->memory, mem, sizeof(mem)),
		    fmt_bytes(cw->memory_estimate, est, sizeof(est)));
		printf(DETAIL_FMT, "memory used:", buf);
	}
	if (cw->backoff_until > (int64_t)time(NULL)) {
		(void)snprintf(buf, sizeof(buf), "until %s (%s left)",
		    fmt_time(cw->backoff_until, t, sizeof(t)),
		    fmt_left(cw->backoff_until, left, sizeof(left)));
		printf(DETAIL_FMT, "backoff:", buf);
	}
}

/* a wake's message says what woke it: "by orchctl", "by GET ..." */
static const char *
transition_msg(const struct ctl_transition *ct, char *buf, size_t len)
{
	char	 cause[512];

	/* a restart's or a dependency's reason says it already */
	if (ct->cause.kind == WAKE_NONE || ct->cause.kind == WAKE_RESTART ||
	    ct->cause.kind == WAKE_DEPENDENCY)
		return (ct->msg);
	(void)snprintf(buf, len, "%s%sby %s", ct->msg, ct->msg[0] != '\0' ?
	    "; " : "", cause_text(&ct->cause, cause, sizeof(cause)));
	return (buf);
}

static void
show_transition(const struct parse_result *res,
    const struct ctl_transition *ct)
{
	char		 t[32], buf[RT_MSG_MAX + 600];

	if (table.ncols == 0)
		table_start("lllll", "TIME", "FROM", "TO", "REASON",
		    "MESSAGE");
	table_row(fmt_time(ct->time, t, sizeof(t)),
	    workload_state_name(ct->from), workload_state_name(ct->to),
	    workload_reason_name(ct->reason, 0),
	    transition_msg(ct, buf, sizeof(buf)));
}

static void
show_stats(const struct parse_result *res, const struct ctl_stats *cs)
{
	char	 wakes[24], failed[24], median[32], worst[32], asleep[32];
	char	 memory[32], saved[32];

	(void)snprintf(wakes, sizeof(wakes), "%" PRIu64, cs->wakes);
	(void)snprintf(failed, sizeof(failed), "%" PRIu64, cs->failed_wakes);
	(void)snprintf(saved, sizeof(saved), "%.2f", cs->memory_hours_saved);
	table_row(cs->name[0] != '\0' ? cs->name : STATS_TOTAL,
	    wakes, failed,
	    cs->wakes > 0 ? fmt_ms(cs->wake_median_ms, median,
	    sizeof(median)) : "-",
	    cs->wakes > 0 ? fmt_ms(cs->wake_worst_ms, worst,
	    sizeof(worst)) : "-",
	    fmt_uptime(cs->asleep_seconds, asleep, sizeof(asleep)),
	    fmt_bytes(cs->memory, memory, sizeof(memory)), saved);
}

/* A JSON member of a definition, as text: NULL when there is none. */
static const char *
def_str(json_t *def, const char *key)
{
	const char	*v = json_string_value(json_object_get(def, key));

	return (v != NULL && *v != '\0' ? v : NULL);
}

/* A list of strings as "a, b, c" in buf: NULL when it is empty. */
static const char *
def_list(json_t *def, const char *key, char *buf, size_t len)
{
	json_t		*v;
	size_t		 i;

	buf[0] = '\0';
	json_array_foreach(json_object_get(def, key), i, v) {
		if (!json_is_string(v))
			continue;
		if (buf[0] != '\0')
			(void)strlcat(buf, ", ", len);
		(void)strlcat(buf, json_string_value(v), len);
	}
	return (buf[0] != '\0' ? buf : NULL);
}

/* "HOST:CONTAINER, ..." in buf: NULL when there are none. */
static const char *
def_volumes(json_t *def, char *buf, size_t len)
{
	json_t		*v;
	const char	*h, *c;
	size_t		 i;

	buf[0] = '\0';
	json_array_foreach(json_object_get(def, "volumes"), i, v) {
		h = json_string_value(json_object_get(v, "host"));
		c = json_string_value(json_object_get(v, "container"));
		if (buf[0] != '\0')
			(void)strlcat(buf, ", ", len);
		(void)strlcat(buf, h != NULL ? h : "?", len);
		(void)strlcat(buf, ":", len);
		(void)strlcat(buf, c != NULL ? c : "?", len);
	}
	return (buf[0] != '\0' ? buf : NULL);
}

/* Print a line of the definition if it has a value. */
static void
def_line(const char *label, const char *value)
{
	char	 buf[4096];

	if (value == NULL)
		return;
	(void)strlcpy(buf, value, sizeof(buf));
	str_printable(buf, sizeof(buf));
	printf(DETAIL_FMT, label, buf);
}

/*
 * A member of the definition as text, by its row's type (the table of
 * the fields, common/workload_fields.c); NULL when it has none.
 */
static const char *
def_value(json_t *def, const struct wl_field *f, char *buf, size_t len)
{
	json_t	*v = json_object_get(def, f->json);

	if (v == NULL)
		return (f->show_dflt);
	switch (f->type) {
	case WF_STRLIST:
		return (def_list(def, f->json, buf, len));
	case WF_VOLUMES:
		return (def_volumes(def, buf, len));
	case WF_SIZE:
		return (json_is_integer(v) ? fmt_bytes(json_integer_value(v),
		    buf, len) : f->show_dflt);
	case WF_DURATION:
		if (!json_is_integer(v))
			return (f->show_dflt);
		if (json_integer_value(v) == 0)
			return ("never");
		return (fmt_duration(json_integer_value(v), buf, len));
	case WF_PORT:
	case WF_INT:
	case WF_ID:
		if (!json_is_integer(v) || json_integer_value(v) <= 0)
			return (NULL);
		(void)snprintf(buf, len, "%lld",
		    (long long)json_integer_value(v));
		return (buf);
	case WF_BOOL:
		return (json_is_true(v) ? "yes" : "no");
	default:
		return (def_str(def, f->json) != NULL ? def_str(def, f->json) :
		    f->show_dflt);
	}
}

/*
 * The next window or wake of the texts in def's member, of those ending
 * after now, computed here from the tzdata (common/sched.c), on the
 * schedules' clock (ORCHD_TEST_CLOCK_OFFSET shifts it for the tests):
 * "FROM until TO[ (now)]" in buf, or "never"; -1 when it has none.
 * Its start and end in *start and *end when they are not NULL.
 */
int
def_next(json_t *def, const char *member, int kind, char *buf, size_t len,
    time_t *start, time_t *end)
{
	json_t		*a = json_object_get(def, member), *v;
	time_t		 now, s, e, best_s = 0, best_e = 0;
	size_t		 i;
	char		 from[32], to[32], err[160];
	struct tm	 tm;
	static int	 clock_set;

	if (!json_is_array(a) || json_array_size(a) == 0)
		return (-1);
	if (!clock_set) {
		/* the shift is the tests' alone: a bad one is said, once */
		if (sched_clock_init(getenv("ORCHD_TEST_CLOCK_OFFSET"), err,
		    sizeof(err)) == -1)
			warnx("%s: the host's clock is used", err);
		clock_set = 1;
	}
	now = sched_now();
	json_array_foreach(a, i, v)
		if (json_is_string(v) && sched_text_next(kind,
		    json_string_value(v), now, &s, &e) == 0 &&
		    (best_s == 0 || s < best_s)) {
			best_s = s;
			best_e = e;
		}
	if (start != NULL)
		*start = best_s;
	if (end != NULL)
		*end = best_e;
	(void)strlcpy(buf, "never", len);
	if (best_s == 0)
		return (0);
	if (gmtime_r(&best_s, &tm) == NULL ||
	    strftime(from, sizeof(from), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 ||
	    gmtime_r(&best_e, &tm) == NULL ||
	    strftime(to, sizeof(to), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return (0);
	(void)snprintf(buf, len, "%s until %s%s", from, to,
	    best_s <= now ? " (now)" : "");
	return (0);
}

/* show workload: the next window and the next wake (def_next) */
static void
show_next(json_t *def, const char *member, enum sched_kind kind,
    const char *label)
{
	char	 line[80];

	if (def_next(def, member, kind, line, sizeof(line), NULL, NULL) == 0)
		def_line(label, line);
}

/*
 * show workload: the definition, as the parent has it, after the state:
 * the fields with a line in the table, in its order; those of an image
 * only for a workload with one.  Only the names of the environment come:
 * values may be secrets.  What depends on it is the parent's to add.
 */
static void
show_definition(const struct parse_result *res, const char *json,
    size_t len)
{
	const struct wl_field	*f;
	json_error_t		 jerr;
	json_t			*def;
	char			 buf[4096];
	size_t			 i;
	int			 image;

	if ((def = json_loadb(json, len, 0, &jerr)) == NULL)
		errx(1, "bad reply from orchd: definition: %s", jerr.text);
	image = def_str(def, "image") != NULL;
	printf("\n");
	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		if (f->show == NULL || ((f->flags & WF_DOCKER) && !image))
			continue;
		def_line(f->show, def_value(def, f, buf, sizeof(buf)));
		if (strcmp(f->json, "depends_on") == 0)
			def_line("dependents:", def_list(def, "dependents",
			    buf, sizeof(buf)));
		if (strcmp(f->json, "keep_warm_during") == 0)
			show_next(def, f->json, SCHED_WINDOW, "next window:");
		if (strcmp(f->json, "wake_at") == 0)
			show_next(def, f->json, SCHED_WAKE, "next wake:");
	}
	json_decref(def);
}

/*
 * What a reload found.  Errors and warnings go to stderr as orchd logged
 * them, file:line first; the changes to stdout.
 */
static void
show_reload(const struct ctl_reload *cr)
{
	switch (cr->what) {
	case CTL_RELOAD_ADDED:
		printf("workload %s added\n", cr->msg);
		break;
	case CTL_RELOAD_REMOVED:
		printf("workload %s removed\n", cr->msg);
		break;
	case CTL_RELOAD_CHANGED:
		printf("workload %s changed\n", cr->msg);
		break;
	case CTL_RELOAD_RESTART:
		printf("%s changed: restart orchd to use it\n", cr->msg);
		break;
	case CTL_RELOAD_SAME:
		printf("%s\n", cr->msg);
		break;
	case CTL_RELOAD_WARNING:
	case CTL_RELOAD_ERROR:
		(void)fflush(stdout);
		fprintf(stderr, "%s\n", cr->msg);
		break;
	default:
		errx(1, "bad reply from orchd: reload item %d", cr->what);
	}
}

/* a pull as it goes: "app:1: 2/3 layers, 1.2M of 3.9M" */
static void
show_pull(const struct parse_result *res, const struct ctl_pull *cp)
{
	char	 b[32], t[32];

	pull_last = *cp;
	pull_got = 1;
	printf("%s: %u/%u layers", cp->image, cp->layers_done, cp->layers);
	if (cp->bytes_total > 0)
		printf(", %s of %s", fmt_bytes(cp->bytes, b, sizeof(b)),
		    fmt_bytes(cp->bytes_total, t, sizeof(t)));
	printf("\n");
	/* seen as it comes, even through a pipe */
	(void)fflush(stdout);
}

static void
show_result(const struct parse_result *res)
{
	switch (res->action) {
	case RELOAD:
		printf("configuration reloaded\n");
		break;
	case WAKE:
		printf("%s is running\n", res->name);
		break;
	case SUSPEND:
		printf("%s is asleep\n", res->name);
		break;
	case RESTART:
		printf("%s is running again\n", res->name);
		break;
	case KEEPWARM:
		printf("keep warm %s for %s\n", res->onoff ? "on" : "off",
		    res->name);
		break;
	case PULL:
		if (pull_got && pull_last.status[0] != '\0')
			printf("%s: %s pulled: %s\n", res->name,
			    pull_last.image, pull_last.status);
		else
			printf("%s: %s pulled\n", res->name, pull_got ?
			    pull_last.image : "its image");
		break;
	case CREATE:
	case UPDATE:
	case DELETE:
		printf("%s %s\n", res->name, res->action == CREATE ?
		    "created" : res->action == UPDATE ? "updated" :
		    "deleted");
		break;
	case KEEP:
		printf("%s never expires\n", res->name);
		break;
	case RENEW:
		printf("%s: renewal started (orchctl show certificates)\n",
		    res->host);
		break;
	default:
		printf("command succeeded\n");
		break;
	}
}

static void
show_store_queue(const struct st_queue_stats *sq)
{
	store_queue = *sq;
	store_queue_got = 1;
}

/* either output: printed at the tail */
static void
keep_alog_queue(const struct alog_queue_stats *aq)
{
	alog_queue = *aq;
	alog_queue_got = 1;
}

static void
show_budget(const struct rt_budget *rb)
{
	budget = *rb;
	budget_got = 1;
}

/* show stats, after the table: the memory budget and the wake queue */
static void
show_budget_tail(void)
{
	char	 b[32], u[32], mean[32], worst[32];
	uint64_t waited = 0;
	int	 i;

	for (i = 0; i <= BUDGET_WAIT_BOUNDS; i++)
		waited += budget.wait_hist[i];
	printf("\n");
	if (budget.budget > 0)
		printf("memory budget: %s, %s in use (charged), %" PRIu32
		    " starting, %" PRIu32 " waiting\n",
		    fmt_bytes(budget.budget, b, sizeof(b)),
		    fmt_bytes(budget.in_use, u, sizeof(u)), budget.waking,
		    budget.queued);
	else
		printf("memory budget: none, %s in use (charged), %" PRIu32
		    " starting, %" PRIu32 " waiting\n",
		    fmt_bytes(budget.in_use, u, sizeof(u)), budget.waking,
		    budget.queued);
	if (budget.max_wakes > 0)
		printf("max concurrent wakes: %" PRId64 "\n",
		    budget.max_wakes);
	printf("wakes that waited: %" PRIu64 ", %" PRIu64 " not admitted "
	    "within their wake timeout; waits: mean %s, longest %s\n",
	    budget.queued_total, budget.queue_timeouts,
	    waited > 0 ? fmt_ms((int64_t)(budget.wait_sum * 1000.0 /
	    (double)waited), mean, sizeof(mean)) : "-",
	    waited > 0 ? fmt_ms((int64_t)(budget.wait_max * 1000.0), worst,
	    sizeof(worst)) : "-");
	printf("suspends: %" PRIu64 " idle timeout, %" PRIu64 " budget, %"
	    PRIu64 " pressure, %" PRIu64 " operator\n",
	    budget.suspends[SUSPEND_IDLE], budget.suspends[SUSPEND_BUDGET],
	    budget.suspends[SUSPEND_PRESSURE],
	    budget.suspends[SUSPEND_OPERATOR]);
}

static void
show_tail(const struct parse_result *res)
{
	if (res->action == SHOW_WORKLOAD) {
		printf("\n");
		if (table.ncols == 0)
			printf("no transitions recorded\n");
	}
	if (res->action == SHOW_HISTORY && table.ncols == 0)
		printf("no transitions recorded\n");
	table_print();
	if (res->action == SHOW_WORKLOADS && drifted > 0)
		printf("\n* runs with an older definition: orchctl show "
		    "workload NAME says what changed, orchctl restart NAME "
		    "applies it\n");
	if (res->action == SHOW_SUMMARY && store_queue_got)
		printf("\ndatabase: %" PRIu64 " writes held (%" PRIu64
		    " bytes), %" PRIu64 " held in all, %" PRIu64 " retries, %"
		    PRIu64 " dropped\n", store_queue.queued, store_queue.bytes,
		    store_queue.total, store_queue.retries, store_queue.drops);
	if (res->action == SHOW_SUMMARY && alog_queue_got)
		printf("access log: %" PRIu64 " lines held (%" PRIu64
		    " bytes), %" PRIu64 " held in all, %" PRIu64 " retries, %"
		    PRIu64 " dropped\n", alog_queue.lines, alog_queue.bytes,
		    alog_queue.total, alog_queue.retries, alog_queue.drops);
	if (res->action == SHOW_STATS && budget_got)
		show_budget_tail();
}

static void
json_head(const struct parse_result *res)
{
	if ((json_items = json_array()) == NULL)
		errx(1, "out of memory");
}

/* Append o to the array a; o is taken over. */
static void
json_add(json_t *a, json_t *o)
{
	if (o == NULL || json_array_append_new(a, o) == -1)
		errx(1, "cannot build the JSON reply");
}

/* A wall clock time as an RFC 3339 string, null for none. */
static json_t *
json_time(int64_t t)
{
	char	 buf[32];

	if (t == 0)
		return (json_null());
	return (json_string(fmt_time(t, buf, sizeof(buf))));
}

static void
json_summary(const struct ctl_summary *cs)
{
	json_add(json_items, json_pack("{s:s, s:I, s:I, s:I, s:I}",
	    "process", cs->name,
	    "pid", (json_int_t)cs->pid,
	    "uptime_seconds", (json_int_t)cs->uptime,
	    "workloads", (json_int_t)cs->workloads,
	    "generation", (json_int_t)cs->generation));
}

static void
json_store_queue(const struct st_queue_stats *sq)
{
	store_queue = *sq;
	store_queue_got = 1;
}

/* o, set as key on the item of process name; taken over */
static void
json_on_process(json_t *a, const char *name, const char *key, json_t *o)
{
	json_t	*item, *p;
	size_t	 i;

	if (o == NULL)
		errx(1, "cannot build the JSON reply");
	json_array_foreach(a, i, item) {
		p = json_object_get(item, "process");
		if (p == NULL || !json_is_string(p) ||
		    strcmp(json_string_value(p), name) != 0)
			continue;
		if (json_object_set_new(item, key, o) == -1)
			errx(1, "cannot build the JSON reply");
		return;
	}
	json_decref(o);
}

/*
 * On the store's item: "database": {"queued_writes": ...}; on the
 * parent's, which writes the access log: "access_log": {"held_lines": ...}
 */
static void
json_summary_tail(json_t *a)
{
	if (store_queue_got)
		json_on_process(a, "store", "database",
		    json_pack("{s:I, s:I, s:I, s:I, s:I}",
		    "queued_writes", (json_int_t)store_queue.queued,
		    "queued_bytes", (json_int_t)store_queue.bytes,
		    "queued_writes_total", (json_int_t)store_queue.total,
		    "retries", (json_int_t)store_queue.retries,
		    "dropped", (json_int_t)store_queue.drops));
	if (alog_queue_got)
		json_on_process(a, "parent", "access_log",
		    json_pack("{s:I, s:I, s:I, s:I, s:I}",
		    "held_lines", (json_int_t)alog_queue.lines,
		    "held_bytes", (json_int_t)alog_queue.bytes,
		    "held_lines_total", (json_int_t)alog_queue.total,
		    "retries", (json_int_t)alog_queue.retries,
		    "dropped", (json_int_t)alog_queue.drops));
}

static void
json_budget(const struct rt_budget *rb)
{
	budget = *rb;
	budget_got = 1;
}

/* show stats: "budget": {...}, with the queue and the suspends */
static json_t *
json_budget_doc(void)
{
	json_t		*o, *h;
	uint64_t	 waited = 0;
	int		 i;

	for (i = 0; i <= BUDGET_WAIT_BOUNDS; i++)
		waited += budget.wait_hist[i];
	o = json_pack("{s:o, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:f, s:f, "
	    "s:{s:I, s:I, s:I, s:I}}",
	    "budget", budget.budget > 0 ? json_integer(budget.budget) :
	    json_null(),
	    "in_use", (json_int_t)budget.in_use,
	    "starting", (json_int_t)budget.waking,
	    "waiting", (json_int_t)budget.queued,
	    "max_concurrent_wakes", budget.max_wakes > 0 ?
	    json_integer(budget.max_wakes) : json_null(),
	    "waited", (json_int_t)budget.queued_total,
	    "wait_timeouts", (json_int_t)budget.queue_timeouts,
	    "waits_counted", (json_int_t)waited,
	    "wait_seconds_sum", budget.wait_sum,
	    "wait_seconds_max", budget.wait_max,
	    "suspends",
	    "idle", (json_int_t)budget.suspends[SUSPEND_IDLE],
	    "budget", (json_int_t)budget.suspends[SUSPEND_BUDGET],
	    "pressure", (json_int_t)budget.suspends[SUSPEND_PRESSURE],
	    "operator", (json_int_t)budget.suspends[SUSPEND_OPERATOR]);
	if (o == NULL || (h = json_array()) == NULL)
		errx(1, "cannot build the JSON reply");
	for (i = 0; i <= BUDGET_WAIT_BOUNDS; i++)
		json_add(h, json_pack("{s:o, s:I}", "le", i < BUDGET_WAIT_BOUNDS ?
		    json_real(budget_wait_bounds[i]) : json_string("+Inf"),
		    "count", (json_int_t)budget.wait_hist[i]));
	if (json_object_set_new(o, "wait_histogram", h) == -1)
		errx(1, "cannot build the JSON reply");
	return (o);
}

static void
json_workload(const struct parse_result *res, const struct ctl_workload *cw)
{
	json_t	*o, *hosts, *drift, *listens;
	char	 buf[sizeof(cw->hosts)], dbuf[sizeof(cw->drift)], *h, *p;

	if ((hosts = json_array()) == NULL ||
	    (listens = json_array()) == NULL)
		errx(1, "out of memory");
	strlcpy(buf, cw->hosts, sizeof(buf));
	for (p = buf; (h = strsep(&p, ",")) != NULL;)
		if (*h != '\0')
			json_add(hosts, json_string(h));
	strlcpy(buf, cw->listens, sizeof(buf));
	for (p = buf; (h = strsep(&p, ",")) != NULL;)
		if (*h != '\0')
			json_add(listens, json_string(h));

	/* idle_timeout: what the reaper goes by, 0 for never */
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:I, s:b, "
	    "s:o, s:o, s:I, s:o, s:o}",
	    "name", cw->name,
	    "state", workload_state_name(cw->state),
	    "reason", workload_reason_name(cw->reason, 1),
	    "driver", word_name(wl_drivers, cw->driver),
	    "source", word_name(wl_sources, cw->source),
	    "hosts", hosts,
	    "listen", listens,
	    "keep_warm", cw->keep_warm != 0,
	    "idle_timeout", (json_int_t)cw->idle_effective,
	    "idle_timeout_global", cw->idle_timeout < 0,
	    "last_seen", json_time(cw->last_seen),
	    "started_at", json_time(cw->started_at),
	    "wakes", (json_int_t)cw->wakes,
	    "message", cw->msg[0] != '\0' ? json_string(cw->msg) :
	    json_null(),
	    "backoff_until", cw->backoff_until > (int64_t)time(NULL) ?
	    json_time(cw->backoff_until) : json_null());
	if (o == NULL || json_object_set_new(o, "keep_warm_until",
	    cw->keep_warm && cw->keep_warm_until > 0 ?
	    json_time(cw->keep_warm_until) : json_null()) == -1 ||
	    json_object_set_new(o, "wakes_today",
	    json_integer((json_int_t)MINIMUM(cw->wakes_today, INT64_MAX))) ==
	    -1 ||
	    json_object_set_new(o, "maintenance", !cw->maint.on ?
	    json_null() : json_pack("{s:o, s:s%}", "until",
	    json_time(cw->maint.until), "message", cw->maint.msg,
	    strnlen(cw->maint.msg, sizeof(cw->maint.msg)))) == -1 ||
	    json_object_set_new(o, "memory", cw->memory > 0 ?
	    json_integer(cw->memory) : json_null()) == -1 ||
	    json_object_set_new(o, "memory_estimate", cw->memory_estimate > 0 ?
	    json_integer(cw->memory_estimate) : json_null()) == -1)
		errx(1, "cannot build the JSON reply");
	/* what changed since it started: ["command", "port"], or [] */
	if ((drift = json_array()) == NULL ||
	    json_object_set_new(o, "drift", drift) == -1)
		errx(1, "cannot build the JSON reply");
	strlcpy(dbuf, cw->drift, sizeof(dbuf));
	for (p = dbuf; (h = strsep(&p, ",")) != NULL;) {
		h += strspn(h, " ");
		if (*h != '\0')
			json_add(drift, json_string(h));
	}
	if (res->action != SHOW_WORKLOAD) {
		json_add(json_items, o);
		return;
	}
	/* one workload, with its history to come */
	if (json_doc != NULL ||
	    json_object_set_new(o, "history", json_array()) == -1)
		errx(1, "cannot build the JSON reply");
	json_doc = o;
}

static void
json_transition(const struct parse_result *res,
    const struct ctl_transition *ct)
{
	json_t	*history;

	if (res->action == SHOW_HISTORY)
		history = json_items;
	else if (json_doc == NULL ||
	    (history = json_object_get(json_doc, "history")) == NULL)
		errx(1, "bad reply from orchd");
	json_add(history, json_pack("{s:o, s:s, s:s, s:s, s:o, s:o}",
	    "time", json_time(ct->time),
	    "from", workload_state_name(ct->from),
	    "to", workload_state_name(ct->to),
	    "reason", workload_reason_name(ct->reason, 1),
	    "message", ct->msg[0] != '\0' ? json_string(ct->msg) :
	    json_null(),
	    "cause", cause_json(&ct->cause)));
}

/* show workload: the definition as the parent sent it, in "definition" */
static void
json_definition(const struct parse_result *res, const char *json,
    size_t len)
{
	json_error_t	 jerr;
	json_t		*def;

	if (json_doc == NULL)
		errx(1, "bad reply from orchd");
	if ((def = json_loadb(json, len, 0, &jerr)) == NULL)
		errx(1, "bad reply from orchd: definition: %s", jerr.text);
	if (json_object_set_new(json_doc, "definition", def) == -1)
		errx(1, "cannot build the JSON reply");
}

static void
json_certificate(const struct acme_status *as)
{
	json_add(json_items, json_pack("{s:s, s:s, s:s?, s:o, s:i, s:o, "
	    "s:s?}", "host", as->name, "state", acme_state_name(as->state),
	    "issuer", as->issuer[0] != '\0' ? as->issuer : NULL,
	    "not_after", json_time(as->not_after), "failures",
	    (int)as->failures, "next_try", json_time(as->next_try), "error",
	    as->error[0] != '\0' ? as->error : NULL));
}

static void
json_stats(const struct parse_result *res, const struct ctl_stats *cs)
{
	json_t	*o, *v;

	/* the total is the one without a name */
	if (cs->name[0] == '\0')
		o = json_object();
	else
		o = json_pack("{s:s}", "name", cs->name);
	v = json_pack("{s:I, s:I, s:f, s:f, s:I, s:I, s:o, s:f}",
	    "wakes", (json_int_t)cs->wakes,
	    "failed_wakes", (json_int_t)cs->failed_wakes,
	    "wake_median_seconds", (double)cs->wake_median_ms / 1000.0,
	    "wake_worst_seconds", (double)cs->wake_worst_ms / 1000.0,
	    "asleep_seconds", (json_int_t)cs->asleep_seconds,
	    "running_seconds", (json_int_t)cs->running_seconds,
	    "memory", cs->memory > 0 ? json_integer(cs->memory) :
	    json_null(),
	    "memory_gib_hours_saved", cs->memory_hours_saved);
	if (o == NULL || v == NULL || json_object_update(o, v) == -1)
		errx(1, "cannot build the JSON reply");
	json_decref(v);
	if (cs->name[0] == '\0') {
		if (json_doc != NULL)
			errx(1, "bad reply from orchd");
		json_doc = o;
		return;
	}
	json_add(json_items, o);
}

/*
 * A reload's changes are collected into {"result": "ok", "added": [...],
 * "removed", "changed", "restart", "warnings"}; errors go to stderr, as
 * the failure prints no document.
 */
static void
json_reload(const struct ctl_reload *cr)
{
	static const char	*keys[] = { NULL, "added", "removed",
				    "changed", "restart", "warnings" };
	json_t			*a;
	int			 i;

	if (cr->what == CTL_RELOAD_ERROR) {
		fprintf(stderr, "%s\n", cr->msg);
		return;
	}
	if ((cr->what < CTL_RELOAD_ADDED || cr->what > CTL_RELOAD_WARNING) &&
	    cr->what != CTL_RELOAD_SAME)
		errx(1, "bad reply from orchd: reload item %d", cr->what);
	if (json_doc == NULL) {
		if ((json_doc = json_pack("{s:s}", "result", "ok")) == NULL)
			errx(1, "cannot build the JSON reply");
		for (i = CTL_RELOAD_ADDED; i <= CTL_RELOAD_WARNING; i++)
			if (json_object_set_new(json_doc, keys[i],
			    json_array()) == -1)
				errx(1, "cannot build the JSON reply");
	}
	if (cr->what == CTL_RELOAD_SAME) {
		if (json_object_set_new(json_doc, "unchanged",
		    json_true()) == -1)
			errx(1, "cannot build the JSON reply");
		return;
	}
	a = json_object_get(json_doc, keys[cr->what]);
	json_add(a, json_string(cr->msg));
}

/* a pull: only its end is a document (json_result) */
static void
json_pull(const struct parse_result *res, const struct ctl_pull *cp)
{
	pull_last = *cp;
	pull_got = 1;
}

static void
json_result(const struct parse_result *res)
{
	json_t	*o;

	switch (res->action) {
	case RELOAD:
		/* nothing found, or what json_reload() collected */
		o = json_doc != NULL ? json_doc : json_pack("{s:s, s:[], "
		    "s:[], s:[], s:[], s:[]}", "result", "ok", "added",
		    "removed", "changed", "restart", "warnings");
		json_doc = NULL;
		break;
	case WAKE:
	case SUSPEND:
	case RESTART:
		o = json_pack("{s:s, s:s, s:s}", "result", "ok",
		    "name", res->name,
		    "state", res->action != SUSPEND ? "running" : "asleep");
		break;
	case KEEPWARM:
		o = json_pack("{s:s, s:s, s:b}", "result", "ok",
		    "name", res->name, "keep_warm", res->onoff != 0);
		break;
	case CREATE:
	case UPDATE:
	case DELETE:
	case KEEP:
		o = json_pack("{s:s, s:s}", "result", "ok", "name",
		    res->name);
		break;
	case RENEW:
		o = json_pack("{s:s, s:s}", "result", "ok", "host",
		    res->host);
		break;
	case PULL:
		if (!pull_got)
			errx(1, "bad reply from orchd: no pull progress");
		o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s}",
		    "result", "ok", "name", res->name,
		    "image", pull_last.image,
		    "layers", (json_int_t)pull_last.layers,
		    "layers_done", (json_int_t)pull_last.layers_done,
		    "bytes", (json_int_t)pull_last.bytes,
		    "bytes_total", (json_int_t)pull_last.bytes_total,
		    "status", pull_last.status);
		break;
	default:
		o = json_pack("{s:s}", "result", "ok");
		break;
	}
	if (o == NULL)
		errx(1, "cannot build the JSON reply");
	json_print(o);
}

/*
 * show workload: the workload, with "history" in it.  show stats:
 * {"workloads": [...], "total": {...}}.  Any other list: an array.
 */
static void
json_tail(const struct parse_result *res)
{
	json_t	*o;

	switch (res->action) {
	case SHOW_WORKLOAD:
		if (json_doc == NULL)
			errx(1, "bad reply from orchd");
		json_decref(json_items);
		o = json_doc;
		break;
	case SHOW_STATS:
		if (json_doc == NULL)
			errx(1, "bad reply from orchd: no total");
		o = json_pack("{s:o, s:o}", "workloads", json_items,
		    "total", json_doc);
		if (o == NULL || (budget_got && json_object_set_new(o,
		    "budget", json_budget_doc()) == -1))
			errx(1, "cannot build the JSON reply");
		break;
	case SHOW_SUMMARY:
		json_summary_tail(json_items);
		o = json_items;
		break;
	default:
		o = json_items;
		break;
	}
	json_items = json_doc = NULL;
	json_print(o);
}

/* Write a document, one value, on stdout; it is freed. */
static void
json_print(json_t *o)
{
	/* 0.004, not 0.0040000000000000001 */
	if (json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10))
	    == -1)
		errx(1, "cannot write the JSON reply");
	putchar('\n');
	json_decref(o);
}
