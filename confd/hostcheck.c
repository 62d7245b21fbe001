/*
 * What orchd.conf asks of this host, checked as the file is read: the
 * programs and directories of process workloads, the TLS files, the
 * users workloads run as (never root, never the daemons' user, and the
 * range of allocated uids apart from the daemons'), a host name that
 * can name this orchd where a swarm needs it, and a workload port that
 * the kernel may hand to an outgoing connection while the workload
 * sleeps.
 *
 * parse_host_checks says what a problem is: nothing (unit tests, a file
 * read for another host), a warning at start (the other workloads still
 * serve, and the wake says why this one cannot), or an error for
 * orchd -n and a reload.  A user is looked up through parse_user_lookup,
 * which the parent sets.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "compat.h"
#include "hashtab.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "conf.h"
#include "parser.h"

/* a process workload's user, checked at the end: the daemons' user may
 * be set after it */
struct user_check {
	TAILQ_ENTRY(user_check)		 entry;
	char				*file;
	int				 lineno;
	const struct workload_conf	*wl;
};
static TAILQ_HEAD(, user_check)	 user_checks =
				    TAILQ_HEAD_INITIALIZER(user_checks);
static char			*uids_file;	/* where "workload uids" is */
static char			*user_file;	/* where "user" is */
static int			 user_lineno;
static int			 uids_lineno;

int	(*parse_user_lookup)(const char *, uid_t *, gid_t *);
int	  parse_host_checks = PARSE_HOST_NONE;

/*
 * What would fail at start or at the first wake, checked on this host:
 * an error for orchd -n and a reload, a warning at start (the other
 * workloads still serve, and the wake says why this one cannot).
 */
void
host_problem(const char *f, int lineno, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (parse_host_checks == PARSE_HOST_ERROR)
		errors++;
	if (lineno == 0)
		log_warnx("%s: %s%s", f, parse_host_checks == PARSE_HOST_ERROR ?
		    "" : "warning: ", msg);
	else
		log_warnx("%s:%d: %s%s", f, lineno, parse_host_checks ==
		    PARSE_HOST_ERROR ? "" : "warning: ", msg);
}

/* the global "user" just read: where it is, for its check */
void
global_user_at(void)
{
	free(user_file);
	user_file = strdup(file->name);
	user_lineno = yylval.lineno;
}

/*
 * Without "instance name", the host name names this orchd in its swarm
 * services' labels: said here if it cannot, where a workload needs it.
 * The name itself is looked up when the configuration is sent, so that
 * orchd -nv prints the same on every host.
 */
