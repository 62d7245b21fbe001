/*
 * libtls for runtimed, which needs it only to reach a swarm manager over
 * TCP ("swarm manager"): loaded at start when the configuration names
 * one (runtimed -T), before the chroot, and not mapped at all otherwise.
 * tlslib.c says why.
 */

#ifndef RUNTIMED_TLSLIB_H
#define RUNTIMED_TLSLIB_H

#include <tls.h>

struct privsep;

struct tlslib {
	__typeof__(tls_init)			*init;
	__typeof__(tls_config_new)		*config_new;
	__typeof__(tls_config_free)		*config_free;
	__typeof__(tls_config_error)		*config_error;
	__typeof__(tls_config_set_ca_mem)	*config_set_ca_mem;
	__typeof__(tls_config_set_keypair_mem)	*config_set_keypair_mem;
	__typeof__(tls_client)			*client;
	__typeof__(tls_configure)		*configure;
	__typeof__(tls_connect_socket)		*connect_socket;
	__typeof__(tls_handshake)		*handshake;
	__typeof__(tls_read)			*read;
	__typeof__(tls_write)			*write;
	__typeof__(tls_close)			*close;
	__typeof__(tls_free)			*free;
	__typeof__(tls_error)			*error;
};

/* every member NULL until tlslib_load() */
extern struct tlslib	 tlslib;

void	tlslib_load(struct privsep *);
int	tlslib_loaded(void);

#endif
