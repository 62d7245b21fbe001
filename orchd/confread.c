/*
 * orchd.conf, read by confd (confd/) and taken here piece by piece.
 *
 * The root parent parses no text of a child's, not even the operator's
 * file: confd, unprivileged, does (confd/confd.c says how it runs).
 * Each run reads one configuration.  For orchd -n and at start the
 * parent forks and execs it; at a reload the spawner does, the parent
 * forking no more once filtered (as for the keypair check, keycheck.c).
 * The parent sends the -D macros and what to read, then takes, within
 * CONFREAD_WAIT_MS, what confd answers, each message by a row of the
 * table below (exact lengths), then each field by its rules:
 *
 *	a global setting by its row of conf_fields[] (common/conf_wire.c);
 *	a listener, keypair, ignore rule, password file and its users, and
 *	the acme block by their fixed structures, every string terminated
 *	and printable, every number in range;
 *	a workload as every packed definition from a child is taken
 *	(workload_wire_read: its lengths, then workload_validate), then
 *	the rules of the trust that the parser applied too: its volumes
 *	absolute and none of orchd's own files, never root;
 *	an error page's file: text without a NUL, bounded, named by an
 *	"error page" of the file's;
 *	a log line made printable, and logged as the parent's own.
 *
 * Anything out of rule ends the reading: the configuration is refused,
 * as a file with an error is.  Then confd is reaped, killed first when
 * it overstays.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "conf_wire.h"
#include "errpage.h"
#include "gate.h"
#include "hashtab.h"
#include "ignore.h"
#include "https.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "orchd.h"
#include "parent.h"
#include "proc.h"
#include "spawnexec.h"
#include "timer.h"
#include "units.h"
#include "workload.h"

#define CONFREAD_WAIT_MS	60000	/* for the whole reading */
#define CONFREAD_POLL_MS	10	/* for the exit, after END */
#define CONFREAD_MACROS_MAX	64	/* -D */

static char	*macros[CONFREAD_MACROS_MAX];
static size_t	 nmacros;

/* one reading */
static struct {
	struct orchd_conf	*conf;
	struct hashtab		 names;		/* the workloads' */
	uint8_t			*seen;		/* conf_fields[] rows taken */
	struct htfile		*htfile;	/* whose users come */
	int			 acme;		/* ACME seen, CA not yet */
	int			 ended;		/* END taken */
	int			 same;		/* SAME taken: no change */
	int			 digest;	/* the inputs' digest taken */
	int			 asked_same;	/* a reload: SAME may come */
	int			 pieces;	/* messages taken, but lines */
	int			 refused;	/* a piece out of rule */
	int32_t			 errors;	/* confd's count */
} rd;

static void	take_log(struct imsgev *, struct imsg *);
static void	take_set(struct imsgev *, struct imsg *);
static void	take_listener(struct imsgev *, struct imsg *);
static void	take_keypair(struct imsgev *, struct imsg *);
static void	take_workload(struct imsgev *, struct imsg *);
static void	take_ignore(struct imsgev *, struct imsg *);
static void	take_htfile(struct imsgev *, struct imsg *);
static void	take_htuser(struct imsgev *, struct imsg *);
static void	take_acme(struct imsgev *, struct imsg *);
static void	take_acme_ca(struct imsgev *, struct imsg *);
static void	take_end(struct imsgev *, struct imsg *);
static void	take_page(struct imsgev *, struct imsg *);
static void	take_notify(struct imsgev *, struct imsg *);
static void	take_digest(struct imsgev *, struct imsg *);
static void	take_input(struct imsgev *, struct imsg *);
static void	take_same(struct imsgev *, struct imsg *);

/* confd's channel is the parent's alone: its sender is "the parent" */
#define FROM_CONFD	PROC_FROM(PROC_PARENT)

