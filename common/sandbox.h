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
#define SB_DNS		0x0400	/* glibc's resolver: sendmmsg(2), and nscd's
				   socket refused, not fatal */
/* the parent's alone: no child has any of these */
#define SB_FATTR	0x1000	/* chmod, chown and umask */
#define SB_PROC		0x2000	/* signal and reap others; never fork */
#define SB_LISTEN	0x4000	/* bind and listen */
#define SB_PIPE		0x8000	/* pipes, socket pairs, dup */
#define SB_HOST		0x10000	/* its name, directories read, datagrams
				   to an address (NOTIFY_SOCKET) */
#define SB_DIAG		0x20000	/* a NETLINK_SOCK_DIAG socket: the
				   host's listeners (orchd/owner.c) */

/*
 * The sets of the children that talk to the network, here so that
 * regress/e2e/sandboxtest.c tries the very same.  No process of ours
 * binds or listens: the parent does, and passes the listeners on.
 */
#define SB_GATEWAY	(SB_STDIO | SB_INET | SB_ACCEPT | SB_RECVFD | \
			    SB_SPLICE)
#define SB_RUNTIME	(SB_STDIO | SB_INET | SB_UNIX)
/* acmed: HTTPS out, names resolved from the files in its chroot */
#define SB_ACME		(SB_STDIO | SB_INET | SB_RPATH | SB_DNS)
/* notifyd: webhooks out, the same */
#define SB_NOTIFY	(SB_STDIO | SB_INET | SB_RPATH | SB_DNS)
/*
 * The root parent, once its children and the spawner run: files
 * anywhere (the configuration, keys, the cgroups, the logs, the state),
 * their owners and modes, its listeners and control socket, signals to
 * its children.  No fork, no exec, no change of user: the spawner's.
 */
#define SB_PARENT	(SB_STDIO | SB_RPATH | SB_WPATH | SB_CPATH | \
			    SB_INET | SB_UNIX | SB_ACCEPT | SB_RECVFD | \
			    SB_SENDFD | SB_FATTR | SB_PROC | SB_LISTEN | \
			    SB_PIPE | SB_HOST | SB_DIAG | SB_FLOCK)

/* before chroot: what the report of a forbidden call needs (privdrop) */
void	sandbox_prepare(void);
/* after start-up, before the event loop; fatal if it cannot be done */
void	sandbox_enter(const char *, unsigned int);

#endif /* ORCHD_SANDBOX_H */
