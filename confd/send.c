/*
 * A configuration read, sent to the parent piece by piece: the global
 * settings by the table (common/conf_wire.c), then one message for each
 * listener, keypair, workload (packed, as every process sends them),
 * ignore rule, password file and its users, and the acme block.  Fixed
 * structures and lengths only: the parent checks each field of each.
 * A string too long for its field is an error here, never cut short.
 */

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "conf.h"
#include "conf_wire.h"
#include "confd.h"
#include "log.h"
#include "msg.h"
#include "workload.h"

/* one setting: its header, then its bytes, as one message */
static int
send_setting(void *arg, const struct conf_set *s, const void *bytes)
{
	char	*buf;

	if ((buf = malloc(sizeof(*s) + s->len)) == NULL)
		fatal("%s", __func__);
	memcpy(buf, s, sizeof(*s));
	if (s->len > 0)
		memcpy(buf + sizeof(*s), bytes, s->len);
	confd_send(IMSG_CONF_SET, buf, sizeof(*s) + s->len);
	free(buf);
	return (0);
}

static void
copy(char *dst, const char *src, size_t size, const char *what)
{
	if (src == NULL)
		src = "";
	if (strlcpy(dst, src, size) >= size)
		fatalx("%s \"%s\": too long to send", what, src);
}

static void
send_listeners(const struct orchd_conf *c)
{
	const struct listener_conf	*l;
	struct conf_listener		 cl;

	TAILQ_FOREACH(l, &c->listeners, entry) {
		memset(&cl, 0, sizeof(cl));
		copy(cl.name, l->name, sizeof(cl.name), "listen on");
		memcpy(&cl.ss, &l->ss, sizeof(cl.ss));
		cl.sslen = l->sslen;
		cl.api = l->api;
		cl.tls = l->tls;
		cl.http2 = l->http2;
		cl.acme = l->acme;
		cl.redirect = l->redirect;
		cl.redirect_port = l->redirect_port;
		cl.hsts = l->hsts;
		cl.hsts_sub = l->hsts_sub;
		cl.hsts_age = l->hsts_age;
		copy(cl.tls_cert, l->tls_cert, sizeof(cl.tls_cert), "tls");
		copy(cl.tls_key, l->tls_key, sizeof(cl.tls_key), "tls");
		copy(cl.workload, l->workload, sizeof(cl.workload),
		    "workload");
		confd_send(IMSG_CONF_LISTENER, &cl, sizeof(cl));
	}
}

static void
send_keypairs(const struct orchd_conf *c)
{
	const struct keypair_conf	*kp;
	struct conf_keypair		 ck;

	TAILQ_FOREACH(kp, &c->keypairs, entry) {
		memset(&ck, 0, sizeof(ck));
		copy(ck.host, kp->host, sizeof(ck.host), "host");
		copy(ck.cert, kp->cert, sizeof(ck.cert), "tls keypair");
		copy(ck.key, kp->key, sizeof(ck.key), "tls keypair");
		confd_send(IMSG_CONF_KEYPAIR, &ck, sizeof(ck));
	}
}

static void
send_workloads(const struct orchd_conf *c)
{
	const struct workload_conf	*wl;
	void				*def;
	size_t				 len;

	TAILQ_FOREACH(wl, &c->workloads, entry) {
		if ((def = workload_wire(wl, &len)) == NULL)
			fatalx("workload %s: too large to send", wl->name);
		confd_send(IMSG_CONF_WORKLOAD, def, len);
		free(def);
	}
}

static void
send_ignores(const struct orchd_conf *c)
{
	const struct ignore_rule	*r;
	struct cfg_ignore		 ci;

	TAILQ_FOREACH(r, &c->ignores, entry) {
		memset(&ci, 0, sizeof(ci));
		ci.kind = r->kind;
		ci.answer = r->answer;
		copy(ci.pattern, r->pattern, sizeof(ci.pattern), "ignore");
		confd_send(IMSG_CONF_IGNORE, &ci, sizeof(ci));
	}
}

