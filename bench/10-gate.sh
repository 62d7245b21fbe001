#!/bin/bash
# 10. The gate's cost.  The backend nginx of part 1 behind two orchd
# instances that differ in one line: "ungated" proxies to the keep-warm
# workload as part 1 does, "gated" has "auth basic" on it (an htpasswd
# -B file, cost 10).  wrk sends the same Authorization (the right
# password) to both, so the gated one verifies it once, by its verifier
# process, and then answers from its cache of verified credentials (a
# keyed SHA-256 of the field): what is measured is the gate with its
# cache, against no gate, in the same rounds, the targets taking turns
# (A B, then B A).  The goal: at most 5% apart in requests per second.
#
# CPU per request: utime+stime of each instance's processes over the
# run, divided by the requests wrk counted.
#
#	bash bench/10-gate.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
command -v htpasswd >/dev/null 2>&1 || die "htpasswd missing (apache2-utils)"
GATE_PORT=$((PORT0 + 14))
check_ports "$BACKEND_PORT" "$GW_PORT" "$GATE_PORT"
CONNS=${BENCH_CONNS:-32 1}
TARGETS="ungated gated"
AUTHZ="Basic $(printf 'bench:bench password' | base64)"

start_backend
UG=$B/ungated
mkdir -p "$UG"
{ orchd_globals "$UG"; orchd_backend_workload; } >"$UG/orchd.conf"
start_orchd "$UG"
UNGATED_PIDS=$(orchd_procs)
UNGATED_MAIN=$ORCHD_PID

G=$B/gated
mkdir -p "$G"
htpasswd -cbB -C 10 "$G/htpasswd" bench 'bench password' 2>/dev/null
chmod 0644 "$G/htpasswd"
{
	orchd_globals "$G" | sed "s/port $GW_PORT\$/port $GATE_PORT/"
	orchd_backend_workload | sed "s|^}|\tauth basic \"$G/htpasswd\"\n}|"
} >"$G/orchd.conf"
start_orchd "$G"
GATED_PIDS=$(orchd_procs)
# the verifier is the gateway's child: its CPU counts too
V=
for p in $GATED_PIDS; do
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^orchd: gateway' &&
	    V="$V $(pgrep -P "$p" 2>/dev/null | tr '\n' ' ')"
done
GATED_PIDS="$GATED_PIDS $V"
ORCHD_PID=$UNGATED_MAIN

for port in "$GW_PORT" "$GATE_PORT"; do
	wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    -H "Authorization: $AUTHZ" "http://127.0.0.1:$port/" ||
	    die "port $port does not proxy"
done
c=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOSTNAME_BENCH" \
    "http://127.0.0.1:$GATE_PORT/")
[ "$c" = 401 ] || die "the gated instance answers $c without a password"

target_port() { [ "$1" = gated ] && echo "$GATE_PORT" || echo "$GW_PORT"; }
target_pids() { [ "$1" = gated ] && echo $GATED_PIDS || echo $UNGATED_PIDS; }
gate_wrk() {	# gate_wrk PORT CONNS OUT
	taskset -c "$CCPU" wrk -t"$WORKERS" -c"$2" -d"${SECS}s" --latency \
	    -H "Host: $HOSTNAME_BENCH" -H "Authorization: $AUTHZ" \
	    "http://127.0.0.1:$1/" >"$3" 2>&1
}

for t in $TARGETS; do
	SECS=1 gate_wrk "$(target_port "$t")" 32 "$B/warm"
done

RAW=$B/gate.raw
: >"$RAW"
note "part 10: $ROUNDS round(s) x ${SECS}s x 2 targets x $(echo $CONNS | wc -w) connection counts"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then order="ungated gated"; else order="gated ungated"; fi
	for c in $CONNS; do
		for t in $order; do
			pids=$(target_pids "$t")
			c0=$(cpu_ticks $pids)
			gate_wrk "$(target_port "$t")" "$c" "$B/wrk.out"
			c1=$(cpu_ticks $pids)
			n=$(wrk_field "$B/wrk.out" requests)
			e=$(wrk_field "$B/wrk.out" errors)
			cpu=$(awk -v d=$((c1 - c0)) -v n="$n" -v hz="$HZ" \
			    'BEGIN {printf "%.2f", n ? d / hz * 1e6 / n : 0}')
			echo "$t $c $r $(wrk_field "$B/wrk.out" rps) $(wrk_field "$B/wrk.out" p50) $(wrk_field "$B/wrk.out" p99) $cpu $n $e" >>"$RAW"
			[ "$e" = 0 ] || note "  $t c=$c: $e errors"
			note "  round $r $t c=$c: $(wrk_field "$B/wrk.out" rps) rps"
		done
	done
done

med() {	# med TARGET CONNS COLUMN
	awk -v t="$1" -v c="$2" -v k="$3" '$1 == t && $2 == c {print $k}' \
	    "$RAW" | median
}
out ""
out "== 10. The gate: auth basic (with its cache) against none, median of $ROUNDS round(s) of ${SECS}s"
out "   raw: target conns round rps p50_us p99_us orchd_cpu_us/req requests errors"
sed 's/^/   raw: /' "$RAW" >>"$RESULTS"
out "$(printf '%5s %-8s %9s %8s %8s %9s   %s' conns target rps p50_us p99_us \
    cpu_us/rq 'gated / ungated')"
for c in $CONNS; do
	for t in $TARGETS; do
		rps=$(med "$t" "$c" 4)
		extra=
		if [ "$t" = gated ]; then
			extra="rps $(ratio "$rps" "$(med ungated "$c" 4)")x"
			extra="$extra | p99 $(ratio "$(med gated "$c" 6)" "$(med ungated "$c" 6)")x"
			extra="$extra | cpu $(ratio "$(med gated "$c" 7)" "$(med ungated "$c" 7)")x"
			r=$(awk -v c="$c" '$2 == c { v[$1, $3] = $4 }
			    END { for (i = 1; (("gated", i) in v); i++)
				printf "%.3f ", v["gated", i] / v["ungated", i] }' "$RAW")
			extra="$extra | by round: $r"
		fi
		out "$(printf '%5s %-8s %9.0f %8s %8s %9s   %s' "$c" "$t" "$rps" \
		    "$(med "$t" "$c" 5)" "$(med "$t" "$c" 6)" \
		    "$(med "$t" "$c" 7)" "$extra")"
	done
done
out "   (the goal: gated rps within 5% of ungated, i.e. rps >= 0.95x)"
