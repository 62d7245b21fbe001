#!/bin/bash
# 14. The wake path (issue 33): what a process wake adds over the
# workload's own start, before and after a change, in the same rounds.
#
# First bench/cgmove.c: the ways a child can join its cgroups on this
# host (cgroup.procs written by the child, by the parent while the child
# sets up, v1's tasks written by the child's one thread, a child forked
# and moved before the wake, and clone3 into a v2 cgroup), CGMOVE_ROUNDS
# rounds (200; quick 50), 60 ms apart so that each finds the kernel's
# lock as a wake does.  Then the figure: busybox httpd started raw
# (bench/spawnwait.c: fork+exec until the first complete 200, retried
# every 1 ms) and woken through the gateway by each target, one request
# (bench/herd.c), the targets in turns each round (raw base head, then
# base head raw, ...).  Targets: base, orchd built from the baseline
# (BENCH_BASE_BUILD=DIR, or BENCH_BASE=REF built here, default main), and
# head, this tree, on this host's default cgroups; with BENCH_WAKE_V2=1
# and a cgroup2 mount, the same two with ORCHD_CGROUP=v2 (clone3 into
# the cgroup).  WAKES rounds (BENCH_WAKES, 100; quick 20).  The figures:
# each target's p50 and p99, and what it adds over the raw start's.
#
#	bash bench/15-wakepath.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
HEAD_BUILD=$BUILD
if [ -n "$QUICK" ]; then
	WAKES=${BENCH_WAKES:-20}
	CGROUNDS=${CGMOVE_ROUNDS:-50}
else
	WAKES=${BENCH_WAKES:-100}
	CGROUNDS=${CGMOVE_ROUNDS:-200}
fi
cc -O2 -Wall -o "$B/cgmove" "$BENCH_DIR/cgmove.c" || die "cannot build cgmove"

# the baseline's binaries
if [ -n "${BENCH_BASE_BUILD:-}" ]; then
	BASE_BUILD=$BENCH_BASE_BUILD
else
	ref=${BENCH_BASE:-main}
	mkdir -p "$B/base"
	(cd "$TOP" && git archive "$ref") | tar -x -C "$B/base" ||
	    die "cannot export $ref"
	(cd "$B/base" && make -s all >"$B/base.log" 2>&1) ||
	    die "the baseline $ref did not build"
	BASE_BUILD=$B/base/build
fi
[ -x "$BASE_BUILD/orchd" ] || die "no $BASE_BUILD/orchd"

# the mounts: v1 freezer and memory, a cgroup2 one
mnt() { awk -v t="$1" -v o="$2" '$3 == t && (o == "" || $4 ~ "(^|,)" o "(,|$)") \
    {print $2; exit}' /proc/mounts; }
FREEZER=$(mnt cgroup freezer)
MEMORY=$(mnt cgroup memory)
V2=$(mnt cgroup2 "")
out "# part 15: load average at start $(cut -d' ' -f1-3 /proc/loadavg), nice $(nice)"
out "# part 15: base $BASE_BUILD ($(git -C "$BASE_BUILD/.." rev-parse \
    --short HEAD 2>/dev/null || echo "${BENCH_BASE:-main}")), head $HEAD_BUILD"
out "# part 15: cgroups: v1 freezer ${FREEZER:-none}, memory ${MEMORY:-none}, v2 ${V2:-none}"

# ---- the ways to join ----
if [ -n "$FREEZER" ] && [ -n "$MEMORY" ]; then
	note "part 15: cgmove, $CGROUNDS rounds"
	taskset -c "$SCPU" "$B/cgmove" -n "$CGROUNDS" -s 60 ${V2:+-2 "$V2"} \
	    "$FREEZER" "$MEMORY" >"$B/cgmove.out" || die "cgmove failed"
	out ""
	out "== 14. Joining the cgroups: fork to ready to exec (prefork: wake word to ready; premove: its move, before), us"
	out "$(grep -v '^raw:' "$B/cgmove.out")"
	grep '^raw:' "$B/cgmove.out" | sed 's/^/   /' >>"$RESULTS"
else
	out "cgmove: skipped: no v1 freezer and memory hierarchies"
fi

# ---- the wakes ----
TARGETS="raw base head"
[ -n "${BENCH_WAKE_V2:-}" ] && [ -n "$V2" ] && TARGETS="$TARGETS base2 head2"
i=0
for t in $TARGETS; do
	eval "GWP_$t=$((PORT0 + 60 + i))"
	eval "WLP_$t=$((PORT0 + 70 + i))"
	i=$((i + 1))
done
RAWP=$WLP_raw
mkdir -p "$B/www"
echo "awake" >"$B/www/index.html"
chmod -R a+rX "$B/www"

