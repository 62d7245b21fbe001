#!/bin/bash
# 8. TCP proxy overhead.  One redis-server (no persistence) on the server
# CPU; redis-benchmark -q -t set,get (on the client CPU) against it
# through a workload's own TCP listener of gatewayd ("listen on" in the
# block of a keep-warm workload whose port is redis's, so that every
# target reaches the same server), through haproxy in mode tcp (1
# thread), and directly.  Targets take turns in every round, as in
# part 1.
#
# CPU per request: utime+stime of the proxy's processes (all of orchd's,
# haproxy) over the run, divided by the requests redis-benchmark made
# (SET and GET).  redis's own CPU per request is reported apart.
#
# BENCH_REQUESTS (100000; quick 20000), BENCH_CLIENTS (50) and
# BENCH_PIPELINE (1: none; redis-benchmark -P) are redis-benchmark's -n,
# -c and -P.  Without pipelining the one client CPU is the limit, for
# every target alike: then the proxy's cost shows in its CPU per request
# and in the latency more than in the rate.
#
#	bench/08-tcp.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
for t in redis-server redis-benchmark; do
	command -v "$t" >/dev/null 2>&1 || die "$t missing: sh bench/deps.sh"
done
REDIS_PORT=$((PORT0 + 11))
TCP_GW_PORT=$((PORT0 + 12))
TCP_HAP_PORT=$((PORT0 + 13))
check_ports "$GW_PORT" "$REDIS_PORT" "$TCP_GW_PORT" "$TCP_HAP_PORT"
if [ -n "$QUICK" ]; then
	REQS=${BENCH_REQUESTS:-20000}
else
	REQS=${BENCH_REQUESTS:-100000}
fi
CLIENTS=${BENCH_CLIENTS:-50}
PIPELINE=${BENCH_PIPELINE:-1}
TARGETS="gatewayd haproxy direct"

mkdir -p "$B/redis"
# as _orchbench, the user of the workload "redis" stands for: orchd
# serves a workload only where its own uid listens
chown _orchbench "$B/redis"
taskset -c "$SCPU" setpriv --reuid=_orchbench --regid=_orchbench \
    --init-groups redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
    --save '' --appendonly no --dir "$B/redis" --daemonize no \
    >"$B/redis/log" 2>&1 &
REDIS_PID=$!
track "$REDIS_PID"
wait_for 10 port_open "$REDIS_PORT" || die "redis did not start"

mkdir -p "$B/haproxy-tcp"
cat >"$B/haproxy-tcp/haproxy.cfg" <<EOF
global
	nbthread $WORKERS
	maxconn 8000
	pidfile $B/haproxy-tcp/haproxy.pid
defaults
	mode tcp
	timeout connect 10s
	timeout client 60s
	timeout server 60s
frontend bench
	bind 127.0.0.1:$TCP_HAP_PORT
	default_backend redis
backend redis
	server s1 127.0.0.1:$REDIS_PORT
EOF
taskset -c "$SCPU" haproxy -db -f "$B/haproxy-tcp/haproxy.cfg" \
    >>"$B/haproxy-tcp/log" 2>&1 &
HAP_PID=$!
track "$HAP_PID"
wait_for 10 port_open "$TCP_HAP_PORT" || die "haproxy did not start"

GW=$B/gw
mkdir -p "$GW"
{
	orchd_globals "$GW"
	cat <<EOF
workload "redis" {
	command "/bin/busybox sleep 100000"
	user "_orchbench"
	port $REDIS_PORT
	listen on 127.0.0.1 port $TCP_GW_PORT
	keep warm
}
EOF
} >"$GW/orchd.conf"
start_orchd "$GW"
wait_for 10 sh -c "[ \"\$(redis-cli -p $TCP_GW_PORT ping 2>/dev/null)\" = PONG ]" ||
    die "gatewayd does not proxy to redis"

REDIS_PIDS=$REDIS_PID
ORCHD_PIDS=$(orchd_procs)

target_port() {
	case $1 in
	gatewayd) echo "$TCP_GW_PORT" ;;
	haproxy) echo "$TCP_HAP_PORT" ;;
	direct) echo "$REDIS_PORT" ;;
	esac
}
target_pids() {
	case $1 in
	gatewayd) echo $ORCHD_PIDS ;;
	haproxy) echo $HAP_PID ;;
	direct) ;;
	esac
}

