/*
 * Small helpers every process shares.
 */

#include <stddef.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "orchd.h"

static const char *const proc_names[PROC_MAX] = {
	[PROC_PARENT] = "parent",
	[PROC_STORE] = "store",
	[PROC_GATEWAY] = "gateway",
	[PROC_REAPER] = "reaper",
	[PROC_RUNTIME] = "runtime",
};

static const char *const state_names[] = {
	[WL_ASLEEP] = "asleep",
	[WL_WAKING] = "waking",
	[WL_RUNNING] = "running",
	[WL_SUSPENDING] = "suspending",
	[WL_FAILED] = "failed",
};

const char *
proc_name(enum privsep_procid id)
{
	if ((unsigned int)id >= nitems(proc_names))
		return ("unknown");
	return (proc_names[id]);
}

const char *
workload_state_name(enum workload_state state)
{
	if ((unsigned int)state >= nitems(state_names))
		return ("unknown");
	return (state_names[state]);
}

/*
 * Compare in time that depends only on the length, so that an attacker
 * timing bearer token checks learns nothing about the key.
 */
int
ct_memcmp(const void *a, const void *b, size_t len)
{
	const volatile unsigned char	*pa = a, *pb = b;
	unsigned char			 diff = 0;
	size_t				 i;

	for (i = 0; i < len; i++)
		diff |= pa[i] ^ pb[i];
	return (diff != 0);
}

/*
 * Give the heap a configuration load freed back to the kernel.  glibc
 * returns only the top of its heap by itself, and a transaction of
 * 10,000 workloads leaves megabytes free below what is still in use.
 */
void
heap_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
