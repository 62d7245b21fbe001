#!/bin/sh
# A first start, and the restart after it (issue 38):
#  - a first start (a database with no workload's row), 4,000 sleeping
#    workloads and one kept warm: the store says at once that it has
#    nothing to restore, and the kept-warm workload starts before the
#    store's first whole write of every row is over (its wake is logged
#    before the store's "restore:" line), where it waited for it;
#  - a request sent as soon as orchctl answers is served; no process
#    workload is "checking" (nor told checked, 4,000 messages to four
#    processes): with no row there is nothing to compare;
#  - a restart on that database: the store has rows, says no such thing,
#    and what it holds is restored (a keep warm turned off by orchctl
#    stays off; the workload it restored is served on request).
# Loopback only, every wait bounded.
#
#	sh regress/e2e/startup_none.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

N=4000
port_base 23
ports GW P_A P_KW P_B
mkdir -p "$T/log" "$T/run"
testhttp_bin

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
wake timeout 30s

workload "a" {
	host "a.test"
	command "$T/bin/testhttp serve $P_A $T/run/a"
	port $P_A
	idle timeout 10m
}

workload "kw" {
	host "kw.test"
	command "$T/bin/testhttp serve $P_KW $T/run/kw"
	port $P_KW
	keep warm
}

workload "b" {
	host "b.test"
	command "$T/bin/testhttp serve $P_B $T/run/b"
	port $P_B
	keep warm
}
CONF
# the sleepers: never woken, one port each unused
i=0
while [ $i -lt $N ]; do
	printf 'workload "s%d" {\n\thost "s%d.test"\n\tcommand "%s"\n\tport %d\n}\n' \
	    $i $i "$T/bin/testhttp serve 1 $T/run/s" $((40000 + i % 20000))
	i=$((i + 1))
done >>"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
hello() {	# hello HOST: the gateway proxies it
	curl -s -m 30 -H "Host: $1" "http://127.0.0.1:$GW/" |
	    grep -q '^hello from'
}
# line LOG PATTERN: the number of the first line of LOG matching PATTERN
line() { grep -n -m 1 -e "$2" "$1" | cut -d: -f1; }
state() {	# state NAME: as orchctl says
	ctl show workloads 2>/dev/null | awk -v n="$1" '$1 == n { print $2 }'
}

# -- a first start: no row in the database
"$ORCHD" -d -v -f "$T/orchd.conf" >"$T/first.log" 2>&1 &
ORCHD_PID=$!
check "orchd answers (first start, $N workloads)" \
    wait_for 60 ctl show summary
check "a request sent at once is served" hello a.test
check "kw runs (kept warm)" wait_for 30 eval '[ "$(state kw)" = running ]'
check "the store's restore ended" \
    wait_for 60 grep -q 'restore: [0-9]* workloads' "$T/first.log"
check "runtimed was told the store had no row" \
    grep -q 'the store has no row' "$T/first.log"
wk=$(line "$T/first.log" 'workload kw: .* -> waking')
rs=$(line "$T/first.log" 'restore: [0-9]* workloads')
echo "# log lines: kw waking $wk, the store's restore $rs"
check "kw's wake did not wait for the store's first write" \
    eval "[ -n '$wk' ] && [ -n '$rs' ] && [ $wk -lt $rs ]"
nck=$(grep -c 'checking -> ' "$T/first.log")
echo "# first start: $nck workloads told checked at the restore's end"
check "... and one shows asleep, not checking" \
    eval '[ "$(state s$((N - 1)))" = asleep ]'
check "b turned off keep warm" eval "ctl keepwarm b off >/dev/null"
check "... and suspended" eval "ctl suspend b >/dev/null"
check "... asleep" wait_for 20 eval '[ "$(state b)" = asleep ]'
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]

# -- a restart: the rows are there
"$ORCHD" -d -v -f "$T/orchd.conf" >"$T/second.log" 2>&1 &
ORCHD_PID=$!
check "orchd answers (restart)" wait_for 60 ctl show summary
check "the store's restore ended" \
    wait_for 60 grep -q "restore: $((N + 3)) workloads" "$T/second.log"
check "runtimed was not told the store had no row" \
    eval "! grep -q 'the store has no row' '$T/second.log'"
check "kw runs again" wait_for 30 eval '[ "$(state kw)" = running ]'
check "b stays asleep: its keep warm off was restored" \
    eval 'sleep 2; [ "$(state b)" = asleep ]'
check "a is served after the restart" hello a.test
stop_orchd
e2e_done
