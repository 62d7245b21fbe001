/* the webhooks' event names (common/notify_ev.c) */

#ifndef ORCHD_NOTIFY_EV_H
#define ORCHD_NOTIFY_EV_H

#include <stdint.h>

const char	*notify_ev_name(int);
uint32_t	 notify_ev_lookup(const char *);

#endif /* ORCHD_NOTIFY_EV_H */
