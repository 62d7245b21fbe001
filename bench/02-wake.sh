#!/bin/bash
# 2. Wake latency.  A tiny process workload, busybox httpd, woken by a
# request through the gateway (orchctl suspend puts it back to sleep
# before each one), against the same program's raw start measured by
# bench/spawnwait.c: from fork() to the first complete 200, retrying the
# connection every 1 ms.  Then the same for a container (driver docker)
# against `docker start` to first response.  Raw and gateway take turns,
# one wake each, for BENCH_WAKES rounds (20; quick 5).  The figure that
# matters is the difference of the medians.
#
# Containers use the host's network (network host; the bridge has no
# working port publishing on every machine), both raw and through orchd.
# The container part runs when docker answers, the image
# orchd-test/busybox is there (regress/docker-image.sh) and orchd starts
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
else
	WAKES=${BENCH_WAKES:-20}
fi
CPORT=$((WAKE_PORT + 1))
check_ports "$GW_PORT" "$WAKE_PORT" "$CPORT"

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
CNAME_RAW=orchd-bench-raw-$$
CNAME_ORCHD=orchd-benchwakec

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
	command "httpd -f -p 127.0.0.1:$CPORT -h /www"
	network host
	port $CPORT
	volume "$B/www" "/www"
	idle timeout 1h
}
EOF
} >"$W/orchd.conf"
if [ -z "$DOCKER_WHY" ] && ! "$ORCHD" -n -f "$W/orchd.conf" >"$B/n.out" 2>&1; then
	DOCKER_WHY="orchd -n refuses a docker workload: $(head -n 1 "$B/n.out")"
	sed -i '/^workload "benchwakec"/,$d' "$W/orchd.conf"
fi
start_orchd "$W"

state_of() {	# state_of NAME
	"$ORCHCTL" -s "$W/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is_asleep() { [ "$(state_of "$1")" = asleep ]; }

# put_to_sleep NAME PORT: orchctl suspend, bounded; the port must close
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

summary() {	# summary LABEL FILE
	printf '%-34s %8s %8s %8s %5s' "$1" \
	    "$(pctl 50 <"$2" | awk '{printf "%.1f", $1 / 1000}')" \
	    "$(pctl 90 <"$2" | awk '{printf "%.1f", $1 / 1000}')" \
	    "$(sort -g "$2" | tail -n 1 | awk '{printf "%.1f", $1 / 1000}')" \
	    "$(wc -l <"$2")"
}

# ---- process ----
: >"$B/raw.proc"
: >"$B/gw.proc"
put_to_sleep wake "$WAKE_PORT" || die "cannot suspend the workload wake"
note "part 2: $WAKES process wakes, raw and through the gateway"
for i in $(seq 1 "$WAKES"); do
	# A: the raw start, pinned like orchd's workloads
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
if [ -z "$DOCKER_WHY" ]; then
	: >"$B/raw.ctr"
	: >"$B/gw.ctr"
	docker rm -f "$CNAME_RAW" >/dev/null 2>&1
	at_exit docker rm -f "$CNAME_RAW"
	at_exit docker rm -f "$CNAME_ORCHD"
	docker create --name "$CNAME_RAW" --network host \
	    -v "$B/www:/www:ro" orchd-test/busybox \
	    httpd -f -p "127.0.0.1:$CPORT" -h /www >/dev/null ||
	    DOCKER_WHY="docker create failed"
fi
if [ -z "$DOCKER_WHY" ]; then
	# does orchd start containers at all?
	v=$(gw_wake wakec.localhost)
	if [ -z "$v" ]; then
		DOCKER_WHY="orchd did not wake the container: $(cat "$B/herd.out")"
	elif ! put_to_sleep benchwakec "$CPORT"; then
		DOCKER_WHY="orchd did not suspend the container"
	fi
fi
if [ -z "$DOCKER_WHY" ]; then
	note "part 2: $WAKES container wakes, raw and through the gateway"
	: >"$B/suspend.benchwakec"
	for i in $(seq 1 "$WAKES"); do
		taskset -c "$CCPU" "$B/spawnwait" -x "$CPORT" -- \
		    "$(command -v docker)" start "$CNAME_RAW" >>"$B/raw.ctr" ||
		    { DOCKER_WHY="raw docker start failed"; break; }
		t0=$(now_ns)
		docker stop -t 10 "$CNAME_RAW" >/dev/null 2>&1
		echo $((($(now_ns) - t0) / 1000)) >>"$B/stop.raw"
		wait_for 10 port_free "$CPORT"
		v=$(gw_wake wakec.localhost)
		[ -n "$v" ] || { DOCKER_WHY="container wake failed: $(cat "$B/herd.out")"; break; }
		echo "$v" >>"$B/gw.ctr"
		put_to_sleep benchwakec "$CPORT" ||
		    { DOCKER_WHY="cannot suspend the container"; break; }
	done
fi
stop_orchd

out ""
out "== 2. Wake latency: $WAKES wakes each, raw and gateway interleaved (ms)"
out "$(printf '%-34s %8s %8s %8s %5s' '' p50 p90 max n)"
out "$(summary "process: raw spawn to first 200" "$B/raw.proc")"
out "$(summary "process: wake through gatewayd" "$B/gw.proc")"
d=$(awk -v a="$(median <"$B/gw.proc")" -v b="$(median <"$B/raw.proc")" \
    'BEGIN {printf "%.1f", (a - b) / 1000}')
out "$(printf '%-34s %8s ms   (target <= 5 ms)' "process: wake adds (median)" "$d")"
[ -s "$B/suspend.wake" ] &&
    out "$(summary "process: orchctl suspend" "$B/suspend.wake")"
if [ -z "$DOCKER_WHY" ]; then
	out "$(summary "container: docker start to first 200" "$B/raw.ctr")"
	out "$(summary "container: wake through gatewayd" "$B/gw.ctr")"
	d=$(awk -v a="$(median <"$B/gw.ctr")" -v b="$(median <"$B/raw.ctr")" \
	    'BEGIN {printf "%.1f", (a - b) / 1000}')
	out "$(printf '%-34s %8s ms   (target <= 20 ms)' "container: wake adds (median)" "$d")"
	out "$(summary "container: docker stop -t 10" "$B/stop.raw")"
	out "$(summary "container: orchctl suspend" "$B/suspend.benchwakec")"
else
	out "container: skipped: $DOCKER_WHY"
fi
{
	echo "   raw process us: $(tr '\n' ' ' <"$B/raw.proc")"
	echo "   gateway process us: $(tr '\n' ' ' <"$B/gw.proc")"
	[ -s "${B}/raw.ctr" ] && echo "   raw container us: $(tr '\n' ' ' <"$B/raw.ctr")"
	[ -s "${B}/gw.ctr" ] && echo "   gateway container us: $(tr '\n' ' ' <"$B/gw.ctr")"
} >>"$RESULTS" 2>/dev/null
exit 0