PROC_TABLE_BEGIN
static const struct proc_handler confread_handlers[] = {
	{ IMSG_CONF_LOG, sizeof(struct conf_log), FROM_CONFD, take_log },
	{ IMSG_CONF_SET, PROC_ANYLEN, FROM_CONFD, take_set },
	{ IMSG_CONF_LISTENER, sizeof(struct conf_listener), FROM_CONFD,
	    take_listener, PROC_NAME(struct conf_listener) },
	{ IMSG_CONF_KEYPAIR, sizeof(struct conf_keypair), FROM_CONFD,
	    take_keypair },
	{ IMSG_CONF_WORKLOAD, PROC_ANYLEN, FROM_CONFD, take_workload },
	{ IMSG_CONF_IGNORE, sizeof(struct cfg_ignore), FROM_CONFD,
	    take_ignore },
	{ IMSG_CONF_HTFILE, sizeof(struct cfg_htfile), FROM_CONFD,
	    take_htfile },
	{ IMSG_CONF_HTUSER, sizeof(struct cfg_htuser), FROM_CONFD,
	    take_htuser },
	{ IMSG_CONF_ACME, sizeof(struct conf_acme), FROM_CONFD, take_acme },
	{ IMSG_CONF_ACME_CA, PROC_ANYLEN, FROM_CONFD, take_acme_ca },
	{ IMSG_CONF_END, sizeof(int32_t), FROM_CONFD, take_end },
	{ IMSG_CONF_PAGE, PROC_ANYLEN, FROM_CONFD, take_page },
	{ IMSG_CONF_NOTIFY, sizeof(struct notify_conf), FROM_CONFD,
	    take_notify },
	{ IMSG_CONF_DIGEST, sizeof(struct conf_digest), FROM_CONFD,
	    take_digest },
	{ IMSG_CONF_INPUT, sizeof(struct conf_input), FROM_CONFD,
	    take_input },
	{ IMSG_CONF_SAME, sizeof(int32_t), FROM_CONFD, take_same },
};
PROC_TABLE_END

/* orchd -D, kept for every reading */
int
confread_macro(const char *def)
{
	if (nmacros >= CONFREAD_MACROS_MAX ||
	    strlen(def) >= CONF_MACRO_MAX ||
	    (macros[nmacros] = strdup(def)) == NULL)
		return (-1);
	nmacros++;
	return (0);
}

int
confread_table_check(char *err, size_t errlen)
{
	return (proc_table_check(confread_handlers,
	    nitems(confread_handlers), err, errlen));
}

static void
refuse(const char *fmt, ...)
    __attribute__((__format__ (printf, 1, 2)));

static void
refuse(const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("confd: %s: configuration refused", msg);
	rd.refused = 1;
}

/* a fixed field of a message: terminated within it, printable */
static int
field_ok(const char *s, size_t size)
{
	size_t	 len = strnlen(s, size);

	return (len < size && conf_string_ok(s, len + 1));
}

/* NULL for "", else a copy; -1 when out of memory */
static int
field_dup(char **dst, const char *s)
{
	*dst = NULL;
	if (s[0] == '\0')
		return (0);
	return ((*dst = strdup(s)) == NULL ? -1 : 0);
}

/*
 * The handlers.
 */

static void
take_log(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_log	 l;
	size_t		 i;
	int		 pri;

	(void)imsg_get_data(imsg, &l, sizeof(l));
	l.line[sizeof(l.line) - 1] = '\0';
	for (i = 0; l.line[i] != '\0'; i++)
		if (!isprint((unsigned char)l.line[i]) &&
		    (l.line[i] & 0x80) == 0)
			l.line[i] = '?';
	/* nothing confd says is more than an error */
	pri = l.pri < LOG_ERR || l.pri > LOG_DEBUG ? LOG_ERR : l.pri;
	logit(pri, "%s", l.line);
}

static void
take_set(struct imsgev *iev, struct imsg *imsg)
{
	char	 err[512];
	void	*p;
	size_t	 len = imsg_get_len(imsg);
	int	 row;

	if ((p = malloc(len > 0 ? len : 1)) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, p, len);
	if ((row = conf_setting_take(rd.conf, p, len, err, sizeof(err))) ==
	    -1)
		refuse("%s", err);
	else
		rd.seen[row] = 1;
	free(p);
}

