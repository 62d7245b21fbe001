/*
 * What orchd.conf's lexer reads (orchd/parse.y): the stack of files that
 * include makes, one character at a time with a pushback for a macro's
 * value, the macros themselves (-D ones outlive a parse), the pool of
 * strings the lexer made, and the way an error is reported, at its file
 * and line.
 *
 * Every string the lexer makes is recorded in the pool; a grammar action
 * that keeps one takes it out of the pool (keep()), and the rest is freed
 * when the parse ends, so that error recovery never leaks.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

#define INCLUDE_DEPTH_MAX	16
#define PUSHBACK_MAX		(WORD_MAX + 64)
#define EXPAND_START		0x100	/* markers around an expanded macro */
#define EXPAND_DONE		0x101

struct sym {
	TAILQ_ENTRY(sym)	 entry;
	int			 used;
	int			 persist;	/* -D: the file cannot override */
	char			*name;
	char			*value;
	char			*file;		/* where it was defined */
	int			 lineno;
};
TAILQ_HEAD(symlist, sym);

struct file		*file, *topfile;
int			 errors;

static struct filelist	 files = TAILQ_HEAD_INITIALIZER(files);
static struct symlist	 symhead = TAILQ_HEAD_INITIALIZER(symhead);

/* pushback: characters and macro values, read back last in first out */
static int		 pushback[PUSHBACK_MAX];
static size_t		 pushback_len;
static int		 expanding;

/* strings made by the lexer and not (yet) kept by the grammar */
static char		**pool;
static size_t		 pool_len, pool_size;

static int		 popfile(void);
static void		 pending_free(struct file *);
static char		*symget(const char *);

/* a parse starts with nothing pushed back */
void
input_reset(void)
{
	pushback_len = 0;
	expanding = 0;
}

/* inside a macro's value: a '$' there is the value's, not a macro */
int
input_expanding(void)
{
	return (expanding);
}

void
vreport(int lineno, const char *fmt, va_list ap)
{
	char	 msg[1024];

	errors++;
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	log_warnx("%s:%d: %s", file->name, lineno, msg);
}

int
yyerror_at(int lineno, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vreport(lineno, fmt, ap);
	va_end(ap);
	return (0);
}

void
check_error(const char *f, int lineno, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	errors++;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s:%d: %s", f, lineno, msg);
}

/* the next character of the pushback, else of the current file */
static int
rawgetc(void)
{
	int	 c;

	while (pushback_len > 0) {
		c = pushback[--pushback_len];
		if (c == EXPAND_START)
			expanding = 1;
		else if (c == EXPAND_DONE)
			expanding = 0;
		else
			return (c);
	}
	/* one thread reads: no lock per character */
	return (getc_unlocked(file->stream));
}

/*
 * quotec != 0: inside a quoted string, return EOF at the end of the file.
 * Otherwise join continuation lines, end every file with a newline and
 * go back to the including file at the end of an included one.
 */
int
lgetc(int quotec)
{
	int	 c, next;

	if (quotec)
		return (rawgetc());
	for (;;) {
		c = rawgetc();
		if (c == '\\') {
			next = rawgetc();
			if (next == '\n') {
				file->lineno++;
				continue;
			}
			lungetc(next);
		}
		if (c != EOF) {
			file->lastc = c;
			return (c);
		}
		if (file->lastc != '\n') {
			file->lastc = '\n';
			return ('\n');
		}
		if (file == topfile || popfile() == EOF)
			return (EOF);
	}
}

int
lungetc(int c)
{
	if (c == EOF)
		return (EOF);
	if (pushback_len >= nitems(pushback)) {
		yyerror("line too long");
		return (EOF);
	}
	pushback[pushback_len++] = c;
	return (c);
}

