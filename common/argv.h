/*
 * A command split like sh(1) would, without a shell (common/argv.c).
 */

#ifndef ORCHD_ARGV_H
#define ORCHD_ARGV_H

#include <stddef.h>

int		 split_command(const char *, char ***, char *, size_t);
void		 free_argv(char **);

#endif /* ORCHD_ARGV_H */
