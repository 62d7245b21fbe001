/*
 * orchd.conf's parser as its files share it.  The grammar and the lexer
 * are orchd/parse.y; what its actions call lives beside it by concern:
 * the input (files, include, macros, the string pool: parse_input.c),
 * the block of a workload and the entry points (parse_conf.c), settings
 * (parse_set.c), listeners (parse_listen.c), the checks across the
 * file's workloads (parse_check.c) and those against this host
 * (hostcheck.c).  None of it is for the rest of the parent, which calls
 * parse_config() (conf.h).
 *
 * One parse runs at a time: the state below is the parse's, reset by
 * parse_config() at each start.
 */

#ifndef ORCHD_PARSER_H
#define ORCHD_PARSER_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "confd.h"

#define WORD_MAX		8192	/* one token, a macro's value */

/* "memory budget" not written yet: 0 is none, -1 is auto */
#define BUDGET_UNSET		(-2)

struct file {
	TAILQ_ENTRY(file)	 entry;
	FILE			*stream;
	uint8_t			*buf;		/* its bytes, as digested */
	char			*name;
	dev_t			 dev;
	ino_t			 ino;
	int			 lineno;
	int			 lastc;		/* for the newline at EOF */
	char			**pending;	/* an include glob's next files */
	size_t			 npending, ipending;
};
TAILQ_HEAD(filelist, file);

typedef struct {
	union {
		int64_t		 number;
		char		*string;
		struct {
			char	*cert;
			char	*key;
			int	 acme;
		}		 tls;
	} v;
	int lineno;
} YYSTYPE;
#define YYSTYPE_IS_DECLARED 1

extern YYSTYPE		 yylval;

/* parse.y */
int		 yyparse(void);
int		 yylex(void);
int		 yyerror(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2)));
void		 lex_reset(void);

/* parse_input.c: the file being read, and the errors so far */
extern struct file	*file, *topfile;
extern int		 errors;
int		 yyerror_at(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
void		 vreport(int, const char *, va_list);
void		 check_error(const char *, int, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4)));
int		 lgetc(int);
int		 lungetc(int);
int		 expand_macro(void);
void		 input_reset(void);
int		 input_expanding(void);
int		 is_utf8(const char *);
int		 edit_distance(const char *, const char *);
struct file	*pushfile(const char *, int);
void		 include_files(const char *);
void		 closefiles(void);
char		*pool_add(char *);
char		*keep(char *);
void		 pool_free(void);
int		 symset(const char *, const char *, int);
void		 symclear(int);

/* parse_conf.c: the configuration and the workload being built */
extern struct orchd_conf	*conf;
extern struct workload_conf	*wl;
extern int			 wl_lineno, wl_seen;
extern int			 wl_user_lineno;	/* its "user" */
extern int			 wl_command_lineno, wl_dir_lineno;
extern char			*wl_cert, *wl_key;
void		 workload_begin(char *);
void		 workload_end(void);
void		 workload_abandon(void);

/* parse_set.c */
int		 set_string(char **, char *, const char *);
int		 parse_sched_add(struct strlist *, int, const char *,
		    const char *, int64_t);
int		 parse_group_begin(const char *);
int		 parse_group_sched(int, const char *, const char *, int64_t);
/* parse_limits.c: "cpu", "cpu weight", "pids", "io weight" */
#define LIMIT_CPU		0
#define LIMIT_CPU_WEIGHT	1
#define LIMIT_PIDS		2
#define LIMIT_IO_WEIGHT		3
int		 limit_read(int, const char *, int64_t);
int		 limit_put(struct wl_limits *, const char *);
int		 limit_put_wl(struct workload_conf *);
/* parse_acme.c */
int		 acme_begin(struct orchd_conf *);
int		 acme_end(struct orchd_conf *);
int		 acme_directory(struct orchd_conf *, char *);
int		 acme_contact(struct orchd_conf *, char *);
int		 acme_ca(struct orchd_conf *, char *);
int		 acme_eab(struct orchd_conf *, char *, char *);
int		 acme_per_hour(struct orchd_conf *, int64_t);
int		 swarm_manager_check(const char *);
int		 gw_timeout(int64_t *, int64_t, const char *, int);
int		 gw_limit(int64_t *, int64_t, const char *);
int		 health_set(int64_t *, int64_t, const char *, int64_t,
		    int64_t, const char *);
int		 pull_set(int *, const char *);
int		 freeze_set(int64_t *, int64_t);
int		 trusted_add(const char *);
int		 ignore_rule_add(struct ignorelist *, int, const char *, int);
void		 gateway_defaults(struct gateway_conf *);
int		 api_allow_image(const char *);
int		 api_allow_volume(const char *);
int		 api_allow_network(const char *);
int		 api_allow_address(const char *);
int		 api_allow_publish(const char *);
int		 api_allow_port(int64_t);

/* parse_notify.c: notify */
int		 notify_add(struct orchd_conf *, const char *, uint32_t);
int		 notify_event(uint32_t *, const char *);
int		 notify_allow(struct orchd_conf *, const char *);

/* parse_gate.c: allow from, deny from, auth, api allow auth */
int		 gate_access_add(int, const char *);
int		 gate_auth_begin(const char *, const char *);
int		 gate_auth_opt(const char *, const char *);

/* parse_page.c: "error page STATUS FILE", its file read now */
int		 errpage_add(struct strlist *, int64_t, const char *);
int		 gate_auth_timeout(int64_t);
int		 gate_auth_headers(const char *);
int		 gate_auth_header(const char *);
int		 api_allow_auth(const char *, const char *);

/* parse_listen.c */
int		 listener_overlaps(const struct listener_conf *,
		    const struct listener_conf *);
const char	*listener_whose(const struct listener_conf *, char *, size_t);
int		 listener_add(const char *, int64_t, int, char *, char *,
		    const char *);
int		 wl_listen_add(const char *, int64_t);
int		 listener_http2(int);
int		 listener_options(int);
void		 listener_acme_check(const struct orchd_conf *);
int		 listener_redirect(int64_t);
int		 listener_hsts(int64_t, int);

/* parse_check.c: checked across the file's workloads */
int		 host_add(const char *);
void		 route_check(void);
void		 route_forget(void);
int		 api_host_add(const char *);
int		 workload_named(const char *);
void		 index_workload(const struct workload_conf *);
void		 index_clear(void);
int		 pathcheck_add(const char *, const char *);
void		 pathcheck_run(const struct orchd_conf *);
void		 portcheck_add(void);
void		 portchecks_run(const struct orchd_conf *);
int		 depends_add(const char *);
void		 depchecks_run(const struct orchd_conf *);

/* hostcheck.c: checked against this host */
void		 host_problem(const char *, int, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4)));
void		 host_checks(void);
void		 tls_file_check(const char *, const char *);
void		 instance_check(const struct orchd_conf *);
int		 wl_uids_set(const char *);
void		 user_check_add(void);
void		 global_user_at(void);
void		 user_checks_run(struct orchd_conf *);
void		 user_checks_free(void);

#endif /* ORCHD_PARSER_H */
