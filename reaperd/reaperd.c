/*
 * reaperd: idle accounting.  It learns from the gateway when each workload
 * was last used and what is in flight, from runtimed what state it is in,
 * and every reaper interval asks runtimed to suspend the idle ones.  It
 * holds nothing but its channels and, opened before it drops root,
 * /proc/pressure/memory: no network, no other file.  While the memory
 * pressure that file tells is above "memory pressure limit", each tick
 * asks runtimed to suspend one more idle workload, the least recently
 * used, ahead of its idle timeout (runtimed picks it: it knows the
 * memory budget's candidates).
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>

#include <event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "compat.h"
#include "ignore.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "proc.h"
#include "sandbox.h"
#include "timer.h"
#include "util.h"
#include "workload.h"
#include "reaper.h"
#include "authlim.h"
#include "uisess.h"
#include "alring.h"
#include "hosthist.h"
#include "ticklist.h"

RB_HEAD(reap_wls, reap_wl);

int		reap_cmp(struct reap_wl *, struct reap_wl *);
RB_PROTOTYPE(reap_wls, reap_wl, entry, reap_cmp);
RB_GENERATE(reap_wls, reap_wl, entry, reap_cmp);

/* as many as fit in one message */
#define REAP_LASTSEEN_MAX \
	((ORCHD_IMSG_MAXSIZE - IMSG_HEADER_SIZE) / sizeof(struct reap_lastseen))

static struct privsep	reaper_ps;
static struct reap_wls	reap_wls = RB_INITIALIZER(&reap_wls);
static struct reap_lastseen *reap_batch;
static size_t		reap_nbatch;
static struct event	reap_tick_ev;
static int		reap_off;
static int64_t		reap_interval;
static struct authlim	reap_authlim;	/* wrong API keys, authlim.c */
static struct uisess	reap_uisess;	/* the status page's, uisess.c */
static struct alring	reap_alring;	/* last access-log lines, alring.c */
static struct hosthist	reap_hosthist;	/* the host's last day, hosthist.c */
/* memory pressure: PSI, opened at start; ORCHD_PSI_FILE for the tests */
#define REAP_PSI_FILE	"/proc/pressure/memory"
static int		reap_psi_fd = -1;
static int		reap_psi_errno;
static const char	*reap_psi_path;
static int64_t		reap_pressure_limit;	/* hundredths of a %; 0: off */
static int		reap_pressured;		/* above it at the last tick */
static int		reap_psi_said;		/* "no PSI" was logged */

static void	reaper_recv_activity(struct imsgev *, struct imsg *);
static void	reaper_recv_state(struct imsgev *, struct imsg *);
static void	reaper_recv_authfail(struct imsgev *, struct imsg *);
static void	reaper_recv_keepwarm(struct imsgev *, struct imsg *);
static void	reaper_recv_sess_new(struct imsgev *, struct imsg *);
static void	reaper_recv_sess_ask(struct imsgev *, struct imsg *);
static void	reaper_recv_sess_end(struct imsgev *, struct imsg *);
static void	reaper_recv_sess_flush(struct imsgev *, struct imsg *);
static void	reaper_recv_alog_keep(struct imsgev *, struct imsg *);
static void	reaper_recv_alog_ask(struct imsgev *, struct imsg *);
static void	reaper_recv_hostsample(struct imsgev *, struct imsg *);
static void	reaper_recv_hosthist_ask(struct imsgev *, struct imsg *);

