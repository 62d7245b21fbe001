/*
 * The parent process's own state, shared by its files.
 */

#ifndef ORCHD_PARENT_H
#define ORCHD_PARENT_H

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "compat.h"
#include "imsg.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "conf.h"
#include "users.h"

/* a child process of ours: one of the daemons, not a workload */
struct child {
	enum privsep_procid	 id;
	int			 instance;	/* of a gateway */
	pid_t			 pid;		/* 0 once reaped */
	int			 lost;		/* its channel was lost */
};
#define CHILDREN_MAX		(PROC_MAX - 2 + ORCHD_PREFORK_MAX)

struct orchd {
	struct privsep		 ps;
	struct orchd_conf	*conf;
	const char		*conffile;
	char			 self[PATH_MAX];	/* our executable */
	int			 debug;
	int			 verbose;
	struct child		 children[CHILDREN_MAX];
	int			 nchildren;
	int			 nready;
	int			 shutting_down;
	/* the configured user's ids, given to each child as numbers */
	uid_t			 uid;
	gid_t			 gid;

	/* the configuration transaction under way, if any */
	uint32_t		 generation;
	int			 cfg_acks;	/* children yet to ack */
	uint32_t		 reload_conn;	/* control conn waiting, or 0 */
	/* READY=1 to systemd once the generation sent is active */
	int			 notify_wait;

	/* for the gateways' /metrics (IMSG_CFG_STATUS) */
	struct cfg_status	 status;
	int			 status_due;	/* the file's load under way */
};

extern struct orchd	*orchd_env;

/* hook_relay.c: notifyd's settings, events and counters */
void		 hook_prepare(struct orchd *);
const char	*hook_root(void);
void		 hook_config_send(struct orchd *);
void		 hook_state(struct orchd *, const struct rt_state *);
void		 hook_event(struct orchd *, const struct ctl_event *);
void		 hook_cert_failed(struct orchd *, const struct acme_status *);
void		 hook_expired(struct orchd *, const char *, int64_t);
void		 hook_recv_stats(struct imsgev *, struct imsg *);

/* acme_relay.c: acmed's directories, certificates and messages */
void		 acme_prepare(struct orchd *);
const char	*acme_root(struct orchd *, char *, size_t);
void		 resolver_root(struct orchd *, const char *, char *, size_t);
void		 acme_config_send(struct orchd *);
int		 acme_host_ok(const char *);
int		 acme_host_routes(const struct orchd_conf *, const char *);
const char	*acme_check_challenge(const struct orchd_conf *, const void *,
		    size_t, int);
const char	*acme_check_cert(const struct orchd_conf *, const void *,
		    size_t);
const char	*acme_check_status(const struct orchd_conf *, const void *,
		    size_t);
void		 acme_recv_want(struct imsgev *, struct imsg *);
void		 acme_recv_challenge(struct imsgev *, struct imsg *);
void		 acme_recv_cert(struct imsgev *, struct imsg *);
void		 acme_recv_status(struct imsgev *, struct imsg *);
void		 acme_ctl_show(struct imsgev *, struct imsg *);
void		 acme_ctl_renew(struct imsgev *, struct imsg *);

/* orchd.c */
int		 parent_reload(struct orchd *, uint32_t, char *, size_t);
void		 parent_set_verbose(struct orchd *, int);
int		 parent_children_alive(struct orchd *);
__dead void	 parent_lost(struct orchd *);
void		 helper_path(struct orchd *, const char *, char *, size_t);

/* pdef.c: the running configuration's definitions, small at rest */
struct pdef_iter {
	const struct orchd_conf	*conf;
	struct workload_conf	*wc;		/* in full, or */
	struct wl_rest		*r;		/* at rest, */
	struct workload_conf	*tmp;		/* ... expanded */
};
void		 pdef_sent(const struct workload_conf *, const void *, size_t);
void		 pdef_rest(struct orchd_conf *);
struct workload_conf *pdef_find(const struct orchd_conf *, const char *,
		    struct workload_conf **);
int		 pdef_exists(const struct orchd_conf *, const char *);
void		 pdef_expand(struct orchd_conf *, const char *);
uint32_t	 pdef_count(const struct orchd_conf *, size_t *);
struct workload_conf *pdef_first(struct pdef_iter *,
		    const struct orchd_conf *);
struct workload_conf *pdef_next(struct pdef_iter *);
void		 pdef_end(struct pdef_iter *);

