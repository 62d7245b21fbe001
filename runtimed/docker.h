/*
 * The docker driver: containers through the Docker Engine API.
 *
 *	docker_client.c	HTTP/1.1 over the daemon's unix socket: the only
 *			code in orchd that talks to Docker, and only the
 *			calls of enum dk_call (the allowlist)
 *	docker_spec.c	the body of a container create, built from the
 *			workload's definition, and its hash
 *	driver_docker.c	the Runtime interface: start, stop, status, logs;
 *			adoption of containers that outlived orchd
 *	docker_events.c	what happens to containers outside orchd, from
 *			the daemon's events stream
 *	docker_network.c the networks of "network NAME", made if missing
 *	docker_logs.c	orchctl logs for containers, demultiplexed
 *	docker_pull.c	images pulled, with the registry logins
 *	docker_purge.c	a deleted workload's container, and its pulled image
 *	docker_image.c	image references, and a pull's progress
 */

#ifndef RUNTIMED_DOCKER_H
#define RUNTIMED_DOCKER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "msg.h"
#include "workload.h"
#include "driver.h"

struct rt_workload;
struct imsgev;
struct imsg;

#define DK_NAME_PREFIX		"orchd-"
#define DK_LABEL_WORKLOAD	"org.orchd.workload"
#define DK_LABEL_HASH		"org.orchd.hash"
#define DK_LABEL_NETWORK	"org.orchd.network"	/* one runtimed made */
#define DK_LABEL_INSTANCE	"org.orchd.instance"	/* whose it is */
/* "docker labels on": what a container made by someone else says */
#define DK_LABEL_HOST		"org.orchd.host"
#define DK_LABEL_PORT		"org.orchd.port"
#define DK_LABEL_IDLE		"org.orchd.idle-timeout"
#define DK_LABEL_PATH		"org.orchd.path"
#define SW_LABEL_SEEN		"org.orchd.seen."	/* INSTANCE: last use */
#define SW_SEEN_FORGET		(7 * 24 * 60 * 60)	/* seconds: dropped */
/* a service, shared by the instances of a swarm: orchd-NAME */
#define DK_SNAME_MAX		(sizeof(DK_NAME_PREFIX) + ORCHD_NAME_MAX)
/* a container, this instance's: orchd-INSTANCE-NAME */
#define DK_CNAME_MAX	(sizeof(DK_NAME_PREFIX) + ORCHD_INSTANCE_MAX + \
			    ORCHD_NAME_MAX)
#define DK_ID_MAX		65	/* 64 hex digits and the NUL */
#define DK_HASH_MAX		65	/* sha256 in hex and the NUL */

/* the calls runtimed makes, and the only ones: see docker_client.c */
enum dk_call {
	DK_VERSION = 0,	/* GET /version */
	DK_PING,	/* GET /_ping */
	DK_INSPECT,	/* GET /containers/{id}/json */
	DK_CREATE,	/* POST /containers/create?name={arg} */
	DK_START,	/* POST /containers/{id}/start */
	DK_STOP,	/* POST /containers/{id}/stop?t={arg} */
	DK_REMOVE,	/* DELETE /containers/{id}?force=1&v=0 */
	DK_STATS,	/* GET /containers/{id}/stats?stream=0 */
	DK_LOGS,	/* GET /containers/{id}/logs?...&tail={arg} */
	DK_EVENTS,	/* GET /events?filters=(orchd's containers) */
	DK_LIST,	/* GET /containers/json?all=1&filters=(orchd's) */
	DK_NET_INSPECT,	/* GET /networks/{id} */
	DK_NET_CREATE,	/* POST /networks/create */
	DK_PULL,	/* POST /images/create?fromImage={id}&tag={arg} */
	DK_IMAGE,	/* GET /images/{id}/json */
	/* the swarm driver's (driver_swarm.c) */
	DK_SVC_INSPECT,	/* GET /services/{id} */
	DK_SVC_CREATE,	/* POST /services/create */
	DK_SVC_UPDATE,	/* POST /services/{id}/update?version={arg} */
	DK_TASKS,	/* GET /tasks?filters=(service {id}) */
	DK_NODE,	/* GET /nodes/{id} */
	DK_IMAGE_REMOVE, /* DELETE /images/{id}: an expired one's, unused */
	/* the freeze tier */
	DK_PAUSE,	/* POST /containers/{id}/pause */
	DK_UNPAUSE,	/* POST /containers/{id}/unpause */
	/* "docker labels on": containers made by someone else (labels.c) */
	DK_LABEL_EVENTS, /* GET /events?filters=(label org.orchd.host) */
	DK_LABEL_LIST,	/* GET /containers/json?all=1&filters=(the same) */
	/* a removal already under way (a deleted workload's purge) */
	DK_WAIT_REMOVED, /* POST /containers/{id}/wait?condition=removed */
	DK_CALL_MAX
};

