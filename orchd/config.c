/*
 * Loading the configuration and handing it to the children.
 *
 * A configuration is sent as one transaction per child: RESET, GLOBAL,
 * one WORKLOAD per workload (its JSON form, the same one the API and the
 * store use), DONE.  Each child builds the new generation beside the old
 * one and acknowledges; when every child has, START makes it current
 * everywhere at once.
 */

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parent.h"

/*
 * parse_config() plus what the environment overrides: ORCHD_IDLE_TIMEOUT
 * replaces the global idle timeout, 0 turning the reaper off.
 */
struct orchd_conf *
config_load(const char *file)
{
	struct orchd_conf	*conf;
	const char		*env, *errstr;
	int64_t			 secs;

	if ((conf = parse_config(file, log_getverbose())) == NULL)
		return (NULL);
	if ((env = getenv("ORCHD_IDLE_TIMEOUT")) != NULL) {
		if (parse_duration(env, &secs, &errstr) == -1) {
			log_warnx("ORCHD_IDLE_TIMEOUT=%s: %s", env, errstr);
			free_config(conf);
			return (NULL);
		}
		conf->idle_timeout = secs;
		/* 0 turns the reaper off, workloads' own timeouts too */
		conf->reaper_off = (secs == 0);
	}
	return (conf);
}

static uint32_t
config_count(const struct orchd_conf *conf)
{
	const struct workload_conf	*wl;
	uint32_t			 n = 0;

	TAILQ_FOREACH(wl, &conf->workloads, entry)
		n++;
	return (n);
}

static void
config_send_child(struct orchd *env, enum privsep_procid id)
{
	struct privsep		*ps = &env->ps;
	struct global_settings	 gs;
	struct workload_conf	*wl;
	char			*json;
	uint32_t		 gen = env->generation;

	memset(&gs, 0, sizeof(gs));
	gs.idle_timeout = env->conf->idle_timeout;
	gs.reaper_interval = env->conf->reaper_interval;
	gs.wake_timeout = env->conf->wake_timeout;
	gs.api_metrics_public = env->conf->api_metrics_public;
	gs.verbose = env->verbose;
	gs.reaper_off = env->conf->reaper_off;

	if (proc_compose(ps, id, IMSG_CFG_RESET, 0, -1, &gen,
	    sizeof(gen)) == -1 ||
	    proc_compose(ps, id, IMSG_CFG_GLOBAL, 0, -1, &gs,
	    sizeof(gs)) == -1)
		fatal("%s: compose", __func__);
	TAILQ_FOREACH(wl, &env->conf->workloads, entry) {
		if ((json = workload_to_json(wl)) == NULL)
			fatalx("%s: workload %s", __func__, wl->name);
		if (proc_compose(ps, id, IMSG_CFG_WORKLOAD, 0, -1, json,
		    strlen(json)) == -1)
			fatal("%s: workload %s", __func__, wl->name);
		free(json);
	}
	if (id == PROC_GATEWAY)
		listeners_send(env);
	if (proc_compose(ps, id, IMSG_CFG_DONE, 0, -1, &gen,
	    sizeof(gen)) == -1)
		fatal("%s: compose", __func__);
}

void
config_send(struct orchd *env)
{
	int	 id;

	env->generation++;
	env->cfg_acks = 0;
	for (id = PROC_PARENT + 1; id < PROC_MAX; id++) {
		config_send_child(env, id);
		env->cfg_acks++;
	}
	log_debug("configuration %u sent", env->generation);
}

void
config_recv_done(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	uint32_t	 gen;
	int		 id;

	(void)imsg_get_data(imsg, &gen, sizeof(gen));
	if (gen != env->generation || env->cfg_acks <= 0)
		fatalx("%s acknowledged configuration %u, expected %u",
		    proc_name(iev->peer), gen, env->generation);
	if (--env->cfg_acks > 0)
		return;
	for (id = PROC_PARENT + 1; id < PROC_MAX; id++)
		if (proc_compose(&env->ps, id, IMSG_CFG_START, 0, -1, &gen,
		    sizeof(gen)) == -1)
			fatal("%s: compose", __func__);
	env->ps.generation = gen;
	env->ps.workloads = config_count(env->conf);
	log_info("configuration %u active, %u workloads", gen,
	    env->ps.workloads);
	if (env->reload_conn != 0) {
		control_reply(env->reload_conn, IMSG_CTL_OK, NULL, 0);
		env->reload_conn = 0;
	}
}
