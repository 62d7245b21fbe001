#!/bin/sh
# The docker driver against a real Docker daemon: concurrent requests to
# a sleeping container cause one container start; the reaper stops it
# (kept, not removed) and a request starts the same container again; the
# memory limit, environment and volume reach the container; a missing
# image and a daemon that cannot be reached answer 503 and recover; a
# container that exits by itself is noticed; orchd adopts a running
# container across its restart and leaves a stopped one stopped; a
# changed image wakes nothing and is used by the next request; a
# container whose process 1 ignores SIGTERM stops at once with the init
# orchd puts in by default, or with stop signal KILL, or after its stop
# timeout.  Also: logs through the Engine API, the memory figure of show
# stats, and that runtimed alone can reach the Docker socket.  Loopback only, network
# host, every wait bounded; the containers made here are removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=e2e$$
WEB=${TAG}web
KEEP=${TAG}keep
MISSING=${TAG}missing
CRASH=${TAG}crash
OFF=${TAG}off
IGN=${TAG}ign
IGNKILL=${TAG}ignkill
IGNSHORT=${TAG}ignshort
RAW=orchd-$E2E_INSTANCE-${TAG}raw
V2=orchd-test/busybox:$TAG-v2
NOIMAGE=orchd-test/nonexistent:$TAG
RELAY_PID=
EVENTS_PID=
# what the containers mount lies outside $T: no volume may lie under the
# directory of orchd.conf
V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$V"

# ours only: the names of this run
docker_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null
	for n in $WEB $KEEP $MISSING $CRASH $OFF $IGN $IGNKILL $IGNSHORT; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	docker rm -f "$RAW" >/dev/null 2>&1
	docker rmi "$V2" "$NOIMAGE" >/dev/null 2>&1
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	rm -rf "$V"
	e2e_cleanup
}
trap docker_cleanup EXIT

port_base 7
ports GW P_WEB P_KEEP P_MISSING P_CRASH P_OFF P_RAW P_IGN P_IGNKILL \
    P_IGNSHORT

# the containers' command: serves /www, says hello on stdout and stderr,
# and ends at once on SIGTERM (as process 1 it must handle it itself);
# with EXIT_AFTER it exits 3 after that many seconds
mkdir -p "$T/log" "$V/www" "$V/bin" "$T/dock"
echo "hello from a container" >"$V/www/index.html"
cat >"$V/bin/run.sh" <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
echo "orchd-e2e up: $GREETING"
echo "orchd-e2e on stderr" >&2
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
if [ -n "$EXIT_AFTER" ]; then
	sleep "$EXIT_AFTER"
	exit 3
fi
wait
EOF
chmod -R a+rX "$V/www" "$V/bin"

# wl_conf NAME HOST PORT IMAGE [EXTRA...]: a docker workload block
wl_conf() {
	n=$1 h=$2 p=$3 img=$4
	shift 4
	cat <<CONF
workload "$n" {
	host "$h"
	driver docker
	image "$img"
	command "/bin/sh /orchd/run.sh"
	network host
	env "PORT=$p"
	volume "$V/www" "/www"
	volume "$V/bin" "/orchd"
	port $p
	health path "/index.html"
CONF
	conf_end "$@"
}

# write_conf [KEEP-IMAGE]: the main configuration
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 20s
reaper interval 1s

listen on 127.0.0.1 port $GW

CONF
	wl_conf "$WEB" web.test "$P_WEB" "$IMAGE" 'env "GREETING=hello from orchd"' \
	    'memory 64M' 'idle timeout 4s' >>"$T/orchd.conf"
	wl_conf "$KEEP" keep.test "$P_KEEP" "${1:-$IMAGE}" >>"$T/orchd.conf"
	# never pulled: no registry is reachable here (pull.sh pulls)
	wl_conf "$MISSING" missing.test "$P_MISSING" "$NOIMAGE" \
	    'pull never' >>"$T/orchd.conf"
	wl_conf "$CRASH" crash.test "$P_CRASH" "$IMAGE" 'env "EXIT_AFTER=2"' \
	    >>"$T/orchd.conf"
}
write_conf

logged() {
	grep -q -- "$1" "$T/orchd.log"
}

# get HOST: the status code and the time taken, then the body
get() {
	curl -s -m 30 -o "$T/body" -w '%{http_code} %{time_total}\n' \
	    -H "Host: $1" "http://127.0.0.1:$GW/index.html"
	cat "$T/body" 2>/dev/null
}
code() { echo "$1" | head -n 1 | cut -d' ' -f1; }
ms() { echo "$1" | head -n 1 | awk '{ printf "%d", $2 * 1000 }'; }

