/*
 * The operator's policy for workloads, checked by the parent itself:
 * the trust rules every workload obeys (orchd/trust.c), and what the
 * API may create ("api allow" in orchd.conf).  One function for the
 * three ways an API workload arrives: a create from a gateway, a row of
 * the store at start, and the workloads kept across a reload, which the
 * new file's policy may no longer allow.  Whatever gatewayd checked
 * before it asked counts for nothing here.  The same function runs again
 * before each container create and start (usecheck.c), on the
 * definition the parent holds then.
 *
 * A labelled container's workload ("docker labels on", labels.c) is
 * judged as an API workload is, by the same function, with what its
 * HostConfig asks that no field can say (policy_label): it must ask for
 * nothing a key holder could not.
 */

#include <sys/queue.h>

#include <fnmatch.h>
#include <pwd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "conf.h"
#include "msg.h"
#include "parent.h"
#include "units.h"
#include "users.h"
#include "workload.h"
#include "workload_fields.h"

static int
deny(char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__ (printf, 3, 4)));

static int
deny(char *err, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return (403);
}

/*
 * An API volume is a name, never a host path: orchd makes it as
 * ROOT/INSTANCE/WORKLOAD/NAME under the one "api allow volume" root,
 * at each wake, by a walk that follows no link (voldir.c).  0, or 403 with err.
 */
static int
policy_volume(const struct orchd_conf *conf, const struct workload_conf *wc,
    const struct volume *v, char *err, size_t len)
{
	const char	*root;
	char		 path[ORCHD_VOLROOT_MAX], why[CTL_MSG_MAX];

	if (!valid_volume_name(v->host))
		return (deny(err, len, "api allow volume: volume \"%s\" must "
		    "be a name (1 to %d letters, digits, '.', '-' or '_', not "
		    "\".\" or \"..\"), never a path: orchd makes it under "
		    "its \"api allow volume\" root", valid_text(v->host) &&
		    strlen(v->host) < 128 ? v->host : "?",
		    ORCHD_VOLNAME_MAX - 1));
	if (TAILQ_EMPTY(&conf->api_allow_volumes))
		return (deny(err, len, "api allow volume: volumes are not "
		    "allowed through the API (orchd.conf: api allow volume "
		    "ROOT)"));
	root = TAILQ_FIRST(&conf->api_allow_volumes)->str;
	if (volume_api_path(root, wc->name, v->host, path,
	    sizeof(path)) == -1)
		return (deny(err, len, "api allow volume: volume \"%s\": "
		    "path too long", v->host));
	/* ROOT was checked by the parser; what is under it, here */
	if (hostpath_forbidden(path, conf, why, sizeof(why)) == -1)
		return (deny(err, len, "volume: %s", why));
	return (0);
}

/*
 * A labelled container's bind: none is taken.  Its host path is as its
 * maker wrote it, and under an "api allow volume" root, the one place
 * the operator lets the API mount, lie the API workloads' own volumes,
 * this instance's and every other's (ROOT/INSTANCE/WORKLOAD): one bind
 * there reaches another workload's data, which spawnerd/volrm.c
 * may delete.
 */
static int
policy_label_bind(const struct orchd_conf *conf, const struct volume *v,
    char *err, size_t len)
{
	(void)conf;
	return (deny(err, len, "volume: a labelled container may mount no "
	    "host path (bind \"%s\"): the api allow volume roots hold the "
	    "API workloads' own volumes", valid_text(v->host) &&
	    strlen(v->host) < 256 ? v->host : "?"));
}

static int
policy_image_allowed(const struct orchd_conf *conf, const char *image)
{
	const struct strentry	*e;

	if (TAILQ_EMPTY(&conf->api_allow_images))
		return (1);
	TAILQ_FOREACH(e, &conf->api_allow_images, entry)
		if (fnmatch(e->str, image, 0) == 0)
			return (1);
	return (0);
}

/*
 * A network is shared: who joins it reaches every workload on it, by
 * name, past the gateway.  So none unless orchd.conf names it.
 */
static int
policy_network_allowed(const struct orchd_conf *conf, const char *name)
{
	const struct strentry	*e;

	TAILQ_FOREACH(e, &conf->api_allow_networks, entry)
		if (fnmatch(e->str, name, 0) == 0)
			return (1);
	return (0);
}

