/*
 * Loading the configuration and handing it to the children.
 *
 * A configuration is sent as one transaction per child: RESET, GLOBAL,
 * one WORKLOAD per workload (its packed form), or to runtimed, the
 * store and the reaper at a reload only those that changed
 * (config_delta.c), the
 * gateway's own (the global ignores, listeners, TLS, the
 * API's), runtimed's own (the registry logins), DONE.  Each child builds
 * the new generation beside the old one and acknowledges; when every
 * child has, START makes it current everywhere at once.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "errpage.h"
#include "event_json.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "parent.h"
#include "proc.h"
#include "schedule.h"
#include "timer.h"
#include "units.h"
#include "util.h"
#include "workload.h"

static int	config_tls_load(struct orchd_conf *);
static void	config_pack(struct orchd_conf *);

/*
 * The file as confd reads it (confread.c), with what the environment
 * overrides: ORCHD_IDLE_TIMEOUT replaces the global idle timeout, 0
 * turning the reaper off (confd applies it, so that -nv prints it).  What
 * this host lacks (a workload's user, program, directory) is an error or
 * a warning as host_checks says (PARSE_HOST_*).  print: orchd -nv, confd
 * prints what it read.
 */
struct orchd_conf *
config_load(const char *file, int host_checks, int print)
{
	struct orchd_conf	*conf;
	const char		*env, *errstr;
	int64_t			 secs;

	secs = -1;
	if ((env = getenv("ORCHD_IDLE_TIMEOUT")) != NULL &&
	    parse_duration(env, &secs, &errstr) == -1) {
		log_warnx("ORCHD_IDLE_TIMEOUT=%s: %s", env, errstr);
		return (NULL);
	}
	if ((conf = confread(file, host_checks, print, secs)) == NULL)
		return (NULL);
	if (config_tls_load(conf) == -1) {
		free_config(conf);
		return (NULL);
	}
	/* the HTTP API's key: ORCHD_KEY, or the api key file, checked */
	if (apikey_load(conf) == -1) {
		free_config(conf);
		return (NULL);
	}
	/* the registry logins, for runtimed alone */
	if (regauth_load(conf) == -1) {
		free_config(conf);
		return (NULL);
	}
	/* a swarm manager's TLS credentials, for runtimed alone too */
	if (swarmcreds_load(conf) == -1) {
		free_config(conf);
		return (NULL);
	}
	config_pack(conf);
	return (conf);
}

/*
 * The definitions as the parser left them are a dozen allocations each,
 * scattered among the parser's own freed ones: each goes into one block,
 * which at 10,000 workloads is megabytes less.
 */
static void
config_pack(struct orchd_conf *conf)
{
	struct workload_conf	*wc, *next, *n;

	TAILQ_FOREACH_SAFE(wc, &conf->workloads, entry, next) {
		if ((n = workload_pack(wc)) == NULL)
			fatal("%s", __func__);
		TAILQ_INSERT_BEFORE(wc, n, entry);
		TAILQ_REMOVE(&conf->workloads, wc, entry);
		workload_free(wc);
	}
}

/*
 * TLS certificates and keys are read here, by the parent, as root: the
 * gateway's chroot holds no key file and the gateway could not read one.
 * They are read at start and at every reload (so a renewed certificate
 * is picked up by SIGHUP), checked by the gateway program (keycheck.c),
 * passed to the gateway as bytes and then forgotten.
 */
static uint8_t *
tls_file_read(const char *path, size_t *lenp)
{
	struct stat	 st;
	uint8_t		*buf = NULL;
	ssize_t		 n;
	size_t		 off = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		log_warn("%s", path);
		return (NULL);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    st.st_size > ORCHD_TLS_FILE_MAX) {
		log_warnx("%s: not a regular file of 1 to %d bytes", path,
		    ORCHD_TLS_FILE_MAX);
		goto fail;
	}
	if ((buf = malloc(st.st_size)) == NULL) {
		log_warn("%s", __func__);
		goto fail;
	}
	while (off < (size_t)st.st_size) {
		if ((n = read(fd, buf + off, st.st_size - off)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0) {
			log_warnx("%s: short read", path);
			goto fail;
		}
		off += n;
	}
	close(fd);
	*lenp = off;
	confsame_parent_read(path, buf, off);
	return (buf);
 fail:
	freezero(buf, off);
	close(fd);
	return (NULL);
}

