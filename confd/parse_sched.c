/*
 * "keep warm during WINDOW [timezone ZONE]" and "wake at CRON [timezone
 * ZONE] [for DURATION]" in a workload's block: kept as one line of text,
 * the form the API takes too ("mon-fri 09:00-18:00 timezone
 * Europe/Paris", "0 3 * * * for 1h"), checked by common/sched.c.  The
 * zone must be one of the system's tzdata, which confd may read and the
 * other children may not: orchd -n refuses one that is not.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "schedule.h"
#include "units.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

int
parse_sched_add(struct strlist *list, int wake, const char *text,
    const char *zone, int64_t hold)
{
	struct sched_spec	 sp;
	const char		*what = wake ? "wake at" : "keep warm during";
	char			 line[SCHED_TEXT_MAX * 2], d[32], err[256];
	char			 rule[SCHED_RULE_MAX];
	int			 n;

	n = snprintf(line, sizeof(line), "%s%s%s%s%s", text,
	    zone != NULL ? " timezone " : "", zone != NULL ? zone : "",
	    hold > 0 ? " for " : "", hold > 0 ?
	    fmt_duration(hold, d, sizeof(d)) : "");
	if (n < 0 || (size_t)n >= sizeof(line)) {
		yyerror("%s: longer than %d bytes", what, SCHED_TEXT_MAX - 1);
		return (-1);
	}
	if (sched_parse(wake ? SCHED_WAKE : SCHED_WINDOW, line, &sp, err,
	    sizeof(err)) == -1) {
		yyerror("%s \"%s\": %s", what, valid_text(text) ? text : "?",
		    err);
		return (-1);
	}
	if (sp.zone[0] != '\0' && sched_zone_rule(sp.zone, rule,
	    sizeof(rule), err, sizeof(err)) == -1) {
		yyerror("%s: %s", what, err);
		return (-1);
	}
	if (strlist_add(list, line) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}
