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
	ALLLINES		/* a word meaning every line */
};

struct token {
	enum token_type		 type;
	const char		*keyword;
	int			 value;
	const struct token	*next;
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

static const struct token t_main[] = {
	{ KEYWORD,	"delete",	DELETE,		t_name },
	{ KEYWORD,	"keep",		KEEP,		t_name },
	{ KEYWORD,	"keepwarm",	KEEPWARM,	t_keepwarm },
	{ KEYWORD,	"log",		NONE,		t_log },
	{ KEYWORD,	"logs",		LOGS,		t_logs },
	{ KEYWORD,	"monitor",	MONITOR,	NULL },
	{ KEYWORD,	"pull",		PULL,		t_name },
	{ KEYWORD,	"reload",	RELOAD,		NULL },
	{ KEYWORD,	"renew",	RENEW,		t_host },
	{ KEYWORD,	"restart",	RESTART,	t_name },
	{ KEYWORD,	"show",		NONE,		t_show },
	{ KEYWORD,	"suspend",	SUSPEND,	t_name },
	{ KEYWORD,	"wake",		WAKE,		t_name },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_show[] = {
	{ KEYWORD,	"certificates",	SHOW_CERTIFICATES, NULL },
	{ KEYWORD,	"history",	SHOW_HISTORY,	t_name },
	{ KEYWORD,	"stats",	SHOW_STATS,	NULL },
	{ KEYWORD,	"summary",	SHOW_SUMMARY,	NULL },
	{ KEYWORD,	"version",	SHOW_VERSION,	NULL },
	{ KEYWORD,	"workload",	SHOW_WORKLOAD,	t_show_workload },
	{ KEYWORD,	"workloads",	SHOW_WORKLOADS,	NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_show_workload[] = {
	{ WLNAME,	"",		NONE,		NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_log[] = {
	{ KEYWORD,	"brief",	LOG_BRIEF,	NULL },
	{ KEYWORD,	"reopen",	LOG_REOPEN,	NULL },
	{ KEYWORD,	"verbose",	LOG_VERBOSE,	NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_name[] = {
	{ WLNAME,	"",		NONE,		NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_host[] = {
	{ HOSTNAME,	"",		NONE,		NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_keepwarm[] = {
	{ WLNAME,	"",		NONE,		t_onoff },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_onoff[] = {
	{ ONOFF,	"off",		0,		NULL },
	{ ONOFF,	"on",		1,		NULL },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

/* logs' options may come before the name as well as after it */
static const struct token t_logs[] = {
	{ FLAG,		"-f",		F_FOLLOW,	t_logs },
	{ KEYWORD,	"-n",		NONE,		t_lines_first },
	{ WLNAME,	"",		NONE,		t_logs_opts },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_lines_first[] = {
	{ ALLLINES,	"all",		NONE,		t_logs },
	{ LINES,	"",		NONE,		t_logs },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_logs_opts[] = {
	{ NOTOKEN,	"",		NONE,		NULL },
	{ FLAG,		"-f",		F_FOLLOW,	t_logs_opts },
	{ KEYWORD,	"-n",		NONE,		t_lines },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static const struct token t_lines[] = {
	{ ALLLINES,	"all",		NONE,		t_logs_opts },
	{ LINES,	"",		NONE,		t_logs_opts },
	{ ENDTOKEN,	"",		NONE,		NULL }
};

static struct parse_result	 res;

static int	 is_word(enum token_type);
static int	 is_value(enum token_type);
static int	 match_token(const char *, const struct token *);
static int	 apply_token(const struct token *, const char *,
		    struct parse_result *);
static void	 show_valid_args(const struct token *);

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
		if ((i = match_token(word, table)) < 0 ||
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
	    type == ALLLINES);
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
 * saying why, when there is none.
 */
static int
match_token(const char *word, const struct token *table)
{
	size_t	 len;
	int	 i, match = -1, n = 0;

	if (word == NULL) {
		for (i = 0; table[i].type != ENDTOKEN; i++)
			if (table[i].type == NOTOKEN)
				return (i);
		warnx("missing argument");
		return (-1);
	}
	if (*word == '\0') {
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
	warnx("%s argument: %s", n == 0 ? "unknown" : "ambiguous", word);
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
