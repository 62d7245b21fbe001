/*
 * Units and names (common/units.c): durations, sizes and stop signals
 * parsed and printed, workload names and host patterns checked.
 */

#ifndef ORCHD_UNITS_H
#define ORCHD_UNITS_H

#include <stddef.h>
#include <stdint.h>

int		 parse_duration(const char *, int64_t *, const char **);
int		 parse_size(const char *, int64_t *, const char **);
int		 parse_signal(const char *, int *, const char **);
const char	*signal_name(int);
int		 valid_workload_name(const char *);
int		 valid_host_pattern(const char *);
char		*fmt_duration(int64_t, char *, size_t);
int		 parse_cpu(const char *, int64_t *, const char **);
char		*fmt_cpu(int64_t, char *, size_t);

#endif /* ORCHD_UNITS_H */
