/*
 * orchctl import compose FILE [--project NAME] [--host-suffix SUFFIX]
 * [--dry-run]: a Compose file's services made API workloads, one a
 * service, named PROJECT-SERVICE and grouped under the project.  The
 * YAML is read here, on the client side, unprivileged: no daemon parses
 * YAML.  Each definition is checked as create checks one before any is
 * sent, then they are created (or, for a project imported before,
 * updated in place) through the same control requests and the same
 * policy as orchctl create; when one is refused, those done are undone,
 * so an import is all or nothing.  Members of the project that the file
 * no longer has are deleted.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "compat.h"
#include "msg.h"
#include "units.h"
#include "workload.h"
#include "workload_fields.h"
#include "orchctl.h"
#include "ctlcall.h"
#include "compose.h"
#include "ytree.h"

#define DEFINE_MAX	(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)

/* the file's bytes, at most YT_FILE_MAX */
static char *
import_read(const char *path, size_t *len)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 r;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		err(1, "%s", path);
	if (fstat(fd, &st) == -1)
		err(1, "%s", path);
	if (!S_ISREG(st.st_mode))
		errx(1, "%s: not a regular file", path);
	if (st.st_size > YT_FILE_MAX)
		errx(1, "%s: %lld bytes: a Compose file is at most %d",
		    path, (long long)st.st_size, YT_FILE_MAX);
	if ((buf = malloc(st.st_size + 1)) == NULL)
		err(1, NULL);
	if ((r = read(fd, buf, st.st_size)) != st.st_size)
		errx(1, "%s: cannot be read", path);
	close(fd);
	buf[r] = '\0';
	*len = r;
	return (buf);
}

/* "run_once" on the jobs others wait for (when this orchd has it) */
static void
import_jobs(json_t *defs)
{
	json_t		*d, *j, *o;
	size_t		 i, k, m;

	json_array_foreach(defs, i, d) {
		json_array_foreach(json_object_get(d, "@run_once"), k, j)
			json_array_foreach(defs, m, o)
				if (strcmp(json_string_value(json_object_get(o,
				    "name")), json_string_value(j)) == 0)
					json_object_set_new(o, "run_once",
					    json_string("once"));
		json_object_del(d, "@run_once");
	}
}

/* a definition as the API takes it: checked, packed; NULL with why */
static void *
import_pack(json_t *d, size_t *len, char *why, size_t whylen)
{
	struct workload_conf	*wc;
	json_t			*o;
	char			*json;
	void			*def;

	o = json_deep_copy(d);
	json_object_del(o, "@listen");
	json = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (json == NULL)
		errx(1, "out of memory");
	wc = workload_from_json(json, strlen(json), why, whylen);
	free(json);
	if (wc == NULL)
		return (NULL);
	def = workload_wire(wc, len);
	workload_free(wc);
	if (def != NULL && *len > DEFINE_MAX) {
		snprintf(why, whylen, "definition of %zu bytes: at most %zu",
		    *len, (size_t)DEFINE_MAX);
		free(def);
		return (NULL);
	}
	return (def);
}

/* --dry-run: one workload block of orchd.conf, from its row's keyword */
static void
print_value(const struct wl_field *f, json_t *v)
{
	const char	*s;
	char		*q;

	if (json_is_integer(v)) {
		printf(" %lld%s", (long long)json_integer_value(v),
		    f->type == WF_DURATION ? "s" : "");
		return;
	}
	if (json_is_true(v) || json_is_false(v)) {
		printf(" %s", json_is_true(v) ? "yes" : "no");
		return;
	}
	if ((s = json_string_value(v)) == NULL)
		return;
	if (f->type == WF_WORD || f->type == WF_SIGNAL ||
	    f->type == WF_DURATION || f->type == WF_SIZE || f->type == WF_CPU ||
	    (f->type == WF_NETWORK && (strcmp(s, "host") == 0 ||
	    strcmp(s, "bridge") == 0))) {
		printf(" %s", s);
		return;
	}
	printf(" \"");
	for (q = (char *)s; *q != '\0'; q++) {
		if (*q == '"' || *q == '\\')
			putchar('\\');
		putchar(*q);
	}
	printf("\"");
}