/* the answer to a call */
struct dk_resp {
	int		 status;	/* HTTP status; -1: none came */
	const char	*body;		/* NUL-terminated; streamed: "" */
	size_t		 len;
	const char	*ctype;		/* Content-Type, or "" */
	const char	*api_version;	/* the API-Version field, or "" */
	const char	*err;		/* not 2xx: why, for a person */
};

/* the end of a call: always called once, unless cancelled */
typedef void	(*dk_done_cb)(const struct dk_resp *, void *);
/*
 * A streamed 2xx body as it comes, after the chunked coding; (NULL, 0)
 * first, when the head came.
 */
typedef void	(*dk_data_cb)(const char *, size_t, void *);

struct dk_req;

/* what the events stream says of a container of orchd's */
enum dk_ev {
	DK_EV_START = 0,
	DK_EV_DIE,
	DK_EV_OOM,
	DK_EV_KILL,
	DK_EV_DESTROY
};

struct dk_event {
	enum dk_ev	 ev;
	const char	*workload;	/* its label */
	const char	*id;
	const char	*cname;		/* its name; NULL if not said */
	int		 signal;	/* DK_EV_KILL; 0: not a number */
};

/* docker_client.c */
void		 dk_init(const char *, int);
struct dk_req	*dk_call(enum dk_call, const char *, const char *, json_t *,
		    dk_done_cb, dk_data_cb, void *);
void		 dk_cancel(struct dk_req *);
int		 dk_set_auth(struct dk_req *, const char *);
int		 dk_api_at_least(int, int);
const char	*dk_where(void);

/* docker_path.c */
int		 dk_path(enum dk_call, const char *, const char *, int,
		    char *, size_t, int *);

/* docker_spec.c */
json_t		*dk_spec(const struct workload_conf *, const char *, char *,
		    size_t);
int		 dk_spec_hash(json_t *, char *, size_t);
int		 dk_spec_argv(json_t *, const char *, const char *, char *,
		    size_t);
void		 dk_container_name(const char *, char *, size_t);
void		 dk_service_name(const char *, char *, size_t);
void		 dk_instance_set(const char *);
void		 dk_limits_set(const struct wl_limits *,
		    const struct wl_limits *, int64_t);
void		 dk_limits(const struct workload_conf *, struct wl_limits *);
const char	*dk_instance(void);
int		 dk_labels_ours(json_t *, const char *, char *, size_t);
int		 dk_inspected_ours(const struct dk_resp *, const char *, char *,
		    size_t, char *, size_t);
int		 dk_labels_theirs(json_t *, char *, size_t);

/* driver_docker.c: what the rest of runtimed asks */
void		 docker_adopt(struct rt_workload *);
int		 docker_restore(struct rt_workload *, const struct st_restore *);
int		 docker_looking(struct rt_workload *);
void		 docker_clear(struct rt_workload *);
void		 docker_unpause_left(struct rt_workload *);
int		 docker_purging(const char *);
/* docker_stats.c */
int64_t		 dk_stats_used(const char *, size_t);
void		 docker_died(const char *, const char *);
void		 docker_reconcile(void);
void		 docker_event(const struct dk_event *);
int		 dk_ev_action(const char *);
/*
 * Where docker_events.c hands what it reads: driver_docker.c's, through
 * this table so that the stream, below the driver, never names it.
 */
struct dk_events_to {
	void	(*event)(const struct dk_event *);
	void	(*reconcile)(void);
};
extern const struct dk_events_to docker_events_to;
int		 docker_refused(struct rt_workload *);
int		 docker_drift(struct rt_workload *);
int64_t		 docker_pulling(struct rt_workload *);

/* docker_network.c: cb gets the network's id, or NULL and why */
typedef void	(*dk_net_cb)(const char *, const char *, void *);
struct dk_netwait;
struct dk_netwait *dk_network_ensure(const char *, dk_net_cb, void *);
void		 dk_network_cancel(struct dk_netwait *);

/* swarm_spec.c */
json_t		*sw_spec(const struct workload_conf *, const char *, char *,
		    size_t, char *, size_t);
int		 sw_spec_replicas(json_t *, int);
int		 sw_seen_recent(json_t *, const char *, int64_t, int64_t,
		    char *, size_t, int64_t *);
