/*
 * Process plumbing: the channels between orchd's processes, their libevent
 * integration, and message dispatch by type from one table per process.
 */

#ifndef ORCHD_PROC_H
#define ORCHD_PROC_H

#include <sys/types.h>

#include <event.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "imsg.h"
#include "msg.h"
#include "workload.h"

struct privsep;
struct imsgev;

#define PROC_ANYLEN	((size_t)-1)
#define PROC_FROM(p)	(1U << (p))
#define PROC_FROM_CLIENT (1U << PROC_MAX)	/* a control connection */

/*
 * One row of a dispatch table: a message of this type from one of the
 * senders in the mask, with exactly len bytes of payload (PROC_ANYLEN:
 * any, as long as a PROC_NAME's name).  A type may have several rows for
 * different senders; no two rows of a table share a type and a sender
 * (proc_table_check).  A message with no row for its type and sender, or
 * of the wrong length, is a protocol error: the peer is dropped, which
 * for the parent's own children is fatal.
 *
 * Flags follow the handler, as designated initializers:
 * PROC_RECORDS / PROC_RECORDS1: the payload is k records of len bytes
 * each, k >= 0 / k >= 1;
 * PROC_NAME(struct x): the payload (each record of it) begins with x's
 * name[], whose last byte is set to NUL before the handler runs, so that
 * a name from another process is always a string.  Every payload that
 * begins with a name has it: regress/e2e/tables.sh reads the tables for
 * rows that lack it, which C cannot check.
 */
#define PROC_LEN_EXACT		0	/* len bytes, or PROC_ANYLEN */
#define PROC_LEN_RECORDS	1	/* k * len bytes, k >= 0 */
#define PROC_LEN_RECORDS1	2	/* k * len bytes, k >= 1 */
#define PROC_RECORDS		.lenkind = PROC_LEN_RECORDS
#define PROC_RECORDS1		.lenkind = PROC_LEN_RECORDS1
#define PROC_NAME(s)		.namelen = sizeof(((s *)0)->name)

/*
 * Around a table: a row leaves out the flags it does not use, which are
 * zero, and -Wextra would call that a missing initializer in each row.
 */
#define PROC_TABLE_BEGIN	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")
#define PROC_TABLE_END		_Pragma("GCC diagnostic pop")

struct proc_handler {
	uint32_t	 type;
	size_t		 len;		/* exact, or a record's: lenkind */
	uint32_t	 from;
	void		(*fn)(struct imsgev *, struct imsg *);
	int		 lenkind;	/* PROC_LEN_* */
	size_t		 namelen;	/* PROC_NAME: bytes of the name */
};

/* proc_accept: the message fits a row, or why not */
#define PROC_ACCEPTED		0
#define PROC_BAD_TYPE		1	/* no row for the type */
#define PROC_BAD_SENDER		2	/* rows for the type, none the sender's */
#define PROC_BAD_LENGTH		3