# conf TARGET: its directory and orchd.conf
conf() {
	d=$B/wp/$1
	mkdir -p "$d"
	eval "gwp=\$GWP_$1 wlp=\$WLP_$1"
	check_ports "$gwp" "$wlp"
	{
		GW_PORT=$gwp orchd_globals "$d"
		cat <<EOF
workload "wake" {
	host "wake.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$wlp -h $B/www"
	port $wlp
	idle timeout 1h
}
EOF
	} >"$d/orchd.conf"
}
# start TARGET
start() {
	case $1 in
	base*) bd=$BASE_BUILD ;;
	*) bd=$HEAD_BUILD ;;
	esac
	case $1 in
	*2) export ORCHD_CGROUP=v2 ;;
	esac
	ORCHD=$bd/orchd ORCHCTL=$bd/orchctl start_orchd "$B/wp/$1"
	unset ORCHD_CGROUP
	eval "PID_$1=\$ORCHD_PID CTL_$1=\$bd/orchctl"
}
for t in $TARGETS; do
	[ "$t" = raw ] && continue
	conf "$t"
	start "$t"
done

asleep() {	# asleep TARGET
	eval "ctl=\$CTL_$1"
	"$ctl" -s "$B/wp/$1/orchd.sock" show workloads 2>/dev/null |
	    awk '$1 == "wake" {print $2}' | grep -qx asleep
}
# sleep_now TARGET: suspended, its port closed
sleep_now() {
	eval "ctl=\$CTL_$1 wlp=\$WLP_$1"
	if ! asleep "$1"; then
		timeout 60 "$ctl" -s "$B/wp/$1/orchd.sock" suspend wake \
		    >>"$B/ctl.log" 2>&1 || return 1
	fi
	wait_for 30 asleep "$1" && wait_for 30 port_free "$wlp"
}
# one TARGET: one start or wake, in microseconds, into $B/us.TARGET
one() {
	if [ "$1" = raw ]; then
		taskset -c "$CCPU" "$B/spawnwait" -c "$SCPU" -u _orchd "$RAWP" -- \
		    /bin/busybox httpd -f -p "127.0.0.1:$RAWP" -h "$B/www" \
		    >>"$B/us.raw" || die "spawnwait failed"
		wait_for 10 port_free "$RAWP"
		return
	fi
	eval "gwp=\$GWP_$1"
	taskset -c "$CCPU" "$B/herd" -n 1 -t 60 -H wake.localhost "$gwp" \
	    >"$B/herd.out"
	v=$(sed -n 's/.* last_us=\([0-9]*\).*/\1/p' "$B/herd.out")
	[ -n "$v" ] || die "$1: wake failed: $(cat "$B/herd.out")"
	echo "$v" >>"$B/us.$1"
	sleep_now "$1" || die "$1: cannot suspend"
}

for t in $TARGETS; do
	: >"$B/us.$t"
	[ "$t" = raw ] || sleep_now "$t" || die "$t: cannot suspend"
done
set -- $TARGETS
n=$#
note "part 15: $WAKES rounds of $TARGETS"
for r in $(seq 1 "$WAKES"); do
	# the order turns: raw base head, base head raw, ...
	k=$(((r - 1) % n))
	for j in $(seq 0 $((n - 1))); do
		idx=$(((k + j) % n + 1))
		one "${!idx}"
	done
done
for t in $TARGETS; do
	[ "$t" = raw ] && continue
	eval "stop_pid \$PID_$t 15"
done

ms() { awk -v v="$1" 'BEGIN {printf "%.2f", v / 1000}'; }
out ""
out "== 14. Process wake over the raw start: $WAKES each, in turns (ms; cgroups: v1 unless named 2)"
out "$(printf '%-6s %8s %8s %8s   %10s %10s' '' p50 p99 max 'p50 - raw' 'p99 - raw')"
rp50=$(pctl 50 <"$B/us.raw")
rp99=$(pctl 99 <"$B/us.raw")
for t in $TARGETS; do
	p50=$(pctl 50 <"$B/us.$t")
	p99=$(pctl 99 <"$B/us.$t")
	mx=$(sort -g "$B/us.$t" | tail -n 1)
	out "$(printf '%-6s %8s %8s %8s   %10s %10s' "$t" "$(ms "$p50")" \
	    "$(ms "$p99")" "$(ms "$mx")" "$(ms $((p50 - rp50)))" \
	    "$(ms $((p99 - rp99)))")"
	echo "   raw: $t us: $(tr '\n' ' ' <"$B/us.$t")" >>"$RESULTS"
done
exit 0
