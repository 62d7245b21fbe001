#!/bin/bash
# 3. Thundering herd.  1000 concurrent requests (bench/herd.c: 1000
# connections opened at once, one GET each) to a sleeping workload: are
# all answered, is it started once, and how long until the last answer?
# The workload is nginx (1 process, backlog 4096) run as a process
# workload, so that it is orchd and not the workload's accept queue that
# is measured; its raw start (bench/spawnwait.c) is given for reference.
# BENCH_HERD_ROUNDS rounds (3; quick 1), orchctl suspend between them.
#
#	bench/03-herd.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
N=${BENCH_HERD:-1000}
if [ -n "$QUICK" ]; then
	HROUNDS=${BENCH_HERD_ROUNDS:-1}
else
	HROUNDS=${BENCH_HERD_ROUNDS:-3}
fi
HPORT=$((WAKE_PORT + 2))
check_ports "$GW_PORT" "$HPORT"

# the workload: nginx as _orchd, one process, in the foreground
HN=$B/herdnginx
mkdir -p "$HN/www"
echo "herd" >"$HN/www/index.html"
cat >"$HN/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $HN/nginx.pid;
error_log stderr warn;
events { worker_connections 8192; }
http {
	access_log off;
	client_body_temp_path $HN/body;
	proxy_temp_path $HN/proxy;
	fastcgi_temp_path $HN/fastcgi;
	server {
		listen 127.0.0.1:$HPORT backlog=4096;
		root $HN/www;
	}
}
EOF
chown -R _orchd "$HN"
chmod -R a+rX "$HN"
NGINX=$(command -v nginx)

# the raw start, for reference
: >"$B/raw.herd"
for i in 1 2 3; do
	taskset -c "$CCPU" "$B/spawnwait" -c "$SCPU" -u _orchd "$HPORT" -- \
	    "$NGINX" -p "$HN" -c "$HN/nginx.conf" >>"$B/raw.herd" 2>>"$B/raw.err" ||
	    die "nginx as a workload does not start: $(tail -n 3 "$B/raw.err")"
	wait_for 10 port_free "$HPORT"
done

H=$B/orchd-herd
mkdir -p "$H"
{
	orchd_globals "$H"
	cat <<EOF
workload "herd" {
	host "herd.localhost"
	command "$NGINX -p $HN -c $HN/nginx.conf"
	port $HPORT
	idle timeout 1h
}
EOF
} >"$H/orchd.conf"
start_orchd "$H"

state_of() {
	"$ORCHCTL" -s "$H/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is_asleep() { [ "$(state_of herd)" = asleep ]; }
starts() { grep -c 'workload herd: started' "$H/orchd.log"; }

out ""
out "== 3. Thundering herd: $N concurrent requests to a sleeping workload (nginx as a process workload)"
out "$(printf '%-8s %6s %6s %6s %7s %10s %10s %10s %10s' round ok other failed starts first_ms p50_ms p90_ms last_ms)"
for r in $(seq 1 "$HROUNDS"); do
	if ! is_asleep; then
		timeout 60 "$ORCHCTL" -s "$H/orchd.sock" suspend herd \
		    >>"$B/ctl.log" 2>&1
		wait_for 30 is_asleep || die "cannot suspend herd"
	fi
	wait_for 10 port_free "$HPORT" || die "herd's port stays open"
	s0=$(starts)
	taskset -c "$CCPU" "$B/herd" -n "$N" -t 60 -H herd.localhost \
	    "$GW_PORT" >"$B/herd.out"
	sleep 0.2
	s1=$(starts)
	line=$(head -n 1 "$B/herd.out")
	get() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
	ms() { awk -v v="$(get "$1")" 'BEGIN {printf "%.1f", v / 1000}'; }
	out "$(printf '%-8s %6s %6s %6s %7s %10s %10s %10s %10s' "$r" \
	    "$(echo "$line" | sed 's/.* ok=\([0-9]*\).*/\1/')" \
	    "$(echo "$line" | sed 's/.* other=\([0-9]*\).*/\1/')" \
	    "$(echo "$line" | sed 's/.* failed=\([0-9]*\).*/\1/')" \
	    $((s1 - s0)) "$(ms first_us)" "$(ms p50_us)" "$(ms p90_us)" \
	    "$(ms last_us)")"
done
# the same herd with the workload running: through the gateway, and
# straight to the workload, for what N requests cost without any wake
herd_line() {	# herd_line LABEL PORT
	taskset -c "$CCPU" "$B/herd" -n "$N" -t 60 -H herd.localhost "$2" \
	    >"$B/herd.out"
	line=$(head -n 1 "$B/herd.out")
	get() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
	ms() { awk -v v="$(get "$1")" 'BEGIN {printf "%.1f", v / 1000}'; }
	out "$(printf '%-8s %6s %6s %6s %7s %10s %10s %10s %10s' "$1" \
	    "$(echo "$line" | sed 's/.* ok=\([0-9]*\).*/\1/')" \
	    "$(echo "$line" | sed 's/.* other=\([0-9]*\).*/\1/')" \
	    "$(echo "$line" | sed 's/.* failed=\([0-9]*\).*/\1/')" \
	    - "$(ms first_us)" "$(ms p50_us)" "$(ms p90_us)" "$(ms last_us)")"
}
herd_line warm-gw "$GW_PORT"
herd_line direct "$HPORT"
out "   (warm-gw: the workload already running, through gatewayd; direct: to the"
out "    workload's own port, no gateway.  Times from the first connect.)"
out "$(printf '%-34s %8s ms (p50 of 3)' "raw start of the nginx workload:" \
    "$(median <"$B/raw.herd" | awk '{printf "%.1f", $1 / 1000}')")"
