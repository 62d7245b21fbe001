#!/bin/bash
# 4. Scale.  One orchd per size, each with the route of the keep warm
# workload that stands for the nginx backend and N more process
# workloads, all asleep (host wN.bench, command busybox sleep, idle
# timeout 5m; address 127.0.K.1 with K the ten-thousand the workload is
# in, and port BENCH_SCALE_PORT+1 .. +10000 in it, so that 100,000 fit;
# 10001-20000 by default, below the kernel's ephemeral range, of which
# orchd warns for each workload at every reload),
# reaper interval 1s.  The sizes are those of --sizes (or
# BENCH_SCALE_SIZES), 1, 10,000 and 100,000 by default; the first size is
# the reference that the others are measured against, and it runs the
# whole time.  Measured for each size:
#
#	start-up time, to `orchctl show summary` answering and to the first
#	request routed;
#	RSS and PSS of every orchd process (PSS: a page shared by n
#	processes counts 1/n in each), and the PSS per sleeping workload
#	summed over all of them, against the first size;
#	`orchctl reload` wall time with nothing changed (median of 3) and
#	with one workload changed (its idle timeout, median of 3);
#	PSS after 1 reload and after BENCH_SCALE_RELOADS (20; quick 5);
#	the reaper's CPU per tick (/proc/PID/schedstat), all orchd CPU idle;
#
# then wrk on the one route, the first size against the last, in turns
# (A B, B A, ...; --no-wrk skips it).  Beware: the gateway's heap size
# alone moves its rps by ~10 % (glibc trims the heap top after each
# request on a small heap: see README).
#
#	bench/04-scale.sh [--quick] [--sizes 1,10000,20000] [--no-wrk]
SIZES=${BENCH_SCALE_SIZES:-1 10000 100000}
DO_WRK=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) export BENCH_QUICK=1 ;;
	--sizes) SIZES=$(echo "${2:-}" | tr ',' ' '); shift ;;
	--no-wrk) DO_WRK= ;;
	*) echo "usage: $0 [--quick] [--sizes N,N,...] [--no-wrk]" >&2
	   exit 1 ;;
	esac
	shift
done
. "$(dirname "$0")/lib.sh"

for n in $SIZES; do
	case $n in ''|*[!0-9]*) die "--sizes: $n is not a number" ;; esac
	[ "$n" -ge 1 ] && [ "$n" -le 200000 ] || die "--sizes: $n: 1 to 200000"
done
set -- $SIZES
[ $# -ge 2 ] || die "--sizes: at least two sizes"
FIRST=$1
eval "LAST=\${$#}"

bench_init
bench_build
# below the kernel's ephemeral range, or orchd warns of each workload
WPORT0=${BENCH_SCALE_PORT:-10000}
[ $((WPORT0 + 10000)) -le 65535 ] || die "BENCH_SCALE_PORT too high"
TICK_SECS=${BENCH_TICK_SECS:-10}
NRELOADS=${BENCH_SCALE_RELOADS:-20}
if [ -n "$QUICK" ]; then
	TICK_SECS=${BENCH_TICK_SECS:-4}
	NRELOADS=${BENCH_SCALE_RELOADS:-5}
fi
check_ports "$BACKEND_PORT" "$GW_PORT"
start_backend

# conf_size DIR N GWPORT: the route and N sleeping workloads
conf_size() {
	orchd_globals "$1" | sed "s/port $GW_PORT\$/port $3/"
	echo "reaper interval 1s"
	orchd_backend_workload
	awk -v n="$2" -v p0="$WPORT0" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "workload \"w%d\" {\n\thost \"w%d.bench\"\n" \
			    "\tcommand \"/bin/busybox sleep 100000\"\n" \
			    "\taddress \"127.0.%d.1\"\n\tport %d\n" \
			    "\tidle timeout 5m\n}\n", i, i,
			    1 + int((i - 1) / 10000), p0 + 1 + (i - 1) % 10000
	}'
}

