#!/bin/bash
# 13. Wake from frozen against wake from stopped, in one run.  Two copies
# of a tiny process workload (busybox httpd): one with "suspend freeze",
# one with "suspend stop", both with a 1 s idle timeout.  Each round
# waits until the first is frozen and the second asleep, then wakes each
# with one request through the gateway (bench/herd.c, the time to its
# first complete answer).  The same for a container (driver docker, docker
# pause against docker stop) where docker answers and the image
# orchd-test/busybox is there (regress/docker-image.sh); otherwise it
# says "skipped: " and why.  After each wake from frozen, the same
# request to the workload now running: the difference, round by round,
# is what the thaw added (issue 33: at most 1 ms, p99).  Then the seed's
# kind of app, one that takes
# seconds to boot: Debian's gunicorn (one worker) serving a WSGI app
# whose import sleeps GUNICORN_BOOT seconds (2), standing in for a
# framework's boot, frozen against stopped, where gunicorn is installed.
# ROUNDS rounds (10; quick 4).  The figures: the medians, p99 and max of
# each (p99 is the max, with so few), and their ratio.
#
#	bench/13-freeze.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
if [ -n "$QUICK" ]; then
	ROUNDS=${BENCH_ROUNDS:-4}
else
	ROUNDS=${BENCH_ROUNDS:-10}
fi
FPORT=$WAKE_PORT		# frozen process
SPORT=$((WAKE_PORT + 1))	# stopped process
CFPORT=$((WAKE_PORT + 2))	# frozen container
CSPORT=$((WAKE_PORT + 3))	# stopped container
GFPORT=$((WAKE_PORT + 4))	# frozen gunicorn
GSPORT=$((WAKE_PORT + 5))	# stopped gunicorn
check_ports "$GW_PORT" "$FPORT" "$SPORT" "$CFPORT" "$CSPORT" "$GFPORT" \
    "$GSPORT"

mkdir -p "$B/www"
echo "awake" >"$B/www/index.html"
chmod -R a+rX "$B/www"

DOCKER_WHY=
if ! command -v docker >/dev/null 2>&1; then
	DOCKER_WHY="no docker command"
elif ! timeout 10 docker info >/dev/null 2>&1; then
	DOCKER_WHY="docker info fails (no daemon?)"
elif ! docker image inspect orchd-test/busybox >/dev/null 2>&1; then
	DOCKER_WHY="no image orchd-test/busybox (sh regress/docker-image.sh)"
fi

GUNI_WHY=
GUNICORN=$(command -v gunicorn || command -v gunicorn3) ||
    GUNI_WHY="no gunicorn (apt-get install gunicorn)"
mkdir -p "$B/app"
cat >"$B/app/slowapp.py" <<EOF
# the boot of a framework that takes seconds, stood in for by a sleep
import time
time.sleep(${GUNICORN_BOOT:-2})


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"awake"]
EOF
chmod -R a+rX "$B/app"

W=$B/freeze
mkdir -p "$W"
# pwl NAME PORT SUSPEND: a process workload
pwl() {
	cat <<EOF
workload "$1" {
	host "$1.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$2 -h $B/www"
	port $2
	idle timeout 1s
	suspend $3
}
EOF
}
# cwl NAME PORT SUSPEND: a container workload
cwl() {
	cat <<EOF
workload "$1" {
	host "$1.localhost"
	driver docker
	image "orchd-test/busybox"
	command "httpd -f -p 127.0.0.1:$2 -h /www"
	network host
	port $2
	volume "$B/www" "/www"
	idle timeout 1s
	suspend $3
}
EOF
}
# gwl NAME PORT SUSPEND: gunicorn serving the slow app
gwl() {
	cat <<EOF
workload "$1" {
	host "$1.localhost"
	command "$GUNICORN -w 1 -b 127.0.0.1:$2 --chdir $B/app slowapp:app"
	port $2
	idle timeout 1s
	suspend $3
}
EOF
}
{
	orchd_globals "$W"
	echo "reaper interval 1s"
	if [ -z "$GUNI_WHY" ]; then
		gwl frzg "$GFPORT" freeze
		gwl stpg "$GSPORT" stop
	fi
	pwl frzp "$FPORT" freeze
	pwl stpp "$SPORT" stop
	if [ -z "$DOCKER_WHY" ]; then
		cwl frzc "$CFPORT" freeze
		cwl stpc "$CSPORT" stop
	fi
} >"$W/orchd.conf"
if [ -z "$DOCKER_WHY" ] && ! "$ORCHD" -n -f "$W/orchd.conf" >"$B/n.out" 2>&1; then
	DOCKER_WHY="orchd -n refuses: $(head -n 1 "$B/n.out")"
	sed -i '/^workload "frzc"/,$d' "$W/orchd.conf"
fi
if [ -z "$DOCKER_WHY" ]; then
	# orchd's containers, orchd-INSTANCE-NAME, as orchd_globals names
	# the instance
	n=$(printf '%s' "$W" | cksum | cut -d ' ' -f 1)
	for c in frzc stpc; do
		at_exit docker rm -f "orchd-bench-$(basename "$W")-$n-$c"
	done
fi
start_orchd "$W"

