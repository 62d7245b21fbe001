/*
 * orchd.conf(5): the configuration grammar.
 *
 * Built the way the OpenBSD daemons build theirs: a stack of open files
 * for include, a sorted keyword table, a hand-written lexer with macro
 * expansion, and an error production per line so that every error of a
 * file is reported before parse_config() gives up.
 *
 * Every string the lexer makes is recorded in a pool; a grammar action
 * that keeps one takes it out of the pool (keep()), and the rest is freed
 * when the parse ends, so that error recovery never leaks.
 */

%{
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argv.h"
#include "budget.h"
#include "compat.h"
#include "deps.h"
#include "ignore.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "units.h"
#include "util.h"
#include "workload.h"
#include "conf.h"

#define INCLUDE_DEPTH_MAX	16
#define WORD_MAX		8192	/* one token, a macro's value */
#define PUSHBACK_MAX		(WORD_MAX + 64)
#define EXPAND_START		0x100	/* markers around an expanded macro */
#define EXPAND_DONE		0x101
/* what a bad duration or size is told (common/units.c) */
#define DURATION_UNITS	"seconds, or a number with s, m, h or d (30s, 5m, " \
			"1h, 2d)"
#define SIZE_UNITS	"bytes, or a number with K, M or G (64K, 512M, 1G)"

struct file {
	TAILQ_ENTRY(file)	 entry;
	FILE			*stream;
	char			*name;
	dev_t			 dev;
	ino_t			 ino;
	int			 lineno;
	int			 lastc;		/* for the newline at EOF */
	char			**pending;	/* an include glob's next files */
	size_t			 npending, ipending;
};
TAILQ_HEAD(filelist, file);

struct sym {
	TAILQ_ENTRY(sym)	 entry;
	int			 used;
	int			 persist;	/* -D: the file cannot override */
	char			*name;
	char			*value;
	char			*file;		/* where it was defined */
	int			 lineno;
};
TAILQ_HEAD(symlist, sym);

typedef struct {
	union {
		int64_t		 number;
		char		*string;
		struct {
			char	*cert;
			char	*key;
		}		 tls;
	} v;
	int lineno;
} YYSTYPE;
#define YYSTYPE_IS_DECLARED 1

static struct filelist	 files = TAILQ_HEAD_INITIALIZER(files);
static struct file	*file, *topfile;
static struct symlist	 symhead = TAILQ_HEAD_INITIALIZER(symhead);
static int		 errors;

/* pushback: characters and macro values, read back last in first out */
static int		 pushback[PUSHBACK_MAX];
static size_t		 pushback_len;
static int		 expanding;

/* strings made by the lexer and not (yet) kept by the grammar */
static char		**pool;
static size_t		 pool_len, pool_size;

/* what the grammar is building */
static struct orchd_conf	*conf;
static struct workload_conf	*wl;
static int			 wl_lineno, wl_errors, wl_seen;
static int			 wl_user_lineno;	/* its "user" */
static int			 wl_command_lineno, wl_dir_lineno;
static char			*wl_cert, *wl_key;
static char			 lasttok[48];	/* for "syntax error near" */
static char			 lineword[48];	/* an unknown first word */
static int			 at_bol = 1;	/* next token starts a line */

/*
 * The names and hosts of the workloads parsed so far, for the checks of
 * each new one: a walk of every workload per host made 10,000 workloads
 * quadratic.  Open addressing, in a mapping of its own, so that the
 * index leaves no holes in the heap among the definitions it indexes.
 * The keys belong to the workloads.
 */
#define INDEX_MIN	256		/* slots: a page */
struct index_slot {
	const char			*key;	/* NULL: empty */
	const struct workload_conf	*wl;
};
struct index {
	struct index_slot	*slots;
	size_t			 size;		/* a power of two, or 0 */
	size_t			 count;
	int			 nocase;	/* hosts: compared without case */
};
static struct index	 names_index = { NULL, 0, 0, 0 };
static struct index	 hosts_index = { NULL, 0, 0, 1 };
static int			 lastbare;	/* last token: a bare word */
static int			 prevtok;	/* the token before the last */

/*
 * Host paths (volumes, "api allow volume") are checked against orchd's
 * own files once the whole file is read: "database" or "log directory"
 * may come after the workload that mounts it.  Where each was written.
 */
struct pathcheck {
	char	*file;
	int	 lineno;
	char	*path;
	char	*what;		/* "volume", "api allow volume" */
};
static struct pathcheck	*pathchecks;
static size_t		 npathchecks;

/* "memory budget" not written yet: 0 is none, -1 is auto */
#define BUDGET_UNSET	(-2)

#define SEEN_DRIVER	0x01
#define SEEN_NETWORK	0x02
#define SEEN_HEALTH	0x04
#define SEEN_MEMORY	0x08
#define SEEN_ADDRESS	0x10
#define SEEN_KEEPWARM	0x20
#define SEEN_KEYPAIR	0x40
#define SEEN_INIT	0x80
#define SEEN_STOPSIG	0x100
#define SEEN_BUSYFAIL	0x200

/*
 * The users that process workloads name, checked once the whole file is
 * read: the daemons' user may be set after them.
 */
struct user_check {
	TAILQ_ENTRY(user_check)		 entry;
	char				*file;
	int				 lineno;
	const struct workload_conf	*wl;
};
static TAILQ_HEAD(, user_check)	 user_checks =
				    TAILQ_HEAD_INITIALIZER(user_checks);
static char			*uids_file;	/* where "workload uids" is */
static int			 uids_lineno;

int	(*parse_user_lookup)(const char *, uid_t *, gid_t *);
int	  parse_host_checks = PARSE_HOST_NONE;

/*
 * Every workload's address and port, checked once the whole file is
 * read against each other and against the gateway's listeners, which
 * may come later in the file.
 */
struct portcheck {
	char				*file;
	int				 lineno;
	const struct workload_conf	*wl;
	struct sockaddr_storage		 ss;
	socklen_t			 sslen;
};
static struct portcheck	*portchecks;
static size_t		 nportchecks;

/*
 * Every "depends on", checked once the whole file is read (common/deps.c):
 * a workload may depend on one defined after it.  Where each was written.
 */
struct depcheck {
	char	*file;
	int	 lineno;
	char	*wl;		/* the workload's name */
	char	*dep;		/* the name it depends on */
};
static struct depcheck	*depchecks;
static size_t		 ndepchecks;

int		 yyparse(void);
int		 yylex(void);
static int	 lex(void);
int		 yyerror(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2)));
static int	 yyerror_at(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
static int	 kw_cmp(const void *, const void *);
static int	 lookup(const char *, const char **);
static int	 edit_distance(const char *, const char *);
static int	 unknown_keyword(const char *);
static int	 lgetc(int);
static int	 lungetc(int);
static int	 findeol(void);
static struct file *pushfile(const char *, int);
static int	 popfile(void);
static void	 include_files(const char *);
static void	 pending_free(struct file *);
static int	 symset(const char *, const char *, int);
static char	*symget(const char *);
static char	*pool_add(char *);
static char	*keep(char *);
static void	 pool_free(void);
static int	 set_string(char **, char *, const char *);
static int	 swarm_manager_check(const char *);
static int	 host_add(const char *);
static int	 api_host_add(const char *);
static int	 listener_add(const char *, int64_t, int, char *, char *,
		    const char *);
static int	 listener_http2(int);
static int	 wl_listen_add(const char *, int64_t);
static int	 gw_timeout(int64_t *, int64_t, const char *, int);
static int	 gw_limit(int64_t *, int64_t, const char *);
static int	 health_set(int64_t *, int64_t, const char *, int64_t,
		    int64_t, const char *);
static int	 trusted_add(const char *);
static int	 pull_set(int *, const char *);
static int	 ignore_rule_add(struct ignorelist *, int, const char *, int);
static void	 workload_begin(char *);
static void	 workload_end(void);
static void	 workload_abandon(void);
static const struct workload_conf *index_find(const struct index *,
		    const char *);
static void	 index_add(struct index *, const char *,
		    const struct workload_conf *);
static void	 index_clear(struct index *);
static void	 index_workload(const struct workload_conf *);
static void	 gateway_defaults(struct gateway_conf *);
static int	 pathcheck_add(const char *, const char *);
static void	 pathcheck_run(const struct orchd_conf *);
static int	 api_allow_image(const char *);
static int	 api_allow_volume(const char *);
static int	 api_allow_network(const char *);
static int	 api_allow_address(const char *);
static int	 api_allow_publish(const char *);
static int	 api_allow_port(int64_t);
static int	 wl_uids_set(const char *);
static void	 user_check_add(void);
static void	 user_checks_run(struct orchd_conf *);
static void	 user_checks_free(void);
static int	 wl_dir_default(struct orchd_conf *);
static void	 host_problem(const char *, int, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4)));
static void	 host_checks(void);
static void	 tls_file_check(const char *, const char *);
static void	 portcheck_add(void);
static void	 portchecks_run(const struct orchd_conf *);
static int	 depends_add(const char *);
static void	 depchecks_run(const struct orchd_conf *);
static void	 instance_check(const struct orchd_conf *);
%}

%token	ADDRESS ALLOW API BODY BRIDGE CERTIFICATE CHROOT COMMAND CONNECT
%token	CONNECTIONS DATABASE DEPENDS DIRECTORY DOCKER DRIVER ENV FAILURES
%token	FILENAME HEADER
%token	HEALTH HOST IDLE IMAGE INCLUDE INIT INTERVAL KEEP KEEPALIVE KEY
%token	KEYPAIR LISTEN LOG MAXCONN MEMORY METRICS NETWORK ON PATH PER PORT
%token	PREFORK PROCESS PROXY PUBLIC REAPER RUNTIME SIGNAL SOCKET STOP TCP
%token	TIMEOUT TLS TRUSTED UIDS UPSTREAM USER VOLUME WAKE WARM WORKLOAD
%token	AGENT ANSWER FROM IGNORE SERVER TIMING TUNNEL
%token	BUSY FAIL
%token	CHANGE NEXT RESTART
%token	PUBLISH
%token	AUTH PULL REGISTRY
%token	CONSTRAINT REPLICAS SWARM
%token	CA MANAGER
%token	AFTER EXPIRE
%token	HTTP2 KNOWLEDGE PRIOR STREAMS
%token	BUDGET CONCURRENT ESTIMATE LIMIT PRESSURE WAKES
%token	INSTANCE NAME
%token	ERROR
%token	ACCESS FORMAT SIZE
%token	<v.string>	STRING
%token	<v.number>	NUMBER
%type	<v.string>	value
%type	<v.number>	duration size port
%type	<v.number>	ignorekind answer onoff onchange
%type	<v.tls>		tlsopt
%type	<v.number>	h2opt
%%

grammar		: /* empty */
		| grammar '\n'
		| grammar include
		| grammar varset '\n'
		| grammar main '\n'
		| grammar workload '\n'
		| grammar error '\n'		{ yyerrok; }
		;

optnl		: /* empty */
		| optnl '\n'
		;

nl		: '\n' optnl
		;

/* the action runs once the newline is read: the next token is the file's */
include		: INCLUDE STRING '\n'		{
			/* no YYERROR: the newline is read already */
			include_files($2);
		}
		;

value		: STRING
		| NUMBER			{
			char	*s;

			if (asprintf(&s, "%lld", (long long)$1) == -1 ||
			    pool_add(s) == NULL) {
				yyerror("out of memory");
				YYERROR;
			}
			$$ = s;
		}
		;

varset		: STRING '=' value		{
			const char	*p;

			for (p = $1; *p != '\0'; p++)
				if (!isalnum((unsigned char)*p) && *p != '_')
					break;
			if (*p != '\0' || isdigit((unsigned char)*$1)) {
				yyerror("invalid macro name \"%s\"", $1);
				YYERROR;
			}
			if (symset($1, $3, 0) == -1) {
				yyerror("cannot store macro \"%s\"", $1);
				YYERROR;
			}
		}
		;

/* durations: 30 (seconds), 30s, 5m, 1h; sizes: 512 (bytes), 64K, 512M */
duration	: NUMBER			{
			if ($1 < 0 || $1 > INT32_MAX) {
				yyerror("invalid duration %lld",
				    (long long)$1);
				YYERROR;
			}
			$$ = $1;
		}
		| STRING			{
			const char	*errstr;

			if (parse_duration($1, &$$, &errstr) == -1) {
				yyerror("%s: \"%s\": %s", errstr, $1,
				    DURATION_UNITS);
				YYERROR;
			}
		}
		;

size		: NUMBER			{
			if ($1 < 0) {
				yyerror("invalid size %lld", (long long)$1);
				YYERROR;
			}
			$$ = $1;
		}
		| STRING			{
			const char	*errstr;

			if (parse_size($1, &$$, &errstr) == -1) {
				yyerror("%s: \"%s\": %s", errstr, $1,
				    SIZE_UNITS);
				YYERROR;
			}
		}
		;

port		: NUMBER			{
			if ($1 < 1 || $1 > 65535) {
				yyerror("invalid port %lld: must be from 1 "
				    "to 65535", (long long)$1);
				YYERROR;
			}
			$$ = $1;
		}
		;

/* requests that are not use: "ignore path|agent|from X [answer 200]" */
ignorekind	: PATH				{ $$ = IGNORE_PATH; }
		| AGENT				{ $$ = IGNORE_AGENT; }
		| FROM				{ $$ = IGNORE_FROM; }
		;

answer		: /* empty */			{ $$ = IGNORE_ANSWER; }
		| ANSWER NUMBER			{
			if ($2 != 200 && $2 != 503) {
				yyerror("answer %lld: 200 or 503",
				    (long long)$2);
				YYERROR;
			}
			$$ = $2;
		}
		;

onoff		: ON				{ $$ = 1; }
		| STRING			{
			if (strcmp($1, "off") != 0) {
				yyerror("\"%s\": on or off", $1);
				YYERROR;
			}
			$$ = 0;
		}
		;

onchange	: RESTART			{ $$ = ON_CHANGE_RESTART; }
		| NEXT WAKE			{ $$ = ON_CHANGE_NEXT_WAKE; }
		;