# starts NAME: container starts of orchd-NAME since the test began,
# from docker events followed as they come (the daemon remembers only
# its last 256 events, too few on a busy daemon to ask afterwards)
docker events --filter event=start --filter "label=org.orchd.workload" \
    --format '{{.Actor.Attributes.name}}' >"$T/starts" 2>/dev/null &
EVENTS_PID=$!
starts() {
	sleep 0.2
	grep -cx "orchd-$E2E_INSTANCE-$1" "$T/starts"
}
cid() { docker inspect -f '{{.Id}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }
running() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = true ]
}
stopped() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = false ]
}
state() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1")" = "$2" ]; }
lastfail() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    sed -n 's/^ *last failure: *//p'
}

start_orchd_or_exit

# 1. only runtimed can reach the Docker socket; its root is an empty
# read-only file system with the socket's directory bound read-only
sock=$(realpath /var/run/docker.sock)
sockdir=$(dirname "$sock")
sockgid=$(stat -c %g "$sock")
rtpid=$(child runtime)
check "runtimed's root is the chroot, /var/empty" \
    [ "$(readlink "/proc/${rtpid:-0}/root")" = /var/empty ]
check "where the socket's directory is at its own path" \
    [ -S "/proc/${rtpid:-0}/root$sock" ]
check "read-only: not even root can write there" \
    sh -c "! touch '/proc/${rtpid:-0}/root$sockdir/.orchd-e2e' 2>/dev/null"
check "runtimed's only supplementary group is the socket's ($sockgid)" \
    grep -Eq "^Groups:[[:space:]]+$sockgid[[:space:]]*$" \
    "/proc/${rtpid:-0}/status"
for name in gateway reaper store; do
	pid=$(child "$name")
	root=$(readlink "/proc/${pid:-0}/root")
	check "$name's root ($root) holds no $(basename "$sock")" \
	    sh -c "[ -n '$pid' ] && [ ! -e '/proc/$pid/root/$(basename "$sock")' ]"
	check "$name is not in the socket's group" \
	    sh -c "! grep -Eq '^Groups:.*[[:space:]]$sockgid([[:space:]]|\$)' \
	    /proc/$pid/status"
done
check "without that group, _orchd cannot open the socket" \
    sh -c "! setpriv --reuid=_orchd --regid=_orchd --clear-groups \
    curl -s -m 5 --unix-socket '$sock' http://docker/_ping >/dev/null 2>&1"

# 2. twenty requests at once to a sleeping container: one start
i=0
pids=
while [ $i -lt 20 ]; do
	curl -s -m 30 -o "$T/c$i.body" -w '%{http_code}\n' \
	    -H 'Host: web.test' "http://127.0.0.1:$GW/index.html" \
	    >"$T/c$i.code" &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p"
done
codes=$(cat "$T"/c*.code | sort | uniq -c | tr -s ' ' | tr '\n' ',')
check "20 concurrent requests to a sleeping container: 20 x 200 ($codes)" \
    [ "$(grep -lx 200 "$T"/c*.code | wc -l)" -eq 20 ]
check "every one got the page" \
    [ "$(grep -lx 'hello from a container' "$T"/c*.body | wc -l)" -eq 20 ]
check "exactly one container start ($(starts "$WEB"))" \
    [ "$(starts "$WEB")" -eq 1 ]
check "the workload is running" wait_for 5 state_is "$WEB" running
id1=$(cid "$WEB")

# 3. the container as configured
check "named orchd-$E2E_INSTANCE-$WEB, labelled with its workload" \
    [ "$(docker inspect -f '{{index .Config.Labels "org.orchd.workload"}}' \
    "orchd-$E2E_INSTANCE-$WEB")" = "$WEB" ]
check "and with a hash of its definition" \
    sh -c "docker inspect -f '{{index .Config.Labels \"org.orchd.hash\"}}' \
    orchd-$E2E_INSTANCE-$WEB | grep -Eqx '[0-9a-f]{64}'"
check "memory limit 64M applied" \
    [ "$(docker inspect -f '{{.HostConfig.Memory}}' "orchd-$E2E_INSTANCE-$WEB")" = 67108864 ]
lim=$(docker exec "orchd-$E2E_INSTANCE-$WEB" cat /sys/fs/cgroup/memory/memory.limit_in_bytes \
    2>/dev/null || docker exec "orchd-$E2E_INSTANCE-$WEB" cat /sys/fs/cgroup/memory.max \
    2>/dev/null)
