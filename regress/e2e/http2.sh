#!/bin/sh
# HTTP/2 at the gateway, with real clients: curl --http2 over TLS (ALPN
# h2) gets HTTP/2 200 from a process workload and wakes a sleeping one;
# two hosts on one connection; a 1 MiB POST arrives intact; chunked, HEAD,
# a workload's trailers, a reset answer, 404 and a failed wake's 503 on
# a stream of their own; h2load's
# 1000 requests on 10 connections to a sleeping workload are all answered
# after one start; "http2 prior knowledge" on a cleartext listener takes
# the preface, a plain listener still refuses it and "http2 off" offers
# HTTP/1.1 alone; gRPC to an upstream h2c workload, and a stream of it
# in flight while orchctl restart replaces it ends whole first.  Then the
# attacks (h2attack.py), each bounded while
# curl on another connection is served.  All on loopback, every wait
# bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
for cmd in openssl curl h2load; do
	command -v $cmd >/dev/null || {
		echo "skipped: no $cmd"; echo "0 passed, 0 failed"; exit 0; }
done
curl -V | grep -qw HTTP2 || {
	echo "skipped: curl without HTTP/2"; echo "0 passed, 0 failed"
	exit 0; }

base=$((20000 + $$ % 12000))
PORT=$(free_port "$base")
PK=$(free_port $((PORT + 1)))
PLAIN=$(free_port $((PK + 1)))
OFF=$(free_port $((PLAIN + 1)))
APORT=$(free_port $((OFF + 1)))
BPORT=$(free_port $((APORT + 1)))
API=$(free_port $((BPORT + 1)))
GPORT=$(free_port $((API + 1)))
XPORT=$(free_port $((GPORT + 1)))
DROP=$(free_port $((XPORT + 1)))
mkdir -p "$T/log" "$T/bin" "$T/pki"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
P=$T/pki
ATTACK="/usr/bin/python3 $(dirname "$0")/h2attack.py"
/usr/bin/python3 -c 'import hpack' 2>/dev/null || ATTACK=

# a CA, and one certificate for both hosts: a browser coalesces them
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$P/ca.key" -out "$P/ca.crt" -days 2 -subj "/CN=orchd test CA" \
    2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$P/h2.key" -out "$P/h2.csr" -subj "/CN=a.test" \
    -addext "subjectAltName=DNS:a.test,DNS:b.test,DNS:g.test" 2>/dev/null &&
openssl x509 -req -in "$P/h2.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
    -CAcreateserial -days 2 -copy_extensions copy -out "$P/h2.crt" 2>/dev/null
chmod 0600 "$P/h2.key"
check "the certificate was made" [ -s "$P/h2.crt" ]

# each workload counts its starts; they run as uids of their own
for w in a b; do
	port=$APORT
	[ $w = b ] && port=$BPORT
	cat >"$T/bin/$w.sh" <<EOF
#!/bin/sh
echo start >>"$T/$w.starts"
exec "$T/bin/testhttp" serve $port
EOF
	: >"$T/$w.starts"
	chmod 0666 "$T/$w.starts"
done
cp "$(dirname "$0")/h2grpc.py" "$T/bin/h2grpc.py"
: >"$T/g.starts"
chmod 0666 "$T/g.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/a.sh" "$T/bin/b.sh"
chmod 0644 "$T/bin/h2grpc.py"
GRPC=
/usr/bin/python3 -c 'import grpc' 2>/dev/null &&
    GRPC="/usr/bin/python3 $T/bin/h2grpc.py"
lines() { wc -l <"$1" | tr -d ' '; }

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 15s
http2 max streams 50
upstream timeout 5s

listen on 127.0.0.1 port $PORT tls certificate "$P/h2.crt" key "$P/h2.key"
listen on 127.0.0.1 port $PK http2 prior knowledge
listen on 127.0.0.1 port $PLAIN
api listen on 127.0.0.1 port $API
api metrics public
listen on 127.0.0.1 port $OFF tls certificate "$P/h2.crt" key "$P/h2.key" \\
	http2 off
