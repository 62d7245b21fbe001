/*
 * The message catalogue: every message orchd's processes send each other,
 * grouped by topic, each type with its sender -> receiver and payload,
 * the payloads (plain structs of fixed-size fields), and the versions of
 * both protocols.  Read this first: it is the map of who talks to whom.
 */

#ifndef ORCHD_MSG_H
#define ORCHD_MSG_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>

#include "workload.h"
#include "wlimits.h"

/* the control protocol's version, carried in peerid of every request */
#define ORCHD_CTL_VERSION	6
/* the internal protocol's version, checked when a child says it is ready */
#define ORCHD_IMSG_VERSION	22

/* IMSG_CFG_APIKEY's peerid: which key it carries */
#define APIKEY_API	0		/* the API's, full rights */
#define APIKEY_STATUS	1		/* "status key file": read-only */

/* the child's end of its channel to the parent */
#define PROC_PARENT_FD		3

/* internal channels carry whole workload definitions: allow more */
#define ORCHD_IMSG_MAXSIZE	(256 * 1024)

enum privsep_procid {
	PROC_PARENT = 0,
	PROC_STORE,
	PROC_GATEWAY,
	PROC_REAPER,
	PROC_RUNTIME,
	PROC_ACME,		/* acmed: the parent's peer alone, and no
				   configuration but its own (IMSG_ACME_CONF) */
	PROC_NOTIFY,		/* notifyd: likewise (IMSG_NOTIFY_CONF) */
	PROC_MAX
};

/*
 * "prefork": gateway processes sharing the listeners.  An answer to one
 * goes back on the channel its request came in on (struct proc_asker,
 * common/proc.h).
 */
#define ORCHD_PREFORK_MAX	32

/*
 * A workload's address, IPv4 or IPv6: 28 bytes, not a sockaddr_storage's
 * 128 for each of thousands of workloads.  ss_family reads the family as
 * in a sockaddr_storage: on Linux (no sa_len) every sockaddr starts with
 * it, so code written for one works unchanged.
 */
union wl_addr {
	sa_family_t		 ss_family;
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
};

/* the gateway's limits, as the children are told them */
#define ORCHD_TRUSTED_MAX	32	/* trusted proxy networks */
#define ORCHD_TLS_FILE_MAX	(1024 * 1024)	/* a certificate or key file */
#define ORCHD_TLS_CHUNK		(16 * 1024)	/* PEM bytes per message */

/* swarm: "instance name", in the service label org.orchd.seen.NAME */
#define ORCHD_INSTANCE_MAX	64		/* NUL included */

/* a listener's HTTP/2: by ALPN on TLS, by its preface on cleartext */
#define LISTENER_H2_ON		0	/* TLS: offered; cleartext: no */
#define LISTENER_H2_OFF		1
#define LISTENER_H2_PRIOR	2	/* cleartext: the preface accepted */

/* a client address or network: "trusted proxy" */
struct netaddr {
	int32_t			 af;		/* AF_INET, AF_INET6 */
	int32_t			 prefix;	/* bits */
	uint8_t			 addr[16];	/* network byte order */
};

/* the gateway's timeouts (seconds) and connection limits */
struct gateway_conf {
	int64_t			 header_timeout;
	int64_t			 body_timeout;
	int64_t			 connect_timeout;
	int64_t			 upstream_timeout;
	int64_t			 keepalive_timeout;
	int64_t			 max_conns;	/* 0: from RLIMIT_NOFILE */
	int64_t			 max_conns_addr; /* 0: no limit */
	int64_t			 prefork;	/* gateway processes */
	int32_t			 ntrusted;
	struct netaddr		 trusted[ORCHD_TRUSTED_MAX];
	int64_t			 h2_max_streams; /* per connection */
};

/*
 * The global settings as the children need them, plain data so that it
 * crosses processes as one fixed-size message.
 */
struct global_settings {
	int64_t			 idle_timeout;
	int64_t			 reaper_interval;
	int64_t			 wake_timeout;
	int			 api_metrics_public;
	int			 verbose;
	int			 reaper_off;	/* ORCHD_IDLE_TIMEOUT=0 */
	struct gateway_conf	 gateway;
	int64_t			 tunnel_idle;	/* seconds; 0: never */
	int32_t			 server_timing;
	int32_t			 pad;
	/* liveness, for the workloads that do not set their own */
	int64_t			 health_interval;
	int64_t			 health_timeout;
	int64_t			 health_failures;
	int64_t			 pull_timeout;	/* seconds */
	int32_t			 pull;		/* enum workload_pull */
	int32_t			 on_change;	/* enum workload_on_change */
	int64_t			 expire_after;	/* API workloads; 0: never */
	int32_t			 access_log;	/* the gateways log requests */
	int32_t			 access_log_format; /* enum access_log_format */
	int64_t			 memory_budget;	/* bytes, auto worked out;
						   0: none */
	int64_t			 memory_estimate;
	int64_t			 max_wakes;	/* 0: no cap */
	int64_t			 pressure_limit; /* hundredths of a percent */
	int64_t			 freeze;	/* "suspend freeze for": seconds,
						   0: stop, never frozen */
	char			 instance[ORCHD_INSTANCE_MAX]; /* never "" */
	/* "api allow volume": where the API's volumes are; "" none */
	char			 volume_root[ORCHD_VOLROOT_MAX];
	/* "status page": /ui/ on the API's listeners, and its sessions */
	int32_t			 status_page;
	int32_t			 status_pad;
	int64_t			 status_session; /* seconds */
	/* limits: the defaults, the API's maximums, the host's CPUs */
	struct wl_limits	 lim_dflt;
	struct wl_limits	 lim_max;
	int64_t			 ncpu;
	int32_t			 docker_labels;	/* "docker labels on" */
	int32_t			 labels_pad;
	/* "metrics per workload": 0 every one's series, -1 none, N the
	   N with the most requests; the rest summed as workload="_other" */
	int32_t			 metrics_top;
	int32_t			 metrics_pad;
};

/*
 * The message catalogue: who sends what is said beside each type.
 *
 * To add a message:
 * 1. its type at the end of its topic's block below, never between
 *    others: the numbers of the rest stay as they are;
 * 2. its payload, a plain struct below with fixed-size fields only (a
 *    name first, as char name[ORCHD_NAME_MAX], if it is about one
 *    workload);
 * 3. a row in the table of each receiving process, in its main .c file
 *    (struct proc_handler, common/proc.h): the type, the length
 *    (sizeof the struct; PROC_ANYLEN for what has its own decoder; with
 *    PROC_RECORDS or PROC_RECORDS1 for an array of records), the senders
 *    (PROC_FROM(PROC_x), PROC_FROM_CLIENT for orchctl), the handler, and
 *    PROC_NAME(struct x) if the payload begins with a name, so that the
 *    handler gets it terminated (regress/e2e/tables.sh checks this);
 *    one row per type and sender, a different handler for another
 *    sender being another row;
 * 4. bump ORCHD_IMSG_VERSION, or ORCHD_CTL_VERSION for the orchctl
 *    block: processes, or orchctl and orchd, from different builds
 *    must refuse each other.
 */
enum imsg_type {
	IMSG_NONE = 0,