/* valid UTF-8, as JSON needs it */
int
is_utf8(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	int			 n;

	while (*p != '\0') {
		if (*p < 0x80)
			n = 0;
		else if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			n = 1;
		else if ((*p & 0xf0) == 0xe0)
			n = 2;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			n = 3;
		else
			return (0);
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return (0);
	}
	return (1);
}

int
expand_macro(void)
{
	char	 name[128], *val;
	size_t	 len = 0, vlen, i;
	int	 c;

	while ((c = lgetc(0)) != EOF &&
	    (isalnum((unsigned char)c) || c == '_')) {
		if (len >= sizeof(name) - 1) {
			yyerror("macro name too long");
			return (-1);
		}
		name[len++] = c;
	}
	lungetc(c);
	name[len] = '\0';
	if (len == 0) {
		yyerror("'$' without a macro name");
		return (-1);
	}
	if ((val = symget(name)) == NULL) {
		yyerror("macro \"%s\" not defined", name);
		return (-1);
	}
	vlen = strlen(val);
	if (pushback_len + vlen + 2 > nitems(pushback)) {
		yyerror("macro \"%s\" too long", name);
		return (-1);
	}
	pushback[pushback_len++] = EXPAND_DONE;
	for (i = vlen; i > 0; i--)
		pushback[pushback_len++] = (unsigned char)val[i - 1];
	pushback[pushback_len++] = EXPAND_START;
	return (0);
}

/*
 * Files.  A relative include is found beside the file that includes it.
 */
struct file *
pushfile(const char *name, int from_include)
{
	struct file	*nf, *f;
	struct stat	 st;
	const char	*slash;
	char		*path;
	size_t		 len = 0;
	int		 depth = 0, fd = -1;

	/* 2: a name include_files() found, relative to nothing more */
	if (from_include == 1 && name[0] != '/' &&
	    (slash = strrchr(file->name, '/')) != NULL) {
		if (asprintf(&path, "%.*s/%s", (int)(slash - file->name),
		    file->name, name) == -1)
			path = NULL;
	} else
		path = strdup(name);
	if (path == NULL) {
		yyerror("out of memory");
		return (NULL);
	}
	TAILQ_FOREACH(f, &files, entry)
		depth++;
	if (depth >= INCLUDE_DEPTH_MAX) {
		yyerror("include \"%s\": more than %d nested files", name,
		    INCLUDE_DEPTH_MAX);
		free(path);
		return (NULL);
	}
	if ((nf = calloc(1, sizeof(*nf))) == NULL) {
		yyerror("out of memory");
		free(path);
		return (NULL);
	}
	nf->name = path;
	nf->lineno = 1;
	nf->lastc = '\n';
	/* O_NONBLOCK: a FIFO must not hang the parse */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (from_include)
			yyerror("include \"%s\": %s", path, strerror(errno));
		else
			log_warn("%s", path);
		goto fail;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		if (from_include)
			yyerror("include \"%s\": not a regular file", path);
		else
			log_warnx("%s: not a regular file", path);
		goto fail;
	}
	/*
	 * Read whole and parsed from memory: the bytes digested for the
	 * next reload (inputs.c) are the bytes parsed, whatever changes
	 * in the file meanwhile.
	 */
	if (fcntl(fd, F_SETFL, 0) == -1 ||
	    inputs_fd_read(fd, &nf->buf, &len) == -1 ||
	    (nf->stream = fmemopen(len > 0 ? nf->buf : (uint8_t *)"", len > 0 ?
	    len : 1, "r")) == NULL) {
		if (from_include)
			yyerror("include \"%s\": %s", path, strerror(errno));
		else
			log_warn("%s", path);
		goto fail;
	}
	if (len == 0)
		(void)fgetc(nf->stream);	/* at its end: an empty file */
	inputs_mix(CONF_INPUT_FILE, 0, path, nf->buf, len);
	close(fd);
	fd = -1;
	TAILQ_FOREACH(f, &files, entry)
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			yyerror("include \"%s\": include loop", path);
			goto fail;
		}
	nf->dev = st.st_dev;
	nf->ino = st.st_ino;
	TAILQ_INSERT_TAIL(&files, nf, entry);
	file = nf;
	return (nf);
 fail:
	if (nf->stream != NULL)
		fclose(nf->stream);
	free(nf->buf);
	if (fd != -1)
		close(fd);
	free(nf->name);
	free(nf);
	return (NULL);
}

