#!/bin/bash
# 2. Wake latency.  A tiny process workload, busybox httpd, woken by a
# request through the gateway (orchctl suspend puts it back to sleep
# before each one), against the same program's raw start measured by
# bench/spawnwait.c: from fork() to the first complete 200, retrying the
# connection every 1 ms.  Then the same for a container (driver docker)
# against `docker start` to the first 200, and against the start alone
# (one POST of the Engine API by curl: what `docker start` costs less
# the docker command's own start, the floor of any wake that starts a
# container).  Raw, API and gateway take turns,
# one wake each, for BENCH_WAKES rounds (20; quick 5).  The figure that
# matters is the difference of the medians.
#
# Containers use the host's network (network host: the bridge has no
# working port publishing on every machine), raw and through orchd alike,
# and Docker's init (docker run --init; orchd's default, "init yes").
# Their command is a shell that exits on SIGTERM.  Then the stop of a
# container whose command, busybox httpd, would ignore SIGTERM as PID 1:
# `docker stop -t 10` of it without an init, once (it takes the 10 s),
# then STOPS rounds (5; quick 3) of `docker stop -t 10` of it with
# --init against `orchctl suspend` of the same as a workload with orchd's
# defaults.  The container part runs when docker answers, the image
# orchd-test/busybox is there (regress/docker-image.sh) and orchd wakes
# the container; otherwise it says "skipped: " and why.
#
#	bench/02-wake.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
if [ -n "$QUICK" ]; then
	WAKES=${BENCH_WAKES:-5}
	STOPS=3
else
	WAKES=${BENCH_WAKES:-20}
	STOPS=5
fi
CPORT=$((WAKE_PORT + 1))	# the container of the wake loop
SPORT=$((WAKE_PORT + 3))	# the container whose PID 1 ignores SIGTERM
check_ports "$GW_PORT" "$WAKE_PORT" "$CPORT" "$SPORT"

mkdir -p "$B/www"
echo "awake" >"$B/www/index.html"
chmod -R a+rX "$B/www"

# is the docker part possible?
DOCKER_WHY=
if ! command -v docker >/dev/null 2>&1; then
	DOCKER_WHY="no docker command"
elif ! timeout 10 docker info >/dev/null 2>&1; then
	DOCKER_WHY="docker info fails (no daemon?)"
elif ! docker image inspect orchd-test/busybox >/dev/null 2>&1; then
	DOCKER_WHY="no image orchd-test/busybox (sh regress/docker-image.sh)"
fi
CRAW=orchd-bench-raw-$$		# ours, made with docker create
SRAW=orchd-bench-stop-$$
CCMD="trap exit TERM; httpd -f -p 127.0.0.1:$CPORT -h /www & wait"

W=$B/wake
mkdir -p "$W"
{
	orchd_globals "$W"
	cat <<EOF
workload "wake" {
	host "wake.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$WAKE_PORT -h $B/www"
	port $WAKE_PORT
	idle timeout 1h
}
EOF
	[ -z "$DOCKER_WHY" ] && cat <<EOF
workload "benchwakec" {
	host "wakec.localhost"
	driver docker
	image "orchd-test/busybox"
	command "sh -c '$CCMD'"
	network host
	port $CPORT
	volume "$B/www" "/www"
	idle timeout 1h
}
workload "benchstopc" {
	host "stopc.localhost"
	driver docker
	image "orchd-test/busybox"
	command "httpd -f -p 127.0.0.1:$SPORT -h /www"
	network host
	port $SPORT
	volume "$B/www" "/www"
	idle timeout 1h
}
EOF
} >"$W/orchd.conf"
if [ -z "$DOCKER_WHY" ] && ! "$ORCHD" -n -f "$W/orchd.conf" >"$B/n.out" 2>&1; then
	DOCKER_WHY="orchd -n refuses the docker workloads: $(head -n 1 "$B/n.out")"
	sed -i '/^workload "benchwakec"/,$d' "$W/orchd.conf"
