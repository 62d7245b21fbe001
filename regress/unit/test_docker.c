/*
 * Unit tests for runtimed/docker_spec.c: the container create body built
 * from a docker workload's definition, and the hash that decides whether
 * a container is replaced at its next wake; runtimed/docker_image.c:
 * image references as a pull splits them, and the reading of the
 * daemon's progress stream.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "msg.h"
#include "workload.h"
#include "../../runtimed/docker.h"

static struct workload_conf *
wl(const char *json)
{
	struct workload_conf	*wc;
	char			 err[256];

	if ((wc = workload_from_json(json, strlen(json), err,
	    sizeof(err))) == NULL)
		fail_msg("workload_from_json: %s", err);
	return (wc);
}

static json_t *
spec(const char *json, char *hash, size_t len)
{
	struct workload_conf	*wc = wl(json);
	json_t			*o;
	char			 err[256];

	if ((o = dk_spec(wc, "/srv/vol", err, sizeof(err))) == NULL)
		fail_msg("dk_spec: %s", err);
	assert_int_equal(dk_spec_hash(o, hash, len), 0);
	workload_free(wc);
	return (o);
}

#define BRIDGE	"{\"name\":\"blog\",\"driver\":\"docker\",\"hosts\":" \
		"[\"blog.test\"],\"image\":\"reg/blog:1.4\",\"port\":3000," \
		"\"address\":\"127.0.0.1\",\"command\":\"bin/server --port " \
		"'3000'\",\"env\":[\"A=1\",\"B=two words\"],\"volumes\":" \
		"[{\"host\":\"/var/orchd/blog\",\"container\":\"/data\"}]," \
		"\"memory\":536870912,\"runtime\":\"runsc\"," \
		"\"entrypoint\":\"/bin/tini -s --\"}"

static void
test_bridge(void **state)
{
	json_t		*o, *h, *pb;
	char		 hash[DK_HASH_MAX];

	o = spec(BRIDGE, hash, sizeof(hash));
	assert_string_equal(json_string_value(json_object_get(o, "Image")),
	    "reg/blog:1.4");
	/* the command split as sh(1) would, quotes removed */
	assert_int_equal(json_array_size(json_object_get(o, "Cmd")), 3);
	/* the entrypoint split the same way */
	assert_int_equal(json_array_size(json_object_get(o, "Entrypoint")),
	    3);
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(o, "Entrypoint"), 1)), "-s");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(o, "Cmd"), 2)), "3000");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(o, "Env"), 1)), "B=two words");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), DK_LABEL_WORKLOAD)), "blog");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), DK_LABEL_INSTANCE)), "orchd");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), DK_LABEL_HASH)), hash);
	assert_int_equal(strlen(hash), 64);
	assert_non_null(json_object_get(json_object_get(o, "ExposedPorts"),
	    "3000/tcp"));
	h = json_object_get(o, "HostConfig");
	assert_int_equal(json_integer_value(json_object_get(h, "Memory")),
	    536870912);
	assert_string_equal(json_string_value(json_object_get(h, "Runtime")),
	    "runsc");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(h, "Binds"), 0)), "/var/orchd/blog:/data");
	assert_null(json_object_get(h, "NetworkMode"));
	/* published on the workload's address only */
	pb = json_array_get(json_object_get(json_object_get(h,
	    "PortBindings"), "3000/tcp"), 0);
	assert_string_equal(json_string_value(json_object_get(pb, "HostIp")),
	    "127.0.0.1");
	assert_string_equal(json_string_value(json_object_get(pb,
	    "HostPort")), "3000");
	/* an init by default; the image's stop signal, Docker's timeout */
	assert_true(json_is_true(json_object_get(h, "Init")));
	assert_null(json_object_get(o, "StopSignal"));
	assert_null(json_object_get(o, "StopTimeout"));
	/* nothing that widens the container's privileges, ever */
	assert_null(json_object_get(h, "Privileged"));
	assert_null(json_object_get(h, "CapAdd"));
	assert_null(json_object_get(h, "Devices"));
	json_decref(o);
}

static void
test_host(void **state)
{
	json_t		*o, *h;
	char		 hash[DK_HASH_MAX];

	o = spec("{\"name\":\"api\",\"driver\":\"docker\",\"hosts\":"
	    "[\"api.test\"],\"image\":\"api\",\"port\":8080,\"address\":"
	    "\"127.0.0.1\",\"network\":\"host\"}", hash, sizeof(hash));
	h = json_object_get(o, "HostConfig");
	assert_string_equal(json_string_value(json_object_get(h,
	    "NetworkMode")), "host");
	assert_null(json_object_get(h, "PortBindings"));
	assert_null(json_object_get(o, "ExposedPorts"));
	/* the image's own command */
	assert_null(json_object_get(o, "Cmd"));
	assert_null(json_object_get(h, "Memory"));
	json_decref(o);
}

