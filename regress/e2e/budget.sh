#!/bin/sh
# The memory budget, with workloads that really use memory (testhttp
# allocating and writing 40 MiB before it listens), orchd and its
# workloads inside a memory cgroup limited to the budget and orchd's own
# footprint:
#  - a budget that fits two: a request to a third suspends the least
#    recently used idle one first (the history says budget), never one
#    with a request in flight;
#  - both busy with slow requests: the third waits and is served once one
#    finishes and its workload is suspended; or, busy longer than its
#    wake timeout, it gets 503 with Retry-After, and nothing failed;
#  - a workload's measured peak becomes its estimate (MEM, show workload,
#    /metrics), and show stats and /metrics count the waits and the
#    suspends by reason;
#  - no workload is OOM-killed (the kernel log, the exits, the history).
# Then `max concurrent wakes 2` with 6 sleeping workloads woken together:
# never more than 2 starting at once (each logs when it started and when
# it listened).  Then memory pressure from a PSI file of the test's
# (ORCHD_PSI_FILE): above the limit the least recently used idle workload
# is suspended, one a tick, never one kept warm; under it, none; and
# without PSI, orchd says so once.  Then who is never suspended for
# room: a workload whose busy path says busy, and one that a workload up
# depends on; and a wake that waits for room, its workload removed by a
# reload; with max concurrent wakes 1, a workload and what it depends on
# both start.  Last, a workload replaced side by side is charged for both
# its instances meanwhile.  Loopback only, every wait bounded.
#
#	sh regress/e2e/budget.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

HTTP=$BUILD/regress/testhttp
base=$((20000 + ($$ * 23) % 12000))
GW=$(free_port "$base")
P=$GW
# port: the next free port into P (not in a subshell: P must move on)
port() { P=$(free_port $((P + 1))); }
port; P_A=$P; port; P_B=$P; port; P_C=$P; port; P_D=$P; port; P_M=$P
port; P_K=$P; port; API=$P
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

mkdir -p "$T/log" "$T/run"
chmod 1777 "$T/run"
: >"$T/run/starts"
: >"$T/run/times"
chmod 0666 "$T/run/starts" "$T/run/times"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
is_state() {	# is_state NAME STATE
	ctl show workloads 2>/dev/null | grep -Eq "^$1 +$2 "
}
# the history of NAME has a transition FROM TO with REASON
in_history() {
	ctl show workload "$1" 2>/dev/null |
	    grep -Eq "^[0-9TZ:-]+ +$2 +$3 +$4( |\$)"
}
get() {		# get HOST PATH: the body
	curl -sS -m 40 -H "Host: $1" "http://127.0.0.1:$GW$2"
}
# status HOST PATH OUT: the status and the Retry-After into OUT
status() {
	curl -s -m 40 -o /dev/null -D "$3.head" -w '%{http_code}' \
	    -H "Host: $1" "http://127.0.0.1:$GW$2" >"$3"
}
starts() { grep -c " $1\$" "$T/run/starts"; }
metric() {	# metric REGEX: a line of a fresh /metrics matches it
	curl -s -m 10 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" >"$T/metrics" 2>/dev/null
	grep -q "$1" "$T/metrics"
}
listeners() {
	printf 'listen on 127.0.0.1 port %s\n' "$GW"
	printf 'api listen on 127.0.0.1 port %s\n' "$API"
	printf 'api key file "%s"\n' "$T/api.key"
}
wl() {		# wl NAME HOST PORT [LINE...]: a testhttp workload
	name=$1 host=$2 wport=$3
	shift 3
	printf 'workload "%s" {\n\thost "%s"\n' "$name" "$host"
	printf '\tcommand "/bin/sh %s/wl.sh %s %s"\n\tport %s\n' "$T/run" \
	    "$name" "$wport" "$wport"
	conf_end "$@"
}
# each start says who it is, then becomes testhttp
cat >"$T/run/wl.sh" <<EOF
#!/bin/sh
echo "\$\$ \$1" >>"$T/run/starts"
exec "$HTTP" serve "\$2"
EOF
chmod 0755 "$T/run/wl.sh"

# orchd and everything it starts in a memory cgroup of the test's: the
# workloads' own cgroups nest in it (cgroup v1), so its limit is theirs
MEMCG=
cg_own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
if [ -d /sys/fs/cgroup/memory ] && [ -n "$cg_own" ]; then
	MEMCG=/sys/fs/cgroup/memory${cg_own%/}/orchd-e2e-budget-$$
	mkdir "$MEMCG" 2>/dev/null || MEMCG=
