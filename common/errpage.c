/*
 * Pages of the operator's for the answers orchd gives itself: the
 * statuses that may have one, and an entry "STATUS PATH" as the global
 * list and a workload's error_pages hold it, checked alike by confd,
 * the parent (common/conf_wire.c, workload_validate) and the gateways.
 */

#include <sys/queue.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "errpage.h"
#include "msg.h"
#include "workload.h"

#define ERRPAGES_PER_WORKLOAD	16

/* what the gateway and the API answer themselves, and nothing else */
static const int errpage_statuses[] = {
	400, 401, 403, 404, 408, 413, 414, 429, 431, 500, 502, 503, 504
};

int
errpage_status_ok(int status)
{
	size_t	 i;

	for (i = 0; i < nitems(errpage_statuses); i++)
		if (errpage_statuses[i] == status)
			return (1);
	return (0);
}

/* "503 /etc/orchd/503.html": 0 with its parts, or -1 */
int
errpage_entry_split(const char *entry, int *status, const char **path)
{
	if (!isdigit((unsigned char)entry[0]) ||
	    !isdigit((unsigned char)entry[1]) ||
	    !isdigit((unsigned char)entry[2]) || entry[3] != ' ')
		return (-1);
	*status = (entry[0] - '0') * 100 + (entry[1] - '0') * 10 +
	    (entry[2] - '0');
	*path = entry + 4;
	return (0);
}

int
errpage_entry_check(const char *entry, char *err, size_t errlen)
{
	const char	*path;
	int		 status;

	if (errpage_entry_split(entry, &status, &path) == -1 ||
	    !errpage_status_ok(status)) {
		snprintf(err, errlen, "error page \"%s\": STATUS FILE, "
		    "STATUS one orchd answers itself (400, 401, 403, 404, "
		    "408, 413, 414, 429, 431, 500, 502, 503 or 504)",
		    valid_text(entry) ? entry : "?");
		return (-1);
	}
	if (path[0] != '/' || strlen(path) >= ERRPAGE_PATH_MAX ||
	    !valid_text(path)) {
		snprintf(err, errlen, "error page %d: an absolute path of "
		    "fewer than %d bytes is required", status,
		    ERRPAGE_PATH_MAX);
		return (-1);
	}
	return (0);
}

/* a global entry, as the parent takes it from confd */
int
cf_error_page(const void *v, size_t len, char *err, size_t errlen)
{
	return (errpage_entry_check(v, err, errlen));
}

/* a workload's: each entry, one page a status, a few at most */
int
check_error_pages(const struct workload_conf *wl, const struct wl_field *f,
    size_t *total, char *errbuf, size_t len)
{
	const struct strentry	*e, *o;
	const char		*p;
	int			 n = 0, s, so;

	TAILQ_FOREACH(e, &wl->error_pages, entry) {
		if (++n > ERRPAGES_PER_WORKLOAD) {
			snprintf(errbuf, len, "more than %d error pages",
			    ERRPAGES_PER_WORKLOAD);
			return (-1);
		}
		if (errpage_entry_check(e->str, errbuf, len) == -1)
			return (-1);
		(void)errpage_entry_split(e->str, &s, &p);
		for (o = TAILQ_NEXT(e, entry); o != NULL;
		    o = TAILQ_NEXT(o, entry))
			if (errpage_entry_split(o->str, &so, &p) == 0 &&
			    so == s) {
				snprintf(errbuf, len, "error page %d given "
				    "twice", s);
				return (-1);
			}
	}
	return (0);
}
