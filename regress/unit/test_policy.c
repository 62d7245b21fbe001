/*
 * The trust rules (orchd/trust.c), the parent's policy (orchd/policy.c)
 * and the parent's handler of the API's messages (orchd/parent_api.c)
 * with no key configured: refused, answered, nothing queued and nothing
 * sent to the store.  The handler runs against real imsg channels on socket
 * pairs; what parent_api.c calls that this test must never reach (a new
 * configuration, logs, the control socket) fails the test if called.
 * And the parent's checks of "depends on" across the file's and the
 * API's workloads (orchd/depends.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event.h>

#include "compat.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "../../orchd/parent.h"
#include "conf.h"

/*
 * What orchd/parent_api.c links against beyond this test's objects: none of it
 * may run here.
 */
struct orchd	*orchd_env;

void
config_send(struct orchd *env)
{
	fail_msg("config_send called");
}

void
logs_start(const struct proc_asker *a, const struct ctl_logs *cl)
{
	fail_msg("logs_start called");
}

void
apikey_send(struct orchd *env)
{
	fail_msg("apikey_send called");
}

int
spawner_running(void)
{
	fail_msg("spawner_running called");
	return (0);
}

pid_t
spawner_pid(void)
{
	fail_msg("spawner_pid called");
	return (-1);
}

/* an API workload's listeners: none bound here (orchd/api_listen.c) */
int
api_listen_bind(struct orchd_conf *conf, const struct workload_conf *wc,
    char *err, size_t len)
{
	return (0);
}

void
api_listen_drop(struct orchd_conf *conf, const char *name)
{
}

void
api_listen_move(struct orchd_conf *nconf, struct orchd_conf *oconf,
    const char *name)
{
}

/* a delete with its volumes: none here (spawnerd/volrm.c) */
pid_t
spawner_volrm(const struct sp_volrm *r)
{
	fail_msg("spawner_volrm called");
	return (-1);
}

int
identity_find(const char *name, uid_t *uidp)
{
	return (-1);
}

void
instance_name(const struct orchd_conf *conf, char *buf, size_t len)
{
	(void)strlcpy(buf, "test", len);
}

void
hook_expired(struct orchd *env, const char *name, int64_t secs)
{
	fail_msg("hook_expired called");
}

/* an empty configuration with orchd's own files where they often are */
static void
conf_files(struct orchd_conf *c)
{
	conf_init(c);
	c->conffile = "/usr/local/etc/orchd.conf";
	c->database = "/var/db/orchd/orchd.db";
	c->logdir = "/var/log/orchd";
	c->docker_socket = "/srv/docker/docker.sock";
	c->api_key_file = "/usr/local/etc/orchd/api.key";
}

static void
conf_clear(struct orchd_conf *c)
{
	strlist_free(&c->api_allow_images);
	strlist_free(&c->api_allow_volumes);
	strlist_free(&c->api_allow_networks);
	strlist_free(&c->api_allow_addresses);
	strlist_free(&c->api_allow_publish);
}

/*
 * Paths.
 */

static void
test_normalize(void **state)
{
	static const struct {
		const char	*in;
		const char	*out;	/* NULL: refused */
	} cases[] = {
		{ "/", "/" },
		{ "//", "/" },
		{ "/./", "/" },
		{ "/a//b/./c/", "/a/b/c" },
		{ "/a/..b/c..", "/a/..b/c.." },
		{ "/srv/previews/", "/srv/previews" },
		{ "/a/../b", NULL },
		{ "/..", NULL },
		{ "/a/..", NULL },
		{ "a/b", NULL },
		{ "", NULL },
	};
	char	 out[PATH_MAX], why[256];
	size_t	 i;
	int	 r;

	for (i = 0; i < nitems(cases); i++) {
		why[0] = '\0';
		r = hostpath_normalize(cases[i].in, out, sizeof(out), why,
		    sizeof(why));
		if (cases[i].out == NULL) {
			if (r != -1)
				fail_msg("%s: accepted as %s", cases[i].in,
				    out);
			assert_non_null(strstr(why, "host path"));
		} else {
			if (r != 0)
				fail_msg("%s: %s", cases[i].in, why);
			assert_string_equal(out, cases[i].out);
		}
	}
	assert_int_equal(hostpath_normalize("/abc", out, 4, NULL, 0), -1);
	assert_int_equal(hostpath_normalize("/ab", out, 4, NULL, 0), 0);
}

static void
test_forbidden(void **state)
{
	static const struct {
		const char	*path;
		const char	*why;	/* NULL: allowed */
	} cases[] = {
		{ "/", "is / (the whole host)" },
		{ "//./", "is / (the whole host)" },
		{ "/etc", "is /etc (a system directory)" },
		{ "/etc/ssl", "lies under /etc" },
		{ "/proc/1", "lies under /proc" },
		{ "/sys", "is /sys" },
		{ "/dev/sda", "lies under /dev" },
		{ "/boot", "is /boot" },
		{ "/run/user", "lies under /run" },
		{ "/var", "contains /var/run" },
		{ "/var/run/docker.sock", "lies under /var/run" },
		{ "/srv/docker", "contains /srv/docker/docker.sock (the docker "
		    "socket)" },
		{ "/srv/docker/docker.sock", "is /srv/docker/docker.sock" },
		{ "/var/db", "contains /var/db/orchd (the database's "
		    "directory)" },
		{ "/var/db/orchd/x", "lies under /var/db/orchd" },
		{ "/var/log/orchd", "is /var/log/orchd (the log directory)" },
		{ "/var/log", "contains /var/log/orchd" },
		{ "/usr/local/etc", "the configuration file's directory" },
		{ "/usr/local", "contains /usr/local/etc" },
		{ "/usr/local/etc/orchd/keys", "lies under /usr/local/etc" },
		{ "/usr/local/etc/../../etc", "\"..\" is not allowed" },
		{ "relative", "must be absolute" },
		{ "/etcetera", NULL },
		{ "/devices", NULL },
		{ "/srv/previews/a", NULL },
		{ "/srv/dockerx", NULL },
		{ "/var/lib/previews", NULL },
		{ "/var/log/other", NULL },
		{ "/home/preview", NULL },
	};
	struct orchd_conf	 conf;
	char			 why[1024];
	size_t			 i;
	int			 r;

	conf_files(&conf);
	for (i = 0; i < nitems(cases); i++) {
		why[0] = '\0';
		r = hostpath_forbidden(cases[i].path, &conf, why, sizeof(why));
		if (cases[i].why == NULL && r != 0)
			fail_msg("%s: refused: %s", cases[i].path, why);
		if (cases[i].why != NULL && (r != -1 ||
		    strstr(why, cases[i].why) == NULL))
			fail_msg("%s: expected \"%s\", got %d \"%s\"",
			    cases[i].path, cases[i].why, r, why);
	}
	/* without a configuration: the system directories alone */
	assert_int_equal(hostpath_forbidden("/var/db", NULL, NULL, 0), 0);
	assert_int_equal(hostpath_forbidden("/var", NULL, NULL, 0), -1);
}

