/*
 * The store: orchd started again with -P store, chrooted to the database
 * directory.  It is the only process that opens the database.
 */

#include <event.h>
#include <stdlib.h>

#include "log.h"
#include "parent.h"

static struct privsep	store_ps;

static void	store_recv_state(struct imsgev *, struct imsg *);

static const struct proc_handler store_handlers[] = {
	PROC_COMMON_HANDLERS,
	CFG_HANDLERS,
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    store_recv_state },
};

/* persisted with the store's schema (issue 4); for now only logged */
static void
store_recv_state(struct imsgev *iev, struct imsg *imsg)
{
	struct rt_state	 st;

	(void)imsg_get_data(imsg, &st, sizeof(st));
	st.name[sizeof(st.name) - 1] = '\0';
	log_debug("store: %s is %s", st.name, workload_state_name(st.state));
}

__dead void
store_main(int argc, char *argv[])
{
	child_start(&store_ps, argc, argv, PROC_STORE, store_handlers,
	    nitems(store_handlers), PRIVDROP_NONET);
	event_dispatch();
	exit(0);
}