/* the same files as an earlier keypair: one workload, several hosts */
static int
keypair_repeated(const struct orchd_conf *conf, const struct keypair_conf *kp)
{
	const struct keypair_conf	*o;

	TAILQ_FOREACH(o, &conf->keypairs, entry) {
		if (o == kp)
			return (0);
		if (strcmp(o->cert, kp->cert) == 0 &&
		    strcmp(o->key, kp->key) == 0)
			return (1);
	}
	return (0);
}

static int
config_tls_load(struct orchd_conf *conf)
{
	struct listener_conf	*l;
	struct keypair_conf	*kp;
	int			 ntls = 0, nkeys = 0;

	TAILQ_FOREACH(l, &conf->listeners, entry) {
		if (!l->tls)
			continue;
		ntls++;
		if (l->tls_cert == NULL)
			continue;	/* "tls acme" alone */
		nkeys++;
		if ((l->tls_cert_mem = tls_file_read(l->tls_cert,
		    &l->tls_cert_len)) == NULL ||
		    (l->tls_key_mem = tls_file_read(l->tls_key,
		    &l->tls_key_len)) == NULL)
			return (-1);
	}
	TAILQ_FOREACH(kp, &conf->keypairs, entry) {
		if (ntls == 0) {
			log_warnx("tls keypair for %s: no tls listener",
			    kp->host);
			break;
		}
		if (keypair_repeated(conf, kp))
			continue;
		nkeys++;
		if ((kp->cert_mem = tls_file_read(kp->cert,
		    &kp->cert_len)) == NULL ||
		    (kp->key_mem = tls_file_read(kp->key,
		    &kp->key_len)) == NULL)
			return (-1);
	}
	/* checked by the gateway program: the parent maps no libtls */
	if (nkeys > 0 && keycheck(conf) == -1)
		return (-1);
	return (0);
}

static void
tls_send(struct orchd *env, enum cfg_tls_what what, uint32_t listener,
    const uint8_t *data, size_t len)
{
	struct cfg_tls	 hdr;
	struct iovec	 iov[2];
	size_t		 off, n;

	memset(&hdr, 0, sizeof(hdr));
	hdr.what = what;
	hdr.listener = listener;
	hdr.total = len;
	for (off = 0; off < len; off += n) {
		n = MINIMUM(len - off, ORCHD_TLS_CHUNK);
		hdr.off = off;
		iov[0].iov_base = &hdr;
		iov[0].iov_len = sizeof(hdr);
		iov[1].iov_base = (void *)(data + off);
		iov[1].iov_len = n;
		if (proc_composev(&env->ps, PROC_GATEWAY, IMSG_CFG_TLS, 0,
		    iov, 2) == -1)
			fatal("%s: compose", __func__);
	}
}

/*
 * After the listeners: each TLS listener's own keypair, then the SNI
 * keypairs.  The parent keeps the bytes with the configuration (an API
 * change sends the running configuration again without reading the
 * files); free_config() zeroes them.
 */
static void
config_tls_send(struct orchd *env)
{
	struct listener_conf	*l;
	struct keypair_conf	*kp;
	uint32_t		 n = 0;

	TAILQ_FOREACH(l, &env->conf->listeners, entry) {
		if (l->tls_cert_mem != NULL) {
			tls_send(env, CFG_TLS_LISTENER_CERT, n,
			    l->tls_cert_mem, l->tls_cert_len);
			tls_send(env, CFG_TLS_LISTENER_KEY, n,
			    l->tls_key_mem, l->tls_key_len);
		}
		n++;
	}
	TAILQ_FOREACH(kp, &env->conf->keypairs, entry) {
		if (kp->cert_mem == NULL)
			continue;
		tls_send(env, CFG_TLS_SNI_CERT, 0, kp->cert_mem,
		    kp->cert_len);
		tls_send(env, CFG_TLS_SNI_KEY, 0, kp->key_mem, kp->key_len);
	}
}

static uint32_t
config_count(const struct orchd_conf *conf)
{
	return (pdef_count(conf, NULL));
}

/*
 * acmed (PROC_ACME, the last) takes no part in the transaction: it is
 * sent its own settings alone (acme_relay.c), never a workload.
 */

/*
 * One transaction to every child, interleaved: each definition is made
 * into JSON once and composed to each child in turn, which keeps each
 * channel's order (RESET, GLOBAL, WORKLOAD..., the gateway's own, DONE).
 */
