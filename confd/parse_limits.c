/*
 * orchd.conf's limits: "cpu 0.5", "cpu weight N", "pids N" and
 * "io weight N", in a workload block, as the global defaults, and after
 * "api max" as the most the API may set (common/wlimits.c says what
 * each bounds).  The grammar's "limit" reads one into lim_last; the
 * statement it stands in then puts it where it goes, once.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "wlimits.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

static struct {
	int		 kind;
	int64_t		 v;
} lim_last;

static const char *const lim_names[] = {
	[LIMIT_CPU] = "cpu",
	[LIMIT_CPU_WEIGHT] = "cpu weight",
	[LIMIT_PIDS] = "pids",
	[LIMIT_IO_WEIGHT] = "io weight"
};

/* one limit as written: its text for cpu, else its number */
int
limit_read(int kind, const char *text, int64_t n)
{
	const char	*errstr;
	int64_t		 lo = LIM_WEIGHT_MIN, hi = LIM_WEIGHT_MAX;

	lim_last.kind = kind;
	if (kind == LIMIT_CPU) {
		if (parse_cpu(text, &lim_last.v, &errstr) == -1) {
			yyerror("cpu %s: %s: a number of CPUs from 0.01 to "
			    "%d, such as 0.5", text, errstr,
			    LIM_CPU_MAX / 1000);
			return (-1);
		}
		return (0);
	}
	if (kind == LIMIT_PIDS) {
		lo = LIM_PIDS_MIN;
		hi = LIM_PIDS_MAX;
	}
	if (n < lo || n > hi) {
		yyerror("%s %lld: out of range (%lld-%lld)", lim_names[kind],
		    (long long)n, (long long)lo, (long long)hi);
		return (-1);
	}
	lim_last.v = n;
	return (0);
}

static int64_t *
lim_slot(struct wl_limits *l)
{
	switch (lim_last.kind) {
	case LIMIT_CPU:
		return (&l->cpu);
	case LIMIT_CPU_WEIGHT:
		return (&l->cpu_weight);
	case LIMIT_PIDS:
		return (&l->pids);
	default:
		return (&l->io_weight);
	}
}

/* the last one read into l, a global's ("api max " before it or "") */
int
limit_put(struct wl_limits *l, const char *prefix)
{
	int64_t	*slot = lim_slot(l);

	if (*slot != 0) {
		yyerror("%s%s already set", prefix, lim_names[lim_last.kind]);
		return (-1);
	}
	*slot = lim_last.v;
	return (0);
}

/* the last one read into a workload's block */
int
limit_put_wl(struct workload_conf *wc)
{
	struct wl_limits	 l;

	l.cpu = wc->cpu;
	l.cpu_weight = wc->cpu_weight;
	l.pids = wc->pids;
	l.io_weight = wc->io_weight;
	if (limit_put(&l, "") == -1)
		return (-1);
	wc->cpu = l.cpu;
	wc->cpu_weight = (int)l.cpu_weight;
	wc->pids = (int)l.pids;
	wc->io_weight = (int)l.io_weight;
	return (0);
}

static void
print_one(FILE *fp, const char *prefix, const struct wl_limits *l)
{
	char	 buf[32];

	if (l->cpu != 0)
		fprintf(fp, "%scpu %s\n", prefix, fmt_cpu(l->cpu, buf,
		    sizeof(buf)));
	if (l->cpu_weight != 0)
		fprintf(fp, "%scpu weight %lld\n", prefix,
		    (long long)l->cpu_weight);
	if (l->pids != 0)
		fprintf(fp, "%spids %lld\n", prefix, (long long)l->pids);
	if (l->io_weight != 0)
		fprintf(fp, "%sio weight %lld\n", prefix,
		    (long long)l->io_weight);
}

/* orchd -nv: the defaults and the API's maximums, those given */
void
print_limits(FILE *fp, const struct orchd_conf *c)
{
	if (!limits_any(&c->lim_dflt) && !limits_any(&c->lim_max)) {
		fputs("# cpu, cpu weight, pids, io weight: none\n", fp);
		return;
	}
	print_one(fp, "", &c->lim_dflt);
	print_one(fp, "api max ", &c->lim_max);
}
