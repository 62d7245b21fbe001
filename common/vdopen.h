/*
 * A volume root opened without following a link (common/vdopen.c): the
 * parent's voldir.c and the spawner's volrm.c.
 */

#ifndef ORCHD_VDOPEN_H
#define ORCHD_VDOPEN_H

#include <sys/types.h>

#include <stddef.h>

int	vd_fail(char *, size_t, const char *, ...)
	    __attribute__((__format__ (printf, 3, 4)));
int	vd_dir_ok(int, const char *, uid_t, int, char *, size_t);
int	vd_open_failed(int, const char *, const char *, char *, size_t);
int	vd_openat(int, const char *);
int	vd_open_root(const char *, uid_t, char *, size_t);

#endif /* ORCHD_VDOPEN_H */