PROC_TABLE_BEGIN
static const struct proc_handler reaper_handlers[] = {
	/* what every child answers the parent (common/proc.c) */
	{ IMSG_PROC_PEER, sizeof(struct proc_peer), PROC_FROM(PROC_PARENT),
	    proc_recv_peer },
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    proc_recv_summary },
	/* its configuration, as every child receives it (common/cfgrecv.c) */
	{ IMSG_CFG_RESET, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_reset },
	{ IMSG_CFG_GLOBAL, sizeof(struct global_settings),
	    PROC_FROM(PROC_PARENT), cfg_recv_global },
	{ IMSG_CFG_WORKLOAD, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    cfg_recv_workload },
	{ IMSG_CFG_DONE, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_done },
	{ IMSG_CFG_DELTA, sizeof(struct cfg_delta), PROC_FROM(PROC_PARENT),
	    cfg_recv_delta },
	{ IMSG_CFG_KEEP, sizeof(struct cfg_keep), PROC_FROM(PROC_PARENT),
	    cfg_recv_keep },
	{ IMSG_CFG_START, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_start },
	{ IMSG_GW_ACTIVITY, sizeof(struct gw_activity), PROC_FROM(PROC_GATEWAY),
	    reaper_recv_activity, PROC_RECORDS1, PROC_NAME(struct gw_activity) },
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    reaper_recv_state, PROC_NAME(struct rt_state) },
	{ IMSG_GW_AUTHFAIL, sizeof(struct netaddr), PROC_FROM(PROC_GATEWAY),
	    reaper_recv_authfail },
	{ IMSG_GW_SESS_NEW, sizeof(struct ui_sess), PROC_FROM(PROC_GATEWAY),
	    reaper_recv_sess_new },
	{ IMSG_GW_SESS_ASK, sizeof(struct ui_sess_id),
	    PROC_FROM(PROC_GATEWAY), reaper_recv_sess_ask },
	{ IMSG_GW_SESS_END, sizeof(struct ui_sess_id),
	    PROC_FROM(PROC_GATEWAY), reaper_recv_sess_end },
	{ IMSG_GW_SESS_FLUSH, sizeof(struct ui_sess_flush),
	    PROC_FROM(PROC_GATEWAY), reaper_recv_sess_flush },
	{ IMSG_GW_ALOG_KEEP, sizeof(struct alog_keep), PROC_FROM(PROC_GATEWAY),
	    reaper_recv_alog_keep, PROC_RECORDS1, PROC_NAME(struct alog_keep) },
	{ IMSG_GW_ALOG_ASK, sizeof(struct alog_ask), PROC_FROM(PROC_GATEWAY),
	    reaper_recv_alog_ask, PROC_NAME(struct alog_ask) },
	{ IMSG_GW_HOSTSAMPLE, sizeof(struct host_sample),
	    PROC_FROM(PROC_GATEWAY), reaper_recv_hostsample },
	{ IMSG_GW_HOSTHIST_ASK, 0, PROC_FROM(PROC_GATEWAY),
	    reaper_recv_hosthist_ask },
	{ IMSG_ST_KEEPWARM, sizeof(struct ctl_keepwarm),
	    PROC_FROM(PROC_RUNTIME), reaper_recv_keepwarm,
	    PROC_NAME(struct ctl_keepwarm) },
};
PROC_TABLE_END

int
reap_cmp(struct reap_wl *a, struct reap_wl *b)
{
	return (strcmp(a->name, b->name));
}

static struct reap_wl *
reap_find(const char *name)
{
	struct reap_wl	 key;

	key.name = name;
	return (RB_FIND(reap_wls, &reap_wls, &key));
}

static struct reap_wl *
reap_new(const char *name)
{
	struct reap_wl	*wl;
	size_t		 len;

	/* the name in the same allocation, no longer */
	len = strlen(name) + 1;
	if ((wl = calloc(1, sizeof(*wl) + len)) == NULL)
		fatal("%s", __func__);
	memcpy(wl->namebuf, name, len);
	wl->name = wl->namebuf;
	wl->state = WL_ASLEEP;
	wl->up_idx = -1;
	wl->last_seen = monotime();
	wl->born = wl->last_seen;
	RB_INSERT(reap_wls, &reap_wls, wl);
	return (wl);
}

static void
lastseen_flush(void)
{
	if (reap_nbatch == 0)
		return;
	if (proc_compose(&reaper_ps, PROC_STORE, IMSG_ST_LASTSEEN, 0, -1,
	    reap_batch, reap_nbatch * sizeof(*reap_batch)) == -1)
		log_warn("%s: compose", __func__);
	reap_nbatch = 0;
}

static void
lastseen_add(const struct reap_wl *wl)
{
	struct reap_lastseen	*ls;

	if (reap_batch == NULL && (reap_batch = calloc(REAP_LASTSEEN_MAX,
	    sizeof(*reap_batch))) == NULL)
		fatal("%s", __func__);
	ls = &reap_batch[reap_nbatch++];
	memset(ls, 0, sizeof(*ls));
	strlcpy(ls->name, wl->name, sizeof(ls->name));
	ls->last_seen = mono_to_wall(wl->used);
	if (reap_nbatch == REAP_LASTSEEN_MAX)
		lastseen_flush();
}

