/*
 * Process plumbing: the channels between orchd's processes, their libevent
 * integration, and message dispatch by type from one table per process.
 */

#ifndef ORCHD_PROC_H
#define ORCHD_PROC_H

#include <sys/types.h>
#include <event.h>

#include "imsg.h"
#include "orchd.h"

struct privsep;
struct imsgev;

#define PROC_ANYLEN	((size_t)-1)
#define PROC_FROM(p)	(1U << (p))
#define PROC_FROM_CLIENT (1U << PROC_MAX)	/* a control connection */

/*
 * One row of a dispatch table: a message of this type is accepted only
 * from the senders in the mask and only with exactly len bytes of payload
 * (unless PROC_ANYLEN).  Anything else is a protocol error: the peer is
 * dropped, which for the parent's own children is fatal.
 */
struct proc_handler {
	uint32_t	 type;
	size_t		 len;
	uint32_t	 from;
	void		(*fn)(struct imsgev *, struct imsg *);
};

struct imsgev {
	struct imsgbuf		 ibuf;
	struct event		 ev;
	short			 events;
	int			 peer;		/* privsep_procid, -1: client */
	int			 instance;	/* of a gateway peer, else 0 */
	struct privsep		*ps;
	const struct proc_handler *handlers;
	size_t			 nhandlers;
	/* called once on EOF or a protocol error; NULL means fatal */
	void			(*closed)(struct imsgev *);
	const char		*lost;		/* why, for closed() */
	void			*data;
	int			 dead;
};

/*
 * peers[PROC_GATEWAY] is unused: there may be several gateways ("prefork"),
 * and a message for PROC_GATEWAY goes to every one of them.
 */
struct privsep {
	enum privsep_procid	 id;		/* who we are */
	int			 instance;	/* a gateway's number, else 0 */
	const char		*title;		/* "gateway 2"; NULL: by id */
	struct imsgev		*peers[PROC_MAX];
	struct imsgev		*gateways[ORCHD_PREFORK_MAX];
	int			 ngateways;	/* channels in gateways[] */
	const struct proc_handler *handlers;
	size_t			 nhandlers;
	time_t			 started;	/* monotonic seconds */
	uint32_t		 generation;	/* config generation applied */
	uint32_t		 workloads;	/* known to this process */
	const char		*file;		/* -f: the store's database */
	void			*data;
};

/* every child answers these the same way: list them in its table */
void	proc_recv_peer(struct imsgev *, struct imsg *);
void	proc_recv_verbose(struct imsgev *, struct imsg *);
void	proc_recv_summary(struct imsgev *, struct imsg *);
#define PROC_COMMON_HANDLERS \
	{ IMSG_PROC_PEER, sizeof(struct proc_peer), PROC_FROM(PROC_PARENT), \
	    proc_recv_peer }, \
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT), \
	    proc_recv_verbose }, \
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT), \
	    proc_recv_summary }

struct imsgev	*imsgev_new(struct privsep *, int, int, uint32_t);
void		 imsgev_free(struct imsgev *);
void		 imsgev_add(struct imsgev *);
int		 imsgev_compose(struct imsgev *, uint32_t, uint32_t, int,
		    const void *, size_t);
int		 proc_compose(struct privsep *, enum privsep_procid, uint32_t,
		    uint32_t, int, const void *, size_t);
int		 proc_composev(struct privsep *, enum privsep_procid, uint32_t,
		    uint32_t, const struct iovec *, int);
int		 proc_compose_instance(struct privsep *, enum privsep_procid,
		    int, uint32_t, uint32_t, int, const void *, size_t);
int		 proc_instances(struct privsep *, enum privsep_procid);
struct imsgev	*proc_channel(struct privsep *, enum privsep_procid, int);
void		 proc_summary(struct privsep *, struct ctl_summary *);
time_t		 proc_uptime(struct privsep *);
time_t		 monotime(void);
int64_t		 monotime_ms(void);
void		 evtimer_add_ms(struct event *, int64_t);
void		 timer_arm(struct event **, void (*)(int, short, void *),
		    void *, const struct timeval *);
void		 timer_disarm(struct event **);

/* child side: the channel to the parent on PROC_PARENT_FD */
void		 proc_child_init(struct privsep *, enum privsep_procid,
		    const struct proc_handler *, size_t);
void		 proc_child_ready(struct privsep *);
void		 proc_title_init(int, char **);
void		 proc_title(const char *);

/*
 * A child's start (common/child.c): options -d -v -u user -c root, logging,
 * the event base, the privilege drop, the channel to the parent.  Returns
 * with the process ready to run event_dispatch().
 */
void		 child_start(struct privsep *, int, char *[],
		    enum privsep_procid, const struct proc_handler *, size_t,
		    int);

/* parent side */
pid_t		 proc_spawn(struct privsep *, enum privsep_procid, int,
		    char *const []);

/*
 * Configuration as a child receives it (common/cfgrecv.c): a transaction
 * RESET, GLOBAL, WORKLOAD..., DONE (acknowledged), then START makes the
 * new generation current and calls the process's apply function with the
 * generation it replaced, which is freed afterwards.
 */
struct cfg_generation {
	uint32_t		 id;
	struct global_settings	 global;
	struct workloadlist	 workloads;
	uint32_t		 nworkloads;
};
void	cfg_recv_reset(struct imsgev *, struct imsg *);
void	cfg_recv_global(struct imsgev *, struct imsg *);
void	cfg_recv_workload(struct imsgev *, struct imsg *);
void	cfg_recv_done(struct imsgev *, struct imsg *);
void	cfg_recv_start(struct imsgev *, struct imsg *);
void	cfg_set_apply(void (*)(struct privsep *, struct cfg_generation *,
	    struct cfg_generation *));
void	cfg_forget_workloads(void);
const struct cfg_generation *cfg_current(void);
#define CFG_HANDLERS \
	{ IMSG_CFG_RESET, sizeof(uint32_t), PROC_FROM(PROC_PARENT), \
	    cfg_recv_reset }, \
	{ IMSG_CFG_GLOBAL, sizeof(struct global_settings), \
	    PROC_FROM(PROC_PARENT), cfg_recv_global }, \
	{ IMSG_CFG_WORKLOAD, PROC_ANYLEN, PROC_FROM(PROC_PARENT), \
	    cfg_recv_workload }, \
	{ IMSG_CFG_DONE, sizeof(uint32_t), PROC_FROM(PROC_PARENT), \
	    cfg_recv_done }, \
	{ IMSG_CFG_START, sizeof(uint32_t), PROC_FROM(PROC_PARENT), \
	    cfg_recv_start }

/* privilege drop (common/privdrop.c) */
#define PRIVDROP_NONET	0x01		/* an empty network namespace */
#define PRIVDROP_SOCKDIR 0x02		/* root: -f's directory, read-only */
void		 privdrop(uid_t, gid_t, const char *, int);
void		 privdrop_group(gid_t);
void		 privdrop_sockdir(const char *);
int		 privdrop_sockbound(void);
int		 privdrop_ids(const char *, uid_t *, gid_t *);

#endif /* ORCHD_PROC_H */