/* a list: its keyword once an item; a named volume as a comment */
static void
print_list(const struct wl_field *f, json_t *v)
{
	json_t	*e;
	size_t	 i;

	json_array_foreach(v, i, e) {
		if (!json_is_object(e)) {
			printf("\t%s", f->conf);
			print_value(f, e);
			printf("\n");
			continue;
		}
		/* a named one: a directory the API makes */
		if (json_string_value(json_object_get(e, "host"))[0] != '/')
			printf("\t# API volume, under api allow volume:");
		printf("\t%s", f->conf);
		print_value(f, json_object_get(e, "host"));
		print_value(f, json_object_get(e, "container"));
		printf("\n");
	}
}

static void
print_block(json_t *d)
{
	const struct wl_field	*f;
	const char		*k;
	json_t			*v, *e;
	size_t			 i;

	printf("workload \"%s\" {\n", json_string_value(json_object_get(d,
	    "name")));
	json_object_foreach(d, k, v) {
		/* "health path" says both */
		if (strcmp(k, "name") == 0 || (strcmp(k, "health") == 0 &&
		    json_object_get(d, "health_path") != NULL))
			continue;
		if (strcmp(k, "access") == 0) {
			/* "deny all": deny from all */
			json_array_foreach(v, i, e) {
				const char *a = json_string_value(e);

				printf("\t%.*s from %s\n", (int)strcspn(a, " "),
				    a, a + strcspn(a, " ") + 1);
			}
			continue;
		}
		if (strcmp(k, "@listen") == 0) {
			json_array_foreach(v, i, e)
				printf("\t# listen on 127.0.0.1 port %s: a TCP "
				    "listener is orchd.conf's alone, with a "
				    "publish of another port\n",
				    strchr(json_string_value(e), ':') + 1);
			continue;
		}
		if ((f = wl_field_json(k)) == NULL || f->conf == NULL) {
			printf("\t# %s: the API's alone\n", k);
			continue;
		}
		/* its words are the grammar's: "run once [every wake]" */
		if (strcmp(k, "run_once") == 0) {
			if (strcmp(json_string_value(v), "off") != 0)
				printf("\trun once%s\n", strcmp(
				    json_string_value(v), "every_wake") == 0 ?
				    " every wake" : "");
			continue;
		}
		if (json_is_array(v)) {
			print_list(f, v);
			continue;
		}
		if (f->type == WF_BOOL) {
			if (json_is_true(v))
				printf("\t%s\n", f->conf);
			continue;
		}
		printf("\t%s", f->conf);
		print_value(f, v);
		printf("\n");
	}
	printf("}\n");
}

struct done {
	char	 name[ORCHD_NAME_MAX];
	int	 updated;	/* it was there before */
	void	*old;		/* ... its definition before, if it can
				   be had whole */
	size_t	 oldlen;
};

/* undo what was done, last first: how many could not be */
static int
import_undo(const char *sock, struct done *done, size_t n)
{
	char	 e[256];
	int	 kept = 0;

	while (n-- > 0) {
		if (done[n].updated && done[n].old == NULL) {
			warnx("%s: its former definition cannot be restored "
			    "(orchd shows no env values): the new one stays",
			    done[n].name);
			kept++;
			continue;
		}
		if (done[n].old == NULL) {
			if (ctl_call_name(sock, IMSG_CTL_DELETE, done[n].name,
			    e, sizeof(e)) == -1) {
				warnx("%s: cannot delete it again: %s",
				    done[n].name, e);
				kept++;
			} else
				printf("%s deleted again\n", done[n].name);
		} else if (ctl_call(sock, IMSG_CTL_UPDATE, done[n].old,
		    done[n].oldlen, IMSG_NONE, NULL, NULL, e,
		    sizeof(e)) == -1) {
			warnx("%s: cannot restore its definition: %s",
			    done[n].name, e);
			kept++;
		} else
			printf("%s restored\n", done[n].name);
		fflush(stdout);
	}
	return (kept);
}

