/*
 * The parent's side of ACME: acmed's directories, its configuration,
 * the certificates it issued, and the relay between it and the gateways.
 *
 * acmed (PROC_ACME) talks to the parent alone.  What it sends is checked
 * here field by field before anything is kept or relayed: every string
 * NUL-terminated within its array and of the characters it may hold,
 * byte counts that add up to the message, PEM where PEM is due, and a
 * host that is a host name and routes to a workload of the current
 * configuration (API workloads included).  What fails is refused, with
 * a line in the log.  A gateway's IMSG_ACME_WANT is checked the same
 * way: a host that routes nowhere never reaches acmed.
 *
 * A certificate is stored with its key as root's files, mode 0600,
 * outside acmed's chroot (STATE-certs/HOST.crt and HOST.key), loaded at
 * start and sent to the gateways and, without its key, to acmed: a
 * restart serves the same certificate and does not issue again.  The
 * pair is replaced with a redo log, so that a crash never leaves the
 * key of one with the certificate of another: each is written whole as
 * HOST.key.new, then HOST.crt.new, whose rename is the commit; then
 * each is renamed over the old.  At start a HOST.crt.new finishes its
 * pair's renames, and a HOST.key.new without it, uncommitted, goes.
 *
 *	STATE-acme/		root's, 0711: acmed's chroot is root/
 *	STATE-acme/root/etc/	root's: resolv.conf and hosts, copied at
 *				start, for acmed's resolver
 *	STATE-acme/root/account/ the daemon user's, 0700: the account key
 *	STATE-certs/		root's, 0700: HOST.crt, HOST.key
 *
 * where STATE is the directory that holds the database's directory
 * (/var/lib/orchd/orchd.db gives /var/lib/orchd-acme), as for the
 * workloads' directories.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "hashtab.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"

#define ACME_HOSTS_MAX		4096
#define ACME_PEM_MAX		(64 * 1024)	/* a chain, a key */
#define ACME_FAILURES_MAX	1000

struct acme_entry {
	TAILQ_ENTRY(acme_entry)	 entry;
	struct acme_status	 st;		/* acmed's latest */
	uint8_t			*chain;		/* stored, or NULL */
	size_t			 chain_len;
	uint8_t			*key;
	size_t			 key_len;
	int64_t			 not_after;
};
static TAILQ_HEAD(, acme_entry)	 acme_entries =
    TAILQ_HEAD_INITIALIZER(acme_entries);
/* by host name, as acmed finds its own: common/hashtab.c, entries kept */
static struct hashtab		 acme_byname = HASHTAB_INITIALIZER(0);
static int			 acme_nentries;
static char			 acme_dir[PATH_MAX];	/* STATE-acme */
static char			 acme_certs[PATH_MAX];	/* STATE-certs */
static int			 acme_have_sent;

/* STATE-NAME, beside the database's directory */
static int
acme_path(const struct orchd_conf *c, const char *name, char *buf,
    size_t len)
{
	char	 db[PATH_MAX], *p;
	int	 i;

	if (strlcpy(db, c->database, sizeof(db)) >= sizeof(db))
		return (-1);
	for (i = 0; i < 2; i++) {
		if ((p = strrchr(db, '/')) == NULL)
			strlcpy(db, ".", sizeof(db));
		else
			p[p == db ? 1 : 0] = '\0';
	}
	i = snprintf(buf, len, "%s%sorchd-%s", db,
	    db[strlen(db) - 1] == '/' ? "" : "/", name);
	return (i < 0 || (size_t)i >= len ? -1 : 0);
}

/*
 * A host name as a certificate may name it: lower case letters, digits
 * and '-', labels of 1 to 63, at least two, the last not numeric.
 */
int
acme_host_ok(const char *h)
{
	size_t	 n = strnlen(h, ORCHD_HOST_MAX), label = 0, i;
	int	 dots = 0, alpha = 0;

	if (n == 0 || n > 253)
		return (0);
	for (i = 0; i < n; i++) {
		if (h[i] == '.') {
			if (label == 0 || h[i - 1] == '-')
				return (0);
			dots++;
			label = 0;
			alpha = 0;
			continue;
		}
		if (!(islower((unsigned char)h[i]) ||
		    isdigit((unsigned char)h[i]) || h[i] == '-'))
			return (0);
		if (label == 0 && h[i] == '-')
			return (0);
		if (++label > 63)
			return (0);
		if (!isdigit((unsigned char)h[i]))
			alpha = 1;
	}
	return (dots > 0 && label > 0 && h[n - 1] != '-' && alpha);
}