/* a link is followed: where it leads counts too */
static void
test_forbidden_link(void **state)
{
	struct orchd_conf	 conf;
	char			 dir[] = "/tmp/orchd-policy.XXXXXX";
	char			 link1[PATH_MAX], link2[PATH_MAX];
	char			 why[1024];

	conf_files(&conf);
	assert_non_null(mkdtemp(dir));
	snprintf(link1, sizeof(link1), "%s/root", dir);
	snprintf(link2, sizeof(link2), "%s/etc", dir);
	assert_int_equal(symlink("/", link1), 0);
	assert_int_equal(symlink("/etc/ssl", link2), 0);

	assert_int_equal(hostpath_forbidden(link1, &conf, why, sizeof(why)),
	    -1);
	assert_non_null(strstr(why, "is / (the whole host)"));
	assert_int_equal(hostpath_forbidden(link2, &conf, why, sizeof(why)),
	    -1);
	assert_non_null(strstr(why, "(resolved: /etc/ssl) lies under /etc"));
	assert_int_equal(hostpath_forbidden(dir, &conf, why, sizeof(why)), 0);

	unlink(link1);
	unlink(link2);
	rmdir(dir);
}

/*
 * Root.
 */

static void
test_root(void **state)
{
	static const char *const root[] = {
		"root", "0", "00", "root:root", "0:0", "0:1000", "root:staff",
		"1000:0", "app:root"
	};
	static const char *const notroot[] = {
		"app", "1000", "1000:1000", "rootless", "0x0", "10", "app:",
		"_docs"
	};
	struct workload_conf	*wl;
	char			 why[256];
	size_t			 i;

	for (i = 0; i < nitems(root); i++)
		if (!user_is_root(root[i]))
			fail_msg("%s: not root", root[i]);
	for (i = 0; i < nitems(notroot); i++)
		if (user_is_root(notroot[i]))
			fail_msg("%s: root", notroot[i]);
	assert_false(user_is_root(NULL));

	assert_non_null(wl = workload_new("a"));
	assert_int_equal(workload_root_check(wl, why, sizeof(why)), 0);
	assert_non_null(wl->user = strdup("root"));
	assert_int_equal(workload_root_check(wl, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "a process workload never runs as root"));
	wl->allow_root = 1;	/* no help to a process */
	assert_int_equal(workload_root_check(wl, why, sizeof(why)), -1);
	wl->allow_root = 0;
	wl->driver = DRIVER_DOCKER;
	assert_int_equal(workload_root_check(wl, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "only with \"allow root\""));
	wl->allow_root = 1;
	assert_int_equal(workload_root_check(wl, why, sizeof(why)), 0);
	workload_free(wl);
}

/* allow_root goes to the children, in the JSON form */
static void
test_allow_root_json(void **state)
{
	const char		*text = "{\"name\": \"r\", \"hosts\": "
	    "[\"r.test\"], \"driver\": \"docker\", \"image\": \"x\", "
	    "\"user\": \"0\", \"allow_root\": true, \"port\": 1}";
	struct workload_conf	*wl, *back, *packed;
	char			*json, err[256];

	assert_non_null(wl = workload_from_json(text, strlen(text), err,
	    sizeof(err)));
	assert_true(wl->allow_root);
	assert_non_null(packed = workload_pack(wl));
	assert_true(packed->allow_root);
	assert_non_null(json = workload_to_json(wl));
	assert_non_null(strstr(json, "\"allow_root\":true"));
	assert_non_null(back = workload_from_json(json, strlen(json), err,
	    sizeof(err)));
	assert_true(back->allow_root);
	free(json);
	workload_free(back);
	workload_free(packed);
	/* not said when not set */
	wl->allow_root = 0;
	assert_non_null(json = workload_to_json(wl));
	assert_null(strstr(json, "allow_root"));
	free(json);
	workload_free(wl);

	/* a process workload has no use for it */
	text = "{\"name\": \"p\", \"hosts\": [\"p.test\"], \"command\": "
	    "\"/bin/true\", \"allow_root\": true, \"port\": 1}";
	assert_null(workload_from_json(text, strlen(text), err,
	    sizeof(err)));
	assert_non_null(strstr(err, "allow root is only for driver docker"));
}

/*
 * The parent's policy.
 */

static struct workload_conf *
wl_json(const char *text, enum workload_source source)
{
	struct workload_conf	*wl;
	char			 err[256];

	if ((wl = workload_from_json(text, strlen(text), err,
	    sizeof(err))) == NULL)
		fail_msg("%s: %s", text, err);
	wl->source = source;
	return (wl);
}

