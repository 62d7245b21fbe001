/*
 * libFuzzer harness for orchd.conf(5): every input is written to a file
 * and parsed; a configuration that parses must also survive its JSON round
 * trip, workload by workload.  Build and run (the Makefile's
 * FUZZ_SRCS_config lists what it links):
 *
 *	make build/fuzz/fuzz_config
 *	build/fuzz/fuzz_config -close_fd_mask=2 -max_total_time=60 \
 *	    regress/fuzz/corpus/config
 *
 * The parser's error lines go to stderr: -close_fd_mask=2 silences them
 * while keeping libFuzzer's and the sanitizers' reports.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "workload.h"
#include "conf.h"
#include "../../confd/confd.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	path[] = "/tmp/fuzz_config.XXXXXX";

static void
cleanup(void)
{
	(void)unlink(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int	 fd;

	log_init(1, LOG_DAEMON);
	if ((fd = mkstemp(path)) == -1) {
		perror("mkstemp");
		exit(1);
	}
	close(fd);
	atexit(cleanup);
	return (0);
}

static void
check_roundtrip(const struct workload_conf *wl)
{
	struct workload_conf	*back;
	char			*json, *json2, err[256];

	/* what the parser accepted, JSON must carry */
	if ((json = workload_to_json(wl)) == NULL)
		abort();
	if ((back = workload_from_json(json, strlen(json), err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "%s: %s\n", json, err);
		abort();
	}
	if ((json2 = workload_to_json(back)) == NULL ||
	    strcmp(json, json2) != 0)
		abort();
	free(json);
	free(json2);
	workload_free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct orchd_conf	*conf;
	struct workload_conf	*wl;
	size_t			 off = 0;
	ssize_t			 n;
	int			 fd;

	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1)
		abort();
	while (off < size) {
		if ((n = write(fd, data + off, size - off)) <= 0)
			abort();
		off += n;
	}
	close(fd);

	if ((conf = parse_config(path, 0)) != NULL) {
		TAILQ_FOREACH(wl, &conf->workloads, entry)
			check_roundtrip(wl);
		free_config(conf);
	}
	return (0);
}
