#!/bin/bash
# 1. Proxy overhead.  One backend, nginx with 1 worker: "/" (return 200),
# /4k and /256k (static files).  wrk (1 thread, pinned on the client CPU)
# against it through gatewayd, through nginx (1 worker, upstream
# keepalive), through haproxy (1 thread), and directly, with 32 and 1
# connections.  Every server is pinned on the server CPU.  The targets
# take turns (A B C D, then B C D A ...) in every round, so slow drifts
# of the machine hit them all alike.
#
# CPU per request: utime+stime of the proxy's processes (all of orchd's,
# both of nginx's, haproxy) over the run, divided by the requests wrk
# counted.  The backend's own CPU is reported apart.
#
# BENCH_BASE=REF adds a fifth target, "base": a second orchd built from
# that commit (git archive), listening on BENCH_PORT+5, in the same
# rounds, so that a change is measured against its baseline in one run.
# BENCH_BASE_BUILD=DIR takes that commit's binaries from DIR, built
# already, instead of building them again.
#
# BENCH_ACCESSLOG=combined (or json) adds a target "alog": a second orchd
# of the same build with its "access log" on, listening on BENCH_PORT+6,
# so that the log's cost is gatewayd against alog in the same rounds.
# BENCH_TARGETS="gatewayd alog" runs only the targets named (the proxies
# not named are not started).
#
#	bench/01-proxy.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
check_ports "$BACKEND_PORT" "$GW_PORT" "$NGX_PORT" "$HAP_PORT"

if [ -n "$QUICK" ]; then
	PATHS=${BENCH_PATHS:-"/ /4k"}
else
	PATHS=${BENCH_PATHS:-"/ /4k /256k"}
fi
CONNS=${BENCH_CONNS:-"32 1"}
TARGETS="gatewayd nginx haproxy direct"
BASE_PORT=$((PORT0 + 5))
[ -n "${BENCH_BASE:-}" ] && TARGETS="gatewayd base nginx haproxy direct"
ALOG_PORT=$((PORT0 + 6))
[ -n "${BENCH_ACCESSLOG:-}" ] && TARGETS="gatewayd alog ${TARGETS#gatewayd }"
[ -n "${BENCH_TARGETS:-}" ] && TARGETS=$BENCH_TARGETS
has_target() { case " $TARGETS " in *" $1 "*) return 0 ;; esac; return 1; }

# start_base: the baseline orchd (BENCH_BASE) beside the one under test
start_base() {
	src=$B/base-src
	base_build=${BENCH_BASE_BUILD:-$src/build}
	if [ -n "${BENCH_BASE_BUILD:-}" ]; then
		# built already (as the other parts' runs use it): not again
		[ -x "$base_build/orchd" ] || die "no $base_build/orchd"
	else
		mkdir -p "$src"
		(cd "$TOP" && git archive "$BENCH_BASE") | tar -x -C "$src" ||
		    die "cannot export $BENCH_BASE"
		(cd "$src" && make -s BUILD="$base_build" all \
		    >"$B/base-make.log" 2>&1) || { tail -n 20 "$B/base-make.log" >&2
			die "make of $BENCH_BASE failed"; }
	fi
	check_ports "$BASE_PORT"
	mkdir -p "$B/base"
	{
		orchd_globals "$B/base" |
		    sed "s/port $GW_PORT\$/port $BASE_PORT/"
		orchd_backend_workload
	} >"$B/base/orchd.conf"
	main_orchd=$ORCHD main_ctl=$ORCHCTL main_pid=$ORCHD_PID
	ORCHD=$base_build/orchd ORCHCTL=$base_build/orchctl
	start_orchd "$B/base"
	BASE_PIDS=$(orchd_procs)
	ORCHD=$main_orchd ORCHCTL=$main_ctl ORCHD_PID=$main_pid
	wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$BASE_PORT/" || die "the base gatewayd does not proxy"
	out "# part 1: base is $(cd "$TOP" && git rev-parse --short "$BENCH_BASE") ($BENCH_BASE)"
}

