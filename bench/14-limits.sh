#!/bin/bash
# 14. The gateway's latency beside a workload that spins on both cores.
# The backend nginx behind gatewayd (a keep warm workload, as in part 1),
# measured with wrk -c1 (p99 of one connection's requests) three ways in
# each round: nothing else running; a process workload "spin" awake whose
# two busy loops are pinned one to each CPU, with no limit of its own
# (only the workloads' common cgroup's weight keeps it behind the
# daemons: orchd.conf(5) "cpu"); the same with "cpu 1".  ROUNDS rounds
# (3; quick 1) of SECS seconds (5; quick 2).  The figures: the medians of
# the p99s and their ratios to the unloaded one; the issue's goal is a
# ratio under 1.5.  Measurements, not a test: nothing passes or fails.
#
#	bench/14-limits.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
SPORT=$WAKE_PORT		# spin, no limit
CPORT=$((WAKE_PORT + 1))	# spin, cpu 1
check_ports "$BACKEND_PORT" "$GW_PORT" "$SPORT" "$CPORT"
start_backend

W=$B/limits
mkdir -p "$W"
# two busy loops, one on each CPU, beside a server
cat >"$B/spin.sh" <<'EOF'
#!/bin/sh
taskset -c 0 sh -c 'while :; do :; done' &
taskset -c 1 sh -c 'while :; do :; done' &
exec /bin/busybox httpd -f -p "127.0.0.1:$1" -h /var/empty
EOF
chmod a+rx "$B/spin.sh"
{
	orchd_globals "$W"
	orchd_backend_workload
	cat <<EOF
workload "spin" {
	host "spin.localhost"
	command "/bin/sh $B/spin.sh $SPORT"
	port $SPORT
	stop timeout 1s
}
workload "spincap" {
	host "spincap.localhost"
	command "/bin/sh $B/spin.sh $CPORT"
	port $CPORT
	cpu 1
	stop timeout 1s
}
EOF
} >"$W/orchd.conf"
start_orchd "$W"
ctl() { "$ORCHCTL" -s "$W/orchd.sock" "$@" >/dev/null 2>&1; }
wait_for 30 port_open "$BACKEND_PORT" || die "backend not up"
URL=http://127.0.0.1:$GW_PORT/

# one wrk run; its p99 (microseconds) to FILE
measure() {
	wrk_run "$URL" 1 "$B/wrk.out"
	p=$(wrk_field "$B/wrk.out" p99)
	[ -n "$p" ] || die "wrk: $(cat "$B/wrk.out")"
	echo "$p" >>"$1"
}
# loaded NAME PORT FILE: measured while NAME spins
loaded() {
	ctl wake "$1" || die "wake $1 failed"
	wait_for 30 port_open "$2" || die "$1 not up"
	sleep 1
	measure "$3"
	ctl suspend "$1"
	wait_for 30 port_free "$2" || die "$1 not down"
}

: >"$B/p99.idle"
: >"$B/p99.spin"
: >"$B/p99.cap"
note "part 14: $ROUNDS rounds of $SECS s: unloaded, spin, spin with cpu 1"
measure "$B/p99.idle"	# warm-up, kept out
: >"$B/p99.idle"
for i in $(seq 1 "$ROUNDS"); do
	measure "$B/p99.idle"
	loaded spin "$SPORT" "$B/p99.spin"
	loaded spincap "$CPORT" "$B/p99.cap"
done
stop_orchd

us_ms() { awk '{printf "%.3f", $1 / 1000}'; }
idle=$(median <"$B/p99.idle")
spin=$(median <"$B/p99.spin")
cap=$(median <"$B/p99.cap")
out ""
out "== 14. gatewayd p99 beside a workload spinning on both cores" \
    "(wrk -c1, $ROUNDS x ${SECS}s)"
out "$(printf '%-40s %10s %8s' '' 'p99 ms' 'x idle')"
out "$(printf '%-40s %10s %8s' 'unloaded' "$(echo "$idle" | us_ms)" 1.00)"
out "$(printf '%-40s %10s %8s' 'spin: no limit (weight only)' \
    "$(echo "$spin" | us_ms)" "$(ratio "$spin" "$idle")")"
out "$(printf '%-40s %10s %8s' 'spin: cpu 1' "$(echo "$cap" | us_ms)" \
    "$(ratio "$cap" "$idle")")"
out "raw p99 us: idle $(tr '\n' ' ' <"$B/p99.idle")| spin $(tr '\n' ' ' \
    <"$B/p99.spin")| cpu 1 $(tr '\n' ' ' <"$B/p99.cap")"
