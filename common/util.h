/*
 * Small helpers every process shares (common/util.c): the names of the
 * processes and of a workload's states, the heap's trim, a gateway
 * instance's name, the -u uid:gid of a process the parent starts.
 */

#ifndef ORCHD_UTIL_H
#define ORCHD_UTIL_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>

#include "msg.h"
#include "workload.h"

const char	*proc_name(enum privsep_procid);
const char	*workload_state_name(enum workload_state);
const char	*workload_reason_name(int, int);
void		 heap_trim(void);
int		 instance_name_ok(const char *);
int		 instance_name_default(char *, size_t);
int		 privdrop_ids(const char *, uid_t *, gid_t *);

/* a numeric address, "localhost" or "*", and a port */
struct sockaddr_storage;
int		 address_parse(const char *, int, struct sockaddr_storage *,
		    socklen_t *);

#endif /* ORCHD_UTIL_H */
