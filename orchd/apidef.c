/*
 * A workload definition from a child, as the root parent reads it: the
 * API's, decoded from JSON by gatewayd, and the store's rows, decoded by
 * the store.  The parent parses no text from a child (DESIGN.md, trust
 * rule 10): it takes the packed wire form (common/workload_wire.c),
 * whose every length, count and terminator is checked against the
 * message before it is read, then judges every field by the rules of
 * the configuration file's definitions (workload_validate) and by the
 * policy (policy_check), trusting nothing the child may have checked.
 * Kept apart from parent_api.c so that a unit test and a fuzz target
 * drive it alone.
 */

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "msg.h"
#include "parent.h"
#include "schedule.h"
#include "workload.h"

/*
 * The definition in len bytes of data, of the API's, by the rules alone:
 * NULL with the status to answer in *status (400: malformed or invalid,
 * 413: too large) and why in err.
 */
struct workload_conf *
api_def_unpack(const void *data, size_t len, int *status, char *err,
    size_t errlen)
{
	struct workload_conf	*wc;

	*status = 413;
	if (len > ORCHD_API_JSON_MAX) {
		snprintf(err, errlen, "workload too large");
		return (NULL);
	}
	*status = 400;
	if ((wc = workload_wire_read(data, len, err, errlen)) == NULL)
		return (NULL);
	/* a zone its schedules name must be one of the tzdata's */
	if (sched_zones_check(wc, err, errlen) == -1) {
		workload_free(wc);
		return (NULL);
	}
	/* whatever it says: only the file makes a workload of the file */
	wc->source = SOURCE_API;
	return (wc);
}

/* api_def_unpack(), then the policy: 403 if it forbids it */
struct workload_conf *
api_def_read(const struct orchd_conf *conf, const void *data, size_t len,
    int *status, char *err, size_t errlen)
{
	struct workload_conf	*wc;

	if ((wc = api_def_unpack(data, len, status, err, errlen)) == NULL)
		return (NULL);
	if ((*status = policy_check(conf, wc, err, errlen)) != 0) {
		workload_free(wc);
		return (NULL);
	}
	return (wc);
}
