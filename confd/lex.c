/*
 * orchd.conf(5)'s lexer: the tokens of parse.y (their numbers in the
 * parse.h byacc writes beside parse.c), its sorted keyword table, and the
 * wording of a syntax error, with the keyword a misspelt word was most
 * likely meant to be.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "hashtab.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "units.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"
#include "parse.h"

extern int		 yychar;	/* byacc's lookahead */

/* the lexer's memory of the last tokens, for the errors it words */
static char		 lasttok[48];	/* for "syntax error near" */
static char		 lineword[48];	/* an unknown first word */
static int		 at_bol = 1;	/* next token starts a line */
static int		 lastbare;	/* last token: a bare word */
static int		 prevtok;	/* the token before the last */

static int	 lex(void);
static int	 kw_cmp(const void *, const void *);
static int	 lookup(const char *, const char **);
static int	 unknown_keyword(const char *, int);
static int	 findeol(void);
static void	 printable(char *);

struct keyword {
	const char	*name;
	int		 token;
};

/*
 * Lines are numbered by whoever consumes the newline: yylex() when it
 * returns it as a token, lgetc() for a continuation, findeol().  yylval
 * carries the line of the token last read, which is the line of the
 * statement being reduced.
 */

int
yyerror(const char *fmt, ...)
{
	va_list		 ap;
	const char	*near;

	/* the lexer said why already: no "syntax error" on top */
	if (yychar == ERROR && strcmp(fmt, "syntax error") == 0)
		return (0);
	if (strcmp(fmt, "syntax error") == 0) {
		printable(lasttok);
		printable(lineword);
		if (yychar == 0)
			return (yyerror_at(file->lineno > 1 ?
			    file->lineno - 1 : 1, "unexpected end of file"));
		if (lineword[0] != '\0')
			return (unknown_keyword(lineword, 1));
		/*
		 * "idle timout": after a keyword, a bare word near another
		 * one ("prefork two" stays a syntax error)
		 */
		near = NULL;
		if (yychar == STRING && lastbare && prevtok >= ADDRESS &&
		    prevtok < ERROR && isalpha((unsigned char)lasttok[0]) &&
		    lookup(lasttok, &near) == STRING && near != NULL)
			return (unknown_keyword(lasttok, 0));
		if (yychar == '\n')
			return (yyerror_at(yylval.lineno,
			    "syntax error at end of line"));
		return (yyerror_at(yylval.lineno, "syntax error near \"%s\"",
		    lasttok));
	}
	va_start(ap, fmt);
	vreport(yylval.lineno, fmt, ap);
	va_end(ap);
	return (0);
}

/*
 * What may begin a statement at the top of the file and in a workload's
 * block, for the suggestion a misspelt first word gets: a word that is a
 * keyword elsewhere is no help where it cannot stand.
 */
static const char *const top_starts[] = {
	"access log", "acme", "api allow", "api host", "api key file",
	"api listen on", "api max", "api metrics public", "body timeout",
	"chroot", "connect timeout", "cpu", "cpu weight", "database",
	"docker labels", "docker socket", "error page", "expire after",
	"group", "health failures", "health interval", "health timeout",
	"http2 max streams", "idle timeout", "ignore", "include",
	"instance name", "io weight", "keepalive timeout", "listen on",
	"log directory",
	"log max size", "max concurrent wakes", "max connections",
	"memory budget", "memory estimate", "memory pressure limit",
	"metrics per workload",
	"notify", "notify allow", "notify key file",
	"on change", "pids", "prefork", "pull", "pull timeout",
	"reaper interval",
	"registry auth file", "server timing", "socket", "status key file",
	"status listen on", "status page", "status session timeout",
	"suspend", "swarm manager", "trusted proxy", "tunnel idle timeout",
	"upstream timeout", "user", "wake timeout", "workload",
	"workload directory", "workload uids", NULL
};
static const char *const wl_starts[] = {
	"address", "allow from", "auth basic", "auth request", "busy fail",
	"busy max", "busy path", "command", "constraint", "cpu",
	"cpu weight", "deny from",
	"depends on", "directory", "driver", "entrypoint", "env",
	"error page", "expire after", "group", "group wake",
	"health failures",
	"health interval", "health path", "health tcp", "health timeout",
	"host", "idle timeout", "ignore", "image", "init", "io weight",
	"keep warm", "keep warm during", "listen on", "log timestamps",
	"memory", "network",
	"on change", "path", "pids", "port", "publish", "pull",
	"pull timeout",
	"redirect https", "replicas", "run once", "run timeout", "runtime",
	"server timing", "socket activation", "stop signal", "stop timeout",
	"strip prefix", "suspend", "timeout", "tls keypair",
	"tunnel idle timeout", "upstream", "user", "volume", "wake at",
	"wake timeout",
	NULL
};

