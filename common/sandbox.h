/*
 * The Linux stand-in for pledge(2): a seccomp filter built from promises
 * named after pledge's, so that a child's main() says what it may do in
 * one line, e.g. sandbox_enter("gateway", SB_STDIO | SB_INET | SB_RECVFD).
 */

#ifndef ORCHD_SANDBOX_H
#define ORCHD_SANDBOX_H

#define SB_STDIO	0x0001	/* memory, time, signals, I/O on open fds */
#define SB_INET		0x0002	/* AF_INET and AF_INET6 sockets, connect only */
#define SB_UNIX		0x0004	/* AF_UNIX sockets, connect only */
#define SB_RECVFD	0x0008	/* receive fds (see sandbox.c: no extra call) */
#define SB_SENDFD	0x0010	/* send fds (likewise) */
#define SB_RPATH	0x0020	/* open read-only, stat, readlink */
#define SB_WPATH	0x0040	/* open existing files for writing, fsync */
#define SB_CPATH	0x0080	/* create, rename and remove files */
#define SB_FLOCK	0x0100	/* fcntl record locks, flock */
#define SB_ACCEPT	0x0200	/* accept on listening sockets passed in */
#define SB_SPLICE	0x0800	/* non-blocking pipes, splice(2) through them */

/*
 * The sets of the children that talk to the network, here so that
 * regress/e2e/sandboxtest.c tries the very same.  No process of ours
 * binds or listens: the parent does, and passes the listeners on.
 */
#define SB_GATEWAY	(SB_STDIO | SB_INET | SB_ACCEPT | SB_RECVFD | \
			    SB_SPLICE)
#define SB_RUNTIME	(SB_STDIO | SB_INET | SB_UNIX)

/* before chroot: what the report of a forbidden call needs (privdrop) */
void	sandbox_prepare(void);
/* after start-up, before the event loop; fatal if it cannot be done */
void	sandbox_enter(const char *, unsigned int);

#endif /* ORCHD_SANDBOX_H */
