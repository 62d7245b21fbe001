#!/bin/bash
# 6. A wake through the swarm driver: busybox httpd as a Docker Swarm
# service on this machine's one-node swarm, scaled 0 -> 1 by a request
# through the gateway, against `docker service scale -d` of a service of
# the same definition to the first 200 (bench/spawnwait.c -x, retrying
# every 1 ms).  They take turns, one wake each, for SWARM_WAKES rounds
# (5; quick 3): a swarm wake takes seconds, the task's scheduling most of
# it.  Runs only where the daemon is a swarm manager already (this part
# initialises nothing: regress/e2e/swarm.sh does) and the image
# orchd-test/busybox is there; otherwise it says "skipped: " and why.
#
#	bench/06-swarm.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
WAKES=${SWARM_WAKES:-5}
[ -n "$QUICK" ] && WAKES=${SWARM_WAKES:-3}
RPORT=$((WAKE_PORT + 5))	# the raw service
SPORT=$((WAKE_PORT + 6))	# orchd's
check_ports "$GW_PORT" "$RPORT" "$SPORT"

WHY=
if ! timeout 10 docker info >/dev/null 2>&1; then
	WHY="docker info fails (no daemon?)"
elif [ "$(docker info --format '{{.Swarm.ControlAvailable}}')" != true ]; then
	WHY="this daemon is no swarm manager (docker swarm init)"
elif ! docker image inspect orchd-test/busybox >/dev/null 2>&1; then
	WHY="no image orchd-test/busybox (sh regress/docker-image.sh)"
fi
if [ -n "$WHY" ]; then
	out "6. swarm wake: skipped: $WHY"
	exit 0
fi

RAW=orchd-benchswraw-$$
cmd() {		# cmd PORT: the services' command
	echo "/bin/sh -c 'mkdir -p /tmp/w && echo awake >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:$1 -h /tmp/w'"
}
W=$B/swarm
mkdir -p "$W"
{
	orchd_globals "$W"
	cat <<EOF
workload "benchsw" {
	host "swarm.localhost"
	driver swarm
	image "orchd-test/busybox"
	command "$(cmd "$SPORT")"
	network host
	port $SPORT
	stop signal KILL
	idle timeout 1h
	wake timeout 2m
}
EOF
} >"$W/orchd.conf"
at_exit docker service rm "$RAW" orchd-benchsw
docker service create -d --name "$RAW" --replicas 0 --network host \
    --stop-signal KILL orchd-test/busybox sh -c "$(cmd "$RPORT" |
    sed "s/^\/bin\/sh -c '//; s/'\$//")" >/dev/null 2>&1 ||
    die "docker service create failed"
start_orchd "$W"

state_of() {
	"$ORCHCTL" -s "$W/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is_asleep() { [ "$(state_of benchsw)" = asleep ]; }
no_raw_task() {
	[ -z "$(docker ps -q --filter "label=com.docker.swarm.service.name=$RAW")" ]
}
gw_wake() {
	taskset -c "$CCPU" "$B/herd" -n 1 -t 120 -H "$1" "$GW_PORT" >"$B/herd.out"
	sed -n 's/.* last_us=\([0-9]*\).*/\1/p' "$B/herd.out"
}
ms_of() { awk '{printf "%.0f", $1 / 1000}'; }

: >"$B/raw.sw"
: >"$B/gw.sw"
note "part 6: $WAKES swarm wakes, docker service scale and through the gateway"
for i in $(seq 1 "$WAKES"); do
	taskset -c "$CCPU" "$B/spawnwait" -x "$RPORT" -- \
	    "$(command -v docker)" service scale -d "$RAW=1" >>"$B/raw.sw" ||
	    die "raw scale-up failed"
	docker service scale -d "$RAW=0" >/dev/null 2>&1
	wait_for 60 no_raw_task
	wait_for 30 port_free "$RPORT"
	v=$(gw_wake swarm.localhost)
	[ -n "$v" ] || die "swarm wake failed: $(cat "$B/herd.out")"
	echo "$v" >>"$B/gw.sw"
	timeout 120 "$ORCHCTL" -s "$W/orchd.sock" suspend benchsw >/dev/null 2>&1
	wait_for 60 is_asleep || die "cannot suspend benchsw"
	wait_for 30 port_free "$SPORT"
done

out ""
out "6. swarm wake (ms), $WAKES rounds, one-node swarm"
out "$(printf '%-34s %8s %8s %8s' '' p50 p90 max)"
for f in raw gw; do
	label="docker service scale -d, to 200"
	[ $f = gw ] && label="orchd, a request through the swarm"
	out "$(printf '%-34s %8s %8s %8s' "$label" \
	    "$(pctl 50 <"$B/$f.sw" | ms_of)" "$(pctl 90 <"$B/$f.sw" | ms_of)" \
	    "$(sort -g "$B/$f.sw" | tail -n 1 | ms_of)")"
done
for f in raw gw; do
	out "# raw samples $f (us): $(tr '\n' ' ' <"$B/$f.sw")"
done
