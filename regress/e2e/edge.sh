#!/bin/sh
# The gateway under abuse: 1000 idle connections held while others are
# served, Expect: 100-continue, slowloris and the other timeouts, the
# per-address limit, and running out of file descriptors.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
ulimit -n 8192 || { echo "cannot raise the descriptor limit"; exit 1; }

ports PORT WPORT SPORT
mkdir -p "$T/log" "$T/bin"
testhttp_bin
conf() {	# conf [GLOBAL-LINES...]
	{
		conf_head
		echo "listen on 127.0.0.1 port $PORT"
		for l in "$@"; do echo "$l"; done
		cat <<CONF

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $WPORT"
	port $WPORT
	idle timeout 1h
}

workload "sleepy" {
	host "sleepy.test"
	command "$T/bin/testhttp serve $SPORT"
	port $SPORT
	idle timeout 1h
}
CONF
	} >"$T/orchd.conf"
}
reload() {	# reload: SIGHUP, then wait for the next generation
	gen=$(($("$ORCHCTL" -s "$SOCK" show summary | awk '$1 == "gateway" {print $5}') + 1))
	kill -HUP "$ORCHD_PID"
	wait_for 10 sh -c "$ORCHCTL -s $SOCK show summary | grep -Eq '^gateway .* $gen\$'"
}
URL=http://127.0.0.1:$PORT
get() {		# get PATH [curl args...]: from app.test
	p=$1
	shift
	curl -sS -m 20 -H 'Host: app.test' "$@" "$URL$p"
}

conf
check "orchd starts" start_orchd
check "the workload wakes" sh -c "curl -sS -m 20 -H 'Host: app.test' $URL/ | grep -q hello"

# 1000 idle connections, held for 8 s, while requests go on others
"$T/bin/testhttp" hold "$PORT" 1000 8 >"$T/hold.out" &
hp=$!
gw=$(child gateway)
check "1000 connections are accepted" \
    wait_for 10 sh -c "[ \$(ls /proc/$gw/fd | wc -l) -gt 1000 ]"
served=0
for i in $(seq 1 50); do
	[ "$(get /)" = "hello from testhttp" ] && served=$((served + 1))
done
check "50 requests are served meanwhile ($served)" [ "$served" -eq 50 ]
get '/big?2000000' -o "$T/big.out"
check "a 2 MB answer is served meanwhile" [ "$(wc -c <"$T/big.out")" -eq 2000000 ]
wait $hp
check "all 1000 idle connections stayed open ($(cat "$T/hold.out"))" \
    grep -q '^open 1000 closed 0 failed 0' "$T/hold.out"
check "the gateway let go of them" \
    wait_for 10 sh -c "[ \$(ls /proc/$gw/fd | wc -l) -lt 100 ]"

# Expect: 100-continue: the gateway answers 100 when it forwards, to a
# running and to a sleeping workload; curl would wait 3 s without it
head -c 2000000 /dev/urandom >"$T/up.bin"
t=$(curl -sS -m 20 -H 'Host: app.test' -H 'Expect: 100-continue' \
    --expect100-timeout 3 --data-binary "@$T/up.bin" -o "$T/e1.out" \
    -w '%{time_total}' "$URL/echo")
check "Expect: 100-continue to a running workload: intact, no wait ($t s)" \
    sh -c "cmp -s '$T/up.bin' '$T/e1.out' && awk 'BEGIN { exit !($t < 2.5) }'"
t=$(curl -sS -m 20 -H 'Host: sleepy.test' -H 'Expect: 100-continue' \
    --expect100-timeout 3 --data-binary "@$T/up.bin" -o "$T/e2.out" \
    -w '%{time_total}' "$URL/echo")
check "Expect: 100-continue to a sleeping workload: intact, no wait ($t s)" \
    sh -c "cmp -s '$T/up.bin' '$T/e2.out' && awk 'BEGIN { exit !($t < 2.5) }'"
get /headers -H 'Expect: 100-continue' -d x >"$T/expect.out"
check "Expect is not forwarded" sh -c "! grep -qi '^expect:' '$T/expect.out'"

# X-Forwarded-For from an untrusted client is replaced, from a trusted
# proxy appended to
get /headers -H 'X-Forwarded-For: 10.6.6.6' >"$T/xff1.out"
check "an untrusted client's X-Forwarded-For is replaced" \
    sh -c "tr -d '\r' <'$T/xff1.out' | grep -q '^X-Forwarded-For: 127.0.0.1\$'"

# shorter timeouts, and a trusted proxy
conf "header timeout 2s" "body timeout 2s" "keepalive timeout 2s" \
    "trusted proxy 127.0.0.0/8"
check "a reload applies the new settings" reload
get /headers -H 'X-Forwarded-For: 10.6.6.6' -H 'X-Forwarded-For: 10.7.7.7' \
    >"$T/xff2.out"
