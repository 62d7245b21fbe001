/*
 * The one outbound HTTP client of orchd (common/https.c): blocking, one
 * request a connection, every step bounded.  acmed speaks HTTPS to the
 * ACME server with it; notifyd POSTs its webhooks with it, over HTTPS
 * or plain HTTP, and has each address checked before it is used.
 */

#ifndef ORCHD_HTTPS_H
#define ORCHD_HTTPS_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define HTTPS_NONCE_MAX		256
#define HTTPS_BODY_MAX		(128 * 1024)	/* https_request's answers */

struct https_resp {
	int		 status;
	char		*body;		/* NUL-terminated */
	size_t		 len;
	char		 nonce[HTTPS_NONCE_MAX];
	char		 location[ACME_URL_MAX];
	int64_t		 retry_after;	/* seconds, 0: none */
};

/*
 * The address about to be connected to (local NULL), then once
 * connected with the local end too: 0 to go on, -1 with why in err.
 */
typedef int (*https_addr_fn)(const struct sockaddr *,
	    const struct sockaddr *, char *, size_t);

struct https_req {
	const char	*method;
	const char	*url;
	const char	*body;		/* NULL: none */
	size_t		 bodylen;
	const char	*ctype;		/* the body's Content-Type */
	const char	*headers;	/* more lines, each ending CRLF */
	const char	*agent;		/* User-Agent */
	size_t		 max;		/* the answer's bound */
	int64_t		 total_ms;	/* the whole exchange's */
	int		 plain;		/* http:// allowed too */
	https_addr_fn	 addr_ok;	/* NULL: any address */
};

int	 https_init(char *, size_t);
int	 https_config(const void *, size_t, char *, size_t);
int	 https_send(const struct https_req *, struct https_resp *, char *,
	    size_t);
int	 https_request(const char *, const char *, const char *, size_t,
	    struct https_resp *, char *, size_t);
void	 https_resp_free(struct https_resp *);
int	 https_url_split(const char *, char *, size_t, char *, size_t,
	    char *, size_t);
int	 https_url_parse(const char *, int *, char *, size_t, char *, size_t,
	    char *, size_t);

#endif /* ORCHD_HTTPS_H */
