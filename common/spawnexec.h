/*
 * What the parent and the spawner share about the processes the spawner
 * starts (common/spawnexec.c): the names of a workload child's steps,
 * and the exec of the TLS keypair check and of confd.
 */

#ifndef ORCHD_SPAWNEXEC_H
#define ORCHD_SPAWNEXEC_H

#include "compat.h"

const char	*sp_step_name(int);
__dead void	 keycheck_exec(int, char *const []);
__dead void	 confd_exec(int, char *const []);

#endif /* ORCHD_SPAWNEXEC_H */
