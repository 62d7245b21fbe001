/*
 * The spawner's own check of a request to start a process workload
 * (spawnerd/check.c), fed forged requests, as a parent taken over could
 * send them: a workload as root, in group root, as the daemons' uid or
 * gid or in their group, a change of user the spawner cannot make or
 * one it must, counts out of bounds, strings that do not end, bytes
 * after the directory, a relative directory, a variable without '=',
 * descriptors out of step (a cgroup's files among them: the spawner opens
 * those itself), a workload name that is a path, a cgroup not named for
 * the workload, a negative memory limit, cpu or pids limits out of
 * bounds.  Each is refused with its reason; a good one
 * passes with its words, variables and directory found.  And a socket
 * activation's socket (sp_check_sock): a UDP one, one that does not
 * listen, a unix one, a listener on another port or address than the
 * request names, each refused; the named listener passes.  And a
 * volume removal (spawnerd/volrm.c's volrm_check): a path or a pattern
 * as the workload's or the instance's name, a relative root, fields that
 * do not end, the daemons' ids or root's paired with another, each
 * refused; not root, the walk keeps the spawner's own ids.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../spawnerd/spawner.h"

#define DAEMON_UID	990
#define DAEMON_GID	991

struct msg {
	char		 buf[8192];
	size_t		 len;
	struct sp_exec	 hdr;
};

static const struct sp_ids	 ids = { DAEMON_UID, DAEMON_GID, 1 };

/* a good request: "/bin/echo hi", PATH=..., in /srv; then forge it */
static void
good(struct msg *m)
{
	memset(m, 0, sizeof(*m));
	strlcpy(m->hdr.name, "web", sizeof(m->hdr.name));
	strlcpy(m->hdr.user, "www", sizeof(m->hdr.user));
	m->hdr.uid = 2000;
	m->hdr.gid = 2000;
	m->hdr.root = 1;
	m->hdr.ngroups = 1;
	m->hdr.groups[0] = 2001;
	m->hdr.argc = 2;
	m->hdr.nenv = 1;
	m->hdr.nfds = 1;
	strlcpy(m->hdr.cgname, "web", sizeof(m->hdr.cgname));
}

/* the header, then the strings given, each with its NUL */
static void
pack(struct msg *m, const char *const *s, int n)
{
	int	 i;

	memcpy(m->buf, &m->hdr, sizeof(m->hdr));
	m->len = sizeof(m->hdr);
	for (i = 0; i < n; i++) {
		memcpy(m->buf + m->len, s[i], strlen(s[i]) + 1);
		m->len += strlen(s[i]) + 1;
	}
}

static const char *const good_strings[] = {
	"/bin/echo", "hi", "PATH=/bin", "/srv"
};

static int
check(struct msg *m, int nfds, char *why, size_t len)
{
	struct sp_req	 r;

	why[0] = '\0';
	return (sp_check(&ids, m->buf, m->len, nfds, &r, why, len));
}

static void
test_good(void **state)
{
	struct msg	 m;
	struct sp_req	 r;
	char		 why[128];

	good(&m);
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&ids, m.buf, m.len, 1, &r, why,
	    sizeof(why)), 0);
	assert_string_equal(r.argv[0], "/bin/echo");
	assert_string_equal(r.argv[1], "hi");
	assert_null(r.argv[2]);
	assert_string_equal(r.envp[0], "PATH=/bin");
	assert_null(r.envp[1]);
	assert_string_equal(r.dir, "/srv");
}

/* forge one field of a good request: refused, and why */
static void
refused(struct msg *m, int nfds, const char *want)
{
	char	 why[128];

	assert_int_equal(check(m, nfds, why, sizeof(why)), -1);
	if (strstr(why, want) == NULL)
		fail_msg("refused for \"%s\", not \"%s\"", why, want);
}

static void
test_ids(void **state)
{
	struct msg	 m;

	good(&m);
	m.hdr.uid = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "uid or gid 0");
	good(&m);
	m.hdr.gid = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "uid or gid 0");
	good(&m);
	m.hdr.uid = DAEMON_UID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' uid or gid");
	good(&m);
	m.hdr.gid = DAEMON_GID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' uid or gid");
	good(&m);
	m.hdr.groups[0] = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "group root");
	good(&m);
	m.hdr.ngroups = 2;
	m.hdr.groups[1] = DAEMON_GID;
	pack(&m, good_strings, 4);
	refused(&m, 1, "daemons' group");
	/* as root, no change of user would run the workload as root */
	good(&m);
	m.hdr.root = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "root's");
}

static void
test_not_root(void **state)
{
	struct sp_ids	 me = { 1000, 1000, 0 };
	struct msg	 m;
	struct sp_req	 r;
	char		 why[128];

	/* not root: the workload runs as we do, never a change of user */
	good(&m);
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&me, m.buf, m.len, 1, &r, why,
	    sizeof(why)), -1);
	good(&m);
	m.hdr.root = 0;
	m.hdr.uid = 0;
	pack(&m, good_strings, 4);
	assert_int_equal(sp_check(&me, m.buf, m.len, 1, &r, why,
	    sizeof(why)), 0);
}

