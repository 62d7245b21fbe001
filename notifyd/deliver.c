/*
 * One webhook delivery: the event's JSON (the same as GET /v1/events
 * writes, with the name of what it notifies), signed with HMAC-SHA256
 * over "TIMESTAMP.BODY" with the key of "notify key file", and POSTed
 * by the shared client (common/https.c), which follows no redirect.
 *
 * A webhook is a request orchd makes to where its configuration says,
 * which makes it a way to reach what the host alone should reach (a
 * server-side request forgery).  So each address is checked where the
 * connection is made, on the address used, not on an earlier lookup
 * that DNS could answer otherwise the second time: loopback, link-local
 * and the host's own addresses (a connection whose two ends have the
 * same address) are refused unless "notify allow" names them; the
 * unspecified address, multicast and broadcast always are.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "compat.h"
#include "event_json.h"
#include "https.h"
#include "log.h"
#include "msg.h"
#include "notify_ev.h"
#include "notifyd.h"

static uint32_t	 deliver_allow;		/* NOTIFY_ALLOW_*, of this try */

/*
 * {"event": "failed", "id": ..., ...the event's own fields}, or NULL.
 * The id is the same at each try of the event: a receiver that got it
 * once and whose answer was lost knows it again.
 */
char *
deliver_body(const struct ctl_event *ev, int kind, const char *id,
    size_t *len)
{
	json_t	*o;
	char	*s = NULL;

	if ((o = event_json(ev)) == NULL)
		return (NULL);
	if (json_object_set_new(o, "event",
	    json_string(notify_ev_name(kind))) == 0 &&
	    json_object_set_new(o, "id", json_string(id)) == 0)
		s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (s != NULL)
		*len = strlen(s);
	return (s);
}

/* an IPv4 address, from sin or from an IPv4-mapped sin6; 0: none */
static int
addr_v4(const struct sockaddr *sa, uint32_t *a)
{
	const struct sockaddr_in6	*s6;

	if (sa->sa_family == AF_INET) {
		*a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
		return (1);
	}
	s6 = (const struct sockaddr_in6 *)sa;
	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(a, &s6->sin6_addr.s6_addr[12], 4);
		*a = ntohl(*a);
		return (1);
	}
	return (0);
}

/* what the address is: NOTIFY_ALLOW_* it needs, 0, or -1 never */
static int
addr_class(const struct sockaddr *sa)
{
	const struct in6_addr	*a6;
	uint32_t		 a;

	if (addr_v4(sa, &a)) {
		if ((a >> 24) == 0 || a == 0xffffffffU || (a >> 28) == 0xe)
			return (-1);
		if ((a >> 24) == 127)
			return (NOTIFY_ALLOW_LOOPBACK);
		if ((a >> 16) == 0xa9fe)
			return (NOTIFY_ALLOW_LINKLOCAL);
		return (0);
	}
	if (sa->sa_family != AF_INET6)
		return (-1);
	a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_UNSPECIFIED(a6) || IN6_IS_ADDR_MULTICAST(a6))
		return (-1);
	if (IN6_IS_ADDR_LOOPBACK(a6))
		return (NOTIFY_ALLOW_LOOPBACK);
	if (IN6_IS_ADDR_LINKLOCAL(a6))
		return (NOTIFY_ALLOW_LINKLOCAL);
	return (0);
}

static int
addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	uint32_t	 x, y;

	if (addr_v4(a, &x) && addr_v4(b, &y))
		return (x == y);
	if (a->sa_family != AF_INET6 || b->sa_family != AF_INET6)
		return (0);
	return (memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
	    &((const struct sockaddr_in6 *)b)->sin6_addr,
	    sizeof(struct in6_addr)) == 0);
}

/* what this try may reach: NOTIFY_ALLOW_* */
void
deliver_set_allow(uint32_t allow)
{
	deliver_allow = allow;
}

/*
 * The shared client's check (https_addr_fn): before the connect, the
 * address's kind; once connected, whether its two ends are one host.
 */
int
deliver_addr_ok(const struct sockaddr *peer, const struct sockaddr *local,
    char *err, size_t errlen)
{
	const char	*what;
	int		 c;

	if ((c = addr_class(peer)) == 0 && local != NULL &&
	    addr_same(peer, local))
		c = NOTIFY_ALLOW_LOCAL;
	if (c == 0 || (c > 0 && (deliver_allow & c)))
		return (0);
	what = c == NOTIFY_ALLOW_LOOPBACK ? "loopback" :
	    c == NOTIFY_ALLOW_LINKLOCAL ? "link-local" :
	    c == NOTIFY_ALLOW_LOCAL ? "one of the host's own" :
	    "unspecified, multicast or broadcast";
	snprintf(err, errlen, "refused: the address is %s (notify allow)",
	    what);
	return (-1);
}

/* sha256=HEX of "ts.body" */
static int
deliver_sign(const uint8_t *key, size_t keylen, const char *ts,
    const char *body, size_t len, char *out, size_t outlen)
{
	uint8_t		 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0, i;
	size_t		 tl = strlen(ts);
	char		*msg;

	if ((msg = malloc(tl + 1 + len)) == NULL)
		return (-1);
	memcpy(msg, ts, tl);
	msg[tl] = '.';
	memcpy(msg + tl + 1, body, len);
	if (HMAC(EVP_sha256(), key, (int)keylen, (uint8_t *)msg, tl + 1 + len,
	    md, &mdlen) == NULL || outlen < 8 + mdlen * 2) {
		free(msg);
		return (-1);
	}
	free(msg);
	strlcpy(out, "sha256=", outlen);
	for (i = 0; i < mdlen; i++)
		(void)snprintf(out + 7 + i * 2, 3, "%02x", md[i]);
	explicit_bzero(md, sizeof(md));
	return (0);
}

/*
 * One try of body to url: 0 answered 2xx; -1 not (try again); -2 the
 * address is refused (never again).  Why in err.
 */
int
deliver_try(const char *url, const uint8_t *key, size_t keylen,
    uint32_t allow, const char *body, size_t len, int kind, char *err,
    size_t errlen)
{
	struct https_req	 q;
	struct https_resp	 r;
	char			 ts[32], sig[80], head[256];
	int			 rc;

	(void)snprintf(ts, sizeof(ts), "%lld", (long long)time(NULL));
	if (deliver_sign(key, keylen, ts, body, len, sig, sizeof(sig)) == -1) {
		snprintf(err, errlen, "cannot sign");
		return (-1);
	}
	(void)snprintf(head, sizeof(head), "X-Orchd-Event: %s\r\n"
	    "X-Orchd-Timestamp: %s\r\nX-Orchd-Signature: %s\r\n",
	    notify_ev_name(kind), ts, sig);
	memset(&q, 0, sizeof(q));
	q.method = "POST";
	q.url = url;
	q.body = body;
	q.bodylen = len;
	q.ctype = "application/json";
	q.headers = head;
	q.agent = "orchd-notify";
	q.max = NOTIFY_ANSWER_MAX;
	q.total_ms = NOTIFY_TOTAL_MS;
	q.plain = 1;
	q.addr_ok = deliver_addr_ok;
	deliver_set_allow(allow);
	err[0] = '\0';
	if (https_send(&q, &r, err, errlen) == -1)
		return (strncmp(err, "refused: ", 9) == 0 ? -2 : -1);
	rc = r.status >= 200 && r.status <= 299 ? 0 : -1;
	if (rc == -1)
		snprintf(err, errlen, "answered %d%s", r.status,
		    r.status >= 300 && r.status <= 399 ?
		    " (a redirect: not followed)" : "");
	https_resp_free(&r);
	return (rc);
}
