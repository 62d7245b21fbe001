#!/bin/sh
# A herd of held requests against a small listen queue (orchd-workload.7,
# "Workload lifecycle"): a process workload (the test backend, TESTHTTP_BACKLOG=4)
# is woken by 200 requests at once, from asleep (stopped) and, where
# cgroups are usable, from frozen, several rounds each.  Every request
# is answered 200, none lost, and the last answer comes less than 900 ms
# after the first: far below the second a SYN dropped by the full queue
# would wait for its resend.  The wake is one start per stopped round,
# none per frozen one (same pid).  HERD_TCP=1 adds rounds through a TCP
# listener (not yet held to the bound).  Loopback only, every wait
# bounded.
#
#	sh regress/e2e/herd.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
testhttp_bin

N=${HERD_N:-200}
ROUNDS=${HERD_ROUNDS:-3}
SPREAD=900
port_base 37
ports GW P_H P_T L_T

FREEZE=1
grep -q ' - cgroup2\? ' /proc/self/mountinfo || FREEZE=0

# the backend's line per start, written as the workload's uid
: >"$T/starts"
: >"$T/tstarts"
chmod 0666 "$T/starts" "$T/tstarts"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
wake timeout 20s
listen on 127.0.0.1 port $GW
workload "hd" {
	host "hd.test"
	command "$T/bin/testhttp serve $P_H $T/starts"
	port $P_H
	env "TESTHTTP_BACKLOG=4"
	idle timeout 2s
	suspend freeze for 5m
}
workload "ht" {
	command "$T/bin/testhttp serve $P_T $T/tstarts"
	port $P_T
	listen on 127.0.0.1 port $L_T
	env "TESTHTTP_BACKLOG=4"
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() { ctl show workloads 2>/dev/null | grep -Eq "^$1 +$2 "; }
starts() { awk '/^start/ { n++ } END { print n + 0 }' "$T/starts"; }
HEAD=$(printf 'GET /?herd HTTP/1.1\r\nHost: hd.test\r\nConnection: close\r\n\r\nx')
HEAD=${HEAD%x}

# herd OUT [PORT]: N requests at once, each line "STATUS RETRY MS"
herd() {
	TESTHTTP_BURST_MS=1 "$BUILD/regress/testhttp" burst "${2:-$GW}" \
	    "$N" 20 "$HEAD" >"$1"
}
# answered OUT: how many 200s
answered() { grep -c '^200 ' "$1"; }
# spread OUT: from the first answer to the last, ms; lost ones count 99999
spread() {
	awk '$3 < 0 { bad = 1 } $3 >= 0 { if (min == "" || $3 < min) min = $3;
	    if ($3 > max) max = $3 }
	    END { print (bad || min == "") ? 99999 : max - min }' "$1"
}

# round KIND I: one herd, checked
round() {
	s0=$(starts)
	herd "$T/herd.$1.$2"
	n=$(answered "$T/herd.$1.$2")
	sp=$(spread "$T/herd.$1.$2")
	check "from $1, round $2: $N requests, $N answered 200 ($n)" \
	    [ "$n" -eq "$N" ]
	check "... the last within ${SPREAD} ms of the first (${sp} ms)" \
	    [ "$sp" -lt "$SPREAD" ]
	figure "herd_spread_${1}_$2" "$sp" ms
	if [ "$1" = asleep ]; then
		check "... one start" [ "$(starts)" -eq $((s0 + 1)) ]
	else
		check "... no start: thawed" [ "$(starts)" -eq "$s0" ]
	fi
}

start_orchd_or_exit
check "hd is asleep at first" is_state hd asleep

i=1
[ -n "${HERD_FROZEN_ONLY:-}" ] && i=$((ROUNDS + 1))
while [ "$i" -le "$ROUNDS" ]; do
	round asleep "$i"
	check "... hd stopped again" quiet ctl suspend hd
	check "... asleep" wait_for 10 is_state hd asleep
	i=$((i + 1))
done

if [ "$FREEZE" -eq 1 ] && ! grep -q 'no cgroups\|no freezer' "$T/orchd.log"
then
	check "a first wake for the frozen rounds" \
	    sh -c "curl -s -m 10 -H 'Host: hd.test' http://127.0.0.1:$GW/ |
	    grep -q hello"
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		check "hd is frozen after its idle timeout ($i)" \
		    wait_for 20 is_state hd frozen
		round frozen "$i"
		i=$((i + 1))
	done
else
	echo "# no freezer here: the frozen rounds are not run"
fi

# The same through a TCP listener of the workload's own, with
# HERD_TCP=1 only: its connects go a window at a time and a dropped SYN
# is sent again, but a connection whose cookie's ACK the full queue
# dropped is not found (its bytes, passed on, cannot be sent again), and
# such rounds still wait for the kernel's resends (orchd-workload.7).
i=1
[ -z "${HERD_TCP:-}" ] && i=$((ROUNDS + 1))
while [ "$i" -le "$ROUNDS" ]; do
	check "tcp: ht is asleep ($i)" wait_for 10 is_state ht asleep
	herd "$T/herd.tcp.$i" "$L_T"
	n=$(answered "$T/herd.tcp.$i")
	sp=$(spread "$T/herd.tcp.$i")
	check "tcp: round $i: $N connections, $N answered 200 ($n)" \
	    [ "$n" -eq "$N" ]
	check "... the last within ${SPREAD} ms of the first (${sp} ms)" \
	    [ "$sp" -lt "$SPREAD" ]
	figure "herd_spread_tcp_$i" "$sp" ms
	quiet ctl suspend ht
	i=$((i + 1))
done

check "the gateway is alive" kill -0 "$(child gateway)"
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]
e2e_done