/*
 * On a network of the operator's: joined by name, known there by the
 * workload's name, its port published on another of the host's.
 */
static void
test_named(void **state)
{
	json_t		*o, *h, *pb, *ep, *al;
	char		 hash[DK_HASH_MAX];

	o = spec("{\"name\":\"db\",\"driver\":\"docker\",\"hosts\":"
	    "[\"db.test\"],\"image\":\"pg\",\"port\":5432,\"publish\":"
	    "15432,\"network\":\"pr-1\"}", hash, sizeof(hash));
	h = json_object_get(o, "HostConfig");
	assert_string_equal(json_string_value(json_object_get(h,
	    "NetworkMode")), "pr-1");
	assert_non_null(json_object_get(json_object_get(o, "ExposedPorts"),
	    "5432/tcp"));
	pb = json_array_get(json_object_get(json_object_get(h,
	    "PortBindings"), "5432/tcp"), 0);
	assert_string_equal(json_string_value(json_object_get(pb, "HostIp")),
	    "127.0.0.1");
	assert_string_equal(json_string_value(json_object_get(pb,
	    "HostPort")), "15432");
	ep = json_object_get(json_object_get(o, "NetworkingConfig"),
	    "EndpointsConfig");
	assert_int_equal(json_object_size(ep), 1);
	al = json_object_get(json_object_get(ep, "pr-1"), "Aliases");
	assert_int_equal(json_array_size(al), 1);
	assert_string_equal(json_string_value(json_array_get(al, 0)), "db");
	json_decref(o);

	/* bridge, host: no network of their own to join */
	o = spec(BRIDGE, hash, sizeof(hash));
	assert_null(json_object_get(o, "NetworkingConfig"));
	json_decref(o);
}

/* how the container stops: its init, stop signal and timeout */
static void
stop_case(const char *settings, int init, const char *signal, int timeout)
{
	json_t		*o, *v;
	char		 def[512], hash[DK_HASH_MAX];

	(void)snprintf(def, sizeof(def), "{\"name\":\"s\",\"driver\":"
	    "\"docker\",\"hosts\":[\"s.test\"],\"image\":\"s\",\"port\":80,"
	    "%s}", settings);
	o = spec(def, hash, sizeof(hash));
	v = json_object_get(json_object_get(o, "HostConfig"), "Init");
	assert_true(json_is_boolean(v));
	assert_int_equal(json_is_true(v), init);
	assert_string_equal(json_string_value(json_object_get(o,
	    "StopSignal")), signal);
	assert_int_equal(json_integer_value(json_object_get(o,
	    "StopTimeout")), timeout);
	json_decref(o);
}

static void
test_stop(void **state)
{
	stop_case("\"init\":false,\"stop_signal\":\"QUIT\",\"stop_timeout\":3",
	    0, "SIGQUIT", 3);
	stop_case("\"init\":true,\"stop_signal\":\"SIGKILL\","
	    "\"stop_timeout\":0", 1, "SIGKILL", 0);
}

