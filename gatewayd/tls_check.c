/*
 * gatewayd -n: the check of a configuration's TLS keypairs, for the
 * parent, which reads the files but maps no libtls and so no OpenSSL.
 * The keypairs are checked the way tls_listener_setup() will use them,
 * with the same library, by the same program.
 *
 * The parent starts it as root, with -u and -c as for a gateway: it drops
 * to that user in that root directory, with no network, and enters a
 * sandbox that allows I/O on the descriptors it has, before it reads a
 * byte.  The protocol is in msg.h (struct tls_check_hdr).  The first
 * failure is answered and ends the check: the parent names the files and
 * logs it.  Every copy of a key is zeroed before exit.
 */

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "sandbox.h"
#include "gateway.h"

struct ck_pem {
	uint8_t		*buf;
	size_t		 len;
};

struct ck_pair {
	struct ck_pem	 cert;
	struct ck_pem	 key;
};

static struct ck_pair	*ck_sni;
static size_t		 ck_nsni;
static struct ck_pair	 ck_listener;
static uint32_t		 ck_nlisteners;

static __dead void
check_usage(void)
{
	fprintf(stderr, "usage: gatewayd -n [-d] [-c root] -u uid:gid\n"
	    "gatewayd -n checks TLS keypairs for orchd(8), not by hand.\n");
	exit(1);
}

static void
pem_zero(struct ck_pem *p)
{
	freezero(p->buf, p->len);
	p->buf = NULL;
	p->len = 0;
}

static void
check_clear(void)
{
	size_t	 i;

	for (i = 0; i < ck_nsni; i++) {
		pem_zero(&ck_sni[i].cert);
		pem_zero(&ck_sni[i].key);
	}
	free(ck_sni);
	ck_sni = NULL;
	ck_nsni = 0;
	pem_zero(&ck_listener.cert);
	pem_zero(&ck_listener.key);
}

static void
write_all(int fd, const void *buf, size_t len)
{
	const uint8_t	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return;		/* the parent went: nobody to tell */
		}
		p += n;
		len -= n;
	}
}

/* the answer, then the end */
static __dead void
check_fail(enum tls_check_what what, uint32_t n, const char *msg)
{
	struct tls_check_fail	 f;

	memset(&f, 0, sizeof(f));
	f.what = what;
	f.n = n;
	f.len = strnlen(msg, TLS_CHECK_MSG_MAX);
	write_all(TLS_CHECK_FD, &f, sizeof(f));
	write_all(TLS_CHECK_FD, msg, f.len);
	check_clear();
	exit(1);
}

