#!/bin/sh
# A Docker daemon restarted under orchd: a dockerd of the test's own (its
# socket, data root, exec root and pid file under the scratch directory,
# orchd's "docker socket" pointed at it), never the host's.
#
# 1. While one docker workload runs and a request to another, slow to
# start, is held for its wake, the daemon is stopped (which stops its
# containers), a request comes for a third, and the daemon starts again
# 2 s later.  orchd stays up, logs no fatal and loses no child; each held
# request is answered 200, or 503 with Retry-After as a wake whose
# workload exits or cannot be started is (orchd-workload(7)), never 502
# or 504 and never left unanswered; the workload whose container the
# restart stopped is no longer believed running once the events stream
# is back (made asleep or failed); the next request to each is served by
# a running container.
# 2. The daemon with --live-restore, restarted while a container runs:
# the container runs on, served all the while, and is kept as it is:
# running, the same container, not started again.
#
# Figures: the held requests' times and answers, how long runtimed took
# to see the stopped container, the requests served during the live
# restart.  Loopback only, network host, every wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
need_docker
command -v dockerd >/dev/null 2>&1 || skip "no dockerd to run one of our own"
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=dr$$
RUN=${TAG}run
HELD=${TAG}held
DOWN=${TAG}down
DD=$T/dd
D="docker -H unix://$DD/d.sock"
D_PID=

dr_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	ORCHD_PID=
	dockerd_stop "$D_PID" "$DD"
	e2e_cleanup
}
trap dr_cleanup EXIT

port_base 23
ports GW P_RUN P_HELD P_DOWN
mkdir -p "$T/log" "$DD"
dockerd_start D_PID "$DD"
docker save "$IMAGE" | $D load >/dev/null 2>&1
check "the test image in our dockerd" quiet $D image inspect "$IMAGE"

