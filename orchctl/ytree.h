/*
 * A YAML document as orchctl import reads it: a small tree of scalars,
 * sequences and mappings, each node with its line, built from libyaml's
 * events under hard bounds (ytree.c).
 */

#ifndef ORCHCTL_YTREE_H
#define ORCHCTL_YTREE_H

#include <stddef.h>

#define YT_FILE_MAX	(1024 * 1024)	/* a file's bytes */
#define YT_DEPTH_MAX	32		/* nested collections */
#define YT_NODES_MAX	100000		/* nodes in a document */

enum yt_type {
	YT_SCALAR,
	YT_SEQ,
	YT_MAP
};

struct ynode {
	enum yt_type	  type;
	char		 *str;		/* YT_SCALAR: its text */
	int		  plain;	/* YT_SCALAR: unquoted */
	int		  unescaped;	/* YT_SCALAR: its "$$" made "$" */
	size_t		  line;		/* from 1 */
	struct ynode	**kids;		/* YT_MAP: key, value, key, ... */
	size_t		  nkids;
	size_t		  cap;
};

/* the document of buf, or NULL with why in err ("line 3: ...") */
struct ynode	*yt_load(const char *, size_t, char *, size_t);
void		 yt_free(struct ynode *);
/* YT_MAP: the value of key, NULL if none */
struct ynode	*yt_get(const struct ynode *, const char *);
/* a scalar that is YAML's null: ~, null, or nothing */
int		 yt_null(const struct ynode *);

#endif /* ORCHCTL_YTREE_H */