static void
test_policy(void **state)
{
	static const struct {
		const char	*json;
		int		 api;		/* from the API */
		int		 process;	/* api allow process */
		const char	*why;		/* NULL: allowed */
	} cases[] = {
#define D(more)	"{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": " \
		"\"docker\", \"image\": \"registry.example.com/app:1\", " \
		"\"port\": 8080" more "}"
#define P(more)	"{\"name\": \"p\", \"hosts\": [\"p.test\"], \"command\": " \
		"\"/bin/true\", \"port\": 1" more "}"
#define VOL(p)	", \"volumes\": [{\"host\": \"" p "\", \"container\": \"/x\"}]"
		{ D(""), 1, 0, NULL },
		/* the API names volumes, orchd makes them under its root */
		{ D(VOL("a")), 1, 0, NULL },
		{ D(VOL("data.1_x-y")), 1, 0, NULL },
		{ D(VOL("/srv/previews/a")), 1, 0, "must be a name" },
		{ D(VOL("/srv/previews//a/./b")), 1, 0, "must be a name" },
		{ D(VOL("/srv/previews")), 1, 0, "must be a name" },
		{ D(VOL("a/b")), 1, 0, "must be a name" },
		{ D(VOL("../x")), 1, 0, "must be a name" },
		{ D(VOL("..")), 1, 0, "must be a name" },
		{ D(VOL(".")), 1, 0, "must be a name" },
		{ D(VOL("a b")), 1, 0, "must be a name" },
		{ D(VOL("0123456789012345678901234567890123456789012345678901"
		    "234567890123")), 1, 0, "must be a name" },
		{ D(VOL("/")), 1, 0, "must be a name" },
		{ D(VOL("/var/run/docker.sock")), 1, 0, "must be a name" },
		/* orchd.conf's are host paths */
		{ D(VOL("a")), 0, 0, "must be absolute" },
		{ D(VOL("/etc")), 0, 0, "is /etc" },
		{ D(VOL("/srv/x")), 0, 0, NULL },
		{ D(", \"user\": \"root\""), 1, 0, "\"user\" is set in "
		    "orchd.conf only" },
		{ D(", \"user\": \"1000\""), 1, 0, "\"user\" is set in "
		    "orchd.conf only" },
		{ D(", \"runtime\": \"runc\""), 1, 0, "\"runtime\"" },
		{ D(", \"user\": \"0\", \"allow_root\": true"), 1, 0,
		    "\"user\"" },
		{ D(", \"allow_root\": true"), 1, 0, "\"allow_root\"" },
		{ D(", \"user\": \"0:0\""), 0, 0, "only with \"allow root\"" },
		{ D(", \"user\": \"0:0\", \"allow_root\": true"), 0, 0, NULL },
		{ "{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": "
		    "\"docker\", \"image\": \"evil.example.com/app:1\", "
		    "\"port\": 1}", 1, 0, "image \"evil.example.com/app:1\" "
		    "matches no" },
		{ "{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": "
		    "\"docker\", \"image\": \"evil.example.com/app:1\", "
		    "\"port\": 1}", 0, 0, NULL },
		{ P(""), 1, 0, "api allow: process workloads are not allowed "
		    "through the API (orchd.conf: api allow process)" },
		{ P(""), 1, 1, NULL },
		{ P(""), 0, 0, NULL },
		{ P(", \"user\": \"root\""), 1, 1, "\"user\"" },
		{ P(", \"user\": \"root\""), 0, 0, "never runs as root" },
		/* what counts as use of its own workload: the API's to say */
		{ D(", \"ignore\": [{\"path\": \"/up\"}, {\"from\": "
		    "\"0.0.0.0/0\", \"answer\": 200}], \"tunnel_idle_timeout\": "
		    "\"30m\", \"server_timing\": false"), 1, 0, NULL },
		/* a network shared with others: only those orchd.conf lets in */
		{ D(", \"network\": \"pr-7\""), 1, 0, NULL },
		{ D(", \"network\": \"pr-7\", \"publish\": 9000"), 1, 0,
		    NULL },
		{ D(", \"network\": \"prod\""), 1, 0, "api allow: network "
		    "\"prod\" matches no \"api allow network\" of orchd.conf" },
		{ D(", \"network\": \"xpr-7\""), 1, 0, "network \"xpr-7\"" },
		{ D(", \"network\": \"prod\""), 0, 0, NULL },
		{ D(", \"network\": \"bridge\""), 1, 0, NULL },
		/* when its image is pulled, and for how long: the API's */
		{ D(", \"pull\": \"always\", \"pull_timeout\": \"20m\""), 1, 0,
		    NULL },
		{ D(", \"pull\": \"never\""), 1, 0, NULL },
		/* a swarm service: orchd.conf's alone, it lands anywhere */
		{ "{\"name\": \"s\", \"hosts\": [\"s.test\"], \"driver\": "
		    "\"swarm\", \"image\": \"registry.example.com/app:1\", "
		    "\"port\": 1}", 1, 0, "driver swarm is set in orchd.conf "
		    "only" },
		{ "{\"name\": \"s\", \"hosts\": [\"s.test\"], \"driver\": "
		    "\"swarm\", \"image\": \"registry.example.com/app:1\", "
		    "\"port\": 1}", 0, 0, NULL },
		/* a TCP listener: where a published port may be */
		{ D(", \"listen\": [\"127.0.0.1:5432\"]"), 1, 0, NULL },
		{ D(", \"listen\": [\"[::1]:5432\"]"), 1, 0, NULL },
		{ P(", \"listen\": [\"*:2222\"]"), 1, 1, "must be numeric" },
		{ P(", \"listen\": [\"localhost:2222\"]"), 1, 1,
		    "must be numeric" },
		{ D(", \"listen\": [\"127.0.0.1:22\"]"), 1, 0,
		    "api allow publish port" },
		{ D(", \"listen\": [\"0.0.0.0:5432\"]"), 1, 0,
		    "api allow publish" },
		{ D(", \"listen\": [\"10.0.0.1:5432\"]"), 1, 0,
		    "api allow publish" },
		{ D(", \"listen\": [\"127.0.0.2:8080\"]"), 1, 0,
		    "the workload itself is reached there" },
		{ D(", \"listen\": [\"127.0.0.1:5432\"]"), 0, 0, NULL },
		/* a file read for orchd's own pages: orchd.conf's alone */
		{ D(", \"error_pages\": [\"503 /etc/shadow\"]"), 1, 0,
		    "\"error_pages\" is set in orchd.conf only" },
		{ P(", \"error_pages\": [\"404 /etc/passwd\"]"), 1, 1,
		    "\"error_pages\"" },
		{ D(", \"error_pages\": [\"503 /etc/shadow\"]"), 0, 0, NULL },
		/* limits: the API's within "api max", orchd.conf's any */
		{ D(", \"cpu\": 1, \"pids\": 512"), 1, 0, NULL },
		{ D(", \"cpu\": 1.001"), 1, 0, "api max cpu: cpu 1.001 is "
		    "above the operator's maximum 1" },
		{ D(", \"pids\": 513"), 1, 0, "api max pids: pids 513" },
		{ P(", \"cpu\": \"2\""), 1, 1, "api max cpu" },
		{ D(", \"cpu_weight\": 10000, \"io_weight\": 10000"), 1, 0,
		    NULL },
		{ D(", \"cpu\": 8, \"pids\": 100000"), 0, 0, NULL },
#undef D
#undef P
#undef VOL
	};
	struct orchd_conf	 conf;
	struct workload_conf	*wl;
	char			 err[CTL_MSG_MAX];
	size_t			 i;
	int			 r;

	conf_files(&conf);
	assert_int_equal(strlist_add(&conf.api_allow_images,
	    "registry.example.com/*"), 0);
	assert_int_equal(strlist_add(&conf.api_allow_volumes,
	    "/srv/previews"), 0);
	assert_int_equal(strlist_add(&conf.api_allow_networks, "pr-*"), 0);
	conf.lim_max.cpu = 1000;
	conf.lim_max.pids = 512;
	for (i = 0; i < nitems(cases); i++) {
		wl = wl_json(cases[i].json, cases[i].api ? SOURCE_API :
		    SOURCE_CONFIG);
		conf.api_allow_process = cases[i].process;
		err[0] = '\0';
		r = policy_check(&conf, wl, err, sizeof(err));
		if (cases[i].why == NULL && r != 0)
			fail_msg("case %zu: refused: %s", i, err);
		if (cases[i].why != NULL && (r != 403 ||
		    strstr(err, cases[i].why) == NULL))
			fail_msg("case %zu: expected 403 \"%s\", got %d "
			    "\"%s\"", i, cases[i].why, r, err);
		workload_free(wl);
	}

	/* no api allow image: any image */
	strlist_free(&conf.api_allow_images);
	wl = wl_json("{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": "
	    "\"docker\", \"image\": \"anything:1\", \"port\": 8080}",
	    SOURCE_API);
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 0);
	/* no api allow volume: no volume from the API */
	strlist_free(&conf.api_allow_volumes);
	workload_free(wl);
	wl = wl_json("{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": "
	    "\"docker\", \"image\": \"x\", \"volumes\": [{\"host\": "
	    "\"a\", \"container\": \"/x\"}], \"port\": 1}",
	    SOURCE_API);
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 403);
	assert_non_null(strstr(err, "not allowed through the API"));
	workload_free(wl);
	/* no api allow network: no network of the operator's from the API */
	strlist_free(&conf.api_allow_networks);
	wl = wl_json("{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": "
	    "\"docker\", \"image\": \"x\", \"network\": \"pr-7\", "
	    "\"port\": 1}", SOURCE_API);
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 403);
	workload_free(wl);
	conf_clear(&conf);
}

