/*
 * The paths of the Docker Engine API calls runtimed makes (enum dk_call),
 * built from names checked to be container, service or network names or
 * ids, image references, tags, or numbers: whatever else runtimed does,
 * these paths are all it can ask of Docker.  docker_client.c puts the
 * negotiated API version in front.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "msg.h"
#include "orchd.h"
#include "util.h"
#include "workload.h"
#include "docker.h"

#define DK_REF_MAX		160	/* a container name or id */

/* a container name or id: what Docker allows in a name, nothing else */
static int
dk_valid_ref(const char *s)
{
	size_t	 i;

	if (s == NULL || !isalnum((unsigned char)s[0]))
		return (0);
	for (i = 0; s[i] != '\0'; i++)
		if (i >= DK_REF_MAX || (!isalnum((unsigned char)s[i]) &&
		    s[i] != '_' && s[i] != '.' && s[i] != '-'))
			return (0);
	return (1);
}

/* an image reference, as docker_image.c checked it */
static int
dk_valid_image(const char *s)
{
	struct dk_imageref	 ref;
	char			 err[RT_MSG_MAX];

	return (s != NULL && dk_image_parse(s, &ref, err, sizeof(err)) == 0);
}

/* a tag, or a digest: no '/', no '@' */
static int
dk_valid_tag(const char *s)
{
	size_t	 i;

	if (s == NULL || !isalnum((unsigned char)s[0]))
		return (0);
	for (i = 0; s[i] != '\0'; i++)
		if (i >= DK_TAG_MAX || (!isalnum((unsigned char)s[i]) &&
		    s[i] != '_' && s[i] != '.' && s[i] != '-' && s[i] != ':'))
			return (0);
	return (1);
}

/* "all" or a number of lines */
static int
dk_valid_tail(const char *s)
{
	size_t	 i;

	if (s == NULL)
		return (0);
	if (strcmp(s, "all") == 0)
		return (1);
	for (i = 0; s[i] != '\0'; i++)
		if (i >= 10 || !isdigit((unsigned char)s[i]))
			return (0);
	return (i > 0);
}

/* the t= of a stop: whole seconds, no more than a workload may have */
static int
dk_valid_seconds(const char *s, int *secs)
{
	const char	*errstr;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return (0);
	*secs = strtonum(s, 0, WL_STOP_TIMEOUT_MAX, &errstr);
	return (errstr == NULL);
}

/* RFC 3986 unreserved characters stay, the rest is %XX */
static int
dk_urlencode(const char *s, char *buf, size_t len)
{
	static const char	 hex[] = "0123456789ABCDEF";
	size_t			 o = 0;

	for (; *s != '\0'; s++) {
		if (o + 4 > len)
			return (-1);
		if (isalnum((unsigned char)*s) || strchr("-._~", *s) != NULL)
			buf[o++] = *s;
		else {
			buf[o++] = '%';
			buf[o++] = hex[(unsigned char)*s >> 4];
			buf[o++] = hex[(unsigned char)*s & 0xf];
		}
	}
	buf[o] = '\0';
	return (0);
}

/*
 * A filters argument, URL-encoded into buf: head, then the labels every
 * container of this instance has (label filters must all match).  The
 * instance's name holds only letters, digits, '.', '-' and '_': nothing
 * to escape in JSON.
 */
static int
dk_filters(char *buf, size_t len, const char *head)
{
	char	 json[512];
	int	 n;

	if (!instance_name_ok(dk_instance()))
		return (-1);
	n = snprintf(json, sizeof(json), "%s\"label\":[\"%s\",\"%s=%s\"]}",
	    head, DK_LABEL_WORKLOAD, DK_LABEL_INSTANCE, dk_instance());
	if (n < 0 || (size_t)n >= sizeof(json))
		return (-1);
	return (dk_urlencode(json, buf, len));
}

/*
 * The path of call with its id and arg, checked, into path (len bytes,
 * without the API version); oneshot: the daemon speaks API 1.41 or
 * later (docker_client.c negotiated it); secs: what the call's timeout
 * must add, the stop's own.  -1 for a call that cannot be made.
 */