/*
 * The last use of each workload, as the gateway reported it, to the store:
 * only what changed since the last tick, so a quiet host writes nothing.
 * The idle clock is not sent: it also restarts at a wake and at our start.
 */
static void
lastseen_send(void)
{
	struct reap_wl	*wl;
	size_t		 i;

	for (i = 0; i < tick_used.n; i++) {
		wl = tick_used.wl[i];
		if (wl->used == wl->sent)
			continue;
		wl->sent = wl->used;
		lastseen_add(wl);
	}
	lastseen_flush();
}

/* some avg10 now, in hundredths of a percent; -1 if it cannot be read */
static int32_t
psi_read(void)
{
	char	 buf[256];
	ssize_t	 n;
	int32_t	 avg10;

	if (lseek(reap_psi_fd, 0, SEEK_SET) == -1 ||
	    (n = read(reap_psi_fd, buf, sizeof(buf) - 1)) <= 0) {
		log_warn("%s", reap_psi_path);
		return (-1);
	}
	buf[n] = '\0';
	if (reaper_psi_parse(buf, &avg10) == -1) {
		log_warnx("%s: cannot read \"some avg10\"", reap_psi_path);
		return (-1);
	}
	return (avg10);
}

/* above the limit: runtimed suspends one idle workload a tick */
static void
pressure_tick(void)
{
	struct reap_pressure	 rp;
	char			 avg[16], lim[16];
	int32_t			 avg10;

	if (reap_pressure_limit <= 0 || reap_psi_fd == -1 ||
	    (avg10 = psi_read()) == -1)
		return;
	(void)fmt_percent(avg10, avg, sizeof(avg));
	(void)fmt_percent(reap_pressure_limit, lim, sizeof(lim));
	if (avg10 <= reap_pressure_limit) {
		if (reap_pressured)
			log_info("memory pressure: some avg10 %s, under the "
			    "limit %s again", avg, lim);
		reap_pressured = 0;
		return;
	}
	if (!reap_pressured)
		log_info("memory pressure: some avg10 %s above the limit %s: "
		    "suspending the least recently used idle workload, one a "
		    "tick", avg, lim);
	reap_pressured = 1;
	memset(&rp, 0, sizeof(rp));
	rp.avg10 = avg10;
	rp.limit = (int32_t)reap_pressure_limit;
	if (proc_compose(&reaper_ps, PROC_RUNTIME, IMSG_REAP_PRESSURE, 0, -1,
	    &rp, sizeof(rp)) == -1)
		log_warn("%s: compose", __func__);
}

/*
 * driver swarm: this orchd's last use of each workload goes to runtimed,
 * which writes it into the service's label org.orchd.seen.INSTANCE for
 * the other instances to see (driver_swarm.c).  Only what changed, once
 * a tick at most.  A request or tunnel still open is use going on: the
 * time sent is then now, but only every quarter of the idle timeout, so
 * that a long request does not cost the swarm a write every tick and
 * its label is never older than the idle timeout while it lasts.
 */
static void
seen_send(time_t now)
{
	static struct reap_lastseen	 batch[REAP_LASTSEEN_MAX];
	struct reap_wl			*wl;
	time_t				 seen, every;
	size_t				 n = 0, i;

	/* used since the last tick, or up with requests in flight */
	for (i = 0; i < tick_used.n + tick_up.n; i++) {
		wl = i < tick_used.n ? tick_used.wl[i] :
		    tick_up.wl[i - tick_used.n];
		if (!wl->swarm)
			continue;
		seen = wl->used;
		every = wl->idle_timeout / 4 > 0 ? wl->idle_timeout / 4 : 1;
		if ((wl->inflight != 0 || wl->upgraded != 0) &&
		    now - wl->seen_sent >= every)
			seen = now;
		if (seen <= wl->seen_sent)
			continue;
		wl->seen_sent = seen;
		memset(&batch[n], 0, sizeof(batch[n]));
		strlcpy(batch[n].name, wl->name, sizeof(batch[n].name));
		batch[n].last_seen = mono_to_wall(seen);
		if (++n < nitems(batch))
			continue;
		if (proc_compose(&reaper_ps, PROC_RUNTIME, IMSG_REAP_SEEN, 0,
		    -1, batch, n * sizeof(batch[0])) == -1)
			log_warn("%s: compose", __func__);
		n = 0;
	}
	if (n > 0 && proc_compose(&reaper_ps, PROC_RUNTIME, IMSG_REAP_SEEN,
	    0, -1, batch, n * sizeof(batch[0])) == -1)
		log_warn("%s: compose", __func__);
}