# rb PORT N OUT: one pinned redis-benchmark run
rb() {
	taskset -c "$CCPU" redis-benchmark -h 127.0.0.1 -p "$1" -q \
	    -t set,get -n "$2" -c "$CLIENTS" -P "$PIPELINE" >"$3" 2>&1
}
# rb_field OUT SET|GET rps|p50: requests per second; p50 in microseconds,
# from the last line of the test (the others are progress)
rb_field() {
	tr '\r' '\n' <"$1" | awk -v t="$2:" -v f="$3" \
	    '$1 == t && / requests per second/ {
		if (f == "rps") print $2;
		else for (i = 1; i <= NF; i++) if ($i ~ /^p50=/) {
			v = $i; sub(/^p50=/, "", v); printf "%.0f\n", v * 1000 } }'
}

# warm-up
for t in $TARGETS; do
	rb "$(target_port "$t")" 2000 "$B/warm"
done

RAW=$B/tcp.raw
: >"$RAW"
note "part 8: $ROUNDS round(s) x $REQS requests x 2 tests x 3 targets"
rotate() {	# rotate N WORDS...
	k=$1
	shift
	n=$#
	set -- "$@" "$@"
	shift $((k % n))
	echo "${@:1:$n}"
}
for r in $(seq 1 "$ROUNDS"); do
	for t in $(rotate $((r - 1)) $TARGETS); do
		pids=$(target_pids "$t")
		c0=$(cpu_ticks $pids)
		s0=$(cpu_ticks $REDIS_PIDS)
		rb "$(target_port "$t")" "$REQS" "$B/rb.out"
		c1=$(cpu_ticks $pids)
		s1=$(cpu_ticks $REDIS_PIDS)
		n=$((REQS * 2))
		cpu=$(awk -v d=$((c1 - c0)) -v n="$n" -v hz="$HZ" \
		    'BEGIN {printf "%.2f", d / hz * 1e6 / n}')
		scpu=$(awk -v d=$((s1 - s0)) -v n="$n" -v hz="$HZ" \
		    'BEGIN {printf "%.2f", d / hz * 1e6 / n}')
		for op in SET GET; do
			rps=$(rb_field "$B/rb.out" "$op" rps)
			p50=$(rb_field "$B/rb.out" "$op" p50)
			[ -n "$rps" ] || die "$t: no $op result: $(tail -c 300 "$B/rb.out")"
			echo "$t $op $r $rps ${p50:--} $cpu $scpu" >>"$RAW"
			note "  round $r $t $op: $rps rps"
		done
	done
done

med() {	# med TARGET OP COLUMN
	awk -v t="$1" -v o="$2" -v k="$3" '$1 == t && $2 == o {print $k}' \
	    "$RAW" | median
}
out ""
out "== 8. TCP proxy overhead: redis-benchmark -q -t set,get -n $REQS -c $CLIENTS -P $PIPELINE, median of $ROUNDS round(s), on CPU $CCPU, servers on CPU $SCPU"
out "   raw: target op round rps p50_us proxy_cpu_us/req redis_cpu_us/req"
sed 's/^/   raw: /' "$RAW" >>"$RESULTS"
out ""
out "$(printf '%-4s %-9s %10s %7s %9s %9s   %s' op target rps p50_us \
    cpu_us/rq redis/rq 'gatewayd vs haproxy | vs direct (rps)')"
for op in SET GET; do
	for t in $TARGETS; do
		rps=$(med "$t" "$op" 4)
		p50=$(med "$t" "$op" 5)
		cpu=$(med "$t" "$op" 6)
		scpu=$(med "$t" "$op" 7)
		extra=
		if [ "$t" = gatewayd ]; then
			extra="rps $(ratio "$rps" "$(med haproxy "$op" 4)")x"
			extra="$extra $(ratio "$rps" "$(med direct "$op" 4)")x"
			extra="$extra | cpu $(ratio "$cpu" "$(med haproxy "$op" 6)")x"
		fi
		out "$(printf '%-4s %-9s %10.0f %7s %9s %9s   %s' "$op" "$t" \
		    "$rps" "$p50" "$cpu" "$scpu" "$extra")"
	done
done
out "   (cpu_us/rq: the proxy's own CPU per request, SET and GET together;"
out "    redis/rq: the server's; ratios are gatewayd / other)"