/*
 * A labelled container's workload ("docker labels on"): judged as the
 * API's, no bind taken (the roots hold the API's volumes), with what its
 * HostConfig asks besides (struct rt_label, orchd/labelfacts.c)
 */
static void
test_label(void **state)
{
	static const struct {
		const char	*json;
		uint32_t	 refuse;	/* RT_LABEL_* */
		int64_t		 uid;
		const char	*why;		/* NULL: allowed */
	} cases[] = {
#define L(more)	"{\"name\": \"l\", \"hosts\": [\"l.test\"], \"driver\": " \
		"\"docker\", \"image\": \"registry.example.com/app:1\", " \
		"\"port\": 8080" more "}"
#define VOL(p)	", \"volumes\": [{\"host\": \"" p "\", \"container\": \"/x\"}]"
		{ L(""), 0, 4242, NULL },
		{ L(""), RT_LABEL_PRIVILEGED, 4242, "privileged" },
		{ L(""), RT_LABEL_CAPS, 4242, "capabilities" },
		{ L(""), RT_LABEL_DEVICES, 4242, "devices" },
		{ L(""), RT_LABEL_NS_HOST, 4242, "namespace" },
		{ L(""), RT_LABEL_SECURITY, 4242, "security options" },
		{ L(""), RT_LABEL_MOUNTS, 4242, "not a bind" },
		{ L(""), RT_LABEL_PORTS, 4242, "published" },
		{ L(""), RT_LABEL_NET, 4242, "network" },
		{ L(""), 0, 0, "api allow root" },
		{ L(""), 0, -1, "api allow root" },
		{ L(""), 0, 61200, "workload uids" },
		{ L(VOL("/srv/previews/a")), 0, 4242, "mount no host path" },
		{ L(VOL("/srv/previews/inst/other")), 0, 4242,
		    "mount no host path" },
		{ L(VOL("/srv/previews/../etc")), 0, 4242, "volume" },
		{ L(VOL("/srv/previewsx/a")), 0, 4242, "mount no host path" },
		{ L(VOL("/srv/previews")), 0, 4242, "mount no host path" },
		{ L(VOL("/")), 0, 4242, "volume" },
		{ L(VOL("/var/run/docker.sock")), 0, 4242, "volume" },
		{ L(", \"network\": \"host\""), 0, 4242, "api allow network "
		    "host" },
		{ L(", \"address\": \"0.0.0.0\", \"publish\": 8080"), 0, 4242,
		    "api allow publish" },
		{ "{\"name\": \"l\", \"hosts\": [\"l.test\"], \"driver\": "
		    "\"docker\", \"image\": \"evil.example.com/app:1\", "
		    "\"port\": 1}", 0, 4242, "matches no" },
#undef L
#undef VOL
	};
	struct orchd_conf	 conf;
	struct workload_conf	*wl;
	struct rt_label		 rl;
	char			 err[CTL_MSG_MAX];
	size_t			 i;
	int			 r;

	conf_init(&conf);
	assert_int_equal(strlist_add(&conf.api_allow_images,
	    "registry.example.com/*"), 0);
	assert_int_equal(strlist_add(&conf.api_allow_volumes,
	    "/srv/previews"), 0);
	conf.wl_uid_low = 61184;
	conf.wl_uid_high = 65519;
	/* off: nothing of the sort */
	wl = wl_json("{\"name\": \"l\", \"hosts\": [\"l.test\"], \"driver\": "
	    "\"docker\", \"image\": \"registry.example.com/app:1\", "
	    "\"port\": 8080}", SOURCE_API);
	wl->source = SOURCE_LABEL;
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 403);
	assert_non_null(strstr(err, "docker labels is off"));
	conf.docker_labels = 1;
	/* on, but no container was seen */
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 403);
	assert_non_null(strstr(err, "no labelled container"));
	workload_free(wl);
	for (i = 0; i < nitems(cases); i++) {
		wl = wl_json(cases[i].json, SOURCE_API);
		wl->source = SOURCE_LABEL;
		memset(&rl, 0, sizeof(rl));
		strlcpy(rl.name, wl->name, sizeof(rl.name));
		rl.refuse = cases[i].refuse;
		rl.uid = cases[i].uid;
		assert_int_equal(labels_keep(&rl), 0);
		err[0] = '\0';
		r = policy_check(&conf, wl, err, sizeof(err));
		if (cases[i].why == NULL && r != 0)
			fail_msg("case %zu: refused: %s", i, err);
		if (cases[i].why != NULL && (r != 403 ||
		    strstr(err, cases[i].why) == NULL))
			fail_msg("case %zu: expected 403 \"%s\", got %d "
			    "\"%s\"", i, cases[i].why, r, err);
		labels_forget(wl->name);
		workload_free(wl);
	}
	/* root, with api allow root */
	conf.api_allow_root = 1;
	wl = wl_json("{\"name\": \"l\", \"hosts\": [\"l.test\"], \"driver\": "
	    "\"docker\", \"image\": \"registry.example.com/app:1\", "
	    "\"port\": 8080}", SOURCE_API);
	wl->source = SOURCE_LABEL;
	memset(&rl, 0, sizeof(rl));
	strlcpy(rl.name, "l", sizeof(rl.name));
	rl.uid = -1;
	assert_int_equal(labels_keep(&rl), 0);
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 0);
	labels_forget("l");
	workload_free(wl);
	conf_clear(&conf);
}