	/*
	 * orchctl <-> parent.  Stable numbers: orchctl and orchd may come
	 * from different builds.  Bump ORCHD_CTL_VERSION on any change.
	 */
	IMSG_CTL_OK = 100,		/* reply: done */
	IMSG_CTL_FAIL,			/* reply: struct ctl_result */
	IMSG_CTL_END,			/* ends a multi-part reply */
	IMSG_CTL_VERBOSE,		/* int level; fanned out to all */
	IMSG_CTL_RELOAD,		/* re-read the config file */
	IMSG_CTL_SHOW_SUMMARY,		/* -> every process */
	IMSG_CTL_SUMMARY,		/* reply item: struct ctl_summary */
	IMSG_CTL_SHOW_WORKLOADS,	/* -> store; ctl_name: "" for all */
	IMSG_CTL_WORKLOAD,		/* reply item: struct ctl_workload */
	IMSG_CTL_SHOW_HISTORY,		/* -> store: struct ctl_name */
	IMSG_CTL_HISTORY,		/* reply item: struct ctl_transition */
	IMSG_CTL_SHOW_STATS,		/* -> store */
	IMSG_CTL_STATS,			/* reply item: struct ctl_stats */
	IMSG_CTL_WAKE,			/* -> runtime: struct ctl_name */
	IMSG_CTL_SUSPEND,		/* -> runtime: struct ctl_name */
	IMSG_CTL_KEEPWARM,		/* -> runtime: struct ctl_keepwarm */
	IMSG_CTL_LOGS,			/* -> parent: struct ctl_logs */
	IMSG_CTL_LOGDATA,		/* reply item: bytes of the log */
	/*
	 * New at the end, so no bump: an orchd without it drops the
	 * request as a broken one, and orchctl says the connection closed.
	 */
	IMSG_CTL_SHOW_VERSION,		/* -> parent */
	IMSG_CTL_VERSION,		/* reply: struct ctl_version */
	IMSG_CTL_STORE_QUEUE,		/* reply item to SHOW_SUMMARY, from
					   the store: struct st_queue_stats */
	IMSG_CTL_SHOW_DEFINITION,	/* -> parent: struct ctl_name */
	IMSG_CTL_DEFINITION,		/* reply item: the workload, packed
					   (workload_wire), env values left
					   out; orchctl writes its JSON */
	IMSG_CTL_RELOADINFO,		/* reply item: struct ctl_reload */
	IMSG_CTL_MONITOR,		/* -> parent: send the events */
	IMSG_CTL_EVENT,			/* item: struct ctl_event, for as
					   long as the connection lasts */
	IMSG_CTL_PULL,			/* -> runtime: struct ctl_name */
	IMSG_CTL_PULLING,		/* reply item: struct ctl_pull, before
					   the OK or FAIL */
	IMSG_CTL_CREATE,		/* -> parent: a definition packed
					   (workload_wire) by orchctl from
					   its JSON, as the API's POST; OK
					   or FAIL */
	IMSG_CTL_UPDATE,		/* -> parent: the same, the whole
					   new definition of an API one */
	IMSG_CTL_DELETE,		/* -> parent: struct ctl_name */
	IMSG_CTL_KEEP,			/* -> parent: struct ctl_name, never
					   expire it */
	IMSG_CTL_LOG_REOPEN,		/* -> parent: the log files, again */
	IMSG_CTL_RESTART,		/* -> runtime: struct ctl_name */
	IMSG_CTL_BUDGET,		/* reply item to SHOW_STATS, from the
					   runtime: struct rt_budget */
	IMSG_CTL_DEPENDENT,		/* reply item to SHOW_DEFINITION,
					   before the definition: struct
					   ctl_name, a workload depending
					   on it */
	IMSG_CTL_ALOG_QUEUE,		/* reply item to SHOW_SUMMARY, from
					   the first gateway: struct
					   alog_queue_stats */
	IMSG_CTL_MAINT,			/* -> runtime: struct ctl_maint */
	IMSG_CTL_DELETE_VOLUMES,	/* -> parent: struct ctl_name, a
					   delete that removes its API
					   volumes too (spawnerd/volrm.c) */
	IMSG_CTL_SHOW_PAGE,		/* -> store: struct ctl_page, the
					   workloads after a name, at most
					   limit, in name order */

	/* process plumbing, parent <-> children */
	IMSG_PROC_PEER = 200,		/* fd + struct proc_peer */
	IMSG_PROC_READY,		/* child -> parent: uint32 version */

	/*
	 * parent <-> spawner (spawnerd/), on its two channels: the parent
	 * asks on the request channel and waits for the answer there; the
	 * spawner reports its workloads' exits on the event channel.
	 */
	IMSG_SP_FD = 1200,		/* parent -> spawner: one fd of the
					   next EXEC, the log's first */
	IMSG_SP_EXEC,			/* parent -> spawner: struct
					   sp_exec, argv, envp, dir */
	IMSG_SP_KEYCHECK,		/* parent -> spawner: the socket of a
					   TLS keypair check to start */
	IMSG_SP_KILL,			/* parent -> spawner: struct sp_kill */
	IMSG_SP_STARTED,		/* spawner -> parent: struct
					   sp_started, on the request channel */
	IMSG_SP_EXITED,			/* spawner -> parent: struct sp_exit;
					   a workload's on the event channel,
					   a keypair check's on the request
					   channel */
	IMSG_SP_READY,			/* spawner -> parent, on the event
					   channel: uint32 version */
	IMSG_SP_CONFD,			/* parent -> spawner: the socket of a
					   confd to start (a reload) */
	IMSG_SP_FREEZE,			/* parent -> spawner: struct
					   sp_freeze, a workload's cgroup */
	IMSG_SP_FROZEN,			/* spawner -> parent: struct
					   sp_freeze, on the request channel */
	IMSG_SP_VOLRM,			/* parent -> spawner: struct
					   sp_volrm, answered STARTED; its
					   exit on the event channel */

	/* configuration, parent -> children, as one transaction */
	IMSG_CFG_RESET = 300,		/* a new generation starts */
	IMSG_CFG_GLOBAL,		/* struct global_settings */
	IMSG_CFG_WORKLOAD,		/* a workload, packed
					   (workload_wire) */
	IMSG_CFG_LISTENER,		/* fd + struct ctl_listener */
	IMSG_CFG_DONE,			/* parent: end; child: applied */
	IMSG_CFG_START,			/* every child applied: go */
	IMSG_CFG_TLS,			/* -> gateway: struct cfg_tls and
					   a piece of a PEM file */
	IMSG_CFG_STATUS,		/* parent -> gateways: struct
					   cfg_status, after each load or
					   refused reload; for /metrics */
	IMSG_CFG_IGNORE,		/* parent -> gateway, in every config
					   transaction: struct cfg_ignore,
					   one global "ignore" */
	IMSG_CFG_REGAUTH,		/* parent -> runtime alone, in a
					   config transaction: the registry
					   logins as JSON, empty for none;
					   absent: keep the last ones */
	IMSG_CFG_ACCESSLOG,		/* parent -> gateways, in a config
					   transaction while the access log
					   is on: the fd of its pipe */
	IMSG_CFG_SWARM,			/* parent -> runtime alone, in a
					   config transaction: struct
					   cfg_swarm and its files, empty
					   for the local socket */
	IMSG_CFG_DELTA,			/* parent -> gateways, runtime, after
					   GLOBAL: struct cfg_delta, this
					   generation is the base's with the
					   KEEPs and WORKLOADs that follow */
	IMSG_CFG_KEEP,			/* parent -> gateways, runtime, in a
					   delta: struct cfg_keep, a run of
					   the base's definitions kept */
	IMSG_CFG_RESEND,		/* child -> parent, for DONE: uint32_t,
					   the delta of that generation was
					   refused; send a full one */
	/*
	 * A new configuration message goes above this comment.  These two
	 * keep the numbers they had among the API's messages: a new number
	 * would change the protocol for nothing.
	 */
	IMSG_CFG_APIKEY = 704,		/* parent -> gateway, in a config
					   transaction: the key, empty for
					   none; absent: keep the last one */
	IMSG_CFG_APIHOST,		/* parent -> gateway, in every config
					   transaction: one "api host" */