/*
 * "expire after": an API workload with no request for that long, from
 * its last one or from when we first had it (creation, orchd's start),
 * is proposed to the parent for deletion, which it decides.  Asked
 * again at most every EXPIRE_RETRY seconds while it stays due.
 */
#define EXPIRE_RETRY	60
static void
reaper_expire(struct reap_wl *wl, time_t now)
{
	struct reap_expire	 re;
	time_t			 since;

	if (wl->expire_after <= 0 || wl->inflight != 0 || wl->upgraded != 0)
		return;
	since = wl->used > wl->born ? wl->used : wl->born;
	if (now - since < wl->expire_after)
		return;
	if (wl->expire_sent != 0 && now - wl->expire_sent < EXPIRE_RETRY)
		return;
	wl->expire_sent = now;
	log_debug("%s: no request for %llds, expired", wl->name,
	    (long long)(now - since));
	memset(&re, 0, sizeof(re));
	strlcpy(re.name, wl->name, sizeof(re.name));
	re.last_seen = mono_to_wall(wl->used);
	re.secs = wl->expire_after;
	if (proc_compose(&reaper_ps, PROC_PARENT, IMSG_REAP_EXPIRE, 0, -1,
	    &re, sizeof(re)) == -1)
		log_warn("%s: compose", __func__);
}

static void
reaper_tick(int fd, short event, void *arg)
{
	struct reap_wl		*wl;
	struct reap_suspend	 rs;
	time_t			 now = monotime();
	size_t			 i;

	seen_send(now);
	lastseen_send();
	tick_used_clear();
	for (i = 0; i < tick_expiring.n; i++)
		reaper_expire(tick_expiring.wl[i], now);
	if (reap_off)
		return;
	pressure_tick();
	/*
	 * Only one that runs can be due, and it is up: held is cleared
	 * and set again among those; one that is not up may keep a stale
	 * mark, which nothing reads before it is up and cleared.
	 */
	for (i = 0; i < tick_up.n; i++)
		tick_up.wl[i]->held = 0;
	for (i = 0; i < tick_up.n; i++)
		reaper_hold(tick_up.wl[i]);
	for (i = 0; i < tick_up.n; i++) {
		wl = tick_up.wl[i];
		if (!reaper_due(wl, now))
			continue;
		log_debug("%s: idle for %llds, suspending", wl->name,
		    (long long)(now - wl->last_seen));
		/* asked every tick while it is idle: a busy veto holds */
		memset(&rs, 0, sizeof(rs));
		strlcpy(rs.name, wl->name, sizeof(rs.name));
		rs.idle_since = wl->last_seen + wl->idle_timeout;
		if (proc_compose(&reaper_ps, PROC_RUNTIME, IMSG_REAP_SUSPEND, 0,
		    -1, &rs, sizeof(rs)) == -1)
			log_warn("%s: compose", __func__);
	}
}

static void
reaper_recv_activity(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_activity	 act;
	struct reap_wl		*wl;
	const unsigned char	*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;
	uint32_t		 bit = 1U << iev->instance;

	for (off = 0; off < len; off += sizeof(act)) {
		memcpy(&act, p + off, sizeof(act));
		if ((wl = reap_find(act.name)) == NULL)
			continue;
		if (act.last_seen > wl->last_seen)
			wl->last_seen = act.last_seen;
		if (act.last_seen > wl->used) {
			wl->used = act.last_seen;
			tick_used_mark(wl);
		}
		if (act.inflight > 0)
			wl->inflight |= bit;
		else
			wl->inflight &= ~bit;
		if (act.upgraded > 0)
			wl->upgraded |= bit;
		else
			wl->upgraded &= ~bit;
	}
}

static void
reaper_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state	 st;
	struct reap_wl	*wl;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	if ((wl = reap_find(st.name)) == NULL)
		return;
	/* frozen: down, for the idle clock, as asleep */
	if ((st.state < WL_ASLEEP || st.state > WL_FAILED) &&
	    st.state != WL_FROZEN)
		return;
	/*
	 * since is on the wall clock, for the history; the idle clock
	 * takes now, monotonic: runtimed sends a change as it makes it
	 */
	reaper_state(wl, st.state, monotime());
	tick_up_sync(wl);
}