tlsopt		: /* empty */			{
			$$.cert = $$.key = NULL;
		}
		| TLS CERTIFICATE STRING KEY STRING	{
			$$.cert = $3;
			$$.key = $5;
		}
		;

h2opt		: /* empty */			{ $$ = LISTENER_H2_ON; }
		| HTTP2 STRING			{
			if (strcmp($2, "off") != 0) {
				yyerror("http2 \"%s\": off or prior "
				    "knowledge", $2);
				YYERROR;
			}
			$$ = LISTENER_H2_OFF;
		}
		| HTTP2 PRIOR KNOWLEDGE		{ $$ = LISTENER_H2_PRIOR; }
		;

main		: USER STRING			{
			if (conf->user[0] != '\0') {
				yyerror("user already set");
				YYERROR;
			}
			if ($2[0] == '\0' || strlcpy(conf->user, $2,
			    sizeof(conf->user)) >= sizeof(conf->user)) {
				conf->user[0] = '\0';
				yyerror("invalid user \"%s\"", $2);
				YYERROR;
			}
		}
		| CHROOT STRING			{
			if (set_string(&conf->chroot, $2, "chroot") == -1)
				YYERROR;
		}
		| DATABASE STRING		{
			if (set_string(&conf->database, $2, "database") == -1)
				YYERROR;
		}
		| SOCKET STRING			{
			if (set_string(&conf->socket, $2, "socket") == -1)
				YYERROR;
		}
		| LOG DIRECTORY STRING		{
			if (set_string(&conf->logdir, $3,
			    "log directory") == -1)
				YYERROR;
		}
		| ACCESS LOG STRING		{
			if (conf->access_log != NULL ||
			    conf->access_log_syslog) {
				yyerror("access log already set");
				YYERROR;
			}
			if (strcmp($3, "syslog") == 0)
				conf->access_log_syslog = 1;
			else if ($3[0] != '/') {
				yyerror("access log \"%s\": an absolute path "
				    "or syslog", $3);
				YYERROR;
			} else if (set_string(&conf->access_log, $3,
			    "access log") == -1)
				YYERROR;
		}
		| ACCESS LOG FORMAT STRING	{
			if (conf->access_log_format != -1) {
				yyerror("access log format already set");
				YYERROR;
			}
			if (strcmp($4, "combined") == 0)
				conf->access_log_format = ACCESS_LOG_COMBINED;
			else if (strcmp($4, "json") == 0)
				conf->access_log_format = ACCESS_LOG_JSON;
			else {
				yyerror("unknown access log format \"%s\": "
				    "combined or json", $4);
				YYERROR;
			}
		}
		| LOG MAXCONN SIZE size		{
			if (conf->log_max_size != -1) {
				yyerror("log max size already set");
				YYERROR;
			}
			if ($4 == 0) {
				yyerror("log max size must be positive");
				YYERROR;
			}
			conf->log_max_size = $4;
		}
		| DOCKER SOCKET STRING		{
			if (set_string(&conf->docker_socket, $3,
			    "docker socket") == -1)
				YYERROR;
		}
		| IDLE TIMEOUT duration		{
			if (conf->idle_timeout != -1) {
				yyerror("idle timeout already set");
				YYERROR;
			}
			conf->idle_timeout = $3;
		}
		| REAPER INTERVAL duration	{
			if (conf->reaper_interval != -1) {
				yyerror("reaper interval already set");
				YYERROR;
			}
			if ($3 == 0) {
				yyerror("reaper interval must be positive");
				YYERROR;
			}
			conf->reaper_interval = $3;
		}
		| WAKE TIMEOUT duration		{
			if (conf->wake_timeout != -1) {
				yyerror("wake timeout already set");
				YYERROR;
			}
			if ($3 == 0) {
				yyerror("wake timeout must be positive");
				YYERROR;
			}
			conf->wake_timeout = $3;
		}
		| HEALTH INTERVAL duration	{
			if (health_set(&conf->health_interval, $3,
			    "health interval", 0, WL_HEALTH_INTERVAL_MAX,
			    "s") == -1)
				YYERROR;
		}
		| HEALTH TIMEOUT duration	{
			if (health_set(&conf->health_timeout, $3,
			    "health timeout", 1, WL_HEALTH_INTERVAL_MAX,
			    "s") == -1)
				YYERROR;
		}
		| HEALTH FAILURES NUMBER	{
			if (health_set(&conf->health_failures, $3,
			    "health failures", 1, WL_HEALTH_FAILURES_MAX,
			    "") == -1)
				YYERROR;
		}
		| LISTEN ON STRING PORT port tlsopt h2opt	{
			if (listener_add($3, $5, 0, $6.cert, $6.key,
			    NULL) == -1 || listener_http2($7) == -1)
				YYERROR;
		}
		| API LISTEN ON STRING PORT port tlsopt h2opt	{
			if (listener_add($4, $6, 1, $7.cert, $7.key,
			    NULL) == -1 || listener_http2($8) == -1)
				YYERROR;
		}
		| HTTP2 MAXCONN STREAMS NUMBER	{
			if (conf->gateway.h2_max_streams != -1) {
				yyerror("http2 max streams already set");
				YYERROR;
			}
			if ($4 < 1 || $4 > ORCHD_H2_STREAMS_MAX) {
				yyerror("http2 max streams: 1 to %d",
				    ORCHD_H2_STREAMS_MAX);
				YYERROR;
			}
			conf->gateway.h2_max_streams = $4;
		}
		| API HOST STRING		{
			if (api_host_add($3) == -1)
				YYERROR;
		}
		| API KEY FILENAME STRING	{
			if (set_string(&conf->api_key_file, $4,
			    "api key file") == -1)
				YYERROR;
		}
		| API ALLOW PROCESS		{
			if (conf->api_allow_process) {
				yyerror("api allow process already set");
				YYERROR;
			}
			conf->api_allow_process = 1;
		}
		| API ALLOW IMAGE STRING	{
			if (api_allow_image($4) == -1)
				YYERROR;
		}
		| API ALLOW VOLUME STRING	{
			if (api_allow_volume($4) == -1)
				YYERROR;
		}
		| API ALLOW NETWORK STRING	{
			if (api_allow_network($4) == -1)
				YYERROR;
		}
		| API ALLOW NETWORK HOST	{
			if (conf->api_allow_net_host) {
				yyerror("api allow network host already set");
				YYERROR;
			}
			conf->api_allow_net_host = 1;
		}
		| API ALLOW ADDRESS STRING	{
			if (api_allow_address($4) == -1)
				YYERROR;
		}
		| API ALLOW PUBLISH STRING	{
			if (api_allow_publish($4) == -1)
				YYERROR;
		}
		| API ALLOW PUBLISH PORT NUMBER	{
			if (api_allow_port($5) == -1)
				YYERROR;
		}
		| API ALLOW STRING		{
			if (strcmp($3, "root") != 0) {
				yyerror("unknown api allow \"%s\": process, "
				    "image, volume, network, address, publish "
				    "or root", $3);
				YYERROR;
			}
			if (conf->api_allow_root) {
				yyerror("api allow root already set");
				YYERROR;
			}
			conf->api_allow_root = 1;
		}
		| API METRICS PUBLIC		{
			if (conf->api_metrics_public) {
				yyerror("api metrics public already set");
				YYERROR;
			}
			conf->api_metrics_public = 1;
		}
		| WORKLOAD UIDS STRING		{
			if (wl_uids_set($3) == -1)
				YYERROR;
		}
		| WORKLOAD UIDS NUMBER		{
			yyerror("workload uids %lld: LOW-HIGH, such as %d-%d",
			    (long long)$3, ORCHD_WL_UID_LOW, ORCHD_WL_UID_HIGH);
			YYERROR;
		}
		| WORKLOAD DIRECTORY STRING	{
			if ($3[0] != '/') {
				yyerror("workload directory \"%s\" must be an "
				    "absolute path", $3);
				YYERROR;
			}
			if (set_string(&conf->wl_dir, $3,
			    "workload directory") == -1)
				YYERROR;
		}
		| IGNORE ignorekind STRING answer	{
			if (ignore_rule_add(&conf->ignores, $2, $3, $4) == -1)
				YYERROR;
		}
		| TUNNEL IDLE TIMEOUT duration	{
			if (conf->tunnel_idle != -1) {
				yyerror("tunnel idle timeout already set");
				YYERROR;
			}
			conf->tunnel_idle = $4;
		}
		| SERVER TIMING onoff		{
			if (conf->server_timing != -1) {
				yyerror("server timing already set");
				YYERROR;
			}
			conf->server_timing = $3;
		}
		| ON CHANGE onchange		{
			if (conf->on_change != -1) {
				yyerror("on change already set");
				YYERROR;
			}
			conf->on_change = $3;
		}
		| budget
		| PULL STRING			{
			if (pull_set(&conf->pull, $2) == -1)
				YYERROR;
		}
		| PULL TIMEOUT duration		{
			if (gw_timeout(&conf->pull_timeout, $3,
			    "pull timeout", 0) == -1)
				YYERROR;
		}
		| EXPIRE AFTER duration		{
			/* the API's workloads' default; 0: never */
			if (gw_timeout(&conf->expire_after, $3,
			    "expire after", 1) == -1)
				YYERROR;
		}
		| REGISTRY AUTH FILENAME STRING	{
			if (set_string(&conf->regauth_file, $4,
			    "registry auth file") == -1)
				YYERROR;
		}
		| INSTANCE NAME STRING		{
			/* swarm: the label org.orchd.seen.NAME is ours */
			if (conf->instance[0] != '\0') {
				yyerror("instance name already set");
				YYERROR;
			}
			if (!instance_name_ok($3)) {
				yyerror("instance name \"%s\": 1 to %d "
				    "letters, digits, '.', '-' or '_'", $3,
				    ORCHD_INSTANCE_MAX - 1);
				YYERROR;
			}
			strlcpy(conf->instance, $3, sizeof(conf->instance));
		}
		| SWARM MANAGER STRING CA STRING CERTIFICATE STRING KEY STRING {
			if (swarm_manager_check($3) == -1 ||
			    set_string(&conf->swarm_manager, $3,
			    "swarm manager") == -1 ||
			    set_string(&conf->swarm_ca, $5, "swarm ca") ==
			    -1 || set_string(&conf->swarm_cert, $7,
			    "swarm certificate") == -1 ||
			    set_string(&conf->swarm_key, $9, "swarm key") ==
			    -1)
				YYERROR;
		}
		| gwmain
		;

/* the memory budget and wake admission */
budget		: MEMORY BUDGET value		{
			const char	*errstr;
			int64_t		 v;

			if (conf->memory_budget != BUDGET_UNSET) {
				yyerror("memory budget already set");
				YYERROR;
			}
			if (strcmp($3, "auto") == 0)
				v = -1;
			else if (parse_size($3, &v, &errstr) == -1) {
				yyerror("%s: \"%s\": auto or a size, %s",
				    errstr, $3, SIZE_UNITS);
				YYERROR;
			} else if (v == 0) {
				yyerror("memory budget must be positive");
				YYERROR;
			}
			conf->memory_budget = v;
		}
		| MEMORY ESTIMATE size		{
			if (conf->memory_estimate != -1) {
				yyerror("memory estimate already set");
				YYERROR;
			}
			if ($3 == 0) {
				yyerror("memory estimate must be positive");
				YYERROR;
			}
			conf->memory_estimate = $3;
		}
		| MEMORY PRESSURE LIMIT value	{
			const char	*errstr;
			int64_t		 v;

			if (conf->pressure_limit != -1) {
				yyerror("memory pressure limit already set");
				YYERROR;
			}
			if (strcmp($4, "off") == 0)
				v = 0;
			else if (parse_percent($4, &v, &errstr) == -1) {
				yyerror("%s: \"%s\": off or a percentage "
				    "such as 10%% or 2.5%%", errstr, $4);
				YYERROR;
			}
			conf->pressure_limit = v;
		}
		| MAXCONN CONCURRENT WAKES NUMBER	{
			if (conf->max_wakes != -1) {
				yyerror("max concurrent wakes already set");
				YYERROR;
			}
			if ($4 < 0 || $4 > ORCHD_MAX_WAKES) {
				yyerror("max concurrent wakes %lld out of "
				    "range (0-%d)", (long long)$4,
				    ORCHD_MAX_WAKES);
				YYERROR;
			}
			conf->max_wakes = $4;
		}
		;

/* the gateway's timeouts and limits */
gwmain		: HEADER TIMEOUT duration	{
			if (gw_timeout(&conf->gateway.header_timeout, $3,
			    "header timeout", 0) == -1)
				YYERROR;
		}
		| BODY TIMEOUT duration		{
			if (gw_timeout(&conf->gateway.body_timeout, $3,
			    "body timeout", 0) == -1)
				YYERROR;
		}
		| CONNECT TIMEOUT duration	{
			if (gw_timeout(&conf->gateway.connect_timeout, $3,
			    "connect timeout", 0) == -1)
				YYERROR;
		}
		| UPSTREAM TIMEOUT duration	{
			if (gw_timeout(&conf->gateway.upstream_timeout, $3,
			    "upstream timeout", 0) == -1)
				YYERROR;
		}
		| KEEPALIVE TIMEOUT duration	{
			/* 0 turns keep-alive off, as in nginx */
			if (gw_timeout(&conf->gateway.keepalive_timeout, $3,
			    "keepalive timeout", 1) == -1)
				YYERROR;
		}
		| MAXCONN CONNECTIONS NUMBER	{
			if (gw_limit(&conf->gateway.max_conns, $3,
			    "max connections") == -1)
				YYERROR;
		}
		| MAXCONN CONNECTIONS PER ADDRESS NUMBER	{
			if (gw_limit(&conf->gateway.max_conns_addr, $5,
			    "max connections per address") == -1)
				YYERROR;
		}
		| TRUSTED PROXY STRING		{
			if (trusted_add($3) == -1)
				YYERROR;
		}
		| PREFORK NUMBER		{
			if (conf->gateway.prefork != -1) {
				yyerror("prefork already set");
				YYERROR;
			}
			if ($2 < 1 || $2 > ORCHD_PREFORK_MAX) {
				yyerror("prefork %lld out of range (1-%d)",
				    (long long)$2, ORCHD_PREFORK_MAX);
				YYERROR;
			}
			conf->gateway.prefork = $2;
		}
		;