/* a workload of this configuration answers host: its name or a pattern */
int
acme_host_routes(const struct orchd_conf *c, const char *host)
{
	struct pdef_iter		 it;
	const struct workload_conf	*wl;
	const struct strentry		*e;
	size_t				 n = strlen(host), m;
	int				 found = 0;

	for (wl = pdef_first(&it, c); wl != NULL && !found;
	    wl = pdef_next(&it))
		TAILQ_FOREACH(e, &wl->hosts, entry) {
			m = strlen(e->str + 1);		/* ".suffix" */
			if (strcasecmp(e->str, host) == 0 ||
			    (strncmp(e->str, "*.", 2) == 0 && n > m &&
			    strcasecmp(host + n - m, e->str + 1) == 0)) {
				found = 1;
				break;
			}
		}
	pdef_end(&it);
	return (found);
}

static struct acme_entry *
entry_find(const char *name, int make)
{
	struct acme_entry	*e;

	if ((e = (struct acme_entry *)hashtab_find(&acme_byname, name)) !=
	    NULL)
		return (e);
	if (!make || acme_nentries >= ACME_HOSTS_MAX)
		return (NULL);
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (NULL);
	strlcpy(e->st.name, name, sizeof(e->st.name));
	if (hashtab_add(&acme_byname, e->st.name, e) == -1) {
		free(e);
		return (NULL);
	}
	TAILQ_INSERT_TAIL(&acme_entries, e, entry);
	acme_nentries++;
	return (e);
}

/* PEM of the kind named, and nothing a NUL could cut short */
static int
pem_ok(const uint8_t *p, size_t len, const char *const *kinds)
{
	size_t	 n;

	if (len == 0 || len > ACME_PEM_MAX || memchr(p, '\0', len) != NULL)
		return (0);
	for (; *kinds != NULL; kinds++) {
		n = strlen(*kinds);
		if (len > n && memcmp(p, *kinds, n) == 0)
			return (1);
	}
	return (0);
}

static const char *const pem_certs[] = {
	"-----BEGIN CERTIFICATE-----", NULL
};
static const char *const pem_keys[] = {
	"-----BEGIN PRIVATE KEY-----", "-----BEGIN EC PRIVATE KEY-----", NULL
};

static int
str_in(const char *s, size_t size)
{
	return (memchr(s, '\0', size) != NULL);
}

static int
str_printable(const char *s, size_t size)
{
	if (!str_in(s, size))
		return (0);
	for (; *s != '\0'; s++)
		if (!isprint((unsigned char)*s))
			return (0);
	return (1);
}

static int
token_ok(const char *t, size_t size)
{
	size_t	 n;

	if (!str_in(t, size))
		return (0);
	for (n = 0; t[n] != '\0'; n++)
		if (!isalnum((unsigned char)t[n]) && t[n] != '-' &&
		    t[n] != '_')
			return (0);
	return (n > 0);
}

/*
 * The checks of what acmed sends, one a message type, apart from the
 * handlers so that the fuzz target reaches them (regress/fuzz).  Each
 * is given the payload and its length, as the table passed it, and
 * says why it refuses.
 */