fi
cleanup_cg() {
	[ -n "$MEMCG" ] || return 0
	for p in $(cat "$MEMCG/cgroup.procs" 2>/dev/null); do
		echo "$p" >"/sys/fs/cgroup/memory${cg_own%/}/cgroup.procs" \
		    2>/dev/null
	done
	find "$MEMCG" -depth -type d -exec rmdir {} \; 2>/dev/null
}
trap 'e2e_cleanup; cleanup_cg' EXIT
trap 'exit 1' INT TERM
start_in_cg() {
	if [ -n "$MEMCG" ]; then
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh \
		    "$MEMCG" "$ORCHD" -d -f "$T/orchd.conf" \
		    >>"$T/orchd.log" 2>&1 &
	else
		"$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
	fi
	ORCHD_PID=$!
	wait_for 20 "$ORCHCTL" -s "$SOCK" show summary
}

# 1. a budget of 166M: one kept warm charged 16M, and two workloads
# charged 64M each fit, three do not
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 1h
reaper interval 1s
wake timeout 10s
memory budget 166M
memory estimate 64M
$(listeners)
CONF
{
	# the least recently used of all, never requested: never taken
	wl k k.test "$P_K" 'memory 16M' 'env "TESTHTTP_ALLOC=8"' 'keep warm'
	wl a a.test "$P_A" 'memory 64M' 'env "TESTHTTP_ALLOC=40"'
	wl b b.test "$P_B" 'memory 64M' 'env "TESTHTTP_ALLOC=40"'
	wl c c.test "$P_C" 'memory 64M' 'env "TESTHTTP_ALLOC=40"'
	wl d d.test "$P_D" 'memory 64M' 'env "TESTHTTP_ALLOC=40"' \
	    'wake timeout 3s'
	# no limit: charged the estimate, then what it was measured to use
	wl m m.test "$P_M" 'env "TESTHTTP_ALLOC=30"'
} >>"$T/orchd.conf"

if start_in_cg; then ok "orchd starts"; else
	fail "orchd starts"; tail -n 20 "$T/orchd.log"; e2e_done; exit 1
fi
if [ -n "$MEMCG" ]; then
	# orchd's own footprint now, and the budget on top, and some slack
	foot=$(cat "$MEMCG/memory.usage_in_bytes")
	echo $((foot + 166 * 1048576 + 32 * 1048576)) \
	    >"$MEMCG/memory.limit_in_bytes"
	ok "in a memory cgroup limited to $(($(cat \
	    "$MEMCG/memory.limit_in_bytes") / 1048576)) MiB: orchd's" \
	    "$((foot / 1048576)) MiB, the budget and 32 MiB"
fi

check "k, kept warm, runs" wait_for 10 is_state k running
check "a wakes" [ "$(get a.test /)" = "hello from testhttp" ]
check "b wakes" [ "$(get b.test /)" = "hello from testhttp" ]
# a is used again after b: b is the least recently used (seconds)
sleep 1.2
get a.test / >/dev/null
sleep 1.5
check "show stats: 144M of 166M in use, k's 16M counted" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show stats |
    grep -q '^memory budget: 166M, 144M in use'"
check "c wakes: served" [ "$(get c.test /)" = "hello from testhttp" ]
check "b, the least recently used, was suspended for it" \
    in_history b running suspending budget
check "asleep now" is_state b asleep
check "a, used since, runs on" is_state a running
check "k, kept warm and used least recently of all, runs on" \
    is_state k running
check "and the log says why" \
    logged "workload b: suspending it for room in the memory budget: c"
pid_b=$(awk '$2 == "b" { p = $1 } END { print p }' "$T/run/starts")
check "b's process ($pid_b) was stopped" dead "$pid_b"

# 2. both running ones busy: the third waits for one to finish
status a.test '/slow?3000' "$T/slow.a" &
s1=$!
status c.test '/slow?3000' "$T/slow.c" &
s2=$!
sleep 1.2
t0=$(now_ms)
check "b, with a and c busy, is served once one of them is done" \
    [ "$(get b.test /)" = "hello from testhttp" ]
