/*
 * The verifier: a process of the gateway's own that computes password
 * hashes, so that a bcrypt at cost 10 (tens of milliseconds) or a
 * yescrypt never stops the gateway's event loop, which serves every
 * other connection meanwhile.
 *
 * It is forked by gatewayd at start, after its chroot and change of
 * user and before its seccomp filter (whose set has no fork), when it
 * holds no configuration, no key and no client's byte yet.  It closes
 * every descriptor but its end of a SOCK_SEQPACKET pair, enters a
 * filter of its own with SB_STDIO alone (read and write on that pair,
 * memory), and then answers one fixed record with another, forever:
 * a hash and a password in, a bit out, crypt_rn(3) of libcrypt computing
 * the hash and the comparison of its output with the stored hash taking
 * the same time whatever bytes differ.  It parses nothing but that
 * record, and knows no user, no file, no client.
 *
 * The gateway keeps at most GATE_VERIFY_MAX questions open (a slot
 * each); past that a request is answered 503 at once.  A request that
 * goes meanwhile gives up its slot's connection, not the slot, which
 * its answer frees.  The verifier gone, the gateway ends (fatalx): a
 * child that misbehaves ends the daemon.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <crypt.h>
#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "proc.h"
#include "sandbox.h"
#include "gateway.h"
#include "gatecheck.h"

struct gate_vq {
	uint32_t	 slot;
	uint32_t	 gen;
	char		 hash[HTPASSWD_HASH_MAX];
	char		 pass[GATE_PASS_MAX];
};

struct gate_va {
	uint32_t	 slot;
	uint32_t	 gen;
	int32_t		 ok;
};

struct gate_vslot {
	struct gw_conn	*c;		/* NULL: gone, or free */
	uint32_t	 gen;
	int		 used;
};

static struct gate_vslot gate_slots[GATE_VERIFY_MAX];
static uint32_t		 gate_vgen;
static int		 gate_vfd = -1;
static struct event	 gate_vev;
static void		(*gate_verified)(struct gw_conn *, int);

/* the verifier itself: one record in, one out, until the gateway goes */
static __dead void
gate_verifier(int fd)
{
	static struct crypt_data cd;
	struct gate_vq		 q;
	struct gate_va		 a;
	const char		*out;
	size_t			 n;
	ssize_t			 r;

	if (fd != 3 && dup2(fd, 3) == -1)
		_exit(1);
	closefrom(4);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	proc_title("verifier");
	sandbox_enter("gateway verifier", SB_STDIO);
	for (;;) {
		if ((r = read(3, &q, sizeof(q))) == 0)
			_exit(0);
		if (r != sizeof(q) ||
		    memchr(q.hash, '\0', sizeof(q.hash)) == NULL ||
		    memchr(q.pass, '\0', sizeof(q.pass)) == NULL)
			_exit(1);
		memset(&a, 0, sizeof(a));
		a.slot = q.slot;
		a.gen = q.gen;
		out = crypt_rn(q.pass, q.hash, &cd, sizeof(cd));
		n = strlen(q.hash);
		a.ok = out != NULL && strlen(out) == n &&
		    ct_memcmp(out, q.hash, n) == 0;
		explicit_bzero(&q, sizeof(q));
		explicit_bzero(cd.output, sizeof(cd.output));
		explicit_bzero(cd.input, sizeof(cd.input));
		if (write(3, &a, sizeof(a)) != sizeof(a))
			_exit(1);
	}
}

/* answers from the verifier, as many as there are */
static void
gate_verify_read(int fd, short event, void *arg)
{
	struct gate_va		 a;
	struct gate_vslot	*s;
	struct gw_conn		*c;
	ssize_t			 r;

	for (;;) {
		if ((r = read(fd, &a, sizeof(a))) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			fatal("%s: the verifier", __func__);
		}
		if (r == 0)
			fatalx("%s: the verifier is gone", __func__);
		if (r != sizeof(a) || a.slot >= GATE_VERIFY_MAX ||
		    !(s = &gate_slots[a.slot])->used || s->gen != a.gen)
			fatalx("%s: a bad answer from the verifier", __func__);
		c = s->c;
		s->c = NULL;
		s->used = 0;
		if (c != NULL)
			gate_verified(c, a.ok == 1);
	}
}

/* at start, before the sandbox: the verifier forked, its channel */
void
gate_verify_init(void (*verified)(struct gw_conn *, int))
{
	int	 sv[2];
	pid_t	 pid;

	gate_verified = verified;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1)
		fatal("%s: socketpair", __func__);
	switch ((pid = fork())) {
	case -1:
		fatal("%s: fork", __func__);
	case 0:
		close(sv[0]);
		gate_verifier(sv[1]);
	default:
		break;
	}
	close(sv[1]);
	gate_vfd = sv[0];
	if (fcntl(gate_vfd, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(gate_vfd, F_SETFD, FD_CLOEXEC) == -1)
		fatal("%s: fcntl", __func__);
	event_set(&gate_vev, gate_vfd, EV_READ | EV_PERSIST, gate_verify_read,
	    NULL);
	event_add(&gate_vev, NULL);
}

/*
 * Ask whether pass (len bytes) is hash's password, for c: 0 with its
 * slot, -1 when too many are waiting (or the password is too long).
 */
int
gate_verify_ask(struct gw_conn *c, const char *hash, const char *pass,
    size_t len, uint32_t *slot)
{
	struct gate_vq	 q;
	uint32_t	 i;
	ssize_t		 r;

	if (len >= sizeof(q.pass) || strlen(hash) >= sizeof(q.hash))
		return (-1);
	for (i = 0; i < GATE_VERIFY_MAX; i++)
		if (!gate_slots[i].used)
			break;
	if (i == GATE_VERIFY_MAX)
		return (-1);
	memset(&q, 0, sizeof(q));
	q.slot = i;
	q.gen = ++gate_vgen;
	(void)strlcpy(q.hash, hash, sizeof(q.hash));
	memcpy(q.pass, pass, len);
	r = write(gate_vfd, &q, sizeof(q));
	explicit_bzero(&q, sizeof(q));
	if (r != sizeof(q))
		return (-1);
	gate_slots[i].used = 1;
	gate_slots[i].gen = gate_vgen;
	gate_slots[i].c = c;
	*slot = i;
	return (0);
}

/* c goes: its answer, when it comes, is for nobody */
void
gate_verify_cancel(uint32_t slot)
{
	if (slot < GATE_VERIFY_MAX)
		gate_slots[slot].c = NULL;
}