check "and seen by the container's cgroup ($lim)" [ "$lim" = 67108864 ]
check "env visible inside" \
    sh -c "docker exec orchd-$E2E_INSTANCE-$WEB env | grep -qx 'GREETING=hello from orchd'"
check "volume visible inside" \
    sh -c "docker exec orchd-$E2E_INSTANCE-$WEB cat /www/index.html |
    grep -qx 'hello from a container'"
check "network host" \
    [ "$(docker inspect -f '{{.HostConfig.NetworkMode}}' "orchd-$E2E_INSTANCE-$WEB")" = host ]

# 4. logs through the Engine API, both streams, no frame headers
"$ORCHCTL" -s "$SOCK" logs "$WEB" >"$T/logs.out" 2>&1
check "orchctl logs shows the container's stdout" \
    grep -qx 'orchd-e2e up: hello from orchd' "$T/logs.out"
check "and its stderr" grep -qx 'orchd-e2e on stderr' "$T/logs.out"
check "and nothing else" [ "$(wc -l <"$T/logs.out")" -eq 2 ]

# 5. idle: the reaper stops the container, which is kept
check "suspended after its idle timeout of 4 s" \
    wait_for 20 state_is "$WEB" asleep
check "the container is stopped" stopped "$WEB"
check "not removed: the same container" [ "$(cid "$WEB")" = "$id1" ]
check "the daemon logged the suspend" \
    logged "workload $WEB: running -> suspending (idle)"
# one JSON object a line, then the memory of ours
mem=$("$ORCHCTL" -s "$SOCK" -j show stats 2>/dev/null | tr -d ' \n' |
    tr '}' '\n' | grep "\"name\":\"$WEB\"" |
    sed -n 's/.*"memory":\([0-9]*\).*/\1/p')
check "show stats has its measured memory ($mem bytes, not the 64M limit)" \
    sh -c "[ '${mem:-0}' -gt 0 ] && [ '${mem:-0}' -ne 67108864 ]"
out=$(get web.test)
wake_ms=$(ms "$out")
check "a request wakes it again: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "the same container again" [ "$(cid "$WEB")" = "$id1" ]
check "started twice in all ($(starts "$WEB"))" [ "$(starts "$WEB")" -eq 2 ]

# the same container started by hand, for comparison
docker create --name "$RAW" --network host -e "PORT=$P_RAW" \
    -v "$V/www:/www" -v "$V/bin:/orchd" "$IMAGE" /bin/sh /orchd/run.sh \
    >/dev/null 2>&1
t=$(date +%s%N)
docker start "$RAW" >/dev/null 2>&1
i=0
while [ $i -lt 400 ] && ! curl -s -m 1 -o /dev/null \
    "http://127.0.0.1:$P_RAW/index.html"; do
	i=$((i + 1))
done
raw_ms=$((($(date +%s%N) - t) / 1000000))
docker rm -f "$RAW" >/dev/null 2>&1
echo "# wake of a stopped container through orchd: $wake_ms ms;" \
    "docker start to the first 200: $raw_ms ms"

# 6. a missing image: 503, failed with the daemon's message, tried again
curl -s -m 30 -D "$T/missing.head" -o /dev/null -H 'Host: missing.test' \
    "http://127.0.0.1:$GW/"
check "a missing image answers 503" grep -q '^HTTP/1.1 503' "$T/missing.head"
check "the workload is failed" wait_for 5 state_is "$MISSING" failed
check "with the daemon's message ($(lastfail "$MISSING"))" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload $MISSING |
    grep -q 'No such image'"
out=$(get missing.test)
check "the next request tries again: 503 again" [ "$(code "$out")" = 503 ]
check "two attempts logged" [ "$(grep -c \
    "workload $MISSING: container not started" "$T/orchd.log")" -ge 2 ]
docker tag "$IMAGE" "$NOIMAGE"
out=$(get missing.test)
check "once the image exists, the next request gets 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]

# 7. a container that exits by itself is noticed
out=$(get crash.test)
check "the crashing workload first answers 200" [ "$(code "$out")" = 200 ]
check "its exit (status 3) is noticed: failed" \
    wait_for 15 state_is "$CRASH" failed
check "with its status" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload $CRASH |
    grep -q 'exited with status 3'"
out=$(get crash.test)
check "and the next request starts it again (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]