struct imsgev {
	struct imsgbuf		 ibuf;
	struct event		 ev;
	short			 events;
	int			 peer;		/* privsep_procid, -1: client */
	int			 instance;	/* of a gateway peer, else 0 */
	uint32_t		 client;	/* a control connection's id */
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
 * How to answer a request.
 *
 * Whoever asked is a struct proc_asker, filled from the request by
 * proc_asker(): the process the request came from (with its instance,
 * for one of several gateways), or PROC_CLIENT for one of the parent's
 * control connections, and the id the answer carries in peerid.  It is
 * a value, without a pointer to a channel: it may be kept for as long as
 * the answer takes (a command waiting on a workload, a change in the
 * parent's queue), and proc_reply() finds the channel when it answers.
 * An answer for a channel that has gone meanwhile (a client that left)
 * is dropped, and nothing else happens.
 *
 *	struct proc_asker	 a;
 *
 *	proc_asker(iev, imsg, &a);
 *	proc_reply(ps, &a, IMSG_CTL_WORKLOAD, &cw, sizeof(cw));	(items)
 *	proc_reply_end(ps, &a);		(or proc_reply_ok, proc_reply_fail)
 *
 * Nothing routes by the bits of an id: a gateway's answer goes to the
 * channel of the instance it came on.  In the parent an endpoint is one
 * handler, with its row in orchd.c's table, whoever asks (orchctl or a
 * gateway): one answered from what the parent holds replies as above
 * (control.c's show version); one a child answers asks it through a
 * request in flight (orchd/request.c), whose answers are relayed to the
 * asker with nothing more to write (control.c's control_forward):
 *
 *	r = request_new(&a);
 *	request_send(r, PROC_STORE, 0, IMSG_CTL_SHOW_HISTORY, &cn,
 *	    sizeof(cn));
 */
#define PROC_CLIENT	PROC_MAX	/* a control connection (parent) */
struct proc_asker {
	int32_t		 peer;		/* enum privsep_procid, PROC_CLIENT */
	int32_t		 instance;	/* of a gateway, else 0 */
	uint32_t	 id;		/* answered as peerid */
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
	int			 tls;		/* -T: runtimed loads libtls */
	/* what must be done before the chroot and the change of user */
	void			(*before_privdrop)(struct privsep *);
	void			*data;
	/* the parent's control connection id, or NULL if it is gone */
	struct imsgev		*(*client_channel)(uint32_t);
};

/* every child answers these the same way: rows in each child's table */
void	proc_recv_peer(struct imsgev *, struct imsg *);
void	proc_recv_verbose(struct imsgev *, struct imsg *);
void	proc_recv_summary(struct imsgev *, struct imsg *);

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

/* answers: see "How to answer a request" above */
void		 proc_asker(const struct imsgev *, struct imsg *,
		    struct proc_asker *);
struct imsgev	*proc_reply_channel(struct privsep *,
		    const struct proc_asker *);
int		 proc_reply(struct privsep *, const struct proc_asker *,
		    uint32_t, const void *, size_t);
int		 proc_reply_ok(struct privsep *, const struct proc_asker *);
int		 proc_reply_end(struct privsep *, const struct proc_asker *);
int		 proc_reply_fail(struct privsep *, const struct proc_asker *,
		    int, const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
int		 proc_asker_same(const struct proc_asker *,
		    const struct proc_asker *);

/* child side: the channel to the parent on PROC_PARENT_FD */
void		 proc_child_init(struct privsep *, enum privsep_procid,
		    const struct proc_handler *, size_t);
void		 proc_child_ready(struct privsep *);
void		 proc_title_init(int, char **);
void		 proc_title(const char *);

/* the dispatcher's checks, and the check of a table at start */
int		 proc_accept(const struct proc_handler *, size_t, uint32_t,
		    struct imsg *, const struct proc_handler **);
int		 proc_table_check(const struct proc_handler *, size_t,
		    char *, size_t);

/*
 * A child's start (common/child.c): options -d -v -u user -c root, logging,
 * the event base, the privilege drop, the channel to the parent.  Returns
 * with the process ready to run event_dispatch().
 */
void		 child_start(struct privsep *, int, char *[],
		    enum privsep_procid, const struct proc_handler *, size_t,
		    int);

/* the options child_start() reads, and gatewayd -n too */
struct child_opts {
	const char	*root;		/* -c: the directory to chroot to */
	const char	*file;		/* -f */
	uid_t		 uid;		/* -u uid:gid */
	gid_t		 gid;
	int		 debug;		/* -d */
	int		 verbose;	/* -v, counted */
	int		 instance;	/* -i, -1 if none */
	int		 tls;		/* -T */
};
int		 child_getopt(int, char *[], const char *,
		    enum privsep_procid, struct child_opts *);

/* parent side */
#define PROC_EXEC_FDS	2	/* channels a program may be started with */
void		 proc_signals_default(const sigset_t *);
pid_t		 proc_exec(char *const [], const int *, int);
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
	/*
	 * A delta to a process that keeps no definitions (cfg_take_delta),
	 * during its apply only: workloads holds those sent, keep_map the
	 * base's index of each of the nworkloads (CFG_SENT: the next sent),
	 * removed the base's names that are gone.
	 */
	int			 delta;
	const uint32_t		*keep_map;
	const char *const	*removed;
	uint32_t		 nremoved;
};
#define CFG_SENT	UINT32_MAX
void	cfg_recv_reset(struct imsgev *, struct imsg *);
void	cfg_recv_global(struct imsgev *, struct imsg *);
void	cfg_recv_workload(struct imsgev *, struct imsg *);
void	cfg_recv_done(struct imsgev *, struct imsg *);
void	cfg_recv_delta(struct imsgev *, struct imsg *);
void	cfg_recv_keep(struct imsgev *, struct imsg *);
void	cfg_recv_start(struct imsgev *, struct imsg *);
void	cfg_set_apply(void (*)(struct privsep *, struct cfg_generation *,
	    struct cfg_generation *));
void	cfg_forget_workloads(void);
void	cfg_take_delta(const char *(*)(void));
const struct cfg_generation *cfg_current(void);
uint32_t cfg_pending_workloads(void);

/* privilege drop (common/privdrop.c) */
#define PRIVDROP_NONET	0x01		/* an empty network namespace */
#define PRIVDROP_SOCKDIR 0x02		/* root: -f's directory, read-only */
#define PRIVDROP_READALL 0x04		/* keep CAP_DAC_READ_SEARCH alone:
					   confd reads root's files */
void		 privdrop(uid_t, gid_t, const char *, int);
void		 privdrop_group(gid_t);
void		 privdrop_sockdir(const char *);
int		 privdrop_sockbound(void);

#endif /* ORCHD_PROC_H */