int
dk_path(enum dk_call call, const char *id, const char *arg, int oneshot,
    char *path, size_t len, int *secs)
{
	char	 filters[512], enc[sizeof(filters) * 3];
	char	 from[DK_IMAGE_MAX * 3], tag[DK_TAG_MAX * 3];
	int	 n = -1;

	*secs = 0;
	switch (call) {
	case DK_VERSION:
	case DK_PING:
	case DK_EVENTS:
	case DK_LIST:
	case DK_NET_CREATE:
	case DK_LABEL_EVENTS:
	case DK_LABEL_LIST:
		break;
	case DK_PULL:
		/* a name without its tag, which comes apart: see dk_pull */
		if (!dk_valid_image(id) || strchr(id, '@') != NULL ||
		    !dk_valid_tag(arg) || dk_urlencode(id, from,
		    sizeof(from)) == -1 || dk_urlencode(arg, tag,
		    sizeof(tag)) == -1)
			return (-1);
		break;
	case DK_IMAGE:
	case DK_IMAGE_REMOVE:
		if (!dk_valid_image(id))
			return (-1);
		break;
	case DK_SVC_CREATE:
		break;
	case DK_SVC_UPDATE:
		/* the version index: digits only */
		if (!dk_valid_ref(id) || !dk_valid_tail(arg) ||
		    strcmp(arg, "all") == 0)
			return (-1);
		break;
	case DK_CREATE:
		if (!dk_valid_ref(arg))
			return (-1);
		break;
	case DK_LOGS:
		if (!dk_valid_ref(id) || !dk_valid_tail(arg))
			return (-1);
		break;
	case DK_STOP:
		if (!dk_valid_ref(id) || !dk_valid_seconds(arg, secs))
			return (-1);
		break;
	default:
		if (!dk_valid_ref(id))
			return (-1);
		break;
	}
	switch (call) {
	case DK_VERSION:
		n = snprintf(path, len, "/version");
		break;
	case DK_PING:
		n = snprintf(path, len, "/_ping");
		break;
	case DK_INSPECT:
		n = snprintf(path, len,
		    "/containers/%s/json", id);
		break;
	case DK_CREATE:
		n = snprintf(path, len,
		    "/containers/create?name=%s", arg);
		break;
	case DK_START:
		n = snprintf(path, len,
		    "/containers/%s/start", id);
		break;
	case DK_STOP:
		n = snprintf(path, len,
		    "/containers/%s/stop?t=%d", id, *secs);
		break;
	case DK_REMOVE:
		/* v=0: volumes stay, whatever happens to the container */
		n = snprintf(path, len,
		    "/containers/%s?force=1&v=0", id);
		break;
	case DK_STATS:
		/* one-shot (1.41): no second sample a second later */
		n = snprintf(path, len,
		    "/containers/%s/stats?stream=0%s", id,
		    oneshot ? "&one-shot=1" : "");
		break;
	case DK_LOGS:
		n = snprintf(path, len,
		    "/containers/%s/logs?stdout=1&stderr=1&tail=%s", id, arg);
		break;
	case DK_EVENTS:
		/*
		 * What a container of this instance lives through (see
		 * docker_events.c); label filters must all match.
		 */
		if (dk_filters(filters, sizeof(filters), "{\"type\":"
		    "[\"container\"],\"event\":[\"start\",\"die\","
		    "\"oom\",\"kill\",\"destroy\"],") == -1)
			return (-1);
		n = snprintf(path, len,
		    "/events?filters=%s", filters);
		break;
	case DK_LIST:
		/* every container of this instance's, running or not */
		if (dk_filters(filters, sizeof(filters), "{") == -1)
			return (-1);
		n = snprintf(path, len,
		    "/containers/json?all=1&filters=%s", filters);
		break;
	case DK_NET_INSPECT:
		n = snprintf(path, len, "/networks/%s",
		    id);
		break;
	case DK_NET_CREATE:
		n = snprintf(path, len,
		    "/networks/create");
		break;
	case DK_PULL:
		/* a tag always: without one Docker pulls every tag */
		n = snprintf(path, len,
		    "/images/create?fromImage=%s&tag=%s", from, tag);
		break;
	case DK_IMAGE:
		/* the daemon's route takes the name's slashes as they are */
		n = snprintf(path, len, "/images/%s/json",
		    id);
		break;
	case DK_SVC_INSPECT:
		n = snprintf(path, len, "/services/%s",
		    id);
		break;
	case DK_SVC_CREATE:
		n = snprintf(path, len,
		    "/services/create");
		break;
	case DK_SVC_UPDATE:
		n = snprintf(path, len,
		    "/services/%s/update?version=%s", id, arg);
		break;
	case DK_TASKS:
		/* the service's tasks: those meant to run, those ending */
		n = snprintf(filters, sizeof(filters), "{\"service\":"
		    "[\"%s\"]}", id);
		if (n < 0 || (size_t)n >= sizeof(filters))
			return (-1);
		if (dk_urlencode(filters, enc, sizeof(enc)) == -1)
			return (-1);
		n = snprintf(path, len,
		    "/tasks?filters=%s", enc);
		break;
	case DK_NODE:
		n = snprintf(path, len, "/nodes/%s", id);
		break;
	case DK_IMAGE_REMOVE:
		/* no force: an image a container still has stays */
		n = snprintf(path, len, "/images/%s", id);
		break;
	case DK_PAUSE:
		n = snprintf(path, len, "/containers/%s/pause", id);
		break;
	case DK_UNPAUSE:
		n = snprintf(path, len, "/containers/%s/unpause", id);
		break;
	case DK_WAIT_REMOVED:
		n = snprintf(path, len,
		    "/containers/%s/wait?condition=removed", id);
		break;
	case DK_LABEL_EVENTS:
		/*
		 * Containers carrying org.orchd.host, whoever made them:
		 * labels.c leaves out every one an orchd made
		 */
		if (dk_urlencode("{\"type\":[\"container\"],\"event\":"
		    "[\"create\",\"start\",\"die\",\"oom\",\"kill\","
		    "\"destroy\",\"rename\"],\"label\":[\"" DK_LABEL_HOST
		    "\"]}", filters, sizeof(filters)) == -1)
			return (-1);
		n = snprintf(path, len, "/events?filters=%s", filters);
		break;
	case DK_LABEL_LIST:
		if (dk_urlencode("{\"label\":[\"" DK_LABEL_HOST "\"]}",
		    filters, sizeof(filters)) == -1)
			return (-1);
		n = snprintf(path, len, "/containers/json?all=1&filters=%s",
		    filters);
		break;
	default:
		return (-1);
	}
	if (n < 0 || (size_t)n >= len)
		return (-1);
	return (0);
}
