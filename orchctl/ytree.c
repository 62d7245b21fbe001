/*
 * A YAML document read into a tree, for orchctl import.  libyaml's event
 * parser does the reading; the tree is built here with an explicit stack
 * so that no input recurses, and under bounds that a hostile file meets
 * first: its size (YT_FILE_MAX, checked by the caller), its nesting
 * (YT_DEPTH_MAX) and its count of nodes (YT_NODES_MAX).  Aliases are
 * refused outright: an alias is how a few lines expand into a billion
 * ("billion laughs"), and a Compose file needs none.  A key given twice
 * in one mapping is refused, as YAML says and libyaml does not check.
 */

#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "compat.h"
#include "ytree.h"

struct ybuild {
	struct ynode	*stack[YT_DEPTH_MAX + 1];
	int		 depth;
	size_t		 nodes;
	struct ynode	*root;
	char		*err;
	size_t		 errlen;
};

static int
yt_fail(struct ybuild *b, size_t line, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	n = snprintf(b->err, b->errlen, "line %zu: ", line);
	if (n < 0 || (size_t)n >= b->errlen)
		return (-1);
	va_start(ap, fmt);
	vsnprintf(b->err + n, b->errlen - n, fmt, ap);
	va_end(ap);
	return (-1);
}

void
yt_free(struct ynode *n)
{
	size_t	 i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		yt_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

struct ynode *
yt_get(const struct ynode *m, const char *key)
{
	size_t	 i;

	if (m == NULL || m->type != YT_MAP)
		return (NULL);
	for (i = 0; i + 1 < m->nkids; i += 2)
		if (strcmp(m->kids[i]->str, key) == 0)
			return (m->kids[i + 1]);
	return (NULL);
}

int
yt_null(const struct ynode *n)
{
	return (n->type == YT_SCALAR && n->plain && (n->str[0] == '\0' ||
	    strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
	    strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0));
}

/* a mapping's new key: a scalar, not one it has already */
static int
yt_key_ok(struct ybuild *b, const struct ynode *m, const struct ynode *k)
{
	size_t	 i;

	if (k->type != YT_SCALAR)
		return (yt_fail(b, k->line, "a mapping's key must be a "
		    "plain string, not a %s", k->type == YT_MAP ? "mapping" :
		    "sequence"));
	for (i = 0; i < m->nkids; i += 2)
		if (strcmp(m->kids[i]->str, k->str) == 0)
			return (yt_fail(b, k->line, "key \"%.64s\" given twice "
			    "(first at line %zu)", k->str, m->kids[i]->line));
	return (0);
}

/* n into the collection being read, or as the document */
static int
yt_add(struct ybuild *b, struct ynode *n)
{
	struct ynode	*p, **kids;
	size_t		 line = n->line;

	if (++b->nodes > YT_NODES_MAX) {
		yt_free(n);
		return (yt_fail(b, line, "more than %d nodes",
		    YT_NODES_MAX));
	}
	if (b->depth == 0) {
		if (b->root != NULL) {
			yt_free(n);
			return (yt_fail(b, line, "a second document"));
		}
		b->root = n;
		return (0);
	}
	p = b->stack[b->depth - 1];
	if (p->type == YT_MAP && p->nkids % 2 == 0 &&
	    yt_key_ok(b, p, n) == -1) {
		yt_free(n);
		return (-1);
	}
	if (p->nkids == p->cap) {
		if ((kids = reallocarray(p->kids, p->cap + 8,
		    sizeof(*kids))) == NULL) {
			yt_free(n);
			return (yt_fail(b, line, "out of memory"));
		}
		p->kids = kids;
		p->cap += 8;
	}
	p->kids[p->nkids++] = n;
	return (0);
}

static struct ynode *
yt_node(enum yt_type type, const yaml_event_t *ev)
{
	struct ynode	*n;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return (NULL);
	n->type = type;
	n->line = ev->start_mark.line + 1;
	if (type != YT_SCALAR)
		return (n);
	if ((n->str = strndup((const char *)ev->data.scalar.value,
	    ev->data.scalar.length)) == NULL) {
		free(n);
		return (NULL);
	}
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return (n);
}

/* one event: 1 at the stream's end, 0 for more, -1 on an error */
static int
yt_event(struct ybuild *b, const yaml_event_t *ev)
{
	struct ynode	*n;
	size_t		 line = ev->start_mark.line + 1;

	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		return (1);
	case YAML_ALIAS_EVENT:
		return (yt_fail(b, line, "alias *%.64s: anchors and aliases "
		    "are not taken (one alias may expand into a billion "
		    "nodes); write the values out", ev->data.alias.anchor));
	case YAML_SCALAR_EVENT:
		if ((n = yt_node(YT_SCALAR, ev)) == NULL)
			return (yt_fail(b, line, "out of memory"));
		return (yt_add(b, n));
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth == YT_DEPTH_MAX)
			return (yt_fail(b, line, "nested more than %d deep",
			    YT_DEPTH_MAX));
		if ((n = yt_node(ev->type == YAML_MAPPING_START_EVENT ?
		    YT_MAP : YT_SEQ, ev)) == NULL)
			return (yt_fail(b, line, "out of memory"));
		if (yt_add(b, n) == -1)
			return (-1);
		b->stack[b->depth++] = n;
		return (0);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return (0);
	default:
		return (0);
	}
}

struct ynode *
yt_load(const char *buf, size_t len, char *err, size_t errlen)
{
	yaml_parser_t	 p;
	yaml_event_t	 ev;
	struct ybuild	 b;
	int		 r = 0;

	memset(&b, 0, sizeof(b));
	b.err = err;
	b.errlen = errlen;
	if (len > YT_FILE_MAX) {
		snprintf(err, errlen, "%zu bytes: at most %d", len,
		    YT_FILE_MAX);
		return (NULL);
	}
	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (r == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			r = yt_fail(&b, p.problem_mark.line + 1, "%s%s%s",
			    p.problem != NULL ? p.problem : "not YAML",
			    p.context != NULL ? " " : "",
			    p.context != NULL ? p.context : "");
			break;
		}
		r = yt_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (r == -1) {
		yt_free(b.root);
		return (NULL);
	}
	if (b.root == NULL)
		snprintf(err, errlen, "line 1: an empty file");
	return (b.root);
}
