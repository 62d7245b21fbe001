/*
 * acmed, "orchd: acme": the ACME client of orchd (RFC 8555), a child of
 * its own like OpenBSD's acme-client.  It alone holds the account key
 * and talks to the ACME server, over libtls and nothing else; it is
 * chrooted to a directory of its own, unprivileged, and filtered.  It
 * talks to the parent alone: the parent checks what it sends and relays
 * it to the gateways (orchd/acme_relay.c).
 *
 * From the parent: the acme block of orchd.conf (CONF), the certificates
 * stored from before (HAVE, without their keys), the hosts a gateway
 * held a handshake for (WANT: the parent checked that each routes to a
 * workload) and orchctl renew (RENEW).  To the parent: a challenge to
 * answer and its end, a certificate and its key, a failure, and the
 * state of each host (STATUS).
 *
 * Issuances run one at a time (order.c), from a queue.  At most
 * per_hour start in any hour; a host that failed waits, twice as long
 * at each failure, within bounds, before it is tried again.  A
 * certificate is renewed at two thirds of its lifetime, with jitter.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include <ctype.h>
#include <errno.h>
#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acmed.h"
#include "compat.h"
#include "hashtab.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "sandbox.h"
#include "util.h"

#define ACMED_HOSTS_MAX		4096
#define ACMED_TICK_SEC		1
#define ACMED_BACKOFF_MIN	60		/* after the first failure */
#define ACMED_BACKOFF_MAX	(6 * 3600)
#define ACMED_WINDOW		3600		/* the per-hour cap's */
#define ACMED_PER_HOUR_MAX	1000

struct host {
	TAILQ_ENTRY(host)	 entry;
	TAILQ_ENTRY(host)	 queue;
	int			 queued;
	struct acme_status	 st;
	int64_t			 not_before;
};
static TAILQ_HEAD(, host)	 hosts = TAILQ_HEAD_INITIALIZER(hosts);
static TAILQ_HEAD(, host)	 queue = TAILQ_HEAD_INITIALIZER(queue);
/* by name, as the parent finds its own: common/hashtab.c, hosts kept */
static struct hashtab		 host_byname = HASHTAB_INITIALIZER(0);
static int			 nhosts;

static struct privsep	 acme_ps;
static struct acme_conf	 acme_conf;
static int		 acme_configured;
static struct event	 acme_tick_ev;
static time_t		 acme_starts[ACMED_PER_HOUR_MAX]; /* a ring */
static size_t		 acme_nstarts, acme_start_head;

static void	acme_recv_conf(struct imsgev *, struct imsg *);
static void	acme_recv_have(struct imsgev *, struct imsg *);
static void	acme_recv_want(struct imsgev *, struct imsg *);
static void	acme_recv_renew(struct imsgev *, struct imsg *);

PROC_TABLE_BEGIN
static const struct proc_handler acme_handlers[] = {
	{ IMSG_CTL_VERBOSE, sizeof(int), PROC_FROM(PROC_PARENT),
	    proc_recv_verbose },
	{ IMSG_CTL_SHOW_SUMMARY, 0, PROC_FROM(PROC_PARENT),
	    proc_recv_summary },
	{ IMSG_ACME_CONF, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    acme_recv_conf },
	{ IMSG_ACME_HAVE, PROC_ANYLEN, PROC_FROM(PROC_PARENT),
	    acme_recv_have, PROC_NAME(struct acme_cert) },
	{ IMSG_ACME_WANT, sizeof(struct acme_host), PROC_FROM(PROC_PARENT),
	    acme_recv_want, PROC_NAME(struct acme_host) },
	{ IMSG_ACME_RENEW, sizeof(struct acme_host), PROC_FROM(PROC_PARENT),
	    acme_recv_renew, PROC_NAME(struct acme_host) },
};
PROC_TABLE_END

void
acmed_send(uint32_t type, const void *hdr, size_t hlen, const void *a,
    size_t alen, const void *b, size_t blen)
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
	if (proc_composev(&acme_ps, PROC_PARENT, type, 0, iov, n) == -1)
		fatal("to the parent");
}