static int
listener_addr_ok(const struct conf_listener *cl)
{
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;

	if (cl->ss.ss_family == AF_INET && cl->sslen == sizeof(*sin)) {
		sin = (const struct sockaddr_in *)&cl->ss;
		return (sin->sin_port != 0);
	}
	if (cl->ss.ss_family == AF_INET6 && cl->sslen == sizeof(*sin6)) {
		sin6 = (const struct sockaddr_in6 *)&cl->ss;
		return (sin6->sin6_port != 0);
	}
	return (0);
}

static int
listener_ok(const struct conf_listener *cl)
{
	return (field_ok(cl->name, sizeof(cl->name)) &&
	    field_ok(cl->tls_cert, sizeof(cl->tls_cert)) &&
	    field_ok(cl->tls_key, sizeof(cl->tls_key)) &&
	    field_ok(cl->workload, sizeof(cl->workload)) &&
	    (cl->workload[0] == '\0' || valid_workload_name(cl->workload)) &&
	    listener_addr_ok(cl) &&
	    (cl->api == 0 || cl->api == LISTENER_API ||
	    cl->api == LISTENER_STATUS) &&
	    (cl->tls & ~1) == 0 && (cl->acme & ~1) == 0 &&
	    (cl->redirect & ~1) == 0 && (cl->hsts & ~1) == 0 &&
	    (cl->hsts_sub & ~1) == 0 &&
	    cl->http2 >= LISTENER_H2_ON && cl->http2 <= LISTENER_H2_PRIOR &&
	    cl->redirect_port >= 0 && cl->redirect_port <= 65535 &&
	    cl->hsts_age >= 0 && cl->hsts_age <= INT32_MAX &&
	    (cl->tls_cert[0] == '\0') == (cl->tls_key[0] == '\0'));
}

static void
take_listener(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_listener	 cl;
	struct listener_conf	*l;

	(void)imsg_get_data(imsg, &cl, sizeof(cl));
	if (!listener_ok(&cl)) {
		refuse("listener \"%.64s\": out of rule", cl.name);
		return;
	}
	if ((l = calloc(1, sizeof(*l))) == NULL)
		fatal("%s", __func__);
	memcpy(&l->ss, &cl.ss, sizeof(l->ss));
	l->sslen = cl.sslen;
	(void)strlcpy(l->name, cl.name, sizeof(l->name));
	(void)strlcpy(l->workload, cl.workload, sizeof(l->workload));
	l->api = cl.api;
	l->tls = cl.tls;
	l->http2 = cl.http2;
	l->acme = cl.acme;
	l->redirect = cl.redirect;
	l->redirect_port = cl.redirect_port;
	l->hsts = cl.hsts;
	l->hsts_age = cl.hsts_age;
	l->hsts_sub = cl.hsts_sub;
	l->fd = -1;
	if (field_dup(&l->tls_cert, cl.tls_cert) == -1 ||
	    field_dup(&l->tls_key, cl.tls_key) == -1)
		fatal("%s", __func__);
	TAILQ_INSERT_TAIL(&rd.conf->listeners, l, entry);
}

