#!/bin/bash
# 9. The memory budget.  40 process workloads (testhttp, each allocating
# and writing 30 to 60 MiB before it listens), a request trace with Zipf
# popularity and bursts (bench/trace.c: Poisson arrivals at 8/s, Zipf
# s = 1 over a fixed shuffle of the workloads, and every 25 s a crawler
# asking 16 distinct ones within 500 ms), replayed against
#  (a) the idle timeout alone (30 s), which overcommits, and
#  (b) the same with "memory budget 384M", 8 of the average workload,
#  (c) as (b) with "suspend freeze" (issue 33's freeze tier: an idle
#      workload frozen, keeping its memory and its charge, stopped when
#      the budget needs room, frozen ones first),
# orchd and its workloads inside one memory cgroup (v1: the workloads'
# own cgroups nest in orchd's) limited to the budget, orchd's footprint
# and 16 MiB, and no swap: what overcommit costs on a small host.
# For each: wakes per 1,000 requests, p50/p99/max latency, the cgroup's
# peak and the workloads' sampled peak, OOM kills (the kernel's log,
# the cgroup named), the wakes that waited and for how long.
# BENCH_BUDGET_SECONDS (150; quick 60) of trace per mode;
# BENCH_BUDGET_IDLE the idle timeout of every mode (30s): the freeze
# tier acts at idle suspends only, which a short one makes many.
#
#	bench/09-budget.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
cc -O2 -Wall -o "$B/trace" "$BENCH_DIR/trace.c" -lm ||
    die "cannot build trace"
cc -O2 -Wall -o "$B/testhttp" "$TOP/regress/e2e/testhttp.c" ||
    die "cannot build testhttp"
chmod 0755 "$B/testhttp"

N=40
if [ -n "$QUICK" ]; then
	TSECS=${BENCH_BUDGET_SECONDS:-60}
else
	TSECS=${BENCH_BUDGET_SECONDS:-150}
fi
IDLE=${BENCH_BUDGET_IDLE:-30s}
BUDGET_MIB=384
SLACK_MIB=16
SEED=${BENCH_BUDGET_SEED:-1}
WPORT0=$((PORT0 + 100))
ports=
for i in $(seq 0 $((N - 1))); do ports="$ports $((WPORT0 + i))"; done
check_ports "$GW_PORT" $ports

[ -d /sys/fs/cgroup/memory ] || die "needs the cgroup v1 memory hierarchy"
cg_own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
CGP=/sys/fs/cgroup/memory${cg_own%/}
CG=$CGP/orchd-bench-budget-$$
mkdir "$CG" || die "cannot make $CG"
at_exit "for p in \$(cat $CG/cgroup.procs); do echo \$p >$CGP/cgroup.procs; done; find $CG -depth -type d -exec rmdir {} \\;"

size_mib() { echo $((30 + ($1 * 13) % 31)); }

write_conf() {	# write_conf DIR [GLOBAL-LINE]
	{
		orchd_globals "$1"
		cat <<EOF
idle timeout $IDLE
reaper interval 2s
wake timeout 30s
memory estimate 64M
$2
EOF
		for i in $(seq 0 $((N - 1))); do
			name=$(printf 'w%02d' "$i")
			cat <<EOF
workload "$name" {
	host "$name.bench"
	command "$B/testhttp serve $((WPORT0 + i))"
	port $((WPORT0 + i))
	env "TESTHTTP_ALLOC=$(size_mib "$i")"
}
EOF
		done
	} >"$1/orchd.conf"
}

# orchd in the cgroup, on the server CPU
start_in_cg() {
	d=$1
	chmod 0755 "$d"
	taskset -c "$SCPU" sh -c 'echo $$ >"$1/cgroup.procs" && shift &&
	    exec "$@"' sh "$CG" "$ORCHD" -d -f "$d/orchd.conf" \
	    >>"$d/orchd.log" 2>&1 &
	ORCHD_PID=$!
	track "$ORCHD_PID"
	wait_for 30 "$ORCHCTL" -s "$d/orchd.sock" show summary || {
		tail -n 20 "$d/orchd.log" >&2
		die "orchd did not start"
	}
}

