/*
 * The webhooks' payloads (common/msg.h lists the messages): the
 * parent and notifyd.  Included by msg.h alone.
 */

#ifndef ORCHD_MSG_NOTIFY_H
#define ORCHD_MSG_NOTIFY_H

#include <stdint.h>

/*
 * IMSG_NOTIFY_CONF: the webhooks of orchd.conf(5), "notify".  Each url is
 * NUL-terminated within its array and begins http:// or https://; events
 * is a mask of 1 << NOTIFY_EV_*; the key is keylen bytes, 0 for none
 * (then nothing is sent).  notifyd checks every field.
 */
#define NOTIFY_URLS_MAX		8
#define NOTIFY_URL_MAX		512
#define NOTIFY_KEY_MAX		ORCHD_API_KEY_MAX
#define NOTIFY_ALLOW_LOOPBACK	0x1	/* 127/8, ::1 */
#define NOTIFY_ALLOW_LINKLOCAL	0x2	/* 169.254/16, fe80::/10 */
#define NOTIFY_ALLOW_LOCAL	0x4	/* the host's own addresses */
#define NOTIFY_ALLOW_ALL	0x7
enum notify_ev {
	NOTIFY_EV_FAILED = 0,		/* a workload failed */
	NOTIFY_EV_BACKOFF,		/* ... and is in crash-loop backoff */
	NOTIFY_EV_EXPIRED,		/* an API workload expired */
	NOTIFY_EV_EVICTED,		/* suspended for the memory budget or
					   pressure */
	NOTIFY_EV_RELOAD,		/* a reload of orchd.conf refused */
	NOTIFY_EV_CERT,			/* a certificate's issuance failed */
	NOTIFY_EV_STATE,		/* any other change of state */
	NOTIFY_EV_MAX
};
#define NOTIFY_EV_DEFAULT	((1U << NOTIFY_EV_FAILED) | \
				    (1U << NOTIFY_EV_BACKOFF) | \
				    (1U << NOTIFY_EV_EXPIRED) | \
				    (1U << NOTIFY_EV_EVICTED) | \
				    (1U << NOTIFY_EV_RELOAD) | \
				    (1U << NOTIFY_EV_CERT))
struct notify_target {
	char			 url[NOTIFY_URL_MAX];
	uint32_t		 events;
	uint32_t		 pad;
};
struct notify_conf {
	uint32_t		 ntargets;
	uint32_t		 allow;		/* NOTIFY_ALLOW_* */
	uint32_t		 keylen;
	uint32_t		 pad;
	uint8_t			 key[NOTIFY_KEY_MAX];
	struct notify_target	 targets[NOTIFY_URLS_MAX];
};

/* IMSG_NOTIFY_STATS: counters since notifyd started, all growing */
struct notify_stats {
	uint64_t		 sent;		/* answered 2xx */
	uint64_t		 attempts_failed; /* each try that was not */
	uint64_t		 dropped;	/* given up: tries or age */
	uint64_t		 refused;	/* an address not allowed */
	uint64_t		 queued;	/* now waiting: a gauge */
};

#endif /* ORCHD_MSG_NOTIFY_H */