static void
config_compose_all(struct orchd *env, uint32_t type, const void *data,
    size_t len)
{
	int	 id;

	for (id = PROC_PARENT + 1; id < PROC_ACME; id++)
		if (proc_compose(&env->ps, id, type, 0, -1, data, len) == -1)
			fatal("%s: compose to %s", __func__, proc_name(id));
}

/* the global "ignore" rules, to the gateways alone */
static void
config_ignores_send(struct orchd *env)
{
	const struct ignore_rule	*r;
	struct cfg_ignore		 ci;

	TAILQ_FOREACH(r, &env->conf->ignores, entry) {
		memset(&ci, 0, sizeof(ci));
		ci.kind = r->kind;
		ci.answer = r->answer;
		if (strlcpy(ci.pattern, r->pattern, sizeof(ci.pattern)) >=
		    sizeof(ci.pattern))
			fatalx("%s: ignore %s too long", __func__, r->pattern);
		if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_IGNORE, 0,
		    -1, &ci, sizeof(ci)) == -1)
			fatal("%s: compose", __func__);
	}
}

/*
 * The password files of "auth basic", to the gateways alone: each file
 * read with this configuration, then its users, as checked records.
 */
static void
config_htpasswd_send(struct orchd *env)
{
	const struct htfile	*f;
	struct cfg_htfile	 hf;
	size_t			 i;

	TAILQ_FOREACH(f, &env->conf->htfiles, entry) {
		memset(&hf, 0, sizeof(hf));
		if (strlcpy(hf.path, f->path, sizeof(hf.path)) >=
		    sizeof(hf.path))
			fatalx("%s: %s too long", __func__, f->path);
		hf.nusers = f->nusers;
		if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_HTFILE, 0,
		    -1, &hf, sizeof(hf)) == -1)
			fatal("%s: compose", __func__);
		for (i = 0; i < f->nusers; i++)
			if (proc_compose(&env->ps, PROC_GATEWAY,
			    IMSG_CFG_HTUSER, 0, -1, &f->users[i],
			    sizeof(f->users[i])) == -1)
				fatal("%s: compose", __func__);
	}
}

/*
 * The pages of "error page", to the gateways alone: each file as confd
 * read it and the parent checked it, then the global entries; a
 * workload's entries travel in its definition.
 */
static void
config_pages_send(struct orchd *env)
{
	const struct errpage_file	*p;
	const struct strentry		*e;
	struct cfg_errpage		 ep;
	struct cfg_page			 cp;
	struct iovec			 iov[2];
	const char			*path;

	TAILQ_FOREACH(p, &env->conf->pages, entry) {
		memset(&cp, 0, sizeof(cp));
		(void)strlcpy(cp.path, p->path, sizeof(cp.path));
		iov[0].iov_base = &cp;
		iov[0].iov_len = sizeof(cp);
		iov[1].iov_base = p->data;
		iov[1].iov_len = p->len;
		if (proc_composev(&env->ps, PROC_GATEWAY, IMSG_CFG_PAGE, 0,
		    iov, 2) == -1)
			fatal("%s: compose", __func__);
	}
	TAILQ_FOREACH(e, &env->conf->error_pages, entry) {
		memset(&ep, 0, sizeof(ep));
		if (errpage_entry_split(e->str, &ep.status, &path) == -1)
			fatalx("%s: %s", __func__, e->str);
		(void)strlcpy(ep.path, path, sizeof(ep.path));
		if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_ERRPAGE, 0,
		    -1, &ep, sizeof(ep)) == -1)
			fatal("%s: compose", __func__);
	}
}

/*
 * "memory budget auto": MemAvailable less a reserve, read once, at the
 * first load: by a reload, what runs already would be missing from it.
 * 0 if it cannot be read, which is no budget, said once.
 */
static int64_t
config_budget_auto(void)
{
	static int64_t	 bytes = -1;
	FILE		*f;
	char		 line[128];
	long long	 kb;

	if (bytes != -1)
		return (bytes);
	bytes = 0;
	if ((f = fopen("/proc/meminfo", "re")) == NULL) {
		log_warn("memory budget auto: /proc/meminfo");
		return (bytes);
	}
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1 && kb > 0) {
			bytes = kb * 1024 / 100 * (100 - ORCHD_BUDGET_RESERVE);
			break;
		}
	fclose(f);
	if (bytes == 0)
		log_warnx("memory budget auto: no MemAvailable, no budget");
	else
		log_info("memory budget auto: %lld MiB, MemAvailable less %d%%",
		    (long long)(bytes / (1024 * 1024)), ORCHD_BUDGET_RESERVE);
	return (bytes);
}