workload	: WORKLOAD STRING		{
			workload_begin($2);
		} '{' optnl wlopts '}'		{
			workload_end();
		}
		;

wlopts		: /* empty */
		| wlopts wlopt nl
		| wlopts error nl		{ yyerrok; }
		;

wlopt		: HOST STRING			{
			if (host_add($2) == -1)
				YYERROR;
		}
		| DRIVER PROCESS		{
			if (wl_seen & SEEN_DRIVER) {
				yyerror("driver already set");
				YYERROR;
			}
			wl_seen |= SEEN_DRIVER;
			wl->driver = DRIVER_PROCESS;
		}
		| DRIVER DOCKER			{
			if (wl_seen & SEEN_DRIVER) {
				yyerror("driver already set");
				YYERROR;
			}
			wl_seen |= SEEN_DRIVER;
			wl->driver = DRIVER_DOCKER;
		}
		| DRIVER SWARM			{
			if (wl_seen & SEEN_DRIVER) {
				yyerror("driver already set");
				YYERROR;
			}
			wl_seen |= SEEN_DRIVER;
			wl->driver = DRIVER_SWARM;
		}
		| DRIVER STRING			{
			yyerror("unknown driver \"%s\": process, docker or "
			    "swarm", $2);
			YYERROR;
		}
		| REPLICAS NUMBER		{
			if ($2 < 1 || $2 > WL_REPLICAS_MAX) {
				yyerror("replicas must be from 1 to %d",
				    WL_REPLICAS_MAX);
				YYERROR;
			}
			wl->replicas = $2;
		}
		| CONSTRAINT STRING		{
			if (strlist_add(&wl->constraints, $2) == -1) {
				yyerror("out of memory");
				YYERROR;
			}
		}
		| IMAGE STRING			{
			if (set_string(&wl->image, $2, "image") == -1)
				YYERROR;
		}
		| COMMAND STRING		{
			if (set_string(&wl->command, $2, "command") == -1)
				YYERROR;
			wl_command_lineno = yylval.lineno;
		}
		| RUNTIME STRING		{
			if (set_string(&wl->runtime, $2, "runtime") == -1)
				YYERROR;
		}
		| USER STRING			{
			if (set_string(&wl->user, $2, "user") == -1)
				YYERROR;
			wl_user_lineno = yylval.lineno;
		}
		| ALLOW STRING			{
			if (strcmp($2, "root") != 0) {
				yyerror("unknown allow \"%s\": root", $2);
				YYERROR;
			}
			if (wl->allow_root) {
				yyerror("allow root already set");
				YYERROR;
			}
			wl->allow_root = 1;
		}
		| DIRECTORY STRING		{
			if (set_string(&wl->directory, $2,
			    "directory") == -1)
				YYERROR;
			wl_dir_lineno = yylval.lineno;
		}
		| ADDRESS STRING		{
			if (wl_seen & SEEN_ADDRESS) {
				yyerror("address already set");
				YYERROR;
			}
			wl_seen |= SEEN_ADDRESS;
			free(wl->address);
			wl->address = NULL;
			if (set_string(&wl->address, $2, "address") == -1)
				YYERROR;
		}
		| DEPENDS ON STRING		{
			if (depends_add($3) == -1)
				YYERROR;
		}
		| ENV STRING			{
			if (strlist_add(&wl->env, $2) == -1) {
				yyerror("out of memory");
				YYERROR;
			}
		}
		| VOLUME STRING STRING		{
			struct volume	*v;

			if ((v = calloc(1, sizeof(*v))) == NULL) {
				yyerror("out of memory");
				YYERROR;
			}
			v->host = keep($2);
			v->container = keep($3);
			TAILQ_INSERT_TAIL(&wl->volumes, v, entry);
			if (pathcheck_add(v->host, "volume") == -1)
				YYERROR;
		}
		| MEMORY size			{
			if (wl_seen & SEEN_MEMORY) {
				yyerror("memory already set");
				YYERROR;
			}
			wl_seen |= SEEN_MEMORY;
			wl->memory = $2;
		}
		| NETWORK HOST			{
			if (wl_seen & SEEN_NETWORK) {
				yyerror("network already set");
				YYERROR;
			}
			wl_seen |= SEEN_NETWORK;
			wl->network = NETWORK_HOST;
		}
		| NETWORK BRIDGE		{
			if (wl_seen & SEEN_NETWORK) {
				yyerror("network already set");
				YYERROR;
			}
			wl_seen |= SEEN_NETWORK;
			wl->network = NETWORK_BRIDGE;
		}
		| NETWORK STRING		{
			if (wl_seen & SEEN_NETWORK) {
				yyerror("network already set");
				YYERROR;
			}
			wl_seen |= SEEN_NETWORK;
			if (!valid_workload_name($2)) {
				yyerror("invalid network \"%s\": 1 to 63 "
				    "letters, digits, '_', '.' or '-', "
				    "starting with a letter or digit", $2);
				YYERROR;
			}
			if (!valid_network_name($2)) {
				yyerror("network \"%s\": a name Docker keeps "
				    "for its own (network host and network "
				    "bridge are written without quotes)", $2);
				YYERROR;
			}
			wl->network = NETWORK_NAMED;
			wl->netname = keep($2);
		}
		| PUBLISH port			{
			if (wl->publish != 0) {
				yyerror("publish already set");
				YYERROR;
			}
			wl->publish = $2;
		}
		| PORT port			{
			if (wl->port != 0) {
				yyerror("port already set");
				YYERROR;
			}
			wl->port = $2;
		}
		| HEALTH TCP			{
			if (wl_seen & SEEN_HEALTH) {
				yyerror("health already set");
				YYERROR;
			}
			wl_seen |= SEEN_HEALTH;
			wl->health = HEALTH_TCP;
		}
		| HEALTH PATH STRING		{
			if (wl_seen & SEEN_HEALTH) {
				yyerror("health already set");
				YYERROR;
			}
			wl_seen |= SEEN_HEALTH;
			wl->health = HEALTH_PATH;
			wl->health_path = keep($3);
		}
		| HEALTH STRING			{
			yyerror("unknown health check \"%s\": tcp or path",
			    $2);
			YYERROR;
		}
		| BUSY PATH STRING		{
			if (set_string(&wl->busy_path, $3, "busy path") == -1)
				YYERROR;
		}
		| BUSY MAXCONN duration		{
			if (wl->busy_max != -1) {
				yyerror("busy max already set");
				YYERROR;
			}
			if ($3 == 0) {
				yyerror("busy max must be positive");
				YYERROR;
			}
			wl->busy_max = $3;
		}
		| BUSY FAIL STRING		{
			if (wl_seen & SEEN_BUSYFAIL) {
				yyerror("busy fail already set");
				YYERROR;
			}
			wl_seen |= SEEN_BUSYFAIL;
			if (wl_word_value(wl_busy_fails, $3,
			    &wl->busy_fail_safe) == -1) {
				yyerror("busy fail \"%s\": open or safe", $3);
				YYERROR;
			}
		}
		| HEALTH INTERVAL duration	{
			if (health_set(&wl->health_interval, $3,
			    "health interval", 0, WL_HEALTH_INTERVAL_MAX,
			    "s") == -1)
				YYERROR;
		}
		| HEALTH TIMEOUT duration	{
			if (health_set(&wl->health_timeout, $3,
			    "health timeout", 1, WL_HEALTH_INTERVAL_MAX,
			    "s") == -1)
				YYERROR;
		}
		| HEALTH FAILURES NUMBER	{
			int64_t	 n = wl->health_failures;

			if (health_set(&n, $3, "health failures", 1,
			    WL_HEALTH_FAILURES_MAX, "") == -1)
				YYERROR;
			wl->health_failures = (int)n;
		}
		| IDLE TIMEOUT duration		{
			if (wl->idle_timeout != -1) {
				yyerror("idle timeout already set");
				YYERROR;
			}
			wl->idle_timeout = $3;
		}
		| WAKE TIMEOUT duration		{
			if (wl->wake_timeout != -1) {
				yyerror("wake timeout already set");
				YYERROR;
			}
			if ($3 == 0) {
				yyerror("wake timeout must be positive");
				YYERROR;
			}
			wl->wake_timeout = $3;
		}
		| INIT STRING			{
			if (wl_seen & SEEN_INIT) {
				yyerror("init already set");
				YYERROR;
			}
			wl_seen |= SEEN_INIT;
			if (strcmp($2, "yes") == 0)
				wl->init = 1;
			else if (strcmp($2, "no") == 0)
				wl->init = 0;
			else {
				yyerror("init \"%s\": yes or no", $2);
				YYERROR;
			}
		}
		| STOP SIGNAL STRING		{
			const char	*errstr;

			if (wl_seen & SEEN_STOPSIG) {
				yyerror("stop signal already set");
				YYERROR;
			}
			wl_seen |= SEEN_STOPSIG;
			if (parse_signal($3, &wl->stop_signal,
			    &errstr) == -1) {
				yyerror("stop signal \"%s\": %s", $3, errstr);
				YYERROR;
			}
		}
		| STOP SIGNAL NUMBER		{
			/* numbers differ between systems: names only */
			yyerror("stop signal %lld: give its name, such as "
			    "TERM", (long long)$3);
			YYERROR;
		}
		| STOP TIMEOUT duration		{
			if (wl->stop_timeout != -1) {
				yyerror("stop timeout already set");
				YYERROR;
			}
			if ($3 > WL_STOP_TIMEOUT_MAX) {
				yyerror("stop timeout must be at most %ds",
				    WL_STOP_TIMEOUT_MAX);
				YYERROR;
			}
			wl->stop_timeout = $3;
		}
		| KEEP WARM			{
			if (wl_seen & SEEN_KEEPWARM) {
				yyerror("keep warm already set");
				YYERROR;
			}
			wl_seen |= SEEN_KEEPWARM;
			wl->keep_warm = 1;
		}
		| TLS KEYPAIR STRING STRING	{
			if (wl_seen & SEEN_KEYPAIR) {
				yyerror("tls keypair already set");
				YYERROR;
			}
			if ($3[0] == '\0' || $4[0] == '\0') {
				yyerror("tls keypair: empty file name");
				YYERROR;
			}
			wl_seen |= SEEN_KEYPAIR;
			tls_file_check($3, "tls keypair certificate");
			tls_file_check($4, "tls keypair key");
			wl_cert = keep($3);
			wl_key = keep($4);
		}
		| IGNORE ignorekind STRING answer	{
			if (ignore_rule_add(&wl->ignores, $2, $3, $4) == -1)
				YYERROR;
		}
		| TUNNEL IDLE TIMEOUT duration	{
			if (wl->tunnel_idle != -1) {
				yyerror("tunnel idle timeout already set");
				YYERROR;
			}
			wl->tunnel_idle = $4;
		}
		| SERVER TIMING onoff		{
			if (wl->server_timing != -1) {
				yyerror("server timing already set");
				YYERROR;
			}
			wl->server_timing = $3;
		}
		| ON CHANGE onchange		{
			if (wl->on_change != -1) {
				yyerror("on change already set");
				YYERROR;
			}
			wl->on_change = $3;
		}
		| PULL STRING			{
			if (pull_set(&wl->pull, $2) == -1)
				YYERROR;
		}
		| PULL TIMEOUT duration		{
			if (gw_timeout(&wl->pull_timeout, $3,
			    "pull timeout", 0) == -1)
				YYERROR;
		}
		| EXPIRE AFTER duration		{
			yyerror("expire after: workloads of the "
			    "configuration file never expire; it is a "
			    "global setting, for the API's");
			YYERROR;
		}
		| UPSTREAM STRING		{
			if (strcmp($2, "h2c") != 0) {
				yyerror("upstream \"%s\": h2c is the one "
				    "protocol to name", $2);
				YYERROR;
			}
			if (wl->upstream_h2c) {
				yyerror("upstream h2c already set");
				YYERROR;
			}
			wl->upstream_h2c = 1;
		}
		| LISTEN ON STRING PORT port	{
			if (wl_listen_add($3, $5) == -1)
				YYERROR;
		}
		;

%%

struct keyword {
	const char	*name;
	int		 token;
};

/*
 * Lines are numbered by whoever consumes the newline: yylex() when it
 * returns it as a token, lgetc() for a continuation, findeol().  yylval
 * carries the line of the token last read, which is the line of the
 * statement being reduced.
 */

static void
vreport(int lineno, const char *fmt, va_list ap)
{
	char	 msg[1024];

	errors++;
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	log_warnx("%s:%d: %s", file->name, lineno, msg);
}

int
yyerror(const char *fmt, ...)
{
	va_list		 ap;
	const char	*near;

	/* the lexer said why already: no "syntax error" on top */
	if (yychar == ERROR && strcmp(fmt, "syntax error") == 0)
		return (0);
	if (strcmp(fmt, "syntax error") == 0) {
		if (yychar == 0)
			return (yyerror_at(file->lineno > 1 ?
			    file->lineno - 1 : 1, "unexpected end of file"));
		if (lineword[0] != '\0')
			return (unknown_keyword(lineword));
		/*
		 * "idle timout": after a keyword, a bare word near another
		 * one ("prefork two" stays a syntax error)
		 */
		near = NULL;
		if (yychar == STRING && lastbare && prevtok >= ADDRESS &&
		    prevtok < ERROR && isalpha((unsigned char)lasttok[0]) &&
		    lookup(lasttok, &near) == STRING && near != NULL)
			return (unknown_keyword(lasttok));
		if (yychar == '\n')
			return (yyerror_at(yylval.lineno,
			    "syntax error at end of line"));
		return (yyerror_at(yylval.lineno, "syntax error near \"%s\"",
		    lasttok));
	}
	va_start(ap, fmt);
	vreport(yylval.lineno, fmt, ap);
	va_end(ap);
	return (0);
}