static int
popfile(void)
{
	struct file	*prev;

	if ((prev = TAILQ_PREV(file, filelist, entry)) != NULL) {
		TAILQ_REMOVE(&files, file, entry);
		fclose(file->stream);
		free(file->buf);
		pending_free(file);
		free(file->name);
		free(file);
		file = prev;
		/* the next file of an include glob, if any opens */
		while (file->ipending < file->npending)
			if (pushfile(file->pending[file->ipending++], 2) !=
			    NULL)
				break;
		return (0);
	}
	return (EOF);
}

static void
pending_free(struct file *f)
{
	size_t	 i;

	for (i = 0; i < f->npending; i++)
		free(f->pending[i]);
	free(f->pending);
	f->pending = NULL;
	f->npending = f->ipending = 0;
}

/*
 * include: one file, or a glob(3) pattern's, in sorted order, one after
 * the other (popfile() opens the next).  As in nginx, a file named alone
 * must exist; a pattern that matches nothing is no error.
 */
void
include_files(const char *name)
{
	glob_t		 g;
	const char	*slash;
	char		*pattern;
	size_t		 i;
	int		 rc;

	if (strpbrk(name, "*?[") == NULL) {
		(void)pushfile(name, 1);
		return;
	}
	if (name[0] != '/' && (slash = strrchr(file->name, '/')) != NULL) {
		if (asprintf(&pattern, "%.*s/%s", (int)(slash - file->name),
		    file->name, name) == -1)
			pattern = NULL;
	} else
		pattern = strdup(name);
	if (pattern == NULL) {
		yyerror("out of memory");
		return;
	}
	memset(&g, 0, sizeof(g));
	rc = glob(pattern, 0, NULL, &g);
	/* which files match is an input too: one added is a change */
	if ((rc == 0 || rc == GLOB_NOMATCH) && inputs_glob(pattern, &g) == -1) {
		yyerror("out of memory");
		goto done;
	}
	if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
		log_debug("include \"%s\": no file matches", pattern);
		goto done;
	}
	if (rc != 0) {
		yyerror("include \"%s\": %s", pattern, rc == GLOB_NOSPACE ?
		    "out of memory" : "cannot read a directory");
		goto done;
	}
	pending_free(file);
	if (g.gl_pathc > 1 && (file->pending = calloc(g.gl_pathc - 1,
	    sizeof(*file->pending))) == NULL) {
		yyerror("out of memory");
		goto done;
	}
	for (i = 1; i < g.gl_pathc; i++)
		if ((file->pending[file->npending++] =
		    strdup(g.gl_pathv[i])) == NULL) {
			yyerror("out of memory");
			pending_free(file);
			goto done;
		}
	if (pushfile(g.gl_pathv[0], 2) == NULL)
		while (file->ipending < file->npending)
			if (pushfile(file->pending[file->ipending++], 2) !=
			    NULL)
				break;
 done:
	globfree(&g);
	free(pattern);
}

void
closefiles(void)
{
	struct file	*f;

	while ((f = TAILQ_FIRST(&files)) != NULL) {
		TAILQ_REMOVE(&files, f, entry);
		fclose(f->stream);
		free(f->buf);
		pending_free(f);
		free(f->name);
		free(f);
	}
	file = topfile = NULL;
}

/*
 * The string pool.
 */