void
instance_check(const struct orchd_conf *c)
{
	const struct workload_conf	*w;
	char				 buf[ORCHD_INSTANCE_MAX];

	if (c->instance[0] != '\0' || parse_host_checks == PARSE_HOST_NONE ||
	    instance_name_default(buf, sizeof(buf)) == 0)
		return;
	TAILQ_FOREACH(w, &c->workloads, entry)
		if (w->driver == DRIVER_SWARM) {
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
void
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

/*
 * What is_program() found of each path, for the rest of the load: at
 * 100,000 workloads running one program, a stat(2) apiece was a tenth of
 * confd's parse.  The value is the errno plus one, 1 for a program.
 */
static struct hashtab	 programs = HASHTAB_INITIALIZER(0);
static struct strlist	 program_paths = TAILQ_HEAD_INITIALIZER(program_paths);
/* the commands of workloads without a directory whose program was found */
static struct hashtab	 commands_found = HASHTAB_INITIALIZER(0);
static struct strlist	 commands = TAILQ_HEAD_INITIALIZER(commands);

static int
program_stat(const char *path)
{
	struct stat	 st;

	if (stat(path, &st) == -1)
		return (errno);
	if (S_ISDIR(st.st_mode))
		return (EISDIR);
	if (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)
		return (EACCES);
	return (0);
}

/* an executable regular file: 0, or -1 with errno */
static int
is_program(const char *path)
{
	const void	*v;
	int		 err;

	if ((v = hashtab_find(&programs, path)) != NULL)
		err = (int)(uintptr_t)v - 1;
	else {
		err = program_stat(path);
		/* no memory to remember it: stat it again next time */
		if (strlist_add(&program_paths, path) == 0 &&
		    hashtab_add(&programs,
		    TAILQ_LAST(&program_paths, strlist)->str,
		    (void *)(uintptr_t)(err + 1)) == -1)
			log_debug("%s: not remembered", path);
	}
	if (err == 0)
		return (0);
	errno = err;
	return (-1);
}

/* wl's command found its program: the next workload with it needs no look */
static void
command_found(void)
{
	if (wl->directory != NULL ||
	    strlist_add(&commands, wl->command) == -1)
		return;
	if (hashtab_add(&commands_found, TAILQ_LAST(&commands, strlist)->str,
	    wl) == -1)
		log_debug("%s: not remembered", wl->command);
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

	/* the same command as another's: found again, at no cost */
	if (wl->directory == NULL &&
	    hashtab_find(&commands_found, wl->command) != NULL)
		return;
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
		else
			command_found();
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
	else
		command_found();
 done:
	free_argv(argv);
}

/*
 * The kernel's ephemeral range (ip_local_port_range) and its reserved
 * ports (ip_local_reserved_ports, "A-B,C,..."), read at a load's first
 * workload and kept until its end (user_checks_free): once per workload,
 * the two files cost a start of 10,000 workloads 65-130 ms.
 */
static struct {
	int	 read;
	int	 low, high;		/* nothing in range: unknown */
	int	 reserved_known;
	char	 reserved[4096];
} eph;

static void
ephemeral_read(void)
{
	FILE	*f;

	eph.read = 1;
	eph.low = 1;
	eph.high = 0;
	eph.reserved_known = 0;
	if ((f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) ==
	    NULL)
		return;
	if (fscanf(f, "%d %d", &eph.low, &eph.high) != 2) {
		eph.low = 1;
		eph.high = 0;
	}
	fclose(f);
	if ((f = fopen("/proc/sys/net/ipv4/ip_local_reserved_ports", "r")) ==
	    NULL)
		return;
	if (fgets(eph.reserved, sizeof(eph.reserved), f) != NULL) {
		eph.reserved[strcspn(eph.reserved, "\n")] = '\0';
		eph.reserved_known = 1;
	}
	fclose(f);
}

/*
 * Is port within the ephemeral range and not among the reserved ports?
 * 0 when it is not, or when /proc cannot say.
 */
static int
port_ephemeral(int port)
{
	char		 buf[sizeof(eph.reserved)], *p, *item, *dash;
	const char	*e1, *e2;
	long long	 lo, hi;

	if (!eph.read)
		ephemeral_read();
	if (port < eph.low || port > eph.high)
		return (0);
	if (!eph.reserved_known)
		return (1);
	(void)strlcpy(buf, eph.reserved, sizeof(buf));
	p = buf;
	while ((item = strsep(&p, ",")) != NULL) {
		if ((dash = strchr(item, '-')) != NULL)
			*dash++ = '\0';
		e1 = e2 = NULL;
		lo = strtonum(item, 1, 65535, &e1);
		hi = dash != NULL ? strtonum(dash, 1, 65535, &e2) : lo;
		if (e1 == NULL && e2 == NULL && port >= lo && port <= hi)
			return (0);
	}
	return (1);
}

/*
 * A workload that listens on this host's own port (a process, a docker
 * container's publish or network host), and only while it runs: while
 * it sleeps the port is free, and if it is in the kernel's ephemeral
 * range, connect(2) may give it to any outgoing connection of
 * the host as its local port.  The next wake's bind then fails
 * (EADDRINUSE), the workload exits and its requests get 503, at random:
 * with 12,000 client connections held on this host, about one wake in
 * two.  Said at every load, warning only: on a quiet host it works.
 */
static void
ephemeral_check(void)
{
	int	 port;

	/*
	 * a swarm's address is a node's: its ports are not this host's;
	 * with socket activation orchd holds the port while it sleeps
	 */
	if (wl->driver == DRIVER_SWARM || wl->socket_activation)
		return;
	port = workload_upstream_port(wl);
	if (port > 0 && port_ephemeral(port))
		log_warnx("%s:%d: warning: workload \"%s\": port %d is in "
		    "the kernel's ephemeral range (net.ipv4.ip_local_port_"
		    "range): while it sleeps an outgoing connection may take "
		    "it and its wake fail; choose a port below the range or "
		    "add it to net.ipv4.ip_local_reserved_ports", file->name,
		    wl_lineno, wl->name, port);
}

/* the workload just parsed against this host */
void
host_checks(void)
{
	struct stat	 st;

	if (parse_host_checks == PARSE_HOST_NONE)
		return;
	ephemeral_check();
	if (wl->driver != DRIVER_PROCESS)
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

/* "LOW-HIGH": never 0, never (uid_t)-1, LOW <= HIGH */
int
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
void
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

/*
 * No process workload runs as root or as the daemons' user: neither by
 * name nor, where the parent can look users up, by uid.  A user that
 * does not exist is left to the start, which says so: the file may be
 * checked on another host.  The range of allocated uids must not hold
 * the daemons' uid.
 */
void
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
	else if (parse_user_lookup != NULL)
		host_problem(user_file != NULL ? user_file : c->conffile,
		    user_file != NULL ? user_lineno : 0, "user \"%s\" does not "
		    "exist: orchd's processes run as it%s", c->user,
		    strcmp(c->user, ORCHD_USER) == 0 ?
		    " (make install-user makes it)" : "");
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

void
user_checks_free(void)
{
	struct user_check	*uc;

	free(user_file);
	user_file = NULL;
	while ((uc = TAILQ_FIRST(&user_checks)) != NULL) {
		TAILQ_REMOVE(&user_checks, uc, entry);
		free(uc->file);
		free(uc);
	}
	free(uids_file);
	uids_file = NULL;
	/* the end of a load: the next reads the kernel's ranges again */
	eph.read = 0;
	hashtab_clear(&programs);
	strlist_free(&program_paths);
	hashtab_clear(&commands_found);
	strlist_free(&commands);
}
