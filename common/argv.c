/*
 * A command line split into words the way sh(1) would, without a shell:
 * a process workload's command becomes an argv for execvp() and nothing in
 * it is ever interpreted.  Single quotes keep everything literally, double
 * quotes keep everything but \" \\ \$ \` and backslash-newline, a
 * backslash outside quotes keeps the next character.  There is no
 * globbing, no variable or command substitution and no redirection: "$HOME"
 * and "*" are passed on as they are written.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

/* far more than any real command, few enough to be no burden */
#define SPLIT_WORDS_MAX	4096

/* the words being collected; cur is the one being built */
struct split {
	char	**argv;
	size_t	  argc;
	size_t	  argsz;	/* slots in argv, the NULL included */
	char	 *cur;
	size_t	  curlen;
	size_t	  cursz;
	int	  inword;	/* '' is a word even though it is empty */
};

static int
split_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
split_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return (-1);
}

static int
split_putc(struct split *sp, char c)
{
	char	*p;
	size_t	 nsz;

	/* +1: there is always room for the terminating NUL */
	if (sp->curlen + 1 >= sp->cursz) {
		nsz = sp->cursz == 0 ? 32 : sp->cursz * 2;
		if ((p = realloc(sp->cur, nsz)) == NULL)
			return (-1);
		sp->cur = p;
		sp->cursz = nsz;
	}
	sp->cur[sp->curlen++] = c;
	sp->cur[sp->curlen] = '\0';
	sp->inword = 1;
	return (0);
}

/* the word being built is complete: move it into argv */
static int
split_endword(struct split *sp)
{
	char	**p;
	size_t	  nsz;

	if (!sp->inword)
		return (0);
	if (sp->argc >= SPLIT_WORDS_MAX) {
		errno = E2BIG;
		return (-1);
	}
	if (sp->argc + 1 >= sp->argsz) {
		nsz = sp->argsz == 0 ? 8 : sp->argsz * 2;
		if ((p = reallocarray(sp->argv, nsz, sizeof(*p))) == NULL)
			return (-1);
		sp->argv = p;
		sp->argsz = nsz;
	}
	if (sp->cur == NULL && (sp->cur = strdup("")) == NULL)
		return (-1);
	sp->argv[sp->argc++] = sp->cur;
	sp->argv[sp->argc] = NULL;
	sp->cur = NULL;
	sp->curlen = sp->cursz = 0;
	sp->inword = 0;
	return (0);
}

/*
 * Inside '...': returns the character after the closing quote, or NULL
 * with errno EINVAL (no closing quote) or ENOMEM.
 */
static const char *
split_single(struct split *sp, const char *s)
{
	sp->inword = 1;
	for (; *s != '\''; s++) {
		if (*s == '\0') {
			errno = EINVAL;
			return (NULL);
		}
		if (split_putc(sp, *s) == -1)
			return (NULL);
	}
	return (s + 1);
}

/* inside "...": a backslash only escapes what sh(1) says it does */
static const char *
split_double(struct split *sp, const char *s)
{
	sp->inword = 1;
	for (; *s != '"'; s++) {
		if (*s == '\0') {
			errno = EINVAL;
			return (NULL);
		}
		if (*s == '\\' && s[1] == '\n') {
			s++;
			continue;
		}
		if (*s == '\\' && s[1] != '\0' &&
		    strchr("\"\\$`", s[1]) != NULL)
			s++;
		if (split_putc(sp, *s) == -1)
			return (NULL);
	}
	return (s + 1);
}

static void
split_free(struct split *sp)
{
	free(sp->cur);
	free_argv(sp->argv);
	memset(sp, 0, sizeof(*sp));
}

/* one step of the split: returns where to go on, NULL with errno set */
static const char *
split_step(struct split *sp, const char *s, char *err, size_t errlen)
{
	const char	*q;

	switch (*s) {
	case ' ':
	case '\t':
	case '\n':
		return (split_endword(sp) == -1 ? NULL : s + 1);
	case '\'':
		if ((q = split_single(sp, s + 1)) == NULL && errno == EINVAL)
			split_error(err, errlen, "unterminated single quote");
		return (q);
	case '"':
		if ((q = split_double(sp, s + 1)) == NULL && errno == EINVAL)
			split_error(err, errlen, "unterminated double quote");
		return (q);
	case '\\':
		if (s[1] == '\0') {
			errno = EINVAL;
			split_error(err, errlen, "backslash at the end");
			return (NULL);
		}
		if (s[1] == '\n')	/* a continued line */
			return (s + 2);
		return (split_putc(sp, s[1]) == -1 ? NULL : s + 2);
	default:
		return (split_putc(sp, *s) == -1 ? NULL : s + 1);
	}
}

/*
 * Splits cmd into a NULL-terminated argv, each word its own allocation
 * (free_argv() releases them all).  Returns the number of words, which
 * is 0 for an empty or blank command, or -1 with err filled in.
 */
int
split_command(const char *cmd, char ***argvp, char *err, size_t errlen)
{
	struct split	 sp;
	const char	*s = cmd;

	*argvp = NULL;
	memset(&sp, 0, sizeof(sp));
	if (cmd == NULL)
		return (split_error(err, errlen, "no command"));
	while (*s != '\0') {
		if ((s = split_step(&sp, s, err, errlen)) == NULL) {
			if (errno == ENOMEM)
				split_error(err, errlen, "out of memory");
			else if (errno == E2BIG)
				split_error(err, errlen, "more than %d words",
				    SPLIT_WORDS_MAX);
			split_free(&sp);
			return (-1);
		}
	}
	if (split_endword(&sp) == -1 ||
	    (sp.argv == NULL &&
	    (sp.argv = calloc(1, sizeof(*sp.argv))) == NULL)) {
		if (errno == E2BIG)
			split_error(err, errlen, "more than %d words",
			    SPLIT_WORDS_MAX);
		else
			split_error(err, errlen, "out of memory");
		split_free(&sp);
		return (-1);
	}
	*argvp = sp.argv;
	return ((int)sp.argc);
}

void
free_argv(char **argv)
{
	size_t	 i;

	if (argv == NULL)
		return;
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
