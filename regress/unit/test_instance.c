/*
 * Unit tests for gatewayd/instance.c's routes: which addresses runtimed
 * may send a workload's requests to (its definition's; for a driver
 * swarm definition, a node's at the definition's port, and nothing
 * else), and a swarm route of several nodes taken in turn by new
 * upstream connections.  instance.o is linked alone, with the few
 * gateway functions it calls stubbed below.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "imsg.h"
#include "msg.h"
#include "workload.h"
#include "../../gatewayd/gateway.h"
#include "../../gatewayd/metrics.h"

#define PORT	8080

struct gateway			*gw;
static struct gw_workload	*the;

struct gw_workload *
gw_workload_find(const char *name)
{
	return (the != NULL && strcmp(name, the->name) == 0 ? the : NULL);
}

void
gw_workload_address(struct gw_workload *wl, const struct workload_conf *wc)
{
}

void
metrics_state(struct gw_workload *wl, enum workload_state state,
    enum rt_reason reason, int64_t since_ms)
{
}

static void
addr4(union wl_addr *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin.sin_family = AF_INET;
	a->sin.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a->sin.sin_addr) != 1)
		fail_msg("inet_pton %s", ip);
}

static int
setup(void **state)
{
	if ((the = calloc(1, sizeof(*the) + 5)) == NULL)
		return (-1);
	strlcpy(the->namebuf, "prev", 5);
	the->name = the->namebuf;
	/* configured, a swarm service: as route_apply() leaves it */
	the->configured = 1;
	the->swarm = 1;
	the->state = WL_RUNNING;
	addr4(&the->conf_addr, "127.0.0.1", PORT);
	the->conf_addrlen = sizeof(struct sockaddr_in);
	memcpy(&the->addr, &the->conf_addr, sizeof(the->addr));
	the->addrlen = the->conf_addrlen;
	return (0);
}

static int
teardown(void **state)
{
	instance_free(the);
	free(the);
	the = NULL;
	return (0);
}

/* runtimed's route: the first address, and n - 1 more */
static void
route(const char **ips, int port, unsigned int n)
{
	struct rt_route	 rr;
	struct imsg	 imsg;
	unsigned int	 i;

	memset(&rr, 0, sizeof(rr));
	strlcpy(rr.name, "prev", sizeof(rr.name));
	addr4(&rr.addr, ips[0], port);
	rr.addrlen = sizeof(struct sockaddr_in);
	rr.nmore = n - 1;
	for (i = 1; i < n; i++)
		addr4(&rr.more[i - 1], ips[i], port);
	memset(&imsg, 0, sizeof(imsg));
	imsg.data = &rr;
	imsg.datalen = sizeof(rr);
	imsg.fd = -1;
	instance_recv_route(NULL, &imsg);
}

static const char *
next_ip(char *buf)
{
	instance_pick(the);
	assert_int_equal(the->addr.ss_family, AF_INET);
	assert_int_equal(ntohs(the->addr.sin.sin_port), PORT);
	return (inet_ntop(AF_INET, &the->addr.sin.sin_addr, buf,
	    INET_ADDRSTRLEN));
}

static void
test_nodes_in_turn(void **state)
{
	const char	*ips[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3" };
	char		 buf[INET_ADDRSTRLEN];
	int		 i;

	route(ips, PORT, 3);
	assert_int_equal(the->nnodes, 3);
	assert_int_equal(the->addr_rt, 1);
	for (i = 0; i < 7; i++)
		assert_string_equal(next_ip(buf), ips[i % 3]);
	/* one node: that one, every time */
	route(ips + 1, PORT, 1);
	assert_int_equal(the->nnodes, 1);
	for (i = 0; i < 3; i++)
		assert_string_equal(next_ip(buf), "10.0.0.2");
	/* asleep: the definition's again */
	instance_idle(the);
	assert_int_equal(the->nnodes, 0);
	assert_int_equal(the->addr_rt, 0);
}

static void
test_node_bounds(void **state)
{
	const char	*ok[] = { "10.0.0.1", "10.0.0.2" };
	const char	*any[] = { "10.0.0.1", "0.0.0.0" };
	const char	*mcast[] = { "224.0.0.1" };
	char		 buf[INET_ADDRSTRLEN];

	/* not at the definition's port: ignored, whatever the node */
	route(ok, PORT + 1, 2);
	assert_int_equal(the->nnodes, 0);
	assert_int_equal(the->addr_rt, 0);
	/* one bad address spoils the route */
	route(any, PORT, 2);
	assert_int_equal(the->nnodes, 0);
	route(mcast, PORT, 1);
	assert_int_equal(the->addr_rt, 0);
	assert_string_equal(next_ip(buf), "127.0.0.1");
	/* not a swarm workload: only its definition's address */
	the->swarm = 0;
	route(ok, PORT, 2);
	assert_int_equal(the->nnodes, 0);
	route(ok, PORT, 1);
	assert_int_equal(the->addr_rt, 0);
	assert_string_equal(next_ip(buf), "127.0.0.1");
	/* a definition's own address is fine, and drops the nodes */
	the->swarm = 1;
	route(ok, PORT, 2);
	assert_int_equal(the->nnodes, 2);
	{
		const char	*own[] = { "127.0.0.1" };

		route(own, PORT, 1);
	}
	assert_int_equal(the->nnodes, 0);
	assert_int_equal(the->addr_rt, 1);
	/* gone from the configuration: no node route */
	the->configured = 0;
	route(ok, PORT, 2);
	assert_int_equal(the->nnodes, 0);
	the->configured = 1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nodes_in_turn, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_node_bounds, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
