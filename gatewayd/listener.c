/*
 * Listening sockets: bound by the parent, passed in with each
 * configuration.  A reload passes them again; the new descriptors replace
 * the old ones on START, and connections already accepted are untouched.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "gateway.h"

void
listener_recv(struct imsgev *iev, struct imsg *imsg)
{
	struct gw_listener	*l;
	int			 fd;

	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("%s: listener without a socket", __func__);
	if ((l = calloc(1, sizeof(*l))) == NULL)
		fatal("%s", __func__);
	(void)imsg_get_data(imsg, &l->conf, sizeof(l->conf));
	l->conf.name[sizeof(l->conf.name) - 1] = '\0';
	l->fd = fd;
	TAILQ_INSERT_TAIL(&gw->next_listeners, l, entry);
}

void
listener_apply(void)
{
	struct gw_listener	*l;

	while ((l = TAILQ_FIRST(&gw->listeners)) != NULL) {
		TAILQ_REMOVE(&gw->listeners, l, entry);
		event_del(&l->ev);
		close(l->fd);
		free(l);
	}
	while ((l = TAILQ_FIRST(&gw->next_listeners)) != NULL) {
		TAILQ_REMOVE(&gw->next_listeners, l, entry);
		event_set(&l->ev, l->fd, EV_READ | EV_PERSIST, conn_accept, l);
		event_add(&l->ev, NULL);
		TAILQ_INSERT_TAIL(&gw->listeners, l, entry);
		log_debug("listening on %s", l->conf.name);
	}
}
