/*
 * A workload's definition, as orchd.conf, the API and the store share it:
 * its limits, struct workload_conf and the functions that check it
 * (common/workload.c) and turn it into JSON and back
 * (common/workload_json.c).
 */

#ifndef ORCHD_WORKLOAD_H
#define ORCHD_WORKLOAD_H

#include <sys/types.h>
#include <sys/queue.h>
#include <stdint.h>

#define ORCHD_NAME_MAX		64	/* workload name, NUL included */
#define ORCHD_HOST_MAX		256	/* a host name or pattern, NUL included */
#define ORCHD_USER_MAX		33	/* a user name, NUL included */
#define ORCHD_DEPS_MAX		32	/* "depends on" of one workload */
#define ORCHD_DEPS_DEPTH	16	/* the longest chain of them */
#define ORCHD_LISTEN_MAX	8	/* "listen on" in one workload */
#define ORCHD_VOLNAME_MAX	64	/* an API volume's name, NUL included */
#define ORCHD_VOLROOT_MAX	1024	/* "api allow volume", with
					   /WORKLOAD/NAME, NUL included */

#define WL_STOP_TIMEOUT		10		/* seconds, signal to SIGKILL */
#define WL_STOP_TIMEOUT_MAX	(5 * 60)	/* orchctl waits 10 minutes */
#define WL_HEALTH_INTERVAL_MAX	(24 * 60 * 60)	/* seconds */
/* "suspend freeze" without "for": frozen until the budget needs room */
#define WL_FREEZE_FOREVER	(3650LL * 24 * 60 * 60)	/* seconds */
#define WL_HEALTH_FAILURES_MAX	100
#define WL_REPLICAS_MAX		64		/* swarm: tasks while awake */
#define WL_ACCESS_MAX		32		/* allow/deny from, each */
#define WL_AUTH_HEADERS_MAX	8		/* auth request headers */
#define WL_AUTH_HEADER_LEN	64		/* a header's name, bytes */
#define WL_AUTH_URL_MAX		512		/* auth request URL, bytes */
#define WL_AUTH_FILE_MAX	1024		/* auth basic file, bytes */
#define WL_AUTH_TIMEOUT		5		/* auth request, seconds */
#define WL_AUTH_TIMEOUT_MAX	60
#define WL_AUTH_CACHE_MAX	3600

enum workload_driver {
	DRIVER_PROCESS = 0,
	DRIVER_DOCKER,
	DRIVER_SWARM		/* a swarm service: runtimed/driver_swarm.c */
};

enum workload_network {
	NETWORK_BRIDGE = 0,
	NETWORK_HOST,
	NETWORK_NAMED			/* a user-defined one: netname */
};

enum workload_health {
	HEALTH_TCP = 0,
	HEALTH_PATH
};

enum workload_state {
	WL_ASLEEP = 0,
	WL_WAKING,
	WL_RUNNING,
	WL_SUSPENDING,
	WL_FAILED,
	/*
	 * After a restart, until runtimed's driver has compared what the
	 * store remembers with what runs: never stored as what was, and
	 * last so that the numbers of the others stay as they were
	 */
	WL_CHECKING,
	/*
	 * Idle and frozen ("suspend freeze"): its processes are stopped by
	 * the cgroup freezer or docker pause, its memory kept; a request
	 * thaws it.  After checking, so the stored numbers stay.
	 */
	WL_FROZEN
};
#define WL_STATE_LAST	WL_FROZEN

enum workload_source {
	SOURCE_CONFIG = 0,
	SOURCE_API,
	SOURCE_LABEL		/* a labelled container ("docker labels on"):
				   made and removed by someone else */
};

/* "on change": what a new definition does to a running workload */
enum workload_on_change {
	ON_CHANGE_NEXT_WAKE = 0,	/* runs on, the next start takes it */
	ON_CHANGE_RESTART		/* replaced at once */
};

/* docker: when a wake pulls the image ("pull") */
enum workload_pull {
	PULL_MISSING = 0,		/* the daemon has none by its name */
	PULL_ALWAYS,			/* at every start */
	PULL_NEVER
};

/* "run once": a job, run to completion (runtimed/job.c) */
enum workload_run_once {
	RUN_SERVICE = 0,		/* stays up: not a job */
	RUN_ONCE,			/* again when its definition changes */
	RUN_EVERY_WAKE			/* at every wake of a dependent */
};
/* "group wake": what a request to one member of a group wakes */
enum workload_group_wake {
	GROUP_WAKE_DEPS = 0,		/* it and what it depends on */
	GROUP_WAKE_TOGETHER		/* every member (runtimed/groupwake.c) */
};

#define ORCHD_PATH_MAX		256	/* "path": a prefix, NUL included */

struct strentry {
	TAILQ_ENTRY(strentry)	 entry;
	char			*str;
};
TAILQ_HEAD(strlist, strentry);

