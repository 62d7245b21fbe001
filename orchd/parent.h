/*
 * The parent process's own state, shared by its files.
 */

#ifndef ORCHD_PARENT_H
#define ORCHD_PARENT_H

#include <limits.h>

#include "proc.h"

struct ctl_conn;

struct orchd {
	struct privsep		 ps;
	struct orchd_conf	*conf;
	const char		*conffile;
	char			 self[PATH_MAX];	/* our executable */
	int			 debug;
	int			 verbose;
	pid_t			 pids[PROC_MAX];
	int			 nready;
	int			 shutting_down;

	/* the configuration transaction under way, if any */
	uint32_t		 generation;
	int			 cfg_acks;	/* children yet to ack */
	uint32_t		 reload_conn;	/* control conn waiting, or 0 */
};

extern struct orchd	*orchd_env;

/* orchd.c */
int		 parent_reload(struct orchd *, uint32_t, char *, size_t);
void		 parent_set_verbose(struct orchd *, int);
int		 parent_children_alive(struct orchd *);

/* config.c */
struct orchd_conf *config_load(const char *);
void		 config_send(struct orchd *);
void		 config_recv_done(struct imsgev *, struct imsg *);

/* control.c */
void		 control_init(const char *);
void		 control_listen(struct orchd *);
void		 control_cleanup(const char *);
void		 control_reply(uint32_t, uint32_t, const void *, size_t);
void		 control_fail(uint32_t, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
void		 control_recv_item(struct imsgev *, struct imsg *);
void		 control_recv_end(struct imsgev *, struct imsg *);
void		 control_recv_result(struct imsgev *, struct imsg *);
void		 control_forward(struct imsgev *, struct imsg *);
void		 control_show_summary(struct imsgev *, struct imsg *);
void		 control_reload(struct imsgev *, struct imsg *);
void		 control_verbose(struct imsgev *, struct imsg *);
void		 control_logs(struct imsgev *, struct imsg *);

/* listen.c */
int		 listeners_bind(struct orchd_conf *, struct orchd_conf *,
		    char *, size_t);
void		 listeners_close(struct orchd_conf *, struct orchd_conf *);
void		 listeners_send(struct orchd *);

/* logs.c: orchctl logs, answered by the parent */
void		 logs_start(struct imsgev *, uint32_t,
		    const struct ctl_logs *);
void		 logs_stop(uint32_t);

/* spawn.c: process workloads, started and stopped for runtimed */
void		 spawn_request(struct imsgev *, struct imsg *);
void		 spawn_kill(struct imsgev *, struct imsg *);
int		 spawn_exited(struct orchd *, pid_t, int);
void		 spawn_shutdown(struct orchd *);

/* store.c */
__dead void	 store_main(int, char *[]);

#endif /* ORCHD_PARENT_H */
