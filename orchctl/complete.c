/*
 * orchctl complete WORD ...: what the shell's completion asks (the bash
 * and zsh functions in etc/completion).  The words are those typed after
 * "orchctl", the last the one being completed; the answer is one
 * candidate a line: orchctl's own options, the keywords of the parser's
 * tables (the ones -h prints), create's flags, and the names of the
 * workloads of the running orchd, asked over its control socket as show
 * workloads.  Nothing at all (and the shell offers files) where a word
 * is a file, a number or a host.  Not in -h: a tool's, not a command.
 *
 * The two outputs here serve show workloads alone, whose reply carries
 * nothing but workload items (ctl_dispatch refuses any other): the
 * names, or nothing (update's question whether a workload exists).
 */

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "orchd.h"
#include "orchctl.h"
#include "parser.h"

/* seconds a TAB waits for orchd's names: the shell waits as long */
#define COMPLETE_TIMEOUT	2

static const char	*complete_sock = ORCHD_SOCKET;
static const char	*complete_prefix = "";

/* orchctl's own options, offered where a command may begin */
static const char *const own_opts[] = { "--help", "-V", "-h", "-j", "-s" };

static void
nothing(const struct parse_result *pr)
{
}

static void
nothing_workload(const struct parse_result *pr, const struct ctl_workload *cw)
{
}

static void
name_workload(const struct parse_result *pr, const struct ctl_workload *cw)
{
	if (strncmp(cw->name, complete_prefix,
	    strlen(complete_prefix)) == 0)
		printf("%s\n", cw->name);
}

const struct output quiet_output = {
	.head = nothing,
	.workload = nothing_workload,
	.tail = nothing
};

const struct output names_output = {
	.head = nothing,
	.workload = name_workload,
	.tail = nothing
};

/* the workloads' names that begin with cur, from orchd if it runs */
static void
complete_names(const char *cur)
{
	complete_prefix = cur;
	ctl_names(complete_sock, "", &names_output, COMPLETE_TIMEOUT);
}

__dead void
complete_main(int argc, char *argv[])
{
	char		**words;
	const char	 *cur, *w;
	size_t		  i;
	int		  n = 0;

	if (argc > 0 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	cur = argc > 0 ? argv[argc - 1] : "";
	if ((words = calloc(argc + 1, sizeof(*words))) == NULL)
		err(1, NULL);
	/* orchctl's options, wherever they are, with -s's socket */
	for (i = 0; (int)i < argc - 1; i++) {
		w = argv[i];
		if (!own_options(w)) {
			words[n++] = argv[i];
			continue;
		}
		if ((w = strchr(w, 's')) == NULL)
			continue;
		if (w[1] != '\0')
			complete_sock = w + 1;
		else if ((int)i + 1 < argc - 1)
			complete_sock = argv[++i];
		else
			exit(0);	/* -s's socket: a file */
	}
	if (n == 0 && cur[0] == '-')
		for (i = 0; i < nitems(own_opts); i++)
			if (strncmp(cur, own_opts[i], strlen(cur)) == 0)
				printf("%s\n", own_opts[i]);
	words[n++] = (char *)cur;
	parse_complete(n, words, complete_names);
	free(words);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	exit(0);
}
