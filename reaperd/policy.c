/*
 * The suspend decision, kept apart from any I/O so it can be tested: when
 * a workload is idle, how "depends on" keeps a workload up for those
 * that depend on it, and the memory pressure PSI reports.
 */

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "reaper.h"
#include "workload.h"

/*
 * A workload is suspended when it runs, is not kept warm, has an idle
 * timeout, has been idle that long, and has nothing in flight: no request
 * being proxied or parked, no open tunnel.  A streaming answer is a
 * request in flight until its last byte.
 */
int
reaper_due(const struct reap_wl *wl, time_t now)
{
	if (wl->state != WL_RUNNING || wl->keep_warm || wl->idle_timeout <= 0)
		return (0);
	if (wl->held)
		return (0);
	if (wl->inflight > 0 || wl->upgraded > 0)
		return (0);
	return (now - wl->last_seen >= wl->idle_timeout);
}

/*
 * The share of the last 10 seconds in which some task waited for memory,
 * from the text of /proc/pressure/memory:
 *	some avg10=1.53 avg60=0.40 avg300=0.09 total=1436735
 *	full avg10=0.00 avg60=0.00 avg300=0.00 total=404283
 * as hundredths of a percent (153).  -1 if the text is not that.
 */
int
reaper_psi_parse(const char *text, int32_t *avg10)
{
	const char	*p, *nl;
	int32_t		 v = 0;
	int		 digits = 0, decimals = -1;

	if (strncmp(text, "some ", 5) != 0 ||
	    (p = strstr(text, "avg10=")) == NULL ||
	    ((nl = strchr(text, '\n')) != NULL && nl < p))
		return (-1);
	for (p += 6; isdigit((unsigned char)*p) || *p == '.'; p++) {
		if (*p == '.') {
			if (decimals != -1)
				return (-1);
			decimals = 0;
			continue;
		}
		if (decimals == 2)
			continue;	/* more precision than we keep */
		if (++digits > 5)
			return (-1);
		v = v * 10 + (*p - '0');
		if (decimals != -1)
			decimals++;
	}
	if (digits == 0 || (*p != ' ' && *p != '\n' && *p != '\0'))
		return (-1);
	for (decimals = decimals == -1 ? 0 : decimals; decimals < 2;
	    decimals++)
		v *= 10;
	if (v > 10000)
		return (-1);
	*avg10 = v;
	return (0);
}

/* waking, running or stopping: may be due, holds what it depends on */
int
reaper_is_up(enum workload_state state)
{
	return (state == WL_WAKING || state == WL_RUNNING ||
	    state == WL_SUSPENDING);
}

/*
 * runtimed says wl is in state since then.  A fresh start gets its whole
 * idle timeout, request or not; and when wl goes down, what it depends
 * on starts its idle time then, unless its own last use is later: the
 * last of those that depend on it to sleep sets it.
 */
void
reaper_state(struct reap_wl *wl, enum workload_state state, time_t since)
{
	uint32_t	 i;

	if (state == WL_RUNNING && wl->state != WL_RUNNING &&
	    since > wl->last_seen)
		wl->last_seen = since;
	if (reaper_is_up(wl->state) && !reaper_is_up(state))
		for (i = 0; i < wl->ndeps; i++)
			if (since > wl->deps[i]->last_seen)
				wl->deps[i]->last_seen = since;
	wl->state = state;
}

/*
 * Before each round: wl, if up (waking, running, stopping), holds up
 * what it depends on.  held is cleared for all first.
 */
void
reaper_hold(const struct reap_wl *wl)
{
	uint32_t	 i;

	if (!reaper_is_up(wl->state))
		return;
	for (i = 0; i < wl->ndeps; i++)
		wl->deps[i]->held = 1;
}
