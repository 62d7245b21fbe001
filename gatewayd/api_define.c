/*
 * The API's definitions, decoded in the gateway: a create's body, a
 * PUT's, and a PATCH's merged (RFC 7396, common/merge.c) onto the
 * definition this gateway holds, which the parent sent it in the
 * configuration.  Each is decoded and checked here with the one set of
 * rules (workload_from_json) and sent to the parent packed
 * (common/workload_wire.c): the parent reads no JSON from a child
 * (DESIGN.md, trust rule 10), and checks it all again.
 *
 * A PATCH says which definition it was merged onto (its
 * workload_wire_hash); the parent refuses it with 409 if its definition
 * has changed since, so that no update is lost to another made
 * meanwhile.
 */

#include <sys/types.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "workload.h"
#include "api_req.h"

/* the request's body, a JSON object; NULL when answered */
static json_t *
define_body(struct api_req *r)
{
	json_error_t	 jerr;
	json_t		*o;
	char		 msg[256];
	size_t		 len = r->body != NULL ?
			    evbuffer_get_length(r->body) : 0;

	if (len == 0) {
		api_error(r, 400, "a JSON body is required", NULL);
		return (NULL);
	}
	if ((o = json_loadb((const char *)evbuffer_pullup(r->body, -1), len,
	    JSON_REJECT_DUPLICATES, &jerr)) == NULL) {
		snprintf(msg, sizeof(msg), "invalid JSON: %s (line %d, "
		    "column %d)", jerr.text, jerr.line, jerr.column);
		api_error(r, 400, msg, NULL);
		return (NULL);
	}
	if (!json_is_object(o)) {
		json_decref(o);
		api_error(r, 400, "expected a JSON object", NULL);
		return (NULL);
	}
	return (o);
}

/*
 * o decoded and checked, packed after head bytes of room: NULL when
 * answered.  o is released.
 */
static void *
define_pack(struct api_req *r, json_t *o, size_t head, size_t *len)
{
	struct workload_conf	*wc;
	char			*text, *msg, err[CTL_MSG_MAX];
	void			*def;
	size_t			 deflen;

	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return (NULL);
	}
	if (strlen(text) > ORCHD_API_JSON_MAX) {
		free(text);
		api_error(r, 413, "workload too large", NULL);
		return (NULL);
	}
	wc = workload_from_json(text, strlen(text), err, sizeof(err));
	free(text);
	if (wc == NULL) {
		api_error(r, 400, err, NULL);
		return (NULL);
	}
	wc->source = SOURCE_API;
	def = workload_wire(wc, &deflen);
	workload_free(wc);
	if (def == NULL || (msg = malloc(head + deflen)) == NULL) {
		free(def);
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return (NULL);
	}
	memcpy(msg + head, def, deflen);
	free(def);
	*len = head + deflen;
	return (msg);
}

/* POST: the definition packed, for IMSG_API_CREATE; NULL when answered */
void *
api_define_create(struct api_req *r, size_t *len)
{
	json_t	*o, *name;

	if ((o = define_body(r)) == NULL)
		return (NULL);
	/* for the answer, once the parent has made it; it checks the name */
	if ((name = json_object_get(o, "name")) != NULL &&
	    json_is_string(name))
		strlcpy(r->t.name, json_string_value(name),
		    sizeof(r->t.name));
	return (define_pack(r, o, 0, len));
}

/*
 * The workload to update: one of the API's, and its definition, to give
 * back with wldef_put(); NULL when answered.
 */
static struct workload_conf *
define_current(struct api_req *r, struct gw_workload **wlp)
{
	struct gw_workload	*wl;
	struct workload_conf	*wc;
	char			 msg[CTL_MSG_MAX];

	if ((wl = api_workload(r->t.name)) == NULL) {
		snprintf(msg, sizeof(msg), "no such workload: %s", r->t.name);
		api_error(r, 404, msg, NULL);
		return (NULL);
	}
	if ((wc = wldef_get(wl)) == NULL) {
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return (NULL);
	}
	if (wc->source != SOURCE_API) {
		wldef_put(wl, wc);
		snprintf(msg, sizeof(msg), "workload \"%s\" is defined in the "
		    "configuration file: change it there", r->t.name);
		api_error(r, 409, msg, NULL);
		return (NULL);
	}
	*wlp = wl;
	return (wc);
}

/* a PATCH's body merged onto cur; NULL when answered */
static json_t *
define_merge(struct api_req *r, const struct workload_conf *cur,
    json_t *body)
{
	json_error_t	 jerr;
	json_t		*old, *o;
	char		*text;

	if ((text = workload_to_json(cur)) == NULL ||
	    (old = json_loads(text, 0, &jerr)) == NULL) {
		free(text);
		api_error(r, 503, "out of memory", RETRY_AFTER);
		return (NULL);
	}
	free(text);
	o = json_merge_patch(old, body);
	json_decref(old);
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		api_error(r, 400, o == NULL ? "the patch cannot be applied" :
		    "expected a JSON object", NULL);
		return (NULL);
	}
	return (o);
}

/*
 * PUT and PATCH: struct api_update, then the whole new definition
 * packed, for IMSG_API_UPDATE; NULL when answered.  The name is the
 * path's: said again, or left out.
 */
void *
api_define_update(struct api_req *r, size_t *len)
{
	struct gw_workload		*wl;
	struct workload_conf		*cur;
	struct api_update		 au;
	json_t				*body, *o, *name;
	char				*msg, err[CTL_MSG_MAX];

	if ((cur = define_current(r, &wl)) == NULL)
		return (NULL);
	if ((body = define_body(r)) == NULL) {
		wldef_put(wl, cur);
		return (NULL);
	}
	memset(&au, 0, sizeof(au));
	strlcpy(au.name, r->t.name, sizeof(au.name));
	if (r->t.op == API_PATCH) {
		au.patch = 1;
		au.base = workload_wire_hash(cur);
		o = define_merge(r, cur, body);
		json_decref(body);
	} else
		o = body;
	wldef_put(wl, cur);
	if (o == NULL)
		return (NULL);
	name = json_object_get(o, "name");
	if (name == NULL)
		(void)json_object_set_new(o, "name", json_string(r->t.name));
	else if (!json_is_string(name) ||
	    strcmp(json_string_value(name), r->t.name) != 0) {
		json_decref(o);
		snprintf(err, sizeof(err), "field \"name\": a workload cannot "
		    "be renamed (it is \"%s\")", r->t.name);
		api_error(r, 400, err, NULL);
		return (NULL);
	}
	if ((msg = define_pack(r, o, sizeof(au), len)) != NULL)
		memcpy(msg, &au, sizeof(au));
	return (msg);
}
