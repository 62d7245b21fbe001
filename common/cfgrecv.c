/*
 * The child's side of a configuration transaction.  A new generation is
 * built beside the current one and only replaces it on START, which the
 * parent sends once every child has acknowledged DONE: either every
 * process runs the new configuration or none does.
 */

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "util.h"
#include "workload.h"

static struct cfg_generation	*cfg_cur;
static struct cfg_generation	*cfg_next;
static void	(*cfg_apply)(struct privsep *, struct cfg_generation *,
		    struct cfg_generation *);
static int	  cfg_forget;

static struct cfg_generation *
cfg_new(uint32_t id)
{
	struct cfg_generation	*gen;

	if ((gen = calloc(1, sizeof(*gen))) == NULL)
		fatal("%s: calloc", __func__);
	gen->id = id;
	TAILQ_INIT(&gen->workloads);
	return (gen);
}

static void
cfg_free_workloads(struct cfg_generation *gen)
{
	struct workload_conf	*wl;

	while ((wl = TAILQ_FIRST(&gen->workloads)) != NULL) {
		TAILQ_REMOVE(&gen->workloads, wl, entry);
		workload_free(wl);
	}
}

static void
cfg_free(struct cfg_generation *gen)
{
	if (gen == NULL)
		return;
	cfg_free_workloads(gen);
	free(gen);
}

void
cfg_set_apply(void (*fn)(struct privsep *, struct cfg_generation *,
    struct cfg_generation *))
{
	cfg_apply = fn;
}

/*
 * For a process whose apply function copies what it keeps: the workload
 * definitions are freed once applied, not held for the generation's life.
 * cfg_current()'s workload list is then empty (nworkloads still counts).
 */
void
cfg_forget_workloads(void)
{
	cfg_forget = 1;
}

const struct cfg_generation *
cfg_current(void)
{
	return (cfg_cur);
}

void
cfg_recv_reset(struct imsgev *iev, struct imsg *imsg)
{
	uint32_t	 id;

	(void)imsg_get_data(imsg, &id, sizeof(id));
	cfg_free(cfg_next);
	cfg_next = cfg_new(id);
}

static struct cfg_generation *
cfg_pending(uint32_t type)
{
	if (cfg_next == NULL)
		fatalx("configuration message %u outside a transaction", type);
	return (cfg_next);
}

void
cfg_recv_global(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));

	(void)imsg_get_data(imsg, &gen->global, sizeof(gen->global));
}

void
cfg_recv_workload(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));
	struct workload_conf	*wc, *wl;
	char			 err[256];

	/* the parent validated it: a bad one means we are out of step */
	if ((wc = workload_wire_read(imsg->data, imsg_get_len(imsg), err,
	    sizeof(err))) == NULL)
		fatalx("workload from parent: %s", err);
	/* held for the generation's life: in one allocation */
	if ((wl = workload_pack(wc)) == NULL)
		fatal("%s", __func__);
	workload_free(wc);
	TAILQ_INSERT_TAIL(&gen->workloads, wl, entry);
	gen->nworkloads++;
}

void
cfg_recv_done(struct imsgev *iev, struct imsg *imsg)
{
	struct cfg_generation	*gen = cfg_pending(imsg_get_type(imsg));

	imsgev_compose(iev, IMSG_CFG_DONE, 0, -1, &gen->id, sizeof(gen->id));
}

void
cfg_recv_start(struct imsgev *iev, struct imsg *imsg)
{
	struct privsep		*ps = iev->ps;
	struct cfg_generation	*old;
	uint32_t		 id;

	(void)imsg_get_data(imsg, &id, sizeof(id));
	if (cfg_next == NULL || cfg_next->id != id)
		fatalx("start of configuration %u that was not sent", id);
	old = cfg_cur;
	cfg_cur = cfg_next;
	cfg_next = NULL;
	ps->generation = cfg_cur->id;
	ps->workloads = cfg_cur->nworkloads;
	log_setverbose(cfg_cur->global.verbose);
	if (cfg_apply != NULL)
		cfg_apply(ps, cfg_cur, old);
	cfg_free(old);
	if (cfg_forget)
		cfg_free_workloads(cfg_cur);
	heap_trim();
	log_debug("%s: configuration %u applied, %u workload%s",
	    proc_name(ps->id), cfg_cur->id, cfg_cur->nworkloads,
	    cfg_cur->nworkloads == 1 ? "" : "s");
}

/*
 * The workloads of the generation being received, 0 outside a
 * transaction: what runtimed may hold of the store's restore before that
 * generation starts (one row a workload at most).
 */
uint32_t
cfg_pending_workloads(void)
{
	return (cfg_next != NULL ? cfg_next->nworkloads : 0);
}