/*
 * The gate of an API workload: "allow from" and "deny from" only narrow
 * who reaches it, so they are the key holder's to set.  A password
 * file is the operator's: only one "api allow auth basic" names, read
 * with orchd.conf, never a path the key holder chose.  An auth service
 * is reached by gatewayd with the client's cookies: only one "api allow
 * auth request" names, exactly or under its prefix ending in a star.
 */
static int
policy_gate(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct strentry	*e;
	size_t			 n;

	if (wc->auth_basic != NULL) {
		TAILQ_FOREACH(e, &conf->api_allow_auth_basic, entry)
			if (strcmp(e->str, wc->auth_basic) == 0)
				break;
		if (e == NULL)
			return (deny(err, len, "api allow: auth basic \"%s\" "
			    "is no \"api allow auth basic\" of orchd.conf",
			    valid_text(wc->auth_basic) &&
			    strlen(wc->auth_basic) < 256 ? wc->auth_basic :
			    "?"));
	}
	if (wc->auth_request != NULL) {
		TAILQ_FOREACH(e, &conf->api_allow_auth_request, entry) {
			n = strlen(e->str);
			if (strcmp(e->str, wc->auth_request) == 0 ||
			    (n >= 2 && strcmp(e->str + n - 2, "/*") == 0 &&
			    strncmp(e->str, wc->auth_request, n - 1) == 0))
				break;
		}
		if (e == NULL)
			return (deny(err, len, "api allow: auth request \"%s\" "
			    "matches no \"api allow auth request\" of "
			    "orchd.conf", valid_text(wc->auth_request) &&
			    strlen(wc->auth_request) < 256 ? wc->auth_request :
			    "?"));
	}
	return (0);
}

/*
 * The limits the API may set: at most the operator's "api max" of each
 * (an API workload that sets none gets the default, never above it:
 * common/wlimits.c).  The keyword named is the rule broken.
 */
static int
policy_limit(const char *what, int64_t v, int64_t max, char *err,
    size_t len)
{
	char	 a[32], b[32];

	if (max == 0 || v <= max)
		return (0);
	if (strcmp(what, "cpu") == 0) {
		(void)fmt_cpu(v, a, sizeof(a));
		(void)fmt_cpu(max, b, sizeof(b));
	} else {
		(void)snprintf(a, sizeof(a), "%lld", (long long)v);
		(void)snprintf(b, sizeof(b), "%lld", (long long)max);
	}
	return (deny(err, len, "api max %s: %s %s is above the operator's "
	    "maximum %s (orchd.conf: api max %s)", what, what, a, b, what));
}

static int
policy_limits(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct wl_limits	*m = &conf->lim_max;

	if (policy_limit("cpu", wc->cpu, m->cpu, err, len) != 0 ||
	    policy_limit("cpu weight", wc->cpu_weight, m->cpu_weight, err,
	    len) != 0 ||
	    policy_limit("pids", wc->pids, m->pids, err, len) != 0 ||
	    policy_limit("io weight", wc->io_weight, m->io_weight, err,
	    len) != 0)
		return (403);
	return (0);
}

/*
 * What only orchd.conf may say, and only what "api allow" lets in.
 * "ignore" rules, the tunnel idle timeout and server timing are the
 * API's to set: they decide only which requests count as use of the
 * workload itself, and what its own answers carry; a rule's match costs
 * the gateway at most a pass of a short string per character of its
 * pattern (common/ignore.c), ORCHD_IGNORE_MAX rules at most.
 * The busy veto (busy path, max, fail) is the API's to set too: runtimed
 * asks the workload's own address, as for its health path, and a
 * workload that says it is busy runs at most busy max longer, less than
 * the keep warm the API may set already.
 * So is "publish", as "port" is: a port on the workload's own address.
 * A network of the operator's is not (policy_network_allowed).
 *
 * "pull" and "pull timeout" are the API's too.  An image is pulled only
 * if "api allow image" lets it in, and with the login orchd.conf gives
 * its registry, whoever names it: the key holder gains no image and no
 * registry the operator did not allow.  "pull always" makes each wake
 * ask the registry again, which costs the registry a manifest request
 * a wake (Docker fetches no layer it has); a long pull timeout holds the
 * workload's own requests longer, as a long wake timeout does.
 *
 * "expire_after" is the API's too: it only shortens or ends the life of
 * the API's own workload, which DELETE could end anyway.
 *
 * "upstream h2c" is the API's too: it is the protocol spoken to the
 * workload's own address, which gatewayd reaches either way, under the
 * same limits of streams and bytes as HTTP/1.1 to it.
 *
 * A TCP listener ("listen on") is not: the parent would bind the port
 * as root, so a key holder could open any port of the host, below 1024
 * or in front of another service's.
 *
 * Nor are network host, an address that is not loopback, a publish on
 * one or below 1024, or orchd's own ports as a target, unless "api
 * allow" says so (policy_net.c).  "user" never is: an API container
 * runs as the uid the parent gives it (config.c, identity.c), or with
 * "api allow root" as its image says.
 */
