/*
 * The gate's configuration in the gateway: the password files the
 * parent read (IMSG_CFG_HTFILE, IMSG_CFG_HTUSER, checked again here
 * field by field, as anything from another process), taken on START
 * with the rest of the generation; each workload's gate compiled from
 * its definition when the generation is applied (route_apply.c); and
 * the rules a raw TCP client is matched against (tcp.c).
 *
 * A file's users are looked up by a pass over all of them, at most
 * HTPASSWD_USERS_MAX, which costs nothing beside the hash that follows.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "gatecheck.h"

static struct gw_htfile	 ht_next[HTPASSWD_FILES_MAX];
static size_t		 nht_next;
static struct gw_htfile	 ht_cur[HTPASSWD_FILES_MAX];
static size_t		 nht_cur;
static uint32_t		 gate_gen;	/* bumped by each apply */

static void
htfiles_free(struct gw_htfile *f, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (f[i].users != NULL)
			explicit_bzero(f[i].users,
			    f[i].want * sizeof(*f[i].users));
		free(f[i].users);
		memset(&f[i], 0, sizeof(f[i]));
	}
}

void
gate_recv_file(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_htfile	 hf;
	struct gw_htfile	*f;

	(void)imsg_get_data(imsg, &hf, sizeof(hf));
	if (nht_next >= nitems(ht_next))
		fatalx("%s: more than %d files", __func__,
		    HTPASSWD_FILES_MAX);
	if (memchr(hf.path, '\0', sizeof(hf.path)) == NULL ||
	    hf.path[0] != '/' || hf.nusers > HTPASSWD_USERS_MAX)
		fatalx("%s: a bad file from the parent", __func__);
	if (nht_next > 0 && ht_next[nht_next - 1].nusers !=
	    ht_next[nht_next - 1].want)
		fatalx("%s: a file's users missing", __func__);
	f = &ht_next[nht_next++];
	memset(f, 0, sizeof(*f));
	memcpy(f->path, hf.path, sizeof(f->path));
	f->want = hf.nusers;
	if (f->want > 0 &&
	    (f->users = calloc(f->want, sizeof(*f->users))) == NULL)
		fatal("%s", __func__);
}

void
gate_recv_user(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_htfile	*f;
	struct cfg_htuser	*u;

	if (nht_next == 0)
		fatalx("%s: a user of no file", __func__);
	f = &ht_next[nht_next - 1];
	if (f->nusers >= f->want)
		fatalx("%s: more users than announced", __func__);
	u = &f->users[f->nusers];
	(void)imsg_get_data(imsg, u, sizeof(*u));
	if (memchr(u->user, '\0', sizeof(u->user)) == NULL ||
	    memchr(u->hash, '\0', sizeof(u->hash)) == NULL ||
	    u->user[0] == '\0' || !valid_text(u->user) ||
	    !gate_hash_ok(u->hash))
		fatalx("%s: a bad user from the parent", __func__);
	f->nusers++;
}

/* on START: the files the transaction brought; what was cached goes */
void
gate_apply(struct cfg_generation *gen)
{
	if (nht_next > 0 && ht_next[nht_next - 1].nusers !=
	    ht_next[nht_next - 1].want)
		fatalx("%s: a file's users missing", __func__);
	htfiles_free(ht_cur, nht_cur);
	memcpy(ht_cur, ht_next, nht_next * sizeof(ht_cur[0]));
	nht_cur = nht_next;
	/* only the entries used: the rest of the table was never touched
	   and stays unmapped (68 KiB a gateway at rest) */
	memset(ht_next, 0, nht_next * sizeof(ht_next[0]));
	nht_next = 0;
	gate_cache_clear();
	gate_gen++;
}

/* which configuration a check began under: one that ends under another
   passes nothing */
uint32_t
gate_generation(void)
{
	return (gate_gen);
}

static const struct gw_htfile *
gate_file(const char *path)
{
	size_t	 i;

	for (i = 0; i < nht_cur; i++)
		if (strcmp(ht_cur[i].path, path) == 0)
			return (&ht_cur[i]);
	return (NULL);
}