static void
send_htfiles(const struct orchd_conf *c)
{
	const struct htfile	*f;
	struct cfg_htfile	 hf;
	size_t			 i;

	TAILQ_FOREACH(f, &c->htfiles, entry) {
		memset(&hf, 0, sizeof(hf));
		copy(hf.path, f->path, sizeof(hf.path), "auth basic");
		hf.nusers = f->nusers;
		confd_send(IMSG_CONF_HTFILE, &hf, sizeof(hf));
		for (i = 0; i < f->nusers; i++)
			confd_send(IMSG_CONF_HTUSER, &f->users[i],
			    sizeof(f->users[i]));
	}
}

static void
send_acme(const struct acme_settings *a)
{
	struct conf_acme	 ca;

	if (a == NULL)
		return;
	memset(&ca, 0, sizeof(ca));
	copy(ca.directory, a->directory, sizeof(ca.directory), "directory");
	copy(ca.contact, a->contact, sizeof(ca.contact), "contact");
	copy(ca.ca_file, a->ca_file, sizeof(ca.ca_file), "ca file");
	copy(ca.eab_kid, a->eab_kid, sizeof(ca.eab_kid), "eab key id");
	copy(ca.eab_hmac_file, a->eab_hmac_file, sizeof(ca.eab_hmac_file),
	    "eab hmac file");
	memcpy(ca.eab_hmac, a->eab_hmac, sizeof(ca.eab_hmac));
	ca.per_hour = a->per_hour;
	ca.per_hour_set = a->per_hour_set;
	confd_send(IMSG_CONF_ACME, &ca, sizeof(ca));
	explicit_bzero(&ca, sizeof(ca));
	if (a->ca != NULL)
		confd_send(IMSG_CONF_ACME_CA, a->ca, a->ca_len);
}

/* each page file once, its path then its bytes in one message */
static void
send_pages(const struct orchd_conf *c)
{
	const struct errpage_file	*p;
	struct cfg_page			 cp;
	char				*buf;

	TAILQ_FOREACH(p, &c->pages, entry) {
		memset(&cp, 0, sizeof(cp));
		copy(cp.path, p->path, sizeof(cp.path), "error page");
		if ((buf = malloc(sizeof(cp) + p->len)) == NULL)
			fatal("%s", __func__);
		memcpy(buf, &cp, sizeof(cp));
		memcpy(buf + sizeof(cp), p->data, p->len);
		confd_send(IMSG_CONF_PAGE, buf, sizeof(cp) + p->len);
		free(buf);
	}
}

/* the webhooks' targets; the key is the parent's to read */
static void
send_notify(const struct notify_conf *n)
{
	struct notify_conf	*copy;

	if (n == NULL)
		return;
	if ((copy = calloc(1, sizeof(*copy))) == NULL)
		fatal("%s", __func__);
	*copy = *n;
	explicit_bzero(copy->key, sizeof(copy->key));
	copy->keylen = 0;
	confd_send(IMSG_CONF_NOTIFY, copy, sizeof(*copy));
	free(copy);
}

/*
 * After the configuration: what its parse read (inputs.c), the digest
 * then its records, which the parent keeps for the next reload.
 */
void
confd_send_inputs(void)
{
	struct conf_input	*ci;
	struct conf_digest	 cd;
	int32_t			 i;

	inputs_result(&cd);
	confd_send(IMSG_CONF_DIGEST, &cd, sizeof(cd));
	if ((ci = malloc(sizeof(*ci))) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < cd.ninputs; i++) {
		inputs_record(i, ci);
		confd_send(IMSG_CONF_INPUT, ci, sizeof(*ci));
	}
	free(ci);
}

void
confd_send_conf(const struct orchd_conf *c)
{
	(void)conf_settings_put(c, send_setting, NULL);
	send_listeners(c);
	send_keypairs(c);
	send_workloads(c);
	send_ignores(c);
	send_htfiles(c);
	send_acme(c->acme);
	send_pages(c);
	send_notify(c->notify);
}