# 8. orchd restarts while a container runs: adopted, not started again
out=$(get keep.test)
check "keep answers" [ "$(code "$out")" = 200 ]
keepid=$(cid "$KEEP")
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "its container keeps running" running "$KEEP"
check "orchd starts again" start_orchd
# the store remembers "running" already: runtimed's word is the log
check "the running container is adopted" wait_for 10 logged \
    "workload $KEEP: asleep -> running (restored: adopted a running"
check "the workload is running" state_is "$KEEP" running
out=$(get keep.test)
check "a request is served at once (got $(code "$out"), $(ms "$out") ms)" \
    [ "$(code "$out")" = 200 ]
check "no second start ($(starts "$KEEP"))" [ "$(starts "$KEEP")" -eq 1 ]
check "same container" [ "$(cid "$KEEP")" = "$keepid" ]

# 9. ... and while it is asleep: it stays stopped
check "orchctl suspend" quiet "$ORCHCTL" -s "$SOCK" suspend "$KEEP"
check "its container is stopped" wait_for 15 stopped "$KEEP"
stop_orchd
check "orchd starts again" start_orchd
sleep 2
check "the stopped container stays stopped" stopped "$KEEP"
check "and the workload asleep" state_is "$KEEP" asleep
check "still one start ($(starts "$KEEP"))" [ "$(starts "$KEEP")" -eq 1 ]

# 10. a changed image while asleep: no wake; the next request uses it
root=$(mktemp -d)
mkdir -p "$root/bin" "$root/tmp" "$root/www"
cp /bin/busybox "$root/bin/busybox"
for app in sh httpd ls cat echo env sleep nc wget mkdir; do
	ln -s busybox "$root/bin/$app"
done
echo 2 >"$root/version"
tar -C "$root" -c . | docker import -c 'CMD ["/bin/sh"]' - "$V2" >/dev/null
rm -rf "$root"
write_conf "$V2"
check "orchctl reload with a new image" quiet "$ORCHCTL" -s "$SOCK" reload
sleep 2
check "the change wakes nothing" stopped "$KEEP"
check "still asleep" state_is "$KEEP" asleep
check "no start ($(starts "$KEEP"))" [ "$(starts "$KEEP")" -eq 1 ]
out=$(get keep.test)
check "the next request: 200 (got $(code "$out"))" [ "$(code "$out")" = 200 ]
check "runs the new image" \
    [ "$(docker inspect -f '{{.Config.Image}}' "orchd-$E2E_INSTANCE-$KEEP")" = "$V2" ]
check "in a new container" [ "$(cid "$KEEP")" != "$keepid" ]
check "that has the new image's file" \
    [ "$(docker exec "orchd-$E2E_INSTANCE-$KEEP" cat /version 2>/dev/null)" = 2 ]
check "the daemon logged the replacement" \
    logged "workload $KEEP: definition changed, replacing container"
stop_orchd

# 11. a daemon that cannot be reached: 503, orchd keeps running, and
# recovers once the socket is there
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
docker socket "$T/dock/docker.sock"
reaper interval 1s
listen on 127.0.0.1 port $GW

CONF
wl_conf "$OFF" off.test "$P_OFF" "$IMAGE" >>"$T/orchd.conf"
check "orchd starts with no Docker socket there" start_orchd
rtpid=$(child runtime)
check "runtimed has $T/dock in its root" \
    [ -d "/proc/${rtpid:-0}/root$T/dock" ]
out=$(get off.test)
check "no daemon: 503 (got $(code "$out"))" [ "$(code "$out")" = 503 ]
check "the workload is failed" wait_for 5 state_is "$OFF" failed
check "saying why ($(lastfail "$OFF"))" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload $OFF |
    grep -q 'cannot connect to the Docker daemon'"
check "orchd keeps running" quiet "$ORCHCTL" -s "$SOCK" show summary
out=$(get off.test)
check "and answers 503 again" [ "$(code "$out")" = 503 ]
# the daemon comes up: a socket is made in the directory, as dockerd
# makes its own (here a relay to the real one, in the group named
# docker, which runtimed was given, the socket not being there).  A
# socket bind-mounted from outside would not do: runtimed's mounts are
# its own, made at its start.
dockergid=$(getent group docker | cut -d: -f3)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$PY" ] && [ -n "$dockergid" ]; then
	cp "$(dirname "$0")/dockerrelay.py" "$T/relay.py"
	"$PY" "$T/relay.py" "$T/dock/docker.sock" "$sock" "$dockergid" &
	RELAY_PID=$!
	check "the socket is made" wait_for 10 test -S "$T/dock/docker.sock"
	check "runtimed sees it" wait_for 5 \
	    test -S "/proc/${rtpid:-0}/root$T/dock/docker.sock"
	out=$(get off.test)
	check "once the socket is there, the next request: 200 (got $(code \
	    "$out"))" [ "$(code "$out")" = 200 ]
	check "running" wait_for 5 state_is "$OFF" running
