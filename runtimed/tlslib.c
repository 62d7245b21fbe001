/*
 * libtls, loaded by runtimed only when it is needed.  Mapped, libssl and
 * libcrypto cost a process half a megabyte of relocated pages of its
 * own, and their initialization as much again: most of runtimed's
 * memory at rest, for a feature (a swarm manager over TCP) that few
 * hosts use.  So runtimed is not linked with libtls.  The parent starts
 * it with -T when the configuration names a swarm manager, and then,
 * before the chroot (the library's files are outside it) and before
 * the filter, the library is opened by its soname, its functions looked
 * up, and tls_init() called.  A reload that adds a swarm manager to an
 * orchd started without one takes a restart (orchd/orchd.c says so).
 *
 * A static build (ORCHD_STATIC) links libtls as before: there is no
 * library to open, and the table takes the functions themselves.
 */

#include <sys/types.h>
#include <sys/queue.h>

#ifndef ORCHD_STATIC
#include <dlfcn.h>
#endif
#include <event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "proc.h"
#include "tlslib.h"

struct tlslib	 tlslib;

#ifdef ORCHD_STATIC
static void
tlslib_bind(void)
{
	tlslib.init = tls_init;
	tlslib.config_new = tls_config_new;
	tlslib.config_free = tls_config_free;
	tlslib.config_error = tls_config_error;
	tlslib.config_set_ca_mem = tls_config_set_ca_mem;
	tlslib.config_set_keypair_mem = tls_config_set_keypair_mem;
	tlslib.client = tls_client;
	tlslib.configure = tls_configure;
	tlslib.connect_socket = tls_connect_socket;
	tlslib.handshake = tls_handshake;
	tlslib.read = tls_read;
	tlslib.write = tls_write;
	tlslib.close = tls_close;
	tlslib.free = tls_free;
	tlslib.error = tls_error;
}
#else
/* each member of struct tlslib, and the name it is looked up by */
static const struct {
	size_t		 off;
	const char	*name;
} tlslib_syms[] = {
#define SYM(m)	{ offsetof(struct tlslib, m), "tls_" #m }
	SYM(init), SYM(config_new), SYM(config_free), SYM(config_error),
	SYM(config_set_ca_mem), SYM(config_set_keypair_mem), SYM(client),
	SYM(configure), SYM(connect_socket), SYM(handshake), SYM(read),
	SYM(write), SYM(close), SYM(free), SYM(error)
#undef SYM
};

static void
tlslib_bind(void)
{
	void	*lib, *fn;
	size_t	 i;

	if ((lib = dlopen(ORCHD_LIBTLS, RTLD_NOW | RTLD_LOCAL)) == NULL)
		fatalx("swarm manager: cannot load %s: %s", ORCHD_LIBTLS,
		    dlerror());
	for (i = 0; i < sizeof(tlslib_syms) / sizeof(tlslib_syms[0]); i++) {
		if ((fn = dlsym(lib, tlslib_syms[i].name)) == NULL)
			fatalx("swarm manager: %s has no %s", ORCHD_LIBTLS,
			    tlslib_syms[i].name);
		memcpy((char *)&tlslib + tlslib_syms[i].off, &fn, sizeof(fn));
	}
}
#endif

/* the child's before_privdrop: with -T only */
void
tlslib_load(struct privsep *ps)
{
	if (!ps->tls)
		return;
	tlslib_bind();
	/* what the library reads once, before the chroot and the filter */
	if (tlslib.init() == -1)
		fatalx("tls_init");
	log_debug("libtls loaded, for a swarm manager");
}

int
tlslib_loaded(void)
{
	return (tlslib.init != NULL);
}
