#!/bin/sh
# idleconns: idle keep-alive connections never lock a new client out.
# orchd runs with 1024 descriptors soft, 4096 hard: gatewayd raises its
# soft limit to the hard one; an idle client counts one descriptor, so
# 3000 of them fit where (limit - 64) / 2 allowed 2016; past the limit a
# new connection closes the oldest idle one, counted in /metrics, and new
# requests are answered while the idle ones are held.  The same at "max
# connections"; and connections in the middle of a request are never
# closed for room: a new one waits until one of them ends.  Every wait
# bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
KEY=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
TESTHTTP=$BUILD/regress/testhttp
mkdir -p "$T/log" "$T/bin"
cp "$TESTHTTP" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

# the clients hold up to 10,000 sockets: as many as the hard limit
# allows (a container may not raise it), 16384 at least
HARD=$(ulimit -H -n)
[ "$HARD" = unlimited ] && HARD=1048576
if [ "$HARD" -lt 16384 ] || ! ulimit -n "$HARD" 2>/dev/null; then
	skip "the descriptor limit is below 16384 ($HARD)"
fi
# orchd itself with 1024 soft, 4096 hard
cat >"$T/orchd-limited" <<EOF
#!/bin/sh
ulimit -S -n 1024 && ulimit -H -n 4096 && exec "$BUILD/orchd" "\$@"
EOF
chmod 0755 "$T/orchd-limited"
ORCHD=$T/orchd-limited

write_conf() {	# write_conf [SETTING]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
keepalive timeout 60s
header timeout 30s
# the 10,000 clients are all 127.0.0.1 here, not one address's many
max connections per address 100000
${1:-}
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP"
	port $P_APP
}
CONF
}

# request heads with their CRLFs (a command substitution eats a last
# newline: hence the x, taken off after)
H404=$(printf 'GET / HTTP/1.1\r\nHost: none.test\r\n\r\nx')
H404=${H404%x}
HAPP=$(printf 'GET / HTTP/1.1\r\nHost: app.test\r\n\r\nx')
HAPP=${HAPP%x}
# unfinished: no empty line
HPART=$(printf 'GET / HTTP/1.1\r\nHost: app.test\r\nx')
HPART=${HPART%x}

get() {		# get: the status of a request to app.test
	curl -s -m 10 -o /dev/null -w '%{http_code}\n' -H "Host: app.test" \
	    "http://127.0.0.1:$GW/"
}
metric() {	# metric NAME: its value in a fresh /metrics
	curl -sS -m 10 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" |
	    awk -v m="$1" 'index($0, m " ") == 1 { print $2 }'
}
idle_closed() { metric orchd_gateway_idle_closed_total; }
ready() { grep -q '^ready' "$1" || dead "$2"; }
# idle_start NAME N HEAD: N idle connections held in the background, at
# most 120 s; waits (bounded) until all are open
idle_start() {
	"$TESTHTTP" idle "$GW" "$2" 120 "$3" >"$T/$1.out" 2>&1 &
	eval "PID_$1=\$!"
	wait_for 30 ready "$T/$1.out" $!
}
# idle_end NAME: their report, "open N closed N oldest N"
idle_end() {
	eval "p=\$PID_$1"
	kill -USR1 "$p" 2>/dev/null
	wait_gone "$p" 30 || kill -KILL "$p" 2>/dev/null
	wait "$p"
	sed -n 's/^open/open/p' "$T/$1.out"
}
field() {	# field REPORT WORD: the number after WORD
	echo "$1" | awk -v w="$2" '{ for (i = 1; i < NF; i++)
	    if ($i == w) print $(i + 1) }'
}
# gateway_holds N: gatewayd has accepted N connections on the listener
# (sockets in the listen queue belong to no process yet)
gateway_holds() {
	[ "$(ss -tnpH state established "( sport = :$GW )" |
	    grep -c 'pid=')" -ge "$1" ]
}

write_conf
start_orchd_or_exit -v

# -- the descriptor limit
check "gatewayd raised its descriptor limit from 1024 to 4096" \
    wait_for 10 grep -q 'descriptor limit raised from 1024 to 4096' \
    "$T/orchd.log"
gwpid=$(child gateway)
lim=$(awk '/^Max open files/ { print $4, $5 }' "/proc/$gwpid/limits" \
    2>/dev/null)
check "gatewayd's limits: ${lim:-none}" [ "$lim" = "4096 4096" ]
check "the workload answers" [ "$(get)" = 200 ]

# -- 3000 idle clients without an upstream, 100 with one: all held
idle_start i404 3000 "$H404"
check "3000 idle keep-alive connections open: $(head -n 1 "$T/i404.out")" \
    grep -q '^ready 3000 failed 0' "$T/i404.out"
idle_start iapp 100 "$HAPP"
check "and 100 to the workload: $(head -n 1 "$T/iapp.out")" \
    grep -q '^ready 100 failed 0' "$T/iapp.out"
n=$(metric orchd_open_connections)
check "the gateway holds them all (${n:-none} connections)" \
    [ "${n:-0}" -ge 3100 ]
n=$(idle_closed)
check "none closed to make room yet (${n:-none})" [ "${n:-x}" = 0 ]

