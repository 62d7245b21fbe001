/*
 * libFuzzer harness for the root parent's reading of a definition from a
 * child (orchd/apidef.c over common/workload_wire.c): the bytes a gateway,
 * the store or orchctl sends for a create or an update, given to
 * api_def_read() as the parent gives them, then the policy as the parent
 * checks it.  One that is taken must come back the same through the wire
 * form.  Build and run (the Makefile's FUZZ_SRCS_parent_def lists what it
 * links):
 *
 *	make build/fuzz/fuzz_parent_def
 *	build/fuzz/fuzz_parent_def -max_total_time=60 \
 *	    regress/fuzz/corpus/parent_def
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "msg.h"
#include "workload.h"
#include "conf.h"
#include "../../orchd/parent.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct orchd_conf	 conf;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init(1, LOG_DAEMON);
	TAILQ_INIT(&conf.listeners);
	TAILQ_INIT(&conf.api_hosts);
	TAILQ_INIT(&conf.keypairs);
	TAILQ_INIT(&conf.workloads);
	TAILQ_INIT(&conf.api_allow_images);
	TAILQ_INIT(&conf.api_allow_volumes);
	TAILQ_INIT(&conf.api_allow_networks);
	TAILQ_INIT(&conf.api_allow_addresses);
	TAILQ_INIT(&conf.api_allow_publish);
	/* what the API may be allowed at most, so that more is reached */
	conf.api_allow_process = 1;
	conf.api_allow_net_host = 1;
	if (strlist_add(&conf.api_allow_images, "*") == -1 ||
	    strlist_add(&conf.api_allow_networks, "*") == -1 ||
	    strlist_add(&conf.api_allow_volumes, "/srv/vol") == -1)
		abort();
	conf.conffile = "/etc/orchd.conf";
	return (0);
}

/* a definition taken reads back the same from its own wire form */
static void
check_roundtrip(const struct workload_conf *wc)
{
	struct workload_conf	*back;
	void			*a, *b;
	size_t			 alen, blen;
	char			 err[CTL_MSG_MAX];

	if ((a = workload_wire(wc, &alen)) == NULL)
		abort();
	if ((back = workload_wire_read(a, alen, err, sizeof(err))) == NULL) {
		fprintf(stderr, "round trip: %s\n", err);
		abort();
	}
	if ((b = workload_wire(back, &blen)) == NULL)
		abort();
	if (alen != blen || memcmp(a, b, alen) != 0)
		abort();
	free(a);
	free(b);
	workload_free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	int			 status = 0;

	wc = api_def_read(&conf, data, size, &status, err, sizeof(err));
	if (wc == NULL) {
		if (status < 400 || status > 499 || err[0] == '\0')
			abort();
		return (0);
	}
	if (wc->source != SOURCE_API || wc->run_uid != -1)
		abort();
	check_roundtrip(wc);
	workload_free(wc);
	return (0);
}
