/*
 * orchctl import compose's mapping (orchctl/ytree.c, compose.c,
 * compose_svc.c): a Compose file read under its bounds, each service
 * made the definition the API takes, and each refusal named with its
 * key and line.
 */

#include <sys/types.h>

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
#include <jansson.h>

#include "compat.h"
#include "workload.h"
#include "../../orchctl/ytree.h"
#include "../../orchctl/compose.h"

static char	 dir[PATH_MAX];

/* s mapped: 0 with c filled, or -1 with c->errs */
static int
map(struct compose *c, const char *s)
{
	static struct compose_opts	 o;
	struct ynode			*root;
	char				 err[512];
	int				 r;

	o.file = "f.yml";
	o.dir = dir;
	o.project = "p";
	o.suffix = "x.test";
	root = yt_load(s, strlen(s), err, sizeof(err));
	if (root == NULL) {
		memset(c, 0, sizeof(*c));
		c->errs = strdup(err);
		return (-1);
	}
	r = compose_map(c, &o, root);
	yt_free(root);
	return (r);
}

/* the definition of that name */
static json_t *
def(struct compose *c, const char *name)
{
	json_t	*d;
	size_t	 i;

	json_array_foreach(c->defs, i, d)
		if (strcmp(json_string_value(json_object_get(d, "name")),
		    name) == 0)
			return (d);
	return (NULL);
}

static void
test_mapping(void **state)
{
	struct compose	 c;
	json_t		*w, *d;

	assert_int_equal(map(&c,
	    "services:\n"
	    "  web:\n"
	    "    image: app:1\n"
	    "    command: [\"sh\", \"-c\", \"echo it's $$HOME\"]\n"
	    "    environment:\n"
	    "      A: one\n"
	    "    ports: [\"8001:8000\"]\n"
	    "    depends_on:\n"
	    "      db: {condition: service_healthy}\n"
	    "    healthcheck:\n"
	    "      test: curl -f http://localhost:8000/up || exit 1\n"
	    "      interval: 1m30s\n"
	    "      timeout: 500ms\n"
	    "      retries: 4\n"
	    "    stop_grace_period: 10s\n"
	    "    mem_limit: 256m\n"
	    "    labels: [\"org.orchd.idle-timeout=5m\"]\n"
	    "  db:\n"
	    "    entrypoint: docker-entrypoint.sh\n"
	    "    image: postgres:16\n"
	    "    ports: [\"5433:5432\"]\n"
	    "    volumes: [\"pg:/var/lib/postgresql/data\"]\n"
	    "    deploy: {resources: {limits: {memory: 1g}}}\n"
	    "volumes:\n"
	    "  pg:\n"), 0);
	/* dependencies first */
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(c.defs, 0), "name")), "p-db");
	w = def(&c, "p-web");
	assert_non_null(w);
	assert_string_equal(json_string_value(json_object_get(w, "command")),
	    "'sh' '-c' 'echo it'\\''s $HOME'");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(w, "hosts"), 0)), "web.x.test");
	assert_int_equal(json_integer_value(json_object_get(w, "port")), 8000);
	assert_int_equal(json_integer_value(json_object_get(w, "publish")),
	    8001);
	assert_string_equal(json_string_value(json_object_get(w,
	    "health_path")), "/up");
	assert_int_equal(json_integer_value(json_object_get(w,
	    "health_interval")), 90);
	assert_int_equal(json_integer_value(json_object_get(w,
	    "health_timeout")), 1);
	assert_int_equal(json_integer_value(json_object_get(w,
	    "health_failures")), 4);
	assert_int_equal(json_integer_value(json_object_get(w,
	    "stop_timeout")), 10);
	assert_int_equal(json_integer_value(json_object_get(w, "memory")),
	    256 * 1024 * 1024);
	assert_string_equal(json_string_value(json_object_get(w,
	    "idle_timeout")), "5m");
	assert_string_equal(json_string_value(json_object_get(w, "group")),
	    "p");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(w, "depends_on"), 0)), "p-db");
	d = def(&c, "p-db");
	/* a database with its port mapped: no host, its listener below */
	assert_null(json_object_get(d, "hosts"));
	assert_null(json_object_get(d, "access"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(d, "volumes"), 0), "host")), "pg");
	assert_int_equal(json_integer_value(json_object_get(d, "memory")),
	    1024LL * 1024 * 1024);
	assert_string_equal(json_string_value(json_object_get(d,
	    "entrypoint")), "docker-entrypoint.sh");
	/* its mapped port is its TCP listener, its own unpublished */
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(d, "listen"), 0)), "127.0.0.1:5433");
	assert_null(json_object_get(d, "publish"));
	compose_free(&c);
}