static void
take_keypair(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_keypair	 ck;
	struct keypair_conf	*kp;

	(void)imsg_get_data(imsg, &ck, sizeof(ck));
	if (!field_ok(ck.host, sizeof(ck.host)) ||
	    !valid_host_pattern(ck.host) ||
	    !field_ok(ck.cert, sizeof(ck.cert)) || ck.cert[0] == '\0' ||
	    !field_ok(ck.key, sizeof(ck.key)) || ck.key[0] == '\0') {
		refuse("tls keypair: out of rule");
		return;
	}
	if ((kp = calloc(1, sizeof(*kp))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(kp->host, ck.host, sizeof(kp->host));
	if ((kp->cert = strdup(ck.cert)) == NULL ||
	    (kp->key = strdup(ck.key)) == NULL)
		fatal("%s", __func__);
	TAILQ_INSERT_TAIL(&rd.conf->keypairs, kp, entry);
}

/* the trust's rules, as the parser applies them too */
static int
workload_trusted(const struct workload_conf *wl, char *why, size_t len)
{
	const struct volume	*v;

	if (workload_volumes_absolute(wl, why, len) == -1 ||
	    workload_root_check(wl, why, len) == -1)
		return (-1);
	TAILQ_FOREACH(v, &wl->volumes, entry)
		if (v->host != NULL && v->host[0] == '/' &&
		    hostpath_forbidden(v->host, rd.conf, why, len) == -1)
			return (-1);
	return (0);
}

static void
take_workload(struct imsgev *iev, struct imsg *imsg)
{
	struct workload_conf	*wl;
	char			 err[512];
	void			*p;
	size_t			 len = imsg_get_len(imsg);

	if ((p = malloc(len > 0 ? len : 1)) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, p, len);
	wl = workload_wire_read(p, len, err, sizeof(err));
	free(p);
	if (wl == NULL) {
		refuse("a workload: %s", err);
		return;
	}
	/* whatever it says: a workload of the file */
	wl->source = SOURCE_CONFIG;
	if (hashtab_find(&rd.names, wl->name) != NULL)
		refuse("workload \"%s\": defined twice", wl->name);
	else if (workload_trusted(wl, err, sizeof(err)) == -1)
		refuse("workload \"%s\": %s", wl->name, err);
	else if (hashtab_add(&rd.names, wl->name, wl) == -1)
		fatal("%s", __func__);
	else {
		TAILQ_INSERT_TAIL(&rd.conf->workloads, wl, entry);
		return;
	}
	workload_free(wl);
}

static void
take_ignore(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_ignore	 ci;
	char			 err[256];

	(void)imsg_get_data(imsg, &ci, sizeof(ci));
	if (!field_ok(ci.pattern, sizeof(ci.pattern)) ||
	    ci.kind < IGNORE_PATH || ci.kind > IGNORE_FROM ||
	    ignore_check(ci.kind, ci.pattern, ci.answer, err,
	    sizeof(err)) == -1) {
		refuse("ignore rule: out of rule");
		return;
	}
	if (ignore_add(&rd.conf->ignores, ci.kind, ci.pattern, ci.answer) ==
	    -1)
		fatal("%s", __func__);
}

/* the users the last file announced have all come */
static int
htfile_complete(void)
{
	return (rd.htfile == NULL || rd.htfile->nusers ==
	    rd.htfile->nexpected);
}

static void
take_htfile(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_htfile	 hf;
	struct htfile		*f;

	(void)imsg_get_data(imsg, &hf, sizeof(hf));
	if (!htfile_complete() || !field_ok(hf.path, sizeof(hf.path)) ||
	    hf.path[0] != '/' || hf.nusers > HTPASSWD_USERS_MAX ||
	    htfile_find(&rd.conf->htfiles, hf.path) != NULL) {
		refuse("auth basic file: out of rule");
		return;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->path = strdup(hf.path)) == NULL ||
	    (hf.nusers > 0 && (f->users = calloc(hf.nusers,
	    sizeof(*f->users))) == NULL))
		fatal("%s", __func__);
	f->nexpected = hf.nusers;
	TAILQ_INSERT_TAIL(&rd.conf->htfiles, f, entry);
	rd.htfile = f;
}

static void
take_htuser(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_htuser	 u;
	struct htfile		*f = rd.htfile;

	(void)imsg_get_data(imsg, &u, sizeof(u));
	if (f == NULL || f->nusers >= f->nexpected ||
	    !field_ok(u.user, sizeof(u.user)) || !valid_text(u.user) ||
	    u.user[0] == '\0' || !field_ok(u.hash, sizeof(u.hash)) ||
	    !gate_hash_ok(u.hash)) {
		refuse("auth basic user: out of rule");
		explicit_bzero(&u, sizeof(u));
		return;
	}
	f->users[f->nusers++] = u;
	explicit_bzero(&u, sizeof(u));
}

static void
take_acme(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_acme	 ca;
	struct acme_settings	*a;

	(void)imsg_get_data(imsg, &ca, sizeof(ca));
	if (rd.conf->acme != NULL ||
	    !field_ok(ca.directory, sizeof(ca.directory)) ||
	    strncmp(ca.directory, "https://", 8) != 0 ||
	    !field_ok(ca.contact, sizeof(ca.contact)) ||
	    !field_ok(ca.ca_file, sizeof(ca.ca_file)) ||
	    !field_ok(ca.eab_kid, sizeof(ca.eab_kid)) ||
	    !field_ok(ca.eab_hmac_file, sizeof(ca.eab_hmac_file)) ||
	    !field_ok(ca.eab_hmac, sizeof(ca.eab_hmac)) ||
	    ca.per_hour < -1 || ca.per_hour > ACME_PER_HOUR_MAX ||
	    (ca.per_hour_set & ~1) != 0) {
		refuse("acme: out of rule");
		explicit_bzero(&ca, sizeof(ca));
		return;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    field_dup(&a->directory, ca.directory) == -1 ||
	    field_dup(&a->contact, ca.contact) == -1 ||
	    field_dup(&a->ca_file, ca.ca_file) == -1 ||
	    field_dup(&a->eab_kid, ca.eab_kid) == -1 ||
	    field_dup(&a->eab_hmac_file, ca.eab_hmac_file) == -1)
		fatal("%s", __func__);
	memcpy(a->eab_hmac, ca.eab_hmac, sizeof(a->eab_hmac));
	a->per_hour = ca.per_hour;
	a->per_hour_set = ca.per_hour_set;
	explicit_bzero(&ca, sizeof(ca));
	rd.conf->acme = a;
	rd.acme = a->ca_file != NULL;
}

static void
take_acme_ca(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_settings	*a = rd.conf->acme;
	size_t			 len = imsg_get_len(imsg);

	if (!rd.acme || len == 0 || len > ACME_FILE_MAX) {
		refuse("acme ca file: out of rule");
		return;
	}
	if ((a->ca = malloc(len)) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, a->ca, len);
	a->ca_len = len;
	rd.acme = 0;
}

/* an error page's file: its path, then its bytes, text without a NUL */
static void
take_page(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_page		 cp;
	struct errpage_file	*p;
	size_t			 len = imsg_get_len(imsg), n = 0;

	TAILQ_FOREACH(p, &rd.conf->pages, entry)
		n++;
	if (len < sizeof(cp) || len - sizeof(cp) > ERRPAGE_MAX ||
	    n >= ERRPAGE_FILES_MAX) {
		refuse("error page: %zu bytes", len);
		return;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->data = malloc(len)) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, p->data, len);
	memcpy(&cp, p->data, sizeof(cp));
	p->len = len - sizeof(cp);
	memmove(p->data, p->data + sizeof(cp), p->len);
	if (!field_ok(cp.path, sizeof(cp.path)) || cp.path[0] != '/' ||
	    errpage_find(&rd.conf->pages, cp.path) != NULL ||
	    memchr(p->data, '\0', p->len) != NULL ||
	    (p->path = strdup(cp.path)) == NULL) {
		refuse("error page: out of rule");
		free(p->data);
		free(p);
		return;
	}
	TAILQ_INSERT_TAIL(&rd.conf->pages, p, entry);
}

