/*
 * Each workload's last access-log lines go to the reaper too, which
 * keeps them for every gateway (reaperd/alring.c) and answers
 * GET /v1/workloads/NAME/access (api_access.c).
 *
 * A line of a request routed to a workload, as the access log has it
 * (accesslog.c formatted it already), is copied, cut to ALOG_KEEP_LINE
 * bytes, into a batch sent with the access log's own flush, or when the
 * batch is full.  The reaper is never waited for: while ALOGKEEP_QUEUED
 * messages wait for it already, a batch is dropped and counted, so a
 * reaper that is slow costs this gateway bounded memory and no time.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "gateway.h"

#define ALOGKEEP_BATCH	32	/* lines a message, some 18 KB */
#define ALOGKEEP_QUEUED	64	/* messages waiting for the reaper */

static struct alog_keep	 keep_batch[ALOGKEEP_BATCH];
static size_t		 keep_n;
static uint64_t		 keep_drops;

void
alogkeep_flush(void)
{
	struct imsgev	*iev;

	if (keep_n == 0)
		return;
	iev = proc_channel(gw->ps, PROC_REAPER, 0);
	if (iev == NULL || iev->dead ||
	    imsgbuf_queuelen(&iev->ibuf) >= ALOGKEEP_QUEUED) {
		if (keep_drops++ == 0)
			log_warnx("access log: the reaper is slow, recent "
			    "lines are dropped");
	} else if (imsgev_compose(iev, IMSG_GW_ALOG_KEEP, 0, -1, keep_batch,
	    keep_n * sizeof(keep_batch[0])) == -1)
		log_warn("%s: compose", __func__);
	keep_n = 0;
}

/* a line of workload name, len bytes with its newline, started at ms */
void
alogkeep_add(const char *name, int64_t start_ms, const char *line,
    size_t len)
{
	struct alog_keep	*k;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (keep_n == ALOGKEEP_BATCH)
		alogkeep_flush();
	k = &keep_batch[keep_n++];
	memset(k, 0, sizeof(*k));
	(void)strlcpy(k->name, name, sizeof(k->name));
	k->start_ms = start_ms;
	if (len > sizeof(k->line)) {
		/* cut, and said so */
		memcpy(k->line, line, sizeof(k->line) - 3);
		memcpy(k->line + sizeof(k->line) - 3, "...", 3);
		len = sizeof(k->line);
	} else
		memcpy(k->line, line, len);
	k->len = (uint32_t)len;
}

uint64_t
alogkeep_drops(void)
{
	return (keep_drops);
}