/* a listener of orchd's on address:port */
static void
listener_add(struct orchd_conf *c, struct listener_conf *l, const char *addr,
    int port, int api, const char *workload)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)&l->ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&l->ss;

	memset(l, 0, sizeof(*l));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else {
		assert_int_equal(inet_pton(AF_INET6, addr, &sin6->sin6_addr),
		    1);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	}
	strlcpy(l->name, addr, sizeof(l->name));
	l->api = api;
	if (workload != NULL)
		strlcpy(l->workload, workload, sizeof(l->workload));
	TAILQ_INSERT_TAIL(&c->listeners, l, entry);
}

/*
 * Where an API workload may point (orchd/policy_net.c): network host,
 * its address, orchd's own ports, where Docker publishes its port; and
 * the uid only the parent gives.
 */
static void
test_policy_net(void **state)
{
	static const struct {
		const char	*json;
		int		 allow;		/* the "api allow" rules set */
		const char	*why;		/* NULL: allowed */
	} cases[] = {
#define D(more)	"{\"name\": \"d\", \"hosts\": [\"d.test\"], \"driver\": " \
		"\"docker\", \"image\": \"x\", \"port\": 8080" more "}"
#define H(port)	"{\"name\": \"h\", \"hosts\": [\"h.test\"], \"driver\": " \
		"\"docker\", \"image\": \"x\", \"network\": \"host\", " \
		"\"port\": " #port "}"
#define P(addr, port) "{\"name\": \"p\", \"hosts\": [\"p.test\"], " \
		"\"command\": \"/bin/true\", \"address\": \"" addr "\", " \
		"\"port\": " #port "}"
		{ D(""), 0, NULL },
		{ D(", \"network\": \"host\""), 0, "api allow network host" },
		{ D(", \"network\": \"host\""), 1, NULL },
		/* a target: loopback, or "api allow address" */
		{ P("127.0.0.1", 3000), 0, NULL },
		{ P("127.5.6.7", 3000), 0, NULL },
		{ P("::1", 3000), 0, NULL },
		{ P("::ffff:127.0.0.1", 3000), 0, NULL },
		{ P("10.0.0.1", 80), 0, "api allow address: address 10.0.0.1 "
		    "is not loopback" },
		{ P("10.0.0.1", 80), 1, NULL },
		{ P("192.168.1.1", 80), 1, "api allow address" },
		{ P("0.0.0.0", 3000), 0, "is a wildcard" },
		{ P("::", 3000), 0, "is a wildcard" },
		{ P("169.254.169.254", 80), 0, "is link-local" },
		/* 0.0.0.0/0 lets in no link-local address; a rule of it does */
		{ P("169.254.169.254", 80), 2, "is link-local" },
		{ P("169.254.10.1", 80), 1, NULL },
		{ P("::ffff:169.254.169.254", 80), 2, "is link-local" },
		{ P("fe80::1", 80), 2, "is link-local" },
		{ P("2001:db8::1", 80), 2, NULL },
		{ D(", \"network\": \"host\", \"address\": \"10.0.0.1\""), 1,
		    NULL },
		{ D(", \"network\": \"host\", \"address\": \"10.9.0.1\""), 1,
		    "api allow address" },
		/* orchd's own, under any rule */
		{ P("127.0.0.1", 8081), 2, "orchd's own: the API's listener" },
		{ P("127.0.0.2", 8081), 2, "the API's listener" },
		{ P("::1", 8081), 2, "the API's listener" },
		{ P("10.0.0.1", 8081), 2, NULL },
		{ P("127.0.0.1", 8088), 2, "a gateway listener" },
		{ P("10.0.0.1", 8088), 2, "a gateway listener" },
		{ P("127.0.0.1", 5432), 2, "a workload's \"listen on\"" },
		{ D(", \"publish\": 8081"), 2, "the API's listener" },
		{ H(8081), 2, "the API's listener" },
		/* published: HostIp on loopback, from port 1024 */
		{ D(", \"address\": \"0.0.0.0\""), 0, "api allow publish: the "
		    "port would be published on 0.0.0.0" },
		{ D(", \"address\": \"0.0.0.0\""), 1, NULL },
		{ D(", \"address\": \"::\""), 1, "api allow publish" },
		{ D(", \"address\": \"10.0.0.1\""), 2, "api allow publish" },
		{ D(", \"address\": \"169.254.169.254\""), 2,
		    "api allow publish" },
		{ D(", \"address\": \"::1\""), 0, NULL },
		{ D(", \"publish\": 22"), 0, "api allow publish port: port 22" },
		{ D(", \"publish\": 22"), 1, NULL },
		{ D(", \"publish\": 23"), 1, "api allow publish port" },
		{ D(", \"publish\": 1024"), 0, NULL },
		{ D(", \"network\": \"pr-7\", \"publish\": 443"), 0,
		    "api allow publish port" },
		/* network host publishes nothing: its port is the host's */
		{ H(22), 1, NULL },
		/* a listener of its own: never on orchd's own ports */
		{ D(", \"listen\": [\"127.0.0.1:8081\"]"), 2,
		    "orchd's own: the API's listener" },
		{ D(", \"listen\": [\"127.0.0.5:8088\"]"), 2,
		    "a gateway listener" },
		{ D(", \"listen\": [\"[::1]:5432\"]"), 2,
		    "a workload's \"listen on\" (db" },
		{ D(", \"listen\": [\"0.0.0.0:15432\"]"), 1, NULL },
		{ D(", \"listen\": [\"127.0.0.1:22\"]"), 1, NULL },
		/* the parent's alone to give */
		{ D(", \"run_uid\": 62000"), 2, "\"run_uid\" is orchd's" },
#undef D
#undef H
#undef P
	};
	struct orchd_conf	 conf;
	struct listener_conf	 l[4];
	struct workload_conf	*wl;
	char			 err[CTL_MSG_MAX];
	size_t			 i;
	int			 r;

	conf_files(&conf);
	conf.api_allow_process = 1;
	assert_int_equal(strlist_add(&conf.api_allow_networks, "pr-*"), 0);
	listener_add(&conf, &l[0], "127.0.0.1", 8081, 1, NULL);
	listener_add(&conf, &l[1], "0.0.0.0", 8088, 0, NULL);
	listener_add(&conf, &l[2], "::", 5432, 0, "db");
	listener_add(&conf, &l[3], "192.0.2.1", 9000, 0, NULL);
	for (i = 0; i < nitems(cases); i++) {
		strlist_free(&conf.api_allow_addresses);
		strlist_free(&conf.api_allow_publish);
		memset(conf.api_allow_ports, 0, sizeof(conf.api_allow_ports));
		conf.api_allow_net_host = cases[i].allow != 0;
		if (cases[i].allow == 1) {
			assert_int_equal(strlist_add(&conf.api_allow_addresses,
			    "10.0.0.0/16"), 0);
			assert_int_equal(strlist_add(&conf.api_allow_addresses,
			    "169.254.10.0/24"), 0);
			assert_int_equal(strlist_add(&conf.api_allow_publish,
			    "0.0.0.0"), 0);
			conf.api_allow_ports[22 / 8] |= 1 << (22 % 8);
		} else if (cases[i].allow == 2) {
			assert_int_equal(strlist_add(&conf.api_allow_addresses,
			    "0.0.0.0/0"), 0);
			assert_int_equal(strlist_add(&conf.api_allow_addresses,
			    "::/0"), 0);
		}
		wl = wl_json(cases[i].json, SOURCE_API);
		err[0] = '\0';
		r = policy_check(&conf, wl, err, sizeof(err));
		if (cases[i].why == NULL && r != 0)
			fail_msg("case %zu: refused: %s", i, err);
		if (cases[i].why != NULL && (r != 403 ||
		    strstr(err, cases[i].why) == NULL))
			fail_msg("case %zu: expected 403 \"%s\", got %d "
			    "\"%s\"", i, cases[i].why, r, err);
		workload_free(wl);
	}
	/* orchd.conf's own workloads: the operator's to point anywhere */
	wl = wl_json("{\"name\": \"p\", \"hosts\": [\"p.test\"], \"command\": "
	    "\"/bin/true\", \"address\": \"169.254.169.254\", \"port\": 80}",
	    SOURCE_CONFIG);
	assert_int_equal(policy_check(&conf, wl, err, sizeof(err)), 0);
	workload_free(wl);
	conf_clear(&conf);
}