/* the webhooks: each URL as notifyd's client parses it, no key */
static void
take_notify(struct imsgev *iev, struct imsg *imsg)
{
	struct notify_conf	*n;
	char			 host[256], port[8], path[NOTIFY_URL_MAX];
	uint32_t		 i;
	int			 tls, ok;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, n, sizeof(*n));
	ok = rd.conf->notify == NULL &&
	    n->ntargets <= NOTIFY_URLS_MAX && n->keylen == 0 &&
	    (n->allow & ~NOTIFY_ALLOW_ALL) == 0;
	for (i = 0; ok && i < n->ntargets; i++)
		ok = field_ok(n->targets[i].url, sizeof(n->targets[i].url)) &&
		    https_url_parse(n->targets[i].url, &tls, host,
		    sizeof(host), port, sizeof(port), path, sizeof(path)) == 0 &&
		    (n->targets[i].events & ~((1U << NOTIFY_EV_MAX) - 1)) == 0;
	if (!ok) {
		refuse("notify: out of rule");
		free(n);
		return;
	}
	rd.conf->notify = n;
}

/* every "error page" names a file that came */
static int
pages_complete(const struct strlist *l, char *err, size_t errlen)
{
	const struct strentry	*e;
	const char		*path;
	int			 status;

	TAILQ_FOREACH(e, l, entry)
		if (errpage_entry_split(e->str, &status, &path) == -1 ||
		    errpage_find(&rd.conf->pages, path) == NULL) {
			snprintf(err, errlen, "error page \"%s\": no page",
			    e->str);
			return (0);
		}
	return (1);
}

