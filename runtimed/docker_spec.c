/*
 * The container a docker workload runs in, as the body of
 * POST /containers/create.  It is built here, field by field, from the
 * workload's checked definition and nothing else: no HostConfig or other
 * JSON from outside ever reaches the daemon, so no definition can ask for
 * a privileged container, added capabilities, devices or the host's PID
 * namespace.  A container of the API gives up capabilities besides
 * (spec_api_caps), and runs as the uid the parent chose (run_uid).
 *
 * The body is also what tells a container that is still right from one
 * to replace: its SHA-256, over the body with sorted keys, is kept in the
 * label org.orchd.hash.  Only what reaches Docker is hashed, not the whole
 * definition: changing a host name, the idle timeout or keep warm must
 * not cost a container its writable layer.  The uid the parent gives an
 * API container is hashed: the container of one made before it was given
 * (as root) is replaced at its next start, as "on change" says, and a
 * uid kept across restarts by the store keeps its hash.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "docker.h"
#include "units.h"
#include "workload.h"

/* the instance every container and network made here is labelled with */
static char	 dk_inst[ORCHD_INSTANCE_MAX] = "orchd";

void
dk_instance_set(const char *name)
{
	strlcpy(dk_inst, name, sizeof(dk_inst));
}

const char *
dk_instance(void)
{
	return (dk_inst);
}

/* the global limits ("cpu", "api max cpu" ...) and the host's CPUs */
static struct wl_limits	 dk_lim_dflt, dk_lim_max;
static int64_t		 dk_ncpu;

void
dk_limits_set(const struct wl_limits *dflt, const struct wl_limits *max,
    int64_t ncpu)
{
	dk_lim_dflt = *dflt;
	dk_lim_max = *max;
	dk_ncpu = ncpu;
}

/* what applies to wc (common/wlimits.c) */
void
dk_limits(const struct workload_conf *wc, struct wl_limits *out)
{
	limits_effective(&dk_lim_dflt, &dk_lim_max, wc, dk_ncpu, out);
}

/*
 * A container's limits, as docker run --cpus, --cpu-shares,
 * --pids-limit and --blkio-weight set them.  Docker refuses more CPUs
 * than the host has: lowered to them (dk_ncpu).  Without the blkio
 * weight in the kernel, Docker warns and drops it.
 */
static int
spec_limits(json_t *h, const struct workload_conf *wc)
{
	struct wl_limits	 l;
	int			 r = 0;

	dk_limits(wc, &l);
	if (l.cpu > 0)
		r |= json_object_set_new(h, "NanoCpus",
		    json_integer(l.cpu * 1000000));
	if (l.cpu_weight > 0)
		r |= json_object_set_new(h, "CpuShares",
		    json_integer(limits_v1_shares(l.cpu_weight)));
	if (l.pids > 0)
		r |= json_object_set_new(h, "PidsLimit", json_integer(l.pids));
	if (l.io_weight > 0)
		r |= json_object_set_new(h, "BlkioWeight",
		    json_integer(limits_v1_blkio(l.io_weight)));
	return (r);
}

/*
 * orchd-INSTANCE-NAME: two instances on one daemon never name the same
 * container, whatever their workloads are called.  Two pairs of names
 * can still meet (instance "a" and workload "b-c", instance "a-b" and
 * workload "c"): the labels, not the name, say whose it is.
 */
void
dk_container_name(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s-%s", DK_NAME_PREFIX, dk_inst, name);
}

/*
 * A swarm service is shared by the instances that use the swarm
 * (swarm_agree.c): its name is the workload's alone.
 */
void
dk_service_name(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", DK_NAME_PREFIX, name);
}

/*
 * Are a container's labels those of workload name of this instance?  0
 * if so; else -1 and, in err, whose it is.  A container made by an
 * orchd older than instance labels has the workload's label and no
 * instance's: it is nobody's here (orchd-workload.7, Upgrades).
 */
