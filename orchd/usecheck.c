/*
 * Checked where used: runtimed asks here before each container create
 * and each start of a docker workload (IMSG_RT_USE), and Docker is
 * called only once this answers yes (IMSG_RT_USED).  What was checked
 * when the definition arrived counts for nothing: the definition the
 * parent holds now passes policy_check() again, with whatever rules it
 * has now; each API volume's directory is made, or found as it must be,
 * by a walk that follows no link (voldir.c); each orchd.conf volume is
 * resolved again, where it leads now.  A refusal is the wake's failure:
 * runtimed reports it with this reason, in the log, the workload's
 * state and history, and the wake's parked requests get 503.
 *
 * Nothing but the name and a sequence number is taken from runtimed.
 * Swarm services are not asked about: they are orchd.conf's alone, mount
 * no volume, and run on other nodes.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "units.h"
#include "workload.h"

/* the volumes of wc, where they lead now; API ones made */
static int
use_volumes(struct orchd *env, const struct workload_conf *wc, char *msg,
    size_t len)
{
	const struct volume	*v;
	const char		*root;
	char			 inst[ORCHD_INSTANCE_MAX];
	uid_t			 owner = geteuid(), uid = owner;

	instance_name(env->conf, inst, sizeof(inst));

	TAILQ_FOREACH(v, &wc->volumes, entry) {
		if (wc->source != SOURCE_API) {
			if (hostpath_at_use(v->host, env->conf, msg,
			    len) == -1)
				return (-1);
			continue;
		}
		/* the uid its container runs as: it owns its volumes */
		if (owner == 0 && uid == owner &&
		    identity_get(env, wc->name, &uid, msg, len) == -1)
			return (-1);
		root = TAILQ_EMPTY(&env->conf->api_allow_volumes) ? NULL :
		    TAILQ_FIRST(&env->conf->api_allow_volumes)->str;
		if (voldir_make(root, inst, wc->name, v->host, owner, uid,
		    msg, len) == -1)
			return (-1);
	}
	return (0);
}

/* may the container of name be created or started now?  0, or -1 */
static int
use_check(struct orchd *env, const char *name, char *msg, size_t len)
{
	const struct workload_conf	*wc;
	struct workload_conf		*tmp;
	char				 err[CTL_MSG_MAX];
	int				 r = -1;

	if (env->shutting_down) {
		(void)snprintf(msg, len, "orchd is shutting down");
		return (-1);
	}
	if ((wc = pdef_find(env->conf, name, &tmp)) == NULL)
		(void)snprintf(msg, len, "no such workload");
	else if (wc->driver != DRIVER_DOCKER)
		(void)snprintf(msg, len, "not a docker workload");
	else if (policy_check(env->conf, wc, err, sizeof(err)) != 0)
		(void)strlcpy(msg, err, len);
	else
		r = use_volumes(env, wc, msg, len);
	workload_free(tmp);
	return (r);
}

void
usecheck_request(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	struct rt_use	 use;
	struct rt_used	 ans;
	char		 why[RT_MSG_MAX], full[CTL_MSG_MAX];

	(void)imsg_get_data(imsg, &use, sizeof(use));
	memset(&ans, 0, sizeof(ans));
	(void)strlcpy(ans.name, use.name, sizeof(ans.name));
	ans.seq = use.seq;
	if (!valid_workload_name(use.name) ||
	    (use.what != RT_USE_CREATE && use.what != RT_USE_START))
		(void)snprintf(ans.msg, sizeof(ans.msg), "invalid request");
	else if (use_check(env, use.name, why, sizeof(why)) == 0)
		ans.ok = 1;
	else {
		(void)snprintf(full, sizeof(full), "refused at its wake: %s",
		    why);
		(void)strlcpy(ans.msg, full, sizeof(ans.msg));
		log_warnx("workload %s: container %s %s", use.name,
		    use.what == RT_USE_CREATE ? "create" : "start", ans.msg);
	}
	if (imsgev_compose(iev, IMSG_RT_USED, 0, -1, &ans, sizeof(ans)) == -1)
		log_warn("%s: compose", __func__);
}