waited=$(($(now_ms) - t0))
wait $s1 $s2
check "after waiting for it (${waited} ms)" within "$waited" 1000 9000
check "both slow requests were answered 200, none cut" \
    [ "$(cat "$T/slow.a")$(cat "$T/slow.c")" = 200200 ]
check "the log says b waited" logged "workload b: wake waits"
check "one of a and c was suspended for it, once its request was done" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload a |
    grep -Eq ' running +suspending +budget' ||
    \"$ORCHCTL\" -s \"$SOCK\" show workload c |
    grep -Eq ' running +suspending +budget'"

# 3. busy longer than d's 3 s wake timeout: 503 with Retry-After
running=$(ctl show workloads |
    awk '$2 == "running" && $1 != "k" { print $1 }' | tr '\n' ' ')
set -- $running
check "two run: $running" [ $# -eq 2 ]
status "$1.test" '/slow?7000' "$T/slow.1" &
s1=$!
status "$2.test" '/slow?7000' "$T/slow.2" &
s2=$!
sleep 1.2
t0=$(now_ms)
status d.test / "$T/d"
took=$(($(now_ms) - t0))
check "d gets 503, not 504 ($(cat "$T/d"))" [ "$(cat "$T/d")" = 503 ]
check "with Retry-After" grep -qi '^Retry-After: [0-9]' "$T/d.head"
check "at its wake timeout (${took} ms)" within "$took" 2500 6000
wait $s1 $s2
check "the busy ones answered 200 all the same" \
    [ "$(cat "$T/slow.1")$(cat "$T/slow.2")" = 200200 ]
check "d never started" [ "$(starts d)" -eq 0 ]
check "and did not fail: asleep" is_state d asleep
check "its history has no failure" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" show workload d | grep -q failed"
check "the log says it was not admitted" \
    logged "workload d: wake not admitted: no room in the memory budget"
check "show stats counts the waits and the one not admitted" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show stats |
    grep -Eq '^wakes that waited: [2-9], 1 not admitted'"

# 4. measured: m, charged 64M until it ran, then what it used
check "m wakes" [ "$(get m.test /)" = "hello from testhttp" ]
ctl suspend m >/dev/null 2>&1
check "m suspended by the operator" in_history m running suspending operator
mem=$(ctl -j show workload m |
    sed -n 's/^ *"memory_estimate": \([0-9]*\).*/\1/p')
check "its estimate is what it used: 30 MiB and a little ($mem)" \
    [ "${mem:-0}" -gt $((30 * 1048576)) -a "${mem:-0}" -lt $((48 * 1048576)) ]
check "the MEM column says so" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^m +asleep +process +3[0-9.]+M '"
check "show workload too" sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload m |
    grep -Eq '^memory used: +3[0-9.]+M at its last run.s peak, estimate 3'"
check "/metrics: its estimate" wait_for 5 metric \
    '^orchd_workload_memory_estimate_bytes{workload="m"} 3[0-9]\{7\}$'
check "/metrics: the budget and what is in use" \
    sh -c "grep -q '^orchd_memory_budget_bytes 174063616$' '$T/metrics' &&
    grep -q '^orchd_memory_in_use_bytes [0-9]' '$T/metrics'"
check "/metrics: the one not admitted in time" \
    grep -q '^orchd_wake_queue_timeouts_total 1$' "$T/metrics"
ctl show stats >"$T/stats" 2>&1
check "k, kept warm, was never suspended" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" show workload k |
    grep -q ' suspending '"
check "show stats: suspends by reason, budget and operator" \
    grep -Eq \
    '^suspends: 0 idle timeout, [2-9] budget, 0 pressure, 1 operator$' \
    "$T/stats"

# no OOM kill: not in the kernel's log for any of their pids, no exit
# by SIGKILL, no oom in a history
pids=$(awk '{ print $1 }' "$T/run/starts")
oom=0
if dmesg >/dev/null 2>&1; then
	for p in $pids; do
		dmesg | grep -Eq "Killed process $p " &&
		    oom=$((oom + 1))
	done
	n=$(echo $pids | wc -w)
	check "the kernel killed none of their $n processes" [ "$oom" -eq 0 ]
fi
check "none was killed by signal 9" \
    sh -c "! grep -q 'killed by signal 9' '$T/orchd.log'"
check "no history says oom" sh -c "for w in a b c d k m; do
    \"$ORCHCTL\" -s \"$SOCK\" show workload \$w | grep -q ' oom' && exit 1;
    done; exit 0"
if [ -n "$MEMCG" ]; then
	n=$(cat "$MEMCG/memory.failcnt")
	check "the cgroup never hit its limit (failcnt $n)" \
	    [ "$(cat "$MEMCG/memory.failcnt")" -eq 0 ]
	peak=$(cat "$MEMCG/memory.max_usage_in_bytes")
	echo "# peak in the cgroup: $((peak / 1048576)) MiB"
fi
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]

