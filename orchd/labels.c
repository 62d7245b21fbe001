/*
 * "docker labels on", the parent's side: a container someone else made
 * (docker run, docker compose up) carrying org.orchd.host becomes a
 * workload of source label, routed, stopped when idle and started at
 * the next request, and never created or removed by orchd.
 *
 * runtimed, the only process on the Docker socket, reads the container
 * and sends its definition packed (IMSG_RT_LABEL: struct rt_label, then
 * common/workload_wire.c), and IMSG_RT_UNLABEL when the container goes.
 * Nothing in it is trusted: it is read as the gateway's API definitions
 * are (api_def_unpack: every length, then workload_validate), judged by
 * policy_check() as an API workload with what struct rt_label says the
 * container asks besides (policy.c, policy_label), and then added as an
 * API create is, in the same queue and by the same clash checks
 * (parent_api.c, api_label_add), but not written to the store: it lives
 * as long as its container, and is found again at each start.  A
 * refusal is logged once, with its reason, and the workload is never
 * routed nor started.
 *
 * What struct rt_label says is kept while the workload lives
 * (labelfacts.c), so
 * that the check before each start (usecheck.c) and a reload judge the
 * container again as it was seen.  A uid is not given: orchd does not
 * create the container, so "no two workloads share a uid" holds only as
 * far as the policy can see it: a labelled container never runs as a
 * uid of the "workload uids" range orchd gives its own, nor as a
 * daemon's, nor as root without "api allow root".  Two labelled
 * containers may run as one uid: their maker chose it.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "units.h"
#include "workload.h"

void
labels_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct workload_conf	*wc;
	struct rt_label		 rl;
	const struct workload_conf *o;
	char			 err[CTL_MSG_MAX];
	size_t			 len = imsg_get_len(imsg);
	int			 status;

	if (len < sizeof(rl)) {
		log_warnx("docker labels: a short message from runtimed");
		return;
	}
	memcpy(&rl, imsg->data, sizeof(rl));
	if (memchr(rl.name, '\0', sizeof(rl.name)) == NULL ||
	    !valid_workload_name(rl.name) || (rl.refuse & ~RT_LABEL_ALL) ||
	    rl.uid < -1 || rl.uid > UINT32_MAX - 1) {
		log_warnx("docker labels: an invalid container from runtimed");
		return;
	}
	if (env->conf->docker_labels != 1)
		return;
	if ((wc = api_def_unpack((const char *)imsg->data + sizeof(rl),
	    len - sizeof(rl), &status, err, sizeof(err))) == NULL) {
		log_warnx("docker labels: container %s is not a workload: %s",
		    rl.name, err);
		return;
	}
	wc->source = SOURCE_LABEL;
	if (strcmp(wc->name, rl.name) != 0 || wc->driver != DRIVER_DOCKER) {
		log_warnx("docker labels: container %s: a definition not its "
		    "own from runtimed", rl.name);
		workload_free(wc);
		return;
	}
	/* one of another source by that name keeps its facts: none here */
	TAILQ_FOREACH(o, &env->conf->workloads, entry)
		if (strcmp(o->name, rl.name) == 0)
			break;
	if ((o != NULL && o->source != SOURCE_LABEL) ||
	    (o == NULL && pdef_exists(env->conf, rl.name))) {
		log_warnx("docker labels: container %s is not a workload: "
		    "workload \"%s\" already exists", rl.name, rl.name);
		workload_free(wc);
		return;
	}
	if (labels_keep(&rl) == -1 ||
	    (status = policy_check(env->conf, wc, err, sizeof(err))) != 0) {
		log_warnx("docker labels: container %s is not a workload, "
		    "never started by orchd: %s", rl.name, status != 0 ? err :
		    "out of memory");
		if (o == NULL)
			labels_forget(rl.name);
		workload_free(wc);
		return;
	}
	api_label_add(env, wc, &rl);
}

void
labels_recv_gone(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	struct wl_ref	 ref;

	(void)imsg_get_data(imsg, &ref, sizeof(ref));
	if (!valid_workload_name(ref.name))
		return;
	api_label_drop(env, ref.name);
}