/* config.c */
struct orchd_conf *config_load(const char *, int, int);

/* confread.c: orchd.conf, read by confd */
struct orchd_conf *confread(const char *, int, int, int64_t);
int		 confread_macro(const char *);
int		 confread_table_check(char *, size_t);
int		 confread_unchanged(void);

/* confsame.c: the running configuration's inputs, for a reload */
struct imsgbuf;
struct conf_digest;
struct conf_input;
int		 confsame_ask(struct imsgbuf *, const struct orchd_conf *);
const char	*confsame_take_digest(const struct conf_digest *);
const char	*confsame_take_input(const struct conf_input *);
void		 confsame_commit(int);
void		 confsame_parent_read(const char *, const void *, size_t);
int		 confsame_parent_same(void);
void		 confsame_forget(void);
void		 config_send(struct orchd *);
void		 config_recv_done(struct imsgev *, struct imsg *);
void		 config_status(struct orchd *, int);
void		 config_delta_begin(struct orchd *, uint32_t, uint32_t,
		    const struct global_settings *);
void		 config_delta_workload(struct orchd *, const char *,
		    const void *, size_t, const void *, size_t);
void		 config_delta_end(struct orchd *);
int		 config_delta_stale(uint32_t);
void		 config_recv_resend(struct imsgev *, struct imsg *);

/* printconf.c */

/* notify.c: systemd's NOTIFY_SOCKET */
void		 notify_init(void);
void		 notify_ready(void);
void		 notify_reloading(void);
void		 notify_stopping(void);
void		 notify_recv_counts(struct imsgev *, struct imsg *);

/* statedir.c: systemd's StateDirectory=, the socket's directory */
void		 statedir_take(const char *, uid_t, gid_t);
int		 statedir_database(const char *, const char *, uid_t, gid_t,
		    int, char *, size_t);
void		 statedir_socket(const char *);

/* instances.c: the orchd instances of this host */
void		 instance_name(const struct orchd_conf *, char *, size_t);
void		 instances_start(struct orchd *);
void		 instances_daemonized(void);
int		 instances_check(int64_t, int64_t, char *, size_t);
void		 instances_commit(int64_t, int64_t);
const char	*instances_self(void);

/* keycheck.c: TLS keypairs, checked by gatewayd -n */
int		 keycheck(struct orchd_conf *);

/* control.c */
void		 control_init(const char *);
void		 control_listen(struct orchd *);
void		 control_cleanup(const char *);
void		 control_check(const char *);
void		 control_forward(struct imsgev *, struct imsg *);
void		 control_show_summary(struct imsgev *, struct imsg *);
void		 control_reload(struct imsgev *, struct imsg *);
void		 control_version(struct imsgev *, struct imsg *);
void		 control_verbose(struct imsgev *, struct imsg *);
void		 control_logs(struct imsgev *, struct imsg *);
void		 control_show_definition(struct imsgev *, struct imsg *);
void		 control_change(struct imsgev *, struct imsg *);
void		 control_log_reopen(struct imsgev *, struct imsg *);

/* reload.c: what a reload reports to orchctl */
void		 reload_begin(uint32_t);
void		 reload_capture_start(void);
void		 reload_capture_stop(void);
void		 reload_flush(int);
void		 reload_restart(const char *);
void		 reload_unchanged(const char *, uint32_t);
int		 reload_as_file(void);
void		 reload_diff(struct orchd_conf *, struct orchd_conf *);
void		 control_monitor(struct imsgev *, struct imsg *);
void		 control_recv_state(struct imsgev *, struct imsg *);
void		 control_event(const struct ctl_event *);

/* listen.c */
int		 listeners_bind(struct orchd_conf *, struct orchd_conf *,
		    char *, size_t);
void		 listeners_close(struct orchd_conf *, struct orchd_conf *);
/* sockact.c */
int		 sockacts_bind(struct orchd_conf *, struct orchd_conf *,
		    char *, size_t);
void		 sockacts_close(struct orchd_conf *, struct orchd_conf *);
const struct sockact *sockact_find(const struct orchd_conf *,
		    const char *);
void		 sockact_flush(const struct orchd_conf *, const char *);
void		 listeners_send(struct orchd *);
int		 listener_bind(struct listener_conf *);

/* api_listen.c: an API workload's own TCP listeners ("listen") */
int		 api_listen_is(const struct orchd_conf *,
		    const struct listener_conf *);
