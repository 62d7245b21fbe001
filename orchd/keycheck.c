/*
 * The check of a configuration's TLS keypairs, by the gateway program.
 *
 * The parent reads the certificate and key files, as root, but parses
 * none of them: it maps no libtls and no OpenSSL.  For each configuration
 * it loads with a TLS listener (at start, at reload, for orchd -n), it
 * runs "gatewayd -n" as the configured user in the chroot (those of the
 * running configuration once there is one: neither changes before a
 * restart), sends it the bytes over a socketpair and waits, at most
 * KEYCHECK_WAIT_MS, for its answer and its exit (msg.h, struct
 * tls_check_hdr).  Its answer names what failed by number; the message is
 * made and logged here, so that orchd -n, the foreground log and syslog
 * say the same.
 *
 * It all happens within one call: the checker is reaped before keycheck()
 * returns, killed first if it has to be.  For orchd -n and at start it is
 * forked here and reaped by its pid: there is no SIGCHLD handler yet.  At
 * a reload the parent forks no more: the spawner (spawnerd/) starts it on
 * the socket passed to it, answers its pid, signals it when asked and
 * reports its exit on the same channel.  Either execs it with
 * keycheck_exec() (common/spawnexec.c).
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "spawnexec.h"
#include "timer.h"

#define KEYCHECK_WAIT_MS	10000	/* for the whole check */
#define KEYCHECK_POLL_MS	10	/* for the exit, after the answer */

struct keycheck {
	char		 path[PATH_MAX];
	pid_t		 pid;
	int		 fd;
	int64_t		 deadline;	/* ms, CLOCK_MONOTONIC */
	int		 gone;		/* it stopped reading */
	int		 spawner;	/* started by the spawner */
};

static int
left_ms(const struct keycheck *kc)
{
	int64_t	 left = kc->deadline - monotime_ms();

	return (left > 0 ? (int)left : 0);
}