const char *
acme_check_challenge(const struct orchd_conf *c, const void *data,
    size_t len, int end)
{
	struct acme_challenge	 ch;
	const uint8_t		*p = data;
	size_t			 tl;

	if (len < sizeof(ch))
		return ("too short");
	memcpy(&ch, data, sizeof(ch));
	if (!str_in(ch.name, sizeof(ch.name)) || !acme_host_ok(ch.name))
		return ("not a host name");
	if (!acme_host_routes(c, ch.name))
		return ("a host no workload answers");
	if (ch.type != ACME_CHALLENGE_HTTP01 &&
	    ch.type != ACME_CHALLENGE_TLSALPN01)
		return ("no such challenge type");
	if ((uint64_t)ch.cert_len + ch.key_len != len - sizeof(ch))
		return ("lengths do not add up");
	if (!token_ok(ch.token, sizeof(ch.token)))
		return ("token not base64url");
	tl = strlen(ch.token);
	if (!str_in(ch.keyauth, sizeof(ch.keyauth)) ||
	    strncmp(ch.keyauth, ch.token, tl) != 0 ||
	    ch.keyauth[tl] != '.' || !token_ok(ch.keyauth + tl + 1,
	    sizeof(ch.keyauth) - tl - 1))
		return ("key authorization not TOKEN.THUMBPRINT");
	if (end || ch.type == ACME_CHALLENGE_HTTP01)
		return (ch.cert_len == 0 && ch.key_len == 0 ? NULL :
		    "a certificate where none is due");
	if (!pem_ok(p + sizeof(ch), ch.cert_len, pem_certs) ||
	    !pem_ok(p + sizeof(ch) + ch.cert_len, ch.key_len, pem_keys))
		return ("its certificate or key not PEM");
	return (NULL);
}

const char *
acme_check_cert(const struct orchd_conf *c, const void *data, size_t len)
{
	struct acme_cert	 ac;
	const uint8_t		*p = data;

	if (len < sizeof(ac))
		return ("too short");
	memcpy(&ac, data, sizeof(ac));
	if (!str_in(ac.name, sizeof(ac.name)) || !acme_host_ok(ac.name))
		return ("not a host name");
	if (!acme_host_routes(c, ac.name))
		return ("a host no workload answers");
	if ((uint64_t)ac.chain_len + ac.key_len != len - sizeof(ac))
		return ("lengths do not add up");
	if (!pem_ok(p + sizeof(ac), ac.chain_len, pem_certs))
		return ("the chain is not PEM certificates");
	if (!pem_ok(p + sizeof(ac) + ac.chain_len, ac.key_len, pem_keys))
		return ("the key is not a PEM private key");
	if (ac.not_after <= time(NULL))
		return ("expired");
	return (NULL);
}

const char *
acme_check_status(const struct orchd_conf *c, const void *data, size_t len)
{
	struct acme_status	 st;

	if (len != sizeof(st))
		return ("wrong length");
	memcpy(&st, data, sizeof(st));
	if (!str_in(st.name, sizeof(st.name)) || !acme_host_ok(st.name))
		return ("not a host name");
	if (!acme_host_routes(c, st.name))
		return ("a host no workload answers");
	if (!str_printable(st.issuer, sizeof(st.issuer)) ||
	    !str_printable(st.error, sizeof(st.error)))
		return ("issuer or error unterminated or not printable");
	if (st.state > ACME_STATE_CAPPED)
		return ("no such state");
	if (st.not_after < 0 || st.next_try < 0 ||
	    st.failures > ACME_FAILURES_MAX)
		return ("a date or count out of range");
	return (NULL);
}

static int
acme_running(struct orchd *env)
{
	return (proc_instances(&env->ps, PROC_ACME) > 0);
}

/* to every gateway: a header and up to two byte runs after it */
static void
to_gateways(struct orchd *env, uint32_t type, const void *hdr, size_t hlen,
    const void *a, size_t alen, const void *b, size_t blen)
{
	struct iovec	 iov[3];
	int		 n = 0;

	iov[n].iov_base = (void *)hdr;
	iov[n++].iov_len = hlen;
	if (alen > 0) {
		iov[n].iov_base = (void *)a;
		iov[n++].iov_len = alen;
	}
	if (blen > 0) {
		iov[n].iov_base = (void *)b;
		iov[n++].iov_len = blen;
	}
	if (proc_composev(&env->ps, PROC_GATEWAY, type, 0, iov, n) == -1)
		fatal("%s: compose", __func__);
}

/*
 * A directory of ours: made if missing, never a link, then the owner
 * and mode given.
 */
static int
dir_make(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat	 sb;
	int		 fd;

	if (path == NULL) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (mkdir(path, mode) == -1 && errno != EEXIST)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return (-1);
	if (fstat(fd, &sb) == -1 || (geteuid() == 0 && (sb.st_uid != uid ||
	    sb.st_gid != gid) && fchown(fd, uid, gid) == -1) ||
	    fchmod(fd, mode) == -1) {
		close(fd);
		return (-1);
	}
	close(fd);
	return (0);
}