/*
 * A wrong API key at a gateway: counted against its client's address
 * for all the gateways, and the verdict sent back to the one that asked
 * (authlim.c says why here).  A gateway sends only TCP clients' ones.
 * Over the cap, every gateway is told, so that none of them looks at
 * that address's keys, a right one neither, until the window ends: the
 * cap then stops guessing instead of only the answers to wrong guesses.
 */
static void
reaper_recv_authfail(struct imsgev *iev, struct imsg *imsg)
{
	struct netaddr		 na;
	struct reap_authlimit	 rl;
	struct reap_authblock	 blk;
	int64_t			 wait;

	(void)imsg_get_data(imsg, &na, sizeof(na));
	if ((wait = authlim_fail(&reap_authlim, &na, monotime_ms())) == -1)
		fatalx("%s: address family %d", __func__, (int)na.af);
	memset(&rl, 0, sizeof(rl));
	if (wait > 0) {
		rl.limited = 1;
		rl.retry_after = (int32_t)((wait + 999) / 1000);
		memset(&blk, 0, sizeof(blk));
		(void)netaddr_client(&na, &blk.client);
		blk.ms = wait;
		if (proc_compose(&reaper_ps, PROC_GATEWAY, IMSG_REAP_AUTHBLOCK,
		    0, -1, &blk, sizeof(blk)) == -1)
			log_warn("%s: to the gateways", __func__);
	}
	if (imsgev_compose(iev, IMSG_REAP_AUTHLIMIT, imsg_get_id(imsg), -1, &rl,
	    sizeof(rl)) == -1)
		log_warn("%s: compose", __func__);
}

/* a login on some gateway: every gateway may now be asked about it */
static void
reaper_recv_sess_new(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess	 s;

	(void)imsg_get_data(imsg, &s, sizeof(s));
	uisess_add(&reap_uisess, &s, time(NULL));
	explicit_bzero(&s, sizeof(s));
}

/* a cookie a gateway does not know: the session, or found 0 */
static void
reaper_recv_sess_ask(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess_id	 q;
	struct ui_sess		 s;

	(void)imsg_get_data(imsg, &q, sizeof(q));
	(void)uisess_find(&reap_uisess, q.id, time(NULL), &s);
	if (imsgev_compose(iev, IMSG_REAP_SESS, imsg_get_id(imsg), -1, &s,
	    sizeof(s)) == -1)
		log_warn("%s: compose", __func__);
	explicit_bzero(&s, sizeof(s));
}

/* a logout: ended here, and forgotten by every gateway's cache */
static void
reaper_recv_sess_end(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess_id	 q;

	(void)imsg_get_data(imsg, &q, sizeof(q));
	(void)uisess_end(&reap_uisess, q.id);
	if (proc_compose(&reaper_ps, PROC_GATEWAY, IMSG_REAP_SESS_END, 0, -1,
	    &q, sizeof(q)) == -1)
		log_warn("%s: to the gateways", __func__);
}

/* a key changed at a reload (each gateway says so: the second is a no-op) */
static void
reaper_recv_sess_flush(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess_flush	 f;
	size_t			 n;

	(void)imsg_get_data(imsg, &f, sizeof(f));
	if ((n = uisess_flush(&reap_uisess, f.readonly)) > 0)
		log_info("status page: %zu %s sessions ended, their key "
		    "changed", n, f.readonly ? "read-only" : "full");
}

/*
 * orchctl keepwarm, now or as the store remembered it at start: it
 * overrides the configuration's keep warm until the workload is removed.
 * At start it may come before our own configuration: the name is kept
 * for reaper_apply, which drops it if it is not configured.
 */
static void
reaper_recv_keepwarm(struct imsgev *iev, struct imsg *imsg)
{
	struct ctl_keepwarm	 kw;
	struct reap_wl		*wl;

	(void)imsg_get_data(imsg, &kw, sizeof(kw));
	if ((wl = reap_find(kw.name)) == NULL)
		wl = reap_new(kw.name);
	wl->keep_warm = kw.on != 0;
	wl->warm_set = 1;
	log_debug("%s: keep warm %s", wl->name, wl->keep_warm ? "on" : "off");
}

/*
 * Access-log lines from a gateway, of configured workloads only (a line
 * may come just after a removal: it is not kept).
 */