#define NEAR_MAX	3	/* statements named in one suggestion */

/* within the distance lookup() allows for a word of that length */
static int
near_word(const char *word, const char *kw, size_t kwlen)
{
	char	 buf[48];

	if (kwlen >= sizeof(buf))
		return (0);
	memcpy(buf, kw, kwlen);
	buf[kwlen] = '\0';
	return (edit_distance(word, buf) < (strlen(word) <= 4 ? 2 : 3));
}

/*
 * A first word that is no keyword: the statements that may stand here
 * and begin with a word near it, or else that have a later word near it
 * ("timout" at the top: "body timeout", "connect timeout", ...).  The
 * message is in buf; 0 when none is near.
 */
static int
near_starts(const char *word, char *buf, size_t len)
{
	const char *const	*starts = wl != NULL ? wl_starts : top_starts;
	const char		*p, *sp;
	size_t			 i, n = 0, more = 0;
	int			 pass;

	buf[0] = '\0';
	/* a statement's first word, else one of its later words */
	for (pass = 0; pass < 2 && n == 0; pass++)
		for (i = 0; starts[i] != NULL; i++) {
			for (p = starts[i]; p != NULL; p = sp) {
				if ((sp = strchr(p, ' ')) != NULL)
					sp++;
				if ((pass == 0) != (p == starts[i]))
					continue;
				if (!near_word(word, p, sp != NULL ?
				    (size_t)(sp - 1 - p) : strlen(p)))
					continue;
				if (n++ < NEAR_MAX) {
					(void)strlcat(buf, n > 1 ? ", \"" :
					    "\"", len);
					(void)strlcat(buf, starts[i], len);
					(void)strlcat(buf, "\"", len);
				} else
					more++;
				break;
			}
		}
	if (more > 0)
		(void)snprintf(buf + strlen(buf), len - strlen(buf),
		    " or %zu more", more);
	return (n > 0);
}

/*
 * A misspelt keyword, and the nearest real one if there is one; for the
 * first word of a statement (first), the statements that may stand there.
 */
static int
unknown_keyword(const char *word, int first)
{
	const char	*near = NULL;
	char		 starts[256];

	if (first && near_starts(word, starts, sizeof(starts)))
		return (yyerror_at(yylval.lineno, "unknown keyword \"%s\": "
		    "did you mean %s?", word, starts));
	(void)lookup(word, &near);
	if (near != NULL && !first)
		return (yyerror_at(yylval.lineno, "unknown keyword \"%s\": "
		    "did you mean \"%s\"?", word, near));
	return (yyerror_at(yylval.lineno, "unknown keyword \"%s\"", word));
}

static int
kw_cmp(const void *k, const void *e)
{
	return (strcmp(k, ((const struct keyword *)e)->name));
}

/*
 * The token of keyword s, else STRING; then, if near is not NULL, the
 * keyword nearest to s: one edit away for a word of up to 4 letters,
 * two for a longer one, the first in the table on a tie.
 */
