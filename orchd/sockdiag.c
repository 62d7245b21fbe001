/*
 * The TCP listeners on one port, as the kernel lists them over
 * NETLINK_SOCK_DIAG: each one's address, uid and socket inode, for the
 * listener check (owner.c).
 *
 * One dump per address family, of sockets in TCP_LISTEN alone.  Each
 * IPv6 one comes with its INET_DIAG_SKV6ONLY, unasked: an IPv6 wildcard
 * listener takes IPv4 connections unless it is IPV6_V6ONLY.  The kernel dumps every listener
 * of the family; those on other ports are skipped as they are read, so
 * that what is kept is bounded by DIAG_LISTENERS_MAX, not by the host.
 *
 * The answer comes from the kernel, not from a child, but it is read as
 * if it did not: every message and every attribute is checked against
 * the bytes actually received before a field of it is read, a reply to
 * another request (its sequence number) is an error, and the dump ends
 * at NLMSG_DONE or at a bounded number of reads.  sockdiag_parse() is
 * that reading alone, without a socket, for the unit test.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "sockdiag.h"

#define DIAG_BUF		(32 * 1024)
#define DIAG_READS_MAX		4096	/* of DIAG_BUF: a host's listeners */
#define DIAG_TIMEOUT_MS		2000	/* each read */

/*
 * One inet_diag_msg, its attributes checked; 0, or -1 if it lies.  Every
 * header is copied out before it is read: the bytes may be anywhere.
 */
static int
diag_one(const char *p, size_t len, uint16_t port, struct diag_answer *a)
{
	struct inet_diag_msg	 m;
	struct nlattr		 at;
	struct diag_listener	*l;
	size_t			 off;
	uint8_t			 v;

	if (len < sizeof(m))
		return (-1);
	memcpy(&m, p, sizeof(m));
	if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6)
		return (-1);
	if (m.idiag_state != TCP_LISTEN || ntohs(m.id.idiag_sport) != port)
		return (0);
	if (a->n >= DIAG_LISTENERS_MAX) {
		a->overflow = 1;
		return (0);
	}
	l = &a->l[a->n];
	memset(l, 0, sizeof(*l));
	l->family = m.idiag_family;
	l->port = port;
	memcpy(l->addr, m.id.idiag_src, m.idiag_family == AF_INET ? 4 : 16);
	l->uid = m.idiag_uid;
	l->inode = m.idiag_inode;
	l->v6only = -1;
	/* the attributes after it, each within what is left */
	for (off = NLMSG_ALIGN(sizeof(m)); off < len && len - off >=
	    NLA_HDRLEN; off += NLA_ALIGN(at.nla_len)) {
		memcpy(&at, p + off, sizeof(at));
		if (at.nla_len < NLA_HDRLEN || at.nla_len > len - off)
			return (-1);
		if ((at.nla_type & NLA_TYPE_MASK) == INET_DIAG_SKV6ONLY &&
		    at.nla_len >= NLA_HDRLEN + 1) {
			memcpy(&v, p + off + NLA_HDRLEN, 1);
			l->v6only = v != 0;
		}
	}
	a->n++;
	return (0);
}

/*
 * One read of the dump: 1 more to come, 0 done (NLMSG_DONE), -1 what
 * the kernel said is an error (errno) or the bytes do not hold together
 * (EBADMSG).
 */
int
sockdiag_parse(const void *buf, size_t len, uint32_t seq, uint16_t port,
    struct diag_answer *a)
{
	const char		*p = buf;
	struct nlmsghdr		 nh;
	struct nlmsgerr		 e;
	size_t			 off, body;

	for (off = 0; off < len; off += NLMSG_ALIGN(nh.nlmsg_len)) {
		if (len - off < NLMSG_HDRLEN)
			goto bad;
		memcpy(&nh, p + off, sizeof(nh));
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > len - off ||
		    nh.nlmsg_seq != seq)
			goto bad;
		body = nh.nlmsg_len - NLMSG_HDRLEN;
		switch (nh.nlmsg_type) {
		case NLMSG_DONE:
			return (0);
		case NLMSG_ERROR:
			if (body < sizeof(e))
				goto bad;
			memcpy(&e, p + off + NLMSG_HDRLEN, sizeof(e));
			errno = e.error < 0 && e.error > -4096 ? -e.error :
			    EPROTO;
			return (-1);
		case SOCK_DIAG_BY_FAMILY:
			if (diag_one(p + off + NLMSG_HDRLEN, body, port,
			    a) == -1)
				goto bad;
			break;
		default:
			goto bad;
		}
	}
	return (1);
 bad:
	errno = EBADMSG;
	return (-1);
}

static int
diag_send(int fd, int family, uint32_t seq)
{
	struct {
		struct nlmsghdr		 nh;
		struct inet_diag_req_v2	 r;
	} req;
	struct sockaddr_nl	 nl;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	req.r.sdiag_family = family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = 1U << TCP_LISTEN;
	memset(&nl, 0, sizeof(nl));
	nl.nl_family = AF_NETLINK;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl,
	    sizeof(nl)) != (ssize_t)sizeof(req))
		return (-1);
	return (0);
}

/* the listeners of family on port, added to a; -1 and errno if not */
int
sockdiag_listeners(int family, uint16_t port, struct diag_answer *a)
{
	static uint32_t		 seq;
	static char		 buf[DIAG_BUF];
	struct timeval		 tv;
	ssize_t			 n;
	int			 fd, r = 1, reads, saved;

	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return (-1);
	tv.tv_sec = DIAG_TIMEOUT_MS / 1000;
	tv.tv_usec = (DIAG_TIMEOUT_MS % 1000) * 1000;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    diag_send(fd, family, ++seq) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return (-1);
	}
	for (reads = 0; r == 1 && reads < DIAG_READS_MAX; reads++) {
		if ((n = recv(fd, buf, sizeof(buf), 0)) == -1) {
			if (errno == EINTR)
				continue;
			r = -1;
			break;
		}
		if (n == 0) {
			errno = EPIPE;
			r = -1;
			break;
		}
		r = sockdiag_parse(buf, n, seq, port, a);
	}
	if (r == 1) {
		errno = E2BIG;
		r = -1;
	}
	saved = errno;
	close(fd);
	errno = saved;
	return (r);
}
