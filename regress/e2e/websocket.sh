#!/bin/sh
# An Upgrade through the gateway: after the workload's 101, bytes go both
# ways until a side closes, and the open tunnel keeps the workload from
# being suspended as idle.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports PORT WPORT
mkdir -p "$T/log" "$T/bin"
testhttp_bin
: >"$T/starts"
chmod 0666 "$T/starts"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $PORT
reaper interval 1s

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $WPORT $T/starts"
	port $WPORT
	idle timeout 2s
}
CONF

check "orchd starts" start_orchd

UPGRADE='GET /ws HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'

# the upgrade wakes the workload; the tunnel stays open 6 s, three times
# the idle timeout, with a message at each end of it
(printf "$UPGRADE"; printf 'first-message'; sleep 6; printf 'second-message') |
    "$T/bin/testhttp" raw "$PORT" 3 >"$T/ws.out" &
ws=$!
sleep 5
check "the workload is not suspended while the tunnel is open" \
    sh -c "! grep -q 'workload app: running -> suspending' '$T/orchd.log'"
wait $ws
check "the workload answered 101" grep -q '^HTTP/1.1 101' "$T/ws.out"
check "the Upgrade reached the workload and came back" \
    sh -c "tr -d '\r' <'$T/ws.out' | grep -qi '^upgrade: websocket'"
check "bytes sent after the 101 come back" grep -q 'first-message' "$T/ws.out"
check "bytes sent 6 s later come back too" grep -q 'second-message' "$T/ws.out"
check "one start served it all" [ "$(grep -c start "$T/starts")" -eq 1 ]

check "once the tunnel closed, the idle workload is suspended" \
    wait_for 10 grep -q 'workload app: running -> suspending (idle)' \
    "$T/orchd.log"

# a request for an upgrade the workload refuses is an ordinary answer
printf 'GET /nows HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 3 >"$T/no.out"
check "a refused upgrade is answered over HTTP, no tunnel" \
    grep -q '^HTTP/1.1 200' "$T/no.out"

# h2c is no upgrade: the workload gets an ordinary request, without
# Upgrade, the Connection naming it, or HTTP2-Settings (h2c smuggling)
H2C='Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n'
printf "GET /headers HTTP/1.1\r\nHost: app.test\r\n$H2C\r\n" |
    "$T/bin/testhttp" raw "$PORT" 2 | tr -d '\r' >"$T/h2c.out"
check "an h2c upgrade is answered as a plain request" \
    grep -q '^HTTP/1.1 200' "$T/h2c.out"
check "the workload saw no Upgrade, Connection or HTTP2-Settings" \
    sh -c "sed '1,/^\$/d' '$T/h2c.out' | grep -q '^GET /headers' &&
    ! sed '1,/^\$/d' '$T/h2c.out' | grep -Eqi '^(upgrade|connection|http2-settings):'"
# HTTP2-Settings alone, not named by Connection, is left out too
printf 'GET /headers HTTP/1.1\r\nHost: app.test\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nHTTP2-Settings: AAMAAABk\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 2 | tr -d '\r' >"$T/h2c2.out"
check "an unnamed HTTP2-Settings does not reach the workload either" \
    sh -c "grep -q '^HTTP/1.1 200' '$T/h2c2.out' &&
    ! sed '1,/^\$/d' '$T/h2c2.out' | grep -Eqi '^(upgrade|http2-settings):'"
# a workload that switches anyway opens no tunnel
printf "GET /ws HTTP/1.1\r\nHost: app.test\r\n$H2C\r\nsmuggled" |
    "$T/bin/testhttp" raw "$PORT" 3 >"$T/h2c101.out"
check "a 101 to an h2c request is a 502, no tunnel" \
    sh -c "head -n 1 '$T/h2c101.out' | grep -q '^HTTP/1.1 502' &&
    ! grep -q '^HTTP/1.1 101' '$T/h2c101.out'"
# websocket listed after h2c: websocket alone goes through
printf 'GET /headers HTTP/1.1\r\nHost: app.test\r\nUpgrade: h2c, websocket\r\nConnection: Upgrade\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 2 | tr -d '\r' >"$T/both.out"
check "Upgrade: h2c, websocket reaches the workload as websocket alone" \
    sh -c "sed '1,/^\$/d' '$T/both.out' | grep -qix 'upgrade: websocket'"

# many echoes through one tunnel, both ways at once
head -c 200000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 200000 >"$T/payload"
(printf "$UPGRADE"; cat "$T/payload"; sleep 2) |
    "$T/bin/testhttp" raw "$PORT" 3 | tr -d '\r' | sed '1,/^$/d' >"$T/echo.out"
check "200 KB through the tunnel come back intact" \
    sh -c "head -c 200000 '$T/echo.out' | cmp -s - '$T/payload'"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