/*
 * One definition to every child, packed (common/workload_wire.c).  An
 * API container's uid (run_uid) goes to runtimed alone, which gives it
 * to Docker: not kept here, nor by the store, which writes back the
 * definitions it is sent, nor shown by the gateways, so that the
 * definition the API reads is the one it may send.
 */
static void
config_workload_send(struct orchd *env, struct workload_conf *wl)
{
	void	*def, *rdef = NULL;
	size_t	 len, rlen = 0;
	char	 err[256];

	/* its group's schedules, however it was made (common/sched_wl.c) */
	if (sched_group_fill(wl, &env->conf->group_scheds) == -1)
		fatal("%s: workload %s", __func__, wl->name);
	/* the rules of the zones its schedules name, which no child reads */
	if (sched_zones_fill(wl, err, sizeof(err)) == -1)
		log_warnx("workload %s: %s: its schedules in that zone are not "
		    "kept", wl->name, err);
	if ((def = workload_wire(wl, &len)) == NULL)
		fatalx("%s: workload %s", __func__, wl->name);
	if ((wl->run_uid = identity_run_uid(env, wl)) != -1) {
		rdef = workload_wire(wl, &rlen);
		wl->run_uid = -1;
		if (rdef == NULL)
			fatalx("%s: workload %s", __func__, wl->name);
	}
	/* to each child, or kept by those that have it (config_delta.c) */
	config_delta_workload(env, wl->name, def, len,
	    rdef != NULL ? rdef : def, rdef != NULL ? rlen : len);
	if (rdef == NULL)
		pdef_sent(wl, def, len);
	strlist_free(&wl->zones);
	strlist_free(&wl->group_windows);
	strlist_free(&wl->group_wakes);
	free(rdef);
	free(def);
}

/*
 * One at rest (pdef.c), as it was sent: a plain definition of the file,
 * whose group, schedules and uid config_workload_send() would not fill
 */
static void
config_rest_send(struct orchd *env, const struct wl_rest *r)
{
	void	*def;
	size_t	 len;

	if ((def = workload_zip_wire(r->zip, &len)) == NULL)
		fatalx("%s: workload %s", __func__, r->name);
	config_delta_workload(env, r->name, def, len, def, len);
	free(def);
}

