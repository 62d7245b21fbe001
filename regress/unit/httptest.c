/*
 * What the HTTP parser's unit tests share: see httptest.h.
 */

#include <sys/types.h>
#include <sys/mman.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "httptest.h"

int		failures;

/* fail the cmocka test if any CHECK failed during it */
void
end_checks(void)
{
	int	n = failures;

	failures = 0;
	assert_int_equal(n, 0);
}

/*
 * Input placed right before an unreadable page, so an overread faults
 * even without ASan (picohttpparser's trick).
 */
static char	*guard_base;
static size_t	 guard_len;

const char *
guarded(const char *raw, size_t len)
{
	long	pg = sysconf(_SC_PAGESIZE);
	size_t	need = (len + pg - 1) / pg * pg + pg;

	if (guard_base != NULL)
		munmap(guard_base, guard_len);
	guard_len = need + (size_t)pg;
	guard_base = mmap(NULL, guard_len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guard_base != MAP_FAILED);
	assert_int_equal(mprotect(guard_base + need, pg, PROT_NONE), 0);
	memcpy(guard_base + need - len, raw, len);
	return guard_base + need - len;
}

char		big[HTTPTEST_BIG];

size_t
cat(size_t off, const char *s)
{
	size_t	n = strlen(s);

	assert_true(off + n <= HTTPTEST_BIG);
	memcpy(big + off, s, n);
	return off + n;
}

size_t
fill(size_t off, int c, size_t n)
{
	assert_true(off + n <= HTTPTEST_BIG);
	memset(big + off, c, n);
	return off + n;
}