# the workloads' own cgroups, summed, every half second: their peak
sampler() {
	m=0
	while [ -e "$B/sampling" ]; do
		v=$(cat "$CG"/orchd/*/*/memory.usage_in_bytes 2>/dev/null |
		    awk '{ s += $1 } END { print s + 0 }')
		[ "$v" -gt "$m" ] && m=$v && echo "$m" >"$B/wl.peak"
		sleep 0.5
	done
}

"$B/trace" gen -n "$N" -d "$TSECS" -r 8 -z 1 -b 25 -w 16 -s "$SEED" \
    >"$B/trace.txt"
NREQ=$(wc -l <"$B/trace.txt")

LIMIT=
run_mode() {	# run_mode NAME [GLOBAL-LINE]
	mode=$1
	d=$B/orchd-$mode
	mkdir -p "$d"
	write_conf "$d" "${2:-}"
	echo -1 >"$CG/memory.limit_in_bytes"
	start_in_cg "$d"
	sleep 2
	foot=$(cat "$CG/memory.usage_in_bytes")
	# the same limit for both modes: the first one's footprint
	if [ -z "$LIMIT" ]; then
		FOOT_MIB=$((foot / 1048576))
		LIMIT=$((foot + (BUDGET_MIB + SLACK_MIB) * 1048576))
	fi
	echo "$LIMIT" >"$CG/memory.limit_in_bytes" ||
	    die "cannot limit $CG"
	echo 0 >"$CG/memory.max_usage_in_bytes"
	# the kernel's clock: its log's lines after it are this run's
	dm0=$(awk '{ print $1 }' /proc/uptime)
	: >"$B/sampling"
	echo 0 >"$B/wl.peak"
	taskset -c "$CCPU" bash -c "$(declare -f sampler); B=$B CG=$CG sampler" &
	sp=$!
	track "$sp"
	taskset -c "$CCPU" "$B/trace" replay -t 60 "$GW_PORT" \
	    <"$B/trace.txt" >"$B/res.$mode"
	rm -f "$B/sampling"
	wait "$sp" 2>/dev/null
	peak=$(cat "$CG/memory.max_usage_in_bytes")
	wlpeak=$(cat "$B/wl.peak")
	# OOM kills in this cgroup, from the kernel's log
	ooms=$(dmesg 2>/dev/null | awk -F'[][]' -v t="$dm0" '$2 + 0 > t' |
	    grep -c "oom_memcg=[^,]*orchd-bench-budget-$$,")
	kills=$(grep -c -- '-> failed (exited: killed by signal 9)' \
	    "$d/orchd.log")
	wakes=$(grep -c ' -> waking ' "$d/orchd.log")
	"$ORCHCTL" -s "$d/orchd.sock" -j show stats >"$B/stats.$mode" 2>&1
	alive=yes
	kill -0 "$ORCHD_PID" 2>/dev/null || alive=no
	stop_orchd
	echo -1 >"$CG/memory.limit_in_bytes"
	cp "$d/orchd.log" "$B/orchd.$mode.log"

	# the answers: every one with a status, by class; none: no answer
	ok=$(awk '$3 >= 200 && $3 < 300' "$B/res.$mode" | wc -l)
	e5=$(awk '$3 >= 500' "$B/res.$mode" | wc -l)
	e503=$(awk '$3 == 503' "$B/res.$mode" | wc -l)
	none=$(awk '$3 == 0' "$B/res.$mode" | wc -l)
	lat() { awk '$3 > 0 { print $4 / 1000 }' "$B/res.$mode" | pctl "$1"; }
	p50=$(lat 50)
	p99=$(lat 99)
	max=$(lat 100)
	p99ok=$(awk '$3 >= 200 && $3 < 300 { print $4 / 1000 }' \
	    "$B/res.$mode" | pctl 99)
	queue=$(python3 -c 'import json, sys
try:
	b = json.load(open(sys.argv[1])).get("budget", {})
except Exception:
	b = {}
n = b.get("waits_counted", 0)
print(b.get("waited", 0), b.get("wait_timeouts", 0),
    "%.0f" % (1000 * b.get("wait_seconds_sum", 0) / n) if n else "-",
    "%.0f" % (1000 * b.get("wait_seconds_max", 0)) if n else "-",
    b.get("suspends", {}).get("budget", 0),
    b.get("suspends", {}).get("idle", 0))' "$B/stats.$mode")
	set -- $queue
	out "$(printf '%-9s %5s %5s %4s %4s %4s %7s %7.0f %7.0f %7.0f %7.0f %6s %6s %5s %5s %6s %6s %7s %6s %6s %5s' \
	    "$mode" "$(wc -l <"$B/res.$mode")" "$ok" "$e5" "$e503" "$none" \
	    "$(awk -v w="$wakes" -v n="$NREQ" 'BEGIN { printf "%.0f", 1000 * w / n }')" \
	    "$p50" "$p99" "$p99ok" "$max" $((peak / 1048576)) \
	    $((wlpeak / 1048576)) "$ooms" "$kills" "$1" "$2" "$3" "$4" "$5" \
	    "$6")"
	out "   ($mode: of the wakes, $(grep -c 'frozen -> waking' \
	    "$d/orchd.log") thaws of a frozen one)"
	key=${mode//-/_}
	eval "P99_$key=$p99 P99OK_$key=$p99ok OOM_$key=$ooms"
	eval "WLPEAK_$key=$((wlpeak / 1048576))"
	{
		echo "   raw $mode: answers by status:"
		awk '{ print $3 }' "$B/res.$mode" | sort | uniq -c |
		    sed 's/^/   raw   /'
		echo "   raw $mode: orchd alive at the end: $alive; footprint at start $((foot / 1048576)) MiB"
	} >>"$RESULTS"
}

out ""
out "== 9. Memory budget: $N workloads of 30-60 MiB (testhttp, written), $NREQ requests over $TSECS s"
out "   (Poisson 8/s, Zipf s=1, a burst of 16 distinct every 25 s; seed $SEED), idle timeout $IDLE,"
out "   orchd and the workloads in one memory cgroup, no swap"
hdr=$(printf '%-9s %5s %5s %4s %4s %4s %7s %7s %7s %7s %7s %6s %6s %5s %5s %6s %6s %7s %6s %6s %5s' \
    mode reqs 2xx 5xx 503 none wakes/k p50_ms p99_ms p99_2xx max_ms peakMi \
    wlpkMi oom sig9 waited tmout waitms waitmx evict idle)
out "$hdr"
run_mode a-idle
out "   (limit $((LIMIT / 1048576)) MiB: the budget ${BUDGET_MIB} MiB, orchd's $FOOT_MIB MiB at start, $SLACK_MIB MiB)"
run_mode b-budget "memory budget ${BUDGET_MIB}M"
run_mode c-freeze "memory budget ${BUDGET_MIB}M
suspend freeze"
r=$(ratio "$P99_b_budget" "$P99_a_idle")
rok=$(ratio "$P99OK_b_budget" "$P99OK_a_idle")
out "   goals for (b): zero OOM kills: $([ "$OOM_b_budget" -eq 0 ] && echo met || echo "NOT met ($OOM_b_budget)");" \
    "the workloads' peak within the budget: $([ "$WLPEAK_b_budget" -le "$BUDGET_MIB" ] && echo met || echo "NOT met") ($WLPEAK_b_budget of $BUDGET_MIB MiB);"
out "   p99 <= 1.2x (a)'s: $(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 1.2) ? "met" : "NOT met" }') (${r}x of every answer's;" \
    "${rok}x of the 2xx answers')"
rf=$(ratio "$P99_c_freeze" "$P99_b_budget")
out "   freeze tier, (c) against (b): p99 ${rf}x ($(awk -v r="$rf" 'BEGIN { print (r != "-" && r < 1) ? "lower" : "NOT lower" }'));" \
    "OOM kills $OOM_c_freeze ($([ "$OOM_c_freeze" -eq 0 ] && echo met || echo "NOT met") issue 33's 0)"
out "   (wakes/k: wakes per 1,000 requests; latencies of the answered requests, p99_2xx of the"
out "    2xx ones only; peakMi: the cgroup's peak, orchd and page cache included; wlpkMi: the"
out "    workloads' cgroups summed, sampled every 0.5 s; oom: kills in the cgroup in the kernel's"
out "    log, which rate-limits them; sig9: workloads killed by SIGKILL, from orchd's log; waited,"
out "    tmout: wakes that waited for room and those answered 503 at their wake timeout, waitms"
out "    and waitmx their mean and longest wait; evict, idle: suspends for room and at the idle"
out "    timeout)"