# start_alog: the same orchd, with the access log on
start_alog() {
	A=$B/alog
	check_ports "$ALOG_PORT"
	mkdir -p "$A"
	{
		orchd_globals "$A" | sed "s/port $GW_PORT\$/port $ALOG_PORT/"
		echo "access log \"$A/log/access.log\""
		echo "access log format ${BENCH_ACCESSLOG:-combined}"
		orchd_backend_workload
	} >"$A/orchd.conf"
	main_pid=$ORCHD_PID
	start_orchd "$A"
	ALOG_PIDS=$(orchd_procs)
	ORCHD_PID=$main_pid
	wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$ALOG_PORT/" || die "the alog gatewayd does not proxy"
	out "# part 1: alog is gatewayd with access log format ${BENCH_ACCESSLOG:-combined}"
}

start_backend
has_target nginx && start_nginx_proxy
has_target haproxy && start_haproxy
GW=$B/gw
mkdir -p "$GW"
{ orchd_globals "$GW"; orchd_backend_workload; } >"$GW/orchd.conf"
start_orchd "$GW"
wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
    "http://127.0.0.1:$GW_PORT/" || die "gatewayd does not proxy"

BACKEND_PIDS=$(descendants "$BACKEND_PID")
NGX_PIDS=
has_target nginx && NGX_PIDS=$(descendants "$NGX_PID")
HAP_PIDS=
has_target haproxy && HAP_PIDS=$HAP_PID
ORCHD_PIDS=$(orchd_procs)
BASE_PIDS=
[ -n "${BENCH_BASE:-}" ] && start_base
ALOG_PIDS=
has_target alog && start_alog

target_port() {
	case $1 in
	gatewayd) echo "$GW_PORT" ;;
	base) echo "$BASE_PORT" ;;
	alog) echo "$ALOG_PORT" ;;
	nginx) echo "$NGX_PORT" ;;
	haproxy) echo "$HAP_PORT" ;;
	direct) echo "$BACKEND_PORT" ;;
	esac
}
target_pids() {
	case $1 in
	gatewayd) echo $ORCHD_PIDS ;;
	base) echo $BASE_PIDS ;;
	alog) echo $ALOG_PIDS ;;
	nginx) echo $NGX_PIDS ;;
	haproxy) echo $HAP_PIDS ;;
	direct) ;;
	esac
}

# the same bytes from every path
for t in $TARGETS; do
	for p in $PATHS; do
		h=$(curl -sf -H "Host: $HOSTNAME_BENCH" \
		    "http://127.0.0.1:$(target_port "$t")$p" | md5sum)
		[ "$h" = "$(curl -sf "http://127.0.0.1:$BACKEND_PORT$p" |
		    md5sum)" ] || die "$t: $p differs from the backend's"
	done
done

# warm-up: one second each
for t in $TARGETS; do
	SECS=1 wrk_run "http://127.0.0.1:$(target_port "$t")/" 32 "$B/warm"
done

RAW=$B/proxy.raw
: >"$RAW"
note "part 1: $ROUNDS round(s) x ${SECS}s x $(echo $TARGETS | wc -w) targets x" \
    "$(echo $PATHS | wc -w) paths x $(echo $CONNS | wc -w) connection counts"
# the order of the targets turns by one each round (A B C D, B C D A ...)
rotate() {	# rotate N WORDS...
	k=$1
	shift
	n=$#
	set -- "$@" "$@"
	shift $((k % n))
	echo "${@:1:$n}"
}
for r in $(seq 1 "$ROUNDS"); do
	order=$(rotate $((r - 1)) $TARGETS)
	for p in $PATHS; do
		for c in $CONNS; do
			for t in $order; do
				pids=$(target_pids "$t")
				c0=$(cpu_ticks $pids)
				b0=$(cpu_ticks $BACKEND_PIDS)
				wrk_run "http://127.0.0.1:$(target_port "$t")$p" \
				    "$c" "$B/wrk.out"
				c1=$(cpu_ticks $pids)
				b1=$(cpu_ticks $BACKEND_PIDS)
				n=$(wrk_field "$B/wrk.out" requests)
				e=$(wrk_field "$B/wrk.out" errors)
				cpu=$(awk -v d=$((c1 - c0)) -v n="$n" -v hz="$HZ" \
				    'BEGIN {printf "%.2f", n ? d / hz * 1e6 / n : 0}')
				bcpu=$(awk -v d=$((b1 - b0)) -v n="$n" -v hz="$HZ" \
				    'BEGIN {printf "%.2f", n ? d / hz * 1e6 / n : 0}')
				line="$t $p $c $r $(wrk_field "$B/wrk.out" rps)"
				line="$line $(wrk_field "$B/wrk.out" p50)"
				line="$line $(wrk_field "$B/wrk.out" p99) $cpu $bcpu $n $e"
				echo "$line" >>"$RAW"
				[ "$e" = 0 ] || note "  $t $p c=$c: $e errors"
				note "  round $r $t $p c=$c: $(wrk_field "$B/wrk.out" rps) rps"
			done
		done
	done