static void
test_bounds(void **state)
{
	struct msg	 m;

	good(&m);
	m.hdr.argc = 0;
	pack(&m, good_strings, 4);
	refused(&m, 1, "words");
	good(&m);
	m.hdr.argc = SP_ARGV_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "words");
	good(&m);
	m.hdr.nenv = -1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "variables");
	good(&m);
	m.hdr.nenv = SP_ENV_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "variables");
	good(&m);
	m.hdr.ngroups = SP_GROUPS_MAX + 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "groups");
	good(&m);
	pack(&m, good_strings, 4);
	refused(&m, 2, "descriptors");
	good(&m);
	m.hdr.nfds = 2;
	pack(&m, good_strings, 4);
	refused(&m, 2, "descriptors");
	good(&m);
	m.hdr.nfds = SP_FDS + 1;
	pack(&m, good_strings, 4);
	refused(&m, SP_FDS + 1, "descriptors");
}

/* counts with a socket: it comes after the log, before the cgroups */
static void
test_sock_counts(void **state)
{
	struct msg	 m;
	char		 why[128];

	good(&m);
	m.hdr.sock = 1;
	m.hdr.nfds = 2;
	pack(&m, good_strings, 4);
	assert_int_equal(check(&m, 2, why, sizeof(why)), 0);
	good(&m);
	m.hdr.sock = 1;
	pack(&m, good_strings, 4);
	refused(&m, 1, "descriptors");
	good(&m);
	m.hdr.sock = 2;
	m.hdr.nfds = 3;
	pack(&m, good_strings, 4);
	refused(&m, 3, "socket activation");
	good(&m);
	m.hdr.sock = 1;
	m.hdr.nfds = 3;
	pack(&m, good_strings, 4);
	refused(&m, 3, "descriptors");
}

/* one forged field of the cgroup part of a good request: refused */
static void
cg_refused(const char *name, const char *cgname, int64_t memory,
    int64_t cpu, int64_t pids, const char *want)
{
	struct msg	 m;

	good(&m);
	strlcpy(m.hdr.name, name, sizeof(m.hdr.name));
	strlcpy(m.hdr.cgname, cgname, sizeof(m.hdr.cgname));
	m.hdr.memory = memory;
	m.hdr.lim.cpu = cpu;
	m.hdr.lim.pids = pids;
	pack(&m, good_strings, 4);
	refused(&m, 1, want);
}

/*
 * The cgroup the spawner makes is named for the workload: a name or a
 * cgroup name that is a path elsewhere is refused, and so are limits
 * the parent would never send.  NAME@2 (a replace's) passes.
 */
static void
test_cgroup(void **state)
{
	struct msg	 m;
	char		 why[128];

	good(&m);
	strlcpy(m.hdr.cgname, "web@2", sizeof(m.hdr.cgname));
	m.hdr.memory = 64 << 20;
	m.hdr.lim.cpu = 500;
	m.hdr.lim.pids = 100;
	pack(&m, good_strings, 4);
	assert_int_equal(check(&m, 1, why, sizeof(why)), 0);
	cg_refused("..", "..", 0, 0, 0, "invalid workload name");
	cg_refused("a/b", "a/b", 0, 0, 0, "invalid workload name");
	cg_refused("", "", 0, 0, 0, "invalid workload name");
	cg_refused("web", "../../cpu", 0, 0, 0, "not named for");
	cg_refused("web", "web/../x", 0, 0, 0, "not named for");
	cg_refused("web", "web@3", 0, 0, 0, "not named for");
	cg_refused("web", "other", 0, 0, 0, "not named for");
	cg_refused("web", "", 0, 0, 0, "not named for");
	cg_refused("web", "web", -1, 0, 0, "negative memory");
	cg_refused("web", "web", 0, -5, 0, "out of bounds");
	cg_refused("web", "web", 0, 0, -2, "out of bounds");
	/* a cgroup name without its NUL */
	good(&m);
	memset(m.hdr.cgname, 'w', sizeof(m.hdr.cgname));
	pack(&m, good_strings, 4);
	refused(&m, 1, "not named for");
}

/* a TCP socket on 127.0.0.1, any port, listening or not; its port */
static int
tcp_socket(int type, int listening, in_port_t *port)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 fd;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_not_equal(fd = socket(AF_INET, type, 0), -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (listening)
		assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = sin.sin_port;
	return (fd);
}

/* sp_check_sock of fd, the request naming 127.0.0.1 and port */
static int
sock_check(int fd, in_port_t port, char *why, size_t len)
{
	struct sp_req	 r;

	memset(&r, 0, sizeof(r));
	r.hdr.sock = 1;
	r.hdr.nfds = 2;
	r.hdr.sockaddr.sin.sin_family = AF_INET;
	r.hdr.sockaddr.sin.sin_port = port;
	r.hdr.sockaddr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r.fds[1] = fd;
	r.nfds = 2;
	why[0] = '\0';
	return (sp_check_sock(&r, why, len));
}

