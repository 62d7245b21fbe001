/*
 * What every orchd process shares beyond the messages and the workload
 * definition: file names, defaults, and the small common/ modules.  It
 * includes the message catalogue (msg.h) and the workload's definition
 * (workload.h); the parent's configuration is in orchd/conf.h.
 */

#ifndef ORCHD_H
#define ORCHD_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <time.h>

#include "compat.h"
#include "workload.h"
#include "msg.h"

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

/* "access log format" */
enum access_log_format {
	ACCESS_LOG_COMBINED = 0,	/* nginx's, fields added at the end */
	ACCESS_LOG_JSON			/* an object a line */
};

/* common/util.c */
const char	*proc_name(enum privsep_procid);
const char	*workload_state_name(enum workload_state);
const char	*workload_reason_name(int, int);
void		 heap_trim(void);
int		 instance_name_ok(const char *);
int		 instance_name_default(char *, size_t);

/* common/units.c */
int		 parse_duration(const char *, int64_t *, const char **);
int		 parse_size(const char *, int64_t *, const char **);
int		 parse_signal(const char *, int *, const char **);
const char	*signal_name(int);
int		 valid_workload_name(const char *);
int		 valid_host_pattern(const char *);
char		*fmt_duration(int64_t, char *, size_t);

/* common/budget.c: the memory budget's shared arithmetic */
extern const double	 budget_wait_bounds[BUDGET_WAIT_BOUNDS];
int64_t		 memory_estimate_next(int64_t, int64_t);
int		 budget_wait_bucket(double);
int		 parse_percent(const char *, int64_t *, const char **);
char		*fmt_percent(int64_t, char *, size_t);

/* common/filter.c: "ignore" rules, their patterns and networks */
int		 glob_valid(const char *);
int		 glob_match(const char *, const char *, size_t);
int		 netaddr_parse(const char *, struct netaddr *, const char **);
int		 netaddr_match(const struct netaddr *, const struct netaddr *);
const char	*ignore_kind_name(enum ignore_kind);
int		 ignore_check(enum ignore_kind, const char *, int, char *,
		    size_t);
int		 ignore_add(struct ignorelist *, enum ignore_kind,
		    const char *, int);
void		 ignore_free(struct ignorelist *);
/* common/deps.c: the graph of "depends on" */
typedef void	(*deps_report_fn)(void *, const struct workload_conf *,
		    const char *, const char *);
int		 deps_check(const struct workload_conf *const *, size_t,
		    deps_report_fn, void *);

/* common/cause.c: what woke a workload, as text and as JSON */
const char	*cause_kind_name(int, int);
int		 cause_kind_parse(const char *);
void		 cause_copy(char *, size_t, const char *, size_t);
void		 cause_sanitize(struct wake_cause *);
char		*cause_text(const struct wake_cause *, char *, size_t);

/* common/event.c: the events, from the messages that make them */
int		 event_from_state(struct ctl_event *, const struct rt_state *);
void		 event_reload(struct ctl_event *, int, int64_t);
void		 event_sanitize(struct ctl_event *);
const char	*event_type_name(int);
char		*event_text(const struct ctl_event *, char *, size_t);

/* common/argv.c: a command split like sh(1) would, without a shell */
int		 split_command(const char *, char ***, char *, size_t);
void		 free_argv(char **);

#endif /* ORCHD_H */
