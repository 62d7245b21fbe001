/*
 * libFuzzer harness for the root parent's taking of confd's global
 * settings (common/conf_wire.c): the input is cut into messages, each a
 * 16-bit length and its bytes, each given to conf_setting_take() as the
 * parent gives it an IMSG_CONF_SET, into one configuration that is then
 * freed.  Build and run (the Makefile's FUZZ_SRCS_parent_conf):
 *
 *	make build/fuzz/fuzz_parent_conf
 *	build/fuzz/fuzz_parent_conf -max_total_time=60
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "conf.h"
#include "conf_wire.h"
#include "log.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init(1, LOG_DAEMON);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct orchd_conf	*c;
	uint8_t			 seen[256];
	char			 err[512];
	size_t			 len;
	int			 row;

	if ((c = conf_new()) == NULL)
		abort();
	memset(seen, 0, sizeof(seen));
	while (size >= 2) {
		len = data[0] | (size_t)data[1] << 8;
		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		if ((row = conf_setting_take(c, data, len, err,
		    sizeof(err))) >= 0)
			seen[row] = 1;
		data += len;
		size -= len;
	}
	(void)conf_settings_missing(seen, err, sizeof(err));
	free_config(c);
	return (0);
}