int		 sw_seen_set(json_t *, const char *, int64_t, int64_t);
int		 sw_seen_keep(json_t *, json_t *);

/* driver_swarm.c */
void		 swarm_adopt(struct rt_workload *);
int		 swarm_restore(struct rt_workload *, const struct st_restore *);
int		 swarm_looking(struct rt_workload *);
void		 swarm_clear(struct rt_workload *);
int		 swarm_refused(struct rt_workload *);

/* swarm_agree.c: instances that share a swarm */
void		 agree_seen(struct rt_workload *, int64_t);
void		 agree_suspend(struct rt_workload *, int64_t);
int		 agree_busy_elsewhere(struct rt_workload *, json_t *);
void		 agree_clear(struct rt_workload *);

/* docker_events.c */
void		 docker_events_start(void);
void		 docker_label_events(void (*)(const char *, size_t),
		    void (*)(void));

/* labels.c: "docker labels on" */
void		 labels_apply(int);
/* labeltab.c: the labelled containers followed */
#define LABELTAB_MAX	1024
struct label_seen {
	char	 id[DK_ID_MAX];
	char	 name[ORCHD_NAME_MAX];
	int	 sent;			/* the parent was told of it */
};
struct label_seen *labeltab_find(const char *);
struct label_seen *labeltab_new(const char *);
void		 labeltab_drop(struct label_seen *);
void		 labeltab_clear(void);
int		 labeltab_judged(const char *, const char *);

/* an image reference as a pull needs it (docker_image.c) */
#define DK_IMAGE_MAX		CTL_IMAGE_MAX
#define DK_TAG_MAX		136	/* a tag's 128, or a digest */
#define DK_REGISTRY_MAX		256
struct dk_imageref {
	char		 name[DK_IMAGE_MAX];	/* without tag or digest */
	char		 tag[DK_TAG_MAX];	/* or "sha256:..." */
	char		 registry[DK_REGISTRY_MAX]; /* "docker.io" */
};

/* what the daemon has said of a pull so far (docker_image.c) */
#define DK_PULL_LINE_MAX	16384	/* one message of the stream */
#define DK_PULL_LAYERS_MAX	128	/* layers told apart */
struct dk_layer {
	char		 id[72];
	int64_t		 current;	/* bytes downloaded */
	int64_t		 total;		/* 0: not said */
	int		 done;
};
struct dk_progress {
	char		 line[DK_PULL_LINE_MAX];
	size_t		 linelen;
	int		 skipping;	/* the rest of a line too long */
	uint64_t	 skipped;	/* lines too long */
	struct dk_layer	 layers[DK_PULL_LAYERS_MAX];
	size_t		 nlayers;
	char		 status[RT_MSG_MAX]; /* "Digest: sha256:..." */
	char		 error[RT_MSG_MAX];  /* the first error */
	int		 failed;
	int		 changed;	/* since the caller last looked */
};

/* docker_image.c */
int		 dk_image_parse(const char *, struct dk_imageref *, char *,
		    size_t);
void		 dk_progress_feed(struct dk_progress *, const char *, size_t);
void		 dk_progress_sum(const struct dk_progress *, struct ctl_pull *);

/* docker_pull.c: a pull's end, 1 or 0 and why; its progress */
typedef void	(*dk_pull_done_cb)(int, const char *, void *);
typedef void	(*dk_pull_progress_cb)(const struct ctl_pull *, void *);
struct dk_pull_watch;
struct dk_pull_watch *dk_pull_start(const char *, int64_t,
		    dk_pull_progress_cb, dk_pull_done_cb, void *, char *,
		    size_t);
void		 dk_pull_stop(struct dk_pull_watch *);
int64_t		 dk_pull_left(const struct dk_pull_watch *);
int64_t		 docker_pull_timeout(const struct workload_conf *);
void		 docker_recv_regauth(struct imsgev *, struct imsg *);
void		 docker_recv_swarm(struct imsgev *, struct imsg *);
void		 docker_recv_pull(struct imsgev *, struct imsg *);
void		 docker_recv_used(struct imsgev *, struct imsg *);
const char	*docker_login(const char *);

/* docker_purge.c */
void		 docker_recv_purge(struct imsgev *, struct imsg *);

/* docker_logs.c */
int		 docker_logs(struct rt_workload *, size_t, rt_logs_cb, void *);
void		 docker_logs_clear(struct rt_workload *);
void		 docker_recv_logs(struct imsgev *, struct imsg *);

#endif /* RUNTIMED_DOCKER_H */
