/*
 * The status page's own requests under /ui/ ("status page"): its assets,
 * compiled in (ui.h), its login, logout and session.  The API's routes
 * that the page uses take its session cookie (api_conn.c checks it);
 * this file makes and ends sessions, which the reaper holds for every
 * gateway (reaperd/uisess.c).
 *
 * /ui/ is the page, never cached, so that a new build's is fetched; the
 * other assets only under their hashed names, cached for a year.  A name
 * is looked up whole in the table: nothing is ever opened, so "..",
 * "%2e%2e" and the like are names it lacks (404).
 *
 * A login takes the API key (full rights) or the status key (read-only)
 * and answers 303 with a fresh session's cookie: an id the client sent
 * is never taken.  A wrong key is counted as a wrong bearer key is
 * (api_deny), and its answer is a 303 back to the form (api.c).
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "timer.h"
#include "gateway.h"
#include "api.h"
#include "api_req.h"
#include "ui.h"

#define UI_IMMUTABLE	"public, max-age=31536000, immutable"

void
ui_asset(struct api_req *r)
{
	const struct ui_asset	*a;
	const char		*name = r->t.name;
	size_t			 i;

	if (*name == '\0')
		name = "index.html";
	else if (strcmp(name, "index.html") == 0)
		name = "";	/* only as /ui/ */
	for (i = 0; i < ui_nassets; i++) {
		a = &ui_assets[i];
		if (strcmp(a->served, name) != 0)
			continue;
		if (strcmp(a->served, "index.html") != 0)
			r->cache = UI_IMMUTABLE;
		api_head(r, 200, a->ctype, NULL, a->len);
		api_body(r, a->data, a->len);
		api_done(r);
		return;
	}
	api_error(r, 404, "no such path", NULL);
}

/*
 * The form's "key" (application/x-www-form-urlencoded, the first one):
 * its length, or -1 when there is none or it does not fit in out.
 */
static ssize_t
ui_form_key(const char *body, size_t len, char *out, size_t outsz)
{
	const char	*p = body, *end = body + len, *amp;
	size_t		 n = 0;
	uint8_t		 b;

	while (p < end) {
		if ((amp = memchr(p, '&', end - p)) == NULL)
			amp = end;
		if (amp - p >= 4 && strncmp(p, "key=", 4) == 0)
			break;
		p = amp + 1;
	}
	if (p >= end)
		return (-1);
	for (p += 4; p < amp; p++) {
		if (n + 1 >= outsz)
			return (-1);
		if (*p == '+')
			out[n++] = ' ';
		else if (*p == '%') {
			if (amp - p < 3 || ui_hexval(p + 1, 2, &b, 1) == -1)
				return (-1);
			out[n++] = (char)b;
			p += 2;
		} else
			out[n++] = *p;
	}
	out[n] = '\0';
	return ((ssize_t)n);
}

/*
 * A cookie for HTTPS only when the request came over TLS: the listener
 * says so (an HTTP/2 stream's pseudo-connection has no TLS of its own).
 */
static int
ui_secure(const struct api_req *r)
{
	return (r->c->listener != NULL && r->c->listener->conf.tls);
}

/* the cookie of session s, or the one that ends it (s NULL) */
static void
ui_cookie_header(struct api_req *r, const struct ui_sess *s, char *buf,
    size_t sz)
{
	char	 id[UI_SESS_IDLEN * 2 + 1];
	int64_t	 ttl;

	if (s == NULL) {
		(void)snprintf(buf, sz, "Set-Cookie: orchd_session=; Path=/; "
		    "HttpOnly; SameSite=Strict; Max-Age=0%s\r\n",
		    ui_secure(r) ? "; Secure" : "");
		return;
	}
	ui_hex(s->id, sizeof(s->id), id);
	ttl = MAXIMUM(s->expires - time(NULL), 0);
	(void)snprintf(buf, sz, "Set-Cookie: orchd_session=%s; Path=/; "
	    "HttpOnly; SameSite=Strict; Max-Age=%lld%s\r\n", id,
	    (long long)ttl, ui_secure(r) ? "; Secure" : "");
	explicit_bzero(id, sizeof(id));
}

void
ui_login(struct api_req *r)
{
	struct ui_sess	 s;
	struct imsgev	*iev;
	const uint8_t	*key;
	char		 form[UI_LOGIN_MAX + 1], tok[ORCHD_API_KEY_MAX + 1];
	char		 cookie[256];
	size_t		 len, keylen;
	ssize_t		 toklen;
	int		 readonly = -1;

	len = r->body != NULL ? evbuffer_get_length(r->body) : 0;
	if (len > UI_LOGIN_MAX) {
		api_error(r, 413, "login form too large", NULL);
		return;
	}
	if (len > 0)
		evbuffer_remove(r->body, form, len);
	toklen = ui_form_key(form, len, tok, sizeof(tok));
	explicit_bzero(form, sizeof(form));
	if (toklen > 0) {
		if ((key = apiconf_key(&keylen)) != NULL &&
		    auth_key_match(key, keylen, tok, toklen))
			readonly = 0;
		else if ((key = apiconf_status_key(&keylen)) != NULL &&
		    auth_key_match(key, keylen, tok, toklen))
			readonly = 1;
	}
	explicit_bzero(tok, sizeof(tok));
	if (readonly == -1) {
		log_info("%s: status page: wrong key", r->c->peer);
		api_deny(r);
		return;
	}
	auth_succeeded(r->c->peer);
	ui_sess_new(&s, readonly, time(NULL), apiconf_status_session());
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_SESS_NEW, 0, -1, &s,
	    sizeof(s)) == -1) {
		explicit_bzero(&s, sizeof(s));
		api_error(r, 503, "orchd is not answering", RETRY_AFTER);
		return;
	}
	/*
	 * Sent now rather than on the next turn of the loop: the browser's
	 * next request may reach another gateway, which asks the reaper,
	 * and the reaper should know of the session first.
	 */
	if ((iev = proc_channel(gw->ps, PROC_REAPER, 0)) != NULL)
		(void)imsgbuf_write(&iev->ibuf);
	ui_cache_put(&s, monotime_ms());
	log_info("%s: status page: %s login", r->c->peer, readonly ?
	    "read-only" : "full");
	ui_cookie_header(r, &s, cookie, sizeof(cookie));
	explicit_bzero(&s, sizeof(s));
	api_see_other(r, "/ui/", cookie);
	explicit_bzero(cookie, sizeof(cookie));
}

/* the session (checked with its CSRF token) ends, for every gateway */
void
ui_logout(struct api_req *r)
{
	struct ui_sess_id	 q;
	char			 cookie[256];

	memcpy(q.id, r->sess.id, sizeof(q.id));
	ui_cache_drop(q.id);
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_SESS_END, 0, -1, &q,
	    sizeof(q)) == -1) {
		api_error(r, 503, "orchd is not answering", RETRY_AFTER);
		return;
	}
	ui_cookie_header(r, NULL, cookie, sizeof(cookie));
	api_see_other(r, "/ui/", cookie);
}

/* what the page needs of its session: the token, the rights, the end */
void
ui_session(struct api_req *r)
{
	json_t	*o;
	char	 csrf[UI_SESS_IDLEN * 2 + 1];

	ui_hex(r->sess.csrf, sizeof(r->sess.csrf), csrf);
	o = json_pack("{s:s, s:b, s:I}", "csrf", csrf, "readonly",
	    r->sess.readonly != 0, "expires", (json_int_t)r->sess.expires);
	explicit_bzero(csrf, sizeof(csrf));
	api_json(r, 200, o, NULL);
}
