/*
 * The gate of a workload, as a definition says it: "allow from" and
 * "deny from" rules, "auth basic" and "auth request".  The checks of
 * those fields (common/gate.c, rows of workload_fields.c) and the
 * parsing the parent and the gateway share.
 */

#ifndef ORCHD_GATE_H
#define ORCHD_GATE_H

#include <stddef.h>

#include "msg.h"
#include "workload.h"

struct wl_field;

/* one "allow CIDR" or "deny CIDR" entry of workload_conf's access */
struct gate_rule {
	int		 allow;		/* 1 allow, 0 deny */
	int		 all;		/* "all": every address */
	struct netaddr	 net;
};

int	gate_rule_parse(const char *, struct gate_rule *);
int	gate_rule_match(const struct gate_rule *, const struct netaddr *);
int	gate_url_split(const char *, char *, size_t, int *, const char **);
int	gate_header_name_ok(const char *);
int	gate_hash_ok(const char *);

int	check_gate_access(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);
int	check_gate_basic(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);
int	check_gate_request(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);
int	check_gate_headers(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);
int	check_gate_option(const struct workload_conf *,
	    const struct wl_field *, size_t *, char *, size_t);

#endif /* ORCHD_GATE_H */