fi
if [ -z "$DOCKER_WHY" ]; then
	# the containers are ours: the raw ones and those orchd makes,
	# orchd-INSTANCE-NAME, as orchd_globals names the instance
	n=$(printf '%s' "$W" | cksum | cut -d ' ' -f 1)
	for c in "$CRAW" "$SRAW" "orchd-bench-$(basename "$W")-$n-benchwakec" \
	    "orchd-bench-$(basename "$W")-$n-benchstopc"; do
		at_exit docker rm -f "$c"
	done
fi
start_orchd "$W"

state_of() {	# state_of NAME
	"$ORCHCTL" -s "$W/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is_asleep() { [ "$(state_of "$1")" = asleep ]; }

# put_to_sleep NAME PORT: orchctl suspend (its wall time appended to
# $B/suspend.NAME), bounded; the port must close
put_to_sleep() {
	if ! is_asleep "$1"; then
		t0=$(now_ns)
		timeout 60 "$ORCHCTL" -s "$W/orchd.sock" suspend "$1" \
		    >>"$B/ctl.log" 2>&1 || return 1
		echo $((($(now_ns) - t0) / 1000)) >>"$B/suspend.$1"
	fi
	wait_for 30 is_asleep "$1" || return 1
	wait_for 30 port_free "$2"
}

# gw_wake HOST: one request through the gateway, in microseconds
gw_wake() {
	taskset -c "$CCPU" "$B/herd" -n 1 -t 60 -H "$1" "$GW_PORT" >"$B/herd.out"
	sed -n 's/.* last_us=\([0-9]*\).*/\1/p' "$B/herd.out"
}

ms_of() { awk '{printf "%.1f", $1 / 1000}'; }
summary() {	# summary LABEL FILE
	printf '%-38s %8s %8s %8s %5s' "$1" \
	    "$(pctl 50 <"$2" | ms_of)" "$(pctl 90 <"$2" | ms_of)" \
	    "$(sort -g "$2" | tail -n 1 | ms_of)" "$(wc -l <"$2")"
}

# ---- process ----
: >"$B/raw.proc"
: >"$B/gw.proc"
put_to_sleep wake "$WAKE_PORT" || die "cannot suspend the workload wake"
note "part 2: $WAKES process wakes, raw and through the gateway"
for i in $(seq 1 "$WAKES"); do
	# A: the raw start, the server pinned like orchd's workloads
	taskset -c "$CCPU" "$B/spawnwait" -c "$SCPU" -u _orchd "$WAKE_PORT" -- \
	    /bin/busybox httpd -f -p "127.0.0.1:$WAKE_PORT" -h "$B/www" \
	    >>"$B/raw.proc" || die "spawnwait failed"
	wait_for 10 port_free "$WAKE_PORT"
	# B: a held request through the gateway
	v=$(gw_wake wake.localhost)
	[ -n "$v" ] || die "wake through the gateway failed: $(cat "$B/herd.out")"
	echo "$v" >>"$B/gw.proc"
	put_to_sleep wake "$WAKE_PORT" || die "cannot suspend the workload wake"
done

# ---- container ----
# after each stop, a pause before the next start: Docker tidies a
# stopped container's task after its stop has answered, and a start
# right behind that, of whichever target, is slower
settle() { sleep 0.3; }
: >"$B/raw.ctr"
: >"$B/api.ctr"
: >"$B/gw.ctr"
# the start alone, without the docker command's own start: one POST of
# the Engine API by curl, where the daemon's socket is the default one
DOCKER_SOCK=
case "${DOCKER_HOST:-}" in
"")		DOCKER_SOCK=/var/run/docker.sock ;;
unix://*)	DOCKER_SOCK=${DOCKER_HOST#unix://} ;;
esac
[ -n "$DOCKER_SOCK" ] && [ -S "$DOCKER_SOCK" ] || DOCKER_SOCK=
: >"$B/suspend.benchwakec"
if [ -z "$DOCKER_WHY" ]; then
	docker create --name "$CRAW" --init --network host \
	    -v "$B/www:/www:ro" orchd-test/busybox sh -c "$CCMD" >/dev/null ||
	    DOCKER_WHY="docker create failed"