/* /etc/NAME into DIR/root/etc, root's, 0644; none is fine */
static void
etc_copy(const char *dir, const char *name)
{
	char	 src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX], buf[8192];
	ssize_t	 n;
	int	 in, out;

	if (snprintf(src, sizeof(src), "/etc/%s", name) >= (int)sizeof(src) ||
	    snprintf(dst, sizeof(dst), "%s/root/etc/%s", dir, name) >=
	    (int)sizeof(dst) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp", dst) >= (int)sizeof(tmp) ||
	    (in = open(src, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	(void)unlink(tmp);
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		log_warn("acme: %s", tmp);
		close(in);
		return;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (n < 0 || fchmod(out, 0644) == -1 || close(out) == -1 ||
	    rename(tmp, dst) == -1) {
		log_warn("acme: %s", dst);
		(void)unlink(tmp);
	}
}

/* a stored file, read whole, bounded */
static uint8_t *
cert_file(int dfd, const char *name, size_t *len)
{
	struct stat	 sb;
	uint8_t		*buf;
	int		 fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return (NULL);
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
	    sb.st_size > ACME_PEM_MAX ||
	    (buf = malloc(sb.st_size)) == NULL) {
		close(fd);
		return (NULL);
	}
	if (read(fd, buf, sb.st_size) != sb.st_size) {
		free(buf);
		close(fd);
		return (NULL);
	}
	close(fd);
	*len = sb.st_size;
	return (buf);
}

/*
 * The committed pair of host: HOST.key.new, then HOST.crt.new, renamed
 * over the old.  The key's may be done already: a crash came between.
 */
static int
cert_commit(int dfd, const char *host)
{
	char	 from[ORCHD_HOST_MAX + 16], to[ORCHD_HOST_MAX + 16];

	(void)snprintf(from, sizeof(from), "%s.key.new", host);
	(void)snprintf(to, sizeof(to), "%s.key", host);
	if (renameat(dfd, from, dfd, to) == -1 && errno != ENOENT)
		return (-1);
	(void)snprintf(from, sizeof(from), "%s.crt.new", host);
	(void)snprintf(to, sizeof(to), "%s.crt", host);
	if (renameat(dfd, from, dfd, to) == -1)
		return (-1);
	return (0);
}

/* HOST of NAME, which ends in suffix; 0 if it is none */
static int
cert_name_host(const char *name, const char *suffix, char *host,
    size_t len)
{
	size_t	 n = strlen(name), m = strlen(suffix);

	if (n <= m || n - m >= len || strcmp(name + n - m, suffix) != 0)
		return (0);
	memcpy(host, name, n - m);
	host[n - m] = '\0';
	return (acme_host_ok(host));
}

/*
 * A store that a crash cut short, before the certificates are read: a
 * committed pair (HOST.crt.new there) is finished, an uncommitted key
 * (HOST.key.new alone) removed.  Two passes: a rename while readdir
 * goes on may show an entry twice or not at all.
 */
static void
certs_recover(void)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	char		 host[ORCHD_HOST_MAX], crt[ORCHD_HOST_MAX + 16];
	int		 pass, dfd;

	for (pass = 0; pass < 2; pass++) {
		if ((d = opendir(acme_certs)) == NULL)
			return;
		dfd = dirfd(d);
		while ((de = readdir(d)) != NULL) {
			if (pass == 0 && cert_name_host(de->d_name,
			    ".crt.new", host, sizeof(host))) {
				if (cert_commit(dfd, host) == -1)
					log_warn("acme: %s/%s", acme_certs,
					    de->d_name);
				else
					log_info("acme: %s: the store a stop "
					    "cut short is finished", host);
			} else if (pass == 1 && cert_name_host(de->d_name,
			    ".key.new", host, sizeof(host))) {
				(void)snprintf(crt, sizeof(crt), "%s.crt.new",
				    host);
				if (fstatat(dfd, crt, &sb,
				    AT_SYMLINK_NOFOLLOW) == 0)
					continue;
				log_info("acme: %s: an uncommitted key "
				    "removed", host);
				(void)unlinkat(dfd, de->d_name, 0);
			}
		}
		(void)fsync(dfd);
		closedir(d);
	}
}

