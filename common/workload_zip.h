/*
 * common/workload_zip.c: a workload's definition in a few bytes, for a
 * process that holds one per workload and reads it seldom (gatewayd, for
 * its API; the parent, at rest).  Private to the process that made it;
 * never sent.
 */

#ifndef ORCHD_WORKLOAD_ZIP_H
#define ORCHD_WORKLOAD_ZIP_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

struct workload_conf;
struct wl_zip;

/* wc in its small form, one allocation (free()); NULL: out of memory */
struct wl_zip		*workload_zip(const struct workload_conf *);
/* the definition again, packed (workload_free()); NULL: out of memory */
struct workload_conf	*workload_unzip(const struct wl_zip *);
size_t			 workload_zip_size(const struct wl_zip *);
/* the same from its wire form, as workload_wire() made it */
struct wl_zip		*workload_zip_bytes(const void *, size_t);
/* its wire form, byte for byte (free()); NULL: out of memory */
void			*workload_zip_wire(const struct wl_zip *, size_t *);

/*
 * A definition at rest in the parent (orchd/pdef.c): its name, which
 * lookups read, and the rest small, both in the one allocation (free()).
 * The list is struct orchd_conf's.
 */
struct wl_rest {
	TAILQ_ENTRY(wl_rest)	 entry;
	struct wl_zip		*zip;		/* after the name */
	uint64_t		 digest;	/* of its wire form:
						   workload_wire_bytes_digest() */
	char			 name[];
};
TAILQ_HEAD(wl_restlist, wl_rest);
void			 workload_rest_free(struct wl_restlist *);

#endif
