/*
 * notifyd: the webhooks of orchd.conf's "notify".  Its files: the queue,
 * the retries and the parent's channel (notifyd.c), and one delivery,
 * its body, signature and address check (deliver.c).
 */

#ifndef ORCHD_NOTIFYD_H
#define ORCHD_NOTIFYD_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define NOTIFY_TOTAL_MS		5000	/* one try, connect to answer */
#define NOTIFY_ANSWER_MAX	4096	/* what a receiver may answer */

/* deliver.c */
char	*deliver_body(const struct ctl_event *, int, const char *,
	    size_t *);
int	 deliver_try(const char *, const uint8_t *, size_t, uint32_t,
	    const char *, size_t, int, char *, size_t);
void	 deliver_set_allow(uint32_t);
int	 deliver_addr_ok(const struct sockaddr *, const struct sockaddr *,
	    char *, size_t);

#endif /* ORCHD_NOTIFYD_H */
