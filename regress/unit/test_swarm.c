/*
 * Unit tests for runtimed/swarm_spec.c: the service a swarm workload is,
 * built from its definition alone, and the hash that tells a service
 * still right from one to update, which its replica count must not
 * change.  Also the definition's own checks of replicas and constraints,
 * and its JSON round trip; and the labels org.orchd.seen.INSTANCE by
 * which the orchd instances sharing a swarm agree on a suspend.
 */

#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "msg.h"
#include "workload.h"
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

/* a spec with the labels of labels, a JSON object */
static json_t *
seen_spec(const char *labels)
{
	json_error_t	 jerr;
	json_t		*o;

	o = json_pack("{s:o}", "Labels", json_loads(labels, 0, &jerr));
	assert_non_null(o);
	assert_true(json_is_object(json_object_get(o, "Labels")));
	return (o);
}

/* who else used it less than the idle timeout ago: the last of them */
static void
test_seen_recent(void **state)
{
	char	 who[ORCHD_INSTANCE_MAX];
	int64_t	 ago = -1;
	json_t	*o;

	/* only old times, ours, nonsense and other labels: nobody */
	o = seen_spec("{\"org.orchd.seen.a\": \"1000\","
	    "\"org.orchd.seen.me\": \"1999\","
	    "\"org.orchd.seen.b\": \"x1999\","
	    "\"org.orchd.seen.c\": 1999,"
	    "\"org.orchd.seen.\": \"1999\","
	    "\"org.orchd.seenx\": \"1999\","
	    "\"org.orchd.seen.d\": \"-5\","
	    "\"org.orchd.seen.e\": \"99999999\","
	    "\"org.orchd.workload\": \"w\"}");
	assert_int_equal(sw_seen_recent(o, "me", 2000, 60, who, sizeof(who),
	    &ago), 0);
	assert_int_equal(ago, -1);
	/* just as old as the idle timeout: idle */
	assert_int_equal(sw_seen_recent(o, "me", 1060, 60, who, sizeof(who),
	    &ago), 0);
	/* a second younger: used */
	assert_int_equal(sw_seen_recent(o, "me", 1059, 60, who, sizeof(who),
	    &ago), 1);
	assert_string_equal(who, "a");
	assert_int_equal(ago, 59);
	json_decref(o);

	/* the last user is said; a clock a little ahead counts */
	o = seen_spec("{\"org.orchd.seen.a\": \"1990\","
	    "\"org.orchd.seen.b\": \"1995\","
	    "\"org.orchd.seen.c\": \"1980\"}");
	assert_int_equal(sw_seen_recent(o, "me", 2000, 60, who, sizeof(who),
	    &ago), 1);
	assert_string_equal(who, "b");
	assert_int_equal(ago, 5);
	assert_int_equal(sw_seen_recent(o, "me", 1990, 60, who, sizeof(who),
	    &ago), 1);
	assert_string_equal(who, "b");
	json_decref(o);

	/* no labels at all */
	o = json_object();
	assert_int_equal(sw_seen_recent(o, "me", 2000, 60, who, sizeof(who),
	    &ago), 0);
	json_decref(o);
}

/* ours written, a week's silence forgotten, the others kept */
static void
test_seen_set(void **state)
{
	const int64_t	 now = 10 * SW_SEEN_FORGET;
	char		 t[32];
	json_t		*o, *l, *d;

	o = seen_spec("{\"org.orchd.seen.old\": \"1\","
	    "\"org.orchd.seen.young\": \"1\","
	    "\"org.orchd.seen.bad\": \"soon\","
	    "\"org.orchd.seen.me\": \"1\","
	    "\"org.orchd.hash\": \"h\"}");
	/* a second less than a week before now: kept */
	(void)snprintf(t, sizeof(t), "%lld",
	    (long long)(now - SW_SEEN_FORGET + 1));
	json_object_set_new(json_object_get(o, "Labels"),
	    "org.orchd.seen.young", json_string(t));
	assert_int_equal(sw_seen_set(o, "me", now, now), 0);
	l = json_object_get(o, "Labels");
	assert_null(json_object_get(l, "org.orchd.seen.old"));
	assert_string_equal(json_string_value(json_object_get(l,
	    "org.orchd.seen.young")), t);
	/* not a time: not ours to judge, left */
	assert_non_null(json_object_get(l, "org.orchd.seen.bad"));
	(void)snprintf(t, sizeof(t), "%lld", (long long)now);
	assert_string_equal(json_string_value(json_object_get(l,
	    "org.orchd.seen.me")), t);
	assert_string_equal(json_string_value(json_object_get(l,
	    "org.orchd.hash")), "h");

	/* a spec without labels gets them */
	json_decref(o);
	o = json_object();
	assert_int_equal(sw_seen_set(o, "me", 5, now), 0);
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "Labels"), "org.orchd.seen.me")), "5");

	/* carried over a new definition, and nothing else with them */
	d = seen_spec("{\"org.orchd.workload\": \"w\"}");
	json_object_set_new(json_object_get(o, "Labels"), "other",
	    json_string("x"));
	assert_int_equal(sw_seen_keep(o, d), 0);
	l = json_object_get(d, "Labels");
	assert_string_equal(json_string_value(json_object_get(l,
	    "org.orchd.seen.me")), "5");
	assert_null(json_object_get(l, "other"));
	assert_string_equal(json_string_value(json_object_get(l,
	    "org.orchd.workload")), "w");
	json_decref(o);
	json_decref(d);
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
		cmocka_unit_test(test_seen_recent),
		cmocka_unit_test(test_seen_set),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
