#!/bin/bash
# 4. Scale.  Two orchd side by side: one with a single route (the keep
# warm workload that stands for the nginx backend), one with the same
# route and BENCH_WORKLOADS (10,000) more process workloads, all asleep
# (host wN.bench, command busybox sleep, distinct ports, idle timeout
# 5m).  Both have reaper interval 1s.  Measured for each: start-up time
# (to `orchctl show summary` answering, and to the first request routed),
# RSS and PSS of every orchd process, bytes per sleeping workload, `orchctl
# reload` wall time, the reaper's CPU per tick (/proc/PID/schedstat), and
# wrk on the one route, both instances in turns (A B, B A, A B ...).
# Beware: the gateway's heap size alone moves its rps by ~10 % (glibc
# trims the heap top after each request on a small heap: see README).
#
#	bench/04-scale.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
NW=${BENCH_WORKLOADS:-10000}
WPORT0=$((PORT0 + 20000))
[ $((WPORT0 + NW)) -le 65535 ] || die "BENCH_PORT too high for $NW ports"
SCALE_GW_PORT=$((PORT0 + 5))
TICK_SECS=${BENCH_TICK_SECS:-10}
[ -n "$QUICK" ] && TICK_SECS=${BENCH_TICK_SECS:-4}
check_ports "$BACKEND_PORT" "$GW_PORT" "$SCALE_GW_PORT"

start_backend

# one: the route alone; many: the route and NW sleeping workloads
S1=$B/one
SN=$B/many
mkdir -p "$S1" "$SN"
{
	orchd_globals "$S1"
	echo "reaper interval 1s"
	orchd_backend_workload
} >"$S1/orchd.conf"
{
	orchd_globals "$SN" | sed "s/port $GW_PORT\$/port $SCALE_GW_PORT/"
	echo "reaper interval 1s"
	orchd_backend_workload
	awk -v n="$NW" -v p0="$WPORT0" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "workload \"w%d\" {\n\thost \"w%d.bench\"\n" \
			    "\tcommand \"/bin/busybox sleep 100000\"\n" \
			    "\tport %d\n\tidle timeout 5m\n}\n", i, i, p0 + i
	}'
} >"$SN/orchd.conf"

# start_timed DIR PORT VAR: starts orchd, sets VAR_PID, VAR_CTL (ms to
# orchctl answering) and VAR_ROUTE (ms to the first 200 through it)
start_timed() {
	d=$1
	t0=$(now_ns)
	taskset -c "$SCPU" "$ORCHD" -d -f "$d/orchd.conf" >>"$d/orchd.log" 2>&1 &
	pid=$!
	track "$pid"
	wait_for 120 "$ORCHCTL" -s "$d/orchd.sock" show summary || {
		tail -n 20 "$d/orchd.log" >&2
		FAILED="$FAILED; $(basename "$d"): orchctl did not answer within 120 s"
		eval "${3}_PID=$pid ${3}_CTL=- ${3}_ROUTE=-"
		return 1
	}
	t1=$(now_ns)
	if wait_for 120 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$2/"; then
		t2=$(now_ns)
		route=$(((t2 - t0) / 1000000))
	else
		route=-
		FAILED="$FAILED; $(basename "$d"): the route did not answer within 120 s"
	fi
	eval "${3}_PID=$pid ${3}_CTL=$(((t1 - t0) / 1000000)) ${3}_ROUTE=$route"
}

FAILED=
note "part 4: starting orchd with 1 workload, then with $((NW + 1))"
start_timed "$S1" "$GW_PORT" ONE
start_timed "$SN" "$SCALE_GW_PORT" MANY
sleep 3

# procs_of PID: the orchd parent and its orchd children
procs_of() {
	echo "$1"
	for c in $(pgrep -P "$1"); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
		    grep -q '^orchd' && echo "$c"
	done
	return 0
}
# pss_kib PID: its proportional set size (shared pages divided among
# the processes that map them: a forked spawner's copy-on-write pages
# count once, not twice as in RSS)
pss_kib() {
	awk '/^Pss:/ {print $2; exit}' "/proc/$1/smaps_rollup" 2>/dev/null ||
	    echo 0
}
# rss_table PID: "name rss_kib pss_kib" per process
rss_table() {
	for p in $(procs_of "$1"); do
		n=$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{print $2}')
		echo "$n $(rss_kib "$p") $(pss_kib "$p")"
	done
}
# exec_ns PID: time on CPU, all threads
exec_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
	    awk '{s += $1} END {print s + 0}'
}
reaper_of() {
	for p in $(procs_of "$1"); do
		tr '\0' ' ' <"/proc/$p/cmdline" | grep -q '^orchd: reaper' &&
		    echo "$p"
	done
	return 0
}

rss_table "$ONE_PID" >"$B/rss.one"
rss_table "$MANY_PID" >"$B/rss.many"

