/*
 * One request to orchd's control socket whose failure is returned, not
 * fatal: orchctl import and the group commands make many, and undo what
 * they did when one fails.  The items of a reply go to a callback.
 */

#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "imsg.h"
#include "workload.h"
#include "msg.h"
#include "orchd.h"
#include "orchctl.h"
#include "ctlcall.h"

#define CALL_TIMEOUT	600	/* seconds orchd may stay silent: a wake */

/* wait until fd is readable, or the deadline: 0 on a timeout */
static int
call_wait(int fd, time_t deadline)
{
	struct pollfd	 pfd;
	time_t		 now;
	int		 n;

	for (;;) {
		if ((now = time(NULL)) >= deadline)
			return (0);
		pfd.fd = fd;
		pfd.events = POLLIN;
		if ((n = poll(&pfd, 1, (int)(deadline - now) * 1000)) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (n > 0)
			return (1);
	}
}

/* the reply's OK, FAIL or END; -1 with orchd's message */
static int
call_reply(struct imsg *imsg, uint32_t item, void (*cb)(struct imsg *,
    void *), void *arg, char *errbuf, size_t len, int *done)
{
	struct ctl_result	 cr;

	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_FAIL:
		if (imsg_get_data(imsg, &cr, sizeof(cr)) == -1)
			snprintf(errbuf, len, "bad reply from orchd");
		else {
			str_printable(cr.msg, sizeof(cr.msg));
			strlcpy(errbuf, cr.msg[0] != '\0' ? cr.msg :
			    "command failed", len);
		}
		return (-1);
	case IMSG_CTL_OK:
	case IMSG_CTL_END:
		*done = 1;
		return (0);
	default:
		if (imsg_get_type(imsg) == item && cb != NULL)
			cb(imsg, arg);
		return (0);
	}
}

int
ctl_call(const char *sock, uint32_t type, const void *data, size_t dlen,
    uint32_t item, void (*cb)(struct imsg *, void *), void *arg,
    char *errbuf, size_t len)
{
	struct imsgbuf	 ibuf;
	struct imsg	 imsg;
	time_t		 deadline;
	int		 fd, n, done = 0, r = 0;

	fd = ctl_connect(sock);
	if (imsgbuf_init(&ibuf, fd) == -1)
		err(1, "imsgbuf_init");
	if (imsg_compose(&ibuf, type, ORCHD_CTL_VERSION, getpid(), -1, data,
	    dlen) == -1 || imsgbuf_flush(&ibuf) == -1) {
		snprintf(errbuf, len, "cannot send to orchd: %s",
		    strerror(errno));
		r = -1;
	}
	while (r == 0 && !done) {
		deadline = time(NULL) + CALL_TIMEOUT;
		while (r == 0 && !done && (n = imsg_get(&ibuf, &imsg)) == 1) {
			r = call_reply(&imsg, item, cb, arg, errbuf, len,
			    &done);
			imsg_free(&imsg);
		}
		if (r != 0 || done)
			break;
		if (!call_wait(fd, deadline) || imsgbuf_read(&ibuf) <= 0) {
			snprintf(errbuf, len, "no reply from orchd");
			r = -1;
		}
	}
	imsgbuf_clear(&ibuf);
	close(fd);
	return (r);
}

/* a request that names one workload */
int
ctl_call_name(const char *sock, uint32_t type, const char *name,
    char *errbuf, size_t len)
{
	struct ctl_name	 cn;

	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, name, sizeof(cn.name));
	return (ctl_call(sock, type, &cn, sizeof(cn), IMSG_NONE, NULL, NULL,
	    errbuf, len));
}

/* a definition orchd sent packed (IMSG_CTL_DEFINITION), as JSON */
json_t *
ctl_def_json(struct imsg *imsg, int group)
{
	struct workload_conf	*wc;
	json_t			*o;
	char			*json, why[256];

	if ((wc = workload_unwire(imsg->data, imsg_get_len(imsg), why,
	    sizeof(why))) == NULL)
		errx(1, "bad reply from orchd: %s", why);
	json = workload_to_json(wc);
	if (json == NULL || (o = json_loads(json, 0, NULL)) == NULL)
		errx(1, "bad reply from orchd: definition");
	free(json);
	/*
	 * with group, its group's schedules, which its JSON form never
	 * has, nor may a definition that is sent back (show groups)
	 */
	if (group && !TAILQ_EMPTY(&wc->group_windows))
		json_object_set_new(o, "group_keep_warm_during",
		    strlist_to_json(&wc->group_windows));
	if (group && !TAILQ_EMPTY(&wc->group_wakes))
		json_object_set_new(o, "group_wake_at",
		    strlist_to_json(&wc->group_wakes));
	workload_free(wc);
	return (o);
}
