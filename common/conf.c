/*
 * A configuration's memory, as confd makes it and the parent takes it
 * piece by piece (orchd/confread.c): an empty one, and its freeing.
 */

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "conf.h"
#include "ignore.h"
#include "workload.h"

/* every list empty, every number 0: what the parent starts from */
struct orchd_conf *
conf_new(void)
{
	struct orchd_conf	*c;

	if ((c = malloc(sizeof(*c))) == NULL)
		return (NULL);
	conf_init(c);
	return (c);
}

/* an empty configuration in c, every list empty */
void
conf_init(struct orchd_conf *c)
{
	memset(c, 0, sizeof(*c));
	TAILQ_INIT(&c->listeners);
	TAILQ_INIT(&c->api_hosts);
	TAILQ_INIT(&c->keypairs);
	TAILQ_INIT(&c->workloads);
	TAILQ_INIT(&c->rest);
	TAILQ_INIT(&c->group_scheds);
	TAILQ_INIT(&c->api_allow_images);
	TAILQ_INIT(&c->api_allow_volumes);
	TAILQ_INIT(&c->api_allow_networks);
	TAILQ_INIT(&c->api_allow_addresses);
	TAILQ_INIT(&c->api_allow_publish);
	TAILQ_INIT(&c->api_allow_auth_basic);
	TAILQ_INIT(&c->api_allow_auth_request);
	TAILQ_INIT(&c->htfiles);
	TAILQ_INIT(&c->ignores);
	TAILQ_INIT(&c->error_pages);
	TAILQ_INIT(&c->pages);
}

/* the page read from that file, or NULL */
struct errpage_file *
errpage_find(const struct errpagelist *l, const char *path)
{
	struct errpage_file	*p;

	TAILQ_FOREACH(p, l, entry)
		if (strcmp(p->path, path) == 0)
			return (p);
	return (NULL);
}

static void
errpages_free(struct errpagelist *l)
{
	struct errpage_file	*p;

	while ((p = TAILQ_FIRST(l)) != NULL) {
		TAILQ_REMOVE(l, p, entry);
		free(p->path);
		free(p->data);
		free(p);
	}
}

void
acme_free(struct acme_settings *a)
{
	if (a == NULL)
		return;
	free(a->directory);
	free(a->contact);
	free(a->ca_file);
	free(a->ca);
	free(a->eab_kid);
	free(a->eab_hmac_file);
	explicit_bzero(a->eab_hmac, sizeof(a->eab_hmac));
	free(a);
}

void
free_config(struct orchd_conf *c)
{
	struct listener_conf	*l;
	struct keypair_conf	*kp;
	struct workload_conf	*w;

	if (c == NULL)
		return;
	while ((l = TAILQ_FIRST(&c->listeners)) != NULL) {
		TAILQ_REMOVE(&c->listeners, l, entry);
		free(l->tls_cert);
		free(l->tls_key);
		free(l->tls_cert_mem);
		freezero(l->tls_key_mem, l->tls_key_len);
		free(l);
	}
	strlist_free(&c->api_hosts);
	strlist_free(&c->api_allow_images);
	strlist_free(&c->group_scheds);
	strlist_free(&c->api_allow_volumes);
	strlist_free(&c->api_allow_networks);
	strlist_free(&c->api_allow_addresses);
	strlist_free(&c->api_allow_publish);
	strlist_free(&c->api_allow_auth_basic);
	strlist_free(&c->api_allow_auth_request);
	htfiles_free(&c->htfiles);
	ignore_free(&c->ignores);
	while ((kp = TAILQ_FIRST(&c->keypairs)) != NULL) {
		TAILQ_REMOVE(&c->keypairs, kp, entry);
		free(kp->cert);
		free(kp->key);
		free(kp->cert_mem);
		freezero(kp->key_mem, kp->key_len);
		free(kp);
	}
	while ((w = TAILQ_FIRST(&c->workloads)) != NULL) {
		TAILQ_REMOVE(&c->workloads, w, entry);
		workload_free(w);
	}
	workload_rest_free(&c->rest);
	strlist_free(&c->error_pages);
	errpages_free(&c->pages);
	freezero(c->notify, c->notify != NULL ? sizeof(*c->notify) : 0);
	free(c->notify_key_file);
	free(c->conffile);
	free(c->chroot);
	free(c->database);
	free(c->socket);
	free(c->logdir);
	free(c->docker_socket);
	free(c->wl_dir);
	free(c->access_log);
	free(c->api_key_file);
	freezero(c->api_key, c->api_key_len);
	free(c->status_key_file);
	freezero(c->status_key, c->status_key_len);
	free(c->regauth_file);
	freezero(c->regauth, c->regauth_len);
	free(c->swarm_manager);
	free(c->swarm_ca);
	free(c->swarm_cert);
	free(c->swarm_key);
	freezero(c->swarm_creds, c->swarm_creds_len);
	acme_free(c->acme);
	free(c);
}
