/*
 * "auth basic": the Authorization field's Basic credentials (RFC 7617)
 * against the workload's password file, as the parent sent it.
 *
 * In order, each step before any hash is computed:
 *	an address over the cap of wrong keys and passwords (the reaper
 *	counts them for every gateway, reaperd/authlim.c) gets 429;
 *	no Authorization, or one that is not Basic, gets 401 with
 *	WWW-Authenticate: Basic and the workload's name as realm;
 *	credentials verified lately (gate_cache.c) pass at once.
 * Then the password goes to the verifier process (gate_verify.c) and
 * the request waits, as a request held for a wake does.  A user the
 * file lacks is verified against another user's hash, and refused, so
 * that the answer takes as long as for a user it has.  A wrong password is
 * counted by the reaper against the client's address, as a wrong API
 * key is; past the cap every gateway refuses the address 429 without
 * looking at what it sends.
 *
 * Past the gate, Authorization is left out of what the workload
 * receives, unless "auth basic ... pass authorization" says otherwise.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "util.h"
#include "gateway.h"
#include "api.h"
#include "gatecheck.h"

/* bcrypt, cost 10, of a random password nobody knows: an empty file's */
static const char gate_nobody[] =
    "$2y$10$nu8F5Vv/lfz.ELVXHjID..s9yVPFtNpNmehGtiUtShmDc24RyFUUi";

/* RFC 4648 base64, padding required as RFC 7617 has it: its length */
static int
gate_b64(const char *s, size_t len, char *out, size_t outlen)
{
	static const char	 tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const char		*p;
	uint32_t		 acc = 0;
	size_t			 i, n = 0, pad = 0;

	if (len == 0 || len % 4 != 0 || len / 4 * 3 >= outlen)
		return (-1);
	for (i = 0; i < len; i++) {
		if (s[i] == '=' && i >= len - 2) {
			pad++;
			acc <<= 6;
		} else if (pad > 0 || s[i] == '\0' ||
		    (p = strchr(tab, s[i])) == NULL)
			return (-1);
		else
			acc = acc << 6 | (uint32_t)(p - tab);
		if (i % 4 == 3) {
			out[n++] = acc >> 16;
			out[n++] = acc >> 8;
			out[n++] = acc;
			acc = 0;
		}
	}
	n -= pad;
	out[n] = '\0';
	return ((int)n);
}

static void
gate_basic_refuse(struct gw_conn *c, const char *why)
{
	char	 extra[ORCHD_NAME_MAX + 64];

	(void)snprintf(extra, sizeof(extra), "WWW-Authenticate: Basic "
	    "realm=\"%s\", charset=\"UTF-8\"\r\n", c->wl->name);
	gate_refuse(c, 401, extra, why);
}

/*
 * Past the gate: its credentials stay here, unless passed on.  c->wl->def
 * is there (a workload with a gate keeps its definition in full, wldef.c):
 * gate_basic_check() read it, and a reload since, which could change it,
 * is refused before this (gate_basic_verified()).
 */
static void
gate_basic_pass(struct gw_conn *c)
{
	struct http_head	*h = &c->req->h;
	size_t			 i;

	if (c->wl->def->auth_pass != 1)
		for (i = 0; i < h->nfields; i++)
			if (strcasecmp(h->fields[i].name,
			    "Authorization") == 0)
				h->fields[i].flags |= HTTP_FIELD_DROP;
	gate_continue(c);
}

/* "Basic TOKEN": the token, or NULL */
static const char *
gate_basic_token(const struct http_field *f, size_t *len)
{
	const char	*v = f->value;
	size_t		 i;

	if (f->valuelen < 7 || strncasecmp(v, "Basic", 5) != 0 ||
	    (v[5] != ' ' && v[5] != '\t'))
		return (NULL);
	for (i = 5; i < f->valuelen && (v[i] == ' ' || v[i] == '\t'); i++)
		;
	*len = f->valuelen - i;
	return (v + i);
}

