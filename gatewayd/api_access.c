/*
 * What the reaper keeps for every gateway, for the status page:
 *
 * GET /v1/workloads/NAME/access?limit=N: the workload's last N (1 to
 * 100, 100 by default) access-log lines, oldest first, as the access
 * log wrote them (cut to ALOG_KEEP_LINE bytes), whichever gateway served
 * them (reaperd/alring.c).  With no "access log" there are none.
 *
 * GET /v1/host/history: the host's last day a minute at a time, the
 * requests, wakes, memory charged and budget (reaperd/hosthist.c).
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"

void
api_access(struct api_req *r)
{
	struct alog_ask	 q;

	if (api_list_begin(r) == -1)
		return;
	memset(&q, 0, sizeof(q));
	strlcpy(q.name, r->t.name, sizeof(q.name));
	q.limit = r->t.tail;
	(void)api_ask(r, PROC_REAPER, IMSG_GW_ALOG_ASK, &q, sizeof(q),
	    API_STORE_WAIT);
}

static struct api_req *
api_access_answered(struct imsgev *iev, struct imsg *imsg, const char *name)
{
	struct api_req	*r;

	if ((r = api_answered(iev, imsg, PROC_REAPER)) == NULL ||
	    r->t.op != API_ACCESS || strcmp(r->t.name, name) != 0)
		return (NULL);
	return (r);
}

/* a line: ASCII, as the access log escapes what is not (accesslog_fmt.c) */
void
api_recv_alog_line(struct imsgev *iev, struct imsg *imsg)
{
	struct alog_keep	 k;
	struct api_req		*r;
	size_t			 i;

	(void)imsg_get_data(imsg, &k, sizeof(k));
	if ((r = api_access_answered(iev, imsg, k.name)) == NULL ||
	    k.len > sizeof(k.line) ||
	    json_array_size(r->items) >= (size_t)r->t.tail)
		return;
	/* what is not printable ASCII, which the log never has, is not sent */
	for (i = 0; i < k.len; i++)
		if ((unsigned char)k.line[i] < 0x20 ||
		    (unsigned char)k.line[i] > 0x7e)
			k.line[i] = '?';
	(void)json_array_append_new(r->items, json_stringn(k.line, k.len));
}

void
api_recv_alog_end(struct imsgev *iev, struct imsg *imsg)
{
	const struct cfg_generation	*gen = cfg_current();
	struct alog_ask			 q;
	struct api_req			*r;

	(void)imsg_get_data(imsg, &q, sizeof(q));
	if ((r = api_access_answered(iev, imsg, q.name)) == NULL)
		return;
	api_json(r, 200, json_pack("{s:s, s:b, s:O}", "name", r->t.name,
	    "access_log", gen != NULL && gen->global.access_log != 0,
	    "lines", r->items), NULL);
}

void
api_host_history(struct api_req *r)
{
	(void)api_ask(r, PROC_REAPER, IMSG_GW_HOSTHIST_ASK, NULL, 0,
	    API_STORE_WAIT);
}

/* every minute kept, oldest first: its start in RFC 3339, and figures */
void
api_recv_hosthist(struct imsgev *iev, struct imsg *imsg)
{
	struct host_sample	 s;
	struct api_req		*r;
	const uint8_t		*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;
	json_t			*a, *o;
	char			 t[64];

	if ((r = api_answered(iev, imsg, PROC_REAPER)) == NULL ||
	    r->t.op != API_HOST_HISTORY)
		return;
	if ((a = json_array()) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return;
	}
	for (off = 0; off + sizeof(s) <= len; off += sizeof(s)) {
		memcpy(&s, p + off, sizeof(s));
		if (s.minute <= 0 || s.minute > INT64_MAX / 60 ||
		    apij_time(s.minute * 60, t, sizeof(t)) == -1)
			continue;
		if ((o = json_pack("{s:s, s:I, s:I, s:I, s:I}", "time", t,
		    "requests", (json_int_t)MINIMUM(s.requests, INT64_MAX),
		    "wakes", (json_int_t)MINIMUM(s.wakes, INT64_MAX),
		    "memory_in_use", (json_int_t)s.in_use, "memory_budget",
		    (json_int_t)s.budget)) != NULL)
			(void)json_array_append_new(a, o);
	}
	api_json(r, 200, json_pack("{s:i, s:o}", "interval", 60, "samples",
	    a), NULL);
}