done

# summary: medians over the rounds, ratios against nginx and haproxy
med() {	# med TARGET PATH CONNS COLUMN
	awk -v t="$1" -v p="$2" -v c="$3" -v k="$4" \
	    '$1 == t && $2 == p && $3 == c {print $k}' "$RAW" | median
}
out ""
out "== 1. Proxy overhead: median of $ROUNDS round(s) of ${SECS}s, $WORKERS worker(s) each, wrk -t$WORKERS on CPU $CCPU, servers on CPU $SCPU"
out "   raw: target path conns round rps p50_us p99_us proxy_cpu_us/req backend_cpu_us/req requests errors"
sed 's/^/   raw: /' "$RAW" >>"$RESULTS"
out ""
out "$(printf '%-6s %5s %-9s %9s %8s %8s %9s %9s   %s' \
    path conns target rps p50_us p99_us cpu_us/rq be_cpu/rq \
    'gatewayd vs nginx | vs haproxy (rps, p99, cpu)')"
for p in $PATHS; do
	for c in $CONNS; do
		for t in $TARGETS; do
			rps=$(med "$t" "$p" "$c" 5)
			p50=$(med "$t" "$p" "$c" 6)
			p99=$(med "$t" "$p" "$c" 7)
			cpu=$(med "$t" "$p" "$c" 8)
			bcpu=$(med "$t" "$p" "$c" 9)
			extra=
			if [ "$t" = gatewayd ] || [ "$t" = base ]; then
				extra="rps $(ratio "$rps" "$(med nginx "$p" "$c" 5)")x"
				extra="$extra $(ratio "$rps" "$(med haproxy "$p" "$c" 5)")x"
				extra="$extra | p99 $(ratio "$p99" "$(med nginx "$p" "$c" 7)")x"
				extra="$extra $(ratio "$p99" "$(med haproxy "$p" "$c" 7)")x"
				extra="$extra | cpu $(ratio "$cpu" "$(med nginx "$p" "$c" 8)")x"
				extra="$extra $(ratio "$cpu" "$(med haproxy "$p" "$c" 8)")x"
			fi
			if [ "$t" = alog ]; then
				extra="vs gatewayd: rps $(ratio "$rps" "$(med gatewayd "$p" "$c" 5)")x"
				extra="$extra | p99 $(ratio "$p99" "$(med gatewayd "$p" "$c" 7)")x"
				extra="$extra | cpu $(ratio "$cpu" "$(med gatewayd "$p" "$c" 8)")x"
			fi
			out "$(printf '%-6s %5s %-9s %9.0f %8s %8s %9s %9s   %s' \
			    "$p" "$c" "$t" "$rps" "$p50" "$p99" "$cpu" "$bcpu" "$extra")"
		done
	done
done
out "   (cpu_us/rq: the proxy's own CPU per request; be_cpu/rq: the backend's;"
out "    ratios are gatewayd / other, so rps wants >= 1.00, p99 and cpu <= 1.00)"
if [ -n "${BENCH_BASE:-}" ]; then
	out "   (base: gatewayd of $BENCH_BASE, same rounds, ratios as gatewayd's)"
fi
if has_target alog; then
	n=$(awk '$1 == "alog" {n += $10} END {print n + 0}' "$RAW")
	out "   (alog: gatewayd with the access log; it wrote" \
	    "$(wc -l <"$B/alog/log/access.log") lines, wrk counted $n requests" \
	    "in the rounds, and warm-ups besides)"
	# each round's pair, run back to back: the noise of a shared machine
	# moves both alike, the median of the round ratios less than either
	for p in $PATHS; do
		for c in $CONNS; do
			r=$(awk -v p="$p" -v c="$c" '$2 == p && $3 == c &&
			    ($1 == "alog" || $1 == "gatewayd") { v[$1, $4] = $5 }
			    END { for (i = 1; ("gatewayd", i) in v; i++)
			    printf "%.3f ", v["alog", i] / v["gatewayd", i] }' "$RAW")
			out "   alog / gatewayd rps, $p c=$c, by round: $r(median" \
			    "$(echo "$r" | tr ' ' '\n' | grep . | median))"
		done
	done
fi
