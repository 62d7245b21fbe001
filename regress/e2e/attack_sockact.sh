#!/bin/sh
# Attacks on socket activation (issue 33; orchd-security.7).  The
# parent holds a socket-activated workload's listening socket and passes
# it as fd 3 to that workload alone:
#
#	a definition that asks for another workload's port, the same
#	address or a wildcard over it, with or without socket activation,
#	is refused (orchd -n, and a reload of a live orchd, which keeps
#	serving the old configuration);
#	a definition that sets LISTEN_FDS or LISTEN_PID itself is refused;
#	the API can neither set socket_activation nor point a workload of
#	its own at the held port (403);
#	the workload's LISTEN_PID is its own pid, LISTEN_FDNAMES its name;
#	no other process holds the socket: not another workload started
#	after it (one that sets LISTEN_FDS=1 and points LISTEN_PID at
#	nothing has no socket on fd 3), not the spawner, not a child of
#	orchd;
#	a parent taken over (the spawner's channel, driven by
#	regress/e2e/spchan.py) that hands the spawner a socket that is not
#	the one the request names: a UDP socket, a TCP socket that does
#	not listen, a unix one, or a listener on another port (the other
#	workload's, taken from the parent): each refused, nothing runs; the
#	control, the right socket, runs with it on fd 3 and nothing else
#	of the spawner's (0, 1, 2 and 3 open, the status pipe gone).
#
#	sh regress/e2e/attack_sockact.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"

port_base 43
ports GW API P_V P_O P_W
KEY=sockact-test-key-0123456789abcdef0123456789
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/out"
chmod 1777 "$T/out"
testhttp_bin

victim() {
	printf 'workload "victim" {\n\thost "victim.localhost"\n'
	printf '\tcommand "%s/bin/testhttp serve %s"\n\tport %s\n' "$T" \
	    "$P_V" "$P_V"
	printf '\tsocket activation\n\twake timeout 10s\n}\n'
}
other() {	# other [LINE...]: a plain workload on its own port
	printf 'workload "other" {\n\thost "other.localhost"\n'
	printf '\tcommand "%s/bin/testhttp serve %s"\n\tport %s\n' "$T" \
	    "$P_O" "$P_O"
	conf_end 'env "LISTEN_FDS=1"' 'env "LISTEN_PID=1"' "$@"
}
evil() {	# evil ADDRESS PORT [LINE...]
	a=$1
	p=$2
	shift 2
	printf 'workload "evil" {\n\thost "evil.localhost"\n'
	printf '\tcommand "%s/bin/testhttp serve %s"\n' "$T" "$p"
	printf '\taddress "%s"\n\tport %s\n' "$a" "$p"
	conf_end "$@"
}
good() {
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "api listen on 127.0.0.1 port $API"
	echo "api key file \"$T/api.key\""
	echo "api allow process"
	victim
	other
}
good >"$T/orchd.conf"

refused_conf() {	# refused_conf WHAT PATTERN EVIL-ARGS...
	what=$1
	pat=$2
	shift 2
	{ good; evil "$@"; } >"$T/evil.conf"
	check "$what: refused by orchd -n" \
	    sh -c "! '$ORCHD' -n -f '$T/evil.conf' >'$T/evil.err' 2>&1 && grep -q '$pat' '$T/evil.err'"
}
refused_conf "another workload on the victim's address and port" \
    "port $P_V" 127.0.0.1 "$P_V"
refused_conf "another, socket activated, on the victim's port" \
    "port $P_V" 127.0.0.1 "$P_V" "socket activation"
refused_conf "a definition that sets LISTEN_PID itself" \
    "the LISTEN_ variables are orchd" 127.0.0.1 "$P_W" \
    "socket activation" 'env "LISTEN_PID=1"'

start_orchd_or_exit

