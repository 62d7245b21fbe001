#!/bin/sh
# The proxy itself, against a running workload: keep-alive, pipelining,
# streaming, HEAD, large bodies both ways, framing the gateway rejects, an
# unknown Host, a backend that resets mid-answer.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports PORT WPORT NPORT
mkdir -p "$T/log" "$T/bin"
testhttp_bin
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $PORT

workload "app" {
	host "app.test"
	host "*.wild.test"
	command "$T/bin/testhttp serve $WPORT"
	port $WPORT
	wake timeout 10s
}

workload "never" {
	host "never.test"
	command "/bin/busybox sleep 1000"
	port $NPORT
	wake timeout 8s
}
CONF

check "orchd starts" start_orchd

URL=http://127.0.0.1:$PORT
get() {		# get HOST PATH [curl args...]
	h=$1
	p=$2
	shift 2
	curl -sS -m 20 -H "Host: $h" "$@" "$URL$p"
}

body=$(get app.test /)
check "first request wakes the workload and is served" \
    [ "$body" = "hello from testhttp" ]
check "Host is matched without case and port" \
    [ "$(get APP.Test:$PORT /)" = "hello from testhttp" ]
check "a wildcard host routes" \
    [ "$(get a.b.wild.test /)" = "hello from testhttp" ]
code=$(get nowhere.test / -o /dev/null -w '%{http_code}')
check "an unknown Host gets 404 (got $code)" [ "$code" = 404 ]

# keep-alive: three requests, one connection
n=$(curl -sS -m 20 -H 'Host: app.test' -o /dev/null -o /dev/null -o /dev/null \
    -w '%{num_connects}\n' "$URL/" "$URL/" "$URL/" | awk '{s += $1} END {print s}')
check "keep-alive: three requests over one connection ($n)" [ "$n" = 1 ]

# pipelining: two requests in one write, two answers in order
printf 'GET /big?10 HTTP/1.1\r\nHost: app.test\r\n\r\nGET / HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 5 >"$T/pipe.out"
check "pipelined requests are answered in order" \
    sh -c "tr -d '\r' <'$T/pipe.out' | grep -q 'abcdefghij' &&
        tr -d '\r' <'$T/pipe.out' | grep -q '^hello from testhttp' &&
        [ \$(grep -o 'HTTP/1.1 200' '$T/pipe.out' | wc -l) = 2 ]"

# HEAD
head=$(get app.test '/big?5000' -I)
check "HEAD gets the length and no body" \
    sh -c "echo \"\$1\" | grep -qi '^content-length: 5000'" sh "$head"

# large bodies both ways
get app.test '/big?5000000' -o "$T/big.out"
check "a 5 MB answer arrives whole" [ "$(wc -c <"$T/big.out")" -eq 5000000 ]
get app.test '/chunked?3000000' -o "$T/chunked.out"
check "a 3 MB chunked answer arrives whole" \
    [ "$(wc -c <"$T/chunked.out")" -eq 3000000 ]
head -c 4000000 /dev/urandom >"$T/up.bin"
get app.test /echo --data-binary "@$T/up.bin" -o "$T/echo.out"
check "a 4 MB upload comes back intact" cmp -s "$T/up.bin" "$T/echo.out"
get app.test /echo -H 'Transfer-Encoding: chunked' --data-binary "@$T/up.bin" \
    -o "$T/echo2.out"
check "a 4 MB chunked upload comes back intact" cmp -s "$T/up.bin" "$T/echo2.out"

# streaming: the first tick arrives before the last is sent
get app.test '/stream?20' -N >"$T/stream.out" &
sp=$!
check "a streamed answer arrives while it is being produced" \
    wait_for 1 grep -q tick "$T/stream.out"
wait $sp
check "the streamed answer is complete" [ "$(grep -c tick "$T/stream.out")" -eq 20 ]

# what the workload sees: forwarded fields, no hop-by-hop ones
get app.test /headers -H 'X-Forwarded-For: 10.1.2.3' -H 'Connection: keep-alive, X-Secret' \
    -H 'X-Secret: 1' >"$T/headers.out"
check "an untrusted client's X-Forwarded-For is replaced by its address" \
    grep -qi '^X-Forwarded-For: 127.0.0.1.$' "$T/headers.out"
check "X-Forwarded-Proto and Via are added" \
    sh -c "grep -qi '^X-Forwarded-Proto: http' '$T/headers.out' && grep -qi '^Via: 1.1 orchd' '$T/headers.out'"
check "fields named by Connection are not forwarded" \
    sh -c "! grep -qi '^X-Secret' '$T/headers.out'"

# malformed requests: 400 and close, nothing forwarded
printf 'GET / HTTP/1.1\r\nHost: app.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 5 >"$T/bad.out"
check "Content-Length with Transfer-Encoding gets 400" \
    grep -q '^HTTP/1.1 400' "$T/bad.out"
printf 'GET / HTTP/1.1\r\nHost : app.test\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 5 >"$T/bad2.out"
check "whitespace before a colon gets 400" grep -q '^HTTP/1.1 400' "$T/bad2.out"
printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' | "$T/bin/testhttp" raw "$PORT" 5 >"$T/h2.out"
check "the HTTP/2 preface is refused" grep -Eq '^HTTP/1.1 (400|505)' "$T/h2.out"

# a backend that resets mid-answer: the client is closed, orchd lives
get app.test /reset -o /dev/null
check "a reset mid-answer closes the client (curl fails)" [ $? -ne 0 ]
check "the gateway still serves after a reset" \
    [ "$(get app.test /)" = "hello from testhttp" ]

# a client that goes away mid-request
printf 'POST /echo HTTP/1.1\r\nHost: app.test\r\nContent-Length: 100000\r\n\r\nabc' |
    "$T/bin/testhttp" raw "$PORT" 1 >/dev/null
check "the gateway still serves after a client left mid-body" \
    [ "$(get app.test /)" = "hello from testhttp" ]

# a client that leaves while parked frees its connection at once, long
# before the wake gives up
gw=$(child gateway)
fds() { ls "/proc/$gw/fd" | wc -l; }
before=$(fds)
printf 'GET / HTTP/1.1\r\nHost: never.test\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 1 >/dev/null &
lp=$!
check "a parked client holds one connection" wait_for 5 sh -c "[ \$(ls /proc/$gw/fd | wc -l) -gt $before ]"
wait $lp
check "its leaving frees it while the wake is still under way" \
    wait_for 3 sh -c "[ \$(ls /proc/$gw/fd | wc -l) -le $before ]"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
