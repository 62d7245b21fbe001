/*
 * The password files of "auth basic" as the parent holds them
 * (common/htpasswd.c): read by confd with orchd.conf, sent to the
 * gateways.
 */

#ifndef ORCHD_HTPASSWD_H
#define ORCHD_HTPASSWD_H

#include <sys/queue.h>

#include <stddef.h>

#include "msg.h"

struct htfile {
	TAILQ_ENTRY(htfile)	 entry;
	char			*path;
	struct cfg_htuser	*users;		/* HTPASSWD_USERS_MAX */
	size_t			 nusers;
	size_t			 nexpected;	/* as the parent takes them
						   (orchd/confread.c) */
};
TAILQ_HEAD(htfilelist, htfile);

int		 htpasswd_line(const char *, struct cfg_htuser *,
		    const char **);
struct htfile	*htpasswd_read(const char *, char *, size_t);
struct htfile	*htfile_find(const struct htfilelist *, const char *);
void		 htfile_free(struct htfile *);
void		 htfiles_free(struct htfilelist *);

#endif /* ORCHD_HTPASSWD_H */