char *
pool_add(char *s)
{
	char	**np;
	size_t	  nsize;

	if (pool_len == pool_size) {
		nsize = pool_size == 0 ? 64 : pool_size * 2;
		if ((np = reallocarray(pool, nsize, sizeof(*pool))) == NULL) {
			free(s);
			return (NULL);
		}
		pool = np;
		pool_size = nsize;
	}
	pool[pool_len++] = s;
	return (s);
}

/* take s out of the pool: the caller owns it now */
char *
keep(char *s)
{
	size_t	 i;

	for (i = pool_len; i > 0; i--)
		if (pool[i - 1] == s) {
			pool[i - 1] = NULL;
			break;
		}
	return (s);
}

void
pool_free(void)
{
	size_t	 i;

	for (i = 0; i < pool_len; i++)
		free(pool[i]);
	free(pool);
	pool = NULL;
	pool_len = pool_size = 0;
}

/*
 * Macros.
 */
int
symset(const char *name, const char *value, int persist)
{
	struct sym	*sym;

	TAILQ_FOREACH(sym, &symhead, entry)
		if (strcmp(name, sym->name) == 0)
			break;
	if (sym != NULL) {
		if (sym->persist && !persist)
			return (0);
		TAILQ_REMOVE(&symhead, sym, entry);
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
	}
	if ((sym = calloc(1, sizeof(*sym))) == NULL)
		return (-1);
	sym->name = strdup(name);
	sym->value = strdup(value);
	if (file != NULL) {
		sym->file = strdup(file->name);
		sym->lineno = yylval.lineno;
	}
	sym->persist = persist;
	if (sym->name == NULL || sym->value == NULL) {
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
		return (-1);
	}
	TAILQ_INSERT_TAIL(&symhead, sym, entry);
	return (0);
}

static char *
symget(const char *name)
{
	struct sym	*sym;

	TAILQ_FOREACH(sym, &symhead, entry)
		if (strcmp(name, sym->name) == 0) {
			sym->used = 1;
			return (sym->value);
		}
	return (NULL);
}

int
cmdline_symset(const char *s)
{
	const char	*eq, *p;
	char		*name;
	int		 r;

	if ((eq = strchr(s, '=')) == NULL || eq == s)
		return (-1);
	for (p = s; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return (-1);
	if (isdigit((unsigned char)*s) || strlen(eq + 1) >= WORD_MAX ||
	    strchr(eq + 1, '\n') != NULL)
		return (-1);
	if ((name = strndup(s, eq - s)) == NULL)
		return (-1);
	r = symset(name, eq + 1, 1);
	free(name);
	return (r);
}

/* drop the file's macros, keep those of -D; say which were never used */
void
symclear(int verbose)
{
	struct sym	*sym, *next;

	for (sym = TAILQ_FIRST(&symhead); sym != NULL; sym = next) {
		next = TAILQ_NEXT(sym, entry);
		if (verbose && !sym->used && !sym->persist)
			log_warnx("%s:%d: macro \"%s\" not used",
			    sym->file ? sym->file : "command line",
			    sym->lineno, sym->name);
		sym->used = 0;
		if (sym->persist)
			continue;
		TAILQ_REMOVE(&symhead, sym, entry);
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
	}
}

/*
 * The edit distance of a and b (optimal string alignment: an insertion,
 * a deletion, a substitution or a swap of two neighbours each count 1),
 * for "did you mean".  Words longer than a keyword can be are far.
 */
#define KW_LEN_MAX	32
int
edit_distance(const char *a, const char *b)
{
	int	 d[KW_LEN_MAX + 1][KW_LEN_MAX + 1];
	size_t	 la = strlen(a), lb = strlen(b), i, j;
	int	 cost, v;

	if (la > KW_LEN_MAX || lb > KW_LEN_MAX)
		return (INT_MAX);
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			cost = a[i - 1] != b[j - 1];
			v = MINIMUM(d[i - 1][j] + 1, d[i][j - 1] + 1);
			v = MINIMUM(v, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				v = MINIMUM(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return (d[la][lb]);
}
