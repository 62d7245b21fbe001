/*
 * orchctl's command parser, in the relayctl/bgpctl manner: static token
 * tables, one per position in the command, each entry naming the table
 * that follows it.  A new command is a row in one of these tables, an
 * action in parser.h and a request in orchctl.c.
 *
 * Keywords may be abbreviated as long as the abbreviation is unambiguous
 * ("sh su" is "show summary"); an exact keyword always wins, and in a
 * table that also takes a value (a workload name) only exact keywords are
 * keywords.
 */

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "units.h"

enum token_type {
	NOTOKEN,		/* the command may end here */
	ENDTOKEN,		/* the end of a table */
	KEYWORD,		/* a word; sets the action unless NONE */
	ONOFF,			/* "on" or "off": value goes to onoff */
	FLAG,			/* a word; value is or'ed into flags */
	WLNAME,			/* a workload name */
	LINES,			/* a number of lines */
	HOSTNAME,		/* a host name: renew */
	ALLLINES,		/* a word meaning every line */
	DEFINE			/* a keyword whose words are a
				   definition's (define.c) */
};

struct token {
	enum token_type		 type;
	const char		*keyword;
	int			 value;
	const struct token	*next;
	const char		*args;	/* -h: the words that follow */
	const char		*help;	/* -h: what it does; NULL: next's */
};

static const struct token t_main[];
static const struct token t_show[];
static const struct token t_show_workload[];
static const struct token t_log[];
static const struct token t_name[];
static const struct token t_keepwarm[];
static const struct token t_onoff[];
static const struct token t_logs[];
static const struct token t_logs_opts[];
static const struct token t_lines[];
static const struct token t_lines_first[];
static const struct token t_host[];
static const struct token t_import[];

/*
 * The commands: each row's words after the keyword and its line of help
 * make orchctl -h (parse_usage), and its words the list printed after a
 * word not understood and the shell's completion (parse_complete).  A
 * keyword whose words are another table's (show, log) has its help on
 * that table's rows.  orchctl.8 lists the same commands, which
 * regress/e2e/orchctl_help.sh checks.
 */
static const struct token t_main[] = {
	{ DEFINE,	"create",	CREATE,		NULL,
	    "file | - | name --flag value ...",
	    "define a workload (its flags below)" },
	{ KEYWORD,	"delete",	DELETE,		t_name,
	    "name | --project name [--volumes]",
	    "stop and remove a workload (API, create)" },
	/* group and import: their words are group.c's and import.c's */
	{ KEYWORD,	"group",	NONE,		NULL,
	    "name wake | suspend | keep | delete | keepwarm | maintenance "
	    "on | off",
	    "act on each workload of a group" },
	{ KEYWORD,	"import",	NONE,		t_import, NULL, NULL },
	{ KEYWORD,	"keep",		KEEP,		t_name,
	    "name",	"make an API workload never expire" },
	{ KEYWORD,	"keepwarm",	KEEPWARM,	t_keepwarm,
	    "name on | off", "keep a workload awake, or no longer" },
	{ KEYWORD,	"log",		NONE,		t_log,	NULL, NULL },
	/* maintenance: its words are maint.c's */
	{ KEYWORD,	"maintenance",	NONE,		NULL,
	    "name on [--until time] [--message text] | off",
	    "keep a workload down, answering 503" },
	{ KEYWORD,	"logs",		LOGS,		t_logs,
	    "name [-f] [-n lines | all]", "print a workload's output" },
	{ KEYWORD,	"monitor",	MONITOR,	NULL,
	    "",		"print events as they happen" },
	{ KEYWORD,	"pull",		PULL,		t_name,
	    "name",	"pull a docker workload's image" },
	{ KEYWORD,	"reload",	RELOAD,		NULL,
	    "",		"read the configuration again" },
	{ KEYWORD,	"renew",	RENEW,		t_host,
	    "host",	"ask acmed for a new certificate" },
	{ KEYWORD,	"restart",	RESTART,	t_name,
	    "name",	"replace a running workload by a fresh start" },
	{ KEYWORD,	"show",		NONE,		t_show,	NULL, NULL },
	{ KEYWORD,	"suspend",	SUSPEND,	t_name,
	    "name",	"suspend a workload now" },
	{ DEFINE,	"update",	UPDATE,		NULL,
	    "name file | -", "replace a workload's definition (API, create)" },
	{ KEYWORD,	"wake",		WAKE,		t_name,
	    "name",	"wake a workload now" },
	{ ENDTOKEN,	"",		NONE,		NULL,	NULL, NULL }
};