/* what the parent sends is checked too: a host name, as the parent's */
static int
host_ok(const char *name)
{
	size_t	 i, n = strlen(name);

	if (n == 0 || n > 253 || name[0] == '.' || name[n - 1] == '.')
		return (0);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' &&
		    name[i] != '.')
			return (0);
	return (1);
}

static struct host *
host_find(const char *name, int make)
{
	struct host	*h;

	if ((h = (struct host *)hashtab_find(&host_byname, name)) != NULL)
		return (h);
	if (!make || nhosts >= ACMED_HOSTS_MAX)
		return (NULL);
	if ((h = calloc(1, sizeof(*h))) == NULL)
		fatal("calloc");
	strlcpy(h->st.name, name, sizeof(h->st.name));
	if (hashtab_add(&host_byname, h->st.name, h) == -1)
		fatal("%s", __func__);
	TAILQ_INSERT_TAIL(&hosts, h, entry);
	nhosts++;
	return (h);
}

static void
host_status(struct host *h)
{
	acmed_send(IMSG_ACME_STATUS, &h->st, sizeof(h->st), NULL, 0, NULL, 0);
}

/* two thirds of the lifetime, and up to a twentieth more, at random */
static int64_t
renewal_time(int64_t nb, int64_t na)
{
	int64_t	 life = na - nb, jitter;

	jitter = life / 20 > 0 ? (int64_t)arc4random_uniform(
	    (uint32_t)MINIMUM(life / 20, 86400)) : 0;
	return (nb + life * 2 / 3 + jitter);
}

