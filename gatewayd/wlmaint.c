/*
 * A workload's maintenance as runtimed last told this gateway (with
 * every state): held only while on, as few are ever in it and each
 * would carry a 256-byte message.  A file of its own that calls into no
 * other, so that wake.c, metrics.c and state_early.c may all read it.
 */

#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdlib.h>

#include "log.h"
#include "msg.h"
#include "gateway.h"

/* its maintenance, or one that is off */
const struct wl_maint *
gw_maint(const struct gw_workload *wl)
{
	static const struct wl_maint	 off;

	return (wl->maint != NULL ? wl->maint : &off);
}

void
gw_maint_set(struct gw_workload *wl, const struct wl_maint *m)
{
	if (!m->on) {
		free(wl->maint);
		wl->maint = NULL;
		return;
	}
	if (wl->maint == NULL &&
	    (wl->maint = malloc(sizeof(*wl->maint))) == NULL)
		fatal("%s", __func__);
	*wl->maint = *m;
	wl->maint->msg[sizeof(wl->maint->msg) - 1] = '\0';
}