struct volume {
	TAILQ_ENTRY(volume)	 entry;
	char			*host;
	char			*container;
};
TAILQ_HEAD(volumelist, volume);

/*
 * "ignore path|agent|from": requests that are not use.  A matching
 * request neither wakes its workload nor keeps it awake; to one that is
 * not running, orchd answers itself with answer (503 or 200).
 */
enum ignore_kind {
	IGNORE_PATH = 0,		/* the target's path, a pattern */
	IGNORE_AGENT,			/* User-Agent, a pattern */
	IGNORE_FROM			/* the client, an address/prefix */
};
#define IGNORE_ANSWER		503	/* the default answer */
#define ORCHD_IGNORE_MAX	32	/* rules per workload, and global */
#define ORCHD_PATTERN_MAX	256	/* a rule's text, NUL included */

struct ignore_rule {
	TAILQ_ENTRY(ignore_rule) entry;
	enum ignore_kind	 kind;
	int			 answer;	/* 503 or 200 */
	char			*pattern;	/* as written */
};
TAILQ_HEAD(ignorelist, ignore_rule);

/*
 * One workload as configured (orchd.conf or the API).  Every string is
 * owned by the workload; workload_free() releases it all.  Durations are
 * seconds, -1 meaning "use the global setting"; memory is bytes, 0 meaning
 * no limit.  The parent, gatewayd and runtimed each hold one per workload:
 * 4-byte fields go in pairs, so that the struct has no padding holes.
 */
struct workload_conf {
	TAILQ_ENTRY(workload_conf) entry;
	char			 name[ORCHD_NAME_MAX];
	enum workload_driver	 driver;
	enum workload_source	 source;
	struct strlist		 hosts;		/* "a.example.com", "*.x.org" */
	char			*command;	/* process: argv; docker: cmd */
	char			*image;		/* docker */
	char			*runtime;	/* docker: e.g. "runsc" */
	enum workload_network	 network;	/* docker */
	int			 packed;	/* one allocation: workload_pack */
	char			*netname;	/* NETWORK_NAMED */
	struct strlist		 env;		/* "NAME=value" */
	struct volumelist	 volumes;	/* docker */
	char			*user;		/* process: run as */
	char			*directory;	/* process: working directory */
	char			*address;	/* upstream address, 127.0.0.1 */
	uint16_t		 port;
	uint16_t		 publish;	/* docker: host port; 0: port */
	enum workload_health	 health;
	char			*health_path;	/* HEALTH_PATH */
	char			*busy_path;	/* asked before a suspend */
	int64_t			 busy_max;	/* -1: ORCHD_BUSY_MAX */
	int			 busy_fail_safe; /* no answer: busy */
	int			 health_failures; /* -1: the global one */
	int64_t			 health_interval; /* liveness; 0: off */
	int64_t			 health_timeout;
	int64_t			 idle_timeout;
	int64_t			 freeze;	/* "suspend freeze for": seconds
						   frozen before the stop; 0:
						   "suspend stop"; -1: global */
	int64_t			 wake_timeout;
	int64_t			 memory;
	int			 keep_warm;
	int			 stop_signal;	/* 0: SIGTERM, or the image's */
	int64_t			 stop_timeout;	/* -1: WL_STOP_TIMEOUT */
	int			 init;		/* docker; -1: yes */
	int			 allow_root;	/* docker: user may be root */
	struct strlist		 depends;	/* "depends on": names */
	struct ignorelist	 ignores;	/* after the global ones */
	int64_t			 tunnel_idle;	/* -1: global; 0: never */
	int			 server_timing;	/* -1: global, 0, 1 */
	int			 redirect_https; /* plain HTTP: 308 to https */
	int			 pull;		/* docker: enum workload_pull,
						   -1: global */
	int			 replicas;	/* swarm: tasks while awake */
	int64_t			 pull_timeout;	/* docker; -1: global */
	struct strlist		 constraints;	/* swarm: placement */
	int64_t			 expire_after;	/* API: seconds without a
						   request; -1: global,
						   0: never */
	int			 upstream_h2c;	/* cleartext HTTP/2 to it */
	int			 on_change;	/* -1: global, or enum
						   workload_on_change */
	struct strlist		 listens;	/* its own TCP listeners:
						   "ADDRESS:PORT", orchd.conf
						   only (the parent binds) */
	int64_t			 run_uid;	/* docker, API: the uid and
						   gid it runs as, given by
						   the parent in what it sends
						   its children, never taken
						   from the API or the store;
						   -1: none (the image's) */
	char			*description;	/* for people: orchctl and
						   the API show it */
	char			*entrypoint;	/* docker: in place of the
						   image's, split as command */
	char			*group;		/* a project it belongs to
						   (orchctl import, show
						   groups); NULL: none */
	/* the gate (gatewayd/gate*.c): who may reach or wake it */
	struct strlist		 access;	/* "allow CIDR", "deny CIDR",
						   first match wins */
	char			*auth_basic;	/* an htpasswd file's path */
	int			 auth_pass;	/* Authorization goes on */
	char			*auth_request;	/* forward auth: http:// URL */
	struct strlist		 auth_headers;	/* copied from its 2xx */
	int64_t			 auth_timeout;	/* -1: GATE_TIMEOUT */
	int64_t			 auth_cache;	/* its 2xx kept; -1: never */
	int			 socket_activation; /* process: the parent
						   holds its port, passed as
						   fd 3 (LISTEN_FDS) */
	int			 log_timestamps; /* process: each line of
						   its log begins with the
						   time it was read */
	struct strlist		 error_pages;	/* "STATUS PATH": pages for
						   orchd's own answers */
	int			 run_once;	/* enum workload_run_once */
	int			 path_strip;	/* the prefix is cut off */
	int64_t			 run_timeout;	/* a job's; -1: wake timeout */
	char			*path;		/* its prefix of its hosts;
						   NULL: "/", the default */
	struct strlist		 warm_windows;	/* "keep warm during" */
	struct strlist		 wake_at;	/* "wake at": cron lines */
	struct strlist		 group_windows;	/* the parent's: its group's
						   "keep warm during" */
	struct strlist		 group_wakes;	/* the parent's: its group's
						   "wake at" */
	struct strlist		 zones;		/* the parent's: "ZONE RULE"
						   of each zone they name
						   (common/sched.c) */
	/* limits (common/wlimits.c); 0: the global default */
	int64_t			 cpu;		/* thousandths of a CPU */
	int			 cpu_weight;	/* v2's scale, 1 to 10000 */
	int			 pids;
	int			 io_weight;	/* v2's scale, 1 to 10000 */
	int			 group_wake;	/* enum workload_group_wake */
};
TAILQ_HEAD(workloadlist, workload_conf);