/* only what reaches Docker is hashed */
static void
test_hash(void **state)
{
	static const char *same[] = {
		/* another host name, idle timeout, keep warm, health */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"b.test\","
		"\"c.test\"],\"image\":\"img:1\",\"port\":80,\"address\":"
		"\"127.0.0.1\",\"env\":[\"A=1\"],\"idle_timeout\":600,"
		"\"keep_warm\":true,\"health\":\"path\",\"health_path\":\"/\"}",
		/* init said as it is by default */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"init\":true}",
		/* published on its own port, as by default */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"publish\":80}",
		/* when and how long it is pulled: not the container's */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"pull\":\"always\",\"pull_timeout\":9}",
	};
	static const char *other[] = {
		/* a new image, env, memory, port, volume, command */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:2\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"]}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=2\"]}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"memory\":1048576}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":81,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"]}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"volumes\":[{\"host\":\"/a\",\"container\":"
		"\"/b\"}]}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"command\":\"sleep 1\"}",
		/* how it stops: init, stop signal, stop timeout */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"init\":false}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"stop_signal\":\"TERM\"}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"stop_timeout\":10}",
		/* where it is: a network, another; the published port */
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"network\":\"pr-1\"}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"network\":\"pr-2\"}",
		"{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":[\"a.test\"],"
		"\"image\":\"img:1\",\"port\":80,\"address\":\"127.0.0.1\","
		"\"env\":[\"A=1\"],\"publish\":8080}",
	};
	const char	*base = "{\"name\":\"w\",\"driver\":\"docker\",\"hosts\":"
	    "[\"a.test\"],\"image\":\"img:1\",\"port\":80,\"address\":"
	    "\"127.0.0.1\",\"env\":[\"A=1\"]}";
	char		 h0[DK_HASH_MAX], h1[DK_HASH_MAX], h2[DK_HASH_MAX];
	size_t		 i;

	json_decref(spec(base, h0, sizeof(h0)));
	json_decref(spec(base, h1, sizeof(h1)));
	assert_string_equal(h0, h1);
	for (i = 0; i < nitems(same); i++) {
		json_decref(spec(same[i], h2, sizeof(h2)));
		assert_string_equal(h0, h2);
	}
	for (i = 0; i < nitems(other); i++) {
		json_decref(spec(other[i], h2, sizeof(h2)));
		assert_string_not_equal(h0, h2);
	}
}

static void
test_name(void **state)
{
	char	 buf[DK_CNAME_MAX];
	json_t	*l;
	char	 err[256];

	/* a container carries its instance; a service does not */
	dk_instance_set("ci-1");
	dk_container_name("blog", buf, sizeof(buf));
	assert_string_equal(buf, "orchd-ci-1-blog");
	dk_service_name("blog", buf, sizeof(buf));
	assert_string_equal(buf, "orchd-blog");
	/* ours: both labels; else another's, an older orchd's, nobody's */
	l = json_pack("{s:s, s:s}", DK_LABEL_WORKLOAD, "blog",
	    DK_LABEL_INSTANCE, "ci-1");
	assert_int_equal(dk_labels_ours(l, "blog", err, sizeof(err)), 0);
	assert_int_equal(dk_labels_ours(l, "blo", err, sizeof(err)), -1);
	json_object_set_new(l, DK_LABEL_INSTANCE, json_string("ci"));
	assert_int_equal(dk_labels_ours(l, "blog", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "instance ci's"));
	json_object_del(l, DK_LABEL_INSTANCE);
	assert_int_equal(dk_labels_ours(l, "blog", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "older orchd"));
	json_decref(l);
	assert_int_equal(dk_labels_ours(NULL, "blog", err, sizeof(err)), -1);
	dk_instance_set("orchd");
}

static void
ref_ok(const char *image, const char *name, const char *tag,
    const char *registry)
{
	struct dk_imageref	 ref;
	char			 err[256];

	if (dk_image_parse(image, &ref, err, sizeof(err)) == -1)
		fail_msg("%s: %s", image, err);
	assert_string_equal(ref.name, name);
	assert_string_equal(ref.tag, tag);
	assert_string_equal(ref.registry, registry);
}

static void
test_image_ref(void **state)
{
	static const char *const bad[] = {
		"", "/app", "app/", "a//b", "-app", "app:", "a b", "app?x=1",
		"app#x", "app%2f", "../containers/x", "a/../b", "app@sha256",
		"app@sha256:xyz", "app@sha256:01@sha256:02", "app\"x",
		"a/b:1:2", "a:b:c/d"
	};
	struct dk_imageref	 ref;
	char			 err[256];
	size_t			 i;

	ref_ok("busybox", "busybox", "latest", "docker.io");
	ref_ok("library/busybox:1.36", "library/busybox", "1.36",
	    "docker.io");
	ref_ok("registry.example.com/app:pr-42", "registry.example.com/app",
	    "pr-42", "registry.example.com");
	ref_ok("127.0.0.1:25123/orchd-pull-test:1",
	    "127.0.0.1:25123/orchd-pull-test", "1", "127.0.0.1:25123");
	ref_ok("localhost:5000/a/b/c", "localhost:5000/a/b/c", "latest",
	    "localhost:5000");
	ref_ok("localhost/app", "localhost/app", "latest", "localhost");
	ref_ok("Registry.Example.com/app", "Registry.Example.com/app",
	    "latest", "registry.example.com");
	ref_ok("index.docker.io/library/busybox", "index.docker.io/library/"
	    "busybox", "latest", "docker.io");
	/* a tag that looks like a port, a port that looks like a tag */
	ref_ok("host:5000", "host", "5000", "docker.io");
	ref_ok("a:1/b", "a:1/b", "latest", "a:1");
	ref_ok("app@sha256:0123abcd", "app", "sha256:0123abcd", "docker.io");
	ref_ok("r.test:5000/app:1@sha256:0123abcd", "r.test:5000/app",
	    "sha256:0123abcd", "r.test:5000");
	for (i = 0; i < nitems(bad); i++)
		if (dk_image_parse(bad[i], &ref, err, sizeof(err)) == 0)
			fail_msg("accepted \"%s\"", bad[i]);
}

/* a stream fed n bytes at a time */
static void
feed(struct dk_progress *p, const char *s, size_t n)
{
	size_t	 len = strlen(s), k;

	while (len > 0) {
		k = len < n ? len : n;
		dk_progress_feed(p, s, k);
		s += k;
		len -= k;
	}
}

static void
test_progress(void **state)
{
	static const char stream[] =
	    "{\"status\":\"Pulling from pulltry\",\"id\":\"big\"}\r\n"
	    "{\"status\":\"Already exists\",\"progressDetail\":{},"
	    "\"id\":\"aaa\"}\r\n"
	    "{\"status\":\"Pulling fs layer\",\"progressDetail\":{},"
	    "\"id\":\"bbb\"}\r\n"
	    "{\"status\":\"Waiting\",\"progressDetail\":{},\"id\":\"ccc\"}\r\n"
	    "{\"status\":\"Downloading\",\"progressDetail\":{\"current\":1000,"
	    "\"total\":4000},\"progress\":\"[>  ]\",\"id\":\"bbb\"}\r\n"
	    "{\"status\":\"Downloading\",\"progressDetail\":{\"current\":50,"
	    "\"total\":100},\"id\":\"ccc\"}\r\n";
	static const char rest[] =
	    "{\"status\":\"Download complete\",\"progressDetail\":{},"
	    "\"id\":\"bbb\"}\r\n"
	    "{\"status\":\"Extracting\",\"progressDetail\":{\"current\":10,"
	    "\"total\":4000},\"id\":\"bbb\"}\r\n"
	    "{\"status\":\"Pull complete\",\"progressDetail\":{},"
	    "\"id\":\"bbb\"}\r\n"
	    "{\"status\":\"Digest: sha256:6055\"}\r\n"
	    "{\"status\":\"Status: Downloaded newer image for r/x:1\"}\r\n";
	struct dk_progress	*p;
	struct ctl_pull		 cp;
	size_t			 n;

	/* the same, however it is cut */
	for (n = 1; n <= 64; n = n * 2 + 1) {
		p = calloc(1, sizeof(*p));
		assert_non_null(p);
		feed(p, stream, n);
		dk_progress_sum(p, &cp);
		assert_int_equal(cp.layers, 3);
		assert_int_equal(cp.layers_done, 1);
		assert_int_equal(cp.bytes, 1050);
		assert_int_equal(cp.bytes_total, 4100);
		assert_string_equal(cp.status, "Pulling from pulltry");
		assert_true(p->changed);
		feed(p, rest, n);
		dk_progress_sum(p, &cp);
		assert_int_equal(cp.layers, 3);
		assert_int_equal(cp.layers_done, 2);
		assert_int_equal(cp.bytes, 4050);
		assert_string_equal(cp.status,
		    "Status: Downloaded newer image for r/x:1");
		assert_false(p->failed);
		free(p);
	}
}

static void
test_progress_error(void **state)
{
	struct dk_progress	*p;
	struct ctl_pull		 cp;
	char			*big;
	size_t			 i;

	p = calloc(1, sizeof(*p));
	assert_non_null(p);
	/* garbage and a line too long are skipped, bounded */
	feed(p, "not json\n\n[1]\n", 3);
	big = malloc(3 * DK_PULL_LINE_MAX + 2);
	assert_non_null(big);
	memset(big, 'x', 3 * DK_PULL_LINE_MAX);
	big[3 * DK_PULL_LINE_MAX] = '\n';
	big[3 * DK_PULL_LINE_MAX + 1] = '\0';
	feed(p, big, 5000);
	free(big);
	assert_int_equal(p->skipped, 1);
	assert_int_equal(p->linelen, 0);
	feed(p, "{\"errorDetail\":{\"message\":\"unauthorized: authentication "
	    "required\"},\"error\":\"unauthorized\"}\r\n"
	    "{\"error\":\"later\\none\"}\n", 7);
	assert_true(p->failed);
	dk_progress_sum(p, &cp);
	assert_string_equal(cp.status, "unauthorized: authentication required");
	/* more layers than are told apart: counted up to the bound */
	for (i = 0; i < DK_PULL_LAYERS_MAX + 10; i++) {
		char	 line[128];

		snprintf(line, sizeof(line), "{\"status\":\"Waiting\","
		    "\"id\":\"l%zu\"}\n", i);
		feed(p, line, sizeof(line));
	}
	assert_int_equal(p->nlayers, DK_PULL_LAYERS_MAX);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bridge),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_image_ref),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_progress_error),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
