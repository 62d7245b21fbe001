/*
 * /metrics for the certificates acmed issues: for each host, the
 * seconds left until its certificate expires, and the issuances that
 * failed.  The parent relays acmed's IMSG_ACME_STATUS to every gateway,
 * checked; the same in every gateway, never summed across them.
 * acme_status counts the failures since the last success: the counter
 * here adds each rise of it, so that it only grows.
 */

#include <sys/queue.h>

#include <event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "api.h"
#include "metrics.h"

#define ACME_METRICS_HOSTS	4096

struct acme_metric {
	TAILQ_ENTRY(acme_metric) entry;
	char			 name[ORCHD_HOST_MAX];
	int64_t			 not_after;
	uint32_t		 failures;	/* as last told */
	uint64_t		 failed_total;
};
static TAILQ_HEAD(, acme_metric) acme_metrics =
    TAILQ_HEAD_INITIALIZER(acme_metrics);
static int			 acme_nmetrics;

static struct acme_metric *
acme_metric_find(const char *name)
{
	struct acme_metric	*m;

	TAILQ_FOREACH(m, &acme_metrics, entry)
		if (strcmp(m->name, name) == 0)
			return (m);
	if (acme_nmetrics >= ACME_METRICS_HOSTS ||
	    (m = calloc(1, sizeof(*m))) == NULL)
		return (NULL);
	strlcpy(m->name, name, sizeof(m->name));
	TAILQ_INSERT_TAIL(&acme_metrics, m, entry);
	acme_nmetrics++;
	return (m);
}

void
metrics_recv_acme(struct imsgev *iev, struct imsg *imsg)
{
	struct acme_status	 st;
	struct acme_metric	*m;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	if ((m = acme_metric_find(st.name)) == NULL)
		return;
	if (st.failures > m->failures)
		m->failed_total += st.failures - m->failures;
	m->failures = st.failures;
	if (st.not_after > 0)
		m->not_after = st.not_after;
}

void
metrics_acme_write(struct evbuffer *b)
{
	struct acme_metric	*m;
	char			 esc[ORCHD_HOST_MAX * 2];
	char			 lab[ORCHD_HOST_MAX * 2 + 16];
	time_t			 now = time(NULL);

	if (TAILQ_EMPTY(&acme_metrics))
		return;
	prom_family(b, "orchd_acme_certificate_expiry_seconds", "gauge",
	    "Seconds until the host's certificate from ACME expires.");
	TAILQ_FOREACH(m, &acme_metrics, entry) {
		if (m->not_after == 0)
			continue;
		(void)prom_escape(esc, sizeof(esc), m->name);
		(void)snprintf(lab, sizeof(lab), "host=\"%s\"", esc);
		prom_sample(b, "orchd_acme_certificate_expiry_seconds", lab,
		    (double)(m->not_after - now));
	}
	prom_family(b, "orchd_acme_failures_total", "counter",
	    "Certificate issuances or renewals that failed, by host.");
	TAILQ_FOREACH(m, &acme_metrics, entry) {
		(void)prom_escape(esc, sizeof(esc), m->name);
		(void)snprintf(lab, sizeof(lab), "host=\"%s\"", esc);
		prom_sample_u64(b, "orchd_acme_failures_total", lab,
		    m->failed_total);
	}
}