else
	echo "# no python3 or no group docker: recovery not tested"
fi
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null

# 12. busybox httpd as the container's command: as process 1 it ignores
# SIGTERM (the kernel drops the signals a namespace's init leaves at
# their default), and a plain docker stop waits its full timeout, 10 s
# here.  orchd's default init (Docker's, tini) stops it at once; so do
# "stop signal KILL" and, after it, a short "stop timeout".
ign_conf() {	# ign_conf NAME HOST PORT [EXTRA...]
	n=$1 h=$2 p=$3
	shift 3
	cat <<CONF
workload "$n" {
	host "$h"
	driver docker
	image "$IMAGE"
	command "/bin/httpd -f -p 127.0.0.1:$p -h /www"
	network host
	volume "$V/www" "/www"
	port $p
	idle timeout 5m
CONF
	conf_end "$@"
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
listen on 127.0.0.1 port $GW

CONF
ign_conf "$IGN" ign.test "$P_IGN" >>"$T/orchd.conf"
ign_conf "$IGNKILL" ignkill.test "$P_IGNKILL" 'init no' \
    'stop signal KILL' >>"$T/orchd.conf"
ign_conf "$IGNSHORT" ignshort.test "$P_IGNSHORT" 'init no' \
    'stop timeout 2s' >>"$T/orchd.conf"
check "orchd starts with the SIGTERM-ignoring workloads" start_orchd

# pid1 NAME: the name of the container's process 1
# (read inside the container: the daemon's pid namespace need not be ours)
pid1() {
	docker exec "orchd-$E2E_INSTANCE-$1" cat /proc/1/comm 2>/dev/null
}
exitcode() { docker inspect -f '{{.State.ExitCode}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }

out=$(get ign.test)
check "with the default init: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "HostConfig.Init is true" [ "$(docker inspect -f \
    '{{.HostConfig.Init}}' "orchd-$E2E_INSTANCE-$IGN" 2>/dev/null)" = true ]
check "process 1 is Docker's init, not httpd ($(pid1 "$IGN"))" \
    [ "$(pid1 "$IGN")" = docker-init ]
t=$(suspend_ms "$IGN")
check "suspended in well under the 10 s stop timeout ($t ms)" \
    within "$t" 0 5000
check "the container is stopped" stopped "$IGN"
check "httpd ended by SIGTERM, not SIGKILL (status $(exitcode "$IGN"))" \
    [ "$(exitcode "$IGN")" = 143 ]
out=$(get ign.test)
check "and wakes again: 200 (got $(code "$out"))" [ "$(code "$out")" = 200 ]

out=$(get ignkill.test)
check "init no, stop signal KILL: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "process 1 is httpd ($(pid1 "$IGNKILL"))" [ "$(pid1 "$IGNKILL")" = httpd ]
check "StopSignal SIGKILL in the container" [ "$(docker inspect -f \
    '{{.Config.StopSignal}}' "orchd-$E2E_INSTANCE-$IGNKILL" 2>/dev/null)" = SIGKILL ]
t=$(suspend_ms "$IGNKILL")
check "suspended in well under 10 s ($t ms)" within "$t" 0 5000
check "the container is stopped, killed (status $(exitcode "$IGNKILL"))" \
    [ "$(exitcode "$IGNKILL")" = 137 ]

out=$(get ignshort.test)
check "init no, stop timeout 2s: 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "StopTimeout 2 in the container" [ "$(docker inspect -f \
    '{{.Config.StopTimeout}}' "orchd-$E2E_INSTANCE-$IGNSHORT" 2>/dev/null)" = 2 ]
t=$(suspend_ms "$IGNSHORT")
# at least the 2 s that SIGTERM was given, well under 10 s
check "suspended after its stop timeout, not 10 s ($t ms)" \
    within "$t" 1500 8000
check "the container is stopped, killed (status $(exitcode "$IGNSHORT"))" \
    [ "$(exitcode "$IGNSHORT")" = 137 ]
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

ORCHD_PID=
e2e_done
