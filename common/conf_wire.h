/*
 * The global settings of orchd.conf, described once (common/conf_wire.c):
 * a row per setting of struct orchd_conf that confd (confd/) reads and
 * the root parent takes.  confd sends each row's value as one
 * IMSG_CONF_SET; the parent checks it against the same row (its type,
 * length, bounds, terminator and rule) before it stores it.  A setting
 * missing from the table does not cross: the parent holds its zero.
 */

#ifndef ORCHD_CONF_WIRE_H
#define ORCHD_CONF_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"

enum cf_type {
	CF_NUM,			/* int64_t from min to max */
	CF_INT,			/* int from min to max */
	CF_STRING,		/* char *; NULL: not set, not sent */
	CF_CHARS,		/* char[size], a string */
	CF_STRLIST,		/* struct strlist: a message an entry */
	CF_BYTES		/* size bytes, judged by check alone */
};

struct conf_field {
	const char	*name;		/* its keyword, for errors */
	enum cf_type	 type;
	size_t		 off;		/* in struct orchd_conf */
	size_t		 size;		/* CF_CHARS, CF_BYTES */
	int64_t		 min, max;	/* CF_NUM, CF_INT */
	int		 required;	/* must come: every number, array
					   and CF_CHARS; the strings marked */
	/* its own rule, after its type's; NULL: none */
	int		(*check)(const void *, size_t, char *, size_t);
};

extern const struct conf_field	conf_fields[];
extern const size_t		conf_nfields;

/* each setting of a configuration, as conf_set and its bytes */
typedef int	(*conf_put_fn)(void *, const struct conf_set *,
		    const void *);
int		 conf_settings_put(const struct orchd_conf *, conf_put_fn,
		    void *);
/*
 * One IMSG_CONF_SET's payload into a configuration: its row, or -1 and
 * why.  Once all have come, conf_settings_missing() says whether a row
 * that must come did not (seen[] marks the rows taken).
 */
int		 conf_setting_take(struct orchd_conf *, const void *, size_t,
		    char *, size_t);
int		 conf_settings_missing(const uint8_t *, char *, size_t);
/* a string of a message: NUL-terminated within len, printable */
int		 conf_string_ok(const char *, size_t);

#endif /* ORCHD_CONF_WIRE_H */