static void
issuer_clean(char *s)
{
	for (; *s != '\0'; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
}

/* the per-hour cap: starts in the last hour */
static size_t
starts_in_window(time_t now)
{
	while (acme_nstarts > 0 && acme_starts[(acme_start_head +
	    ACMED_PER_HOUR_MAX - acme_nstarts) % ACMED_PER_HOUR_MAX] <=
	    now - ACMED_WINDOW)
		acme_nstarts--;
	return (acme_nstarts);
}

static time_t
window_oldest(void)
{
	return (acme_starts[(acme_start_head + ACMED_PER_HOUR_MAX -
	    acme_nstarts) % ACMED_PER_HOUR_MAX]);
}

static void
starts_add(time_t now)
{
	acme_starts[acme_start_head] = now;
	acme_start_head = (acme_start_head + 1) % ACMED_PER_HOUR_MAX;
	if (acme_nstarts < ACMED_PER_HOUR_MAX)
		acme_nstarts++;
}

static void
enqueue(struct host *h)
{
	if (h->queued)
		return;
	h->queued = 1;
	TAILQ_INSERT_TAIL(&queue, h, queue);
	if (h->st.state != ACME_STATE_VALID) {
		h->st.state = ACME_STATE_ISSUING;
		host_status(h);
	}
}

static void
issued(const char *name, const char *chain, size_t chainlen,
    const char *key, const char *err)
{
	struct acme_cert	 c;
	struct host		*h;
	int64_t			 nb, na;
	int64_t			 back;

	if ((h = host_find(name, 0)) == NULL)
		return;
	if (err == NULL && cert_chain_info(chain, chainlen, &nb, &na,
	    h->st.issuer, sizeof(h->st.issuer)) == 0) {
		issuer_clean(h->st.issuer);
		memset(&c, 0, sizeof(c));
		strlcpy(c.name, name, sizeof(c.name));
		c.not_after = na;
		c.chain_len = chainlen;
		c.key_len = strlen(key);
		acmed_send(IMSG_ACME_CERT, &c, sizeof(c), chain, chainlen,
		    key, c.key_len);
		h->not_before = nb;
		h->st.not_after = na;
		h->st.state = ACME_STATE_VALID;
		h->st.failures = 0;
		h->st.error[0] = '\0';
		h->st.next_try = renewal_time(nb, na);
		log_info("%s: certificate issued, valid until %lld", name,
		    (long long)na);
		host_status(h);
		return;
	}
	strlcpy(h->st.error, err != NULL ? err : "an unreadable chain",
	    sizeof(h->st.error));
	if (h->st.failures < 32)
		h->st.failures++;
	back = ACMED_BACKOFF_MIN << MINIMUM(h->st.failures - 1, 16);
	h->st.next_try = time(NULL) + MINIMUM(back, ACMED_BACKOFF_MAX);
	/* a certificate kept still serves: it is the renewal that failed */
	h->st.state = ACME_STATE_FAILED;
	acmed_send(IMSG_ACME_FAILED, &h->st, sizeof(h->st), NULL, 0, NULL, 0);
	host_status(h);
}

/* over the cap: the held handshakes end, the host is tried later */
static void
capped(struct host *h, time_t now)
{
	h->st.state = ACME_STATE_CAPPED;
	h->st.next_try = window_oldest() + ACMED_WINDOW;
	(void)snprintf(h->st.error, sizeof(h->st.error), "over the cap of "
	    "%u issuances per hour", acme_conf.per_hour);
	acmed_send(IMSG_ACME_FAILED, &h->st, sizeof(h->st), NULL, 0, NULL, 0);
	host_status(h);
}

/* the next in the queue, when none is under way and the cap allows */
static void
queue_run(time_t now)
{
	struct host	*h;

	while (!order_busy() && (h = TAILQ_FIRST(&queue)) != NULL) {
		TAILQ_REMOVE(&queue, h, queue);
		h->queued = 0;
		if (starts_in_window(now) >= acme_conf.per_hour) {
			capped(h, now);
			continue;
		}
		starts_add(now);
		if (h->st.state != ACME_STATE_ISSUING) {
			h->st.state = ACME_STATE_ISSUING;
			host_status(h);
		}
		order_start(h->st.name, issued);
	}
}

/* renewals due, retries of renewals, and the queue */
static void
acme_tick(int fd, short event, void *arg)
{
	struct timeval	 tv = { ACMED_TICK_SEC, 0 };
	struct host	*h;
	time_t		 now = time(NULL);

	if (acme_configured) {
		TAILQ_FOREACH(h, &hosts, entry)
			if (!h->queued && h->st.not_after != 0 &&
			    h->st.state != ACME_STATE_ISSUING &&
			    h->st.next_try != 0 && h->st.next_try <= now)
				enqueue(h);
		queue_run(now);
	}
	evtimer_add(&acme_tick_ev, &tv);
}

static int
str_ok(const char *s, size_t size)
{
	return (memchr(s, '\0', size) != NULL);
}

static void
acme_recv_conf(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_conf	 c;
	size_t			 len = imsg_get_len(imsg);
	uint8_t			*ca = NULL;
	char			 err[256];
	int			 changed;

	if (len < sizeof(c))
		fatalx("CONF: %zu bytes", len);
	memcpy(&c, imsg->data, sizeof(c));
	if (c.ca_len != len - sizeof(c) || c.ca_len > ORCHD_TLS_FILE_MAX ||
	    !str_ok(c.directory, sizeof(c.directory)) ||
	    !str_ok(c.contact, sizeof(c.contact)) ||
	    !str_ok(c.eab_kid, sizeof(c.eab_kid)) ||
	    !str_ok(c.eab_hmac, sizeof(c.eab_hmac)) ||
	    c.per_hour == 0 || c.per_hour > ACMED_PER_HOUR_MAX)
		fatalx("CONF: malformed");
	ca = (uint8_t *)imsg->data + sizeof(c);
	if (https_config(ca, c.ca_len, err, sizeof(err)) == -1) {
		log_warnx("acme: %s: no issuance until a reload fixes it",
		    err);
		acme_configured = 0;
		return;
	}
	changed = strcmp(c.directory, acme_conf.directory) != 0 ||
	    strcmp(c.eab_kid, acme_conf.eab_kid) != 0;
	acme_conf = c;
	explicit_bzero(&c, sizeof(c));
	order_conf(&acme_conf, changed);
	acme_configured = 1;
	log_debug("acme: directory %s, %u issuances an hour",
	    acme_conf.directory, acme_conf.per_hour);
}

static void
acme_recv_have(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_cert	 c;
	struct host		*h;
	size_t			 len = imsg_get_len(imsg);
	int64_t			 nb, na;

	if (len < sizeof(c))
		fatalx("HAVE: %zu bytes", len);
	memcpy(&c, imsg->data, sizeof(c));
	if (c.chain_len != len - sizeof(c) || c.key_len != 0 ||
	    !host_ok(c.name))
		fatalx("HAVE: malformed");
	if ((h = host_find(c.name, 1)) == NULL)
		return;
	if (cert_chain_info((char *)imsg->data + sizeof(c), c.chain_len,
	    &nb, &na, h->st.issuer, sizeof(h->st.issuer)) == -1) {
		log_warnx("%s: the stored chain cannot be read: issued "
		    "again when asked", c.name);
		return;
	}
	issuer_clean(h->st.issuer);
	h->not_before = nb;
	h->st.not_after = na;
	h->st.state = ACME_STATE_VALID;
	h->st.next_try = renewal_time(nb, na);
	host_status(h);
}

/* a handshake for a host without a certificate, checked by the parent */
static void
acme_recv_want(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_host	 ah;
	struct host		*h;
	time_t			 now = time(NULL);

	(void)imsg_get_data(imsg, &ah, sizeof(ah));
	if (!host_ok(ah.name))
		fatalx("WANT: not a host name");
	if ((h = host_find(ah.name, 1)) == NULL) {
		log_warnx("%s: more than %d hosts: not issued", ah.name,
		    ACMED_HOSTS_MAX);
		return;
	}
	if (h->queued || h->st.state == ACME_STATE_ISSUING)
		return;
	/* one the parent has: it reached the gateways meanwhile */
	if (h->st.state == ACME_STATE_VALID && h->st.not_after > now)
		return;
	if ((h->st.state == ACME_STATE_FAILED ||
	    h->st.state == ACME_STATE_CAPPED) && h->st.next_try > now) {
		/* backing off: the handshakes held for it end now */
		acmed_send(IMSG_ACME_FAILED, &h->st, sizeof(h->st), NULL, 0,
		    NULL, 0);
		return;
	}
	if (!acme_configured) {
		strlcpy(h->st.error, "no usable acme configuration",
		    sizeof(h->st.error));
		h->st.state = ACME_STATE_FAILED;
		acmed_send(IMSG_ACME_FAILED, &h->st, sizeof(h->st), NULL, 0,
		    NULL, 0);
		host_status(h);
		return;
	}
	enqueue(h);
	queue_run(now);
}

/* orchctl renew: now, whatever the backoff said; the cap still holds */
static void
acme_recv_renew(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_host	 ah;
	struct host		*h;

	(void)imsg_get_data(imsg, &ah, sizeof(ah));
	if (!host_ok(ah.name))
		fatalx("RENEW: not a host name");
	if ((h = host_find(ah.name, 1)) == NULL ||
	    h->st.state == ACME_STATE_ISSUING)
		return;
	log_info("%s: renewal asked", ah.name);
	enqueue(h);
	if (h->st.state == ACME_STATE_VALID) {
		h->st.state = ACME_STATE_ISSUING;
		host_status(h);
	}
	queue_run(time(NULL));
}

int
main(int argc, char *argv[])
{
	char	 err[256];

	proc_title_init(argc, argv);
	/* before the chroot: libcrypto and the system's roots */
	if (https_init(err, sizeof(err)) == -1)
		fatalx("%s", err);
	child_start(&acme_ps, argc, argv, PROC_ACME, acme_handlers,
	    nitems(acme_handlers), 0);
	/* chrooted and unprivileged: the account key, ours alone */
	if (jws_account_key(acme_ps.file != NULL ? acme_ps.file :
	    ACMED_ACCOUNT_KEY, err, sizeof(err)) == -1)
		fatalx("account key: %s", err);
	evtimer_set(&acme_tick_ev, acme_tick, NULL);
	acme_tick(-1, 0, NULL);
	sandbox_enter(proc_name(PROC_ACME), SB_ACME);
	event_dispatch();
	return (0);
}