static int
policy_api(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct volume	*v;
	size_t			 i;

	if (wc->user != NULL)
		return (deny(err, len, "api: \"user\" is set in orchd.conf "
		    "only, never through the API"));
	if (wc->runtime != NULL)
		return (deny(err, len, "api: \"runtime\" is set in orchd.conf "
		    "only, never through the API"));
	if (wc->allow_root)
		return (deny(err, len, "api: \"allow_root\" is set in "
		    "orchd.conf only, never through the API"));
	/* a swarm service may land on any node the manager has */
	if (wc->driver == DRIVER_SWARM)
		return (deny(err, len, "api: driver swarm is set in "
		    "orchd.conf only, never through the API"));
	if (wc->socket_activation)
		return (deny(err, len, "api: \"socket_activation\" is set in "
		    "orchd.conf only, never through the API: orchd binds its "
		    "port"));
	/* any other field the table gives orchd.conf alone */
	for (i = 0; i < wl_nfields; i++)
		if ((wl_fields[i].flags & (WF_API | WF_PARENT)) == 0 &&
		    wl_field_given(wc, &wl_fields[i]))
			return (deny(err, len, "api: \"%s\" is set in "
			    "orchd.conf only, never through the API",
			    wl_fields[i].json));
	if (wc->driver == DRIVER_PROCESS && !conf->api_allow_process)
		return (deny(err, len, "api allow: process workloads are not "
		    "allowed through the API (orchd.conf: api allow "
		    "process)"));
	if (wc->image != NULL && !policy_image_allowed(conf, wc->image))
		return (deny(err, len, "api allow: image \"%s\" matches no "
		    "\"api allow image\" of orchd.conf", wc->image));
	TAILQ_FOREACH(v, &wc->volumes, entry)
		if ((wc->source == SOURCE_LABEL ? policy_label_bind(conf, v,
		    err, len) : policy_volume(conf, wc, v, err, len)) != 0)
			return (403);
	if (wc->network == NETWORK_NAMED &&
	    !policy_network_allowed(conf, wc->netname))
		return (deny(err, len, "api allow: network \"%s\" matches no "
		    "\"api allow network\" of orchd.conf", wc->netname));
	/* its network, address, port and where Docker publishes it */
	if (policy_api_net(conf, wc, err, len) == -1 ||
	    policy_api_listens(conf, wc, err, len) == -1)
		return (403);
	if (policy_gate(conf, wc, err, len) != 0)
		return (403);
	if (policy_limits(conf, wc, err, len) != 0)
		return (403);
	/*
	 * depends_on is the API's to set, on any workload: it wakes them
	 * and keeps them up, which the key holder could do anyway (wake,
	 * keepwarm); that the names are there, without a cycle, is for
	 * depends.c to say.  Health interval, timeout and failures are the
	 * API's to set too:
	 * workload_validate() bounds them, and a check costs runtimed one
	 * connection a second at most, to the workload's own address.
	 * "on change" is the API's to set: it decides only when its own
	 * workload takes its new definition, which the key holder could
	 * force anyway (suspend, wake).
	 */
	return (0);
}

/* what a labelled container's HostConfig may ask that no field says */
static const struct {
	uint32_t	 flag;
	const char	*what;
} policy_label_asks[] = {
	{ RT_LABEL_PRIVILEGED,	"privileged" },
	{ RT_LABEL_CAPS,	"capabilities added (cap_add)" },
	{ RT_LABEL_DEVICES,	"devices of the host" },
	{ RT_LABEL_NS_HOST,	"a namespace of the host or of another "
				"container (pid, ipc, uts, userns, "
				"volumes_from, links)" },
	{ RT_LABEL_SECURITY,	"security options" },
	{ RT_LABEL_MOUNTS,	"a mount that is not a bind (a named volume, "
				"whose place Docker decides)" },
	{ RT_LABEL_PORTS,	"a port published besides its org.orchd.port, "
				"or that port not published off the host's "
				"network" },
	{ RT_LABEL_NET,		"no network, or another container's" }
};

