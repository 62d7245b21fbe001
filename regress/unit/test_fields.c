/*
 * Unit tests for the table of a workload's fields
 * (common/workload_fields.c): its rows are consistent with each other,
 * and the field list of man/orchd-api.7 (POST /v1/workloads) names every
 * field the API may set and the words of each, and no field the table
 * lacks.  And the field added as the table's exercise, description: one
 * row, read and written, checked, packed, and no drift.
 *
 * Run from the top of the tree: the man page is read from man/.
 */

#include <sys/queue.h>

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "workload.h"
#include "workload_fields.h"

#define MANPAGE		"man/orchd-api.7"
#define ITEM_FIRST	".It Li POST /v1/workloads"
#define ITEM_NEXT	".It Li "
#define WORDS_MAX	512

/* the words of the page's POST item that look like names: ".Li word" */
static size_t
page_words(char words[][64], size_t max)
{
	FILE	*fp;
	char	 line[1024], *p, *q;
	size_t	 n = 0;
	int	 in = 0;

	assert_non_null(fp = fopen(MANPAGE, "r"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, ITEM_FIRST, strlen(ITEM_FIRST)) == 0 &&
		    (line[strlen(ITEM_FIRST)] == '\n')) {
			in = 1;
			continue;
		}
		if (in && strncmp(line, ITEM_NEXT, strlen(ITEM_NEXT)) == 0)
			break;
		if (!in || strncmp(line, ".Li ", 4) != 0)
			continue;
		/* .Li \(dqh2c\(dq , -> h2c */
		p = line + 4;
		if (strncmp(p, "\\(dq", 4) == 0)
			p += 4;
		for (q = p; *q != '\0' && *q != ' ' && *q != '\n' &&
		    *q != '\\'; q++)
			;
		*q = '\0';
		if (*p == '\0' || n >= max)
			continue;
		(void)strlcpy(words[n++], p, sizeof(words[0]));
	}
	fclose(fp);
	assert_true(in);
	return (n);
}

static int
listed(const char *s, const char **l, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(s, l[i]) == 0)
			return (1);
	return (0);
}

static int
on_page(const char *s, char words[][64], size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return (1);
	return (0);
}

/* every field the API may set is on the page, with each of its words */
static void
test_manpage_fields(void **state)
{
	static char		 words[WORDS_MAX][64];
	const struct wl_field	*f;
	const struct wl_word	*w;
	size_t			 i, n;
	int			 bad = 0;

	n = page_words(words, WORDS_MAX);
	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		if (!(f->flags & WF_API))
			continue;
		if (!on_page(f->json, words, n)) {
			print_message("%s: field %s is not listed\n", MANPAGE,
			    f->json);
			bad++;
			continue;
		}
		if (f->type != WF_WORD || f->words == wl_sources)
			continue;
		for (w = f->words; w->name != NULL; w++)
			if (!on_page(w->name, words, n)) {
				print_message("%s: %s \"%s\" is not listed\n",
				    MANPAGE, f->json, w->name);
				bad++;
			}
	}
	/*
	 * A name with '_' on the page is a field of the table, or a word
	 * or member the page says is not one: on_change's next_wake, the
	 * gateway's JSON errors' retry_after.
	 */
	for (i = 0; i < n; i++)
		if (strchr(words[i], '_') != NULL &&
		    wl_field_json(words[i]) == NULL && !listed(words[i],
		    (const char *[]){ "next_wake", "retry_after", "every_wake" }, 3)) {
			print_message("%s: \"%s\" is no field\n", MANPAGE,
			    words[i]);
			bad++;
		}
	assert_int_equal(bad, 0);
}

/* names once each, the file's keyword with a place in orchd -nv */
static void
test_table(void **state)
{
	const struct wl_field	*f, *g;
	size_t			 i, j;

	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		assert_non_null(f->json);
		assert_ptr_equal(wl_field_json(f->json), f);
		assert_true((f->type == WF_WORD) == (f->words != NULL));
		assert_true(f->off < sizeof(struct workload_conf));
		if (f->conf != NULL && f->type != WF_NAME)
			assert_true(f->nv > 0);
		for (j = i + 1; j < wl_nfields; j++) {
			g = &wl_fields[j];
			if (f->conf != NULL && g->conf != NULL)
				assert_string_not_equal(f->conf, g->conf);
			if (f->nv != 0)
				assert_int_not_equal(f->nv, g->nv);
			assert_int_not_equal(f->off, g->off);
		}
	}
}

#define DESC_JSON	"{\"name\":\"d\",\"hosts\":[\"d.test\"],\"port\":1," \
			"\"command\":\"/bin/true\",\"description\":%s}"

static struct workload_conf *
with_description(const char *value, char *err, size_t errlen)
{
	char	 text[1024];

	(void)snprintf(text, sizeof(text), DESC_JSON, value);
	return (workload_from_json(text, strlen(text), err, errlen));
}

/* the exercise: a field that is one row of the table */
static void
test_description(void **state)
{
	struct workload_conf	*wl, *back, *packed;
	char			 err[256], buf[64], big[400];
	char			*json;

	wl = with_description("\"the docs, previewed\"", err, sizeof(err));
	assert_non_null(wl);
	assert_string_equal(wl->description, "the docs, previewed");
	assert_non_null(json = workload_to_json(wl));
	assert_non_null(strstr(json,
	    ",\"description\":\"the docs, previewed\""));
	assert_non_null(back = workload_from_json(json, strlen(json), err,
	    sizeof(err)));
	assert_string_equal(back->description, wl->description);
	free(json);
	/* packed with the rest */
	assert_non_null(packed = workload_pack(wl));
	assert_string_equal(packed->description, wl->description);
	assert_ptr_not_equal(packed->description, wl->description);
	/* a new text needs no restart */
	free(back->description);
	back->description = strdup("another");
	assert_int_equal(workload_diff(wl, back, buf, sizeof(buf)), 0);
	workload_free(packed);
	workload_free(back);
	workload_free(wl);

	/* a string of text, not too long, not empty */
	assert_null(with_description("1", err, sizeof(err)));
	assert_string_equal(err, "field \"description\": must be a string");
	assert_null(with_description("\"a\\nb\"", err, sizeof(err)));
	assert_string_equal(err, "description: invalid character "
	    "(control character or invalid UTF-8)");
	assert_null(with_description("\"\"", err, sizeof(err)));
	assert_string_equal(err, "description: must not be empty");
	memset(big, 'x', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = '\0';
	assert_null(with_description(big, err, sizeof(err)));
	assert_string_equal(err, "description: at most 256 bytes");
	/* without one, none is written */
	wl = with_description("\"x\"", err, sizeof(err));
	assert_non_null(wl);
	free(wl->description);
	wl->description = NULL;
	assert_non_null(json = workload_to_json(wl));
	assert_null(strstr(json, "description"));
	free(json);
	workload_free(wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_manpage_fields),
		cmocka_unit_test(test_description),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
