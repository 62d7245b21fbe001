/*
 * Unit tests for runtimed/swarm_spec.c: the service a swarm workload is,
 * built from its definition alone, and the hash that tells a service
 * still right from one to update, which its replica count must not
 * change.  Also the definition's own checks of replicas and constraints,
 * and its JSON round trip.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "orchd.h"
#include "../../runtimed/docker.h"

#define SWARM	"{\"name\":\"prev\",\"driver\":\"swarm\",\"hosts\":" \
		"[\"prev.test\"],\"image\":\"reg/prev:2\",\"port\":8080," \
		"\"address\":\"127.0.0.1\",\"command\":\"srv --port 8080\"," \
		"\"env\":[\"A=1\"],\"memory\":67108864,\"stop_signal\":" \
		"\"INT\",\"stop_timeout\":3,\"replicas\":3,\"constraints\":" \
		"[\"node.labels.pool==previews\",\"node.role!=manager\"]"
#define HOSTNET	",\"network\":\"host\"}"
#define BRIDGE	"}"

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

	if ((o = sw_spec(wc, "orchd-prev", hash, len, err,
	    sizeof(err))) == NULL)
		fail_msg("sw_spec: %s", err);
	workload_free(wc);
	return (o);
}

static void
test_service(void **state)
{
	json_t		*o, *t, *c, *a;
	char		 hash[DK_HASH_MAX];

	o = spec(SWARM HOSTNET, hash, sizeof(hash));
	assert_string_equal(json_string_value(json_object_get(o, "Name")),
	    "orchd-prev");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), DK_LABEL_WORKLOAD)), "prev");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), DK_LABEL_HASH)), hash);
	t = json_object_get(o, "TaskTemplate");
	c = json_object_get(t, "ContainerSpec");
	assert_string_equal(json_string_value(json_object_get(c, "Image")),
	    "reg/prev:2");
	a = json_object_get(c, "Args");
	assert_int_equal(json_array_size(a), 3);
	assert_string_equal(json_string_value(json_array_get(a, 2)), "8080");
	assert_null(json_object_get(c, "Command"));
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(c, "Env"), 0)), "A=1");
	assert_string_equal(json_string_value(json_object_get(c,
	    "StopSignal")), "SIGINT");
	assert_int_equal(json_integer_value(json_object_get(c,
	    "StopGracePeriod")), 3000000000LL);
	assert_true(json_is_true(json_object_get(c, "Init")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(t, "Resources"), "Limits"), "MemoryBytes")),
	    67108864);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(t, "Resources"), "Reservations"), "MemoryBytes")),
	    67108864);
	a = json_object_get(json_object_get(t, "Placement"), "Constraints");
	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_array_get(a, 1)),
	    "node.role!=manager");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(t, "Networks"), 0), "Target")), "host");
	/* nothing from outside the definition: no mounts, no ports here */
	assert_null(json_object_get(c, "Mounts"));
	assert_null(json_object_get(o, "EndpointSpec"));
	/* the mode is the caller's */
	assert_null(json_object_get(o, "Mode"));
	assert_int_equal(sw_spec_replicas(o, 3), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(o, "Mode"), "Replicated"), "Replicas")), 3);
	json_decref(o);
}

/* not on the host's network: published in host mode, on its node */
static void
test_published(void **state)
{
	json_t		*o, *p;
	char		 hash[DK_HASH_MAX];

	o = spec(SWARM BRIDGE, hash, sizeof(hash));
	assert_null(json_object_get(json_object_get(o, "TaskTemplate"),
	    "Networks"));
	p = json_array_get(json_object_get(json_object_get(o,
	    "EndpointSpec"), "Ports"), 0);
	assert_string_equal(json_string_value(json_object_get(p,
	    "PublishMode")), "host");
	assert_int_equal(json_integer_value(json_object_get(p,
	    "PublishedPort")), 8080);
	assert_int_equal(json_integer_value(json_object_get(p,
	    "TargetPort")), 8080);
	json_decref(o);
}

