/*
 * The API's settings in the gateway: the bearer key, the "api host"
 * names and whether /metrics is public.  They come in the configuration
 * transaction and take effect on START with the rest of it.  The hosts
 * come with every transaction; the key only with one that loaded the
 * configuration again (a reload), and a transaction without it keeps
 * the key in use.  An empty key message means there is no key.  The
 * status page's read-only key ("status key file") comes the same way,
 * in the same message with peerid APIKEY_STATUS.
 */

#include <sys/queue.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "gateway.h"
#include "api.h"

struct api_conf {
	uint8_t			*key;		/* NULL: none */
	size_t			 keylen;
	struct strlist		 hosts;		/* lower case */
	int			 metrics_public;
	uint8_t			*skey;		/* the status key; NULL */
	size_t			 skeylen;
	int			 status_page;
	int64_t			 status_session; /* seconds */
};

static struct api_conf	 api_cur = {
	.hosts = TAILQ_HEAD_INITIALIZER(api_cur.hosts)
};
static struct strlist	 api_next_hosts =
			    TAILQ_HEAD_INITIALIZER(api_next_hosts);
static uint8_t		*api_next_key;
static size_t		 api_next_keylen;
static int		 api_next_key_set;
static uint8_t		*api_next_skey;
static size_t		 api_next_skeylen;
static int		 api_next_skey_set;

/* the status key: kept apart, never taken for the API's */
static void
apiconf_recv_skey(struct imsg *imsg, size_t len)
{
	freezero(api_next_skey, api_next_skeylen);
	api_next_skey = NULL;
	api_next_skeylen = 0;
	if (len > 0) {
		if ((api_next_skey = malloc(len)) == NULL)
			fatal("%s", __func__);
		memcpy(api_next_skey, imsg->data, len);
		api_next_skeylen = len;
	}
	api_next_skey_set = 1;
}

void
apiconf_recv_key(struct imsgev *iev, struct imsg *imsg)
{
	size_t	 len = imsg_get_len(imsg);

	if (len > ORCHD_API_KEY_MAX)
		fatalx("%s: a key of %zu bytes", __func__, len);
	if (imsg_get_id(imsg) == APIKEY_STATUS) {
		apiconf_recv_skey(imsg, len);
		return;
	} else if (imsg_get_id(imsg) != APIKEY_API)
		fatalx("%s: a key of kind %u", __func__, imsg_get_id(imsg));
	freezero(api_next_key, api_next_keylen);
	api_next_key = NULL;
	api_next_keylen = 0;
	if (len > 0) {
		if ((api_next_key = malloc(len)) == NULL)
			fatal("%s", __func__);
		memcpy(api_next_key, imsg->data, len);
		api_next_keylen = len;
	}
	api_next_key_set = 1;
}

void
apiconf_recv_host(struct imsgev *iev, struct imsg *imsg)
{
	char	 host[ORCHD_HOST_MAX];
	size_t	 len = imsg_get_len(imsg), i;

	if (len == 0 || len >= sizeof(host))
		fatalx("%s: a host of %zu bytes", __func__, len);
	for (i = 0; i < len; i++)
		host[i] = tolower(((unsigned char *)imsg->data)[i]);
	host[len] = '\0';
	if (strlist_add(&api_next_hosts, host) == -1)
		fatal("%s", __func__);
}

/*
 * A key changed at a reload: the sessions it opened end, here and in the
 * reaper (every gateway tells it; ending twice is ending once).
 */
static void
apiconf_sess_flush(int readonly)
{
	struct ui_sess_flush	 f;

	ui_cache_drop_kind(readonly);
	memset(&f, 0, sizeof(f));
	f.readonly = readonly;
	if (proc_compose(gw->ps, PROC_REAPER, IMSG_GW_SESS_FLUSH, 0, -1, &f,
	    sizeof(f)) == -1)
		log_warn("%s: to the reaper", __func__);
}

/*
 * A key this gateway held, replaced by another (or by none): the status
 * page's sessions it opened end.  A gateway that held none yet (it just
 * started) has nothing to compare, and ends nothing.
 */
static int
apiconf_key_changed(const uint8_t *old, size_t oldlen, const uint8_t *new,
    size_t newlen)
{
	if (old == NULL)
		return (0);
	return (new == NULL || oldlen != newlen ||
	    ct_memcmp(old, new, oldlen) != 0);
}

/* on START, with the generation's other settings */
void
api_apply(struct cfg_generation *gen)
{
	struct strentry	*e;

	strlist_free(&api_cur.hosts);
	while ((e = TAILQ_FIRST(&api_next_hosts)) != NULL) {
		TAILQ_REMOVE(&api_next_hosts, e, entry);
		TAILQ_INSERT_TAIL(&api_cur.hosts, e, entry);
	}
	if (api_next_key_set) {
		if (apiconf_key_changed(api_cur.key, api_cur.keylen,
		    api_next_key, api_next_keylen))
			apiconf_sess_flush(0);
		freezero(api_cur.key, api_cur.keylen);
		api_cur.key = api_next_key;
		api_cur.keylen = api_next_keylen;
		api_next_key = NULL;
		api_next_keylen = 0;
		api_next_key_set = 0;
		if (api_cur.key == NULL)
			log_debug("api: no key: every request but public "
			    "metrics gets 401");
	}
	if (api_next_skey_set) {
		if (apiconf_key_changed(api_cur.skey, api_cur.skeylen,
		    api_next_skey, api_next_skeylen))
			apiconf_sess_flush(1);
		freezero(api_cur.skey, api_cur.skeylen);
		api_cur.skey = api_next_skey;
		api_cur.skeylen = api_next_skeylen;
		api_next_skey = NULL;
		api_next_skeylen = 0;
		api_next_skey_set = 0;
	}
	api_cur.metrics_public = gen->global.api_metrics_public;
	api_cur.status_page = gen->global.status_page;
	api_cur.status_session = gen->global.status_session > 0 ?
	    gen->global.status_session : ORCHD_STATUS_SESSION;
}

/* "status key file": read-only sessions of the status page; NULL none */
const uint8_t *
apiconf_status_key(size_t *len)
{
	*len = api_cur.skeylen;
	return (api_cur.skey);
}

int
apiconf_status_page(void)
{
	return (api_cur.status_page);
}

int64_t
apiconf_status_session(void)
{
	return (api_cur.status_session);
}

const uint8_t *
apiconf_key(size_t *len)
{
	*len = api_cur.keylen;
	return (api_cur.key);
}

int
apiconf_metrics_public(void)
{
	return (api_cur.metrics_public);
}

/*
 * Is host (len bytes, not NUL-terminated, any case, maybe with a
 * trailing dot) an "api host"?  Exact names, or "*.suffix" patterns
 * matching any name below the suffix.
 */
int
apiconf_host_match(const char *host, size_t len)
{
	const struct strentry	*e;
	char			 name[ORCHD_HOST_MAX];
	size_t			 i, plen;

	if (TAILQ_EMPTY(&api_cur.hosts))
		return (0);
	if (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0 || len >= sizeof(name))
		return (0);
	for (i = 0; i < len; i++)
		name[i] = tolower((unsigned char)host[i]);
	name[len] = '\0';
	TAILQ_FOREACH(e, &api_cur.hosts, entry) {
		if (strncmp(e->str, "*.", 2) != 0) {
			if (strcmp(e->str, name) == 0)
				return (1);
			continue;
		}
		/* ".suffix", with something before it */
		plen = strlen(e->str + 1);
		if (len > plen && strcmp(name + len - plen, e->str + 1) == 0)
			return (1);
	}
	return (0);
}
