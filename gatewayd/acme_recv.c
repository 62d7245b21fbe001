/*
 * The ACME messages the parent relays from acmed (msg.h): a host's
 * certificate, a challenge to answer or forget, an issuance that failed.
 * The parent checked every field; they are checked again here, as any
 * child checks what it is sent, and a message that fails is dropped with
 * a warning (a certificate less is no reason to stop serving).  A
 * certificate or a failure resumes the handshakes held for its host
 * (tlshello.c).
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "gateway.h"
#include "acme.h"

/* a NUL-terminated host name in its array, as the tables key it */
static int
name_ok(const char *in, size_t size, char *out)
{
	size_t	 len = strnlen(in, size);

	if (len == size || acme_name(in, len, out) == -1 ||
	    strcmp(in, out) != 0)
		return (0);
	return (1);
}

static int
str_ok(const char *s, size_t size)
{
	size_t	 len = strnlen(s, size);

	return (len > 0 && len < size);
}

void
acme_recv_cert(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_cert	 m;
	char			 name[ORCHD_HOST_MAX];
	const uint8_t		*data = imsg->data;
	size_t			 len = imsg_get_len(imsg);
	int			 ok = 0;

	if (len < sizeof(m)) {
		log_warnx("acme: short certificate message");
		return;
	}
	memcpy(&m, data, sizeof(m));
	if (!name_ok(m.name, sizeof(m.name), name) || m.chain_len == 0 ||
	    m.key_len == 0 || m.chain_len > ORCHD_TLS_FILE_MAX ||
	    m.key_len > ORCHD_TLS_FILE_MAX ||
	    len != sizeof(m) + m.chain_len + m.key_len)
		log_warnx("acme: a certificate message out of shape, dropped");
	else
		ok = acme_store_cert(name, data + sizeof(m), m.chain_len,
		    data + sizeof(m) + m.chain_len, m.key_len,
		    m.not_after) == 0;
	/* imsg's buffer held the key */
	explicit_bzero(imsg->data, len);
	if (name_ok(m.name, sizeof(m.name), name))
		hello_resume(name, ok);
}

static int
challenge_ok(const struct acme_challenge *m, size_t len, char *name)
{
	if (!name_ok(m->name, sizeof(m->name), name))
		return (0);
	switch (m->type) {
	case ACME_CHALLENGE_HTTP01:
		return (m->cert_len == 0 && m->key_len == 0 &&
		    len == sizeof(*m) && str_ok(m->token, sizeof(m->token)) &&
		    str_ok(m->keyauth, sizeof(m->keyauth)));
	case ACME_CHALLENGE_TLSALPN01:
		return (m->cert_len > 0 && m->key_len > 0 &&
		    m->cert_len <= ORCHD_TLS_FILE_MAX &&
		    m->key_len <= ORCHD_TLS_FILE_MAX &&
		    len == sizeof(*m) + m->cert_len + m->key_len);
	default:
		return (0);
	}
}

void
acme_recv_challenge(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_challenge	 m;
	char			 name[ORCHD_HOST_MAX];
	const uint8_t		*data = imsg->data;
	size_t			 len = imsg_get_len(imsg);

	if (len < sizeof(m)) {
		log_warnx("acme: short challenge message");
		return;
	}
	memcpy(&m, data, sizeof(m));
	if (!challenge_ok(&m, len, name))
		log_warnx("acme: a challenge message out of shape, dropped");
	else
		(void)acme_store_challenge(&m, data + sizeof(m),
		    data + sizeof(m) + m.cert_len);
	explicit_bzero(imsg->data, len);
	explicit_bzero(&m, sizeof(m));
}

void
acme_recv_challenge_end(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_challenge	 m;
	char			 name[ORCHD_HOST_MAX];

	if (imsg_get_data(imsg, &m, sizeof(m)) == -1 ||
	    !name_ok(m.name, sizeof(m.name), name)) {
		log_warnx("acme: a challenge's end out of shape, dropped");
		return;
	}
	acme_forget_challenge(&m);
}

void
acme_recv_failed(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_status	 m;
	char			 name[ORCHD_HOST_MAX];

	if (imsg_get_data(imsg, &m, sizeof(m)) == -1 ||
	    !name_ok(m.name, sizeof(m.name), name)) {
		log_warnx("acme: a failure message out of shape, dropped");
		return;
	}
	log_info("acme: %s: issuance failed, its held handshakes end", name);
	hello_resume(name, 0);
}
