/*
 * Pulls: a docker workload's image fetched through the Docker daemon,
 * POST /images/create, with the registry's login when the parent gave
 * one.
 *
 * The logins come from the parent alone, in the configuration
 * transaction (IMSG_CFG_REGAUTH): for each registry host, the value of
 * the X-Registry-Auth header, made by the parent (orchd/regauth.c).
 * They are kept here, in memory only, until the next configuration's
 * replace them; nothing of them is logged.
 */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runtime.h"
#include "docker.h"

static json_t	*dk_logins;	/* {"registry host": "header value"} */

/* IMSG_CFG_REGAUTH: the logins of the configuration, empty for none */
void
docker_recv_regauth(struct imsgev *iev, struct imsg *imsg)
{
	json_error_t	 jerr;
	json_t		*o = NULL, *v;
	const char	*host;
	size_t		 len = imsg_get_len(imsg);

	if (len > 0 && ((o = json_loadb(imsg->data, len, 0, &jerr)) == NULL ||
	    !json_is_object(o)))
		fatalx("%s: logins that are not a JSON object", __func__);
	json_object_foreach(o, host, v)
		if (!json_is_string(v))
			fatalx("%s: a login that is not a string", __func__);
	json_decref(dk_logins);
	dk_logins = o;
	explicit_bzero(imsg->data, len);
	log_debug("registry logins for %zu registr%s", json_object_size(o),
	    json_object_size(o) == 1 ? "y" : "ies");
}

/* the X-Registry-Auth of a registry host, NULL for none */
const char *
docker_login(const char *registry)
{
	return (json_string_value(json_object_get(dk_logins, registry)));
}