/* a misspelt keyword, and the nearest real one if there is one */
static int
unknown_keyword(const char *word)
{
	const char	*near = NULL;

	(void)lookup(word, &near);
	if (near != NULL)
		return (yyerror_at(yylval.lineno, "unknown keyword \"%s\": "
		    "did you mean \"%s\"?", word, near));
	return (yyerror_at(yylval.lineno, "unknown keyword \"%s\"", word));
}

static int
yyerror_at(int lineno, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vreport(lineno, fmt, ap);
	va_end(ap);
	return (0);
}

static int
kw_cmp(const void *k, const void *e)
{
	return (strcmp(k, ((const struct keyword *)e)->name));
}

/*
 * The edit distance of a and b (optimal string alignment: an insertion,
 * a deletion, a substitution or a swap of two neighbours each count 1),
 * for "did you mean".  Words longer than a keyword can be are far.
 */
#define KW_LEN_MAX	32
static int
edit_distance(const char *a, const char *b)
{
	int	 d[KW_LEN_MAX + 1][KW_LEN_MAX + 1];
	size_t	 la = strlen(a), lb = strlen(b), i, j;
	int	 cost, v;

	if (la > KW_LEN_MAX || lb > KW_LEN_MAX)
		return (INT_MAX);
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			cost = a[i - 1] != b[j - 1];
			v = MINIMUM(d[i - 1][j] + 1, d[i][j - 1] + 1);
			v = MINIMUM(v, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				v = MINIMUM(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return (d[la][lb]);
}

/*
 * The token of keyword s, else STRING; then, if near is not NULL, the
 * keyword nearest to s: one edit away for a word of up to 4 letters,
 * two for a longer one, the first in the table on a tie.
 */
static int
lookup(const char *s, const char **near)
{
	/* this has to be sorted always */
	static const struct keyword keywords[] = {
		{ "access",		ACCESS },
		{ "address",		ADDRESS },
		{ "after",		AFTER },
		{ "agent",		AGENT },
		{ "allow",		ALLOW },
		{ "answer",		ANSWER },
		{ "api",		API },
		{ "auth",		AUTH },
		{ "body",		BODY },
		{ "bridge",		BRIDGE },
		{ "budget",		BUDGET },
		{ "busy",		BUSY },
		{ "ca",			CA },
		{ "certificate",	CERTIFICATE },
		{ "change",		CHANGE },
		{ "chroot",		CHROOT },
		{ "command",		COMMAND },
		{ "concurrent",		CONCURRENT },
		{ "connect",		CONNECT },
		{ "connections",	CONNECTIONS },
		{ "constraint",		CONSTRAINT },
		{ "database",		DATABASE },
		{ "depends",		DEPENDS },
		{ "directory",		DIRECTORY },
		{ "docker",		DOCKER },
		{ "driver",		DRIVER },
		{ "env",		ENV },
		{ "estimate",		ESTIMATE },
		{ "expire",		EXPIRE },
		{ "fail",		FAIL },
		{ "failures",		FAILURES },
		{ "file",		FILENAME },
		{ "format",		FORMAT },
		{ "from",		FROM },
		{ "header",		HEADER },
		{ "health",		HEALTH },
		{ "host",		HOST },
		{ "http2",		HTTP2 },
		{ "idle",		IDLE },
		{ "ignore",		IGNORE },
		{ "image",		IMAGE },
		{ "include",		INCLUDE },
		{ "init",		INIT },
		{ "instance",		INSTANCE },
		{ "interval",		INTERVAL },
		{ "keep",		KEEP },
		{ "keepalive",		KEEPALIVE },
		{ "key",		KEY },
		{ "keypair",		KEYPAIR },
		{ "knowledge",		KNOWLEDGE },
		{ "limit",		LIMIT },
		{ "listen",		LISTEN },
		{ "log",		LOG },
		{ "manager",		MANAGER },
		{ "max",		MAXCONN },
		{ "memory",		MEMORY },
		{ "metrics",		METRICS },
		{ "name",		NAME },
		{ "network",		NETWORK },
		{ "next",		NEXT },
		{ "on",			ON },
		{ "path",		PATH },
		{ "per",		PER },
		{ "port",		PORT },
		{ "prefork",		PREFORK },
		{ "pressure",		PRESSURE },
		{ "prior",		PRIOR },
		{ "process",		PROCESS },
		{ "proxy",		PROXY },
		{ "public",		PUBLIC },
		{ "publish",		PUBLISH },
		{ "pull",		PULL },
		{ "reaper",		REAPER },
		{ "registry",		REGISTRY },
		{ "replicas",		REPLICAS },
		{ "restart",		RESTART },
		{ "runtime",		RUNTIME },
		{ "server",		SERVER },
		{ "signal",		SIGNAL },
		{ "size",		SIZE },
		{ "socket",		SOCKET },
		{ "stop",		STOP },
		{ "streams",		STREAMS },
		{ "swarm",		SWARM },
		{ "tcp",		TCP },
		{ "timeout",		TIMEOUT },
		{ "timing",		TIMING },
		{ "tls",		TLS },
		{ "trusted",		TRUSTED },
		{ "tunnel",		TUNNEL },
		{ "uids",		UIDS },
		{ "upstream",		UPSTREAM },
		{ "user",		USER },
		{ "volume",		VOLUME },
		{ "wake",		WAKE },
		{ "wakes",		WAKES },
		{ "warm",		WARM },
		{ "workload",		WORKLOAD },
	};
	const struct keyword	*kw;
	size_t			 i;
	int			 best, d;

	kw = bsearch(s, keywords, nitems(keywords), sizeof(keywords[0]),
	    kw_cmp);
	if (kw != NULL || near == NULL)
		return (kw != NULL ? kw->token : STRING);
	best = strlen(s) <= 4 ? 2 : 3;
	for (i = 0; i < nitems(keywords); i++)
		if ((d = edit_distance(s, keywords[i].name)) < best) {
			best = d;
			*near = keywords[i].name;
		}
	return (STRING);
}

/* the next character of the pushback, else of the current file */
static int
rawgetc(void)
{
	int	 c;

	while (pushback_len > 0) {
		c = pushback[--pushback_len];
		if (c == EXPAND_START)
			expanding = 1;
		else if (c == EXPAND_DONE)
			expanding = 0;
		else
			return (c);
	}
	return (getc(file->stream));
}

/*
 * quotec != 0: inside a quoted string, return EOF at the end of the file.
 * Otherwise join continuation lines, end every file with a newline and
 * go back to the including file at the end of an included one.
 */
static int
lgetc(int quotec)
{
	int	 c, next;

	if (quotec)
		return (rawgetc());
	for (;;) {
		c = rawgetc();
		if (c == '\\') {
			next = rawgetc();
			if (next == '\n') {
				file->lineno++;
				continue;
			}
			lungetc(next);
		}
		if (c != EOF) {
			file->lastc = c;
			return (c);
		}
		if (file->lastc != '\n') {
			file->lastc = '\n';
			return ('\n');
		}
		if (file == topfile || popfile() == EOF)
			return (EOF);
	}
}

static int
lungetc(int c)
{
	if (c == EOF)
		return (EOF);
	if (pushback_len >= nitems(pushback)) {
		yyerror("line too long");
		return (EOF);
	}
	pushback[pushback_len++] = c;
	return (c);
}

/* skip the rest of the line, leaving its newline to be read as a token */
static int
findeol(void)
{
	int	 c;

	for (;;) {
		c = lgetc(0);
		if (c == '\n') {
			lungetc(c);
			break;
		}
		if (c == EOF)
			break;
	}
	return (ERROR);
}

static int
is_word(int c)
{
	if (c < 0x21 || c > 0x7e)
		return (0);
	return (strchr("{}=#\"'$\\,;", c) == NULL);
}

static int
is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '\0')
		return (0);
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return (0);
	return (1);
}

/* valid UTF-8, as JSON needs it */
static int
is_utf8(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	int			 n;

	while (*p != '\0') {
		if (*p < 0x80)
			n = 0;
		else if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			n = 1;
		else if ((*p & 0xf0) == 0xe0)
			n = 2;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			n = 3;
		else
			return (0);
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return (0);
	}
	return (1);
}

static void
set_lasttok(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0' && i < sizeof(lasttok) - 1; i++)
		lasttok[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	lasttok[i] = '\0';
}

static int
expand_macro(void)
{
	char	 name[128], *val;
	size_t	 len = 0, vlen, i;
	int	 c;

	while ((c = lgetc(0)) != EOF &&
	    (isalnum((unsigned char)c) || c == '_')) {
		if (len >= sizeof(name) - 1) {
			yyerror("macro name too long");
			return (-1);
		}
		name[len++] = c;
	}
	lungetc(c);
	name[len] = '\0';
	if (len == 0) {
		yyerror("'$' without a macro name");
		return (-1);
	}
	if ((val = symget(name)) == NULL) {
		yyerror("macro \"%s\" not defined", name);
		return (-1);
	}
	vlen = strlen(val);
	if (pushback_len + vlen + 2 > nitems(pushback)) {
		yyerror("macro \"%s\" too long", name);
		return (-1);
	}
	pushback[pushback_len++] = EXPAND_DONE;
	for (i = vlen; i > 0; i--)
		pushback[pushback_len++] = (unsigned char)val[i - 1];
	pushback[pushback_len++] = EXPAND_START;
	return (0);
}

/*
 * Remember whether the first token of a line is a bare word that is no
 * keyword: a syntax error on that line is then most likely a misspelling.
 */
int
yylex(void)
{
	static int	 lasttoken;
	int		 tok;

	prevtok = lasttoken;
	tok = lex();
	lasttoken = tok;
	if (tok == '=')		/* a macro being set, not a misspelling */
		lineword[0] = '\0';
	if (at_bol) {
		if (tok == STRING && lastbare &&
		    isalpha((unsigned char)lasttok[0]))
			(void)strlcpy(lineword, lasttok, sizeof(lineword));
		else
			lineword[0] = '\0';
	}
	at_bol = tok == '\n' || tok == 0;
	return (tok);
}

static int
lex(void)
{
	char	 buf[WORD_MAX], *p, *s;
	int	 c, next, quotec;
	const char *errstr;

	lastbare = 0;
 top:
	p = buf;
	while ((c = lgetc(0)) == ' ' || c == '\t')
		;
	yylval.lineno = file->lineno;
	if (c == '#')
		while ((c = lgetc(0)) != '\n' && c != EOF)
			;
	if (c == '$' && !expanding) {
		if (expand_macro() == -1)
			return (findeol());
		goto top;
	}

	switch (c) {
	case '\'':
	case '"':
		quotec = c;
		for (;;) {
			if ((c = lgetc(quotec)) == EOF || c == '\n') {
				yyerror("unterminated quoted string");
				lungetc(c);
				return (findeol());
			}
			if (c == '\\') {
				next = lgetc(quotec);
				if (next == '\n') {
					file->lineno++;
					continue;
				}
				if (next == quotec || next == '\\')
					c = next;
				else
					lungetc(next);
			} else if (c == quotec)
				break;
			else if ((c < 0x20 && c != '\t') || c == 0x7f) {
				yyerror("invalid character 0x%02x in quoted "
				    "string", c);
				return (findeol());
			}
			if (p + 1 >= buf + sizeof(buf)) {
				yyerror("string too long");
				return (findeol());
			}
			*p++ = c;
		}
		*p = '\0';
		if (!is_utf8(buf)) {
			yyerror("invalid UTF-8 in quoted string");
			return (findeol());
		}
		set_lasttok(buf);
		if ((s = strdup(buf)) == NULL || pool_add(s) == NULL) {
			yyerror("out of memory");
			return (findeol());
		}
		yylval.v.string = s;
		return (STRING);
	}

	if (is_word(c)) {
		do {
			if (p + 1 >= buf + sizeof(buf)) {
				yyerror("string too long");
				return (findeol());
			}
			*p++ = c;
		} while ((c = lgetc(0)) != EOF && is_word(c));
		lungetc(c);
		*p = '\0';
		set_lasttok(buf);
		if (is_number(buf)) {
			yylval.v.number = strtonum(buf, -LLONG_MAX, LLONG_MAX,
			    &errstr);
			if (errstr != NULL) {
				yyerror("number \"%s\" is %s", buf, errstr);
				return (findeol());
			}
			return (NUMBER);
		}
		if ((c = lookup(buf, NULL)) != STRING)
			return (c);
		if ((s = strdup(buf)) == NULL || pool_add(s) == NULL) {
			yyerror("out of memory");
			return (findeol());
		}
		yylval.v.string = s;
		lastbare = 1;
		return (STRING);
	}

	switch (c) {
	case EOF:
		set_lasttok("end of file");
		return (0);
	case '\n':
		set_lasttok("newline");
		yylval.lineno = file->lineno;
		file->lineno++;
		return (c);
	}
	if (c < 0x20 || c >= 0x7f) {
		yyerror("invalid character 0x%02x", (unsigned int)c);
		return (findeol());
	}
	lasttok[0] = c;
	lasttok[1] = '\0';
	return (c);
}

/*
 * Files.  A relative include is found beside the file that includes it.
 */
static struct file *
pushfile(const char *name, int from_include)
{
	struct file	*nf, *f;
	struct stat	 st;
	const char	*slash;
	char		*path;
	int		 depth = 0, fd = -1;

	/* 2: a name include_files() found, relative to nothing more */
	if (from_include == 1 && name[0] != '/' &&
	    (slash = strrchr(file->name, '/')) != NULL) {
		if (asprintf(&path, "%.*s/%s", (int)(slash - file->name),
		    file->name, name) == -1)
			path = NULL;
	} else
		path = strdup(name);
	if (path == NULL) {
		yyerror("out of memory");
		return (NULL);
	}
	TAILQ_FOREACH(f, &files, entry)
		depth++;
	if (depth >= INCLUDE_DEPTH_MAX) {
		yyerror("include \"%s\": more than %d nested files", name,
		    INCLUDE_DEPTH_MAX);
		free(path);
		return (NULL);
	}
	if ((nf = calloc(1, sizeof(*nf))) == NULL) {
		yyerror("out of memory");
		free(path);
		return (NULL);
	}
	nf->name = path;
	nf->lineno = 1;
	nf->lastc = '\n';
	/* O_NONBLOCK: a FIFO must not hang the parse */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (from_include)
			yyerror("include \"%s\": %s", path, strerror(errno));
		else
			log_warn("%s", path);
		goto fail;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		if (from_include)
			yyerror("include \"%s\": not a regular file", path);
		else
			log_warnx("%s: not a regular file", path);
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) == -1 ||
	    (nf->stream = fdopen(fd, "r")) == NULL) {
		if (from_include)
			yyerror("include \"%s\": %s", path, strerror(errno));
		else
			log_warn("%s", path);
		goto fail;
	}
	fd = -1;
	TAILQ_FOREACH(f, &files, entry)
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			yyerror("include \"%s\": include loop", path);
			goto fail;
		}
	nf->dev = st.st_dev;
	nf->ino = st.st_ino;
	TAILQ_INSERT_TAIL(&files, nf, entry);
	file = nf;
	return (nf);
 fail:
	if (nf->stream != NULL)
		fclose(nf->stream);
	if (fd != -1)
		close(fd);
	free(nf->name);
	free(nf);
	return (NULL);
}