	/*
	 * The request path and the lifecycle, the three workers' own
	 * conversation: here the prefix names the sender (GW_, RT_, REAP_),
	 * so that a row of a receiver's table says who speaks.
	 */
	IMSG_GW_WAKE = 400,		/* gateway -> runtime: struct gw_wake */
	IMSG_RT_STATE,			/* runtime -> gateway, reaper, store,
					   parent: struct rt_state */
	IMSG_GW_ACTIVITY,		/* gateway -> reaper: struct
					   gw_activity[], batched */
	IMSG_REAP_SUSPEND,		/* reaper -> runtime: struct
					   reap_suspend */
	IMSG_RT_DRAIN,			/* runtime -> gateway: struct wl_ref,
					   park new requests, say if idle */
	IMSG_GW_DRAINED,		/* gateway -> runtime: struct
					   gw_drained */
	/* GET /metrics with several gateways: the others' counts */
	IMSG_GW_METRICS_ASK,		/* gateway -> parent; peerid: the
					   asker's request id */
	IMSG_GW_METRICS_EXPECT,		/* parent -> asker: uint32_t, how
					   many gateways will answer */
	IMSG_GW_METRICS_DUMP,		/* parent -> the other gateways;
					   peerid: the parent's request */
	IMSG_GW_METRICS_WL,		/* gateway -> parent -> asker:
					   struct gw_metrics_wl[] */
	IMSG_GW_METRICS_TOTAL,		/* gateway -> parent -> asker:
					   struct gw_metrics_total, last */
	/* a wrong API key, counted for every gateway by the reaper */
	IMSG_GW_AUTHFAIL,		/* gateway -> reaper: struct netaddr,
					   the client; peerid: request id */
	IMSG_REAP_AUTHLIMIT,		/* reaper -> gateway: struct
					   reap_authlimit, same peerid */
	IMSG_GW_REFUSED,		/* gateway -> runtime: struct wl_ref,
					   a running workload refused a
					   connection: is it still there? */
	IMSG_RT_WAIT,			/* runtime -> gateway: struct rt_wait,
					   a wake goes on longer (a pull) */
	IMSG_REAP_EXPIRE,		/* reaper -> parent: struct
					   reap_expire, no request for its
					   expire after: delete it? */
	IMSG_RT_ROUTE,			/* runtime -> gateway: struct
					   rt_route, where its instance
					   listens, before it is running */
	IMSG_RT_HOLD,			/* runtime -> gateway: struct wl_ref,
					   park new requests, GW_HELD once
					   none is in flight to it */
	IMSG_GW_HELD,			/* gateway -> runtime: struct wl_ref,
					   after RT_HOLD or a retiring
					   RT_ROUTE: none in flight */
	/* the memory budget; IMSG_GW_ACTIVITY goes to the runtime too */
	IMSG_REAP_PRESSURE,		/* reaper -> runtime: struct
					   reap_pressure, above the limit */
	IMSG_RT_BUDGET,			/* runtime -> gateway: struct
					   rt_budget, when it changes */
	IMSG_REAP_SEEN,			/* reaper -> runtime: struct
					   reap_lastseen[], swarm workloads'
					   last use, for their service */
	IMSG_REAP_AUTHBLOCK,		/* reaper -> every gateway: struct
					   reap_authblock, an address over
					   the cap of wrong keys */
	IMSG_ALOG_QUEUE,		/* parent -> every gateway: struct
					   alog_queue_stats, when it changes */
	/* the status page's sessions, held by the reaper (reaperd/uisess.c) */
	IMSG_GW_SESS_NEW,		/* gateway -> reaper: struct ui_sess,
					   a login */
	IMSG_GW_SESS_ASK,		/* gateway -> reaper: struct
					   ui_sess_id; peerid: request id */
	IMSG_REAP_SESS,			/* reaper -> gateway: struct
					   ui_sess, same peerid; found 0:
					   none */
	IMSG_GW_SESS_END,		/* gateway -> reaper: struct
					   ui_sess_id, a logout */
	IMSG_REAP_SESS_END,		/* reaper -> every gateway: struct
					   ui_sess_id, forget it */
	IMSG_GW_SESS_FLUSH,		/* gateway -> reaper: struct
					   ui_sess_flush, a key changed */
	IMSG_GW_PROCSTAT,		/* parent -> the asker of
					   IMSG_GW_METRICS_ASK, before the
					   EXPECT: struct gw_procstat[] */
	/* each workload's last access-log lines (reaperd/alring.c) */
	IMSG_GW_ALOG_KEEP,		/* gateway -> reaper: struct
					   alog_keep[] */
	IMSG_GW_ALOG_ASK,		/* gateway -> reaper: struct alog_ask;
					   peerid: request id */
	IMSG_REAP_ALOG_LINE,		/* reaper -> gateway: struct alog_keep,
					   same peerid, oldest first */
	IMSG_REAP_ALOG_END,		/* reaper -> gateway: struct alog_ask,
					   same peerid, the last */
	/* the host's figures over the last day (reaperd/hosthist.c) */
	IMSG_GW_HOSTSAMPLE,		/* gateway -> reaper: struct
					   host_sample, each minute */
	IMSG_GW_HOSTHIST_ASK,		/* gateway -> reaper: nothing;
					   peerid: request id */
	IMSG_REAP_HOSTHIST,		/* reaper -> gateway: struct
					   host_sample[], same peerid */

	/* process workloads: runtime decides, the parent forks and kills */
	IMSG_RT_SPAWN = 500,		/* runtime -> parent: struct wl_ref */
	IMSG_RT_SPAWNED,		/* parent -> runtime: struct rt_proc */
	IMSG_RT_KILL,			/* runtime -> parent: struct rt_kill */
	IMSG_RT_EXITED,			/* parent -> runtime: struct rt_proc */
	IMSG_RT_COUNTS,			/* runtime -> parent: struct
					   rt_counts, for systemd's STATUS */
	IMSG_RT_PURGE,			/* parent -> runtime: struct rt_purge,
					   an expired workload's container
					   and, unused, its image to remove */
	IMSG_RT_USE,			/* runtime -> parent: struct rt_use,
					   before each container create and
					   start: may it be, now? */
	IMSG_RT_USED,			/* parent -> runtime: struct rt_used,
					   the answer */
	IMSG_RT_OWNER_ASK,		/* runtime -> parent: struct
					   rt_owner_ask, whose are the
					   listeners on a workload's address
					   (orchd/owner.c) */
	IMSG_RT_OWNER,			/* parent -> runtime: struct
					   rt_owner, the answer */
	IMSG_RT_FREEZE,			/* runtime -> parent: struct
					   rt_freeze, freeze or thaw a
					   process workload's cgroup */
	IMSG_RT_FROZEN,			/* parent -> runtime: struct
					   rt_freeze, done (ok 1) or not */
	IMSG_RT_LABEL,			/* runtime -> parent: struct
					   rt_label and a packed workload,
					   a labelled container seen */
	IMSG_RT_UNLABEL,		/* runtime -> parent: struct wl_ref,
					   its container is gone */

	/*
	 * What the store keeps, and gives back at start: one prefix for
	 * the topic, whoever sends.
	 */
	IMSG_ST_LASTSEEN = 600,		/* reaper -> store: struct
					   reap_lastseen[], batched */
	IMSG_ST_RESTORE,		/* store -> runtime: struct st_restore,
					   once per workload at start */
	IMSG_ST_RESTORE_DONE,		/* store -> runtime: all were sent */
	IMSG_ST_KEEPWARM,		/* runtime -> store: struct
					   ctl_keepwarm, to persist; and
					   -> reaper, at start too */
	IMSG_ST_MEMORY,			/* runtime -> store: struct rt_memory,
					   measured before a stop (the parent
					   measures a process for runtime);
					   store -> gateways once written
					   (/metrics) */
	IMSG_ST_UID_LOAD,		/* parent -> store: the workloads'
					   uids, at start */
	IMSG_ST_UID_ENTRY,		/* store -> parent: struct wl_uid */
	IMSG_ST_UID_LOAD_END,		/* store -> parent: all were sent */
	IMSG_ST_UID_PUT,		/* parent -> store: struct wl_uid,
					   a new allocation to record */
	IMSG_ST_QUEUE,			/* store -> gateway: struct
					   st_queue_stats, when it changes */
	IMSG_ST_DRIFT,			/* runtime -> store: struct rt_drift,
					   when a workload's drift changes */
	IMSG_ST_JOB,			/* runtime -> store: struct rt_job,
					   a job's success, to persist */
	IMSG_ST_MAINT,			/* runtime -> store: struct
					   ctl_maint, to persist */
	IMSG_ST_RESTORE_NONE,		/* store -> runtime: the database
					   had no workload's row at start:
					   no restore row will come */