/* the certificates stored by an earlier run: HOST.crt with HOST.key */
static void
certs_load(void)
{
	struct acme_entry	*e;
	struct dirent		*de;
	DIR			*d;
	char			 host[ORCHD_HOST_MAX], key[ORCHD_HOST_MAX + 8];
	size_t			 n;
	int			 dfd;

	if ((d = opendir(acme_certs)) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 5 || n - 4 >= sizeof(host) ||
		    strcmp(de->d_name + n - 4, ".crt") != 0)
			continue;
		memcpy(host, de->d_name, n - 4);
		host[n - 4] = '\0';
		if (!acme_host_ok(host) || (e = entry_find(host, 1)) == NULL)
			continue;
		(void)snprintf(key, sizeof(key), "%s.key", host);
		e->chain = cert_file(dfd, de->d_name, &e->chain_len);
		e->key = cert_file(dfd, key, &e->key_len);
		if (e->chain == NULL || e->key == NULL ||
		    !pem_ok(e->chain, e->chain_len, pem_certs) ||
		    !pem_ok(e->key, e->key_len, pem_keys)) {
			log_warnx("acme: %s/%s: unreadable, or without its "
			    "key: issued again when asked", acme_certs,
			    de->d_name);
			free(e->chain);
			freezero(e->key, e->key_len);
			e->chain = e->key = NULL;
			continue;
		}
		log_debug("acme: %s: stored certificate loaded", host);
	}
	closedir(d);
}

/* acme_dir and more, or NULL if too long */
static const char *
sub(const char *more)
{
	static char	 path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s", acme_dir, more) >=
	    (int)sizeof(path))
		return (NULL);
	return (path);
}

/*
 * The account key is the daemon user's: systemd gives what it finds
 * below a StateDirectory back to root at a start.  Never through a link.
 */
static void
account_key_give(struct orchd *env)
{
	struct stat	 sb;
	const char	*path;
	int		 fd;

	if (geteuid() != 0 ||
	    (path = sub("/root/account/account.key")) == NULL ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	/*
	 * Only the file systemd gave root: one link, root's.  O_NOFOLLOW
	 * stops no hard link acmed could have made to a file of root's.
	 */
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_nlink == 1 && sb.st_uid == 0 &&
	    (fchown(fd, env->uid, env->gid) == -1 || fchmod(fd, 0600) == -1))
		log_warn("acme: %s", path);
	close(fd);
}

/*
 * At start, as root, before the children: the directories, the
 * resolver's files in the chroot, the stored certificates.
 */
void
acme_prepare(struct orchd *env)
{
	if (env->conf->acme == NULL)
		return;
	if (acme_path(env->conf, "acme", acme_dir, sizeof(acme_dir)) == -1 ||
	    acme_path(env->conf, "certs", acme_certs,
	    sizeof(acme_certs)) == -1)
		fatalx("acme: state directory name too long");
	if (dir_make(acme_dir, 0, 0, 0711) == -1)
		fatal("acme: %s", acme_dir);
	if (dir_make(sub("/root"), 0, 0, 0755) == -1 ||
	    dir_make(sub("/root/etc"), 0, 0, 0755) == -1 ||
	    dir_make(sub("/root/account"), env->uid, env->gid, 0700) == -1)
		fatal("acme: %s/root", acme_dir);
	account_key_give(env);
	if (dir_make(acme_certs, 0, 0, 0700) == -1)
		fatal("acme: %s", acme_certs);
	etc_copy(acme_dir, "resolv.conf");
	etc_copy(acme_dir, "hosts");
	certs_recover();
	certs_load();
}

/*
 * STATE-NAME/root, made root's with copies of the resolver's files, for
 * a child that resolves names in its chroot and holds nothing else
 * there (notifyd; acmed's has its key too, above).  Into buf.
 */