static int
popfile(void)
{
	struct file	*prev;

	if ((prev = TAILQ_PREV(file, filelist, entry)) != NULL) {
		TAILQ_REMOVE(&files, file, entry);
		fclose(file->stream);
		pending_free(file);
		free(file->name);
		free(file);
		file = prev;
		/* the next file of an include glob, if any opens */
		while (file->ipending < file->npending)
			if (pushfile(file->pending[file->ipending++], 2) !=
			    NULL)
				break;
		return (0);
	}
	return (EOF);
}

static void
pending_free(struct file *f)
{
	size_t	 i;

	for (i = 0; i < f->npending; i++)
		free(f->pending[i]);
	free(f->pending);
	f->pending = NULL;
	f->npending = f->ipending = 0;
}

/*
 * include: one file, or a glob(3) pattern's, in sorted order, one after
 * the other (popfile() opens the next).  As in nginx, a file named alone
 * must exist; a pattern that matches nothing is no error.
 */
static void
include_files(const char *name)
{
	glob_t		 g;
	const char	*slash;
	char		*pattern;
	size_t		 i;
	int		 rc;

	if (strpbrk(name, "*?[") == NULL) {
		(void)pushfile(name, 1);
		return;
	}
	if (name[0] != '/' && (slash = strrchr(file->name, '/')) != NULL) {
		if (asprintf(&pattern, "%.*s/%s", (int)(slash - file->name),
		    file->name, name) == -1)
			pattern = NULL;
	} else
		pattern = strdup(name);
	if (pattern == NULL) {
		yyerror("out of memory");
		return;
	}
	memset(&g, 0, sizeof(g));
	rc = glob(pattern, 0, NULL, &g);
	if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
		log_debug("include \"%s\": no file matches", pattern);
		goto done;
	}
	if (rc != 0) {
		yyerror("include \"%s\": %s", pattern, rc == GLOB_NOSPACE ?
		    "out of memory" : "cannot read a directory");
		goto done;
	}
	pending_free(file);
	if (g.gl_pathc > 1 && (file->pending = calloc(g.gl_pathc - 1,
	    sizeof(*file->pending))) == NULL) {
		yyerror("out of memory");
		goto done;
	}
	for (i = 1; i < g.gl_pathc; i++)
		if ((file->pending[file->npending++] =
		    strdup(g.gl_pathv[i])) == NULL) {
			yyerror("out of memory");
			pending_free(file);
			goto done;
		}
	if (pushfile(g.gl_pathv[0], 2) == NULL)
		while (file->ipending < file->npending)
			if (pushfile(file->pending[file->ipending++], 2) !=
			    NULL)
				break;
 done:
	globfree(&g);
	free(pattern);
}

static void
closefiles(void)
{
	struct file	*f;

	while ((f = TAILQ_FIRST(&files)) != NULL) {
		TAILQ_REMOVE(&files, f, entry);
		fclose(f->stream);
		pending_free(f);
		free(f->name);
		free(f);
	}
	file = topfile = NULL;
}

/*
 * The string pool.
 */
static char *
pool_add(char *s)
{
	char	**np;
	size_t	  nsize;

	if (pool_len == pool_size) {
		nsize = pool_size == 0 ? 64 : pool_size * 2;
		if ((np = reallocarray(pool, nsize, sizeof(*pool))) == NULL) {
			free(s);
			return (NULL);
		}
		pool = np;
		pool_size = nsize;
	}
	pool[pool_len++] = s;
	return (s);
}

/* take s out of the pool: the caller owns it now */
static char *
keep(char *s)
{
	size_t	 i;

	for (i = pool_len; i > 0; i--)
		if (pool[i - 1] == s) {
			pool[i - 1] = NULL;
			break;
		}
	return (s);
}

static void
pool_free(void)
{
	size_t	 i;

	for (i = 0; i < pool_len; i++)
		free(pool[i]);
	free(pool);
	pool = NULL;
	pool_len = pool_size = 0;
}

/*
 * Grammar helpers.
 */

/* a string setting given once, not empty; s is kept on success */
static int
set_string(char **dst, char *s, const char *what)
{
	if (*dst != NULL) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (s[0] == '\0') {
		yyerror("%s must not be empty", what);
		return (-1);
	}
	*dst = keep(s);
	return (0);
}

/*
 * "tcp://ADDRESS:PORT", ADDRESS numeric ("[...]" for IPv6): runtimed,
 * chrooted, resolves no names
 */
static int
swarm_manager_check(const char *s)
{
	char	 addr[CFG_SWARM_ADDR_MAX];
	int	 port;

	if (swarm_manager_split(s, addr, sizeof(addr), &port) == -1) {
		yyerror("swarm manager \"%s\": must be \"tcp://ADDRESS:PORT\", "
		    "ADDRESS a numeric IPv4 or [IPv6] address", s);
		return (-1);
	}
	return (0);
}

