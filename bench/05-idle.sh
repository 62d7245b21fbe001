#!/bin/bash
# 5. Idle footprint: the memory of each orchd process with one workload,
# asleep, a few seconds after start; then the same for orchd built with
# make STATIC=1, for nginx (the master and 1 worker, proxy configuration
# of part 1) and for haproxy (1 thread), all idle, in the same run.
#
# From /proc/PID/smaps_rollup: RSS (what the target counts: every page a
# process maps, shared or not), PSS (shared pages split among the
# processes that map them: the five share libc, libevent... with each
# other and with the rest of the machine), USS (pages no other process
# maps: what stopping it gives back for sure) and private dirty.
#
#	bench/05-idle.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
check_ports "$GW_PORT" "$NGX_PORT" "$HAP_PORT"
mkdir -p "$B/www"

smaps() {	# smaps PID FIELD: KiB
	awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null
}

# footprint NAME PID...: one line a process, then the total, which is
# also left in $B/fp.NAME as "RSS PSS USS"
footprint() {
	name=$1
	shift
	tr=0; tp=0; tu=0; td=0
	for p in "$@"; do
		n=$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{
		    if ($1 == "orchd:") print $2;
		    else if ($1 == "nginx:") print "nginx " $2;
		    else print $1 }')
		r=$(rss_kib "$p"); s=$(smaps "$p" Pss); d=$(smaps "$p" Private_Dirty)
		u=$(( $(smaps "$p" Private_Clean) + ${d:-0} ))
		tr=$((tr + r)); tp=$((tp + ${s:-0})); tu=$((tu + u))
		td=$((td + ${d:-0}))
		out "$(printf '  %-12s %8s %8s %8s %14s' "${n##*/}" "$r" "${s:-?}" "$u" "${d:-?}")"
	done
	out "$(printf '  %-12s %8s %8s %8s %14s' total "$tr" "$tp" "$tu" "$td")"
	echo "$tr $tp $tu" >"$B/fp.$name"
}

# idle_orchd: start the orchd of $ORCHD with one sleeping workload
idle_orchd() {
	I=$B/idle.$1
	rm -rf "$I"
	mkdir -p "$I"
	{
		orchd_globals "$I"
		cat <<EOF2
workload "one" {
	host "one.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$WAKE_PORT -h $B/www"
	port $WAKE_PORT
}
EOF2
	} >"$I/orchd.conf"
	start_orchd "$I"
	sleep 3
}

hdr() {
	out "$(printf '  %-12s %8s %8s %8s %14s' process RSS PSS USS private_dirty)"
}

out ""
out "== 5. Idle footprint: one workload, asleep (KiB)"
out "orchd, as built by make:"
hdr
idle_orchd dynamic
footprint orchd $(orchd_procs)
stop_orchd

# the same tree, the children linked statically, in a build of its own
src=$TOP
[ -f "$(dirname "$BUILD")/Makefile" ] && src=$(dirname "$BUILD")
SBUILD=$BUILD-static
if (cd "$src" && make -s -j2 BUILD="$SBUILD" STATIC=1 all) \
    >"$B/make-static.log" 2>&1; then
	# written back, so that the new binaries' pages are not counted
	# as dirty
	sync
	DORCHD=$ORCHD DORCHCTL=$ORCHCTL
	ORCHD=$SBUILD/orchd ORCHCTL=$SBUILD/orchctl
	out "orchd, make STATIC=1:"
	hdr
	idle_orchd static
	footprint static $(orchd_procs)
	stop_orchd
	ORCHD=$DORCHD ORCHCTL=$DORCHCTL
else
	out "orchd, make STATIC=1: the build failed (see $B/make-static.log)"
	echo "0 0 0" >"$B/fp.static"
fi

out "nginx, the proxy of part 1 (master and $WORKERS worker):"
hdr
start_nginx_proxy
sleep 2
footprint nginx "$NGX_PID" $(pgrep -P "$NGX_PID")
stop_pid "$NGX_PID" 15

out "haproxy, the proxy of part 1 ($WORKERS thread):"
hdr
start_haproxy
sleep 2
footprint haproxy "$HAP_PID"
stop_pid "$HAP_PID" 15

read -r or op ou <"$B/fp.orchd"
read -r sr sp su <"$B/fp.static"
read -r nr np nu <"$B/fp.nginx"
read -r hr hp hu <"$B/fp.haproxy"
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
out "$(printf 'all daemons together: %s MiB RSS (target < 10 MiB), %s MiB PSS, %s MiB USS' \
    "$(mib "$or")" "$(mib "$op")" "$(mib "$ou")")"
out "$(printf '  make STATIC=1:       %s MiB RSS, %s MiB PSS, %s MiB USS' \
    "$(mib "$sr")" "$(mib "$sp")" "$(mib "$su")")"
out "$(printf '  orchd / nginx:   RSS %s  PSS %s  USS %s' "$(ratio "$or" "$nr")" \
    "$(ratio "$op" "$np")" "$(ratio "$ou" "$nu")")"
out "$(printf '  orchd / haproxy: RSS %s  PSS %s  USS %s' "$(ratio "$or" "$hr")" \
    "$(ratio "$op" "$hp")" "$(ratio "$ou" "$hu")")"