void
config_send(struct orchd *env)
{
	struct global_settings	 gs;
	struct workload_conf	*wl;
	const struct wl_rest	*r;
	const struct strentry	*e;
	uint32_t		 gen;
	int			 id;

	gen = ++env->generation;
	env->cfg_acks = 0;
	for (id = PROC_PARENT + 1; id < PROC_ACME; id++)
		env->cfg_acks += proc_instances(&env->ps, id);

	memset(&gs, 0, sizeof(gs));
	gs.idle_timeout = env->conf->idle_timeout;
	gs.reaper_interval = env->conf->reaper_interval;
	gs.wake_timeout = env->conf->wake_timeout;
	gs.api_metrics_public = env->conf->api_metrics_public;
	gs.metrics_top = env->conf->metrics_top;
	gs.status_page = env->conf->status_page;
	gs.status_session = env->conf->status_session > 0 ?
	    env->conf->status_session : ORCHD_STATUS_SESSION;
	gs.verbose = env->verbose;
	gs.reaper_off = env->conf->reaper_off;
	gs.gateway = env->conf->gateway;
	gs.tunnel_idle = env->conf->tunnel_idle;
	gs.server_timing = env->conf->server_timing;
	gs.on_change = env->conf->on_change;
	gs.health_interval = env->conf->health_interval;
	gs.health_timeout = env->conf->health_timeout;
	gs.health_failures = env->conf->health_failures;
	gs.pull = env->conf->pull;
	gs.docker_labels = env->conf->docker_labels;
	gs.pull_timeout = env->conf->pull_timeout;
	gs.expire_after = env->conf->expire_after;
	gs.access_log = env->conf->access_log != NULL ||
	    env->conf->access_log_syslog;
	gs.access_log_format = env->conf->access_log_format;
	gs.memory_budget = env->conf->memory_budget == -1 ?
	    config_budget_auto() : env->conf->memory_budget;
	gs.memory_estimate = env->conf->memory_estimate;
	gs.max_wakes = env->conf->max_wakes;
	gs.freeze = env->conf->freeze;
	gs.pressure_limit = env->conf->pressure_limit;
	gs.lim_dflt = env->conf->lim_dflt;
	gs.lim_max = env->conf->lim_max;
	gs.ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	instance_name(env->conf, gs.instance, sizeof(gs.instance));
	/* ROOT/INSTANCE: where usecheck.c makes this instance's volumes */
	if ((e = TAILQ_FIRST(&env->conf->api_allow_volumes)) != NULL &&
	    volume_root_instance(e->str, gs.instance, gs.volume_root,
	    sizeof(gs.volume_root)) == -1)
		gs.volume_root[0] = '\0';

	config_compose_all(env, IMSG_CFG_RESET, &gen, sizeof(gen));
	config_compose_all(env, IMSG_CFG_GLOBAL, &gs, sizeof(gs));
	config_delta_begin(env, gen, config_count(env->conf), &gs);
	TAILQ_FOREACH(wl, &env->conf->workloads, entry)
		config_workload_send(env, wl);
	TAILQ_FOREACH(r, &env->conf->rest, entry)
		config_rest_send(env, r);
	config_delta_end(env);
	/* sent: what no code here walks by its fields goes small */
	pdef_rest(env->conf);
	config_ignores_send(env);
	config_htpasswd_send(env);
	config_pages_send(env);
	listeners_send(env);
	accesslog_send(env);
	config_tls_send(env);
	api_config_send(env);
	regauth_send(env);
	swarmcreds_send(env);
	acme_config_send(env);
	hook_config_send(env);
	config_compose_all(env, IMSG_CFG_DONE, &gen, sizeof(gen));
	log_debug("configuration %u sent", gen);
}

void
config_recv_done(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct proc_asker	 asker;	/* orchctl reload's connection */
	uint32_t		 gen;
	int			 id;

	(void)imsg_get_data(imsg, &gen, sizeof(gen));
	/* one replaced by a full one, when a delta was refused */
	if (config_delta_stale(gen))
		return;
	if (gen != env->generation || env->cfg_acks <= 0)
		fatalx("%s acknowledged configuration %u, expected %u",
		    proc_name(iev->peer), gen, env->generation);
	if (--env->cfg_acks > 0)
		return;
	for (id = PROC_PARENT + 1; id < PROC_ACME; id++)
		if (proc_compose(&env->ps, id, IMSG_CFG_START, 0, -1, &gen,
		    sizeof(gen)) == -1)
			fatal("%s: compose", __func__);
	env->ps.generation = gen;
	env->ps.workloads = config_count(env->conf);
	log_info("configuration %u active, %u workload%s", gen,
	    env->ps.workloads, env->ps.workloads == 1 ? "" : "s");
	/* the first configuration at start, or a reload's, is running */
	if (env->notify_wait) {
		env->notify_wait = 0;
		notify_ready();
	}
	if (env->reload_conn != 0) {
		memset(&asker, 0, sizeof(asker));
		asker.peer = PROC_CLIENT;
		asker.id = env->reload_conn;
		(void)proc_reply_ok(&env->ps, &asker);
		env->reload_conn = 0;
	}
	/* the file's, at start or a reload: not an API change's */
	if (env->status_due) {
		env->status_due = 0;
		config_status(env, 1);
	}
	/* an API change waited for this generation, or to send its own */
	api_config_active(env);
	/* every child has read it: the sent copies and the old one are freed */
	heap_trim();
}

/*
 * A load of the configuration succeeded (applied by every child) or was
 * refused: the gateways show it in /metrics, with orchd's start.
 */
void
config_status(struct orchd *env, int ok)
{
	struct ctl_event	 ev;
	int64_t			 now = walltime_ms();

	env->status.reload_ok = ok;
	if (ok)
		env->status.reload_ms = now;
	if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_STATUS, 0, -1,
	    &env->status, sizeof(env->status)) == -1)
		log_warn("%s: compose", __func__);
	/* and orchctl monitor; the gateways make their own of the above */
	event_reload(&ev, ok, now);
	control_event(&ev);
	hook_event(env, &ev);
}
