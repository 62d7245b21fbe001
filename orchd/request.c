/*
 * The parent's requests in flight: what it asked its children on behalf
 * of whoever asked it (an orchctl connection, a gateway's API request),
 * and what it serves itself over time (a log reader, logs.c).
 *
 * Each request has an id of its own, which the children answer under
 * (peerid), and the asker (struct proc_asker) it answers.  The children's
 * answers, items then one IMSG_CTL_END from each child asked, or one
 * IMSG_CTL_OK or IMSG_CTL_FAIL, all come to request_recv, which finds the
 * request by that id and relays them to the asker with proc_reply(); an
 * answer from a process the request was not sent to, or for a request
 * that is gone, is dropped.  An asker that leaves (a control connection
 * that closes, a gateway's client that stops a log stream) cancels its
 * requests: what the children still send for them finds nothing.
 *
 * So a handler of the parent's that needs a child's answer is one
 * function in one file: request_new(), request_send() to each child
 * asked, and the relay does the rest (control.c's control_forward).
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "parent.h"

static TAILQ_HEAD(, request) requests = TAILQ_HEAD_INITIALIZER(requests);
static uint32_t		 request_lastid;

static struct request *
request_find(uint32_t id)
{
	struct request	*r;

	TAILQ_FOREACH(r, &requests, entry)
		if (r->id == id)
			return (r);
	return (NULL);
}

/* a new request for asker a, or NULL: the caller answers a */
struct request *
request_new(const struct proc_asker *a)
{
	struct request	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		log_warn("%s", __func__);
		return (NULL);
	}
	/* 0 is no request; an id in use is skipped */
	do {
		if (++request_lastid == 0)
			request_lastid = 1;
	} while (request_find(request_lastid) != NULL);
	r->id = request_lastid;
	r->asker = *a;
	TAILQ_INSERT_TAIL(&requests, r, entry);
	return (r);
}

void
request_free(struct request *r)
{
	if (r == NULL)
		return;
	TAILQ_REMOVE(&requests, r, entry);
	free(r);
}

/* ask a child, which owes one END, or one OK or FAIL, under r's id */
int
request_send(struct request *r, enum privsep_procid to, int instance,
    uint32_t type, const void *data, size_t len)
{
	if (proc_compose_instance(&orchd_env->ps, to, instance, type, r->id,
	    -1, data, len) == -1)
		return (-1);
	r->from |= PROC_FROM(to);
	r->waiting++;
	return (0);
}

/* is a child's answer for asker a still expected? */
int
request_busy(const struct proc_asker *a)
{
	struct request	*r;

	TAILQ_FOREACH(r, &requests, entry)
		if (r->waiting > 0 && proc_asker_same(&r->asker, a))
			return (1);
	return (0);
}

/* asker a has gone, or wants no more: its requests end unanswered */
void
request_cancel(const struct proc_asker *a)
{
	struct request	*r, *next;

	TAILQ_FOREACH_SAFE(r, &requests, entry, next) {
		if (!proc_asker_same(&r->asker, a))
			continue;
		if (r->cancel != NULL)
			r->cancel(r);	/* frees r */
		else
			request_free(r);
	}
}

/*
 * A child's answer: an item, relayed and counted, which ends that
 * child's answer if it is of type r->last; an END, the last of which
 * ends the request (r->end may answer instead); or an OK or FAIL,
 * relayed, which ends it.
 */
void
request_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep	*ps = &orchd_env->ps;
	struct request	*r;
	uint32_t	 type = imsg_get_type(imsg);

	if ((r = request_find(imsg_get_id(imsg))) == NULL || r->waiting == 0 ||
	    (r->from & PROC_FROM(iev->peer)) == 0)
		return;		/* its asker left */
	switch (type) {
	case IMSG_CTL_END:
		if (--r->waiting > 0)
			return;
		if (r->end != NULL)
			r->end(r);
		else
			(void)proc_reply_end(ps, &r->asker);
		break;
	case IMSG_CTL_OK:
	case IMSG_CTL_FAIL:
		(void)proc_reply(ps, &r->asker, type, imsg->data,
		    imsg_get_len(imsg));
		break;
	default:
		r->items++;
		(void)proc_reply(ps, &r->asker, type, imsg->data,
		    imsg_get_len(imsg));
		if (type != r->last || --r->waiting > 0)
			return;
		break;
	}
	request_free(r);
}
