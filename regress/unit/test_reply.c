/*
 * Unit tests for the one way to answer whoever asked: struct proc_asker
 * and proc_reply* (common/proc.c), and the parent's requests in flight
 * (orchd/request.c), which relay the children's answers to the asker.
 * The channels are real imsg channels on socket pairs: what an answer
 * reaches is what the peer at the other end reads.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event.h>

#include "log.h"
#include "../../orchd/parent.h"

struct orchd	*orchd_env;

/* one end ours (an imsgev of ps), the other a peer's imsgbuf */
struct channel {
	int		 sv[2];
	struct imsgev	*iev;
	struct imsgbuf	 peer;
};

static void
channel_open(struct channel *ch, struct privsep *ps, int peer, int instance)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, ch->sv), 0);
	assert_non_null(ch->iev = imsgev_new(ps, ch->sv[0], peer,
	    ORCHD_IMSG_MAXSIZE));
	ch->iev->instance = instance;
	assert_int_equal(imsgbuf_init(&ch->peer, ch->sv[1]), 0);
	assert_int_equal(imsgbuf_set_maxsize(&ch->peer, ORCHD_IMSG_MAXSIZE),
	    0);
}

static void
channel_close(struct channel *ch)
{
	imsgev_free(ch->iev);
	imsgbuf_clear(&ch->peer);
	close(ch->sv[1]);
}

/* the next message our end sent to the peer, or IMSG_NONE */
static uint32_t
channel_take(struct channel *ch, struct imsg *imsg)
{
	int	 n;

	if ((n = imsg_get(&ch->peer, imsg)) == 0) {
		if (imsgbuf_queuelen(&ch->iev->ibuf) == 0)
			return (IMSG_NONE);
		assert_int_equal(imsgbuf_flush(&ch->iev->ibuf), 0);
		assert_int_equal(imsgbuf_read(&ch->peer), 1);
		n = imsg_get(&ch->peer, imsg);
	}
	assert_int_equal(n, 1);
	return (imsg_get_type(imsg));
}

/* a message as the dispatcher hands it to a handler */
static struct imsg *
msg(struct imsg *m, uint32_t type, uint32_t peerid, void *data, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = type;
	m->hdr.peerid = peerid;
	m->data = data;
	m->datalen = len;
	m->fd = -1;
	return (m);
}

/* the control connections of the test: id 5 open, any other gone */
static struct imsgev	*client5;

static struct imsgev *
client_channel(uint32_t id)
{
	return (id == 5 ? client5 : NULL);
}

/* four gateways, a store, and a control connection */
struct world {
	struct orchd	 env;
	struct channel	 gw[4];
	struct channel	 store;
	struct channel	 client;
};

static int
setup(void **state)
{
	struct world	*w;
	int		 i;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return (-1);
	w->env.ps.id = PROC_PARENT;
	for (i = 0; i < 4; i++) {
		channel_open(&w->gw[i], &w->env.ps, PROC_GATEWAY, i);
		w->env.ps.gateways[i] = w->gw[i].iev;
	}
	w->env.ps.ngateways = 4;
	channel_open(&w->store, &w->env.ps, PROC_STORE, 0);
	w->env.ps.peers[PROC_STORE] = w->store.iev;
	channel_open(&w->client, &w->env.ps, -1, 0);
	w->client.iev->client = 5;
	client5 = w->client.iev;
	w->env.ps.client_channel = client_channel;
	orchd_env = &w->env;
	*state = w;
	return (0);
}

static int
teardown(void **state)
{
	struct world	*w = *state;
	int		 i;

	for (i = 0; i < 4; i++)
		channel_close(&w->gw[i]);
	channel_close(&w->store);
	channel_close(&w->client);
	client5 = NULL;
	orchd_env = NULL;
	free(w);
	return (0);
}

/*
 * A gateway's request is answered on the channel it came in on, whatever
 * the bits of its id say: no id routes an answer.
 */
static void
test_gateway_by_channel(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct imsg		 in, out;
	uint32_t		 id = 0x07;	/* its bits say instance 0 */
	int			 i;

	proc_asker(w->gw[2].iev, msg(&in, IMSG_CTL_WAKE, id, NULL, 0), &a);
	assert_int_equal(a.peer, PROC_GATEWAY);
	assert_int_equal(a.instance, 2);
	assert_int_equal(a.id, id);
	assert_int_equal(proc_reply_ok(&w->env.ps, &a), 0);
	for (i = 0; i < 4; i++)
		if (i != 2)
			assert_int_equal(channel_take(&w->gw[i], &out),
			    IMSG_NONE);
	assert_int_equal(channel_take(&w->gw[2], &out), IMSG_CTL_OK);
	assert_int_equal(imsg_get_id(&out), id);
	imsg_free(&out);

	/* a gateway that is not there: nothing sent, an error */
	a.instance = 9;
	assert_int_equal(proc_reply_end(&w->env.ps, &a), -1);
}

