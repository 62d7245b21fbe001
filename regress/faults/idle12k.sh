#!/bin/sh
# idle12k: 12,000 idle keep-alive connections never cost a wake.  orchd
# runs with the defaults and a hard descriptor limit of 20,000; a client
# holds 12,000 idle connections to the gateway; then, a few times over,
# the workload is suspended and 5 new requests at once wake it: each must
# get 200.  The descriptors held and the time of each request are
# printed, so that a regression shows as a number.  Every wait bounded.
#
# The 503s once seen here were not the gateway's descriptors: the
# workload's port was in the kernel's ephemeral range, and while it
# slept one of the 12,000 client sockets got it as its local port (the
# kernel gives connect(2) even ports first: about one run in two had an
# even one).  The wake's bind failed, EADDRINUSE, and the 5 requests got
# 503.  The workload's port here is below the range (lib.sh's ports);
# orchd warns of one in it, checked last, and the mechanism is replayed
# with one outgoing connection bound to the workload's port.  To see the
# report's 503s again: IDLE12K_PORT=N, N an even port in the range that
# no socket has (ss -tan), and the 12,000 are made while it sleeps.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
P_APP=${IDLE12K_PORT:-$P_APP}
testhttp_bin
TESTHTTP=$BUILD/regress/testhttp
mkdir -p "$T/log"
NIDLE=${IDLE12K_CONNS:-12000}
ROUNDS=${IDLE12K_ROUNDS:-4}

# the client's 12,000 sockets and orchd's 20,000 descriptors
HARD=$(ulimit -H -n)
[ "$HARD" = unlimited ] && HARD=1048576
if [ "$HARD" -lt 20000 ] || ! ulimit -n 20000 2>/dev/null; then
	skip "the descriptor limit is below 20000 ($HARD)"
fi
cat >"$T/orchd-limited" <<EOS
#!/bin/sh
ulimit -S -n 1024 && ulimit -H -n 20000 && exec "$BUILD/orchd" "\$@"
EOS
chmod 0755 "$T/orchd-limited"
ORCHD=$T/orchd-limited

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
# the 12,000 clients are all 127.0.0.1: the point is descriptors, not
# one address's share
max connections per address 100000
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP"
	port $P_APP
}
CONF

# idle ones to a host of no workload, as the report's: one descriptor
# each, none of them closed to make room (IDLE12K_HOST=app.test for
# idle ones that had an upstream)
HIDLE=$(printf 'GET / HTTP/1.1\r\nHost: %s\r\n\r\nx' \
    "${IDLE12K_HOST:-none.test}")
HIDLE=${HIDLE%x}

# req N: one request to app.test, "STATUS SECONDS" in $T/req.N
req() {
	curl -s -m 30 -o "$T/body.$1" -D "$T/head.$1" \
	    -w '%{http_code} %{time_total}\n' -H "Host: app.test" \
	    "http://127.0.0.1:$GW/" >"$T/req.$1" 2>&1
}
state() {
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk '$1 == "app" { print $2 }'
}
asleep() { [ "$(state)" = asleep ]; }
ready() { grep -q '^ready' "$1" || dead "$2"; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

start_orchd_or_exit -v
check "the workload answers" req w
check "... 200" grep -q '^200' "$T/req.w"

# the idle ones are made while the workload sleeps, as in the report:
# its port is free then
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
check "it sleeps" wait_for 20 asleep
t0=$(now_ms)
"$TESTHTTP" idle "$GW" "$NIDLE" 150 "$HIDLE" >"$T/idle.out" 2>&1 &
IDLE=$!
wait_for 60 ready "$T/idle.out" $IDLE
check "$NIDLE idle connections open in $(($(now_ms) - t0)) ms:\
 $(head -n 1 "$T/idle.out")" grep -q "^ready $NIDLE failed 0" \
    "$T/idle.out"

r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
	wait_for 20 asleep
	check "round $r: the workload is asleep ($(state))" asleep
	gw=$(child gateway)
	# the idle client and orchd are ours too: wait for the requests
	REQS=
	i=0
	while [ $i -lt 5 ]; do
		req $i &
		REQS="$REQS $!"
		i=$((i + 1))
	done
	wait $REQS
	n=0
	s=
	for i in 0 1 2 3 4; do
		s="$s $(cat "$T/req.$i")"
		grep -q '^200' "$T/req.$i" && n=$((n + 1))
	done
	check "round $r: 5 requests to the sleeping workload, 200 each\
 (status seconds:$s; gatewayd holds $(fds "$gw") descriptors)" \
	    [ "$n" -eq 5 ]
	if [ "$n" -ne 5 ]; then
		for i in 0 1 2 3 4; do
			sed 's/^/	/' "$T/head.$i" "$T/body.$i" 2>/dev/null
		done
	fi
done

kill -USR1 "$IDLE" 2>/dev/null
wait_gone "$IDLE" 30 || kill -KILL "$IDLE" 2>/dev/null
check "the idle ones after: $(tail -n 1 "$T/idle.out")" \
    grep -q '^open' "$T/idle.out"
# -- the cause: the sleeping workload's port taken by an outgoing
# connection, as the kernel did at random in the range
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
wait_for 20 asleep
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.connect(("127.0.0.1", int(sys.argv[2])))
print("held", flush=True)
time.sleep(15)' "$P_APP" "$GW" >"$T/taken.out" 2>&1 &
TAKEN=$!
wait_for 10 grep -q held "$T/taken.out"
req t
check "the replay: its port taken while it sleeps, the wake fails:\
 $(cat "$T/req.t") ($(grep -c 'Address already in use' "$T/log/app.log"))" \
    grep -q '^503' "$T/req.t"
kill "$TAKEN" 2>/dev/null
grep -E 'warn|fail|503|error|descriptor' "$T/log/"* "$T/orchd.log" 2>/dev/null |
    grep -v 'GET / HTTP/1.1" 200' | tail -n 20
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# -- a workload port in the ephemeral range is warned of at every load
# (awk: dash's read takes a byte at a time, which /proc/sys mishandles)
LOW=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range)
HIGH=$(awk '{ print $2 }' /proc/sys/net/ipv4/ip_local_port_range)
sed "s/port $P_APP\$/port $((LOW + 2))/" "$T/orchd.conf" >"$T/eph.conf"
"$BUILD/orchd" -n -f "$T/eph.conf" >"$T/eph.out" 2>&1
check "orchd -n warns of port $((LOW + 2)), in $LOW-$HIGH:\
 $(grep -o 'port [0-9]* is in the kernel.s ephemeral range' "$T/eph.out")" \
    grep -q "port $((LOW + 2)) is in the kernel's ephemeral range" \
    "$T/eph.out"
"$BUILD/orchd" -n -f "$T/orchd.conf" >"$T/noeph.out" 2>&1
check "and not of port $P_APP, below it" \
    sh -c "! grep -q 'ephemeral range' '$T/noeph.out'"
e2e_done
