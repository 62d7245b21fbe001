/*
 * What a container used, read from the answer of GET
 * /containers/{id}/stats?stream=0 as docker stats shows it, less the
 * cache: its peak where the cgroup keeps one (v1's max_usage), else its
 * use now.  A plain function, apart from the driver, so that the unit
 * tests can feed it any answer.
 */

#include <sys/types.h>

#include <jansson.h>
#include <stdint.h>

#include "docker.h"

/* bytes, or 0 when the answer says nothing usable */
int64_t
dk_stats_used(const char *body, size_t len)
{
	json_error_t	 jerr;
	json_t		*o, *ms, *st;
	json_int_t	 usage, peak, cache = 0;

	if ((o = json_loadb(body, len, 0, &jerr)) == NULL)
		return (0);
	ms = json_object_get(o, "memory_stats");
	st = json_object_get(ms, "stats");
	usage = json_integer_value(json_object_get(ms, "usage"));
	peak = json_integer_value(json_object_get(ms, "max_usage"));
	/* cgroup v2 calls it inactive_file, v1 total_inactive_file */
	if (json_is_integer(json_object_get(st, "inactive_file")))
		cache = json_integer_value(json_object_get(st,
		    "inactive_file"));
	else if (json_is_integer(json_object_get(st, "total_inactive_file")))
		cache = json_integer_value(json_object_get(st,
		    "total_inactive_file"));
	json_decref(o);
	if (peak > usage)
		usage = peak;
	if (usage <= 0)
		return (0);
	if (cache > 0 && cache < usage)
		usage -= cache;
	return (usage);
}