/* the workload of that name in all, or NULL */
static json_t *
find(json_t *all, const char *name)
{
	json_t	*w;
	size_t	 i;

	json_array_foreach(all, i, w)
		if (strcmp(json_string_value(json_object_get(w, "name")),
		    name) == 0)
			return (w);
	return (NULL);
}

/*
 * A definition of all's, packed again for an undo; NULL when it has
 * env, whose values orchd never shows (control.c): it cannot be had
 * whole.
 */
static void *
old_pack(json_t *w, size_t *len)
{
	char	 why[256];
	json_t	*d;

	if ((d = json_object_get(w, "def")) == NULL ||
	    json_array_size(json_object_get(d, "env")) > 0)
		return (NULL);
	json_object_del(d, "source");
	return (import_pack(d, len, why, sizeof(why)));
}

/*
 * Is d, as orchd would hold it, the definition w has?  Both through
 * the same codec, what the parent or the store adds left out.  One
 * with env never is: orchd shows no env values, so the update is sent
 * and orchd compares (an unchanged one runs on).
 */
static int
import_same(json_t *d, json_t *w)
{
	struct workload_conf	*wc;
	json_t			*o, *n, *old;
	char			*json, why[256];
	int			 same;

	if ((old = json_object_get(w, "def")) == NULL ||
	    json_array_size(json_object_get(d, "env")) > 0)
		return (0);
	o = json_deep_copy(d);
	json_object_del(o, "@listen");
	json = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (json == NULL)
		return (0);
	wc = workload_from_json(json, strlen(json), why, sizeof(why));
	free(json);
	if (wc == NULL || (json = workload_to_json(wc)) == NULL) {
		workload_free(wc);
		return (0);
	}
	workload_free(wc);
	n = json_loads(json, 0, NULL);
	free(json);
	o = json_deep_copy(old);
	json_object_del(n, "source");
	json_object_del(o, "source");
	json_object_del(n, "run_uid");
	json_object_del(o, "run_uid");
	same = n != NULL && o != NULL && json_equal(n, o);
	json_decref(n);
	json_decref(o);
	return (same);
}

static int
import_apply(const char *sock, const char *project, json_t *defs)
{
	struct done	*done;
	json_t		*all, *d, *w, *m;
	const char	*name, *g;
	void		*def;
	size_t		 i, n = 0, len;
	char		 why[256];

	all = group_workloads(sock);
	if ((done = calloc(json_array_size(defs) + 1, sizeof(*done))) == NULL)
		err(1, NULL);
	json_array_foreach(defs, i, d) {
		name = json_string_value(json_object_get(d, "name"));
		if ((w = find(all, name)) != NULL &&
		    ((g = json_string_value(json_object_get(json_object_get(w,
		    "def"), "group"))) == NULL || strcmp(g, project) != 0))
			errx(1, "%s: a workload of that name is not of project "
			    "%s: nothing imported", name, project);
	}
	json_array_foreach(defs, i, d) {
		name = json_string_value(json_object_get(d, "name"));
		if ((def = import_pack(d, &len, why, sizeof(why))) == NULL)
			errx(1, "%s: %s", name, why);
		w = find(all, name);
		if (w != NULL && import_same(d, w)) {
			free(def);
			printf("%s unchanged\n", name);
			continue;
		}
		strlcpy(done[n].name, name, sizeof(done[n].name));
		if ((done[n].updated = w != NULL))
			done[n].old = old_pack(w, &done[n].oldlen);
		if (ctl_call(sock, w != NULL ? IMSG_CTL_UPDATE :
		    IMSG_CTL_CREATE, def, len, IMSG_NONE, NULL, NULL, why,
		    sizeof(why)) == -1) {
			free(def);
			warnx("%s: %s", name, why);
			if (import_undo(sock, done, n) == 0)
				warnx("import of project %s refused: nothing "
				    "changed", project);
			else
				warnx("import of project %s refused: undone "
				    "but for what is said above", project);
			return (1);
		}
		free(def);
		printf("%s %s\n", name, w != NULL ? "updated" : "created");
		fflush(stdout);
		n++;
	}
	/* the project's members the file no longer has */
	m = group_members(all, project);
	json_array_foreach(m, i, w) {
		size_t	 k;
		int	 kept = 0;

		name = json_string_value(json_object_get(w, "name"));
		json_array_foreach(defs, k, d)
			if (strcmp(json_string_value(json_object_get(d,
			    "name")), name) == 0)
				kept = 1;
		if (kept)
			continue;
		if (ctl_call_name(sock, IMSG_CTL_DELETE, name, why,
		    sizeof(why)) == -1)
			warnx("%s: no longer in the file, not deleted: %s",
			    name, why);
		else
			printf("%s deleted\n", name);
	}
	json_decref(m);
	json_decref(all);
	for (i = 0; i < n; i++)
		free(done[i].old);
	free(done);
	return (0);
}

