/*
 * The first TLS record of a connection, read before any handshake: the
 * name the client asks for (server_name) and whether it offers ALPN
 * "acme-tls/1".  No allocation, no library: the unit test and the fuzz
 * target link clienthello.c alone.
 */

#ifndef ORCHD_CLIENTHELLO_H
#define ORCHD_CLIENTHELLO_H

#include <stddef.h>
#include <stdint.h>

#define CH_RECORD_MAX	(5 + 16384)	/* a record's header and body */
#define CH_NAME_MAX	256		/* ORCHD_HOST_MAX */

enum ch_result {
	CH_OK = 0,	/* a whole ClientHello, parsed */
	CH_MORE,	/* a prefix of one: wait for more bytes */
	CH_BAD		/* not a ClientHello we take: close */
};

struct clienthello {
	char		 name[CH_NAME_MAX];	/* "": no server_name */
	int		 alpn_acme;		/* offers "acme-tls/1" */
	int		 alpn;			/* has an ALPN extension */
};

enum ch_result	 clienthello_parse(const uint8_t *, size_t,
		    struct clienthello *);

#endif /* ORCHD_CLIENTHELLO_H */
