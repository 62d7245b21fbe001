/*
 * orchd.conf(5): the configuration grammar.
 *
 * Built the way the OpenBSD daemons build theirs: a stack of open files
 * for include, a sorted keyword table, a hand-written lexer with macro
 * expansion, and an error production per line so that every error of a
 * file is reported before parse_config() gives up.
 *
 * Here are the grammar and its tokens; the lexer that makes them, with
 * the wording of a syntax error, is lex.c.  What the actions call lives
 * beside it, one concern a file (parser.h lists them): the input and the
 * string pool in parse_input.c, the entry points in parse_conf.c.
 */

%{
#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#include "parser.h"

/* what a bad duration or size is told (common/units.c) */
#define DURATION_UNITS	"seconds, or a number with s, m, h or d (30s, 5m, " \
			"1h, 2d)"
#define SIZE_UNITS	"bytes, or a number with K, M or G (64K, 512M, 1G)"

/* what a workload block has set already (wl_seen) */
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
%token	PAGE SESSION STATUS
%token	CHANGE NEXT RESTART
%token	PUBLISH
%token	AUTH PULL REGISTRY
%token	CONSTRAINT REPLICAS SWARM
%token	CA MANAGER
%token	AFTER EXPIRE
%token	HTTP2 KNOWLEDGE PRIOR STREAMS
%token	BUDGET CONCURRENT ESTIMATE LIMIT PRESSURE WAKES
%token	INSTANCE NAME
%token	LABELS
%token	ERROR
%token	ACCESS FORMAT SIZE
%token	ACME AGE HSTS HTTPS REDIRECT SUBDOMAINS
%token	CONTACT EAB HMAC HOUR ISSUANCES KID
%token	DENY
%token	ACTIVATION
%token	FOR FREEZE SUSPEND
%token	TIMESTAMPS
%token	ERRORWORD
%token	NOTIFY
%token	ENTRYPOINT GROUP
%token	EVERY ONCE RUN
%token	PREFIX STRIP
%token	AT DURING TIMEZONE
%token	CPU IO PIDS WEIGHT
%token	<v.string>	STRING
%token	<v.number>	NUMBER
%type	<v.string>	value schedzone
%type	<v.number>	schedfor
%type	<v.number>	duration size port suspendhow
%type	<v.number>	ignorekind answer onoff onchange runonce metricsper
%type	<v.tls>		tlsopt
%type	<v.number>	h2opt hstsage hstssub
%type	<v.number>	notifyevs
%%

grammar		: /* empty */
		| grammar '\n'
		| grammar include
		| grammar varset '\n'
		| grammar main '\n'
		| grammar workload '\n'
		| grammar groupblock '\n'
		| grammar acme '\n'
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

/*
 * suspend stop | freeze [for DURATION]: 0, the duration, or
 * WL_FREEZE_FOREVER; -2 for a "for 0", refused by freeze_set
 */
suspendhow	: STOP				{ $$ = 0; }
		| FREEZE			{ $$ = WL_FREEZE_FOREVER; }
		| FREEZE FOR duration		{ $$ = $3 == 0 ? -2 : $3; }
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

/* the events of a "notify", 0: its default ones */
notifyevs	: /* empty */			{ $$ = 0; }
		| notifyevs STRING		{
			uint32_t	m = (uint32_t)$1;

			if (notify_event(&m, $2) == -1)
				YYERROR;
			$$ = m;
		}
		| notifyevs CERTIFICATE		{
			uint32_t	m = (uint32_t)$1;

			(void)notify_event(&m, "certificate");
			$$ = m;
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
		| NUMBER			{
			/* not "syntax error near 1": say what it takes */
			yyerror("%lld: on or off", (long long)$1);
			YYERROR;
		}
		;

/* one limit (parse_limits.c); the statement it is in puts it */
limit		: CPU value			{
			if (limit_read(LIMIT_CPU, $2, 0) == -1)
				YYERROR;
		}
		| CPU WEIGHT NUMBER		{
			if (limit_read(LIMIT_CPU_WEIGHT, NULL, $3) == -1)
				YYERROR;
		}
		| PIDS NUMBER			{
			if (limit_read(LIMIT_PIDS, NULL, $2) == -1)
				YYERROR;
		}
		| IO WEIGHT NUMBER		{
			if (limit_read(LIMIT_IO_WEIGHT, NULL, $3) == -1)
				YYERROR;
		}
		;

/* /metrics: every workload's series (0), none (-1), the top N's */
metricsper	: onoff				{ $$ = $1 ? 0 : -1; }
		| STRING NUMBER			{
			if (strcmp($1, "top") != 0 || $2 < 1 ||
			    $2 > METRICS_TOP_MAX) {
				yyerror("metrics per workload: on, off or top "
				    "1 to %d", METRICS_TOP_MAX);
				YYERROR;
			}
			$$ = (int)$2;
		}
		;

runonce		: /* empty */			{ $$ = RUN_ONCE; }
		| EVERY WAKE			{ $$ = RUN_EVERY_WAKE; }
		;

onchange	: RESTART			{ $$ = ON_CHANGE_RESTART; }
		| NEXT WAKE			{ $$ = ON_CHANGE_NEXT_WAKE; }
		;

tlsopt		: /* empty */			{
			$$.cert = $$.key = NULL;
			$$.acme = 0;
		}
		| TLS CERTIFICATE STRING KEY STRING	{
			$$.cert = $3;
			$$.key = $5;
			$$.acme = 0;
		}
		| TLS ACME			{
			$$.cert = $$.key = NULL;
			$$.acme = 1;
		}
		| TLS ACME CERTIFICATE STRING KEY STRING	{
			$$.cert = $4;
			$$.key = $6;
			$$.acme = 1;
		}
		;

/* a gateway listener's options after its address: redirect, hsts */
listenopts	: /* empty */
		| listenopts listenopt
		;

listenopt	: REDIRECT HTTPS		{
			if (listener_redirect(0) == -1)
				YYERROR;
		}
		| REDIRECT HTTPS PORT port	{
			if (listener_redirect($4) == -1)
				YYERROR;
		}
		| HSTS hstsage hstssub		{
			if (listener_hsts($2, $3) == -1)
				YYERROR;
		}
		;

hstsage		: /* empty */			{ $$ = ORCHD_HSTS_AGE; }
		| MAXCONN AGE duration		{ $$ = $3; }
		;

hstssub		: /* empty */			{ $$ = 0; }
		| SUBDOMAINS			{ $$ = 1; }
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
			global_user_at();
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
		| DOCKER LABELS onoff		{
			if (conf->docker_labels != -1) {
				yyerror("docker labels already set");
				YYERROR;
			}
			conf->docker_labels = $3;
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
		| SUSPEND suspendhow		{
			if (freeze_set(&conf->freeze, $2) == -1)
				YYERROR;
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
		| LISTEN ON STRING PORT port tlsopt h2opt listenopts	{
			if (listener_add($3, $5, 0, $6.cert, $6.key,
			    NULL) == -1 || listener_options($6.acme) == -1 ||
			    listener_http2($7) == -1)
				YYERROR;
		}
		| API LISTEN ON STRING PORT port tlsopt h2opt	{
			if ($7.acme) {
				yyerror("api listen on: no tls acme, an "
				    "api listener has its own keypair");
				YYERROR;
			}
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
		| limit				{
			if (limit_put(&conf->lim_dflt, "") == -1)
				YYERROR;
		}
		| API MAXCONN limit		{
			if (limit_put(&conf->lim_max, "api max ") == -1)
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
		| API ALLOW AUTH STRING STRING	{
			if (api_allow_auth($4, $5) == -1)
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
		| STATUS PAGE			{
			if (conf->status_page) {
				yyerror("status page already set");
				YYERROR;
			}
			conf->status_page = 1;
		}
		| STATUS LISTEN ON STRING PORT port tlsopt h2opt {
			if ($7.acme) {
				yyerror("status listen on: no tls acme, a "
				    "status listener has its own keypair");
				YYERROR;
			}
			if (listener_add($4, $6, LISTENER_STATUS, $7.cert,
			    $7.key, NULL) == -1 || listener_http2($8) == -1)
				YYERROR;
		}
		| NOTIFY STRING notifyevs	{
			if (notify_add(conf, $2, (uint32_t)$3) == -1)
				YYERROR;
		}
		| NOTIFY KEY FILENAME STRING	{
			if (set_string(&conf->notify_key_file, $4,
			    "notify key file") == -1)
				YYERROR;
		}
		| NOTIFY ALLOW STRING		{
			if (notify_allow(conf, $3) == -1)
				YYERROR;
		}
		| STATUS KEY FILENAME STRING	{
			if (set_string(&conf->status_key_file, $4,
			    "status key file") == -1)
				YYERROR;
		}
		| STATUS SESSION TIMEOUT duration {
			if (conf->status_session != 0) {
				yyerror("status session timeout already set");
				YYERROR;
			}
			if ($4 < 1 || $4 > 30 * 86400) {
				yyerror("status session timeout: 1s to 30d");
				YYERROR;
			}
			conf->status_session = $4;
		}
		| ERRORWORD PAGE NUMBER STRING	{
			if (errpage_add(&conf->error_pages, $3, $4) == -1)
				YYERROR;
		}
		| API METRICS PUBLIC		{
			if (conf->api_metrics_public) {
				yyerror("api metrics public already set");
				YYERROR;
			}
			conf->api_metrics_public = 1;
		}
		| METRICS PER WORKLOAD metricsper	{
			if (conf->metrics_top != -2) {
				yyerror("metrics per workload already set");
				YYERROR;
			}
			conf->metrics_top = $4;
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
		} '{' wlopts '}'		{
			workload_end();
		}
		;

/* a group's schedules, for every member (parse_sched.c) */
groupblock	: GROUP STRING			{
			(void)parse_group_begin($2);
		} '{' groupopts '}'
		;

groupopts	: /* empty */
		| groupopts '\n'
		| groupopts groupopt '\n'
		| groupopts error '\n'		{ yyerrok; }
		;

groupopt	: KEEP WARM DURING STRING schedzone {
			if (parse_group_sched(0, $4, $5, 0) == -1)
				YYERROR;
		}
		| WAKE AT STRING schedzone schedfor {
			if (parse_group_sched(1, $3, $4, $5) == -1)
				YYERROR;
		}
		;

/* the ACME server of acmed (parse_acme.c) */
acme		: ACME				{
			if (acme_begin(conf) == -1)
				YYERROR;
		} '{' acmeopts '}'		{
			/* said already: no recovery to begin after the "}" */
			(void)acme_end(conf);
		}
		;

/*
 * A block's lines, blank ones among them: its list is empty at once
 * after the "{", so that an error on its first line is recovered within
 * the block, not by dropping the block.
 */
acmeopts	: /* empty */
		| acmeopts '\n'
		| acmeopts acmeopt '\n'
		| acmeopts error '\n'		{ yyerrok; }
		;

acmeopt		: DIRECTORY STRING		{
			if (acme_directory(conf, $2) == -1)
				YYERROR;
		}
		| CONTACT STRING		{
			if (acme_contact(conf, $2) == -1)
				YYERROR;
		}
		| CA FILENAME STRING		{
			if (acme_ca(conf, $3) == -1)
				YYERROR;
		}
		| EAB KID STRING HMAC FILENAME STRING {
			if (acme_eab(conf, $3, $6) == -1)
				YYERROR;
		}
		| ISSUANCES PER HOUR NUMBER	{
			if (acme_per_hour(conf, $4) == -1)
				YYERROR;
		}
		;

wlopts		: /* empty */
		| wlopts '\n'
		| wlopts wlopt '\n'
		| wlopts error '\n'		{ yyerrok; }
		| wlopts WORKLOAD STRING	{
			/*
			 * A "}" forgotten: that block ends here and this one
			 * begins, so that its settings are not the other's.
			 */
			yyerror("workload \"%s\": no \"}\" before workload "
			    "\"%s\"", wl->name, $3);
			workload_end();
			workload_begin($3);
		} '{'
		;

schedzone	: /* empty */			{ $$ = NULL; }
		| TIMEZONE STRING		{ $$ = $2; }
		;

schedfor	: /* empty */			{ $$ = 0; }
		| FOR duration			{
			if ($2 < 1) {
				yyerror("wake at ... for: a duration from 1s "
				    "to 7d");
				YYERROR;
			}
			$$ = $2;
		}
		;

wlopt		: limit				{
			if (limit_put_wl(wl) == -1)
				YYERROR;
		}
		| ERRORWORD PAGE NUMBER STRING	{
			if (errpage_add(&wl->error_pages, $3, $4) == -1)
				YYERROR;
		}
		| HOST STRING			{
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
		| ENTRYPOINT STRING		{
			if (set_string(&wl->entrypoint, $2, "entrypoint") == -1)
				YYERROR;
		}
		| GROUP STRING			{
			if (set_string(&wl->group, $2, "group") == -1)
				YYERROR;
		}
		| GROUP WAKE STRING		{
			int	 v;

			if (wl_word_value(wl_group_wakes, $3, &v) == -1) {
				yyerror("group wake %s: together or "
				    "dependencies", $3);
				YYERROR;
			}
			wl->group_wake = v;
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
		| SUSPEND suspendhow		{
			if (freeze_set(&wl->freeze, $2) == -1)
				YYERROR;
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
		| KEEP WARM DURING STRING schedzone {
			if (parse_sched_add(&wl->warm_windows, 0, $4, $5,
			    0) == -1)
				YYERROR;
		}
		| WAKE AT STRING schedzone schedfor {
			if (parse_sched_add(&wl->wake_at, 1, $3, $4, $5) == -1)
				YYERROR;
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
		| SOCKET ACTIVATION		{
			if (wl->socket_activation) {
				yyerror("socket activation already set");
				YYERROR;
			}
			wl->socket_activation = 1;
		}
		| LOG TIMESTAMPS		{
			if (wl->log_timestamps) {
				yyerror("log timestamps already set");
				YYERROR;
			}
			wl->log_timestamps = 1;
		}
		| REDIRECT HTTPS		{
			if (wl->redirect_https) {
				yyerror("redirect https already set");
				YYERROR;
			}
			wl->redirect_https = 1;
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
		| RUN ONCE runonce		{
			if (wl->run_once != RUN_SERVICE) {
				yyerror("run once already set");
				YYERROR;
			}
			wl->run_once = $3;
		}
		| RUN TIMEOUT duration		{
			if (wl->run_timeout != -1) {
				yyerror("run timeout already set");
				YYERROR;
			}
			if ($3 < 1) {
				yyerror("run timeout must be positive");
				YYERROR;
			}
			wl->run_timeout = $3;
		}
		| PATH STRING			{
			if (set_string(&wl->path, $2, "path") == -1)
				YYERROR;
		}
		| STRIP PREFIX			{
			if (wl->path_strip) {
				yyerror("strip prefix already set");
				YYERROR;
			}
			wl->path_strip = 1;
		}
		| ALLOW FROM STRING		{
			if (gate_access_add(1, $3) == -1)
				YYERROR;
		}
		| DENY FROM STRING		{
			if (gate_access_add(0, $3) == -1)
				YYERROR;
		}
		| AUTH STRING STRING		{
			if (gate_auth_begin($2, $3) == -1)
				YYERROR;
		} authopts
		;

/* auth basic FILE [pass authorization], auth request URL [...] */
authopts	: /* empty */
		| authopts authopt
		;

authopt		: STRING value			{
			if (gate_auth_opt($1, $2) == -1)
				YYERROR;
		}
		| TIMEOUT duration		{
			if (gate_auth_timeout($2) == -1)
				YYERROR;
		}
		| STRING '{'			{
			if (gate_auth_headers($1) == -1)
				YYERROR;
		} optnl authheaders '}'
		;

authheaders	: /* empty */
		| authheaders STRING optnl	{
			if (gate_auth_header($2) == -1)
				YYERROR;
		}
		;

%%