check "a trusted proxy's X-Forwarded-For chain is appended to" \
    sh -c "tr -d '\r' <'$T/xff2.out' | grep -q '^X-Forwarded-For: 10.6.6.6, 10.7.7.7, 127.0.0.1\$'"

"$T/bin/testhttp" slow "$PORT" 30 >"$T/slow.out"
secs=$(sed -n 's/^closed after //p' "$T/slow.out")
check "slowloris is answered 408" grep -q '^HTTP/1.1 408' "$T/slow.out"
check "slowloris is closed at the header timeout ($secs s)" \
    [ "$secs" -ge 1 ] && [ "$secs" -le 4 ]

# the first head's time counts from the accept: silent 1.5 s, then a
# byte every 0.3 s, is closed at about 2 s, not 1.5 s + 2 s
"$T/bin/testhttp" trickle "$PORT" 1500 300 >"$T/trickle.out"
ms=$(sed -n 's/^closed after \([0-9]*\) ms$/\1/p' "$T/trickle.out")
check "a late, slow first head is answered 408" \
    grep -q '^HTTP/1.1 408' "$T/trickle.out"
check "it is closed at the header timeout from the accept ($ms ms)" \
    within "${ms:-failed}" 1500 3200

start=$(date +%s)
printf 'GET / HTTP/1.1\r\nHost: app.test\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 10 >"$T/ka.out"
secs=$(($(date +%s) - start))
check "an idle keep-alive connection is closed at the keepalive timeout ($secs s)" \
    sh -c "grep -q '^closed' '$T/ka.out' && [ $secs -ge 1 ] && [ $secs -le 5 ]"

(printf 'POST /echo HTTP/1.1\r\nHost: app.test\r\nContent-Length: 10\r\n\r\nabc'; sleep 5) |
    "$T/bin/testhttp" raw "$PORT" 2 >"$T/body.out"
check "a stalled body is answered 408" grep -q '^HTTP/1.1 408' "$T/body.out"

# the per-address limit: the sixth connection is refused with a 503
conf "max connections per address 5"
check "a reload sets a per-address limit" reload
"$T/bin/testhttp" hold "$PORT" 5 4 >"$T/hold5.out" &
hp=$!
sleep 1
code=$(get / -o /dev/null -w '%{http_code}')
check "over the per-address limit: 503 ($code)" [ "$code" = 503 ]
wait $hp
check "the five held connections were not disturbed" \
    grep -q '^open 5 closed 0' "$T/hold5.out"
check "under the limit again: 200" \
    wait_for 5 sh -c "[ \"\$(curl -sS -m 5 -H 'Host: app.test' $URL/)\" = 'hello from testhttp' ]"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]

# out of file descriptors: 200 connections against a limit of 128.  One
# connection made before, in the middle of its request, keeps being
# served (an idle one would be closed for room), accepting stops instead
# of spinning, at the descriptors gatewayd counts or when accept(2) finds
# none, and resumes once descriptors are free.  All 200 come from
# 127.0.0.1: the limit per address, an eighth of the descriptors by
# default, is lifted, for the descriptors to run out first.
conf "max connections 5000" "max connections per address 100000"
sh -c 'ulimit -n 128 && exec "$@"' sh "$ORCHD" -d -f "$T/orchd.conf" \
    >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
check "orchd starts with 128 descriptors" \
    wait_for 20 "$ORCHCTL" -s "$SOCK" show summary
mkfifo "$T/fifo"
"$T/bin/testhttp" raw "$PORT" 5 <"$T/fifo" >"$T/kept.out" &
kp=$!
exec 3>"$T/fifo"
printf 'POST /echo HTTP/1.1\r\nHost: app.test\r\nContent-Length: 10\r\nConnection: close\r\n\r\nhello' >&3
sleep 2
"$T/bin/testhttp" hold "$PORT" 200 4 >"$T/hold200.out" &
hp=$!
check "accept runs out of descriptors and pauses" \
    wait_for 10 grep -Eq 'out of file descriptors|not accepting more' \
    "$T/orchd.log"
printf 'world' >&3
exec 3>&-
wait $kp
check "a connection made before is served on" grep -q helloworld "$T/kept.out"
wait $hp
gw=$(child gateway)
check "the gateway is alive" [ -n "$gw" ]
check "once descriptors are free, new connections are served" \
    wait_for 10 sh -c "[ \"\$(curl -sS -m 5 -H 'Host: app.test' $URL/)\" = 'hello from testhttp' ]"
check "the gateway does not spin while out of descriptors" \
    [ "$(grep -Ec 'out of file descriptors|not accepting more' \
    "$T/orchd.log")" -lt 50 ]

stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