void
gate_basic_check(struct gw_conn *c)
{
	const struct gw_gate	*g = c->wl->gate;
	const struct http_field	*f;
	const char		*tok, *hash, *colon;
	char			 cred[GATE_CRED_MAX], extra[64];
	uint8_t			 key[32];
	size_t			 toklen;
	int64_t			 now, blocked;
	int			 n, known;

	now = monotime_ms();
	if ((blocked = auth_blocked(&c->peeraddr, now)) > 0) {
		(void)snprintf(extra, sizeof(extra), "Retry-After: %lld\r\n",
		    (long long)((blocked + 999) / 1000));
		gate_refuse(c, 429, extra, "basic-limited");
		return;
	}
	if ((f = http_head_find(&c->req->h, "Authorization")) == NULL) {
		gate_basic_refuse(c, "basic-missing");
		return;
	}
	if (f->valuelen >= GATE_CRED_MAX ||
	    (tok = gate_basic_token(f, &toklen)) == NULL) {
		gate_basic_refuse(c, "basic-malformed");
		return;
	}
	gate_cache_key(key, c->wl->def->auth_basic, tok, toklen, "", 0);
	if (gate_cache_find(0, key, now, NULL, NULL)) {
		gate_basic_pass(c);
		return;
	}
	if ((n = gate_b64(tok, toklen, cred, sizeof(cred))) <= 0 ||
	    memchr(cred, '\0', n) != NULL ||
	    (colon = memchr(cred, ':', n)) == NULL || colon == cred) {
		explicit_bzero(cred, sizeof(cred));
		gate_basic_refuse(c, "basic-malformed");
		return;
	}
	/*
	 * A user the file lacks costs what one it has costs: the password
	 * is verified against another user's hash (the same kind and cost,
	 * as htpasswd -B writes a file), and refused whatever it says.
	 */
	known = 1;
	if ((hash = gate_user_hash(g->file, cred, colon - cred)) == NULL) {
		known = 0;
		hash = g->file != NULL && g->file->nusers > 0 ?
		    g->file->users[0].hash : gate_nobody;
	}
	if ((c->gate = calloc(1, sizeof(*c->gate))) == NULL) {
		explicit_bzero(cred, sizeof(cred));
		gate_refuse(c, 503, "Retry-After: 1\r\n", "out-of-memory");
		return;
	}
	c->gate->kind = GATE_WAIT_VERIFY;
	c->gate->gen = gate_generation();
	c->gate->known = known;
	memcpy(c->gate->key, key, sizeof(key));
	if (gate_verify_ask(c, hash, colon + 1, n - (colon + 1 - cred),
	    &c->gate->slot) == -1) {
		explicit_bzero(cred, sizeof(cred));
		gate_refuse(c, 503, "Retry-After: 1\r\n", "verify-busy");
		return;
	}
	explicit_bzero(cred, sizeof(cred));
	conn_timer(c, GATE_VERIFY_WAIT);
}

/* the verifier's answer for c */
void
gate_basic_verified(struct gw_conn *c, int ok)
{
	if (c->gate == NULL || c->gate->kind != GATE_WAIT_VERIFY)
		return;
	/* a reload meanwhile: its file may say otherwise, fail closed */
	if (c->gate->gen != gate_generation()) {
		gate_refuse(c, 503, "Retry-After: 1\r\n", "reloaded");
		return;
	}
	if (ok && c->gate->known) {
		gate_cache_put(0, c->gate->key, monotime_ms() +
		    GATE_CACHE_TTL * 1000, NULL, 0);
		gate_basic_pass(c);
		return;
	}
	/* counted for every gateway; over the cap, all of them say 429 */
	if ((c->peeraddr.af == AF_INET || c->peeraddr.af == AF_INET6) &&
	    proc_compose(gw->ps, PROC_REAPER, IMSG_GW_AUTHFAIL, 0, -1,
	    &c->peeraddr, sizeof(c->peeraddr)) == -1)
		log_warn("%s: to %s", __func__, proc_name(PROC_REAPER));
	gate_basic_refuse(c, "basic-wrong");
}

/* the verifier took too long: not the client's fault */
void
gate_basic_timeout(struct gw_conn *c)
{
	gate_verify_cancel(c->gate->slot);
	gate_refuse(c, 503, "Retry-After: 1\r\n", "verify-timeout");
}
