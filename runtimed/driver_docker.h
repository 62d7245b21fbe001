/*
 * The docker driver's own (driver_docker.c), for what it makes of the
 * Docker daemon's events (docker_react.c): a container's state as the
 * driver keeps it, and the steps that file takes.
 */

#ifndef ORCHD_DRIVER_DOCKER_H
#define ORCHD_DRIVER_DOCKER_H

#include <stdint.h>

#include <jansson.h>

#include "msg.h"
#include "docker.h"

enum dk_op {
	OP_NONE = 0,
	OP_ADOPT,		/* is a container there from before? */
	OP_START,
	OP_STOP,
	OP_CHECK,		/* has it really exited? */
	OP_LOOK,		/* started outside orchd: does it run? */
	OP_PAUSE		/* pause or unpause (the freeze tier) */
};

enum dk_step {
	STEP_NETWORK = 0,	/* dk_network_ensure(), not a dk_call() */
	STEP_INSPECT,
	STEP_REMOVE,
	STEP_CREATE,
	STEP_START,
	STEP_STATS,
	STEP_STOP,
	STEP_PULL,		/* waits for the image's pull */
	STEP_IMAGE,		/* what the image's name gives now */
	STEP_USE,		/* the parent's yes to a create, a start */
	STEP_PAUSE,
	STEP_UNPAUSE,
	STEP_RMWAIT,		/* for a removal already under way */
	STEP_PURGEWAIT		/* for a namesake's purge (docker_purge.c) */
};

/* the parent's check asked with the image's inspect (dk_use) */
enum dk_use_early {
	USE_NONE = 0,
	USE_ASKED,		/* its answer not in yet */
	USE_YES			/* for the first create or start */
};

#define DK_IMAGEID_MAX		80	/* "sha256:" and 64 hex digits */

struct rt_docker {
	struct rt_workload	*wl;
	enum dk_op		 op;
	enum dk_step		 step;
	struct dk_req		*req;		/* the call in flight */
	char			 cname[DK_CNAME_MAX];
	char			 id[DK_ID_MAX];	/* "": none known */
	int			 running;	/* as far as we know */
	int			 paused;	/* docker pause: frozen */
	int			 removing;	/* Docker is removing it */
	struct event		*purge_timer;	/* STEP_PURGEWAIT's */
	int			 stop_wanted;	/* once the call returns */
	int			 died;		/* an exit seen mid-start */
	int			 adopted;	/* the look at start is done */
	int			 foreign_told;	/* one of its name not
						   ours: logged once */
	/* what the events stream said of the container since it started */
	int			 oom;		/* it ran out of memory */
	int			 killsig;	/* a signal not of ours */
	int			 removed;	/* it was destroyed */
	int			 start_seen;	/* a start, seen mid-call */
	int			 refused;	/* a gateway waits on a check */
	int64_t			 checked_ms;	/* monotonic: such a check
						   found it running */
	int			 listed;	/* docker_reconcile(): 1, 2 running */
	int			 restore_pending;
	struct st_restore	 restore;	/* the store's, held */
	json_t			*spec;		/* to create */
	char			 hash[DK_HASH_MAX];
	char			 run_hash[DK_HASH_MAX]; /* adopted running:
						   its label; "" none */
	int64_t			 stop_timeout;	/* of the definition it
						   was started with */
	struct dk_netwait	*netwait;	/* STEP_NETWORK */
	char			 netid[DK_ID_MAX]; /* its network's, now */
	char			 cnetid[DK_ID_MAX]; /* the container's */
	struct dk_pull_watch	*pull;		/* STEP_PULL's */
	int			 pulled;	/* by this start */
	char			 image_id[DK_IMAGEID_MAX]; /* "": none */
	uint32_t		 use_seq;	/* STEP_USE: the question's */
	enum dk_step		 use_next;	/* ... and what follows a yes */
	enum dk_use_early	 use_early;	/* asked before it is needed */
};

struct rt_workload;

struct rt_docker	*dk_get(struct rt_workload *);
int			 dk_labelled(const struct rt_workload *);
void			 dk_check_begin(struct rt_docker *);
void			 dk_look(struct rt_docker *);

#endif /* ORCHD_DRIVER_DOCKER_H */
