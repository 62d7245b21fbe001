/*
 * The status page's sessions as one gateway knows them: the cookie read
 * from a request, a cache of the sessions the reaper told of (it holds
 * them for every gateway: reaperd/uisess.c), and the checks of a
 * session's CSRF token and of the routes a cookie may open.
 *
 * The cache is UI_CACHE_MAX slots; an entry is trusted UI_CACHE_MS at
 * most, then the reaper is asked again, so that a session ended
 * elsewhere whose IMSG_REAP_SESS_END was missed cannot outlive its
 * logout by more than that.  A logout's message drops it at once.
 * Nothing here asks or tells anyone (api_conn.c asks, ui.c answers,
 * api_conf.c tells of a changed key): it is tested alone, test_uicookie.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "compat.h"
#include "http.h"
#include "imsg.h"
#include "msg.h"
#include "gateway.h"
#include "api.h"

#define UI_COOKIE	"orchd_session"

struct ui_cached {
	struct ui_sess	 s;
	int64_t		 until_ms;	/* monotonic; 0: unused */
};

static struct ui_cached	 ui_cache[UI_CACHE_MAX];

/* exactly 2 * n hex digits into n bytes: 0, else -1 */
int
ui_hexval(const char *s, size_t len, uint8_t *out, size_t n)
{
	size_t	 i;
	int	 hi, lo;

	if (len != 2 * n)
		return (-1);
	for (i = 0; i < n; i++) {
		if ((hi = http_hexval((unsigned char)s[2 * i])) == -1 ||
		    (lo = http_hexval((unsigned char)s[2 * i + 1])) == -1)
			return (-1);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (0);
}

/* n bytes as 2 * n lower-case hex digits and a NUL */
void
ui_hex(const uint8_t *b, size_t n, char *out)
{
	static const char	 digits[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
	}
	out[2 * n] = '\0';
}

/*
 * The id in the request's "orchd_session" cookie: 0, or -1 for none or
 * one that is not 32 hex digits (then it is no cookie of ours).  Only
 * the first Cookie field is read, the first orchd_session in it.
 */
int
ui_cookie(const struct http_head *h, uint8_t *id)
{
	const struct http_field	*f;
	const char		*p, *end, *semi, *eq;
	size_t			 nlen = strlen(UI_COOKIE);

	if ((f = http_head_find(h, "Cookie")) == NULL)
		return (-1);
	p = f->value;
	end = f->value + f->valuelen;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((semi = memchr(p, ';', end - p)) == NULL)
			semi = end;
		if ((eq = memchr(p, '=', semi - p)) != NULL &&
		    (size_t)(eq - p) == nlen && strncmp(p, UI_COOKIE,
		    nlen) == 0)
			return (ui_hexval(eq + 1, semi - eq - 1, id,
			    UI_SESS_IDLEN));
		p = semi + 1;
	}
	return (-1);
}

/* a session this gateway may use without asking, at now (both clocks) */
const struct ui_sess *
ui_cache_find(const uint8_t *id, int64_t now_ms, int64_t now)
{
	size_t	 i;

	for (i = 0; i < nitems(ui_cache); i++) {
		if (ui_cache[i].until_ms == 0 ||
		    ct_memcmp(ui_cache[i].s.id, id, UI_SESS_IDLEN) != 0)
			continue;
		if (ui_cache[i].until_ms <= now_ms ||
		    ui_cache[i].s.expires <= now) {
			explicit_bzero(&ui_cache[i], sizeof(ui_cache[i]));
			return (NULL);
		}
		return (&ui_cache[i].s);
	}
	return (NULL);
}

/* the reaper's answer, or a login here: kept UI_CACHE_MS */
void
ui_cache_put(const struct ui_sess *s, int64_t now_ms)
{
	size_t	 i, slot = 0;

	if (!s->found)
		return;
	for (i = 0; i < nitems(ui_cache); i++) {
		if (ct_memcmp(ui_cache[i].s.id, s->id, UI_SESS_IDLEN) == 0 &&
		    ui_cache[i].until_ms != 0) {
			slot = i;
			break;
		}
		if (ui_cache[i].until_ms < ui_cache[slot].until_ms)
			slot = i;
	}
	ui_cache[slot].s = *s;
	ui_cache[slot].until_ms = now_ms + UI_CACHE_MS;
}

void
ui_cache_drop(const uint8_t *id)
{
	size_t	 i;

	for (i = 0; i < nitems(ui_cache); i++)
		if (ct_memcmp(ui_cache[i].s.id, id, UI_SESS_IDLEN) == 0)
			explicit_bzero(&ui_cache[i], sizeof(ui_cache[i]));
}

/* a key changed at a reload: every session of its kind is forgotten */
void
ui_cache_drop_kind(int readonly)
{
	size_t	 i;

	for (i = 0; i < nitems(ui_cache); i++)
		if ((ui_cache[i].s.readonly != 0) == (readonly != 0))
			explicit_bzero(&ui_cache[i], sizeof(ui_cache[i]));
}

/* IMSG_REAP_SESS_END: a logout on some gateway */
void
ui_recv_sess_end(struct imsgev *iev, struct imsg *imsg)
{
	struct ui_sess_id	 q;

	(void)imsg_get_data(imsg, &q, sizeof(q));
	ui_cache_drop(q.id);
}

/* a fresh session: its id and token random, never the client's */
void
ui_sess_new(struct ui_sess *s, int readonly, int64_t now, int64_t ttl)
{
	memset(s, 0, sizeof(*s));
	arc4random_buf(s->id, sizeof(s->id));
	arc4random_buf(s->csrf, sizeof(s->csrf));
	s->readonly = readonly;
	s->found = 1;
	s->expires = now + ttl;
}

/* the X-CSRF-Token header (hdr, "" for none) is the session's token */
int
ui_csrf_ok(const struct ui_sess *s, const char *hdr)
{
	uint8_t	 tok[UI_SESS_IDLEN];
	int	 ok;

	if (ui_hexval(hdr, strlen(hdr), tok, sizeof(tok)) == -1)
		return (0);
	ok = ct_memcmp(tok, s->csrf, sizeof(tok)) == 0;
	explicit_bzero(tok, sizeof(tok));
	return (ok);
}

/*
 * The routes the page uses, the only ones a cookie opens: every other
 * route ignores it, as if none had been sent.
 */
int
ui_cookie_op(enum api_op op)
{
	switch (op) {
	case API_LIST:
	case API_METRICS:	/* the page's memory, wakes and rates */
	case API_GET:
	case API_HISTORY:
	case API_LOGS:
	case API_ACCESS:
	case API_HOST_HISTORY:
	case API_EVENTS:
	case API_WAKE:
	case API_SUSPEND:
	case API_KEEPWARM:
	case API_RESTART:
	case API_MAINT:
	case API_DELETE:
	case API_UI_SESSION:
	case API_UI_LOGOUT:
		return (1);
	default:
		return (0);
	}
}

/* what a read-only session may not do */
int
ui_action_op(enum api_op op)
{
	switch (op) {
	case API_WAKE:
	case API_SUSPEND:
	case API_KEEPWARM:
	case API_RESTART:
	case API_MAINT:
	case API_DELETE:
		return (1);
	default:
		return (0);
	}
}