/*
 * A labelled container: "docker labels on", what runtimed read of it
 * (labels.c keeps it), none of what the API can never ask, and a uid
 * that is no daemon's and none orchd gives its own workloads, since
 * orchd gives it none: it runs as its maker said.  Root, or a user
 * known only by name or the image's, is root for all orchd can tell:
 * only with "api allow root".
 */
static int
policy_label(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct rt_label	*rl;
	struct passwd		*pw;
	size_t			 i;

	if (conf->docker_labels != 1)
		return (deny(err, len, "docker labels is off"));
	if ((rl = labels_facts(wc->name)) == NULL)
		return (deny(err, len, "no labelled container of that name "
		    "was seen"));
	for (i = 0; i < nitems(policy_label_asks); i++)
		if (rl->refuse & policy_label_asks[i].flag)
			return (deny(err, len, "its container asks for %s, "
			    "which the API never may", policy_label_asks[i].what));
	if ((rl->uid == -1 || rl->uid == 0) && !conf->api_allow_root)
		return (deny(err, len, "its container runs as root, or as a "
		    "user orchd cannot tell from root (none, or a name): "
		    "only with \"api allow root\"; else a numeric --user"));
	if (rl->uid <= 0)
		return (0);
	if (rl->uid >= conf->wl_uid_low && rl->uid <= conf->wl_uid_high)
		return (deny(err, len, "its container runs as uid %lld, of "
		    "the \"workload uids\" orchd gives its own workloads",
		    (long long)rl->uid));
	if ((pw = users_getpwnam(conf->user)) != NULL &&
	    (int64_t)pw->pw_uid == rl->uid)
		return (deny(err, len, "its container runs as uid %lld, "
		    "orchd's own user's", (long long)rl->uid));
	return (0);
}

/*
 * May wc run under conf?  0, or 403 with err naming the rule broken.
 * Every workload: no forbidden host path, no root where the rules
 * forbid it; one created through the API: the API's policy too.
 */
int
policy_check(const struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	const struct volume	*v;
	char			 why[CTL_MSG_MAX];
	size_t			 i;

	/* given by the parent in what it sends, never taken from outside */
	if (wc->run_uid != -1)
		return (deny(err, len, "\"run_uid\" is orchd's to give: "
		    "neither the API nor the store may set it"));
	for (i = 0; i < wl_nfields; i++)
		if ((wl_fields[i].flags & WF_GIVEN) &&
		    wl_field_given(wc, &wl_fields[i]))
			return (deny(err, len, "\"%s\" is orchd's to give: "
			    "neither the API nor the store may set it",
			    wl_fields[i].json));
	/* an API volume is a name: policy_api() says where it leads */
	if (wc->source != SOURCE_API)
		TAILQ_FOREACH(v, &wc->volumes, entry)
			if (hostpath_forbidden(v->host, conf, why,
			    sizeof(why)) == -1)
				return (deny(err, len, "volume: %s", why));
	if (wc->source == SOURCE_LABEL && policy_label(conf, wc, err,
	    len) != 0)
		return (403);
	if ((wc->source == SOURCE_API || wc->source == SOURCE_LABEL) &&
	    policy_api(conf, wc, err, len) != 0)
		return (403);
	if (workload_root_check(wc, why, sizeof(why)) == -1)
		return (deny(err, len, "%s", why));
	/* its password file was read with this configuration */
	if (wc->auth_basic != NULL &&
	    htfile_find(&conf->htfiles, wc->auth_basic) == NULL)
		return (deny(err, len, "auth basic \"%s\": not read with "
		    "orchd.conf", valid_text(wc->auth_basic) &&
		    strlen(wc->auth_basic) < 256 ? wc->auth_basic : "?"));
	return (0);
}

/*
 * Are API messages (create, delete) to be acted on?  Only when the
 * configuration has a key: without one gatewayd answers every API
 * request 401 itself, so a create or delete reaching us then comes from
 * a gateway that does not follow its own rules.  0, or 403 with err.
 */
int
policy_api_open(const struct orchd_conf *conf, char *err, size_t len)
{
	if (conf->api_key_set)
		return (0);
	return (deny(err, len, "the API is off: no api key is configured"));
}
