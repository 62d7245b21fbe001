/*
 * orchctl maintenance NAME on [--until TIME] [--message TEXT] | off, and
 * orchctl group NAME maintenance on ... | off, one member after another.
 *
 * TIME is a duration from now ("30m", "2h", "1d") or a time as RFC 3339
 * has it in UTC ("2026-12-06T18:00:00Z").  The message is checked here
 * for a clear error (common/maint.c); orchd checks it again, as it does
 * whatever it is sent.
 */

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "compat.h"
#include "ctlcall.h"
#include "maint.h"
#include "msg.h"
#include "units.h"

#define MAINT_USAGE	"usage: maintenance name on [--until time] " \
			"[--message text] | off"

/* a duration from now, or an RFC 3339 UTC time; -1 if neither */
static int
maint_time(const char *s, int64_t now, int64_t *until)
{
	struct tm	 tm;
	const char	*errstr, *end;
	int64_t		 secs;
	time_t		 t;

	if (parse_duration(s, &secs, &errstr) == 0) {
		if (secs <= 0 || secs > MAINT_UNTIL_MAX)
			return (-1);
		*until = now + secs;
		return (0);
	}
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL ||
	    strcmp(end, "Z") != 0 || (t = timegm(&tm)) == (time_t)-1)
		return (-1);
	*until = t;
	return (0);
}

/* argv: "on" [options] or "off"; into m, or exits with why */
static void
maint_parse(int argc, char *argv[], struct wl_maint *m)
{
	char	 e[128];
	int	 i;
	int64_t	 now = time(NULL);

	memset(m, 0, sizeof(*m));
	if (argc < 1)
		errx(1, MAINT_USAGE);
	if (strcmp(argv[0], "off") == 0) {
		if (argc != 1)
			errx(1, "maintenance off: no options");
		return;
	}
	if (strcmp(argv[0], "on") != 0)
		errx(1, MAINT_USAGE);
	m->on = 1;
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			errx(1, MAINT_USAGE);
		if (strcmp(argv[i], "--until") == 0) {
			if (maint_time(argv[i + 1], now, &m->until) == -1)
				errx(1, "--until: a duration from 1s to "
				    "%dd (30m, 2h, 1d) or a UTC time as "
				    "2026-12-06T18:00:00Z: \"%s\"",
				    MAINT_UNTIL_MAX / 86400, argv[i + 1]);
		} else if (strcmp(argv[i], "--message") == 0) {
			if (maint_msg_ok(argv[i + 1], strlen(argv[i + 1]), e,
			    sizeof(e)) == -1)
				errx(1, "%s", e);
			strlcpy(m->msg, argv[i + 1], sizeof(m->msg));
		} else
			errx(1, MAINT_USAGE);
	}
	if (maint_check(m, now, e, sizeof(e)) == -1)
		errx(1, "%s", e);
}

static int
maint_send(const char *sock, const char *name, const struct wl_maint *m,
    char *e, size_t elen)
{
	struct ctl_maint	 cm;

	memset(&cm, 0, sizeof(cm));
	strlcpy(cm.name, name, sizeof(cm.name));
	cm.m = *m;
	return (ctl_call(sock, IMSG_CTL_MAINT, &cm, sizeof(cm), IMSG_NONE,
	    NULL, NULL, e, elen));
}

/* argv: "maintenance" NAME on|off ...; what was done, or with -j JSON */
__dead void
maint_main(const char *sock, int json, int argc, char *argv[])
{
	struct wl_maint	 m;
	char		 e[256];

	if (argc < 3 || !valid_workload_name(argv[1]))
		errx(1, MAINT_USAGE);
	maint_parse(argc - 2, argv + 2, &m);
	if (maint_send(sock, argv[1], &m, e, sizeof(e)) == -1)
		errx(1, "%s", e);
	if (json)
		printf("{\"result\":\"ok\",\"name\":\"%s\","
		    "\"maintenance\":%s}\n", argv[1], m.on ? "true" : "false");
	else
		printf("maintenance %s for %s\n", m.on ? "on" : "off",
		    argv[1]);
	exit(0);
}

/* argv: "group" NAME "maintenance" on|off ...: dependents first */
__dead void
maint_group(const char *sock, int argc, char *argv[])
{
	struct wl_maint	 m;
	json_t		*all, *mem;
	const char	*name;
	size_t		 i, n;
	int		 fails = 0;
	char		 e[256];

	maint_parse(argc - 3, argv + 3, &m);
	all = group_workloads(sock);
	mem = group_members(all, argv[1]);
	if ((n = json_array_size(mem)) == 0)
		errx(1, "no group %s", argv[1]);
	for (i = 0; i < n; i++) {
		name = json_string_value(json_object_get(json_array_get(mem,
		    i), "name"));
		if (name == NULL)
			continue;
		if (maint_send(sock, name, &m, e, sizeof(e)) == -1) {
			warnx("%s: %s", name, e);
			fails = 1;
		} else
			printf("%s: done\n", name);
	}
	json_decref(mem);
	json_decref(all);
	exit(fails);
}
