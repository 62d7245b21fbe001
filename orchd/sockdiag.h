/*
 * The TCP listeners on a port, from the kernel's sock_diag (sockdiag.c),
 * for the listener check of the parent (owner.c).
 */

#ifndef ORCHD_SOCKDIAG_H
#define ORCHD_SOCKDIAG_H

#include <stddef.h>
#include <stdint.h>

/* more than this on one port is more than a workload and a squatter */
#define DIAG_LISTENERS_MAX	64

struct diag_listener {
	int		 family;	/* AF_INET, AF_INET6 */
	uint8_t		 addr[16];	/* network byte order; 4 for v4 */
	uint16_t	 port;
	uint32_t	 uid;
	uint32_t	 inode;
	int		 v6only;	/* 1, 0, -1 not said */
};

struct diag_answer {
	struct diag_listener	 l[DIAG_LISTENERS_MAX];
	size_t			 n;
	int			 overflow;	/* some were left out */
};

int	sockdiag_parse(const void *, size_t, uint32_t, uint16_t,
	    struct diag_answer *);
int	sockdiag_listeners(int, uint16_t, struct diag_answer *);

#endif /* ORCHD_SOCKDIAG_H */