static void
reaper_recv_alog_keep(struct imsgev *iev, struct imsg *imsg)
{
	struct alog_keep	 k;
	const uint8_t		*p = imsg->data;
	size_t			 len = imsg_get_len(imsg), off;

	for (off = 0; off + sizeof(k) <= len; off += sizeof(k)) {
		memcpy(&k, p + off, sizeof(k));
		if (k.len > sizeof(k.line) || reap_find(k.name) == NULL)
			continue;
		(void)alring_add(&reap_alring, k.name, k.start_ms, k.line,
		    k.len);
	}
}

/* the last lines of one workload, then END, to the gateway that asked */
static void
reaper_recv_alog_ask(struct imsgev *iev, struct imsg *imsg)
{
	const struct alring_line	*out[ALRING_PER_WL];
	struct alog_ask			 q;
	struct alog_keep		 k;
	size_t				 n, i;
	uint32_t			 id = imsg_get_id(imsg);

	(void)imsg_get_data(imsg, &q, sizeof(q));
	n = 0;
	if (q.limit > 0)
		n = alring_get(&reap_alring, q.name, (size_t)q.limit, out,
		    nitems(out));
	for (i = 0; i < n; i++) {
		memset(&k, 0, sizeof(k));
		(void)strlcpy(k.name, q.name, sizeof(k.name));
		k.len = out[i]->len;
		memcpy(k.line, out[i]->text, out[i]->len);
		if (imsgev_compose(iev, IMSG_REAP_ALOG_LINE, id, -1, &k,
		    sizeof(k)) == -1)
			log_warn("%s: compose", __func__);
	}
	q.kept = (int32_t)MINIMUM(reap_alring.lines, INT32_MAX);
	if (imsgev_compose(iev, IMSG_REAP_ALOG_END, id, -1, &q,
	    sizeof(q)) == -1)
		log_warn("%s: compose", __func__);
}

/* a gateway's minute of the host */
static void
reaper_recv_hostsample(struct imsgev *iev, struct imsg *imsg)
{
	struct host_sample	 s;

	(void)imsg_get_data(imsg, &s, sizeof(s));
	if (hosthist_add(&reap_hosthist, &s, time(NULL) / 60) == -1)
		log_debug("%s: a minute out of range", __func__);
}

/* the last day, to the gateway that asked, in one message */
static void
reaper_recv_hosthist_ask(struct imsgev *iev, struct imsg *imsg)
{
	static struct host_sample	 out[HOSTHIST_MINUTES];
	size_t				 n;

	n = hosthist_get(&reap_hosthist, time(NULL) / 60, out, nitems(out));
	if (imsgev_compose(iev, IMSG_REAP_HOSTHIST, imsg_get_id(imsg), -1,
	    out, n * sizeof(out[0])) == -1)
		log_warn("%s: compose", __func__);
}

static void
reap_free(struct reap_wl *wl)
{
	tick_forget(wl);
	alring_forget(&reap_alring, wl->name);
	free(wl->deps);
	free(wl);
}

/*
 * What each workload of gen depends on, as pointers: made after the
 * removals, from names every one of which gen has (the parent saw to it).
 */
static void
reaper_deps(struct cfg_generation *gen)
{
	struct workload_conf	*wc;
	const struct strentry	*e;
	struct reap_wl		*wl, *d;
	uint32_t		 n;

	TAILQ_FOREACH(wc, &gen->workloads, entry) {
		if ((wl = reap_find(wc->name)) == NULL)
			continue;
		free(wl->deps);
		wl->deps = NULL;
		wl->ndeps = 0;
		n = 0;
		TAILQ_FOREACH(e, &wc->depends, entry)
			n++;
		if (n == 0)
			continue;
		if ((wl->deps = calloc(n, sizeof(*wl->deps))) == NULL)
			fatal("%s", __func__);
		TAILQ_FOREACH(e, &wc->depends, entry)
			if ((d = reap_find(e->str)) != NULL && d != wl)
				wl->deps[wl->ndeps++] = d;
	}
}