int
dk_labels_ours(json_t *labels, const char *name, char *err, size_t len)
{
	const char	*owner, *inst;

	owner = json_string_value(json_object_get(labels, DK_LABEL_WORKLOAD));
	inst = json_string_value(json_object_get(labels, DK_LABEL_INSTANCE));
	if (owner == NULL)
		snprintf(err, len, "not orchd's (no label %s)",
		    DK_LABEL_WORKLOAD);
	else if (inst == NULL)
		snprintf(err, len, "made by an older orchd, of no instance "
		    "(no label %s)", DK_LABEL_INSTANCE);
	else if (strcmp(inst, dk_inst) != 0)
		snprintf(err, len, "orchd instance %.64s's, not this one's "
		    "(%s)", inst, dk_inst);
	else if (strcmp(owner, name) != 0)
		snprintf(err, len, "workload %.64s's, not %s's", owner, name);
	else
		return (0);
	return (-1);
}

/*
 * The inspect of the container named for workload name: 0 and its id if
 * its labels say it is that workload's, else -1 and why in err.
 */
int
dk_inspected_ours(const struct dk_resp *r, const char *name, char *id,
    size_t idlen, char *err, size_t errlen)
{
	json_error_t	 jerr;
	json_t		*o;
	const char	*s;
	char		 whose[RT_MSG_MAX / 2];
	int		 rv = -1;

	if ((o = json_loadb(r->body, r->len, 0, &jerr)) == NULL ||
	    (s = json_string_value(json_object_get(o, "Id"))) == NULL ||
	    strlcpy(id, s, idlen) >= idlen)
		(void)snprintf(err, errlen, "inspect: bad answer");
	else if (dk_labels_ours(json_object_get(json_object_get(o, "Config"),
	    "Labels"), name, whose, sizeof(whose)) == -1)
		(void)snprintf(err, errlen, "its container is %s", whose);
	else
		rv = 0;
	json_decref(o);
	return (rv);
}

/*
 * A labelled container ("docker labels on"): one carrying org.orchd.host
 * that no orchd made (no workload's label), and that names no instance
 * or this one (org.orchd.instance): another instance's is never taken.
 * 0 if so; else -1 and, in err, why not.
 */
int
dk_labels_theirs(json_t *labels, char *err, size_t len)
{
	const char	*inst;

	inst = json_string_value(json_object_get(labels, DK_LABEL_INSTANCE));
	if (json_object_get(labels, DK_LABEL_HOST) == NULL)
		snprintf(err, len, "not labelled (no label %s)",
		    DK_LABEL_HOST);
	else if (inst != NULL && strcmp(inst, dk_inst) != 0)
		snprintf(err, len, "labelled for orchd instance %.64s, not "
		    "this one (%s)", valid_text(inst) && strlen(inst) < 64 ?
		    inst : "?", DK_LABEL_INSTANCE);
	else if (json_object_get(labels, DK_LABEL_WORKLOAD) != NULL)
		snprintf(err, len, "made by an orchd (label %s)",
		    DK_LABEL_WORKLOAD);
	else
		return (0);
	return (-1);
}

/*
 * command: split as sh(1) would, and no shell runs it, as the array key
 * ("Cmd" for a container, "Args" for a service's task)
 */
int
dk_spec_argv(json_t *o, const char *key, const char *command, char *err,
    size_t errlen)
{
	json_t	*a;
	char	**argv;
	size_t	 i;
	int	 r = 0;

	if (command == NULL)
		return (0);
	if (split_command(command, &argv, err, errlen) == -1)
		return (-1);
	if ((a = json_array()) == NULL) {
		free_argv(argv);
		return (-1);
	}
	for (i = 0; argv[i] != NULL; i++)
		r |= json_array_append_new(a, json_string(argv[i]));
	free_argv(argv);
	r |= json_object_set_new(o, key, a);
	if (r != 0)
		snprintf(err, errlen, "out of memory");
	return (r != 0 ? -1 : 0);
}

/*
 * A volume's bind, "HOST:CONTAINER": orchd.conf's host path as written,
 * or for the API, the directory the parent makes for it under the
 * volume root, ROOT/WORKLOAD/NAME (orchd/voldir.c).  NULL if it has
 * none.
 */
static char *
spec_bind(const struct workload_conf *wc, const struct volume *v,
    const char *volroot)
{
	char	 host[ORCHD_VOLROOT_MAX], *bind;

	if (wc->source != SOURCE_API)
		(void)strlcpy(host, v->host, sizeof(host));
	else if (volume_api_path(volroot, wc->name, v->host, host,
	    sizeof(host)) == -1)
		return (NULL);
	if (asprintf(&bind, "%s:%s", host, v->container) == -1)
		return (NULL);
	return (bind);
}