/* a FAIL carries its code and message, under the asker's id */
static void
test_fail(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct imsg		 in, out;
	struct ctl_result	 res;

	proc_asker(w->store.iev, msg(&in, IMSG_CTL_SHOW_STATS, 42, NULL, 0),
	    &a);
	assert_int_equal(a.peer, PROC_STORE);
	assert_int_equal(a.instance, 0);
	assert_int_equal(proc_reply_fail(&w->env.ps, &a, CTL_ERR_NOENT,
	    "no such workload: %s", "x"), 0);
	assert_int_equal(channel_take(&w->store, &out), IMSG_CTL_FAIL);
	assert_int_equal(imsg_get_id(&out), 42);
	assert_int_equal(imsg_get_data(&out, &res, sizeof(res)), 0);
	assert_int_equal(res.code, CTL_ERR_NOENT);
	assert_string_equal(res.msg, "no such workload: x");
	imsg_free(&out);
}

/*
 * A control connection is named by its id, not by peerid (which is the
 * control protocol's version), and answered without one; an answer for
 * one that has gone is dropped.
 */
static void
test_client(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a, b;
	struct imsg		 in, out;

	proc_asker(w->client.iev, msg(&in, IMSG_CTL_SHOW_VERSION,
	    ORCHD_CTL_VERSION, NULL, 0), &a);
	assert_int_equal(a.peer, PROC_CLIENT);
	assert_int_equal(a.id, 5);
	assert_int_equal(proc_reply_end(&w->env.ps, &a), 0);
	assert_int_equal(channel_take(&w->client, &out), IMSG_CTL_END);
	assert_int_equal(imsg_get_id(&out), 0);
	imsg_free(&out);

	b = a;
	assert_true(proc_asker_same(&a, &b));
	b.id = 6;
	assert_false(proc_asker_same(&a, &b));
	assert_null(proc_reply_channel(&w->env.ps, &b));
	assert_int_equal(proc_reply_ok(&w->env.ps, &b), -1);
	assert_int_equal(channel_take(&w->client, &out), IMSG_NONE);

	/* a dead channel is no channel */
	w->client.iev->dead = 1;
	assert_null(proc_reply_channel(&w->env.ps, &a));
	w->client.iev->dead = 0;
}

/*
 * A request of the client's to the store: its id, not the client's, goes
 * to the store; the items and the END come back to the client.  An
 * answer from a process not asked, or for a request that ended, is
 * dropped.
 */
static void
test_request_relay(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct request		*r;
	struct ctl_name		 cn;
	struct imsg		 in, out;
	uint32_t		 id;

	memset(&a, 0, sizeof(a));
	a.peer = PROC_CLIENT;
	a.id = 5;
	memset(&cn, 0, sizeof(cn));
	assert_non_null(r = request_new(&a));
	assert_int_equal(request_send(r, PROC_STORE, 0,
	    IMSG_CTL_SHOW_WORKLOADS, &cn, sizeof(cn)), 0);
	assert_true(request_busy(&a));
	assert_int_equal(channel_take(&w->store, &out),
	    IMSG_CTL_SHOW_WORKLOADS);
	id = imsg_get_id(&out);
	assert_int_not_equal(id, 0);
	imsg_free(&out);

	/* a gateway answering under that id is not who was asked */
	request_recv(w->gw[0].iev, msg(&in, IMSG_CTL_END, id, NULL, 0));
	assert_int_equal(channel_take(&w->client, &out), IMSG_NONE);
	assert_true(request_busy(&a));

	request_recv(w->store.iev, msg(&in, IMSG_CTL_WORKLOAD, id, &cn,
	    sizeof(cn)));
	assert_int_equal(channel_take(&w->client, &out), IMSG_CTL_WORKLOAD);
	imsg_free(&out);
	request_recv(w->store.iev, msg(&in, IMSG_CTL_END, id, NULL, 0));
	assert_int_equal(channel_take(&w->client, &out), IMSG_CTL_END);
	imsg_free(&out);
	assert_false(request_busy(&a));

	/* the request ended: a late answer finds nothing */
	request_recv(w->store.iev, msg(&in, IMSG_CTL_END, id, NULL, 0));
	assert_int_equal(channel_take(&w->client, &out), IMSG_NONE);
}

