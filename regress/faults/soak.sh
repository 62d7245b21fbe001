#!/bin/sh
# A 2-minute soak with wakes and suspends: two process workloads with a
# 1 s idle timeout and the reaper every second get bursts of requests
# (three clients of ten requests each, on both at once) every 4 s, so
# that each burst wakes them and each pause suspends them: some 30 wakes
# each.  The resident memory and the open descriptors of every orchd
# process (parent, spawner, store, gateway, reaper, runtime) are sampled
# after a warm-up of 3 cycles and at the end, each time with both
# workloads asleep.  Pass: no process grows by more than 2 MiB of RSS or
# 8 descriptors, every request is answered 2xx, and the workloads were
# really woken and suspended (3 bursts in 4 at least found them asleep).
#
# Under the sanitizer build, ASan's quarantine (freed memory held back
# to catch a use after free, 256 MiB by default) would grow every
# process's RSS by what it frees: it is set to 0 here, so that RSS
# measures what the daemon keeps.  ASan's own bookkeeping (shadow
# memory, the stack of each allocation) still grows the parent's RSS by
# some 40 KiB a wake, where a plain build's stays flat (3792 -> 3800
# KiB over 24 wakes): the bound is 4 MiB there, 2 MiB in a plain build.
#
# SOAK_SECS in the environment makes it longer (the campaign's soak was
# 10 minutes).
#
#	sh regress/faults/soak.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

SOAK=${SOAK_SECS:-120}
CYCLE=4		# seconds from one burst to the next
WARM=3		# cycles before the first sample
RSS_KB=2048	# the bound on each process's growth
FDS=8
if ldd "$BUILD/orchd" 2>/dev/null | grep -q libasan; then
	RSS_KB=4096
fi
ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0
export ASAN_OPTIONS

port_base 47
ports GW PA PB
testhttp_bin
mkdir -p "$T/log"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 1s
reaper interval 1s
listen on 127.0.0.1 port $GW

workload "a" {
	host "a.test"
	command "$T/bin/testhttp serve $PA"
	port $PA
}
workload "b" {
	host "b.test"
	command "$T/bin/testhttp serve $PB"
	port $PB
}
CONF

asleep() {	# both workloads asleep
	[ "$("$ORCHCTL" -s "$SOCK" show workloads |
	    awk '($1 == "a" || $1 == "b") && $2 == "asleep"' |
	    wc -l)" -eq 2 ]
}
# burst: 3 clients of 10 requests on each workload, each status a line
# (each waited for by pid: a bare wait would wait for orchd too)
burst() {
	pids=
	for h in a b; do
		for c in 1 2 3; do
			curl -s -m 20 -o /dev/null -w '%{http_code}\n' \
			    -H "Host: $h.test" \
			    "http://127.0.0.1:$GW/[1-10]" >>"$T/codes" &
			pids="$pids $!"
		done
	done
	for p in $pids; do
		wait "$p"
	done
}
# sample LABEL: "NAME PID RSS_KB FDS" for every orchd process
sample() {
	for n in parent spawner store gateway reaper runtime; do
		if [ $n = parent ]; then
			p=$ORCHD_PID
		else
			p=$(child $n) || { echo "$n - 0 0"; continue; }
		fi
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status")
		fds=$(ls "/proc/$p/fd" | wc -l)
		echo "$n $p ${rss:-0} $fds"
	done >"$T/sample.$1"
}
wakes() { grep -c 'workload [ab]: waking -> running' "$T/orchd.log"; }

start_orchd_or_exit
: >"$T/codes"
cycles=0
t_end=$(($(date +%s) + SOAK))
while [ "$(date +%s)" -lt "$t_end" ] && [ $cycles -lt 1000 ]; do
	t0=$(date +%s)
	burst
	cycles=$((cycles + 1))
	if [ $cycles -eq "$WARM" ]; then
		wait_for 10 asleep || echo "# not asleep at the first sample"
		sample start
		w0=$(wakes)
	fi
	while [ "$(date +%s)" -lt $((t0 + CYCLE)) ]; do
		sleep 0.2
	done
done
check "both asleep at the end" wait_for 10 asleep
sample end

n=$(wc -l <"$T/codes")
bad=$(grep -vc '^2' "$T/codes")
w=$(($(wakes) - ${w0:-0}))
echo "# figure: soak_seconds $SOAK s"
echo "# figure: soak_cycles $cycles cycles"
echo "# figure: soak_requests $n requests"
echo "# figure: soak_wakes_after_warmup $w wakes"
check "$n requests, all 2xx ($bad not)" \
    sh -c "[ $n -gt 0 ] && [ $bad -eq 0 ]"
# the bursts after the first sample, 2 wakes each: 3 in 4 of them at least
want=$(((cycles - WARM) * 2 * 3 / 4))
check "the workloads were woken and suspended ($w wakes, at least $want)" \
    sh -c "[ $want -gt 0 ] && [ $w -ge $want ]"
while read -r name p0 r0 f0; do
	read -r _ p1 r1 f1 <<EOF
$(grep "^$name " "$T/sample.end")
EOF
	echo "# figure: soak_${name}_rss_start $r0 KiB"
	echo "# figure: soak_${name}_rss_end $r1 KiB"
	echo "# figure: soak_${name}_fds_start $f0 fds"
	echo "# figure: soak_${name}_fds_end $f1 fds"
	check "$name: the same process all along ($p0, $p1)" [ "$p0" = "$p1" ]
	check "$name: RSS $r0 -> $r1 KiB, grew by at most $RSS_KB" \
	    [ $((r1 - r0)) -le $RSS_KB ]
	check "$name: descriptors $f0 -> $f1, at most $FDS more" \
	    [ $((f1 - f0)) -le $FDS ]
done <"$T/sample.start"
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