listen on 127.0.0.1 port $DROP tls certificate "$P/h2.crt" key "$P/h2.key"

workload "a" {
	host "a.test"
	command "/bin/sh $T/bin/a.sh"
	port $APORT
}
workload "b" {
	host "b.test"
	command "/bin/sh $T/bin/b.sh"
	port $BPORT
}
workload "bad" {
	host "bad.test"
	command "/bin/sh -c 'exit 1'"
	port $XPORT
	wake timeout 3s
}
workload "g" {
	host "g.test"
	command "/usr/bin/python3 $T/bin/h2grpc.py serve $GPORT $T/g.starts"
	port $GPORT
	upstream h2c
}
CONF
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
check "orchd -n accepts http2 settings" grep -q "configuration OK" "$T/n.out"
start_orchd_or_exit

h2() {	# h2 PORT CURL-ARGS...: curl over TLS, both names to loopback
	port=$1
	shift
	curl -sS -m 30 --cacert "$P/ca.crt" \
	    --resolve "a.test:$port:127.0.0.1" \
	    --resolve "b.test:$port:127.0.0.1" "$@"
}

# 1. a sleeping workload woken by an HTTP/2 request
out=$(h2 $PORT --http2 -o "$T/hdr.out" -w '%{http_code} %{http_version}' \
    "https://a.test:$PORT/headers")
check "curl --http2 over TLS wakes a and gets HTTP/2 200 ($out)" \
    [ "$out" = "200 2" ]
check "one start of a ($(lines "$T/a.starts"))" \
    [ "$(lines "$T/a.starts")" -eq 1 ]
check "the workload sees Host: a.test" grep -qi '^Host: a.test' "$T/hdr.out"
check "and X-Forwarded-Proto: https" \
    grep -qi '^X-Forwarded-Proto: https' "$T/hdr.out"
h2 $PORT --http2 -H 'Cookie: x=1' -H 'Cookie: y=2' -o "$T/cookie.out" \
    "https://a.test:$PORT/headers"
check "Cookie fields are joined into one" \
    grep -qi '^Cookie: x=1; y=2' "$T/cookie.out"
h2 $PORT --http2 -sSI "https://a.test:$PORT/headers" >"$T/resp.out"
check "the answer has no Connection or Transfer-Encoding" \
    sh -c "grep -q '^HTTP/2 200' '$T/resp.out' &&
    ! grep -qiE '^(connection|keep-alive|transfer-encoding):' '$T/resp.out'"

# 2. two hosts on one connection (curl does not coalesce), b woken on it
if [ -n "$ATTACK" ]; then
	out=$($ATTACK coalesce $PORT a.test tls "$P/ca.crt")
	check "a.test and b.test answered on one connection ($out)" \
	    [ "$out" = "coalesce a=200 b=200" ]
else
	h2 $PORT --http2 -o /dev/null "https://b.test:$PORT/"
fi
check "b woke once" [ "$(lines "$T/b.starts")" -eq 1 ]

# 3. bodies as over HTTP/1.1
head -c 1048576 /dev/urandom >"$T/up.bin"
h2 $PORT --http2 --data-binary "@$T/up.bin" -o "$T/echo.out" \
    "https://a.test:$PORT/echo"
check "a 1 MiB POST over HTTP/2 comes back intact" \
    cmp -s "$T/up.bin" "$T/echo.out"
h2 $PORT --http2 -H 'Transfer-Encoding:' -H 'Content-Length:' \
    --data-binary "@$T/up.bin" -o "$T/echo2.out" "https://a.test:$PORT/echo"
check "and without a Content-Length (sent on chunked)" \
    cmp -s "$T/up.bin" "$T/echo2.out"
