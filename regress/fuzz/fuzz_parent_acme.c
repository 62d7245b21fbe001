/*
 * libFuzzer harness for the root parent's checks of what acmed sends
 * (orchd/acme_relay.c): the first byte picks the message (CHALLENGE,
 * CHALLENGE_END, CERT, STATUS), the rest is its payload as the
 * dispatcher hands it over.  What is taken must be what the parent then
 * relies on: a host name of a configured workload, byte counts that add
 * up, PEM without a NUL, printable strings.  Build and run:
 *
 *	make build/fuzz/fuzz_parent_acme
 *	build/fuzz/fuzz_parent_acme -max_total_time=60 \
 *	    regress/fuzz/corpus/parent_acme
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "msg.h"
#include "workload.h"
#include "conf.h"
#include "../../orchd/parent.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* what acme_relay.c calls beyond the checks: never reached from them */
struct orchd	*orchd_env;
int proc_composev(struct privsep *p, enum privsep_procid t, uint32_t ty,
    uint32_t id, const struct iovec *v, int n) { abort(); }
int proc_compose(struct privsep *p, enum privsep_procid t, uint32_t ty,
    uint32_t id, int fd, const void *d, size_t l) { abort(); }
int proc_instances(struct privsep *p, enum privsep_procid t) { abort(); }
void proc_asker(const struct imsgev *i, struct imsg *m,
    struct proc_asker *a) { abort(); }
int proc_reply(struct privsep *p, const struct proc_asker *a, uint32_t t,
    const void *d, size_t l) { abort(); }
int proc_reply_end(struct privsep *p, const struct proc_asker *a)
    { abort(); }
int proc_reply_ok(struct privsep *p, const struct proc_asker *a)
    { abort(); }
int proc_reply_fail(struct privsep *p, const struct proc_asker *a, int c,
    const char *f, ...) { abort(); }
int imsg_get_data(const struct imsg *m, void *d, size_t l) { abort(); }
size_t imsg_get_len(const struct imsg *m) { abort(); }
void hook_cert_failed(struct orchd *e, const struct acme_status *s)
    { abort(); }

static struct orchd_conf	 conf;
static struct workload_conf	 wl;
static struct strentry		 h1, h2;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init(1, LOG_DAEMON);
	TAILQ_INIT(&conf.workloads);
	TAILQ_INIT(&wl.hosts);
	h1.str = "a.test";
	h2.str = "*.pr.test";
	TAILQ_INSERT_TAIL(&wl.hosts, &h1, entry);
	TAILQ_INSERT_TAIL(&wl.hosts, &h2, entry);
	TAILQ_INSERT_TAIL(&conf.workloads, &wl, entry);
	return (0);
}

static void
host_taken(const char *name, size_t size)
{
	if (memchr(name, '\0', size) == NULL || !acme_host_ok(name) ||
	    !acme_host_routes(&conf, name))
		abort();
}

static void
pem_taken(const uint8_t *p, size_t len)
{
	if (len == 0 || memchr(p, '\0', len) != NULL ||
	    strncmp((const char *)p, "-----BEGIN ", 11) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acme_challenge	 ch;
	struct acme_cert	 ac;
	struct acme_status	 st;
	const uint8_t		*p;
	size_t			 n, i;

	if (size < 1)
		return (0);
	p = data + 1;
	n = size - 1;
	switch (data[0] % 4) {
	case 0:
	case 1:
		if (acme_check_challenge(&conf, p, n, data[0] % 4) != NULL)
			return (0);
		memcpy(&ch, p, sizeof(ch));
		host_taken(ch.name, sizeof(ch.name));
		if ((uint64_t)sizeof(ch) + ch.cert_len + ch.key_len != n)
			abort();
		if (ch.cert_len > 0) {
			pem_taken(p + sizeof(ch), ch.cert_len);
			pem_taken(p + sizeof(ch) + ch.cert_len, ch.key_len);
		}
		break;
	case 2:
		if (acme_check_cert(&conf, p, n) != NULL)
			return (0);
		memcpy(&ac, p, sizeof(ac));
		host_taken(ac.name, sizeof(ac.name));
		if ((uint64_t)sizeof(ac) + ac.chain_len + ac.key_len != n)
			abort();
		pem_taken(p + sizeof(ac), ac.chain_len);
		pem_taken(p + sizeof(ac) + ac.chain_len, ac.key_len);
		break;
	default:
		if (acme_check_status(&conf, p, n) != NULL)
			return (0);
		memcpy(&st, p, sizeof(st));
		host_taken(st.name, sizeof(st.name));
		if (memchr(st.error, '\0', sizeof(st.error)) == NULL)
			abort();
		for (i = 0; st.error[i] != '\0'; i++)
			if (!isprint((unsigned char)st.error[i]))
				abort();
		break;
	}
	return (0);
}