__dead static void
import_usage(void)
{
	errx(1, "usage: import compose file [--project name] "
	    "[--host-suffix suffix] [--dry-run]");
}

/* argv: "import", "compose", FILE, options */
__dead void
import_main(const char *sock, int argc, char *argv[])
{
	struct compose_opts	 o;
	struct compose		 c;
	struct ynode		*root;
	json_t			*d, *v;
	char			*buf, dir[PATH_MAX], tmp[PATH_MAX], yerr[512];
	char			 why[256];
	size_t			 len, i, k;
	int			 dry = 0, bad = 0;
	void			*def;

	memset(&o, 0, sizeof(o));
	if (argc < 3 || strcmp(argv[1], "compose") != 0)
		import_usage();
	o.file = argv[2];
	for (i = 3; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--dry-run") == 0)
			dry = 1;
		else if (strcmp(argv[i], "--project") == 0 &&
		    i + 1 < (size_t)argc)
			o.project = argv[++i];
		else if (strcmp(argv[i], "--host-suffix") == 0 &&
		    i + 1 < (size_t)argc) {
			o.suffix = argv[++i];
			if (!valid_host_pattern(o.suffix) ||
			    o.suffix[0] == '*')
				errx(1, "--host-suffix %s: not a host name",
				    o.suffix);
		} else
			import_usage();
	}
	if (strlcpy(tmp, o.file, sizeof(tmp)) >= sizeof(tmp) ||
	    realpath(dirname(tmp), dir) == NULL)
		err(1, "%s", o.file);
	o.dir = dir;
	buf = import_read(o.file, &len);
	root = yt_load(buf, len, yerr, sizeof(yerr));
	free(buf);
	if (root == NULL)
		errx(1, "%s: %s", o.file, yerr);
	if (compose_map(&c, &o, root) == -1) {
		fputs(c.errs != NULL ? c.errs : "import failed\n", stderr);
		errx(1, "%s: %d error%s: nothing imported", o.file, c.nerrs,
		    c.nerrs == 1 ? "" : "s");
	}
	yt_free(root);
	import_jobs(c.defs);
	/* each checked as orchd's API would, before any is sent */
	json_array_foreach(c.defs, i, d) {
		if ((def = import_pack(d, &len, why, sizeof(why))) == NULL) {
			warnx("%s: %s", json_string_value(json_object_get(d,
			    "name")), why);
			bad = 1;
		}
		free(def);
	}
	if (bad)
		errx(1, "%s: nothing imported", o.file);
	json_array_foreach(c.notes, i, v)
		warnx("note: %s", json_string_value(v));
	if (dry) {
		printf("# project %s, from %s: %zu workloads\n", c.project,
		    o.file, json_array_size(c.defs));
		json_array_foreach(c.defs, i, d)
			print_block(d);
		exit(0);
	}
	json_array_foreach(c.defs, i, d)
		json_array_foreach(json_object_get(d, "@listen"), k, v)
			warnx("note: %s: its TCP listener %s is orchd.conf's "
			    "(listen on), not the API's: it wakes as a "
			    "dependency", json_string_value(json_object_get(d,
			    "name")), json_string_value(v));
	exit(import_apply(sock, c.project, c.defs));
}