	/*
	 * The HTTP API.  The gateway's requests carry its own request id
	 * in peerid, and so do the answers; it also sends IMSG_CTL_SHOW_*
	 * to the store, IMSG_CTL_WAKE, _SUSPEND, _KEEPWARM to the runtime
	 * and IMSG_CTL_LOGS to the parent, answered as for orchctl.
	 */
	IMSG_API_CREATE = 700,		/* gateway -> parent: a definition,
					   packed (workload_wire) */
	IMSG_API_DELETE,		/* gateway -> parent: struct ctl_name */
	IMSG_API_RESULT,		/* parent -> gateway: struct
					   api_result */
	IMSG_API_LOGS_STOP,		/* gateway -> parent: client left */
	/* 704, 705: IMSG_CFG_APIKEY, IMSG_CFG_APIHOST (configuration) */
	IMSG_API_LOAD = 706,		/* parent -> store: the API's
					   workloads, at start */
	IMSG_API_DEFINITION,		/* store -> parent: one, packed */
	IMSG_API_LOAD_END,		/* store -> parent: all were sent */
	IMSG_API_PUT,			/* parent -> store: packed, insert
					   or replace an API workload */
	IMSG_API_DROP,			/* parent -> store: struct ctl_name */
	IMSG_API_STORED,		/* store -> parent: struct ctl_result,
					   code 0 once written */
	IMSG_API_EXPIRE,		/* parent -> store: struct reap_expire,
					   drop it, its history kept;
					   answered IMSG_API_STORED */
	IMSG_API_UPDATE,		/* gateway -> parent: struct
					   api_update, then the packed
					   definition */
	IMSG_API_DELETE_VOLUMES,	/* gateway -> parent: struct
					   ctl_name, its volumes too */

	/*
	 * ACME (RFC 8555): acmed alone holds the account key and talks to
	 * the ACME server; the parent relays, checks every field, and
	 * stores what acmed issued (0600, under the state directory).
	 * The gateways answer the challenges and hold the handshakes.
	 */
	IMSG_ACME_CONF = 1300,		/* parent -> acmed: struct acme_conf,
					   then ca_len bytes of PEM; at start
					   and at each reload */
	IMSG_ACME_HAVE,			/* parent -> acmed: struct acme_cert,
					   then its chain (no key): one stored
					   certificate, for its renewal */
	IMSG_ACME_WANT,			/* gateway -> parent -> acmed: struct
					   acme_host, a handshake for a routed
					   host that has no certificate */
	IMSG_ACME_RENEW,		/* parent -> acmed: struct acme_host,
					   orchctl renew */
	IMSG_ACME_CHALLENGE,		/* acmed -> parent -> gateways: struct
					   acme_challenge, then cert_len and
					   key_len bytes (tls-alpn-01) */
	IMSG_ACME_CHALLENGE_END,	/* acmed -> parent -> gateways: struct
					   acme_challenge alone: forget it */
	IMSG_ACME_CERT,			/* acmed -> parent, then parent ->
					   gateways: struct acme_cert, then
					   chain_len bytes of chain, key_len
					   of key, PEM */
	IMSG_ACME_FAILED,		/* acmed -> parent -> gateways: struct
					   acme_status: the issuance failed,
					   held handshakes end */
	IMSG_ACME_STATUS,		/* acmed -> parent -> gateways: struct
					   acme_status, one a host, at each
					   change (orchctl, /metrics); parent
					   -> orchctl: the answer to SHOW */
	IMSG_ACME_SHOW,			/* orchctl -> parent: show
					   certificates (orchctl renew is
					   IMSG_ACME_RENEW, struct acme_host) */

	/*
	 * The gate's password files (auth basic): read by the parent from
	 * the operator's files at each load, sent to the gateways in the
	 * config transaction, as records.
	 */
	IMSG_CFG_HTFILE = 1400,		/* parent -> gateways: struct
					   cfg_htfile, a file, then its
					   users */
	IMSG_CFG_HTUSER,		/* parent -> gateways: struct
					   cfg_htuser, a user of the last
					   file */

	/*
	 * parent <-> confd (confd/), on the socket of one reading of
	 * orchd.conf: the parent asks (MACRO..., READ); confd answers with
	 * its LOG lines, the pieces of the configuration and END.
	 */
	IMSG_CONF_MACRO = 1500,		/* parent -> confd: struct
					   conf_macro, a -D */
	IMSG_CONF_READ,			/* parent -> confd: struct conf_read */
	IMSG_CONF_LOG,			/* confd -> parent: struct conf_log */
	IMSG_CONF_SET,			/* confd -> parent: struct conf_set
					   and its bytes, a global setting
					   (common/conf_wire.c) */
	IMSG_CONF_LISTENER,		/* confd -> parent: struct
					   conf_listener */
	IMSG_CONF_KEYPAIR,		/* confd -> parent: struct
					   conf_keypair */
	IMSG_CONF_WORKLOAD,		/* confd -> parent: a workload,
					   packed (workload_wire) */
	IMSG_CONF_IGNORE,		/* confd -> parent: struct cfg_ignore */
	IMSG_CONF_HTFILE,		/* confd -> parent: struct cfg_htfile */
	IMSG_CONF_HTUSER,		/* confd -> parent: struct cfg_htuser */
	IMSG_CONF_ACME,			/* confd -> parent: struct conf_acme */
	IMSG_CONF_ACME_CA,		/* confd -> parent: the acme block's
					   CA file, as read */
	IMSG_CONF_END,			/* confd -> parent: int32_t, the
					   errors it found */
	IMSG_CONF_PAGE,			/* confd -> parent: struct
					   cfg_page and the page's bytes */
	IMSG_CONF_NOTIFY,		/* confd -> parent: struct
					   notify_conf, its key empty */
	IMSG_CONF_DIGEST,		/* both ways: struct conf_digest,
					   the inputs' digest (issue 38) */
	IMSG_CONF_INPUT,		/* both ways: struct conf_input, a
					   file (or glob) the parse read */
	IMSG_CONF_SAME,			/* confd -> parent: int32_t 0, the
					   inputs are the running ones' */

	/* orchd's own answers' pages, parent -> gateways, in a config
	   transaction ("error page", gatewayd/pages.c) */
	IMSG_CFG_PAGE = 1600,		/* struct cfg_page and its bytes */
	IMSG_CFG_ERRPAGE,		/* struct cfg_errpage: a global one */

	/*
	 * Webhooks ("notify" in orchd.conf): notifyd alone makes the
	 * outbound connections; the parent relays the events it sees.
	 */
	IMSG_NOTIFY_CONF = 1700,	/* parent -> notifyd: struct
					   notify_conf, at start and at each
					   reload */
	IMSG_NOTIFY_STATE,		/* parent -> notifyd: struct rt_state,
					   runtimed's, as the parent got it */
	IMSG_NOTIFY_EVENT,		/* parent -> notifyd: struct
					   ctl_event, the parent's own (a
					   reload refused) */
	IMSG_NOTIFY_STATS		/* notifyd -> parent -> gateways:
					   struct notify_stats, for /metrics */
};

/* why a workload changed state */
enum rt_reason {
	RT_REASON_NONE = 0,
	RT_REASON_REQUEST,		/* woken by a request */
	RT_REASON_READY,		/* passed its readiness check */
	RT_REASON_START_FAILED,		/* could not be started */
	RT_REASON_EXITED,		/* exited by itself */
	RT_REASON_WAKE_TIMEOUT,		/* not ready within wake timeout */
	RT_REASON_IDLE,			/* suspended by the reaper */
	RT_REASON_OPERATOR,		/* orchctl or the API */
	RT_REASON_KEEP_WARM,		/* woken at start: keep warm */
	RT_REASON_RESTORED,		/* state restored at start */
	RT_REASON_SHUTDOWN,		/* orchd stopped */
	RT_REASON_REMOVED,		/* no longer configured */
	RT_REASON_OOM,			/* killed for lack of memory */
	RT_REASON_DEPENDENCY,		/* woken for a workload depending
					   on it; failed: one it depends
					   on did not wake */
	RT_REASON_RESTART,		/* kept warm: started again */
	RT_REASON_UNHEALTHY,		/* failed its liveness checks */
	RT_REASON_EXPIRED,		/* deleted: no request for its
					   expire after */
	RT_REASON_REPLACED,		/* replaced: a new definition, or
					   orchctl restart */
	RT_REASON_BUDGET,		/* suspended: room in the budget */
	RT_REASON_PRESSURE,		/* suspended: memory pressure */
	RT_REASON_NO_ROOM,		/* a wake that found no room within
					   its wake timeout: still asleep */
	RT_REASON_THAWED,		/* frozen, thawed for a wake */
	RT_REASON_NO_FREEZER,		/* to freeze, but the freeze failed
					   or there is no freezer: stopped */
	RT_REASON_SCHEDULE,		/* woken: a warm window begins, or a
					   scheduled wake ("wake at") */
	RT_REASON_MAINTENANCE		/* suspended for maintenance; a
					   wake refused: in maintenance */
};