static int
lookup(const char *s, const char **near)
{
	/* this has to be sorted always */
	static const struct keyword keywords[] = {
		{ "access",		ACCESS },
		{ "acme",		ACME },
		{ "activation",		ACTIVATION },
		{ "address",		ADDRESS },
		{ "after",		AFTER },
		{ "age",		AGE },
		{ "agent",		AGENT },
		{ "allow",		ALLOW },
		{ "answer",		ANSWER },
		{ "api",		API },
		{ "at",			AT },
		{ "auth",		AUTH },
		{ "body",		BODY },
		{ "bridge",		BRIDGE },
		{ "budget",		BUDGET },
		{ "busy",		BUSY },
		{ "ca",			CA },
		{ "certificate",	CERTIFICATE },
		{ "change",		CHANGE },
		{ "chroot",		CHROOT },
		{ "command",		COMMAND },
		{ "concurrent",		CONCURRENT },
		{ "connect",		CONNECT },
		{ "connections",	CONNECTIONS },
		{ "constraint",		CONSTRAINT },
		{ "contact",		CONTACT },
		{ "cpu",		CPU },
		{ "database",		DATABASE },
		{ "deny",		DENY },
		{ "depends",		DEPENDS },
		{ "directory",		DIRECTORY },
		{ "docker",		DOCKER },
		{ "driver",		DRIVER },
		{ "during",		DURING },
		{ "eab",		EAB },
		{ "entrypoint",		ENTRYPOINT },
		{ "env",		ENV },
		{ "error",		ERRORWORD },
		{ "estimate",		ESTIMATE },
		{ "every",		EVERY },
		{ "expire",		EXPIRE },
		{ "fail",		FAIL },
		{ "failures",		FAILURES },
		{ "file",		FILENAME },
		{ "for",		FOR },
		{ "format",		FORMAT },
		{ "freeze",		FREEZE },
		{ "from",		FROM },
		{ "group",		GROUP },
		{ "header",		HEADER },
		{ "health",		HEALTH },
		{ "hmac",		HMAC },
		{ "host",		HOST },
		{ "hour",		HOUR },
		{ "hsts",		HSTS },
		{ "http2",		HTTP2 },
		{ "https",		HTTPS },
		{ "idle",		IDLE },
		{ "ignore",		IGNORE },
		{ "image",		IMAGE },
		{ "include",		INCLUDE },
		{ "init",		INIT },
		{ "instance",		INSTANCE },
		{ "interval",		INTERVAL },
		{ "io",			IO },
		{ "issuances",		ISSUANCES },
		{ "keep",		KEEP },
		{ "keepalive",		KEEPALIVE },
		{ "key",		KEY },
		{ "keypair",		KEYPAIR },
		{ "kid",		KID },
		{ "knowledge",		KNOWLEDGE },
		{ "labels",		LABELS },
		{ "limit",		LIMIT },
		{ "listen",		LISTEN },
		{ "log",		LOG },
		{ "manager",		MANAGER },
		{ "max",		MAXCONN },
		{ "memory",		MEMORY },
		{ "metrics",		METRICS },
		{ "name",		NAME },
		{ "network",		NETWORK },
		{ "next",		NEXT },
		{ "notify",		NOTIFY },
		{ "on",			ON },
		{ "once",		ONCE },
		{ "page",		PAGE },
		{ "path",		PATH },
		{ "per",		PER },
		{ "pids",		PIDS },
		{ "port",		PORT },
		{ "prefix",		PREFIX },
		{ "prefork",		PREFORK },
		{ "pressure",		PRESSURE },
		{ "prior",		PRIOR },
		{ "process",		PROCESS },
		{ "proxy",		PROXY },
		{ "public",		PUBLIC },
		{ "publish",		PUBLISH },
		{ "pull",		PULL },
		{ "reaper",		REAPER },
		{ "redirect",		REDIRECT },
		{ "registry",		REGISTRY },
		{ "replicas",		REPLICAS },
		{ "restart",		RESTART },
		{ "run",		RUN },
		{ "runtime",		RUNTIME },
		{ "server",		SERVER },
		{ "session",		SESSION },
		{ "signal",		SIGNAL },
		{ "size",		SIZE },
		{ "socket",		SOCKET },
		{ "status",		STATUS },
		{ "stop",		STOP },
		{ "streams",		STREAMS },
		{ "strip",		STRIP },
		{ "subdomains",		SUBDOMAINS },
		{ "suspend",		SUSPEND },
		{ "swarm",		SWARM },
		{ "tcp",		TCP },
		{ "timeout",		TIMEOUT },
		{ "timestamps",		TIMESTAMPS },
		{ "timezone",		TIMEZONE },
		{ "timing",		TIMING },
		{ "tls",		TLS },
		{ "trusted",		TRUSTED },
		{ "tunnel",		TUNNEL },
		{ "uids",		UIDS },
		{ "upstream",		UPSTREAM },
		{ "user",		USER },
		{ "volume",		VOLUME },
		{ "wake",		WAKE },
		{ "wakes",		WAKES },
		{ "warm",		WARM },
		{ "weight",		WEIGHT },
		{ "workload",		WORKLOAD },
	};
	/* by hash, one compare a word: bsearch(3) took seven */
	static struct hashtab	 kw_index = HASHTAB_INITIALIZER(0);
	static int		 kw_indexed;
	const struct keyword	*kw;
	size_t			 i;
	int			 best, d;

	if (!kw_indexed) {
		kw_indexed = 1;
		for (i = 0; i < nitems(keywords); i++)
			if (hashtab_add(&kw_index, keywords[i].name,
			    &keywords[i]) == -1) {
				hashtab_clear(&kw_index);
				break;
			}
	}
	if (kw_index.count > 0)
		kw = hashtab_find(&kw_index, s);
	else
		kw = bsearch(s, keywords, nitems(keywords),
		    sizeof(keywords[0]), kw_cmp);
	if (kw != NULL || near == NULL)
		return (kw != NULL ? kw->token : STRING);
	best = strlen(s) <= 4 ? 2 : 3;
	for (i = 0; i < nitems(keywords); i++)
		if ((d = edit_distance(s, keywords[i].name)) < best) {
			best = d;
			*near = keywords[i].name;
		}
	return (STRING);
}

/* skip the rest of the line, leaving its newline to be read as a token */
static int
findeol(void)
{
	int	 c;

	for (;;) {
		c = lgetc(0);
		if (c == '\n') {
			lungetc(c);
			break;
		}
		if (c == EOF)
			break;
	}
	return (ERROR);
}

