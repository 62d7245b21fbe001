/*
 * RFC 7396 JSON merge patch: a patch that is an object changes the
 * members it names (null removes one, an object merges into the one
 * there, anything else replaces it) and keeps the rest; a patch that is
 * not an object replaces the whole.  Arrays are replaced, never merged.
 *
 * Neither input is changed: the result is a new value, and NULL when
 * memory runs out or the patch nests objects deeper than
 * MERGE_DEPTH_MAX, which no workload definition does.
 */

#include <stddef.h>

#include "merge.h"

static json_t	*merge(const json_t *, const json_t *, int);

/* target's members changed as patch, an object, says; a new object */
static json_t *
merge_object(const json_t *target, const json_t *patch, int depth)
{
	const char	*key;
	json_t		*out, *v, *m;

	/* a target that is not an object is taken for an empty one */
	if (json_is_object(target))
		out = json_deep_copy(target);
	else
		out = json_object();
	if (out == NULL)
		return (NULL);
	json_object_foreach((json_t *)patch, key, v) {
		if (json_is_null(v)) {
			(void)json_object_del(out, key);
			continue;
		}
		if ((m = merge(json_object_get(out, key), v, depth + 1)) ==
		    NULL || json_object_set_new(out, key, m) == -1) {
			json_decref(out);
			return (NULL);
		}
	}
	return (out);
}

static json_t *
merge(const json_t *target, const json_t *patch, int depth)
{
	if (depth > MERGE_DEPTH_MAX)
		return (NULL);
	if (!json_is_object(patch))
		return (json_deep_copy(patch));
	return (merge_object(target, patch, depth));
}

/* target (may be NULL: none) with patch applied; NULL if it fails */
json_t *
json_merge_patch(const json_t *target, const json_t *patch)
{
	if (patch == NULL)
		return (NULL);
	return (merge(target, patch, 0));
}