/*
 * What one gateway counts of the requests it answered, summed by the one
 * that answers GET /metrics ("prefork").  What follows from runtimed's
 * state changes (wakes, states, time asleep) every gateway sees alike.
 */
#define METRICS_DUR_BOUNDS	14	/* request duration histogram */
struct gw_metrics_wl {
	char			 name[ORCHD_NAME_MAX];
	uint64_t		 requests[5];	/* by status class */
	uint64_t		 upstream_errors;
	uint64_t		 inflight;
	uint64_t		 parked;
	uint64_t		 upgraded;
	uint64_t		 rx_bytes;	/* from its clients */
	uint64_t		 tx_bytes;	/* to its clients */
	uint64_t		 dur_hist[METRICS_DUR_BOUNDS + 1]; /* +Inf */
	double			 dur_sum;	/* seconds */
	/* its own TCP listeners' connections ("listen on" in a workload) */
	uint64_t		 tcp_open;	/* held or proxied now */
	uint64_t		 tcp_accepted;
	uint64_t		 tcp_rx_bytes;	/* from its clients */
	uint64_t		 tcp_tx_bytes;	/* to its clients */
};

struct gw_metrics_total {
	uint64_t		 conns;		/* open client connections */
	uint64_t		 api[5];	/* API answers by status class */
	uint64_t		 auth_failures;
	uint64_t		 unknown_hosts;	/* requests routed nowhere */
	uint64_t		 idle_closed;	/* to make room */
	uint64_t		 addr_refused;	/* max connections per address */
	uint64_t		 protocol[2];	/* requests: HTTP/1.x, h2 */
	uint64_t		 access_log_drops; /* lines lost: buffer full */
	uint64_t		 tls_hellos[4];	/* GW_HELLO_*, tlshello.c */
};

/*
 * IMSG_GW_PROCSTAT: the CPU time and resident memory of one of orchd's
 * own processes, from /proc as the parent read it for GET /metrics
 * (common/procstat.c).  id: enum privsep_procid, or GW_PROC_SPAWNER.
 */
#define GW_PROC_SPAWNER		PROC_MAX
#define GW_PROCSTAT_MAX		(PROC_MAX + ORCHD_PREFORK_MAX)
struct gw_procstat {
	int32_t			 id;
	int32_t			 instance;	/* a gateway's, else 0 */
	uint64_t		 cpu_us;	/* user and system */
	uint64_t		 rss;		/* bytes */
};

/* IMSG_CFG_STATUS: the parent's start and its last configuration load */
struct cfg_status {
	int64_t			 started_ms;	/* wall clock, orchd's start */
	int64_t			 reload_ms;	/* the last successful load */
	int32_t			 reload_ok;	/* the last attempt succeeded */
	int32_t			 pad;
};

/*
 * IMSG_CFG_DELTA: the generation gen is the base generation's workloads,
 * the runs of IMSG_CFG_KEEP and the IMSG_CFG_WORKLOADs that follow in
 * their order, count of them in all (orchd/config_delta.c).  A child
 * whose current generation is not base, or holds not base_count of
 * them, answers IMSG_CFG_RESEND and is sent a full generation.
 */
struct cfg_delta {
	uint32_t		 gen;
	uint32_t		 base;
	uint32_t		 base_count;
	uint32_t		 count;
};

/* IMSG_CFG_KEEP: the base's definitions first .. first + count - 1 */
struct cfg_keep {
	uint32_t		 first;
	uint32_t		 count;
};

/* IMSG_CFG_IGNORE: a global "ignore" rule */
struct cfg_ignore {
	int32_t			 kind;		/* enum ignore_kind */
	int32_t			 answer;
	char			 pattern[ORCHD_PATTERN_MAX];
};

/*
 * The status page's sessions: an id and a CSRF token, each 128 random
 * bits, the rights (read-only for the status key) and the expiry.
 */
#define UI_SESS_IDLEN	16
struct ui_sess_id {
	uint8_t			 id[UI_SESS_IDLEN];
};

struct ui_sess {
	uint8_t			 id[UI_SESS_IDLEN];
	uint8_t			 csrf[UI_SESS_IDLEN];
	int32_t			 readonly;
	int32_t			 found;		/* 0: none (IMSG_REAP_SESS) */
	int64_t			 expires;	/* wall clock, in s */
};

/* IMSG_GW_ALOG_KEEP, IMSG_REAP_ALOG_LINE: an access-log line, cut */
#define ALOG_KEEP_LINE	512
struct alog_keep {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 start_ms;	/* the request's, wall clock */
	uint32_t		 len;		/* of line, <= ALOG_KEEP_LINE */
	uint32_t		 pad;
	char			 line[ALOG_KEEP_LINE];
};

/* IMSG_GW_ALOG_ASK: the last limit lines of a workload */
#define ALOG_ASK_MAX	100
struct alog_ask {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 limit;		/* 1 to ALOG_ASK_MAX */
	int32_t			 kept;		/* END: lines the reaper holds
						   of every workload */
};

/*
 * IMSG_GW_HOSTSAMPLE, IMSG_REAP_HOSTHIST: a minute of the host: the
 * requests a gateway answered and the wakes it saw in it, the memory
 * charged and the budget at its end.
 */
#define HOSTHIST_MINUTES	1440	/* a day, kept by the reaper */
struct host_sample {
	int64_t			 minute;	/* wall clock / 60 */
	uint64_t		 requests;
	uint64_t		 wakes;
	int64_t			 in_use;	/* bytes */
	int64_t			 budget;	/* bytes; 0: none */
};

/* IMSG_GW_SESS_FLUSH: the sessions of the key that changed end */
struct ui_sess_flush {
	int32_t			 readonly;	/* 1: the status key's */
	int32_t			 pad;
};

/* IMSG_REAP_AUTHLIMIT: over the cap of wrong keys, and for how long */
struct reap_authlimit {
	int32_t			 limited;
	int32_t			 retry_after;	/* seconds, when limited */
};

/*
 * IMSG_REAP_AUTHBLOCK: until its window ends, every gateway answers this
 * address's API requests 429 without looking at their key
 */
struct reap_authblock {
	struct netaddr		 client;	/* netaddr_client()'s */
	int64_t			 ms;		/* left of its window */
};

/* IMSG_PROC_PEER: the channel passed is to this process */
struct proc_peer {
	int32_t			 id;		/* enum privsep_procid */
	int32_t			 instance;	/* a gateway's, else 0 */
};

struct wl_ref {
	char			 name[ORCHD_NAME_MAX];
};

/*
 * What woke a workload, kept with the wake in its history: a request,
 * its fields cut to these bounds and to printable ASCII, or one of the
 * others, which carry nothing more.
 */
enum wake_kind {
	WAKE_NONE = 0,
	WAKE_REQUEST,			/* a request for it (the gateway) */
	WAKE_ORCHCTL,			/* orchctl wake */
	WAKE_API,			/* POST /v1/workloads/{id}/wake */
	WAKE_KEEP_WARM,			/* keep warm: at start, or turned on */
	WAKE_RESTART,			/* restarted after it stopped */
	WAKE_DEPENDENCY,		/* a workload that needs it woke */
	WAKE_SCHEDULE			/* keep warm during, wake at */
};
#define CAUSE_METHOD_MAX	16
#define CAUSE_HOST_MAX		128
#define CAUSE_PATH_MAX		256
#define CAUSE_CLIENT_MAX	48	/* an IPv6 address's text */
#define CAUSE_AGENT_MAX		128
struct wake_cause {
	int32_t			 kind;		/* enum wake_kind */
	char			 method[CAUSE_METHOD_MAX];
	char			 host[CAUSE_HOST_MAX];
	char			 path[CAUSE_PATH_MAX];
	char			 client[CAUSE_CLIENT_MAX];
	char			 agent[CAUSE_AGENT_MAX]; /* User-Agent */
};

/* IMSG_GW_WAKE: the request that found it asleep */
struct gw_wake {
	char			 name[ORCHD_NAME_MAX];
	struct wake_cause	 cause;
};

