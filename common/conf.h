/*
 * The configuration as the parent holds it: what confd's parser
 * (confd/parse.y) makes of orchd.conf, sent piece by piece to the parent
 * (common/conf_wire.c, orchd/confread.c), with the file names and the
 * secrets the parent then reads.  The other children never see it: what
 * they need crosses as messages (struct global_settings and the IMSG_CFG_*
 * of common/msg.h).
 */

#ifndef ORCHD_CONF_H
#define ORCHD_CONF_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <stdint.h>

#include "msg.h"
#include "workload.h"
#include "htpasswd.h"
#include "workload_zip.h"

struct listener_conf {
	TAILQ_ENTRY(listener_conf) entry;
	struct sockaddr_storage	 ss;		/* address and port */
	socklen_t		 sslen;
	char			 name[ORCHD_HOST_MAX]; /* as written */
	int			 api;		/* LISTENER_API, or
						   LISTENER_STATUS */
	int			 tls;
	int			 http2;		/* LISTENER_H2_* */
	int			 acme;		/* "tls acme" */
	int			 redirect;	/* "redirect https" */
	int			 redirect_port;	/* its port, 0: none */
	int			 hsts;		/* "hsts" */
	int64_t			 hsts_age;	/* seconds */
	int			 hsts_sub;	/* "subdomains" */
	char			*tls_cert;	/* file names, NULL: "tls acme"
						   with none of its own */
	char			*tls_key;
	int			 fd;		/* bound by the parent, or -1 */
	char			 workload[ORCHD_NAME_MAX]; /* a workload's
						   raw TCP listener; "": the
						   gateway's HTTP one */
	/* their contents, read by the parent until sent to the gateway */
	uint8_t			*tls_cert_mem;
	size_t			 tls_cert_len;
	uint8_t			*tls_key_mem;
	size_t			 tls_key_len;
};
TAILQ_HEAD(listenerlist, listener_conf);

/* a socket-activated workload's port, bound by the parent (sockact.c) */
struct sockact {
	char			 name[ORCHD_NAME_MAX];	/* its workload */
	struct sockaddr_storage	 ss;
	socklen_t		 sslen;
	int			 fd;		/* listening, or -1 */
	uint64_t		 inode;		/* its socket's, for owner.c */
};

#define ORCHD_HSTS_AGE		31536000	/* "hsts": a year */

/* a certificate chosen by SNI: "tls keypair" in a workload */
struct keypair_conf {
	TAILQ_ENTRY(keypair_conf) entry;
	char			 host[ORCHD_HOST_MAX];
	char			*cert;
	char			*key;
	uint8_t			*cert_mem;	/* as for listener_conf */
	size_t			 cert_len;
	uint8_t			*key_mem;
	size_t			 key_len;
};
TAILQ_HEAD(keypairlist, keypair_conf);

/*
 * The "acme" block (confd/parse_acme.c): what acmed is sent, with the
 * files read at parse time so that a wrong one is refused with its line.
 */
#define ACME_PER_HOUR_DEFAULT	20
#define ACME_PER_HOUR_MAX	1000
#define ACME_FILE_MAX		(64 * 1024)	/* the CA file */
struct acme_settings {
	char			*directory;	/* https:// */
	char			*contact;	/* mailto:, or NULL */
	char			*ca_file;
	uint8_t			*ca;		/* its PEM, or NULL */
	size_t			 ca_len;
	char			*eab_kid;
	char			*eab_hmac_file;
	char			 eab_hmac[ACME_EAB_MAX]; /* base64url */
	int64_t			 per_hour;	/* -1: not set */
	int			 per_hour_set;	/* written in the file */
};

/* a page of "error page", as confd read it (common/errpage.c) */
struct errpage_file {
	TAILQ_ENTRY(errpage_file) entry;
	char			*path;
	uint8_t			*data;
	size_t			 len;
};
TAILQ_HEAD(errpagelist, errpage_file);

/* publish ports below this need "api allow publish port" */
#define API_LOW_PORTS		1024
#define API_PORT_ALLOWED(c, p)	((c)->api_allow_ports[(p) / 8] & \
				    (1 << ((p) % 8)))