static int
pages_all_complete(char *err, size_t errlen)
{
	const struct workload_conf	*wl;

	if (!pages_complete(&rd.conf->error_pages, err, errlen))
		return (0);
	TAILQ_FOREACH(wl, &rd.conf->workloads, entry)
		if (!pages_complete(&wl->error_pages, err, errlen))
			return (0);
	return (1);
}

static void
take_end(struct imsgev *iev, struct imsg *imsg)
{
	char	 err[256];

	(void)imsg_get_data(imsg, &rd.errors, sizeof(rd.errors));
	rd.ended = 1;
	if (rd.errors != 0)
		return;		/* confd said why */
	if (!htfile_complete())
		refuse("auth basic file: users missing");
	else if (rd.acme)
		refuse("acme: its ca file's bytes missing");
	else if (conf_settings_missing(rd.seen, err, sizeof(err)))
		refuse("%s", err);
	else if (!pages_all_complete(err, sizeof(err)))
		refuse("%s", err);
}

/*
 * Running confd.
 */

struct confd_run {
	pid_t		 pid;
	int		 fd;
	int		 spawner;	/* started by the spawner */
	int64_t		 deadline;	/* ms, CLOCK_MONOTONIC */
	char		 path[PATH_MAX];
};

/* what the parse read (confsame.c), after the configuration */
static void
take_digest(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_digest	 cd;
	const char		*why;

	(void)imsg_get_data(imsg, &cd, sizeof(cd));
	if (rd.digest)
		refuse("inputs' digest twice");
	else if ((why = confsame_take_digest(&cd)) != NULL)
		refuse("%s", why);
	rd.digest = 1;
}

static void
take_input(struct imsgev *iev, struct imsg *imsg)
{
	struct conf_input	*ci;
	const char		*why;

	if ((ci = malloc(sizeof(*ci))) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, ci, sizeof(*ci));
	if (!rd.digest)
		refuse("an input before the digest");
	else if ((why = confsame_take_input(ci)) != NULL)
		refuse("%s", why);
	free(ci);
}

/* the running configuration's inputs read again, none changed */
static void
take_same(struct imsgev *iev, struct imsg *imsg)
{
	int32_t	 zero;

	(void)imsg_get_data(imsg, &zero, sizeof(zero));
	/* alone, before any piece of a configuration: not after one */
	if (zero != 0 || !rd.asked_same || rd.pieces != 1)
		refuse("an unasked \"no change\"");
	else
		rd.same = rd.ended = 1;
}

/* the last reading found the running configuration's inputs unchanged */
int
confread_unchanged(void)
{
	return (rd.same && !rd.refused);
}

static int
left_ms(const struct confd_run *cr)
{
	int64_t	 left = cr->deadline - monotime_ms();

	return (left > 0 ? (int)left : 0);
}

/*
 * As the daemons' user: the running configuration's, or at start the
 * default user's, or nobody's when there is none yet.
 */