h2 $PORT --http2 -o "$T/big.out" "https://a.test:$PORT/big?5000000"
check "a 5 MB answer arrives whole" [ "$(wc -c <"$T/big.out")" -eq 5000000 ]

# 3b. answers as the proxy has them, each on its own stream
h2 $PORT --http2 -o "$T/chunked.out" "https://a.test:$PORT/chunked?100000"
check "a chunked answer arrives whole ($(wc -c <"$T/chunked.out"))" \
    [ "$(wc -c <"$T/chunked.out")" -eq 100000 ]
h2 $PORT --http2 -sSI "https://a.test:$PORT/big?1234" >"$T/head.out"
check "HEAD: the head alone, its content-length kept" sh -c \
    "grep -q '^HTTP/2 200' '$T/head.out' &&
    grep -qi '^content-length: 1234' '$T/head.out'"
h2 $PORT --http2 -H 'TE: trailers' -D "$T/tr.hdr" -o "$T/tr.out" \
    "https://a.test:$PORT/trailers"
tr -d '\r' <"$T/tr.hdr" >"$T/tr.txt"
check "an HTTP/1.1 workload's trailers come as HTTP/2 trailers" sh -c \
    "grep -q 'with trailers' '$T/tr.out' &&
    grep -qi '^x-checksum: abc\$' '$T/tr.txt' &&
    grep -qi '^grpc-status: 0\$' '$T/tr.txt'"
check "but not the connection-specific one among them" \
    sh -c "! grep -qi '^connection:' '$T/tr.txt'"
h2 $PORT --http2 -D "$T/tr2.hdr" -o /dev/null "https://a.test:$PORT/trailers"
check "and none to a client that did not ask for them (TE: trailers)" \
    sh -c "! grep -qi '^x-checksum' '$T/tr2.hdr'"
h2 $PORT --http2 -o "$T/reset.out" "https://a.test:$PORT/reset" 2>/dev/null
rc=$?
check "an answer cut short ends in a reset stream (curl $rc)" [ "$rc" -ne 0 ]
out=$(h2 $PORT --http2 -o /dev/null -w '%{http_code} %{http_version}' \
    -H 'Host: nowhere.test' "https://a.test:$PORT/")
check "an unknown :authority gets 404 ($out)" [ "$out" = "404 2" ]
out=$(h2 $PORT --http2 -o /dev/null -w '%{http_code} %{http_version}' \
    -H 'Host: bad.test' "https://a.test:$PORT/")
check "a workload that fails to wake: 503 on its stream ($out)" \
    [ "$out" = "503 2" ]

# 4. a body held across a wake
"$ORCHCTL" -s "$SOCK" suspend a >/dev/null 2>&1
wait_for 10 sh -c "'$ORCHCTL' -s '$SOCK' show workload a | grep -q sleeping"
h2 $PORT --http2 --data-binary "@$T/up.bin" -o "$T/echo3.out" \
    "https://a.test:$PORT/echo"
check "a 1 MiB POST to a sleeping workload is held and arrives intact" \
    cmp -s "$T/up.bin" "$T/echo3.out"
check "after the second start of a ($(lines "$T/a.starts"))" \
    [ "$(lines "$T/a.starts")" -eq 2 ]

# 5. h2load against a sleeping workload: all answered, one start
"$ORCHCTL" -s "$SOCK" suspend b >/dev/null 2>&1
wait_for 10 sh -c "'$ORCHCTL' -s '$SOCK' show workload b | grep -q sleeping"
timeout 120 h2load -n 1000 -c 10 -m 10 --connect-to=127.0.0.1:$PORT \
    "https://b.test:$PORT/" >"$T/h2load.out" 2>&1
check "h2load: 1000 requests, 1000 succeeded, all 2xx" \
    sh -c "grep -q '1000 total, .*1000 succeeded' '$T/h2load.out' &&
    grep -q 'status codes: 1000 2xx' '$T/h2load.out'"