static int
host_add(const char *host)
{
	const struct workload_conf	*w;
	struct strentry			*e;

	if (!valid_host_pattern(host)) {
		yyerror("invalid host \"%s\"", host);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("host \"%s\" listed twice", host);
			return (-1);
		}
	if ((w = index_find(&hosts_index, host)) != NULL) {
		yyerror("host \"%s\" already used by workload \"%s\"", host,
		    w->name);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("host \"%s\" is an api host", host);
			return (-1);
		}
	if (strlist_add(&wl->hosts, host) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

static int
api_host_add(const char *host)
{
	const struct workload_conf	*w;
	struct strentry			*e;

	if (!valid_host_pattern(host)) {
		yyerror("invalid api host \"%s\"", host);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_hosts, entry)
		if (strcasecmp(e->str, host) == 0) {
			yyerror("api host \"%s\" listed twice", host);
			return (-1);
		}
	if ((w = index_find(&hosts_index, host)) != NULL) {
		yyerror("api host \"%s\" already used by workload \"%s\"",
		    host, w->name);
		return (-1);
	}
	if (strlist_add(&conf->api_hosts, host) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * Host paths.  A path that cannot be one ("..", relative) is an error at
 * once; where it may point is checked by pathcheck_run().
 */
static int
pathcheck_add(const char *path, const char *what)
{
	struct pathcheck	*pc;
	char			 npath[PATH_MAX], why[512];

	/* a relative volume is workload_validate()'s to report */
	if (path[0] != '/')
		return (0);
	if (hostpath_normalize(path, npath, sizeof(npath), why,
	    sizeof(why)) == -1) {
		yyerror("%s: %s", what, why);
		return (-1);
	}
	if ((pc = reallocarray(pathchecks, npathchecks + 1,
	    sizeof(*pc))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	pathchecks = pc;
	pc = &pathchecks[npathchecks];
	pc->lineno = yylval.lineno;
	pc->file = strdup(file->name);
	pc->path = strdup(path);
	pc->what = strdup(what);
	if (pc->file == NULL || pc->path == NULL || pc->what == NULL) {
		free(pc->file);
		free(pc->path);
		free(pc->what);
		yyerror("out of memory");
		return (-1);
	}
	npathchecks++;
	return (0);
}

/* c has its defaults: every host path against the forbidden ones */
static void
pathcheck_run(const struct orchd_conf *c)
{
	struct pathcheck	*pc;
	char			 why[1024];
	size_t			 i;

	for (i = 0; i < npathchecks; i++) {
		pc = &pathchecks[i];
		if (c != NULL && hostpath_forbidden(pc->path, c, why,
		    sizeof(why)) == -1) {
			errors++;
			log_warnx("%s:%d: %s: %s", pc->file, pc->lineno,
			    pc->what, why);
		} else if (c != NULL && strcmp(pc->what, "volume") == 0 &&
		    hostpath_root_equivalent(pc->path, why, sizeof(why)))
			log_warnx("%s:%d: warning: %s \"%s\": %s", pc->file,
			    pc->lineno, pc->what, pc->path, why);
		free(pc->file);
		free(pc->path);
		free(pc->what);
	}
	free(pathchecks);
	pathchecks = NULL;
	npathchecks = 0;
}

/* "api allow image": a pattern of fnmatch(3), without flags */
static int
api_allow_image(const char *pattern)
{
	struct strentry	*e;

	if (pattern[0] == '\0' || !is_utf8(pattern)) {
		yyerror("api allow image: invalid pattern");
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_images, entry)
		if (strcmp(e->str, pattern) == 0) {
			yyerror("api allow image \"%s\" listed twice",
			    pattern);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_images, pattern) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * "api allow volume": the one root under which orchd makes the API's
 * volumes (ROOT/WORKLOAD/NAME, orchd/voldir.c), kept normalised, itself
 * no forbidden path
 */
static int
api_allow_volume(const char *path)
{
	char		 npath[PATH_MAX], why[512];

	if (hostpath_normalize(path, npath, sizeof(npath), why,
	    sizeof(why)) == -1) {
		yyerror("api allow volume: %s", why);
		return (-1);
	}
	if (strlen(npath) >= ORCHD_VOLROOT_MAX - 2 * ORCHD_VOLNAME_MAX) {
		yyerror("api allow volume \"%s\": longer than %d bytes", path,
		    ORCHD_VOLROOT_MAX - 2 * ORCHD_VOLNAME_MAX - 1);
		return (-1);
	}
	if (!TAILQ_EMPTY(&conf->api_allow_volumes)) {
		yyerror("api allow volume \"%s\": one root only, given "
		    "already as \"%s\" (orchd makes each workload's volumes "
		    "under it)", path,
		    TAILQ_FIRST(&conf->api_allow_volumes)->str);
		return (-1);
	}
	if (pathcheck_add(path, "api allow volume") == -1)
		return (-1);
	if (strlist_add(&conf->api_allow_volumes, npath) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow network": a pattern of fnmatch(3) for a network's name */
static int
api_allow_network(const char *pattern)
{
	struct strentry	*e;

	if (pattern[0] == '\0' || !is_utf8(pattern)) {
		yyerror("api allow network: invalid pattern");
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_networks, entry)
		if (strcmp(e->str, pattern) == 0) {
			yyerror("api allow network \"%s\" listed twice",
			    pattern);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_networks, pattern) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * "api allow address": a network, ADDRESS/BITS or one address, that an
 * API workload's address may lie in (orchd/policy_net.c)
 */
static int
api_allow_address(const char *s)
{
	struct netaddr	 na, o;
	struct strentry	*e;
	const char	*errstr;

	if (netaddr_parse(s, &na, &errstr) == -1) {
		yyerror("api allow address \"%s\": %s", s, errstr);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_addresses, entry)
		if (netaddr_parse(e->str, &o, &errstr) == 0 &&
		    o.af == na.af && o.prefix == na.prefix &&
		    memcmp(o.addr, na.addr, sizeof(o.addr)) == 0) {
			yyerror("api allow address \"%s\" listed twice", s);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_addresses, s) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow publish": one numeric host address, 0.0.0.0 or :: for all */
static int
api_allow_publish(const char *s)
{
	struct netaddr	 na, o;
	struct strentry	*e;
	const char	*errstr;

	if (strchr(s, '/') != NULL || netaddr_parse(s, &na, &errstr) == -1) {
		yyerror("api allow publish \"%s\": a numeric IPv4 or IPv6 "
		    "address, without a prefix", s);
		return (-1);
	}
	TAILQ_FOREACH(e, &conf->api_allow_publish, entry)
		if (netaddr_parse(e->str, &o, &errstr) == 0 &&
		    o.af == na.af &&
		    memcmp(o.addr, na.addr, sizeof(o.addr)) == 0) {
			yyerror("api allow publish \"%s\" listed twice", s);
			return (-1);
		}
	if (strlist_add(&conf->api_allow_publish, s) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/* "api allow publish port": one below 1024; the others need no rule */
static int
api_allow_port(int64_t port)
{
	if (port < 1 || port >= API_LOW_PORTS) {
		yyerror("api allow publish port %lld: 1 to %d (from %d on, "
		    "no rule is needed)", (long long)port, API_LOW_PORTS - 1,
		    API_LOW_PORTS);
		return (-1);
	}
	if (API_PORT_ALLOWED(conf, port)) {
		yyerror("api allow publish port %lld listed twice",
		    (long long)port);
		return (-1);
	}
	conf->api_allow_ports[port / 8] |= 1 << (port % 8);
	return (0);
}

/* numeric address, "localhost" or "*"; IPv6 may be in brackets */
static int
address_parse(const char *name, int port, struct sockaddr_storage *ss,
    socklen_t *sslen)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	char			 buf[INET6_ADDRSTRLEN + 2];
	size_t			 len;

	memset(ss, 0, sizeof(*ss));
	if (strcmp(name, "localhost") == 0)
		name = "127.0.0.1";
	else if (strcmp(name, "*") == 0)
		name = "0.0.0.0";
	if (inet_pton(AF_INET, name, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*sslen = sizeof(*sin);
		return (0);
	}
	len = strlen(name);
	if (len > 2 && len < sizeof(buf) && name[0] == '[' &&
	    name[len - 1] == ']') {
		memcpy(buf, name + 1, len - 2);
		buf[len - 2] = '\0';
		name = buf;
	}
	if (inet_pton(AF_INET6, name, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*sslen = sizeof(*sin6);
		return (0);
	}
	return (-1);
}

static int
is_wildcard(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in	*sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6	*sin6 =
	    (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return (sin->sin_addr.s_addr == htonl(INADDR_ANY));
	return (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr));
}

/* same port and family, and the same address or a wildcard on one side */
static int
listener_overlaps(const struct listener_conf *a,
    const struct listener_conf *b)
{
	const struct sockaddr_in	*a4 = (const struct sockaddr_in *)&a->ss;
	const struct sockaddr_in	*b4 = (const struct sockaddr_in *)&b->ss;
	const struct sockaddr_in6	*a6 =
	    (const struct sockaddr_in6 *)&a->ss;
	const struct sockaddr_in6	*b6 =
	    (const struct sockaddr_in6 *)&b->ss;

	if (a->ss.ss_family != b->ss.ss_family)
		return (0);
	if (is_wildcard(&a->ss) || is_wildcard(&b->ss)) {
		if (a->ss.ss_family == AF_INET)
			return (a4->sin_port == b4->sin_port);
		return (a6->sin6_port == b6->sin6_port);
	}
	if (a->ss.ss_family == AF_INET)
		return (a4->sin_port == b4->sin_port &&
		    a4->sin_addr.s_addr == b4->sin_addr.s_addr);
	return (a6->sin6_port == b6->sin6_port &&
	    memcmp(&a6->sin6_addr, &b6->sin6_addr,
	    sizeof(a6->sin6_addr)) == 0);
}

/* whose a listener is, for an error: "", "api " or "workload \"db\"'s " */
static const char *
listener_whose(const struct listener_conf *l, char *buf, size_t len)
{
	if (l->workload[0] != '\0')
		(void)snprintf(buf, len, "workload \"%s\"'s ", l->workload);
	else
		(void)strlcpy(buf, l->api ? "api " : "", len);
	return (buf);
}

/* workload: a workload's raw TCP listener, NULL for the gateway's */
static int
listener_add(const char *name, int64_t port, int api, char *cert, char *key,
    const char *workload)
{
	struct listener_conf	*l, *o;
	char			 whose[ORCHD_NAME_MAX + 16];

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	l->fd = -1;
	l->api = api;
	if (workload != NULL)
		(void)strlcpy(l->workload, workload, sizeof(l->workload));
	if (strlcpy(l->name, name, sizeof(l->name)) >= sizeof(l->name) ||
	    address_parse(name, port, &l->ss, &l->sslen) == -1) {
		yyerror("invalid listen address \"%s\": a numeric IPv4 or "
		    "IPv6 address, localhost or *", name);
		free(l);
		return (-1);
	}
	if (cert != NULL && (cert[0] == '\0' || key[0] == '\0')) {
		yyerror("tls: empty file name");
		free(l);
		return (-1);
	}
	TAILQ_FOREACH(o, &conf->listeners, entry)
		if (listener_overlaps(l, o)) {
			yyerror("listen on %s port %lld: overlaps %slisten on "
			    "%s", name, (long long)port, listener_whose(o,
			    whose, sizeof(whose)), o->name);
			free(l);
			return (-1);
		}
	if (cert != NULL) {
		tls_file_check(cert, "tls certificate");
		tls_file_check(key, "tls key");
		l->tls = 1;
		l->tls_cert = keep(cert);
		l->tls_key = keep(key);
	}
	TAILQ_INSERT_TAIL(&conf->listeners, l, entry);
	return (0);
}

/*
 * "listen on ADDRESS port N" in a workload block: a raw TCP listener of
 * its own, bound by the parent with the gateway's and checked against
 * them and every workload's port alike.  The workload keeps it as
 * "ADDRESS:PORT" (an IPv6 address in brackets), for its JSON form.
 */
static int
wl_listen_add(const char *name, int64_t port)
{
	struct strentry	*e;
	char		 buf[ORCHD_HOST_MAX + 16];
	int		 n = 0, bracket;

	TAILQ_FOREACH(e, &wl->listens, entry)
		n++;
	if (n >= ORCHD_LISTEN_MAX) {
		yyerror("more than %d listen on in a workload",
		    ORCHD_LISTEN_MAX);
		return (-1);
	}
	if (listener_add(name, port, 0, NULL, NULL, wl->name) == -1)
		return (-1);
	bracket = strchr(name, ':') != NULL && name[0] != '[';
	n = snprintf(buf, sizeof(buf), "%s%s%s:%lld", bracket ? "[" : "",
	    name, bracket ? "]" : "", (long long)port);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    strlist_add(&wl->listens, buf) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

/*
 * The HTTP/2 of the listener just added: offered by ALPN on TLS unless
 * "http2 off"; on cleartext only with "http2 prior knowledge".
 */
static int
listener_http2(int mode)
{
	struct listener_conf	*l = TAILQ_LAST(&conf->listeners, listenerlist);

	if (l == NULL)
		return (-1);
	if (mode == LISTENER_H2_PRIOR && l->tls) {
		yyerror("http2 prior knowledge: cleartext listeners only, "
		    "TLS offers h2 by ALPN");
		return (-1);
	}
	l->http2 = mode;
	return (0);
}

/* a gateway timeout, set once; zero only where allowed */
static int
gw_timeout(int64_t *dst, int64_t secs, const char *what, int zero_ok)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (secs == 0 && !zero_ok) {
		yyerror("%s must be positive", what);
		return (-1);
	}
	*dst = secs;
	return (0);
}

static int
gw_limit(int64_t *dst, int64_t n, const char *what)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (n < 1 || n > INT32_MAX) {
		yyerror("invalid %s %lld", what, (long long)n);
		return (-1);
	}
	*dst = n;
	return (0);
}

/* "health interval 10s", once, within bounds: unit is for the message */
static int
health_set(int64_t *dst, int64_t n, const char *what, int64_t min,
    int64_t max, const char *unit)
{
	if (*dst != -1) {
		yyerror("%s already set", what);
		return (-1);
	}
	if (n < min || n > max) {
		yyerror("%s %lld%s: must be from %lld%s to %lld%s", what,
		    (long long)n, unit, (long long)min, unit, (long long)max,
		    unit);
		return (-1);
	}
	*dst = n;
	return (0);
}

/* "pull missing|always|never", once */
static int
pull_set(int *dst, const char *s)
{
	int	 pull;

	if (*dst != -1) {
		yyerror("pull already set");
		return (-1);
	}
	if (wl_word_value(wl_pulls, s, &pull) == -1) {
		yyerror("pull \"%s\": missing, always or never", s);
		return (-1);
	}
	*dst = pull;
	return (0);
}

/* "trusted proxy 10.0.0.0/8", "::1", "192.0.2.7" (a /32) */
static int
trusted_add(const char *s)
{
	struct gateway_conf	*g = &conf->gateway;
	struct netaddr		*na;
	char			 buf[INET6_ADDRSTRLEN + 8], *slash;
	const char		*errstr;
	int			 i, max;

	if (g->ntrusted >= ORCHD_TRUSTED_MAX) {
		yyerror("more than %d trusted proxies", ORCHD_TRUSTED_MAX);
		return (-1);
	}
	na = &g->trusted[g->ntrusted];
	memset(na, 0, sizeof(*na));
	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		goto bad;
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, na->addr) == 1) {
		na->af = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, na->addr) == 1) {
		na->af = AF_INET6;
		max = 128;
	} else
		goto bad;
	na->prefix = max;
	if (slash != NULL) {
		na->prefix = strtonum(slash, 0, max, &errstr);
		if (errstr != NULL)
			goto bad;
	}
	/* the host bits must be zero: 10.1.0.0/8 is a typo */
	for (i = na->prefix; i < max; i++)
		if (na->addr[i / 8] & (0x80 >> (i % 8))) {
			yyerror("trusted proxy %s: host bits set", s);
			return (-1);
		}
	g->ntrusted++;
	return (0);
 bad:
	yyerror("invalid trusted proxy \"%s\": an IPv4 or IPv6 address, "
	    "with an optional /prefix", s);
	return (-1);
}

/* an "ignore" line, global or a workload's, at most ORCHD_IGNORE_MAX */
static int
ignore_rule_add(struct ignorelist *l, int kind, const char *pattern,
    int answer)
{
	const struct ignore_rule	*r;
	char				 err[512];
	int				 n = 0;

	if (ignore_check(kind, pattern, answer, err, sizeof(err)) == -1) {
		yyerror("%s", err);
		return (-1);
	}
	TAILQ_FOREACH(r, l, entry) {
		if ((int)r->kind == kind &&
		    strcmp(r->pattern, pattern) == 0) {
			yyerror("ignore %s \"%s\" listed twice",
			    ignore_kind_name(kind), pattern);
			return (-1);
		}
		n++;
	}
	if (n >= ORCHD_IGNORE_MAX) {
		yyerror("more than %d ignore rules", ORCHD_IGNORE_MAX);
		return (-1);
	}
	if (ignore_add(l, kind, pattern, answer) == -1) {
		yyerror("out of memory");
		return (-1);
	}
	return (0);
}

static void
workload_abandon(void)
{
	workload_free(wl);
	wl = NULL;
	free(wl_cert);
	free(wl_key);
	wl_cert = wl_key = NULL;
}

static void
workload_begin(char *name)
{

	/* a block that a syntax error cut short */
	workload_abandon();

	wl_lineno = wl_user_lineno = yylval.lineno;
	wl_command_lineno = wl_dir_lineno = yylval.lineno;
	wl_errors = errors;
	wl_seen = 0;
	if (!valid_workload_name(name))
		yyerror("invalid workload name \"%s\": 1 to 63 letters, "
		    "digits, '_', '.' or '-', starting with a letter or digit",
		    name);
	else if (index_find(&names_index, name) != NULL)
		yyerror("workload \"%s\" defined twice", name);
	/* an invalid name still gets a workload to parse the block into */
	if ((wl = workload_new(valid_workload_name(name) ? name : "")) ==
	    NULL)
		fatal("%s: workload_new", __func__);
}

static void
workload_end(void)
{
	struct keypair_conf	*kp;
	struct strentry		*e;
	char			 reason[512];

	if (errors == wl_errors &&
	    (workload_validate(wl, reason, sizeof(reason)) == -1 ||
	    workload_volumes_absolute(wl, reason, sizeof(reason)) == -1))
		yyerror_at(wl_lineno, "workload \"%s\": %s", wl->name, reason);
	else if (errors == wl_errors &&
	    workload_root_check(wl, reason, sizeof(reason)) == -1)
		yyerror_at(wl_user_lineno, "workload \"%s\": %s", wl->name,
		    reason);
	if (wl_cert != NULL) {
		TAILQ_FOREACH(e, &wl->hosts, entry) {
			if ((kp = calloc(1, sizeof(*kp))) == NULL ||
			    (kp->cert = strdup(wl_cert)) == NULL ||
			    (kp->key = strdup(wl_key)) == NULL) {
				if (kp != NULL) {
					free(kp->cert);
					free(kp);
				}
				yyerror_at(wl_lineno, "out of memory");
				break;
			}
			(void)strlcpy(kp->host, e->str, sizeof(kp->host));
			TAILQ_INSERT_TAIL(&conf->keypairs, kp, entry);
		}
	}
	if (errors == wl_errors)
		host_checks();
	TAILQ_INSERT_TAIL(&conf->workloads, wl, entry);
	index_workload(wl);
	user_check_add();
	portcheck_add();
	wl = NULL;
	workload_abandon();
}

/* FNV-1a; hosts folded to lower case, as they are compared */
static uint64_t
index_hash(const struct index *ix, const char *key)
{
	uint64_t	 h = 14695981039346656037ULL;
	unsigned char	 c;

	while ((c = *key++) != '\0') {
		h ^= ix->nocase ? (unsigned char)tolower(c) : c;
		h *= 1099511628211ULL;
	}
	return (h);
}

/* the slot of key in slots, or the empty one where it would go */
static struct index_slot *
index_slot(const struct index *ix, struct index_slot *slots, size_t size,
    const char *key)
{
	size_t	 i;

	i = index_hash(ix, key) & (size - 1);
	while (slots[i].key != NULL && (ix->nocase ?
	    strcasecmp(slots[i].key, key) : strcmp(slots[i].key, key)) != 0)
		i = (i + 1) & (size - 1);
	return (&slots[i]);
}

static const struct workload_conf *
index_find(const struct index *ix, const char *key)
{
	const struct index_slot	*s;

	if (ix->size == 0)
		return (NULL);
	s = index_slot(ix, ix->slots, ix->size, key);
	return (s->key != NULL ? s->wl : NULL);
}

static void
index_grow(struct index *ix)
{
	struct index_slot	*slots;
	size_t			 size, count, i;

	size = ix->size == 0 ? INDEX_MIN : ix->size * 2;
	if (size > SIZE_MAX / 2 / sizeof(*slots))
		fatalx("%s: too many workloads", __func__);
	slots = mmap(NULL, size * sizeof(*slots), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		fatal("%s: mmap", __func__);
	for (i = 0; i < ix->size; i++)
		if (ix->slots[i].key != NULL)
			*index_slot(ix, slots, size, ix->slots[i].key) =
			    ix->slots[i];
	count = ix->count;
	index_clear(ix);
	ix->slots = slots;
	ix->size = size;
	ix->count = count;
}

/* a key already there stays the first's: the clash was reported */
static void
index_add(struct index *ix, const char *key, const struct workload_conf *w)
{
	struct index_slot	*s;

	/* at most half full, so that a probe is short */
	if ((ix->count + 1) * 2 > ix->size)
		index_grow(ix);
	s = index_slot(ix, ix->slots, ix->size, key);
	if (s->key != NULL)
		return;
	s->key = key;
	s->wl = w;
	ix->count++;
}

static void
index_clear(struct index *ix)
{
	if (ix->slots != NULL &&
	    munmap(ix->slots, ix->size * sizeof(*ix->slots)) == -1)
		fatal("%s: munmap", __func__);
	ix->slots = NULL;
	ix->size = ix->count = 0;
}

/* a workload just added to the configuration */
static void
index_workload(const struct workload_conf *w)
{
	const struct strentry	*e;

	index_add(&names_index, w->name, w);
	TAILQ_FOREACH(e, &w->hosts, entry)
		index_add(&hosts_index, e->str, w);
}

/*
 * Macros.
 */
static int
symset(const char *name, const char *value, int persist)
{
	struct sym	*sym;

	TAILQ_FOREACH(sym, &symhead, entry)
		if (strcmp(name, sym->name) == 0)
			break;
	if (sym != NULL) {
		if (sym->persist && !persist)
			return (0);
		TAILQ_REMOVE(&symhead, sym, entry);
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
	}
	if ((sym = calloc(1, sizeof(*sym))) == NULL)
		return (-1);
	sym->name = strdup(name);
	sym->value = strdup(value);
	if (file != NULL) {
		sym->file = strdup(file->name);
		sym->lineno = yylval.lineno;
	}
	sym->persist = persist;
	if (sym->name == NULL || sym->value == NULL) {
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
		return (-1);
	}
	TAILQ_INSERT_TAIL(&symhead, sym, entry);
	return (0);
}

static char *
symget(const char *name)
{
	struct sym	*sym;

	TAILQ_FOREACH(sym, &symhead, entry)
		if (strcmp(name, sym->name) == 0) {
			sym->used = 1;
			return (sym->value);
		}
	return (NULL);
}

int
cmdline_symset(const char *s)
{
	const char	*eq, *p;
	char		*name;
	int		 r;

	if ((eq = strchr(s, '=')) == NULL || eq == s)
		return (-1);
	for (p = s; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return (-1);
	if (isdigit((unsigned char)*s) || strlen(eq + 1) >= WORD_MAX ||
	    strchr(eq + 1, '\n') != NULL)
		return (-1);
	if ((name = strndup(s, eq - s)) == NULL)
		return (-1);
	r = symset(name, eq + 1, 1);
	free(name);
	return (r);
}

/* drop the file's macros, keep those of -D; say which were never used */
static void
symclear(int verbose)
{
	struct sym	*sym, *next;

	for (sym = TAILQ_FIRST(&symhead); sym != NULL; sym = next) {
		next = TAILQ_NEXT(sym, entry);
		if (verbose && !sym->used && !sym->persist)
			log_warnx("%s:%d: macro \"%s\" not used",
			    sym->file ? sym->file : "command line",
			    sym->lineno, sym->name);
		sym->used = 0;
		if (sym->persist)
			continue;
		TAILQ_REMOVE(&symhead, sym, entry);
		free(sym->name);
		free(sym->value);
		free(sym->file);
		free(sym);
	}
}

static void
gateway_defaults(struct gateway_conf *g)
{
	if (g->header_timeout == -1)
		g->header_timeout = ORCHD_HEADER_TIMEOUT;
	if (g->body_timeout == -1)
		g->body_timeout = ORCHD_BODY_TIMEOUT;
	if (g->connect_timeout == -1)
		g->connect_timeout = ORCHD_CONNECT_TIMEOUT;
	if (g->upstream_timeout == -1)
		g->upstream_timeout = ORCHD_UPSTREAM_TIMEOUT;
	if (g->keepalive_timeout == -1)
		g->keepalive_timeout = ORCHD_KEEPALIVE_TIMEOUT;
	/* the gateway sizes the global limit from its descriptor limit */
	if (g->max_conns == -1)
		g->max_conns = 0;
	if (g->max_conns_addr == -1)
		g->max_conns_addr = 0;
	if (g->h2_max_streams == -1)
		g->h2_max_streams = ORCHD_H2_STREAMS;
	if (g->prefork == -1)
		g->prefork = 1;
}

/*
 * Process workloads' identities.
 */

/* "LOW-HIGH": never 0, never (uid_t)-1, LOW <= HIGH */
static int
wl_uids_set(const char *s)
{
	char		 low[16];
	const char	*dash, *errstr;
	long long	 lo, hi = 0;

	if (uids_file != NULL) {
		yyerror("workload uids already set");
		return (-1);
	}
	if ((dash = strchr(s, '-')) == NULL || dash == s ||
	    (size_t)(dash - s) >= sizeof(low)) {
		yyerror("workload uids \"%s\": LOW-HIGH, such as %d-%d", s,
		    ORCHD_WL_UID_LOW, ORCHD_WL_UID_HIGH);
		return (-1);
	}
	memcpy(low, s, dash - s);
	low[dash - s] = '\0';
	lo = strtonum(low, 1, UINT32_MAX - 1, &errstr);
	if (errstr == NULL)
		hi = strtonum(dash + 1, 1, UINT32_MAX - 1, &errstr);
	if (errstr != NULL) {
		yyerror("workload uids \"%s\": %s (1 to %u)", s, errstr,
		    UINT32_MAX - 1);
		return (-1);
	}
	if (lo > hi) {
		yyerror("workload uids \"%s\": %lld is above %lld", s, lo, hi);
		return (-1);
	}
	if ((uids_file = strdup(file->name)) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	uids_lineno = yylval.lineno;
	conf->wl_uid_low = lo;
	conf->wl_uid_high = hi;
	return (0);
}

/* the workload just parsed names a user: checked at the end */
static void
user_check_add(void)
{
	struct user_check	*uc;

	if (wl->user == NULL || wl->driver != DRIVER_PROCESS)
		return;
	if ((uc = calloc(1, sizeof(*uc))) == NULL ||
	    (uc->file = strdup(file->name)) == NULL) {
		free(uc);
		yyerror_at(wl_lineno, "out of memory");
		return;
	}
	uc->lineno = wl_user_lineno != 0 ? wl_user_lineno : wl_lineno;
	uc->wl = wl;
	TAILQ_INSERT_TAIL(&user_checks, uc, entry);
}

static void
check_error(const char *f, int lineno, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static void
check_error(const char *f, int lineno, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	errors++;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s:%d: %s", f, lineno, msg);
}

/*
 * No process workload runs as root or as the daemons' user: neither by
 * name nor, where the parent can look users up, by uid.  A user that
 * does not exist is left to the start, which says so: the file may be
 * checked on another host.  The range of allocated uids must not hold
 * the daemons' uid.
 */
static void
user_checks_run(struct orchd_conf *c)
{
	struct user_check	*uc;
	const char		*user;
	uid_t			 duid = 0, uid;
	gid_t			 dgid, gid;
	int			 dknown = 0;

	if (parse_user_lookup != NULL &&
	    parse_user_lookup(c->user, &duid, &dgid) == 0)
		dknown = 1;
	TAILQ_FOREACH(uc, &user_checks, entry) {
		user = uc->wl->user;
		/* "root" and "0" by name: workload_root_check, at the block */
		if (user_is_root(user))
			continue;
		if (strcmp(user, c->user) == 0)
			check_error(uc->file, uc->lineno, "workload \"%s\": "
			    "user \"%s\" is the daemons' user: a workload "
			    "never runs as it", uc->wl->name, user);
		else if (parse_host_checks != PARSE_HOST_NONE &&
		    parse_user_lookup != NULL &&
		    parse_user_lookup(user, &uid, &gid) == -1)
			host_problem(uc->file, uc->lineno, "workload \"%s\": "
			    "user \"%s\" does not exist", uc->wl->name, user);
		else if (parse_user_lookup != NULL &&
		    parse_user_lookup(user, &uid, &gid) == 0 &&
		    (uid == 0 || (dknown && uid == duid)))
			check_error(uc->file, uc->lineno, "workload \"%s\": "
			    "user \"%s\" has uid %u, %s's: a workload never "
			    "runs as it", uc->wl->name, user, (unsigned)uid,
			    uid == 0 ? "root" : "the daemons' user");
	}
	if (dknown && (int64_t)duid >= c->wl_uid_low &&
	    (int64_t)duid <= c->wl_uid_high)
		check_error(uids_file != NULL ? uids_file : c->conffile,
		    uids_file != NULL ? uids_lineno : 1, "workload uids "
		    "%lld-%lld hold uid %u of the daemons' user %s",
		    (long long)c->wl_uid_low, (long long)c->wl_uid_high,
		    (unsigned)duid, c->user);
}

static void
user_checks_free(void)
{
	struct user_check	*uc;

	while ((uc = TAILQ_FIRST(&user_checks)) != NULL) {
		TAILQ_REMOVE(&user_checks, uc, entry);
		free(uc->file);
		free(uc);
	}
	free(uids_file);
	uids_file = NULL;
}

/*
 * What would fail at start or at the first wake, checked on this host:
 * an error for orchd -n and a reload, a warning at start (the other
 * workloads still serve, and the wake says why this one cannot).
 */
static void
host_problem(const char *f, int lineno, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (parse_host_checks == PARSE_HOST_ERROR) {
		errors++;
		log_warnx("%s:%d: %s", f, lineno, msg);
	} else
		log_warnx("%s:%d: warning: %s", f, lineno, msg);
}

/*
 * Without "instance name", the host name names this orchd in its swarm
 * services' labels: said here if it cannot, where a workload needs it.
 * The name itself is looked up when the configuration is sent, so that
 * orchd -nv prints the same on every host.
 */
static void
instance_check(const struct orchd_conf *c)
{
	const struct workload_conf	*wl;
	char				 buf[ORCHD_INSTANCE_MAX];

	if (c->instance[0] != '\0' || parse_host_checks == PARSE_HOST_NONE ||
	    instance_name_default(buf, sizeof(buf)) == 0)
		return;
	TAILQ_FOREACH(wl, &c->workloads, entry)
		if (wl->driver == DRIVER_SWARM) {
			host_problem(c->conffile, 0, "the host name cannot "
			    "be an instance name (1 to %d letters, digits, "
			    "'.', '-' or '_'): set instance name",
			    ORCHD_INSTANCE_MAX - 1);
			return;
		}
}

/*
 * A TLS file named here, on this host: the parent reads it after the
 * file is parsed, when its line would be forgotten.
 */
static void
tls_file_check(const char *path, const char *what)
{
	struct stat	 st;

	if (parse_host_checks == PARSE_HOST_NONE)
		return;
	if (stat(path, &st) == -1)
		host_problem(file->name, yylval.lineno, "%s %s: %s", what,
		    path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		host_problem(file->name, yylval.lineno, "%s %s: not a regular "
		    "file", what, path);
}

/* an executable regular file: 0, or -1 with errno */
static int
is_program(const char *path)
{
	struct stat	 st;

	if (stat(path, &st) == -1)
		return (-1);
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return (-1);
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0) {
		errno = EACCES;
		return (-1);
	}
	return (0);
}

/*
 * The program of a process workload's command, found as the spawn finds
 * it: a path as it is (a relative one from the workload's directory, if
 * it has one), a bare name in ORCHD_SPAWN_PATH.
 */
static void
program_check(void)
{
	char		**argv = NULL, err[256], path[PATH_MAX];
	const char	*p, *end;
	int		 found = 0;

	if (split_command(wl->command, &argv, err, sizeof(err)) <= 0)
		goto done;	/* workload_validate() said so */
	if (strchr(argv[0], '/') != NULL) {
		if (argv[0][0] != '/' && wl->directory == NULL)
			goto done;	/* from a state directory made later */
		if (argv[0][0] == '/')
			strlcpy(path, argv[0], sizeof(path));
		else
			snprintf(path, sizeof(path), "%s/%s", wl->directory,
			    argv[0]);
		if (is_program(path) == -1)
			host_problem(file->name, wl_command_lineno,
			    "workload \"%s\": command: %s: %s", wl->name,
			    path, strerror(errno));
		goto done;
	}
	for (p = ORCHD_SPAWN_PATH; *p != '\0' && !found; p = end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)(end - p), p,
		    argv[0]) < (int)sizeof(path) && is_program(path) == 0)
			found = 1;
		if (*end == ':')
			end++;
	}
	if (!found)
		host_problem(file->name, wl_command_lineno, "workload \"%s\": "
		    "command: %s: no such program in %s", wl->name, argv[0],
		    ORCHD_SPAWN_PATH);
 done:
	free_argv(argv);
}

/* the workload just parsed, a process one, against this host */
static void
host_checks(void)
{
	struct stat	 st;

	if (parse_host_checks == PARSE_HOST_NONE ||
	    wl->driver != DRIVER_PROCESS)
		return;
	if (wl->command != NULL)
		program_check();
	if (wl->directory == NULL)
		return;
	if (stat(wl->directory, &st) == -1)
		host_problem(file->name, wl_dir_lineno, "workload \"%s\": "
		    "directory %s: %s", wl->name, wl->directory,
		    strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		host_problem(file->name, wl_dir_lineno, "workload \"%s\": "
		    "directory %s: not a directory", wl->name, wl->directory);
}

/* the workload just parsed: its address and port, checked at the end */
static void
portcheck_add(void)
{
	struct portcheck	*pc;

	if (wl->port == 0 || wl->address == NULL)
		return;
	if ((pc = reallocarray(portchecks, nportchecks + 1,
	    sizeof(*pc))) == NULL) {
		yyerror_at(wl_lineno, "out of memory");
		return;
	}
	portchecks = pc;
	pc = &portchecks[nportchecks];
	memset(pc, 0, sizeof(*pc));
	if (address_parse(wl->address, workload_upstream_port(wl), &pc->ss,
	    &pc->sslen) == -1)
		return;		/* workload_validate() said so */
	if ((pc->file = strdup(file->name)) == NULL) {
		yyerror_at(wl_lineno, "out of memory");
		return;
	}
	pc->lineno = wl_lineno;
	pc->wl = wl;
	nportchecks++;
}

/* by address, then port, then where: a duplicate follows its first */
static int
portcheck_cmp(const void *a, const void *b)
{
	const struct portcheck	*pa = a, *pb = b;
	int			 c;

	if (pa->sslen != pb->sslen)
		return (pa->sslen < pb->sslen ? -1 : 1);
	if ((c = memcmp(&pa->ss, &pb->ss, pa->sslen)) != 0)
		return (c);
	if ((c = strcmp(pa->file, pb->file)) != 0)
		return (c);
	return (pa->lineno - pb->lineno);
}

/*
 * No two workloads on one address and port, and none on the gateway's
 * own: sorted, so that 10,000 workloads stay quick.  c NULL: only free.
 */
static void
portchecks_run(const struct orchd_conf *c)
{
	struct portcheck	*pc, *first;
	struct listener_conf	 wlc, *l;
	char			 whose[ORCHD_NAME_MAX + 16];
	int			 nlisten = 0;
	size_t			 i;

	if (c != NULL && nportchecks > 1)
		qsort(portchecks, nportchecks, sizeof(*portchecks),
		    portcheck_cmp);
	for (i = 0; c != NULL && i < nportchecks; i++) {
		pc = &portchecks[i];
		first = i > 0 ? &portchecks[i - 1] : NULL;
		if (first != NULL && first->sslen == pc->sslen &&
		    memcmp(&first->ss, &pc->ss, pc->sslen) == 0)
			check_error(pc->file, pc->lineno, "workload \"%s\": "
			    "address %s port %d is workload \"%s\"'s too",
			    pc->wl->name, pc->wl->address,
			    workload_upstream_port(pc->wl),
			    first->wl->name);
		memset(&wlc, 0, sizeof(wlc));
		wlc.ss = pc->ss;
		wlc.sslen = pc->sslen;
		TAILQ_FOREACH(l, &c->listeners, entry)
			if (listener_overlaps(&wlc, l)) {
				check_error(pc->file, pc->lineno, "workload "
				    "\"%s\": address %s port %d is %s%slisten "
				    "on %s", pc->wl->name, pc->wl->address,
				    workload_upstream_port(pc->wl),
				    l->workload[0] != '\0' ? "" :
				    "the gateway's ", listener_whose(l, whose,
				    sizeof(whose)), l->name);
				break;
			}
	}
	if (c != NULL && parse_host_checks != PARSE_HOST_NONE) {
		TAILQ_FOREACH(l, &c->listeners, entry)
			if (!l->api && l->workload[0] == '\0')
				nlisten++;
		if (nlisten == 0)
			log_warnx("%s: warning: no \"listen on\": the gateway "
			    "serves no workload", c->conffile);
	}
	for (i = 0; i < nportchecks; i++)
		free(portchecks[i].file);
	free(portchecks);
	portchecks = NULL;
	nportchecks = 0;
}

/*
 * "depends on" in the workload being parsed: a name, once, not its own
 * (as workload_validate() says too); whether it is a workload is known
 * at the end of the file.
 */
static int
depends_add(const char *name)
{
	struct depcheck	*dc;
	struct strentry	*e;
	int		 n = 0;

	if (!valid_workload_name(name)) {
		yyerror("depends on \"%s\": not a workload name", name);
		return (-1);
	}
	if (strcmp(name, wl->name) == 0) {
		yyerror("workload \"%s\" depends on itself", name);
		return (-1);
	}
	TAILQ_FOREACH(e, &wl->depends, entry) {
		if (strcmp(e->str, name) == 0) {
			yyerror("depends on \"%s\" listed twice", name);
			return (-1);
		}
		n++;
	}
	if (n >= ORCHD_DEPS_MAX) {
		yyerror("depends on more than %d workloads", ORCHD_DEPS_MAX);
		return (-1);
	}
	if ((dc = reallocarray(depchecks, ndepchecks + 1,
	    sizeof(*dc))) == NULL) {
		yyerror("out of memory");
		return (-1);
	}
	depchecks = dc;
	dc = &depchecks[ndepchecks];
	dc->lineno = yylval.lineno;
	dc->file = strdup(file->name);
	dc->wl = strdup(wl->name);
	dc->dep = strdup(name);
	if (dc->file == NULL || dc->wl == NULL || dc->dep == NULL ||
	    strlist_add(&wl->depends, name) == -1) {
		free(dc->file);
		free(dc->wl);
		free(dc->dep);
		yyerror("out of memory");
		return (-1);
	}
	ndepchecks++;
	return (0);
}

/* a problem of the graph, at the line of the "depends on" it shows at */
static void
depcheck_report(void *arg, const struct workload_conf *w, const char *dep,
    const char *msg)
{
	const struct orchd_conf	*c = arg;
	size_t			 i;

	for (i = 0; i < ndepchecks; i++)
		if (strcmp(depchecks[i].wl, w->name) == 0 &&
		    strcmp(depchecks[i].dep, dep) == 0)
			break;
	if (i < ndepchecks)
		check_error(depchecks[i].file, depchecks[i].lineno, "%s", msg);
	else
		check_error(c->conffile, 1, "%s", msg);
}

/*
 * The file's workloads name workloads of the file: those of the API may
 * go, the file stands on its own (and orchd -n checks it alone).  c
 * NULL: only free.
 */
static void
depchecks_run(const struct orchd_conf *c)
{
	const struct workload_conf	**v = NULL, *w;
	size_t				 i, n = 0;

	if (c != NULL && ndepchecks > 0) {
		TAILQ_FOREACH(w, &c->workloads, entry)
			n++;
		if ((v = calloc(n, sizeof(*v))) == NULL)
			check_error(c->conffile, 1, "out of memory");
		else {
			n = 0;
			TAILQ_FOREACH(w, &c->workloads, entry)
				v[n++] = w;
			if (deps_check(v, n, depcheck_report,
			    (void *)c) == -1)
				check_error(c->conffile, 1, "out of memory");
			free(v);
		}
	}
	for (i = 0; i < ndepchecks; i++) {
		free(depchecks[i].file);
		free(depchecks[i].wl);
		free(depchecks[i].dep);
	}
	free(depchecks);
	depchecks = NULL;
	ndepchecks = 0;
}

/*
 * Beside the database's directory, not in it: that one is the store's
 * alone.  /var/lib/orchd/orchd.db gives /var/lib/orchd-workloads.
 */
static int
wl_dir_default(struct orchd_conf *c)
{
	char	 db[PATH_MAX], dir[PATH_MAX], *p;
	int	 n;

	if (c->wl_dir != NULL)
		return (0);
	if (strlcpy(db, c->database, sizeof(db)) >= sizeof(db)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	/* the database's directory, then the one that holds it */
	if ((p = strrchr(db, '/')) != NULL)
		p[p == db ? 1 : 0] = '\0';
	else
		strlcpy(db, ".", sizeof(db));
	if ((p = strrchr(db, '/')) != NULL)
		p[p == db ? 1 : 0] = '\0';
	else
		strlcpy(db, ".", sizeof(db));
	n = snprintf(dir, sizeof(dir), "%s%s%s", db,
	    db[strlen(db) - 1] == '/' ? "" : "/", ORCHD_WL_DIRNAME);
	if (n < 0 || (size_t)n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return ((c->wl_dir = strdup(dir)) == NULL ? -1 : 0);
}

/*
 * The entry points.
 */
struct orchd_conf *
parse_config(const char *filename, int verbose)
{
	struct orchd_conf	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		log_warn("%s: calloc", __func__);
		return (NULL);
	}
	TAILQ_INIT(&c->listeners);
	TAILQ_INIT(&c->api_hosts);
	TAILQ_INIT(&c->keypairs);
	TAILQ_INIT(&c->workloads);
	TAILQ_INIT(&c->api_allow_images);
	TAILQ_INIT(&c->api_allow_volumes);
	TAILQ_INIT(&c->api_allow_networks);
	TAILQ_INIT(&c->api_allow_addresses);
	TAILQ_INIT(&c->api_allow_publish);
	TAILQ_INIT(&c->ignores);
	c->tunnel_idle = c->server_timing = c->on_change = -1;
	c->pull = -1;
	c->pull_timeout = -1;
	c->expire_after = -1;
	c->idle_timeout = c->reaper_interval = c->wake_timeout = -1;
	c->health_interval = c->health_timeout = c->health_failures = -1;
	c->gateway.header_timeout = c->gateway.body_timeout = -1;
	c->gateway.connect_timeout = c->gateway.upstream_timeout = -1;
	c->gateway.keepalive_timeout = -1;
	c->gateway.max_conns = c->gateway.max_conns_addr = -1;
	c->gateway.prefork = -1;
	c->gateway.h2_max_streams = -1;
	c->access_log_format = -1;
	c->log_max_size = -1;
	c->wl_uid_low = ORCHD_WL_UID_LOW;
	c->wl_uid_high = ORCHD_WL_UID_HIGH;
	c->memory_budget = BUDGET_UNSET;
	c->memory_estimate = c->max_wakes = c->pressure_limit = -1;
	if ((c->conffile = strdup(filename)) == NULL) {
		log_warn("%s: strdup", __func__);
		free(c);
		return (NULL);
	}

	conf = c;
	errors = 0;
	pushback_len = 0;
	expanding = 0;
	lasttok[0] = '\0';
	lineword[0] = '\0';
	at_bol = 1;
	if ((topfile = pushfile(filename, 0)) == NULL) {
		conf = NULL;
		pathcheck_run(NULL);
		portchecks_run(NULL);
		depchecks_run(NULL);
		free_config(c);
		return (NULL);
	}
	if (yyparse() != 0 && errors == 0)
		yyerror("cannot parse");
	closefiles();
	workload_abandon();
	index_clear(&names_index);
	index_clear(&hosts_index);
	symclear(verbose);
	pool_free();
	pushback_len = 0;
	expanding = 0;
	conf = NULL;

	/* every check below runs even after an error: all are reported */
	if (c->user[0] == '\0')
		(void)strlcpy(c->user, ORCHD_USER, sizeof(c->user));
	user_checks_run(c);
	user_checks_free();
	if ((c->chroot == NULL &&
	    (c->chroot = strdup(ORCHD_CHROOT)) == NULL) ||
	    (c->database == NULL &&
	    (c->database = strdup(ORCHD_DATABASE)) == NULL) ||
	    (c->socket == NULL &&
	    (c->socket = strdup(ORCHD_SOCKET)) == NULL) ||
	    (c->logdir == NULL &&
	    (c->logdir = strdup(ORCHD_LOGDIR)) == NULL) ||
	    (c->docker_socket == NULL &&
	    (c->docker_socket = strdup(ORCHD_DOCKER_SOCKET)) == NULL) ||
	    wl_dir_default(c) == -1) {
		log_warn("%s: strdup", __func__);
		pathcheck_run(NULL);
		portchecks_run(NULL);
		depchecks_run(NULL);
		free_config(c);
		return (NULL);
	}
	/* with orchd's own files known, the host paths */
	pathcheck_run(c);
	portchecks_run(c);
	depchecks_run(c);
	instance_check(c);
	if (errors != 0) {
		free_config(c);
		return (NULL);
	}
	if (c->idle_timeout == -1)
		c->idle_timeout = ORCHD_IDLE_TIMEOUT;
	if (c->reaper_interval == -1)
		c->reaper_interval = ORCHD_REAPER_INTERVAL;
	if (c->wake_timeout == -1)
		c->wake_timeout = ORCHD_WAKE_TIMEOUT;
	if (c->health_interval == -1)
		c->health_interval = 0;
	if (c->health_timeout == -1)
		c->health_timeout = ORCHD_HEALTH_TIMEOUT;
	if (c->health_failures == -1)
		c->health_failures = ORCHD_HEALTH_FAILURES;
	gateway_defaults(&c->gateway);
	/* open tunnels count until they close; Server-Timing is sent */
	if (c->tunnel_idle == -1)
		c->tunnel_idle = 0;
	if (c->server_timing == -1)
		c->server_timing = 1;
	if (c->pull == -1)
		c->pull = PULL_MISSING;
	if (c->pull_timeout == -1)
		c->pull_timeout = ORCHD_PULL_TIMEOUT;
	/* API workloads live until deleted, unless told otherwise */
	if (c->expire_after == -1)
		c->expire_after = 0;
	if (c->access_log_format == -1)
		c->access_log_format = ACCESS_LOG_COMBINED;
	if (c->log_max_size == -1)
		c->log_max_size = 0;
	/* a running workload keeps its definition until its next start */
	if (c->on_change == -1)
		c->on_change = ON_CHANGE_NEXT_WAKE;
	/* no budget, no cap, no pressure limit: as before them */
	if (c->memory_budget == BUDGET_UNSET)
		c->memory_budget = 0;
	if (c->memory_estimate == -1)
		c->memory_estimate = ORCHD_MEMORY_ESTIMATE;
	if (c->max_wakes == -1)
		c->max_wakes = 0;
	if (c->pressure_limit == -1)
		c->pressure_limit = 0;
	return (c);
}

void
free_config(struct orchd_conf *c)
{
	struct listener_conf	*l;
	struct keypair_conf	*kp;
	struct workload_conf	*w;

	if (c == NULL)
		return;
	while ((l = TAILQ_FIRST(&c->listeners)) != NULL) {
		TAILQ_REMOVE(&c->listeners, l, entry);
		free(l->tls_cert);
		free(l->tls_key);
		free(l->tls_cert_mem);
		freezero(l->tls_key_mem, l->tls_key_len);
		free(l);
	}
	strlist_free(&c->api_hosts);
	strlist_free(&c->api_allow_images);
	strlist_free(&c->api_allow_volumes);
	strlist_free(&c->api_allow_networks);
	strlist_free(&c->api_allow_addresses);
	strlist_free(&c->api_allow_publish);
	ignore_free(&c->ignores);
	while ((kp = TAILQ_FIRST(&c->keypairs)) != NULL) {
		TAILQ_REMOVE(&c->keypairs, kp, entry);
		free(kp->cert);
		free(kp->key);
		free(kp->cert_mem);
		freezero(kp->key_mem, kp->key_len);
		free(kp);
	}
	while ((w = TAILQ_FIRST(&c->workloads)) != NULL) {
		TAILQ_REMOVE(&c->workloads, w, entry);
		workload_free(w);
	}
	free(c->conffile);
	free(c->chroot);
	free(c->database);
	free(c->socket);
	free(c->logdir);
	free(c->docker_socket);
	free(c->wl_dir);
	free(c->access_log);
	free(c->api_key_file);
	freezero(c->api_key, c->api_key_len);
	free(c->regauth_file);
	freezero(c->regauth, c->regauth_len);
	free(c->swarm_manager);
	free(c->swarm_ca);
	free(c->swarm_cert);
	free(c->swarm_key);
	freezero(c->swarm_creds, c->swarm_creds_len);
	free(c);
}
