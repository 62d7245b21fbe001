#!/bin/sh
# Attack: a workload that makes the gateway's herd logic (herd.c) spin.
# A process workload (the test backend, TESTHTTP_CLOSE: it accepts each
# connection and closes it at once, TESTHTTP_BACKLOG=4) is woken by 200
# requests at once, three rounds.  A request the workload took and
# dropped is never sent again: the workload accepts no more connections
# than requests (and its readiness checks), every request is answered
# (502) and none is lost, the gateway's CPU time stays bounded, and a
# request to another workload is answered at once during and after the
# herd.  Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_herd.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
testhttp_bin

N=200
port_base 41
ports GW P_C P_O

: >"$T/accepts"
chmod 0666 "$T/accepts"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
wake timeout 20s
listen on 127.0.0.1 port $GW
workload "hc" {
	host "hc.test"
	command "$T/bin/testhttp serve $P_C"
	port $P_C
	env "TESTHTTP_BACKLOG=4"
	env "TESTHTTP_CLOSE=1"
	env "TESTHTTP_ACCEPTS=$T/accepts"
}
workload "ok" {
	host "ok.test"
	command "$T/bin/testhttp serve $P_O"
	port $P_O
	keep warm
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() { ctl show workloads 2>/dev/null | grep -Eq "^$1 +$2 "; }
accepts() { awk 'END { print NR }' "$T/accepts"; }
HEAD=$(printf 'GET / HTTP/1.1\r\nHost: hc.test\r\nConnection: close\r\n\r\nx')
HEAD=${HEAD%x}
# cpu_ms PID: user and system time so far, ms (clock ticks of 10 ms)
cpu_ms() { awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat"; }
# ok_fast: the other workload answers within 2 s
ok_fast() {
	curl -s -m 2 -H 'Host: ok.test' "http://127.0.0.1:$GW/" | grep -q hello
}

start_orchd_or_exit
check "ok answers" wait_for 10 ok_fast
gw=$(child gateway)
cpu0=$(cpu_ms "$gw")

i=1
while [ "$i" -le 3 ]; do
	a0=$(accepts)
	"$BUILD/regress/testhttp" burst "$GW" "$N" 20 "$HEAD" \
	    >"$T/herd.$i" &
	BURST=$!
	sleep 0.2
	check "round $i: ok answers during the herd" ok_fast
	wait "$BURST"
	n=$(grep -c '^502 ' "$T/herd.$i")
	lost=$(grep -c '^0 ' "$T/herd.$i")
	check "round $i: $N answered 502 ($n), none lost ($lost)" \
	    [ "$n" -eq "$N" ]
	a=$(($(accepts) - a0))
	check "round $i: the workload accepted $a connections: no more than \
one a request and its readiness checks" [ "$a" -le $((N + 20)) ]
	quiet ctl suspend hc
	check "round $i: hc asleep again" wait_for 10 is_state hc asleep
	i=$((i + 1))
done

cpu=$(($(cpu_ms "$gw") - cpu0))
figure attack_herd_gateway_cpu "$cpu" ms
check "the gateway's CPU time over 600 requests stays bounded (${cpu} ms)" \
    [ "$cpu" -lt 3000 ]
check "ok answers after" ok_fast
check "the gateway is the same process" [ "$(child gateway)" = "$gw" ]
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]
e2e_done