# -- 600 more go past the limit: the oldest idle ones make room
idle_start imore 600 "$H404"
check "600 more open: $(head -n 1 "$T/imore.out")" \
    grep -q '^ready 600 failed 0' "$T/imore.out"
# 4096 - 64 descriptors, an eighth of them kept free: 3528 for clients
# and upstreams, 100 of them upstreams
n=$(metric orchd_open_connections)
check "the gateway holds no more than that allows (${n:-none} <= 3428)" \
    [ "${n:-9999}" -le 3428 -a "${n:-0}" -ge 3300 ]
ok200=0
i=0
while [ $i -lt 20 ]; do
	[ "$(get)" = 200 ] && ok200=$((ok200 + 1))
	i=$((i + 1))
done
check "20 new requests while all are held: 200 each ($ok200)" \
    [ "$ok200" -eq 20 ]
closed=$(idle_closed)
check "idle connections closed to make room: ${closed:-none}" \
    [ "${closed:-0}" -ge 20 ]
r=$(idle_end i404)
check "the first 3000: $r; the ones closed were the oldest" \
    [ "$(field "$r" closed)" -ge 20 -a \
    "$(field "$r" oldest)" = "$(field "$r" closed)" ]
r=$(idle_end iapp)
check "the 100 to the workload, younger: $r" \
    [ "$(field "$r" open)" = 100 ]
r=$(idle_end imore)
check "the 600 after them: $r" [ "$(field "$r" open)" = 600 ]
no_conns() { [ "$(metric orchd_open_connections)" -le 2 ]; }
check "the connections are gone" wait_for 20 no_conns

# -- at "max connections": the same for idle ones
write_conf "max connections 40"
check "reload with max connections 40" \
    "$ORCHCTL" -s "$SOCK" reload >/dev/null
before=$(idle_closed)
idle_start i40 40 "$H404"
check "40 idle connections open: $(head -n 1 "$T/i40.out")" \
    grep -q '^ready 40 failed 0' "$T/i40.out"
check "a new request at the limit: 200" [ "$(get)" = 200 ]
r=$(idle_end i40)
check "one of the 40 made room, the oldest: $r" \
    [ "$(field "$r" closed)" -ge 1 -a \
    "$(field "$r" oldest)" = "$(field "$r" closed)" ]
after=$(idle_closed)
check "counted ($before, then $after)" [ "${after:-0}" -gt "${before:-0}" ]
check "the connections are gone" wait_for 20 no_conns

# -- 40 connections in the middle of a request: the next one waits
before=$after
"$TESTHTTP" hold "$GW" 40 4 "$HPART" >"$T/busy.out" 2>&1 &
busy=$!
check "gatewayd accepted 40 connections mid-request" \
    wait_for 10 gateway_holds 40
curl -s -m 20 -o /dev/null -w '%{http_code}\n' -H "Host: app.test" \
    "http://127.0.0.1:$GW/" >"$T/waiter.out" 2>&1 &
waiter=$!
sleep 1
check "a new request waits while they are busy" alive "$waiter"
wait_gone "$busy" 20 || kill -KILL "$busy" 2>/dev/null
wait "$busy"
check "none of them was closed for it: $(cat "$T/busy.out")" \
    grep -q '^open 40 closed 0 failed 0' "$T/busy.out"
wait_gone "$waiter" 25 || kill -KILL "$waiter" 2>/dev/null
wait "$waiter"
check "then it is answered: $(cat "$T/waiter.out")" \
    grep -q '^200' "$T/waiter.out"
after=$(idle_closed)
check "nothing closed to make room ($before, then $after)" \
    [ "$after" = "$before" ]

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# -- the defaults: 10,000 idle clients, a hard limit of 20,000 (or the
# most this host allows, past 10,000 and the client's own), and wrk
# beside them gets its answers (before, it got none until they timed out)
LIM10K=20000
[ "$HARD" -lt "$LIM10K" ] && LIM10K=$HARD
cat >"$T/orchd-limited" <<EOF
#!/bin/sh
ulimit -S -n 1024 && ulimit -H -n $LIM10K && exec "$BUILD/orchd" "\$@"
EOF
write_conf
start_orchd_or_exit
idle_start i10k 10000 "$HAPP"
check "10,000 idle keep-alive connections open: $(head -n 1 "$T/i10k.out")" \
    grep -q '^ready 10000 failed 0' "$T/i10k.out"
if command -v wrk >/dev/null 2>&1; then
	wrk -t 1 -c 8 -d 3s -H "Host: app.test" "http://127.0.0.1:$GW/" \
	    >"$T/wrk.out" 2>&1
	n=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
	check "wrk beside them: ${n:-no} requests answered" [ "${n:-0}" -gt 0 ]
	check "without errors or non-2xx answers" \
	    sh -c "! grep -Eq 'Socket errors|Non-2xx' '$T/wrk.out'"
else
	ok200=0
	i=0
	while [ $i -lt 20 ]; do
		[ "$(get)" = 200 ] && ok200=$((ok200 + 1))
		i=$((i + 1))
	done
	check "no wrk: 20 requests beside them, 200 each ($ok200)" \
	    [ "$ok200" -eq 20 ]
fi
r=$(idle_end i10k)
check "the 10,000: $r" [ -n "$r" ]
stop_orchd
check "orchd stops cleanly again (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done