fi
if [ -z "$DOCKER_WHY" ]; then
	# does orchd start containers at all?
	v=$(gw_wake wakec.localhost)
	if [ -z "$v" ]; then
		DOCKER_WHY="orchd did not wake the container: $(cat "$B/herd.out");"
		DOCKER_WHY="$DOCKER_WHY $(grep 'benchwakec' "$W/orchd.log" | tail -n 1)"
	elif ! put_to_sleep benchwakec "$CPORT"; then
		DOCKER_WHY="orchd did not suspend the container"
	fi
	: >"$B/suspend.benchwakec"
fi
if [ -z "$DOCKER_WHY" ]; then
	note "part 2: $WAKES container wakes, raw and through the gateway"
	for i in $(seq 1 "$WAKES"); do
		taskset -c "$CCPU" "$B/spawnwait" -x "$CPORT" -- \
		    "$(command -v docker)" start "$CRAW" >>"$B/raw.ctr" ||
		    { DOCKER_WHY="raw docker start failed"; break; }
		docker stop -t 10 "$CRAW" >/dev/null 2>&1
		wait_for 10 port_free "$CPORT"
		settle
		if [ -n "$DOCKER_SOCK" ]; then
			taskset -c "$CCPU" "$B/spawnwait" -x "$CPORT" -- \
			    "$(command -v curl)" -sf --unix-socket \
			    "$DOCKER_SOCK" -X POST \
			    "http://docker/containers/$CRAW/start" \
			    >>"$B/api.ctr" || DOCKER_SOCK=
			docker stop -t 10 "$CRAW" >/dev/null 2>&1
			wait_for 10 port_free "$CPORT"
			settle
		fi
		v=$(gw_wake wakec.localhost)
		[ -n "$v" ] || { DOCKER_WHY="container wake failed: $(cat "$B/herd.out")"; break; }
		echo "$v" >>"$B/gw.ctr"
		put_to_sleep benchwakec "$CPORT" ||
		    { DOCKER_WHY="cannot suspend the container"; break; }
		settle
	done
fi
# raw_stop FILE [DOCKER-RUN-OPTION]: run busybox httpd in a container,
# time its docker stop -t 10 into FILE, remove it
raw_stop() {
	docker run -d --name "$SRAW" ${2:+"$2"} --network host \
	    -v "$B/www:/www:ro" orchd-test/busybox \
	    httpd -f -p "127.0.0.1:$SPORT" -h /www >/dev/null
	if wait_for 10 port_open "$SPORT"; then
		t0=$(now_ns)
		docker stop -t 10 "$SRAW" >/dev/null 2>&1
		echo $((($(now_ns) - t0) / 1000)) >>"$1"
	fi
	docker rm -f "$SRAW" >/dev/null 2>&1
	wait_for 10 port_free "$SPORT"
}

# the stop of a command that ignores SIGTERM as PID 1
STOP_WHY=
: >"$B/stop.raw"
: >"$B/stop.rawinit"
: >"$B/suspend.benchstopc"
if [ -z "$DOCKER_WHY" ]; then
	note "part 2: container stops, PID 1 ignoring SIGTERM"
	raw_stop "$B/stop.raw"
	for i in $(seq 1 "$STOPS"); do
		raw_stop "$B/stop.rawinit" --init
		v=$(gw_wake stopc.localhost)
		if [ -z "$v" ]; then
			STOP_WHY="orchd did not wake benchstopc"
			break
		fi
		put_to_sleep benchstopc "$SPORT" ||
		    { STOP_WHY="orchd did not suspend benchstopc"; break; }
	done
