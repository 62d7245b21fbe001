#!/bin/sh
# The spawner, a program of its own (orchd(8), SECURITY CONSIDERATIONS):
# root and unfiltered, it is the one process that can act on a request
# to start a workload, so it checks every request again, whatever the
# parent says.  A live orchd's spawner is spawnerd, exec'd: it holds
# none of the parent's memory and maps neither jansson nor libseccomp.
# Then the attacks of a parent taken over, replayed on the live
# spawner's own request channel: a driver in Python takes a copy of the
# parent's end (pidfd_getfd(2), as root) while the parent is idle, and
# asks for a workload as uid 0, gid 0, the daemons' uid, in group root
# or the daemons', without a change of user (as root), in a relative
# directory, with a variable that is not NAME=value, in a cgroup named
# for a path above its own or for another workload, with a workload name
# that is a path, a negative memory limit or a pids limit out of bounds
# (the spawner makes the cgroup as root), and last a keypair
# check with a command of its own.  Each is refused and runs nothing; a
# good request, the control, runs as its user; the forged keypair check
# is a protocol error that ends the spawner, and orchd with it.
# Loopback only, every wait bounded.
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
"$ORCHCTL" -s "$SOCK" suspend spweb >/dev/null 2>&1
sleep 1

# a parent taken over, played by a driver on the parent's own end
cat >"$T/drive.py" <<'PY'
import os, socket, sys, time
sys.path.insert(0, sys.argv[6])
from spchan import *

parent, spawner, duid, dgid = (int(x) for x in sys.argv[1:5])
out = sys.argv[5]

def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)

def refused(sock, what, tag, **kw):
    a = dict(uid=65534, gid=65534, root=1, groups=[],
        env=["PATH=/bin:/usr/bin"], d="/", name=b"attack", cgname=None,
        memory=0, lim=(0, 0, 0, 0))
    a.update(kw)
    mark = os.path.join(out, tag)
    st = exec_req(sock, a["uid"], a["gid"], a["root"], a["groups"],
        ["/bin/sh", "-c", "touch " + mark], a["env"], a["d"],
        name=a["name"], cgname=a["cgname"], memory=a["memory"],
        lim=a["lim"])
    time.sleep(0.3)
    ran = os.path.exists(mark)
    say(not ran and (st is None or st[0] == 0),
        what + ": refused, nothing ran (%s%s)" % (st,
        ", it ran as uid %d" % os.stat(mark).st_uid if ran else ""))

fd = parent_end(parent, spawner)
say(fd is not None, "the parent's end of the request channel is found")
req = socket.socket(fileno=grab(parent, fd))
refused(req, "a workload as uid 0", "uid0", uid=0)
refused(req, "a workload as gid 0", "gid0", gid=0)
refused(req, "a workload as the daemons' uid", "duid", uid=duid)
refused(req, "a workload in group root", "grp0", groups=[0])
refused(req, "a workload in the daemons' group", "dgrp", groups=[dgid])
refused(req, "no change of user (it would run as root)", "noroot", root=0)
refused(req, "a relative directory", "reldir", d="tmp")
refused(req, "a variable that is not NAME=value", "noeq", env=["PATH"])
# its cgroup, which the spawner makes as root: never a path elsewhere
refused(req, "a cgroup named for a path above its own", "cgup",
    cgname=b"../../h41cgesc")
refused(req, "a cgroup of another name", "cgother", cgname=b"other")
refused(req, "a workload name that is a path", "cgname", name=b"../x",
    cgname=b"../x")
refused(req, "a negative memory limit", "cgmem", memory=-1)
refused(req, "a pids limit out of bounds", "cgpids", lim=(0, 0, -7, 0))
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
say(os.path.exists("/proc/%d" % spawner),
    "the spawner runs on after the refusals")
# a keypair check of the sender's choosing: the command is the spawner's
kc = os.path.join(out, "keycheck")
a, b = socket.socketpair()
send(req, SP_KEYCHECK, b"/bin/sh\0-c\0touch " + kc.encode() + b"\0",
    fd=b.fileno())
time.sleep(1)
say(not os.path.exists(kc),
    "a keypair check with a command of its own runs nothing")
PY

python3 "$T/drive.py" "$ORCHD_PID" "$sp" "$(id -u _orchd)" \
    "$(id -g _orchd)" "$T/out" "$(cd "$(dirname "$0")" && pwd)" \
    >"$T/drive.out" 2>"$T/drive.err"
n=0
while read -r verdict what; do
	n=$((n + 1))
	if [ "$verdict" = PASS ]; then ok "$what"; else fail "$what"; fi
done <"$T/drive.out"
check "every forged request was tried ($n of 17)" [ "$n" -eq 17 ]
[ "$n" -eq 17 ] || sed 's/^/#	/' "$T/drive.err"
orchd_status
check "the forged keypair check ended the spawner, and orchd (status $STATUS)" \
    [ "$STATUS" -ne 0 ]
check "the parent names the lost spawner" \
    grep -Eq "lost child: spawner \\(pid $sp\\)" "$T/orchd.log"
ORCHD_PID=
check "no sanitizer report" \
    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/orchd.log'"
e2e_done
