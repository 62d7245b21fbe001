/*
 * orchctl create and update: a workload's definition as the API takes
 * it, read from a file or standard input, or made from flags (create
 * only).  orchd checks it as it checks the API's; here it is only made
 * into one JSON object that fits a control message.
 *
 *	create FILE | -
 *	create NAME --image X | --command C --host H --port N [...]
 *	update NAME FILE | -
 */

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compat.h"
#include "imsg.h"
#include "parser.h"
#include "workload.h"

/* what fits in one message to orchd's control socket */
#define DEFINE_MAX	(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)

static struct parse_result	 dres;

/* the flags of create NAME, each a field of the definition */
static const struct {
	const char	*flag;
	const char	*field;
	int		 list;		/* repeatable: an array */
	int		 number;	/* an integer */
} define_flags[] = {
	{ "--command",		"command",	0, 0 },
	{ "--driver",		"driver",	0, 0 },
	{ "--env",		"env",		1, 0 },
	{ "--expire-after",	"expire_after",	0, 0 },
	{ "--host",		"hosts",	1, 0 },
	{ "--image",		"image",	0, 0 },
	{ "--memory",		"memory",	0, 0 },
	{ "--network",		"network",	0, 0 },
	{ "--port",		"port",		0, 1 },
	{ "--volume",		"volumes",	1, 0 }
};

static json_t *
define_read(const char *path)
{
	json_error_t	 jerr;
	json_t		*o;
	FILE		*f = stdin;

	if (strcmp(path, "-") != 0 && (f = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	o = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	if (f != stdin)
		fclose(f);
	if (o == NULL)
		errx(1, "%s: line %d: %s", strcmp(path, "-") == 0 ?
		    "standard input" : path, jerr.line, jerr.text);
	if (!json_is_object(o))
		errx(1, "%s: not a JSON object", path);
	return (o);
}

static json_t *
define_value(const char *flag, const char *arg, int number)
{
	const char	*errstr;
	long long	 n;

	if (!number)
		return (json_string(arg));
	n = strtonum(arg, 1, 65535, &errstr);
	if (errstr != NULL)
		errx(1, "%s %s: %s", flag, arg, errstr);
	return (json_integer(n));
}

/* --volume HOST:CONTAINER, as the API's {"host", "container"} */
static json_t *
define_volume(const char *arg)
{
	const char	*colon;
	char		*host;
	json_t		*v;

	if ((colon = strchr(arg, ':')) == NULL || colon == arg ||
	    colon[1] == '\0')
		errx(1, "--volume %s: must be host-path:container-path", arg);
	if ((host = strndup(arg, colon - arg)) == NULL)
		errx(1, "out of memory");
	v = json_pack("{s:s, s:s}", "host", host, "container", colon + 1);
	free(host);
	return (v);
}

/* NAME --flag value ...: one field a flag, lists in their order */
static json_t *
define_flags_parse(int argc, char *argv[])
{
	json_t	*o, *a;
	size_t	 i;
	int	 k;

	if ((o = json_object()) == NULL ||
	    json_object_set_new(o, "name", json_string(argv[0])) == -1)
		errx(1, "out of memory");
	for (k = 1; k < argc; k += 2) {
		for (i = 0; i < nitems(define_flags); i++)
			if (strcmp(argv[k], define_flags[i].flag) == 0)
				break;
		if (i == nitems(define_flags)) {
			warnx("unknown flag: %s", argv[k]);
			return (NULL);
		}
		if (k + 1 >= argc) {
			warnx("%s needs a value", argv[k]);
			return (NULL);
		}
		if (!define_flags[i].list) {
			if (json_object_get(o, define_flags[i].field) != NULL)
				errx(1, "%s given twice", argv[k]);
			if (json_object_set_new(o, define_flags[i].field,
			    define_value(argv[k], argv[k + 1],
			    define_flags[i].number)) == -1)
				errx(1, "out of memory");
			continue;
		}
		if ((a = json_object_get(o, define_flags[i].field)) == NULL) {
			if ((a = json_array()) == NULL ||
			    json_object_set_new(o, define_flags[i].field,
			    a) == -1)
				errx(1, "out of memory");
		}
		if (json_array_append_new(a, strcmp(define_flags[i].field,
		    "volumes") == 0 ? define_volume(argv[k + 1]) :
		    json_string(argv[k + 1])) == -1)
			errx(1, "out of memory");
	}
	return (o);
}

/*
 * The definition in o, decoded and checked here as the API's gateway
 * would, and sent packed: the parent reads no JSON (it checks it all
 * again).
 */
static void
define_done(json_t *o)
{
	struct workload_conf	*wc;
	const char		*name;
	char			*json, err[256];

	name = json_string_value(json_object_get(o, "name"));
	if (name == NULL)
		errx(1, "the definition has no \"name\"");
	if (strlcpy(dres.name, name, sizeof(dres.name)) >= sizeof(dres.name))
		errx(1, "name too long: %s", name);
	if ((json = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) ==
	    NULL)
		errx(1, "out of memory");
	json_decref(o);
	if ((wc = workload_from_json(json, strlen(json), err,
	    sizeof(err))) == NULL)
		errx(1, "%s", err);
	free(json);
	if ((dres.def = workload_wire(wc, &dres.deflen)) == NULL)
		errx(1, "out of memory");
	workload_free(wc);
	if (dres.deflen > DEFINE_MAX)
		errx(1, "definition of %zu bytes: at most %zu go through the "
		    "control socket", dres.deflen, (size_t)DEFINE_MAX);
}

const struct parse_result *
parse_define(int argc, char *argv[])
{
	json_t		*o, *n;
	const char	*name;

	memset(&dres, 0, sizeof(dres));
	if (strcmp(argv[0], "update") == 0) {
		if (argc != 3) {
			warnx("usage: update name file | -");
			return (NULL);
		}
		dres.action = UPDATE;
		o = define_read(argv[2]);
		/* the name given, which the file may leave out */
		name = json_string_value(n = json_object_get(o, "name"));
		if (n != NULL && (name == NULL || strcmp(name, argv[1]) != 0))
			errx(1, "%s: the definition names another workload",
			    argv[2]);
		if (json_object_set_new(o, "name", json_string(argv[1])) == -1)
			errx(1, "out of memory");
		define_done(o);
		return (&dres);
	}
	dres.action = CREATE;
	if (argc == 2) {
		define_done(define_read(argv[1]));
		return (&dres);
	}
	if (argc < 4) {
		warnx("usage: create file | - | name --flag value ...");
		return (NULL);
	}
	if (argv[1][0] == '-')
		errx(1, "create: a name first, then its flags");
	if ((o = define_flags_parse(argc - 1, argv + 1)) == NULL)
		return (NULL);
	define_done(o);
	return (&dres);
}