int		 api_listen_bind(struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);
void		 api_listen_drop(struct orchd_conf *, const char *);
void		 api_listen_move(struct orchd_conf *, struct orchd_conf *,
		    const char *);

/*
 * request.c: the parent's requests in flight, which its children answer
 * under the request's id, and which are relayed to whoever asked
 */
struct request {
	TAILQ_ENTRY(request)	 entry;
	uint32_t		 id;		/* peerid to the children */
	struct proc_asker	 asker;		/* whom the answers go to */
	uint32_t		 from;		/* PROC_FROM() of those asked */
	int			 waiting;	/* ENDs still expected */
	uint32_t		 last;		/* or items of this type */
	unsigned int		 items;		/* relayed so far */
	char			 name[ORCHD_NAME_MAX]; /* asked for, or "" */
	/* at the last END, to answer instead of relaying it */
	void			(*end)(struct request *);
	/* when the asker leaves: frees what hangs off it, and it */
	void			(*cancel)(struct request *);
	void			*data;		/* logs.c's reader */
};
struct request	*request_new(const struct proc_asker *);
void		 request_free(struct request *);
int		 request_send(struct request *, enum privsep_procid, int,
		    uint32_t, const void *, size_t);
int		 request_busy(const struct proc_asker *);
void		 request_cancel(const struct proc_asker *);
void		 request_recv(struct imsgev *, struct imsg *);

/* logs.c: orchctl logs, answered by the parent */
void		 logs_start(const struct proc_asker *, const struct ctl_logs *);

/* logfiles.c: the access log and the process workloads' logs */
int		 accesslog_open(const struct orchd_conf *, char *, size_t);
void		 accesslog_abort(void);
void		 accesslog_commit(void);
void		 accesslog_init(void);
void		 accesslog_send(struct orchd *);
int		 wlog_start(struct orchd *, const char *, int, uid_t, gid_t, int,
		    char *, size_t);
void		 wlog_flush(const char *);
int		 logfiles_reopen(char *, size_t);
void		 logfiles_shutdown(void);

/* spawn.c: process workloads, started and stopped for runtimed */
void		 spawn_request(struct imsgev *, struct imsg *);
void		 spawn_kill(struct imsgev *, struct imsg *);
void		 spawn_freeze(struct imsgev *, struct imsg *);
void		 spawn_exited(const struct sp_exit *);
void		 spawn_shutdown(struct orchd *);
uint32_t	 spawn_count(void);
int		 spawn_uid(const struct workload_conf *, uid_t *);

/*
 * spawner.c: the parent's half of "orchd: spawner" (spawnerd/), the
 * process that forks and execs the workloads and the keypair check,
 * exec'd at start; its messages are in msg.h
 */
void		 spawner_start(struct orchd *, char *const [],
		    void (*)(const struct sp_exit *));
int		 spawner_table_check(char *, size_t);
pid_t		 spawner_pid(void);
int		 spawner_running(void);
int		 spawner_reaped(pid_t, int);
int		 spawner_exec(const struct sp_exec *, char *const [],
		    char *const [], const char *, int *, int,
		    struct sp_started *);
pid_t		 spawner_helper(uint32_t, int);
pid_t		 spawner_volrm(const struct sp_volrm *);
int		 spawner_helper_wait(pid_t, int, int *);
void		 spawner_kill(pid_t, int);
int		 spawner_freeze(pid_t, int);
int		 spawner_drain(int);

/* identity.c: the uids of process workloads that name no user */
void		 identity_load_start(struct orchd *);
void		 identity_recv_entry(struct imsgev *, struct imsg *);
void		 identity_recv_load_end(struct imsgev *, struct imsg *);
int		 identity_get(struct orchd *, const char *, uid_t *, char *,
		    size_t);
int64_t		 identity_run_uid(struct orchd *,
		    const struct workload_conf *);
/* an API container's uid when "workload uids" has none free: (uid_t)-2 */
#define ORCHD_UID_NOBODY	4294967294U
int		 identity_find(const char *, uid_t *);

/* owner.c: whose are the listeners on a workload's address */
void		 owner_request(struct imsgev *, struct imsg *);

/* apidef.c: a definition from a child, packed, read and judged */
struct workload_conf *api_def_unpack(const void *, size_t, int *, char *,
		    size_t);
struct workload_conf *api_def_read(const struct orchd_conf *, const void *,
		    size_t, int *, char *, size_t);
