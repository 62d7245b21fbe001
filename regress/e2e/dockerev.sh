#!/bin/sh
# What happens to orchd's containers outside orchd, told by Docker's
# events and made up for when they are missed: a container started by
# hand is adopted (waking, then running) within 2 s, served, and
# suspended when idle; one removed by hand leaves its workload asleep,
# and the next request makes it again; one killed by hand is failed
# within 2 s, killed by signal 9, and the next request wakes it; one
# that runs out of memory is recorded as oom.  The events stream goes
# through a relay this script controls (a socket in the directory of
# orchd's "docker socket", as docker.sh case 11): muted, a container's
# death is missed, and the request routed to it is held and served by a
# fresh wake, not answered 502; a container that runs but refuses is a
# 502 for each request, not a loop; cut, runtimed reconnects, and
# compares every container with what it believes: one that died and one
# started while nobody listened are both seen.  The shared Docker
# daemon is never restarted.  Loopback only, network host, every wait
# bounded; the containers made here are removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
dockergid=$(getent group docker | cut -d: -f3)
if [ -z "$PY" ] || [ -z "$dockergid" ]; then
	skip "needs python3 and a group named docker (the relay)"
fi
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=ev$$
WEB=${TAG}web
HAND=${TAG}hand
OOM=${TAG}oom
RELAY_PID=
V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$V"

# ours only: the names of this run
ev_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null
	for n in $WEB $HAND $OOM; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	rm -rf "$V"
	e2e_cleanup
}
trap ev_cleanup EXIT

port_base 11
ports GW P_WEB P_HAND P_OOM

# the containers' command: serves /www until SIGTERM, and runs on if
# its server is killed; with EAT_AFTER, after that many seconds it reads
# /dev/zero as one endless line (the memory limit's OOM kill ends it),
# then exits 1
mkdir -p "$T/log" "$T/dock" "$V/www" "$V/bin"
echo "hello from a container" >"$V/www/index.html"
cat >"$V/bin/run.sh" <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
if [ -n "$EAT_AFTER" ]; then
	sleep "$EAT_AFTER"
	tail /dev/zero
	exit 1
fi
while :; do
	wait
	sleep 1
done
EOF
chmod -R a+rX "$V/www" "$V/bin"

# The Docker socket orchd uses: a relay to the real one.  On the events
# stream (a GET of .../events), with $T/mute the daemon's bytes are
# dropped, so the stream looks open and says nothing; with $T/cut the
# streams are closed and new ones closed as they come.  Other calls go
# through untouched.  Bounded: it ends by itself after 10 minutes.
cat >"$T/relay.py" <<'RELAY'
import os, select, socket, sys, threading, time
path, real, gid, ctl = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def flag(name):
    return os.path.exists(os.path.join(ctl, name))
def close(*ss):
    for s in ss:
        try:
            s.close()
        except OSError:
            pass
def pipe(a, b, events, down):
    try:
        while True:
            if events and flag("cut"):
                break
            r, _, _ = select.select([a], [], [], 0.1)
            if not r:
                continue
            d = a.recv(65536)
            if not d:
                break
            if down and events and flag("mute"):
                continue
            b.sendall(d)
    except OSError:
        pass
    if events:
        close(a, b)
        return
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def serve(c):
    head = b""
    try:
        while b"\r\n" not in head and len(head) < 8192:
            d = c.recv(4096)
            if not d:
                break
            head += d
    except OSError:
        close(c)
        return
    line = head.split(b"\r\n", 1)[0]
    events = b"/events" in line
    if events and flag("cut"):
        close(c)
        return
    u = socket.socket(socket.AF_UNIX)
    try:
        u.connect(real)
        u.sendall(head)
    except OSError:
        close(c, u)
        return
    threading.Thread(target=pipe, args=(c, u, events, False),
        daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, events, True),
        daemon=True).start()
l = socket.socket(socket.AF_UNIX)
try:
    os.unlink(path + ".new")
except OSError:
    pass
l.bind(path + ".new")
os.chown(path + ".new", 0, gid)
os.chmod(path + ".new", 0o660)
os.rename(path + ".new", path)
l.listen(64)
l.settimeout(0.5)
end = time.monotonic() + 600
while time.monotonic() < end:
    try:
        c, _ = l.accept()
    except socket.timeout:
        continue
    c.settimeout(None)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
RELAY
sock=$(realpath /var/run/docker.sock)
"$PY" "$T/relay.py" "$T/dock/docker.sock" "$sock" "$dockergid" "$T" \
    >>"$T/relay.log" 2>&1 &
RELAY_PID=$!
if ! wait_for 10 test -S "$T/dock/docker.sock"; then
	fail "the relay makes its socket"
	e2e_done
	exit 1
fi