/*
 * No key: the parent's handlers of IMSG_API_CREATE and _DELETE.
 */

struct channel {
	int		 sv[2];
	struct imsgbuf	 peer;		/* the other end: gateway, store */
};

static void
channel_open(struct channel *ch, struct privsep *ps, struct imsgev **iev,
    int peer)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, ch->sv), 0);
	assert_non_null(*iev = imsgev_new(ps, ch->sv[0], peer,
	    ORCHD_IMSG_MAXSIZE));
	assert_int_equal(imsgbuf_init(&ch->peer, ch->sv[1]), 0);
	assert_int_equal(imsgbuf_set_maxsize(&ch->peer, ORCHD_IMSG_MAXSIZE),
	    0);
}

/* the one message the parent sent to this peer, if any: its type */
static uint32_t
channel_take(struct channel *ch, struct imsgev *iev, struct imsg *imsg)
{
	int	 n;

	if (imsgbuf_queuelen(&iev->ibuf) == 0)
		return (IMSG_NONE);
	assert_int_equal(imsgbuf_flush(&iev->ibuf), 0);
	assert_int_equal(imsgbuf_read(&ch->peer), 1);
	assert_int_equal(n = imsg_get(&ch->peer, imsg), 1);
	return (imsg_get_type(imsg));
}

