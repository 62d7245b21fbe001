/*
 * A workload's fields, described once: common/workload_fields.c holds one
 * row per field of struct workload_conf, and validation, the JSON codec,
 * packing, workload_diff(), orchd -nv and orchctl's show workload all
 * loop over it.  A field of a type that exists is one row; a new type is
 * a row and its checker in each of those loops.
 */

#ifndef ORCHD_WORKLOAD_FIELDS_H
#define ORCHD_WORKLOAD_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* how a field is held, read, written, checked, copied and compared */
enum wf_type {
	WF_NAME,		/* char[ORCHD_NAME_MAX], its name */
	WF_WORD,		/* int: one of words, or dflt */
	WF_NETWORK,		/* enum workload_network, and netname */
	WF_STRING,		/* char *, NULL: not given */
	WF_STRLIST,		/* struct strlist */
	WF_VOLUMES,		/* struct volumelist */
	WF_IGNORES,		/* struct ignorelist */
	WF_BOOL,		/* int: 0 or 1, or dflt */
	WF_INT,			/* int from min to max, or dflt */
	WF_PORT,		/* uint16_t from min to max, or 0 */
	WF_ID,			/* int64_t from min to max, or dflt */
	WF_DURATION,		/* int64_t seconds, or dflt */
	WF_SIZE,		/* int64_t bytes, 0: none */
	WF_SIGNAL,		/* int, a signal number, 0: none */
	WF_CPU			/* int64_t thousandths of a CPU, 0: none */
};

/* who may set a field, and what a change of it does */
#define WF_API		0x0001	/* the API may set it (policy.c) */
#define WF_PARENT	0x0002	/* only the parent gives it, never read
				   back from the API or the store */
#define WF_DRIFT	0x0004	/* a running instance is made of it: a
				   change needs a restart (workload_diff) */
#define WF_DOCKER	0x0008	/* only for the drivers with an image */
#define WF_SWARM	0x0010	/* only for driver swarm */
#define WF_ALWAYS	0x0020	/* in JSON even when not given */
#define WF_REQUIRED	0x0040	/* the definition must give it */
#define WF_LOOSE	0x0080	/* JSON: a bad word is named without
				   "must be" (upstream, as it always was) */
#define WF_GIVEN	0x0100	/* the parent's, to its children alone:
				   never in JSON, nor in the wire hash */

struct wl_field {
	const char		*json;	/* its member in the JSON form */
	const char		*conf;	/* its keyword in orchd.conf; NULL:
					   not in the file */
	const char		*label;	/* its name in errors, if not conf */
	enum wf_type		 type;
	size_t			 off;	/* in struct workload_conf */
	int64_t			 dflt;	/* not given (numbers, words) */
	const char		*sdflt;	/* not given (a string) */
	int64_t			 min, max; /* a number's bounds; 0: none */
	const struct wl_word	*words;	/* WF_WORD */
	const char		*alias;	/* WF_WORD: another word for the
					   first value, as orchd.conf says
					   it ("next wake") */
	int			 flags;
	const char		*allow;	/* the "api allow" the API needs to
					   set it; NULL: none, or never */
	int			 nv;	/* its place in orchd -nv, 0 none */
	const char		*show;	/* its line in orchctl show
					   workload; NULL: not shown */
	const char		*show_dflt; /* shown when it is not given */
	/* its own rule, after its type's; NULL: none */
	int			(*check)(const struct workload_conf *,
				    const struct wl_field *, size_t *,
				    char *, size_t);
};

extern const struct wl_field	wl_fields[];
extern const size_t		wl_nfields;

#define WF_PTR(wl, f)	((void *)((char *)(wl) + (f)->off))
#define WF_CPTR(wl, f)	((const void *)((const char *)(wl) + (f)->off))

const struct wl_field	*wl_field_json(const char *);
const char		*wl_field_label(const struct wl_field *);
int64_t			 wl_field_num(const struct workload_conf *,
			    const struct wl_field *);
void			 wl_field_set_num(struct workload_conf *,
			    const struct wl_field *, int64_t);
int			 wl_field_given(const struct workload_conf *,
			    const struct wl_field *);
int			 wl_field_set_string(struct workload_conf *,
			    const char *, const char *, char *, size_t);

#endif /* ORCHD_WORKLOAD_FIELDS_H */
