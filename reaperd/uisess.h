/*
 * The status page's sessions, for every gateway: see uisess.c.
 */

#ifndef ORCHD_REAPER_UISESS_H
#define ORCHD_REAPER_UISESS_H

#include <sys/tree.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define UISESS_MAX	4096		/* sessions at once */

struct uisess_entry {
	RB_ENTRY(uisess_entry)	 entry;		/* by id */
	struct ui_sess		 s;
};
RB_HEAD(uisess_tree, uisess_entry);

struct uisess {
	struct uisess_tree	 tree;
	size_t			 n;		/* slots used */
	struct uisess_entry	 slot[UISESS_MAX];
};

void	 uisess_init(struct uisess *);
void	 uisess_add(struct uisess *, const struct ui_sess *, int64_t);
int	 uisess_find(struct uisess *, const uint8_t *, int64_t,
	    struct ui_sess *);
int	 uisess_end(struct uisess *, const uint8_t *);
size_t	 uisess_flush(struct uisess *, int);
size_t	 uisess_count(const struct uisess *);

#endif /* ORCHD_REAPER_UISESS_H */