/*
 * Maintenance (runtimed/maint.c): nothing wakes the workload, its
 * requests are answered 503 with the message, until it is turned off or
 * its until passes.  The message is an operator's or an API client's
 * text: printable, no control byte, at most MAINT_MSG_MAX - 1 bytes.
 */
#define MAINT_MSG_MAX		256
#define MAINT_UNTIL_MAX		(366 * 86400)	/* seconds ahead, at most */
#define MAINT_RETRY_AFTER	300	/* Retry-After without an until */
struct wl_maint {
	int32_t			 on;
	int32_t			 pad;
	int64_t			 until;		/* wall clock, s; 0: none */
	char			 msg[MAINT_MSG_MAX]; /* "" none */
	int64_t			 changed_ms;	/* wall clock: turned on or
						   off; for its event */
};

#define RT_MSG_MAX		256
struct rt_state {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 state;		/* enum workload_state */
	int32_t			 reason;	/* enum rt_reason */
	int64_t			 since;		/* wall clock, seconds */
	int64_t			 since_ms;	/* the same in milliseconds */
	char			 msg[RT_MSG_MAX]; /* e.g. the error */
	int32_t			 from;		/* the state left; the same
						   as state: told again */
	struct wake_cause	 cause;		/* to waking: what woke it */
	int64_t			 backoff_ms;	/* left of its crash-loop
						   backoff; 0: none */
	/* to the gateways: runtimed's count of the states it sent them,
	   from 1, and its epoch, drawn at its start: an event's id the
	   same in every gateway (gatewayd/api_events.c); 0 otherwise */
	uint32_t		 ev_epoch;
	uint32_t		 ev_pad;
	uint64_t		 ev_seq;
	struct wl_maint		 maint;		/* told with every state */
};

/*
 * IMSG_RT_WAIT: the wake of a workload waits for its image to be pulled,
 * or goes on once it is: the gateways hold its requests secs from now.
 */
struct rt_wait {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 secs;
};

struct gw_activity {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 last_seen;	/* monotonic clock, seconds */
	uint32_t		 inflight;	/* requests being proxied */
	uint32_t		 upgraded;	/* open tunnels (WebSocket) */
};

/*
 * IMSG_RT_ROUTE: the address of the instance that starts, or with
 * retire, of the one that replaces the running one: the address before
 * is retired, and IMSG_GW_HELD says when nothing sent there is in flight;
 * a swarm service's is of the nodes its tasks run on (runtimed/driver_swarm.c)
 */
#define RT_ROUTE_MAX		WL_REPLICAS_MAX	/* addresses in one route */
struct rt_route {
	char			 name[ORCHD_NAME_MAX];
	union wl_addr		 addr;
	uint32_t		 addrlen;
	int32_t			 retire;
	/* swarm: the other nodes its tasks run on, requests spread in turn */
	uint32_t		 nmore;
	union wl_addr		 more[RT_ROUTE_MAX - 1];
};

struct gw_drained {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 idle;		/* 1: parked from now on */
};

struct rt_proc {
	char			 name[ORCHD_NAME_MAX];
	pid_t			 pid;		/* 0 if it could not start */
	int32_t			 status;	/* wait status, RT_EXITED */
	char			 msg[RT_MSG_MAX]; /* why it could not start */
	int32_t			 oom;		/* RT_EXITED: its cgroup saw
						   an OOM kill while it ran */
};

/*
 * IMSG_ST_DRIFT: what of the definition a running workload was started
 * with has changed since (workload_diff()), "command, port"; "" none
 */
#define RT_DRIFT_MAX		160
struct rt_drift {
	char			 name[ORCHD_NAME_MAX];
	char			 fields[RT_DRIFT_MAX];
};

/*
 * IMSG_RT_USE: the container of docker workload name is about to be
 * created or started (what).  The parent checks the definition it has
 * of it now (policy_check) and where its volumes lead now, and makes
 * the directories of its API volumes (orchd/usecheck.c); IMSG_RT_USED
 * answers, under the same seq.  Nothing but the name is taken from
 * runtimed.
 */
enum rt_use_what {
	RT_USE_CREATE = 0,
	RT_USE_START
};
struct rt_use {
	char			 name[ORCHD_NAME_MAX];
	uint32_t		 seq;		/* runtimed's, for its answer */
	uint32_t		 what;		/* enum rt_use_what */
};

struct rt_used {
	char			 name[ORCHD_NAME_MAX];
	uint32_t		 seq;
	int32_t			 ok;		/* 1: go on; 0: refused, why */
	char			 msg[RT_MSG_MAX];
};

/*
 * IMSG_RT_LABEL ("docker labels on", runtimed/labels.c, orchd/labels.c):
 * a container someone else made carries org.orchd.host.  Its definition
 * follows packed (common/workload_wire.c), as runtimed read it from the
 * container's labels and HostConfig; what HostConfig asks that no
 * workload field can say is in refuse, and the uid it runs as in uid.
 * The parent judges all of it as it judges an API workload: no text.
 */
#define RT_LABEL_PRIVILEGED	0x0001	/* --privileged */
#define RT_LABEL_CAPS		0x0002	/* --cap-add */
#define RT_LABEL_DEVICES	0x0004	/* --device, --gpus */
#define RT_LABEL_NS_HOST	0x0008	/* pid, ipc, uts, userns of the
					   host, another's volumes, links */
#define RT_LABEL_SECURITY	0x0010	/* --security-opt */
#define RT_LABEL_MOUNTS		0x0020	/* a mount that is no bind */
#define RT_LABEL_PORTS		0x0040	/* a port published that is not
					   its org.orchd.port */
#define RT_LABEL_NET		0x0080	/* another container's network,
					   or none */
#define RT_LABEL_ALL		0x00ff
struct rt_label {
	char			 name[ORCHD_NAME_MAX];
	uint32_t		 refuse;	/* RT_LABEL_* */
	int32_t			 pad;
	int64_t			 uid;		/* -1: a name, or the image's */
};

/* IMSG_RT_COUNTS: sent when they change, at most once a second */
struct rt_counts {
	uint32_t		 workloads;
	uint32_t		 running;
	uint32_t		 failed;
};

/* IMSG_REAP_SUSPEND: idle, and since when, for the busy veto's max */
struct reap_suspend {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 idle_since;	/* monotonic clock: its
						   idle timeout ran out */
};

struct reap_lastseen {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 last_seen;
};

/* what the store remembers of a workload, for runtimed at start */
/* IMSG_ST_JOB: the hash of the definition a job last succeeded with */
struct rt_job {
	char			 name[ORCHD_NAME_MAX];
	uint64_t		 hash;		/* 0: none */
};

struct st_restore {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 state;		/* as last recorded */
	int32_t			 keep_warm;	/* -1: as configured, 0, 1 */
	int64_t			 last_seen;
	int64_t			 started_at;
	int64_t			 memory;	/* last run's peak; 0: none */
	int64_t			 memory_estimate; /* 0: none */
	uint64_t		 job_hash;	/* a job's last success; 0 */
	int64_t			 keep_warm_until; /* wall clock, s; 0: none */
	struct wl_maint		 maint;
};

/* a run's peak, and runtimed's estimate for the next (0 from the parent) */
struct rt_memory {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 bytes;
	int64_t			 estimate;
};

/* IMSG_REAP_PRESSURE: PSI "some avg10" when above memory pressure limit */
struct reap_pressure {
	int32_t			 avg10;		/* hundredths of a percent */
	int32_t			 limit;
};

/*
 * The memory budget as runtimed keeps it, for show stats and /metrics.
 * Suspends are counted by reason, since runtimed started.
 */
enum budget_suspend {
	SUSPEND_IDLE = 0,
	SUSPEND_BUDGET,
	SUSPEND_PRESSURE,
	SUSPEND_OPERATOR,
	SUSPEND_REASONS
};
#define BUDGET_WAIT_BOUNDS	10	/* queue wait histogram */
struct rt_budget {
	int64_t			 budget;	/* bytes; 0: none */
	int64_t			 in_use;	/* charged to what runs */
	int64_t			 max_wakes;	/* 0: no cap */
	uint32_t		 waking;	/* starting now */
	uint32_t		 queued;	/* wakes waiting now */
	uint64_t		 queued_total;	/* wakes that had to wait */
	uint64_t		 queue_timeouts; /* waited their wake timeout */
	uint64_t		 wait_hist[BUDGET_WAIT_BOUNDS + 1]; /* +Inf */
	double			 wait_sum;	/* seconds */
	double			 wait_max;	/* seconds */
	uint64_t		 suspends[SUSPEND_REASONS];
};