# 5. max concurrent wakes 2: six that start slowly, woken together; and
# memory pressure from a file of ours
psi() {		# psi AVG10 AVG60 AVG300 TOTAL: the PSI file, in one write
	fmt='some avg10=%s avg60=%s avg300=%s total=%s\n'
	fmt="${fmt}full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
	printf "$fmt" "$@" >"$T/psi"
}
psi 0.00 0.00 0.00 0
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 1h
reaper interval 1s
wake timeout 20s
max concurrent wakes 2
memory pressure limit 10%
$(listeners)
CONF
W=
for i in 1 2 3 4 5 6; do
	port
	W="$W w$i"
	wl "w$i" "w$i.test" "$P" 'env "TESTHTTP_DELAY=1000"' \
	    "env \"TESTHTTP_TIMES=$T/run/times\"" >>"$T/orchd.conf"
done
port
wl kw kw.test "$P" 'keep warm' >>"$T/orchd.conf"
ORCHD_PSI_FILE=$T/psi
export ORCHD_PSI_FILE
: >"$T/orchd.log"
if start_in_cg; then ok "orchd starts with max concurrent wakes 2"; else
	fail "orchd starts with max concurrent wakes 2"
	tail -n 20 "$T/orchd.log"; e2e_done; exit 1
fi
check "the keep warm one runs" wait_for 10 is_state kw running
herd=
for w in $W; do
	status "$w.test" / "$T/herd.$w" &
	herd="$herd $!"
done
wait $herd
n=0
for w in $W; do
	[ "$(cat "$T/herd.$w")" = 200 ] && n=$((n + 1))
