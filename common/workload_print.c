/*
 * A workload's fields in orchd.conf syntax, as the lexer and the grammar
 * read them back: orchd -nv (confd/printconf.c) prints the file's
 * workloads with it, orchctl import compose --dry-run (orchctl/import.c)
 * the workloads a Compose file makes.  A field prints by its row of
 * common/workload_fields.c: its keyword, then its value by its type;
 * what a caller says around it (the global settings a field falls back
 * to, the API's own fields) is the caller's.
 *
 * Each function returns the number of values that could not be printed
 * so that they read back the same (a control character in a string, a
 * number that names no word): 0 when all went out.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ignore.h"
#include "log.h"
#include "units.h"
#include "workload.h"
#include "workload_fields.h"
#include "workload_print.h"

/*
 * A quoted string: '"' and '\' escaped.  The lexer refuses control
 * characters but the tab in a quoted string and neither the parser nor
 * the API lets one in, so finding one is a bug: left out, and counted.
 */
int
wl_print_string(FILE *fp, const char *s)
{
	const unsigned char	*p;
	int			 bad = 0;

	fputc('"', fp);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
			log_warnx("%s: control character 0x%02x in a "
			    "string", __func__, *p);
			bad++;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fputc('\\', fp);
		fputc(*p, fp);
	}
	fputc('"', fp);
	return (bad);
}

/* "\tkeyword STRING", if s is set */
int
wl_print_keystr(FILE *fp, const char *what, const char *s)
{
	int	 bad;

	if (s == NULL)
		return (0);
	fprintf(fp, "\t%s ", what);
	bad = wl_print_string(fp, s);
	fputs("\n", fp);
	return (bad);
}

/* "\tvolume HOST CONTAINER" */
int
wl_print_volume(FILE *fp, const struct wl_field *f, const struct volume *v)
{
	int	 bad;

	fprintf(fp, "\t%s ", f->conf);
	bad = wl_print_string(fp, v->host);
	fputs(" ", fp);
	bad += wl_print_string(fp, v->container);
	fputs("\n", fp);
	return (bad);
}

/* its own TCP listeners: "\tlisten on ADDRESS port N" each */
int
wl_print_listens(FILE *fp, const struct workload_conf *wl)
{
	const struct strentry	*e;
	char			 addr[INET6_ADDRSTRLEN + 2];
	int			 port, bad = 0;

	TAILQ_FOREACH(e, &wl->listens, entry) {
		if (listen_split(e->str, addr, sizeof(addr), &port) == -1) {
			log_warnx("%s: workload %s: listen %s", __func__,
			    wl->name, e->str);
			bad++;
			continue;
		}
		fputs("\tlisten on ", fp);
		bad += wl_print_string(fp, addr);
		fprintf(fp, " port %d\n", port);
	}
	return (bad);
}

/* "ignore path|agent|from X [answer N]", each after indent */
int
wl_print_ignores(FILE *fp, const char *indent, const struct ignorelist *l)
{
	const struct ignore_rule	*r;
	const char			*kind;
	int				 bad = 0;

	TAILQ_FOREACH(r, l, entry) {
		if ((kind = ignore_kind_name(r->kind)) == NULL) {
			log_warnx("%s: ignore kind %d", __func__, r->kind);
			bad++;
			continue;
		}
		fprintf(fp, "%signore %s ", indent, kind);
		bad += wl_print_string(fp, r->pattern);
		if (r->answer != IGNORE_ANSWER)
			fprintf(fp, " answer %d", r->answer);
		fputs("\n", fp);
	}
	return (bad);
}

/*
 * a word of the table (the field's own, or for a network wl_networks);
 * "run once" says its own in the grammar
 */
static int
print_word(FILE *fp, const struct wl_field *f, const struct wl_word *words,
    int v)
{
	const char	*w;

	if (words == wl_run_onces) {
		if (v != RUN_SERVICE)
			fprintf(fp, "\t%s%s\n", f->conf, v == RUN_EVERY_WAKE ?
			    " every wake" : "");
		return (0);
	}
	if ((w = wl_word_name(words, v)) == NULL) {
		log_warnx("%s: %s %d", __func__, f->conf, v);
		return (1);
	}
	fprintf(fp, "\t%s %s\n", f->conf, w);
	return (0);
}

/* the values of the types that are lists or two members */
static int
print_many(FILE *fp, const struct workload_conf *wl,
    const struct wl_field *f)
{
	const struct strentry	*e;
	const struct volume	*v;
	int			 bad = 0;

	switch (f->type) {
	case WF_STRLIST:
		/* "ADDRESS:PORT" is "listen on ADDRESS port PORT" */
		if ((const struct strlist *)WF_CPTR(wl, f) == &wl->listens)
			return (wl_print_listens(fp, wl));
		TAILQ_FOREACH(e, (const struct strlist *)WF_CPTR(wl, f), entry)
			bad += wl_print_keystr(fp, f->conf, e->str);
		break;
	case WF_VOLUMES:
		TAILQ_FOREACH(v, &wl->volumes, entry)
			bad += wl_print_volume(fp, f, v);
		break;
	case WF_IGNORES:
		bad += wl_print_ignores(fp, "\t", &wl->ignores);
		break;
	case WF_NETWORK:
		if (wl->network == NETWORK_NAMED)
			bad += wl_print_keystr(fp, f->conf, wl->netname);
		else
			bad += print_word(fp, f, wl_networks, wl->network);
		break;
	default:
		break;
	}
	return (bad);
}

/*
 * A field by its type: "keyword VALUE" when the workload gives it (a
 * list, a line an item), nothing when it does not.
 */
int
wl_print_field(FILE *fp, const struct workload_conf *wl,
    const struct wl_field *f)
{
	const char	*sig;
	char		 buf[32];
	int64_t		 n;

	if (f->conf == NULL || ((f->flags & WF_SWARM) &&
	    wl->driver != DRIVER_SWARM))
		return (0);
	if (!(f->flags & (WF_ALWAYS | WF_SWARM)) && !wl_field_given(wl, f))
		return (0);
	switch (f->type) {
	case WF_STRING:
		return (wl_print_keystr(fp, f->conf,
		    *(char * const *)WF_CPTR(wl, f)));
	case WF_STRLIST:
	case WF_VOLUMES:
	case WF_IGNORES:
	case WF_NETWORK:
		return (print_many(fp, wl, f));
	default:
		break;
	}
	n = wl_field_num(wl, f);
	switch (f->type) {
	case WF_WORD:
		return (print_word(fp, f, f->words, (int)n));
	case WF_BOOL:
		if (n == 1)
			fprintf(fp, "\t%s\n", f->conf);
		break;
	case WF_DURATION:
		fprintf(fp, "\t%s %s\n", f->conf, fmt_duration(n, buf,
		    sizeof(buf)));
		break;
	case WF_SIGNAL:
		if ((sig = signal_name((int)n)) == NULL) {
			log_warnx("%s: %s %lld", __func__, f->conf,
			    (long long)n);
			return (1);
		}
		fprintf(fp, "\t%s %s\n", f->conf, sig);
		break;
	case WF_CPU:
		fprintf(fp, "\t%s %s\n", f->conf, fmt_cpu(n, buf, sizeof(buf)));
		break;
	case WF_PORT:
		/* a job's port: none, and "port 0" would not be read back */
		if (n != 0)
			fprintf(fp, "\t%s %lld\n", f->conf, (long long)n);
		break;
	default:
		fprintf(fp, "\t%s %lld\n", f->conf, (long long)n);
		break;
	}
	return (0);
}