/* the whole configuration, as parse_config() returns it */
struct orchd_conf {
	char			*conffile;
	char			 user[ORCHD_USER_MAX];
	char			*chroot;
	char			*database;
	char			*socket;
	char			*logdir;
	char			*docker_socket;
	int			 docker_labels;	/* "docker labels on": labelled
						   containers are workloads */
	int64_t			 idle_timeout;	/* seconds; 0: never */
	int			 reaper_off;	/* ORCHD_IDLE_TIMEOUT=0 */
	int64_t			 reaper_interval;
	int64_t			 wake_timeout;
	int64_t			 health_interval; /* liveness; 0: off */
	int64_t			 health_timeout;
	int64_t			 health_failures;
	struct listenerlist	 listeners;
	struct sockact		*sockacts;	/* bound with the listeners */
	size_t			 nsockacts;
	struct strlist		 api_hosts;
	char			*api_key_file;
	int			 api_metrics_public;
	/* "metrics per workload": 0 on, -1 off, N the top N; -2 unset */
	int			 metrics_top;
	/* the key (file or ORCHD_KEY), read by the parent until sent */
	uint8_t			*api_key;
	size_t			 api_key_len;
	int			 api_key_loaded; /* not sent yet */
	/* "status page": /ui/, its read-only key (apikey.c's too) */
	int			 status_page;
	int64_t			 status_session; /* seconds; 0: default */
	char			*status_key_file;
	uint8_t			*status_key;
	size_t			 status_key_len;
	struct keypairlist	 keypairs;
	struct workloadlist	 workloads;
	struct wl_restlist	 rest;		/* the parent's, kept small
						   (orchd/pdef.c) */
	struct strlist		 group_scheds;	/* "GROUP window TEXT",
						   "GROUP wake TEXT" (group
						   blocks, common/sched_wl.c) */
	struct gateway_conf	 gateway;	/* -1: not set, default */
	/* the API's policy ("api allow"), the parent's alone to enforce */
	int			 api_allow_process;
	struct strlist		 api_allow_images;	/* fnmatch patterns */
	struct strlist		 api_allow_volumes;	/* host path roots */
	struct strlist		 api_allow_networks;	/* fnmatch patterns */
	int			 api_allow_root;	/* the image's user */
	int			 api_allow_net_host;	/* "network host" */
	struct strlist		 api_allow_addresses;	/* "ADDRESS/BITS" */
	struct strlist		 api_allow_publish;	/* host addresses */
	uint8_t			 api_allow_ports[API_LOW_PORTS / 8];
						/* "publish port" below 1024,
						   a bit each */
	int			 api_key_set;	/* a key was loaded */
	/* the gate: files and auth services the API may name, exactly */
	struct strlist		 api_allow_auth_basic;	/* file paths */
	struct strlist		 api_allow_auth_request; /* URLs, or
							   prefixes ending in a star */
	/* the password files read with this configuration (htpasswd.c) */
	struct htfilelist	 htfiles;
	/* process workloads without a user: "workload uids", directory */
	int64_t			 wl_uid_low;
	int64_t			 wl_uid_high;
	char			*wl_dir;	/* their state directories */
	/* requests that are not use, tunnels, Server-Timing */
	struct ignorelist	 ignores;
	int64_t			 tunnel_idle;	/* seconds; 0: never */
	int			 server_timing;
	/* docker images: when to pull, for how long, with which logins */
	int			 pull;		/* enum workload_pull */
	int64_t			 pull_timeout;	/* seconds */
	char			*regauth_file;	/* "registry auth file" */
	/* its logins, read by the parent until sent to runtimed alone */
	uint8_t			*regauth;
	size_t			 regauth_len;
	int			 regauth_loaded; /* not sent yet */
	int64_t			 expire_after;	/* API workloads; 0: never */
	/* "access log", written by the parent from the gateways' lines */
	char			*access_log;	/* the file, or NULL */
	int			 access_log_syslog; /* or syslog */
	int			 access_log_format; /* enum access_log_format */
	int64_t			 log_max_size;	/* a process workload's log
						   file, bytes; 0: no cap */
	int			 on_change;	/* enum workload_on_change */
	/* the memory budget and wake admission */
	int64_t			 memory_budget;	/* bytes; 0: none; -1: auto */
	int64_t			 memory_estimate; /* bytes, never measured */
	int64_t			 max_wakes;	/* at once; 0: no cap */
	int64_t			 freeze;	/* "suspend freeze for" seconds;
						   0: stop (the default) */
	int64_t			 pressure_limit; /* PSI some avg10, in
						   hundredths of a percent;
						   0: off */
	/* swarm: this orchd among those sharing a swarm; "": the host's */
	char			 instance[ORCHD_INSTANCE_MAX];
	/* "swarm manager": a manager over TLS, for runtimed alone */
	char			*swarm_manager;	/* "tcp://ADDRESS:PORT" */
	char			*swarm_ca;	/* files */
	char			*swarm_cert;
	char			*swarm_key;
	uint8_t			*swarm_creds;	/* struct cfg_swarm and the
						   files, until sent */
	size_t			 swarm_creds_len;
	int			 swarm_loaded;	/* not sent yet */
	struct acme_settings	*acme;		/* the "acme" block, or NULL */
	/* "error page": the global ones ("STATUS PATH"), and every file
	   any names, global or a workload's, read once */
	struct strlist		 error_pages;
	struct errpagelist	 pages;
	/* "notify": notifyd's webhooks as sent, the key read by the parent */
	struct notify_conf	*notify;	/* NULL: none */
	char			*notify_key_file;
	/* "cpu", "pids" ... (common/wlimits.c): each 0, none */
	struct wl_limits	 lim_dflt;	/* every workload's default */
	struct wl_limits	 lim_max;	/* "api max": the API's */
};

/* common/trust.c: host paths and root, for every workload */
int		 hostpath_normalize(const char *, char *, size_t, char *,
		    size_t);
int		 hostpath_forbidden(const char *, const struct orchd_conf *,
		    char *, size_t);
int		 hostpath_root_equivalent(const char *, char *, size_t);
int		 user_is_root(const char *);
int		 workload_root_check(const struct workload_conf *, char *,
		    size_t);

/* common/conf.c */
struct orchd_conf	*conf_new(void);
void			 conf_init(struct orchd_conf *);
struct errpage_file	*errpage_find(const struct errpagelist *,
			    const char *);
void			 free_config(struct orchd_conf *);
void			 acme_free(struct acme_settings *);

/*
 * Checks against this host (users, programs, directories): none (the
 * default), warnings (at start) or errors (orchd -n, a reload)
 */
#define PARSE_HOST_NONE		0
#define PARSE_HOST_WARN		1
#define PARSE_HOST_ERROR	2
/* where a process workload's bare program name is looked for */
#define ORCHD_SPAWN_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:" \
				"/usr/bin:/sbin:/bin"

#endif /* ORCHD_CONF_H */
