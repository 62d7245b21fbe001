/*
 * The parent's part in the webhooks: notifyd (PROC_NOTIFY) talks to the
 * parent alone.  Its chroot is a directory of its own beside the
 * database's, root's, holding copies of resolv.conf and hosts alone, so
 * that it resolves a receiver's name where it connects.  The parent sends it the settings of "notify" with the
 * key it read as root (apikey.c), once per configuration loaded, then
 * forgets the key; runtimed's changes of state as it got them, and its
 * own events (a reload refused, a certificate's issuance failed, an API
 * workload expired).  From notifyd it takes one fixed
 * structure of counters, and relays it to the gateways for /metrics:
 * the parent reads nothing else from it.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "timer.h"

static const struct notify_conf	*hook_sent;	/* that of the last load */
static char			 hook_dir[PATH_MAX];	/* its chroot */
static int			 hook_warned;

/*
 * At start, as root, before the children: notifyd's chroot,
 * STATE-notify/root, with the resolver's files alone
 */
void
hook_prepare(struct orchd *env)
{
	if (env->conf->notify != NULL)
		resolver_root(env, "notify", hook_dir, sizeof(hook_dir));
}

const char *
hook_root(void)
{
	return (hook_dir);
}

static int
hook_running(struct orchd *env)
{
	return (proc_instances(&env->ps, PROC_NOTIFY) > 0);
}

/* the settings of a configuration, once; none: an empty list */
void
hook_config_send(struct orchd *env)
{
	struct notify_conf	 none, *n = env->conf->notify;

	if (!hook_running(env)) {
		if (n != NULL && !hook_warned++)
			log_warnx("notify: given after the start: orchd must "
			    "be restarted to send webhooks");
		return;
	}
	if (n != NULL && n == hook_sent)
		return;
	hook_sent = n;
	if (n == NULL) {
		memset(&none, 0, sizeof(none));
		n = &none;
	}
	if (proc_compose(&env->ps, PROC_NOTIFY, IMSG_NOTIFY_CONF, 0, -1, n,
	    sizeof(*n)) == -1)
		fatal("%s: compose", __func__);
	/* notifyd has it now */
	explicit_bzero(n->key, sizeof(n->key));
}

/* runtimed's change of state, as the parent got it */
void
hook_state(struct orchd *env, const struct rt_state *st)
{
	if (hook_running(env) && proc_compose(&env->ps, PROC_NOTIFY,
	    IMSG_NOTIFY_STATE, 0, -1, st, sizeof(*st)) == -1)
		log_warn("%s: compose", __func__);
}

/* the parent's own events */
void
hook_event(struct orchd *env, const struct ctl_event *ev)
{
	if (hook_running(env) && proc_compose(&env->ps, PROC_NOTIFY,
	    IMSG_NOTIFY_EVENT, 0, -1, ev, sizeof(*ev)) == -1)
		log_warn("%s: compose", __func__);
}

/*
 * acmed's status of a host, checked (acme_relay.c), whose count of
 * failures rose: an event "HOST: why", made here of its checked fields
 */
void
hook_cert_failed(struct orchd *env, const struct acme_status *st)
{
	struct ctl_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = EVENT_CERT;
	ev.time_ms = walltime_ms();
	/* cut to the message's size: the host first */
	(void)strlcpy(ev.msg, st->name, sizeof(ev.msg));
	(void)strlcat(ev.msg, ": ", sizeof(ev.msg));
	(void)strlcat(ev.msg, st->error[0] != '\0' ? st->error : "failed",
	    sizeof(ev.msg));
	hook_event(env, &ev);
}

/* an API workload deleted by its expire after, secs without a request */
void
hook_expired(struct orchd *env, const char *name, int64_t secs)
{
	struct ctl_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = EVENT_STATE;
	ev.from = ev.to = WL_ASLEEP;
	ev.reason = RT_REASON_EXPIRED;
	ev.time_ms = walltime_ms();
	(void)strlcpy(ev.name, name, sizeof(ev.name));
	(void)snprintf(ev.msg, sizeof(ev.msg), "no request for %llds, "
	    "deleted", (long long)secs);
	hook_event(env, &ev);
}

/* notifyd's counters: numbers only, relayed as they are */
void
hook_recv_stats(struct imsgev *iev, struct imsg *imsg)
{
	struct notify_stats	 ns;

	(void)imsg_get_data(imsg, &ns, sizeof(ns));
	if (proc_compose(&orchd_env->ps, PROC_GATEWAY, IMSG_NOTIFY_STATS, 0,
	    -1, &ns, sizeof(ns)) == -1)
		fatal("%s: compose", __func__);
}