done
check "all 6 woken together were served ($n)" [ "$n" -eq 6 ]
check "6 starts and listens logged" [ "$(wc -l <"$T/run/times")" -eq 6 ]
# the most starting at once: over each start's [start, listen]
most=$(awk '{ print $2, 1; print $3, -1 }' "$T/run/times" |
    sort -n -k1,1 -k2,2n |
    awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
check "never more than 2 starting at once ($most)" [ "$most" -le 2 ]
check "but 2 did start together: the cap, not one at a time ($most)" \
    [ "$most" -eq 2 ]
span=$(awk 'NR == 1 || $2 < a { a = $2 }
    $3 > b { b = $3 } END { print b - a }' \
    "$T/run/times")
check "so the six took 3 rounds of 1 s (${span} ms)" within "$span" 2900 20000
check "show stats: 4 wakes waited for a slot" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show stats |
    grep -Eq '^wakes that waited: [4-6], 0 not admitted'"
check "/metrics: orchd_wakes_queued_total" \
    wait_for 5 metric '^orchd_wakes_queued_total [4-6]$'

# memory pressure: w1 used last, w6 ... in the order of these requests
for w in $W; do
	get "$w.test" / >/dev/null
	sleep 1.1
done
sleep 1
psi 42.50 10.00 2.00 99
check "above the limit, w1, the least recently used, is suspended" \
    wait_for 10 in_history w1 running suspending pressure
check "the log says why" \
    logged "memory pressure: some avg10 42.5% above the limit 10%"
check "and which, and why" \
    logged "workload w1: suspending it for memory pressure"
check "then w2, a tick later" \
    wait_for 10 in_history w2 running suspending pressure
psi 1.00 10.00 2.00 99
check "under the limit again, said" \
    wait_for 10 logged \
    "memory pressure: some avg10 1%, under the limit 10% again"
sleep 2.5
n=0
for w in $W; do is_state "$w" running && n=$((n + 1)); done
check "then no more suspends: 3 or 4 of 6 run ($n)" [ "$n" -ge 3 -a "$n" -le 4 ]
check "never the one kept warm" is_state kw running
check "/metrics: orchd_suspends_total by reason" \
    metric '^orchd_suspends_total{reason="pressure"} [2-4]$'
stop_orchd

# 6. without PSI, orchd says so once, reload or not; and a budget of
# what is available at start
ORCHD_PSI_FILE=$T/nosuch
sed -i 's/^max concurrent wakes 2$/memory budget auto/' "$T/orchd.conf"
: >"$T/orchd.log"
check "orchd starts without PSI" start_in_cg
check "memory budget auto: MemAvailable at start less 10%" \
    wait_for 10 logged "memory budget auto: [0-9]* MiB, MemAvailable less 10%"
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
got=$(sed -n 's/.*memory budget auto: \([0-9]*\) MiB.*/\1/p' "$T/orchd.log" |
    head -n 1)
check "about what /proc/meminfo says now ($got MiB, $avail MiB)" \
    [ "${got:-0}" -gt $((avail * 9 / 10)) -a \
    "${got:-0}" -lt $((avail * 11 / 10)) ]
check "show stats says that budget" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show stats |
    grep -Eq '^memory budget: [0-9.]+[MG], '"
check "and says the limit is not enforced" \
    wait_for 5 logged "no pressure stall information"
ctl reload >/dev/null 2>&1
sleep 1
check "once ($(grep -c 'no pressure stall' "$T/orchd.log"))" \
    [ "$(grep -c 'no pressure stall' "$T/orchd.log")" -eq 1 ]
stop_orchd
unset ORCHD_PSI_FILE

# 7. who is never suspended for room: one whose busy path says busy, and
# one that a workload up depends on; and a wake that waits for room when
# a reload removes its workload.  A budget of 130M fits two of 64M.
port; P_DEP=$P; port; P_USER=$P; port; P_V=$P; port; P_X=$P; port; P_Y=$P
port; P_Z=$P
echo 200 >"$T/run/v.busy"
chmod 0644 "$T/run/v.busy"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 1h
reaper interval 1s
wake timeout 5s
memory budget 130M
memory estimate 64M
$(listeners)
CONF
small() {	# small NAME PORT [LINE...]: charged 64M, uses 8 MiB
	name=$1 sport=$2
	shift 2
	wl "$name" "$name.test" "$sport" 'memory 64M' \
	    'env "TESTHTTP_ALLOC=8"' "$@"
}
{
	small dep "$P_DEP"
	small user "$P_USER" 'depends on "dep"'
	small v "$P_V" 'busy path "/busy"' "env \"TESTHTTP_BUSY=$T/run/v.busy\""
	small x "$P_X"
	small y "$P_Y"
	small z "$P_Z" 'wake timeout 10s'
} >"$T/wls.conf"
cp "$T/orchd.conf" "$T/head.conf"
cat "$T/wls.conf" >>"$T/orchd.conf"
: >"$T/orchd.log"
if start_in_cg; then ok "orchd starts with a budget of two"; else
	fail "orchd starts with a budget of two"
	tail -n 20 "$T/orchd.log"; e2e_done; exit 1
fi
# no suspends of their own: none of these two may go for room
nosuspend() {
	! ctl show workload "$1" 2>/dev/null | grep -q ' suspending '
}

# the busy veto: v, the least recently used, says busy; x goes instead
check "v wakes" [ "$(get v.test /)" = "hello from testhttp" ]
sleep 1.2
check "x wakes" [ "$(get x.test /)" = "hello from testhttp" ]
check "y wakes, for room" [ "$(get y.test /)" = "hello from testhttp" ]
check "v's busy path was asked, and said busy" \
    logged "workload v: idle but busy, as /busy says: not suspended"
check "v, least recently used but busy, was not suspended" nosuspend v
check "runs on" is_state v running
check "x was suspended for room instead" in_history x running suspending budget
check "and is asleep" wait_for 5 is_state x asleep
# the veto holds: a wake for room is not asked about v again
check "x wakes again, for room" [ "$(get x.test /)" = "hello from testhttp" ]
check "y went for it, v still did not" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload y |
    grep -Eq ' running +suspending +budget' &&
    ! \"$ORCHCTL\" -s \"$SOCK\" show workload v | grep -q ' suspending '"
check "v's busy path was asked once ($(grep -c 'workload v: idle but busy' \
    "$T/orchd.log"))" [ "$(grep -c 'workload v: idle but busy' \
    "$T/orchd.log")" -eq 1 ]
ctl suspend v >/dev/null 2>&1
ctl suspend x >/dev/null 2>&1
check "the operator's suspends are not asked about" \
    wait_for 10 sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^v +asleep ' && \"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^x +asleep '"

# depends on: dep, the least recently used, runs for user; user goes
check "user wakes, and dep with it" \
    [ "$(get user.test /)" = "hello from testhttp" ]
check "dep runs, woken for user" \
    in_history dep asleep waking dependency
sleep 1.2
get user.test / >/dev/null
check "x wakes, for room" [ "$(get x.test /)" = "hello from testhttp" ]
check "dep, least recently used but needed by user, was not suspended" \
    nosuspend dep
check "runs on" is_state dep running
check "user was suspended for room instead" \
    in_history user running suspending budget
check "and the log says so" \
    logged "workload user: suspending it for room in the memory budget: x"

# a wake that waits for room, its workload removed by a reload
status dep.test '/slow?6000' "$T/slow.dep" &
s1=$!
status x.test '/slow?6000' "$T/slow.x" &
s2=$!
sleep 1.2
status z.test / "$T/z" &
s3=$!
check "z waits for room" wait_for 5 logged "workload z: wake waits"
cp "$T/head.conf" "$T/orchd.conf"
grep -v '^$' "$T/wls.conf" | awk '/^workload "z"/ { skip = 1 }
    !skip { print } skip && /^}/ { skip = 0 }' >>"$T/orchd.conf"
t0=$(now_ms)
ctl reload >/dev/null 2>&1
wait $s3
took=$(($(now_ms) - t0))
check "reloaded without z, its request gets 503 ($(cat "$T/z"))" \
    [ "$(cat "$T/z")" = 503 ]
check "at once, not at its wake timeout (${took} ms)" within "$took" 0 4000
check "z never started" [ "$(starts z)" -eq 0 ]
wait $s1 $s2
check "the busy ones answered 200" \
    [ "$(cat "$T/slow.dep")$(cat "$T/slow.x")" = 200200 ]
check "show stats: no wake waits now" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show stats |
    grep -Eq '^memory budget: 130M, [0-9.]+M in use .*, 0 waiting$'"
check "y wakes, for room, after all that" \
    [ "$(get y.test /)" = "hello from testhttp" ]

# max concurrent wakes 1: a workload waiting for what it depends on
# holds no slot, or its dependency's wake would wait for it
for w in dep x y; do ctl suspend "$w" >/dev/null 2>&1; done
check "all asleep" wait_for 10 sh -c "! \"$ORCHCTL\" -s \"$SOCK\" \
    show workloads | grep -Eq ' (running|suspending) '"
sed -i 's/^memory estimate 64M$/&\
max concurrent wakes 1/' "$T/orchd.conf"
check "reload with max concurrent wakes 1" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" reload >/dev/null"
check "user wakes, and dep before it, one at a time" \
    [ "$(get user.test /)" = "hello from testhttp" ]
check "no dependency failed" sh -c "! \"$ORCHCTL\" -s \"$SOCK\" \
    show workload user | grep -Eq ' failed +dependency'"
stop_orchd

# 8. on change restart, a new port: r is replaced side by side, both its
# instances charged while they run together (its new one takes 3 s)
port; P_R1=$P; port; P_R2=$P
conf_head >"$T/head.conf"
cat >>"$T/head.conf" <<CONF
idle timeout 1h
reaper interval 1s
wake timeout 10s
memory budget 200M
memory estimate 64M
$(listeners)
CONF
{ cat "$T/head.conf"; small r "$P_R1" 'on change restart'; } >"$T/orchd.conf"
: >"$T/orchd.log"
check "orchd starts with r" start_in_cg
check "r wakes" [ "$(get r.test /)" = "hello from testhttp" ]
in_use() {	# in_use SIZE: show stats says what is charged
	ctl show stats 2>/dev/null |
	    grep -q "^memory budget: 200M, $1 in use (charged)"
}
check "show stats: 64M in use" in_use 64M
{
	cat "$T/head.conf"
	small r "$P_R2" 'on change restart' 'env "TESTHTTP_DELAY=3000"'
} >"$T/orchd.conf"
check "reload: r's port changes" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" reload >/dev/null"
check "while its new instance starts beside it: 128M in use" \
    wait_for 3 in_use 128M
check "r was replaced side by side" wait_for 15 in_history r running \
    running replaced
check "then 64M again, once the old one is gone" wait_for 15 in_use 64M
check "r answers on its new port" [ "$(get r.test /)" = "hello from testhttp" ]
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]

e2e_done