/*
 * An API container is code nobody reviewed: it keeps none of Docker's
 * default capabilities it does not need.  Run as the uid the parent gave
 * it, its process has no capability at all (a uid other than 0 starts
 * with an empty effective set); what the bounding set still holds only a
 * set-user-ID or file-capability program of its image could take up,
 * so all of them go, and no-new-privileges keeps such a program from
 * gaining anything else.  Run as its image's user ("api allow root"),
 * it keeps what images that start as root and then step down need:
 * CHOWN, DAC_OVERRIDE, FOWNER, FSETID, SETUID, SETGID, SETPCAP, KILL,
 * NET_BIND_SERVICE and SYS_CHROOT.  NET_RAW goes (raw sockets: forged
 * packets and ARP on the bridge), as do MKNOD (device nodes), AUDIT_WRITE
 * (the host's audit log) and SETFCAP (capabilities on files): no web
 * service uses them.
 */
static int
spec_api_caps(json_t *h, const struct workload_conf *wc)
{
	int	 r = 0;

	if (wc->user == NULL && wc->run_uid != -1) {
		r |= json_object_set_new(h, "CapDrop",
		    json_pack("[s]", "ALL"));
		r |= json_object_set_new(h, "SecurityOpt",
		    json_pack("[s]", "no-new-privileges"));
		return (r);
	}
	r |= json_object_set_new(h, "CapDrop", json_pack("[s, s, s, s]",
	    "NET_RAW", "MKNOD", "AUDIT_WRITE", "SETFCAP"));
	return (r);
}

static json_t *
spec_host(const struct workload_conf *wc, const char *volroot,
    const char *port, const char *hostport)
{
	const struct volume	*v;
	json_t			*h, *binds, *pb;
	char			*bind;
	int			 r = 0;

	if ((h = json_object()) == NULL)
		return (NULL);
	if (wc->memory > 0)
		r |= json_object_set_new(h, "Memory",
		    json_integer(wc->memory));
	r |= spec_limits(h, wc);
	if (wc->runtime != NULL)
		r |= json_object_set_new(h, "Runtime",
		    json_string(wc->runtime));
	if (!TAILQ_EMPTY(&wc->volumes)) {
		/* set first: freed with h whatever happens next */
		if ((binds = json_array()) == NULL ||
		    json_object_set_new(h, "Binds", binds) == -1)
			r = -1;
		else
			TAILQ_FOREACH(v, &wc->volumes, entry) {
				if ((bind = spec_bind(wc, v,
				    volroot)) == NULL) {
					r = -1;
					break;
				}
				r |= json_array_append_new(binds,
				    json_string(bind));
				free(bind);
			}
	}
	if (wc->network == NETWORK_HOST)
		r |= json_object_set_new(h, "NetworkMode",
		    json_string("host"));
	else if (wc->network == NETWORK_NAMED)
		r |= json_object_set_new(h, "NetworkMode",
		    json_string(wc->netname));
	/* a job (run once) has no port: nothing published */
	if (wc->network != NETWORK_HOST && wc->port != 0) {
		/* published where the gateway looks for it, and only there */
		pb = json_pack("{s:[{s:s, s:s}]}", port, "HostIp",
		    wc->address, "HostPort", hostport);
		if (pb == NULL)
			r = -1;
		else
			r |= json_object_set_new(h, "PortBindings", pb);
	}
	if (wc->source == SOURCE_API)
		r |= spec_api_caps(h, wc);
	/* an exit is noticed and the next request starts it again */
	r |= json_object_set_new(h, "RestartPolicy",
	    json_pack("{s:s}", "Name", "no"));
	/*
	 * Docker's init (tini) as process 1, unless turned off: the kernel
	 * drops signals a namespace's init does not handle, so a server
	 * that is process 1 and ignores SIGTERM would make every stop wait
	 * its full timeout.  Said either way: the daemon's default
	 * (daemon.json "init") must not decide what the hash means.
	 */
	r |= json_object_set_new(h, "Init", json_boolean(wc->init != 0));
	if (r != 0) {
		json_decref(h);
		return (NULL);
	}
	return (h);
}

/*
 * On a network of the operator's, the workload's name is the
 * container's name there too: its peers reach it by that name.
 */