fi
stop_orchd

out ""
out "== 2. Wake latency: $WAKES wakes each, raw and gateway interleaved (ms)"
out "$(printf '%-38s %8s %8s %8s %5s' '' p50 p90 max n)"
out "$(summary "process: raw spawn to first 200" "$B/raw.proc")"
out "$(summary "process: wake through gatewayd" "$B/gw.proc")"
d=$(awk -v a="$(median <"$B/gw.proc")" -v b="$(median <"$B/raw.proc")" \
    'BEGIN {printf "%.1f", (a - b) / 1000}')
out "$(printf '%-38s %8s ms   (target <= 5 ms)' "process: wake adds (median)" "$d")"
[ -s "$B/suspend.wake" ] &&
    out "$(summary "process: orchctl suspend" "$B/suspend.wake")"
if [ -s "$B/gw.ctr" ]; then
	out "$(summary "container: docker start to first 200" "$B/raw.ctr")"
	[ -s "$B/api.ctr" ] &&
	    out "$(summary "container: API start (curl) to first 200" "$B/api.ctr")"
	out "$(summary "container: wake through gatewayd" "$B/gw.ctr")"
	d=$(awk -v a="$(median <"$B/gw.ctr")" -v b="$(median <"$B/raw.ctr")" \
	    'BEGIN {printf "%.1f", (a - b) / 1000}')
	out "$(printf '%-38s %8s ms   (target <= 20 ms)' "container: wake adds (median)" "$d")"
	out "$(printf '%-38s %8s x    (issue 33: <= 0.8)' \
	    "container: wake / docker start (p50)" \
	    "$(ratio "$(median <"$B/gw.ctr")" "$(median <"$B/raw.ctr")")")"
	if [ -s "$B/api.ctr" ]; then
		d=$(awk -v a="$(median <"$B/gw.ctr")" \
		    -v b="$(median <"$B/api.ctr")" \
		    'BEGIN {printf "%.1f", (a - b) / 1000}')
		out "$(printf '%-38s %8s ms' \
		    "container: wake over the API start" "$d")"
	fi
	out "$(summary "container: orchctl suspend (sh command)" "$B/suspend.benchwakec")"
fi
[ -n "$DOCKER_WHY" ] && out "container: skipped: $DOCKER_WHY"
if [ -s "$B/stop.raw" ] || [ -s "$B/suspend.benchstopc" ]; then
	out "container running busybox httpd, which ignores SIGTERM as PID 1:"
	[ -s "$B/stop.raw" ] &&
	    out "$(summary "  docker stop -t 10, no init" "$B/stop.raw")"
	[ -s "$B/stop.rawinit" ] &&
	    out "$(summary "  docker stop -t 10, --init" "$B/stop.rawinit")"
	[ -s "$B/suspend.benchstopc" ] &&
	    out "$(summary "  orchctl suspend (default: init)" \
	    "$B/suspend.benchstopc")"
fi
[ -n "$STOP_WHY" ] && out "container stop: skipped: $STOP_WHY"
{
	echo "   raw: process raw us: $(tr '\n' ' ' <"$B/raw.proc")"
	echo "   raw: process gateway us: $(tr '\n' ' ' <"$B/gw.proc")"
	echo "   raw: container raw us: $(tr '\n' ' ' <"$B/raw.ctr")"
	echo "   raw: container API start us: $(tr '\n' ' ' <"$B/api.ctr")"
	echo "   raw: container gateway us: $(tr '\n' ' ' <"$B/gw.ctr")"
	echo "   raw: stop, no init us: $(tr '\n' ' ' <"$B/stop.raw")"
	echo "   raw: stop, --init us: $(tr '\n' ' ' <"$B/stop.rawinit")"
	echo "   raw: orchctl suspend us: $(tr '\n' ' ' <"$B/suspend.benchstopc")"
} >>"$RESULTS"
exit 0