grep -q 'h2 ' "$T/h2load.out" ||
    grep -q 'Application protocol: h2' "$T/h2load.out"
check "h2load spoke h2" grep -q 'Application protocol: h2' "$T/h2load.out"
check "b started once more for all of them ($(lines "$T/b.starts"))" \
    [ "$(lines "$T/b.starts")" -eq 2 ]

# 6. listeners: prior knowledge, plain, http2 off
out=$(curl -sS -m 20 --http2-prior-knowledge -o /dev/null \
    -w '%{http_code} %{http_version}' -H 'Host: a.test' "http://127.0.0.1:$PK/")
check "http2 prior knowledge: the preface is taken ($out)" [ "$out" = "200 2" ]
out=$(curl -sS -m 20 -o /dev/null -w '%{http_code} %{http_version}' \
    -H 'Host: a.test' "http://127.0.0.1:$PK/")
check "and HTTP/1.1 still served there ($out)" [ "$out" = "200 1.1" ]
out=$(curl -s -m 20 --http2-prior-knowledge -o /dev/null \
    -w '%{http_code}' -H 'Host: a.test' "http://127.0.0.1:$PLAIN/")
check "a plain listener refuses the preface ($out)" [ "$out" != 200 ]
out=$(curl -sS -m 20 --http2 -o /dev/null -w '%{http_code} %{http_version}' \
    -H 'Upgrade: h2c' -H 'Connection: Upgrade, HTTP2-Settings' \
    -H 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA' \
    -H 'Host: a.test' "http://127.0.0.1:$PLAIN/")
check "and an h2c upgrade stays HTTP/1.1 ($out)" [ "$out" = "200 1.1" ]
out=$(h2 $OFF --http2 -o /dev/null -w '%{http_code} %{http_version}' \
    "https://a.test:$OFF/")
check "http2 off: HTTP/1.1 over TLS ($out)" [ "$out" = "200 1.1" ]

# 7. gRPC through orchd, "upstream h2c": the first call wakes the service
if [ -n "$GRPC" ]; then
	$GRPC call 127.0.0.1:$PK g.test >"$T/grpc.out" 2>&1
	check "gRPC unary call waking it: reply, status, trailer" \
	    grep -qx 'unary cprg olleh OK unary-10' "$T/grpc.out"
	check "gRPC server-streaming call: 5 messages, status, trailer" \
	    grep -qx 'stream 5 tick 4 OK stream' "$T/grpc.out"
	check "gRPC error status, details and trailer intact" \
	    grep -qx 'fail NOT_FOUND no such thing failed' "$T/grpc.out"
	check "one start of the gRPC service ($(lines "$T/g.starts"))" \
	    [ "$(lines "$T/g.starts")" -eq 1 ]
	$GRPC call 127.0.0.1:$PORT g.test "$P/ca.crt" >"$T/grpcs.out" 2>&1
	check "gRPC over TLS (ALPN h2): the same three answers" \
	    sh -c "[ \$(wc -l <'$T/grpcs.out') -eq 3 ] &&
	    cmp -s '$T/grpc.out' '$T/grpcs.out'"
	[ "$FAILED" -eq 0 ] || cat "$T/grpc.out" "$T/grpcs.out"
	# a stream in flight while the service is replaced in place: the
	# hold waits for it (update.sh has the rest of replacements)
	$GRPC slow 127.0.0.1:$PK g.test 5 400 >"$T/grpcslow.out" 2>&1 &
	gp=$!
	sleep 0.8
	out=$("$ORCHCTL" -s "$SOCK" restart g 2>&1)
	check "orchctl restart of g with a gRPC stream in flight ($out)" \
	    [ "$out" = "g is running again" ]
	wait $gp
	check "... the stream ends whole first ($(cat "$T/grpcslow.out"))" \
	    grep -qx 'slow 5 tick 4 OK stream' "$T/grpcslow.out"
	check "... then g starts again ($(lines "$T/g.starts") starts)" \
	    [ "$(lines "$T/g.starts")" -eq 2 ]
else
	echo "skipped: gRPC (no python3-grpcio)"
fi

# 8. /metrics counts requests by protocol
curl -sS -m 20 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
h2n=$(awk '/^orchd_requests_by_protocol_total{protocol="h2"}/ { print $2 }' \
    "$T/metrics")
h1n=$(awk '/^orchd_requests_by_protocol_total{protocol="http\/1.1"}/ {
    print $2 }' "$T/metrics")
check "/metrics: h2 requests counted ($h2n), HTTP/1.1 apart ($h1n)" \
    sh -c "[ '${h2n:-0}' -ge 1010 ] && [ '${h1n:-0}' -ge 3 ] &&
    [ '${h1n:-0}' -lt 10 ]"

# 9. attacks, on the prior knowledge listener: each bounded, and curl on
# a connection of its own served meanwhile
attack() {	# attack NAME EXPECTED-PATTERN
	$ATTACK "$1" $PK a.test >"$T/$1.out" 2>&1 &
	apid=$!
	sleep 1
	t0=$(now_ms)
	out=$(h2 $PORT --http2 -o /dev/null -w '%{http_code} %{http_version}' \
	    "https://a.test:$PORT/")
	t1=$(now_ms)
	wait_gone $apid 90 || kill $apid 2>/dev/null
	wait $apid 2>/dev/null
	check "$1: $(cat "$T/$1.out")" grep -qE "$2" "$T/$1.out"
	check "curl served during $1 ($out, $((t1 - t0)) ms)" \
	    sh -c "[ '$out' = '200 2' ] && [ $((t1 - t0)) -lt 10000 ]"
}
if [ -n "$ATTACK" ]; then
	attack rapid-reset 'goaway=1 closed=1'
	attack continuation 'closed=1'
	attack hpack-bomb 'first=answered bomb=(reset|goaway)'
	attack max-streams 'answered=50 refused=150'
	attack zero-window 'closed=1'
	attack ping-flood 'closed=1'
	check "the gateway still runs" sh -c "kill -0 $(child gateway)"
else
	echo "skipped: the attacks (no python3-hpack)"
fi

# 9. going away gracefully: a listener a reload removes, then the stop
if [ -n "$ATTACK" ]; then
	$ATTACK goaway $DROP a.test tls "$P/ca.crt" >"$T/goaway.out" 2>&1 &
	gpid=$!
	sleep 1
	grep -v "port $DROP " "$T/orchd.conf" >"$T/orchd.conf.new" &&
	    cat "$T/orchd.conf.new" >"$T/orchd.conf"
	"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
	wait_gone $gpid 30 || kill $gpid 2>/dev/null
	wait $gpid 2>/dev/null
	check "a listener removed: GOAWAY without error naming the stream \
under way, which is answered ($(cat "$T/goaway.out"))" [ "$(cat \
	    "$T/goaway.out")" = \
	    "goaway=1 last=1 error=0 status=200 complete=1 closed=1" ]
	check "and the listener is gone" sh -c "! curl -s -m 5 -k \
	    'https://127.0.0.1:$DROP/' >/dev/null 2>&1"
fi
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
[ "$FAILED" -eq 0 ] || tail -n 40 "$T/orchd.log"
if [ -n "$ATTACK" ]; then
	$ATTACK goaway $PORT a.test tls "$P/ca.crt" >"$T/stop.out" 2>&1 &
	gpid=$!
	sleep 1
	stop_orchd
	wait_gone $gpid 30 || kill $gpid 2>/dev/null
	wait $gpid 2>/dev/null
	check "orchd stopping: its HTTP/2 clients get a GOAWAY without \
error naming the stream under way ($(cat "$T/stop.out"))" \
	    grep -q '^goaway=1 last=1 error=0 ' "$T/stop.out"
else
	stop_orchd
fi
e2e_done
