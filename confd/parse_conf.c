/*
 * orchd.conf parsed: parse_config() runs the grammar (orchd/parse.y)
 * over a file and its includes, then the checks that need the whole
 * file, and fills in the defaults; free_config() undoes it.  Between
 * them, the block of the workload being parsed: its start, and at its
 * end its validation (common/workload.c) and its place in the
 * configuration.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "compat.h"
#include "ignore.h"
#include "units.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

/* what the grammar is building */
struct orchd_conf	*conf;
struct workload_conf	*wl;
int			 wl_lineno, wl_seen;
int			 wl_user_lineno;
int			 wl_command_lineno, wl_dir_lineno;
char			*wl_cert, *wl_key;
static int		 wl_errors;	/* errors before its block */

static int		 wl_dir_default(struct orchd_conf *);

void
workload_abandon(void)
{
	route_forget();
	workload_free(wl);
	wl = NULL;
	free(wl_cert);
	free(wl_key);
	wl_cert = wl_key = NULL;
}

void
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
	else if (workload_named(name))
		yyerror("workload \"%s\" defined twice", name);
	/* an invalid name still gets a workload to parse the block into */
	if ((wl = workload_new(valid_workload_name(name) ? name : "")) ==
	    NULL)
		fatal("%s: workload_new", __func__);
}

void
workload_end(void)
{
	struct keypair_conf	*kp;
	struct strentry		*e;
	char			 reason[512];

	route_check();
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

	if ((c = conf_new()) == NULL) {
		log_warn("%s: calloc", __func__);
		return (NULL);
	}
	c->tunnel_idle = c->server_timing = c->on_change = -1;
	c->docker_labels = -1;
	c->metrics_top = -2;
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
	c->freeze = -1;
	if ((c->conffile = strdup(filename)) == NULL) {
		log_warn("%s: strdup", __func__);
		free(c);
		return (NULL);
	}

	conf = c;
	errors = 0;
	input_reset();
	lex_reset();
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
	index_clear();
	symclear(verbose);
	pool_free();
	input_reset();
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
	listener_acme_check(c);
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
	if (c->docker_labels == -1)
		c->docker_labels = 0;
	/* every workload's series, as before the option */
	if (c->metrics_top == -2)
		c->metrics_top = 0;
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
	if (c->freeze == -1)
		c->freeze = 0;
	if (c->pressure_limit == -1)
		c->pressure_limit = 0;
	return (c);
}