/* each refusal: its file, line, key and why */
static void
test_errors(void **state)
{
	static const struct {
		const char	*yaml;
		const char	*says;
	} t[] = {
		{ "services:\n  a:\n    image: x\n    image: y\n",
		    "line 4: key \"image\" given twice (first at line 3)" },
		{ "x: &a [1]\ny: *a\n", "line 2: alias *a" },
		{ "services:\n\ta: {}\n", "line 2: " },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    privileged: true\n",
		    "f.yml:5: services.a.privileged: not mapped" },
		{ "services:\n  a:\n    build: .\n",
		    "f.yml:3: services.a.build: not mapped" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    tty: true\n",
		    "f.yml:5: services.a.tty: not mapped: orchd does not "
		    "know" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    depends_on: [b]\n  b:\n    image: x\n"
		    "    expose: [\"81\"]\n    depends_on: [a]\n",
		    "depends_on: a cycle" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    env_file: ../x.env\n",
		    "f.yml:5: services.a.env_file: \"../x.env\": outside" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    environment: {A: $HOME}\n",
		    "variables ($NAME, ${NAME}) are not replaced" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    volumes: [\"undeclared:/d\"]\n",
		    "f.yml:5: services.a.volumes: named volume \"undeclared\" "
		    "is not declared" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    volumes: [\"/srv:/d:ro\"]\n", "read-only" },
		{ "services:\n  a:\n    image: x\n",
		    "services.a.ports: none" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    labels: {org.orchd.hots: a.test}\n",
		    "labels.org.orchd.hots: not one of" },
		{ "services:\n  a:\n    image: x\n    expose: [\"80\"]\n"
		    "    stop_grace_period: 5 minutes\n", "is not a duration" },
		{ "configs: {}\nservices:\n  a:\n    image: x\n"
		    "    expose: [\"80\"]\n", "f.yml:1: configs: not mapped" },
	};
	struct compose	 c;
	size_t		 i;

	for (i = 0; i < nitems(t); i++) {
		if (map(&c, t[i].yaml) != -1 || c.errs == NULL ||
		    strstr(c.errs, t[i].says) == NULL)
			fail_msg("case %zu: wanted \"%s\", got \"%s\"", i,
			    t[i].says, c.errs != NULL ? c.errs : "(none)");
		compose_free(&c);
	}
}

/* the reader's bounds: depth, size */
static void
test_bounds(void **state)
{
	char	*deep, err[256];
	size_t	 i, n = 100;

	deep = malloc(2 * n + 1);
	assert_non_null(deep);
	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[2 * n - 1 - i] = ']';
	}
	deep[2 * n] = '\0';
	assert_null(yt_load(deep, strlen(deep), err, sizeof(err)));
	assert_non_null(strstr(err, "nested more than 32 deep"));
	assert_null(yt_load(deep, YT_FILE_MAX + 1, err, sizeof(err)));
	assert_non_null(strstr(err, "at most"));
	free(deep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bounds),
	};

	if (getcwd(dir, sizeof(dir)) == NULL)
		return (1);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