/*
 * common/workload.c: a definition and its parts; workload_check.c: its
 * rules and workload_diff(); workload_fields.[ch]: the table of its
 * fields, which they all go by
 */
struct workload_conf	*workload_new(const char *);
void			 workload_free(struct workload_conf *);
int			 workload_validate(const struct workload_conf *,
			    char *, size_t);
int			 workload_diff(const struct workload_conf *,
			    const struct workload_conf *, char *, size_t);
/* a setting's words and their values (workload.c): wl_drivers, ... */
struct wl_word {
	const char	*name;
	int		 value;
};
extern const struct wl_word wl_drivers[], wl_sources[], wl_networks[],
			    wl_healths[], wl_pulls[], wl_busy_fails[],
			    wl_upstreams[], wl_on_changes[],
			    wl_run_onces[], wl_group_wakes[];
const char		*wl_word_name(const struct wl_word *, int);
int			 wl_word_value(const struct wl_word *, const char *,
			    int *);
const char		*wl_word_list(const struct wl_word *, char *, size_t);
uint16_t		 workload_upstream_port(const struct workload_conf *);
size_t			 workload_path_len(const struct workload_conf *);
int			 valid_network_name(const char *);
int			 valid_volume_name(const char *);
int			 workload_volumes_absolute(const struct workload_conf *,
			    char *, size_t);
int			 volume_root_instance(const char *, const char *,
			    char *, size_t);
int			 volume_api_path(const char *, const char *,
			    const char *, char *, size_t);
int			 valid_text(const char *);
int			 wl_fail(char *, size_t, const char *, ...)
			    __attribute__((__format__ (printf, 3, 4)));
int			 strlist_add(struct strlist *, const char *);
void			 strlist_free(struct strlist *);
int			 listen_split(const char *, char *, size_t, int *);
int			 swarm_manager_split(const char *, char *, size_t,
			    int *);
/* common/workload_pack.c: a copy in one allocation */
struct workload_conf	*workload_pack(const struct workload_conf *);
/* common/workload_wire.c: between processes, no text */
void			*workload_wire(const struct workload_conf *, size_t *);
struct workload_conf	*workload_unwire(const void *, size_t, char *, size_t);
struct workload_conf	*workload_wire_read(const void *, size_t, char *,
			    size_t);
uint64_t		 workload_wire_hash(const struct workload_conf *);
uint64_t		 workload_wire_digest(const struct workload_conf *);
uint64_t		 workload_wire_bytes_digest(const void *, size_t);
/* common/workload_json.c: its JSON form; json_t is struct json_t */
struct json_t;
char			*workload_to_json(const struct workload_conf *);
struct workload_conf	*workload_from_json(const char *, size_t, char *,
			    size_t);
struct json_t		*strlist_to_json(const struct strlist *);
int			 strlist_from_json(struct json_t *, struct strlist *);

#endif /* ORCHD_WORKLOAD_H */
