/*
 * orchctl import compose: a Compose file's services mapped to the API's
 * workload definitions (compose.c, compose_svc.c), each error named by
 * its key and line.
 */

#ifndef ORCHCTL_COMPOSE_H
#define ORCHCTL_COMPOSE_H

#include <stddef.h>

#include <jansson.h>

#include "ytree.h"

#define CM_ERRORS_MAX	64		/* errors listed, the rest counted */
#define CM_ENVFILE_MAX	(64 * 1024)	/* an env_file's bytes */

struct compose_opts {
	const char	*file;		/* in errors */
	const char	*dir;		/* its folder, real path */
	const char	*project;	/* NULL: the file's "name" */
	const char	*suffix;	/* --host-suffix, or NULL */
};

struct compose {
	const struct compose_opts *opts;
	const struct ynode	*root;
	char			 project[64];
	json_t			*defs;	/* the definitions, dependencies
					   first */
	json_t			*notes;	/* what was mapped with a gap */
	char			*errs;	/* "FILE:LINE: KEY: why\n" ... */
	size_t			 errslen;
	int			 nerrs;
};

/* 0, or -1 with c->errs listing every error */
int	 compose_map(struct compose *, const struct compose_opts *,
	    const struct ynode *);
void	 compose_free(struct compose *);

/* compose.c, for compose_svc.c */
void	 cm_err(struct compose *, const struct ynode *, const char *,
	    const char *, const char *, ...)
	    __attribute__((__format__ (printf, 5, 6)));
void	 cm_note(struct compose *, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));
const char *cm_str(struct compose *, const struct ynode *, const char *,
	    const char *);
int	 cm_duration(struct compose *, const struct ynode *, const char *,
	    const char *, long long *);
int	 cm_svc_name(struct compose *, const char *, char *, size_t);

/* compose_svc.c: one service's definition, NULL after errors */
json_t	*compose_service(struct compose *, const char *,
	    const struct ynode *);

#endif /* ORCHCTL_COMPOSE_H */
