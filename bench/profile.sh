#!/bin/bash
# Where a proxied request's time goes, for gatewayd against nginx and
# haproxy, under the load of part 1 ("/", 32 connections, wrk pinned on
# the client CPU, servers on the other).  Not part of `make bench`.
#
#	bench/profile.sh [--callgrind | --callgrind-only] [--seconds N]
#
# 1. Syscalls per request of each proxy's worker process, counted with
#    perf stat on the syscalls:sys_enter_* tracepoints (no slowdown to
#    speak of), divided by the requests wrk saw in the same window.
# 2. perf record -e cpu-clock -g of gatewayd: user against kernel time,
#    the kernel time by syscall, the hottest functions.  (This machine has
#    no hardware counters, so cpu-clock sampling, not cycles.)
# 3. With --callgrind: gatewayd run under valgrind --tool=callgrind (a
#    wrapper beside a copy of orchd; chroot "/" so that the profile's
#    path is the same before and after the gateway chroots), a short
#    load, then callgrind_annotate: the
#    user-space instructions per request, by function.  BENCH_CG_PATH
#    (/) is the path it asks for: /4k or /256k to count a body's cost.
#
# Output: bench/results/profile-YYYY-MM-DD-HHMM.txt and the terminal.
CALLGRIND=
NOPERF=
PSECS=10
while [ $# -gt 0 ]; do
	case $1 in
	--callgrind) CALLGRIND=1 ;;
	--callgrind-only) CALLGRIND=1; NOPERF=1 ;;
	--seconds) PSECS=$2; shift ;;
	*) echo "usage: bench/profile.sh [--callgrind | --callgrind-only]" \
	    "[--seconds N]" >&2; exit 2 ;;
	esac
	shift
done
BENCH_RESULTS=$(cd "$(dirname "$0")" && pwd)/results/profile-$(date +%Y-%m-%d-%H%M).txt
export BENCH_RESULTS
BENCH_COMMAND="bench/profile.sh${CALLGRIND:+ --callgrind} --seconds $PSECS"
. "$(dirname "$0")/lib.sh"
mkdir -p "$TOP/bench/results"
bench_init
machine_header >"$BENCH_RESULTS"
bench_build
command -v perf >/dev/null 2>&1 || die "perf missing (apt-get install linux-perf)"
check_ports "$BACKEND_PORT" "$GW_PORT" "$NGX_PORT" "$HAP_PORT"

start_backend
start_nginx_proxy
start_haproxy
GW=$B/gw
mkdir -p "$GW"
{ orchd_globals "$GW"; orchd_backend_workload; } >"$GW/orchd.conf"
start_orchd "$GW"
wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
    "http://127.0.0.1:$GW_PORT/" || die "gatewayd does not proxy"
GW_WORKER=$(orchd_child gateway)
NGX_WORKER=$(pgrep -P "$NGX_PID" | head -n 1)
HAP_WORKER=$HAP_PID

SYSCALLS="epoll_wait epoll_pwait epoll_ctl read readv recvfrom recvmsg write
writev sendto sendmsg sendfile64 ioctl accept4 connect close socket
setsockopt getsockopt clock_gettime gettimeofday brk mmap munmap madvise"
events="raw_syscalls:sys_enter"
for s in $SYSCALLS; do
	perf list 2>/dev/null | grep -q "syscalls:sys_enter_$s " &&
	    events="$events,syscalls:sys_enter_$s"
done