static int
is_word(int c)
{
	/* a switch, not strchr(3): this runs for every character of a word */
	switch (c) {
	case '{': case '}': case '=': case '#': case '"': case '\'':
	case '$': case '\\': case ',': case ';':
		return (0);
	}
	return (c >= 0x21 && c <= 0x7e);
}

static int
is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '\0')
		return (0);
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return (0);
	return (1);
}

/* as it is: made printable only when an error shows it (printable()) */
static void
set_lasttok(const char *s)
{
	size_t	 n;

	n = strnlen(s, sizeof(lasttok) - 1);
	memcpy(lasttok, s, n);
	lasttok[n] = '\0';
}

static void
printable(char *s)
{
	for (; *s != '\0'; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
}

/* a parse starts with no token read */
void
lex_reset(void)
{
	lasttok[0] = '\0';
	lineword[0] = '\0';
	at_bol = 1;
}

/*
 * Remember whether the first token of a line is a bare word that is no
 * keyword: a syntax error on that line is then most likely a misspelling.
 */
int
yylex(void)
{
	static int	 lasttoken;
	int		 tok;

	prevtok = lasttoken;
	tok = lex();
	lasttoken = tok;
	if (tok == '=')		/* a macro being set, not a misspelling */
		lineword[0] = '\0';
	if (at_bol) {
		if (tok == STRING && lastbare &&
		    isalpha((unsigned char)lasttok[0]))
			(void)strlcpy(lineword, lasttok, sizeof(lineword));
		else
			lineword[0] = '\0';
	}
	at_bol = tok == '\n' || tok == 0;
	return (tok);
}

static int
lex(void)
{
	char	 buf[WORD_MAX], *p, *s;
	int	 c, next, quotec;
	const char *errstr;

	lastbare = 0;
 top:
	p = buf;
	while ((c = lgetc(0)) == ' ' || c == '\t')
		;
	yylval.lineno = file->lineno;
	if (c == '#')
		while ((c = lgetc(0)) != '\n' && c != EOF)
			;
	if (c == '$' && !input_expanding()) {
		if (expand_macro() == -1)
			return (findeol());
		goto top;
	}

	switch (c) {
	case '\'':
	case '"':
		quotec = c;
		for (;;) {
			if ((c = lgetc(quotec)) == EOF || c == '\n') {
				yyerror("unterminated quoted string");
				lungetc(c);
				return (findeol());
			}
			if (c == '\\') {
				next = lgetc(quotec);
				if (next == '\n') {
					file->lineno++;
					continue;
				}
				if (next == quotec || next == '\\')
					c = next;
				else
					lungetc(next);
			} else if (c == quotec)
				break;
			else if ((c < 0x20 && c != '\t') || c == 0x7f) {
				yyerror("invalid character 0x%02x in quoted "
				    "string", c);
				return (findeol());
			}
			if (p + 1 >= buf + sizeof(buf)) {
				yyerror("string too long");
				return (findeol());
			}
			*p++ = c;
		}
		*p = '\0';
		if (!is_utf8(buf)) {
			yyerror("invalid UTF-8 in quoted string");
			return (findeol());
		}
		set_lasttok(buf);
		if ((s = strdup(buf)) == NULL || pool_add(s) == NULL) {
			yyerror("out of memory");
			return (findeol());
		}
		yylval.v.string = s;
		return (STRING);
	}

	if (is_word(c)) {
		do {
			if (p + 1 >= buf + sizeof(buf)) {
				yyerror("string too long");
				return (findeol());
			}
			*p++ = c;
		} while ((c = lgetc(0)) != EOF && is_word(c));
		lungetc(c);
		*p = '\0';
		set_lasttok(buf);
		if (is_number(buf)) {
			yylval.v.number = strtonum(buf, -LLONG_MAX, LLONG_MAX,
			    &errstr);
			if (errstr != NULL) {
				yyerror("number \"%s\" is %s", buf, errstr);
				return (findeol());
			}
			return (NUMBER);
		}
		if ((c = lookup(buf, NULL)) != STRING)
			return (c);
		if ((s = strdup(buf)) == NULL || pool_add(s) == NULL) {
			yyerror("out of memory");
			return (findeol());
		}
		yylval.v.string = s;
		lastbare = 1;
		return (STRING);
	}

	switch (c) {
	case EOF:
		set_lasttok("end of file");
		return (0);
	case '\n':
		set_lasttok("newline");
		yylval.lineno = file->lineno;
		file->lineno++;
		return (c);
	}
	if (c < 0x20 || c >= 0x7f) {
		yyerror("invalid character 0x%02x", (unsigned int)c);
		return (findeol());
	}
	lasttok[0] = c;
	lasttok[1] = '\0';
	return (c);
}