# wl_conf NAME HOST PORT [EXTRA...]: a docker workload block
wl_conf() {
	n=$1 h=$2 p=$3
	shift 3
	cat <<CONF
workload "$n" {
	host "$h"
	driver docker
	image "$IMAGE"
	command "/bin/sh /orchd/run.sh"
	network host
	env "PORT=$p"
	volume "$V/www" "/www"
	volume "$V/bin" "/orchd"
	port $p
	health path "/index.html"
	stop timeout 2s
CONF
	conf_end "$@"
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
docker socket "$T/dock/docker.sock"
idle timeout 5m
wake timeout 20s
reaper interval 1s

listen on 127.0.0.1 port $GW

CONF
wl_conf "$WEB" web.test "$P_WEB" >>"$T/orchd.conf"
wl_conf "$HAND" hand.test "$P_HAND" 'idle timeout 3s' >>"$T/orchd.conf"
wl_conf "$OOM" oom.test "$P_OOM" 'memory 8M' 'env "EAT_AFTER=2"' \
    >>"$T/orchd.conf"

quiet() { "$@" >/dev/null 2>&1; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
# get HOST: the status code and the time taken
get() {
	curl -s -m 30 -o "$T/body" -w '%{http_code} %{time_total}\n' \
	    -H "Host: $1" "http://127.0.0.1:$GW/index.html"
}
code() { echo "$1" | cut -d' ' -f1; }
cid() { docker inspect -f '{{.Id}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }
running() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = true ]
}
stopped() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = false ]
}
gone() { ! docker inspect "orchd-$E2E_INSTANCE-$1" >/dev/null 2>&1; }
# state NAME: as orchctl show workloads has it
state() {
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n { print $2 }'
}
state_is() { [ "$(state "$1")" = "$2" ]; }
state_in() { s=$(state "$1"); [ "$s" = "$2" ] || [ "$s" = "$3" ]; }
# history NAME: its transitions, one a line
history() { "$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null; }
# in_history NAME FROM TO REASON [TEXT]
in_history() {
	history "$1" | grep -E "  $2 +$3 +$4( |\$)" | grep -q -- "${5:-}"
}
# recent NAME N: its N latest transitions
recent() {
	history "$1" | grep -E '^[0-9]{4}-' | tail -n "$2"
}
lastfail() { history "$1" | sed -n 's/^ *last failure: *//p'; }
short() { echo "$1" | cut -c1-12; }
# wake NAME HOST: a request, and that it is running
wake() {
	out=$(get "$2")
	check "$1 answers a request (got $(code "$out"))" \
	    [ "$(code "$out")" = 200 ]
	check "$1 is running" wait_for 5 state_is "$1" running
}

start_orchd_or_exit

# 1. docker start by hand: adopted, waking then running, within 2 s;
# served at once; suspended when idle, its container stopped
wake "$HAND" hand.test
check "$HAND suspended after its idle timeout of 3 s" \
    wait_for 20 state_is "$HAND" asleep
check "its container is stopped" wait_for 5 stopped "$HAND"
hid=$(cid "$HAND")
quiet docker start "orchd-$E2E_INSTANCE-$HAND"
check "docker start by hand: running in orchctl show workloads within 2 s" \
    wait_for 2 state_is "$HAND" running
recent "$HAND" 2 >"$T/recent"
check "taken as a wake of the operator's, saying why" grep -Eq \
    '  asleep +waking +operator +its container was started outside' \
    "$T/recent"
check "running once ready" grep -Eq '  waking +running +ready' "$T/recent"
check "the same container, not a new one" [ "$(cid "$HAND")" = "$hid" ]
out=$(get hand.test)
check "a request is served by it (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "and suspended again when idle" wait_for 20 state_is "$HAND" asleep
check "by orchd: its container stopped" wait_for 5 stopped "$HAND"
check "the daemon logged the adoption" \
    logged "workload $HAND: container $(short "$hid") was started outside"

# 2. docker rm -f by hand of a running container: asleep within 2 s,
# and the next request makes it again
wake "$WEB" web.test
wid=$(cid "$WEB")
quiet docker rm -f "orchd-$E2E_INSTANCE-$WEB"
check "docker rm -f by hand: asleep within 2 s" \
    wait_for 2 state_is "$WEB" asleep
check "saying why" sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload $WEB |
    grep -q 'asleep .*removed outside orchd'"
out=$(get web.test)
check "the next request: 200 (got $(code "$out"))" [ "$(code "$out")" = 200 ]
check "from a new container" \
    sh -c "[ -n '$(cid "$WEB")' ] && [ '$(cid "$WEB")' != '$wid' ]"
check "running" wait_for 5 state_is "$WEB" running

# 3. docker kill by hand: failed within 2 s, killed by signal 9, and
# the next request wakes it
quiet docker kill "orchd-$E2E_INSTANCE-$WEB"
check "docker kill by hand: failed within 2 s" \
    wait_for 2 state_is "$WEB" failed
check "killed by signal 9 outside orchd ($(lastfail "$WEB"))" \
    in_history "$WEB" running failed exited "killed by signal 9 outside"
out=$(get web.test)
check "the next request wakes it: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "running" wait_for 5 state_is "$WEB" running

# ... restarted by hand (a kill, its death, a start): running again,
# the same container
rid=$(cid "$WEB")
quiet docker restart -t 5 "orchd-$E2E_INSTANCE-$WEB"
check "docker restart by hand: running again" \
    wait_for 10 sh -c "[ \"\$(\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    awk '\$1 == \"$WEB\" { print \$2 }')\" = running ] &&
    [ \"\$(docker inspect -f '{{.State.Running}}' orchd-$E2E_INSTANCE-$WEB)\" = true ]"
check "the same container" [ "$(cid "$WEB")" = "$rid" ]
out=$(get web.test)
check "and it serves (got $(code "$out"))" [ "$(code "$out")" = 200 ]

# 4. ... and removed by hand while failed: asleep
quiet docker kill "orchd-$E2E_INSTANCE-$WEB"
check "killed again: failed" wait_for 2 state_is "$WEB" failed
quiet docker rm -f "orchd-$E2E_INSTANCE-$WEB"
check "its container removed by hand: asleep within 2 s" \
    wait_for 2 state_is "$WEB" asleep
check "saying why" in_history "$WEB" failed asleep exited \
    "removed outside orchd"
wake "$WEB" web.test

# 5. out of memory: a container with memory 8M that reads /dev/zero
# as one line is killed by the kernel, and its history says oom
wake "$OOM" oom.test
check "out of memory: failed" wait_for 15 state_is "$OOM" failed
check "recorded as oom ($(lastfail "$OOM"))" \
    in_history "$OOM" running failed oom "out of memory"
check "the JSON says oom too" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j show workload $OOM |
    tr -d ' \n' | grep -q '\"reason\":\"oom\"'"
check "the daemon logged it" \
    logged "workload $OOM: container .* ran out of memory"

# 6. the events stream muted: a container's death is missed.  The
# request routed to it is refused by its port, held, and runtimed asked:
# the container has exited, the workload fails and the request is served
# by a fresh wake, not answered 502
check "$WEB runs" state_is "$WEB" running
touch "$T/mute"
sleep 0.5
quiet docker kill "orchd-$E2E_INSTANCE-$WEB"
check "the container is dead" wait_for 5 stopped "$WEB"
sleep 1
check "muted, runtimed missed it: running still" state_is "$WEB" running
out=$(get web.test)
check "a request to the dead container: 200, not 502 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
recent "$WEB" 3 >"$T/recent"
check "after runtimed found it exited" \
    grep -Eq '  running +failed +exited +exited with status 137' "$T/recent"
check "and woke it for the request" \
    grep -Eq '  failed +waking +request' "$T/recent"
check "which is running again" state_is "$WEB" running
check "the gateway said it could not connect" \
    logged "workload $WEB: a gateway cannot connect to it"

# 7. a container that runs and does not listen: each request is one
# 502, after one look, not a loop
docker exec "orchd-$E2E_INSTANCE-$WEB" sh -c 'kill $(pidof httpd)' >/dev/null 2>&1
n0=$(grep -c "workload $WEB: a gateway cannot connect" "$T/orchd.log")
i=0
c502=0
while [ $i -lt 5 ]; do
	out=$(get web.test)
	[ "$(code "$out")" = 502 ] && c502=$((c502 + 1))
	i=$((i + 1))
done
n1=$(grep -c "workload $WEB: a gateway cannot connect" "$T/orchd.log")
check "5 requests to a running container that refuses: 5 x 502 ($c502)" \
    [ "$c502" -eq 5 ]
check "runtimed was asked at most once a second ($((n1 - n0)) times)" \
    within $((n1 - n0)) 1 4
check "it is running still" state_is "$WEB" running
quiet "$ORCHCTL" -s "$SOCK" suspend "$WEB"
check "suspended" wait_for 15 state_is "$WEB" asleep

# 8. the events stream cut: runtimed reconnects, and on reconnection
# compares each container with what it believes.  A container that died
# while the stream was down is seen exited; one started by hand then is
# adopted
wake "$WEB" web.test
check "$HAND is asleep" state_is "$HAND" asleep
touch "$T/cut"
rm -f "$T/mute"
check "runtimed saw the stream lost" wait_for 5 logged "events stream .* lost"
quiet docker kill "orchd-$E2E_INSTANCE-$WEB"
quiet docker start "orchd-$E2E_INSTANCE-$HAND"
sleep 2
check "cut, nothing was seen: $WEB running still" state_is "$WEB" running
check "and $HAND asleep still" state_is "$HAND" asleep
rm -f "$T/cut"
check "reconnected, the dead container is seen: $WEB failed" \
    wait_for 10 state_is "$WEB" failed
check "saying how it ended ($(lastfail "$WEB"))" sh -c "\"$ORCHCTL\" -s \
    \"$SOCK\" show workload $WEB | grep -E '^[0-9]{4}-' | tail -n 1 |
    grep -Eq '  running +failed +exited +exited with status 137'"
check "and the one started by hand adopted: $HAND running" \
    wait_for 5 state_is "$HAND" running
out=$(get web.test)
check "the next request to $WEB wakes it: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
# the stream is back: events are seen again
quiet docker kill "orchd-$E2E_INSTANCE-$WEB"
check "events again: a kill is seen within 2 s" \
    wait_for 2 state_is "$WEB" failed

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
