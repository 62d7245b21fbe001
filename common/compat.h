/*
 * Linux glue for code written in the OpenBSD manner.  libbsd (through its
 * overlay include path) provides strlcpy, strtonum, reallocarray,
 * setproctitle, closefrom and the BSD <sys/queue.h>; what it lacks is here.
 */

#ifndef ORCHD_COMPAT_H
#define ORCHD_COMPAT_H

#include <sys/cdefs.h>
#include <stddef.h>

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif

#ifndef nitems
#define nitems(_a)	(sizeof((_a)) / sizeof((_a)[0]))
#endif

#ifndef MINIMUM
#define MINIMUM(a, b)	(((a) < (b)) ? (a) : (b))
#endif
#ifndef MAXIMUM
#define MAXIMUM(a, b)	(((a) > (b)) ? (a) : (b))
#endif

/* constant-time comparison: libbsd 0.11 does not export timingsafe_bcmp */
int	ct_memcmp(const void *, const void *, size_t);

#endif /* ORCHD_COMPAT_H */