# the API: socket activation is orchd.conf's, and the port is orchd's
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "http://127.0.0.1:$API/v1/workloads"
}
post "{\"name\": \"apisa\", \"hosts\": [\"apisa.test\"], \"command\": \"/bin/true\", \"port\": $P_W, \"socket_activation\": true}" >"$T/api1"
check "the API cannot set socket_activation ($(tail -n 1 "$T/api1"))" \
    sh -c "[ \"\$(tail -n 1 '$T/api1')\" = 403 ] && grep -q 'orchd.conf only' '$T/api1'"
post "{\"name\": \"apiv\", \"hosts\": [\"apiv.test\"], \"command\": \"/bin/true\", \"port\": $P_V}" >"$T/api2"
check "an API workload cannot point at the victim's held port ($(tail -n 1 "$T/api2"))" \
    sh -c "[ \"\$(tail -n 1 '$T/api2')\" = 403 ] && grep -q 'socket activation' '$T/api2'"

# a reload with a wildcard over the victim's port: refused, served on
{ good; evil 0.0.0.0 "$P_V" "socket activation"; } >"$T/orchd.conf"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
check "a reload with a wildcard socket activation over the victim's port is refused" \
    sh -c "grep -q 'socket activation: cannot bind' '$T/reload.out' '$T/orchd.log'"
good >"$T/orchd.conf"

code=$(curl -s -o "$T/body" -w '%{http_code}' -m 20 \
    -H "Host: victim.localhost" "http://127.0.0.1:$GW/")
check "the victim still wakes on its socket ($code)" [ "$code" = 200 ]
vp=$(pgrep -f "testhttp serve $P_V" | head -1)
check "the victim runs ($vp)" [ -n "$vp" ]
envof() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null; }
check "LISTEN_PID is the victim's own pid" \
    sh -c "tr '\\0' '\\n' </proc/$vp/environ | grep -qx 'LISTEN_PID=$vp'"
check "LISTEN_PID is given once" \
    [ "$(envof "$vp" | grep -c '^LISTEN_PID=')" = 1 ]
check "LISTEN_FDS=1 and LISTEN_FDNAMES=victim" \
    sh -c "tr '\\0' '\\n' </proc/$vp/environ | grep -qx 'LISTEN_FDS=1' && tr '\\0' '\\n' </proc/$vp/environ | grep -qx 'LISTEN_FDNAMES=victim'"
sock=$(readlink "/proc/$vp/fd/3")
check "the victim's fd 3 is a socket ($sock)" \
    sh -c "case '$sock' in socket:*) exit 0;; esac; exit 1"
check "it is the one the parent holds" \
    sh -c "ls -l /proc/$ORCHD_PID/fd | grep -qF '$sock'"

# another workload started after it, which asks for LISTEN_FDS itself
code=$(curl -s -o /dev/null -w '%{http_code}' -m 20 \
    -H "Host: other.localhost" "http://127.0.0.1:$GW/")
check "the other workload wakes ($code)" [ "$code" = 200 ]
op=$(pgrep -f "testhttp serve $P_O" | head -1)
check "the other workload does not hold the victim's socket" \
    sh -c "[ -n '$op' ] && ! ls -l /proc/$op/fd | grep -qF '$sock'"
check "its fd 3, whatever its LISTEN_FDS says, is not the victim's" \
    [ "$(readlink "/proc/$op/fd/3")" != "$sock" ]
holders=""
for p in $(pgrep -P "$ORCHD_PID"); do
	ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$sock" && holders="$holders $p"
done
check "no child of orchd holds the victim's socket (spawner, gateway, ...):$holders" \
    [ -z "$holders" ]

# a parent taken over hands the spawner the wrong socket
sp=$(child spawner)
cat >"$T/drive.py" <<'PY'
import os, socket, sys, time
sys.path.insert(0, sys.argv[5])
from spchan import *

parent, spawner, pv, po = (int(x) for x in sys.argv[1:5])
out = sys.argv[6]

def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)