void
resolver_root(struct orchd *env, const char *name, char *buf, size_t len)
{
	char	 dir[PATH_MAX], sub_root[PATH_MAX + 8];

	if (acme_path(env->conf, name, dir, sizeof(dir)) == -1 ||
	    snprintf(sub_root, sizeof(sub_root), "%s/root", dir) >=
	    (int)sizeof(sub_root) || strlcpy(buf, sub_root, len) >= len)
		fatalx("%s: state directory name too long", name);
	if (dir_make(dir, 0, 0, 0711) == -1 || dir_make(buf, 0, 0, 0755) == -1)
		fatal("%s: %s", name, buf);
	(void)strlcat(sub_root, "/etc", sizeof(sub_root));
	if (dir_make(sub_root, 0, 0, 0755) == -1)
		fatal("%s: %s", name, sub_root);
	etc_copy(dir, "resolv.conf");
	etc_copy(dir, "hosts");
}

/* acmed's chroot, and where its key is when it is not chrooted */
const char *
acme_root(struct orchd *env, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%s/root", acme_dir);
	return (buf);
}

/* HOST.SUFFIX in the certificates' directory, whole, then renamed */
static int
store_file(int dfd, const char *host, const char *suffix,
    const uint8_t *data, size_t len)
{
	char	 name[ORCHD_HOST_MAX + 16], tmp[ORCHD_HOST_MAX + 24];
	int	 fd;

	(void)snprintf(name, sizeof(name), "%s.%s", host, suffix);
	(void)snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	(void)unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return (-1);
	if (write(fd, data, len) != (ssize_t)len || fsync(fd) == -1) {
		close(fd);
		(void)unlinkat(dfd, tmp, 0);
		return (-1);
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, name) == -1) {
		(void)unlinkat(dfd, tmp, 0);
		return (-1);
	}
	return (0);
}

/*
 * The pair through its redo log (see the top): both .new whole, the
 * certificate's last, is the commit; a crash after it is finished at the
 * next start, one before it leaves the old pair.  The directory is
 * synced between, so that the commit is never on disk before the key.
 * A commit that is not known to be on disk is undone, certificate first.
 */
