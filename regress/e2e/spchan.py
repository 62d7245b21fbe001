# The spawner's request channel, as a parent taken over would use it:
# shared by attack_spawner.sh and attack_sockact.sh.  As root, a copy
# of the parent's end (pidfd_getfd(2)) taken while the parent is idle;
# then FD and EXEC messages as spawn.c composes them (struct sp_exec,
# common/msg_spawn.h: its cgroup's name and limits last) and the STARTED
# answer (struct sp_started, read whole: its pid, step and errno).
import array, ctypes, os, select, socket, struct

SP_FD, SP_EXEC, SP_KEYCHECK = 1200, 1201, 1202
SP_STARTED, SP_REFUSED = 1204, 9

def inode(pid, fd):
    return os.readlink("/proc/%d/fd/%d" % (pid, fd))

# the parent's end of the spawner's request channel (its fd 3): the
# socket whose peer it is, in ss(8)'s list of unix sockets
def parent_end(parent, spawner):
    mine = inode(spawner, 3)[len("socket:["):-1]
    peer = None
    for line in os.popen("ss -xan").read().splitlines():
        w = line.split()
        if len(w) >= 8 and w[5] == mine:
            peer = w[7]
    for fd in os.listdir("/proc/%d/fd" % parent):
        try:
            if inode(parent, int(fd)) == "socket:[%s]" % peer:
                return int(fd)
        except OSError:
            pass
    return None

# a copy of descriptor fd of process pid
def grab(pid, fd):
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    got = libc.syscall(438, pidfd, fd, 0)	# pidfd_getfd
    os.close(pidfd)
    if got < 0:
        raise OSError(ctypes.get_errno(), "pidfd_getfd")
    return got

def send(sock, typ, payload=b"", fd=-1):
    hdr = struct.pack("=IIHHII", typ, 20 + len(payload),
        1 if fd != -1 else 0, 0, 0, os.getpid())
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
        array.array("i", [fd]))] if fd != -1 else []
    sock.sendmsg([hdr + payload], anc)

def answer(sock, secs=5):
    r, _, _ = select.select([sock], [], [], secs)
    if not r:
        return None
    data = sock.recv(20)
    if len(data) < 20:
        return None
    typ, n = struct.unpack("=II", data[:8])
    body = b""
    while len(body) < n - 20:
        more = sock.recv(n - 20 - len(body))
        if not more:
            return None
        body += more
    if typ != SP_STARTED or len(body) < 12:
        return None
    return struct.unpack("=iii", body[:12])

# an IPv4 address as union wl_addr holds it: sockaddr_in, zero padded
def wl_addr4(ip, port):
    return struct.pack("=H", socket.AF_INET) + struct.pack(">H", port) + \
        socket.inet_aton(ip)

# struct sp_exec, the strings, after the log on /dev/null and, with
# sockfd, a socket activation's socket named as listening on sockaddr
# its cgroup is cgname, with memory and the cpu, cpu weight, pids and io
# weight limits of lim
def exec_req(sock, uid, gid, root, groups, argv, env, d, sockfd=-1,
        sockaddr=b"", name=b"attack", cgname=None, memory=0,
        lim=(0, 0, 0, 0)):
    hdr = struct.pack("@64s33sIIii256Iiiii28s66sq4q", name, b"who", uid,
        gid, root, len(groups), *(groups + [0] * (256 - len(groups))),
        len(argv), len(env), 1 if sockfd == -1 else 2,
        0 if sockfd == -1 else 1, sockaddr,
        name if cgname is None else cgname, memory, *lim)
    body = b"".join(s.encode() + b"\0" for s in argv + env + [d])
    log = os.open("/dev/null", os.O_WRONLY)
    send(sock, SP_FD, fd=log)
    os.close(log)
    if sockfd != -1:
        send(sock, SP_FD, fd=sockfd)
    send(sock, SP_EXEC, hdr + body)
    return answer(sock)
