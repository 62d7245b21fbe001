#!/bin/bash
# 5. Idle footprint: the memory of each orchd process with one workload,
# asleep, a few seconds after start.  RSS (what the target counts), PSS
# (shared pages split among the processes that map them: the five share
# libc, libevent, sqlite...) and private dirty, from
# /proc/PID/smaps_rollup.
#
#	bench/05-idle.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
check_ports "$GW_PORT"
I=$B/idle
mkdir -p "$I" "$B/www"
{
	orchd_globals "$I"
	cat <<EOF
workload "one" {
	host "one.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$WAKE_PORT -h $B/www"
	port $WAKE_PORT
}
EOF
} >"$I/orchd.conf"
start_orchd "$I"
sleep 3

smaps() {	# smaps PID FIELD: KiB
	awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null
}
out ""
out "== 5. Idle footprint: one workload, asleep (KiB)"
out "$(printf '%-10s %8s %8s %14s' process RSS PSS private_dirty)"
tr=0; tp=0; td=0
for p in $(orchd_procs); do
	n=$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{print $2}')
	r=$(rss_kib "$p"); s=$(smaps "$p" Pss); d=$(smaps "$p" Private_Dirty)
	tr=$((tr + r)); tp=$((tp + ${s:-0})); td=$((td + ${d:-0}))
	out "$(printf '%-10s %8s %8s %14s' "$n" "$r" "${s:-?}" "${d:-?}")"
done
out "$(printf '%-10s %8s %8s %14s' total "$tr" "$tp" "$td")"
out "$(printf 'all daemons together: %.1f MiB RSS (target < 10 MiB), %.1f MiB PSS' \
    "$(awk -v k=$tr 'BEGIN {print k / 1024}')" "$(awk -v k=$tp 'BEGIN {print k / 1024}')")"
echo "$tr" >"$B/idle.total"