static const struct token t_import[] = {
	{ KEYWORD,	"compose",	NONE,		NULL,
	    "file [--project name] [--host-suffix suffix] [--dry-run]",
	    "workloads from a Compose file's services" },
	{ ENDTOKEN,	"",		NONE,		NULL,	NULL, NULL }
};

static const struct token t_show[] = {
	{ KEYWORD,	"certificates",	SHOW_CERTIFICATES, NULL,
	    "",		"acmed's certificates and their state" },
	{ KEYWORD,	"groups",	NONE,		NULL,
	    "",		"one line a group, its members' states" },
	{ KEYWORD,	"history",	SHOW_HISTORY,	t_name,
	    "name",	"a workload's transitions" },
	{ KEYWORD,	"stats",	SHOW_STATS,	NULL,
	    "",		"each workload's wakes, requests and memory" },
	{ KEYWORD,	"summary",	SHOW_SUMMARY,	NULL,
	    "",		"orchd's processes" },
	{ KEYWORD,	"version",	SHOW_VERSION,	NULL,
	    "",		"orchctl's and orchd's versions" },
	{ KEYWORD,	"workload",	SHOW_WORKLOAD,
	    t_show_workload, "name", "everything about a workload" },
	{ KEYWORD,	"workloads",	SHOW_WORKLOADS,	NULL,
	    "",		"one line a workload" },
	{ ENDTOKEN,	"",		NONE,		NULL,	NULL, NULL }
};