static int
keycheck_start(struct keycheck *kc, struct orchd_conf *conf)
{
	struct orchd		*env = orchd_env;
	struct orchd_conf	*run;
	struct passwd		*pw;
	char			*argv[8], ids[32];
	uid_t			 uid = geteuid();
	gid_t			 gid = getegid();
	int			 argc = 0, sp[2];

	/* the user and chroot only change at restart: the running ones */
	run = env->conf != NULL ? env->conf : conf;
	if (uid == 0) {
		/* the checker, like a child, gets the user as numbers */
		if ((pw = users_getpwnam(run->user)) == NULL) {
			log_warnx("user %s does not exist: TLS keypairs "
			    "cannot be checked", run->user);
			return (-1);
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	snprintf(ids, sizeof(ids), "%u:%u", (unsigned int)uid,
	    (unsigned int)gid);
	helper_path(env, "gatewayd", kc->path, sizeof(kc->path));
	argv[argc++] = kc->path;
	argv[argc++] = "-n";
	argv[argc++] = "-u";
	argv[argc++] = ids;
	argv[argc++] = "-c";
	argv[argc++] = run->chroot;
	/* its own complaints (a failed chroot) where ours go */
	if (log_getstderr())
		argv[argc++] = "-d";
	argv[argc] = NULL;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("%s: socketpair", __func__);
		return (-1);
	}
	/*
	 * Once started, the parent forks no more: the spawner does, with
	 * the same program, user and chroot, given at its start.
	 */
	if (spawner_running()) {
		kc->spawner = 1;
		if ((kc->pid = spawner_helper(IMSG_SP_KEYCHECK, sp[1])) == -1) {
			log_warn("%s: spawner", __func__);
			close(sp[0]);
			return (-1);
		}
		kc->fd = sp[0];
		if (fcntl(kc->fd, F_SETFL, O_NONBLOCK) == -1)
			fatal("%s: fcntl", __func__);
		return (0);
	}
	switch ((kc->pid = fork())) {
	case -1:
		log_warn("%s: fork", __func__);
		close(sp[0]);
		close(sp[1]);
		return (-1);
	case 0:
		close(sp[0]);
		keycheck_exec(sp[1], argv);
	default:
		break;
	}
	close(sp[1]);
	kc->fd = sp[0];
	if (fcntl(kc->fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: fcntl", __func__);
	return (0);
}

/* -1 once the checker stopped reading (it failed) or time is up */
static int
keycheck_write(struct keycheck *kc, const void *buf, size_t len)
{
	struct pollfd	 pfd;
	const uint8_t	*p = buf;
	ssize_t		 n;

	while (len > 0 && !kc->gone) {
		pfd.fd = kc->fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, left_ms(kc)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("%s: poll", __func__);
		}
		if (left_ms(kc) == 0)
			kc->gone = 1;
		else if ((n = send(kc->fd, p, len, MSG_NOSIGNAL)) == -1) {
			if (errno != EINTR && errno != EAGAIN)
				kc->gone = 1;
		} else {
			p += n;
			len -= n;
		}
	}
	return (kc->gone ? -1 : 0);
}

static int
keycheck_piece(struct keycheck *kc, enum cfg_tls_what what,
    const uint8_t *data, size_t len)
{
	struct tls_check_hdr	 h;

	memset(&h, 0, sizeof(h));
	h.what = what;
	h.len = len;
	if (keycheck_write(kc, &h, sizeof(h)) == -1 ||
	    keycheck_write(kc, data, len) == -1)
		return (-1);
	return (0);
}

/* the SNI keypairs, then each TLS listener's: msg.h says why */
static void
keycheck_send(struct keycheck *kc, const struct orchd_conf *conf)
{
	const struct keypair_conf	*kp;
	const struct listener_conf	*l;

	TAILQ_FOREACH(kp, &conf->keypairs, entry) {
		if (kp->cert_mem == NULL)
			continue;
		if (keycheck_piece(kc, CFG_TLS_SNI_CERT, kp->cert_mem,
		    kp->cert_len) == -1 ||
		    keycheck_piece(kc, CFG_TLS_SNI_KEY, kp->key_mem,
		    kp->key_len) == -1)
			return;
	}
	TAILQ_FOREACH(l, &conf->listeners, entry) {
		if (l->tls_cert_mem == NULL)
			continue;	/* none, or "tls acme" alone */
		if (keycheck_piece(kc, CFG_TLS_LISTENER_CERT,
		    l->tls_cert_mem, l->tls_cert_len) == -1 ||
		    keycheck_piece(kc, CFG_TLS_LISTENER_KEY, l->tls_key_mem,
		    l->tls_key_len) == -1)
			return;
	}
	(void)shutdown(kc->fd, SHUT_WR);
}

/* until the end, or as much as an answer can be; returns its length */
static size_t
keycheck_read(struct keycheck *kc, uint8_t *buf, size_t size)
{
	struct pollfd	 pfd;
	size_t		 off = 0;
	ssize_t		 n;

	while (off < size && left_ms(kc) > 0) {
		pfd.fd = kc->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left_ms(kc)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("%s: poll", __func__);
		}
		if ((n = read(kc->fd, buf + off, size - off)) == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;	/* ECONNRESET: it left before reading all */
		}
		if (n == 0)
			break;
		off += n;
	}
	return (off);
}

/* by the spawner, which reaps it and says so on its request channel */
static int
keycheck_wait_spawner(struct keycheck *kc, int *status)
{
	if (spawner_helper_wait(kc->pid, left_ms(kc), status) == 0)
		return (0);
	spawner_kill(kc->pid, SIGKILL);
	if (spawner_helper_wait(kc->pid, -1, status) == -1)
		*status = SIGKILL;	/* the spawner is lost */
	return (-1);
}

/* -1 when it had to be killed */
static int
keycheck_wait(struct keycheck *kc, int *status)
{
	pid_t	 r;

	if (kc->spawner)
		return (keycheck_wait_spawner(kc, status));
	for (;;) {
		if ((r = waitpid(kc->pid, status, WNOHANG)) == kc->pid)
			return (0);
		if (r == -1 && errno != EINTR)
			fatal("%s: waitpid", __func__);
		if (left_ms(kc) == 0)
			break;
		usleep(KEYCHECK_POLL_MS * 1000);
	}
	(void)kill(kc->pid, SIGKILL);
	while (waitpid(kc->pid, status, 0) == -1)
		if (errno != EINTR)
			fatal("%s: waitpid", __func__);
	return (-1);
}

static const struct listener_conf *
tls_listener_nth(const struct orchd_conf *conf, uint32_t n)
{
	const struct listener_conf	*l;

	TAILQ_FOREACH(l, &conf->listeners, entry)
		if (l->tls_cert_mem != NULL && n-- == 0)
			return (l);
	return (NULL);
}

static const struct keypair_conf *
keypair_nth(const struct orchd_conf *conf, uint32_t n)
{
	const struct keypair_conf	*kp;

	TAILQ_FOREACH(kp, &conf->keypairs, entry)
		if (kp->cert_mem != NULL && n-- == 0)
			return (kp);
	return (NULL);
}

/* the checker's answer, in the words the parent has always used */
static void
keycheck_report(const struct keycheck *kc, const struct orchd_conf *conf,
    const uint8_t *buf, size_t len)
{
	struct tls_check_fail		 f;
	const struct listener_conf	*l;
	const struct keypair_conf	*kp;
	char				 msg[TLS_CHECK_MSG_MAX + 1];
	size_t				 i;

	if (len >= sizeof(f))
		memcpy(&f, buf, sizeof(f));
	if (len < sizeof(f) || f.len > len - sizeof(f) ||
	    f.len > TLS_CHECK_MSG_MAX) {
		log_warnx("checking TLS keypairs: %s: garbled answer",
		    kc->path);
		return;
	}
	for (i = 0; i < f.len; i++) {
		msg[i] = buf[sizeof(f) + i];
		if (!isprint((unsigned char)msg[i]))
			msg[i] = '?';
	}
	msg[i] = '\0';
	switch (f.what) {
	case TLS_CHECK_LISTENER_KEYPAIR:
		if ((l = tls_listener_nth(conf, f.n)) == NULL)
			break;
		log_warnx("listen on %s: %s, %s: %s", l->name, l->tls_cert,
		    l->tls_key, msg);
		return;
	case TLS_CHECK_SNI_KEYPAIR:
		if ((kp = keypair_nth(conf, f.n)) == NULL)
			break;
		log_warnx("tls keypair %s, %s: %s", kp->cert, kp->key, msg);
		return;
	case TLS_CHECK_LISTENER:
		if ((l = tls_listener_nth(conf, f.n)) == NULL)
			break;
		log_warnx("listen on %s: %s", l->name, msg);
		return;
	case TLS_CHECK_OTHER:
		log_warnx("checking TLS keypairs: %s", msg);
		return;
	}
	log_warnx("checking TLS keypairs: %s: answer out of range (%d, %u)",
	    kc->path, f.what, f.n);
}

/* 0 when every TLS listener's keypair, and each SNI one, is good */
int
keycheck(struct orchd_conf *conf)
{
	struct keycheck	 kc;
	uint8_t		 buf[sizeof(struct tls_check_fail) +
			    TLS_CHECK_MSG_MAX];
	size_t		 len;
	int		 status, killed;

	memset(&kc, 0, sizeof(kc));
	kc.deadline = monotime_ms() + KEYCHECK_WAIT_MS;
	if (keycheck_start(&kc, conf) == -1)
		return (-1);
	keycheck_send(&kc, conf);
	len = keycheck_read(&kc, buf, sizeof(buf));
	close(kc.fd);
	killed = keycheck_wait(&kc, &status);
	if (killed) {
		log_warnx("checking TLS keypairs: %s took more than %d "
		    "seconds: killed", kc.path, KEYCHECK_WAIT_MS / 1000);
		return (-1);
	}
	if (len > 0) {
		keycheck_report(&kc, conf, buf, len);
		return (-1);
	}
	if (WIFSIGNALED(status)) {
		log_warnx("checking TLS keypairs: %s killed by signal %d",
		    kc.path, WTERMSIG(status));
		return (-1);
	}
	if (WEXITSTATUS(status) != 0) {
		log_warnx("checking TLS keypairs: %s exited with status %d",
		    kc.path, WEXITSTATUS(status));
		return (-1);
	}
	return (0);
}