static void
test_no_key(void **state)
{
	struct orchd		 env;
	struct orchd_conf	 conf;
	struct channel		 gw, st;
	struct imsgev		*store;
	struct imsg		 in, out;
	struct api_result	 res;
	struct ctl_name		 cn;
	struct workload_conf	*wc;
	const char		*json = "{\"name\": \"d\", \"hosts\": "
	    "[\"d.test\"], \"driver\": \"docker\", \"image\": \"x\", "
	    "\"port\": 8080}";
	char			 err[256];
	void			*body;
	size_t			 bodylen;

	(void)event_init();
	memset(&env, 0, sizeof(env));
	conf_files(&conf);
	env.conf = &conf;
	env.ps.id = PROC_PARENT;
	orchd_env = &env;
	channel_open(&gw, &env.ps, &env.ps.gateways[0], PROC_GATEWAY);
	env.ps.ngateways = 1;
	channel_open(&st, &env.ps, &store, PROC_STORE);
	env.ps.peers[PROC_STORE] = store;
	/* the gateway decodes the JSON and sends the definition packed */
	assert_non_null(wc = workload_from_json(json, strlen(json), err,
	    sizeof(err)));
	wc->source = SOURCE_API;
	assert_non_null(body = workload_wire(wc, &bodylen));
	workload_free(wc);

	/* a create, as a gateway would send it, with no key configured */
	memset(&in, 0, sizeof(in));
	in.hdr.type = IMSG_API_CREATE;
	in.hdr.peerid = 7;
	in.data = body;
	in.datalen = bodylen;
	in.fd = -1;
	conf.api_key_set = 0;
	api_recv_create(env.ps.gateways[0], &in);
	assert_int_equal(channel_take(&st, store, &out), IMSG_NONE);
	assert_int_equal(channel_take(&gw, env.ps.gateways[0], &out),
	    IMSG_API_RESULT);
	assert_int_equal(imsg_get_id(&out), 7);
	assert_int_equal(imsg_get_data(&out, &res, sizeof(res)), 0);
	assert_int_equal(res.status, 403);
	assert_non_null(strstr(res.msg, "no api key"));
	imsg_free(&out);
	assert_true(TAILQ_EMPTY(&conf.workloads));

	/* a delete: the same */
	memset(&cn, 0, sizeof(cn));
	strlcpy(cn.name, "d", sizeof(cn.name));
	in.hdr.type = IMSG_API_DELETE;
	in.hdr.peerid = 8;
	in.data = &cn;
	in.datalen = sizeof(cn);
	api_recv_delete(env.ps.gateways[0], &in);
	assert_int_equal(channel_take(&st, store, &out), IMSG_NONE);
	assert_int_equal(channel_take(&gw, env.ps.gateways[0], &out),
	    IMSG_API_RESULT);
	assert_int_equal(imsg_get_data(&out, &res, sizeof(res)), 0);
	assert_int_equal(res.status, 403);
	imsg_free(&out);

	/* an update: the same */
	{
		struct api_update	 au;
		char			*buf;

		memset(&au, 0, sizeof(au));
		strlcpy(au.name, "d", sizeof(au.name));
		au.patch = 1;
		assert_non_null(buf = malloc(sizeof(au) + bodylen));
		memcpy(buf, &au, sizeof(au));
		memcpy(buf + sizeof(au), body, bodylen);
		in.hdr.type = IMSG_API_UPDATE;
		in.hdr.peerid = 10;
		in.data = buf;
		in.datalen = sizeof(au) + bodylen;
		api_recv_update(env.ps.gateways[0], &in);
		assert_int_equal(channel_take(&st, store, &out), IMSG_NONE);
		assert_int_equal(channel_take(&gw, env.ps.gateways[0], &out),
		    IMSG_API_RESULT);
		assert_int_equal(imsg_get_data(&out, &res, sizeof(res)), 0);
		assert_int_equal(res.status, 403);
		imsg_free(&out);
		free(buf);
	}

	/* with a key, the same create goes to the store */
	conf.api_key_set = 1;
	in.hdr.type = IMSG_API_CREATE;
	in.hdr.peerid = 9;
	in.data = body;
	in.datalen = bodylen;
	api_recv_create(env.ps.gateways[0], &in);
	assert_int_equal(channel_take(&gw, env.ps.gateways[0], &out),
	    IMSG_NONE);
	assert_int_equal(channel_take(&st, store, &out), IMSG_API_PUT);
	imsg_free(&out);

	imsgev_free(env.ps.gateways[0]);
	imsgev_free(store);
	imsgbuf_clear(&gw.peer);
	imsgbuf_clear(&st.peer);
	close(gw.sv[1]);
	close(st.sv[1]);
	conf_clear(&conf);
	free(body);
}

