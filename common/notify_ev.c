/*
 * The names of the events a webhook may ask for ("notify URL [events]",
 * orchd.conf(5)): the same words in the configuration, in the
 * X-Orchd-Event header and in the JSON's "event", so that the parser
 * and notifyd cannot disagree.
 */

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "msg.h"
#include "notify_ev.h"

static const char *const notify_ev_names[NOTIFY_EV_MAX] = {
	[NOTIFY_EV_FAILED] = "failed",
	[NOTIFY_EV_BACKOFF] = "backoff",
	[NOTIFY_EV_EXPIRED] = "expired",
	[NOTIFY_EV_EVICTED] = "evicted",
	[NOTIFY_EV_RELOAD] = "reload-refused",
	[NOTIFY_EV_CERT] = "certificate",
	[NOTIFY_EV_STATE] = "state"
};

const char *
notify_ev_name(int ev)
{
	if (ev < 0 || ev >= NOTIFY_EV_MAX)
		return ("unknown");
	return (notify_ev_names[ev]);
}

/* the mask of a name, "all" for every one; 0 for none known */
uint32_t
notify_ev_lookup(const char *name)
{
	int	 i;

	if (strcmp(name, "all") == 0)
		return ((1U << NOTIFY_EV_MAX) - 1);
	for (i = 0; i < NOTIFY_EV_MAX; i++)
		if (strcmp(name, notify_ev_names[i]) == 0)
			return (1U << i);
	return (0);
}