# start_timed DIR PORT VAR: starts orchd, sets VAR_PID, VAR_CTL (ms to
# orchctl answering) and VAR_ROUTE (ms to the first 200 through it)
start_timed() {
	d=$1
	t0=$(now_ns)
	taskset -c "$SCPU" "$ORCHD" -d -f "$d/orchd.conf" >>"$d/orchd.log" 2>&1 &
	pid=$!
	track "$pid"
	wait_for 300 "$ORCHCTL" -s "$d/orchd.sock" show summary || {
		tail -n 20 "$d/orchd.log" >&2
		FAILED="$FAILED; $(basename "$d"): orchctl did not answer within 300 s"
		eval "${3}_PID=$pid ${3}_CTL=- ${3}_ROUTE=-"
		return 1
	}
	t1=$(now_ns)
	if wait_for 300 curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$2/"; then
		route=$((($(now_ns) - t0) / 1000000))
	else
		route=-
		FAILED="$FAILED; $(basename "$d"): the route did not answer within 300 s"
	fi
	eval "${3}_PID=$pid ${3}_CTL=$(((t1 - t0) / 1000000)) ${3}_ROUTE=$route"
}

# procs_of PID: the orchd parent and its orchd children
procs_of() {
	echo "$1"
	for c in $(pgrep -P "$1"); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
		    grep -q '^orchd' && echo "$c"
	done
	return 0
}
# pss_kib PID: its proportional set size
pss_kib() {
	awk '/^Pss:/ {print $2; exit}' "/proc/$1/smaps_rollup" 2>/dev/null ||
	    echo 0
}
# uss_kib PID: what it alone maps (private clean + dirty): not moved by
# other processes mapping the same binaries, as PSS is
uss_kib() {
	awk '/^Private_(Clean|Dirty):/ {s += $2} END {print s + 0}' \
	    "/proc/$1/smaps_rollup" 2>/dev/null || echo 0
}
# mem_table PID FILE: "name rss_kib pss_kib uss_kib" per process
mem_table() {
	local p nm
	for p in $(procs_of "$1"); do
		nm=$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{print $2}')
		echo "${nm:-parent} $(rss_kib "$p") $(pss_kib "$p") $(uss_kib "$p")"
	done >"$2"
}
sum_col() { awk -v c="$2" '{s += $c} END {print s + 0}' "$1"; }
# exec_ns PID: time on CPU, all threads
exec_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
	    awk '{s += $1} END {printf "%.0f\n", s}'
}
sum_ns() { s=0; for p in "$@"; do s=$((s + $(exec_ns "$p"))); done; echo $s; }
reaper_of() {
	for p in $(procs_of "$1"); do
		tr '\0' ' ' <"/proc/$p/cmdline" | grep -q '^orchd: reaper' &&
		    echo "$p"
	done
	return 0
}

