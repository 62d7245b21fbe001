/*
 * What the HTTP parser's unit tests share (regress/unit/httptest.c):
 * CHECK, which counts a failure and goes on, so that a table's every
 * row is tried; input placed before an unreadable page; a big buffer
 * built a piece at a time.  Include after cmocka.h.
 */

#ifndef ORCHD_HTTPTEST_H
#define ORCHD_HTTPTEST_H

#include <stddef.h>

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define HTTPTEST_BIG	(256 * 1024)

extern int	 failures;
extern char	 big[HTTPTEST_BIG];

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		print_error("%s:%d: ", __FILE__, __LINE__);		\
		print_error(__VA_ARGS__);				\
		print_error("\n");					\
		failures++;						\
	}								\
} while (0)

void		 end_checks(void);
const char	*guarded(const char *, size_t);
size_t		 cat(size_t, const char *);
size_t		 fill(size_t, int, size_t);

#endif /* ORCHD_HTTPTEST_H */