/* the uid (and gid) of a process workload that names no user */
struct wl_uid {
	char			 name[ORCHD_NAME_MAX];
	uint32_t		 uid;
};

/* the store's writes held while the database refuses them */
struct st_queue_stats {
	uint64_t		 queued;	/* held now */
	uint64_t		 bytes;		/* their size now */
	uint64_t		 total;		/* ever held */
	uint64_t		 retries;	/* passes writing them again */
	uint64_t		 drops;		/* lost: the queue was full */
};

/*
 * The access log's lines held while its file refuses them (a full disk):
 * the parent's (orchd/logfiles.c), for /metrics and orchctl show summary
 */
struct alog_queue_stats {
	uint64_t		 lines;		/* held now */
	uint64_t		 bytes;		/* their size now */
	uint64_t		 total;		/* lines ever held */
	uint64_t		 retries;	/* attempts to write them */
	uint64_t		 drops;		/* lines lost: no room, or no
						   file to write them to */
};

/*
 * IMSG_RT_OWNER_ASK: is every TCP listener that would take a connection
 * to addr (the address itself, and the wildcard ones) the workload's
 * own?  Asked after its readiness check passed, before it is running,
 * and after each liveness check that passed; seq comes back in the
 * answer, so that runtimed drops one to a question no longer asked.
 */
struct rt_owner_ask {
	char			 name[ORCHD_NAME_MAX];
	union wl_addr		 addr;
	uint32_t		 addrlen;
	uint32_t		 seq;
};

/* IMSG_RT_OWNER: the parent's answer; ok 1 its own, 0 not, -1 unknown */
#define OWNER_COMM_MAX		16	/* TASK_COMM_LEN */
struct rt_owner {
	char			 name[ORCHD_NAME_MAX];
	uint32_t		 seq;
	int32_t			 ok;
	uint32_t		 uid;		/* ok 0: the other listener's */
	int32_t			 pid;		/* ... its process, 0 unknown */
	char			 msg[RT_MSG_MAX]; /* ok < 1: why, for the
						   history */
};

struct rt_kill {
	char			 name[ORCHD_NAME_MAX];
	pid_t			 pid;
	int32_t			 sig;
};

/*
 * IMSG_RT_FREEZE: freeze (on 1) or thaw (on 0) the cgroup of process
 * workload name, whose process is pid; IMSG_RT_FROZEN: the same back,
 * ok 1 if the cgroup is in that state now, 0 if not (no freezer, no
 * such process), and on the parent's side only these two values pass.
 */
struct rt_freeze {
	char			 name[ORCHD_NAME_MAX];
	pid_t			 pid;
	int32_t			 on;
	int32_t			 ok;
	int32_t			 pad;
};

#define CTL_MSG_MAX		512
/*
 * ctl_result.code of a FAIL: -1, or one of these where the API answers
 * with its own status (404, 409, 503).  orchctl prints msg either way.
 */
#define CTL_ERR_FAILED		-1
#define CTL_ERR_NOENT		-2	/* no such workload */
#define CTL_ERR_BUSY		-3	/* not in its present state */
#define CTL_ERR_AGAIN		-4	/* try again later */
struct ctl_result {
	int			 code;
	char			 msg[CTL_MSG_MAX];
};

/*
 * What a reload reports to orchctl, one item each, before its OK or
 * FAIL: the workloads of the file added, removed or changed, the settings
 * kept until a restart, and the warnings or errors of the parse.
 */
enum ctl_reload_what {
	CTL_RELOAD_ADDED = 1,
	CTL_RELOAD_REMOVED,
	CTL_RELOAD_CHANGED,
	CTL_RELOAD_RESTART,	/* msg: the setting */
	CTL_RELOAD_WARNING,
	CTL_RELOAD_ERROR,
	CTL_RELOAD_SAME		/* no input changed: nothing reloaded */
};
struct ctl_reload {
	int32_t			 what;
	char			 msg[CTL_MSG_MAX];
};

struct ctl_summary {
	char			 name[32];	/* "parent", "gateway", ... */
	pid_t			 pid;
	int64_t			 uptime;	/* seconds */
	uint32_t		 workloads;	/* known to that process */
	uint32_t		 generation;	/* config generation */
};

/*
 * IMSG_CTL_PULLING: how a pull goes, at most once a second, and once at
 * its end (done) before the OK or the FAIL.  Layers and bytes are those
 * the daemon has said so far; a layer it had already counts as done.
 */
#define CTL_IMAGE_MAX		512
struct ctl_pull {
	char			 name[ORCHD_NAME_MAX];
	char			 image[CTL_IMAGE_MAX];
	uint32_t		 layers;
	uint32_t		 layers_done;
	int64_t			 bytes;		/* downloaded */
	int64_t			 bytes_total;	/* of the layers it sized */
	int32_t			 done;
	int32_t			 pad;
	char			 status[RT_MSG_MAX]; /* the daemon's last */
};

/* orchd's version, as common/version.h has it */
struct ctl_version {
	char			 version[32];
};

struct ctl_name {
	char			 name[ORCHD_NAME_MAX];
};

/*
 * A page of show workloads: limit items (1 to CTL_PAGE_MAX) after the
 * workload name (in byte order; "" from the first).  The asker asks
 * again after the last name it got while a page comes full.
 */
#define CTL_PAGE_MAX		10000
#define CTL_PAGE_ORCHCTL	500	/* orchctl's pages */
struct ctl_page {
	char			 name[ORCHD_NAME_MAX];	/* after this */
	uint32_t		 limit;
	uint32_t		 pad;
};

struct ctl_logs {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 lines;		/* the last N; -1: all */
	int32_t			 follow;	/* then keep sending */
};

#define KEEPWARM_UNTIL_MAX	(30 * 86400)	/* seconds ahead, at most */
struct ctl_keepwarm {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 on;
	int32_t			 pad;
	int64_t			 until;		/* wall clock, s: it lapses
						   then; 0: never */
};

/* IMSG_CTL_MAINT, IMSG_ST_MAINT: maintenance on, with until and msg, or off */
struct ctl_maint {
	char			 name[ORCHD_NAME_MAX];
	struct wl_maint		 m;
};

/* one workload, as `show workloads` and `show workload` print it */
struct ctl_workload {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 state;		/* enum workload_state */
	int32_t			 driver;	/* enum workload_driver */
	int32_t			 source;	/* enum workload_source */
	int32_t			 keep_warm;
	char			 hosts[512];	/* comma-separated, cut */
	int64_t			 last_seen;	/* wall clock, 0: never */
	int64_t			 started_at;	/* 0: not running */
	int64_t			 idle_timeout;	/* seconds, -1: global */
	uint64_t		 wakes;
	char			 msg[RT_MSG_MAX]; /* last failure */
	/* what the reaper waits for: global filled in; 0: never */
	int64_t			 idle_effective;
	int32_t			 reason;	/* enum rt_reason: of state */
	int32_t			 pad;
	int64_t			 backoff_until;	/* wall clock: no wake by a
						   request before; 0: none */
	char			 drift[RT_DRIFT_MAX]; /* running: what of its
						   definition changed since
						   it started; "" none */
	char			 listens[128];	/* its TCP listeners,
						   "ADDRESS:PORT,...", cut */
	int64_t			 memory;	/* last run's peak; 0: none */
	int64_t			 memory_estimate; /* 0: none */
	int64_t			 keep_warm_until; /* wall clock, s; 0: none */
	uint64_t		 wakes_today;	/* of the UTC day */
	struct wl_maint		 maint;
};

struct ctl_transition {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 from;		/* enum workload_state */
	int32_t			 to;
	int32_t			 reason;	/* enum rt_reason */
	int64_t			 time;		/* wall clock */
	char			 msg[RT_MSG_MAX];
	struct wake_cause	 cause;		/* to waking: what woke it */
};

/*
 * What happens, as it happens: orchctl monitor (from the parent) and
 * GET /v1/events (from each gateway), both made from the same messages,
 * runtimed's changes of state and the parent's loads of orchd.conf.
 * Evictions and restarts have their types, for when orchd makes them:
 * such an event goes to control_event() in the parent and to
 * api_events_emit() in each gateway.
 */