static void
sock_refused(int fd, in_port_t port, const char *want)
{
	char	 why[128];

	assert_int_equal(sock_check(fd, port, why, sizeof(why)), -1);
	if (strstr(why, want) == NULL)
		fail_msg("refused for \"%s\", not \"%s\"", why, want);
}

static void
test_sock(void **state)
{
	struct sockaddr_un	 sun;
	char			 why[128];
	in_port_t		 port, other;
	int			 good_fd, fd, ofd;

	good_fd = tcp_socket(SOCK_STREAM, 1, &port);
	assert_int_equal(sock_check(good_fd, port, why, sizeof(why)), 0);
	/* another listener: not the port the request names */
	ofd = tcp_socket(SOCK_STREAM, 1, &other);
	sock_refused(ofd, port, "not bound to the workload's");
	sock_refused(good_fd, other, "not bound to the workload's");
	fd = tcp_socket(SOCK_DGRAM, 0, &other);
	sock_refused(fd, other, "not a stream socket");
	close(fd);
	fd = tcp_socket(SOCK_STREAM, 0, &other);
	sock_refused(fd, other, "not listening");
	close(fd);
	assert_int_not_equal(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	/* abstract: nothing left in the file system */
	(void)snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
	    "test_spawner.%d", (int)getpid());
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 1), 0);
	sock_refused(fd, port, "not a TCP socket");
	close(fd);
	sock_refused(-1, port, "not a stream socket");
	close(ofd);
	close(good_fd);
}

static void
test_strings(void **state)
{
	static const char *const relative[] = {
		"/bin/echo", "hi", "PATH=/bin", "srv"
	};
	static const char *const noeq[] = {
		"/bin/echo", "hi", "PATH", "/srv"
	};
	static const char *const empty[] = {
		"", "hi", "PATH=/bin", "/srv"
	};
	struct msg	 m;
	char		 why[128];

	good(&m);
	pack(&m, relative, 4);
	refused(&m, 1, "not absolute");
	good(&m);
	pack(&m, noeq, 4);
	refused(&m, 1, "NAME=value");
	good(&m);
	pack(&m, empty, 4);
	refused(&m, 1, "empty command");
	/* the directory's NUL cut off: it does not end */
	good(&m);
	pack(&m, good_strings, 4);
	m.len--;
	refused(&m, 1, "not ended");
	/* one string short: the directory is missing */
	good(&m);
	pack(&m, good_strings, 3);
	refused(&m, 1, "not ended");
	/* bytes after the directory */
	good(&m);
	pack(&m, good_strings, 4);
	m.buf[m.len++] = 'x';
	refused(&m, 1, "after the directory");
	/* shorter than a header */
	good(&m);
	m.len = 10;
	assert_int_equal(check(&m, 1, why, sizeof(why)), -1);
}

/* a volume removal (IMSG_SP_VOLRM): the names, the root, the ids */
static void
vr_good(struct sp_volrm *r)
{
	memset(r, 0, sizeof(*r));
	strlcpy(r->root, "/var/lib/orchd/volumes", sizeof(r->root));
	strlcpy(r->inst, "default", sizeof(r->inst));
	strlcpy(r->name, "web", sizeof(r->name));
	r->uid = r->gid = 2000;
}

static void
test_volrm(void **state)
{
	static const char *const names[] = { "", "..", "../web", "a/b",
	    "web*", "/web", "we b" };
	struct sp_ids	 user = ids;
	struct sp_volrm	 r;
	char		 why[128];
	size_t		 i;

	vr_good(&r);
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), 0);
	assert_int_equal(r.uid, 2000);
	/* as root, who made them: uid and gid 0 together */
	r.uid = r.gid = 0;
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		vr_good(&r);
		strlcpy(r.name, names[i], sizeof(r.name));
		assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
		vr_good(&r);
		strlcpy(r.inst, names[i], sizeof(r.inst));
		assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	}
	vr_good(&r);
	strlcpy(r.root, "var/lib/orchd", sizeof(r.root));
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	vr_good(&r);
	memset(r.name, 'a', sizeof(r.name));
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	vr_good(&r);
	memset(r.root, '/', sizeof(r.root));
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	/* the daemons' ids, root's with another, half of a pair */
	vr_good(&r);
	r.uid = DAEMON_UID;
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	vr_good(&r);
	r.gid = DAEMON_GID;
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	vr_good(&r);
	r.uid = 0;
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	vr_good(&r);
	r.gid = 0;
	assert_int_equal(volrm_check(&ids, &r, why, sizeof(why)), -1);
	/* not root: the walk stays ours */
	user.root = 0;
	vr_good(&r);
	assert_int_equal(volrm_check(&user, &r, why, sizeof(why)), 0);
	assert_int_equal(r.uid, 0);
	assert_int_equal(r.gid, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_sock_counts),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_sock),
		cmocka_unit_test(test_volrm),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