static int
cert_store(const char *host, const uint8_t *chain, size_t chain_len,
    const uint8_t *key, size_t key_len)
{
	char	 name[ORCHD_HOST_MAX + 16];
	int	 dfd, r = -1;

	if ((dfd = open(acme_certs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return (-1);
	if (store_file(dfd, host, "key.new", key, key_len) == -1 ||
	    fsync(dfd) == -1)
		goto undo;
	if (store_file(dfd, host, "crt.new", chain, chain_len) == -1)
		goto undo;
	if (fsync(dfd) == -1) {
		(void)snprintf(name, sizeof(name), "%s.crt.new", host);
		(void)unlinkat(dfd, name, 0);
		goto undo;
	}
	if (cert_commit(dfd, host) == 0 && fsync(dfd) == 0)
		r = 0;
	close(dfd);
	return (r);
 undo:
	(void)snprintf(name, sizeof(name), "%s.key.new", host);
	(void)unlinkat(dfd, name, 0);
	close(dfd);
	return (-1);
}

static void
cert_send(struct orchd *env, const struct acme_entry *e)
{
	struct acme_cert	 ac;

	memset(&ac, 0, sizeof(ac));
	strlcpy(ac.name, e->st.name, sizeof(ac.name));
	ac.not_after = e->not_after;
	ac.chain_len = e->chain_len;
	ac.key_len = e->key_len;
	to_gateways(env, IMSG_ACME_CERT, &ac, sizeof(ac), e->chain,
	    e->chain_len, e->key, e->key_len);
}

/*
 * With each configuration: acmed's settings, and the stored
 * certificates to the gateways; to acmed, once, the stored chains.
 */
void
acme_config_send(struct orchd *env)
{
	const struct acme_settings	*a = env->conf->acme;
	const struct listener_conf	*l;
	struct acme_entry		*e;
	struct acme_conf		 ac;
	struct acme_cert		 have;
	struct iovec			 iov[2];

	/* a host no longer routed keeps its files, for when it is again */
	TAILQ_FOREACH(e, &acme_entries, entry)
		if (e->chain != NULL && acme_host_routes(env->conf, e->st.name))
			cert_send(env, e);
	if (!acme_running(env) || a == NULL)
		return;
	memset(&ac, 0, sizeof(ac));
	strlcpy(ac.directory, a->directory, sizeof(ac.directory));
	if (a->contact != NULL)
		strlcpy(ac.contact, a->contact, sizeof(ac.contact));
	if (a->eab_kid != NULL) {
		strlcpy(ac.eab_kid, a->eab_kid, sizeof(ac.eab_kid));
		strlcpy(ac.eab_hmac, a->eab_hmac, sizeof(ac.eab_hmac));
	}
	ac.per_hour = a->per_hour;
	/* what the gateways can answer: plain HTTP, "tls acme" */
	TAILQ_FOREACH(l, &env->conf->listeners, entry) {
		if (l->api || l->workload[0] != '\0')
			continue;
		if (!l->tls)
			ac.challenges |= ACME_CHALLENGE_HTTP01;
		else if (l->acme)
			ac.challenges |= ACME_CHALLENGE_TLSALPN01;
	}
	ac.ca_len = a->ca_len;
	iov[0].iov_base = &ac;
	iov[0].iov_len = sizeof(ac);
	iov[1].iov_base = a->ca;
	iov[1].iov_len = a->ca_len;
	if (proc_composev(&env->ps, PROC_ACME, IMSG_ACME_CONF, 0, iov,
	    a->ca_len > 0 ? 2 : 1) == -1)
		fatal("%s: compose", __func__);
	explicit_bzero(&ac, sizeof(ac));
	if (acme_have_sent)
		return;
	acme_have_sent = 1;
	TAILQ_FOREACH(e, &acme_entries, entry) {
		if (e->chain == NULL)
			continue;
		memset(&have, 0, sizeof(have));
		strlcpy(have.name, e->st.name, sizeof(have.name));
		have.chain_len = e->chain_len;
		iov[0].iov_base = &have;
		iov[0].iov_len = sizeof(have);
		iov[1].iov_base = e->chain;
		iov[1].iov_len = e->chain_len;
		if (proc_composev(&env->ps, PROC_ACME, IMSG_ACME_HAVE, 0, iov,
		    2) == -1)
			fatal("%s: compose", __func__);
	}
}

/* a WANT not passed on: the gateways end the handshakes held for it */
static void
want_refused(struct orchd *env, const char *name, const char *why)
{
	struct acme_status	 st;

	memset(&st, 0, sizeof(st));
	strlcpy(st.name, name, sizeof(st.name));
	strlcpy(st.error, why, sizeof(st.error));
	st.state = ACME_STATE_FAILED;
	to_gateways(env, IMSG_ACME_FAILED, &st, sizeof(st), NULL, 0, NULL, 0);
}

/* from a gateway: a handshake held for a host without a certificate */
void
acme_recv_want(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct acme_host	 ah;

	(void)imsg_get_data(imsg, &ah, sizeof(ah));
	if (!acme_host_ok(ah.name) || !acme_host_routes(env->conf, ah.name)) {
		log_debug("acme: %s: routes to no workload, not issued",
		    ah.name);
		want_refused(env, ah.name, "routes to no workload");
		return;
	}
	if (!acme_running(env)) {
		want_refused(env, ah.name, "no acme block at start");
		return;
	}
	if (proc_compose(&env->ps, PROC_ACME, IMSG_ACME_WANT, 0, -1, &ah,
	    sizeof(ah)) == -1)
		fatal("%s: compose", __func__);
}

static void
refused(const struct imsg *imsg, const char *what, const char *why)
{
	log_warnx("acme: %s from acmed refused: %s", what, why);
}

void
acme_recv_challenge(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	const char	*why;
	int		 end = imsg->hdr.type == IMSG_ACME_CHALLENGE_END;

	if ((why = acme_check_challenge(env->conf, imsg->data,
	    imsg_get_len(imsg), end)) != NULL) {
		refused(imsg, end ? "CHALLENGE_END" : "CHALLENGE", why);
		return;
	}
	to_gateways(env, imsg->hdr.type, imsg->data, imsg_get_len(imsg),
	    NULL, 0, NULL, 0);
}

void
acme_recv_cert(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct acme_cert	 ac;
	struct acme_entry	*e;
	const uint8_t		*p = imsg->data;
	const char		*why;
	uint8_t			*chain, *key;

	if ((why = acme_check_cert(env->conf, imsg->data,
	    imsg_get_len(imsg))) != NULL) {
		refused(imsg, "CERT", why);
		return;
	}
	memcpy(&ac, p, sizeof(ac));
	if ((e = entry_find(ac.name, 1)) == NULL) {
		log_warnx("acme: %s: more than %d hosts", ac.name,
		    ACME_HOSTS_MAX);
		return;
	}
	if ((chain = malloc(ac.chain_len)) == NULL ||
	    (key = malloc(ac.key_len)) == NULL) {
		free(chain);
		log_warn("acme: %s", ac.name);
		return;
	}
	memcpy(chain, p + sizeof(ac), ac.chain_len);
	memcpy(key, p + sizeof(ac) + ac.chain_len, ac.key_len);
	explicit_bzero((uint8_t *)imsg->data + sizeof(ac) + ac.chain_len,
	    ac.key_len);
	if (cert_store(ac.name, chain, ac.chain_len, key, ac.key_len) == -1)
		log_warn("acme: %s: cannot store it in %s: served until the "
		    "next start", ac.name, acme_certs);
	free(e->chain);
	freezero(e->key, e->key_len);
	e->chain = chain;
	e->chain_len = ac.chain_len;
	e->key = key;
	e->key_len = ac.key_len;
	e->not_after = ac.not_after;
	log_info("acme: %s: certificate stored", ac.name);
	cert_send(env, e);
}

/* FAILED and STATUS: kept for orchctl, relayed for /metrics */
void
acme_recv_status(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct acme_status	 st;
	struct acme_entry	*e;
	const char		*why;

	if ((why = acme_check_status(env->conf, imsg->data,
	    imsg_get_len(imsg))) != NULL) {
		refused(imsg, imsg->hdr.type == IMSG_ACME_FAILED ? "FAILED" :
		    "STATUS", why);
		return;
	}
	memcpy(&st, imsg->data, sizeof(st));
	if (imsg->hdr.type == IMSG_ACME_STATUS &&
	    (e = entry_find(st.name, 1)) != NULL) {
		/* a failure more: the webhooks' event */
		if (st.failures > e->st.failures)
			hook_cert_failed(env, &st);
		e->st = st;
		/*
		 * A certificate loaded at start has no date until acmed read
		 * the chain it was given (HAVE): the parent parses none.
		 */
		if (e->chain != NULL && e->not_after == 0 &&
		    st.state == ACME_STATE_VALID && st.not_after > 0)
			e->not_after = st.not_after;
	}
	to_gateways(env, imsg->hdr.type, &st, sizeof(st), NULL, 0, NULL, 0);
}

/* orchctl show certificates: each host's latest state */
void
acme_ctl_show(struct imsgev *iev, struct imsg *imsg)
{
	struct proc_asker	 a;
	struct acme_entry	*e;
	struct acme_status	 st;

	proc_asker(iev, imsg, &a);
	TAILQ_FOREACH(e, &acme_entries, entry) {
		st = e->st;
		if (st.state == ACME_STATE_NONE && e->chain != NULL)
			st.state = ACME_STATE_VALID;
		if (st.not_after == 0)
			st.not_after = e->not_after;
		(void)proc_reply(iev->ps, &a, IMSG_ACME_STATUS, &st,
		    sizeof(st));
	}
	(void)proc_reply_end(iev->ps, &a);
}

/* orchctl renew HOST: a host of a workload, and acmed running */
void
acme_ctl_renew(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd		*env = orchd_env;
	struct proc_asker	 a;
	struct acme_host	 ah;

	proc_asker(iev, imsg, &a);
	(void)imsg_get_data(imsg, &ah, sizeof(ah));
	if (!acme_running(env)) {
		(void)proc_reply_fail(iev->ps, &a, CTL_ERR_FAILED, "no acme "
		    "block in %s at start", env->conffile);
		return;
	}
	if (!acme_host_ok(ah.name) || !acme_host_routes(env->conf, ah.name)) {
		(void)proc_reply_fail(iev->ps, &a, CTL_ERR_NOENT, "%s: no "
		    "workload answers this host", ah.name);
		return;
	}
	if (proc_compose(&env->ps, PROC_ACME, IMSG_ACME_RENEW, 0, -1, &ah,
	    sizeof(ah)) == -1)
		fatal("%s: compose", __func__);
	(void)proc_reply_ok(iev->ps, &a);
}