# the reaper's tick, and everything's idle CPU, over TICK_SECS
r1=$(reaper_of "$ONE_PID")
rn=$(reaper_of "$MANY_PID")
all1=$(procs_of "$ONE_PID")
alln=$(procs_of "$MANY_PID")
sum_ns() { s=0; for p in "$@"; do s=$((s + $(exec_ns "$p"))); done; echo $s; }
a1=$(exec_ns "$r1"); an=$(exec_ns "$rn")
A1=$(sum_ns $all1); AN=$(sum_ns $alln)
sleep "$TICK_SECS"
b1=$(exec_ns "$r1"); bn=$(exec_ns "$rn")
B1=$(sum_ns $all1); BN=$(sum_ns $alln)
tick1=$(awk -v d=$((b1 - a1)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')
tickn=$(awk -v d=$((bn - an)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')
idle1=$(awk -v d=$((B1 - A1)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')
idlen=$(awk -v d=$((BN - AN)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')

# reload, 3 times each
reload_ms() {	# reload_ms DIR
	: >"$B/reload"
	for i in 1 2 3; do
		t0=$(now_ns)
		if timeout 120 "$ORCHCTL" -s "$1/orchd.sock" reload \
		    >>"$B/ctl.log" 2>&1; then
			echo $((($(now_ns) - t0) / 1000000)) >>"$B/reload"
		else
			FAILED="$FAILED; $(basename "$1"): orchctl reload failed: $(tail -n 1 "$B/ctl.log")"
			break
		fi
		sleep 0.5
	done
	[ -s "$B/reload" ] && median <"$B/reload" || echo -
}
RL1=$(reload_ms "$S1")
RLN=$(reload_ms "$SN")
# still routing after the reloads?
curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
    "http://127.0.0.1:$SCALE_GW_PORT/" ||
    FAILED="$FAILED; many: no route after reload"
# RSS after the reloads (a reload builds a new generation)
rss_table "$MANY_PID" >"$B/rss.many2"

# rps on the one route, both in turns
: >"$B/scale.raw"
for r in $(seq 1 "$ROUNDS"); do
	order="one many"
	[ $((r % 2)) = 0 ] && order="many one"
	for t in $order; do
		[ $t = one ] && port=$GW_PORT || port=$SCALE_GW_PORT
		wrk_run "http://127.0.0.1:$port/" 32 "$B/wrk.out"
		echo "$t $r $(wrk_field "$B/wrk.out" rps) $(wrk_field "$B/wrk.out" p99)" \
		    >>"$B/scale.raw"
	done
done
rps1=$(awk '$1 == "one" {print $3}' "$B/scale.raw" | median)
rpsn=$(awk '$1 == "many" {print $3}' "$B/scale.raw" | median)

sum_rss() { awk '{s += $2} END {print s + 0}' "$1"; }
sum_pss() { awk '{s += $3} END {print s + 0}' "$1"; }
R1=$(sum_rss "$B/rss.one")
RN=$(sum_rss "$B/rss.many")
RN2=$(sum_rss "$B/rss.many2")
P1=$(sum_pss "$B/rss.one")
PN=$(sum_pss "$B/rss.many")
PN2=$(sum_pss "$B/rss.many2")

out ""
out "== 4. Scale: 1 workload against $((NW + 1)) ($NW asleep), reaper interval 1s"
out "$(printf '%-40s %12s %12s' '' '1 workload' "$((NW + 1)) workloads")"
out "$(printf '%-40s %12s %12s' 'start-up to orchctl answering, ms' "$ONE_CTL" "$MANY_CTL")"
out "$(printf '%-40s %12s %12s' 'start-up to first routed 200, ms' "$ONE_ROUTE" "$MANY_ROUTE")"
out "$(printf '%-40s %12s %12s' 'orchctl reload, ms (median of 3)' "$RL1" "$RLN")"
for n in $(awk '{print $1}' "$B/rss.one"); do
	out "$(printf '%-40s %12s %12s' "RSS $n, KiB" \
	    "$(awk -v n="$n" '$1 == n {print $2}' "$B/rss.one")" \
	    "$(awk -v n="$n" '$1 == n {print $2}' "$B/rss.many")")"
done
out "$(printf '%-40s %12s %12s' 'RSS all orchd processes, KiB' "$R1" "$RN")"
out "$(printf '%-40s %12s %12s' '  the same after 3 reloads, KiB' '' "$RN2")"
out "$(printf '%-40s %12s %12s' 'bytes per sleeping workload' '' \
    "$(awk -v a="$R1" -v b="$RN" -v n="$NW" 'BEGIN {printf "%.0f", (b - a) * 1024 / n}')")"
for n in $(awk '{print $1}' "$B/rss.one"); do
	out "$(printf '%-40s %12s %12s' "PSS $n, KiB" \
	    "$(awk -v n="$n" '$1 == n {print $3}' "$B/rss.one")" \
	    "$(awk -v n="$n" '$1 == n {print $3}' "$B/rss.many")")"
done
out "$(printf '%-40s %12s %12s' 'PSS all orchd processes, KiB' "$P1" "$PN")"
out "$(printf '%-40s %12s %12s' '  the same after 3 reloads, KiB' '' "$PN2")"
out "$(printf '%-40s %12s %12s' 'bytes per sleeping workload, PSS' '' \
    "$(awk -v a="$P1" -v b="$PN" -v n="$NW" 'BEGIN {printf "%.0f", (b - a) * 1024 / n}')")"
out "$(printf '%-40s %12s %12s' 'reaper CPU per 1s tick, ms' "$tick1" "$tickn")"
out "$(printf '%-40s %12s %12s' 'all orchd CPU while idle, ms/s' "$idle1" "$idlen")"
out "$(printf '%-40s %12.0f %12.0f' "rps on one route (wrk c32, median of $ROUNDS)" "$rps1" "$rpsn")"
out "$(printf '%-40s %12s %12s' "  ratio $((NW + 1)) routes / 1 route" '' "$(ratio "$rpsn" "$rps1")")"
sed 's/^/   raw: /' "$B/scale.raw" >>"$RESULTS"
if [ -n "$FAILED" ]; then
	out "FAILED at scale:${FAILED#;}"
fi
grep -E 'fatal|error|lost child|too (big|large)|truncat' "$SN/orchd.log" |
    head -n 10 | sed 's/^/   many: orchd.log: /' | tee -a "$RESULTS"
exit 0