static void
confd_ids(char *buf, size_t len)
{
	struct orchd	*env = orchd_env;
	struct passwd	*pw;
	uid_t		 uid = geteuid();
	gid_t		 gid = getegid();

	if (uid == 0 && env->conf != NULL) {
		uid = env->uid;
		gid = env->gid;
	} else if (uid == 0) {
		if ((pw = users_getpwnam(ORCHD_USER)) == NULL &&
		    (pw = users_getpwnam("nobody")) == NULL)
			fatalx("confd: neither user %s nor nobody exists",
			    ORCHD_USER);
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	(void)snprintf(buf, len, "%u:%u", (unsigned int)uid,
	    (unsigned int)gid);
}

static int
confd_start(struct confd_run *cr)
{
	struct orchd	*env = orchd_env;
	char		*argv[10], ids[32];
	int		 argc = 0, sp[2], v;

	confd_ids(ids, sizeof(ids));
	helper_path(env, "confd", cr->path, sizeof(cr->path));
	argv[argc++] = cr->path;
	argv[argc++] = "-u";
	argv[argc++] = ids;
	if (log_getstderr())
		argv[argc++] = "-d";
	for (v = 0; v < log_getverbose() && v < 3; v++)
		argv[argc++] = "-v";
	argv[argc] = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("confd: socketpair");
		return (-1);
	}
	if (spawner_running()) {
		cr->spawner = 1;
		cr->pid = spawner_helper(IMSG_SP_CONFD, sp[1]);
	} else if ((cr->pid = fork()) == 0) {
		close(sp[0]);
		confd_exec(sp[1], argv);
	} else
		close(sp[1]);
	if (cr->pid == -1) {
		log_warn("confd: start");
		close(sp[0]);
		return (-1);
	}
	cr->fd = sp[0];
	return (0);
}

/* the macros and what to read, before confd says a word */
static int
confd_ask(struct imsgbuf *ibuf, const char *file, int host_checks,
    int print, int64_t idle)
{
	struct conf_macro	 m;
	struct conf_read	 rq;
	const char		*env;
	size_t			 i;

	/* a reload, not orchd -n: the running inputs, to compare */
	if ((rd.asked_same = confsame_ask(ibuf, print ? NULL :
	    orchd_env->conf)) == -1)
		return (-1);
	for (i = 0; i < nmacros; i++) {
		memset(&m, 0, sizeof(m));
		(void)strlcpy(m.def, macros[i], sizeof(m.def));
		if (imsg_compose(ibuf, IMSG_CONF_MACRO, 0, 0, -1, &m,
		    sizeof(m)) == -1)
			return (-1);
	}
	memset(&rq, 0, sizeof(rq));
	if (strlcpy(rq.file, file, sizeof(rq.file)) >= sizeof(rq.file)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	rq.host_checks = host_checks;
	rq.verbose = log_getverbose();
	rq.print = print;
	rq.idle_timeout = idle;
	rq.key_env = (env = getenv("ORCHD_KEY")) != NULL && *env != '\0';
	if (imsg_compose(ibuf, IMSG_CONF_READ, 0, 0, -1, &rq,
	    sizeof(rq)) == -1)
		return (-1);
	return (imsgbuf_flush(ibuf));
}

/* one message by its row; 0, or -1 when it has none */
static int
confd_dispatch(struct imsg *imsg)
{
	const struct proc_handler	*h;

	if (proc_accept(confread_handlers, nitems(confread_handlers),
	    FROM_CONFD, imsg, &h) != PROC_ACCEPTED) {
		refuse("message %u of %zu bytes", imsg_get_type(imsg),
		    imsg_get_len(imsg));
		return (-1);
	}
	if (imsg_get_type(imsg) != IMSG_CONF_LOG)
		rd.pieces++;
	h->fn(NULL, imsg);
	return (0);
}

/* until END, a piece out of rule, confd's exit or the deadline */
static void
confd_take(struct confd_run *cr, struct imsgbuf *ibuf)
{
	struct pollfd	 pfd;
	struct imsg	 imsg;
	ssize_t		 n;

	while (!rd.ended && !rd.refused) {
		if ((n = imsg_get(ibuf, &imsg)) == -1) {
			refuse("unreadable message: %s", strerror(errno));
			break;
		}
		if (n > 0) {
			(void)confd_dispatch(&imsg);
			imsg_free(&imsg);
			continue;
		}
		pfd.fd = cr->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left_ms(cr)) == -1 && errno != EINTR)
			fatal("%s: poll", __func__);
		if (left_ms(cr) == 0) {
			refuse("no answer within %d seconds",
			    CONFREAD_WAIT_MS / 1000);
			break;
		}
		if ((pfd.revents & (POLLIN | POLLHUP)) &&
		    (n = imsgbuf_read(ibuf)) != 1 && (n == 0 ||
		    (errno != EAGAIN && errno != EINTR)))
			break;	/* it ended without END: its exit says why */
	}
}