dock() {	# dock NAME PORT [DELAY]: a docker workload serving a page
	cat <<CONF
workload "$1" {
	host "$1.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh -c 'sleep ${3:-0}; mkdir -p /tmp/w && echo hello >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:$2 -h /tmp/w'"
	network host
	port $2
	health path "/index.html"
	stop signal KILL
}
CONF
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
docker socket "$DD/d.sock"
idle timeout 5m
wake timeout 30s

listen on 127.0.0.1 port $GW

CONF
dock "$RUN" "$P_RUN" >>"$T/orchd.conf"
dock "$HELD" "$P_HELD" 4 >>"$T/orchd.conf"
dock "$DOWN" "$P_DOWN" >>"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
state() {
	ctl show workload "$1" 2>/dev/null | awk '$1 == "state:" { print $2 }'
}
not_running() { s=$(state "$1"); [ "$s" = asleep ] || [ "$s" = failed ]; }
code() {	# code NAME: the status of GET /index.html, then its headers
	curl -s -m 60 -D "$T/h.$1" -o /dev/null -w '%{http_code}' \
	    -H "Host: $1.test" "http://127.0.0.1:$GW/index.html"
}
runs() {	# runs NAME: its container runs at our dockerd
	[ "$($D inspect -f '{{.State.Running}}' "$(cname "$1")" \
	    2>/dev/null)" = true ]
}
# held NAME: a request to NAME in the background, its status in
# $T/code.NAME, its time in $T/ms.NAME
held() {
	(
		t0=$(now_ms)
		code "$1" >"$T/code.$1"
		echo $(($(now_ms) - t0)) >"$T/ms.$1"
	) &
	eval "HELD_$1=\$!"
}
# answered NAME: its held request answered 200 or 503 with Retry-After
answered() {
	eval "_hp=\$HELD_$1"
	check "the held request to $1 is answered (within 60 s)" \
	    wait_for 60 dead "$_hp"
	wait "$_hp" 2>/dev/null
	c=$(cat "$T/code.$1")
	figure "held_ms.$1" "$(cat "$T/ms.$1")" ms
	figure "held_code.$1" "$c" status
	check "... 200, or 503 as a failed wake ($c)" \
	    sh -c "[ '$c' = 200 ] || [ '$c' = 503 ]"
	[ "$c" != 503 ] || check "... its 503 says when to try again" \
	    grep -qi '^Retry-After:' "$T/h.$1"
}

start_orchd_or_exit
check "a request wakes $RUN" [ "$(code "$RUN")" = 200 ]
check "its container runs at our dockerd" runs "$RUN"
check "$HELD is asleep" [ "$(state "$HELD")" = asleep ]

# 1. the daemon stopped, its containers with it, a wake held meanwhile
held "$HELD"
check "$HELD is waking" wait_for 10 sh -c \
    "'$ORCHCTL' -s '$SOCK' show workload $HELD | grep -q 'state: *waking'"
sleep 1
kill -TERM "$D_PID"
check "our dockerd stops" wait_gone "$D_PID" 30
wait "$D_PID" 2>/dev/null
held "$DOWN"
sleep 2
dockerd_start D_PID "$DD"
check "our dockerd is back" quiet $D info
answered "$HELD"
answered "$DOWN"
t1=$(now_ms)
check "$RUN, its container stopped, is no longer believed running" \
    wait_for 30 not_running "$RUN"
figure seen_stopped_ms $(($(now_ms) - t1)) ms
check "orchd is up" kill -0 "$ORCHD_PID"
c=$(code "$RUN")
check "the next request to $RUN is served ($c)" [ "$c" = 200 ]
check "... by a running container" runs "$RUN"
for w in $HELD $DOWN; do
	c=$(code "$w")
	check "the next request to $w is served ($c)" [ "$c" = 200 ]
	check "... by a running container" runs "$w"
done

# 2. --live-restore: the container outlives the daemon's restart
kill -TERM "$D_PID"
check "our dockerd stops again" wait_gone "$D_PID" 30
wait "$D_PID" 2>/dev/null
dockerd_start D_PID "$DD" --live-restore
# the stop without it stopped the container: woken again first
check "$RUN is no longer believed running" wait_for 30 not_running "$RUN"
check "$RUN served, under --live-restore" [ "$(code "$RUN")" = 200 ]
id=$($D inspect -f '{{.Id}}' "$(cname "$RUN")")
started=$($D inspect -f '{{.State.StartedAt}}' "$(cname "$RUN")")
: >"$T/live"
(
	i=0
	while [ $i -lt 200 ] && [ ! -e "$T/live.stop" ]; do
		code "$RUN" >>"$T/live"
		echo >>"$T/live"
		i=$((i + 1))
		sleep 0.1
	done
) &
loop=$!
sleep 1
kill -TERM "$D_PID"
check "our dockerd stops, --live-restore" wait_gone "$D_PID" 30
wait "$D_PID" 2>/dev/null
check "the container runs on without its daemon" \
    quiet pgrep -f "httpd -f -p 127.0.0.1:$P_RUN"
sleep 2
dockerd_start D_PID "$DD" --live-restore
sleep 2
touch "$T/live.stop"
wait_for 70 dead "$loop"
wait "$loop" 2>/dev/null
n=$(grep -c . "$T/live")
bad=$(grep -vc '^200$' "$T/live")
figure live_requests "$n" requests
figure live_not_200 "$bad" requests
check "requests all along the live restart: $n, all 200" \
    [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
check "$RUN kept running" wait_for 10 sh -c \
    "'$ORCHCTL' -s '$SOCK' show workload $RUN | grep -q 'state: *running'"
check "... the same container" \
    [ "$($D inspect -f '{{.Id}}' "$(cname "$RUN")")" = "$id" ]
check "... not started again" [ "$($D inspect -f '{{.State.StartedAt}}' \
    "$(cname "$RUN")")" = "$started" ]
check "... served" [ "$(code "$RUN")" = 200 ]
check "no fatal, no child lost" \
    sh -c "! grep -E 'fatal|lost child' '$T/orchd.log'"
grep -E "$TAG|docker" "$T/orchd.log" | tail -n 12 | sed 's/^/# /'
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
