/*
 * A remote swarm manager ("swarm manager "tcp://ADDRESS:PORT" ca FILE
 * certificate FILE key FILE"): its TLS client credentials, read by the
 * parent as root at start and at every reload, and sent to runtimed
 * alone, which is the only process that talks to the manager, in its
 * configuration transaction; the parent forgets them once sent, as it
 * does the registry logins (regauth.c).  Whoever holds the key is root on
 * every node of the swarm: it is checked as the API key file is, a
 * regular file no one but its owner, root or orchd's user, may read or
 * write.  The CA and the certificate are public, but must be regular
 * files.  The parent parses none of them: runtimed's libtls does, and a
 * key or certificate it cannot use ends every call to the manager with
 * its error (a 503 for the wake), as a manager that cannot be reached.
 *
 * runtimed maps libtls only when it is started with -T, for a manager
 * the configuration names then (runtimed/tlslib.c): a reload that adds
 * one to an orchd started without takes a restart, and is loaded
 * without it meanwhile.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "workload.h"

/* path's bytes appended to buf at *len, at most max in all: 0, or -1 */
static int
swarmcreds_read(const char *what, const char *path, int secret, uint8_t *buf,
    size_t *len, size_t max, uint32_t *flen)
{
	struct stat	 st;
	size_t		 start = *len;
	ssize_t		 n;
	int		 fd, rv = -1;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		log_warn("%s %s", what, path);
		return (-1);
	}
	if (fstat(fd, &st) == -1) {
		log_warn("%s %s", what, path);
		goto done;
	}
	if (secret && secretfile_check(what, path, &st) == -1)
		goto done;
	if (!S_ISREG(st.st_mode)) {
		log_warnx("%s %s is not a regular file", what, path);
		goto done;
	}
	/* read to its end: one byte more than room says it is too large */
	while (*len <= max) {
		if ((n = read(fd, buf + *len, max + 1 - *len)) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("%s %s", what, path);
			goto done;
		}
		if (n == 0)
			break;
		*len += n;
	}
	if (*len > max || *len == start) {
		log_warnx("%s %s: %s", what, path, *len == start ? "empty" :
		    "the swarm manager's files are larger than allowed");
		goto done;
	}
	*flen = *len - start;
	confsame_parent_read(path, buf + start, *flen);
	rv = 0;
 done:
	close(fd);
	return (rv);
}

/*
 * Part of loading a configuration: 0, or -1 (logged) to refuse it.
 * Without the setting runtimed is sent an empty message: the local
 * socket again.
 */
int
swarmcreds_load(struct orchd_conf *conf)
{
	struct cfg_swarm	*cs;
	uint8_t			*buf;
	size_t			 len = sizeof(*cs), max;
	int			 port;

	conf->swarm_loaded = 1;
	if (conf->swarm_manager == NULL)
		return (0);
	max = sizeof(*cs) + CFG_SWARM_FILES_MAX;
	if ((buf = calloc(1, max + 1)) == NULL) {
		log_warn("%s", __func__);
		return (-1);
	}
	cs = (struct cfg_swarm *)buf;
	if (swarm_manager_split(conf->swarm_manager, cs->addr,
	    sizeof(cs->addr), &port) == -1) {
		log_warnx("swarm manager %s: not tcp://ADDRESS:PORT",
		    conf->swarm_manager);
		goto fail;
	}
	cs->port = port;
	if (swarmcreds_read("swarm ca", conf->swarm_ca, 0, buf, &len, max,
	    &cs->calen) == -1 ||
	    swarmcreds_read("swarm certificate", conf->swarm_cert, 0, buf,
	    &len, max, &cs->certlen) == -1 ||
	    swarmcreds_read("swarm key", conf->swarm_key, 1, buf, &len, max,
	    &cs->keylen) == -1)
		goto fail;
	conf->swarm_creds = buf;
	conf->swarm_creds_len = len;
	log_debug("swarm manager %s: its credentials read",
	    conf->swarm_manager);
	return (0);
 fail:
	freezero(buf, max + 1);
	return (-1);
}

/* whether runtimed is started with -T: it is, for a manager */
static int	 swarm_runtime_tls;

int
swarmcreds_tls(const struct orchd_conf *conf)
{
	swarm_runtime_tls = conf->swarm_manager != NULL;
	return (swarm_runtime_tls);
}

/* a reload's new manager, when runtimed has no libtls: at a restart */
void
swarmcreds_reload(struct orchd_conf *nconf)
{
	if (nconf->swarm_manager == NULL || swarm_runtime_tls)
		return;
	reload_restart("swarm manager");
	free(nconf->swarm_manager);
	nconf->swarm_manager = NULL;
	if (nconf->swarm_creds != NULL)
		freezero(nconf->swarm_creds, nconf->swarm_creds_len);
	nconf->swarm_creds = NULL;
	nconf->swarm_creds_len = 0;
}

/*
 * In runtimed's configuration transaction, once per configuration
 * loaded; later transactions of the same configuration (the API's
 * changes) send nothing, and runtimed keeps what it has.
 */
void
swarmcreds_send(struct orchd *env)
{
	struct orchd_conf	*conf = env->conf;

	if (!conf->swarm_loaded)
		return;
	if (proc_compose(&env->ps, PROC_RUNTIME, IMSG_CFG_SWARM, 0, -1,
	    conf->swarm_creds, conf->swarm_creds_len) == -1)
		fatal("%s: compose", __func__);
	if (conf->swarm_creds != NULL)
		freezero(conf->swarm_creds, conf->swarm_creds_len);
	conf->swarm_creds = NULL;
	conf->swarm_creds_len = 0;
	conf->swarm_loaded = 0;
}
