/*
 * "keep warm during WINDOW [timezone ZONE]" and "wake at CRON [timezone
 * ZONE] [for DURATION]" in a workload's block: kept as one line of text,
 * the form the API takes too ("mon-fri 09:00-18:00 timezone
 * Europe/Paris", "0 3 * * * for 1h"), checked by common/sched.c.  The
 * zone must be one of the system's tzdata, which confd may read and the
 * other children may not: orchd -n refuses one that is not.
 *
 * A group's ("group NAME { keep warm during ...  wake at ... }") are
 * checked by the same function, then kept as the configuration's lines
 * "NAME window TEXT" and "NAME wake TEXT" (common/sched_wl.c), which
 * the parent checks again and gives every member of the group.  A
 * group no workload names yet is allowed: an API member may come later.
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

/* the group block being read ("group NAME {"); "" after a bad name */
static char	group_name[ORCHD_NAME_MAX];

int
parse_group_begin(const char *name)
{
	group_name[0] = '\0';
	if (!valid_workload_name(name) || !valid_text(name)) {
		yyerror("group \"%s\": must be a name as a workload's",
		    valid_text(name) ? name : "?");
		return (-1);
	}
	(void)strlcpy(group_name, name, sizeof(group_name));
	return (0);
}

/* a window or a wake of the group block, by parse_sched_add's checks */
int
parse_group_sched(int wake, const char *text, const char *zone,
    int64_t hold)
{
	struct strlist		 one = TAILQ_HEAD_INITIALIZER(one);
	const struct strentry	*e;
	const char		*what = wake ? "wake at" : "keep warm during";
	char			 line[ORCHD_NAME_MAX + SCHED_TEXT_MAX * 2 + 8];
	size_t			 n = 0, plen;
	int			 r = -1;

	if (group_name[0] == '\0')
		return (-1);
	if (parse_sched_add(&one, wake, text, zone, hold) == -1)
		return (-1);
	(void)snprintf(line, sizeof(line), "%s %s ", group_name,
	    wake ? "wake" : "window");
	plen = strlen(line);
	TAILQ_FOREACH(e, &conf->group_scheds, entry)
		if (strncmp(e->str, line, plen) == 0) {
			if (strcmp(e->str + plen, TAILQ_FIRST(&one)->str) ==
			    0) {
				yyerror("group %s: %s \"%s\" given twice",
				    group_name, what, TAILQ_FIRST(&one)->str);
				goto done;
			}
			n++;
		}
	if (n >= SCHED_MAX) {
		yyerror("group %s: %s: at most %d", group_name, what,
		    SCHED_MAX);
		goto done;
	}
	(void)strlcat(line, TAILQ_FIRST(&one)->str, sizeof(line));
	if (strlist_add(&conf->group_scheds, line) == -1) {
		yyerror("out of memory");
		goto done;
	}
	r = 0;
 done:
	strlist_free(&one);
	return (r);
}