/* parent_api.c: the HTTP API's workloads, and orchctl's changes to them */
void		 api_recv_create(struct imsgev *, struct imsg *);
void		 api_recv_delete(struct imsgev *, struct imsg *);
void		 api_recv_update(struct imsgev *, struct imsg *);
void		 api_recv_expire(struct imsgev *, struct imsg *);
void		 api_ctl_create(struct orchd *, const struct proc_asker *,
		    struct imsg *);
void		 api_ctl_update(struct orchd *, const struct proc_asker *,
		    struct imsg *);
void		 api_ctl_delete(struct orchd *, const struct proc_asker *,
		    const char *, int);
void		 api_ctl_keep(struct orchd *, const struct proc_asker *,
		    const char *);
void		 api_recv_logs_stop(struct imsgev *, struct imsg *);
void		 api_recv_stored(struct imsgev *, struct imsg *);
void		 api_recv_definition(struct imsgev *, struct imsg *);
void		 api_recv_load_end(struct imsgev *, struct imsg *);
void		 api_recv_metrics_ask(struct imsgev *, struct imsg *);
void		 api_recv_logs(struct imsgev *, struct imsg *);
void		 api_load_start(struct orchd *);
void		 api_config_active(struct orchd *);
int		 api_volumes_exited(struct orchd *, pid_t, int);
void		 api_config_send(struct orchd *);
int		 api_reload_check(const struct orchd_conf *,
		    const struct orchd_conf *, char *, size_t);
/* apihost.c */
int		 api_host_taken(const struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);
void		 api_reload_keep(struct orchd_conf *, struct orchd_conf *);
void		 api_label_add(struct orchd *, struct workload_conf *,
		    const struct rt_label *);
void		 api_label_drop(struct orchd *, const char *);

/* labels.c: "docker labels on", containers made by someone else */
struct rt_label;
void		 labels_recv(struct imsgev *, struct imsg *);
void		 labels_recv_gone(struct imsgev *, struct imsg *);
/* labelfacts.c: what was seen of them */
const struct rt_label *labels_facts(const char *);
int		 labels_keep(const struct rt_label *);
void		 labels_forget(const char *);

/* depends.c: "depends on" across the file's and the API's workloads */
int		 depends_check_new(const struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);
int		 depends_dependents(const struct orchd_conf *, const char *,
		    char *, size_t);
int		 depends_reload_check(const struct orchd_conf *,
		    const struct orchd_conf *, char *, size_t);
void		 depends_prune(struct orchd_conf *);

/* apikey.c: the API's bearer key */
#define APIKEY_HEX_MIN	32	/* 128 bits of hex digits */
#define APIKEY_B64_MIN	22	/* ... of base64 */
int		 apikey_load(struct orchd_conf *);
int		 apikey_strong(const uint8_t *, size_t, const char **);
void		 apikey_send(struct orchd *);
struct stat;
int		 secretfile_check(const char *, const char *,
		    const struct stat *);

/* regauth.c: the registry logins, for runtimed alone */
#define REGAUTH_FILE_MAX	(64 * 1024)
int		 regauth_load(struct orchd_conf *);
char		*regauth_convert(const char *, size_t, const char *, char *,
		    size_t);
int		 regauth_host(const char *, char *, size_t);
void		 regauth_send(struct orchd *);
/* groupexpire.c */
int		 group_expire_ready(const struct orchd_conf *,
		    const struct workload_conf *);

/* swarmcreds.c */
int		 swarmcreds_load(struct orchd_conf *);
void		 swarmcreds_send(struct orchd *);
int		 swarmcreds_tls(const struct orchd_conf *);
void		 swarmcreds_reload(struct orchd_conf *);

/* usecheck.c: checked where used, before each container create and start */
void		 usecheck_request(struct imsgev *, struct imsg *);

/* voldir.c: volumes at the moment of use */
int		 voldir_make(const char *, const char *, const char *,
		    const char *, uid_t, uid_t, char *, size_t);
int		 hostpath_at_use(const char *, const struct orchd_conf *,
		    char *, size_t);

/* policy_net.c: where an API workload may point */
int		 policy_api_net(const struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);
int		 policy_api_listens(const struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);

/* policy.c: what a workload may be, and what the API may create */
int		 policy_check(const struct orchd_conf *,
		    const struct workload_conf *, char *, size_t);
int		 policy_api_open(const struct orchd_conf *, char *, size_t);

#endif /* ORCHD_PARENT_H */
