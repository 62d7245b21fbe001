/*
 * The memory budget's arithmetic that more than one process needs: the
 * running estimate of a workload's memory (runtimed keeps it, the store
 * remembers it), the buckets of the queue wait histogram (runtimed
 * counts, the gateway writes /metrics), and the percentages of "memory
 * pressure limit" (the parser, the printer).
 */

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>

#include "budget.h"
#include "msg.h"

/* seconds a wake waited in the queue for room or a wake slot */
const double budget_wait_bounds[BUDGET_WAIT_BOUNDS] = {
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120
};

/*
 * The estimate after a run that peaked at peak, from prev (0: none).
 * A higher peak is taken at once: under-estimating overcommits the host.
 * A lower one is approached by a quarter of the difference per run, so
 * that one quiet run does not undo what a busy one showed.  Never below
 * the last peak, so the estimate always covers the last run.
 */
int64_t
memory_estimate_next(int64_t prev, int64_t peak)
{
	if (peak <= 0)
		return (prev);
	if (prev <= peak)
		return (peak);
	return (prev - (prev - peak) / 4);
}

/* bucket of a wait of secs seconds in budget_wait_bounds, or the last */
int
budget_wait_bucket(double secs)
{
	int	 i;

	for (i = 0; i < BUDGET_WAIT_BOUNDS; i++)
		if (secs <= budget_wait_bounds[i])
			return (i);
	return (BUDGET_WAIT_BOUNDS);
}

/*
 * A percentage as "10%", "2.5%" or "0.25%", into hundredths of a
 * percent (1000, 250, 25): more than 0, at most 100, at most two
 * decimals.  The sign is required, so that a bare number is never taken
 * for a fraction or a count.
 */
int
parse_percent(const char *s, int64_t *out, const char **errstr)
{
	int64_t	 v = 0;
	int	 digits = 0, decimals = -1;

	for (; *s != '\0' && *s != '%'; s++) {
		if (*s == '.' && decimals == -1 && digits > 0) {
			decimals = 0;
			continue;
		}
		if (!isdigit((unsigned char)*s) || decimals == 2 ||
		    digits > 3) {
			*errstr = "invalid percentage";
			return (-1);
		}
		v = v * 10 + (*s - '0');
		if (decimals == -1)
			digits++;
		else
			decimals++;
	}
	if (*s != '%' || s[1] != '\0' || digits == 0 || decimals == 0) {
		*errstr = "invalid percentage";
		return (-1);
	}
	for (decimals = decimals == -1 ? 0 : decimals; decimals < 2;
	    decimals++)
		v *= 10;
	if (v <= 0 || v > 10000) {
		*errstr = "percentage out of range";
		return (-1);
	}
	*out = v;
	return (0);
}

/* hundredths of a percent as "10%", "2.5%", "0.25%" */
char *
fmt_percent(int64_t v, char *buf, size_t len)
{
	if (v % 100 == 0)
		(void)snprintf(buf, len, "%lld%%", (long long)(v / 100));
	else if (v % 10 == 0)
		(void)snprintf(buf, len, "%lld.%lld%%", (long long)(v / 100),
		    (long long)(v % 100 / 10));
	else
		(void)snprintf(buf, len, "%lld.%02lld%%", (long long)(v / 100),
		    (long long)(v % 100));
	return (buf);
}
