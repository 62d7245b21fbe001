#!/bin/sh
# idle12k: 12,000 idle keep-alive connections never cost a wake.  orchd
# runs with the defaults and a hard descriptor limit of 20,000; a client
# holds 12,000 idle connections to the gateway (to the workload, so that
# each has had an upstream too); then, a few times over, the workload is
# suspended and 5 new requests at once wake it: each must get 200.  The
# descriptors held and the time of each request are printed, so that a
# regression shows as a number.  Every wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
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
grep -E 'warn|fail|503|error|descriptor' "$T/log/"* "$T/orchd.log" 2>/dev/null |
    grep -v 'GET / HTTP/1.1" 200' | tail -n 20
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
