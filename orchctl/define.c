/*
 * orchctl create and update: a workload's definition as the API takes
 * it, read from a file or standard input, or made from flags (create
 * only).  orchd checks it as it checks the API's; here it is only made
 * into one JSON object that fits a control message.
 *
 *	create FILE | -
 *	create NAME --command C | --driver docker --image X
 *	    --host H --port N [...]
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
#include "units.h"
#include "workload.h"

/* what fits in one message to orchd's control socket */
#define DEFINE_MAX	(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)

static struct parse_result	 dres;

/*
 * The flags of create NAME, each a field of the definition; orchctl -h
 * and the shell's completion list them from here.
 */
static const struct {
	const char	*flag;
	const char	*arg;		/* -h: its value */
	const char	*field;
	int		 list;		/* repeatable: an array */
	int		 number;	/* an integer */
} define_flags[] = {
	{ "--command",	"command",	"command",	0, 0 },
	{ "--cpu",	"CPUs",		"cpu",		0, 0 },
	{ "--driver",	"process | docker | swarm", "driver", 0, 0 },
	{ "--env",	"NAME=value",	"env",		1, 0 },
	{ "--expire-after", "time",	"expire_after",	0, 0 },
	{ "--host",	"host",		"hosts",	1, 0 },
	{ "--image",	"image",	"image",	0, 0 },
	{ "--memory",	"size",		"memory",	0, 0 },
	{ "--network",	"network",	"network",	0, 0 },
	{ "--pids",	"number",	"pids",		0, 1 },
	{ "--port",	"port",		"port",		0, 1 },
	{ "--volume",	"host-path:container-path", "volumes", 1, 0 }
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

/*
 * argv[0] is the command's word: create, or update, whose file is read
 * by define_load once orchd has said it has the workload.
 */
const struct parse_result *
parse_define(int action, int argc, char *argv[])
{
	json_t		*o;

	memset(&dres, 0, sizeof(dres));
	if (action == UPDATE) {
		if (argc != 3) {
			warnx("usage: update name file | -");
			return (NULL);
		}
		if (strlcpy(dres.name, argv[1], sizeof(dres.name)) >=
		    sizeof(dres.name) || !valid_workload_name(argv[1])) {
			warnx("invalid workload name: %s", argv[1]);
			return (NULL);
		}
		dres.action = UPDATE;
		dres.file = argv[2];
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

/* update: the definition read and checked, given the name on the line */
const struct parse_result *
define_load(void)
{
	json_t		*o, *n;
	const char	*name;

	o = define_read(dres.file);
	/* the name given, which the file may leave out */
	name = json_string_value(n = json_object_get(o, "name"));
	if (n != NULL && (name == NULL || strcmp(name, dres.name) != 0))
		errx(1, "%s: the definition names another workload",
		    dres.file);
	if (json_object_set_new(o, "name", json_string(dres.name)) == -1)
		errx(1, "out of memory");
	define_done(o);
	return (&dres);
}

/* orchctl -h: how create's flags make a definition */
void
define_usage(FILE *f)
{
	size_t	 i;

	fprintf(f, "create's flags, a process's (the default driver) or "
	    "a container's:\n"
	    "  create name --command c --host h --port n [--flag value ...]\n"
	    "  create name --driver docker --image i --host h --port n "
	    "[...]\n");
	for (i = 0; i < nitems(define_flags); i++)
		fprintf(f, "  %s %s%s\n", define_flags[i].flag,
		    define_flags[i].arg, define_flags[i].list ?
		    " (may be repeated)" : "");
}

/*
 * orchctl complete, after create or update (argv[0]): update's workload
 * name, or a flag of create where one goes (create NAME --flag value
 * ...).  A file or a flag's value: nothing, the shell's files.
 */
void
define_complete(int action, int argc, char *argv[],
    void (*names)(const char *))
{
	const char	*cur = argv[argc - 1];
	size_t		 i, len = strlen(cur);

	if (action == UPDATE) {
		if (argc == 2)
			names(cur);
		return;
	}
	if (argc < 3 || argc % 2 == 0)
		return;
	for (i = 0; i < nitems(define_flags); i++)
		if (strncmp(cur, define_flags[i].flag, len) == 0)
			printf("%s\n", define_flags[i].flag);
}
