/*
 * One Compose service being mapped: what compose_svc.c and compose_fs.c
 * share.
 */

#ifndef ORCHCTL_COMPOSE_SVC_H
#define ORCHCTL_COMPOSE_SVC_H

#include <jansson.h>

#include "compose.h"
#include "ytree.h"

/* one service being mapped */
struct svc {
	struct compose		*c;
	const char		*name;		/* the service's */
	const struct ynode	*node;
	json_t			*def;
	int			 tcp_port;	/* ports: the first published */
	int			 port;		/* its container port */
};

/* compose_svc.c */
void	 svc_set(struct svc *, const char *, json_t *);
json_t	*svc_array(struct svc *, const char *);

/* compose_fs.c: what reads or names the host's files */
void	 map_env_file(struct svc *, const struct ynode *);
void	 map_volumes(struct svc *, const struct ynode *);

#endif /* ORCHCTL_COMPOSE_SVC_H */