# reload_once DIR: prints its wall time in ms, or - when it failed
reload_once() {
	t0=$(now_ns)
	if timeout 300 "$ORCHCTL" -s "$1/orchd.sock" reload \
	    >>"$B/ctl.log" 2>&1; then
		echo $((($(now_ns) - t0) / 1000000))
	else
		FAILED="$FAILED; $(basename "$1"): orchctl reload failed: $(tail -n 1 "$B/ctl.log")"
		echo -
	fi
}
# flip_w1 DIR: w1's idle timeout 5m <-> 6m, one workload changed
flip_w1() {
	awk 'BEGIN {w = 0}
	    /^workload "w1" \{/ {w = 1}
	    w && /idle timeout/ {
		sub(/5m/, "X"); sub(/6m/, "5m"); sub(/X/, "6m"); w = 0 }
	    {print}' "$1/orchd.conf" >"$1/orchd.conf.new" &&
	    mv "$1/orchd.conf.new" "$1/orchd.conf"
}

# cpu_table PID FILE: "name cpu_ns" per process
cpu_table() {
	local p nm
	for p in $(procs_of "$1"); do
		nm=$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{print $2}')
		echo "${nm:-parent} $(exec_ns "$p")"
	done >"$2"
}

# measure N IDX: one size, its figures in $B/fig.IDX
measure() {
	# i too: wait_for (lib.sh) counts in it
	local n=$1 ix=$2 i d port r all a A b Bn tick idle k
	d=$B/s$n
	port=$((PORT0 + 5 + ix))
	[ "$ix" = 0 ] && port=$GW_PORT
	mkdir -p "$d"
	chmod 0755 "$d"
	conf_size "$d" "$n" "$port" >"$d/orchd.conf"
	check_ports "$port"
	note "part 4: orchd with $n sleeping workloads"
	start_timed "$d" "$port" S || return 0
	sleep 3
	mem_table "$S_PID" "$B/mem.$n.start"
	[ -n "${REF_PID:-}" ] && mem_table "$REF_PID" "$B/ref.$n.start"
	r=$(reaper_of "$S_PID"); all=$(procs_of "$S_PID")
	a=$(exec_ns "$r"); A=$(sum_ns $all)
	sleep "$TICK_SECS"
	b=$(exec_ns "$r"); Bn=$(sum_ns $all)
	tick=$(awk -v d=$((b - a)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')
	idle=$(awk -v d=$((Bn - A)) -v s="$TICK_SECS" 'BEGIN {printf "%.3f", d / s / 1e6}')
	# nothing changed: 3 reloads, the memory after the first
	: >"$B/rl0"
	for k in 1 2 3; do
		reload_once "$d" >>"$B/rl0"
		[ $k = 1 ] && { sleep 1; mem_table "$S_PID" "$B/mem.$n.r1"; }
		sleep 0.5
	done
	# one workload changed: 3 reloads, each process's CPU around them
	: >"$B/rl1"
	cpu_table "$S_PID" "$B/cpu.$n.a"
	for k in 1 2 3; do
		flip_w1 "$d"
		reload_once "$d" >>"$B/rl1"
		sleep 0.5
	done
	cpu_table "$S_PID" "$B/cpu.$n.b"
	# up to NRELOADS in all
	k=6
	while [ $k -lt "$NRELOADS" ]; do
		reload_once "$d" >/dev/null
		k=$((k + 1))
	done
	sleep 1
	mem_table "$S_PID" "$B/mem.$n.rN"
	[ -n "${REF_PID:-}" ] && mem_table "$REF_PID" "$B/ref.$n.rN"
	curl -sf -o /dev/null -H "Host: $HOSTNAME_BENCH" \
	    "http://127.0.0.1:$port/" ||
	    FAILED="$FAILED; $n: no route after the reloads"
	{
		echo "CTL=$S_CTL ROUTE=$S_ROUTE TICK=$tick IDLE=$idle"
		echo "RL0=$(grep -v - "$B/rl0" | median 2>/dev/null)"
		echo "RL1=$(grep -v - "$B/rl1" | median 2>/dev/null)"
		echo "PORT=$port PID=$S_PID"
	} >"$B/fig.$ix"
	grep -E 'fatal|error|lost child|too (big|large)|truncat' \
	    "$d/orchd.log" | head -n 10 | sed "s/^/   $n: orchd.log: /" |
	    tee -a "$RESULTS"
	# the first runs throughout (the reference), the last stays for wrk
	[ "$ix" = 0 ] && REF_PID=$S_PID
	if [ "$n" != "$FIRST" ] && [ "$n" != "$LAST" ]; then
		stop_pid "$S_PID" 30
	fi
}

FAILED=
idx=0
for n in $SIZES; do
	measure "$n" "$idx"
	idx=$((idx + 1))
done

# rps on the one route, the first and the last size in turns
rps1=- rpsn=-
if [ -n "$DO_WRK" ] && [ -f "$B/fig.0" ] && [ -f "$B/fig.$((idx - 1))" ]; then
	p1=$(sed -n 's/^PORT=\([0-9]*\).*/\1/p' "$B/fig.0")
	pn=$(sed -n 's/^PORT=\([0-9]*\).*/\1/p' "$B/fig.$((idx - 1))")
	: >"$B/scale.raw"
	for r in $(seq 1 "$ROUNDS"); do
		order="$p1 $pn"
		[ $((r % 2)) = 0 ] && order="$pn $p1"
		for p in $order; do
			wrk_run "http://127.0.0.1:$p/" 32 "$B/wrk.out"
			echo "$p $r $(wrk_field "$B/wrk.out" rps) $(wrk_field "$B/wrk.out" p99)" \
			    >>"$B/scale.raw"
		done
	done
	rps1=$(awk -v p="$p1" '$1 == p {print $3}' "$B/scale.raw" | median)
	rpsn=$(awk -v p="$pn" '$1 == p {print $3}' "$B/scale.raw" | median)
fi

# the table: a column per size
fig() { sed -n "s/.*\\<$2=\\([^ ]*\\).*/\\1/p" "$B/fig.$1" 2>/dev/null; }
row() {
	label=$1; shift
	line=$(printf '%-44s' "$label")
	for v in "$@"; do line="$line$(printf ' %12s' "${v:--}")"; done
	out "$line"
}
cols() {	# cols KEY: that figure for every size
	j=0
	for n in $SIZES; do
		v=$(fig $j "$1")
		printf '%s ' "${v:--}"
		j=$((j + 1))
	done
}
memcol() {	# memcol WHEN NAME COLUMN: per size, - when absent
	for n in $SIZES; do
		v=$(awk -v m="$2" -v c="$3" '$1 == m {print $c}' \
		    "$B/mem.$n.$1" 2>/dev/null)
		printf '%s ' "${v:--}"
	done
}
sumcol() {	# sumcol WHEN COLUMN
	for n in $SIZES; do
		if [ -s "$B/mem.$n.$1" ]; then
			printf '%s ' "$(sum_col "$B/mem.$n.$1" "$2")"
		else
			printf '%s ' -
		fi
	done
}
# perwl WHEN: PSS bytes per sleeping workload against FIRST, measured
# at the same moment (the two share the binaries' pages, which PSS
# divides between them)
perwl() {
	local c=${2:-3}
	for n in $SIZES; do
		if [ "$n" = "$FIRST" ] || [ ! -s "$B/mem.$n.$1" ] ||
		    [ ! -s "$B/ref.$n.$1" ]; then
			printf '%s ' -
			continue
		fi
		awk -v a="$(sum_col "$B/ref.$n.$1" "$c")" \
		    -v b="$(sum_col "$B/mem.$n.$1" "$c")" -v n="$((n - FIRST))" \
		    'BEGIN {printf "%.0f ", (b - a) * 1024 / n}'
	done
}

heads=
for n in $SIZES; do heads="$heads $n"; done
out ""
out "== 4. Scale: the route and N sleeping workloads, reaper interval 1s, $NRELOADS reloads"
row "sleeping workloads" $heads
row "start-up to orchctl answering, ms" $(cols CTL)
row "start-up to first routed 200, ms" $(cols ROUTE)
row "reload, nothing changed, ms (median of 3)" $(cols RL0)
row "reload, one workload changed, ms (median 3)" $(cols RL1)
names=$(awk '{print $1}' "$B/mem.$FIRST.start" 2>/dev/null)
for m in $names; do
	row "PSS $m, KiB" $(memcol start "$m" 3)
done
row "PSS all orchd processes, KiB" $(sumcol start 3)
row "  after 1 reload, KiB" $(sumcol r1 3)
row "  after $NRELOADS reloads, KiB" $(sumcol rN 3)
row "PSS bytes per sleeping workload" $(perwl start)
row "  after $NRELOADS reloads" $(perwl rN)
row "USS all orchd processes, KiB" $(sumcol start 4)
row "  after 1 reload, KiB" $(sumcol r1 4)
row "  after $NRELOADS reloads, KiB" $(sumcol rN 4)
row "USS bytes per sleeping workload" $(perwl start 4)
for m in $names; do
	row "USS $m, KiB" $(memcol start "$m" 4)
done
for m in $names; do
	row "RSS $m, KiB" $(memcol start "$m" 2)
done
row "RSS all orchd processes, KiB" $(sumcol start 2)
for m in $names; do	# per reload: the 3 summed, over 3
	row "CPU $m per one-change reload, ms" $(for n in $SIZES; do
		awk -v m="$m" '$1 == m {a[FILENAME == ARGV[1]] = $2}
		    END {if (1 in a && 0 in a) printf "%.1f ", (a[0] - a[1]) / 3e6
			else printf "- "}' "$B/cpu.$n.a" "$B/cpu.$n.b" 2>/dev/null ||
		    printf '%s ' -
	done)
done
row "reaper CPU per 1s tick, ms" $(cols TICK)
row "all orchd CPU while idle, ms/s" $(cols IDLE)
if [ "$rps1" != - ]; then
	out "rps on one route (wrk c32, median of $ROUNDS): $(printf '%.0f' \
	    "$rps1") with $FIRST, $(printf '%.0f' "$rpsn") with $LAST," \
	    "ratio $(ratio "$rpsn" "$rps1")"
	sed 's/^/   raw: /' "$B/scale.raw" >>"$RESULTS"
fi
for n in $SIZES; do
	for w in start r1 rN; do
		[ -s "$B/mem.$n.$w" ] &&
		    sed "s/^/   mem $n $w: /" "$B/mem.$n.$w" >>"$RESULTS"
		[ -s "$B/ref.$n.$w" ] &&
		    sed "s/^/   ref $n $w: /" "$B/ref.$n.$w" >>"$RESULTS"
	done
done
if [ -n "$FAILED" ]; then
	out "FAILED at scale:${FAILED#;}"
fi
exit 0
