/*
 * The gate as gatewayd runs it: who may reach and wake a workload
 * ("allow from", "deny from", "auth basic", "auth request").
 *
 *	gate_conf.c	the password files from the parent, each
 *			workload's gate compiled, a TCP client's rules
 *	gate.c		a request's check, from serve.c, and its waits
 *	gate_answer.c	the gate's own answers, and the way on
 *	gate_basic.c	Basic credentials: cache, verifier, the cap
 *	gate_verify.c	the verifier process (bcrypt, yescrypt)
 *	gate_cache.c	credentials verified, keyed by a keyed hash
 *	gate_request.c	forward auth, to an auth service
 */

#ifndef ORCHD_GATECHECK_H
#define ORCHD_GATECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "gate.h"
#include "http.h"
#include "msg.h"

#define GATE_VERIFY_MAX		64	/* passwords waiting for the
					   verifier, for every connection */
#define GATE_VERIFY_WAIT	10	/* seconds: then 503 */
#define GATE_REQUEST_MAX	256	/* questions to auth services at
					   once; then 503 */
#define GATE_PASS_MAX		256	/* a password's bytes, NUL incl. */
#define GATE_CRED_MAX		1024	/* an Authorization value's bytes */
#define GATE_CACHE_MAX		1024	/* credentials remembered */
#define GATE_CACHE_TTL		300	/* seconds */
#define GATE_RCACHE_MAX		256	/* auth service's 2xx remembered */
#define GATE_ADD_MAX		2048	/* bytes of the fields copied */
#define GATE_BODY_MAX		4096	/* of an auth service's answer */
#define GATE_EXTRA_MAX		4096	/* its fields passed on */

/* the password files of the current configuration */
struct gw_htfile {
	char			 path[HTPASSWD_PATH_MAX];
	struct cfg_htuser	*users;
	uint32_t		 nusers;	/* received */
	uint32_t		 want;		/* announced */
};

/* a workload's gate, compiled from its definition */
struct gw_gate {
	struct gate_rule	*rules;
	size_t			 nrules;
	int			 basic;		/* auth basic */
	const struct gw_htfile	*file;		/* its users; NULL: none
						   came, nobody passes */
	int			 request;	/* auth request */
	union wl_addr		 addr;		/* the auth service */
	socklen_t		 addrlen;
	const char		*path;		/* in wl->conf's URL */
	char			 hostport[64];	/* its Host field */
	int64_t			 timeout_ms;
	int64_t			 cache_ms;	/* 0: no cache */
};

/* a check under way: a password at the verifier, an auth service */
enum gate_wait_kind {
	GATE_WAIT_VERIFY,
	GATE_WAIT_REQUEST
};
struct gate_wait {
	enum gate_wait_kind	 kind;
	uint32_t		 slot;		/* GATE_WAIT_VERIFY */
	uint8_t			 key[32];	/* its cache key */
	int			 cached;	/* key is one: GATE_WAIT_REQUEST */
	int			 known;		/* the user is in the file */
	uint32_t		 gen;		/* gate_generation() at start */
	struct gate_up		*up;		/* GATE_WAIT_REQUEST */
};

/* fields for the upstream request, from the auth service's 2xx */
struct gate_add {
	struct http_field	 f[WL_AUTH_HEADERS_MAX];
	size_t			 n;
	char			 buf[GATE_ADD_MAX];
	size_t			 len;
};

struct gw_conn;
struct gw_workload;
struct imsgev;
struct imsg;
struct cfg_generation;
struct workload_conf;

/* gate_conf.c */
void	 gate_recv_file(struct imsgev *, struct imsg *);
void	 gate_recv_user(struct imsgev *, struct imsg *);
void	 gate_apply(struct cfg_generation *);
void	 gate_workload(struct gw_workload *, const struct workload_conf *);
void	 gate_forget(struct gw_workload *);
int	 gate_tcp_denied(const struct gw_conn *);
void	 gate_conn_free(struct gw_conn *);
const char *gate_user_hash(const struct gw_htfile *, const char *, size_t);
uint32_t gate_generation(void);

/* gate.c */
void	 gate_check(struct gw_conn *);

/* gate_answer.c */
void	 gate_init(void (*)(struct gw_conn *));
void	 gate_continue(struct gw_conn *);
void	 gate_refuse(struct gw_conn *, int, const char *, const char *);
void	 gate_refuse_body(struct gw_conn *, int, const char *,
	    const char *, const char *, size_t, const char *);
void	 gate_wait_end(struct gw_conn *);

/* gate_basic.c */
void	 gate_basic_check(struct gw_conn *);
void	 gate_basic_verified(struct gw_conn *, int);
void	 gate_basic_timeout(struct gw_conn *);

/* gate_verify.c */
void	 gate_verify_init(void (*)(struct gw_conn *, int));
int	 gate_verify_ask(struct gw_conn *, const char *, const char *,
	    size_t, uint32_t *);
void	 gate_verify_cancel(uint32_t);

/* gate_cache.c */
void	 gate_cache_init(void);
void	 gate_cache_key(uint8_t *, const char *, const char *, size_t,
	    const char *, size_t);
int	 gate_cache_find(int, const uint8_t *, int64_t, const char **,
	    size_t *);
void	 gate_cache_put(int, const uint8_t *, int64_t, const char *,
	    size_t);
void	 gate_cache_clear(void);

/* gate_request.c */
void	 gate_request_start(struct gw_conn *);
void	 gate_request_timeout(struct gw_conn *);
void	 gate_request_cancel(struct gw_conn *);

#endif /* ORCHD_GATECHECK_H */