# count PORT PID NAME PATH: syscalls per request over PSECS under wrk
count() {
	taskset -c "$CCPU" wrk -t1 -c32 -d"$((PSECS + 2))s" \
	    -H "Host: $HOSTNAME_BENCH" "http://127.0.0.1:$1$4" >"$B/wrk.$3" 2>&1 &
	w=$!
	sleep 1
	perf stat -x, -e "$events" -p "$2" -o "$B/stat.$3" -- sleep "$PSECS" \
	    2>/dev/null
	wait "$w"
}
rps() { wrk_field "$B/wrk.$1" rps; }
per() {	# per NAME EVENT
	awk -F, -v e="$2" -v r="$(rps "$1")" -v s="$PSECS" \
	    '$3 == e {printf "%.2f", $1 / (r * s)}' "$B/stat.$1"
}
if [ -z "$NOPERF" ]; then
for path in ${PROFILE_PATHS:-/ /256k}; do
	note "profile: syscall counts on $path, ${PSECS}s each"
	for t in gatewayd:$GW_PORT:$GW_WORKER nginx:$NGX_PORT:$NGX_WORKER \
	    haproxy:$HAP_PORT:$HAP_WORKER; do
		IFS=: read -r name port pid <<<"$t"
		count "$port" "$pid" "$name" "$path"
	done
	out ""
	out "== Syscalls per request (wrk -c32 \"$path\", ${PSECS}s window; perf stat on tracepoints)"
	out "$(printf '%-16s %10s %10s %10s' syscall gatewayd nginx haproxy)"
	for e in $(echo "$events" | tr ',' ' '); do
		g=$(per gatewayd "$e"); n=$(per nginx "$e"); h=$(per haproxy "$e")
		[ "$g$n$h" = "0.000.000.00" ] && continue
		out "$(printf '%-16s %10s %10s %10s' "${e#*sys_enter_}" "$g" "$n" "$h")"
	done
	out "$(printf '%-16s %10.0f %10.0f %10.0f' "(rps)" "$(rps gatewayd)" \
	    "$(rps nginx)" "$(rps haproxy)")"
done

# perf record of the gateway
note "profile: perf record of gatewayd, ${PSECS}s"
taskset -c "$CCPU" wrk -t1 -c32 -d"$((PSECS + 2))s" \
    -H "Host: $HOSTNAME_BENCH" "http://127.0.0.1:$GW_PORT/" >"$B/wrk.rec" 2>&1 &
w=$!
sleep 1
perf record -q -e cpu-clock -F 5000 -g -p "$GW_WORKER" -o "$B/perf.data" \
    -- sleep "$PSECS" >/dev/null 2>&1
wait "$w"
out ""
out "== gatewayd under wrk -c32 \"/\": perf record -e cpu-clock -g, ${PSECS}s, $(wrk_field "$B/wrk.rec" rps) rps"
out "-- by object (self)"
perf report -i "$B/perf.data" --no-children --sort dso --stdio 2>/dev/null |
    grep -E '^ +[0-9]' | head -n 8 | while read -r l; do out "   $l"; done
out "-- kernel time by syscall (children)"
perf report -i "$B/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
    grep -E '^ +[0-9].*\[k\] (__x64_sys_|__sys_|ksys_|do_epoll_|tcp_sendmsg|tcp_recvmsg|sock_ioctl|inet_accept|__sys_connect|do_sys_poll|__x64_sys_close)' | head -n 14 |
    while read -r l; do out "   $l"; done
out "-- hottest functions (self)"
perf report -i "$B/perf.data" --no-children --sort dso,sym --stdio -g none \
    2>/dev/null | grep -E '^ +[0-9]' | head -n 30 |
    while read -r l; do out "   $l"; done
out "-- user-space functions of gatewayd, libevent, libc (self)"
perf report -i "$B/perf.data" --no-children --sort dso,sym --stdio -g none \
    2>/dev/null | grep -E '^ +[0-9]' | grep -v '\[k\]' | head -n 25 |
    while read -r l; do out "   $l"; done

fi	# NOPERF

if [ -n "$CALLGRIND" ]; then
	command -v valgrind >/dev/null 2>&1 || die "valgrind missing"
	# valgrind cannot run under the seccomp filter: a build without it
	# (ORCHD_NO_SANDBOX), from the same sources as $BUILD
	SRC=$TOP
	[ -f "$(dirname "$BUILD")/Makefile" ] && SRC=$(dirname "$BUILD")
	[ -d "$B/src" ] && SRC=$B/src
	note "profile: building without the sandbox for valgrind"
	(cd "$SRC" && make -s BUILD="$B/nosb" CFLAGS=-DORCHD_NO_SANDBOX all) \
	    >"$B/nosb.log" 2>&1 || { tail "$B/nosb.log" >&2; die "make failed"; }

	# first, what the sandbox costs: the same gateway with and without
	# the seccomp filter, side by side, in turns
	S=$B/nosbrun
	mkdir -p "$S"
	{
		orchd_globals "$S" | sed "s/port $GW_PORT\$/port $((GW_PORT + 4))/"
		orchd_backend_workload
	} >"$S/orchd.conf"
	SB_PIDS=$(orchd_procs)
	ORCHD_SAVE=$ORCHD
	SB_ORCHD_PID=$ORCHD_PID
	ORCHD=$B/nosb/orchd
	start_orchd "$S"
	NOSB_PIDS=$(orchd_procs)
	wait_for 10 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$((GW_PORT + 4))/" || die "no-sandbox gatewayd does not proxy"
	: >"$B/sb.raw"
	for r in 1 2 3; do
		for v in sandbox nosandbox; do
			[ $v = sandbox ] && { port=$GW_PORT; pids=$SB_PIDS; } ||
			    { port=$((GW_PORT + 4)); pids=$NOSB_PIDS; }
			c0=$(cpu_ticks $pids)
			wrk_run "http://127.0.0.1:$port/" 32 "$B/wrk.sb"
			c1=$(cpu_ticks $pids)
			n=$(wrk_field "$B/wrk.sb" requests)
			echo "$v $(wrk_field "$B/wrk.sb" rps) $(awk -v d=$((c1 - c0)) \
			    -v n="$n" -v hz="$HZ" 'BEGIN {printf "%.2f", d / hz * 1e6 / n}')" \
			    >>"$B/sb.raw"
		done
	done
	stop_orchd
	ORCHD_PID=$SB_ORCHD_PID
	ORCHD=$ORCHD_SAVE
	out ""
	out "== The seccomp sandbox's cost: wrk -c32 \"/\", 3 rounds of ${SECS}s in turns (median)"
	for v in sandbox nosandbox; do
		out "$(printf '   %-10s %9.0f rps %8s us CPU per request' "$v" \
		    "$(awk -v v=$v '$1 == v {print $2}' "$B/sb.raw" | median)" \
		    "$(awk -v v=$v '$1 == v {print $3}' "$B/sb.raw" | median)")"
	done

	stop_orchd
	note "profile: gatewayd under callgrind"
	P=$B/prof
	CG=$B/cgout
	mkdir -p "$P" "$CG"
	# made here for the gateway, which writes it after it dropped root
	: >"$CG/callgrind.out"
	chown _orchd "$CG" "$CG/callgrind.out"
	cp "$B/nosb/orchd" "$B/nosb/confd" "$B/nosb/spawnerd" "$B/nosb/stored" \
	    "$B/nosb/reaperd" "$B/nosb/runtimed" "$P/"
	cp "$B/nosb/gatewayd" "$P/gatewayd.real"
	cat >"$P/gatewayd" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$CG/callgrind.out \
    --log-file=$CG/valgrind.log "$P/gatewayd.real" "\$@"
EOF
	chmod 0755 "$P/gatewayd"
	C=$B/cg
	mkdir -p "$C"
	{
		orchd_globals "$C"
		echo 'chroot "/"'
		orchd_backend_workload
	} >"$C/orchd.conf"
	ORCHD=$P/orchd
	start_orchd "$C" 60
	wait_for 30 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$GW_PORT/" || die "gatewayd under valgrind does not proxy"
	taskset -c "$CCPU" wrk -t1 -c32 -d"${PSECS}s" -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$GW_PORT${BENCH_CG_PATH:-/}" >"$B/wrk.cg" 2>&1
	reqs=$(wrk_field "$B/wrk.cg" requests)
	stop_orchd
	wait_for 30 test -s "$CG/callgrind.out" ||
	    die "no callgrind output (see $CG/valgrind.log)"
	cp "$CG/callgrind.out" "$TOP/bench/results/callgrind.gatewayd.out"
	short() { sed -e "s|$SRC/||g" -e "s|$TOP/||g" -e "s| \[$P/gatewayd.real\]||" \
	    -e 's| \[/usr/lib/x86_64-linux-gnu/\([^]]*\)\]| [\1]|'; }
	total=$(callgrind_annotate "$CG/callgrind.out" 2>/dev/null |
	    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
	out ""
	out "== gatewayd under callgrind: $reqs requests (wrk -c32 \"${BENCH_CG_PATH:-/}\", ${PSECS}s); program total $total Ir, $(awk -v t="$total" -v r="$reqs" 'BEGIN {printf "%.0f", t / r}') Ir per request"
	out "-- self"
	callgrind_annotate "$CG/callgrind.out" 2>/dev/null |
	    sed -n '/^Ir/,$p' | grep -E '^ *[0-9,]+ ' | head -n 30 | short |
	    while read -r l; do out "   $l"; done
	out "-- inclusive"
	callgrind_annotate --inclusive=yes "$CG/callgrind.out" 2>/dev/null |
	    sed -n '/^Ir/,$p' | grep -E '^ *[0-9,]+ ' | head -n 30 | short |
	    while read -r l; do out "   $l"; done
	out "   (callgrind file: bench/results/callgrind.gatewayd.out)"
fi
note "profile: $BENCH_RESULTS"
