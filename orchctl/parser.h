/*
 * orchctl's command grammar: the token tables in parser.c turn argv into
 * one struct parse_result.
 */

#ifndef ORCHCTL_PARSER_H
#define ORCHCTL_PARSER_H

#include <stdio.h>

#include "workload.h"

enum actions {
	NONE = 0,
	SHOW_SUMMARY,
	SHOW_WORKLOADS,
	SHOW_WORKLOAD,
	SHOW_STATS,
	RELOAD,
	LOG_VERBOSE,
	LOG_BRIEF,
	WAKE,
	SUSPEND,
	KEEPWARM,
	LOGS,
	SHOW_VERSION,
	MONITOR,
	PULL,
	CREATE,
	UPDATE,
	DELETE,
	KEEP,
	SHOW_HISTORY,
	LOG_REOPEN,
	RESTART,
	SHOW_CERTIFICATES,
	RENEW
};

/* flags */
#define F_FOLLOW	0x01		/* logs -f */

#define LOGS_LINES_MAX	1000000		/* largest logs -n */
#define LOGS_LINES_DEFAULT 10		/* logs without -n, as tail(1) */
#define LOGS_LINES_ALL	-1		/* logs -n all */

struct parse_result {
	enum actions	 action;
	char		 name[ORCHD_NAME_MAX];	/* the workload, if any */
	char		 host[ORCHD_HOST_MAX];	/* renew: the host */
	int		 onoff;			/* keepwarm: 1 on, 0 off */
	int		 lines;			/* logs -n, or LOGS_LINES_* */
	int		 flags;			/* F_* */
	void		*def;			/* create, update: the
						   definition, packed
						   (workload_wire): orchd
						   reads no JSON */
	size_t		 deflen;
	const char	*file;			/* update: the file, read
						   once orchd has the
						   workload */
};

#define USAGE_WIDTH	32		/* -h: a command's words */

const struct parse_result	*parse(int, char *[]);
void				 parse_usage(FILE *);
void				 parse_complete(int, char *[],
				    void (*)(const char *));

/* define.c: create and update, whose words are a definition's */
const struct parse_result	*parse_define(int, int, char *[]);
const struct parse_result	*define_load(void);
void				 define_usage(FILE *);
void				 define_complete(int, int, char *[],
				    void (*)(const char *));

#endif /* ORCHCTL_PARSER_H */