/* a workload of source src in c, depending on the names given */
static struct workload_conf *
dep_add(struct orchd_conf *c, const char *name, enum workload_source src,
    const char *dep1, const char *dep2)
{
	struct workload_conf	*wc;

	assert_non_null(wc = workload_new(name));
	wc->source = src;
	if (dep1 != NULL)
		assert_int_equal(strlist_add(&wc->depends, dep1), 0);
	if (dep2 != NULL)
		assert_int_equal(strlist_add(&wc->depends, dep2), 0);
	if (c != NULL)
		TAILQ_INSERT_TAIL(&c->workloads, wc, entry);
	return (wc);
}

static void
dep_clear(struct orchd_conf *c)
{
	struct workload_conf	*wc;

	while ((wc = TAILQ_FIRST(&c->workloads)) != NULL) {
		TAILQ_REMOVE(&c->workloads, wc, entry);
		workload_free(wc);
	}
}

static int
dep_count(const struct orchd_conf *c)
{
	const struct workload_conf	*wc;
	int				 n = 0;

	TAILQ_FOREACH(wc, &c->workloads, entry)
		n++;
	return (n);
}

static void
test_depends(void **state)
{
	struct orchd_conf	 conf, nconf;
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX], who[64];

	conf_files(&conf);
	conf_files(&nconf);
	dep_add(&conf, "db", SOURCE_CONFIG, NULL, NULL);
	dep_add(&conf, "cache", SOURCE_CONFIG, NULL, NULL);
	dep_add(&conf, "app", SOURCE_API, "db", "cache");

	/* a new one: its names are workloads, it closes no cycle */
	wc = dep_add(NULL, "web", SOURCE_API, "app", "db");
	assert_int_equal(depends_check_new(&conf, wc, err, sizeof(err)), 0);
	workload_free(wc);
	wc = dep_add(NULL, "web", SOURCE_API, "db", "nothere");
	assert_int_equal(depends_check_new(&conf, wc, err, sizeof(err)), 400);
	assert_string_equal(err, "workload \"web\": depends on \"nothere\": "
	    "no such workload");
	workload_free(wc);
	wc = dep_add(NULL, "web", SOURCE_API, "web", NULL);
	assert_int_equal(depends_check_new(&conf, wc, err, sizeof(err)), 400);
	assert_non_null(strstr(err, "a cycle: web -> web"));
	workload_free(wc);

	/* an update is checked in the place of the one it replaces */
	dep_add(&conf, "web", SOURCE_API, "app", NULL);
	wc = dep_add(NULL, "app", SOURCE_API, "db", NULL);
	assert_int_equal(depends_check_new(&conf, wc, err, sizeof(err)), 0);
	workload_free(wc);
	wc = dep_add(NULL, "app", SOURCE_API, "db", "web");
	assert_int_equal(depends_check_new(&conf, wc, err, sizeof(err)), 400);
	assert_non_null(strstr(err, "a cycle"));
	workload_free(wc);
	wc = TAILQ_LAST(&conf.workloads, workloadlist);
	TAILQ_REMOVE(&conf.workloads, wc, entry);
	workload_free(wc);

	/* who depends on what: delete and reload refuse to break them */
	assert_int_equal(depends_dependents(&conf, "db", who, sizeof(who)), 1);
	assert_string_equal(who, "app");
	assert_int_equal(depends_dependents(&conf, "app", who, sizeof(who)),
	    0);
	assert_string_equal(who, "");
	dep_add(&conf, "app2", SOURCE_API, "db", NULL);
	assert_int_equal(depends_dependents(&conf, "db", who, sizeof(who)), 2);
	assert_string_equal(who, "app, app2");
	assert_int_equal(depends_dependents(&conf, "db", who, 6), 2);
	assert_string_equal(who, "ap...");

	/* the file's own that depend on it go with it: not named */
	dep_add(&conf, "fileapp", SOURCE_CONFIG, "db", NULL);
	dep_add(&nconf, "cache", SOURCE_CONFIG, NULL, NULL);
	assert_int_equal(depends_reload_check(&nconf, &conf, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "workload db cannot be removed: app, app2 "
	    "(created through the API) depend on it");
	dep_add(&nconf, "db", SOURCE_CONFIG, NULL, NULL);
	assert_int_equal(depends_reload_check(&nconf, &conf, err,
	    sizeof(err)), 0);
	dep_clear(&nconf);

	/* those of the API whose dependency is gone leave, and theirs */
	dep_clear(&conf);
	dep_add(&conf, "b", SOURCE_API, "a", NULL);
	dep_add(&conf, "c", SOURCE_CONFIG, NULL, NULL);
	dep_add(&conf, "a", SOURCE_API, "gone", "c");
	dep_add(&conf, "d", SOURCE_API, "c", NULL);
	depends_prune(&conf);
	assert_int_equal(dep_count(&conf), 2);
	assert_string_equal(TAILQ_FIRST(&conf.workloads)->name, "c");
	assert_string_equal(TAILQ_LAST(&conf.workloads, workloadlist)->name,
	    "d");
	dep_clear(&conf);
	conf_clear(&conf);
	conf_clear(&nconf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_forbidden),
		cmocka_unit_test(test_forbidden_link),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_allow_root_json),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_policy_net),
		cmocka_unit_test(test_no_key),
		cmocka_unit_test(test_depends),
	};

	log_init(1, 0);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