static int
spec_network(json_t *o, const struct workload_conf *wc)
{
	json_t	*ep;

	if (wc->network != NETWORK_NAMED)
		return (0);
	if ((ep = json_pack("{s:{s:{s:[s]}}}", "EndpointsConfig", wc->netname,
	    "Aliases", wc->name)) == NULL)
		return (-1);
	return (json_object_set_new(o, "NetworkingConfig", ep));
}

/*
 * The create body for wc, without its hash label; volroot is where the
 * API's volumes are ("api allow volume").  NULL with the reason in err
 * if it cannot be built.
 */
json_t *
dk_spec(const struct workload_conf *wc, const char *volroot, char *err,
    size_t errlen)
{
	json_t	*o, *host;
	char	 port[16], hostport[8], user[32];
	int	 r = 0;

	if (wc->image == NULL) {
		snprintf(err, errlen, "no image");
		return (NULL);
	}
	if (wc->source == SOURCE_API && !TAILQ_EMPTY(&wc->volumes) &&
	    (volroot == NULL || volroot[0] != '/')) {
		snprintf(err, errlen, "its volumes: no \"api allow volume\"");
		return (NULL);
	}
	snprintf(port, sizeof(port), "%u/tcp", wc->port);
	snprintf(hostport, sizeof(hostport), "%u",
	    workload_upstream_port(wc));
	if ((o = json_object()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	r |= json_object_set_new(o, "Image", json_string(wc->image));
	if (dk_spec_argv(o, "Cmd", wc->command, err, errlen) == -1 ||
	    dk_spec_argv(o, "Entrypoint", wc->entrypoint, err, errlen) ==
	    -1) {
		json_decref(o);
		return (NULL);
	}
	if (!TAILQ_EMPTY(&wc->env))
		r |= json_object_set_new(o, "Env", strlist_to_json(&wc->env));
	if (wc->user != NULL)
		r |= json_object_set_new(o, "User", json_string(wc->user));
	else if (wc->run_uid != -1) {
		/* the parent's choice for an API container: uid and gid */
		snprintf(user, sizeof(user), "%lld:%lld",
		    (long long)wc->run_uid, (long long)wc->run_uid);
		r |= json_object_set_new(o, "User", json_string(user));
	}
	if (wc->directory != NULL)
		r |= json_object_set_new(o, "WorkingDir",
		    json_string(wc->directory));
	r |= json_object_set_new(o, "Labels", json_pack("{s:s, s:s}",
	    DK_LABEL_WORKLOAD, wc->name, DK_LABEL_INSTANCE, dk_inst));
	/* unset: the image's STOPSIGNAL, else SIGTERM, as docker run does */
	if (wc->stop_signal != 0)
		r |= json_object_set_new(o, "StopSignal",
		    json_string(signal_name(wc->stop_signal)));
	/* what a docker stop by hand, or the daemon's own shutdown, waits */
	if (wc->stop_timeout != -1)
		r |= json_object_set_new(o, "StopTimeout",
		    json_integer(wc->stop_timeout));
	/* not a terminal: the logs keep stdout and stderr apart */
	r |= json_object_set_new(o, "Tty", json_false());
	r |= json_object_set_new(o, "OpenStdin", json_false());
	if (wc->network != NETWORK_HOST && wc->port != 0)
		r |= json_object_set_new(o, "ExposedPorts",
		    json_pack("{s:{}}", port));
	if ((host = spec_host(wc, volroot, port, hostport)) == NULL)
		r = -1;
	else
		r |= json_object_set_new(o, "HostConfig", host);
	r |= spec_network(o, wc);
	if (r != 0) {
		snprintf(err, errlen, "out of memory");
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/* the spec's hash, in hex, then put in its labels */
int
dk_spec_hash(json_t *spec, char *buf, size_t len)
{
	char	 hex[SHA256_DIGEST_STRING_LENGTH];
	char	*s;

	if (len < sizeof(hex) ||
	    (s = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS)) == NULL)
		return (-1);
	SHA256Data((const uint8_t *)s, strlen(s), hex);
	free(s);
	strlcpy(buf, hex, len);
	return (json_object_set_new(json_object_get(spec, "Labels"),
	    DK_LABEL_HASH, json_string(hex)));
}