static const struct token t_show_workload[] = {
	{ WLNAME,	"",		NONE,		NULL, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_log[] = {
	{ KEYWORD,	"brief",	LOG_BRIEF,	NULL,
	    "",		"log warnings and notable events only" },
	{ KEYWORD,	"reopen",	LOG_REOPEN,	NULL,
	    "",		"open the log files again (after a rotation)" },
	{ KEYWORD,	"verbose",	LOG_VERBOSE,	NULL,
	    "",		"log more, as orchd -v" },
	{ ENDTOKEN,	"",		NONE,		NULL,	NULL, NULL }
};

static const struct token t_name[] = {
	{ WLNAME,	"",		NONE,		NULL, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_host[] = {
	{ HOSTNAME,	"",		NONE,		NULL, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_keepwarm[] = {
	{ WLNAME,	"",		NONE,		t_onoff, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_onoff[] = {
	{ ONOFF,	"off",		0,		NULL, NULL, NULL },
	{ ONOFF,	"on",		1,		NULL, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

/* logs' options may come before the name as well as after it */
static const struct token t_logs[] = {
	{ FLAG,		"-f",		F_FOLLOW,	t_logs, NULL, NULL },
	{ KEYWORD,	"-n",		NONE,		t_lines_first,
	    NULL, NULL },
	{ WLNAME,	"",		NONE,		t_logs_opts,
	    NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_lines_first[] = {
	{ ALLLINES,	"all",		NONE,		t_logs, NULL, NULL },
	{ LINES,	"",		NONE,		t_logs, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_logs_opts[] = {
	{ NOTOKEN,	"",		NONE,		NULL, NULL, NULL },
	{ FLAG,		"-f",		F_FOLLOW,	t_logs_opts,
	    NULL, NULL },
	{ KEYWORD,	"-n",		NONE,		t_lines, NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static const struct token t_lines[] = {
	{ ALLLINES,	"all",		NONE,		t_logs_opts,
	    NULL, NULL },
	{ LINES,	"",		NONE,		t_logs_opts,
	    NULL, NULL },
	{ ENDTOKEN,	"",		NONE,		NULL, NULL, NULL }
};

static struct parse_result	 res;

static int	 is_word(enum token_type);
static int	 is_value(enum token_type);
static int	 match_token(const char *, const struct token *, int);
static int	 apply_token(const struct token *, const char *,
		    struct parse_result *);
static void	 show_valid_args(const struct token *);
static void	 usage_table(FILE *, const char *, const struct token *);

const struct parse_result *
parse(int argc, char *argv[])
{
	const struct token	*table = t_main;
	const char		*word;
	int			 i;

	memset(&res, 0, sizeof(res));
	res.lines = LOGS_LINES_DEFAULT;

	for (;;) {
		word = argc > 0 ? argv[0] : NULL;
		if ((i = match_token(word, table, 1)) >= 0 &&
		    table[i].type == DEFINE)
			return (parse_define(table[i].value, argc, argv));
		if (i < 0 ||
		    apply_token(&table[i], word, &res) == -1) {
			show_valid_args(table);
			return (NULL);
		}
		if (table[i].type == NOTOKEN)
			break;
		argc--;
		argv++;
		if ((table = table[i].next) == NULL)
			break;
	}
	if (argc > 0) {
		warnx("superfluous argument: %s", argv[0]);
		return (NULL);
	}
	return (&res);
}

/* A token matched by its keyword. */
static int
is_word(enum token_type type)
{
	return (type == KEYWORD || type == ONOFF || type == FLAG ||
	    type == ALLLINES || type == DEFINE);
}

/* A token that takes the word as its value. */
static int
is_value(enum token_type type)
{
	return (type == WLNAME || type == LINES || type == HOSTNAME);
}

/*
 * The index in table of the token that word matches: an exact keyword,
 * else a value token, else the one keyword word abbreviates.  -1, after
 * saying why if verbose, when there is none.
 */
static int
match_token(const char *word, const struct token *table, int verbose)
{
	size_t	 len;
	int	 i, match = -1, n = 0;

	if (word == NULL) {
		for (i = 0; table[i].type != ENDTOKEN; i++)
			if (table[i].type == NOTOKEN)
				return (i);
		if (verbose)
			warnx("missing argument");
		return (-1);
	}
	if (*word == '\0') {
		if (verbose)
			warnx("empty argument");
		return (-1);
	}
	for (i = 0; table[i].type != ENDTOKEN; i++)
		if (is_word(table[i].type) &&
		    strcmp(word, table[i].keyword) == 0)
			return (i);
	for (i = 0; table[i].type != ENDTOKEN; i++)
		if (is_value(table[i].type))
			return (i);

	len = strlen(word);
	for (i = 0; table[i].type != ENDTOKEN; i++) {
		if (is_word(table[i].type) &&
		    strncmp(word, table[i].keyword, len) == 0) {
			match = i;
			n++;
		}
	}
	if (n == 1)
		return (match);
	if (verbose)
		warnx("%s argument: %s", n == 0 ? "unknown" : "ambiguous",
		    word);
	return (-1);
}

/* Record what a matched token means; -1, after saying why, if invalid. */
static int
apply_token(const struct token *t, const char *word, struct parse_result *r)
{
	const char	*errstr;
	size_t		 len;

	switch (t->type) {
	case NOTOKEN:
	case ENDTOKEN:
	case DEFINE:
		break;
	case KEYWORD:
		if (t->value != NONE)
			r->action = t->value;
		break;
	case ONOFF:
		r->onoff = t->value;
		break;
	case FLAG:
		r->flags |= t->value;
		break;
	case WLNAME:
		len = strlen(word);
		if (len >= sizeof(r->name) || !valid_workload_name(word)) {
			warnx("invalid workload name: %s", word);
			return (-1);
		}
		memcpy(r->name, word, len + 1);
		break;
	case HOSTNAME:
		/* orchd checks it is a workload's; here, only its length */
		if (strlcpy(r->host, word, sizeof(r->host)) >=
		    sizeof(r->host)) {
			warnx("host name too long: %s", word);
			return (-1);
		}
		break;
	case LINES:
		r->lines = strtonum(word, 0, LOGS_LINES_MAX, &errstr);
		if (errstr != NULL) {
			warnx("number of lines is %s: %s", errstr, word);
			return (-1);
		}
		break;
	case ALLLINES:
		r->lines = LOGS_LINES_ALL;
		break;
	}
	return (0);
}

static void
show_valid_args(const struct token *table)
{
	int	 i;

	fprintf(stderr, "valid commands/args:\n");
	for (i = 0; table[i].type != ENDTOKEN; i++) {
		switch (table[i].type) {
		case NOTOKEN:
			fprintf(stderr, "  <cr>\n");
			break;
		case KEYWORD:
		case ONOFF:
		case FLAG:
		case ALLLINES:
		case DEFINE:
			fprintf(stderr, "  %s\n", table[i].keyword);
			break;
		case WLNAME:
			fprintf(stderr, "  <workload>\n");
			break;
		case LINES:
			fprintf(stderr, "  <number>\n");
			break;
		case HOSTNAME:
			fprintf(stderr, "  <host>\n");
			break;
		case ENDTOKEN:
			break;
		}
	}
}

/* orchctl -h: every command with its words and its line of help */
void
parse_usage(FILE *f)
{
	fprintf(f, "commands:\n");
	usage_table(f, "", t_main);
	define_usage(f);
}

static void
usage_table(FILE *f, const char *prefix, const struct token *table)
{
	char	 line[128];
	int	 i;

	for (i = 0; table[i].type != ENDTOKEN; i++) {
		if (!is_word(table[i].type))
			continue;
		if (table[i].help == NULL) {
			if (table[i].next != NULL)
				usage_table(f, table[i].keyword,
				    table[i].next);
			continue;
		}
		(void)snprintf(line, sizeof(line), "%s%s%s%s%s", prefix,
		    *prefix != '\0' ? " " : "", table[i].keyword,
		    *table[i].args != '\0' ? " " : "", table[i].args);
		/* a long one has its help on a line of its own */
		if (strlen(line) > USAGE_WIDTH)
			fprintf(f, "  %s\n  %-*s %s\n", line, USAGE_WIDTH,
			    "", table[i].help);
		else
			fprintf(f, "  %-*s %s\n", USAGE_WIDTH, line,
			    table[i].help);
	}
}

/*
 * orchctl complete: the words that may follow argv[0] ... argv[argc - 2]
 * and begin with argv[argc - 1], one a line on stdout, a workload's name
 * asked of names().  Nothing where the word is a value of another kind
 * (a file, a number, a host): the shell then offers its files.
 */
void
parse_complete(int argc, char *argv[], void (*names)(const char *))
{
	const struct token	*table = t_main;
	const char		*cur = argc > 0 ? argv[argc - 1] : "";
	size_t			 len = strlen(cur);
	int			 i, k, wl = 0;

	for (k = 0; k < argc - 1; k++) {
		if ((i = match_token(argv[k], table, 0)) < 0)
			return;
		if (table[i].type == DEFINE) {
			define_complete(table[i].value, argc - k, argv + k,
			    names);
			return;
		}
		if ((table = table[i].next) == NULL)
			return;
	}
	for (i = 0; table[i].type != ENDTOKEN; i++) {
		if (is_word(table[i].type) &&
		    strncmp(cur, table[i].keyword, len) == 0)
			printf("%s\n", table[i].keyword);
		else if (table[i].type == WLNAME)
			wl = 1;
	}
	if (wl) {
		(void)fflush(stdout);
		names(cur);
	}
}
