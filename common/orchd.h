/*
 * orchd's file names and defaults: where it looks for its configuration,
 * socket, database and logs, its user, and the values of the settings
 * left out of orchd.conf.  Nothing else: the messages are msg.h, the
 * workload's definition workload.h, the parent's configuration
 * orchd/conf.h, and each common/ module has a header of its own.
 */

#ifndef ORCHD_H
#define ORCHD_H

#define ORCHD_USER		"_orchd"
#define ORCHD_CHROOT		"/var/empty"
#define ORCHD_CONF		"/etc/orchd.conf"
#define ORCHD_SOCKET		"/run/orchd/orchd.sock"
#define ORCHD_DATABASE		"/var/lib/orchd/orchd.db"
#define ORCHD_LOGDIR		"/var/log/orchd"
#define ORCHD_DOCKER_SOCKET	"/var/run/docker.sock"
/* process workloads' own uids, the range of systemd's DynamicUser */
#define ORCHD_WL_UID_LOW	61184
#define ORCHD_WL_UID_HIGH	65519
#define ORCHD_WL_DIRNAME	"orchd-workloads"	/* beside the database's */

#define ORCHD_IDLE_TIMEOUT	(5 * 60)	/* seconds */
#define ORCHD_REAPER_INTERVAL	30		/* seconds */
#define ORCHD_WAKE_TIMEOUT	30		/* seconds */
#define ORCHD_PULL_TIMEOUT	(5 * 60)	/* seconds, an image's pull */
#define ORCHD_BUSY_MAX		(60 * 60)	/* seconds a busy veto holds */
#define ORCHD_BUSY_WAIT		2		/* seconds for its answer */
/* "metrics per workload top N": at most this N */
#define METRICS_TOP_MAX		10000
/* liveness: "health interval" is off unless set */
#define ORCHD_HEALTH_FAILURES	3		/* checks failed in a row */
#define ORCHD_HEALTH_TIMEOUT	2		/* seconds, for one check */
/* the memory budget: a workload never measured and without a limit */
#define ORCHD_MEMORY_ESTIMATE	(256LL * 1024 * 1024)
#define ORCHD_BUDGET_RESERVE	10		/* percent, memory budget auto */
#define ORCHD_MAX_WAKES		1024		/* max concurrent wakes, at most */

/* the gateway's timeouts, in seconds, nginx's defaults where it has one */
#define ORCHD_HEADER_TIMEOUT	60	/* client_header_timeout */
#define ORCHD_BODY_TIMEOUT	60	/* client_body_timeout */
#define ORCHD_CONNECT_TIMEOUT	10	/* a local workload: no 60s wait */
#define ORCHD_UPSTREAM_TIMEOUT	60	/* proxy_read_timeout */
#define ORCHD_KEEPALIVE_TIMEOUT	75	/* keepalive_timeout */
#define ORCHD_H2_STREAMS	100	/* http2 max streams: nginx's */
#define ORCHD_H2_STREAMS_MAX	1000
/*
 * "max connections per address" unset: a browser opens 6 connections to
 * a host, so 1024 lets some 170 busy users behind one NAT through, and a
 * load test of a few hundred connections, while one address takes at
 * most a few thousandth of a gateway's 500,000 descriptors (systemd's
 * hard limit, which the gateway raises itself to), and never more than a
 * quarter of a small limit (listener.c).
 */
#define ORCHD_CONNS_ADDR	1024

/* "access log format" */
enum access_log_format {
	ACCESS_LOG_COMBINED = 0,	/* nginx's, fields added at the end */
	ACCESS_LOG_JSON			/* an object a line */
};

#endif /* ORCHD_H */