/* one workload's settings, from its definition and gen's globals */
static void
reaper_set(struct cfg_generation *gen, struct workload_conf *wc)
{
	struct reap_wl	*wl;

	if ((wl = reap_find(wc->name)) == NULL)
		wl = reap_new(wc->name);
	else if (gen->delta)
		tick_expiring_drop(wl);
	wl->configured = 1;
	if (!wl->warm_set)
			wl->keep_warm = wc->keep_warm;
	wl->idle_timeout = wc->idle_timeout >= 0 ? wc->idle_timeout :
	    gen->global.idle_timeout;
	wl->swarm = wc->driver == DRIVER_SWARM;
	/* the file's workloads never expire; a change is asked anew */
	wl->expire_after = 0;
	wl->expire_sent = 0;
	if (wc->source == SOURCE_API)
		wl->expire_after = wc->expire_after >= 0 ?
		    wc->expire_after : gen->global.expire_after;
	if (wl->expire_after > 0)
		tick_expiring_add(wl);
}

/*
 * A delta (common/cfgrecv.c): the workloads gone are freed, those sent
 * set again; the others' state, idle clocks included, is not touched.
 * Their globals are the base's (cfgrecv.c refuses a delta otherwise).
 */
static void
reaper_apply_delta(struct cfg_generation *gen)
{
	struct workload_conf	*wc;
	struct reap_wl		*wl;
	uint32_t		 i;

	for (i = 0; i < gen->nremoved; i++) {
		if ((wl = reap_find(gen->removed[i])) == NULL)
			continue;
		tick_expiring_drop(wl);
		RB_REMOVE(reap_wls, &reap_wls, wl);
		reap_free(wl);
	}
	TAILQ_FOREACH(wc, &gen->workloads, entry)
		reaper_set(gen, wc);
}

static void
reaper_apply(struct privsep *ps, struct cfg_generation *gen,
    struct cfg_generation *old)
{
	struct workload_conf	*wc;
	struct reap_wl		*wl, *next;
	struct timeval		 tv;

	if (gen->delta)
		reaper_apply_delta(gen);
	else {
		RB_FOREACH(wl, reap_wls, &reap_wls)
			wl->configured = 0;
		tick_expiring_reset();
		TAILQ_FOREACH(wc, &gen->workloads, entry)
			reaper_set(gen, wc);
		RB_FOREACH_SAFE(wl, reap_wls, &reap_wls, next) {
			if (wl->configured)
				continue;
			RB_REMOVE(reap_wls, &reap_wls, wl);
			reap_free(wl);
		}
	}
	/* a delta's: its sent ones, whose names every one is kept or sent */
	reaper_deps(gen);
	reap_off = gen->global.reaper_off;
	if (reap_interval != gen->global.reaper_interval) {
		reap_interval = gen->global.reaper_interval;
		if (evtimer_initialized(&reap_tick_ev))
			evtimer_del(&reap_tick_ev);
		tv.tv_sec = reap_interval > 0 ? reap_interval :
		    ORCHD_REAPER_INTERVAL;
		tv.tv_usec = 0;
		event_set(&reap_tick_ev, -1, EV_PERSIST, reaper_tick, NULL);
		evtimer_add(&reap_tick_ev, &tv);
	}
	if (reap_off)
		log_info("reaper off: ORCHD_IDLE_TIMEOUT=0");
	reap_pressure_limit = gen->global.pressure_limit;
	/* without PSI, a limit can do nothing: said once */
	if (reap_pressure_limit > 0 && reap_psi_fd == -1 && !reap_psi_said) {
		errno = reap_psi_errno;
		log_warn("memory pressure limit: no pressure stall information "
		    "(%s): the limit is not enforced", reap_psi_path);
		reap_psi_said = 1;
	}
}

int
main(int argc, char *argv[])
{

	proc_title_init(argc, argv);
	/* before the chroot: a file of /proc the sandbox then only reads */
	if ((reap_psi_path = getenv("ORCHD_PSI_FILE")) == NULL ||
	    *reap_psi_path == '\0')
		reap_psi_path = REAP_PSI_FILE;
	if ((reap_psi_fd = open(reap_psi_path, O_RDONLY | O_CLOEXEC)) == -1)
		reap_psi_errno = errno;
	child_start(&reaper_ps, argc, argv, PROC_REAPER, reaper_handlers,
	    nitems(reaper_handlers), PRIVDROP_NONET);
	cfg_set_apply(reaper_apply);
	cfg_take_delta(NULL);
	authlim_init(&reap_authlim);
	uisess_init(&reap_uisess);
	alring_init(&reap_alring);
	hosthist_init(&reap_hosthist);
	/* reaper_apply keeps a name and two settings per workload */
	cfg_forget_workloads();
	sandbox_enter(proc_name(PROC_REAPER), SB_STDIO);
	event_dispatch();
	return (0);
}
