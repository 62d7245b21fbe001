#!/bin/sh
# The spawner, a program of its own (orchd(8), SECURITY CONSIDERATIONS):
# root and unfiltered, it is the one process that can act on a request
# to start a workload, so it checks every request again, whatever the
# parent says.  A live orchd's spawner is spawnerd, exec'd: it holds
# none of the parent's memory and maps neither jansson nor libseccomp.
# Then the attacks of a parent taken over, replayed on the spawner's
# request channel (a driver in Python plays the parent): a workload as
# uid 0, as the daemons' uid, in group root, without a change of user
# (as root), in a relative directory, with a variable that is not
# NAME=value; a keypair check with a command of the sender's choosing.
# Each is refused and runs nothing; a good request, the control, runs
# as its user.  Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_spawner.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"
command -v busybox >/dev/null || skip "no busybox"

port_base 41
ports GW WEB
mkdir -p "$T/log" "$T/www" "$T/out"
chmod 0755 "$T/www"
chmod 1777 "$T/out"
echo hi >"$T/www/index.html"
chmod 0644 "$T/www/index.html"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
workload "spweb" {
	host "spweb.test"
	command "busybox httpd -f -p 127.0.0.1:$WEB -h $T/www"
	port $WEB
CONF
	conf_end
} >"$T/orchd.conf"
start_orchd_or_exit

sp=$(child spawner)
check "the spawner runs ($sp)" [ -n "$sp" ]
exe=$(readlink "/proc/$sp/exe" 2>/dev/null)
check "it is spawnerd, exec'd, not a fork of orchd ($exe)" \
    sh -c "case '$exe' in */spawnerd) exit 0;; esac; exit 1"
check "it maps nothing of the parent's program" \
    sh -c "! grep -q '/orchd\$' /proc/$sp/maps"
check "it maps neither jansson nor libseccomp" \
    sh -c "! grep -Eq 'libjansson|libseccomp' /proc/$sp/maps"
code=$(curl -sS -m 20 -H 'Host: spweb.test' -o /dev/null \
    -w '%{http_code}' "http://127.0.0.1:$GW/")
check "a process workload still wakes through it ($code)" [ "$code" = 200 ]
stop_orchd
ORCHD_PID=

# the parent's side of the channels, played by a driver
cat >"$T/drive.py" <<'PY'
import array, os, select, socket, struct, subprocess, sys, time

spawnerd, duid, dgid, out = sys.argv[1], int(sys.argv[2]), \
    int(sys.argv[3]), sys.argv[4]
SP_FD, SP_EXEC, SP_KEYCHECK = 1200, 1201, 1202
SP_STARTED, SP_REFUSED = 1204, 9

def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)

def start():
    req, req_c = socket.socketpair()
    ev, ev_c = socket.socketpair()
    os.dup2(req_c.fileno(), 100, inheritable=False)
    os.dup2(ev_c.fileno(), 101, inheritable=False)
    def fds():
        os.dup2(100, 3)
        os.dup2(101, 4)
    p = subprocess.Popen([spawnerd, "-d", "-u", "%d:%d" % (duid, dgid),
        "-c", "/var/empty", "-f", "/bin/true"], preexec_fn=fds,
        close_fds=False)
    os.close(100); os.close(101); req_c.close(); ev_c.close()
    return p, req, ev

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
    data = sock.recv(20 + 12)
    if len(data) < 20:
        return None
    typ = struct.unpack("=I", data[:4])[0]
    if typ != SP_STARTED or len(data) < 32:
        return None
    return struct.unpack("=iii", data[20:32])

def exec_req(sock, uid, gid, root, groups, argv, env, d):
    hdr = struct.pack("@64s33sIIii256Iiiii", b"attack", b"who", uid, gid,
        root, len(groups), *(groups + [0] * (256 - len(groups))),
        len(argv), len(env), 1, 0)
    body = b"".join(s.encode() + b"\0" for s in argv + env + [d])
    log = os.open("/dev/null", os.O_WRONLY)
    send(sock, SP_FD, fd=log)
    os.close(log)
    send(sock, SP_EXEC, hdr + body)
    return answer(sock)

def refused(sock, what, tag, **kw):
    a = dict(uid=65534, gid=65534, root=1, groups=[],
        env=["PATH=/bin:/usr/bin"], d="/")
    a.update(kw)
    mark = os.path.join(out, tag)
    st = exec_req(sock, a["uid"], a["gid"], a["root"], a["groups"],
        ["/bin/sh", "-c", "touch " + mark], a["env"], a["d"])
    time.sleep(0.3)
    say(st is not None and st[0] == 0 and st[1] == SP_REFUSED and
        not os.path.exists(mark), what + " is refused (%s)" % (st,))

p, req, ev = start()
refused(req, "a workload as uid 0", "uid0", uid=0)
refused(req, "a workload as gid 0", "gid0", gid=0)
refused(req, "a workload as the daemons' uid", "duid", uid=duid)
refused(req, "a workload in group root", "grp0", groups=[0])
refused(req, "a workload in the daemons' group", "dgrp", groups=[dgid])
refused(req, "no change of user (it would run as root)", "noroot", root=0)
refused(req, "a relative directory", "reldir", d="tmp")
refused(req, "a variable that is not NAME=value", "noeq", env=["PATH"])
mark = os.path.join(out, "nobody")
st = exec_req(req, 65534, 65534, 1, [], ["/bin/sh", "-c", "touch " + mark],
    ["PATH=/bin:/usr/bin"], "/")
for i in range(50):
    if os.path.exists(mark):
        break
    time.sleep(0.1)
say(st is not None and st[0] > 0 and os.path.exists(mark) and
    os.stat(mark).st_uid == 65534,
    "the control, a good request, runs as its user (%s)" % (st,))
say(p.poll() is None, "the spawner runs on after the refusals")
# a keypair check of the sender's choosing: the command is the spawner's
kc = os.path.join(out, "keycheck")
a, b = socket.socketpair()
send(req, SP_KEYCHECK, b"/bin/sh\0-c\0touch " + kc.encode() + b"\0",
    fd=b.fileno())
try:
    p.wait(5)
except subprocess.TimeoutExpired:
    p.kill()
time.sleep(0.3)
say(not os.path.exists(kc),
    "a keypair check with its own command runs nothing")
say(p.returncode not in (None, 0),
    "... and is a protocol error: the spawner exits (%s)" % p.returncode)
PY

if [ -x "$BUILD/spawnerd" ]; then
	ok "spawnerd is a program of its own ($BUILD/spawnerd)"
	python3 "$T/drive.py" "$BUILD/spawnerd" "$(id -u _orchd)" \
	    "$(id -g _orchd)" "$T/out" >"$T/drive.out" 2>"$T/drive.err"
else
	fail "spawnerd is a program of its own ($BUILD/spawnerd)"
	: >"$T/drive.out"
fi
n=0
while read -r verdict what; do
	n=$((n + 1))
	if [ "$verdict" = PASS ]; then ok "$what"; else fail "$what"; fi
done <"$T/drive.out"
check "every forged request was tried ($n of 12)" [ "$n" -eq 12 ]
[ "$n" -eq 12 ] || sed 's/^/#	/' "$T/drive.err"
check "no sanitizer report" \
    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/orchd.log' '$T/drive.err'"
e2e_done