/* 1 when all of len was read, 0 at the end before the first byte */
static int
read_all(void *buf, size_t len)
{
	uint8_t		*p = buf;
	size_t		 off = 0;
	ssize_t		 n;

	while (off < len) {
		if ((n = read(TLS_CHECK_FD, p + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("read");
		}
		if (n == 0) {
			if (off == 0)
				return (0);
			fatalx("short read: %zu of %zu bytes", off, len);
		}
		off += n;
	}
	return (1);
}

static void
pem_read(struct ck_pem *p, size_t len)
{
	if (p->buf != NULL)
		fatalx("a file sent twice");
	if ((p->buf = malloc(len)) == NULL)
		fatal("%s", __func__);
	p->len = len;
	if (read_all(p->buf, len) == 0)
		fatalx("short read: 0 of %zu bytes", len);
}

/* 0 when a server can be made of this keypair alone, else why not */
static int
keypair_alone(const struct ck_pair *p, char *err, size_t len)
{
	struct tls_config	*cfg;
	struct tls		*ctx = NULL;
	const char		*e = NULL;
	int			 rv = -1;

	/* libtls adds strerror(errno) to some errors: not a stale one */
	errno = 0;
	if ((cfg = tls_config_new()) == NULL) {
		strlcpy(err, "tls_config_new failed", len);
		return (-1);
	}
	if (tls_config_set_keypair_mem(cfg, p->cert.buf, p->cert.len,
	    p->key.buf, p->key.len) == -1)
		e = tls_config_error(cfg);
	else if ((ctx = tls_server()) == NULL)
		e = "tls_server failed";
	else if (tls_configure(ctx, cfg) == -1)
		e = tls_error(ctx);
	else
		rv = 0;
	if (rv == -1)
		strlcpy(err, e != NULL ? e : "unknown error", len);
	tls_free(ctx);
	tls_config_clear_keys(cfg);
	tls_config_free(cfg);
	return (rv);
}

/*
 * tls_configure() failed, without saying on which keypair (a key that
 * does not match its certificate is found there): each is tried alone,
 * so that the parent can name the files.
 */
static __dead void
check_blame(uint32_t n, const char *err)
{
	char	 e[TLS_CHECK_MSG_MAX];
	size_t	 i;

	if (keypair_alone(&ck_listener, e, sizeof(e)) == -1)
		check_fail(TLS_CHECK_LISTENER_KEYPAIR, n, e);
	for (i = 0; i < ck_nsni; i++)
		if (keypair_alone(&ck_sni[i], e, sizeof(e)) == -1)
			check_fail(TLS_CHECK_SNI_KEYPAIR, i, e);
	check_fail(TLS_CHECK_LISTENER, n, err);
}

/* what tls_listener_setup() will do, and then forget it all */
static void
check_listener(uint32_t n)
{
	struct tls_config	*cfg;
	struct tls		*ctx = NULL;
	enum tls_check_what	 what = TLS_CHECK_LISTENER;
	uint32_t		 which = n;
	const char		*e = NULL;
	char			 err[TLS_CHECK_MSG_MAX];
	size_t			 i;
	int			 failed = 1, blame = 0;

	errno = 0;	/* as in keypair_alone() */
	if ((cfg = tls_config_new()) == NULL)
		check_fail(TLS_CHECK_OTHER, 0, "tls_config_new failed");
	if (tls_config_set_keypair_mem(cfg, ck_listener.cert.buf,
	    ck_listener.cert.len, ck_listener.key.buf,
	    ck_listener.key.len) == -1) {
		what = TLS_CHECK_LISTENER_KEYPAIR;
		e = tls_config_error(cfg);
		goto done;
	}
	for (i = 0; i < ck_nsni; i++) {
		if (tls_config_add_keypair_mem(cfg, ck_sni[i].cert.buf,
		    ck_sni[i].cert.len, ck_sni[i].key.buf,
		    ck_sni[i].key.len) == -1) {
			what = TLS_CHECK_SNI_KEYPAIR;
			which = i;
			e = tls_config_error(cfg);
			goto done;
		}
	}
	if ((ctx = tls_server()) == NULL) {
		e = "tls_server failed";
		goto done;
	}
	if (tls_configure(ctx, cfg) == -1) {
		e = tls_error(ctx);
		blame = 1;
		goto done;
	}
	failed = 0;
 done:
	if (failed)
		strlcpy(err, e != NULL ? e : "unknown error", sizeof(err));
	tls_free(ctx);
	tls_config_clear_keys(cfg);
	tls_config_free(cfg);
	if (blame)
		check_blame(n, err);
	if (failed)
		check_fail(what, which, err);
	pem_zero(&ck_listener.cert);
	pem_zero(&ck_listener.key);
}

/*
 * No listener has a keypair of its own ("tls acme" alone): each "tls
 * keypair" is checked by itself, the first being such a listener's
 * default (tls_listener_setup()).
 */
static void
check_sni_alone(void)
{
	char	 e[TLS_CHECK_MSG_MAX];
	size_t	 i;

	for (i = 0; i < ck_nsni; i++)
		if (keypair_alone(&ck_sni[i], e, sizeof(e)) == -1)
			check_fail(TLS_CHECK_SNI_KEYPAIR, i, e);
}

static void
check_piece(const struct tls_check_hdr *h)
{
	struct ck_pair	*p;

	if (h->len == 0 || h->len > ORCHD_TLS_FILE_MAX)
		fatalx("a piece of %u bytes", h->len);
	switch (h->what) {
	case CFG_TLS_SNI_CERT:
		if (ck_nlisteners > 0 || (ck_nsni > 0 &&
		    ck_sni[ck_nsni - 1].key.buf == NULL))
			fatalx("SNI certificate out of order");
		if ((p = reallocarray(ck_sni, ck_nsni + 1,
		    sizeof(*p))) == NULL)
			fatal("%s", __func__);
		ck_sni = p;
		memset(&ck_sni[ck_nsni], 0, sizeof(*p));
		pem_read(&ck_sni[ck_nsni++].cert, h->len);
		break;
	case CFG_TLS_SNI_KEY:
		if (ck_nsni == 0 || ck_nlisteners > 0)
			fatalx("SNI key out of order");
		pem_read(&ck_sni[ck_nsni - 1].key, h->len);
		break;
	case CFG_TLS_LISTENER_CERT:
		if (ck_nsni > 0 && ck_sni[ck_nsni - 1].key.buf == NULL)
			fatalx("listener certificate out of order");
		pem_read(&ck_listener.cert, h->len);
		break;
	case CFG_TLS_LISTENER_KEY:
		if (ck_listener.cert.buf == NULL)
			fatalx("listener key out of order");
		pem_read(&ck_listener.key, h->len);
		check_listener(ck_nlisteners++);
		break;
	default:
		fatalx("unknown piece %d", h->what);
	}
}

__dead void
tls_check_main(int argc, char *argv[])
{
	struct tls_check_hdr	 h;
	struct child_opts	 o;

	if (child_getopt(argc, argv, "c:dnu:", PROC_GATEWAY, &o) == -1)
		check_usage();

	log_init(o.debug, LOG_DAEMON);
	log_procinit("gateway -n");
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	privdrop(o.uid, o.gid, o.root, PRIVDROP_NONET);
	sandbox_enter("gateway -n", SB_STDIO);

	while (read_all(&h, sizeof(h)) == 1)
		check_piece(&h);
	if (ck_listener.cert.buf != NULL ||
	    (ck_nsni > 0 && ck_sni[ck_nsni - 1].key.buf == NULL))
		fatalx("a certificate without its key");
	if (ck_nlisteners == 0 && ck_nsni == 0)
		fatalx("no TLS listener to check");
	if (ck_nlisteners == 0)
		check_sni_alone();
	check_clear();
	exit(0);
}