enum event_type {
	EVENT_STATE = 0,		/* a change of state, with its cause */
	EVENT_RELOAD,			/* orchd.conf loaded, or refused */
	EVENT_EVICT,			/* a workload stopped for room */
	EVENT_RESTART,			/* a workload restarted */
	EVENT_CERT,			/* an ACME issuance or renewal failed:
					   msg "HOST: why"; for notifyd */
	EVENT_MAINT			/* maintenance on (ok 1, msg its
					   message) or off (ok 0) */
};

struct ctl_event {
	int32_t			 type;		/* enum event_type */
	int32_t			 ok;		/* RELOAD: it was loaded */
	int32_t			 from;		/* STATE: enum workload_state */
	int32_t			 to;
	int32_t			 reason;	/* enum rt_reason */
	int32_t			 pad;
	int64_t			 time_ms;	/* wall clock */
	char			 name[ORCHD_NAME_MAX]; /* "" for RELOAD */
	char			 msg[RT_MSG_MAX];
	struct wake_cause	 cause;		/* to waking: what woke it */
};

/* per workload, and one named "" for the total */
struct ctl_stats {
	char			 name[ORCHD_NAME_MAX];
	uint64_t		 wakes;
	uint64_t		 failed_wakes;
	int64_t			 wake_median_ms;
	int64_t			 wake_worst_ms;
	int64_t			 asleep_seconds;
	int64_t			 running_seconds;
	int64_t			 memory;	/* bytes, measured or configured */
	double			 memory_hours_saved; /* GiB-hours */
};

/* ctl_listener's api: "api listen on", "status listen on" (the page's) */
#define LISTENER_API	1
#define LISTENER_STATUS	2
struct ctl_listener {
	char			 name[ORCHD_HOST_MAX];
	int			 api;		/* 0, LISTENER_* */
	int			 tls;
	int			 http2;		/* LISTENER_H2_* */
	char			 workload[ORCHD_NAME_MAX]; /* "": HTTP */
	int			 acme;		/* "tls acme" */
	int			 redirect;	/* "redirect https" */
	int			 redirect_port;	/* its "port", 0: none */
	int			 hsts;		/* "hsts" */
	int64_t			 hsts_age;	/* its max-age, seconds */
	int			 hsts_sub;	/* includeSubDomains */
	int			 pad;
};

/*
 * A certificate or key in pieces of at most ORCHD_TLS_CHUNK bytes, each
 * piece after this header, sent after the IMSG_CFG_LISTENERs.  The
 * keypairs chosen by SNI ("tls keypair") are for every TLS listener.
 */
enum cfg_tls_what {
	CFG_TLS_LISTENER_CERT = 0,	/* of listener number `listener' */
	CFG_TLS_LISTENER_KEY,
	CFG_TLS_SNI_CERT,		/* a new SNI keypair starts */
	CFG_TLS_SNI_KEY			/* the key of the last one */
};

struct cfg_tls {
	int32_t			 what;		/* enum cfg_tls_what */
	uint32_t		 listener;	/* in the order sent, from 0 */
	uint32_t		 total;		/* bytes of the whole file */
	uint32_t		 off;		/* of this piece */
};

/*
 * IMSG_CFG_SWARM: a swarm manager over TLS, its address and port, and
 * after this the CA, certificate and key PEM files, one after the other
 */
#define CFG_SWARM_ADDR_MAX	64
#define CFG_SWARM_FILES_MAX	(15 * 1024)	/* the three together */
struct cfg_swarm {
	char			 addr[CFG_SWARM_ADDR_MAX]; /* numeric */
	uint16_t		 port;
	uint32_t		 calen;
	uint32_t		 certlen;
	uint32_t		 keylen;
};

/*
 * The parent does not parse keys: a configuration's keypairs are
 * checked by the gateway program, run as "gatewayd -n" for that alone.
 * On TLS_CHECK_FD the parent writes pieces, each a struct tls_check_hdr
 * and len bytes (1 to ORCHD_TLS_FILE_MAX): every SNI keypair (its
 * CFG_TLS_SNI_CERT, then its CFG_TLS_SNI_KEY), then each TLS listener's
 * (CFG_TLS_LISTENER_CERT, CFG_TLS_LISTENER_KEY), then shuts its side.
 * The checker checks a listener, with all the SNI keypairs, once its key
 * is in.  At the first failure it answers one struct tls_check_fail and
 * the error's text, and exits 1; all good, it exits 0 without a word.
 */
#define TLS_CHECK_FD		3
#define TLS_CHECK_MSG_MAX	1024	/* the text, NUL not sent */

struct tls_check_hdr {
	int32_t			 what;		/* enum cfg_tls_what */
	uint32_t		 len;
};

enum tls_check_what {
	TLS_CHECK_LISTENER_KEYPAIR = 0,	/* the keypair of TLS listener n */
	TLS_CHECK_SNI_KEYPAIR,		/* SNI keypair n, in the order sent */
	TLS_CHECK_LISTENER,		/* TLS listener n, all keypairs in */
	TLS_CHECK_OTHER			/* the text says it all */
};

struct tls_check_fail {
	int32_t			 what;		/* enum tls_check_what */
	uint32_t		 n;		/* from 0 */
	uint32_t		 len;		/* of the text that follows */
};

/*
 * The HTTP API.  A workload created through it is at most this many
 * bytes of JSON on its way to the parent; the key at most
 * ORCHD_API_KEY_MAX bytes.
 */
#define ORCHD_API_KEY_MAX	1024
#define ORCHD_STATUS_SESSION	(12 * 3600)	/* seconds, by default */
#define ORCHD_API_JSON_MAX	(ORCHD_IMSG_MAXSIZE - 1024)

/*
 * IMSG_REAP_EXPIRE, IMSG_API_EXPIRE: an API workload without a request
 * since last_seen (wall clock; the clock started then), for secs.
 */
struct reap_expire {
	char			 name[ORCHD_NAME_MAX];
	int64_t			 last_seen;
	int64_t			 secs;
};

/* IMSG_RT_PURGE: what a deleted (or expired) workload leaves behind */
struct rt_purge {
	char			 name[ORCHD_NAME_MAX];
	char			 image[CTL_IMAGE_MAX];
};

/*
 * IMSG_API_UPDATE: the whole new definition of workload name, packed
 * (common/workload_wire.c), which follows: a PUT's body, or a PATCH
 * merged by the gateway onto the definition it had, whose
 * workload_wire_hash() is base; the parent refuses it (409) if its
 * definition is no longer that one.  A PUT's base is 0: any.
 */
struct api_update {
	char			 name[ORCHD_NAME_MAX];
	int32_t			 patch;
	int32_t			 pad;
	uint64_t		 base;
};

/* the parent's answer to IMSG_API_CREATE, _DELETE or _UPDATE */
struct api_result {
	int32_t			 status;	/* HTTP: 200, 201, 400, 409... */
	char			 msg[CTL_MSG_MAX]; /* the error, if any */
};

/*
 * IMSG_CFG_HTFILE, IMSG_CFG_HTUSER: an htpasswd file and its lines,
 * each string NUL-terminated within its array, the hash a bcrypt
 * ($2y$, $2b$) or yescrypt ($y$) one (orchd/htpasswd.c checks them,
 * and the gateway again).
 */
#define HTPASSWD_PATH_MAX	1024	/* WL_AUTH_FILE_MAX */
#define HTPASSWD_USER_MAX	128	/* NUL included */
#define HTPASSWD_HASH_MAX	128	/* NUL included */
#define HTPASSWD_USERS_MAX	4096	/* lines of one file */
#define HTPASSWD_FILES_MAX	64
struct cfg_htfile {
	char			 path[HTPASSWD_PATH_MAX];
	uint32_t		 nusers;	/* the HTUSER that follow */
	uint32_t		 pad;
};
struct cfg_htuser {
	char			 user[HTPASSWD_USER_MAX];
	char			 hash[HTPASSWD_HASH_MAX];
};

/* by topic, beside this catalogue: their payloads */
#include "msg_acme.h"
#include "msg_notify.h"
#include "msg_conf.h"
#include "msg_spawn.h"

#endif /* ORCHD_MSG_H */