/* user's hash in f, or NULL; every user is looked at */
const char *
gate_user_hash(const struct gw_htfile *f, const char *user, size_t len)
{
	const char	*hash = NULL;
	size_t		 i;

	if (f == NULL || len >= HTPASSWD_USER_MAX)
		return (NULL);
	for (i = 0; i < f->nusers; i++)
		if (strncmp(f->users[i].user, user, len) == 0 &&
		    f->users[i].user[len] == '\0' && hash == NULL)
			hash = f->users[i].hash;
	return (hash);
}

void
gate_forget(struct gw_workload *wl)
{
	if (wl->gate == NULL)
		return;
	free(wl->gate->rules);
	free(wl->gate);
	wl->gate = NULL;
}

/* the auth service's address and Host field, from its checked URL */
static void
gate_compile_request(struct gw_gate *g, const struct workload_conf *wc)
{
	struct sockaddr_in	*sin = &g->addr.sin;
	struct sockaddr_in6	*sin6 = &g->addr.sin6;
	char			 host[INET6_ADDRSTRLEN];
	int			 port;

	if (gate_url_split(wc->auth_request, host, sizeof(host), &port,
	    &g->path) == -1)
		fatalx("%s: workload %s: auth request", __func__, wc->name);
	memset(&g->addr, 0, sizeof(g->addr));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		g->addrlen = sizeof(*sin);
		(void)snprintf(g->hostport, sizeof(g->hostport), "%s:%d",
		    host, port);
	} else {
		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			fatalx("%s: workload %s: auth request", __func__,
			    wc->name);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		g->addrlen = sizeof(*sin6);
		(void)snprintf(g->hostport, sizeof(g->hostport), "[%s]:%d",
		    host, port);
	}
	g->request = 1;
	g->timeout_ms = (wc->auth_timeout > 0 ? wc->auth_timeout :
	    WL_AUTH_TIMEOUT) * 1000;
	g->cache_ms = wc->auth_cache > 0 ? wc->auth_cache * 1000 : 0;
}

/* a workload of the new generation: its gate, or none */
void
gate_workload(struct gw_workload *wl, const struct workload_conf *wc)
{
	const struct strentry	*e;
	struct gw_gate		*g;
	size_t			 n = 0;

	gate_forget(wl);
	TAILQ_FOREACH(e, &wc->access, entry)
		n++;
	if (n == 0 && wc->auth_basic == NULL && wc->auth_request == NULL)
		return;
	if ((g = calloc(1, sizeof(*g))) == NULL ||
	    (n > 0 && (g->rules = calloc(n, sizeof(*g->rules))) == NULL))
		fatal("%s", __func__);
	TAILQ_FOREACH(e, &wc->access, entry)
		if (gate_rule_parse(e->str, &g->rules[g->nrules++]) == -1)
			fatalx("%s: workload %s: \"%s\"", __func__, wc->name,
			    e->str);
	if (wc->auth_basic != NULL) {
		g->basic = 1;
		if ((g->file = gate_file(wc->auth_basic)) == NULL)
			log_warnx("workload %s: auth basic %s: no users came "
			    "with it, every request is refused", wc->name,
			    wc->auth_basic);
	}
	if (wc->auth_request != NULL)
		gate_compile_request(g, wc);
	wl->gate = g;
}

/*
 * A connection to one of c->wl's TCP listeners: 1 if its rules refuse
 * the client (its peer: raw TCP has no X-Forwarded-For), 0 if not.
 */
int
gate_tcp_denied(const struct gw_conn *c)
{
	const struct gw_gate	*g = c->wl->gate;
	size_t			 i;

	if (g == NULL)
		return (0);
	for (i = 0; i < g->nrules; i++)
		if (gate_rule_match(&g->rules[i], &c->peeraddr))
			return (!g->rules[i].allow);
	return (0);
}

/* the connection goes: the fields it was to add with it */
void
gate_conn_free(struct gw_conn *c)
{
	free(c->gate_add);
	c->gate_add = NULL;
}