state_of() {
	"$ORCHCTL" -s "$W/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is() { [ "$(state_of "$1")" = "$2" ]; }
# gw_wake HOST: one request through the gateway, in microseconds
gw_wake() {
	taskset -c "$CCPU" "$B/herd" -n 1 -t 60 -H "$1" "$GW_PORT" >"$B/herd.out"
	sed -n 's/.* last_us=\([0-9]*\).*/\1/p' "$B/herd.out"
}
# round FROZEN STOPPED PORT-OF-STOPPED: one wake of each, once idle
round() {
	wait_for 30 is "$1" frozen || return 1
	wait_for 30 is "$2" asleep || return 1
	wait_for 30 port_free "$3" || return 1
	v=$(gw_wake "$1.localhost")
	[ -n "$v" ] || return 1
	echo "$v" >>"$B/frozen.$1"
	# the same request to it running now: what the thaw added
	r=$(gw_wake "$1.localhost")
	[ -n "$r" ] || return 1
	echo "$r" >>"$B/running.$1"
	echo $((v - r)) >>"$B/added.$1"
	v=$(gw_wake "$2.localhost")
	[ -n "$v" ] || return 1
	echo "$v" >>"$B/stopped.$2"
}

: >"$B/frozen.frzp"
: >"$B/running.frzp"
: >"$B/added.frzp"
: >"$B/stopped.stpp"
note "part 13: $ROUNDS process wakes from frozen and from stopped"
gw_wake frzp.localhost >/dev/null
gw_wake stpp.localhost >/dev/null
for i in $(seq 1 "$ROUNDS"); do
	round frzp stpp "$SPORT" || die "process round $i failed: $(cat "$B/herd.out")"
done
: >"$B/frozen.frzg"
: >"$B/running.frzg"
: >"$B/added.frzg"
: >"$B/stopped.stpg"
if [ -z "$GUNI_WHY" ]; then
	note "part 13: $ROUNDS gunicorn wakes from frozen and from stopped"
	gw_wake frzg.localhost >/dev/null
	gw_wake stpg.localhost >/dev/null
	for i in $(seq 1 "$ROUNDS"); do
		round frzg stpg "$GSPORT" ||
		    { GUNI_WHY="gunicorn round $i failed"; break; }
	done
fi
: >"$B/frozen.frzc"
: >"$B/running.frzc"
: >"$B/added.frzc"
: >"$B/stopped.stpc"
if [ -z "$DOCKER_WHY" ]; then
	note "part 13: $ROUNDS container wakes from paused and from stopped"
	gw_wake frzc.localhost >/dev/null
	gw_wake stpc.localhost >/dev/null
	for i in $(seq 1 "$ROUNDS"); do
		round frzc stpc "$CSPORT" ||
		    { DOCKER_WHY="container round $i failed"; break; }
	done
fi
stop_orchd

ms_of() { awk '{printf "%.2f", $1 / 1000}'; }
summary() {	# summary LABEL FILE
	printf '%-36s %8s %8s %8s %5s' "$1" "$(pctl 50 <"$2" | ms_of)" \
	    "$(pctl 99 <"$2" | ms_of)" "$(sort -g "$2" | tail -n 1 | ms_of)" \
	    "$(wc -l <"$2")"
}
out ""
out "== 13. Wake from frozen vs from stopped: $ROUNDS wakes each (ms)"
out "$(printf '%-36s %8s %8s %8s %5s' '' p50 p99 max n)"
out "$(summary "process: wake from frozen" "$B/frozen.frzp")"
out "$(summary "process: the same, running" "$B/running.frzp")"
out "$(summary "process: frozen adds (per round)" "$B/added.frzp")"
out "$(summary "process: wake from stopped" "$B/stopped.stpp")"
out "$(printf '%-36s %8s x faster (p50)' "process: frozen" \
    "$(ratio "$(pctl 50 <"$B/stopped.stpp")" "$(pctl 50 <"$B/frozen.frzp")")")"
if [ -s "$B/frozen.frzg" ] && [ -z "$GUNI_WHY" ]; then
	out "$(summary "gunicorn, slow app: wake from frozen" "$B/frozen.frzg")"
	out "$(summary "gunicorn, slow app: wake from stopped" "$B/stopped.stpg")"
	out "$(printf '%-36s %8s x faster (p50)' "gunicorn: frozen" \
	    "$(ratio "$(pctl 50 <"$B/stopped.stpg")" "$(pctl 50 <"$B/frozen.frzg")")")"
else
	out "gunicorn: skipped: $GUNI_WHY"
fi
if [ -s "$B/frozen.frzc" ] && [ -z "$DOCKER_WHY" ]; then
	out "$(summary "container: wake from paused" "$B/frozen.frzc")"
	out "$(summary "container: the same, running" "$B/running.frzc")"
	out "$(summary "container: paused adds (per round)" "$B/added.frzc")"
	out "$(summary "container: wake from stopped" "$B/stopped.stpc")"
	out "$(printf '%-36s %8s x faster (p50)' "container: paused" \
	    "$(ratio "$(pctl 50 <"$B/stopped.stpc")" "$(pctl 50 <"$B/frozen.frzc")")")"
else
	out "container: skipped: $DOCKER_WHY"
fi
for f in frozen.frzp running.frzp stopped.stpp frozen.frzg stopped.stpg \
    frozen.frzc running.frzc stopped.stpc; do
	echo "   raw: $f us: $(tr '\n' ' ' <"$B/$f")" >>"$RESULTS"
done
exit 0