/* reaped, killed first if it overstays; its wait status */
static int
confd_wait(struct confd_run *cr)
{
	int	 status;
	pid_t	 r;

	if (cr->spawner) {
		if (spawner_helper_wait(cr->pid, left_ms(cr), &status) == 0)
			return (status);
		spawner_kill(cr->pid, SIGKILL);
		if (spawner_helper_wait(cr->pid, -1, &status) == -1)
			status = SIGKILL;
		return (status);
	}
	for (;;) {
		if ((r = waitpid(cr->pid, &status, WNOHANG)) == cr->pid)
			return (status);
		if (r == -1 && errno != EINTR)
			fatal("%s: waitpid", __func__);
		if (left_ms(cr) == 0)
			break;
		usleep(CONFREAD_POLL_MS * 1000);
	}
	(void)kill(cr->pid, SIGKILL);
	while (waitpid(cr->pid, &status, 0) == -1)
		if (errno != EINTR)
			fatal("%s: waitpid", __func__);
	return (status);
}

static void
confd_status(int status)
{
	if (WIFSIGNALED(status))
		log_warnx("confd: killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		log_warnx("confd: exited with status %d",
		    WEXITSTATUS(status));
	else
		log_warnx("confd: ended without an answer");
}

/*
 * file as confd reads it and the parent takes it: the configuration, or
 * NULL once the errors are logged.  host_checks: PARSE_HOST_*; print:
 * orchd -nv, confd prints it on our standard output; idle: the idle
 * timeout that replaces the file's, or -1.
 */
struct orchd_conf *
confread(const char *file, int host_checks, int print, int64_t idle)
{
	struct confd_run	 cr;
	struct imsgbuf		 ibuf;
	int			 status, ok;

	memset(&cr, 0, sizeof(cr));
	memset(&rd, 0, sizeof(rd));
	cr.deadline = monotime_ms() + CONFREAD_WAIT_MS;
	if ((rd.conf = conf_new()) == NULL ||
	    (rd.conf->conffile = strdup(file)) == NULL ||
	    (rd.seen = calloc(conf_nfields, 1)) == NULL)
		fatal("%s", __func__);
	if (confd_start(&cr) == -1) {
		free(rd.seen);
		free_config(rd.conf);
		return (NULL);
	}
	if (fcntl(cr.fd, F_SETFL, O_NONBLOCK) == -1 ||
	    imsgbuf_init(&ibuf, cr.fd) == -1 ||
	    imsgbuf_set_maxsize(&ibuf, CONF_MSG_MAX) == -1)
		fatal("%s: channel", __func__);
	if (confd_ask(&ibuf, file, host_checks, print, idle) == -1)
		log_warn("confd: asking");
	else
		confd_take(&cr, &ibuf);
	imsgbuf_clear(&ibuf);
	close(cr.fd);
	status = confd_wait(&cr);
	hashtab_clear(&rd.names);
	free(rd.seen);
	ok = rd.ended && !rd.refused && rd.errors == 0 && !rd.same;
	if (!rd.ended && !rd.refused)
		confd_status(status);
	if (!ok) {
		free_config(rd.conf);
		rd.conf = NULL;
	}
	return (rd.conf);
}