/* fanned out: one END to the asker, after the last child's */
static void
test_request_fanout(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct request		*r;
	struct imsg		 in, out;
	uint32_t		 id;
	int			 i;

	memset(&a, 0, sizeof(a));
	a.peer = PROC_CLIENT;
	a.id = 5;
	assert_non_null(r = request_new(&a));
	id = r->id;
	for (i = 0; i < 4; i++)
		assert_int_equal(request_send(r, PROC_GATEWAY, i,
		    IMSG_CTL_SHOW_SUMMARY, NULL, 0), 0);
	assert_int_equal(r->waiting, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(channel_take(&w->gw[i], &out),
		    IMSG_CTL_SHOW_SUMMARY);
		assert_int_equal(imsg_get_id(&out), id);
		imsg_free(&out);
		request_recv(w->gw[i].iev, msg(&in, IMSG_CTL_END, id, NULL,
		    0));
		if (i < 3)
			assert_int_equal(channel_take(&w->client, &out),
			    IMSG_NONE);
	}
	assert_int_equal(channel_take(&w->client, &out), IMSG_CTL_END);
	imsg_free(&out);
}

/*
 * A gateway's request relayed to the gateway that asked; a cancelled
 * one (its client left) answers nothing more.
 */
static void
test_request_cancel(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct request		*r;
	struct ctl_result	 res;
	struct imsg		 in, out;
	uint32_t		 id;

	proc_asker(w->gw[3].iev, msg(&in, IMSG_CTL_LOGS, 77, NULL, 0), &a);
	assert_non_null(r = request_new(&a));
	id = r->id;
	assert_int_equal(request_send(r, PROC_STORE, 0, IMSG_CTL_SHOW_STATS,
	    NULL, 0), 0);
	assert_int_equal(channel_take(&w->store, &out), IMSG_CTL_SHOW_STATS);
	imsg_free(&out);
	request_cancel(&a);
	assert_false(request_busy(&a));
	memset(&res, 0, sizeof(res));
	request_recv(w->store.iev, msg(&in, IMSG_CTL_FAIL, id, &res,
	    sizeof(res)));
	assert_int_equal(channel_take(&w->gw[3], &out), IMSG_NONE);

	/* the same, not cancelled: the FAIL goes to gateway 3, id 77 */
	assert_non_null(r = request_new(&a));
	id = r->id;
	assert_int_equal(request_send(r, PROC_STORE, 0, IMSG_CTL_SHOW_STATS,
	    NULL, 0), 0);
	assert_int_equal(channel_take(&w->store, &out), IMSG_CTL_SHOW_STATS);
	imsg_free(&out);
	request_recv(w->store.iev, msg(&in, IMSG_CTL_FAIL, id, &res,
	    sizeof(res)));
	assert_int_equal(channel_take(&w->gw[3], &out), IMSG_CTL_FAIL);
	assert_int_equal(imsg_get_id(&out), 77);
	imsg_free(&out);
	assert_false(request_busy(&a));
}

/*
 * Answers with no END (a gateway's /metrics counts): r->last ends each
 * child's, and the last child's ends the request.
 */
static void
test_request_last(void **state)
{
	struct world		*w = *state;
	struct proc_asker	 a;
	struct request		*r;
	struct gw_metrics_total	 t;
	struct imsg		 in, out;
	uint32_t		 id;
	int			 i;

	proc_asker(w->gw[0].iev, msg(&in, IMSG_GW_METRICS_ASK, 9, NULL, 0),
	    &a);
	assert_non_null(r = request_new(&a));
	r->last = IMSG_GW_METRICS_TOTAL;
	id = r->id;
	for (i = 1; i < 3; i++)
		assert_int_equal(request_send(r, PROC_GATEWAY, i,
		    IMSG_GW_METRICS_DUMP, NULL, 0), 0);
	memset(&t, 0, sizeof(t));
	for (i = 1; i < 3; i++) {
		assert_int_equal(channel_take(&w->gw[i], &out),
		    IMSG_GW_METRICS_DUMP);
		imsg_free(&out);
		request_recv(w->gw[i].iev, msg(&in, IMSG_GW_METRICS_TOTAL, id,
		    &t, sizeof(t)));
		assert_int_equal(channel_take(&w->gw[0], &out),
		    IMSG_GW_METRICS_TOTAL);
		assert_int_equal(imsg_get_id(&out), 9);
		imsg_free(&out);
	}
	/* both answered: the request is gone, a third TOTAL goes nowhere */
	request_recv(w->gw[1].iev, msg(&in, IMSG_GW_METRICS_TOTAL, id, &t,
	    sizeof(t)));
	assert_int_equal(channel_take(&w->gw[0], &out), IMSG_NONE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gateway_by_channel,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_relay, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_request_fanout, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_request_cancel, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_request_last, setup,
		    teardown),
	};

	log_init(1, 0);
	(void)event_init();	/* imsgev_new's events: never dispatched */
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
