/*
 * Logging in the OpenBSD daemon manner: syslog by default, stderr when
 * running in the foreground (-d), more with each -v.
 */

#ifndef ORCHD_LOG_H
#define ORCHD_LOG_H

#include <stdarg.h>

#include "compat.h"

void	log_init(int, int);		/* to stderr?, syslog facility */
void	log_procinit(const char *);
void	log_setverbose(int);
/* tests: every formatted line also goes to fn (NULL to stop) */
void	log_capture(void (*)(int, const char *));
void	log_forward(void (*)(int, const char *));
int	log_getverbose(void);
int	log_getstderr(void);		/* lines go to stderr? */
void	log_warn(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	log_warnx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	log_info(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	log_debug(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	logit(int, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));
void	vlog(int, const char *, va_list)
	    __attribute__((__format__ (printf, 2, 0)));
__dead void fatal(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
__dead void fatalx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));

#endif /* ORCHD_LOG_H */