def run(req, tag, sockfd, port):
    mark = os.path.join(out, tag)
    st = exec_req(req, 65534, 65534, 1, [],
        # then sleep, whose descriptors are looked at from outside: a
        # listing by the shell would see the shell's own for a moment
        ["/bin/sh", "-c", "readlink /proc/self/fd/3 > " + mark +
        "; exec sleep 3"],
        ["PATH=/bin:/usr/bin"], "/", sockfd, wl_addr4("127.0.0.1", port))
    time.sleep(0.3)
    return st, mark

def refused(req, what, tag, s, port):
    st, mark = run(req, tag, s.fileno(), port)
    ran = os.path.exists(mark)
    say(not ran and (st is None or st[0] == 0),
        what + ": refused, nothing ran (%s)" % (st,))

# the victim's socket, from the parent: the fd whose link is its inode
def held(link):
    for fd in os.listdir("/proc/%d/fd" % parent):
        try:
            if inode(parent, int(fd)) == link:
                return int(fd)
        except OSError:
            pass
    return None

fd = parent_end(parent, spawner)
say(fd is not None, "the parent's end of the request channel is found")
req = socket.socket(fileno=grab(parent, fd))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", po))
refused(req, "a UDP socket on the named port", "udp", u, po)
t = socket.socket()
t.bind(("127.0.0.1", 0))
refused(req, "a TCP socket that does not listen", "tcp",
    t, t.getsockname()[1])
x = socket.socket(socket.AF_UNIX)
x.bind(os.path.join(out, "unix.sock"))
x.listen(1)
refused(req, "a listening unix socket", "unix", x, po)
vfd = held(sys.argv[7])
say(vfd is not None, "the victim's socket is found in the parent")
v = socket.socket(fileno=grab(parent, vfd))
refused(req, "the victim's socket, named as another workload's port",
    "victim", v, po)
good = socket.socket()
good.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
good.bind(("127.0.0.1", 0))
good.listen(1)
gp = good.getsockname()[1]
st, mark = run(req, "good", good.fileno(), gp)
for i in range(50):
    if os.path.exists(mark) and os.path.getsize(mark) > 0:
        break
    time.sleep(0.1)
got = open(mark).read().strip() if os.path.exists(mark) else ""
say(st is not None and st[0] > 0 and
    got == os.readlink("/proc/self/fd/%d" % good.fileno()),
    "the control, the named socket, runs with it on fd 3 (%s, %s)" %
    (st, got))
fds = []
for i in range(30):
    try:
        if st is not None and open("/proc/%d/cmdline" % st[0],
            "rb").read().startswith(b"sleep"):
            fds = sorted(os.listdir("/proc/%d/fd" % st[0]), key=int)
            break
    except OSError:
        break
    time.sleep(0.1)
say(fds == ["0", "1", "2", "3"],
    "the exec'd program holds 0, 1, 2 and the socket on 3, nothing else "
    "of the spawner's (%s)" % " ".join(fds))
say(os.path.exists("/proc/%d" % spawner),
    "the spawner runs on after the refusals")
PY
python3 "$T/drive.py" "$ORCHD_PID" "$sp" "$P_V" "$P_W" \
    "$(cd "$(dirname "$0")" && pwd)" "$T/out" "$sock" \
    >"$T/drive.out" 2>"$T/drive.err"
n=0
while read -r verdict what; do
	n=$((n + 1))
	if [ "$verdict" = PASS ]; then ok "$what"; else fail "$what"; fi
done <"$T/drive.out"
check "every forged request was tried ($n of 9)" [ "$n" -eq 9 ]
[ "$n" -eq 9 ] || sed 's/^/#	/' "$T/drive.err"
check "the spawner logged each refusal" \
    [ "$(grep -c 'refused: socket activation' "$T/orchd.log")" -ge 4 ]
stop_orchd
check "no sanitizer report" \
    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/orchd.log'"
e2e_done