/* the replica count is no part of the hash; the definition is */
static void
test_hash(void **state)
{
	char		 h1[DK_HASH_MAX], h2[DK_HASH_MAX], h3[DK_HASH_MAX];
	json_t		*a, *b, *c;

	a = spec(SWARM HOSTNET, h1, sizeof(h1));
	b = spec("{\"name\":\"prev\",\"driver\":\"swarm\",\"hosts\":"
	    "[\"prev.test\"],\"image\":\"reg/prev:2\",\"port\":8080,"
	    "\"address\":\"127.0.0.1\",\"command\":\"srv --port 8080\","
	    "\"env\":[\"A=1\"],\"memory\":67108864,\"stop_signal\":"
	    "\"INT\",\"stop_timeout\":3,\"replicas\":1,\"constraints\":"
	    "[\"node.labels.pool==previews\",\"node.role!=manager\"],"
	    "\"network\":\"host\",\"idle_timeout\":60}", h2, sizeof(h2));
	assert_string_equal(h1, h2);
	c = spec(SWARM BRIDGE, h3, sizeof(h3));
	assert_string_not_equal(h1, h3);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void
test_validate(void **state)
{
	static const struct {
		const char	*json;
		const char	*err;
	} bad[] = {
		{ "{\"name\":\"a\",\"driver\":\"swarm\",\"hosts\":[\"a.t\"],"
		    "\"image\":\"i\",\"port\":1,\"replicas\":0}",
		    "field \"replicas\": must be an integer from 1 to 64" },
		{ "{\"name\":\"a\",\"driver\":\"swarm\",\"hosts\":[\"a.t\"],"
		    "\"image\":\"i\",\"port\":1,\"constraints\":"
		    "[\"node.role\"]}", "constraint \"node.role\": must be" },
		{ "{\"name\":\"a\",\"driver\":\"swarm\",\"hosts\":[\"a.t\"],"
		    "\"image\":\"i\",\"port\":1,\"constraints\":"
		    "[\"a == b\"]}", "without spaces or quotes" },
		{ "{\"name\":\"a\",\"driver\":\"docker\",\"hosts\":[\"a.t\"],"
		    "\"image\":\"i\",\"port\":1,\"replicas\":2}",
		    "replicas is only for driver swarm" },
		{ "{\"name\":\"a\",\"driver\":\"swarm\",\"hosts\":[\"a.t\"],"
		    "\"image\":\"i\",\"port\":1,\"volumes\":[{\"host\":"
		    "\"/srv\",\"container\":\"/d\"}]}",
		    "volume is not for driver swarm" },
		{ "{\"name\":\"a\",\"driver\":\"swarm\",\"hosts\":[\"a.t\"],"
		    "\"port\":1}", "driver swarm needs an image" },
	};
	struct workload_conf	*wc;
	char			 err[256];
	size_t			 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wc = workload_from_json(bad[i].json, strlen(bad[i].json), err,
		    sizeof(err));
		if (wc != NULL)
			fail_msg("accepted: %s", bad[i].json);
		if (strstr(err, bad[i].err) == NULL)
			fail_msg("%s: \"%s\", expected \"%s\"", bad[i].json,
			    err, bad[i].err);
	}
}

/* to JSON and back, and packed: replicas and constraints survive */
static void
test_roundtrip(void **state)
{
	struct workload_conf	*wc, *back, *packed;
	struct strentry		*e;
	char			*s;
	char			 err[256];

	wc = wl(SWARM HOSTNET);
	assert_non_null(s = workload_to_json(wc));
	assert_non_null(back = workload_from_json(s, strlen(s), err,
	    sizeof(err)));
	assert_int_equal(back->driver, DRIVER_SWARM);
	assert_int_equal(back->replicas, 3);
	e = TAILQ_FIRST(&back->constraints);
	assert_non_null(e);
	assert_string_equal(e->str, "node.labels.pool==previews");
	assert_non_null(packed = workload_pack(back));
	e = TAILQ_LAST(&packed->constraints, strlist);
	assert_non_null(e);
	assert_string_equal(e->str, "node.role!=manager");
	assert_int_equal(packed->replicas, 3);
	free(s);
	workload_free(packed);
	workload_free(back);
	workload_free(wc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service),
		cmocka_unit_test(test_published),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_roundtrip),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
