/*
 * Unit tests for common/merge.c: RFC 7396 JSON merge patch, with the
 * RFC's own examples (its section 3 and appendix A), and the bounds.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "merge.h"

static json_t *
load(const char *text)
{
	json_error_t	 jerr;
	json_t		*v;

	if ((v = json_loads(text, JSON_DECODE_ANY, &jerr)) == NULL)
		fail_msg("%s: %s", text, jerr.text);
	return (v);
}

/* original with patch applied equals result, and neither input changed */
static void
expect(const char *original, const char *patch, const char *result)
{
	json_t	*o, *p, *r, *want, *o2, *p2;
	char	*got;

	o = load(original);
	p = load(patch);
	o2 = json_deep_copy(o);
	p2 = json_deep_copy(p);
	want = load(result);
	r = json_merge_patch(o, p);
	assert_non_null(r);
	if (!json_equal(r, want)) {
		got = json_dumps(r, JSON_ENCODE_ANY | JSON_SORT_KEYS);
		fail_msg("%s + %s: got %s, want %s", original, patch,
		    got != NULL ? got : "?", result);
	}
	assert_true(json_equal(o, o2));
	assert_true(json_equal(p, p2));
	json_decref(o);
	json_decref(p);
	json_decref(o2);
	json_decref(p2);
	json_decref(want);
	json_decref(r);
}

static void
test_rfc_appendix(void **state)
{
	expect("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
	expect("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
	expect("{\"a\":\"b\"}", "{\"a\":null}", "{}");
	expect("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
	expect("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
	expect("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
	expect("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
	    "{\"a\":{\"b\":\"d\"}}");
	expect("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
	expect("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
	expect("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
	expect("{\"a\":\"foo\"}", "null", "null");
	expect("{\"a\":\"foo\"}", "\"bar\"", "\"bar\"");
	expect("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
	expect("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
	expect("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}",
	    "{\"a\":{\"bb\":{}}}");
}

/* the RFC's section 3: a document changed in several places at once */
static void
test_rfc_example(void **state)
{
	expect("{\"title\":\"Goodbye!\",\"author\":{\"givenName\":\"John\","
	    "\"familyName\":\"Doe\"},\"tags\":[\"example\",\"sample\"],"
	    "\"content\":\"This will be unchanged\"}",
	    "{\"title\":\"Hello!\",\"phoneNumber\":\"+01-123-456-7890\","
	    "\"author\":{\"familyName\":null},\"tags\":[\"example\"]}",
	    "{\"title\":\"Hello!\",\"author\":{\"givenName\":\"John\"},"
	    "\"tags\":[\"example\"],\"content\":\"This will be unchanged\","
	    "\"phoneNumber\":\"+01-123-456-7890\"}");
}

/* what PATCH /v1/workloads/{id} does with a definition */
static void
test_workload(void **state)
{
	expect("{\"name\":\"w\",\"env\":[\"A=1\",\"B=2\"],\"port\":8080}",
	    "{\"env\":null}", "{\"name\":\"w\",\"port\":8080}");
	expect("{\"name\":\"w\",\"env\":[\"A=1\",\"B=2\"],\"port\":8080}",
	    "{\"env\":[\"C=3\"],\"port\":8081}",
	    "{\"name\":\"w\",\"env\":[\"C=3\"],\"port\":8081}");
	expect("{\"name\":\"w\"}", "{}", "{\"name\":\"w\"}");
}

static void
test_depth(void **state)
{
	json_t	*t, *p, *r, *inner;
	int	 i;

	/* nested just within the bound: merged */
	t = json_object();
	p = json_object();
	inner = p;
	for (i = 0; i < MERGE_DEPTH_MAX; i++) {
		json_t	*o = json_object();

		assert_int_equal(json_object_set_new(inner, "a", o), 0);
		inner = o;
	}
	r = json_merge_patch(t, p);
	assert_non_null(r);
	json_decref(r);
	/* one deeper: refused */
	assert_int_equal(json_object_set_new(inner, "a", json_object()), 0);
	assert_null(json_merge_patch(t, p));
	/* no patch, or no target */
	assert_null(json_merge_patch(t, NULL));
	r = json_merge_patch(NULL, t);
	assert_non_null(r);
	assert_true(json_equal(r, t));
	json_decref(r);
	json_decref(t);
	json_decref(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc_appendix),
		cmocka_unit_test(test_rfc_example),
		cmocka_unit_test(test_workload),
		cmocka_unit_test(test_depth),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
